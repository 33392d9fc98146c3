"""``vale-sim curve``: one card played at every value of one of its numbers -- its price
curve and balanced range (docs/curve.md)."""
from __future__ import annotations

import json
import sys

from ..limits import count as _count, seed as _seed

GAMES_TYPE, SEED_TYPE = _count(2), _seed
FIGURE_SUFFIXES = (".png", ".svg", ".pdf")


def add_parser(sub) -> None:
    from ..advancements import ESTIMANDS
    from ..curve import DEFAULT_GAMES
    from ..strong_field import ESTIMAND, field_help
    p = sub.add_parser(
        "curve", help="what should a card cost? play it at every value of one number: "
                      "value, verdict and the balanced range",
        description="Play the card set with one number of one card (its cost, end VP, "
                    "mana, ...) set to each value in turn, on the same deals and under the "
                    f"same field ({field_help()} by default, as advancements, what-if and "
                    "balance); for each value the card tables' estimates -- natural value, "
                    "value per pick, forced value, the share of games in which the field "
                    "buys it, each with its interval and n -- and their verdict "
                    "(over/under/balanced/inconclusive, the correction across the values); "
                    "then the balanced range: the values balanced at every player count "
                    "asked.  A card never bought at its printed value: where it starts to be "
                    "bought and where it becomes balanced.  docs/curve.md.")
    p.add_argument("--card", required=True, metavar="NAME",
                   help="the card (a card a player buys, as `vale-sim cards` names it)")
    p.add_argument("--number", required=True, metavar="cost|end_vp|mana|...",
                   help="the number of the card to vary: one what-if may edit "
                        "(docs/what-if.md; an unknown one is answered with the card's list)")
    p.add_argument("--values", default=None, metavar="LO..HI",
                   help="the values to play: LO..HI or A,B,C (default: printed - 3 .. "
                        "printed + 3 for a cost, printed - 2 .. printed + 3 otherwise, "
                        "clipped at 0 and the number's limits)")
    p.add_argument("--players", default="2", metavar="2,3,4",
                   help="player counts, comma-separated (default 2); the balanced range is "
                        "balanced at every one")
    p.add_argument("--set", default=None, help="card set: a bundled name or a file "
                                               "(default: the game's)")
    p.add_argument("--games", type=GAMES_TYPE, default=DEFAULT_GAMES,
                   help=f"games per value, player count and arm (natural, prefer, ban): "
                        f"deals x players (default {DEFAULT_GAMES})")
    p.add_argument("--seed", type=SEED_TYPE, default=0, help="master seed (default 0)")
    p.add_argument("--baseline", default=None, metavar="NAME|FILE",
                   help=f"the field: a preset, a bundled policy or a policy file; {{P}} "
                        f"stands for the player count (default {field_help()})")
    p.add_argument("--estimand", choices=sorted(ESTIMANDS), default=ESTIMAND,
                   help=f"what the verdicts rest on: natural (default {ESTIMAND}, as in "
                        f"advancements, what-if and balance) or prefer (the forced value)")
    p.add_argument("--tolerance", type=float, default=5.0, metavar="PP",
                   help="verdict band, as in advancements (default 5)")
    p.add_argument("--margin", type=float, default=2.0, metavar="PP",
                   help="'balanced' margin, as in advancements (default 2)")
    p.add_argument("--correction", choices=("fdr_bh", "holm", "bonferroni"), default="fdr_bh",
                   help="multiplicity correction across the values of a player count "
                        "(default fdr_bh, as the card tables across their cards)")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast (numba; falls back to reference) or reference (default fast)")
    p.add_argument("--workers", type=_count(1, "workers"), default=1,
                   help="local worker processes (default 1)")
    p.add_argument("--checkpoint", default=None, metavar="FILE.json",
                   help="keep every finished value here (one line appended after each): "
                        "Ctrl-C loses none of them")
    p.add_argument("--resume", action="store_true",
                   help="reuse the values of --checkpoint (same options)")
    p.add_argument("--out", default=None, metavar="FIG.png|svg|pdf",
                   help="save the figure: value on x, natural value with its interval band, "
                        "the balanced range shaded, the printed value marked (written after "
                        "the results are printed)")
    p.add_argument("--json", action="store_true",
                   help="print the result as JSON: one row per value and player count "
                        "(fractions; x_ci = [lo, hi])")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..cli import UserError, keep_for_resume
    from ..games import get_game
    from ..io import check_output, check_outputs, check_workers
    from .what_if import _players
    from .. import curve as C
    g = get_game(args.game)
    if args.out is not None:
        from pathlib import Path
        if Path(args.out).suffix.lower() not in FIGURE_SUFFIXES:
            raise UserError(f"--out {args.out}: a figure is a .png, .svg or .pdf file; give "
                            f"such a name")
    check_outputs((args.out, "file", "--out"), force=args.force)     # before any game
    if args.checkpoint:               # --resume reads and checks it; else it is replaced
        check_output(args.checkpoint, "file", "--checkpoint", force=args.force,
                     ours=True if args.resume else None)
    if args.resume and not args.checkpoint:
        raise UserError("--resume needs --checkpoint FILE (the earlier run's)")
    check_workers(args.workers)
    if not 0 <= args.tolerance < 100:
        raise UserError(f"--tolerance must be from 0 to 100 percentage points, got "
                        f"{args.tolerance}")
    if not 0 < args.margin < 100:
        raise UserError(f"--margin must be above 0 and below 100 percentage points, got "
                        f"{args.margin}")
    players = _players(args.players, g)
    pl = C.plan(args.card, args.number, args.values, players, g.name, args.set, args.games,
                args.seed, args.baseline, args.estimand, args.correction)
    if args.checkpoint:
        keep_for_resume(args, args.checkpoint, "the finished values")
    bar = _bar(args, len(pl["values"]) * len(pl["players"]))
    try:
        df = C.price_curve(args.card, args.number, args.values, players, g.name, args.set,
                           args.games, args.seed, args.baseline, None, args.engine,
                           args.workers, tolerance=args.tolerance / 100,
                           margin=args.margin / 100, correction=args.correction,
                           estimand=args.estimand, progress=bar, checkpoint=args.checkpoint,
                           resume=args.resume, command=_command(args))
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        print(json.dumps(C.curve_json(df), sort_keys=True))
    else:
        print(C.curve_text(df))
    if args.out:                      # the results are printed before the figure is written
        from ..io import save_figure
        from ..plots.curve import plot_curve
        sys.stdout.flush()
        save_figure(plot_curve(df), args.out, dpi=120, bbox_inches="tight")
    return 0


def _command(args) -> str:
    import shlex
    argv = list(getattr(args, "_argv", None) or ["curve"])
    return "vale-sim " + shlex.join(argv)


def _bar(args, total: int):
    """A tqdm bar over the values played (values x player counts); None off a terminal
    and with --json."""
    if not sys.stderr.isatty() or args.json:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc="curve", unit="value", leave=False, file=sys.stderr)
