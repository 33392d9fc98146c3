"""``vale-sim optimize``: search the policy space for a policy that maximises win share
(any game with a ``Game.search_space``: ``--game``; docs/optimize.md)."""
from __future__ import annotations

import csv
import io
import sys
import time
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser(
        "optimize", help="search the policy space (CMA-ES) for a policy that maximises win share",
        description="CMA-ES over every numeric, boolean and categorical policy parameter of "
                    "the game (its Game.search_space; docs/optimize.md).  Objective: mean win share against the presets plus a "
                    "hall of fame of earlier generations' bests, seats rotated, on fresh common "
                    "deals each generation.  The final policy (the rounded CMA-ES mean) is "
                    "validated against each preset on seeds never used in the search, with "
                    "deal-clustered 95%% intervals.  Writes OUT.toml (a policy file for --policy), "
                    "OUT.log.csv and OUT.log.json (every candidate), OUT.curve.png (learning curve), "
                    "OUT.manifest.json and OUT.checkpoint.json (for --resume).")
    p.add_argument("--players", type=int, required=True, choices=(2, 3, 4),
                   help="2, 3 or 4: the player count the policy is optimised for")
    p.add_argument("--set", default=None, help="card set: a bundled name or a file "
                                                "(default: the game's default set)")
    p.add_argument("--start", default=None, metavar="NAME|FILE",
                   help="the starting policy (default: the game's default policy); also the base "
                        "of unsearched fields")
    from ..limits import count, seed
    p.add_argument("--budget", type=count(1), default=200_000,
                   help="games the search may play (default 200000; validation not included)")
    p.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    p.add_argument("--deals", type=count(1, "deals"), default=25,
                   help="deals per opponent per generation; each is played once per seat rotation "
                        "(default 25)")
    p.add_argument("--hall", type=count(0, "hall-of-fame members"), default=3,
                   help="hall-of-fame members (the latest generations' bests) in the field (default 3)")
    from ..limits import MAX_POPSIZE
    p.add_argument("--popsize", type=count(2, "candidates", MAX_POPSIZE), default=None,
                   help="CMA-ES population (default: cma's 4 + 3 ln(parameters))")
    p.add_argument("--sigma", type=float, default=None,
                   help="CMA-ES initial step size on the 0..10 scale of every parameter (default 1)")
    p.add_argument("--validate-deals", type=count(0, "deals"), default=1000,
                   help="held-out deals per preset for the final validation (default 1000; 0 skips it)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    from ..cli import add_scheduler_options
    add_scheduler_options(p, group=g, what="run the games")
    p.add_argument("--out", default=None, metavar="FILE.toml",
                   help="the policy file to write (default optimized-<P>p.toml); the other outputs "
                        "are named after it")
    p.add_argument("--resume", action="store_true",
                   help="continue from OUT.checkpoint.json (same options): the result equals an "
                        "uninterrupted run")
    p.add_argument("--progress", action="store_true",
                   help="show the progress bar even when stderr is not a terminal")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def output_paths(out) -> dict:
    out = Path(out)
    stem = out.with_suffix("") if out.suffix == ".toml" else out
    return {"policy": out, "csv": Path(f"{stem}.log.csv"), "json": Path(f"{stem}.log.json"),
            "plot": Path(f"{stem}.curve.png"), "manifest": Path(f"{stem}.manifest.json"),
            "checkpoint": Path(f"{stem}.checkpoint.json")}


def _csv_text(rows: list[dict]) -> str:
    buf = io.StringIO()
    if rows:
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return buf.getvalue()


def format_validation(rows, players: int) -> str:
    lines = [f"Held-out validation (seeds never used in the search; seats rotated; "
             f"95% intervals clustered by deal; n = player-games of the optimised policy):",
             f"{'opponent':<14} {'n':>6} {'deals':>6} {'win share %':>22} {'fair %':>7} {'beats':>6}"]
    for r in rows:
        lines.append(f"{r['opponent'][:14]:<14} {r['n']:>6} {r['deals']:>6} "
                     f"{100 * r['win_share']:>7.1f} [{100 * r['lo']:5.1f}, {100 * r['hi']:5.1f}] "
                     f"{100 * r['fair_share']:>7.1f} {'yes' if r['beats'] else 'no':>6}")
    lines.append(("2 players: head to head" if players == 2 else
                  f"{players} players: one against {players - 1} copies of the opponent") +
                 "; 'beats' = the interval's lower bound is above the fair share.")
    return "\n".join(lines)


def run(args) -> int:
    from ..cli import UserError, check_players, scheduler_of
    from ..games import get_game
    from ..io import atomic_write, check_output, check_workers
    from ..store import card_set_info, code_version
    from .. import optimize as opt
    from ..exploit import policy_file_text
    t0 = time.time()
    g = get_game(args.game)
    if g.search_space is None:
        raise UserError(f"optimize needs a policy search space, which {g.name} has none of")
    check_players(g, args.players)
    presets = tuple(g.presets)
    if args.budget < 1:
        raise UserError(f"--budget must be a positive number of games, got {args.budget}")
    if args.deals < 1:
        raise UserError(f"--deals must be >= 1, got {args.deals}")
    if args.validate_deals < 0:
        raise UserError(f"--validate-deals must be >= 0, got {args.validate_deals}")
    if args.hall < 0:
        raise UserError(f"--hall must be >= 0, got {args.hall}")
    if args.popsize is not None and args.popsize < 2:
        raise UserError(f"--popsize must be >= 2, got {args.popsize}")
    if args.sigma is not None and not 0 < args.sigma <= 10:
        raise UserError(f"--sigma must be in (0, 10], got {args.sigma}")
    check_workers(args.workers)
    from ..limits import check_generation
    check_generation(args.popsize, args.budget, args.players, args.deals, len(presets),
                     f"{len(presets)} presets")
    out = args.out or f"optimized-{args.players}p.toml"
    if Path(out).suffix != ".toml":
        raise UserError(f"--out {out}: give a .toml file name (the policy file)")
    paths = output_paths(out)
    from ..io import written_by_vale_sim
    for kind, path in paths.items():
        # the checkpoint: only --resume continues it; the CSV log (no room for a mark):
        # replaced with the run whose policy file (written first, marked) is beside it
        ours = {"checkpoint": True,
                "csv": lambda q: written_by_vale_sim(paths["policy"])}.get(kind)
        check_output(path, "file", "--out", force=args.force, ours=ours)
    ck = paths["checkpoint"]
    from ..checkpoint import check_resume
    from ..cli import keep_for_resume
    check_resume(ck, opt.CHECKPOINT_KIND, args.resume, "search")
    keep_for_resume(args, ck, "the finished search generations")
    start_spec = g.default_policy if args.start is None else args.start
    start = g.get_policy(start_spec)
    cfg = opt.SearchConfig(players=args.players, start=start_spec, budget=args.budget,
                           seed=args.seed, hall=args.hall, popsize=args.popsize, game=g.name,
                           **({"sigma0": args.sigma} if args.sigma is not None else {}))
    scheduler = scheduler_of(args)
    if scheduler is not None:      # one client for the whole search, with the user's timeouts
        scheduler = scheduler.connect()
    try:
        # the fast engine when the game has one (both engines play the same games)
        engine = "fast" if g.has_fast_engine else "reference"
        obj = opt.GameObjective(args.set, args.players, args.deals, engine=engine,
                                workers=args.workers, scheduler=scheduler, game=g.name)
        g.check_policies(obj.cs, [start])
        bar = None
        if args.progress or sys.stderr.isatty():
            from tqdm import tqdm
            bar = tqdm(total=args.budget + len(presets) * args.players * args.validate_deals, unit="game",
                       unit_scale=True, dynamic_ncols=True, file=sys.stderr, desc="optimize")
        try:
            res = opt.search(cfg, obj, checkpoint=ck, resume=args.resume, progress=bar)
            if bar is not None:      # the search stops before a generation would pass the budget
                bar.n = args.budget
                bar.refresh()
            val = (opt.validate(res.policy, obj.cs, args.players, args.validate_deals, args.seed,
                                engine=engine, workers=args.workers, scheduler=scheduler,
                                on_games=bar.update if bar is not None else None, game=g.name)
                   if args.validate_deals else [])
        finally:
            if bar is not None:
                bar.close()
    except opt.SearchError as e:
        raise UserError(str(e)) from None
    finally:
        if "obj" in locals():
            obj.close()
        if scheduler is not None:
            scheduler.address.close()
    from dataclasses import replace
    res.policy = replace(res.policy, name=paths["policy"].stem)     # --policy NAME for a bundled file
    cmd = "vale-sim optimize " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["optimize"] else None
    header = (f"vale-sim optimize: {g.name}, {args.players} players, set {obj.cs.name}, seed {args.seed}, "
              f"budget {args.budget} games ({res.games} played in {res.generations} generations), "
              f"start {start.name}.\nSee docs/optimize.md and {paths['manifest'].name}.")
    from ..io import dumps, jsonable
    log = [{k: jsonable(v) for k, v in r.items()} for r in res.log]
    curve = [{k: jsonable(v) for k, v in r.items()} for r in res.curve]
    manifest = {"written_by": "vale-sim optimize", "command": cmd, "game": g.name, "players": args.players, "seed": args.seed, "budget": args.budget,
                "games_played": res.games, "generations": res.generations, "deals": args.deals,
                "hall": args.hall, "popsize": args.popsize, "sigma0": cfg.sigma0, "start": start.name,
                "space": [p.describe() for p in res.space],
                "generation_seeds": [opt.generation_seed(args.seed, g)
                                     for g in range(res.generations)],
                "validation": {"seed": opt.validation_seed(args.seed),
                               "deals_per_opponent": args.validate_deals, "rows": val},
                "policy": opt.params_of(res.space, res.policy),
                "card_set": card_set_info(obj.cs, g.name), "code": code_version(),
                "workers": args.workers, "scheduler": args.scheduler,
                "outputs": {k: str(v) for k, v in paths.items()},
                "seconds": round(time.time() - t0, 1)}

    def write_outputs():
        """After the results are printed: a full disk loses none of them (one line, exit 2;
        the checkpoint keeps the search).  The policy file first."""
        sys.stdout.flush()
        atomic_write(paths["policy"], policy_file_text(res.policy, g, header))
        atomic_write(paths["csv"], _csv_text(log))
        atomic_write(paths["json"], dumps({"written_by": "vale-sim optimize", "curve": curve,
                                           "candidates": log}, indent=1))
        from ..plots.optimize import plot_learning_curve
        from ..io import save_figure
        save_figure(plot_learning_curve(res.curve, res.log, fair=1 / args.players),
                    paths["plot"], dpi=110)
        atomic_write(paths["manifest"], dumps(manifest, indent=1))
    if args.json:
        print(dumps({"policy": manifest["policy"], "validation": val, "curve": curve,
                     "games_played": res.games, "generations": res.generations,
                     "outputs": manifest["outputs"]}, sort_keys=True))
        write_outputs()
        return 0
    last = res.curve[-1] if res.curve else None
    print(f"{res.generations} generations, {res.games} games (budget {args.budget}), "
          f"{len(res.space)} parameters, {args.players} players, set {obj.cs.name}, seed {args.seed}")
    if last:
        print(f"last incumbent vs the field: {100 * last['score']:.1f}% "
              f"[{100 * last['lo']:.1f}, {100 * last['hi']:.1f}] (n = {last['n']} player-games, "
              f"{last['deals']} deals, 95% interval clustered by deal)")
    print("policy: " + ", ".join(f"{k}={v}" for k, v in manifest["policy"].items()))
    if val:
        print(format_validation(val, args.players))
    write_outputs()
    print(f"wrote {paths['policy']} (use with --policy), {paths['csv']}, {paths['json']}, "
          f"{paths['plot']}, {paths['manifest']}")
    return 0
