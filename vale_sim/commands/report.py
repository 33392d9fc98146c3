"""``vale-sim report``: the balance report on the bundled defaults.

Builds the game's report folder (``--out``; default its report's
``DEFAULT_OUT``, e.g. ``results/report/``): ``index.html`` (self-contained),
``report.md`` with PNG figures, tables as CSV, ``manifest.json``.
``--index DIR`` writes ``DIR/index.html`` linking every report in DIR.  See
docs/report.md; the sections are the game's (``Game.report``).
"""
from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="build the balance report (HTML + Markdown + CSV)",
                       description="Build the balance report of the game: its sections (for "
                                   "the default game: card set and sources, spoil odds, strategy "
                                   "tournament, advancement values, pool sizes by player count, "
                                   "seat advantage, robustness, exploitability), an executive "
                                   "summary and the run manifest.  Default size finishes in "
                                   "under ten minutes on two cores with the fast engine; --quick "
                                   "in about a minute.")
    p.add_argument("--quick", action="store_true", help="a smaller, faster report (about a minute)")
    p.add_argument("--out", default=None, help="output folder (default: the game's, results/report/ "
                   "for the default game, results/report-GAME/ for the others)")
    from ..limits import seed
    p.add_argument("--seed", type=seed, default=1, help="master seed (default 1)")
    p.add_argument("--set", dest="card_set", default=None,
                   help="card set (default: the game's bundled set)")
    p.add_argument("--index", metavar="DIR", default=None,
                   help="only write DIR/index.html linking every report folder in DIR (no games)")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast (default; falls back to reference with small sizes) or reference")
    from ..strong_field import field_help
    p.add_argument("--baseline", default=None, metavar="NAME|FILE",
                   help="the strong field of the headline seat and pool verdicts and of the "
                        "section 'Robust to the bots?': card strengths and pool sizes are "
                        "played again with it on the same deals.  A preset, a bundled policy "
                        "or a policy .toml file; {P} stands for the player count (default "
                        f"{field_help()}: the bundled meta-game equilibria, docs/meta.md)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import sys
    from ..cli import UserError
    from ..games import get_game
    from ..report import build_report, game_report, write_index
    from ..io import check_output
    if args.index is not None:
        path = write_index(args.index, force=args.force)
        print(path)
        return 0
    if args.seed < 0:
        raise UserError(f"--seed must be non-negative, got {args.seed}")
    g = get_game(args.game)
    try:
        mod = game_report(g)
    except ValueError as e:
        raise UserError(str(e)) from None
    card_set = args.card_set or g.default_card_set
    out = args.out or mod.DEFAULT_OUT
    cs = g.load_card_set(card_set)               # CardSetError -> exit 2 before any game runs
    check_output(out, "dir", "--out")            # an unwritable --out fails before any game runs
    try:
        settings = mod.settings_from_args(args, card_set, cs)
    except ValueError as e:
        raise UserError(str(e)) from None
    args.out = out
    m = build_report(out, settings, progress=not args.quiet, game=g.name)
    print(f"{args.out}/index.html  ({m['seconds']:.0f} s, engine {m['engine']}, size {m['size']})",
          file=sys.stdout)
    return 0
