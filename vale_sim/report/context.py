"""What a report's sections share: the settings presets
(:func:`settings_from_preset`), the :class:`Context` and small helpers."""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field

import numpy as np

from vale_sim.games import DEFAULT_GAME

from .sections import SectionUnavailable

SIZES = ("full", "quick", "tiny")


def game_report(game):
    """The report module of ``game`` (``Game.report``); ValueError, one line, when it
    has none."""
    from vale_sim.games import get_game
    from vale_sim.study import resolve
    g = get_game(game)
    if g.report is None:
        raise ValueError(f"no report for {g.name} yet (use tournament or simulate)")
    return resolve(g.report)


def settings_from_preset(cls, size: str, quick: bool, engine: str, overrides: dict,
                         fast_available, fallback_note: str, tuple_fields=()):
    """A report settings dataclass ``cls`` (a ``PRESETS`` dict: size -> (fast sizes,
    reference sizes); fields ``size``, ``engine``, ``fallback_note``) for ``size``
    (``quick=True`` means "quick"), with the fast sizes when ``engine`` is "fast" and
    ``fast_available()`` (asked only then) is true, else the reference sizes and
    ``fallback_note``.
    ``overrides``: any other field (lists in ``tuple_fields`` become tuples).  Raises
    ValueError naming a bad size, engine or field; calls the settings' ``check``."""
    if quick and size == "full":
        size = "quick"
    if size not in SIZES:
        raise ValueError(f"size must be one of {SIZES}, got {size!r}")
    if engine not in ("fast", "reference"):
        raise ValueError(f"engine must be 'fast' or 'reference', got {engine!r}")
    names = {f.name for f in dataclasses.fields(cls)} - {"size", "engine", "fallback_note"}
    for k in overrides:
        if k not in names:
            raise ValueError(f"unknown report size {k!r}; known: {', '.join(sorted(names))}")
    note = ""
    if engine == "fast" and not fast_available():
        engine, note = "reference", fallback_note
    fast_sizes, ref_sizes = cls.PRESETS[size]
    base = dict(fast_sizes if engine == "fast" else ref_sizes)
    base.update(overrides)
    for k in tuple_fields:
        if isinstance(base.get(k), list):
            base[k] = tuple(base[k])
    s = cls(size=size, engine=engine, fallback_note=note, **base)
    s.check()
    return s


@dataclass
class Context:
    """What section functions share: settings, the game store, earlier results."""
    settings: object                       # the game's report Settings
    store: object = None                   # store.ChunkStore (cached runs) or None
    results: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    progress: bool = True
    game: str = DEFAULT_GAME               # the --game whose report this is

    def card_set(self):
        from vale_sim.games import get_game
        return get_game(self.game).load_card_set(self.settings.card_set)

    def report_module(self):
        """The game's report module (``Game.report``)."""
        return game_report(self.game)


def _need(module: str, what: str):
    import importlib
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and module.endswith(e.name.split(".")[-1]):
            raise SectionUnavailable(f"the {what} section needs {module}, which is not built yet") from None
        raise


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------
def _pct(x, digits=1) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:.{digits}f}%"


def _new_fig(w=7, h=4):
    from matplotlib.figure import Figure
    fig = Figure(figsize=(w, h))
    return fig, fig.subplots()


def _store(ctx):
    from vale_sim.store import ChunkStore
    if ctx.store is None:
        ctx.store = ChunkStore(None, progress=ctx.progress)
    return ctx.store


def _bar(ctx, total, desc, unit="game"):
    if not ctx.progress:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit=unit, leave=False, file=sys.stderr,
                disable=not sys.stderr.isatty())


def _log(ctx, msg: str) -> None:
    if ctx.progress:
        print(msg, file=sys.stderr, flush=True)
