"""CPU time of a study per game played, beside the kernels' (docs/speed.md, issue 42).

    python experiments/study_cpu.py [--repeats N] [--frames] -- vale-sim ARGS...

Runs the ``vale-sim`` command ``ARGS`` in this process ``--repeats`` times (after one
warm-up run that is not counted) and measures, in CPU time of this thread
(``time.thread_time``: another process's load moves it much less than the wall
clock), the whole command and the time inside the game kernels (every call of the
games' ``play_games``), and counts the games the kernels played.  Prints per run:
CPU µs per game of the command, of the kernels, and their ratio (the study's
overhead: 1.0 would be a study that costs nothing beside its games).

``--frames`` also runs the command with the summary path switched off (the studies
then read a per-game frame of every run, the path before issue 42), interleaved
with the summary path run after run, and prints both: same process, same games.
The command's output is discarded.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time


class _KernelClock:
    """Wraps each game's ``play_games`` kernel entry: CPU time inside, games played."""

    def __init__(self):
        self.cpu = 0.0
        self.games = 0
        self._undo = []

    def install(self):
        import importlib
        for mod in ("vale_sim.games.mystic_vale.fast.engine",
                    "vale_sim.games.mystic_lands.fast.engine"):
            m = importlib.import_module(mod)
            orig = m.play_games

            def timed(*a, _orig=orig):
                t = time.thread_time()
                try:
                    return _orig(*a)
                finally:
                    self.cpu += time.thread_time() - t
                    self.games += int(a[5])        # n_games, the kernels' sixth argument
            m.play_games = timed
            self._undo.append((m, orig))

    def reset(self):
        self.cpu, self.games = 0.0, 0


@contextlib.contextmanager
def frame_path():
    """The studies without their summary path: every run read from its frame."""
    from vale_sim import advancements, tournament
    saved = tournament.outcomes_player, advancements.outcomes_player
    tournament.outcomes_player = advancements.outcomes_player = lambda play, game=None: None
    try:
        yield
    finally:
        tournament.outcomes_player, advancements.outcomes_player = saved


def once(argv, clock, frames: bool) -> dict:
    from vale_sim.cli import main
    clock.reset()
    ctx = frame_path() if frames else contextlib.nullcontext()
    with ctx, contextlib.redirect_stdout(io.StringIO()):
        t = time.thread_time()
        rc = main(list(argv))
        cpu = time.thread_time() - t
    if rc:
        sys.exit(f"the command exited with {rc}")
    return {"cpu": cpu, "kernel": clock.cpu, "games": clock.games}


def main(args=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--frames", action="store_true",
                   help="also time the frame path, interleaved with the summary path")
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args(args)
    argv = a.command[1:] if a.command[:1] == ["--"] else a.command
    if argv[:1] == ["vale-sim"]:
        argv = argv[1:]
    import numba
    numba.set_num_threads(1)
    clock = _KernelClock()
    clock.install()
    modes = [False, True] if a.frames else [False]
    once(argv, clock, False)                 # warm-up: compile or load the kernels
    runs = {m: [] for m in modes}
    for _ in range(a.repeats):
        for m in modes:
            runs[m].append(once(argv, clock, m))
    for m in modes:
        name = "frame path  " if m else "summary path"
        for r in runs[m]:
            per = 1e6 * r["cpu"] / max(1, r["games"])
            kper = 1e6 * r["kernel"] / max(1, r["games"])
            print(f"{name} {r['games']:>8} games  {per:8.1f} µs/game CPU  kernel "
                  f"{kper:6.1f} µs/game  ratio {r['cpu'] / r['kernel']:5.2f}")
        med = statistics.median(r["cpu"] / r["kernel"] for r in runs[m])
        print(f"{name} median ratio command/kernel CPU: {med:.2f}")
    if a.frames:
        ratio = statistics.median(f["cpu"] / s["cpu"] for s, f in zip(runs[False], runs[True]))
        print(f"frame path / summary path CPU, median of pairs: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
