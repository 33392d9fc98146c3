"""``vale-sim run experiments/NAME.toml``: run a study config into ``results/NAME/``."""
from __future__ import annotations

import sys


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run a study config (experiments/NAME.toml) into results/NAME/",
                       description="Run one study config: spoil_odds, tournament, advancement_value, "
                                   "pool_sizes or report.  The whole file is checked before any game "
                                   "runs.  Results and manifest.json go to RESULTS/NAME/; re-running "
                                   "the same config reuses finished chunks.")
    p.add_argument("config", help="the study config, e.g. experiments/pool_sizes.toml")
    p.add_argument("--results", default="results", help="results root (default results/)")
    p.add_argument("--check", action="store_true", help="only validate the config")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..experiments import estimated_games, load_experiment, run_experiment
    if args.check:
        exp = load_experiment(args.config, args.game)
        n = estimated_games(exp)
        cost = f"; about {n:,} games" if n is not None else ""
        print(f"{args.config}: ok ({exp.study}{cost})")
        return 0
    m = run_experiment(args.config, args.results, progress=sys.stderr.isatty(), game=args.game)
    c = m["chunks"]
    print(f"{m['name']} ({m['study']}): done in {m['seconds']:.1f} s -> {args.results}/{m['name']}/ "
          f"(chunks reused {c['reused']}, played {c['played']})")
    return 0
