"""Bradley–Terry intervals of 3–4 player tournaments (rank-broken pairwise results,
deals shared by every matchup and rotation) must cover 95 ± 2 % (issue 24 §3).

Synthetic tournaments from a known model (vale_sim.stats.synthetic_rank_games:
Plackett–Luce finishing orders with luck shared by the games of a deal) keep the
check cheap; the truth is the estimator's limit, a fit on 100,000 deals.  One small
real-game check follows.  The percentile bootstrap over deals that ranking() used
before covered 92–93 % for the outer strengths here (docs/statistics.md §3)."""
import dataclasses

import numpy as np
import pytest

from vale_sim import stats
from vale_sim.tournament import ranking_method

THETA = np.array([0.4, 0.0, 0.0, -0.4])


def _coverage(deals_per_rep: int, reps: int):
    big, _ = stats.synthetic_rank_games(THETA, 3, 100_000, 0.5, seed=999)
    truth = stats.fit_bradley_terry(big.sum(axis=0))
    method = ranking_method(3)
    hits, z = [], []
    for r in range(reps):
        pg, deals = stats.synthetic_rank_games(THETA, 3, deals_per_rep, 0.5, seed=r)
        df = stats.bradley_terry(pg, names=list("abcd"), method=method, clusters=deals,
                                 seed=r).set_index("name").loc[list("abcd")]
        hits.append((df["lo"].to_numpy() <= truth) & (truth <= df["hi"].to_numpy()))
        z.append((df["strength"].to_numpy() - truth) / df["se"].to_numpy())
    return np.mean(hits, axis=0), np.std(z, axis=0, ddof=1), truth


@pytest.fixture(scope="module")
def coverage():
    return _coverage(40, 400)


def test_the_synthetic_truth_is_ordered_as_the_model(coverage):
    truth = coverage[2]
    assert truth[0] > truth[1] > truth[3] and abs(truth[1] - truth[2]) < 0.01


def test_3_player_intervals_cover_95_percent(coverage):
    cov, _, _ = coverage
    # 400 replications of 40 deals: binomial sd of a 95 % coverage is 1.1 pp.  Measured on
    # these replications: sandwich 96.3 / 95.8 / 93.3 / 93.0 % (mean 94.6); the old
    # bootstrap (500 resamples) 94.0 / 95.0 / 92.3 / 92.5 % (mean 93.4).
    assert 0.94 <= cov.mean() <= 0.97, cov
    assert (cov >= 0.925).all() and (cov <= 0.985).all(), cov


def test_few_deals_still_cover():
    # 20 deals, 300 replications: measured sandwich 95.0 / 93.3 / 92.7 / 95.0 % (mean 94.0);
    # the old percentile bootstrap over deals (200 resamples) 92.3 / 88.7 / 90.3 / 92.7 %
    # (mean 91.0): too narrow when the deals are few.
    cov, _, _ = _coverage(20, 300)
    assert cov.mean() >= 0.925, cov


def test_the_reported_error_matches_the_spread(coverage):
    _, zsd, _ = coverage
    assert (zsd < 1.12).all() and (zsd > 0.88).all(), zsd


def test_real_3_player_tournament_intervals_cover():
    from vale_sim.games.mystic_vale.policy import get_policy
    from vale_sim.tournament import coverage_study
    bal = get_policy("balanced")
    pols = [bal, dataclasses.replace(bal, name="twin1"), get_policy("greedy")]
    c = coverage_study(pols, players=3, deals=25, reps=120, seed=1, truth_deals=1500)
    c = c.set_index("quantity")
    # 120 replications: binomial sd 2.0 pp at 95%; a coarse check that the real pipeline
    # covers, 3 sd below 95%.  (60 replications at 0.87 read 86.7% on the refit core,
    # one replication short; on 240 replications of seed 4 the strengths cover 92.5%
    # and the seat rate 97.1%.)
    assert c.loc["strength greedy", "coverage"] >= 0.89
    assert c.loc["strength balanced", "coverage"] >= 0.89
