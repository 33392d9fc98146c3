"""Mystic Lands rules, one by one: the manual's examples, setup, Night, Day,
Vales, Dusk, the end and the named cards (docs/mystic-lands-rules.md)."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from vale_sim.games.mystic_lands import cards as C
from vale_sim.games.mystic_lands.cards import Advance, Effect, Icons
from vale_sim.games.mystic_lands.policy import PRESETS, Policy
from vale_sim.games.mystic_lands.records import TurnRecord
from vale_sim.games.mystic_lands.reference import cardmath as M
from vale_sim.games.mystic_lands.reference.cardmath import Card
from vale_sim.games.mystic_lands.reference.game import MysticLandsGame
from vale_sim.games.mystic_lands.rules import INTERPRETATIONS, Rules

ROOT = Path(__file__).parents[1]
CS = C.load_card_set()
ADV = CS.advance_id
BASE = {s.name: i for i, s in enumerate(CS.starting)}
# Buys nothing, enchants nothing: for tests of one rule at a time.
IDLE = Policy(name="idle", min_score=10**6, vale_min_score=10**6)


def new_game(players=2, policy=IDLE, cs=CS, **rules) -> MysticLandsGame:
    g = MysticLandsGame(cs, players, 1, 0, [policy] * players, Rules(**rules))
    g._rec = TurnRecord(round=1, player=0, turn=1)
    return g


def card(base: str, *advances: str, cs=CS) -> Card:
    c = Card(uid=99, base=BASE[base])
    for name in advances:
        a = cs.advance_id(name)
        c.slots[cs.advances[a].position] = a
    return c


def put_in_land(g, p, *cards_):
    """Replace the player's first cards by these, in the Land."""
    for k, c in enumerate(cards_):
        c.uid = p.land[k] if k < len(p.land) else p.deck[0]
        if c.uid in p.deck:
            p.deck.remove(c.uid)
            p.land.append(c.uid)
        p.cards[c.uid] = c


def with_advance(adv: Advance) -> C.CardSet:
    return dataclasses.replace(CS, advances=CS.advances + (adv,))


# -- the manual's examples -------------------------------------------------------------
@pytest.mark.parametrize("choice,expect", [("mana", (1, 0, 0)), ("spirit", (0, 2, 0)),
                                           ("vp", (0, 0, 1))])
def test_withered_day_gains_only_the_chosen_resource(choice, expect):
    """'If you chose to gain mana this Day phase, you would gain 1 mana, 0 spirit, and 0 vp.'"""
    bloom = Advance(name="Example Bloom", level=1, copies=1, cost=7, position=2,
                    icons=Icons(mana=1, spirit=1, vp=1))
    echo = Advance(name="Example Echo", level=1, copies=1, cost=4, position=3,
                   effects=(Effect("day", "gain", 1, resource="spirit"),), icons=Icons())
    cs = with_advance(bloom)
    cs = dataclasses.replace(cs, advances=cs.advances + (echo,))
    g = new_game(policy=dataclasses.replace(IDLE, wither_choice=choice), cs=cs)
    p = g.players[0]
    put_in_land(g, p, card("Druid", "Example Bloom", "Example Echo", cs=cs))
    p.withered = True
    before = (p.mana, p.spirit, p.vp)
    rec = TurnRecord(round=1, player=0, turn=1)
    g._rec = rec
    g.day(p, rec)
    assert (p.mana - before[0], p.spirit - before[1], p.vp - before[2]) == expect
    assert rec.chosen == choice
    # not Withered: all three, and the day effect's spirit
    g2 = new_game(cs=cs)
    q = g2.players[0]
    put_in_land(g2, q, card("Druid", "Example Bloom", "Example Echo", cs=cs))
    before = (q.mana, q.spirit, q.vp)
    g2.day(q, g2._rec)
    assert (q.mana - before[0], q.spirit - before[1], q.vp - before[2]) == (1, 2, 1)


