"""What every reader of a user's file shares (card sets, policies, study configs,
decks and maps of both games), so that they accept and refuse the same things.

* :func:`read_toml` / :func:`read_text`: the file must be a regular file (a
  folder, ``/dev/null`` or a pipe is refused by name, not read as empty or
  called "not found"); UTF-8, with a leading byte-order mark dropped (as
  spreadsheet and Windows editors write it); at most ``max_bytes``.
* :func:`read_toml` / :func:`parse_toml` / :func:`read_json` / :func:`parse_json`:
  nesting deeper than :data:`MAX_DEPTH` levels (arrays, tables, objects) is
  refused by name, never a ``RecursionError`` traceback: no file of ours nests
  more than a few levels.
* :func:`parse_int`: a whole number written with ASCII digits only (``int()``
  also takes ``1_0``, ``+3``, ``-0``, full-width and Arabic-Indic digits).
* :func:`name_key`: names that differ only by case or surrounding spaces are
  one name (duplicate checks).
* :func:`did_you_mean`: the closest names, for "unknown X" messages.

Errors are :class:`InputFileError` (a ValueError) with ``problem`` and ``fix``
separate, so each reader can re-raise it as its own one-line error type.
"""
from __future__ import annotations

import difflib
import os
import re
import stat
import tomllib
from pathlib import Path

BOM = "\ufeff"
MAX_DEPTH = 64           # levels of nested arrays/tables a user's TOML or JSON file may have
_WHOLE = re.compile(r"-?[0-9]+")
_NON_NEGATIVE = re.compile(r"[0-9]+")


class InputFileError(ValueError):
    """A user's file cannot be read: ``path``, ``problem`` and ``fix`` (one line)."""

    def __init__(self, path, problem: str, fix: str = ""):
        self.path, self.problem, self.fix = str(path), problem, fix
        super().__init__(f"{path}: {problem}" + (f" ({fix})" if fix else ""))


