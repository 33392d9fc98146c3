"""What the report says and how it shows it (issue 23): model cards explained and kept
apart from printed cards, rates in % / pp, missing values and booleans in words, long
tables collapsed, counts stated once side by side, the seat-compensation notation
explained, figure labels that do not overlap; `vale-sim cards` and `play` on model cards."""
import json
import re

import numpy as np
import pandas as pd
import pytest

from vale_sim import report
from vale_sim.games.mystic_vale import report as mv_report
from vale_sim import verdicts as V
from vale_sim.cli import main
from vale_sim.games.mystic_vale.cards import card_type, is_model_card, load_card_set
from vale_sim.report import Section, build_report
from vale_sim.games.mystic_vale.report import ReportSettings

MODEL = "Model L1 Sprout A"
PRINTED = "Podlings"


def _tiny(**kw):
    return ReportSettings.make(size="tiny", adv_cards=(PRINTED, MODEL, "Blooming Arbor"), **kw)


def _summary(html: str) -> str:
    return html[html.index('<section id="s1">'):html.index('<section id="s2">')]


# ---------------------------------------------------------------------------
# Model cards
# ---------------------------------------------------------------------------
def test_model_cards_are_recognised_by_their_documented_name():
    cs = load_card_set("core")
    model = [a.name for a in cs.advancements if is_model_card(a)]
    assert MODEL in model and PRINTED not in model and len(model) == 26
    assert all(n.startswith("Model L") for n in model)
    assert card_type(MODEL) == "model" and card_type("Stag") == "printed"
    assert not is_model_card("Model Citizen")           # the level digit is part of the name
    assert not any(is_model_card(v) for v in cs.vales)


@pytest.fixture(scope="module")
def strength_report(tmp_path_factory):
    """A tiny report of the card set and the card strengths, with one printed and one
    model card flagged (the flags set on the real strength frame: tiny samples flag
    nothing), so both lists are drawn."""
    from vale_sim import advancements as adv
    real = adv.advancement_report
    real_table = adv.strength_table

    def flagged(*a, **kw):
        df = real(*a, **kw)
        df.loc[df["card"] == MODEL, "flag"] = "under"
        df.loc[df["card"] == PRINTED, "flag"] = "over"
        return df

    def field_flagged(*a, **kw):       # the headline verdicts: under the strong field
        df = real_table(*a, **kw)
        if kw.get("estimand") == "natural":
            df.loc[df["card"] == MODEL, ["flag", "verdict"]] = "under"
            df.loc[df["card"] == PRINTED, ["flag", "verdict"]] = "over"
        return df
    mp = pytest.MonkeyPatch()
    mp.setattr(adv, "advancement_report", flagged)
    mp.setattr(adv, "strength_table", field_flagged)
    out = tmp_path_factory.mktemp("content") / "r"
    try:
        build_report(out, _tiny(), progress=False,
                     sections=[mv_report.section_card_set, mv_report.section_advancements])
    finally:
        mp.undo()
    return out


def test_report_opens_by_saying_what_a_model_card_is(strength_report):
    html = (strength_report / "index.html").read_text()
    md = (strength_report / "report.md").read_text()
    for doc in (_summary(html), md[:md.index("## 2.")]):
        assert "Model cards: 26 of the 45 advancement kinds in the commons" in doc
        assert "not printed cards" in doc and "stand-ins" in doc
        # ... before the first verdict
        assert doc.index("not printed cards") < doc.index("Under the strongest field, value-2p")


def test_printed_and_model_cards_are_listed_apart(strength_report):
    html = (strength_report / "index.html").read_text()
    summary = _summary(html)
    printed = summary.index("<h3>Printed cards flagged over and under</h3>")
    model = summary.index("<h3>Model cards (stand-ins, not printed cards) flagged over and under")
    items = lambda at: re.findall(r"<li>(.*?)</li>", summary[at:].split("</ul>")[0])  # noqa: E731
    assert [x.split(" (")[0] for x in items(printed)] == [PRINTED]
    assert [x.split(" (")[0] for x in items(model)] == [MODEL]
    # The card-strength section: one table and one list per kind of card.
    tables = strength_report / "tables"
    assert list(pd.read_csv(tables / "advancement_flagged_printed.csv")["card"]) == [PRINTED]
    assert list(pd.read_csv(tables / "advancement_flagged_model.csv")["card"]) == [MODEL]
    sec = html[html.index("Advancement values</h2>"):]
    assert "Flagged printed cards</b> (1 of 2 tested" in sec
    assert "Flagged model cards (stand-ins, not printed)</b> (1 of 1 tested" in sec


