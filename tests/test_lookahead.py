"""The lookahead push rule (engine-spec §6.1).

* brute force: the rule's expected gain and loss equal an enumeration of the
  next reveal over the remaining cards, each outcome played by the reference
  engine's own push, spoil check and Harvest count;
* the exact spoil-odds calculator (vale_sim/games/mystic_vale/spoil/) gives the same one-push
  spoil probability and the same expected change of the Harvest;
* both engines play the same games with it; the default keeps the risk rule.
"""
from __future__ import annotations

import copy
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.fast.api import play_game_fast
from vale_sim.games.mystic_vale.policy import PRESETS, Policy, PolicyError, load_policy
from vale_sim.games.mystic_vale.reference.game import play_reference
from vale_sim.games.mystic_vale.reference.player import Player
from vale_sim.games.mystic_vale.reference.symbols import Card
from vale_sim.rng import GameRng
from vale_sim.games.mystic_vale.rules import Rules
from vale_sim.games.mystic_vale.spoil import Deck, Situation, spoil_odds

from engine_diff import first_difference

CS = load_card_set("core")
# Advancements whose only effects are symbols and decay/growth rules the rule reads
# (no When Played, no Harvest ability, no spoil save): the Harvest is then exactly
# the printed symbols, what the rule values.
PLAIN = [k for k, a in enumerate(CS.advancements)
         if a.ability in ("none", "ongoing_max_one_decay", "ongoing_no_decay",
                          "ongoing_growth_per_guardian")]


@st.composite
def cards(draw):
    slots = [-1, -1, -1]
    for pos in range(3):
        here = [k for k in PLAIN if CS.advancements[k].position == pos]
        here += [k for k in here if CS.advancements[k].decay > 0] * 4   # spoils are common
        if draw(st.integers(0, 2)):
            slots[pos] = draw(st.sampled_from(here))
    return Card(slots, -1)


@st.composite
def situations(draw):
    """A Planting moment of a small deck: field, on-deck card, and the pool the
    next reveal comes from (the deck, or the discard pile when the deck is empty)."""
    n_cards = draw(st.integers(3, 10))
    cs_cards = [draw(cards()) for _ in range(n_cards)]
    ids = draw(st.permutations(range(n_cards)))
    n_field = draw(st.integers(0, n_cards - 2))
    field, on_deck, rest = list(ids[:n_field]), ids[n_field], list(ids[n_field + 1:])
    reshuffle = draw(st.booleans())
    deck, discard = ([], rest) if reshuffle else (rest, [])
    pol = Policy(name="la", push_rule="lookahead",
                 w_mana=draw(st.integers(-2, 6)), w_spirit=draw(st.integers(-2, 6)),
                 w_harvest_vp=draw(st.integers(-2, 6)),
                 token=draw(st.sampled_from(["needed", "never"])))
    token_active = draw(st.booleans())
    return cs_cards, field, on_deck, deck, discard, pol, token_active


def player(cs_cards, field, on_deck, deck, discard, token_active) -> Player:
    pl = Player(CS, cs_cards, Rules(), GameRng(0, 0))
    pl.field, pl.on_deck, pl.deck, pl.discard = list(field), on_deck, list(deck), list(discard)
    pl.token_active = token_active
    return pl


def value(pol: Policy, h: dict) -> int:
    return (pol.w_mana * h["mana"] + pol.w_spirit * (h["animal"] + h["forest"] + h["sky"] + h["wild"])
            + pol.w_harvest_vp * h["vp"])


def enumerate_push(pl: Player, pol: Policy):
    """Σ over the next reveal of (value after one push and a pass) − (value of passing
    now), and the number of spoiling reveals: each reveal played by the engine."""
    pool = pl.deck if pl.deck else pl.discard
    now = value(pol, pl.harvest_totals())
    total, spoils = 0, 0
    for j in range(len(pool)):
        q = copy.copy(pl)
        q.log, q.events = [], {}
        q.field = list(pl.field)
        q.deck = [pool[j]] + pool[:j] + pool[j + 1:]   # this card is revealed next
        q.discard = []
        if q.push(pol):
            spoils += 1
            # spoiling: no Harvest; the token becomes active (worth a mana if it was spent)
            worth = pol.w_mana if (not pl.token_active and pol.token == "needed") else 0
            total += worth - now
        else:
            total += value(pol, q.harvest_totals()) - now
    return total, spoils


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(situations())
def test_gain_and_loss_equal_brute_force(sit):
    cs_cards, field, on_deck, deck, discard, pol, token_active = sit
    pl = player(cs_cards, field, on_deck, deck, discard, token_active)
    assume(pl.decay_showing() < 4)
    n, bad, v_on_deck, v_field, v_token = pl.lookahead_terms(pol)
    total, spoils = enumerate_push(pl, pol)
    assert n == len(deck or discard)
    assert bad == spoils
    # n × (E[push, then pass] − E[pass]) = expected gain − expected loss, times n
    assert total == (n - bad) * v_on_deck - bad * (v_field - v_token)
    # caution 1000: push exactly when pushing is worth at least passing
    assert pl.wants_push(pol) == (total >= 0)
    # caution scales the loss only
    for caution in (0, 400, 2500):
        c = replace(pol, lookahead_caution_permille=caution)
        assert pl.wants_push(c) == (1000 * (n - bad) * v_on_deck >= caution * bad * (v_field - v_token))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(situations())