def test_spirit_cave_costs_4_with_one_opponent_cube():
    g = new_game(players=3)
    cave = CS.vale_id("Spirit Cave")
    s = next(j for j in CS.map.spaces[CS.map.start].links)       # a Vale next to the start
    g.place_vale(s, cave)
    opp, me = g.players[1], g.players[0]
    g.enchant(opp, s, 0, 5, g._rec)                              # the opponent: top row, 5
    spots = [x for x in g.legal_spots(me) if x[0] == s]
    assert spots == [(s, 1, 4), (s, 2, 4)]                       # row 1 is blocked; cost 4
    me.spirit = 4
    g.enchant(me, s, 1, 4, g._rec)                               # "the upper 1 vp spot"
    assert me.spirit == 0 + 2 and g.space_rows(s)[1].vp == 1      # paid 4, the spot gives 2
    third = g.players[2]
    assert [x for x in g.legal_spots(third) if x[0] == s] == [(s, 2, 3)]   # two others: 3


def test_sleeving_order_and_sun_cloud_examples():
    # "You cannot sleeve an advance with a sun onto a card that has an exposed sun on it."
    arid = card("Arid Land")
    assert M.exposed_suns(CS, arid) == 1
    assert not M.can_sleeve(CS, arid, ADV("Sun Parrot"))
    assert M.can_sleeve(CS, arid, ADV("Morning Mist"))
    # a background sun behind a foreground cloud that already covers a sun
    misted = card("Arid Land", "Morning Mist")
    assert M.exposed_suns(CS, misted) == 0
    assert M.can_sleeve(CS, misted, ADV("Firefly Glade"))
    misted.slots[CS.advances[ADV("Firefly Glade")].position] = ADV("Firefly Glade")
    assert M.exposed_suns(CS, misted) == 0 and M.all_suns(CS, misted) == 2
    # a foreground sun over a background cloud that covers a sun: the new sun shows
    mangrove = card("Arid Land", "Mangrove Forest")
    assert M.exposed_suns(CS, mangrove) == 0
    assert M.can_sleeve(CS, mangrove, ADV("Sun Parrot"))
    mangrove.slots[CS.advances[ADV("Sun Parrot")].position] = ADV("Sun Parrot")
    assert M.exposed_suns(CS, mangrove) == 1
    # a cloud covers only its own half: a bottom cloud leaves the top sun
    assert M.exposed_suns(CS, card("Arid Land", "Ancient Willow")) == 0     # top-bg cloud
    low = dataclasses.replace(CS.advances[ADV("Morning Mist")], name="Low Mist", position=2)
    cs = with_advance(low)
    assert M.exposed_suns(cs, card("Arid Land", "Low Mist", cs=cs)) == 1
    # one Advance per position
    assert not M.can_sleeve(CS, card("Arid Land", "Morning Mist"), ADV("Wild Orchard"))


def test_rain_icons_give_a_token_when_first_covered():
    g = new_game()
    p = g.players[0]
    arid = card("Arid Land")                                     # rain icon in the bottom half
    put_in_land(g, p, arid)
    supply = g.rain_supply
    g.sleeve(p, ADV("Meadow"), arid.uid, g._rec)                 # bottom-bg covers it
    assert p.rain == 1 and g.rain_supply == supply - 1
    g.sleeve(p, ADV("Rain Lily"), arid.uid, g._rec)              # already covered
    assert p.rain == 1
    fertile = card("Fertile Land")                               # rain icon on top
    put_in_land(g, p, arid, fertile)
    g.sleeve(p, ADV("Morning Mist"), fertile.uid, g._rec)
    assert p.rain == 2
    assert M.rain_covered(CS, card("Sacred Land"), ADV("Morning Mist")) == 0
    # an empty supply gives nothing (M3)
    g.rain_supply = 0
    wild = card("Wild Land")
    put_in_land(g, p, arid, fertile, wild)
    g.sleeve(p, ADV("Wild Orchard"), wild.uid, g._rec)
    assert p.rain == 2