def test_tables_carry_the_card_type(strength_report):
    tables = strength_report / "tables"
    values = pd.read_csv(tables / "advancement_values.csv").set_index("card")
    assert values.loc[MODEL, "card_type"] == "model"
    assert values.loc[PRINTED, "card_type"] == values.loc["Blooming Arbor", "card_type"] == "printed"
    cards = pd.read_csv(tables / "cards.csv").set_index("name")
    assert cards.loc[MODEL, "card_type"] == "model" and cards.loc["Stag", "card_type"] == "printed"
    assert (cards["card_type"] == "model").sum() == 26


def test_the_forest_plot_marks_model_cards():
    from vale_sim.plots.advancements import plot_forest
    df = pd.DataFrame({"card": [MODEL, PRINTED], "kind": "advancement", "level": 1,
                       "card_type": ["model", "printed"], "strength": [-0.1, 0.05],
                       "strength_lo": [-0.2, 0.0], "strength_hi": [0.0, 0.1], "flag": ""})
    fig = plot_forest(df, tolerance=0.05)
    ax = fig.axes[0]
    style = {t.get_text(): (t.get_fontstyle(), t.get_color()) for t in ax.get_yticklabels()}
    assert style[MODEL][0] == "italic" and style[PRINTED][0] == "normal"
    assert style[MODEL][1] != style[PRINTED][1]
    assert "model cards" in ax.get_title()
    import matplotlib.pyplot as plt
    plt.close(fig)


