"""Games per second of the Mystic Lands fast and reference engines (one core).

The same workload as ``vale-sim bench`` for Mystic Vale: 2-player games of the
bundled set, default policy, seed 0; each engine timed on the path the runner
takes (``run_fast`` then sorting, or ``play_reference`` of every game then
``results_frame``), the fast engine after a warm-up call so compile time is left
out.  The keys are those of ``vale-sim bench --json``::

    python -m vale_sim.games.mystic_lands.fast.bench [--games 5000]
        [--reference-games 200] [--seed 0] [--json]
"""
from __future__ import annotations

import argparse
import json
import time


def bench(games: int = 5000, reference_games: int = 200, seed: int = 0) -> dict:
    import numba

    from .. import GAME
    from .api import run_fast
    if games < 1 or reference_games < 1:
        raise ValueError("games and reference_games must be at least 1")
    cs = GAME.load_card_set(GAME.default_card_set)
    pols = [GAME.default_policy]
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        run_fast(cs, 2, seed, min(50, games), pols)              # compile or load the cache
        t0 = time.perf_counter()
        run_fast(cs, 2, seed, games, pols).sort_values(["game", "player"], kind="stable")
        fast = games / (time.perf_counter() - t0)
    finally:
        numba.set_num_threads(threads)
    t0 = time.perf_counter()
    GAME.results_frame([GAME.play_reference(cs, 2, seed, i, pols)
                        for i in range(reference_games)], cs)
    ref = reference_games / (time.perf_counter() - t0)
    return {"fast_games_per_s": round(fast, 1), "reference_games_per_s": round(ref, 2),
            "speedup": round(fast / ref, 1), "fast_games_per_s_per_core": round(fast, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vale_sim.games.mystic_lands.fast.bench",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5000)
    ap.add_argument("--reference-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    try:
        r = bench(a.games, a.reference_games, a.seed)
    except ValueError as e:
        ap.exit(2, f"error: {e}\n")
    if a.json:
        print(json.dumps(r))
    else:
        print(f"Mystic Lands, 2-player games, bundled set, policy balanced, seed {a.seed}")
        print(f"fast engine      {r['fast_games_per_s']:>10.1f} games/s  ({a.games} games, one "
              f"core, after warm-up)")
        print(f"reference engine {r['reference_games_per_s']:>10.2f} games/s  "
              f"({a.reference_games} games)")
        print(f"speed-up         {r['speedup']:>10.1f}x")
    return 0


if __name__ == "__main__":                  # pragma: no cover
    raise SystemExit(main())