# -- setup ----------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_counts_and_seat_resources(players):
    g = MysticLandsGame(CS, players, 3, 0)
    seats = sorted(g.players, key=lambda p: p.seat)
    assert seats[0].index == g.start
    expect = [(0, 0), (1, 0), (1, 1), (2, 1)][:players]
    assert [(p.mana, p.spirit) for p in seats] == expect
    druids = [p.druid for p in g.players]
    assert len(set(druids)) == players and all(CS.advances[d].level == 0 for d in druids)
    assert len(g.druid_deck) == len(CS.deck_list(0)) - players
    for p in g.players:
        assert sorted(p.deck) == list(range(14)) and not p.land and not p.discard
        names = sorted(CS.starting[c.base].name for c in p.cards)
        assert names.count("Arid Land") == 8 and names.count("Druid") == 1
        druid_card = next(c for c in p.cards if CS.starting[c.base].druid)
        assert druid_card.advances() == [p.druid]
    assert len(g.market[1]) == 6 and len(g.market[2]) == 3
    assert all(CS.advances[a].level == 1 for a in g.market[1])
    assert all(CS.advances[a].level == 2 for a in g.market[2])
    for s, sp in enumerate(CS.map.spaces):
        if sp.kind in ("I", "II"):
            assert CS.vales[g.layout[s]].level == (1 if sp.kind == "I" else 2)
            assert g.revealed[s] == (s in CS.map.spaces[CS.map.start].links)
        else:
            assert g.layout[s] == -1
    assert g.rain_supply == Rules().rain_supply


# -- Night --------------------------------------------------------------------------------------
def night_with(deck_bases, policy, rain=0, **rules):
    g = new_game(policy=policy, **rules)
    p = g.players[0]
    p.cards = [Card(uid=k, base=BASE[b]) for k, b in enumerate(deck_bases)]
    p.deck, p.discard, p.land, p.rain = list(range(len(deck_bases))), [], [], rain
    g.rain_supply -= rain
    rec = TurnRecord(round=1, player=0, turn=1)
    g.night(p, rec)
    return g, p, rec


ALWAYS = dataclasses.replace(IDLE, rest_risk_permille=1000, rain="never")


def test_the_on_deck_sun_counts_and_a_fourth_sun_withers():
    # Land 3 Arid + on-deck Arid = 4 suns after the third Grow
    g, p, rec = night_with(["Arid Land"] * 6, ALWAYS)
    assert rec.withered and rec.grows == 3 and p.withered and p.withers == 1
    assert M.exposed_suns(CS, p.cards[p.deck[0]]) == 1          # the on-deck card's sun
    # a Rain token on the fourth sun prevents it (and the fifth withers)
    g, p, rec = night_with(["Arid Land"] * 6, dataclasses.replace(ALWAYS, rain="needed"), rain=1)
    assert rec.withered and rec.grows == 4 and rec.rain_placed == 1
    # the wither threshold is a rule option
    g, p, rec = night_with(["Arid Land"] * 6, ALWAYS, wither_suns=5)
    assert rec.grows == 4


def test_rest_rules_cautious_balanced_greedy():
    deck = ["Arid Land", "Arid Land", "Arid Land", "Fertile Land", "Arid Land", "Fertile Land",
            "Fertile Land", "Sacred Land"]
    # after 2 Grows: Land 2 suns + on-deck Arid = 3 uncovered suns; 5 cards below, 1 with a sun
    _, _, rec = night_with(deck, PRESETS["cautious"])
    assert rec.grows == 2 and not rec.withered and rec.overgrows == 0
    _, _, rec = night_with(deck, PRESETS["greedy"])              # 1/5 <= 500/1000: Overgrow
    assert rec.grows >= 3 and rec.overgrows >= 1
    _, _, rec = night_with(["Fertile Land"] * 4, PRESETS["cautious"])
    assert rec.out_of_cards and rec.grows == 4                   # M15: the Night just ends


def test_first_grow_is_mandatory():
    never = dataclasses.replace(IDLE, rest_risk_permille=0)
    _, p, rec = night_with(["Arid Land", "Arid Land", "Arid Land", "Arid Land"], never)
    assert rec.grows >= 1


# -- Day ----------------------------------------------------------------------------------------
def test_buy_at_most_two_and_mana_to_zero_only_if_bought():
    buyer = dataclasses.replace(IDLE, min_score=-10**6)
    g = new_game(policy=buyer)
    p = g.players[0]
    p.mana = 40
    rec = TurnRecord(round=1, player=0, turn=1)
    g._rec = rec
    g.day(p, rec)
    assert len(rec.bought) == 2 and len(p.held) == 2
    assert len(g.market[1]) == 6 and all(a >= 0 for a in g.market[1] + g.market[2])  # refilled
    g.dusk(p, rec)
    assert p.mana == 0
    g2 = new_game()
    q = g2.players[0]
    q.mana = 9
    g2.day(q, g2._rec)
    g2.dusk(q, g2._rec)
    assert q.mana == 9                                           # kept without buying


