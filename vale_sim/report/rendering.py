"""Rendering a report: ``index.html`` (self-contained) and ``report.md`` with
``figures/*.png`` and ``tables/*.csv`` (:func:`render`)."""
from __future__ import annotations

import base64
import html
import io
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .sections import Section


# Rendering
# ---------------------------------------------------------------------------
def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


#: Table columns shown in percent ("%": rates, shares) or percentage points ("pp":
#: differences of rates) in index.html and report.md; the CSVs keep fractions.
#: Regular expressions over the column names of every table ...
UNIT_PATTERNS = (
    ("%", r".*win_rate.*|win_(lo|hi)|tie_(rate|lo|hi)|p_spoil_(exact|sim)|sim_(lo|hi)"
          r"|p_prep_spoil|.*_vp_share(_lo|_hi)?|(natural_)?(overflow|truncated|acquired|acquire)_rate.*"
          r"|fair|ends_(VP|cubes|both|none)(_lo|_hi)?|seat1_win(_lo|_hi)?|trigger_win.*"
          r"|(withers|spoils)_per_turn.*|level2_sold_out.*|expected_(vs_mean|lo|hi)"
          r"|push_(rate|lo|hi)|mean_risk|decay_share|first_(share|lo|hi)|hybrid_share"),
    ("pp", r"(.*_)?max_seat_gap.*|(manual_|closest_|recommended_)?max_gap|spread(_lo|_hi)?"),
    ("+pp", r"strength(_lo|_hi|_lo_adj|_hi_adj)?|natural_(value|lo|hi)(_adj)?( \(.*\))?"
            r"|natural_(lo|hi)_adj|forced_(value|lo|hi)|per_pick_(value|lo|hi)"
            r"|below_zero_sum|lowest_natural_.*"
            r"|value_(a|b)(_lo|_hi)?"
            r"|exploitability(_lo|_hi)?|lift(_lo|_hi)?"
            r"|(strength|lo|hi) \(.*\)|change.*|seat_advantage.*|gap(_lo90|_hi90)?"
            r"|d_seat1_win.*|d_spread(_lo|_hi)?|effect(_lo|_hi)?|advantage(_lo|_hi)?"
            r"|win_cost(_lo|_hi)?"),
)
#: ... and per table, where a name means something else there ("" keeps the number):
#: the shared studies' tables here, a game's in its report module's ``TABLE_UNITS``
#: (:func:`table_units` merges them).
TABLE_UNITS = {
    "tournament_ranking": {"strength": ""},          # Bradley–Terry log-strength
}


def table_units(report_module=None) -> dict:
    """:data:`TABLE_UNITS` with the game's report module's ``TABLE_UNITS`` over it."""
    return {**TABLE_UNITS, **getattr(report_module, "TABLE_UNITS", {})}

#: How to read the tables (said once, at the top of the report).
TABLE_LEGEND = ("How to read the tables: columns marked (%) are rates in percent and (pp) "
                "differences of rates in percentage points (the CSVs in tables/ keep the "
                "fractions, at full precision); other numbers are shown to 3 decimals.  "
                "– : not applicable, not computed or not set (empty in the CSV); yes / no: true / "
                "false; ∞: no finite number (e.g. no sample size would do).  Long tables are "
                "collapsed: click a table's title to open it; wide tables scroll sideways.")


def _unit(table: str, column: str, units: dict | None = None) -> str:
    """The unit of ``column`` of table ``table`` (``units``: per-table overrides,
    default :data:`TABLE_UNITS`; a game's report: :func:`table_units`)."""
    import re
    col = str(column)
    own = (TABLE_UNITS if units is None else units).get(table, {})
    if col in own:
        return own[col]
    for unit, pat in UNIT_PATTERNS:
        if re.fullmatch(pat, col):
            return unit
    return ""


