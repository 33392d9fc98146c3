"""The ``vale-sim`` command line.

Each sub-command lives in ``vale_sim/commands/<name>.py`` and exposes
``add_parser(subparsers)``, which registers the parser and sets ``func``.
Errors a user can fix (bad card file, unknown policy, bad config) exit with
status 2 and a one-line message; nothing half-written is left behind.

Every command takes ``--game`` (one of the registered games, default the
registry's first; added to each sub-parser by :func:`add_game_option`); ``main``
resolves it with :func:`command_game` before the command runs.  ``play``,
``simulate``, ``tournament``, ``bench`` and ``run`` apply to every game; the
other commands are the studies (:class:`vale_sim.study.Study` records) of the
games that list them in ``Game.studies`` and exit 2 with one line for any other
game.
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

#: Commands every game has; the others are studies (``Game.studies``).
SHARED_COMMANDS = ("play", "simulate", "tournament", "bench", "serve", "run")


def command_modules() -> list:
    """The modules whose ``add_parser`` builds a sub-command: the shared commands,
    then the parsers of every registered game's studies (each once)."""
    from .study import SHARED, studies_of
    mods = [f"vale_sim.commands.{name}" for name in SHARED_COMMANDS]
    recs = list(SHARED)
    for n in GAMES:
        g = _game_or_none(n)
        if g is not None:
            recs.extend(studies_of(g))
    for r in recs:                 # an option study ("bench --spoil") adds to its command
        if r.parser and " " not in (r.command or "") and r.parser not in mods:
            mods.append(r.parser)
    return mods


