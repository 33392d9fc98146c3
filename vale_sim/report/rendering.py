"""Rendering a report: ``index.html`` (self-contained) and ``report.md`` with
``figures/*.png`` and ``tables/*.csv`` (:func:`render`)."""
from __future__ import annotations

import base64
import html
import io
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
          r"|(withers|spoils)_per_turn.*|level2_sold_out.*|expected_(vs_mean|lo|hi)"),
    ("pp", r"(.*_)?max_seat_gap.*|(manual_|closest_|recommended_)?max_gap|spread(_lo|_hi)?"),
    ("+pp", r"strength(_lo|_hi|_lo_adj|_hi_adj)?|natural_(value|lo|hi)(_adj)?( \(.*\))?"
            r"|natural_(lo|hi)_adj|forced_(value|lo|hi)|below_zero_sum|lowest_natural_.*"
            r"|value_(a|b)(_lo|_hi)?"
            r"|exploitability(_lo|_hi)?|lift(_lo|_hi)?"
            r"|(strength|lo|hi) \(.*\)|change.*|seat_advantage.*|gap(_lo90|_hi90)?"
            r"|d_seat1_win.*|d_spread(_lo|_hi)?|effect(_lo|_hi)?|advantage(_lo|_hi)?"),
)
#: ... and per table, where a name means something else there ("" keeps the number).
TABLE_UNITS = {
    "tournament_ranking": {"strength": ""},          # Bradley–Terry log-strength
    "pool_recommendation_seat_advantage": {
        **dict.fromkeys(("margin", "value", "value_lo", "value_hi", "goal", "rulebook_value",
                         "rulebook_value_lo", "rulebook_value_hi"), "pp"),
        **dict.fromkeys(("difference", "difference_lo", "difference_hi", "rulebook_difference",
                         "rulebook_difference_lo", "rulebook_difference_hi"), "+pp")},
    "seat_recommendations": {"margin": "pp"},
}

#: How to read the tables (said once, at the top of the report).
TABLE_LEGEND = ("How to read the tables: columns marked (%) are rates in percent and (pp) "
                "differences of rates in percentage points (the CSVs in tables/ keep the "
                "fractions, at full precision); other numbers are shown to 3 decimals.  "
                "– : not applicable, not computed or not set (empty in the CSV); yes / no: true / "
                "false; ∞: no finite number (e.g. no sample size would do).  Long tables are "
                "collapsed: click a table's title to open it; wide tables scroll sideways.")


def _unit(table: str, column: str) -> str:
    import re
    col = str(column)
    own = TABLE_UNITS.get(table, {})
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


def _display(df: pd.DataFrame, max_rows: int = 80, name: str = "") -> pd.DataFrame:
    """The first ``max_rows`` rows as text: rates in % and differences in pp (the
    column header says which), missing values "–", booleans yes/no."""
    d = df.head(max_rows).copy()
    cols = {}
    for c in d.columns:
        numeric = pd.api.types.is_float_dtype(d[c])
        unit = _unit(name, c) if numeric else ""
        finite = d[c][np.isfinite(d[c])] if numeric else None
        whole = bool(numeric and len(finite) and (finite == finite.round()).all()
                     and not unit and finite.abs().max() >= 10)
        d[c] = [_cell(x, unit, whole) for x in d[c]]
        cols[c] = f"{c} ({unit.lstrip('+')})" if unit else c
    return d.rename(columns=cols)


