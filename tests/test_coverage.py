"""Coverage of the tournament intervals: they must cover the truth ~95 % of the time,
and the same check must fail when the clustering by deal is removed.

Design: ``balanced``, two copies of it that differ only in name (they play
identical games, so every game against the third policy is replayed once per
copy on the same deal — the correlation clustering has to absorb) and
``greedy``; 2-player round robin.  150 replications of 60 deals each (one
tournament cut into independent blocks of deals) against the estimates of a
reference tournament of 10,000 deals on another seed.  ~110,000 + 120,000
fast-engine games (docs/statistics.md §2.1 gives the measured numbers).
"""
import dataclasses

import pytest

from vale_sim.games.mystic_vale.policy import get_policy
from vale_sim.tournament import coverage_study


def _policies():
    bal = get_policy("balanced")
    return [bal, dataclasses.replace(bal, name="twin1"), dataclasses.replace(bal, name="twin2"),
            get_policy("greedy")]


@pytest.fixture(scope="module")
def study():
    return coverage_study(_policies(), players=2, deals=60, reps=150, seed=1).set_index("quantity")


def test_equal_policies_are_estimated_equal(study):
    # policies equal by construction: the reference run gives them the same strength
    s = study["truth"]
    assert s["strength balanced"] == pytest.approx(s["strength twin1"]) == pytest.approx(s["strength twin2"])
    assert s["strength greedy"] < s["strength balanced"]


@pytest.mark.parametrize("quantity", ["seat 1 win rate", "strength greedy", "strength balanced"])
def test_clustered_intervals_cover(study, quantity):
    # 150 replications: binomial sd of a 95 % coverage is 1.8 pp; the band is ~3 sd wide.
    assert 0.89 <= study.loc[quantity, "coverage"] <= 1.0


@pytest.mark.parametrize("quantity", ["seat 1 win rate", "strength greedy"])
def test_unclustered_intervals_undercover(study, quantity):
    # Treating the games of a deal as independent: measured 63 % (seat) and 74 % (strength).
    assert study.loc[quantity, "coverage_unclustered"] < 0.87
    assert study.loc[quantity, "coverage_unclustered"] < study.loc[quantity, "coverage"] - 0.08
