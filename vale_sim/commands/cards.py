"""``vale-sim cards``: print a card set with where each number comes from.

The listing is the game's (``Game.describe_cards``: text lines, or with
``--json`` every number with its value and source); ``--csv`` exports the set
when the game can (``Game.export_cards``).
"""
from __future__ import annotations

import json
import sys


def add_parser(sub) -> None:
    p = sub.add_parser("cards", help="show a card set (with where each number comes from)",
                       description="Print a card set as a table: starting cards, advancements "
                                   "and vales, each with its source (rulebook, review, fan-list, "
                                   "estimate, user) and the numbers whose source differs; then "
                                   "the count of numbers per source. --json prints every number "
                                   "with its source; --csv also exports the set as CSV.")
    p.add_argument("--set", default=None, metavar="NAME|FILE",
                   help="card set: a bundled name or a file (default: the game's, e.g. "
                        "core, starter or a .toml/.csv file)")
    p.add_argument("--csv", metavar="OUT", help="write the set as CSV to OUT")
    p.add_argument("--json", action="store_true",
                   help="print the set as JSON: every number with its value and source")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)



def run(args) -> int:
    from ..cli import UserError, command_game
    from ..io import check_outputs
    g = command_game(args)
    if g.describe_cards is None:
        raise UserError(f"cards is not available for {g.name} (no card listing); drop it")
    if args.csv and g.export_cards is None:
        raise UserError(f"--csv is not available for {g.name}; drop it (use --json)")
    check_outputs((args.csv, "file", "--csv"), force=args.force)
    cs = g.load_card_set(args.set or g.default_card_set)
    if args.json:
        print(json.dumps(g.describe_cards(cs, as_json=True), indent=1))
    else:
        print("\n".join(g.describe_cards(cs)))
    if args.csv:
        from ..io import atomic_path
        with atomic_path(args.csv) as tmp:          # never a half-written CSV
            g.export_cards(cs, tmp)
        print(f"\nwrote {args.csv}", file=sys.stderr if args.json else sys.stdout)
    return 0
