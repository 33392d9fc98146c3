"""Stable labels (issue 36, item 6; docs/statistics.md §5.8): do identical twins read the
same verdict, and does a verdict say when it would not?

The rule's pieces are pinned on hand-made runs.  The rest reads the per-deal outcomes of
one real run (``tests/data/twin_labels_meta-2p.npz``: core plus an identical twin of
Podlings, Feral Chieftain, Woodland Warden, Azure Lake and Fertile Soil (top), every card
measured under meta-2p, natural estimand, 10,000 deals, seed 0; made by
``experiments/twin_labels.py run --deals 10000 --seed 0 --out ...``, about 2 minutes) and
draws "seeds" from it by deal -- the sampling distribution of real games, at realistic
sizes, with no game played.  Regenerate the file when the strongest field changes.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from vale_sim import stats
from vale_sim.advancements import (STABLE_AGREEMENT, StrengthRun, agreement_of,
                                   deal_matrices, report_records, resampled_verdicts,
                                   strength_frame, verdict_agreement, verdict_rule)

DATA = Path(__file__).parent / "data" / "twin_labels_meta-2p.npz"
TWIN = " (twin)"
#: the twins whose games the field plays alike (see test_fertile_soil_twins_...)
ALIKE = ("Podlings", "Feral Chieftain", "Woodland Warden", "Azure Lake")


def _load():
    """(cards, (strength, natural, strength changed, natural changed)), each (deals,
    cards): the format of experiments/twin_labels.py's save_matrices."""
    z = np.load(DATA)
    n = int(z["deals"])
    bits = lambda b: np.unpackbits(b, axis=0, count=n).astype(float)     # noqa: E731
    return ([str(c) for c in z["cards"]], (z["strength4"] / 4.0, z["natural4"] / 4.0,
                                          bits(z["strength_changed"]),
                                          bits(z["natural_changed"])))


def _own_verdicts(mats, estimand="natural"):
    """The verdicts a run with these per-deal matrices reads (its own deals)."""
    ds, dn, cs, cn = mats[:4]
    summ = lambda d, c: (d.mean(axis=0), d.std(axis=0, ddof=1), c.sum(axis=0))  # noqa: E731
    pick = None          # the per-pick tests (docs/statistics.md §5.7), given acquisitions
    if estimand == "natural" and len(mats) > 4:   # (the stored real run has none)
        gn, gp = mats[4:6]
        pick = (summ(dn - 0.05 * gn, cn), summ(ds + 0.05 * gp, cs))
    return verdict_rule(summ(ds, cs), summ(dn, cn), ds.shape[0], estimand=estimand,
                        pick=pick)["verdict"]


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
    one = [_own_verdicts(deal_matrices(r), "prefer") for r in (a, b)]
    stacked = [np.stack([x, y]) for x, y in zip(deal_matrices(a), deal_matrices(b))]
    ds, dn, cs, cn = stacked[:4]
    summ = lambda d, c: (d.mean(axis=1), d.std(axis=1, ddof=1), c.sum(axis=1))  # noqa: E731
    both = verdict_rule(summ(ds, cs), summ(dn, cn), 2000, estimand="prefer")["verdict"]
    assert both.tolist() == [o.tolist() for o in one]
    # and a frame's verdicts are the rule's
    df = strength_frame(a, estimand="prefer").set_index("card")
    assert [df.loc[c, "verdict"] for c in a.arms] == one[0].tolist()


def test_agreement_is_one_far_from_every_boundary_and_a_toss_up_on_one():
    # 2,000 deals; tolerance 5 pp.  "Gross": +22.5 pp, over in every draw.  "Edge": +5.8
    # pp, its adjusted lower bound +5.04 pp, on the +5 pp band edge: over in about half
    # the draws (measured 0.50).  "Flat": never changes, balanced in every draw.
    deals = 2000
    run = _run({"Gross": _shares(deals, 900), "Edge": _shares(deals, 232, 1),
                "Flat": np.full(deals, 0.5)})
    df = strength_frame(run, estimand="prefer").set_index("card")
    ag = df["verdict_agreement"]
    assert ag["Gross"] == 1.0 and ag["Flat"] == 1.0
    assert df.loc["Gross", "verdict"] == "over" and df.loc["Flat", "verdict"] == "balanced"
    assert 0.4 < ag["Edge"] < 0.7 and df.loc["Edge", "verdict_stable"] is False
    assert df.loc["Gross", "verdict_stable"] is True
    assert df.attrs["near_boundary"] == 1 and df.attrs["stable_agreement"] == STABLE_AGREEMENT
    # the same run, the same estimate (seeded by the run's seed); none without resamples
    again = verdict_agreement(run, estimand="prefer")
    assert np.array_equal(again, [df.loc[c, "verdict_agreement"] for c in run.arms])
    none = strength_frame(run, estimand="prefer", agreement_resamples=0)
    assert none["verdict_agreement"].isna().all() and none["verdict_stable"].isna().all()
    assert none.attrs["near_boundary"] == 0


def test_agreement_of_counts_pairs_of_draws():
    lab = np.array([["a", "x"], ["a", "y"], ["b", "x"], ["a", "x"]])
    # column 0: 3 a, 1 b -> (3*2 + 0) / (4*3); column 1: 3 x, 1 y
    assert agreement_of(lab).tolist() == [0.5, 0.5]
    assert np.isnan(agreement_of(lab[:1])).all()


