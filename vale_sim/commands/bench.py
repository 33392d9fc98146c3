"""``vale-sim bench``: games per second of the fast and the reference engine."""
from __future__ import annotations

import json
import time


def add_parser(sub) -> None:
    p = sub.add_parser("bench", help="games per second of the fast and reference engines",
                       description="Play the same workload (2-player games, core set, default "
                                   "policy) with both engines in this process and print games "
                                   "per second, the speed-up and fast games/s per core.  The "
                                   "fast engine is timed after a warm-up call, so compile time "
                                   "is excluded.")
    from ..limits import count, seed
    p.add_argument("--games", type=count(1), default=None,
                   help="games for the fast engine (default 5000; with --profile 100000)")
    p.add_argument("--reference-games", type=count(1), default=200,
                   help="games for the reference engine (default 200)")
    p.add_argument("--repeats", type=count(1, "repeats"), default=5,
                   help="time the fast engine's --games this many times and report the median "
                        "(default 5; the text output also shows the slowest and fastest)")
    p.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    p.add_argument("--workers", type=int, default=1,
                   help="also time the fast engine through the runner with this many processes "
                        "(text output only; includes worker start-up)")
    from ..study import resolve
    for parser in dict.fromkeys(r.parser for r in option_studies() if r.parser):
        resolve(parser).add_options(p)     # a game's options of bench (e.g. --spoil)
    p.add_argument("--policy", default=None, metavar="NAME|FILE,...",
                   help="time the fast engine's games/s with these policies (every seat one "
                        "policy; 2 players) next to the old strong field meta-2p's, instead of "
                        "the engine comparison; e.g. --policy value-2p")
    p.add_argument("--json", action="store_true",
                   help='print {"fast_games_per_s", "reference_games_per_s", "speedup", '
                        '"fast_games_per_s_per_core", "fast_games_per_s_runs", "games", '
                        '"reference_games", "repeats"}')
    p.set_defaults(func=run)


def option_studies() -> list:
    """The studies that are options of bench (``command = "bench --OPTION"``) of every
    registered game, in registry order."""
    from ..cli import _game_or_none
    from ..games import GAMES
    from ..study import studies_of
    out = []
    for n in GAMES:
        g = _game_or_none(n)
        for r in (studies_of(g) if g is not None else ()):
            if (r.command or "").startswith("bench --") and r not in out:
                out.append(r)
    return out


def _check_mode_options(args) -> None:
    """One benchmark at a time (the engines', or one of the games' ``bench --OPTION``),
    and no option the chosen one would ignore (one line, exit 2)."""
    from ..cli import UserError, check_needs
    modes = list(dict.fromkeys(r.command.split(" ", 1)[1] for r in option_studies()))
    chosen = [m for m in modes if getattr(args, m[2:].replace("-", "_"), False)]
    if len(chosen) > 1:
        raise UserError(f"{' and '.join(chosen)} are two benchmarks: give one of them")
    mode = chosen[0] if chosen else None
    engines = f"applies to the engine benchmark, not to bench {mode}"
    check_needs(args, ("--decks", mode == "--spoil", "needs --spoil"),
                ("--search-k", mode == "--search", "needs --search"),
                ("--search-rollout", mode == "--search", "needs --search"),
                ("--reference-games", mode is None, engines),
                ("--repeats", mode is None, engines),
                ("--workers", mode is None, engines),
                ("--policy", mode is None, engines),
                ("--games", mode != "--spoil", "does not apply to bench --spoil (it times the "
                                               "decks of --decks games)"))


def _rate(cfg, n: int) -> float:
    from ..runner import run_chunk
    t0 = time.perf_counter()
    run_chunk(cfg, 0, n)
    return n / (time.perf_counter() - t0)


def measure(game, games: int = 5000, reference_games: int = 200, seed: int = 0,
            repeats: int = 5) -> dict:
    """Games per second of ``game``'s fast and reference engines on one core.

    The workload: 2-player games of the game's default card set and policy, seed
    ``seed``, each engine timed through ``runner.run_chunk`` (the path ``simulate``
    takes, DataFrame included) in wall-clock time.  The fast engine plays a warm-up
    call first (compiling or loading numba's cache), then the same ``games`` games
    ``repeats`` times: ``fast_games_per_s`` is the median of those runs (a single
    0.1-s run moves by 10 % with what else the machine does; the runs are in
    ``fast_games_per_s_runs``).  The reference engine plays ``reference_games`` once.
    ``speedup`` = median fast rate / reference rate."""
    import statistics

    import numba

    from ..runner import RunConfig
    if games < 1 or reference_games < 1 or repeats < 1:
        raise ValueError("games, reference games and repeats must be at least 1")
    kw = dict(card_set=game.default_card_set, players=2, seed=seed,
              policies=(game.default_policy,), game=game.name)
    fast = RunConfig(games=games, **kw).resolved()
    ref = RunConfig(games=reference_games, engine="reference", **kw).resolved()
    threads = numba.get_num_threads()
    numba.set_num_threads(1)              # one core: per-core rate = games/s
    try:
        _rate(fast, min(50, games))       # warm-up: compile or load the numba cache
        runs = [_rate(fast, games) for _ in range(repeats)]
    finally:
        numba.set_num_threads(threads)
    fast_rate = statistics.median(runs)
    ref_rate = _rate(ref, reference_games)
    return {"fast_games_per_s": round(fast_rate, 1),
            "reference_games_per_s": round(ref_rate, 2),
            "speedup": round(fast_rate / ref_rate, 1),
            "fast_games_per_s_per_core": round(fast_rate, 1),
            "fast_games_per_s_runs": [round(r, 1) for r in runs],
            "games": games, "reference_games": reference_games, "repeats": repeats}


