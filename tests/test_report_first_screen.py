"""The report's first screen (figures before any prose), the glossary, the provenance
said once per summary heading, and the index's headline verdicts (issue 29)."""
import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.compiled

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mv(tmp_path_factory):
    """A tiny Mystic Vale report (every section)."""
    from vale_sim.games.mystic_vale.report import ReportSettings
    from vale_sim.report import build_report
    out = tmp_path_factory.mktemp("fs") / "report"
    m = build_report(out, ReportSettings.make(size="tiny"), progress=False)
    return out, m, (out / "index.html").read_text(encoding="utf-8")


def _body(html):
    return html.split("<body>", 1)[1]


def _section(html, title):
    """The HTML of the report section titled ``title``."""
    import html as H
    m = re.search(r'<section id="s\d+"><h2>\d+\. ' + re.escape(H.escape(title))
                  + r"</h2>(.*?)</section>", html, re.S)
    assert m, title
    return m.group(1)


def _text(fragment):
    import html as H
    return H.unescape(re.sub(r"<[^>]+>", "", fragment))


# ---------------------------------------------------------------------------
# The first screen
# ---------------------------------------------------------------------------
def test_the_first_block_before_any_prose_holds_the_figures(mv):
    out, m, html = mv
    assert "<title>Mystic Vale balance report — core (TINY report: small samples)</title>" in html
    body = _body(html)
    before = body[:body.index("<p")]                  # everything before the first paragraph
    assert '<div class="first-screen"' in before
    assert before.index("</h1>") < before.index('<div class="first-screen"') < before.index("<nav")
    block = before[before.index('<div class="first-screen"'):before.index("<nav")]
    names = re.findall(r'<figure id="fig-([^"]+)"><img alt="[^"]+" src="data:image/png;base64,',
                       block)
    assert names == ["first_cards", "first_seats", "first_length", "first_spoil"]
    for n in names:                                   # the PNGs beside report.md too
        assert (out / "figures" / f"{n}.png").stat().st_size > 1000
    md = (out / "report.md").read_text()
    assert md.index("figures/first_cards.png") < md.index("## 1. Executive summary")


def test_each_first_screen_caption_has_its_n_and_interval(mv):
    out, m, html = mv
    body = _body(html)
    block = body[body.index('<div class="first-screen"'):body.index("<nav")]
    captions = [_text(c) for c in re.findall(r"<figcaption>(.*?)</figcaption>", block, re.S)]
    assert len(captions) == 4
    for c in captions:
        assert re.search(r"\bn = [\d,]+", c), c
        assert re.search(r"bars: .*(95%|interval)", c), c
        assert re.search(r"\[[-+]?\d", c) or "band" in c, c   # an interval or the band
    # The numbers are the sections' own: tiny sizes (3 deals per card, 16 games per pool,
    # 200 turns).
    rec = {p["name"]: p for p in m["first_screen"]}
    assert rec["first_cards"]["n"].startswith("3 deals per card")
    assert "16 / 16 games at 2 / 3 players" == rec["first_seats"]["n"]
    assert rec["first_length"]["n"] == "16 games per pool and player count"
    assert rec["first_spoil"]["n"] == "200 simulated turns per deck"
    # The forest plot's reading counts the verdicts of the advancement table.
    adv = (out / "tables" / "advancement_values.csv").read_text()
    tested = len(adv.strip().splitlines()) - 1
    assert f"of {tested} cards tested at 2 players" in rec["first_cards"]["reading"]
    assert "±5 pp band" in rec["first_cards"]["reading"]
    assert "±2 pp margin" in rec["first_cards"]["reading"]
    # Each panel's title links to the section it summarises.
    assert re.search(r'<b><a href="#s(\d+)">Card verdicts</a></b>', block)
    s = int(re.search(r'<b><a href="#s(\d+)">Card verdicts</a></b>', block).group(1))
    assert f'<section id="s{s}"><h2>{s}. Advancement values</h2>' in html


def test_the_first_screen_reads_only_what_the_sections_found():
    """No section ran: no panel (the hook plays no game); only the spoil odds ran: only that."""
    from vale_sim.games.mystic_vale import report as mvr
    from vale_sim.report import Context, first_screen
    import pandas as pd
    ctx = Context(mvr.ReportSettings.make(size="tiny"), progress=False)
    assert first_screen(ctx) == []
    table = pd.DataFrame([dict(deck="starter", pushes=k, p_spoil_exact=0.1 * k, p_spoil_sim=0.1 * k,
                               sim_lo=0.1 * k - 0.02, sim_hi=0.1 * k + 0.02, sim_n=500, agrees=True)
                          for k in (1, 2, 3)])
    ctx.results["spoil"] = (table, {"starter": None})
    (p,) = first_screen(ctx)
    assert p.name == "first_spoil" and p.n == "500 simulated turns per deck"
    assert "10.0% within 1 push, 20.0% within 2 pushes, 30.0% within 3 pushes" in p.reading
    assert "simulated within 1: 10.0% [8.0%, 12.0%]" in p.reading
    assert p.caption.endswith("bars: Wilson 95% (simulation); lines exact.")


