"""Intervals and estimators of vale_sim.stats: known values, coverage, consistency."""
import math

import numpy as np
import pytest
from scipy import stats as sps

from vale_sim import stats


# -- proportions ---------------------------------------------------------------
def test_wilson_known_values():
    # Textbook values (e.g. Newcombe 1998, Table I; statsmodels proportion_confint).
    assert stats.wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert stats.wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert stats.wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert stats.wilson_interval(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)


def test_wilson_empty_and_invalid():
    lo, hi = stats.wilson_interval(0, 0)
    assert math.isnan(lo) and math.isnan(hi)
    with pytest.raises(ValueError):
        stats.wilson_interval(11, 10)
    with pytest.raises(ValueError):
        stats.wilson_interval(1, 10, confidence=1.5)


def test_fractional_successes_are_monotone_and_inside():
    # Shared wins count 1/k: 4.5 wins of 10 lies between 4 and 5.
    lo4, hi4 = stats.wilson_interval(4, 10)
    lo45, hi45 = stats.wilson_interval(4.5, 10)
    lo5, hi5 = stats.wilson_interval(5, 10)
    assert lo4 < lo45 < lo5 and hi4 < hi45 < hi5
    lo, hi = stats.clopper_pearson_interval(4.5, 10)
    assert lo < 0.45 < hi


def test_clopper_pearson_known_and_wider_than_wilson():
    assert stats.clopper_pearson_interval(5, 10) == pytest.approx((0.1871, 0.8129), abs=1e-4)
    assert stats.clopper_pearson_interval(0, 10)[1] == pytest.approx(1 - 0.025 ** 0.1, abs=1e-9)
    for k in range(0, 21):
        w, e = stats.wilson_interval(k, 20), stats.proportion_interval(k, 20, method="exact")
        assert e[0] <= w[0] + 1e-12 and e[1] >= w[1] - 1e-12


def _exact_coverage(interval, p, n):
    k = np.arange(n + 1)
    pmf = sps.binom.pmf(k, n, p)
    cover = np.array([lo <= p <= hi for lo, hi in (interval(int(x), n) for x in k)])
    return float(pmf[cover].sum())


@pytest.mark.parametrize("p,n", [(0.5, 40), (0.3, 100), (0.12, 200)])
def test_wilson_coverage_on_a_bernoulli_game(p, n):
    """Repeated runs of a synthetic game won with known probability p: the 95%
    Wilson interval covers p in about 95% of runs.

    The exact coverage (summed over the binomial) must be within [0.93, 0.97]
    (Wilson's coverage oscillates around the nominal level by about a point);
    the simulated coverage over R runs must match the exact coverage within
    4 binomial standard deviations — a false failure has probability < 1e-4.
    """
    exact = _exact_coverage(stats.wilson_interval, p, n)
    assert 0.93 <= exact <= 0.97
    rng = np.random.default_rng(12345)
    runs = 4000
    wins = rng.binomial(n, p, size=runs)
    covered = sum(lo <= p <= hi for lo, hi in (stats.wilson_interval(int(w), n) for w in wins))
    sd = math.sqrt(exact * (1 - exact) / runs)
    assert abs(covered / runs - exact) <= 4 * sd


def test_exact_interval_never_undercovers():
    for p, n in [(0.05, 30), (0.5, 25), (0.9, 60)]:
        assert _exact_coverage(stats.clopper_pearson_interval, p, n) >= 0.95 - 1e-12


def test_rate_carries_n_and_interval():
    r = stats.rate(30, 100)
    assert (r.n, r.rate) == (100, 0.3)
    assert r.lo < 0.3 < r.hi
    assert "n=100" in str(r)


# -- paired and two-sample differences --------------------------------------------
def test_paired_difference_matches_scipy_ttest_rel():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2, 80).astype(float)
    b = np.where(rng.random(80) < 0.7, a, 1 - a)
    d = stats.paired_difference(a, b)
    ci = sps.ttest_rel(a, b).confidence_interval(0.95)
    assert d.mean == pytest.approx(np.mean(a - b))
    assert (d.lo, d.hi) == pytest.approx((ci.low, ci.high))
    assert d.se == pytest.approx(np.std(a - b, ddof=1) / math.sqrt(80))


def test_paired_difference_edge_cases():
    d = stats.paired_difference([1.0], [0.0])
    assert d.mean == 1 and math.isnan(d.lo)
    d = stats.paired_difference([1, 1, 0], [1, 1, 0])
    assert (d.mean, d.lo, d.hi) == (0, 0, 0)
    with pytest.raises(ValueError):
        stats.paired_difference([1, 2], [1])


