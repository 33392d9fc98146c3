"""Card strength per player count in the Mystic Vale report (issue 24 §3): the strength
includes denial and is not comparable across player counts, so the advancement section
shows it at 2, 3 and 4 players side by side (n, interval and verdict per count) and names
the cards whose verdicts differ."""
import json
import math

import pandas as pd
import pytest

from vale_sim import advancements as adv
from vale_sim.games.mystic_vale import report as mv_report
from vale_sim.games.mystic_vale.report import ReportSettings
from vale_sim.report import build_report

pytestmark = pytest.mark.compiled      # the reports play the fast engine

CARDS = ("Podlings", "Blooming Arbor")
TABLE = "advancement_strength_by_players"


def _tiny(**kw):
    return ReportSettings.make(size="tiny", adv_cards=CARDS, **kw)


def _build(out, settings):
    return build_report(out, settings, sections=[mv_report.section_advancements],
                        progress=False)


def _section_text(out) -> str:
    md = (out / "report.md").read_text()
    return next(part for part in md.split("\n## ") if part.startswith("2. Advancement values"))


@pytest.fixture(scope="module")
def with_difference(tmp_path_factory):
    """A tiny report in which Podlings is balanced at 2 players and over at 3, and
    Blooming Arbor balanced at 4 players only (set on the real strength tables: tiny
    samples settle nothing), so their verdicts differ."""
    real = adv.strength_table
    verdicts = {2: {"Podlings": "balanced", "Blooming Arbor": "inconclusive"},
                3: {"Podlings": "over", "Blooming Arbor": "inconclusive"},
                4: {"Podlings": "inconclusive", "Blooming Arbor": "balanced"}}

    def strength_table(*a, **kw):
        df = real(*a, **kw)
        for card, v in verdicts[df.attrs["players"]].items():
            df.loc[df["card"] == card, "verdict"] = v
        return df
    mp = pytest.MonkeyPatch()
    mp.setattr(adv, "strength_table", strength_table)
    out = tmp_path_factory.mktemp("perp") / "r"
    settings = _tiny()
    try:
        manifest = _build(out, settings)
    finally:
        mp.undo()
    return out, manifest, settings


def test_table_has_strength_interval_n_and_verdict_at_2_3_and_4_players(with_difference):
    out, manifest, s = with_difference
    t = pd.read_csv(out / "tables" / f"{TABLE}.csv")
    assert sorted(t["card"]) == sorted(CARDS)
    for p in (2, 3, 4):
        for col in ("strength", "lo", "hi", "n_deals", "verdict"):
            assert f"{col} ({p}p)" in t.columns, (col, p)
        games = s.adv_games if p == s.adv_players else s.adv_other_games
        assert (t[f"n_deals ({p}p)"] == math.ceil(games / p)).all()   # deals, not games
        assert (t[f"lo ({p}p)"] <= t[f"strength ({p}p)"]).all()
        assert (t[f"strength ({p}p)"] <= t[f"hi ({p}p)"]).all()
        assert t[f"verdict ({p}p)"].isin(["over", "under", "balanced", "inconclusive"]).all()
    # 2 players is the section's own run, the other counts their own runs
    main = pd.read_csv(out / "tables" / "advancement_values.csv").set_index("card")
    assert set(t["card_type"]) <= {"printed", "model"}
    assert dict(zip(t["card"], t["strength (2p)"])) == pytest.approx(
        main["strength"].to_dict())
    # shown in both documents, in the appendix like the others, and the sizes in the manifest
    for doc in ("index.html", "report.md"):
        assert f"Table: {TABLE}" in (out / doc).read_text()
    games = json.loads((out / "manifest.json").read_text())["games"]
    assert games["advancement_strength_other_players"] == [3, 4]
    assert games["advancement_strength_other_players_per_card_and_arm"] == s.adv_other_games
    assert manifest["settings"]["adv_other_games"] == s.adv_other_games


def test_text_names_the_cards_whose_verdicts_differ(with_difference):
    out, _, s = with_difference
    t = pd.read_csv(out / "tables" / f"{TABLE}.csv").set_index("card")
    text = _section_text(out)
    assert t.loc["Podlings", "verdict (3p)"] == "over"
    assert t.loc["Blooming Arbor", "verdict (4p)"] == "balanced"
    assert "the verdicts differ for 2 of the 2 cards" in text
    # a contradiction, with its verdicts; a verdict reached at one count only, by name
    assert "Shown differently at different counts: Podlings (2p balanced, 3p over, " \
           "4p inconclusive)" in text
    assert "inconclusive at another" in text and text.index("Blooming Arbor", text.index(
        "inconclusive at another"))
    assert t["verdicts_differ"].all() and t["contradicted"].to_dict() == {
        "Podlings": True, "Blooming Arbor": False}
    assert "not comparable across player counts" in text
    assert "denial" in text


def test_same_verdicts_everywhere_are_said_so():
    frames = {}
    for p, deals in ((2, 10), (3, 4), (4, 3)):
        df = pd.DataFrame({"card": ["A", "B"], "kind": ["advancement"] * 2, "level": [1, 1],
                           "strength": [0.01, -0.01], "strength_lo": [-0.01, -0.03],
                           "strength_hi": [0.03, 0.01], "n_deals": [deals] * 2,
                           "verdict": ["balanced", "inconclusive"]})
        df.attrs.update(deals=deals, correction="fdr_bh")
        frames[p] = df
    t = mv_report.strength_by_players(frames)
    assert not t["verdicts_differ"].any()
    text = mv_report.players_sentence(t, {p: f.attrs for p, f in frames.items()})
    assert "the same at every count for all 2 cards" in text
    assert "not comparable across player counts" in text
    assert "3 players: 12 games per card and arm = 4 deals" in text
    # a contradiction is listed with its verdicts; a precision-only change by name
    frames[4] = frames[4].copy()
    frames[4]["verdict"] = ["over", "balanced"]
    t = mv_report.strength_by_players(frames)
    text = mv_report.players_sentence(t, {p: f.attrs for p, f in frames.items()})
    assert "differ for 2 of the 2 cards" in text
    assert "A (2p balanced, 3p balanced, 4p over)" in text
    assert t.set_index("card")["contradicted"].to_dict() == {"A": True, "B": False}
    assert "inconclusive at another" in text and text.rstrip().endswith("own.")


def test_other_player_counts_are_validated_and_can_be_turned_off(tmp_path):
    with pytest.raises(ValueError, match="adv_other_players"):
        ReportSettings.make(size="tiny", adv_other_players=(5,))
    assert ReportSettings.make(size="tiny", adv_other_players=[4, 3]).other_players() == (3, 4)
    assert ReportSettings.make(size="tiny", adv_other_players=(2,)).other_players() == ()
    out = tmp_path / "r"
    _build(out, _tiny(adv_other_players=()))
    assert not (out / "tables" / f"{TABLE}.csv").exists()
    assert "vale-sim advancements --players 3" in _section_text(out)
