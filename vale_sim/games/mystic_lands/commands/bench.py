"""``vale-sim bench --game mystic-lands --search``: the search player's speed (its
``GAME.studies`` record names these functions; the options are shared,
``vale_sim.search.add_bench_options``)."""
from __future__ import annotations


def add_options(p) -> None:
    """Mystic Lands' options of ``vale-sim bench``: --search, --search-k, --search-rollout."""
    from vale_sim.search import add_bench_options
    add_bench_options(p)


def search_speed(k: int, games: int, seed: int = 0, rollout: str = "meta-2p") -> dict:
    """Wall-clock speed of ``games`` 2-player games (the default card set) of
    search:k=K:rollout=P against P on one core, after a warm-up game (compiling or
    loading the cache)."""
    import time

    import numba

    from vale_sim.search import SearchSpec
    from .. import cards as C
    from ..fast import api
    from ..policy import get_policy, make_search_policy
    pols = [make_search_policy(SearchSpec(k=k, rollout=rollout)), get_policy(rollout)]
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        api.simulate(C.DEFAULT_SET, 2, seed, 1, pols, first_game=10 ** 6)      # warm-up
        t0 = time.perf_counter()
        out = api.simulate(C.DEFAULT_SET, 2, seed, games, pols)
        dt = time.perf_counter() - t0
    finally:
        numba.set_num_threads(threads)
    dec = api.LAST_STATS["decisions"]
    return {"k": k, "games": games, "seconds": round(dt, 3),
            "seconds_per_game": round(dt / games, 4), "games_per_s": round(games / dt, 3),
            "decisions": dec, "decisions_per_game": round(dec / games, 1),
            "decisions_per_s": round(dec / dt, 1), "search_win_share": float(out.share[:, 0].mean())}


def run_search(args) -> int:
    from vale_sim.search import run_bench
    from .. import cards as C
    from ..policy import get_policy
    return run_bench(args, "meta-2p", f"{C.DEFAULT_SET} set", search_speed, get_policy)
