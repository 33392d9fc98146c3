"""``vale-sim bench``: games per second of the fast and the reference engine."""
from __future__ import annotations

import json
import time


def add_parser(sub) -> None:
    p = sub.add_parser("bench", help="games per second of the fast and reference engines",
                       description="Play the same workload (2-player games, core set, default "
                                   "policy) with both engines in this process and print games "
                                   "per second, the speed-up and fast games/s per core, the fast "
                                   "engine's CPU and wall time per game and per round, and its "
                                   "ratio to the game's skeleton (only the irreducible work of "
                                   "the same games), timed interleaved with it in this process.  "
                                   "The fast engine is timed after a warm-up call, so compile "
                                   "time is excluded.")
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
                        '"fast_games_per_s_per_core", "fast_games_per_s_runs", '
                        '"fast_cpu_us_per_game", "fast_wall_us_per_game", '
                        '"fast_cpu_us_per_game_runs", "mean_rounds", "fast_cpu_us_per_round", '
                        '"fast_rounds_per_s", "skeleton_cpu_us_per_game", '
                        '"skeleton_wall_us_per_game", "skeleton_cpu_us_per_game_runs", '
                        '"engine_over_skeleton_cpu", "engine_over_skeleton_wall", "games", '
                        '"reference_games", "repeats"} (the skeleton\'s null for a game '
                        'without one)')
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
    """Games per second (wall clock) of ``n`` games of ``cfg`` (``--policy``'s timing)."""
    return n / _timed(cfg, n)[0]


def _timed(cfg, n: int) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds of this thread, mean rounds) of games 0..n-1 of
    ``cfg`` through ``runner.outcomes_chunk``: the path of the studies and of
    ``simulate``'s summary (the engine's arrays, no per-game frame)."""
    from ..runner import outcomes_chunk
    w, c = time.perf_counter(), time.thread_time()
    o = outcomes_chunk(cfg, 0, n)
    c, w = time.thread_time() - c, time.perf_counter() - w
    return w, c, float(o.rounds.mean()) if o.n else 0.0


def skeleton_of(game):
    """The game's skeleton ``play(n_games, seed)`` (``Game.bench_skeleton``), or None."""
    spec = getattr(game, "bench_skeleton", None)
    if not spec:
        return None
    import importlib
    mod, fn = spec.split(":")
    return getattr(importlib.import_module(mod), fn)