def test_market_grows_at_5_and_15_vp():
    g = new_game()
    p = g.players[0]
    removed_from = list(g.market[1])
    p.vp = 5
    g.day(p, g._rec)
    assert len(g.market[1]) == 5 and len(g.market[2]) == 4 and g.growths == 1
    assert len([a for a in removed_from if a not in g.market[1]]) >= 1
    q = g.players[1]
    q.vp = 14
    g.day(q, g._rec)
    assert g.growths == 1
    q.vp = 15
    g.day(q, g._rec)
    assert len(g.market[1]) == 4 and len(g.market[2]) == 5 and g.growths == 2
    g.day(q, g._rec)
    assert g.growths == 2                                        # only twice


# -- Vales --------------------------------------------------------------------------------------
def test_vale_paths_rows_and_reveal():
    g = new_game(players=2)
    me, opp = g.players
    sp = CS.map.spaces
    start_links = set(sp[CS.map.start].links)
    reachable = {s for s, _, _ in g.legal_spots(me)}
    assert reachable == start_links                              # only from the start
    s = min(start_links)
    g.enchant(me, s, 0, 0, g._rec)
    assert all(g.revealed[j] for j in sp[s].links)               # connected Vales turn up
    after = {x[0] for x in g.legal_spots(me)}
    assert s not in after                                        # one cube per Vale
    assert after == (start_links | set(sp[s].links)) - {s, CS.map.start}
    assert (s, 0) not in [(a, b) for a, b, _ in g.legal_spots(opp)]   # row taken
    me.cubes += [(-1, 0)] * (Rules().cubes - 1)                  # out of cubes
    assert g.legal_spots(me) == []


def test_end_trigger_bonus_and_one_bonus_only():
    g = new_game()
    p, q = g.players
    p.vp = 25
    rec = TurnRecord(round=1, player=0, turn=1)
    g._rec = rec
    g.day(p, rec)
    assert rec.triggered and g.trigger == p.index
    g.dusk(p, rec)
    assert p.vp == 30 and p.bonus == 5
    q.vp = 30
    rec2 = TurnRecord(round=1, player=1, turn=1)
    g._rec = rec2
    g.day(q, rec2)
    g.dusk(q, rec2)
    assert not rec2.triggered and q.bonus == 0                   # M14


def test_ten_cubes_trigger_the_end():
    g = new_game()
    p = g.players[0]
    p.cubes = [(-1, 0)] * 10
    g.day(p, g._rec)
    assert g.trigger == p.index


# -- named cards -------------------------------------------------------------------------------
def test_sun_parrot_becomes_the_on_deck_card():
    g = new_game()
    p = g.players[0]
    parrot = card("Fertile Land", "Sun Parrot")
    put_in_land(g, p, parrot)
    old_top = p.deck[0]
    g.dusk(p, g._rec)
    assert p.deck[:2] == [parrot.uid, old_top] and parrot.uid not in p.discard


def test_hibiscus_dryad_plays_the_on_deck_card():
    g = new_game()
    p = g.players[0]
    dryad, meadow = card("Wild Land", "Hibiscus Dryad"), card("Arid Land", "Meadow")
    put_in_land(g, p, dryad, meadow)
    top = p.deck[0]
    n = len(p.land)
    g.day(p, g._rec)
    assert len(p.land) == n + 1 and p.land[-1] == top and p.deck[0] != top
    g2 = new_game()
    q = g2.players[0]
    put_in_land(g2, q, card("Wild Land", "Hibiscus Dryad"), card("Sacred Land"))
    n = len(q.land)
    g2.players[0].wild = C.ASPECTS.index("blue")                 # the wild is not green
    g2.day(q, g2._rec)
    assert len(q.land) == n                                      # only 1 green card


def test_turtle_nesting_ground_swaps_with_the_on_deck_card():
    g = new_game()
    p = g.players[0]
    p.cards = [card("Sacred Land", "Turtle Nesting Ground"), card("Arid Land"),
               card("Fertile Land", "Great Oak"), card("Fertile Land")]
    for k, c in enumerate(p.cards):
        c.uid = k
    p.deck, p.land, p.discard = [2, 3], [0, 1], []
    g.night_swaps(p)
    assert p.land == [0, 2] and p.deck[0] == 1                   # the Arid Land goes on deck


