"""``--workers``: one rule everywhere (every command, study configs and the API), and
orphaned worker processes exit with their parent, losing nothing already computed
(every finished chunk intact and reused by ``--resume``).  (Moved from
tests/test_hardening.py, issue 18 §6-7.)
"""
import os
import signal
import subprocess
import sys
import time

import pytest

from cli_checks import leftovers, one_line_error
from vale_sim import io as vio
from vale_sim import runner
from vale_sim.cli import main


@pytest.mark.parametrize("n", ["0", "-1", "1000"])
@pytest.mark.parametrize("argv", [
    ["pools", "--games", "2", "--players", "2", "--pools", "23"],
    ["simulate", "--games", "2", "--summary-only", "--no-progress"],
    ["tournament", "--policies", "balanced,greedy", "--games", "2"],
    ["advancements", "--games", "2"],
    ["bench", "--games", "2", "--reference-games", "1"],
])
def test_workers_validated_everywhere(argv, n, no_analyses, capsys):
    rc = main(argv + ["--workers", n])
    one_line_error(capsys, rc, "--workers", str(vio.max_workers()))


def test_workers_in_configs_and_the_api(tmp_path, capsys):
    exp = tmp_path / "w.toml"
    exp.write_text('study = "tournament"\nworkers = 1000\ngames = 2\n')
    one_line_error(capsys, main(["run", "--check", str(exp)]), "w.toml", "workers")
    from vale_sim.cli import UserError
    with pytest.raises(UserError, match="workers"):
        runner.run(runner.RunConfig(games=2), workers=0, progress=False)
    assert vio.check_workers(vio.max_workers()) == vio.max_workers()



def _start_simulate(tmp_path, games=400_000):
    out = tmp_path / "run.parquet"
    proc = subprocess.Popen(
        [sys.executable, "-m", "vale_sim.cli", "simulate", "--games", str(games), "--workers", "2",
         "--chunk-size", "2000", "--no-progress", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    return proc, out


def _workers_of(proc, want=2, timeout=60.0):
    import psutil
    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = [c for c in parent.children(recursive=True)
                if "spawn_main" in " ".join(c.cmdline())]
        if len(kids) >= want:
            return kids
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.2)
    raise AssertionError("the workers did not start")


def _gone(procs, timeout=10.0) -> list:
    import psutil
    deadline = time.monotonic() + timeout
    alive = list(procs)
    while alive and time.monotonic() < deadline:
        still = []
        for p in alive:
            try:
                if p.status() != psutil.STATUS_ZOMBIE:
                    still.append(p)
            except psutil.NoSuchProcess:
                pass
        alive = still
        time.sleep(0.2)
    return alive


def _kill_all(procs):
    for p in procs:
        try:
            p.kill()
        except Exception:
            pass


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_exit_when_simulate_parent_dies(tmp_path, sig):
    proc, out = _start_simulate(tmp_path)
    kids = []
    try:
        kids = _workers_of(proc)
        os.kill(proc.pid, sig)
        rc = proc.wait(timeout=30)
        assert rc == (-signal.SIGKILL if sig == signal.SIGKILL else 143)
        assert _gone(kids) == [], "worker processes outlived their parent"
        if sig == signal.SIGTERM:
            assert b"--resume" in proc.stderr.read()        # finished chunks kept, said so
    finally:
        _kill_all(kids)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # Nothing already computed is lost: every finished chunk is intact and resume
    # reuses it (and removes any temporary file a killed writer left).
    cfg = runner.RunConfig(games=400_000)
    done = runner._prepare_out(out, cfg, resume=True)
    assert sorted(done) == sorted(runner.read_part_info(p)[1] for p in out.glob("part-*.parquet"))
    assert all(n == 2000 for n in done.values())
    assert leftovers(out) == []
    todo = runner.plan_chunks(cfg.games, 2000, done)
    assert sum(n for _, n in todo) + sum(done.values()) == cfg.games