@pytest.mark.slow
def test_the_mystic_lands_first_screen(tmp_path):
    from vale_sim.games.mystic_lands.studies import report as mlr
    from vale_sim.report import build_report
    s = mlr.LandsReportSettings.make(size="tiny", end_deals=3, seat_deals=3,
                                     seat_confirm_deals=3)
    m = build_report(tmp_path / "r", s, progress=False, game="mystic-lands",
                     sections=[mlr.section_seats, mlr.section_end_trigger, mlr.section_wither,
                               mlr.section_strength])
    body = _body((tmp_path / "r" / "index.html").read_text())
    before = body[:body.index("<p")]
    names = re.findall(r'<figure id="fig-([^"]+)">', before)
    assert names == ["first_cards", "first_seats", "first_length", "first_wither"]
    rec = {p["name"]: p for p in m["first_screen"]}
    assert rec["first_seats"]["n"] == "3 confirmation deals at 2 players"
    assert rec["first_length"]["n"] == "3 deals per variant and player count"
    assert "at the manual's Rain supply a turn withers" in rec["first_wither"]["reading"]
    assert rec["first_wither"]["interval"] == "95% CI clustered by deal"
    # Every verdict rests on the whole (mostly estimated) set: said once per heading.
    summary = _section(body, "Executive summary")
    blocks = re.split(r"<h3>", summary)[1:]
    assert len(blocks) >= 3 and all(b.count("Card numbers behind") == 1 for b in blocks)
    assert summary.count("Card numbers behind") == len(m["verdicts"])


# ---------------------------------------------------------------------------
# Provenance once per heading of the summary
# ---------------------------------------------------------------------------
def test_provenance_is_said_once_per_summary_heading(mv):
    out, m, html = mv
    summary = _section(html, "Executive summary")
    blocks = re.split(r"<h3>", summary)[1:]
    assert len(blocks) >= 3
    clause = "Card numbers behind"
    for b in blocks:
        assert b.count(clause) == 1, b[:80]
        assert all(clause not in li for li in re.findall(r"<li>(.*?)</li>", b, re.S))
    # The manifest keeps the same: one provenance per heading, none in the sentences.
    for v in m["verdicts"]:
        assert v["provenance"].startswith(clause)
        assert not any(clause in s for s in v["sentences"])


def test_the_provenance_counts_the_cards_of_all_the_headings_verdicts():
    from vale_sim import verdicts as V
    asked = []

    def share(cards):
        asked.append(cards)
        return (len(cards or ()) + 1, 10)
    vs = [V.Verdict("cards", "A.", ("X",)), V.Verdict("cards", "B.", ("Y", "X")),
          V.Verdict("seats", "C."), V.Verdict("seats", "D.", ("Z",))]
    from vale_sim.games.mystic_vale import report as mv_report     # "seats" is its topic
    (cards, seats) = V.summary_bullets(vs, share, V.topics(mv_report))
    assert cards == ("Cards flagged over and under", ["A.", "B."],
                     "Card numbers behind these 2 verdicts: 3 of 10, 30%, are estimates.")
    assert seats[2].startswith("Card numbers behind these 2 verdicts: 1 of 10")
    assert asked == [("X", "Y"), None]                 # a verdict on the whole set: the whole set
    assert [b[2] for b in V.summary_bullets(vs, topics=V.topics(mv_report))] == ["", ""]


# ---------------------------------------------------------------------------
# The glossary
# ---------------------------------------------------------------------------
def test_the_glossary_explains_the_words_designers_asked_about():
    from vale_sim.report.glossary import TERMS, terms_in
    for words in ("Benjamini–Hochberg", "Holm", "TOST", "clustered by deal", "Wilson",
                  "cluster-robust", "prefer and ban", "natural arm", "exploitability",
                  "meta field", "settled"):
        assert terms_in(words), words
    assert len({t.key for t in TERMS}) == len(TERMS)
    assert all(len(t.text) > 60 for t in TERMS)


def test_the_report_has_the_glossary_and_links_every_term_of_the_summary(mv):
    from vale_sim.report.glossary import GLOSSARY_TITLE, TERMS, terms_in
    out, m, html = mv
    g = _section(html, GLOSSARY_TITLE)
    for t in TERMS:
        assert f'<dt id="{t.anchor}">' in g
    import html as H
    n = re.search(r'<section id="s(\d+)"><h2>\d+\. ' + re.escape(H.escape(GLOSSARY_TITLE)),
                  html).group(1)
    assert f'<li><a href="#s{n}">{H.escape(GLOSSARY_TITLE)}</a></li>' in html
    summary = _section(html, "Executive summary")
    used = terms_in(_text(summary))
    assert {t.key for t in used} >= {"ci", "bh", "n"}          # the check is not vacuous
    for t in used:
        assert f'href="#{t.anchor}"' in summary, t.name
    # Linked once per section, and never inside code.
    assert all(summary.count(f'href="#{t.anchor}"') == 1 for t in used)
    assert not re.search(r"<code>[^<]*<a ", html)
    md = (out / "report.md").read_text()
    assert f"{GLOSSARY_TITLE}" in md and '<a id="g-tost"></a>**TOST' in md


