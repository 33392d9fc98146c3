"""Stable labels (issue 36, item 6): the verdict rule as one function of per-card
summaries, for one run or a stack of resampled runs."""
from __future__ import annotations

import numpy as np

from vale_sim import stats
from vale_sim.advancements import StrengthRun, strength_frame, verdict_rule


def _own_verdicts(mats, estimand="natural"):
    """The verdicts a run with these per-deal matrices reads (its own deals)."""
    ds, dn, cs, cn = mats
    summ = lambda d, c: (d.mean(axis=0), d.std(axis=0, ddof=1), c.sum(axis=0))  # noqa: E731
    return verdict_rule(summ(ds, cs), summ(dn, cn), ds.shape[0], estimand=estimand)["verdict"]


def _matrices(run):
    """(strength, natural, changed, changed) per deal and card, as the frame reads them."""
    arms = list(run.arms.values())
    ds = np.stack([p.mean(axis=0) - b.mean(axis=0) for p, b in arms], axis=1)
    dn = np.stack([run.natural.mean(axis=0) - b.mean(axis=0) for _, b in arms], axis=1)
    cs = np.stack([np.any(p != b, axis=0) for p, b in arms], axis=1).astype(float)
    cn = np.stack([np.any(run.natural != b, axis=0) for _, b in arms], axis=1).astype(float)
    return ds, dn, cs, cn


class _Pol:
    name = "field"


def _run(cards: dict, deals: int = 2000, seed: int = 0) -> StrengthRun:
    """A StrengthRun whose per-deal strength differences are given: ``cards[name]`` =
    the prefer arm's win shares (the ban arm and the natural arm are 0.5 throughout)."""
    run = StrengthRun(None, 2, seed, deals, _Pol(), np.full((2, deals), 0.5),
                      known={c: ("advancement", 1) for c in cards})
    for c, pre in cards.items():
        run.arms[c] = (np.tile(pre, (2, 1)), np.full((2, deals), 0.5))
        run.got[c] = np.ones(deals)
        run.got_natural[c] = np.zeros(deals)
    return run


def _shares(deals: int, wins: int, seed: int = 0) -> np.ndarray:
    """Per deal a win share of 0.5 but ``wins`` deals at 1.0: a strength of wins / 2n."""
    x = np.full(deals, 0.5)
    x[np.random.default_rng(seed).choice(deals, wins, replace=False)] = 1.0
    return x


# ---------------------------------------------------------------------------
# The pieces of the rule
# ---------------------------------------------------------------------------
def test_row_corrections_are_statsmodels_for_every_row(monkeypatch):
    import gc
    monkeypatch.setattr(gc, "collect", lambda *a: 0)     # statsmodels' Holm calls it: slow
    rng = np.random.default_rng(0)
    for trial in range(200):
        m = int(rng.integers(1, 80))
        p = rng.random((2, m)) ** float(rng.choice([1, 4]))
        if trial % 3 == 0:
            p = np.round(p, 1)                        # ties
        p[rng.random(p.shape) < 0.05] = np.nan        # nan counts as 1
        for method in ("fdr_bh", "holm", "bonferroni"):
            rej, adj = stats.adjust_pvalues_rows(p, method)
            for i in range(p.shape[0]):
                r1, a1 = stats.adjust_pvalues(p[i], method)
                assert np.array_equal(rej[i], r1) and np.array_equal(adj[i], a1)


def test_the_rule_labels_each_row_as_a_run_of_its_own():
    a = _run({"Big": _shares(2000, 900), "Flat": np.full(2000, 0.5),
              "Some": _shares(2000, 150, 1)}, seed=1)
    b = _run({"Big": _shares(2000, 100), "Flat": _shares(2000, 20, 2),
              "Some": _shares(2000, 260, 3)}, seed=2)
    one = [_own_verdicts(_matrices(r), "prefer") for r in (a, b)]
    stacked = [np.stack([x, y]) for x, y in zip(_matrices(a), _matrices(b))]
    ds, dn, cs, cn = stacked
    summ = lambda d, c: (d.mean(axis=1), d.std(axis=1, ddof=1), c.sum(axis=1))  # noqa: E731
    both = verdict_rule(summ(ds, cs), summ(dn, cn), 2000, estimand="prefer")["verdict"]
    assert both.tolist() == [o.tolist() for o in one]
    # and a frame's verdicts are the rule's
    df = strength_frame(a, estimand="prefer").set_index("card")
    assert [df.loc[c, "verdict"] for c in a.arms] == one[0].tolist()
