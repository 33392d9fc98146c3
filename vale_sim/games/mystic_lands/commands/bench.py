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
    from vale_sim.search import SearchSpec, time_search_games
    from .. import cards as C
    from ..fast import api
    from ..policy import get_policy, make_search_policy
    pols = [make_search_policy(SearchSpec(k=k, rollout=rollout)), get_policy(rollout)]
    return time_search_games(
        k, games, lambda n, first: api.simulate(C.DEFAULT_SET, 2, seed, n, pols, first_game=first),
        lambda: api.LAST_STATS)

def run_search(args) -> int:
    from vale_sim.search import run_bench
    from .. import cards as C
    from ..policy import get_policy
    return run_bench(args, "meta-2p", f"{C.DEFAULT_SET} set", search_speed, get_policy)