def test_agrees_with_exact_spoil_odds_calculator(sit):
    """The calculator's one-push spoil probability is bad/n, and its expected Harvest
    after one push minus the Harvest now is the rule's gain minus loss (no token:
    the calculator does not model it)."""
    cs_cards, field, on_deck, deck, discard, pol, token_active = sit
    pl = player(cs_cards, field, on_deck, deck, discard, token_active)
    assume(pl.decay_showing() < 4)
    n, bad, v_on_deck, v_field, _ = pl.lookahead_terms(pol)
    odds = spoil_odds(Deck(CS, cs_cards), pushes=1, exact=True, engine="python",
                      situation=Situation(field=list(field), on_deck=on_deck, deck=list(deck),
                                          discard=list(discard)))
    assert odds.p_spoil_within[0] == 0
    assert odds.p_spoil_within[1] == Fraction(bad, n)

    def worth(e):
        return pol.w_mana * e["mana"] + pol.w_spirit * e["spirits"] + pol.w_harvest_vp * e["vp"]
    assert worth(odds.expected[0]) == v_field
    assert worth(odds.expected[1]) - worth(odds.expected[0]) == Fraction(
        (n - bad) * v_on_deck - bad * v_field, n)


def test_pushes_when_nothing_can_be_revealed_and_stops_on_a_worthless_risky_card():
    la = PRESETS["lookahead"]
    blank, rot = Card([-1, -1, -1], -1), Card([CS.advancement_id("Cursed Land"), -1, -1], -1)
    big = Card([CS.advancement_id(n) for n in ("Cursed Land", "Model L1 Sprout A", "Stag")],
               -1)                                                   # 3 decay
    mana = Card([CS.advancement_id("Cursed Land"), CS.advancement_id("Fertile Soil (middle)"), -1],
                -1)                                                  # 2 mana, 1 decay
    # no card left anywhere: push (the reveal leaves nothing on deck)
    pl = player([mana, blank], [0], 1, [], [], False)
    assert pl.wants_push(la)
    # blank on deck, the only card left spoils: nothing to gain, the field to lose
    pl = player([mana, blank, big], [0], 1, [2], [], True)
    assert pl.lookahead_terms(la) == (1, 1, 0, 2 * la.w_mana, 0)
    assert not pl.wants_push(la)
    # a field worth no more than the token (Cursed Land: 1 mana): spoiling costs nothing
    pl = player([rot, blank, big], [0], 1, [2], [], False)
    assert pl.lookahead_terms(la)[1:] == (1, 0, la.w_mana, la.w_mana)
    assert pl.wants_push(la)
    # no spoiling card left: push even a worthless card
    pl = player([mana, blank, rot], [0], 1, [2], [], True)
    assert pl.lookahead_terms(la)[:2] == (1, 0) and pl.wants_push(la)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_both_engines_play_the_same_lookahead_games(players):
    pols = [PRESETS["lookahead"], replace(PRESETS["lookahead"], name="bold",
                                          lookahead_caution_permille=150),
            "balanced", replace(PRESETS["lookahead"], name="wary", lookahead_caution_permille=3000,
                                token="never")][:players]
    pushes = 0
    for gi in range(6):
        ref = play_reference(CS, players, 5, gi, pols)
        fast = play_game_fast(CS, players, 5, gi, pols)
        assert first_difference(ref, fast) is None, first_difference(ref, fast)
        pushes += sum(t.pushes for t in ref.turns if t.player == 0)
    assert pushes > 0


def test_both_engines_agree_at_the_integer_limits():
    """Weights and caution at ±10**6 (policy.INT_LIMIT): no int64 overflow in the fast
    engine (Python's integers are unbounded), so the games stay identical."""
    big = Policy(name="big", push_rule="lookahead", lookahead_caution_permille=10**6,
                 w_mana=10**6, w_spirit=-10**6, w_harvest_vp=10**6)
    bold = replace(big, name="bold", lookahead_caution_permille=1, w_spirit=10**6)
    for gi in range(4):
        ref = play_reference(CS, 2, 8, gi, [big, bold])
        fast = play_game_fast(CS, 2, 8, gi, [big, bold])
        assert first_difference(ref, fast) is None, first_difference(ref, fast)


def test_the_rule_changes_play_and_the_default_is_the_risk_rule():
    assert Policy().push_rule == "risk"
    risk = replace(PRESETS["lookahead"], name="risk", push_rule="risk")
    a = play_reference(CS, 2, 1, 0, [PRESETS["lookahead"], "balanced"])
    b = play_reference(CS, 2, 1, 0, [risk, "balanced"])
    assert [t.pushes for t in a.turns] != [t.pushes for t in b.turns]


def test_push_rule_is_validated_and_read_from_policy_files(tmp_path):
    with pytest.raises(PolicyError, match="push_rule must be one of"):
        Policy(name="x", push_rule="greedy")
    with pytest.raises(PolicyError, match="lookahead_caution_permille must be >= 0"):
        Policy(name="x", lookahead_caution_permille=-1)
    f = tmp_path / "la.toml"
    f.write_text('push_rule = "lookahead"\nlookahead_caution_permille = 600\n')
    pol = load_policy(f)
    assert (pol.push_rule, pol.lookahead_caution_permille) == ("lookahead", 600)
    bad = tmp_path / "bad.toml"
    bad.write_text('push_rule = "look-ahead"\n')
    with pytest.raises(PolicyError, match="bad.toml.*push_rule must be one of"):
        load_policy(bad)
