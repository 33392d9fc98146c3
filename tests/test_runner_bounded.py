"""Runs whose memory does not grow with the number of games, and Dask runs that
do not hang.

* The chunk plan is consumed lazily: ``--games 10**8 --chunk-size 1`` used to
  build a list of 10^8 (first, n) tuples (some 10 GB; ``--games 10**20`` grew to
  23 GB and was killed) before the first game.
* A streamed run holds at most a couple of chunk frames at a time, locally and on
  Dask (where every chunk used to be submitted at once, its result kept on the
  cluster until the end).
* A Dask scheduler with no workers, at the start or after every worker left,
  stops the run with one line after ``--worker-timeout`` seconds (it used to
  wait for ever, past ``--connect-timeout``); Ctrl-C prints only the clean
  message.
* A malformed or unreachable scheduler address, or one that never answers, is one
  line naming the address, within ``--connect-timeout``.

Measured through instrumented hooks (tracemalloc, counting wrappers), not time.
"""
from __future__ import annotations

import gc
import signal
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
import weakref
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_checks import one_line_error
from vale_sim import runner
from vale_sim.cli import main
from vale_sim.runner import RunConfig

ROOT = Path(__file__).resolve().parents[1]


class FakeChunks:
    """Stands in for runner.run_chunk: a tiny valid frame per chunk (no game is
    played), KeyboardInterrupt after ``stop`` chunks."""
    __name__ = "run_chunk"

    def __init__(self, stop: int):
        self.stop, self.calls = stop, 0

    def __call__(self, cfg, first, n):
        self.calls += 1
        if self.calls > self.stop:
            raise KeyboardInterrupt
        return pd.DataFrame({"game": range(first, first + n), "player": 0, "score": 1})


def _peak_bytes(monkeypatch, tmp_path, games: int) -> int:
    monkeypatch.setattr(runner, "run_chunk", FakeChunks(stop=3))
    cfg = RunConfig(games=games, engine="reference")
    cfg.resolved()                       # card set and policies loaded (cached) before measuring
    out = tmp_path / f"r{games}.parquet"
    gc.collect()
    tracemalloc.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            runner.run(cfg, chunk_size=1, out=out, progress=False, collect=False)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_chunk_plan_does_not_grow_with_the_games(monkeypatch, tmp_path):
    """Memory allocated by a streamed run that is interrupted after 3 chunks: the
    same for 2,000 and 400,000 games of one game per chunk (before, the second
    built a 400,000-tuple plan first: tens of MB)."""
    small = _peak_bytes(monkeypatch, tmp_path, 2_000)
    large = _peak_bytes(monkeypatch, tmp_path, 400_000)
    assert large - small < 1_000_000, (small, large)
    it = runner.iter_chunks(10**8, 1)
    assert next(it) == (0, 1) and next(it) == (1, 1)       # lazy: 10^8 chunks cost nothing
    assert runner.plan_chunks(10, 4, {0: 3, 6: 2}) == list(runner.iter_chunks(10, 4, {0: 3, 6: 2}))


class LiveFrames:
    """Counts the chunk frames alive in this process: each frame the runner stores
    (write_part) or reads back (read_part) is tracked until garbage-collected."""

    def __init__(self, monkeypatch):
        self.alive = self.most = self.seen = 0
        real_write, real_read = runner.write_part, runner.read_part

        def write(out, key, first, df):
            self._track(df)
            return real_write(out, key, first, df)

        def read(*a, **k):
            df = real_read(*a, **k)
            self._track(df)
            return df
        monkeypatch.setattr(runner, "write_part", write)
        monkeypatch.setattr(runner, "read_part", read)

    def _track(self, df):
        self.seen += 1
        self.alive += 1
        self.most = max(self.most, self.alive)
        weakref.finalize(df, self._gone)

    def _gone(self):
        self.alive -= 1


@pytest.mark.parametrize("games", [200, 2000])
def test_streamed_simulate_holds_a_bounded_number_of_chunks(monkeypatch, tmp_path, capsys, games):
    """`simulate --out` (the streamed run, then the summary read part by part): at
    most 2 chunk frames alive at once, whether 4 or 40 chunks are played."""
    live = LiveFrames(monkeypatch)
    gc.disable()                          # frames die when their last reference goes
    try:
        rc = main(["simulate", "--games", str(games), "--chunk-size", "50", "--no-progress",
                   "--out", str(tmp_path / "r.parquet")])
    finally:
        gc.enable()
    assert rc == 0, capsys.readouterr().err
    assert live.seen == 2 * games // 50          # each chunk written once and read once
    assert live.most <= 2, live.most


