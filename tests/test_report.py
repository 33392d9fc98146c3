"""The balance report: every section, table and figure in both index.html and report.md."""
import base64
import json
import re

import pandas as pd
import pytest

from vale_sim import report
from vale_sim.games.mystic_vale import report as mv_report
from vale_sim.report import Section, SectionUnavailable, build_report
from vale_sim.games.mystic_vale.report import ReportSettings


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep") / "report"
    settings = ReportSettings.make(size="tiny")
    manifest = build_report(out, settings, progress=False)
    return out, manifest


def test_every_section_table_and_figure_present(built):
    out, manifest = built
    html = (out / "index.html").read_text()
    md = (out / "report.md").read_text()
    ctx = report.Context(ReportSettings.make(size="tiny"), progress=False)
    titles = ["The card set and where its numbers come from", "Spoil odds", "Strategy tournament",
              "Advancement values", "Pool sizes by player count", "Seat advantage",
              "Robust to the bots?", "Run manifest"]
    for t in titles:
        assert t in html and t in md, t
    assert "not available" not in html
    # Tables: every CSV is non-empty and shown in both documents.
    csvs = sorted((out / "tables").glob("*.csv"))
    names = {p.stem for p in csvs}
    for expected in ("card_sources", "cards", "spoil_odds", "tournament_matchups",
                     "tournament_ranking", "advancement_values", "pool_sizes",
                     "pool_recommendation_equal_length", "seats_rulebook_pools", "manifest",
                     "robust_cards", "robust_pools", "pool_sizes_strong"):
        assert expected in names, expected
    for p in csvs:
        lines = p.read_text().strip().splitlines()
        assert len(lines) >= 2, p.name                     # header + at least one row
        assert f"Table: {p.stem}" in html and f"Table: {p.stem}" in md
    # Figures: embedded PNGs in the HTML, PNG files next to report.md.
    figs = sorted((out / "figures").glob("*.png"))
    assert {p.stem for p in figs} >= {"card_sources", "spoil_odds", "tournament_ranking",
                                       "advancement_values", "pool_length", "seat_advantage",
                                       "robust_cards"}
    embedded = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,([^"]+)"', html)
    assert {n for n, _ in embedded} == {p.stem for p in figs}
    for name, b64 in embedded:
        assert base64.b64decode(b64)[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(b64) > 1000
    for p in figs:
        assert p.stat().st_size > 1000
        assert f"](figures/{p.name})" in md
    # Each figure has a reading under it (a sentence with a number in it).
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", html)
    assert len(captions) == len(figs) and all(re.search(r"\d", c) for c in captions)
    # Offline: nothing fetched from the network.
    assert "http://" not in html and "https://" not in html
    assert manifest["engine"] in ("fast", "reference") and manifest["card_set"]["digest"]
    assert json.loads((out / "manifest.json").read_text())["size"] == "tiny"
    del ctx


def test_no_half_written_output(tmp_path):
    out = tmp_path / "rep"

    def broken(ctx):
        raise RuntimeError("boom")
    with pytest.raises(RuntimeError, match="boom"):
        build_report(out, ReportSettings.make(size="tiny"), sections=[mv_report.section_card_set, broken],
                     progress=False)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []                  # no temp folder left behind
    # An existing report is replaced only once the new one is complete.
    build_report(out, ReportSettings.make(size="tiny"), sections=[mv_report.section_card_set],
                 progress=False)
    before = (out / "index.html").read_text()
    with pytest.raises(RuntimeError):
        build_report(out, ReportSettings.make(size="tiny"), sections=[broken], progress=False)
    assert (out / "index.html").read_text() == before


def test_unavailable_section_is_shown_not_fatal(tmp_path):
    def section_future(ctx):
        raise SectionUnavailable("the future section needs vale_sim.future, which is not built yet")
    build_report(tmp_path / "r", ReportSettings.make(size="tiny"),
                 sections=[mv_report.section_card_set, section_future], progress=False)
    html = (tmp_path / "r" / "index.html").read_text()
    assert "vale_sim.future" in html and "not available" in html


def test_settings_validation():
    with pytest.raises(ValueError, match="pool_gamez"):
        ReportSettings.make(pool_gamez=3)
    with pytest.raises(ValueError):
        ReportSettings.make(size="huge")
    q = ReportSettings.make(quick=True)
    f = ReportSettings.make()
    assert q.size == "quick" and q.pool_games < f.pool_games
    assert isinstance(Section("t").tables, dict)


def test_fallback_to_reference_sizes_is_said(monkeypatch):
    from vale_sim.games.mystic_vale import pools
    monkeypatch.setattr(pools, "fast_engine_available", lambda: False)
    s = ReportSettings.make()
    assert s.engine == "reference" and "reference engine" in s.fallback_note
    assert s.pool_games < ReportSettings.PRESETS["full"][0].get("pool_games", 500)
    assert ReportSettings.make(quick=True).engine == "reference"


def test_summary_comes_first_then_sections_then_collapsed_tables(built):
    out, _ = built
    html = (out / "index.html").read_text()
    md = (out / "report.md").read_text()
    for doc in (html, md):
        assert doc.index("Executive summary") < doc.index("The card set and where")
        # A small report says so at the top, before any verdict.
        top = doc.index("1. Executive summary")
        assert "TINY report" in doc[:300]
        assert top < doc.index("quick report") < doc.index("Seat advantage", top)
    # Every verdict states its interval and its n.
    summary = html[html.index('<section id="s1">'):html.index('<section id="s2">')]
    items = re.findall(r"<li>(.*?)</li>", summary)
    assert items, "the summary has no verdicts"
    for it in items:
        assert "CI" in it and re.search(r"\bn = [\d,]+", it), it
    # Tables are collapsed in the HTML and gathered at the end of the Markdown.
    assert html.count("<details") >= len(list((out / "tables").glob("*.csv")))
    # (the section numbers are not fixed: any section list ends with the manifest, then the appendix)
    assert (re.search(r"## \d+\. Appendix: full tables", md).start()
            > re.search(r"## \d+\. Run manifest", md).start())


def test_top_tables_open_before_the_section_text(tmp_path):
    flagged = pd.DataFrame({"card": ["Big"], "flag": ["over"], "strength": [0.12]})
    sec = Section("Advancement values", ["Flagged cards: Big."], {"all": flagged.assign(x=1)},
                  top_tables={"advancement_flagged": flagged})
    report.render([sec], tmp_path, "t")
    html = (tmp_path / "index.html").read_text()
    md = (tmp_path / "report.md").read_text()
    assert html.index('<details id="tbl-advancement_flagged" open>') < html.index("Flagged cards: Big")
    assert '<details id="tbl-all">' in html                     # the full table: collapsed
    assert md.index("Table: advancement_flagged") < md.index("Flagged cards: Big")
    assert md.index("Table: all") > md.index("Appendix: full tables")
    assert (tmp_path / "tables" / "advancement_flagged.csv").exists()
