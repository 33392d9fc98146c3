"""The balancer's allocation logic (vale_sim/balancer.py; docs/balance.md, "The search"),
on synthetic cards whose values are known: no game is played here."""
from __future__ import annotations

import math

import numpy as np
import pytest

from vale_sim import balancer as R

M, T = 0.02, 0.05          # margin, tolerance


def _synthetic(truth, sd=0.15, taken=lambda v: True):
    """A measure(value, seed, games) for one count (2 players): per deal, normal noise
    around the true (natural, forced) of ``truth(value)``."""
    def measure(v, seed, games):
        rng = np.random.default_rng([seed & 0xFFFFFFFF, v + 100])
        n = max(1, games // 2)
        nat, frc = truth(v)
        tk = taken(v)
        nd = rng.normal(nat, sd, n) if tk else np.zeros(n)
        return {2: (nd, rng.normal(frc, sd, n), tk)}
    return measure


def _over_cost_card():
    """A card printed at cost 3, too strong: natural value 8 pp at 3, 2 pp less per cost
    step, 0 once the field stops buying it at cost 9; forcing it costs more the dearer
    it is."""
    def truth(v):
        return max(0.0, 0.08 - 0.02 * (v - 3)), 0.08 - 0.025 * (v - 3)
    return truth, (lambda v: v < 9)


def test_isotonic_pools_adjacent_violators():
    assert R.isotonic([1, 3, 2, 4], [1, 1, 1, 1]).tolist() == [1, 2.5, 2.5, 4]
    assert R.isotonic([3, 2, 1], [1, 1, 2]).tolist() == pytest.approx([1.75] * 3)
    assert R.isotonic([0, 1, 2], [5, 5, 5]).tolist() == [0, 1, 2]


def test_gap_bounds_and_a_never_bought_value_is_out():
    lo, hi = R.gap_bounds(0.05, 0.01, 0.0, 0.01, True, M, T, "natural", "over")
    assert lo == pytest.approx(0.03) and hi == pytest.approx(0.07)
    # never taken: at least the margin, whatever its values
    lo, hi = R.gap_bounds(0.0, 0.0, -0.001, 0.001, False, M, T, "natural", "under")
    assert lo >= M and hi >= M
    assert R.gap(0.0, 0.0, False, M, T, "natural", "under") >= M


def test_successive_halving_drops_clearly_out_candidates_and_finds_the_boundary():
    truth, taken = _over_cost_card()
    race = R.CardRace("X", "cost", 3, range(4, 12), -1, "over", [2], M, T, limits=(3, 11))
    res = R.run_race(race, _synthetic(truth, taken=taken), 4000, 7, sizes=(0.25, 0.5, 1, 2))
    rows = {r["value"]: r for r in res["candidates"]}
    # the smallest change whose natural value is within margin/2 (1 pp): cost 7 (0 pp)...
    # or 6 (2 pp) is out; 7 is the first within
    assert res["proposal"] == 7 and res["status"] == "proposed"
    # clearly out: the never-bought values (9+) and the printed one stop after round 0
    for v in (3, 9, 10, 11):
        assert rows[v]["out_round"] == 0, (v, rows[v])
        assert rows[v]["games"] == 1000
    # the decision is open around 6..7: they get the most games
    assert rows[7]["games"] == max(r["games"] for r in rows.values()) > 1000
    lo, hi = res["passing"]
    assert lo <= 7 <= hi and hi <= 8          # cost 9 is never bought: it cannot pass


def test_a_never_bought_card_is_a_candidate_and_is_moved_until_bought():
    """A card printed at cost 8 that the field never buys (it buys it from cost 5 down);
    forcing it costs 6 pp at 8, 1.5 pp less per step down; its natural value is 0 when
    not bought, +0.5 pp when bought.  The race goes down past where it is first bought
    (cost 5, forcing it still -1.5 pp: beyond margin/2) to cost 4 (forced 0); every
    bought value passes the 2 pp margin, no value the field never buys does."""
    def truth(v):
        return (0.005 if v <= 5 else 0.0), min(0.0, -0.06 + 0.015 * (8 - v))
    race = R.CardRace("P", "cost", 8, range(2, 8), -1, "under", [2], M, T, limits=(2, 8))
    res = R.run_race(race, _synthetic(truth, taken=lambda v: v <= 5), 4000, 3)
    assert res["status"] == "proposed"
    assert res["proposal"] == 4
    assert res["passing"] == [2, 5]
    rows = {r["value"]: r for r in res["candidates"]}
    assert rows[7]["out_round"] == 0 and rows[8]["out_round"] == 0   # never bought: out


def test_the_proposal_that_had_stopped_plays_again():
    truth, taken = _over_cost_card()
    race = R.CardRace("X", "cost", 3, range(4, 12), -1, "over", [2], M, T)
    meas = _synthetic(truth, taken=taken)
    for v in race.cands:
        for p, (a, b, tk) in meas(v, 1, 400).items():
            race.add(v, p, a, b, tk, 400)
    race.cands[7].out_round = 0
    best, _ = race.proposal()
    nxt = race.next_round(1)
    assert best in nxt and race.cands[best].out_round is None


def test_the_passing_range_is_the_run_around_the_proposal():
    race = R.CardRace("X", "end_vp", 5, range(0, 5), +1, "over", [2], M, T)
    for v, nat in {0: 0.0, 1: 0.005, 2: 0.015, 3: 0.03, 4: 0.05, 5: 0.07}.items():
        race.add(v, 2, np.full(4000, nat) + np.tile([-1e-3, 1e-3], 2000),
                 np.zeros(4000), True, 8000)
    best, g = race.proposal()
    assert best == 1 and g == pytest.approx(0.005, abs=1e-6)   # smallest change within 1 pp
    assert race.passing() == (0, 2)                            # within the 2 pp margin


def test_a_candidate_not_confirmed_is_never_proposed():
    cands = [{"card": c, "kind": "over", "edit": f"{c}.cost=5", "field": "cost", "old": 3,
              "new": 5} for c in ("A", "B", "C")]
    means = lambda flag, nat, taken=True: {"flag": flag, "taken": taken,   # noqa: E731
                                           "natural": nat, "forced": 0.0}
    before = {2: {"A": means("over", 0.06), "B": means("over", 0.05),
                  "C": means("over", 0.05), "D": means("", 0.0)}}
    after = {2: {"A": means("", 0.0), "B": means("over", 0.03),
                 "C": means("", 0.0, taken=False), "D": means("under", 0.0)}}

    def gap_fn(m, kind):
        return max(R.gap(v["natural"], v["forced"], v["taken"], M, T, "natural", kind)
                   for v in m.values())
    bad, victims = R.judge(cands, before, after, ["A", "B", "C", "D"], [2], gap_fn)
    assert set(bad) == {"B.cost=5", "C.cost=5"} and "still shown" in bad["B.cost=5"]
    assert victims == ["D"]
    props, unc = R.split_confirmed(cands, bad)
    assert [e["card"] for e in props] == ["A"] and all(e["confirmed"] for e in props)
    assert {e["card"] for e in unc} == {"B", "C"} and not any(e["confirmed"] for e in unc)


def test_field_order_out_of_band_alone_else_the_least_typical_number_first():
    cost = {"field": "cost", "v0": 5, "stronger": -1, "peers": [5, 5, 6, 7, 7]}
    vp = {"field": "end_vp", "v0": 5, "stronger": +1, "peers": [0, 0, 1, 2, 5]}
    assert [f["field"] for f in R.field_order([cost, vp], "over")] == ["end_vp", "cost"]
    assert [f["field"] for f in R.field_order([dict(cost, out_of_band=True), vp],
                                              "over")] == ["cost"]


def test_detection_limit_and_games_to_decide():
    # margin + (z(1 - 0.05/(2*14)) + z(0.8)) * sd / sqrt(n)
    lim = R.detection_limit(0.105, 1000, 14, M)
    assert lim == pytest.approx(M + (2.9116 + 0.8416) * 0.105 / math.sqrt(1000), abs=1e-4)
    assert math.isnan(R.detection_limit(float("nan"), 1000, 14, M))
    assert R.games_to_decide(0.1, 0.03, M, 10, 2) > R.games_to_decide(0.1, 0.05, M, 10, 2)


def test_the_race_seed_depends_on_the_card_not_the_others():
    assert R.race_seed(0, "A", 0) == R.race_seed(0, "A", 0) != R.race_seed(0, "B", 0)
    assert R.race_seed(0, "A", 1) != R.race_seed(0, "A", 0)


class _Run:
    """A stand-in for a StrengthRun: per-deal natural and forced values of one card."""
    def __init__(self, nat, frc):
        self.nat, self.frc = np.asarray(nat, float), np.asarray(frc, float)

    def natural_deals(self, card):
        return self.nat

    def strength_deals(self, card):
        return self.frc


def test_a_card_is_pushed_only_if_the_errata_moved_it():
    rng = np.random.default_rng(1)
    base = rng.normal(0.02, 0.1, 2000)
    noise = rng.normal(0, 0.01, 2000)
    r0 = _Run(base, base)
    assert R.moved_toward(r0, _Run(base + 0.01 + noise, base), "X", "over")
    assert not R.moved_toward(r0, _Run(base + noise, base), "X", "over")       # flips in noise
    assert R.moved_toward(r0, _Run(base, base - 0.01 + noise), "X", "under")
    assert not R.moved_toward(r0, _Run(base, base + 0.01 + noise), "X", "under")