@pytest.fixture
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as c:
        yield c


def test_dask_keeps_few_chunks_in_flight(monkeypatch, tmp_path, cluster):
    """Chunks in flight (submitted, not yet stored) stay at 2 per worker thread; they
    were all submitted at once, every result held on the cluster until the end."""
    from dask.distributed import Client
    state = {"submitted": 0, "stored": 0, "most": 0}
    real_submit, real_write = Client.submit, runner.write_part

    def submit(self, *a, **k):
        state["submitted"] += 1
        state["most"] = max(state["most"], state["submitted"] - state["stored"])
        return real_submit(self, *a, **k)

    def write(*a, **k):
        state["stored"] += 1
        return real_write(*a, **k)
    monkeypatch.setattr(Client, "submit", submit)
    monkeypatch.setattr(runner, "write_part", write)
    cfg = RunConfig(games=30, seed=3, engine="reference")
    got = runner.run(cfg, chunk_size=1, out=tmp_path / "d.parquet", progress=False,
                     scheduler=cluster.scheduler_address)
    assert state["submitted"] == state["stored"] == 30
    assert state["most"] <= 2, state
    pd.testing.assert_frame_equal(got, runner.run(cfg, chunk_size=30, progress=False))


def _simulate(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "vale_sim.cli", "simulate", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, **kw)


