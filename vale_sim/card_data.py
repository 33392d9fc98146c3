"""What the games' card-data readers share (card sets, maps; TOML and, for
one game, CSV): the one-line error, the field reader that names the file,
the item and the field of every mistake, and the small lookups of card data.

* :class:`CardFileError`: ``file: ITEM, field 'F': problem (fix)``; each game's
  ``CardSetError`` subclasses it and says how an item is named
  (:meth:`CardFileError.item_text`: e.g. ``card 'Stag'`` or ``advance 'Stag'``
  as the reader built it).
* :class:`FieldReader`: one item (a card, a row, a map space) of a file.  Built on
  a table with the fields it may have, it refuses any other (with "did you mean")
  and reads typed fields (:meth:`~FieldReader.int`, :meth:`~FieldReader.str`,
  ...); built on a field spec it checks names, types and required fields at once
  (:meth:`~FieldReader.typed`).  Either way :meth:`~FieldReader.err` makes the
  game's error for the item.
* :func:`read_data_toml`: a card-data file's TOML, its read errors as the game's
  error; :class:`Sourced` (``source_of``), :func:`index_by_name`,
  :func:`unknown_name`; :class:`PlayerCountMixin`.
"""
from __future__ import annotations

import difflib

from .inputs import InputFileError, read_toml


class CardFileError(ValueError):
    """A card-data file is malformed.  One line: file, item, field, problem, fix."""

    def __init__(self, file, item, field_, problem, fix=""):
        self.file, self.item, self.field, self.problem = str(file), item, field_, problem
        self.fix = fix
        where = f"{file}: {self.item_text(item)}" if item not in (None, "") else f"{file}"
        if field_:
            where += f", field {field_!r}"
        msg = f"{where}: {problem}"
        if fix:
            msg += f" ({fix})"
        super().__init__(msg)

    @staticmethod
    def item_text(item) -> str:
        """How the message names the item (a game may quote it, e.g. ``card 'X'``)."""
        return str(item)


class PlayerCountMixin:
    """A player count the game does not have (not a fault of the card file); put it
    before the game's CardSetError: ``class PlayerCountError(PlayerCountMixin,
    CardSetError)``.  ``TAIL`` ends the message (e.g. ": the game plays 2-4")."""
    TAIL = ""

    def __init__(self, players, allowed: tuple = (2, 3, 4)):
        words = ", ".join(map(str, allowed[:-1])) + f" or {allowed[-1]}"
        self.players, self.allowed = players, allowed
        self.file, self.item, self.field, self.fix = "", None, "players", ""
        self.problem = f"players must be {words} (got {players}){self.TAIL}"
        ValueError.__init__(self, self.problem)

    def __reduce__(self):                 # pickles (worker processes) with its arguments
        return type(self), (self.players, self.allowed)


def read_data_toml(path, what: str, error=CardFileError) -> dict:
    """The TOML of card-data file ``path`` (``what``: "card set", "map"); a missing,
    unreadable or malformed file is ``error(path, None, None, problem, fix)``."""
    try:
        return read_toml(path, f"{what} file")
    except InputFileError as e:
        if e.problem == "no such file":
            raise error(path, None, None, f"no such {what} file",
                        "check the path or use a bundled name") from None
        if e.problem in ("is a folder", "is not a regular file"):
            raise error(path, None, None, e.problem, f"give a {what} .toml file") from None
        raise error(path, None, None, e.problem, e.fix) from None


def source_of(card, f: str) -> str:
    """Where the number in field ``f`` of a card comes from: its ``sources``
    override, else its ``source``."""
    for k, src in card.sources:
        if k == f:
            return src
    return card.source


class Sourced:
    """A card kind whose numbers say where they come from: ``source`` (the card's)
    and ``sources`` ((field, source) overrides)."""
    __slots__ = ()

    def source_of(self, f: str) -> str:
        """Where the number in field ``f`` comes from (the override, else ``source``)."""
        return source_of(self, f)


def index_by_name(items, name: str, what: str, set_name: str) -> int:
    """The index (file order) of the item called ``name``; KeyError naming the
    closest names when there is none."""
    for i, x in enumerate(items):
        if x.name == name:
            return i
    raise KeyError(unknown_name(what, name, set_name, [x.name for x in items]))


