"""The Mystic Lands fast engine plays the reference engine's games.

Hypothesis builds valid inputs directly: card sets (the bundled set with random
icons, copies, costs and up to three random effects of every kind and timing on
Advances and Vales, activation tracks included), random connected Vale maps
(spaces of every kind, links, map rewards, small spaces), random policies (weights, modes,
buy rules of every target and condition, never lists), random rule options and
2-4 players.  The two engines must give identical records; a failure names the
first differing turn and field.  Then: the results frame equals the reference's,
and run_fast refuses what it cannot replay in one line.  The golden playthroughs
(tests/golden/mystic_lands/) replay with both engines in tests/test_conformance.py,
as every game's.
"""
from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine_diff

from vale_sim.games.mystic_lands import GAME
from vale_sim.games.mystic_lands import cards as C
from vale_sim.games.mystic_lands.fast.api import play_game_fast, run_fast
from vale_sim.games.mystic_lands.fast.tables import UnsupportedError
from vale_sim.games.mystic_lands.policy import RULE_CONDITIONS, BuyRule, Policy
from vale_sim.games.mystic_lands.rules import Rules

CS = C.load_card_set()


def first_difference(ref, fast) -> str | None:
    return engine_diff.first_difference(ref, fast, ("seed", "game_index", "players",
                                        "starting_player", "rounds", "truncated", "layout"))


# -- random inputs ---------------------------------------------------------------------
ADV_EFFECTS = [(k, t) for k, (ts, _) in C.EFFECT_KINDS.items() for t in ts
               if t in C.ADVANCE_TIMINGS]
VALE_EFFECTS = [(k, t) for k in C.VALE_KINDS for t in C.EFFECT_KINDS[k][0]
                if t in C.VALE_TIMINGS]


def random_effect(draw, choices) -> C.Effect:
    kind, timing = draw(st.sampled_from(choices))
    params = C.EFFECT_KINDS[kind][1]
    kw = {}
    if "amount" in params:
        kw["amount"] = draw(st.integers(1, 3))
    if "resource" in params:
        kw["resource"] = draw(st.sampled_from(C.RESOURCES))
    if "aspect" in params:
        kw["aspect"] = draw(st.sampled_from(C.ASPECTS))
    if "need" in params:
        kw["need"] = draw(st.integers(1, 2) if kind == "sleeve_market" else st.integers(0, 6))
    if "pay" in params:
        kw["pay"] = draw(st.sampled_from([r for r in C.RESOURCES[:3] if r != kw["resource"]]))
        kw["cost"] = draw(st.integers(1, 3))
    if "per" in params:
        kw["per"] = draw(st.integers(1, 3))
    return C.Effect(timing, kind, **kw)


@st.composite
def vale_maps(draw):
    """A connected random map: a start, 1-5 I spaces, 0-4 II spaces, 0-3 small spaces,
    a random spanning tree plus extra links, random map rewards."""
    kinds = ["start"] + ["I"] * draw(st.integers(1, 5)) + ["II"] * draw(st.integers(0, 4)) \
        + ["small"] * draw(st.integers(0, 3))
    order = draw(st.permutations(range(len(kinds))))
    kinds = [kinds[i] for i in order]
    n = len(kinds)
    links = [set() for _ in range(n)]
    for j in range(1, n):                       # a spanning tree: j links to an earlier space
        i = draw(st.integers(0, j - 1))
        links[i].add(j)
        links[j].add(i)
    for _ in range(draw(st.integers(0, n))):
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if i != j:
            links[i].add(j)
            links[j].add(i)
    reward = st.tuples(*[st.integers(0, 2)] * 4)
    spaces = []
    for i, kind in enumerate(kinds):
        rewards = () if kind == "start" else tuple(sorted(
            {draw(st.integers(0, 3)): draw(reward) for _ in range(draw(st.integers(0, 2)))}.items()))
        extra = {}
        if kind == "small":
            rows = tuple(C.Row(vp=draw(st.integers(0, 3)), mana=draw(st.integers(0, 1)),
                               spirit=draw(st.integers(0, 1)), gain_vp=draw(st.integers(0, 1)),
                               rain=draw(st.integers(0, 1)))
                         for _ in range(draw(st.integers(1, 3))))
            extra = dict(name=draw(st.sampled_from(["Spring", "Shrine", "Well"])),
                         cost=draw(st.integers(0, 3)), rows=rows)
        spaces.append(C.Space(id=f"s{i}", kind=kind, links=tuple(sorted(links[i])),
                              rewards=rewards, **extra))
    return C.ValeMap(name="random", spaces=tuple(spaces), start=kinds.index("start"))


