"""Where a fast engine spends its time: a sampling profile of its numba kernels.

numba's machine code is opaque to cProfile.  This samples it with Linux ``perf``
(a software clock event, so it needs no hardware counters, which a virtual
machine often lacks): a child process -- the game's own ``fast/profile.py`` run
with ``--child`` -- plays the games after writing the address range of every
compiled kernel of its engine (:func:`write_kernels`); the parent counts the
samples falling in each range.  Kernels LLVM inlined into their caller count as
the caller.  Shared by the games' profilers (``vale_sim/games/<game>/fast/profile.py``),
which say what the child plays.

Shares are of the samples in compiled kernels; ``samples_per_1000_games`` (at
``FREQ`` samples per CPU second) compares runs of different commits.  With
``asm=KERNEL`` the K machine instructions of that kernel that received the most
samples are listed too (objdump of the kernel's bytes, copied out of the child).
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


def short_name(sym: str) -> str:
    """``_ZN8vale_sim5games4GAME4fast6engine10play_gamesB...`` -> ``play_games``,
    ``_ZN8vale_sim7kernels3rng7shuffleB...`` -> ``rng.shuffle`` (the last two names
    of the nested name: module, function; an engine's own module is left out)."""
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


def kernel_ranges(dispatcher) -> list[tuple[int, int, str]]:
    """(start, end, kernel name) of every compiled ``vale_sim`` kernel reachable from
    ``dispatcher`` (an engine's ``play_games``) in this process; call it after a
    warm-up game."""
    starts = []
    for cres in dispatcher.overloads.values():
        eng = cres.library._codegen._engine
        for sym in eng._defined_symbols:
            if not sym.startswith("_ZN8vale_sim"):
                continue                      # NumbaEnv, constants, wrappers
            addr = eng.get_function_address(sym)
            if addr:
                starts.append((addr, short_name(sym)))
    starts.sort()
    return [(a, min(starts[i + 1][0] if i + 1 < len(starts) else a + MAX_SIZE, a + MAX_SIZE), nm)
            for i, (a, nm) in enumerate(starts)]


def write_kernels(dispatcher, ranges_path: str, code_path: str | None) -> None:
    """The child's part before its timed games: the kernels' address ranges (JSON) to
    ``ranges_path`` and, for ``asm``, their machine code to ``code_path``."""
    ranges = kernel_ranges(dispatcher)
    with open(ranges_path, "w") as f:
        json.dump(ranges, f)
    if code_path is not None:
        with open(code_path, "wb") as f, open("/proc/self/mem", "rb", buffering=0) as mem:
            for a, b, _ in ranges:
                f.write(_read_memory(mem, a, b - a))


def _read_memory(mem, a: int, n: int) -> bytes:
    """``n`` bytes of this process from address ``a``, zeros from the first unmapped
    page on: a kernel's range may run past its last mapped page (freshly compiled
    kernels do not sit next to each other), and reading that through a pointer
    would crash the process."""
    out = bytearray()
    while len(out) < n:
        step = min(n - len(out), 4096 - (a + len(out)) % 4096)
        try:
            mem.seek(a + len(out))
            chunk = mem.read(step)
        except OSError:
            chunk = b""
        if not chunk:
            break
        out += chunk
    return bytes(out) + bytes(n - len(out))


def profile(child_module: str, games: int, asm: str | None = None, top: int = 40) -> dict:
    """Run ``python -m child_module --child games RANGES CODE`` under ``perf record``;
    the kernels' shares of the samples.  Raises RuntimeError (one line) if perf is
    missing or not allowed."""
    if shutil.which("perf") is None:
        raise RuntimeError("perf is not installed (Linux: the linux-perf / linux-tools package)")
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        ranges_path = os.path.join(tmp, "ranges.json")
        code_path = os.path.join(tmp, "code.bin")
        cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(FREQ), "-o", data, "--",
               sys.executable, "-m", child_module, "--child", str(games), ranges_path]
        if asm is not None:
            cmd.append(code_path)             # the child copies its machine code only then
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


def print_profile(r: dict, what: str) -> None:
    """The profile as text; ``what``: the workload, e.g. "two-player core games"."""
    print(f"{r['games']} {what}, perf cpu-clock at {r['samples_per_cpu_second']} samples "
          f"per CPU second")
    print(f"{r['kernel_samples']} samples in compiled kernels "
          f"({r['samples_per_1000_games']} per 1000 games); inlined kernels count as "
          f"their caller")
    for k in r["kernels"]:
        if k["share"] >= 0.001:
            print(f"  {100 * k['share']:5.1f} %  {k['kernel']}")
    for h in r.get("asm", []):
        print(f"  {h['samples']:6d}  +{h['offset']:<6d} {h['instruction']}")


def main(module: str, doc: str, what: str, child, argv=None) -> int:
    """``python -m module [--games N] [--json] [--asm KERNEL [--top K]]``, and the
    child's ``--child GAMES RANGES CODE`` (``child(games, ranges_path, code_path)``)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(int(argv[1]), argv[2], *argv[3:4])
        return 0
    from ..limits import Parser           # one-line errors, exit status 2
    ap = Parser(prog=f"python -m {module}", description=doc.splitlines()[0])
    from ..limits import count
    ap.add_argument("--games", type=count(1), default=100000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--asm", default=None, help="also list the hottest instructions of KERNEL")
    ap.add_argument("--top", type=count(1, "instructions"), default=40)
    a = ap.parse_args(argv)
    if a.games < 1:
        ap.exit(2, "error: --games must be at least 1\n")
    try:
        r = profile(module, a.games, a.asm, a.top)
    except RuntimeError as e:
        ap.exit(2, f"error: {e}\n")
    if a.json:
        print(json.dumps(r))
    else:
        print_profile(r, what)
    return 0
