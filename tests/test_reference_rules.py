"""The rulebook's examples and rules, played by the reference engine on `core` data."""
from __future__ import annotations

import pytest

from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.policy import Policy
from vale_sim.games.mystic_vale.records import TurnRecord
from vale_sim.games.mystic_vale.reference import symbols as sym
from vale_sim.games.mystic_vale.reference.game import MysticValeGame, pay, play_reference
from vale_sim.games.mystic_vale.reference.player import OwnedVale, Player
from vale_sim.games.mystic_vale.reference.symbols import Card
from vale_sim.rng import GameRng
from vale_sim.games.mystic_vale.rules import Rules


@pytest.fixture(scope="module")
def core():
    return load_card_set("core")


def card(cs, *names) -> Card:
    """A sleeve holding the named advancements at their printed positions."""
    slots = [-1, -1, -1]
    for n in names:
        k = cs.advancement_id(n)
        assert slots[cs.advancements[k].position] == -1, f"{n} collides"
        slots[cs.advancements[k].position] = k
    return Card(slots)


def player_with_field(cs, field_cards, deck_cards=(), vales=()):
    """A player whose field holds `field_cards` (and whose deck holds the rest)."""
    cards = list(field_cards) + list(deck_cards)
    p = Player(cs, cards, rng=GameRng(1), vales=vales)
    p.field = list(range(len(field_cards)))
    p.deck = list(range(len(field_cards), len(cards)))
    return p


def printed(cs, c: Card, attr: str) -> int:
    return sym.slot_sum(cs, c, attr)


# -- Card Clarifications examples ------------------------------------------------

def test_feral_chieftain_with_stag_gives_3_vp(core):
    c = card(core, "Feral Chieftain", "Stag")
    p = player_with_field(core, [c])
    assert p.harvest_totals()["vp"] - printed(core, c, "harvest_vp") == 3


def test_woodland_warden_with_stag_gives_6_vp(core):
    c = card(core, "Woodland Warden", "Stag")
    p = player_with_field(core, [c])
    assert p.harvest_totals()["vp"] - printed(core, c, "harvest_vp") == 6


def test_dawnsinger_with_stag_gives_3_mana(core):
    c = card(core, "Dawnsinger", "Stag")
    p = player_with_field(core, [c])
    assert p.harvest_totals()["mana"] - printed(core, c, "mana") == 3


def test_grovetender_with_stag_has_2_growth(core):
    c = card(core, "Grovetender", "Stag")
    assert sym.growth(core, c) - printed(core, c, "growth") == 2


def test_gaias_chosen_counts_printed_symbols(core):
    c = card(core, "Gaia's Chosen", "Stag", "Dawnsinger")
    assert sym.endgame_vp(core, c) - printed(core, c, "end_vp") == 6
    c = card(core, "Gaia's Chosen", "Stag", "Lifebringer Seed")
    assert sym.endgame_vp(core, c) - printed(core, c, "end_vp") == 4
    assert sym.decay(core, c) == 0        # Lifebringer Seed: the card has no decay...
    # ...but Gaia's Chosen still counted the printed decay (the 4 above).


def test_aurora_with_nine_cards_gives_4_vp(core):
    aurora = card(core, "Aurora")
    blanks = [Card([-1, -1, -1]) for _ in range(8)]
    p = player_with_field(core, [aurora] + blanks)
    assert p.harvest_totals()["vp"] - printed(core, aurora, "harvest_vp") == 4


def test_vale_buying_example(core):
    """forest, forest, sky, animal, animal, wild buy Feral Grove and Ley Line Nexus."""
    spirits = dict(animal=2, forest=2, sky=1, wild=1)
    left = pay(spirits, core.vales[core.vale_id("Feral Grove")].cost)
    assert left == dict(animal=0, forest=1, sky=0, wild=1)   # forest, sky, animal, animal
    assert pay(left, core.vales[core.vale_id("Ley Line Nexus")].cost) == dict(
        animal=0, forest=0, sky=0, wild=0)                    # wild pays the sky
    assert pay(dict(animal=1, forest=1, sky=0, wild=0),
               core.vales[core.vale_id("Ley Line Nexus")].cost) is None


def harvest_game(cs, field_cards, commons_names, policy, token=False, vales=()):
    g = MysticValeGame(cs, 2, seed=3, policies=[policy, policy])
    pl = g.players[0]
    pl.cards = list(field_cards) + [Card([-1, -1, -1])] * (20 - len(field_cards))
    pl.cards = [c.copy() for c in pl.cards]
    pl.field = list(range(len(field_cards)))
    pl.deck = list(range(len(field_cards), 20))
    pl.discard, pl.on_deck = [], -1
    pl.token_active = token
    pl.turn_number = 2
    pl.vales = [OwnedVale(core_v, 0) for core_v in vales]
    g.commons = [cs.advancement_id(n) for n in commons_names] + [-1] * (9 - len(commons_names))
    rec = TurnRecord(round=1, player=0, turn=2)
    bought, _ = g.harvest(pl, policy, rec)
    return g, pl, rec, bought