def test_cards_command_says_what_model_cards_are(capsys):
    assert main(["cards"]) == 0
    out = capsys.readouterr().out.splitlines()
    top = "\n".join(out[:4])
    assert "Model cards" in top and "not printed cards" in top and "stand-ins" in top
    assert any("26 of these 49 kinds" in x and "model cards" in x for x in out)
    assert main(["cards", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    types = {c["name"]: c["card_type"] for c in data["cards"]}
    assert types[MODEL] == "model" and types["Stag"] == "printed"
    assert data["model_cards"] == 26 and "not printed" in data["model_cards_note"]
    assert main(["cards", "--set", "starter"]) == 0      # no model cards: nothing said
    assert "Model cards" not in capsys.readouterr().out


def test_play_marks_model_cards(capsys):
    assert main(["play", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("* model card:") and "not a printed card" in lines[0]
    commons = next(x for x in lines if x.startswith("Commons:"))
    assert "Model L2 Bloom G*" in commons and "Podlings*" not in commons
    # Every mention of a model card is marked.
    assert re.findall(r"Model L\d \w+ [A-Z](?!\*)", out) == []
    assert main(["play", "--seed", "1", "--json"]) == 0   # the record itself is unchanged
    assert "*" not in json.dumps(json.loads(capsys.readouterr().out)["log"])


# ---------------------------------------------------------------------------
# Counts
# ---------------------------------------------------------------------------
def test_card_kind_counts_agree_and_say_why_cards_lists_one_more(strength_report, capsys):
    cs = load_card_set("core")
    md = (strength_report / "report.md").read_text()
    sec = md[md.index("## 2. The card set"):]
    assert "70 buyable card kinds — 48 advancements (45 commons and 3 Fertile Soil) and 22 vales" in sec
    assert f"{len(cs.advancements) + len(cs.vales)} card kinds with the vales" in sec   # 71
    assert "Cursed Land, printed only on starting cards" in sec
    assert len(pd.read_csv(strength_report / "tables" / "cards.csv")) == 70
    assert main(["cards"]) == 0
    out = capsys.readouterr().out
    assert "Advancements (49 kinds: 45 commons, 3 Fertile Soil, 1 printed only on starting " \
           "cards (Cursed Land: never bought)" in out and "48 buyable kinds" in out


def test_strength_counts_are_stated_once_side_by_side(strength_report):
    assert V.strength_counts(10000, 2).startswith(
        "10,000 deals each = 40,000 games per card: 20,000 in each arm, prefer and ban")
    html = (strength_report / "index.html").read_text()
    s = _tiny()
    deals = s.adv_games // s.adv_players
    said = V.strength_counts(deals, s.adv_players)
    assert said in _summary(html)                                # the summary's first verdict
    assert said in html[html.index("Advancement values</h2>"):]  # and the section


# ---------------------------------------------------------------------------
# Rendering: units, missing values, long and wide tables
# ---------------------------------------------------------------------------
def _rendered(tmp_path, top=None, tables=None):
    sec = Section("S", ["text"], tables or {}, top_tables=top or {})
    report.render([sec], tmp_path, "t")
    return (tmp_path / "index.html").read_text(), (tmp_path / "report.md").read_text()


def test_rates_in_percent_differences_in_pp_missing_and_booleans_in_words(tmp_path):
    df = pd.DataFrame({"card": ["A", "B"], "win_rate": [0.512, 0.4],
                       "strength": [0.031, -0.2], "passes": [True, False],
                       "recommended": [None, "- / 1m"], "deals_needed": [2621.0, np.inf],
                       "p_value": [0.01234, np.nan]})
    html, md = _rendered(tmp_path, tables={"t": df})
    for doc in (html, md):
        assert "win_rate (%)" in doc and "51.2" in doc and "0.512" not in doc
        assert "strength (pp)" in doc and "+3.1" in doc and "-20.0" in doc
        assert "yes" in doc and "no" in doc
        assert "–" in doc and "∞" in doc and "2621" in doc and "2621.000" not in doc
        for raw in ("NaN", "nan", "None", "True", "False", "inf"):
            assert not re.search(rf"[>| ]{raw}[<| ]", doc), raw
        assert "0.012" in doc                                   # p-values stay numbers
        assert "(pp) differences of rates in percentage points" in doc   # the legend
    assert '<td class="nw">- / 1m</td>' in html                  # short cells do not wrap
    csv = pd.read_csv(tmp_path / "tables" / "t.csv")             # the CSV keeps fractions
    assert csv["win_rate"].tolist() == [0.512, 0.4] and csv["passes"].tolist() == [True, False]


def test_long_top_tables_are_collapsed_and_wide_tables_scroll(tmp_path):
    long = pd.DataFrame({"card": [f"C{i}" for i in range(70)], "x": range(70)})
    short = pd.DataFrame({"card": ["A"], "x": [1]})
    html, md = _rendered(tmp_path, top={"long": long, "short": short})
    assert '<details id="tbl-long">' in html and "collapsed, click to open" in html
    assert '<details id="tbl-short" open>' in html
    assert "<details><summary>Table: long" in md                 # collapsed in Markdown too
    assert "overflow-x:auto" in html and '<div class="tbl">' in html


def _overlaps(fig) -> list:
    """Pairs of x tick labels of ``fig`` whose drawn boxes overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    bad = []
    for ax in fig.axes:
        boxes = [(t.get_text(), t.get_window_extent(r)) for t in ax.get_xticklabels()
                 if t.get_text() and t.get_visible()]
        bad += [(a, b) for (a, x), (b, y) in zip(boxes, boxes[1:]) if x.overlaps(y)]
    return bad


def test_card_source_figure_labels_do_not_overlap():
    ctx = report.Context(_tiny(), progress=False)
    sec = mv_report.section_card_set(ctx)
    (_, fig, _), = sec.figures
    assert _overlaps(fig) == []


# ---------------------------------------------------------------------------
# Mystic Lands: the seat-compensation notation
# ---------------------------------------------------------------------------
def test_schedule_notation_in_words():
    from vale_sim.games.mystic_lands.studies.report import schedule_legend, schedule_words
    assert schedule_words(((0, 0), (1, 1))) == "seat 1: nothing, seat 2: 1 mana + 1 spirit"
    assert schedule_words(((0, 0), (0, 1), (2, 0))) == \
        "seat 1: nothing, seat 2: 1 spirit, seat 3: 2 mana"
    legend = schedule_legend((2, 4))
    assert "`- / 1m` (seat 1: nothing, seat 2: 1 mana)" in legend
    assert "seat 4: 2 mana + 1 spirit" in legend and "3 players" not in legend


def test_mystic_lands_summary_explains_the_schedules(tmp_path):
    from vale_sim.games.mystic_lands.studies.report import LandsReportSettings, section_seats
    s = LandsReportSettings.make(size="tiny", engine="reference", seat_deals=3)
    build_report(tmp_path / "r", s, progress=False, game="mystic-lands", sections=[section_seats])
    html = (tmp_path / "r" / "index.html").read_text()
    summary = _summary(html)
    legend = summary.index("Seat compensation notation.")
    assert "seat 1: nothing, seat 2: 1 mana + 1 spirit" in summary
    assert legend < summary.index("<h3>Seat compensation</h3>")     # before the verdicts
    assert "- / 1m1s" in summary or "- / 1m" in summary
    assert "False" not in re.sub(r"data:image/png;base64,[^\"]+", "", html)
