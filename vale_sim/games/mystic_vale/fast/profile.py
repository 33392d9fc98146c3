"""Where the fast engine spends its time: a sampling profile of the numba kernels.

numba's machine code is opaque to cProfile.  This samples it with Linux ``perf``
(a software clock event, so it needs no hardware counters): a child process plays
``games`` two-player ``core`` games with the default policy (``run_games``'
kernel call, as ``vale-sim bench`` times), after writing the address range of
every compiled kernel; the parent counts the samples falling in each range.
Kernels LLVM inlined into their caller count as the caller.

    vale-sim bench --profile [--games N] [--json]

Shares are of the samples in compiled kernels; ``samples_per_1000_games``
(at ``FREQ`` samples per CPU second) compares runs of different commits.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

FREQ = 5000               # samples per CPU second
MAX_SIZE = 1 << 16        # bytes: no kernel is larger (its end is the next one's start)


def _kernel_ranges() -> list[tuple[int, int, str]]:
    """(start, end, kernel name) of the compiled kernels of ``engine.play_games``
    in this process (call after a warm-up game)."""
    from . import engine
    starts = []
    for cres in engine.play_games.overloads.values():
        eng = cres.library._codegen._engine
        for sym in eng._defined_symbols:
            if not sym.startswith("_ZN8vale_sim"):
                continue                      # NumbaEnv, constants, wrappers
            addr = eng.get_function_address(sym)
            if addr:
                starts.append((addr, _short(sym)))
    starts.sort()
    return [(a, min(starts[i + 1][0] if i + 1 < len(starts) else a + MAX_SIZE, a + MAX_SIZE), nm)
            for i, (a, nm) in enumerate(starts)]


def _short(sym: str) -> str:
    """``_ZN8vale_sim5games11mystic_vale4fast6engine10play_gamesB...`` -> ``play_games``,
    ``_ZN8vale_sim7kernels3rng7shuffleB...`` -> ``rng.shuffle`` (the last two names
    of the nested name: module, function; the engine's own module is left out)."""
    rest = sym[len("_ZN"):]
    names = []
    while rest[:1].isdigit():                 # length-prefixed names until the ABI tags
        i = 0
        while rest[i].isdigit():
            i += 1
        n = int(rest[:i])
        names.append(rest[i:i + n])
        rest = rest[i + n:]
    return names[-1] if names[-2] == "engine" else ".".join(names[-2:])


def child(games: int, ranges_path: str) -> None:
    import inspect
    import numba
    from .api import simulate
    numba.set_num_threads(1)
    # details=False as run_games; commits before it (profiled for docs/speed.md by
    # copying this file into them) have no such argument
    kw = {"details": False} if "details" in inspect.signature(simulate).parameters else {}
    simulate("core", 2, 0, 10, **kw)                     # compile or load the cache
    with open(ranges_path, "w") as f:
        json.dump(_kernel_ranges(), f)
    simulate("core", 2, 0, games, **kw)


def profile(games: int) -> dict:
    """Run the child under ``perf record``; kernel shares of the samples.
    Raises RuntimeError (one line) if perf is missing or not allowed."""
    if shutil.which("perf") is None:
        raise RuntimeError("perf is not installed (Linux: the linux-perf / linux-tools package)")
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        ranges_path = os.path.join(tmp, "ranges.json")
        cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(FREQ), "-o", data, "--",
               sys.executable, "-m", "vale_sim.games.mystic_vale.fast.profile", "--child", str(games), ranges_path]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(ranges_path):
            last = (r.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"perf record failed: {last}")
        lines = subprocess.run(["perf", "script", "-i", data, "-F", "ip,dso"],
                               capture_output=True, text=True, check=True).stdout.splitlines()
        with open(ranges_path) as f:
            ranges = json.load(f)
    # the kernels live in anonymous memory: perf names no library file for them
    ips = [ln.split()[0] for ln in lines
           if ln.strip() and not any(x in ln for x in (".so", "kallsyms", "/bin/"))]
    counts: Counter = Counter()
    import bisect
    starts = [a for a, _, _ in ranges]
    for tok in ips:
        ip = int(tok, 16)
        j = bisect.bisect_right(starts, ip) - 1
        if j >= 0 and ip < ranges[j][1]:
            counts[ranges[j][2]] += 1
    total = sum(counts.values())
    return {"games": games, "samples_per_cpu_second": FREQ, "kernel_samples": total,
            "samples_per_1000_games": round(1000 * total / games, 1),
            "kernels": [{"kernel": k, "samples": n, "share": round(n / total, 4)}
                        for k, n in counts.most_common()] if total else []}


def print_profile(r: dict) -> None:
    print(f"fast engine profile: {r['games']} two-player core games, perf cpu-clock at "
          f"{r['samples_per_cpu_second']} samples per CPU second")
    print(f"{r['kernel_samples']} samples in compiled kernels "
          f"({r['samples_per_1000_games']} per 1000 games); inlined kernels count as "
          f"their caller")
    for k in r["kernels"]:
        if k["share"] >= 0.001:
            print(f"  {100 * k['share']:5.1f} %  {k['kernel']}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]), sys.argv[3])