def _md_table(df: pd.DataFrame, name: str = "") -> str:
    d = _display(df, name=name)
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
td.nw{white-space:nowrap}"""


def _fig_png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return buf.getvalue()


#: A table shown open (a section's top table) with more rows than this is
#: collapsed all the same: its title says so.
OPEN_MAX_ROWS = 20


def _table_html(name: str, df: pd.DataFrame, out: Path, shown: bool) -> str:
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
            + _nowrap(_display(df, name=name).to_html(index=False, border=0, escape=True))
            + f"</div>{more}</details>")


def _nowrap(table_html: str) -> str:
    """Short cells (a card name, a schedule such as ``- / 1m1s``) kept on one line:
    class ``nw``; long ones (notes, JSON) still wrap."""
    import re
    return re.sub(r"<td>([^<]{1,32})</td>", r'<td class="nw">\1</td>', table_html)


def _table_md(name: str, df: pd.DataFrame, where: str = "", shown: bool = False) -> str:
    """The table in Markdown; a shown table longer than :data:`OPEN_MAX_ROWS` rows
    inside ``<details>`` (collapsed where the Markdown viewer supports it)."""
    fn = f"{_slug(name)}.csv"
    head = f"**Table: {name}** ({where}{len(df)} rows, [tables/{fn}](tables/{fn}))"
    if shown and len(df) > OPEN_MAX_ROWS:
        return (f"<details><summary>Table: {html.escape(name)} ({len(df)} rows; collapsed, "
                f"tables/{fn})</summary>\n\n{head}\n\n{_md_table(df, name)}\n\n</details>")
    return head + "\n\n" + _md_table(df, name)


def render(sections: list[Section], out: Path, title: str) -> None:
    """Write index.html, report.md, figures/*.png and tables/*.csv into ``out``.

    Order: each section's ``top_tables`` (open), paragraphs, verdicts
    (``bullets``) and figures; its full tables come last, collapsed in the
    HTML and gathered in an appendix of the Markdown.
    """
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    md = [f"# {title}", ""]
    appendix = []
    body = [f"<h1>{html.escape(title)}</h1>", "<nav><ol>"]
    body += [f'<li><a href="#s{i}">{html.escape(s.title)}</a></li>' for i, s in enumerate(sections, 1)]
    body.append("</ol></nav>")
    body.append(f'<p class="legend">{_md_inline(TABLE_LEGEND)}</p>')
    md += [f"{i}. [{s.title}](#s{i})" for i, s in enumerate(sections, 1)]
    md += [f"{len(sections) + 1}. [Appendix: full tables](#tables)", "", f"*{TABLE_LEGEND}*", ""]
    for i, s in enumerate(sections, 1):
        body.append(f'<section id="s{i}"><h2>{i}. {html.escape(s.title)}</h2>')
        md += [f'<a id="s{i}"></a>', f"## {i}. {s.title}", ""]
        for name, df in s.top_tables.items():
            body.append(_table_html(name, df, out, shown=True))
            md += [_table_md(name, df, shown=True), ""]
        for p in s.paragraphs:
            body.append(f"<p>{_md_inline(p)}</p>")
            md += [p, ""]
        for heading, lines in s.bullets:
            body.append(f"<h3>{html.escape(heading)}</h3><ul>"
                        + "".join(f"<li>{_md_inline(x)}</li>" for x in lines) + "</ul>")
            md += [f"**{heading}**", ""] + [f"- {x}" for x in lines] + [""]
        for name, fig, caption in s.figures:
            png = _fig_png(fig)
            fn = f"{_slug(name)}.png"
            (out / "figures" / fn).write_bytes(png)
            b64 = base64.b64encode(png).decode()
            body.append(f'<figure id="fig-{_slug(name)}"><img alt="{html.escape(name)}" '
                        f'src="data:image/png;base64,{b64}" style="max-width:100%">'
                        f"<figcaption>{html.escape(caption)}</figcaption></figure>")
            md += [f"![{name}](figures/{fn})", "", f"*{caption}*", ""]
        for name, df in s.tables.items():
            body.append(_table_html(name, df, out, shown=False))
            appendix += [_table_md(name, df, f"section {i}; "), ""]
        body.append("</section>")
    md += ['<a id="tables"></a>', f"## {len(sections) + 1}. Appendix: full tables", ""] + appendix
    doc = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
           f"<style>{CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n")
    (out / "index.html").write_text(doc, encoding="utf-8")
    (out / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")
