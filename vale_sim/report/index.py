"""Report folders: what one is (:func:`is_report_folder`) and the index page
linking every report of a folder (:func:`write_index`)."""
from __future__ import annotations

import html
import json
from pathlib import Path

from .manifest import REPORT_MANIFEST
from .rendering import CSS

INDEX_TITLE = "<title>vale-sim reports</title>"
INDEX_CSS = (".reports{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));"
             "gap:0 1.5em}ul.headlines{list-style:none;padding:0}li.headline{overflow:hidden;"
             "margin:.4em 0;font-size:13px}li.headline img{float:left;margin:0 .6em .2em 0;"
             "border:1px solid #ddd}section.report{border-top:1px solid #ccc}"
             "section.report p{font-size:14px}")


def is_report_folder(path) -> bool:
    """``path`` holds a vale-sim report: its ``manifest.json`` is a report's (size,
    settings and code version), or a ``vale-sim run`` manifest of a report study."""
    from vale_sim.io import read_manifest
    m = read_manifest(Path(path) / REPORT_MANIFEST)
    if m is None:
        return False
    return ({"size", "settings", "code"} <= m.keys()
            or (m.get("study") == "report" and "key" in m))


def _is_index(page: Path) -> bool:
    try:
        return INDEX_TITLE in page.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def write_index(folder="results", force: bool | None = None) -> Path:
    """Write ``folder/index.html``: one entry per report folder in ``folder`` (a
    sub-folder with ``index.html`` and ``manifest.json``): a link with its game,
    size, engine, date and seconds, and its headline verdicts (the first screen's
    readings with n and interval, and every verdict of its executive summary), all
    read from the manifest (:func:`_report_entry`).  Atomic; no games."""
    from vale_sim.io import atomic_write, check_output
    from vale_sim.games import DEFAULT_GAME, get_game
    root = Path(folder)
    page = root / "index.html"
    # only an earlier index is replaced (or --force), never another page
    check_output(page, "file", "--index", force=force, ours=_is_index)
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
        rows.append(_report_entry(d.name, title, m))
    body = ("<h1>vale-sim balance reports</h1><p>One report per game, each self-contained "
            "(figures embedded); every rate has its n and a 95% interval, every estimated "
            "number is marked.  Under each report: its headline verdicts, read from its "
            "<code>manifest.json</code>.  Rebuild with <code>make report</code>.</p>"
            + (f'<div class="reports">{"".join(rows)}</div>' if rows else
               "<p>No report built yet: run <code>make report</code>.</p>"))
    doc = (f"<!DOCTYPE html><html><head><meta charset='utf-8'>{INDEX_TITLE}"
           f"<style>{CSS}{INDEX_CSS}</style></head><body>{body}</body></html>\n")
    return atomic_write(root / "index.html", doc)


def _report_entry(name: str, title: str, m: dict) -> str:
    """One report of the index: its link and facts, then its headline verdicts from
    the manifest's ``first_screen`` (each reading with its n and interval, the
    figure's thumbnail beside it) and ``verdicts`` (the executive summary, collapsed).
    A report built before the manifest held them says so."""
    e = html.escape
    q = e(name)
    size = str(m.get("size"))
    head = (f'<h2><a href="{q}/index.html">{e(title)}</a></h2><p>{q}/: size {e(size)}'
            + (" (<b>small samples: not for decisions</b>)" if size != "full" else "")
            + f', engine {e(str(m.get("engine")))}, built {e(str(m.get("created")))} in '
            f'{e(str(m.get("seconds", "?")))} s (<a href="{q}/report.md">Markdown</a>, tables '
            f"as CSV in {q}/tables/)</p>")
    panels = [p for p in m.get("first_screen") or [] if isinstance(p, dict)]
    verdicts = [v for v in m.get("verdicts") or [] if isinstance(v, dict)]
    if not panels and not verdicts:
        return (head + "<p><i>This report was built before reports recorded their verdicts "
                       "in manifest.json: rebuild it to see them here.</i></p>")
    items = []
    for p in panels:
        img = (f'<img src="{q}/{e(str(p["figure"]))}" alt="{e(str(p.get("name", "")))}" '
               f'width="150">' if p.get("figure") else "")
        items.append(f'<li class="headline">{img}<b>{e(str(p.get("title", "")))}</b>: '
                     f'{e(str(p.get("reading", "")))} n = {e(str(p.get("n", "")))}; '
                     f'bars: {e(str(p.get("interval", "")))}.</li>')
    out = head + (f'<ul class="headlines">{"".join(items)}</ul>' if items else "")
    if verdicts:
        out += ('<details><summary>Every verdict of the executive summary</summary>' + "".join(
            f'<h3>{e(str(v.get("heading", "")))}</h3><ul>'
            + "".join(f"<li>{e(str(x))}</li>" for x in v.get("sentences") or [])
            + "</ul>" + (f'<p class="provenance">{e(str(v["provenance"]))}</p>'
                         if v.get("provenance") else "")
            for v in verdicts) + "</details>")
    return f'<section class="report">{out}</section>'
