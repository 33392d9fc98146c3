"""What every reader of a user's file shares (card sets, policies, study configs,
decks and maps of both games), so that they accept and refuse the same things.

* :func:`read_toml` / :func:`read_text`: the file must be a regular file (a
  folder, ``/dev/null`` or a pipe is refused by name, not read as empty or
  called "not found"); UTF-8, with a leading byte-order mark dropped (as
  spreadsheet and Windows editors write it); at most ``max_bytes``.
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


def read_toml(path, what: str = "file", max_bytes: int | None = None) -> dict:
    """:func:`read_text` parsed as TOML (InputFileError for bad syntax, with its line)."""
    text = read_text(path, what, max_bytes)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputFileError(path, f"not valid TOML: {e}", "fix the syntax at that line") from None


def parse_toml(text: str, where="text") -> dict:
    """``text`` parsed as TOML (e.g. one line of a card file being edited);
    InputFileError naming ``where`` for bad syntax."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputFileError(where, f"not valid TOML: {e}", "fix the syntax") from None


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