def test_link_terms_leaves_tags_and_code_alone():
    from vale_sim.report.glossary import link_terms
    seen = set()
    s = link_terms('<code>TOST</code> a <b>TOST</b> and TOST <a href="#x">Holm</a> Holm', seen)
    assert s == ('<code>TOST</code> a <b><a class="gl" href="#g-tost" title="glossary: TOST '
                 '(two one-sided tests)">TOST</a></b> and TOST <a href="#x">Holm</a> '
                 '<a class="gl" href="#g-holm" title="glossary: Holm">Holm</a>')
    assert seen == {"tost", "holm"}
    assert link_terms("TOST", seen) == "TOST"           # already linked in this section


def test_docs_glossary_is_the_reports():
    from vale_sim.report.glossary import glossary_markdown
    assert (ROOT / "docs" / "glossary.md").read_text() == glossary_markdown() + "\n"


# ---------------------------------------------------------------------------
# results/index.html: both games' headline verdicts
# ---------------------------------------------------------------------------
def _fake_report(folder: Path, game: str, reading: str, sentence: str):
    folder.mkdir()
    (folder / "index.html").write_text("<html></html>")
    (folder / "manifest.json").write_text(json.dumps({
        "size": "full", "settings": {}, "code": {}, "game": game, "engine": "fast",
        "created": "2026-12-01", "seconds": 1.0,
        "first_screen": [{"name": "first_cards", "title": "Card verdicts", "reading": reading,
                          "n": "9 deals per card", "interval": "95% CI",
                          "figure": "figures/first_cards.png"}],
        "verdicts": [{"heading": "Seat advantage", "sentences": [sentence],
                      "provenance": "Card numbers behind this verdict: 1 of 2, 50%, "
                                    "are estimates."}]}))


def test_the_index_lists_the_verdicts_of_both_manifests(tmp_path, mv):
    import shutil
    from vale_sim.report import write_index
    shutil.copytree(mv[0], tmp_path / "report")
    _fake_report(tmp_path / "report-mystic-lands", "mystic-lands", "2 over & <1> under.",
                 "Seat 1 wins 30% <of> games.")
    (tmp_path / "old").mkdir()                       # a report built before the verdicts
    (tmp_path / "old" / "index.html").write_text("<html></html>")
    (tmp_path / "old" / "manifest.json").write_text(json.dumps(
        {"size": "full", "settings": {}, "code": {}, "game": "mystic-vale"}))
    idx = write_index(tmp_path).read_text()
    mv_m = json.loads((tmp_path / "report" / "manifest.json").read_text())
    import html as H
    for p in mv_m["first_screen"]:                   # Mystic Vale's, from its manifest
        assert H.escape(p["reading"]) in idx and H.escape(p["n"]) in idx
        assert f'src="report/{p["figure"]}"' in idx
    for v in mv_m["verdicts"]:
        assert H.escape(v["sentences"][0]) in idx
    assert "2 over &amp; &lt;1&gt; under." in idx    # Mystic Lands', escaped
    assert "Seat 1 wins 30% &lt;of&gt; games." in idx
    assert idx.index(">Mystic Lands</a>") < idx.index("2 over &amp;")
    assert "built before reports recorded their verdicts" in idx


def test_the_card_reading_names_the_flagged_cards_strongest_first():
    import pandas as pd
    from vale_sim.report.first_screen import NAMED, forest_panel
    n = NAMED + 2
    df = pd.DataFrame({"card": [f"Over{i}" for i in range(n)] + ["Under", "Fine"],
                       "strength": [0.10 + 0.01 * i for i in range(n)] + [-0.2, 0.0],
                       "flag": ["over"] * n + ["under", ""],
                       "verdict": ["over"] * n + ["under", "balanced"], "n_deals": 50})
    for c in ("strength_lo", "strength_lo_adj"):
        df[c] = df["strength"] - 0.03
    for c in ("strength_hi", "strength_hi_adj"):
        df[c] = df["strength"] + 0.03
    df.attrs.update(tolerance=0.05, margin=0.02, correction="holm", players=2)
    p = forest_panel(df)
    strongest = ", ".join(f"Over{i}" for i in range(n - 1, n - 1 - NAMED, -1))
    assert f"over: {strongest} and 2 more; under: Under." in p.reading
    assert f"of {n + 2} cards tested at 2 players, {n} over, 1 under, 1 balanced, 0 inconclusive" \
        in p.reading and "Holm-adjusted" in p.reading
    assert p.n == "50 deals per card (100 games in each arm)"
