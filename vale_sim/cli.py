"""The ``vale-sim`` command line.

Each sub-command lives in ``vale_sim/commands/<name>.py`` and exposes
``add_parser(subparsers)``, which registers the parser and sets ``func``.
Errors a user can fix (bad card file, unknown policy, bad config) exit with
status 2 and a one-line message; nothing half-written is left behind.

Every command takes ``--game mystic-vale|mystic-lands`` (default mystic-vale,
added to each sub-parser by :func:`add_game_option`); ``main`` resolves it
with :func:`command_game` before the command runs.  ``play``, ``simulate``,
``tournament``, ``bench`` and ``run`` apply to every game; the other commands
are studies of the games that list them in ``Game.studies`` and exit 2 with
one line for any other game.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import re
import sys

from . import __version__
from .errors import Terminated, UserError
from .games import DEFAULT_GAME, GAMES, get_game
from .limits import Parser          # one-line argparse errors (the counts and seeds are its types)

COMMANDS = ("cards", "play", "simulate", "bench", "spoil_odds", "tournament",
            "advancements", "pools", "run", "report", "golden", "optimize", "exploit", "wither_odds",
            "seat_compensation", "end_trigger", "market_growth", "wither_rain", "what_if", "balance")


#: Commands every game has; the others are studies (``Game.studies``).
SHARED_COMMANDS = ("play", "simulate", "tournament", "bench", "what-if", "balance", "run")


def add_game_option(p: argparse.ArgumentParser) -> None:
    """``--game``: the one option every command shares (default mystic-vale; a
    study of another game says which --game to add)."""
    p.add_argument("--game", default=DEFAULT_GAME, metavar="|".join(GAMES),
                   help=f"the game to play or study (default {DEFAULT_GAME})")


def command_game(args):
    """The :class:`~vale_sim.games.base.Game` of ``args.game`` for ``args.command``;
    a UserError (one line) when the game is unknown or missing, or the command
    does not apply to it."""
    name = getattr(args, "game", None)
    try:                          # an empty --game "" is refused, not read as the default
        g = get_game(DEFAULT_GAME if name is None else name)
    except ValueError as e:
        raise UserError(f"--game: {e}") from None
    cmd = str(getattr(args, "command", "") or "").replace("_", "-")
    if cmd and cmd not in SHARED_COMMANDS and cmd not in g.studies:
        owners = [o for o in (_game_or_none(n) for n in GAMES) if o and cmd in o.studies]
        if owners:
            raise UserError(f"{cmd} does not apply to {g.name}: it is a {owners[0].title} "
                            f"study; add --game {owners[0].name}")
        raise UserError(f"{cmd} is not a command of {g.name}; with --game {g.name} use "
                        f"{', '.join(SHARED_COMMANDS[:-1])} or {SHARED_COMMANDS[-1]}"
                        + "".join(f", {s}" for s in g.studies if " " not in s))
    return g


def _game_or_none(name: str):
    try:
        return get_game(name)
    except ValueError:
        return None


def require_study(g, study: str) -> None:
    """A UserError unless game ``g`` has ``study`` (e.g. "bench --spoil")."""
    if study not in g.studies:
        raise UserError(f"{study} does not apply to {g.name} (a {get_game(DEFAULT_GAME).title} "
                        f"study); drop it or use --game {DEFAULT_GAME}")


def check_players(g, players: int, option: str = "--players") -> int:
    """``players`` if game ``g`` plays that many; else a UserError naming the option
    (not the card file: the count is the mistake)."""
    allowed = tuple(g.players)
    if players not in allowed:
        words = ", ".join(map(str, allowed[:-1])) + f" or {allowed[-1]}" if len(allowed) > 1 \
            else str(allowed[0])
        raise UserError(f"{option} must be {words} for {g.title} (got {players})")
    return players


def plain_text(text):
    """Help text without reStructuredText markup: ``code`` -> code,
    :role:`target` -> target (docstrings feed some of the help)."""
    if not isinstance(text, str):
        return text
    text = re.sub(r":[a-z]+(?::[a-z]+)?:`~?([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", text)
    return re.sub(r"``([^`]+)``", r"\1", text)


def _plain_help(parser: argparse.ArgumentParser) -> None:
    """:func:`plain_text` on the description, epilog and every help of ``parser``
    and its sub-parsers."""
    parser.description, parser.epilog = plain_text(parser.description), plain_text(parser.epilog)
    for action in parser._actions:
        action.help = plain_text(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = plain_text(choice.help)
            for sub in action.choices.values():
                _plain_help(sub)


def game_rules(g, **options):
    """``g.rules_class`` with the rule options given on the command line (None:
    not given).  An option the game does not have is a UserError."""
    import dataclasses
    names = {f.name for f in dataclasses.fields(g.rules_class)}
    for k, v in options.items():
        if v is not None and k not in names:
            raise UserError(f"--{k.replace('_', '-')} is not a rule option of {g.name}; drop it")
    try:
        return g.rules_class(**{k: v for k, v in options.items() if v is not None})
    except (TypeError, ValueError) as e:
        raise UserError(str(e)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="vale-sim", description=__doc__.splitlines()[0])
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
    for p in sub.choices.values():
        add_game_option(p)
    _plain_help(parser)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    try:
        # Every option is checked here (counts, seeds: vale_sim.limits), before any game.
        args = parser.parse_args(argv)
    except SystemExit as e:          # --help, --version (0) or a bad option (2, one line)
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    errors: tuple = (UserError,)
    try:
        with _sigterm_as_interrupt():
            g = command_game(args)
            errors += tuple(g.user_errors)
            rc = args.func(args)
    except errors as e:
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
        how = " (SIGTERM)" if isinstance(e, Terminated) else ""
        print(f"vale-sim {args.command}: interrupted{how}", file=sys.stderr)
        return getattr(e, "exit_status", 130)
    return rc or 0


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """While a command runs, SIGTERM raises :class:`~vale_sim.errors.Terminated` (a
    KeyboardInterrupt): every command then stops as on Ctrl-C -- its temporary
    files removed, what it finished kept for a resume -- and exits 143 with a line."""
    import signal
    import threading

    def handler(signum, frame):
        raise Terminated()
    try:
        if threading.current_thread() is not threading.main_thread():
            raise ValueError("not the main thread")
        old = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):                # not the main thread: leave SIGTERM alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


if __name__ == "__main__":
    sys.exit(main())