def _cell(x, unit: str = "", whole: bool = False) -> str:
    """One value as the documents show it (see :data:`TABLE_LEGEND`); ``whole``: a
    column of whole numbers stored as floats (shown without decimals)."""
    if x is None or (isinstance(x, float) and np.isnan(x)) or x is pd.NA or x is pd.NaT:
        return "–"
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, str) and x in _WORDS:       # a value already written as text
        return _WORDS[x]
    if isinstance(x, (float, np.floating)):
        if np.isinf(x):
            return "∞" if x > 0 else "−∞"
        if unit == "%":
            return f"{100 * x:.1f}"
        if unit == "pp":
            return f"{100 * x:.1f}"
        if unit == "+pp":
            return f"{100 * x:+.1f}"
        return f"{x:.0f}" if whole else f"{x:.3f}"
    return str(x)


_WORDS = {"None": "–", "nan": "–", "NaN": "–", "True": "yes", "False": "no"}


def _display(df: pd.DataFrame, max_rows: int = 80, name: str = "",
             units: dict | None = None) -> pd.DataFrame:
    """The first ``max_rows`` rows as text: rates in % and differences in pp (the
    column header says which), missing values "–", booleans yes/no."""
    d = df.head(max_rows).copy()
    cols = {}
    for c in d.columns:
        numeric = pd.api.types.is_float_dtype(d[c])
        unit = _unit(name, c, units) if numeric else ""
        finite = d[c][np.isfinite(d[c])] if numeric else None
        whole = bool(numeric and len(finite) and (finite == finite.round()).all()
                     and not unit and finite.abs().max() >= 10)
        d[c] = [_cell(x, unit, whole) for x in d[c]]
        cols[c] = f"{c} ({unit.lstrip('+')})" if unit else c
    return d.rename(columns=cols)


def _md_table(df: pd.DataFrame, name: str = "", units: dict | None = None) -> str:
    d = _display(df, name=name, units=units)
    esc = lambda x: str(x).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = ["| " + " | ".join(esc(c) for c in d.columns) + " |",
             "|" + "|".join("---" for _ in d.columns) + "|"]
    lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in d.itertuples(index=False)]
    if len(df) > len(d):
        lines.append(f"\n*First {len(d)} of {len(df)} rows; the CSV has all.*")
    return "\n".join(lines)


def _md_inline(text: str) -> str:
    """**bold** and `code` to HTML (the only markup paragraphs use)."""
    import re
    t = html.escape(text)
    t = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", t)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", t)


CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:12px;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#f3f3f3}figure{margin:1em 0}figcaption{font-style:italic;color:#444}
.tbl{overflow-x:auto;max-width:100%}code{background:#f3f3f3;padding:0 3px}
nav li{margin:2px 0}details{margin:.3em 0}summary{cursor:pointer;font-weight:600}
.legend{font-size:13px;color:#444;border-left:3px solid #ccc;padding-left:.6em}
td.nw{white-space:nowrap}
.first-screen{display:grid;grid-template-columns:1fr 1fr;gap:.2em 1.2em;margin:0 0 .6em}
.first-screen figure{margin:0}.first-screen img{width:100%;height:auto}
.first-screen figcaption{font-size:11.5px;line-height:1.3;font-style:normal}
@media (max-width:800px){.first-screen{grid-template-columns:1fr}}
p.provenance,p.terms{font-size:13px;color:#555;margin-top:-.4em}
a.gl{color:inherit;text-decoration:underline dotted}
dl.glossary dt{font-weight:600;margin-top:.6em}dl.glossary dd{margin-left:1.2em}"""


def _fig_png(fig) -> bytes:
    """``fig`` as PNG bytes; the figure is closed (a section's figure is rendered once:
    a pyplot figure left open would stay in memory for the whole report)."""
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    finally:
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            plt.close(fig)
    return buf.getvalue()


#: A table shown open (a section's top table) with more rows than this is
#: collapsed all the same: its title says so.
OPEN_MAX_ROWS = 20


def _table_html(name: str, df: pd.DataFrame, out: Path, shown: bool,
                units: dict | None = None) -> str:
    """Write ``tables/<name>.csv``; the table as a ``<details>`` block, open when
    ``shown`` and at most :data:`OPEN_MAX_ROWS` rows long; it scrolls sideways
    when wider than the page."""
    fn = f"{_slug(name)}.csv"
    df.to_csv(out / "tables" / fn, index=False)
    more = f"<p><i>First 80 of {len(df)} rows; the CSV has all.</i></p>" if len(df) > 80 else ""
    long = shown and len(df) > OPEN_MAX_ROWS
    note = "; collapsed, click to open" if long else ""
    return (f'<details id="tbl-{_slug(name)}"{" open" if shown and not long else ""}><summary>'
            f'Table: {html.escape(name)} <small>({len(df)} rows{note}, tables/{fn})</small>'
            '</summary><div class="tbl">'
            + _nowrap(_display(df, name=name, units=units).to_html(index=False, border=0,
                                                                   escape=True))
            + f"</div>{more}</details>")


def _nowrap(table_html: str) -> str:
    """Short cells (a card name, a schedule such as ``- / 1m1s``) kept on one line:
    class ``nw``; long ones (notes, JSON) still wrap."""
    import re
    return re.sub(r"<td>([^<]{1,32})</td>", r'<td class="nw">\1</td>', table_html)


def _table_md(name: str, df: pd.DataFrame, where: str = "", shown: bool = False,
              units: dict | None = None) -> str:
    """The table in Markdown; a shown table longer than :data:`OPEN_MAX_ROWS` rows
    inside ``<details>`` (collapsed where the Markdown viewer supports it)."""
    fn = f"{_slug(name)}.csv"
    head = f"**Table: {name}** ({where}{len(df)} rows, [tables/{fn}](tables/{fn}))"
    if shown and len(df) > OPEN_MAX_ROWS:
        return (f"<details><summary>Table: {html.escape(name)} ({len(df)} rows; collapsed, "
                f"tables/{fn})</summary>\n\n{head}\n\n{_md_table(df, name, units)}\n\n</details>")
    return head + "\n\n" + _md_table(df, name, units)


def _figure_html(name: str, png: bytes, caption: str, seen: set | None = None,
                 head: str = "") -> str:
    """A figure with its caption; ``seen``: link the caption's glossary terms not in
    it (None: none); ``head``: HTML put before the caption (the first screen's
    title, linked to its section)."""
    from .glossary import link_terms
    b64 = base64.b64encode(png).decode()
    text = html.escape(caption)
    return (f'<figure id="fig-{_slug(name)}"><img alt="{html.escape(name)}" '
            f'src="data:image/png;base64,{b64}" style="max-width:100%">'
            f"<figcaption>{head}{text if seen is None else link_terms(text, seen)}"
            f"</figcaption></figure>")


def render(sections: list[Section], out: Path, title: str, first=(), glossary: bool = True,
           units: dict | None = None) -> None:
    """Write index.html, report.md, figures/*.png and tables/*.csv into ``out``
    (``units``: the tables' unit overrides, :func:`table_units` of the game's report).

    Order: the first screen (``first``: :class:`.first_screen.Panel` figures, before
    any prose), then each section's ``top_tables`` (open), paragraphs, verdicts
    (``bullets``: ``(heading, sentences)`` or ``(heading, sentences, note)``, the note
    said once after them) and figures; its full tables come last, collapsed in the
    HTML and gathered in an appendix of the Markdown.  ``glossary``: the glossary
    (:mod:`.glossary`) as the last section; in the HTML the first use of a term in
    the first screen's captions links to it, and in a section with ``glossary_links``
    (the executive summary) a line after its paragraphs and after each heading's
    verdicts links the terms they use (the sentences themselves are left as they are).
    """
    from .glossary import GLOSSARY_INTRO, GLOSSARY_TITLE, glossary_html, glossary_markdown, \
        terms_line
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    md = [f"# {title}", ""]
    appendix = []
    body = [f"<h1>{html.escape(title)}</h1>"]
    if first:                       # one screen of pictures, before any prose
        seen = set()
        where = {s.title: i for i, s in enumerate(sections, 1)}
        body.append('<div class="first-screen" id="first-screen">')
        for p in first:
            png = _fig_png(p.figure)
            (out / "figures" / f"{_slug(p.name)}.png").write_bytes(png)
            head = html.escape(p.title)
            if p.link in where:
                head = f'<a href="#s{where[p.link]}">{head}</a>'
            body.append(_figure_html(p.name, png, p.caption.removeprefix(p.title + ": "), seen,
                                     head=f"<b>{head}</b>: "))
            md += [f"![{p.name}](figures/{_slug(p.name)}.png)", "", f"*{p.caption}*", ""]
        body.append("</div>")
    n_gl = len(sections) + 1 if glossary else None
    titles = [s.title for s in sections] + ([GLOSSARY_TITLE] if glossary else [])
    body.append("<nav><ol>")
    body += [f'<li><a href="#s{i}">{html.escape(t)}</a></li>' for i, t in enumerate(titles, 1)]
    body.append("</ol></nav>")
    body.append(f'<p class="legend">{_md_inline(TABLE_LEGEND)}'
                + (f'  Words such as TOST, Benjamini–Hochberg or deal clustering are explained '
                   f'in plain words in the <a href="#s{n_gl}">glossary</a>; the figures above and '
                   f'the executive summary link the ones they use.'
                   if glossary else "") + "</p>")
    md += [f"{i}. [{t}](#s{i})" for i, t in enumerate(titles, 1)]
    md += [f"{len(titles) + 1}. [Appendix: full tables](#tables)", "",
           f"*{TABLE_LEGEND}*" + (f"  *Words such as TOST, Benjamini–Hochberg or deal clustering "
                                  f"are explained in plain words in the [glossary](#s{n_gl}).*"
                                  if glossary else ""), ""]
    for i, s in enumerate(sections, 1):
        seen = set()                       # the glossary terms already listed here
        body.append(f'<section id="s{i}"><h2>{i}. {html.escape(s.title)}</h2>')
        md += [f'<a id="s{i}"></a>', f"## {i}. {s.title}", ""]
        for name, df in s.top_tables.items():
            body.append(_table_html(name, df, out, shown=True, units=units))
            md += [_table_md(name, df, shown=True, units=units), ""]
        for p in s.paragraphs:
            body.append(f"<p>{_md_inline(p)}</p>")
            md += [p, ""]
        if s.glossary_links:
            body.append(terms_line(s.paragraphs, seen))
        for heading, lines, *note in s.bullets:
            body.append(f"<h3>{html.escape(heading)}</h3><ul>"
                        + "".join(f"<li>{_md_inline(x)}</li>" for x in lines) + "</ul>")
            md += [f"**{heading}**", ""] + [f"- {x}" for x in lines] + [""]
            if note and note[0]:
                body.append(f'<p class="provenance">{_md_inline(note[0])}</p>')
                md += [f"*{note[0]}*", ""]
            if s.glossary_links:
                body.append(terms_line(list(lines) + note[:1], seen))
        for name, fig, caption in s.figures:
            png = _fig_png(fig)
            fn = f"{_slug(name)}.png"
            (out / "figures" / fn).write_bytes(png)
            body.append(_figure_html(name, png, caption))
            md += [f"![{name}](figures/{fn})", "", f"*{caption}*", ""]
        for name, df in s.tables.items():
            body.append(_table_html(name, df, out, shown=False, units=units))
            appendix += [_table_md(name, df, f"section {i}; ", units=units), ""]
        body.append("</section>")
    if glossary:
        body.append(f'<section id="s{n_gl}"><h2>{n_gl}. {html.escape(GLOSSARY_TITLE)}</h2>'
                    f"<p>{html.escape(GLOSSARY_INTRO)}</p>{glossary_html()}</section>")
        md += [f'<a id="s{n_gl}"></a>', glossary_markdown(f"## {n_gl}. {GLOSSARY_TITLE}"), ""]
    md += ['<a id="tables"></a>', f"## {len(titles) + 1}. Appendix: full tables", ""] + appendix
    doc = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
           f"<style>{CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n")
    (out / "index.html").write_text(doc, encoding="utf-8")
    (out / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")