def test_sun_priestess_discount_never_below_zero_and_printed_cost_limit():
    g = new_game(players=3, policy=PRESETS["balanced"])
    me = g.players[0]
    s = min(CS.map.spaces[CS.map.start].links)
    g.place_vale(s, CS.vale_id("Whispering Glade"))                 # cost 2
    g.enchant(g.players[1], s, 0, 2, g._rec)
    me.spirit = 0
    pick = g.choose_enchant(me, discount=2, max_printed=5)
    assert pick is not None and pick[2] == 0                     # 2 - 1 - 2 -> 0, not -1
    g.place_vale(s, CS.vale_id("Crystal Spire"))                    # printed 6 > 5
    others = [x for x in g.legal_spots(me) if x[0] != s]
    for t in {x[0] for x in others}:
        if CS.map.spaces[t].kind != "small":
            g.place_vale(t, CS.vale_id("Crystal Spire"))
    me.spirit = 99
    pick = g.choose_enchant(me, discount=2, max_printed=5)
    assert pick is None or CS.map.spaces[pick[0]].kind == "small"


def test_great_table_once_in_night_or_day():
    g = new_game()
    p = g.players[0]
    s = min(CS.map.spaces[CS.map.start].links)
    g.place_vale(s, CS.vale_id("Great Table"))
    g.enchant(p, s, 0, 0, g._rec)
    mana = p.mana
    rec = TurnRecord(round=1, player=0, turn=1)
    g._rec = rec
    g.night(p, rec)
    night_mana = p.mana
    assert night_mana >= mana + 1 and s in p.used_nod
    land_mana = sum(M.resources(CS, p.cards[u])[0] for u in p.land)
    g.day(p, rec)
    assert p.mana == night_mana + land_mana                      # not again in the Day


def test_grasping_vines_removes_a_land_card_for_good():
    g = new_game(policy=dataclasses.replace(IDLE, remove_below=0))
    p = g.players[0]
    s = min(CS.map.spaces[CS.map.start].links)
    g.place_vale(s, CS.vale_id("Grasping Vines"))
    arid, fert = card("Arid Land"), card("Fertile Land")
    put_in_land(g, p, fert, arid)
    g.enchant(p, s, 0, 0, g._rec)
    g.activations(p, g._rec)                                     # square 1: remove a card
    assert p.removed == [arid.uid] and arid.uid not in p.land
    assert p.track[s] == 1 and p.index in g.track_occ[s][0]


def test_activation_blocked_unless_refreshed_by_ent_guardian():
    g = new_game()
    me, opp = g.players
    s = min(CS.map.spaces[CS.map.start].links)
    g.place_vale(s, CS.vale_id("Sky Temple"))                       # track VP 1, 1, 2
    g.enchant(opp, s, 0, 0, g._rec)
    g.activations(opp, g._rec)
    assert opp.track[s] == 1 and opp.vp == 1
    g.enchant(me, s, 1, 0, g._rec)
    g.activations(me, g._rec)
    assert me.track[s] == 0                                      # the square is held
    g.refresh(me, g._rec)                                        # Ent Guardian's refresh shares
    assert me.track[s] == 1 and sorted(g.track_occ[s][0]) == [0, 1] and me.vp == 1


def test_satyr_home_sleeves_a_market_advance_without_buying():
    g = new_game()
    p = g.players[0]
    sacred = card("Sacred Land")
    put_in_land(g, p, sacred)
    market = list(g.market[1])
    g.sleeve_market(p, 1, g._rec)
    gained = [a for a in market if a not in g.market[1]]
    assert len(gained) == 1 and gained[0] in p.cards[sacred.uid].advances()
    assert p.bought == 0 and p.acquired == {gained[0]: 1}


def test_mangrove_forest_replaces_an_occupied_position():
    g = new_game(policy=PRESETS["balanced"])
    p = g.players[0]
    c = card("Fertile Land", "Meadow")
    put_in_land(g, p, c)
    p.held = [ADV("Great Oak")]                                  # bottom-bg, like Meadow
    g.replace_sleeve(p, g._rec)
    assert c.slots[3] == ADV("Great Oak") and p.held == []


