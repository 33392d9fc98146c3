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
* :func:`check_workers`: one rule for every ``--workers`` option and config key.
"""
from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

WORKERS_PER_CORE = 4     # --workers is capped at 4 x os.cpu_count() (docs/runs.md)


def _user_error(msg: str) -> Exception:
    from .errors import UserError
    return UserError(msg)


def os_error_message(e: OSError, path=None, verb: str = "cannot write") -> str:
    """'cannot write PATH: cause' for an OSError (ENOSPC reads 'no space left on device')."""
    where = path if path is not None else (e.filename or "?")
    cause = e.strerror or str(e) or type(e).__name__
    if e.errno == errno.ENOSPC:
        cause = "no space left on device; free some space or choose another path"
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


def check_output(path, kind: str = "file", option: str | None = None) -> Path:
    """Check that ``path`` can be written before any work is done; return it as a Path.

    ``kind="file"``: its folder must already exist (a missing folder is the
    user's typo more often than not) and an existing ``path`` must not be a
    folder.  ``kind="dir"``: the folder may exist or be created (its nearest
    existing ancestor must be a writable folder); an existing ``path`` must be
    a folder.  Creates nothing.
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
    return p


def check_outputs(*specs) -> None:
    """:func:`check_output` for each ``(path, kind, option)`` whose path is not None."""
    for spec in specs:
        path, kind, option = (tuple(spec) + (None, None))[:3]
        if path is not None:
            check_output(path, kind or "file", option)


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path next to ``path``; rename it onto ``path`` if the block
    succeeds, delete it otherwise.  OSError -> UserError naming ``path``."""
    p = Path(path)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
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


def atomic_write(path, data) -> Path:
    """Write ``data`` (str: UTF-8, or bytes) to ``path`` atomically; see :func:`atomic_path`."""
    raw = data.encode() if isinstance(data, str) else bytes(data)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(raw)
            f.flush()
    return Path(path)


def max_workers() -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def check_workers(n, option: str = "--workers") -> int:
    """``n`` if it is a whole number in 1 .. 4 x cores, else UserError (one rule everywhere)."""
    cap = max_workers()
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= cap:
        raise _user_error(f"{option} must be a whole number from 1 to {cap} "
                          f"({WORKERS_PER_CORE} x {os.cpu_count() or 1} cores), got {n!r}")
    return n
