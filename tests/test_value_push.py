"""The "value" push rule (engine-spec §6.1, third rule).

* brute force: at every decision of whole reference games, the rule's integers equal an
  expectimax over the next two reveals, each reveal played by the engine's own push and
  spoil check, each Harvest valued by the game;
* the value of a Harvest is what the policy's buying takes: on Harvests where no
  placement, Earthchant discount or Sunstone Aerie changes the purchases, H of the field
  equals the scores of what the Harvest bought plus its VP's value;
* both engines play the same games with it (tests/test_differential_random.py draws it
  too); value models carry the VP row (version 2) and read version 1.
"""
from __future__ import annotations

import copy
from dataclasses import replace
from fractions import Fraction

import pytest

from engine_diff import first_difference

from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.policy import PRESETS, Policy, PolicyError, get_policy
from vale_sim.games.mystic_vale.reference.game import MysticValeGame, play_reference
from vale_sim.games.mystic_vale.value import vp_weight

CS = load_card_set("core")
# what the rule does not look at: When Played effects and spoil saves
UNSEEN_ABILITIES = {"when_played_peek", "when_played_search_deck",
                    "when_played_discard_field", "prevent_spoil"}
UNSEEN_VALES = {"guardian_once_per_turn", "spoil_save_growth"}


def value_player(name="vpush", caution=1000, vp=(144, 159, 150), bonus=0, carry=0):
    return replace(get_policy("value-2p"), name=name, push_rule="value",
                   lookahead_caution_permille=caution, value_vp=vp, push_bonus=bonus,
                   carry_decay_cost=carry)


def scripted(name="spush", caution=1000, bonus=0, carry=0):
    return replace(PRESETS["balanced"], name=name, push_rule="value",
                   lookahead_caution_permille=caution, push_bonus=bonus,
                   carry_decay_cost=carry)


def next_reveal(pl, j):
    """A copy of pl whose next reveal is card j of its pool (the deck, or the discard
    pile, reshuffled into the deck)."""
    q = copy.copy(pl)
    q.log, q.events = [], {}
    q.field = list(pl.field)
    pool = pl.deck if pl.deck else pl.discard
    q.deck = [pool[j]] + pool[:j] + pool[j + 1:]
    q.discard = list(pl.discard) if pl.deck else []
    return q


def outcome(game, q, pol, st, spoiled) -> int:
    """What the Planting of q ends with: its Harvest (0 after a spoil), less
    carry_decay_cost per net decay of the card left on deck (it starts the next field)."""
    carry = pol.carry_decay_cost * q.net(q.on_deck) if q.on_deck >= 0 else 0
    return (0 if spoiled else game.harvest_value(q, pol, [], st)) - carry


def pushed(game, pl, pol, st):
    """(the player after one push, its outcome if it passes or spoils then, spoiled?),
    one per next reveal, each played by the engine."""
    pool = pl.deck if pl.deck else pl.discard
    out = []
    for j in range(max(1, len(pool))):
        q = next_reveal(pl, j) if pool else copy.copy(pl)
        if not pool:
            q.log, q.events, q.field = [], {}, list(pl.field)
        spoiled = q.push(pol)
        out.append((q, outcome(game, q, pol, st, spoiled), spoiled))
    return out


def expectimax(game, pl, pol, st) -> Fraction:
    """E[push once, then the better of passing and pushing once more, then pass], each
    push worth push_bonus more."""
    b = pol.push_bonus
    vals = []
    for q, v, spoiled in pushed(game, pl, pol, st):
        if spoiled:
            vals.append(Fraction(v))
            continue
        more = [w for _, w, _ in pushed(game, q, pol, st)]
        vals.append(max(Fraction(v), Fraction(sum(more), len(more)) + b))
    return sum(vals, Fraction(0)) / len(vals) + b


def eligible(pl) -> bool:
    pool = pl.deck if pl.deck else pl.discard
    if pl.on_deck < 0 or not pool:
        return False
    cards = range(len(pl.cards))
    if any(k in UNSEEN_ABILITIES for c in cards for k, _ in pl.abilities(c)):
        return False
    return not any(pl.cs.vales[v.vale_id].ability in UNSEEN_VALES for v in pl.vales)


