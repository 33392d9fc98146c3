"""One cap for every count a user gives, and the argparse types that apply it.

Every count option of every command (``--games``, ``--deals``, ``--repeats``,
``--budget``, ``--chunk-size``, ``--popsize``, ...; both games) and every count
key of a study config (``games``, ``deals``, ...) is a whole number of at most
:data:`MAX_COUNT` = 10^8 per setting, checked while the command line (or the
config file) is read, so before any game is played.  A count above the cap is
one line stating the cost it would have had (at the fast engine's ~50,000
games/s on one core, docs/speed.md).  Seeds (and game indices) are whole numbers
0 .. 2**64 - 1, the range of the 64-bit random stream (:mod:`vale_sim.rng`).
docs/runs.md, "Limits checked before anything runs".

The argparse types raise :class:`argparse.ArgumentTypeError`; :class:`Parser`
(the parser of ``vale_sim.cli`` and of the games' small command lines) prints it
as one line (``vale-sim simulate: error: argument --games: ...``) and exits with
status 2.  :func:`check_count` is the same rule for a count that does not come
from argparse (a UserError naming it), :func:`count_problem` and
:func:`seed_problem` the rules themselves (study configs, ``optimize``).
"""
from __future__ import annotations

import argparse
import re

from .rng import MASK as MAX_SEED

MAX_COUNT = 10**8                # games, deals, repeats, budget, ... per setting
MAX_COUNT_TEXT = "10^8"
# The exact odds calculators hold every distinct state in memory, so their
# --max-states has a cap of its own, set so that the largest allowed
# computation fits in a few GB (docs/runs.md): the compiled spoil engine takes
# about 0.5 KB a state (10^7 states: about 5 GB); the Python wither model more
# a position, and its --rule search gets 10 times the limit.
SPOIL_MAX_STATES = 10**7
WITHER_MAX_STATES = 10**6
# A price curve (vale-sim curve) plays every value x player count x 3 arms x --games and
# holds every per-deal outcome until its verdicts are read: at most this many games in
# all (about 8 bytes a game held, 160 MB at the cap) and this many values.
CURVE_MAX_GAMES = 2 * 10**7
CURVE_MAX_VALUES = 61
FAST_GAMES_PER_SECOND = 50_000   # the fast engine on one core (docs/speed.md): the cost stated
MAX_POOL = 1000                  # the largest VP pool size (--vp-pool, [rules] vp_pool)
# CMA-ES draws a generation's whole population at once (popsize x parameters floats,
# several arrays): --popsize of optimize, exploit and meta is capped here (cma's
# default is 4 + 3 ln(parameters), about 14), and one generation must fit the budget
# (check_generation).
MAX_POPSIZE = 10_000
GAME_UNITS = ("games", "deals")  # counts whose cost is stated (a deal is one game or more)


def _duration(seconds: float) -> str:
    hours = seconds / 3600
    if hours < 1:
        return f"{max(1, round(seconds / 60)):,} minutes"
    if hours < 2 * 24 * 365:
        return f"{round(hours):,} hours"
    return f"{round(hours / (24 * 365.25)):,} years"


def cost_text(n: int, unit: str = "games") -> str:
    """'about 5,556 hours at ~50k games/s on one core' for ``n`` games ('' for other units)."""
    if unit not in GAME_UNITS:
        return ""
    lead = "about" if unit == "games" else "at least"
    return (f"{lead} {_duration(n / FAST_GAMES_PER_SECOND)} at "
            f"~{FAST_GAMES_PER_SECOND // 1000}k games/s on one core")