#: The field --policy is compared with (the strongest bundled field before issue 36).
COMPARE_POLICY = "meta-2p"


def measure_policies(game, specs, games: int = 5000, seed: int = 0, repeats: int = 5) -> list:
    """Fast-engine games/s (median of ``repeats`` runs of ``games`` 2-player games, one
    core, after a warm-up) of each policy in ``specs`` playing every seat, and its ratio
    to the first spec's rate (the comparison field)."""
    import statistics

    import numba

    from ..runner import RunConfig
    rows = []
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        for spec in specs:
            cfg = RunConfig(card_set=game.default_card_set, players=2, seed=seed, games=games,
                            policies=(spec,), game=game.name).resolved()
            _rate(cfg, min(50, games))
            runs = [_rate(cfg, games) for _ in range(repeats)]
            rows.append({"policy": spec, "fast_games_per_s": round(statistics.median(runs), 1),
                         "fast_games_per_s_runs": [round(r, 1) for r in runs]})
    finally:
        numba.set_num_threads(threads)
    for r in rows:
        r["ratio"] = round(r["fast_games_per_s"] / rows[0]["fast_games_per_s"], 3)
    return rows


def run_policies(args, g) -> int:
    from ..cli import UserError
    specs = [s.strip() for s in args.policy.split(",") if s.strip()]
    if not specs:
        raise UserError("--policy: give at least one policy name or file")
    for s in specs:
        g.get_policy(s)                   # a bad name: one line, before any timing
    names = set(g.get_policy(s).name for s in specs)
    try:
        g.get_policy(COMPARE_POLICY)
        compare = [] if COMPARE_POLICY in names else [COMPARE_POLICY]
    except Exception:                       # a game without it: the first given is the base
        compare = []
    rows = measure_policies(g, compare + specs, args.games, args.seed, args.repeats)
    if args.json:
        print(json.dumps({"policies": rows, "games": args.games, "repeats": args.repeats,
                          "compared_with": rows[0]["policy"]}))
        return 0
    print(f"workload: 2-player games of {g.name}, {g.default_card_set} set, seed {args.seed}; "
          f"one policy in every seat; median of {args.repeats} runs of {args.games} games, "
          "one core, after warm-up")
    for r in rows:
        runs = r["fast_games_per_s_runs"]
        print(f"{r['policy']:<24} {r['fast_games_per_s']:>10.1f} games/s  "
              f"({min(runs):.0f}-{max(runs):.0f})  x{r['ratio']:.2f} of {rows[0]['policy']}")
    return 0


def run(args) -> int:
    from ..cli import UserError, command_game, require_study
    from ..runner import fast_engine_ok
    g = command_game(args)
    _check_mode_options(args)
    for rec in option_studies():              # an option that is a game's study
        if getattr(args, rec.command.split("--", 1)[1].replace("-", "_"), False):
            return require_study(g, rec.command).call("main", args)
    if args.games is None:
        args.games = 5000
    if args.policy is not None:
        from ..cli import check_needs
        check_needs(args, ("--reference-games", False, "does not apply with --policy"),
                    ("--workers", False, "does not apply with --policy"))
        if not fast_engine_ok(g):
            raise UserError(f"the fast engine of {g.name} is not available; --policy times it")
        return run_policies(args, g)
    if not fast_engine_ok(g):
        raise UserError(f"the fast engine of {g.name} is not available yet; "
                        "bench compares it with the reference engine")
    if args.games < 1 or args.reference_games < 1 or args.repeats < 1:
        raise UserError("--games, --reference-games and --repeats must be at least 1")
    from ..io import check_workers
    from ..limits import check_count
    check_count(args.games * args.repeats, "--games x --repeats")    # the games timed
    check_workers(args.workers)
    result = measure(g, args.games, args.reference_games, args.seed, args.repeats)
    if args.json:
        print(json.dumps(result))
        return 0
    fast_rate, ref_rate = result["fast_games_per_s"], result["reference_games_per_s"]
    runs = result["fast_games_per_s_runs"]
    from ..games import DEFAULT_GAME
    what = "2-player games" + ("" if g.name == DEFAULT_GAME else f" of {g.name}")
    print(f"workload: {what}, {g.default_card_set} set, policy {g.default_policy}, seed",
          args.seed)
    print(f"fast engine      {fast_rate:>10.1f} games/s  (median of {args.repeats} runs of "
          f"{args.games} games, {min(runs):.0f}-{max(runs):.0f}; one core, after warm-up)")
    print(f"reference engine {ref_rate:>10.2f} games/s  ({args.reference_games} games)")
    print(f"speed-up         {result['speedup']:>10.1f}x")
    print(f"fast per core    {fast_rate:>10.1f} games/s")
    if args.workers > 1:
        from ..runner import RunConfig, run as run_games
        base = RunConfig(card_set=g.default_card_set, players=2, seed=args.seed,
                         games=args.games, policies=(g.default_policy,), game=g.name)
        t0 = time.perf_counter()
        run_games(base, workers=args.workers, progress=False)
        rate = args.games / (time.perf_counter() - t0)
        print(f"fast, {args.workers} workers {rate:>10.1f} games/s  ({rate / args.workers:.1f} per "
              f"core, including worker start-up)")
    return 0