def file_problem(path) -> str | None:
    """Why ``path`` is not a readable regular file ("no such file", "is a folder",
    "is not a regular file"), or None when it is one."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "no such file"
    except NotADirectoryError:
        return "no such file"
    except OSError as e:
        return f"cannot read it: {e.strerror or e}"
    if stat.S_ISDIR(st.st_mode):
        return "is a folder"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    return None


def check_file(path, what: str = "file") -> Path:
    """``path`` as a Path if it is a regular file; else InputFileError naming why."""
    problem = file_problem(path)
    if problem is not None:
        fix = {"no such file": "check the path",
               "is a folder": f"give the path of a {what}, not a folder",
               "is not a regular file": f"give the path of a {what}"}.get(problem, "")
        raise InputFileError(path, problem, fix)
    return Path(path)


def read_text(path, what: str = "file", max_bytes: int | None = None) -> str:
    """The text of the regular file ``path``: UTF-8, a leading byte-order mark
    dropped, at most ``max_bytes`` bytes.  InputFileError otherwise."""
    path = check_file(path, what)
    try:
        with open(path, "rb") as f:
            data = f.read() if max_bytes is None else f.read(max_bytes + 1)
    except OSError as e:
        raise InputFileError(path, f"cannot read the {what}: {e.strerror or e}") from None
    if max_bytes is not None and len(data) > max_bytes:
        raise InputFileError(path, f"{what} is larger than the limit of {max_bytes} bytes",
                             "shorten it")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(path, f"not UTF-8 text (byte {e.start})", "save it as UTF-8") from None
    return text[1:] if text.startswith(BOM) else text


def _too_deep(where, kind: str) -> InputFileError:
    return InputFileError(where, f"{kind} nested more than {MAX_DEPTH} levels deep",
                          "flatten it: no vale-sim file nests more than a few levels")


# What the pre-scan of a TOML text skips (strings and comments) and counts (brackets,
# braces, the dots of dotted keys: a dot with a digit on both sides is a number's).
_TOML_SKIP = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*')
_TOML_MARKS = re.compile(r"[\[\]{}=,\n]|(?<![0-9])\.|\.(?![0-9])")


def toml_too_deep(text: str) -> bool:
    """Whether TOML ``text`` nests arrays/tables, or dots one key, more than
    :data:`MAX_DEPTH` levels deep: a linear scan *before* parsing (tomllib
    recurses once per nested array, and takes quadratic time over a dotted key:
    a 100,000-part table header took 20 s to parse)."""
    depth = dots = 0
    for m in _TOML_MARKS.finditer(_TOML_SKIP.sub('""', text)):
        c = m.group()
        if c == ".":
            dots += 1
            if dots > MAX_DEPTH:
                return True
            continue
        dots = 0
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif c in "]}":
            depth -= 1
    return False


def check_depth(data, where, kind: str = "TOML") -> None:
    """InputFileError naming ``where`` when ``data`` (parsed TOML or JSON: dicts and
    lists) nests more than :data:`MAX_DEPTH` levels.  Iterative: any depth is safe."""
    stack = [(data, 0)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, dict):
            children = x.values()
        elif isinstance(x, list):
            children = x
        else:
            continue
        if d >= MAX_DEPTH:
            raise _too_deep(where, kind)
        stack.extend((c, d + 1) for c in children if isinstance(c, (dict, list)))


def read_toml(path, what: str = "file", max_bytes: int | None = None) -> dict:
    """:func:`read_text` parsed as TOML (InputFileError for bad syntax, with its line,
    and for nesting deeper than :data:`MAX_DEPTH`)."""
    text = read_text(path, what, max_bytes)
    try:
        return parse_toml(text, path)
    except InputFileError as e:
        if e.fix == "fix the syntax":
            e = InputFileError(path, e.problem, "fix the syntax at that line")
        raise e from None


def parse_toml(text: str, where="text") -> dict:
    """``text`` parsed as TOML (e.g. one line of a card file being edited);
    InputFileError naming ``where`` for bad syntax or nesting deeper than
    :data:`MAX_DEPTH` (tomllib recurses: 100,000 nested arrays were a
    RecursionError traceback)."""
    if toml_too_deep(text):
        raise _too_deep(where, "TOML")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputFileError(where, f"not valid TOML: {e}", "fix the syntax") from None
    except RecursionError:
        raise _too_deep(where, "TOML") from None
    check_depth(data, where, "TOML")
    return data


def parse_json(text: str, where="text"):
    """``text`` parsed as JSON; InputFileError naming ``where`` for bad syntax or
    nesting deeper than :data:`MAX_DEPTH` (json recurses too)."""
    import json
    try:
        data = json.loads(text)
    except RecursionError:
        raise _too_deep(where, "JSON") from None
    except ValueError as e:
        raise InputFileError(where, f"not valid JSON: {e}", "fix the syntax") from None
    check_depth(data, where, "JSON")
    return data


def read_json(path, what: str = "file", max_bytes: int | None = None):
    """:func:`read_text` parsed as JSON (:func:`parse_json`)."""
    return parse_json(read_text(path, what, max_bytes), path)


def parse_int(text: str, negative: bool = False) -> int:
    """``text`` (spaces around it ignored) as a whole number written with ASCII
    digits only, a leading ``-`` only if ``negative`` (and never ``-0``).
    ValueError otherwise."""
    s = str(text).strip()
    pattern = _WHOLE if negative else _NON_NEGATIVE
    if not pattern.fullmatch(s) or (s.startswith("-") and int(s) == 0):
        raise ValueError(f"not a whole number: {text!r}")
    return int(s)


def name_key(name: str) -> str:
    """The form under which two names are the same name: case and runs of
    spaces ignored (``"Podlings"``, ``" podlings"`` and ``"PODLINGS "`` are one)."""
    return " ".join(str(name).split()).casefold()


def did_you_mean(name, names, n: int = 1) -> str:
    """``"did you mean 'X'?"`` for the closest of ``names`` (case ignored), or ""."""
    names = [str(x) for x in names]
    if not names:
        return ""
    keyed = {}
    for x in names:
        keyed.setdefault(name_key(x), x)
    exact = keyed.get(name_key(name))
    if exact is not None:
        return f"did you mean {exact!r}?"
    close = difflib.get_close_matches(name_key(name), list(keyed), n=n, cutoff=0.6)
    if not close:
        return ""
    return "did you mean " + " or ".join(repr(keyed[c]) for c in close) + "?"


def read_policy_toml(path: Path, error, max_bytes: int) -> dict:
    """A policy file's TOML (both games' policy readers): ``error`` (their
    PolicyError) naming the file when it is missing, not a regular file, too
    large, not UTF-8 or not TOML.  A leading byte-order mark is dropped."""
    try:
        return read_toml(path, "policy file", max_bytes)
    except InputFileError as e:
        problem = "no such policy file" if e.problem == "no such file" else e.problem
        raise error(f"{path}: {problem}" + (f" ({e.fix})" if e.fix else "")) from None


def unknown_card(pol_label: str, item: str, name: str, names, set_name: str, kinds: str) -> str:
    """The one-line message for a policy naming a card the set lacks: the
    policy (its file), the item (``buy rule 2``, ``never``), the name, the
    closest names and the fix."""
    hint = did_you_mean(name, sorted(names)) or "use the name of one of its cards"
    return (f"{pol_label}: {item} names unknown card {name!r} (not {kinds} of card set "
            f"{set_name!r}); {hint}")
