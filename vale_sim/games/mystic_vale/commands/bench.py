"""``vale-sim bench --spoil`` and ``bench --profile``: Mystic Vale's options of the
shared ``bench`` command (its ``GAME.studies`` records name these functions)."""
from __future__ import annotations

import json


def add_options(p) -> None:
    """Mystic Vale's options of ``vale-sim bench``."""
    from vale_sim.limits import count
    p.add_argument("--spoil", action="store_true",
                   help="benchmark the exact spoil-odds calculator instead: Python model vs "
                        "compiled engine on played decks, and seconds per deck on the decks "
                        "of --decks games and on --decks random crafted decks")
    p.add_argument("--decks", type=count(1, "decks"), default=100,
                   help="with --spoil: games whose players' decks are timed, and random "
                        "crafted decks timed (default 100 each)")
    from vale_sim.search import add_bench_options
    add_bench_options(p)          # --search, --search-k, --search-rollout
    p.add_argument("--profile", action="store_true",
                   help="profile the fast engine instead: share of each compiled kernel "
                        "in CPU samples of Linux perf over --games games (needs perf; "
                        "docs/speed.md)")


def run_spoil(args) -> int:
    from vale_sim.cli import UserError
    from ..spoil.bench import bench
    games = args.decks
    if games < 1:
        raise UserError(f"--decks must be at least 1, got {games}")
    bars = []
    try:
        r = bench(games=games, crafted=games, seed=args.seed, progress=_spoil_progress(bars))
    finally:
        for b in bars:
            b.close()
    if args.json:
        print(json.dumps(r))
        return 0
    e = r["engines"]
    print(f"exact spoil odds, K = {r['pushes']} pushes, one process")
    print(f"the {e['decks']} played decks with most states ({e['states']:,} in all): Python "
          f"model {e['python_seconds']:.2f} s, compiled {e['compiled_seconds']:.3f} s, "
          f"speed-up {e['speedup']:.0f}x")
    for name, what in (("played", f"decks at the end of {games} two-player games"),
                       ("crafted", f"{games} random crafted decks (0-40 advancements, 0-3 "
                                   f"vales)")):
        s = r[name]
        print(f"{what}: {s['under_1s']}/{s['decks']} under 1 s, median "
              f"{s['median_seconds']:.3f} s, slowest {s['max_seconds']:.2f} s "
              f"({s['slowest']}), most states {s['max_states']:,}")
    return 0


def _spoil_progress(bars: list):
    """``bench --spoil``'s progress (its stages take a minute or more): on a terminal a
    tqdm bar per stage (kept in ``bars`` to be closed); otherwise a line on stderr as each
    stage starts and when it is half done."""
    import sys
    if sys.stderr.isatty():
        from tqdm import tqdm

        def start(what, total):
            for b in bars:
                b.close()
            bar = tqdm(total=total, desc=f"bench --spoil: {what}", unit="step",
                       dynamic_ncols=True, file=sys.stderr, leave=False)
            bars.append(bar)
            return bar.update
        return start

    def start(what, total):
        print(f"bench --spoil: {what} ({total})", file=sys.stderr, flush=True)
        done = [0]

        def step():
            done[0] += 1
            if done[0] == total // 2 and total >= 10:
                print(f"bench --spoil: {what}: {done[0]} of {total}", file=sys.stderr,
                      flush=True)
        return step
    return start


def run_profile(args) -> int:
    from vale_sim.cli import UserError
    from ..fast.profile import print_profile, profile
    games = 100_000 if args.games is None else args.games
    if games < 1:
        raise UserError(f"--games must be at least 1, got {games}")
    try:
        r = profile(games)
    except RuntimeError as e:
        raise UserError(f"bench --profile: {e}") from None
    if args.json:
        print(json.dumps(r))
    else:
        print_profile(r)
    return 0


def search_speed(k: int, games: int, seed: int = 0, rollout: str = "optimized-2p") -> dict:
    """Wall-clock speed of ``games`` 2-player games (core set) of search:k=K against its
    rollout policy on one core, after a warm-up game (compiling or loading the cache)."""
    from vale_sim.search import SearchSpec, time_search_games
    from ..fast import api
    from ..policy import get_policy, make_search_policy
    pols = [make_search_policy(SearchSpec(k=k, rollout=rollout)), get_policy(rollout)]
    return time_search_games(
        k, games,
        lambda n, first: api.simulate("core", 2, seed, n, pols, first_game=first, details=False),
        lambda: api.LAST_STATS)

def run_search(args) -> int:
    from vale_sim.search import run_bench
    from ..policy import get_policy
    return run_bench(args, "optimized-2p", "core set", search_speed, get_policy)
