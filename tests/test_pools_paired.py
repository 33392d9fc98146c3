"""Pool sizes, equal-length target: the difference from the 2-player goal is paired by
game (deal) index, because every cell plays the same deals (issue 24 §3).  Treating
the cells as independent over-states the standard error (measured 4.5x on core)."""
import numpy as np
import pandas as pd
import pytest

from vale_sim.games.mystic_vale import pools


def frame(seed, games=120, shift=0.3, deal_sd=3.0, own_sd=0.3, grid=(23, 25)):
    """2-player cells whose length shares a large per-deal part (the deal's luck)."""
    rng = np.random.default_rng(seed)
    deal = rng.normal(0, deal_sd, games)
    parts = []
    for v in grid:
        r = 20 + deal + (shift if v != 23 else 0.0) + rng.normal(0, own_sd, games)
        g = np.repeat(np.arange(games), 2)
        s = np.tile([0, 1], games)
        parts.append(pd.DataFrame(dict(players=2, pool=v, game=g, player=s, seat=s, policy="x",
                                       score=10 + s, tokens_vp=v // 2, adv_vp=10, vale_vp=0,
                                       win_share=(s == g % 2).astype(float), rounds=np.repeat(r, 2),
                                       truncated=False)))
    return pd.concat(parts, ignore_index=True)


def test_paired_se_matches_the_spread_over_replications():
    est, half = [], []
    for rep in range(100):
        f = frame(rep)
        r = pools.recommend(pools.summarize_pools(f), "equal-length", frame=f,
                            reference_pool=25)[0]
        # closest pool is 25 itself (difference 0); use the rulebook pool 23's difference
        est.append(r.rulebook_difference)
        lo, hi = r.rulebook_difference_ci
        half.append((hi - lo) / 2)
        assert r.paired
    se_reported = np.mean(half) / 1.658          # 90% t interval, 119 df (120 games)
    spread = np.std(est, ddof=1)
    assert 0.8 < se_reported / spread < 1.25, (se_reported, spread)


def test_unpaired_se_overstates_the_spread_and_misses_equivalence():
    f = frame(0)
    paired = pools.recommend(pools.summarize_pools(f), "equal-length", frame=f,
                             reference_pool=25)[0]
    indep = pools.recommend(pools.summarize_pools(f), "equal-length", reference_pool=25)[0]
    w_p = np.diff(paired.rulebook_difference_ci)[0]
    w_i = np.diff(indep.rulebook_difference_ci)[0]
    assert w_i > 4 * w_p
    # a true difference of -0.3 rounds at ±0.5: shown equivalent only when paired
    assert paired.rulebook_verdict == "equivalent" and paired.rulebook_equivalent
    assert indep.rulebook_verdict == "inconclusive"


def test_a_difference_shown_outside_the_margin_reads_shown_different():
    f = frame(1, shift=0.9, own_sd=0.2)
    r = pools.recommend(pools.summarize_pools(f), "equal-length", frame=f,
                        reference_pool=25)[0]
    assert r.rulebook_verdict == "shown different"
    assert "shown different" in r.sentence() and "not shown equivalent" not in r.sentence()


def test_real_games_pairing_narrows_the_2_player_interval():
    f = pools.simulate_pools("core", players=[2], pools=[23, 25], games=300, seed=5,
                             engine="fast")
    s = pools.summarize_pools(f)
    a = pools.recommend(s, "equal-length", frame=f, reference_pool=25)[0]
    b = pools.recommend(s, "equal-length", reference_pool=25)[0]
    assert a.paired and not b.paired
    assert a.rulebook_difference == pytest.approx(b.rulebook_difference)
    assert np.diff(a.rulebook_difference_ci)[0] < 0.6 * np.diff(b.rulebook_difference_ci)[0]