class Checked(MysticValeGame):
    """A reference game that checks each value-rule decision against the brute force."""
    checked = pushed = 0

    def wants_push(self, pl, policy, pushes):
        go = super().wants_push(pl, policy, pushes)
        if policy.push_rule == "value" and eligible(pl):
            st = self.stage(policy, self.pool - min(pl.harvest_totals()["vp"], self.pool))
            n, n2, total, h0 = pl.value_terms(policy)
            assert h0 == self.harvest_value(pl, policy, [], st)
            e = expectimax(self, pl, policy, st)
            d2 = max(n2, 1)
            assert Fraction(total + policy.push_bonus * n * d2, n * d2) == e
            stop = outcome(self, pl, policy, st, False)
            assert go == (1000 * e >= policy.lookahead_caution_permille * stop)
            Checked.checked += 1
            Checked.pushed += go
        return go


@pytest.mark.parametrize("pols", [
    [value_player(), value_player("bold", caution=800)],
    [scripted(bonus=2, carry=3), value_player("late", vp=(0, 0, 500), bonus=100, carry=400)],
    [value_player("wary", caution=1500, bonus=-50, carry=-100),
     scripted("bold-scripted", caution=700), "balanced"]])
def test_rule_equals_brute_force_in_whole_games(pols):
    Checked.checked = Checked.pushed = 0
    for gi in range(3):
        Checked(CS, len(pols), 21, gi, pols).play()
    assert Checked.checked >= 20
    assert 0 < Checked.pushed < Checked.checked


def harvest_check_rows(pol, games=4):
    """(H of the field before each Harvest, value of what it bought) on Harvests
    without an Earthchant Chorus in the field or a Sunstone Aerie owned."""
    rows = []

    class Watched(MysticValeGame):
        def harvest(self, pl, policy, rec):
            chorus = any(k == "discount_same_card" for c in pl.field for k, _ in pl.abilities(c))
            sun = any(self.cs.vales[v.vale_id].ability == "spirit_to_wild" for v in pl.vales)
            st = self.stage(policy, self.pool - min(pl.harvest_totals()["vp"], self.pool))
            h = self.harvest_value(pl, policy, [], st)
            vp = pl.harvest_totals()["vp"]
            bought, vales = super().harvest(pl, policy, rec)
            got = (sum(self.adv_score(policy, c.kind, st) for c in bought)
                   + sum(self.vale_score(policy, v, st) for v in rec.vales)
                   + vp_weight(policy, st) * vp)
            if policy is pol and not chorus and not sun:
                rows.append((h, got))
            return bought, vales

    for gi in range(games):
        Watched(CS, 2, 4, gi, [pol, pol]).play()
    return rows


def test_harvest_value_is_what_the_harvest_buys():
    """Placements can only make the Harvest buy less than the rule counts; without them
    the two are equal (almost every Harvest)."""
    pol = value_player()
    rows = harvest_check_rows(pol)
    assert len(rows) > 50
    same = sum(h == got for h, got in rows)
    assert same >= 0.95 * len(rows), (same, len(rows))


@pytest.mark.compiled
def test_both_engines_play_the_same_value_games():
    from vale_sim.games.mystic_vale.fast.api import play_game_fast
    for players in (2, 3, 4):
        pols = [value_player(bonus=50, carry=400), scripted(carry=2),
                value_player("wary", caution=2000, vp=()), PRESETS["lookahead"]][:players]
        for gi in range(3):
            ref = play_reference(CS, players, 9, gi, pols)
            fast = play_game_fast(CS, players, 9, gi, pols)
            assert first_difference(ref, fast) is None, first_difference(ref, fast)


def test_value_rule_is_validated():
    assert "value" in __import__("vale_sim.games.mystic_vale.policy",
                                 fromlist=["PUSH_RULES"]).PUSH_RULES
    with pytest.raises(PolicyError, match="value_vp given without value_stages"):
        Policy(name="x", value_vp=(1,))
    v = get_policy("value-2p")
    with pytest.raises(PolicyError, match="value_vp must be 3 integers"):
        replace(v, value_vp=(1, 2))
    with pytest.raises(PolicyError, match="value_vp must be 3 integers"):
        replace(v, value_vp=(1, -2, 3))
    assert replace(v, value_vp=[1, 2, 3]).value_vp == (1, 2, 3)


