"""``vale-sim meta``: a population of policies and its equilibrium (docs/meta.md)."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

OUT_FILES = ("meta.json", "mixture.json", "exploitability.png", "population")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "meta", help="the meta-game: a population of policies (presets, optimised bots, best "
                     "responses), its equilibrium mixture and the mixture's exploitability",
        description="Double oracle: the payoff matrix of the population on common deals "
                    "(one policy against P - 1 copies of another, every seat of every deal), "
                    "its equilibrium mixture (2 players: Nash by linear programming; 3-4: the "
                    "replicator dynamics' rest point), a best response to the mixture by the "
                    "CMA-ES of vale-sim exploit, its gain over the mixture on held-out deals "
                    "(95% interval clustered by deal); the best response joins the population "
                    "until it gains less than --epsilon (and its upper bound less than "
                    "--epsilon-hi) or after --iterations best responses.  docs/meta.md.")
    from ..limits import count
    p.add_argument("--players", type=int, required=True, choices=(2, 3, 4), help="2, 3 or 4")
    p.add_argument("--set", default=None, help="card set: a bundled name or a file "
                                                "(default: the game's default set)")
    p.add_argument("--population", default=None, metavar="NAME|FILE,...",
                   help="the starting population, comma-separated (default: the game's presets "
                        "and optimized-{P}p)")
    p.add_argument("--iterations", type=count(0, "best responses"), default=6,
                   help="best responses at most (the budget; default 6)")
    p.add_argument("--budget", type=count(1), default=4000,
                   help="search games per best response (default 4000)")
    p.add_argument("--deals", type=count(1, "deals"), default=20,
                   help="deals per search generation (default 20)")
    p.add_argument("--matrix-deals", type=count(2, "deals"), default=200,
                   help="common deals of the payoff matrix (default 200)")
    p.add_argument("--validate-deals", type=count(2, "deals"), default=500,
                   help="held-out deals of each best response's gain (default 500)")
    p.add_argument("--epsilon", type=float, default=0.01,
                   help="converged when the best response gains less than this (default 0.01 "
                        "= 1 point) ...")
    p.add_argument("--epsilon-hi", type=float, default=None,
                   help="... and its interval's upper bound less than this (default 2 epsilon)")
    p.add_argument("--bootstrap", type=count(0, "resamples"), default=200,
                   help="deal resamples of the mixture's interval (default 200)")
    from .exploit import add_run_options, add_search_options
    add_search_options(p, select_deals=100,
                       select_deals_help="deals of the choice among incumbents (default 100; 0: "
                                         "the last one)")
    from .exploit import add_engine_option
    add_engine_option(p)
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write the population as policy files, mixture.json, meta.json and "
                        "exploitability.png into DIR; the checkpoint is DIR.checkpoint.json")
    add_run_options(p)
    p.set_defaults(func=run)


def checkpoint_path(out) -> Path:
    out = Path(out)
    return out.with_name(f"{out.name}.checkpoint.json")


def _is_earlier(p: Path) -> bool:
    """``p`` holds an earlier meta run (its meta.json); a meta.json that is there but
    corrupt is one line naming it and what is wrong."""
    from ..errors import UserError
    from ..io import manifest_problem
    if not (p / "meta.json").exists():
        return False
    m, why = manifest_problem(p / "meta.json")
    if why is not None:
        raise UserError(f"refusing to replace --out {p}: its {p / 'meta.json'} is corrupt "
                        f"({why}), so the folder is not known to be an earlier vale-sim meta; "
                        f"move it away or choose a new folder")
    return m.get("written_by") == "vale-sim meta"


def run(args) -> int:
    from dataclasses import replace
    from ..cli import check_players, game_rules
    from ..errors import UserError
    from ..games import get_game
    from ..variants import resolve_engine
    from ..io import (atomic_write, check_output, check_replaceable, check_workers,
                      replace_folder)
    from ..store import card_set_info, code_version
    from .. import metagame as mg
    from ..exploit import policy_file_text
    from .exploit import _clean
    t0 = time.time()
    g = get_game(args.game)
    check_players(g, args.players)
    for name in ("epsilon", "epsilon_hi"):
        v = getattr(args, name)
        if v is not None and not 0 < v < 1:
            raise UserError(f"--{name.replace('_', '-')} must be a win-share difference in "
                            f"(0, 1), e.g. 0.01 for 1 point; got {v}")
    if args.epsilon_hi is not None and args.epsilon_hi < args.epsilon:
        raise UserError(f"--epsilon-hi ({args.epsilon_hi}) must be at least --epsilon "
                        f"({args.epsilon})")
    if args.sigma is not None and not 0 < args.sigma <= 10:
        raise UserError(f"--sigma must be in (0, 10], got {args.sigma}")
    from ..limits import check_generation
    check_generation(args.popsize, args.budget, args.players, args.deals, 1,
                     "at least 1 mixture member")
    check_workers(args.workers)
    if g.search_space is None:
        raise UserError(f"meta needs a policy search space, which {g.name} has none of")
    population = None
    if args.population is not None:
        population = tuple(s.strip() for s in args.population.split(","))
        if not all(population):
            raise UserError(f"--population {args.population!r}: an empty name; give "
                            f"comma-separated policy names or files")
    ck = None
    if args.resume and not args.out:
        raise UserError("--resume needs --out (the checkpoint is named after it)")
    if args.out:
        out = check_output(args.out, "dir", "--out")
        check_replaceable(out, _is_earlier, "vale-sim meta", allowed=OUT_FILES)
        ck = checkpoint_path(out)
        check_output(ck, "file", "--out", ours=True)    # only --resume continues it
        from ..checkpoint import check_resume
        from ..cli import keep_for_resume
        check_resume(ck, mg.CHECKPOINT_KIND, args.resume, "meta run")
        if args.resume:                  # its best-response searches' checkpoints, up front too
            import re
            pat = re.compile(rf"{re.escape(ck.stem)}\.search\d+\.(json|pkl)")
            for f in sorted(ck.parent.iterdir()):
                if pat.fullmatch(f.name):
                    check_resume(f.with_suffix(".json"), mg.opt.CHECKPOINT_KIND, True, "search")
        keep_for_resume(args, ck, "the finished steps of the meta run")
    cfg = mg.MetaConfig(players=args.players, game=g.name, card_set=args.set,
                        population=population, iterations=args.iterations, budget=args.budget,
                        deals=args.deals, matrix_deals=args.matrix_deals,
                        validate_deals=args.validate_deals, select_deals=args.select_deals,
                        select=args.select, epsilon=args.epsilon, epsilon_hi=args.epsilon_hi,
                        bootstrap=args.bootstrap, seed=args.seed, popsize=args.popsize,
                        engine=resolve_engine(args.engine, g.name),
                        **({"sigma0": args.sigma} if args.sigma is not None else {}))
    bar = None
    if args.progress or sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=None, unit="game", unit_scale=True, dynamic_ncols=True,
                   file=sys.stderr, desc="meta")
    try:
        res = mg.meta(cfg, workers=args.workers, progress=bar, checkpoint=ck,
                      resume=args.resume, rules=game_rules(g))
    except mg.opt.SearchError as e:
        raise UserError(str(e)) from None
    finally:
        if bar is not None:
            bar.close()
    cmd = "vale-sim meta " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["meta"] else None
    summary = res.summary()
    summary.update({"written_by": "vale-sim meta", "command": cmd,
                    "card_set_info": card_set_info(res.cs, res.game), "code": code_version(),
                    "workers": args.workers, "seconds": round(time.time() - t0, 1)})
    if args.json:
        print(json.dumps(_clean(summary), sort_keys=True, default=str))
    else:
        print("\n".join(mg.format_result(res)))
    if args.out:
        sys.stdout.flush()
        with replace_folder(out) as tmp:
            (tmp / "population").mkdir()
            files = {}
            for pol, w in zip(res.population, res.mixture):
                header = (f"{mg.HEADER} member {pol.name} of the {res.players}-player population "
                          f"({res.game}, set {res.card_set}, seed {args.seed}); mixture weight "
                          f"{100 * w:.1f}%; see meta.json and docs/meta.md.")
                name = f"{pol.name}.toml"
                atomic_write(tmp / "population" / name, policy_file_text(pol, g, header))
                files[pol.name] = f"population/{name}"
            if res.pending is not None:
                header = (f"{mg.HEADER} the last best response ({res.pending.name}), not in the "
                          f"reported mixture's population; see meta.json.")
                name = f"{res.pending.name}.toml"
                atomic_write(tmp / "population" / name,
                             policy_file_text(res.pending, g, header))
                files[res.pending.name] = f"population/{name}"
            mix = {"written_by": "vale-sim meta", "game": res.game, "players": res.players,
                   "card_set": res.card_set, "method": res.method,
                   "mixture": {p.name: float(w) for p, w in zip(res.population, res.mixture)},
                   "interval": summary["mixture_interval"], "files": files,
                   "converged": res.converged, "exploitability": summary["exploitability"]}
            atomic_write(tmp / "mixture.json", json.dumps(_clean(mix), indent=1, default=str))
            atomic_write(tmp / "meta.json", json.dumps(_clean(dict(summary, files=files)),
                                                        indent=1, default=str))
            if res.iterations:
                mg.plot_curve(res, tmp / "exploitability.png")
        if not args.json:
            print(f"wrote {out}/ (population/*.toml, mixture.json, meta.json"
                  + (", exploitability.png)" if res.iterations else ")"))
    return 0