def _skeleton_timed(play, n: int, seed: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of ``n`` skeleton games."""
    w, c = time.perf_counter(), time.thread_time()
    play(n, seed)
    return time.perf_counter() - w, time.thread_time() - c


def measure(game, games: int = 5000, reference_games: int = 200, seed: int = 0,
            repeats: int = 5) -> dict:
    """Games per second and CPU time per game of ``game``'s fast engine on one core,
    beside its skeleton game's and the reference engine's.

    The workload: 2-player games of the game's default card set and policy, seed
    ``seed``, played through ``runner.outcomes_chunk`` (the studies' path).  The fast
    engine plays a warm-up call first (compiling or loading numba's cache), then the
    same ``games`` games ``repeats`` times, each run timed in wall-clock time and in
    CPU time of this thread (``time.thread_time``: what another process's load moves
    least).  The game's skeleton (``Game.bench_skeleton``: only the irreducible work of
    such a game) plays ``games`` games right after each engine run, timed the same
    way: every figure is the median of its ``repeats`` runs, and
    ``engine_over_skeleton_cpu`` the median over the runs of engine CPU / skeleton CPU
    (paired, so a change of load between runs moves both).  ``mean_rounds``: rounds a
    game; the per-round figures divide by it (a game with longer games costs more a
    game at the same speed a round).  The reference engine plays ``reference_games``
    once.  ``speedup`` = median fast rate / reference rate (wall clock)."""
    import statistics

    import numba

    from ..runner import RunConfig
    if games < 1 or reference_games < 1 or repeats < 1:
        raise ValueError("games, reference games and repeats must be at least 1")
    kw = dict(card_set=game.default_card_set, players=2, seed=seed,
              policies=(game.default_policy,), game=game.name)
    fast = RunConfig(games=games, **kw).resolved()
    ref = RunConfig(games=reference_games, engine="reference", **kw).resolved()
    skeleton = skeleton_of(game)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)              # one core: per-core rate = games/s
    runs, skel = [], []
    try:
        _timed(fast, min(50, games))      # warm-up: compile or load the numba cache
        if skeleton is not None:
            skeleton(min(50, games), seed)
        for _ in range(repeats):          # interleaved: engine, skeleton, engine, ...
            runs.append(_timed(fast, games))
            if skeleton is not None:
                skel.append(_skeleton_timed(skeleton, games, seed))
    finally:
        numba.set_num_threads(threads)
    med = statistics.median
    fast_rate = med(games / w for w, _, _ in runs)
    cpu = med(c for _, c, _ in runs) / games
    wall = med(w for w, _, _ in runs) / games
    rounds = runs[0][2]
    ref_wall = _timed(ref, reference_games)[0]
    ref_rate = reference_games / ref_wall
    us = lambda x: round(1e6 * x, 3) if x is not None else None  # noqa: E731
    out = {"fast_games_per_s": round(fast_rate, 1),
           "reference_games_per_s": round(ref_rate, 2),
           "speedup": round(fast_rate / ref_rate, 1),
           "fast_games_per_s_per_core": round(fast_rate, 1),
           "fast_games_per_s_runs": [round(games / w, 1) for w, _, _ in runs],
           "fast_cpu_us_per_game": us(cpu), "fast_wall_us_per_game": us(wall),
           "fast_cpu_us_per_game_runs": [us(c / games) for _, c, _ in runs],
           "mean_rounds": round(rounds, 3),
           "fast_cpu_us_per_round": us(cpu / rounds) if rounds else None,
           "fast_rounds_per_s": round(fast_rate * rounds, 1),
           "skeleton_cpu_us_per_game": None, "skeleton_wall_us_per_game": None,
           "skeleton_cpu_us_per_game_runs": None,
           "engine_over_skeleton_cpu": None, "engine_over_skeleton_wall": None,
           "games": games, "reference_games": reference_games, "repeats": repeats}
    if skel:
        out.update(
            skeleton_cpu_us_per_game=us(med(c for _, c in skel) / games),
            skeleton_wall_us_per_game=us(med(w for w, _ in skel) / games),
            skeleton_cpu_us_per_game_runs=[us(c / games) for _, c in skel],
            engine_over_skeleton_cpu=round(med(r[1] / s[1] for r, s in zip(runs, skel)), 3),
            engine_over_skeleton_wall=round(med(r[0] / s[0] for r, s in zip(runs, skel)), 3))
    return out


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


def format_result(r: dict, g, seed: int) -> list[str]:
    """The text of :func:`measure`'s result."""
    from ..games import DEFAULT_GAME
    what = "2-player games" + ("" if g.name == DEFAULT_GAME else f" of {g.name}")
    n, k = r["games"], r["repeats"]
    runs, cpus = r["fast_games_per_s_runs"], r["fast_cpu_us_per_game_runs"]
    lines = [f"workload: {what}, {g.default_card_set} set, policy {g.default_policy}, seed "
             f"{seed}; medians of {k} runs of {n} games, one core, after warm-up",
             f"fast engine      {r['fast_games_per_s']:>10.1f} games/s  "
             f"({min(runs):.0f}-{max(runs):.0f})",
             f"  per game       {r['fast_cpu_us_per_game']:>10.2f} us CPU   "
             f"{r['fast_wall_us_per_game']:>8.2f} us wall  (CPU {min(cpus):.2f}-{max(cpus):.2f})"]
    if r["fast_cpu_us_per_round"] is not None:
        lines.append(f"  per round      {r['fast_cpu_us_per_round']:>10.3f} us CPU   "
                     f"{r['fast_rounds_per_s']:>10.0f} rounds/s  "
                     f"({r['mean_rounds']:.2f} rounds a game)")
    if r["skeleton_cpu_us_per_game"] is not None:
        sk = r["skeleton_cpu_us_per_game_runs"]
        ratio = r["engine_over_skeleton_cpu"]
        lines += [f"skeleton game    {r['skeleton_cpu_us_per_game']:>10.2f} us CPU   "
                  f"{r['skeleton_wall_us_per_game']:>8.2f} us wall  (CPU {min(sk):.2f}-"
                  f"{max(sk):.2f}; the same games' irreducible work, interleaved)",
                  f"engine/skeleton  {ratio:>10.2f}x CPU  {r['engine_over_skeleton_wall']:>8.2f}x "
                  f"wall  (the engine at {100 / ratio:.1f} % of the skeleton's speed)"]
    else:
        lines.append("skeleton game    (none for this game)")
    lines += [f"reference engine {r['reference_games_per_s']:>10.2f} games/s  "
              f"({r['reference_games']} games)",
              f"speed-up         {r['speedup']:>10.1f}x",
              f"fast per core    {r['fast_games_per_s_per_core']:>10.1f} games/s"]
    return lines


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
    for line in format_result(result, g, args.seed):
        print(line)
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
