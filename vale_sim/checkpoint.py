"""Checkpoints of long searches (``optimize``, ``exploit``, ``meta``): data, never code.

A checkpoint is one UTF-8 JSON object, written atomically (:func:`vale_sim.io.atomic_write`)::

    {"format": "vale-sim checkpoint", "version": 1, "kind": "search" | "meta",
     "run_digest": "<sha256 of the run's key>", "run": {<the run's key>}, "state": {...}}

* ``run`` is what determines the run's results (its options, the card set's digest,
  the objective; :func:`run_key`), ``run_digest`` the SHA-256 of its canonical JSON.
* :func:`read` checks, before anything is done with the content: the file is not a
  pickle (the format before this one: it is refused unread, since loading a pickle can
  run code), is UTF-8 JSON, has this format, version and kind, and -- given the key of
  the run being resumed -- belongs to that run.  Each problem is a one-line error naming
  the file, what is wrong and what to do (``--resume`` is refused, nothing runs).
* What ``state`` holds is the caller's (``vale_sim.optimize``: the generations' log,
  from which the CMA-ES state is rebuilt by replaying them; ``vale_sim.metagame``: the
  pair shares and iterations); the caller checks its fields and raises
  :class:`CheckpointError` when they do not fit.

docs/runs.md, "Checkpoints".
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

FORMAT = "vale-sim checkpoint"
VERSION = 1
PICKLE_SUFFIX = ".pkl"       # the checkpoints of before this format: never read


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed (one line: the file, the problem, the fix)."""


def _default(x):
    """JSON for numpy scalars and arrays (NaN stays NaN: the checkpoint is read back by
    Python's json, which keeps it, so a resumed run equals an uninterrupted one)."""
    if hasattr(x, "tolist"):
        return x.tolist()
    return repr(x)


def canonical(key) -> dict:
    """The run key as JSON data: objects that are not JSON (policies, card sets) by
    their ``repr`` (dataclasses: every field), keys sorted."""
    return json.loads(json.dumps(key, sort_keys=True, default=_default))


def run_digest(key) -> str:
    return hashlib.sha256(json.dumps(canonical(key), sort_keys=True)
                          .encode()).hexdigest()


def legacy_path(path) -> Path:
    """Where the same run kept its checkpoint in the pickle format (``X.checkpoint.pkl``
    for ``X.checkpoint.json``)."""
    p = Path(path)
    return p.with_suffix(PICKLE_SUFFIX)


def _refuse_pickle(path) -> CheckpointError:
    return CheckpointError(
        f"{path} is a checkpoint in the old pickle format, which vale-sim no longer reads "
        f"(loading a pickle can run code); move it away or delete it and run the command "
        f"without --resume (the run starts over)")


def check_no_legacy(path) -> None:
    """With ``--resume``: the run's checkpoint ``path`` is missing but the pickle of an
    older vale-sim is there -- refused unread (one line) rather than silently starting over."""
    p, old = Path(path), legacy_path(path)
    if not p.exists() and old.exists():
        raise _refuse_pickle(old)


def write(path, kind: str, key, state: dict) -> None:
    from .io import atomic_write
    doc = {"format": FORMAT, "version": VERSION, "kind": kind, "run_digest": run_digest(key),
           "run": canonical(key), "state": state}
    atomic_write(path, json.dumps(doc, default=_default))


def _differences(old, new, prefix="") -> list[str]:
    out = []
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            if old.get(k) != new.get(k):
                sub = _differences(old.get(k), new.get(k), f"{prefix}{k}.")
                out += sub or [f"{prefix}{k}"]
    return out


def read(path, kind: str, key=None, what: str = "run") -> dict:
    """The ``state`` of checkpoint ``path`` after every check of the module docstring
    (``key``: the run being resumed; None checks all but the run).  CheckpointError
    otherwise."""
    p = Path(path)
    fix = "delete it (or move it away) and run the command without --resume"
    try:
        raw = p.read_bytes()
    except OSError as e:
        from .io import os_error_message
        raise CheckpointError(os_error_message(e, p, "cannot read") + "; " + fix) from None
    if p.suffix == PICKLE_SUFFIX or raw[:1] == b"\x80":
        raise _refuse_pickle(p)
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise CheckpointError(f"{p} is not a vale-sim checkpoint (not UTF-8 text); {fix}") \
            from None
    except (ValueError, RecursionError) as e:
        why = str(e).splitlines()[0] if isinstance(e, ValueError) else "nested too deep"
        raise CheckpointError(f"{p} is not a vale-sim checkpoint (not JSON, or cut short: "
                              f"{why}); {fix}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CheckpointError(f"{p} is not a vale-sim checkpoint (no \"format\": \"{FORMAT}\" "
                              f"field); {fix}")
    if doc.get("version") != VERSION:
        raise CheckpointError(f"{p} is a checkpoint of version {doc.get('version')!r}; this "
                              f"vale-sim reads version {VERSION}; {fix}")
    if doc.get("kind") != kind:
        raise CheckpointError(f"{p} is a {doc.get('kind')!r} checkpoint, not a {kind!r} one; "
                              f"{fix}")
    if not isinstance(doc.get("state"), dict) or not isinstance(doc.get("run_digest"), str):
        raise CheckpointError(f"{p} is malformed (no state or run digest); {fix}")
    if key is not None and doc["run_digest"] != run_digest(key):
        diff = _differences(doc.get("run"), canonical(key))
        shown = ", ".join(diff[:4]) + (", ..." if len(diff) > 4 else "") if diff else \
            "its recorded options do not match its digest"
        raise CheckpointError(f"{p}: the checkpoint is of a different {what} (differs in: "
                              f"{shown}); use the same options or drop --resume")
    return doc["state"]


def malformed(path, why: str) -> CheckpointError:
    """The one line for a checkpoint whose state does not fit its schema."""
    return CheckpointError(f"{path} is malformed ({why}); delete it (or move it away) and "
                           f"run the command without --resume")


def check_resume(path, kind: str, resume: bool, what: str) -> None:
    """A command's check of its checkpoint ``path`` before any work (one line, exit 2):
    without ``--resume`` an existing checkpoint is refused (never overwritten
    silently); with it, an old pickle is refused unread and an existing checkpoint must
    pass :func:`read`'s checks of the file (its run is checked when the run's key is
    known, before any game)."""
    from .errors import UserError
    p = Path(path)
    if not resume:
        if p.exists():
            raise UserError(f"{p} exists (an earlier {what}): add --resume to continue it, "
                            f"or delete it")
        return
    try:
        check_no_legacy(p)
        if p.exists():
            read(p, kind)
    except CheckpointError as e:
        raise UserError(str(e)) from None
