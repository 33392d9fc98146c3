"""The ``vale-sim`` command line.

Each sub-command lives in ``vale_sim/commands/<name>.py`` and exposes
``add_parser(subparsers)``, which registers the parser and sets ``func``.
Errors a user can fix (bad card file, unknown policy, bad config) exit with
status 2 and a one-line message; nothing half-written is left behind.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__

COMMANDS = ("cards", "play", "simulate", "bench", "spoil_odds", "tournament",
            "advancements", "pools", "run", "report", "golden", "optimize", "wither_odds")


class UserError(Exception):
    """An error caused by the user's input; printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vale-sim", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"vale-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            mod = importlib.import_module(f"vale_sim.commands.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"vale_sim.commands.{name}":
                continue          # not built yet
            raise
        mod.add_parser(sub)
    return parser


def main(argv=None) -> int:
    from .cards import CardSetError
    from .policy import PolicyError
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        rc = args.func(args)
    except (UserError, CardSetError, PolicyError) as e:
        print(f"vale-sim {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:                      # e.g. `vale-sim play | head`
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:
        # A path the commands did not check up front (vale_sim.io checks the
        # outputs before any game runs): still one line naming it, exit 2.
        from .io import os_error_message
        print(f"vale-sim {args.command}: error: {os_error_message(e, verb=None)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        print(f"vale-sim {args.command}: interrupted", file=sys.stderr)
        return getattr(e, "exit_status", 130)
    return rc or 0


if __name__ == "__main__":
    sys.exit(main())
