"""Three-way card verdicts (issue 24 §3): over/under (shown beyond the band), balanced
(shown within a tighter margin by two one-sided tests, the same multiplicity
correction) or inconclusive with the games it would need.  No flag is not balanced."""
import json
import math

import numpy as np
import pytest

from vale_sim import advancements as A
from vale_sim import stats


def _run(deals=4000, seed=0):
    rng = np.random.default_rng(seed)
    nat = np.full((2, deals), 0.5)
    run = A.StrengthRun(None, 2, 0, deals, type("B", (), {"name": "base"})(), nat,
                        known={})
    spec = {"Big": (0.10, 0.3), "Zero": (0.0, 0.05), "Noisy": (0.005, 0.6),
            "Mid": (0.035, 0.05), "Same": None}
    for name, sp in spec.items():
        run.known[name] = ("advancement", 1)
        if sp is None:
            pre = ban = nat.copy()
        else:
            m, sd = sp
            d = m + rng.normal(0, sd, deals)
            pre = np.tile(0.5 + d / 2, (2, 1))
            ban = np.tile(0.5 - d / 2, (2, 1))
        run.arms[name] = (pre, ban)
        run.got[name] = np.ones(deals)
    return run


@pytest.fixture(scope="module")
def table():
    return A.strength_frame(_run(), tolerance=0.05, margin=0.02).set_index("card")


def test_each_card_gets_one_of_three_verdicts(table):
    assert table.loc["Big", "verdict"] == "over" and table.loc["Big", "flag"] == "over"
    assert table.loc["Zero", "verdict"] == "balanced" and table.loc["Zero", "flag"] == ""
    assert table.loc["Noisy", "verdict"] == "inconclusive"
    assert table.loc["Mid", "verdict"] == "inconclusive"     # 3.5 pp: neither within 2 nor beyond 5
    assert set(table["verdict"]) <= set(A.VERDICTS)
    assert (table["margin"] == 0.02).all() and table.attrs["margin"] == 0.02


def test_inconclusive_cards_say_how_many_games_would_settle_them(table):
    n = table.loc["Noisy", "games_needed"]
    assert n > 2 * 4000                        # more than this run played
    assert math.isnan(table.loc["Mid", "games_needed"])      # between margin and band
    assert math.isnan(table.loc["Zero", "games_needed"])


def test_a_card_no_deal_changed_is_balanced_by_the_zero_count_bound(table):
    assert table.loc["Same", "deals_changed"] == 0
    assert table.loc["Same", "p_equivalent"] == pytest.approx(0.98 ** 4000)
    assert table.loc["Same", "verdict"] == "balanced"
    few = A.strength_frame(_run(deals=20), margin=0.02).set_index("card")
    assert few.loc["Same", "verdict"] == "inconclusive"      # 20 deals cannot show ±2 pp


def test_the_equivalence_tests_get_the_same_correction(table):
    p = table["p_equivalent"].to_numpy()
    _, adj = stats.adjust_pvalues(p, "fdr_bh")
    assert np.allclose(np.sort(table["p_equivalent_adjusted"]), np.sort(adj))
    holm = A.strength_frame(_run(), correction="holm").set_index("card")
    assert (holm["p_equivalent_adjusted"] >= holm["p_equivalent"] - 1e-15).all()


def test_a_tighter_margin_turns_balanced_into_inconclusive():
    t = A.strength_frame(_run(), margin=0.0005).set_index("card")
    assert t.loc["Zero", "verdict"] == "inconclusive"


def test_stats_tost_and_beyond_agree_with_their_intervals():
    p, (lo, hi) = stats.tost(0.01, 0.004, 0.02, df=500)
    assert p < 0.05 and -0.02 < lo < hi < 0.02
    assert stats.beyond_p(0.08, 0.01, 0.05, df=500) < 0.05
    assert stats.beyond_p(0.06, 0.01, 0.05, df=500) > 0.05   # 95% interval touches the band
    # se = 0: the point estimate decides
    assert stats.tost(0.01, 0.0, 0.02)[0] == 0.0 and stats.tost(0.03, 0.0, 0.02)[0] == 1.0
    assert stats.beyond_p(0.06, 0.0, 0.05) == 0.0 and stats.beyond_p(0.01, 0.0, 0.05) == 1.0
    assert stats.equivalence_verdict(0.01, 1.0) == "equivalent"
    assert stats.equivalence_verdict(0.9, 0.01) == "shown different"
    assert stats.equivalence_verdict(0.2, 0.2) == "inconclusive"


def test_the_command_prints_and_writes_the_verdicts(capsys):
    from vale_sim.cli import main
    args = ["advancements", "--cards", "Podlings,Blooming Arbor", "--games", "40",
            "--only", "strength"]
    assert main(args + ["--json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert {r["verdict"] for r in recs} <= set(A.VERDICTS)
    assert all(r["margin"] == 0.02 and r["players"] == 2 for r in recs)
    assert main(args + ["--margin", "1"]) == 0
    out = capsys.readouterr().out
    assert "verdict" in out and "±1 pp margin" in out and "not 'balanced'" in out
    assert "includes denial" in out
    assert main(args + ["--margin", "7"]) == 2
    assert "--margin must be above 0 and at most --tolerance" in capsys.readouterr().err
