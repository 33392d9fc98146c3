"""Options and output shared by the Mystic Lands study commands
(``seat-compensation``, ``end-trigger``, ``market-growth``, ``wither-rain``):
each takes ``--game mystic-lands``, prints text tables (or ``--json``) and
writes its figure with ``--plot DIR``."""
from __future__ import annotations

import json
import sys


def add_common(p, deals: int | None, seed: int, deals_help: str | None = None) -> None:
    from vale_sim.limits import count, seed as seed_type
    p.add_argument("--deals", type=count(2, "deals"), default=deals,
                   help=deals_help or f"deals per variant, played under every variant "
                                      f"(default {deals})")
    p.add_argument("--seed", type=seed_type, default=seed, help=f"master seed (default {seed})")
    p.add_argument("--set", dest="card_set", default=None, help="card set name or file "
                   "(default: the game's bundled set)")
    p.add_argument("--engine", default="auto", choices=("auto", "fast", "reference"),
                   help="auto (default): the fast engine when the game has one, else reference")
    p.add_argument("--workers", type=int, default=1, help="local worker processes, 1 to 4 x the cores (default 1)")
    p.add_argument("--json", action="store_true", help="the study as one JSON object")
    p.add_argument("--plot", metavar="DIR", default=None, help="also write the figure (PNG) to DIR")
    from vale_sim.io import add_force_option
    add_force_option(p)


def check_common(args) -> None:
    """Everything a user may get wrong, before any game is played (one line, exit 2)."""
    from vale_sim.errors import UserError
    from vale_sim.io import check_outputs, check_workers
    check_outputs((args.plot, "dir", "--plot"))
    if args.plot:                       # the figure finish() writes: DIR/<study>.png
        from pathlib import Path
        from vale_sim.io import check_replaceable_file
        check_replaceable_file(Path(args.plot) / f"{args.command}.png", "--plot", args.force)
    check_workers(args.workers)
    if args.deals is not None and args.deals < 2:
        raise UserError(f"--deals must be at least 2, got {args.deals}")
    if args.seed < 0:
        raise UserError(f"--seed must be non-negative, got {args.seed}")
    if args.card_set is not None:
        from vale_sim.games import get_game
        get_game("mystic-lands").load_card_set(args.card_set)


def values(text: str, option: str, kind=int) -> list:
    """``"20,30"`` -> [20, 30]; a bad list is one line naming the option."""
    from vale_sim.errors import UserError
    from vale_sim.inputs import parse_int
    if kind is int:               # ASCII digits only (int() also takes 1_0, +3, '\uff12')
        kind = lambda x: parse_int(x, negative=True)   # noqa: E731
    try:
        return [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"{option} must be a comma-separated list of whole numbers, "
                        f"got {text!r}") from None


def finish(args, study, text: str, figure) -> int:
    """Print the text or the JSON, then write the figure (atomically): a full disk
    loses none of the results."""
    if args.json:
        json.dump(study.to_json(), sys.stdout, indent=1)
        print()
    else:
        print(text)
    if args.plot:
        from pathlib import Path
        from vale_sim.errors import UserError
        from vale_sim.io import os_error_message, save_figure
        sys.stdout.flush()
        d = Path(args.plot)
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UserError(os_error_message(e, d)) from None
        fig, caption = figure(study)
        save_figure(fig, d / f"{study_name(study)}.png", dpi=110, bbox_inches="tight")
    return 0


def study_name(study) -> str:
    return getattr(study, "name", None) or "seat-compensation"


def progress(args) -> bool:
    return not args.json and sys.stderr.isatty()