def test_sunlight_valley_counts_uncovered_suns_everywhere():
    g = new_game()
    p = g.players[0]
    s = min(CS.map.spaces[CS.map.start].links)
    g.place_vale(s, CS.vale_id("Sunlight Valley"))
    g.enchant(p, s, 0, 0, g._rec)
    suns = sum(M.exposed_suns(CS, c) for c in p.cards)          # 8 Arid Land
    assert suns == 8
    adv, vale, eff = g.final_parts(p)
    assert eff == 8 // 3 and vale == 2
    p.cards[p.deck[0]].slots[0] = ADV("Morning Mist")            # cover one in the deck
    covered = sum(M.exposed_suns(CS, c) for c in p.cards)
    assert g.final_parts(p)[2] == covered // 3


# -- the documentation --------------------------------------------------------------------------
def test_every_interpretation_is_a_section_of_the_rules_doc():
    doc = (ROOT / "docs" / "mystic-lands-rules.md").read_text()
    headings = dict(re.findall(r"^### (M\d+)\. (.+)$", doc, re.M))
    assert sorted(n for n, _ in INTERPRETATIONS.values()) == sorted(headings)
    for section in ("## §1 Setup", "## §3 Night", "## §5 Day", "## §6 Vales", "## §7 End",
                    "## §8 Dusk", "## §9 Named cards"):
        assert section in doc
    for name in ("Ent Guardian", "Sequoia Forest", "Hibiscus Dryad", "Mangrove Forest",
                 "Sun Parrot", "Sun Priestess", "Turtle Nesting Ground", "Grasping Vines",
                 "Great Table", "Satyr Home", "Sunlight Valley", "Spirit Cave"):
        assert re.search(rf"^\* \*\*[^*]*{name}", doc, re.M), name


def test_the_x_table_quotes_the_bundled_set_and_rules():
    doc = " ".join((ROOT / "docs" / "mystic-lands-rules.md").read_text().split())
    assert f"| {len(CS.deck_list(1))} level 1, {len(CS.deck_list(2))} level 2 (estimate) |" in doc
    assert f"| {len(CS.vale_deck_list(1))} level 1, {len(CS.vale_deck_list(2))} level 2 (estimate) |" in doc
    assert f"| {len(CS.deck_list(0))} (estimate; 2 per player are dealt) |" in doc
    r = Rules()
    assert f"| {r.rain_supply} (estimate, M3) |" in doc
    assert f"| {r.market_l1}, {r.market_l2}, {r.market_dual} (manual) |" in doc
    assert f"| {r.end_vp}, {r.end_cubes}, {r.end_bonus} (manual) |" in doc
    assert f"| {r.cubes} (manual) |" in doc and f"| {r.wither_suns} (manual) |" in doc


def test_rule_options_from_a_table():
    from vale_sim.games.mystic_lands.rules import rules_from
    r = rules_from({"rain_supply": 8, "market_growth_vp": [4, 12], "held_end_vp": False})
    assert r.rain_supply == 8 and r.market_growth_vp == (4, 12) and not r.held_end_vp
    for bad, expect in [({"rain_suply": 3}, "unknown rule option 'rain_suply'"),
                        ({"end_vp": "25"}, "end_vp must be an integer"),
                        ({"cubes": -1}, "cubes must be >= 0"),
                        ({"market_growth_vp": [5]}, "one VP value per dual slot")]:
        with pytest.raises(ValueError, match=expect) as e:
            rules_from(bad, "my.toml")
        assert str(e.value).startswith("my.toml: ") and "\n" not in str(e.value)


def test_small_spaces_need_an_adjacent_vale_with_your_cube(tmp_path):
    text = (Path(C.__file__).parent / "data" / "maps" / "gateway-vale.toml").read_text()
    text = text.replace('links = ["I-2", "I-3"]', 'links = ["I-2", "I-3", "spring"]')
    (tmp_path / "m.toml").write_text(text)
    cs = dataclasses.replace(CS, map=C.load_map(tmp_path / "m.toml"))
    g = new_game(cs=cs)
    p = g.players[0]
    spring = next(i for i, s in enumerate(cs.map.spaces) if s.id == "spring")
    i1 = next(i for i, s in enumerate(cs.map.spaces) if s.id == "I-1")
    assert spring not in {x[0] for x in g.legal_spots(p)}      # linked to the start only
    g.place_vale(i1, CS.vale_id("Fox Den"))
    g.enchant(p, i1, 0, 0, g._rec)
    assert spring in {x[0] for x in g.legal_spots(p)}