def test_a_player_without_a_game_cannot_use_the_value_rule():
    from vale_sim.games.mystic_vale.reference.player import Player
    from vale_sim.games.mystic_vale.reference.symbols import Card
    from vale_sim.rng import GameRng
    pl = Player(CS, [Card([-1, -1, -1], -1)] * 3, rng=GameRng(0, 0))
    pl.field, pl.on_deck, pl.deck = [0], 1, [2]
    with pytest.raises(ValueError, match="needs the game's offer"):
        pl.wants_push(scripted())


@pytest.mark.compiled
def test_both_engines_agree_at_the_integer_limits():
    """Weights, scores and caution at ±10**6 (policy.INT_LIMIT): no int64 overflow in the
    fast engine (Python's integers are unbounded), so the games stay identical."""
    from vale_sim.games.mystic_vale.fast.api import play_game_fast
    big = Policy(name="big", push_rule="value", lookahead_caution_permille=10**6,
                 w_mana=10**6, w_spirit=-10**6, w_harvest_vp=10**6, w_end_vp=10**6,
                 w_cost=-10**6, min_score=-10**6, w_vale_vp=10**6, vale_min_score=-10**6)
    bold = replace(big, name="bold", lookahead_caution_permille=1, w_spirit=10**6,
                   push_bonus=10**6, carry_decay_cost=-10**6)
    big = replace(big, carry_decay_cost=10**6)
    for gi in range(4):
        ref = play_reference(CS, 2, 8, gi, [big, bold])
        fast = play_game_fast(CS, 2, 8, gi, [big, bold])
        assert first_difference(ref, fast) is None, first_difference(ref, fast)


def test_model_files_carry_the_vp_row(tmp_path):
    from vale_sim import value as vm
    from vale_sim.games.mystic_vale.policy import load_policy
    from vale_sim.games.mystic_vale.value import ADV_SPEC, VALE_SPEC
    m = vm.ValueModel(game="mystic-vale", players=2, stages=2, adv_features=ADV_SPEC.names,
                      vale_features=VALE_SPEC.names,
                      adv=((0,) * len(ADV_SPEC.names),) * 2,
                      vale=((0,) * len(VALE_SPEC.names),) * 2, vp=(150, 120))
    m.save(tmp_path / "m.json")
    doc = __import__("json").loads((tmp_path / "m.json").read_text())
    assert doc["version"] == 2 and doc["vp"] == [150, 120]
    back = vm.load_model(tmp_path / "m.json", "mystic-vale", ADV_SPEC, VALE_SPEC)
    assert back.vp == (150, 120)
    (tmp_path / "p.toml").write_text('kind = "value"\nmodel = "m.json"\npush_rule = "value"\n')
    pol = load_policy(tmp_path / "p.toml")
    assert pol.value_vp == (150, 120) and pol.push_rule == "value"
    (tmp_path / "q.toml").write_text('kind = "value"\nmodel = "m.json"\nvalue_vp = [1, 2]\n')
    with pytest.raises(PolicyError, match="unknown field 'value_vp'"):
        load_policy(tmp_path / "q.toml")          # the model's, like the other weights
    # version 1 (no vp row) is still read: a VP is then worth 0 to the value rule
    del doc["vp"]
    doc["version"] = 1
    (tmp_path / "m.json").write_text(__import__("json").dumps(doc))
    assert vm.load_model(tmp_path / "m.json", "mystic-vale", ADV_SPEC, VALE_SPEC).vp == ()
    assert vp_weight(load_policy(tmp_path / "p.toml"), 1) == 0
    for bad, words in (([1], "'vp' must be 2 integers"), ([1, -1], "'vp' must be 2 integers")):
        doc.update(version=2, vp=bad)
        (tmp_path / "m.json").write_text(__import__("json").dumps(doc))
        with pytest.raises(vm.ValueModelError, match=words):
            vm.load_model(tmp_path / "m.json", "mystic-vale", ADV_SPEC, VALE_SPEC)
    doc.update(version=1, vp=[1, 2])
    (tmp_path / "m.json").write_text(__import__("json").dumps(doc))
    with pytest.raises(vm.ValueModelError, match="'vp' needs version 2"):
        vm.load_model(tmp_path / "m.json", "mystic-vale", ADV_SPEC, VALE_SPEC)