@st.composite
def card_sets(draw):
    if draw(st.integers(0, 3)) == 0:
        return CS
    vmap = draw(vale_maps()) if draw(st.booleans()) else CS.map
    advs = []
    for a in CS.advances:
        ic = dataclasses.replace(
            a.icons, sun=draw(st.integers(0, 1)), cloud=draw(st.integers(0, 1)),
            rain=draw(st.integers(0, 2)), mana=draw(st.integers(0, 2)),
            spirit=draw(st.integers(0, 2)), vp=draw(st.integers(0, 1)),
            wild=draw(st.integers(0, 1)))
        effects = a.effects
        if draw(st.booleans()):
            effects = tuple(random_effect(draw, ADV_EFFECTS)
                            for _ in range(draw(st.integers(1, 3))))
        advs.append(dataclasses.replace(
            a, icons=ic, cost=draw(st.integers(0, 8)), copies=draw(st.integers(1, 3)),
            end_vp=draw(st.integers(0, 2)), effects=effects,
            position=draw(st.integers(0, 3)) if draw(st.integers(0, 3)) == 0 else a.position))
    vales = []
    for v in CS.vales:
        effects = v.effects
        if draw(st.booleans()):
            choices = VALE_EFFECTS if v.track else [x for x in VALE_EFFECTS
                                                     if x[1] != "activation"]
            effects = tuple(random_effect(draw, choices) for _ in range(draw(st.integers(1, 3))))
            if v.track and any(s.effect for s in v.track) and \
                    not any(e.timing == "activation" for e in effects):
                effects = effects[:2] + (C.Effect("activation", "refresh"),)
        vales.append(dataclasses.replace(v, cost=draw(st.integers(0, 6)), effects=effects,
                                         copies=draw(st.integers(1, 2))))
    return dataclasses.replace(CS, advances=tuple(advs), vales=tuple(vales), map=vmap)


@st.composite
def buy_rules(draw, cs):
    target = draw(st.sampled_from(["card", "level", "vale"]))
    if target == "card":
        names = [a.name for a in cs.advances if a.level] + [v.name for v in cs.vales] + [
            s.name for s in cs.map.spaces if s.kind == "small"]
        value = draw(st.sampled_from(names))
    elif target == "level":
        value = str(draw(st.integers(1, 2)))
    else:
        value = "best"
    conds = {c: draw(st.integers(0, 12)) for c in RULE_CONDITIONS if draw(st.integers(0, 3)) == 0}
    return BuyRule(target, value, **conds)


@st.composite
def policies(draw, cs):
    w = st.integers(-3, 6)
    rules = ()
    if draw(st.integers(0, 2)) == 0:
        rules = tuple(draw(st.lists(buy_rules(cs), min_size=1, max_size=5)))
    never = ()
    if draw(st.integers(0, 3)) == 0:
        names = [a.name for a in cs.advances if a.level] + [v.name for v in cs.vales] + [
            s.name for s in cs.map.spaces if s.kind == "small"]
        never = tuple(draw(st.lists(st.sampled_from(names), min_size=1, max_size=6, unique=True)))
    value = {}
    if draw(st.integers(0, 2)) == 0:       # a value player (spec §6.14): staged weights
        from vale_sim.games.mystic_lands.value import ADV_SPEC, VALE_SPEC
        k = draw(st.integers(1, 4))

        def rows(spec):
            return tuple(tuple(draw(st.integers(0, 40) if sg > 0 else st.integers(-40, 0)
                                    if sg < 0 else st.integers(-40, 40))
                               for sg in spec.signs) for _ in range(k))
        value = {"value_stages": k, "value_adv": rows(ADV_SPEC), "value_vale": rows(VALE_SPEC)}
    return Policy(
        **value,
        explore_permille=draw(st.sampled_from([0, 0, 0, 150, 1000])),     # spec §6.4
        name=f"p{draw(st.integers(0, 99))}",
        rest_risk_permille=draw(st.sampled_from([0, 100, 250, 500, 800, 1000])),
        rain=draw(st.sampled_from(["needed", "never"])),
        wither_choice=draw(st.sampled_from(["best", "mana", "spirit", "vp"])),
        w_mana=draw(w), w_spirit=draw(w), w_vp=draw(w), w_end_vp=draw(w), w_cloud=draw(w),
        w_sun=draw(st.integers(-5, 2)), w_rain=draw(w), w_aspect=draw(w), w_effect=draw(w),
        w_cost=draw(st.integers(-2, 1)), min_score=draw(st.integers(-5, 10)),
        w_vale_vp=draw(w), w_vale_reward=draw(w), w_vale_effect=draw(w),
        w_vale_cost=draw(st.integers(-2, 1)), vale_min_score=draw(st.integers(-5, 10)),
        convert=draw(st.sampled_from(["bought", "always", "never"])),
        convert_mana=draw(st.integers(0, 12)), remove_below=draw(st.integers(-5, 8)),
        dryad_min_value=draw(st.sampled_from([0, 0, 3, 6, 12])),         # M19
        parrot_min_value=draw(st.sampled_from([0, 0, 3, 6, 12])),
        rules=rules, never=never)