def _whole(value):
    """``value`` as an int (an int, or a string of one), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value.strip()):
        try:
            return int(value)
        except ValueError:        # more digits than Python converts (sys.int_info)
            return None
    return None


def check_rule_numbers(rules, ranges: dict | None = None) -> None:
    """The one bounds check of a game's rule numbers (docs/runs.md, "Limits checked
    before anything runs"), called by each game's ``Rules.__post_init__``, so every
    way rules are made -- a command-line flag, ``what-if --rule``, an edits file's or
    a study config's ``[rules]``, the workbench, the Python API -- is checked before
    any game.  ``ranges``: field name -> (lo, hi), default the fields' ``"range"``
    metadata; a tuple field has each of its numbers checked.  ValueError (one line)
    naming the field, the range and the value."""
    import dataclasses
    if ranges is None:
        ranges = {f.name: f.metadata["range"] for f in dataclasses.fields(rules)
                  if "range" in (f.metadata or {})}
    for name, (lo, hi) in ranges.items():
        v = getattr(rules, name)
        for x in (v if isinstance(v, (tuple, list)) else (v,)):
            if x is None or isinstance(x, bool) or not isinstance(x, int):
                continue                      # the type checks are the dataclass's own
            if not lo <= x <= hi:
                raise ValueError(f"rules: {name} must be from {lo} to {hi:,}, got {_shown(x)} "
                                 f"(docs/runs.md, \"Limits checked before anything runs\")")


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def count_problem(value, least: int = 1, unit: str = "games", cap: int = MAX_COUNT) -> str | None:
    """What is wrong with ``value`` as a count of ``unit`` (None: nothing)."""
    n = _whole(value)
    if n is None:
        return f"must be a whole number of {unit} from {least} to {cap:,}, got {_shown(value)}"
    if n < least:
        return f"must be at least {least} (a whole number of {unit} up to {cap:,}), got {n}"
    if n > cap:
        cost = cost_text(n, unit)
        cap_text = MAX_COUNT_TEXT if cap == MAX_COUNT else f"{cap:,}"
        return (f"{n} is above the cap of {cap_text} {unit} per setting"
                + (f" ({cost})" if cost else "")
                + f"; give at most {cap:,} or split the work (docs/runs.md)")
    return None


def check_count(value, option: str, least: int = 1, unit: str = "games",
                cap: int = MAX_COUNT) -> int:
    """``value`` as an int if it is a valid count, else a UserError naming ``option``."""
    problem = count_problem(value, least, unit, cap)
    if problem:
        from .errors import UserError
        raise UserError(f"{option}: {problem}")
    return _whole(value)


def check_generation(popsize, budget: int, players: int, deals: int, field: int,
                     field_text: str) -> None:
    """The product rule of a CMA-ES search's ``--popsize`` (``optimize``, ``exploit``,
    ``meta``; docs/runs.md): one generation plays up to ``(popsize + 1)`` candidates
    (the incumbent too) x ``field`` opponents x ``players`` seats x ``deals`` games,
    and must fit in ``--budget`` -- checked before anything is allocated (cma would
    draw the whole population at once).  ``field_text`` says what the field is
    ("7 presets", "1 target").  ``popsize`` None (cma's default) passes."""
    if popsize is None:
        return
    first = (popsize + 1) * field * players * deals
    if first > budget:
        from .errors import UserError
        raise UserError(f"--popsize {popsize}: one generation plays up to {first:,} games "
                        f"(({popsize} + 1 candidates) x {field_text} x {players} seats x "
                        f"{deals} deals), more than --budget {budget}; lower --popsize or "
                        f"--deals, or raise --budget")


def seed_problem(value, what: str = "seed") -> str | None:
    n = _whole(value)
    if n is None or not 0 <= n <= MAX_SEED:
        return (f"must be a whole number from 0 to 2**64 - 1 = {MAX_SEED} (the {what} of the "
                f"64-bit random stream), got {_shown(value) if n is None else n}")
    return None


# ---------------------------------------------------------------------------
# argparse types, and the parser that prints their errors in one line
# ---------------------------------------------------------------------------
class Parser(argparse.ArgumentParser):
    """argparse with the one-line error every user mistake gets (``vale-sim
    simulate: error: argument --games: ...``, exit status 2); argparse's own prints
    the usage first.  Sub-parsers are of the same class.  ``vale_sim.cli`` and the
    games' small command lines use it."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def count(least: int = 1, unit: str = "games", cap: int = MAX_COUNT):
    """An argparse ``type``: a whole number of ``unit`` in ``least .. cap``."""
    def parse(text):
        problem = count_problem(text, least, unit, cap)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return _whole(text)
    parse.__name__ = "count"
    parse.least, parse.unit, parse.cap = least, unit, cap       # for tests and help
    return parse


def seed(text) -> int:
    """An argparse ``type``: a master seed, 0 .. 2**64 - 1 (shared by every command)."""
    problem = seed_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return _whole(text)


def game_index(text) -> int:
    """An argparse ``type``: a game index within a seed, 0 .. 2**64 - 1."""
    problem = seed_problem(text, "game index")
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return _whole(text)


def int_range(lo: int, hi: int, what: str = "value"):
    """An argparse ``type``: a whole number in ``lo .. hi`` (a bounded option such as
    --vp-pool or --max-mana, not a count of work)."""
    def parse(text):
        n = _whole(text)
        if n is None or not lo <= n <= hi:
            raise argparse.ArgumentTypeError(
                f"must be a whole number {what} from {lo} to {hi:,}, got "
                f"{_shown(text) if n is None else n}")
        return n
    parse.__name__ = "int_range"
    parse.lo, parse.hi = lo, hi
    return parse


#: --vp-pool: 1 .. MAX_POOL VP tokens.
vp_pool = int_range(1, MAX_POOL, "of VP tokens")
