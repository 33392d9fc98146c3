"""``vale-sim report``: the balance report on the bundled defaults.

Builds ``results/report/`` (or ``--out``): ``index.html`` (self-contained),
``report.md`` with PNG figures, tables as CSV, ``manifest.json``.  See
docs/report.md.
"""
from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="build the balance report (HTML + Markdown + CSV)",
                       description="Build the balance report: card set and sources, spoil odds, "
                                   "strategy tournament, advancement values, pool sizes by player "
                                   "count, seat advantage, run manifest.  Default size finishes in "
                                   "under ten minutes on two cores with the fast engine; --quick "
                                   "in about a minute.")
    p.add_argument("--quick", action="store_true", help="a smaller, faster report (about a minute)")
    p.add_argument("--out", default="results/report", help="output folder (default results/report/)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--set", dest="card_set", default="core", help="card set (default core)")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast (default; falls back to reference with small sizes) or reference")
    p.add_argument("--baseline", default="optimized-{P}p", metavar="NAME|FILE",
                   help="the strong baseline of the section 'Robust to the bots?': card "
                        "strengths and pool sizes are played again with it on the same deals.  "
                        "A preset, a bundled policy or a policy .toml file; {P} stands for the "
                        "player count (default optimized-{P}p: the bundled optimised policies)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=run)


def run(args) -> int:
    import sys
    from ..cli import UserError
    from ..report import ReportSettings, build_report
    if args.seed < 0:
        raise UserError(f"--seed must be non-negative, got {args.seed}")
    from vale_sim.games.mystic_vale.cards import load_card_set
    from ..io import check_output
    cs = load_card_set(args.card_set)            # CardSetError -> exit 2 before any game runs
    check_output(args.out, "dir", "--out")       # an unwritable --out fails before any game runs
    from vale_sim.games.mystic_vale.policy import PolicyError
    from ..robustness import resolve_baseline
    try:
        settings = ReportSettings.make(quick=args.quick, engine=args.engine, seed=args.seed,
                                       card_set=args.card_set, robust_baseline=args.baseline)
        for p in sorted(set(settings.pool_players) | {settings.adv_players}):
            resolve_baseline(args.baseline, p, cs)        # buy rules name cards of the set
    except PolicyError as e:              # the only policy the report takes is --baseline
        raise UserError(f"--baseline {args.baseline}: {e}") from None
    except ValueError as e:
        raise UserError(str(e)) from None
    m = build_report(args.out, settings, progress=not args.quiet)
    print(f"{args.out}/index.html  ({m['seconds']:.0f} s, engine {m['engine']}, size {m['size']})",
          file=sys.stdout)
    return 0
