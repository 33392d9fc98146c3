"""Runs at scale: chunking, workers, Dask, resume and summaries give the same games.

Small runs with the reference engine (a few seconds in all); the process-pool
and Dask tests start real workers, so they are the slowest here.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from vale_sim import runner
from vale_sim.cli import UserError, main
from vale_sim.games.mystic_vale.rules import Rules
from vale_sim.runner import (MANIFEST, RunConfig, part_path, plan_chunks, run, summarize,
                             summarize_frame)

GAMES = 12
CFG = RunConfig(card_set="core", players=2, seed=7, games=GAMES,
                policies=("balanced", "greedy"), engine="reference")


@pytest.fixture(scope="module")
def full() -> pd.DataFrame:
    """The reference result: one process, one chunk, nothing on disk."""
    return run(CFG, chunk_size=GAMES, progress=False)


class Counting:
    """Wraps runner.run_chunk and records the chunks it was asked for."""

    def __init__(self, monkeypatch):
        self.calls = []
        self._real = runner.run_chunk
        monkeypatch.setattr(runner, "run_chunk", self)
        self.__name__ = "run_chunk"

    def __call__(self, cfg, first, n):
        self.calls.append((first, n))
        return self._real(cfg, first, n)


def interrupt_after(k):
    """An on_chunk hook that raises KeyboardInterrupt once k chunks are stored."""
    seen = []

    def hook(first, n):
        seen.append(first)
        if len(seen) == k:
            raise KeyboardInterrupt
    return hook


def test_frame_shape(full):
    assert list(full["game"]) == [g for g in range(GAMES) for _ in range(2)]
    assert list(full.columns[:4]) == ["game", "player", "seat", "policy"]
    assert set(full["policy"]) == {"balanced", "greedy"}
    assert (full.groupby("game")["win_share"].sum().round(9) == 1).all()


@pytest.mark.parametrize("chunk_size", [1, 5, 100])
def test_chunk_size_does_not_change_results(full, chunk_size):
    pd.testing.assert_frame_equal(run(CFG, chunk_size=chunk_size, progress=False), full)


def test_process_pool_gives_same_results(full):
    pd.testing.assert_frame_equal(run(CFG, workers=2, chunk_size=5, progress=False), full)


def test_dask_cluster_gives_same_results(full):
    distributed = pytest.importorskip("dask.distributed")
    # A worker thread in this process; the scheduler listens on loopback only.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        got = run(CFG, chunk_size=5, progress=False, scheduler=cluster.scheduler_address)
        sums = summarize(CFG, chunk_size=4, progress=False, scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(got, full)
    pd.testing.assert_frame_equal(sums, summarize_frame(full))


def test_written_run_is_readable_by_pandas(full, tmp_path):
    out = tmp_path / "r.parquet"
    got = run(CFG, chunk_size=5, out=out, progress=False)
    pd.testing.assert_frame_equal(got, full)
    pd.testing.assert_frame_equal(pd.read_parquet(out), full)
    assert sorted(p.name for p in out.iterdir()) == [
        MANIFEST, "part-000000000000.parquet", "part-000000000005.parquet",
        "part-000000000010.parquet"]
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["key"] == CFG.key()
    assert manifest["seed"] == 7 and manifest["games"] == GAMES and manifest["players"] == 2
    assert [p["name"] for p in manifest["policies"]] == ["balanced", "greedy"]
    assert manifest["policies"][1]["push_risk_permille"] == 500      # full parameters
    assert manifest["card_set"]["digest"] == CFG.cards().digest()
    assert manifest["engine"] == "reference" and "created" in manifest


def test_interrupted_run_resumes_without_recomputing(full, tmp_path, monkeypatch):
    out = tmp_path / "r.parquet"
    with pytest.raises(KeyboardInterrupt):
        run(CFG, chunk_size=3, out=out, progress=False, on_chunk=interrupt_after(2))
    # Only complete chunks are left: games 0-5, no temporary files.
    assert sorted(p.name for p in out.iterdir()) == [
        MANIFEST, "part-000000000000.parquet", "part-000000000003.parquet"]
    counting = Counting(monkeypatch)
    got = run(CFG, chunk_size=3, out=out, resume=True, progress=False)
    assert counting.calls == [(6, 3), (9, 3)]
    pd.testing.assert_frame_equal(got, full)
    # Resuming a finished run computes nothing and loses nothing.
    counting.calls.clear()
    pd.testing.assert_frame_equal(run(CFG, out=out, resume=True, progress=False), full)
    assert counting.calls == []


def test_interrupt_while_writing_leaves_no_partial_file(full, tmp_path, monkeypatch):
    import pyarrow.parquet as pq
    out = tmp_path / "r.parquet"
    real_write = pq.write_table
    writes = []

    def write_then_interrupt(table, where, **kw):
        writes.append(where)
        if len(writes) == 2:
            Path(where).write_bytes(b"PAR1 half a file")
            raise KeyboardInterrupt
        return real_write(table, where, **kw)

    monkeypatch.setattr(pq, "write_table", write_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run(CFG, chunk_size=4, out=out, progress=False)
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "part-000000000000.parquet"]
    monkeypatch.setattr(pq, "write_table", real_write)
    pd.testing.assert_frame_equal(run(CFG, chunk_size=4, out=out, resume=True, progress=False), full)


def test_resume_with_other_chunk_size_and_more_games(full, tmp_path, monkeypatch):
    out = tmp_path / "r.parquet"
    small = RunConfig(**{**CFG.__dict__, "games": 5})
    run(small, chunk_size=2, out=out, progress=False)
    counting = Counting(monkeypatch)
    got = run(CFG, chunk_size=4, out=out, resume=True, progress=False)
    assert counting.calls == [(5, 4), (9, 3)]
    pd.testing.assert_frame_equal(got, full)
    assert json.loads((out / MANIFEST).read_text())["games"] == GAMES
    with pytest.raises(UserError, match="--games 12"):
        run(small, out=out, resume=True, progress=False)


def test_resume_refuses_other_configuration(tmp_path):
    out = tmp_path / "r.parquet"
    run(CFG, chunk_size=6, out=out, progress=False, on_chunk=None)
    other_seed = RunConfig(**{**CFG.__dict__, "seed": 8})
    with pytest.raises(UserError, match=r"differs in: seed \(7 vs 8\)"):
        run(other_seed, out=out, resume=True, progress=False)
    other_rules = RunConfig(**{**CFG.__dict__, "rules": Rules(vp_pool=30)})
    with pytest.raises(UserError, match=r"rules \(vp_pool: None vs 30\)"):
        run(other_rules, out=out, resume=True, progress=False)
    other_policy = RunConfig(**{**CFG.__dict__, "policies": ("balanced",)})
    with pytest.raises(UserError, match="policies"):
        run(other_policy, out=out, resume=True, progress=False)
    # Without --resume: a different configuration is an error, never overwritten ...
    with pytest.raises(UserError, match="different configuration"):
        run(other_seed, out=out, progress=False)
    # ... and the same one is pointed at --resume.
    with pytest.raises(UserError, match="use --resume"):
        run(CFG, out=out, progress=False)
    assert len(list(out.glob("part-*.parquet"))) == 2


def test_key_ignores_games_and_names_one_policy_per_player():
    same = RunConfig(**{**CFG.__dict__, "games": 999})
    assert same.key() == CFG.key()
    one = RunConfig(seed=7, policies=("balanced",), engine="reference")
    two = RunConfig(seed=7, policies=("balanced", "balanced"), engine="reference")
    assert one.key() == two.key()
    assert RunConfig(**{**CFG.__dict__, "seed": 8}).key() != CFG.key()


def test_corrupt_chunk_names_file_and_fix(tmp_path):
    out = tmp_path / "r.parquet"
    run(CFG, chunk_size=6, out=out, progress=False)
    bad = part_path(out, 6)
    bad.write_bytes(bad.read_bytes()[:100])
    with pytest.raises(UserError) as e:
        run(CFG, chunk_size=6, out=out, resume=True, progress=False)
    assert str(bad) in str(e.value) and "delete it" in str(e.value) and "--resume" in str(e.value)
    bad.unlink()
    assert len(run(CFG, chunk_size=6, out=out, resume=True, progress=False)) == 2 * GAMES


def test_overlapping_chunks_are_refused(tmp_path):
    out = tmp_path / "r.parquet"
    run(CFG, chunk_size=6, out=out, progress=False)
    df = pd.read_parquet(out)
    runner.write_part(out, CFG.key(), 4, df[df["game"].between(4, 7)])   # e.g. copied in by hand
    with pytest.raises(UserError, match="part-000000000004"):
        run(CFG, out=out, resume=True, progress=False)


def test_non_run_directory_is_not_touched(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="not empty"):
        run(CFG, out=tmp_path, progress=False)
    assert os.listdir(tmp_path) == ["notes.txt"]


def test_summary_only_equals_aggregate_of_full_frame(full):
    want = summarize_frame(full)
    for chunk_size in (1, 5):
        pd.testing.assert_frame_equal(summarize(CFG, chunk_size=chunk_size, progress=False), want)
    seat = want.loc["seat"]
    assert list(seat.index) == [1, 2]                   # seat 1 = the starting player
    assert seat["games"].tolist() == [GAMES, GAMES]
    assert seat["wins"].sum() == pytest.approx(GAMES)
    by_policy = full.groupby("policy")
    for name, g in by_policy:
        row = want.loc[("policy", name)]
        assert row["wins"] == pytest.approx(g["win_share"].sum())
        assert row["mean_score"] == pytest.approx(g["score"].mean())
        assert row["var_score"] == pytest.approx(g["score"].var())
        assert row["mean_rounds"] == pytest.approx(g["rounds"].mean())
        assert row["spoils_per_game"] == pytest.approx(g["spoils"].mean())
        assert row["win_lo"] <= row["win_rate"] <= row["win_hi"]


def test_plan_chunks_fills_gaps():
    assert plan_chunks(10, 4) == [(0, 4), (4, 4), (8, 2)]
    assert plan_chunks(10, 4, {0: 3, 6: 2}) == [(3, 3), (8, 2)]
    assert plan_chunks(5, 4, {0: 5}) == []


def test_simulate_command_writes_parquet(full, tmp_path, capsys):
    out = tmp_path / "sim.parquet"
    argv = ["simulate", "--games", str(GAMES), "--seed", "7", "--policy", "balanced",
            "--policy", "greedy", "--engine", "reference", "--chunk-size", "5",
            "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "seat 1 (first)" in text and "seat 0" not in text
    assert "policy greedy" in text and "95% CI" in text
    pd.testing.assert_frame_equal(pd.read_parquet(out), full)
    assert main(argv) == 2
    assert "use --resume" in capsys.readouterr().err
    assert main(argv + ["--resume", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [r["seat"] for r in summary["by_seat"]] == [1, 2]          # seat 1 = starting player
    assert sum(r["games"] for r in summary["by_policy"]) == 2 * GAMES
    assert summary["out"] == str(out)


def test_fast_falls_back_to_reference_with_warning(monkeypatch):
    monkeypatch.setattr(runner, "fast_available", lambda game=None: False)
    monkeypatch.setattr(runner, "_fallback_warned", [])
    cfg = RunConfig(seed=7, games=2, engine="fast")
    with pytest.warns(RuntimeWarning, match="not available"):
        assert cfg.manifest()["engine"] == "reference"


def test_bench_needs_fast_engine(monkeypatch, capsys):
    monkeypatch.setattr(runner, "fast_available", lambda game=None: False)
    assert main(["bench"]) == 2
    assert "fast engine" in capsys.readouterr().err


def test_bench_json_keys(monkeypatch, capsys):
    from vale_sim.commands import bench
    monkeypatch.setattr(runner, "fast_available", lambda game=None: True)
    # warm-up, then three timed runs of 5000 games: (wall s, CPU s, mean rounds)
    times = iter([(1.0, 1.0, 20.0), (5000 / 3000, 0.1, 20.0), (2.5, 0.2, 20.0),
                  (1.25, 0.15, 20.0)])
    monkeypatch.setattr(bench, "_timed", lambda cfg, n: next(times) if cfg.engine == "fast"
                        else (n / 30.0, 1.0, 20.0))
    monkeypatch.setattr(bench, "skeleton_of", lambda g: lambda n, seed: 0)
    skel = iter([(0.5, 0.02), (0.5, 0.05), (0.5, 0.03)])
    monkeypatch.setattr(bench, "_skeleton_timed", lambda play, n, seed: next(skel))
    assert main(["bench", "--json", "--repeats", "3"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got == {"fast_games_per_s": 3000.0, "reference_games_per_s": 30.0, "speedup": 100.0,
                   "fast_games_per_s_per_core": 3000.0,
                   "fast_games_per_s_runs": [3000.0, 2000.0, 4000.0],
                   "fast_cpu_us_per_game": 30.0, "fast_wall_us_per_game": 333.333,
                   "fast_cpu_us_per_game_runs": [20.0, 40.0, 30.0],
                   "mean_rounds": 20.0, "fast_cpu_us_per_round": 1.5,
                   "fast_rounds_per_s": 60000.0,
                   "skeleton_cpu_us_per_game": 6.0, "skeleton_wall_us_per_game": 100.0,
                   "skeleton_cpu_us_per_game_runs": [4.0, 10.0, 6.0],
                   "engine_over_skeleton_cpu": 5.0, "engine_over_skeleton_wall": 3.333,
                   "games": 5000, "reference_games": 200, "repeats": 3}


def test_bench_text_gives_cpu_and_wall_time_per_game_the_rounds_and_the_skeleton_ratio():
    from vale_sim.commands.bench import format_result
    from vale_sim.games import get_game
    r = {"fast_games_per_s": 3000.0, "reference_games_per_s": 30.0, "speedup": 100.0,
         "fast_games_per_s_per_core": 3000.0, "fast_games_per_s_runs": [3000.0, 2000.0, 4000.0],
         "fast_cpu_us_per_game": 30.0, "fast_wall_us_per_game": 333.333,
         "fast_cpu_us_per_game_runs": [20.0, 40.0, 30.0], "mean_rounds": 20.0,
         "fast_cpu_us_per_round": 1.5, "fast_rounds_per_s": 60000.0,
         "skeleton_cpu_us_per_game": 6.0, "skeleton_wall_us_per_game": 100.0,
         "skeleton_cpu_us_per_game_runs": [4.0, 10.0, 6.0], "engine_over_skeleton_cpu": 5.0,
         "engine_over_skeleton_wall": 3.333, "games": 5000, "reference_games": 200,
         "repeats": 3}
    text = "\n".join(format_result(r, get_game("mystic-vale"), 0))
    assert "medians of 3 runs of 5000 games" in text
    assert "30.00 us CPU" in text and "333.33 us wall" in text and "(CPU 20.00-40.00)" in text
    assert "1.500 us CPU" in text and "60000 rounds/s" in text and "20.00 rounds a game" in text
    assert "5.00x CPU" in text and "3.33x wall" in text and "at 20.0 % of the skeleton" in text
    r.update(skeleton_cpu_us_per_game=None, engine_over_skeleton_cpu=None)
    assert "(none for this game)" in "\n".join(format_result(r, get_game("mystic-lands"), 0))


def test_bench_reports_the_median_of_real_runs(capsys):
    """Both games, real engines, tiny workload: the median of the runs, the same keys."""
    from vale_sim.commands.bench import measure
    from vale_sim.games import get_game
    keys = None
    for name in ("mystic-vale", "mystic-lands"):
        r = measure(get_game(name), games=8, reference_games=1, repeats=3)
        assert len(r["fast_games_per_s_runs"]) == 3
        assert len(r["fast_cpu_us_per_game_runs"]) == 3 and r["mean_rounds"] > 1
        # Mystic Vale has a skeleton game (timed beside it), Mystic Lands none yet
        assert (r["engine_over_skeleton_cpu"] is not None) == (name == "mystic-vale")
        assert r["fast_games_per_s"] == pytest.approx(sorted(r["fast_games_per_s_runs"])[1],
                                                      abs=0.1)
        assert r["speedup"] == pytest.approx(r["fast_games_per_s"] / r["reference_games_per_s"],
                                             rel=0.01)
        assert keys is None or set(r) == keys
        keys = set(r)
    assert main(["bench", "--games", "5", "--repeats", "0"]) == 2
    assert "--repeats" in capsys.readouterr().err


def test_summary_of_written_parts_equals_summary_of_frame(tmp_path):
    """simulate summarises a written run chunk by chunk (bounded memory): same table."""
    from vale_sim.runner import summarize_parts
    cfg = RunConfig(card_set="core", players=2, seed=3, games=24, engine="reference")
    out = tmp_path / "r.parquet"
    assert run(cfg, chunk_size=5, out=out, progress=False, collect=False) is None
    whole = run(cfg, chunk_size=5, out=out, resume=True, progress=False)
    pd.testing.assert_frame_equal(summarize_parts(out, cfg), summarize_frame(whole))
    with pytest.raises(ValueError):
        run(cfg, progress=False, collect=False)


def test_summary_intervals_are_clustered_by_game(full):
    """The fixed-size summary's intervals equal stats.cluster_ratio over games, also when
    several players of a game share a policy (self-play), where they are not independent."""
    from vale_sim import stats
    selfplay = full.assign(policy="all")
    row = summarize_frame(selfplay).loc[("policy", "all")]
    assert row["n_games"] == GAMES and row["games"] == 2 * GAMES
    for col, name in (("score", "mean_score"), ("rounds", "mean_rounds"),
                      ("spoils", "spoils_per_game")):
        e = stats.cluster_ratio(selfplay[col], None, selfplay["game"])
        assert (row[name], row[f"{name}_lo"], row[f"{name}_hi"]) == pytest.approx((e.value, e.lo, e.hi))
    naive = stats.cluster_ratio(selfplay["score"])              # player-games as independent
    assert row["mean_score_hi"] - row["mean_score_lo"] != pytest.approx(naive.hi - naive.lo)
    # Win shares of a game sum to 1: the self-play win rate is 1/2 exactly, and says so.
    assert row["win_rate"] == 0.5 and row["win_lo"] <= 0.5 <= row["win_hi"]


def test_run_chunk_sorts_only_frames_out_of_game_order():
    """run_chunk skips the sort of a frame already in (game, player) order with a 0..n-1
    index -- the sort would return it unchanged -- and sorts any other."""
    from vale_sim.runner import _in_game_order
    df = pd.DataFrame({"game": [0, 0, 1, 1, 2], "player": [0, 1, 0, 1, 0], "x": range(5)})
    assert _in_game_order(df)
    assert not _in_game_order(df.iloc[[1, 0, 2, 3, 4]].reset_index(drop=True))
    assert not _in_game_order(df.iloc[[0, 1, 3, 2, 4]].reset_index(drop=True))
    assert not _in_game_order(df.set_index(pd.RangeIndex(1, 6)))
    assert _in_game_order(df.iloc[:0].reset_index(drop=True))
