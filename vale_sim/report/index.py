"""Report folders: what one is (:func:`is_report_folder`) and the index page
linking every report of a folder (:func:`write_index`)."""
from __future__ import annotations

import html
import json
from pathlib import Path

from .manifest import REPORT_MANIFEST
from .rendering import CSS

INDEX_TITLE = "<title>vale-sim reports</title>"


def is_report_folder(path) -> bool:
    """``path`` holds a vale-sim report: its ``manifest.json`` is a report's (size,
    settings and code version), or a ``vale-sim run`` manifest of a report study."""
    from vale_sim.io import read_manifest
    m = read_manifest(Path(path) / REPORT_MANIFEST)
    if m is None:
        return False
    return ({"size", "settings", "code"} <= m.keys()
            or (m.get("study") == "report" and "key" in m))


def write_index(folder="results") -> Path:
    """Write ``folder/index.html``: one link per report folder in ``folder`` (a
    sub-folder with ``index.html`` and ``manifest.json``), with its game, size,
    engine, date and seconds, read from the manifest.  Atomic; no games."""
    from vale_sim.errors import UserError
    from vale_sim.io import atomic_write, check_output
    from vale_sim.games import DEFAULT_GAME, get_game
    root = Path(folder)
    page = root / "index.html"
    check_output(page, "file", "--index")
    if page.is_file():                  # only an earlier index is replaced, never another page
        try:
            ours = INDEX_TITLE in page.read_text(encoding="utf-8", errors="replace")
        except OSError:
            ours = False
        if not ours:
            raise UserError(f"refusing to replace --index {page}: it is not an index written by "
                            f"vale-sim (a report's own page?); give the folder that holds the "
                            f"report folders")
    rows = []
    for d in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        mf, page = d / "manifest.json", d / "index.html"
        if not (mf.is_file() and page.is_file()):
            continue
        try:
            m = json.loads(mf.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(m, dict) or "size" not in m:
            continue
        game = m.get("game", DEFAULT_GAME)          # reports written before games
        try:
            title = get_game(game).title
        except ValueError:
            title = game
        rows.append(f'<li><a href="{html.escape(d.name)}/index.html">{html.escape(title)}</a> '
                    f'— {html.escape(d.name)}/: size {html.escape(str(m.get("size")))}, engine '
                    f'{html.escape(str(m.get("engine")))}, built {html.escape(str(m.get("created")))}'
                    f' in {m.get("seconds", "?")} s (<a href="{html.escape(d.name)}/report.md">'
                    f'Markdown</a>, tables as CSV in {html.escape(d.name)}/tables/)</li>')
    body = ("<h1>vale-sim balance reports</h1><p>One report per game, each self-contained "
            "(figures embedded); every rate has its n and a 95% interval, every estimated "
            "number is marked.  Rebuild with <code>make report</code>.</p><ul>"
            + ("".join(rows) or "<li>No report built yet: run <code>make report</code>.</li>")
            + "</ul>")
    doc = (f"<!DOCTYPE html><html><head><meta charset='utf-8'>{INDEX_TITLE}"
           f"<style>{CSS}</style></head><body>{body}</body></html>\n")
    return atomic_write(root / "index.html", doc)
