"""Pool-size study: grids, summaries, JSON, recommendation logic."""
import json

import numpy as np
import pandas as pd
import pytest

from vale_sim.games.mystic_vale import pools
from vale_sim.cli import main


def test_parse_pools_always_includes_rulebook():
    assert pools.parse_pools("15:19:2", [2, 3, 4]) == [15, 17, 19, 23, 28, 33]
    assert pools.parse_pools("30", [3]) == [28, 30]
    assert pools.parse_pools([40, 20], [2], include_rulebook=False) == [20, 40]
    for bad in ("5:3", "a:b", "1:2:3:4", "0", ""):
        with pytest.raises(ValueError):
            pools.parse_pools(bad, [2])
    assert pools.parse_players("4,2") == [2, 4]
    with pytest.raises(ValueError):
        pools.parse_players("5")


def synthetic_frame(players, pools_, games, rounds_of, seat_bias=0.0, seed=0):
    """Per-game/player rows: rounds = rounds_of(players, pool) exactly; seat 0 wins
    with probability 1/players + seat_bias; tokens sum to pool + 1 on even games."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in players:
        for v in pools_:
            for g in range(games):
                w = 0 if rng.random() < 1 / p + seat_bias else int(rng.integers(1, p))
                for s in range(p):
                    tokens = (v + (1 if g % 2 == 0 else -1)) // p + (1 if s == 0 else 0)
                    rows.append(dict(players=p, pool=v, game=g, player=s, seat=s, policy="x",
                                     score=tokens + 10 + (5 if s == w else 0), tokens_vp=tokens,
                                     adv_vp=10, vale_vp=0, win_share=1.0 if s == w else 0.0,
                                     rounds=rounds_of(p, v) + (g % 3) - 1, truncated=False))
    return pd.DataFrame(rows)


def test_recommend_equal_length_on_synthetic_frame():
    # length = pool / 2 at 2 players; at 3 and 4 players it falls by 2 and 4 rounds:
    # the equal-length pools are 23 + 4 = 27 and 23 + 8 = 31.
    rounds = lambda p, v: v / 2 - 2 * (p - 2)  # noqa: E731
    grid = list(range(15, 36, 2)) + [28, 33, 23]
    f = synthetic_frame([2, 3, 4], sorted(set(grid)), 60, rounds)
    s = pools.summarize_pools(f)
    recs = {r.players: r for r in pools.recommend(s, "equal-length")}
    assert recs[2].pool == 23 and recs[2].rulebook_equivalent
    assert recs[3].pool == 27 and recs[4].pool == 31
    assert recs[3].interpolated_pool == pytest.approx(27, abs=0.01)
    assert recs[4].pool_range[0] <= 31 <= recs[4].pool_range[1]
    # ±0.5 rounds: length moves 1 round per 2 VP of pool, so only the exact pool is equivalent
    assert recs[3].equivalent_pools == [27] and recs[4].equivalent_pools == [31]
    assert not recs[4].rulebook_equivalent            # 33 gives 12.5 rounds, goal 11.5
    assert recs[4].rulebook_difference == pytest.approx(1.0)
    assert recs[3].goal == pytest.approx(11.5)
    assert "rulebook" in recs[3].sentence() and "equivalent" in recs[3].sentence()
    # a margin of 1.5 rounds takes in the neighbours and the rulebook's 33 at 4 players
    wide = {r.players: r for r in pools.recommend(s, "equal-length", margin=1.5)}
    assert wide[4].equivalent_pools == [29, 31, 33] and wide[4].rulebook_equivalent
    tab = pools.recommendations_frame(recs.values())
    assert tab.loc[tab.players == 4, "rulebook_difference"].iloc[0] == 1.0
    assert not any(isinstance(v, tuple) for v in tab.to_numpy().ravel())
    with pytest.raises(ValueError):
        pools.recommend(s, "equal-length", margin=0)


def test_tost_small_difference_is_equivalent_large_is_not():
    # the case: a 0.2-round (1 %) difference measured precisely is equivalent at ±0.5
    p, ci, ok = pools.tost(-0.2, 0.05, 0.5)
    assert ok and p < 1e-6 and ci[0] == pytest.approx(-0.2 - 1.6449 * 0.05, abs=1e-4)
    assert pools.tost(-0.2, 0.3, 0.5)[2] is False       # too imprecise to tell
    assert pools.tost(0.7, 0.05, 0.5)[2] is False       # precisely not equivalent
    # p-value = the larger one-sided p; at the margin it is 1/2
    assert pools.tost(0.5, 0.1, 0.5)[0] == pytest.approx(0.5)


def test_recommend_seat_advantage_and_metrics():
    f = synthetic_frame([2], [21, 23, 25], 400, lambda p, v: 20, seat_bias=0.25)
    s = pools.summarize_pools(f)
    row = s[s.pool == 23].iloc[0]
    assert row.n_games == 400
    assert row.first_seat_win_rate_ci[0] < row.first_seat_win_rate < row.first_seat_win_rate_ci[1]
    assert row.seat_advantage > 0.15                 # detectable: interval above 0
    assert row.seat_advantage_ci[0] > 0
    assert row.max_seat_gap == pytest.approx(abs(row.seat_advantage))     # 2 seats: equal gaps
    assert row.max_seat_gap_ci[0] > 0
    assert row.overflow_rate == pytest.approx(0.5)   # tokens exceed the pool on even games
    assert row.mean_box_vp > 0
    assert 0 < row.token_vp_share < 1
    assert row.endgame_vp_share == pytest.approx(1 - row.token_vp_share)
    assert row.mean_margin > 0
    recs = pools.recommend(s, "seat-advantage")
    assert recs[0].target == "seat-advantage" and recs[0].pool in (21, 23, 25)
    assert recs[0].equivalent_pools == [] and recs[0].pool_range is None    # a 25 pp seat bias
    assert "no grid pool is equivalent" in recs[0].sentence()
    with pytest.raises(ValueError):
        pools.recommend(s, "shortest")


def test_small_real_run_json(capsys):
    rc = main(["pools", "--players", "2,3", "--pools", "25", "--games", "6", "--json"])
    assert rc == 0
    recs = json.loads(capsys.readouterr().out)
    cells = {(r["players"], r["pool"]) for r in recs}
    assert cells == {(2, 23), (2, 25), (2, 28), (3, 23), (3, 25), (3, 28)}
    for r in recs:
        for k in ("players", "pool", "mean_rounds", "mean_rounds_ci", "first_seat_win_rate",
                  "first_seat_win_rate_ci", "n_games", "token_vp_share", "overflow_rate_ci",
                  "mean_margin", "recommended"):
            assert k in r, k
        assert r["n_games"] == 6
        lo, hi = r["mean_rounds_ci"]
        assert lo <= r["mean_rounds"] <= hi
    assert any(r["rulebook"] for r in recs if r["players"] == 3 and r["pool"] == 28)
    assert all(r["margin"] == 0.5 and isinstance(r["equivalent"], bool) for r in recs)


def test_cli_text_margin(capsys):
    assert main(["pools", "--players", "2,3", "--pools", "25", "--games", "6", "--margin", "2"]) == 0
    out = capsys.readouterr().out
    assert "±2.00 rounds" in out and "rulebook" in out and "[" in out
    assert main(["pools", "--players", "2", "--pools", "25", "--games", "6", "--margin", "-1"]) == 2
    err = capsys.readouterr().err
    assert "--margin" in err and len(err.strip().splitlines()) == 1


def test_common_random_numbers_same_games_across_pools():
    f = pools.simulate_pools("core", [2], [25, 30], games=4, seed=3, engine="fast")
    # Same seed and game index: the starting seat assignment is the same at every pool.
    a = f[f.pool == 23].sort_values(["game", "player"])["seat"].to_numpy()
    b = f[f.pool == 30].sort_values(["game", "player"])["seat"].to_numpy()
    assert (a == b).all()


def test_cli_bad_pools_is_user_error(capsys):
    assert main(["pools", "--pools", "9:3", "--games", "4"]) == 2
    err = capsys.readouterr().err
    assert "pools" in err and len(err.strip().splitlines()) == 1
