"""``kernel``: the one numba decorator of every game's fast engine (its options in one place).

Shared by the games (``vale_sim/games/<game>/fast/``): a game's engine package
calls :func:`register_engine` from its ``__init__`` with its source folder and
its compile notices.

``_nrt=False`` compiles without numba's reference-counting runtime.  The kernels
never allocate: every array comes from the caller, which holds it for the whole
call.  With the runtime, each njit -> njit call that LLVM does not inline made
six calls to ``NRT_incref`` / ``NRT_decref`` for its three array arguments, about a
fifth of the engine's time.  A kernel compiled this way cannot create arrays
(``np.zeros`` and the like); numba refuses at compile time.  ``_nrt`` is a
private numba option: pyproject pins numba to the versions it was tested with.

numba's on-disk cache is keyed on the source file of each function only, so an
edit to ``state.py``, ``tables.py`` or ``rng.py`` (whose constants and helpers
are compiled into ``engine.py``'s kernels) would leave stale machine code in
use.  :func:`drop_stale_cache` clears an engine package's cache whenever any
source file of its folder, of ``vale_sim/kernels`` or of the extra files it
names (e.g. a game's ``cards.py`` vocabularies) changes.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from numba import njit
from numba.core import event as _event

HERE = Path(__file__).resolve().parent


def sources_digest(*folders: Path, files=()) -> str:
    """A hash of the ``*.py`` files of ``folders`` and of ``vale_sim/kernels``, and of
    ``files`` (single files outside those folders whose constants the kernels compile in)."""
    h = hashlib.sha256()
    for folder in (HERE, *folders):
        for p in sorted(Path(folder).glob("*.py")):
            h.update(p.name.encode())
            h.update(p.read_bytes())
    for p in files:
        h.update(Path(p).name.encode())
        try:
            h.update(Path(p).read_bytes())
        except OSError:
            pass
    return h.hexdigest()[:16]


def drop_stale_cache(cache_dir: Path = HERE / "__pycache__", *folders: Path, files=()) -> bool:
    """Delete numba cache files in ``cache_dir`` compiled from other sources (of
    ``folders``, ``files`` and ``vale_sim/kernels``); True if any were dropped."""
    stamp = cache_dir / "numba-sources.stamp"
    digest = sources_digest(*folders, files=files)
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    dropped = False
    for f in list(cache_dir.glob("*.nbi")) + list(cache_dir.glob("*.nbc")):
        try:
            f.unlink()
            dropped = True
        except OSError:
            pass
    try:
        cache_dir.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass                     # read-only install: numba falls back to its own cache dir
    return dropped


drop_stale_cache()


def kernel(fn=None, *, inline: bool = False):
    """``njit`` with the fast engine's options: cached, no reference counting.

    ``@kernel(inline=True)``: a small helper numba inlines into its callers.  A
    call that is not inlined passes each array argument as some ten machine words;
    on a hot path with many arrays (the spoil kernels) that costs more than the
    helper's work."""
    if fn is None:
        return lambda f: kernel(f, inline=inline)
    if inline:
        return njit(cache=True, _nrt=False, inline="always")(fn)
    return _one_specialisation(njit(cache=True, _nrt=False)(fn))


def _one_specialisation(dispatcher):
    """Compile a kernel called from other kernels once per argument *type*, not once
    per constant: numba types a constant argument as a literal (``Literal[int](0)``)
    and, left alone, compiles and caches a separate copy of the callee (and of all
    it calls) for each constant a caller passes.  The machine code is the same
    function either way; one copy halves the number of overloads to compile."""
    from numba.core import types
    get = dispatcher.get_call_template

    def get_call_template(args, kws):
        return get(tuple(types.unliteral(a) for a in args),
                   {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


# ---------------------------------------------------------------------------
# First run: say so when numba compiles, and how long compiling took
# ---------------------------------------------------------------------------
COMPILE_NOTICE: dict = {}                # module -> (what, typical seconds on one core)


def register_engine(folder: Path, notices: dict, files=()) -> None:
    """An engine package's set-up (called from its ``__init__``): drop its stale numba
    cache (:func:`drop_stale_cache` over its folder, ``vale_sim/kernels`` and ``files``,
    e.g. a card vocabulary module outside the folder) and announce the compilation of
    ``notices`` (module -> (what, typical seconds on one core)) the first time it
    happens."""
    folder = Path(folder)
    drop_stale_cache(folder / "__pycache__", folder, files=files)
    COMPILE_NOTICE.update(notices)


class _CompileWatch(_event.Listener):
    """A numba event listener: numba fires "numba:compile" only when it really
    compiles (not when it loads machine code from its cache).  The first time a
    kernel of a COMPILE_NOTICE module compiles, "compiling the ... (once, ~N s)..."
    goes to stderr; ``total`` sums the wall time of outermost compilations."""

    def __init__(self):
        self.depth = 0
        self.started = 0.0
        self.total = 0.0
        self.announced: set = set()
        self.stream = None

    def on_start(self, event):          # required by Listener; notify does the work
        pass

    def on_end(self, event):
        pass

    def notify(self, event):
        import sys
        import time
        if event.is_start:
            outermost = self.depth == 0
            if outermost:
                self.started = time.perf_counter()
            self.depth += 1
            d = (event.data or {}).get("dispatcher")
            mod = getattr(getattr(d, "py_func", None), "__module__", "") or ""
            what = COMPILE_NOTICE.get(mod) if outermost else None   # callees: part of it
            if what and what[0] not in self.announced:
                self.announced.add(what[0])
                print(f"compiling the {what[0]} (once, ~{what[1]} s)...",
                      file=self.stream or sys.stderr, flush=True)
        else:
            self.depth = max(0, self.depth - 1)
            if self.depth == 0:
                self.total += time.perf_counter() - self.started


_WATCH = _CompileWatch()


def _install_watch() -> None:
    _event.register("numba:compile", _WATCH)


_install_watch()


def compile_seconds() -> float:
    """Seconds this process has spent compiling numba kernels so far (cache loads
    excluded); subtract two readings to leave compilation out of a timing."""
    return _WATCH.total


def cache_is_cold(*dispatchers) -> bool:
    """True when numba has no cache index for one of ``dispatchers`` yet, i.e. their
    first call compiles (instead of loading machine code from the cache)."""
    import os
    for d in dispatchers:
        if getattr(d, "signatures", None):
            continue                                  # already compiled in this process
        try:
            index = d._cache._cache_file._index_path
        except AttributeError:                        # no cache (or another numba layout)
            return False
        if not os.path.exists(index):
            return True
    return False
