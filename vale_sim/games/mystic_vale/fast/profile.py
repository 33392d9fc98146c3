"""Where the fast engine spends its time: a sampling profile of the numba kernels.

numba's machine code is opaque to cProfile.  This samples it with Linux ``perf``
(a software clock event, so it needs no hardware counters): a child process plays
``games`` two-player ``core`` games with the default policy (``run_games``'
kernel call, as ``vale-sim bench`` times), after writing the address range of
every compiled kernel; the parent counts the samples falling in each range.
Kernels LLVM inlined into their caller count as the caller.

    vale-sim bench --profile [--games N] [--json]
    python -m vale_sim.games.mystic_vale.fast.profile [--games N] [--json]
        [--asm KERNEL [--top K]]

Shares are of the samples in compiled kernels; ``samples_per_1000_games``
(at ``FREQ`` samples per CPU second) compares runs of different commits.
``--asm KERNEL`` also prints the K machine instructions of that kernel that
received the most samples (objdump of the kernel's bytes, copied out of the
child process), as Mystic Lands' profiler does.
"""
from __future__ import annotations

import argparse
import bisect
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


def child(games: int, ranges_path: str, code_path: str | None = None) -> None:
    import ctypes
    import inspect
    import numba
    from .api import simulate
    numba.set_num_threads(1)
    # details=False as run_games; commits before it (profiled for docs/speed.md by
    # copying this file into them) have no such argument
    kw = {"details": False} if "details" in inspect.signature(simulate).parameters else {}
    simulate("core", 2, 0, 10, **kw)                     # compile or load the cache
    ranges = _kernel_ranges()
    with open(ranges_path, "w") as f:
        json.dump(ranges, f)
    if code_path is not None:
        with open(code_path, "wb") as f:                  # the machine code, for --asm
            for a, b, _ in ranges:
                f.write(ctypes.string_at(a, b - a))
    simulate("core", 2, 0, games, **kw)


def profile(games: int, asm: str | None = None, top: int = 40) -> dict:
    """Run the child under ``perf record``; kernel shares of the samples.
    Raises RuntimeError (one line) if perf is missing or not allowed."""
    if shutil.which("perf") is None:
        raise RuntimeError("perf is not installed (Linux: the linux-perf / linux-tools package)")
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        ranges_path = os.path.join(tmp, "ranges.json")
        code_path = os.path.join(tmp, "code.bin")
        cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(FREQ), "-o", data, "--",
               sys.executable, "-m", "vale_sim.games.mystic_vale.fast.profile", "--child",
               str(games), ranges_path, code_path]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(ranges_path):
            last = (r.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"perf record failed: {last}")
        lines = subprocess.run(["perf", "script", "-i", data, "-F", "ip,dso"],
                               capture_output=True, text=True, check=True).stdout.splitlines()
        with open(ranges_path) as f:
            ranges = json.load(f)
        # the kernels live in anonymous memory: perf names no library file for them
        ips = [int(ln.split()[0], 16) for ln in lines
               if ln.strip() and not any(x in ln for x in (".so", "kallsyms", "/bin/"))]
        counts: Counter = Counter()
        per_ip: Counter = Counter()
        starts = [a for a, _, _ in ranges]
        for ip in ips:
            j = bisect.bisect_right(starts, ip) - 1
            if j >= 0 and ip < ranges[j][1]:
                counts[ranges[j][2]] += 1
                if ranges[j][2] == asm:
                    per_ip[ip] += 1
        hot = _hot_instructions(ranges, code_path, tmp, asm, per_ip, top) if asm else []
    total = sum(counts.values())
    out = {"games": games, "samples_per_cpu_second": FREQ, "kernel_samples": total,
           "samples_per_1000_games": round(1000 * total / games, 1),
           "kernels": [{"kernel": k, "samples": n, "share": round(n / total, 4)}
                       for k, n in counts.most_common()] if total else []}
    if asm is not None:
        out["asm"] = hot
    return out


def _hot_instructions(ranges, code_path, tmp, name, per_ip, top) -> list[dict]:
    """The ``top`` instructions of kernel ``name`` with the most samples (objdump)."""
    if shutil.which("objdump") is None:
        raise RuntimeError("--asm needs objdump (binutils)")
    with open(code_path, "rb") as f:
        code = f.read()
    off = 0
    for a, b, nm in ranges:
        if nm == name:
            part = os.path.join(tmp, "kernel.bin")
            with open(part, "wb") as g:
                g.write(code[off:off + b - a])
            dis = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                                  f"--adjust-vma={a:#x}", part],
                                 capture_output=True, text=True, check=True).stdout
            text = {}
            for ln in dis.splitlines():
                head, _, rest = ln.partition(":\t")
                try:
                    text[int(head.strip(), 16)] = rest.split("\t")[-1].strip()
                except ValueError:
                    pass
            return [{"address": f"{ip:#x}", "offset": ip - a, "samples": n,
                     "instruction": text.get(ip, "?")} for ip, n in per_ip.most_common(top)]
        off += b - a
    raise RuntimeError(f"no kernel named {name!r}")


def print_profile(r: dict) -> None:
    print(f"fast engine profile: {r['games']} two-player core games, perf cpu-clock at "
          f"{r['samples_per_cpu_second']} samples per CPU second")
    print(f"{r['kernel_samples']} samples in compiled kernels "
          f"({r['samples_per_1000_games']} per 1000 games); inlined kernels count as "
          f"their caller")
    for k in r["kernels"]:
        if k["share"] >= 0.001:
            print(f"  {100 * k['share']:5.1f} %  {k['kernel']}")
    for h in r.get("asm", []):
        print(f"  {h['samples']:6d}  +{h['offset']:<6d} {h['instruction']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vale_sim.games.mystic_vale.fast.profile",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--asm", default=None, help="also list the hottest instructions of KERNEL")
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args(argv)
    if a.games < 1:
        ap.exit(2, "error: --games must be at least 1\n")
    try:
        r = profile(a.games, a.asm, a.top)
    except RuntimeError as e:
        ap.exit(2, f"error: {e}\n")
    if a.json:
        print(json.dumps(r))
    else:
        print_profile(r)
    return 0


if __name__ == "__main__":                  # pragma: no cover
    if sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]), sys.argv[3], *sys.argv[4:5])
    else:
        raise SystemExit(main())