def unknown_name(what: str, name: str, set_name: str, names) -> str:
    """``unknown WHAT 'X' in card set 'S'; did you mean ...?`` (up to 3 close names)."""
    close = difflib.get_close_matches(str(name), list(names), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return f"unknown {what} {name!r} in card set {set_name!r}{hint}"


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


_TYPE_CHECKS = {"int": _is_int,
                "str": lambda x: isinstance(x, str),
                "bool": lambda x: isinstance(x, bool),
                "names": lambda x: isinstance(x, list) and all(isinstance(n, str) for n in x),
                "table": lambda x: isinstance(x, dict)}


class FieldReader:
    """Type-checked access to the fields of one item of a card-data file; every
    error names the file, the item and the field (``error``: the game's
    CardSetError).  ``item`` may be changed once the item's name is known."""

    def __init__(self, file, item, table=None, allowed=None, error=CardFileError):
        self.file, self.item, self.t, self.error = file, item, table, error
        if allowed is None:
            return
        if not isinstance(table, dict):
            raise error(file, item, None, "must be a table", "write it as [[...]] or {...}")
        for k in table:
            if k not in allowed:
                close = difflib.get_close_matches(k, allowed, n=1)
                fix = f"did you mean {close[0]!r}?" if close else f"allowed: {', '.join(allowed)}"
                raise error(file, item, k, "unknown field", fix)

    def err(self, f, problem, fix=""):
        return self.error(self.file, self.item, f, problem, fix)

    # -- a spec of fields at once ---------------------------------------------
    def typed(self, raw: dict, spec: dict, what: str, type_words: dict) -> dict:
        """Check ``raw``'s field names against ``spec`` ({field: (type, required)};
        types int, str, bool, names, or any other word for a table), their types
        and the required fields; return the typed dict.  ``type_words``: how each
        type is written, for the fixes."""
        out = {}
        for k, v in raw.items():
            if k not in spec:
                close = difflib.get_close_matches(str(k), list(spec), n=1)
                fix = (f"did you mean {close[0]!r}?" if close else
                       f"{what} fields are: {', '.join(spec)}")
                raise self.err(k, f"unknown field for {what}", fix)
            typ = spec[k][0]
            if not _TYPE_CHECKS.get(typ, _TYPE_CHECKS["table"])(v):
                raise self.err(k, f"wrong type: expected {type_words[typ]}, got {v!r}",
                               f"write {k} as {type_words[typ]}")
            out[k] = v
        for k, (typ, required) in spec.items():
            if required and k not in out:
                raise self.err(k, f"missing required field {k!r} for {what}",
                               f"add {k} = ... ({type_words[typ]})")
        return out

    # -- one field at a time --------------------------------------------------
    def int(self, f, default=None, lo=0, hi=None):
        if f not in self.t:
            if default is None:
                raise self.err(f, "missing", f"add {f} = <integer>")
            return default
        v = self.t[f]
        if not _is_int(v):
            raise self.err(f, f"must be an integer, got {v!r}", f"write {f} = <integer>")
        if v < lo or (hi is not None and v > hi):
            raise self.err(f, f"{v} is out of range", f"use {lo}..{hi}" if hi is not None
                           else f"use at least {lo}")
        return v

    def str(self, f, default=None, choices=None):
        if f not in self.t:
            if default is None:
                raise self.err(f, "missing", f"add {f} = \"...\"")
            return default
        v = self.t[f]
        if not isinstance(v, str) or (not v.strip() and default is None):
            raise self.err(f, f"must be a non-empty string, got {v!r}", f"write {f} = \"...\"")
        if choices is not None and v not in choices:
            close = difflib.get_close_matches(v, choices, n=1)
            fix = f"did you mean {close[0]!r}?" if close else f"use one of {', '.join(choices)}"
            raise self.err(f, f"unknown value {v!r}", fix)
        return v

    def bool(self, f, default=False):
        v = self.t.get(f, default)
        if not isinstance(v, bool):
            raise self.err(f, f"must be true or false, got {v!r}", f"write {f} = true")
        return v

    def list(self, f):
        v = self.t.get(f, [])
        if not isinstance(v, list):
            raise self.err(f, f"must be a list, got {v!r}", f"write {f} = [...]")
        return v
