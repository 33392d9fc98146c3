"""``vale-sim luck``: a skill-luck index and where the outcome's variance comes from
(vale_sim.luck; docs/luck.md)."""
from __future__ import annotations

import sys


def add_parser(sub) -> None:
    from ..limits import count, seed
    from ..luck import DEFAULT_BOOTSTRAP, DEFAULT_DEALS
    p = sub.add_parser(
        "luck", help="how much is skill, how much luck: a skill-luck index and the variance "
                     "shares of the deal, the line-up and their interaction",
        description="Every line-up of a ladder of bots (one player of a level against P - 1 "
                    "of a level; default: random buying where the game has it, the default "
                    "bot, lookahead, the optimised bot, the meta field, the strongest bundled "
                    "field) on the same deals, the focal player at every player slot.  Prints "
                    "the skill-luck index in the form of Silver (2025), from -1 (pure luck) to "
                    "+1 (pure skill), the share of the outcome's variance due to the line-up, "
                    "the deal, their interaction and the focal player's slot, each with a 95% "
                    "interval (bootstrap over deals), the same with the field fixed at each "
                    "level, and whether a split by source of randomness is possible.  "
                    "docs/luck.md.")
    p.add_argument("--players", type=int, required=True, choices=(2, 3, 4), help="2, 3 or 4")
    p.add_argument("--deals", type=count(2, "deals"), default=DEFAULT_DEALS,
                   help=f"common deals (default {DEFAULT_DEALS}); every line-up plays each "
                        f"once per player slot")
    p.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    p.add_argument("--level", action="append", default=None, metavar="NAME|FILE",
                   help="a level of the ladder, weakest first (repeat; 'random': random "
                        "buying; {P} stands for the player count); default the ladder above")
    p.add_argument("--set", default=None, help="card set: a bundled name or a file "
                                               "(default: the game's)")
    p.add_argument("--bootstrap", type=count(20, "resamples"), default=DEFAULT_BOOTSTRAP,
                   help=f"bootstrap resamples of the deals (default {DEFAULT_BOOTSTRAP})")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast (numba; falls back to reference) or reference (default fast)")
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument("--out", default=None, metavar="FILE.json",
                   help="also write the result as JSON to this file")
    p.add_argument("--json", action="store_true", help="print the result as JSON (shares "
                                                       "as fractions)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..games import get_game
    from ..io import atomic_write, check_outputs, check_workers, dumps
    from .. import luck as LK
    g = get_game(args.game)
    check_outputs((args.out, "file", "--out"), force=args.force)      # before any game
    check_workers(args.workers)
    r = LK.luck(g.name, args.players, args.deals, args.seed, args.level, args.set,
                args.engine, args.workers, progress=(not args.no_progress and not args.json
                          and sys.stderr.isatty()),
                reps=args.bootstrap)
    r["command"] = command_line(args)
    r["written_by"] = "vale-sim luck"
    doc = dumps(r, sort_keys=True)
    if args.out:
        atomic_write(args.out, dumps(r, sort_keys=True, indent=1) + "\n")
    print(doc if args.json else LK.text(r))
    return 0


def command_line(args) -> str:
    """The options that made the result (recorded in it), as a ``vale-sim luck`` line."""
    from ..games import get_game
    out = ["vale-sim luck", f"--game {get_game(args.game).name}", f"--players {args.players}"]
    out += [f"--deals {args.deals}", f"--seed {args.seed}"]
    out += [f"--level {x}" for x in args.level or ()]
    if args.set:
        out.append(f"--set {args.set}")
    if args.bootstrap != 400:
        out.append(f"--bootstrap {args.bootstrap}")
    return " ".join(out)
