"""Where Mystic Vale's fast engine spends its time: a sampling profile of its kernels.

The perf machinery is shared (``vale_sim.kernels.profile``); this module says
what the child plays: ``games`` two-player ``core`` games with the default
policy (``run_fast``' kernel call, ``simulate(..., details=False)``, as
``vale-sim bench`` times).

    vale-sim bench --profile [--games N] [--json]
    python -m vale_sim.games.mystic_vale.fast.profile [--games N] [--json]
        [--asm KERNEL [--top K]]

``samples_per_1000_games`` (5000 samples = one CPU second) compares commits; the
shares say where the time goes; ``--asm KERNEL`` lists the K machine instructions
of that kernel with the most samples.  Needs Linux ``perf`` (``--asm``: objdump).
"""
from __future__ import annotations

from vale_sim.kernels import profile as _p

MODULE = "vale_sim.games.mystic_vale.fast.profile"    # (not __name__: "__main__" under -m)
WHAT = "two-player core games of Mystic Vale's fast engine"


def _kernel_ranges() -> list[tuple[int, int, str]]:
    """(start, end, kernel name) of the compiled kernels of ``engine.play_games`` in
    this process (call after a warm-up game)."""
    from . import engine
    return _p.kernel_ranges(engine.play_games)


def child(games: int, ranges_path: str, code_path: str | None = None) -> None:
    import inspect

    import numba

    from . import engine
    from .api import simulate
    numba.set_num_threads(1)
    # details=False as run_fast; commits before it (profiled for docs/speed.md by
    # copying this file into them) have no such argument
    kw = {"details": False} if "details" in inspect.signature(simulate).parameters else {}
    simulate("core", 2, 0, 10, **kw)                     # compile or load the cache
    _p.write_kernels(engine.play_games, ranges_path, code_path)
    simulate("core", 2, 0, games, **kw)


def profile(games: int, asm: str | None = None, top: int = 40) -> dict:
    """The kernels' shares of perf's samples over ``games`` games (RuntimeError, one
    line, if perf is missing or not allowed)."""
    return _p.profile(MODULE, games, asm, top)


def print_profile(r: dict) -> None:
    _p.print_profile(r, WHAT)


def main(argv=None) -> int:
    return _p.main(MODULE, __doc__, WHAT, child, argv)


if __name__ == "__main__":                  # pragma: no cover
    raise SystemExit(main())
