"""The balance report: one command, one folder, readable offline.

    build_report("results/report", settings)                      # `vale-sim report`
    build_report(tmp, game.report's Settings.make(size="tiny"), game=name)   # tests

This package is the shell every game's report shares; the game gives its
sections.  ``Game.report`` names the game's report module, which provides
``Settings`` (sizes per preset, ``.make``), ``sections()`` (a list of *section
functions*), ``title(settings)``, ``verdicts(ctx)`` and ``estimated_share(ctx)``
for the executive summary (optionally ``summary_paragraphs(ctx)``, and
``first_screen(ctx)``: the figures shown before any prose, see :mod:`.first_screen`),
``settings_from_config`` / ``settings_from_args`` (``vale-sim run`` and
``vale-sim report``), ``DEFAULT_OUT``, ``EXPERIMENT_FILE`` and
``TAKES_BASELINE``.  Each section function takes the shared :class:`Context`
and returns a :class:`Section` — a title, paragraphs, named tables
(DataFrames) and figures ``(name, Figure, caption)`` whose caption is a
one-line reading computed from the numbers.  A section whose analysis module is
not available raises :class:`SectionUnavailable`; the report then shows that
message in its place.

* :mod:`.sections` -- :class:`Section`, the manifest and executive-summary sections;
* :mod:`.context` -- :class:`Context`, the settings presets, helpers;
* :mod:`.rendering` -- ``index.html`` and ``report.md``;
* :mod:`.first_screen` -- the first screen: the game's :class:`Panel` figures
  (its optional hook ``first_screen(ctx)``), shown before any prose;
* :mod:`.glossary` -- the plain-words glossary every report ends with;
* :mod:`.index` -- report folders and the index of a folder of reports (with each
  report's headline verdicts, read from its ``manifest.json``);
* :mod:`.manifest` -- ``manifest.json``.

Output (built in a temporary folder, then moved into place, so a failed or
interrupted build never leaves a half-written report):

* ``index.html`` — self-contained (figures embedded as base64 PNG, no
  external assets);
* ``report.md`` with ``figures/*.png`` beside it;
* ``tables/*.csv`` — every table at full precision;
* ``manifest.json`` — settings, seeds, games, card-set hash and sources,
  code version, engine, timings; the first screen's readings (``first_screen``)
  and the executive summary's verdicts (``verdicts``), which the index shows.
"""
from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path

from .context import (SIZES, Context, _bar, _log, _need, _new_fig, _pct, _store, game_report,
                      settings_from_preset)
from .first_screen import Panel, first_screen
from .index import INDEX_TITLE, is_report_folder, write_index
from .manifest import REPORT_ENTRIES, REPORT_MANIFEST, _manifest
from .rendering import (CSS, OPEN_MAX_ROWS, TABLE_LEGEND, TABLE_UNITS, UNIT_PATTERNS, _cell,
                        _display, _fig_png, _md_inline, _md_table, _nowrap, _slug, _table_html,
                        _table_md, _unit, render, table_units)
from .sections import (QUICK_NOTE, Section, SectionUnavailable, section_exploitability,
                       section_manifest, section_summary)


def build_report(out=None, settings=None, *, sections=None, progress: bool = True,
                 store=None, keep=(), game=None) -> dict:
    """Build the report into ``out`` (replaced as a whole when complete).

    ``game``: whose report (default: the registry's default game); its report module
    (``Game.report``) gives the settings (``settings``: default its ``Settings.make()``),
    the sections (``sections``: default its ``sections()``) and the title; a game
    without a report raises ValueError.  ``out``: default the module's ``DEFAULT_OUT``.
    ``store``: a :class:`vale_sim.store.ChunkStore` to cache games (re-use chunks).
    ``keep``: names inside an existing ``out`` carried over into the new one
    (e.g. a chunk cache).  Returns the manifest.
    """
    from vale_sim.games import DEFAULT_GAME, get_game
    g = get_game(game or DEFAULT_GAME)
    mod = game_report(g)
    settings = settings or mod.Settings.make()
    sections = list(sections or mod.sections())
    title = mod.title(settings)
    out = out if out is not None else mod.DEFAULT_OUT
    from vale_sim.errors import UserError
    from vale_sim.io import check_replaceable, os_error_message, replace_folder
    out = Path(out)
    # Before any game: an --out holding anything but an earlier report is refused.
    check_replaceable(out, is_report_folder, "vale-sim report", keep=keep,
                      allowed=REPORT_ENTRIES)
    ctx = Context(settings, store=store, progress=progress, game=g.name)
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    built = []
    with replace_folder(out, keep=keep) as tmp:
        _log(ctx, f"vale-sim report: size {settings.size}, engine {settings.engine}, "
                  f"{len(sections)} sections -> {out}/")
        if settings.fallback_note:
            _log(ctx, "  note: " + settings.fallback_note)
        for i, fn in enumerate(sections, 1):
            name = fn.__name__.removeprefix("section_")
            if fn is section_manifest:
                ctx.results["manifest"] = _manifest(ctx, started, time.perf_counter() - t0)
            _log(ctx, f"[{i}/{len(sections)}] {name} ...")
            ts = time.perf_counter()
            try:
                sec = fn(ctx)
            except SectionUnavailable as e:
                _log(ctx, f"  unavailable: {e}")
                sec = Section(f"{name.replace('_', ' ').capitalize()} (not available)",
                              [f"This section could not be built: {e}."])
            ctx.timings[name] = time.perf_counter() - ts
            _log(ctx, f"[{i}/{len(sections)}] {name} done in {ctx.timings[name]:.1f} s")
            built.append(sec)
        summary = section_summary(ctx)
        ts = time.perf_counter()
        panels = first_screen(ctx)           # from what the sections found: no games
        ctx.timings["first_screen"] = time.perf_counter() - ts
        _log(ctx, f"first screen: {len(panels)} figures in {ctx.timings['first_screen']:.1f} s")
        manifest = _manifest(ctx, started, time.perf_counter() - t0)
        manifest["first_screen"] = [p.record() for p in panels]
        manifest["verdicts"] = [{"heading": h, "sentences": list(lines),
                                 **({"provenance": rest[0]} if rest and rest[0] else {})}
                                for h, lines, *rest in summary.bullets]
        try:
            render([summary] + built, tmp, title, first=panels, units=table_units(mod))
            (tmp / REPORT_MANIFEST).write_text(json.dumps(manifest, indent=2, default=str))
        except OSError as e:              # e.g. a full disk: one line naming --out, nothing half-written
            raise UserError(os_error_message(e, out)) from None
    _log(ctx, f"report written to {out}/index.html and {out}/report.md "
              f"in {time.perf_counter() - t0:.0f} s")
    return manifest