def test_mana_token_example(core):
    """3 mana and an active token buy Podlings (2) and a Fertile Soil (2)."""
    soil = core.advancement_id("Fertile Soil (top)")
    fields_ = [Card([-1, -1, -1]) for _ in range(3)]
    for c in fields_:
        c.slots[1] = core.advancement_id("Fertile Soil (middle)")   # 1 mana each
    podlings = core.advancements[core.advancement_id("Podlings")]
    assert podlings.cost == 2
    # a policy that wants Podlings first, then Fertile Soil
    from vale_sim.games.mystic_vale.policy import BuyRule
    pol = Policy(name="t", rules=(BuyRule("card", "Podlings"), BuyRule("card", "Fertile Soil (top)")))
    g, pl, rec, bought = harvest_game(core, fields_, ["Podlings"], pol, token=True)
    assert rec.mana == 3
    assert [c.kind for c in bought] == [core.advancement_id("Podlings"), soil]
    assert rec.token_spent and not pl.token_active
    # without the token only one of them is affordable
    g, pl, rec, bought = harvest_game(core, fields_, ["Podlings"], pol, token=False)
    assert len(bought) == 1


def test_earthchant_chorus_discount(core):
    chorus = card(core, "Earthchant Chorus")
    other = [k for k, a in enumerate(core.advancements)
             if a.supply == "commons" and a.position != core.advancements[
                 core.advancement_id("Earthchant Chorus")].position and a.cost >= 2][0]
    from vale_sim.games.mystic_vale.policy import BuyRule
    pol = Policy(name="t", rules=(BuyRule("card", core.advancements[other].name),))
    rich = Card([-1, -1, -1])
    g, pl, rec, bought = harvest_game(core, [chorus] + [rich] * 0, [core.advancements[other].name],
                                      pol)
    # Chorus has mana 0 or more; the discounted price is cost - 2 (min 0)
    assert bought and bought[0].chorus == 0
    assert bought[0].cost == max(0, core.advancements[other].cost - 2)


def test_magic_seed_counts_other_cards(core):
    seed_card = card(core, "Magic Seed")
    p = player_with_field(core, [seed_card] + [Card([-1, -1, -1]) for _ in range(4)])
    assert p.harvest_totals()["mana"] - printed(core, seed_card, "mana") == 4


def test_seedling_with_hulking_thornhide(core):
    c = card(core, "Cursed Land", "Seedling", "Hulking Thornhide")
    assert printed(core, c, "decay") >= 2
    assert sym.decay(core, c) == 1


def test_peacekeeper_druid_once_per_turn(core):
    druid = card(core, "Peacekeeper Druid")
    assert sym.net_decay(core, druid) == 0
    bad = card(core, "Stag", "Cursed Land")             # 2 decay
    blank = Card([-1, -1, -1])
    three = [card(core, "Cursed Land") for _ in range(3)]
    # field: Druid + 3 Cursed Land (3 decay showing); on-deck blank; deck: bad, blank, bad
    p = player_with_field(core, [druid] + three, [blank, bad, blank, bad])
    p.on_deck, p.deck = 4, [5, 6, 7]
    assert p.decay_showing() == 3
    assert not p.push()                                 # reveals bad: Druid discards it
    assert p.druid_used and 5 in p.discard and p.on_deck == 6
    assert p.push()                                     # reveals the other bad: no second use
    # a new turn (Prep start) makes the Druid available again
    p.reset_window()
    assert not p.druid_used


# -- random tie-breaks (engine-spec §6.2, §4.4 step 2) ---------------------------------

class ScriptedRng(GameRng):
    """A GameRng whose randbelow returns scripted choices and records every n asked."""

    def __init__(self, choices=()):
        super().__init__(0)
        self.choices, self.asked = list(choices), []

    def randbelow(self, n):
        self.asked.append(n)
        return self.choices.pop(0)


def harvester_player(cs, field_cards, choices=()):
    """Field `field_cards`, a Deadwood Harvester on deck, blanks in the deck."""
    blank = Card([-1, -1, -1])
    p = player_with_field(cs, field_cards, [card(cs, "Deadwood Harvester"), blank, blank])
    p.on_deck, p.deck = len(field_cards), p.deck[1:]
    p.rng = ScriptedRng(choices)
    return p


@pytest.mark.parametrize("j", [0, 1])
def test_deadwood_harvester_draws_among_tied_field_cards(core, j):
    cursed, blank = card(core, "Cursed Land"), Card([-1, -1, -1])
    p = harvester_player(core, [cursed, blank, cursed], choices=[j])
    p.play_on_deck()
    # candidates 0 and 2 (net 1 each, in field order): randbelow(2) picks tied[j]
    assert p.rng.asked == [2]
    assert p.discard == [[0, 2][j]] and p.field == [x for x in (0, 1, 2, 3) if x != [0, 2][j]]


def test_deadwood_harvester_draws_nothing_without_a_tie(core):
    cursed, blank = card(core, "Cursed Land"), Card([-1, -1, -1])
    heavy = card(core, "Cursed Land", "Stag")                     # net 2
    p = harvester_player(core, [cursed, heavy, cursed])
    p.play_on_deck()
    assert p.rng.asked == [] and p.discard == [1]
    p = harvester_player(core, [blank, blank])                    # no card with net > 0
    p.play_on_deck()
    assert p.rng.asked == [] and p.discard == [] and p.field == [0, 1, 2]


