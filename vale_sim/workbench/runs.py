"""Long runs of ``vale-sim serve`` in worker processes (docs/workbench.md, "Runs").

* Every run is its own ``spawn`` process (:func:`vale_sim.workbench.jobs.worker_main`)
  with its own id: two tabs, or two runs of one tab, never share a process or a
  result.  A request only starts, reads or cancels a run; none waits for one.
* Progress, the result and errors come back on the run's pipe (a thread per run
  reads it).  A run whose process ends without a result -- killed, out of
  memory -- is "failed" with one line saying so; the server goes on.
* Cancel ends the process (SIGTERM, then SIGKILL).  The page polls its runs; a
  run nobody asked about for ``heartbeat`` seconds (its page was closed) is
  cancelled, and the page also says so itself when it is closed.
* At most ``max_running`` runs at once (the machine's cores): one more is
  refused with a line, not queued behind the others.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
import threading
import time
import uuid

from .workspace import one_line

FINAL = ("done", "failed", "cancelled")


class RunError(ValueError):
    """A run request refused (one line)."""


class Run:
    def __init__(self, kind: str, owner: str, params_note: dict):
        self.id = uuid.uuid4().hex
        self.kind, self.owner, self.note = kind, owner, params_note
        self.status = "starting"
        self.done, self.total, self.text = 0, None, "starting a worker process"
        self.result = None
        self.error = None
        self.started = time.time()
        self.ended = None
        self.last_seen = time.monotonic()
        self.process = None
        self.conn = None
        self.cancelling = None            # why, while cancel() stops the process
        self.lock = threading.Lock()

    @property
    def pid(self):
        return self.process.pid if self.process is not None else None

    def view(self, with_result: bool = True) -> dict:
        with self.lock:
            out = {"id": self.id, "kind": self.kind, "status": self.status, "done": self.done,
                   "total": self.total, "text": self.text, "error": self.error,
                   "pid": self.pid, "seconds": round((self.ended or time.time()) - self.started, 1),
                   "note": self.note}
            if with_result and self.status == "done":
                out["result"] = self.result
            return out


class RunManager:
    def __init__(self, max_running: int = 2, heartbeat: float = 30.0, keep: int = 50):
        self.ctx = mp.get_context("spawn")
        self.max_running, self.heartbeat, self.keep = max_running, heartbeat, keep
        self.runs: dict[str, Run] = {}
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._reaper = threading.Thread(target=self._reap, daemon=True, name="run-reaper")
        self._reaper.start()

    # -- starting -------------------------------------------------------------
    def running(self) -> list[Run]:
        return [r for r in self.runs.values() if r.status not in FINAL]

    def start(self, kind: str, params: dict, owner: str = "", note: dict | None = None,
              job: str | None = None, on_done=None) -> Run:
        """Start job ``job`` (default ``kind``) in a new worker process."""
        with self.lock:
            if len(self.running()) >= self.max_running:
                raise RunError(f"{len(self.running())} runs are going already (at most "
                               f"{self.max_running} at once, one per core); wait for one or "
                               f"cancel it")
            run = Run(kind, owner, note or {})
            self.runs[run.id] = run
            self._forget_old()
        from .jobs import worker_main
        run.conn, send = self.ctx.Pipe(duplex=False)     # a pipe: no lock a kill could leak
        run.process = self.ctx.Process(target=worker_main, name=f"vale-sim-serve-{kind}",
                                       args=(job or kind, params, send, os.getpid()),
                                       daemon=True)
        try:
            run.process.start()
            send.close()                                   # the worker holds the other end
        except Exception as e:                  # noqa: BLE001 -- e.g. out of processes
            with run.lock:
                run.status, run.ended = "failed", time.time()
                run.error = f"could not start a worker process: {one_line(e)}"
            return run
        with run.lock:
            if run.status == "starting":
                run.status = "running"
        threading.Thread(target=self._watch, args=(run, on_done), daemon=True,
                         name=f"run-{run.id[:8]}").start()
        return run

    def _forget_old(self):
        ended = sorted((r for r in self.runs.values() if r.status in FINAL),
                       key=lambda r: r.ended or 0)
        for r in ended[:max(0, len(self.runs) - self.keep)]:
            self.runs.pop(r.id, None)

    # -- watching -------------------------------------------------------------
    def _finish(self, run: Run, status: str, result=None, error=None):
        with run.lock:
            if run.status in FINAL or run.cancelling is not None:
                return False              # a run being cancelled ends "cancelled", nothing else
            run.status, run.result, run.error, run.ended = status, result, error, time.time()
            if status == "done" and run.total:
                run.done = run.total
            return True

    def _watch(self, run: Run, on_done):
        p, conn = run.process, run.conn
        while True:
            try:
                if not conn.poll(0.25):
                    if p.is_alive():
                        continue
                    if not conn.poll(0.5):                   # anything sent just before it ended
                        break
                msg = conn.recv()
            except (EOFError, OSError):                      # the worker is gone
                break
            if msg[0] == "progress":
                with run.lock:
                    run.done, run.total, run.text = msg[1], msg[2], msg[3]
            elif msg[0] == "done":
                if on_done is not None and run.status not in FINAL and run.cancelling is None:
                    try:                                     # before the page can see "done"
                        on_done(run)
                    except Exception as e:                   # noqa: BLE001
                        print(f"vale-sim serve: after run {run.id[:8]}: {e}", file=sys.stderr)
                self._finish(run, "done", result=msg[1])
                break
            elif msg[0] == "error":
                self._finish(run, "failed", error=msg[1])
                break
        p.join(timeout=5)
        if p.is_alive():
            p.kill()
            p.join(timeout=5)
        code = p.exitcode
        if run.status not in FINAL:
            how = (f"was killed (signal {-code})" if code is not None and code < 0
                   else f"stopped (exit status {code})")
            self._finish(run, "failed", error=f"the worker process {how} before the run "
                                              f"finished; start the run again")
        try:
            conn.close()
        except Exception:                                    # noqa: BLE001
            pass

    # -- reading, cancelling ----------------------------------------------------
    def get(self, run_id: str, owner: str | None = None) -> Run:
        run = self.runs.get(run_id)
        if run is None or (owner is not None and run.owner and run.owner != owner):
            raise KeyError(run_id)
        run.last_seen = time.monotonic()
        return run

    def cancel(self, run_id: str, why: str = "cancelled") -> Run:
        run = self.runs.get(run_id)
        if run is None:
            raise KeyError(run_id)
        with run.lock:
            if run.status in FINAL or run.cancelling is not None:
                return run
            run.cancelling = why
        self._end(run)                    # "cancelled" is shown once the process is gone
        with run.lock:
            run.status, run.error, run.ended = "cancelled", why, time.time()
        return run

    def _end(self, run: Run):
        p = run.process
        if p is None or p.pid is None:
            return
        if p.is_alive():
            p.terminate()
            p.join(timeout=3)
        if p.is_alive():
            p.kill()
            p.join(timeout=3)

    def cancel_owner(self, owner: str, why: str) -> int:
        n = 0
        for r in list(self.runs.values()):
            if r.owner == owner and r.status not in FINAL:
                self.cancel(r.id, why)
                n += 1
        return n

    def _reap(self):
        while not self._stop.wait(1.0):
            now = time.monotonic()
            for r in list(self.runs.values()):
                if r.status not in FINAL and now - r.last_seen > self.heartbeat:
                    self.cancel(r.id, f"stopped: its page has not asked for it in "
                                      f"{self.heartbeat:g} s (closed?)")

    def shutdown(self):
        self._stop.set()
        for r in list(self.runs.values()):
            if r.status not in FINAL:
                self.cancel(r.id, "the server stopped")