def test_pairing_narrows_the_interval_under_common_random_numbers():
    # a and b share most of their noise (like two policies on the same seeds).
    rng = np.random.default_rng(2)
    luck = rng.normal(size=500)
    a, b = luck + 0.2 + 0.3 * rng.normal(size=500), luck + 0.3 * rng.normal(size=500)
    paired = stats.paired_difference(a, b)
    unpaired_se = math.sqrt(np.var(a, ddof=1) / 500 + np.var(b, ddof=1) / 500)
    assert paired.se < unpaired_se / 2
    assert paired.lo > 0


def test_newcombe_known_value():
    # Newcombe (1998), Table II example (a): 56/70 vs 48/80, method 10: 0.0524 to 0.3339.
    d, lo, hi = stats.two_proportion_diff(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert (lo, hi) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    d, lo, hi = stats.two_proportion_diff(56, 70, 48, 80, method="wald")
    se = math.sqrt(0.8 * 0.2 / 70 + 0.6 * 0.4 / 80)
    assert (lo, hi) == pytest.approx((0.2 - 1.959964 * se, 0.2 + 1.959964 * se), abs=1e-6)


def test_clustered_ratio_difference_widens_for_dependent_players():
    # 2-player games: the holder of a card wins with prob 0.6, the other player
    # is the loser -- group outcomes are perfectly anti-correlated inside a game.
    rng = np.random.default_rng(3)
    g = 400
    holder_wins = (rng.random(g) < 0.6).astype(float)
    s1, n1, s0, n0 = holder_wins, np.ones(g), 1 - holder_wins, np.ones(g)
    d, lo, hi = stats.clustered_ratio_difference(s1, n1, s0, n0)
    _, nlo, nhi = stats.two_proportion_diff(s1.sum(), g, s0.sum(), g)
    assert d == pytest.approx(2 * holder_wins.mean() - 1)
    # Var(2X - 1) = 4 p(1-p)/g: twice the independent-samples variance.
    assert (hi - lo) == pytest.approx(math.sqrt(2) * (nhi - nlo), rel=0.05)


def test_clustered_ratio_is_wald_for_single_trials():
    rng = np.random.default_rng(4)
    x = (rng.random(1000) < 0.2).astype(float)
    r, lo, hi = stats.clustered_ratio(x, np.ones(1000))
    p = x.mean()
    se = math.sqrt(p * (1 - p) / 1000 * 1000 / 999)
    assert (lo, hi) == pytest.approx((p - 1.959964 * se, p + 1.959964 * se), abs=1e-6)


def test_games_for_halfwidth():
    assert stats.games_for_halfwidth(0.02) == 2401
    assert stats.games_for_halfwidth(0.01, p=0.5) == 9604


# -- Bradley–Terry -------------------------------------------------------------
def _simulate_bt(theta, games_per_pair, rng):
    k = len(theta)
    w = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p = 1 / (1 + math.exp(theta[j] - theta[i]))
            x = rng.binomial(games_per_pair, p)
            w[i, j], w[j, i] = x, games_per_pair - x
    return w


def test_bradley_terry_mm_is_the_maximum_likelihood():
    from scipy.optimize import minimize
    rng = np.random.default_rng(5)
    w = _simulate_bt(np.array([0.5, 0.0, -0.2, -0.3]), 200, rng)
    theta = stats.fit_bradley_terry(w, prior=0)

    def nll(t):
        t = np.concatenate([[0.0], t])
        d = t[:, None] - t[None, :]
        return float(np.sum(w * np.logaddexp(0, -d)))
    opt = minimize(nll, np.zeros(3), method="BFGS", options={"gtol": 1e-10})
    ml = np.concatenate([[0.0], opt.x])
    assert theta == pytest.approx(ml - ml.mean(), abs=1e-5)


def test_bradley_terry_recovers_strengths_and_intervals_agree():
    rng = np.random.default_rng(6)
    truth = np.array([0.6, 0.1, -0.2, -0.5])
    truth = truth - truth.mean()
    w = _simulate_bt(truth, 600, rng)
    fisher = stats.bradley_terry(w, names="abcd").set_index("name").loc[list("abcd")]
    boot = stats.bradley_terry(w, names="abcd", method="bootstrap", n_boot=400).set_index("name").loc[list("abcd")]
    # Truth within 4 standard errors (a false failure is very unlikely).
    assert np.all(np.abs(fisher["strength"].to_numpy() - truth) <= 4 * fisher["se"].to_numpy())
    assert fisher["se"].to_numpy() == pytest.approx(boot["se"].to_numpy(), rel=0.25)
    assert list(stats.bradley_terry(w, names="abcd")["name"]) == list("abcd")


def test_bradley_terry_per_game_bootstrap_and_prior():
    # A policy that never wins still gets a finite strength (prior), ranked last.
    per_game = np.zeros((30, 3, 3))
    for g in range(30):
        per_game[g, 0, 2] = 1
        per_game[g, 1, 2] = 1
        per_game[g, 0 if g % 3 else 1, 1 if g % 3 else 0] = 1
    df = stats.bradley_terry(per_game, names=["x", "y", "z"], method="bootstrap", n_boot=200)
    assert list(df["name"]) == ["x", "y", "z"]
    assert np.isfinite(df[["strength", "lo", "hi"]].to_numpy()).all()
    with pytest.raises(ValueError):
        stats.fit_bradley_terry(per_game.sum(0), prior=0)


# ---------------------------------------------------------------------------
# Deal-clustered intervals
# ---------------------------------------------------------------------------
def test_cluster_ratio_matches_statsmodels_cluster_robust_mean():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    g = np.repeat(np.arange(40), 6)                        # 40 deals x 6 games
    y = (rng.random(240) < rng.random(40)[g]).astype(float)     # each deal its own odds
    e = stats.cluster_rate(y, g)
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
    assert e.value == pytest.approx(fit.params[0])
    assert e.se == pytest.approx(fit.bse[0], rel=1e-9)
    lo, hi = fit.conf_int()[0]
    assert (e.lo, e.hi) == (pytest.approx(lo), pytest.approx(hi))
    assert e.n == 240 and e.clusters == 40
    # the independent interval is narrower here: outcomes of a deal are correlated
    ind = stats.cluster_rate(y, None)
    assert ind.clusters == 240 and ind.hi - ind.lo < e.hi - e.lo


def test_cluster_ratio_is_a_ratio_and_never_a_precise_zero():
    e = stats.cluster_ratio([1, 3, 0, 2], [10, 10, 5, 5], clusters=[0, 0, 1, 1])
    assert e.value == pytest.approx(6 / 30)
    z = stats.cluster_rate(np.zeros(20), np.repeat(np.arange(10), 2))
    assert z.value == 0 and z.lo == 0 and z.hi > 0.2      # Wilson over the 10 deals
    assert z.hi == pytest.approx(stats.wilson_interval(0, 10)[1])


def test_bt_sandwich_matches_statsmodels_glm_cluster():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(5)
    k, deals = 3, 150
    theta_true = np.array([0.4, 0.0, -0.4])
    rows, ys, groups, per_game = [], [], [], []
    for d in range(deals):
        luck = rng.normal(0, 2.0)                          # a deal favours policy 0 or not
        for i, j in [(0, 1), (0, 2), (1, 2)] * 2:
            p = 1 / (1 + np.exp(-(theta_true[i] - theta_true[j] + (luck if i == 0 else 0))))
            y = float(rng.random() < p)
            x = np.zeros(k)
            x[i], x[j] = 1, -1
            rows.append(x[1:])
            ys.append(y)
            groups.append(d)
            w = np.zeros((k, k))
            w[i, j], w[j, i] = y, 1 - y
            per_game.append(w)
    per_game = np.array(per_game)
    prior = 1e-9
    df = stats.bradley_terry(per_game, names=["a", "b", "c"], method="sandwich",
                             clusters=groups, prior=prior).set_index("name").loc[["a", "b", "c"]]
    fit = sm.GLM(np.array(ys), np.array(rows), family=sm.families.Binomial()).fit(
        cov_type="cluster", cov_kwds={"groups": np.array(groups), "use_correction": False})
    tmat = np.vstack([np.zeros(k - 1), np.eye(k - 1)])
    tmat = tmat - tmat.mean(axis=0)                        # sum-zero log strengths
    theta = tmat @ fit.params
    cov = tmat @ fit.cov_params() @ tmat.T * deals / (deals - 1)    # CR1 factor G/(G-1)
    np.testing.assert_allclose(df["strength"], theta, atol=1e-6)
    np.testing.assert_allclose(df["se"], np.sqrt(np.diag(cov)), rtol=1e-4)
    # clustering matters here: the Fisher (independent games) se of policy 0 is smaller
    fisher = stats.bradley_terry(per_game, names=["a", "b", "c"], method="fisher", prior=prior)
    assert fisher.set_index("name").loc["a", "se"] < 0.85 * df.loc["a", "se"]


def test_bt_bootstrap_over_clusters_keeps_deals_together():
    rng = np.random.default_rng(2)
    per_game = np.zeros((200, 2, 2))
    outcome = rng.random(100) < 0.6                         # one outcome per deal, played twice
    for d in range(100):
        for r in range(2):
            per_game[2 * d + r, 0, 1] = outcome[d]
            per_game[2 * d + r, 1, 0] = 1 - outcome[d]
    deals = np.repeat(np.arange(100), 2)
    by_deal = stats.bradley_terry(per_game, method="bootstrap", clusters=deals, n_boot=400)
    by_game = stats.bradley_terry(per_game, method="bootstrap", n_boot=400)
    w_deal = (by_deal["hi"] - by_deal["lo"]).iloc[0]
    w_game = (by_game["hi"] - by_game["lo"]).iloc[0]
    assert w_deal / w_game == pytest.approx(np.sqrt(2), rel=0.2)     # duplicated games: n halves