@st.composite
def rule_options(draw):
    dual = draw(st.integers(0, 3))
    return Rules(
        seat_mana=tuple(draw(st.integers(0, 3)) for _ in range(4)),
        seat_spirit=tuple(draw(st.integers(0, 3)) for _ in range(4)),
        cubes=draw(st.integers(1, 15)), druid_deal=draw(st.integers(1, 2)),
        wither_suns=draw(st.integers(2, 5)), rain_supply=draw(st.integers(0, 25)),
        max_buys=draw(st.integers(0, 3)), max_enchants=draw(st.integers(0, 3)),
        market_l1=draw(st.integers(dual, 7)), market_l2=draw(st.integers(1, 4)),
        market_dual=dual,
        market_growth_vp=tuple(sorted(draw(st.integers(0, 20)) for _ in range(dual))),
        end_vp=draw(st.integers(10, 30)), end_cubes=draw(st.integers(3, 12)),
        end_bonus=draw(st.integers(0, 5)), held_end_vp=draw(st.booleans()),
        ongoing_everywhere=draw(st.booleans()), effect_enchants_count=draw(st.booleans()),
        max_rounds=draw(st.sampled_from([6, 20, 60])))


@st.composite
def games(draw):
    cs = draw(card_sets())
    players = draw(st.sampled_from([2, 3, 4]))
    pols = [draw(policies(cs)) for _ in range(players)]
    rules = draw(rule_options()) if draw(st.booleans()) else Rules(
        max_rounds=draw(st.sampled_from([20, 60])))
    seed = draw(st.integers(0, 2**64 - 1))
    game_index = draw(st.integers(0, 2**20))
    return cs, players, seed, game_index, pols, rules


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_fast_equals_reference_on_random_inputs(game):
    cs, players, seed, game_index, pols, rules = game
    ref = GAME.play_reference(cs, players, seed, game_index, pols, rules, log=False)
    fast = play_game_fast(cs, players, seed, game_index, pols, rules)
    diff = first_difference(ref, fast)
    assert diff is None, diff


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bundled_set_and_policies(players):
    pols = list(GAME.presets)[:players] if players < 4 else ["rain-dancer", "vale-rush",
                                                               "greedy", "vp"]
    for gi in range(6):
        ref = GAME.play_reference(CS, players, 101, gi, pols, log=False)
        fast = play_game_fast(CS, players, 101, gi, pols)
        assert first_difference(ref, fast) is None, first_difference(ref, fast)


@pytest.mark.parametrize("seed", [3, 2**64 - 5])
def test_results_frame_equals_reference(seed):
    pols = ["balanced", "vale-rush", "cautious"]
    ref = GAME.results_frame([GAME.play_reference(CS, 3, seed, i, pols, log=False)
                              for i in range(40, 52)], CS)
    fast = run_fast(CS, 3, seed, 12, pols, first_game=40)
    pd.testing.assert_frame_equal(ref, fast)
    # a batch is the games of its range: splitting it changes nothing
    halves = pd.concat([run_fast(CS, 3, seed, 5, pols, first_game=40),
                        run_fast(CS, 3, seed, 7, pols, first_game=45)], ignore_index=True)
    pd.testing.assert_frame_equal(fast, halves)


def test_game_interface_has_the_fast_engine():
    assert GAME.has_fast_engine
    df = GAME.run_fast(CS, 2, 9, 3, None, None, first_game=0)
    assert len(df) == 6 and df.groupby("game").win_share.sum().tolist() == [1.0] * 3


def test_refuses_what_it_cannot_replay():
    with pytest.raises(ValueError, match="cannot deal 5 to each of 2 players") as e:
        run_fast(CS, 2, 0, 1, rules=Rules(druid_deal=5))
    assert "\n" not in str(e.value)
    endless = dataclasses.replace(CS, advances=tuple(
        dataclasses.replace(a, effects=(C.Effect("day_repeatable", "convert", amount=1,
                                                 resource="vp", pay="mana", cost=0),))
        if a.name == "Honey Bees" else a for a in CS.advances))
    with pytest.raises(UnsupportedError, match="'Honey Bees'.*cost 0 never ends"):
        run_fast(endless, 2, 0, 1)