@pytest.fixture
def no_workers():
    """A real dask.distributed scheduler in this process, with no workers."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as c:
        yield c


def test_a_scheduler_without_workers_is_one_line_after_the_worker_timeout(no_workers, tmp_path):
    proc = _simulate("--games", "10", "--no-progress", "--out", str(tmp_path / "r.parquet"),
                     "--scheduler", no_workers.scheduler_address, "--worker-timeout", "2")
    try:
        out, err = proc.communicate(timeout=60)       # it used to wait for ever
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = err.decode().strip().splitlines()
    assert proc.returncode == 2, err
    assert len(lines) == 1 and "Traceback" not in err.decode()
    assert "has no workers" in lines[0] and "2 s" in lines[0] and "--worker-timeout" in lines[0]
    assert no_workers.scheduler_address in lines[0]


def test_every_worker_leaving_mid_run_is_one_line(tmp_path):
    """The chunks finished before the workers left are kept; the line says --resume."""
    distributed = pytest.importorskip("dask.distributed")
    out = tmp_path / "r.parquet"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as c:
        proc = _simulate("--games", "4000", "--chunk-size", "4", "--engine", "reference",
                         "--no-progress", "--out", str(out), "--scheduler", c.scheduler_address,
                         "--worker-timeout", "2")
        try:
            # generous limits: on a loaded 2-core machine the subprocess's start-up
            # (imports, connecting) alone has taken most of a minute
            deadline = time.monotonic() + 180
            while not list(out.glob("part-*.parquet")):
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
                time.sleep(0.1)
            c.scale(0)                                  # every worker leaves
            _, err = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    line = err.decode().strip()
    assert proc.returncode == 2 and len(line.splitlines()) == 1, line
    assert "lost all its workers" in line and "--resume" in line and str(out) in line
    assert runner._existing_parts(out, RunConfig(games=4000, engine="reference").key())


class _LostResultFuture:
    """A chunk the scheduler reported finished whose result then went with the only
    worker: distributed's gather waits for a recomputation that, with no workers,
    never comes (CI saw the run hang there)."""

    def done(self):
        return True

    def result(self, timeout=None):
        if timeout is None:
            raise AssertionError("result() without a timeout would wait forever here")
        raise TimeoutError

    def release(self):
        pass


class _WorkersLeftClient:
    def __init__(self):
        self.cancelled = []

    def nthreads(self):
        return {}

    def submit(self, *a, **k):
        return _LostResultFuture()

    def cancel(self, futures):
        self.cancelled += futures

    def close(self, timeout=None):
        pass


def test_a_finished_chunk_whose_result_was_lost_with_the_workers_ends_in_one_line(monkeypatch):
    client = _WorkersLeftClient()
    monkeypatch.setattr(runner, "connect_scheduler", lambda address, timeout: client)
    monkeypatch.setattr(runner, "DASK_WORKER_CHECK_SECONDS", 0.01)
    with pytest.raises(runner.NoDaskWorkers, match="has no workers"):
        runner._execute_dask(runner.run_chunk, RunConfig(games=4), [(0, 2), (2, 2)],
                             "tcp://127.0.0.1:1", lambda *a: None, worker_timeout=0.3)
    assert len(client.cancelled) == 2          # the chunks still in flight are cancelled


def test_ctrl_c_while_waiting_for_workers_prints_only_the_clean_message(no_workers, tmp_path):
    sched = no_workers.scheduler
    clients = len(sched.clients)
    proc = _simulate("--games", "10", "--no-progress", "--summary-only",
                     "--scheduler", no_workers.scheduler_address, "--worker-timeout", "60",
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while len(sched.clients) <= clients or not sched.tasks:   # connected, chunks submitted
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.1)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.decode() == "vale-sim simulate: interrupted\n"


def test_a_table_that_would_not_fit_in_memory_stops_after_the_first_chunk(monkeypatch, capsys):
    """tournament, advancements and pools keep every game's row in memory (about
    6 KB a game): --games 10**8 is within the cap but would need hundreds of GB.
    From the first chunk's size the run stops with one line instead of growing
    until the kernel kills it."""
    calls = []
    real = runner.run_chunk

    def counting(cfg, first, n):
        calls.append(n)
        return real(cfg, first, n)
    monkeypatch.setattr(runner, "run_chunk", counting)
    monkeypatch.setattr(runner, "available_memory", lambda: 100_000)      # 100 kB left
    # an in-process run is one chunk of up to DEFAULT_CHUNK games: make it 4 chunks here
    monkeypatch.setattr(runner, "DEFAULT_CHUNK", {"fast": 100, "reference": 100})
    rc = main(["tournament", "--policies", "balanced,greedy", "--games", "400"])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1, err
    assert "memory" in lines[0] and "KB a game" in lines[0] and "simulate --out" in lines[0]
    assert len(calls) == 1                               # no chunk after the first
    monkeypatch.setattr(runner, "available_memory", lambda: 10**12)
    assert main(["tournament", "--policies", "balanced,greedy", "--games", "40"]) == 0


def test_the_scheduler_going_away_mid_run_is_one_line(tmp_path):
    """The chunks in flight are cancelled by the client ('scheduler-connection-lost'):
    that was a FutureCancelledError traceback after distributed's own log lines."""
    distributed = pytest.importorskip("dask.distributed")
    out = tmp_path / "r.parquet"
    c = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                 protocol="tcp", host="127.0.0.1", dashboard_address=None)
    try:
        proc = _simulate("--games", "4000", "--chunk-size", "4", "--engine", "reference",
                         "--no-progress", "--out", str(out), "--scheduler", c.scheduler_address,
                         "--worker-timeout", "2")
        deadline = time.monotonic() + 60
        while not list(out.glob("part-*.parquet")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.1)
    finally:
        c.close()                                          # the scheduler goes away
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    line = err.decode().strip()
    assert proc.returncode == 2 and len(line.splitlines()) == 1, line
    assert "Traceback" not in line and "Dask scheduler" in line and "--resume" in line


# A malformed, unreachable or silent scheduler: one line, bounded by --connect-timeout
# (moved from tests/test_hardening.py, issue 18 §4)
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("address", ["bogus::addr", "tcp://127.0.0.1:{port}", "tcp://127.0.0.1"])
def test_bad_scheduler_address_is_one_line(address, capsys):
    address = address.format(port=_free_port())
    rc = main(["simulate", "--games", "2", "--summary-only", "--no-progress",
               "--scheduler", address, "--connect-timeout", "2"])
    one_line_error(capsys, rc, address, "Dask scheduler")


def test_scheduler_that_never_answers_times_out(capsys):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    address = f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    accepted = []
    threading.Thread(target=lambda: accepted.append(srv.accept()), daemon=True).start()
    try:
        rc = main(["simulate", "--games", "2", "--summary-only", "--no-progress",
                   "--scheduler", address, "--connect-timeout", "0.5"])
        one_line_error(capsys, rc, address, "0.5 s")
    finally:
        srv.close()


