"""Output paths and writes that fail as one line, never half-written.

Every command that writes a user-chosen path goes through these helpers:

* :func:`check_output` before any game is played: the path's folder exists (or
  can be made, for a folder output), is a folder and is writable; an existing
  output is of the right kind.  A problem raises :class:`~vale_sim.cli.UserError`
  naming the path and the cause (exit status 2).
* :func:`atomic_write` / :func:`atomic_path`: write to a temporary file next to
  the target and rename it into place, so an interrupted write or a full disk
  leaves either the old file or none, never half of one.  An ``OSError`` becomes
  a ``UserError`` naming the path and the cause.
* :func:`save_figure`: a matplotlib figure through :func:`atomic_path` (the
  format from the file's suffix); commands print their results *before* they
  write figures, so a full disk loses no result.
* :func:`check_output` also holds the one rule for an existing output *file*
  (docs/runs.md, "Files vale-sim writes"): it is replaced only when vale-sim
  wrote it (:func:`written_by_vale_sim`: its mark) or the command's ``--force``
  is given; anything else is refused before any game is played.
* :func:`check_replaceable` / :func:`replace_folder`: the one rule for a
  command that replaces a whole folder (``report --out``, ``run``): the folder
  must be absent, empty, or an earlier output of the same kind (recognised by
  its manifest); anything else is refused before any game is played.  The new
  folder is built in ``.NAME.tmp-PID`` next to it (with a marker file) and
  swapped in when complete; :func:`clean_stale_temps` removes such folders a
  killed vale-sim process left, and nothing else.
* :func:`check_workers`: one rule for every ``--workers`` option and config key.
* :func:`jsonable` / :func:`json_records` / :func:`dumps`: the one JSON cleaner
  of results (numpy scalars to Python, nan and inf to null, tuples to lists,
  keys to strings), for every command and study that prints or writes JSON.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import math
import socket
import sys
import tempfile
from pathlib import Path

WORKERS_PER_CORE = 4     # --workers is capped at 4 x os.cpu_count() (docs/runs.md)


def _user_error(msg: str) -> Exception:
    from .errors import UserError
    return UserError(msg)


def os_error_message(e: OSError, path=None, verb: str = "cannot write") -> str:
    """'cannot write PATH: cause' for an OSError (ENOSPC reads 'no space left on device').

    The one wording of write errors: every file, figure, table and folder writer
    ends here (through :func:`atomic_path`, :func:`save_figure` or directly)."""
    where = path if path is not None else (e.filename or "?")
    cause = e.strerror or str(e) or type(e).__name__
    if e.errno == errno.ENOSPC:
        cause = "no space left on device; free some space or choose another path"
        verb = verb or "cannot write"
    elif e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        cause = f"{cause}; choose a writable path"
    return f"{verb} {where}: {cause}" if verb else f"{where}: {cause}"


def _nearest_existing(p: Path) -> Path:
    q = p
    while not q.exists():
        if q.parent == q:
            break
        q = q.parent
    return q


def _probe_dir(d: Path, shown: Path) -> None:
    """d exists: it must be a folder we can create files in."""
    if not d.is_dir():
        raise _user_error(f"cannot write {shown}: {d} is not a folder; choose another path")
    if not os.access(d, os.W_OK | os.X_OK):
        raise _user_error(f"cannot write {shown}: permission denied on {d}; choose a writable path")
    try:                                  # root passes os.access; a read-only mount does not
        fd, tmp = tempfile.mkstemp(prefix=".vale-sim-probe-", dir=d)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise _user_error(os_error_message(e, shown)) from None


#: The mark of every figure (its metadata) and page vale-sim writes; see written_by_vale_sim.
MARK = "written by vale-sim"
_MARK_BYTES = MARK.encode()
# The first line of a text file vale-sim writes: a comment naming it (policy files of
# optimize, exploit and meta, balance's edits and refit card files).
_TEXT_HEADER = re.compile(r"#\s*(?:vale-sim\b|Refit by vale-sim\b|written by vale-sim\b)")
_MARK_SPAN = 1 << 16            # the head and the tail searched for the mark
_JSON_CAP = 64 << 20            # a larger .json is not read whole to look for the mark


def _json_mark(doc) -> bool:
    if not isinstance(doc, dict):
        return False
    return any(isinstance(doc.get(k), str) and re.match(r"vale-sim(\s|$)", doc[k])
               for k in ("written_by", "command"))


def written_by_vale_sim(path) -> bool:
    """Whether the existing file ``path`` carries vale-sim's mark: a first line
    that is a vale-sim header comment (``# vale-sim optimize: ...``), a JSON
    object (or JSON-lines header) whose ``written_by`` or ``command`` starts with
    ``vale-sim``, or :data:`MARK` in its first or last 64 KiB (a figure's
    metadata, a page's comment).  False for anything unreadable."""
    p = Path(path)
    try:
        size = p.stat().st_size
        with open(p, "rb") as f:
            head = f.read(_MARK_SPAN)
            tail = b""
            if size > 2 * _MARK_SPAN:
                f.seek(size - _MARK_SPAN)
                tail = f.read(_MARK_SPAN)
            elif size > _MARK_SPAN:
                tail = f.read()
    except OSError:
        return False
    if _MARK_BYTES in head or _MARK_BYTES in tail:
        return True
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").lstrip("\ufeff").strip()
    if _TEXT_HEADER.match(first):
        return True
    if first.startswith("{"):
        with contextlib.suppress(ValueError, RecursionError):       # JSON lines: the header
            if _json_mark(json.loads(first)):
                return True
        if size <= _JSON_CAP and p.suffix.lower() == ".json":
            with contextlib.suppress(OSError, ValueError, RecursionError):
                return _json_mark(json.loads(p.read_bytes()))
    return False


def check_replaceable_file(path, option: str | None = None, force: bool | None = False,
                           ours=None) -> Path:
    """The one rule for an existing output file: refuse (UserError, before any game)
    unless it is absent, vale-sim wrote it (``ours(path)``, default
    :func:`written_by_vale_sim`) or ``force`` is true.  ``force=None``: the command
    has no ``--force`` (the message does not offer it)."""
    p = Path(path)
    if force or not p.is_file():
        return p
    if (ours or written_by_vale_sim)(p):
        return p
    label = f"{option} {p}" if option else str(p)
    fix = "choose another path" + (", or add --force to replace it" if force is not None else "")
    raise _user_error(f"refusing to replace {label}: vale-sim did not write it (no vale-sim "
                      f"mark in it); {fix}")


def check_output(path, kind: str = "file", option: str | None = None,
                 force: bool | None = False, ours=None) -> Path:
    """Check that ``path`` can be written before any work is done; return it as a Path.

    ``kind="file"``: its folder must already exist (a missing folder is the
    user's typo more often than not), an existing ``path`` must not be a
    folder, and an existing file is replaced only by :func:`check_replaceable_file`'s
    rule (``force``, ``ours``; ``ours=True``: the command has its own rule, e.g. a
    checkpoint that only ``--resume`` continues).  ``kind="dir"``: the folder may
    exist or be created (its nearest existing ancestor must be a writable folder);
    an existing ``path`` must be a folder.  Creates nothing.
    """
    p = Path(path)
    label = f"{option} {p}" if option else str(p)
    if kind == "dir":
        if p.exists():
            if not p.is_dir():
                raise _user_error(f"cannot write {label}: it exists and is not a folder; "
                                  f"choose another path")
            _probe_dir(p, p)
        else:
            anc = _nearest_existing(p.parent if str(p.parent) else Path("."))
            _probe_dir(anc, p)
        return p
    if kind != "file":
        raise ValueError(f"kind must be 'file' or 'dir', got {kind!r}")
    if p.is_dir():
        raise _user_error(f"cannot write {label}: it is a folder; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.exists():
        anc = _nearest_existing(parent)
        if anc.is_dir():
            raise _user_error(f"cannot write {label}: folder {parent} does not exist; create it "
                              f"first or choose another path")
    _probe_dir(parent if parent.exists() else _nearest_existing(parent), p)
    if p.exists() and not os.access(p, os.W_OK):
        raise _user_error(f"cannot write {label}: permission denied; choose a writable path")
    if ours is not True:
        check_replaceable_file(p, option, force, ours)
    return p


def check_outputs(*specs, force: bool | None = False) -> None:
    """:func:`check_output` for each ``(path, kind, option)`` whose path is not None."""
    for spec in specs:
        path, kind, option = (tuple(spec) + (None, None))[:3]
        if path is not None:
            check_output(path, kind or "file", option, force=force)


def add_force_option(p) -> None:
    """``--force`` of every command that writes files (docs/runs.md)."""
    p.add_argument("--force", action="store_true",
                   help="replace an existing output file that vale-sim did not write "
                        "(default: refuse it before any game)")


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path next to ``path``; rename it onto ``path`` if the block
    succeeds, delete it otherwise.  OSError -> UserError naming ``path``."""
    p = Path(path)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    _clean_stale_temp_files(p)
    try:
        try:
            yield tmp
            os.replace(tmp, p)
        except OSError as e:
            raise _user_error(os_error_message(e, p)) from None
    finally:
        with contextlib.suppress(OSError):
            if tmp.exists():
                tmp.unlink()


def _clean_stale_temp_files(p: Path) -> None:
    """Remove ``.NAME.PID.tmp`` files next to ``p`` that :func:`atomic_path` of a
    process no longer alive left (killed mid-write); nothing else."""
    pat = re.compile(rf"\.{re.escape(p.name)}\.(\d+)\.tmp")
    try:
        candidates = list((p.parent if str(p.parent) else Path(".")).iterdir())
    except OSError:
        return
    for f in candidates:
        m = pat.fullmatch(f.name)
        if m and not f.is_symlink() and f.is_file() and not _pid_alive(int(m.group(1))):
            with contextlib.suppress(OSError):
                f.unlink()


def atomic_write(path, data) -> Path:
    """Write ``data`` (str: UTF-8, or bytes) to ``path`` atomically; see :func:`atomic_path`."""
    raw = data.encode() if isinstance(data, str) else bytes(data)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(raw)
            f.flush()
    return Path(path)


def save_figure(fig, path, **kw) -> Path:
    """``fig.savefig`` to ``path`` atomically (:func:`atomic_path`), in the format of
    its suffix (default png): a full disk or a killed process leaves no partial
    file, and the error is one line naming ``path``.  Closes the figure."""
    p = Path(path)
    fmt = p.suffix.lstrip(".").lower() or "png"
    if fmt in ("png", "pdf", "svg", "eps", "ps"):          # the mark check_output recognises
        kw.setdefault("metadata", {"Creator": MARK} if fmt != "png"
                      else {"Software": f"matplotlib, {MARK}"})
    try:
        with atomic_path(p) as tmp:
            fig.savefig(tmp, format=fmt, **kw)
    except ValueError as e:                       # matplotlib: an unknown format
        raise _user_error(f"cannot write {p}: {e}; use a .png, .pdf or .svg name") from None
    finally:
        try:
            import matplotlib.pyplot as plt
            plt.close(fig)
        except Exception:                         # pragma: no cover - not a pyplot figure
            pass
    return p


# ---------------------------------------------------------------------------
# Replacing a whole folder
# ---------------------------------------------------------------------------
TEMP_MARKER = ".vale-sim-temp"     # inside every temporary folder vale-sim builds


def check_replaceable(path, is_earlier, what: str, option: str = "--out", keep=(),
                      allowed=None) -> Path:
    """Refuse (UserError, before any game is played) to replace folder ``path``
    unless it is absent, empty, or ``is_earlier(path)`` recognises an earlier
    ``what`` (e.g. "vale-sim report") in it -- and then, when ``allowed`` is
    given, holds nothing but the names in ``allowed`` (a file a user added to
    an earlier output is not deleted with it).  Entries named in ``keep`` are
    carried over into the new folder, never deleted, so they do not count.
    Nothing is touched."""
    p = Path(path)
    label = f"{option} {p}" if option else str(p)
    if not p.exists():
        return p
    if not p.is_dir():
        raise _user_error(f"cannot write {label}: it exists and is not a folder; "
                          f"choose another path")
    try:
        entries = sorted(e.name for e in p.iterdir() if e.name not in keep)
    except OSError as e:
        raise _user_error(os_error_message(e, p, "cannot read")) from None
    if not entries:
        return p
    if is_earlier(p):
        extra = [e for e in entries
                 if allowed is not None and e not in allowed and e != TEMP_MARKER]
        if not extra:
            return p
        raise _user_error(f"refusing to replace {label}: {extra[0]} is not part of the earlier "
                          f"{what} in it; move it away or choose a new folder")
    raise _user_error(f"refusing to replace {label}: it holds files that are not an earlier "
                      f"{what} (e.g. {entries[0]}); choose a new or empty folder")


def read_manifest(path) -> dict | None:
    """The JSON object in file ``path``, or None (missing, unreadable, not an object)."""
    return manifest_problem(path)[0]


def manifest_problem(path) -> tuple[dict | None, str | None]:
    """``(the JSON object in file path, None)``, or ``(None, what is wrong with it)``:
    the words a one-line error about a corrupt manifest uses ("it is not valid JSON
    (Expecting value: line 2 column 1)")."""
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        return None, f"it cannot be read ({e.strerror or e})"
    try:
        m = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "it is not UTF-8 text"
    except (ValueError, RecursionError) as e:
        why = str(e).splitlines()[0] if isinstance(e, ValueError) else "nested too deep"
        return None, f"it is not valid JSON, cut short or edited ({why})"
    if not isinstance(m, dict):
        return None, f"it holds a JSON {type(m).__name__}, not an object"
    return m, None


def _temp_names(target: Path) -> re.Pattern:
    return re.compile(rf"\.{re.escape(target.name)}\.(?:tmp|old)-(\d+)")


def _marker_text() -> str:
    return json.dumps({"vale_sim": "temporary folder", "pid": os.getpid(),
                       "host": socket.gethostname()})


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def clean_stale_temps(target) -> list[Path]:
    """Remove the ``.NAME.tmp-PID`` / ``.NAME.old-PID`` folders next to ``target``
    that a killed vale-sim process left: the name pattern, a marker file written
    by vale-sim inside naming that PID and this host, and the PID no longer
    alive.  Anything else is left alone.  Returns the folders removed."""
    t = Path(target)
    parent = t.parent if str(t.parent) else Path(".")
    pat = _temp_names(t)
    removed = []
    try:
        candidates = list(parent.iterdir())
    except OSError:
        return removed
    for d in candidates:
        m = pat.fullmatch(d.name)
        if not m or d.is_symlink() or not d.is_dir():
            continue
        pid = int(m.group(1))
        if _pid_alive(pid):
            continue
        if not _is_our_temp(d, pid):
            with contextlib.suppress(OSError):      # an empty one (older versions wrote no
                d.rmdir()                           # marker): removing it loses nothing
                removed.append(d)
            continue
        shutil.rmtree(d, ignore_errors=True)
        if not d.exists():
            removed.append(d)
    return removed


def _is_our_temp(d: Path, pid: int) -> bool:
    """``d`` holds the marker vale-sim writes into its temporary folders, for ``pid``
    on this host."""
    info = read_manifest(d / TEMP_MARKER)
    return (info is not None and info.get("vale_sim") == "temporary folder"
            and info.get("pid") == pid and info.get("host") == socket.gethostname())


@contextlib.contextmanager
def replace_folder(out, keep=()):
    """Yield an empty temporary folder ``.NAME.tmp-PID`` next to ``out`` (with
    :data:`TEMP_MARKER` inside); when the block succeeds, move the ``keep``
    entries of the old ``out`` into it and swap it in for ``out`` (the old
    folder is removed only after the swap).  On failure the temporary folder
    is removed and ``out`` is as it was.  Check the old ``out`` with
    :func:`check_replaceable` first.  An OSError of the swap -> UserError."""
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    clean_stale_temps(out)
    tmp = parent / f".{out.name}.tmp-{os.getpid()}"
    old = parent / f".{out.name}.old-{os.getpid()}"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        if tmp.exists():              # our PID: an earlier call of ours, or a reused PID
            if not _is_our_temp(tmp, os.getpid()):
                raise _user_error(f"cannot write {out}: {tmp} is in the way and was not made "
                                  f"by vale-sim; move it away")
            shutil.rmtree(tmp)
        tmp.mkdir()
        (tmp / TEMP_MARKER).write_text(_marker_text())
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise _user_error(os_error_message(e, out)) from None
    try:
        yield tmp
        moved, carried = False, []
        try:
            if out.exists():
                for k in keep:
                    if (out / k).exists() and not (tmp / k).exists():
                        os.replace(out / k, tmp / k)
                        carried.append(k)
                with contextlib.suppress(OSError):        # so that a stale .old-PID is ours
                    (out / TEMP_MARKER).write_text(_marker_text())
                os.replace(out, old)
                moved = True
            os.replace(tmp, out)
        except OSError as e:
            with contextlib.suppress(OSError):            # put everything back as it was
                if moved:
                    os.replace(old, out)
                for k in carried:
                    os.replace(tmp / k, out / k)
            with contextlib.suppress(OSError):
                (out / TEMP_MARKER).unlink(missing_ok=True)
            raise _user_error(os_error_message(e, out)) from None
        with contextlib.suppress(OSError):
            (out / TEMP_MARKER).unlink(missing_ok=True)
        if moved:
            if old.is_symlink():        # --out was a link: the folder it points to stays
                with contextlib.suppress(OSError):
                    old.unlink()
            else:
                shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def max_workers() -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def check_workers(n, option: str = "--workers") -> int:
    """``n`` if it is a whole number in 1 .. 4 x cores, else UserError (one rule everywhere)."""
    if n == 1 and type(n) is int:       # always allowed: no need to count the cores
        return n
    cap = max_workers()
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= cap:
        raise _user_error(f"{option} must be a whole number from 1 to {cap} "
                          f"({WORKERS_PER_CORE} x {os.cpu_count() or 1} cores), got {n!r}")
    return n


# ---------------------------------------------------------------------------
# JSON: the one cleaner of results
# ---------------------------------------------------------------------------
def jsonable(x):
    """``x`` made JSON-ready: dicts (keys as strings) and lists/tuples recursively,
    numpy scalars and arrays to Python, floats that are nan or infinite to None
    (JSON has no NaN), bools and ints kept.  Anything else is returned as is."""
    if isinstance(x, dict):
        return {k if isinstance(k, str) else str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (bool, int, str)) or x is None:
        return x
    if isinstance(x, float):
        return float(x) if math.isfinite(x) else None
    np = sys.modules.get("numpy")        # numpy values exist only once numpy is imported
    if np is not None:
        if isinstance(x, np.ndarray):
            return jsonable(x.tolist())
        if isinstance(x, np.bool_):
            return bool(x)
        if isinstance(x, np.integer):
            return int(x)
        if isinstance(x, np.floating):
            return jsonable(float(x))
    return x


def json_records(df) -> list[dict]:
    """A DataFrame as a list of JSON-ready records (:func:`jsonable`; nan -> None)."""
    return [jsonable(r) for r in df.to_dict(orient="records")]


def dumps(obj, **kw) -> str:
    """``json.dumps`` of :func:`jsonable` ``(obj)``; what still is not JSON (a Path,
    a date) is written as its ``str``."""
    kw.setdefault("default", str)
    return json.dumps(jsonable(obj), **kw)