def conclave_player(cs, field_cards, on_deck_card, choices=()):
    """Field + on-deck card as given (a blank in the deck), an active Conclave of Ents."""
    p = player_with_field(cs, field_cards, [on_deck_card, Card([-1, -1, -1])],
                          vales=(cs.vale_id("Conclave of Ents"),))
    p.on_deck, p.deck = len(field_cards), p.deck[1:]
    p.rng = ScriptedRng(choices)
    return p


@pytest.mark.parametrize("j", [0, 1])
def test_conclave_draws_among_the_cards_that_save(core, j):
    grove, cursed = card(core, "Grovetender"), card(core, "Cursed Land")
    # 4 decay showing; +1 guardian on either Grovetender (field card 0, on-deck card 5) saves
    p = conclave_player(core, [grove] + [cursed] * 4, grove, choices=[j])
    assert p.decay_showing() == 4
    assert not p.check_spoil()
    assert p.rng.asked == [2] and p.temp_card == [0, 5][j] and p.conclave_used
    assert p.decay_showing() == 3


def test_conclave_draws_nothing_for_a_single_saver(core):
    grove, cursed, blank = card(core, "Grovetender"), card(core, "Cursed Land"), Card([-1, -1, -1])
    p = conclave_player(core, [cursed, grove, cursed, cursed], cursed)
    assert not p.check_spoil()
    assert p.rng.asked == [] and p.temp_card == 1
    p = conclave_player(core, [grove, grove] + [cursed] * 4, cursed)   # 5 showing: none saves
    assert p.check_spoil()
    assert p.rng.asked == [] and p.temp_card == -1 and not p.conclave_used


def test_starting_field_has_two_cursed_lands_and_one_on_deck():
    cs = load_card_set("starter")
    cursed = cs.advancement_id("Cursed Land")
    for seed in range(20):
        p = Player(cs, [Card(list(s)) for s in cs.starting_deck()], rng=GameRng(seed))
        p.new_deck()
        assert not p.setup_field()
        in_field = sum(1 for c in p.field if cursed in p.cards[c].slots)
        assert in_field == 2 and cursed in p.cards[p.on_deck].slots
        assert p.decay_showing() == 3


def test_reshuffle_when_deck_runs_out():
    cs = load_card_set("starter")
    p = Player(cs, [Card(list(s)) for s in cs.starting_deck()], rng=GameRng(4))
    p.new_deck()
    p.setup_field()
    p.discard, p.deck = p.deck[:5], p.deck[5:]
    while p.deck:
        p.deck.pop()
        p.discard.append(p.discard.pop(0))
    p.discard = list(p.discard)
    assert not p.deck and p.discard
    before = sorted(p.discard)
    p.reveal()
    assert sorted(p.deck + [p.on_deck]) == before and not p.discard


@pytest.mark.parametrize("players,level1,pool", [(2, 12, 23), (3, 15, 28), (4, 18, 33)])
def test_setup_counts(core, players, level1, pool):
    g = MysticValeGame(core, players, seed=11)
    assert len(g.adv_decks[1]) == level1 - 3
    assert len(g.adv_decks[2]) == core.copies("advancement", 2) - 3
    assert len(g.adv_decks[3]) == core.copies("advancement", 3) - 3
    assert len(g.vale_decks[1]) == 14 and len(g.vale_decks[2]) == 14
    assert all(k >= 0 for k in g.commons) and all(v >= 0 for v in g.vale_row)
    assert g.pool == pool and 0 <= g.start < players
    for pl in g.players:
        assert not pl.token_active
        assert len(pl.field) + len(pl.deck) + len(pl.discard) + 1 == 20
        assert 3 <= pl.decay_showing() <= 3 or pl.prep_spoiled


def test_prep_gross_option_ignores_growth(core):
    grow = next(k for k, a in enumerate(core.advancements) if a.growth > 0 and a.decay == 0)
    cards = [card(core, "Cursed Land") for _ in range(9)] + [Card([-1, -1, -1]) for _ in range(11)]
    for c in cards[9:]:
        c.slots[core.advancements[grow].position] = grow
    result = {}
    for rule in ("net", "gross"):
        p = Player(core, cards, rules=Rules(prep_count=rule), rng=GameRng(2))
        p.new_deck()
        assert not p.setup_field()
        result[rule] = p
    # gross: stops as soon as 3 decay are showing, whatever the growth
    assert result["gross"].gross_showing() == 3
    # net: 11 growth cancel all decay, so Prep only stops when every card is in the field
    assert len(result["net"].field) == 20 and result["net"].on_deck == -1


def test_same_seed_same_game(core):
    a = play_reference(core, 3, seed=5)
    b = play_reference(core, 3, seed=5)
    assert a.to_dict() == b.to_dict()
    c = play_reference(core, 3, seed=6)
    assert c.to_dict() != a.to_dict()