def test_connect_timeout_must_be_positive(capsys):
    rc = main(["simulate", "--games", "2", "--summary-only", "--scheduler", "tcp://127.0.0.1:1",
               "--connect-timeout", "0"])
    one_line_error(capsys, rc, "--connect-timeout")


def test_an_in_process_run_is_one_chunk_and_its_memory_check_is_shallow(monkeypatch):
    """A study's many small runs paid a fixed cost per chunk (issue 42: a 20-game
    run was cut into four chunks, each measured with a deep DataFrame.memory_usage
    that walks every string).  In this process a run is one chunk (up to
    DEFAULT_CHUNK games), and the memory check measures deeply only when a cheap
    upper bound says the table might not fit."""
    assert runner.default_chunk_size(20, 1, "fast") == 20
    assert runner.default_chunk_size(10**6, 1, "fast") == runner.DEFAULT_CHUNK["fast"]
    assert runner.default_chunk_size(20, 1, "fast", scheduler="tcp://x:1") == 5   # a cluster: several
    assert runner.default_chunk_size(400, 2, "reference") == 50                   # a pool: several
    calls = []                                             # the deep= of each measurement
    real = pd.DataFrame.memory_usage

    def spy(self, index=True, deep=False):
        calls.append(deep)
        return real(self, index=index, deep=deep)
    monkeypatch.setattr(pd.DataFrame, "memory_usage", spy)
    df = pd.DataFrame({"game": np.arange(40), "policy": pd.Series(["balanced"] * 40, dtype=object),
                       "name": ["greedy"] * 40})
    monkeypatch.setattr(runner, "available_memory", lambda: 10**12)
    runner.check_memory(df, 20, 10**6)
    assert calls == [False]                                # plenty of memory: no deep walk
    # tight: the bound does not decide, the deep size does (and it refuses)
    per_game = float(real(df, index=True, deep=True).sum()) / 20
    monkeypatch.setattr(runner, "available_memory", lambda: int(2 * per_game * 10**6) - 1)
    calls.clear()
    with pytest.raises(Exception, match="in memory needs at least"):
        runner.check_memory(df, 20, 10**6)
    assert calls == [False, True]
    # the bound is never below the deep size, so a run that does not fit is never passed
    monkeypatch.setattr(runner, "available_memory", lambda: int(2 * per_game * 10**6) + 1)
    runner.check_memory(df, 20, 10**6)


def _never_retrieved(exc_type) -> list:
    """The records asyncio logs for a task that raised ``exc_type`` and was collected
    without its exception retrieved (what distributed's gather tasks do when the
    client closes under a run that stopped)."""
    import asyncio
    import logging
    recs = []

    class Keep(logging.Handler):
        def emit(self, record):
            recs.append(record)

    async def boom():
        raise exc_type()
    lg = logging.getLogger("asyncio")
    h = Keep()
    lg.addHandler(h)
    try:
        loop = asyncio.new_event_loop()
        task = loop.create_task(boom())
        loop.run_until_complete(asyncio.sleep(0.01))
        del task
        gc.collect()
        loop.close()
    finally:
        lg.removeHandler(h)
    return [r for r in recs if "never retrieved" in r.getMessage()]


def test_a_gather_left_behind_by_a_stopped_dask_run_prints_no_traceback(monkeypatch):
    """CI saw `simulate --scheduler` print its one line, then asyncio's 6-line "Task
    exception was never retrieved ... distributed.client.AllExit" as the process
    exited (a gather left waiting when every worker left).  A dask run installs a
    filter on the asyncio logger that drops exactly that record, for good."""
    import logging
    from distributed.client import AllExit
    lg = logging.getLogger("asyncio")
    monkeypatch.setattr(lg, "filters", [f for f in lg.filters if f is not runner._ALLEXIT_FILTER])
    assert len(_never_retrieved(AllExit)) == 1               # the record exists without it
    with runner._quiet_dask_cancellation():
        pass
    assert _never_retrieved(AllExit) == []                    # gone after the run ended
    assert len(_never_retrieved(ValueError)) == 1             # other errors are still told
