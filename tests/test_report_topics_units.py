"""The executive summary's topics and the tables' units: the shared ones in the shell
(vale_sim.verdicts.TOPICS, vale_sim.report.rendering.TABLE_UNITS), each game's in its
report module (``TOPICS``, ``TABLE_UNITS``), merged by the shell (issue 25 §1)."""
from __future__ import annotations

import types

import pandas as pd
import pytest

import pig
from vale_sim import verdicts as V
from vale_sim.games import GAMES, get_game
from vale_sim.report import Section, game_report, render
from vale_sim.report.rendering import TABLE_UNITS, _unit, table_units

MV, ML = (game_report(get_game(n)) for n in ("mystic-vale", "mystic-lands"))


def test_the_shared_lists_hold_no_games_entries():
    shared_topics = {t for t, _ in V.TOPICS}
    for name in GAMES:
        mod = game_report(get_game(name))
        own = {t for t, _ in getattr(mod, "TOPICS", ())}
        assert own and not own & shared_topics, name
        assert not set(getattr(mod, "TABLE_UNITS", {})) & set(TABLE_UNITS), name
    assert {t for t, _ in V.TOPICS} == {"cards", "cards_printed", "cards_model"}


def test_each_game_keeps_its_summary_order():
    assert [h for _, h in V.topics(MV)] == [
        "Cards flagged over and under", "Printed cards flagged over and under",
        "Model cards (stand-ins, not printed cards) flagged over and under", "Seat advantage",
        "VP pool sizes", "Robust to the bots?", "Spoil odds of the starting deck"]
    assert [t for t, _ in V.topics(ML)] == ["cards", "cards_printed", "cards_model",
                                            "compensation", "end", "market", "rain"]
    assert V.topics(pig) == V.TOPICS                      # a game with none of its own


def test_a_verdict_is_shown_under_its_games_topic_only():
    vs = [V.Verdict("rain", "R."), V.Verdict("spoil", "S."), V.Verdict("cards", "C.")]
    assert V.summary_bullets(vs, topics=V.topics(ML)) == [
        ("Cards flagged over and under", ["C."], ""), ("Wither and rain", ["R."], "")]
    assert V.summary_bullets(vs, topics=V.topics(MV)) == [
        ("Cards flagged over and under", ["C."], ""),
        ("Spoil odds of the starting deck", ["S."], "")]
    assert V.summary_bullets(vs) == [("Cards flagged over and under", ["C."], "")]


def test_a_game_topic_may_not_repeat_a_shared_one():
    mod = types.ModuleType("a_report")
    mod.TOPICS = (("cards", "Our cards"),)
    with pytest.raises(ValueError, match="a_report.TOPICS repeats the shared topic 'cards'"):
        V.topics(mod)


def test_the_units_of_a_games_tables_come_from_its_report():
    assert _unit("seat_recommendations", "margin", table_units(ML)) == "pp"
    assert _unit("seat_recommendations", "margin", table_units(MV)) == ""
    assert _unit("pool_recommendation_seat_advantage", "difference", table_units(MV)) == "+pp"
    assert _unit("pool_recommendation_seat_advantage", "difference", table_units(ML)) == ""
    for mod in (MV, ML, pig):                  # the shared ones stay
        assert _unit("tournament_ranking", "strength", table_units(mod)) == ""
        assert _unit("other", "strength", table_units(mod)) == "+pp"


def test_render_shows_the_games_units(tmp_path):
    sec = Section("S", ["p"], top_tables={"seat_recommendations": pd.DataFrame(
        {"players": [2], "margin": [0.034]})})
    for mod, header, cell in ((ML, "margin (pp)", "3.4"), (MV, "margin", "0.034")):
        out = tmp_path / mod.__name__
        render([sec], out, "t", units=table_units(mod))
        md = (out / "report.md").read_text()
        assert f"| players | {header} |" in md and f"| {cell} |" in md