def test_texts_and_json_mark_a_verdict_near_a_boundary():
    from vale_sim.commands.advancements import format_strength
    from vale_sim.verdicts import card_verdicts
    run = _run({"Gross": _shares(2000, 900), "Edge": _shares(2000, 232, 1)})
    df = strength_frame(run, estimand="prefer")
    text = format_strength(df)
    edge = next(line for line in text.splitlines() if line.startswith("Edge"))
    assert "?" in edge and "near a label boundary" in text
    assert "1 of the 2 verdicts sit near a label boundary" in text
    rec = {r["card"]: r for r in report_records(df)}
    assert rec["Edge"]["verdict_stable"] is False and 0 < rec["Edge"]["verdict_agreement"] < 1
    assert rec["Gross"]["verdict"] == "over" and rec["Gross"]["verdict_stable"] is True
    df.attrs.update(players=2, baseline="field")
    said = " ".join(v.sentence for v in card_verdicts(df))
    assert "sit near a label boundary" in said


# ---------------------------------------------------------------------------
# Real games: seeds drawn by deal from one meta-2p run
# ---------------------------------------------------------------------------
def test_stable_verdicts_are_read_again_at_the_what_if_size():
    """At 1,000 deals (what-if's and balance's 2,000 games per card and arm), a verdict
    is read again by an independent seed 87% of the time: the bar of 90% fails for the
    verdicts as they are (a ±2 pp 'balanced' needs more deals than that for a third of
    the cards).  The verdicts the marker calls stable, estimated from each seed's own
    deals, pass it; those it calls near a boundary are the ones that flip.  An
    'undecided' label for them instead would lower the agreement (docs/statistics.md
    §5.8).  Measured with 100 pairs of seeds and 200 resamples: all 87.9%, stable (63%
    of the verdicts) 96.9%, near a boundary 72.5%, with 'undecided' 75.9%."""
    cards, mats = _load()
    own = [i for i, c in enumerate(cards) if not c.endswith(TWIN)]
    rng = np.random.default_rng(11)
    pool, k = mats[0].shape[0], 30
    labs, ags = [], []
    for _ in range(2 * k):
        seed = tuple(m[rng.integers(0, pool, 1000)] for m in mats)
        labs.append(_own_verdicts(seed)[own])
        ags.append(agreement_of(resampled_verdicts(seed, 100, rng, estimand="natural"))[own])
    x, y = np.array(labs[:k]), np.array(labs[k:])
    ax, ay = np.array(ags[:k]), np.array(ags[k:])
    same = x == y
    stable = ax >= STABLE_AGREEMENT
    assert same.mean() < 0.9                   # every verdict read as settled: fails
    assert same[stable].mean() >= 0.9          # the ones the marker calls stable: pass
    assert same[~stable].mean() < 0.85         # the marked ones are the ones that flip
    assert 0.4 < stable.mean() < 0.9           # not everything marked, nor nothing
    undecided = (np.where(ax >= STABLE_AGREEMENT, x, "undecided")
                 == np.where(ay >= STABLE_AGREEMENT, y, "undecided"))
    assert undecided.mean() < same.mean()      # an 'undecided' label: worse, not better


def test_identical_twins_read_the_same_verdict_at_the_default_size():
    """At the default size (20,000 games per card and arm = 10,000 deals) the twins of
    an L1, an L2, an L3 card and a vale read the same verdict in at least 90% of the
    drawn seeds (measured, 200 seeds: 100%, 97.5%, 100%, 100%), and a card read against
    itself in two independent seeds agrees 96% of the time on average."""
    cards, mats = _load()
    rng = np.random.default_rng(12)
    lab = resampled_verdicts(mats, 100, rng, estimand="natural")
    for c in ALIKE:
        i, j = cards.index(c), cards.index(c + TWIN)
        assert (lab[:, i] == lab[:, j]).mean() >= 0.9, c
    other = resampled_verdicts(mats, 100, rng, estimand="natural")
    own = [i for i, c in enumerate(cards) if not c.endswith(TWIN)]
    assert (lab[:, own] == other[:, own]).mean() >= 0.9


def test_fertile_soil_twins_are_played_differently_not_labelled_by_noise():
    """The Fertile Soil (top) twins read inconclusive / under in every seed, and both
    verdicts are stable: not noise.  The field does not play the twins alike: equal
    scores are broken in candidate order (the soils by their place in the set), and
    both soils are on offer all game, so it buys the original (98% of games) before the
    twin (43%); their natural values
    differ (+1.5 pp against -0.1 pp) far beyond their intervals.  No labelling rule can
    make such twins agree; the field's tie-break must (issue 36, item 6, planted twins)."""
    cards, mats = _load()
    i, j = cards.index("Fertile Soil (top)"), cards.index("Fertile Soil (top)" + TWIN)
    lab = resampled_verdicts(mats, 60, np.random.default_rng(13), estimand="natural")
    assert (lab[:, i] != lab[:, j]).mean() > 0.9
    assert agreement_of(lab)[[i, j]].min() >= STABLE_AGREEMENT
    d = mats[1][:, i] - mats[1][:, j]             # natural value: original - twin, by deal
    r = stats.paired_difference(d, np.zeros_like(d))
    assert r.lo > 0