def add_game_option(p: argparse.ArgumentParser) -> None:
    """``--game``: the one option every command shares (default the registry's first game; a
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
    from .study import find, owners, studies_of
    cmd = str(getattr(args, "command", "") or "").replace("_", "-")
    if cmd and cmd not in SHARED_COMMANDS and find(g, command=cmd) is None:
        have = owners(command=cmd)
        if have:
            raise UserError(f"{cmd} does not apply to {g.name}: it is a {have[0].title} "
                            f"study; add --game {have[0].name}")
        raise UserError(f"{cmd} is not a command of {g.name}; with --game {g.name} use "
                        f"{', '.join(SHARED_COMMANDS[:-1])} or {SHARED_COMMANDS[-1]}"
                        + "".join(f", {s.command}" for s in studies_of(g)
                                  if s.command and " " not in s.command
                                  and s.command not in SHARED_COMMANDS))
    return g


def _game_or_none(name: str):
    try:
        return get_game(name)
    except ValueError:
        return None


def require_study(g, command: str):
    """The study of game ``g`` whose command line is ``command`` (e.g. an option of a
    shared command, "bench --spoil"); a UserError naming a game that has it if ``g``
    has not."""
    from .study import find, owners
    rec = find(g, command=command)
    if rec is None:
        have = owners(command=command)
        where = (f" (a {have[0].title} study); drop it or use --game {have[0].name}" if have
                 else f"; drop it")
        raise UserError(f"{command} does not apply to {g.name}{where}")
    return rec


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


def add_rule_options(p: argparse.ArgumentParser) -> None:
    """The rule options of every registered game as flags of ``p``: each field of a
    game's ``rules_class`` whose metadata has ``"flag"`` (``--field-name``; its
    ``choices`` or ``range``, ``metavar``, ``help``), default None (the game's)."""
    import dataclasses
    from .limits import int_range
    seen = set()
    for n in GAMES:
        g = _game_or_none(n)
        if g is None:
            continue
        for f in dataclasses.fields(g.rules_class):
            flag = (f.metadata or {}).get("flag")
            if flag is None or f.name in seen:
                continue
            seen.add(f.name)
            kw = {"default": None, "dest": f.name,
                  "help": f"{g.title} rule option{flag.get('help', '')}"}
            if "choices" in f.metadata:
                kw["choices"] = tuple(f.metadata["choices"])
            elif "range" in f.metadata:
                kw["type"] = int_range(*f.metadata["range"], flag.get("what", "value"))
            if "metavar" in flag:
                kw["metavar"] = flag["metavar"]
            p.add_argument("--" + f.name.replace("_", "-"), **kw)


def rule_options(args) -> dict:
    """The rule options given on the command line (:func:`add_rule_options`)."""
    import dataclasses
    names = set()
    for n in GAMES:
        g = _game_or_none(n)
        if g is not None:
            names |= {f.name for f in dataclasses.fields(g.rules_class)
                      if "flag" in (f.metadata or {})}
    return {k: getattr(args, k) for k in sorted(names) if getattr(args, k, None) is not None}


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


def keep_for_resume(args, path, what: str) -> None:
    """Register checkpoint ``path`` of the running command: on Ctrl-C or SIGTERM
    :func:`main` then says, when the file exists, that ``what`` is kept there and the
    exact command that continues (the same one with ``--resume``)."""
    args._kept_for_resume = (str(path), what)


def _resume_note(args) -> str | None:
    """The line :func:`main` prints after an interruption (None: nothing kept)."""
    import os
    import shlex
    kept = getattr(args, "_kept_for_resume", None)
    if not kept or not os.path.exists(kept[0]):
        return None
    argv = list(getattr(args, "_argv", None) or [args.command])
    if "--resume" not in argv:
        argv.append("--resume")
    return (f"vale-sim {args.command}: {kept[1]} are kept in {kept[0]}; to continue, run "
            f"the same command with --resume: vale-sim {shlex.join(argv)}")


def add_scheduler_options(p, group=None, what: str = "play the games") -> None:
    """``--scheduler`` (in ``group``, e.g. exclusive with ``--workers``) and its
    ``--connect-timeout`` and ``--worker-timeout``: every command that takes a Dask
    scheduler takes all three (the one-line messages about a scheduler name them).
    :func:`scheduler_of` reads them."""
    from .runner import DEFAULT_CONNECT_TIMEOUT, DEFAULT_WORKER_TIMEOUT
    (group or p).add_argument(
        "--scheduler", default=None, metavar="ADDRESS",
        help=f"{what} on an existing Dask cluster, e.g. tcp://host:8786 (the same result "
             f"as locally)")
    p.add_argument("--connect-timeout", type=float, default=DEFAULT_CONNECT_TIMEOUT,
                   metavar="SECONDS",
                   help=f"with --scheduler: give up reaching it after this many seconds "
                        f"(default {DEFAULT_CONNECT_TIMEOUT:g})")
    p.add_argument("--worker-timeout", type=float, default=DEFAULT_WORKER_TIMEOUT,
                   metavar="SECONDS",
                   help=f"with --scheduler: stop (one line, exit 2) when the scheduler has had "
                        f"no workers for this many seconds, at the start or after every worker "
                        f"left (default {DEFAULT_WORKER_TIMEOUT:g})")


def scheduler_of(args):
    """The :class:`vale_sim.runner.Scheduler` of :func:`add_scheduler_options`' options
    (None without ``--scheduler``); a UserError for a timeout out of range or given
    without ``--scheduler``."""
    from .runner import Scheduler
    if not args.connect_timeout > 0 or args.connect_timeout > 3600:
        raise UserError(f"--connect-timeout must be in (0, 3600] seconds, got {args.connect_timeout}")
    if not args.worker_timeout > 0 or args.worker_timeout > 86400:
        raise UserError(f"--worker-timeout must be in (0, 86400] seconds, got {args.worker_timeout}")
    check_needs(args, ("--connect-timeout", args.scheduler is not None, "needs --scheduler"),
                ("--worker-timeout", args.scheduler is not None, "needs --scheduler"))
    if args.scheduler is None:
        return None
    return Scheduler(args.scheduler, args.connect_timeout, args.worker_timeout)


def given(args) -> set:
    """The options given on the command line, by their ``dest`` (``main`` records them:
    an option left at its default is not given, even when the default is true).  A
    namespace not made by ``main`` has none recorded: the empty set."""
    return set(getattr(args, "given_options", ()) or ())


def check_needs(args, *rules) -> None:
    """Refuse an option that would be silently ignored: each rule is ``(option, ok,
    why)``; an ``option`` (e.g. "--numbers") given on the command line while ``ok`` is
    false is a UserError "OPTION WHY; drop OPTION" (``why`` e.g. "needs --draft")."""
    have = given(args)
    for option, ok, why in rules:
        dest = option.lstrip("-").replace("-", "_")
        if dest in have and not ok:
            raise UserError(f"{option} {why}; drop {option}")


def _given_options(parser, argv) -> set:
    """The dests of ``argv``'s command whose options were given (parsed again with every
    default suppressed; the first parse has succeeded, so this one does too)."""
    sub = None
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            sub = action
    argv = list(sys.argv[1:] if argv is None else argv)
    names = [a for a in argv if a in (sub.choices if sub else {})]
    if not names:
        return set()
    cmd = sub.choices[names[0]]
    tail = argv[argv.index(names[0]) + 1:]
    saved = [(a, a.default) for a in cmd._actions]
    keep = dict(cmd._defaults)
    try:
        for a in cmd._actions:
            a.default = argparse.SUPPRESS
        cmd._defaults.clear()
        ns, _ = cmd.parse_known_args(tail, argparse.Namespace())
    except SystemExit:                  # pragma: no cover - the first parse accepted it
        return set()
    finally:
        for a, d in saved:
            a.default = d
        cmd._defaults.update(keep)
    return set(vars(ns))


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="vale-sim", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"vale-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules():
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
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
    args._argv = list(sys.argv[1:] if argv is None else argv)
    args.given_options = _given_options(parser, argv)     # cli.given: refuse ignored options
    errors: tuple = (UserError,)
    try:
        with _sigterm_as_interrupt(), _stdout_named():
            g = command_game(args)
            errors += tuple(g.user_errors)
            rc = args.func(args)
            sys.stdout.flush()              # a full disk behind stdout fails here, named
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
        print(f"vale-sim {args.command}: error: {os_error_message(e, verb=None)}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        how = " (SIGTERM)" if isinstance(e, Terminated) else ""
        note = _resume_note(args)
        if note:
            print(note, file=sys.stderr)
        print(f"vale-sim {args.command}: interrupted{how}", file=sys.stderr)
        return getattr(e, "exit_status", 130)
    return rc or 0


class _NamedStdout:
    """``sys.stdout`` while a command runs: an OSError writing it (``--json >
    /dev/full``) names "standard output (TARGET)" as its file (it named none:
    the error read "cannot write ?").  Everything else is the stream's own."""

    def __init__(self, stream):
        self._stream = stream

    def _named(self, e: OSError) -> OSError:
        import os
        if e.filename is None:
            name = "standard output"
            try:
                target = os.path.realpath(f"/proc/self/fd/{self._stream.fileno()}")
                if target.startswith("/") and not target.startswith("/proc/"):
                    name += f" ({target})"
                os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
            except (OSError, ValueError, AttributeError):
                pass                   # no file descriptor (a test's capture)
            e.filename = name          # and Python's flush at exit does not fail again
        return e

    def write(self, text):
        try:
            return self._stream.write(text)
        except OSError as e:
            raise self._named(e) from None

    def flush(self):
        try:
            return self._stream.flush()
        except OSError as e:
            raise self._named(e) from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def _stdout_named():
    real = sys.stdout
    sys.stdout = _NamedStdout(real)
    try:
        yield
    finally:
        if isinstance(sys.stdout, _NamedStdout):
            sys.stdout = real


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
