"""The strategy guide (vale_sim/strategy.py, docs/strategy.md): push tables from recorded
decisions, the recording itself, hybrid policies, the ablation's cost, the report
section and the command's one-line errors.  Reference engine only, tiny counts."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from vale_sim import strategy as S
from vale_sim.cli import main
from vale_sim.games import get_game
from vale_sim.games.base import Game
from cli_checks import one_line_error

GAMES = ("mystic-vale", "mystic-lands")


def _cs(name):
    g = get_game(name)
    return g, g.load_card_set(g.default_card_set)


# -- push tables on a planted toy case ------------------------------------------------
def planted_decisions():
    """Game 0: 4 decisions at no risk, all pushed; 2 at 35% risk, one pushed.  Game 1:
    2 at no risk, one pushed; 2 at 35%, none pushed; 1 at 90%, not pushed."""
    rows = []
    def add(game, risk, pushed, showing=3, mana=2):
        rows.append({"game": game, "player": 0, "round": 1, "turn": 1, "pushes": 0,
                     "showing": showing, "mana": mana, "pool": 10, "bad": int(10 * risk),
                     "decay_share": 0.5, "risk": risk, "pushed": pushed})
    for _ in range(4):
        add(0, 0.0, True)
    add(0, 0.35, True)
    add(0, 0.35, False, showing=2)
    add(1, 0.0, True)
    add(1, 0.0, False)
    add(1, 0.35, False)
    add(1, 0.35, False, mana=5)
    add(1, 0.9, False, mana=5)
    return pd.DataFrame(rows)


def test_push_rates_by_risk_band_from_planted_records():
    t = S.push_table(planted_decisions(), "risk").set_index("band")
    assert list(t.index) == ["0%", "30-40%", "80-100%"]
    assert t.loc["0%", "n"] == 6 and t.loc["0%", "games"] == 2
    assert t.loc["0%", "push_rate"] == pytest.approx(5 / 6)
    assert t.loc["30-40%", "push_rate"] == pytest.approx(1 / 4)
    assert t.loc["80-100%", "push_rate"] == 0 and t.loc["80-100%", "n"] == 1
    assert t.loc["30-40%", "mean_risk"] == pytest.approx(0.35)
    # clustered by game: an interval around every rate with two games
    assert t.loc["0%", "push_lo"] <= 5 / 6 <= t.loc["0%", "push_hi"]
    th = S.threshold(t.reset_index())
    assert th == {"stops": "30-40%", "goes": "0%"}


def test_push_rates_by_showing_and_mana():
    d = planted_decisions()
    by_show = S.push_table(d, "showing").set_index("showing")
    assert by_show.loc[2, "n"] == 1 and by_show.loc[2, "push_rate"] == 0
    assert by_show.loc[3, "push_rate"] == pytest.approx(6 / 10)
    by_mana = S.push_table(d, "mana").set_index("mana_band")
    assert by_mana.loc["5", "n"] == 2 and by_mana.loc["5", "push_rate"] == 0
    assert by_mana.loc["2", "push_rate"] == pytest.approx(6 / 9)


def test_risk_read_below_the_mana_stop():
    d = planted_decisions()
    below = S.below_mana_stop(d)
    assert len(below) == 9 and (below["mana"] == 2).all()      # at mana 5 it never went on
    t = S.push_table(below, "risk").set_index("band")
    assert t.loc["30-40%", "push_rate"] == pytest.approx(1 / 3)
    assert "80-100%" not in t.index


def test_first_buys_by_round_and_mana():
    buys = pd.DataFrame([
        {"game": 0, "player": 0, "round": 1, "turn": 1, "mana": 4, "first": "A", "vale": ""},
        {"game": 0, "player": 1, "round": 1, "turn": 1, "mana": 5, "first": "A", "vale": "V"},
        {"game": 1, "player": 0, "round": 2, "turn": 2, "mana": 1, "first": "", "vale": ""},
        {"game": 1, "player": 0, "round": 5, "turn": 5, "mana": 9, "first": "B", "vale": ""}])
    t = S.buy_table(buys, "round")
    early = t[t["round"] == "1-2"].set_index("choice")
    assert early.loc["A", "share"] == pytest.approx(2 / 3) and early.loc["A", "n"] == 3
    assert early.loc["nothing", "share"] == pytest.approx(1 / 3)
    m = S.buy_table(buys, "mana").set_index(["mana", "choice"])
    assert m.loc[("9-10", "B"), "share"] == 1 and m.loc[("0-2", "nothing"), "n"] == 1
    v = S.buy_table(buys, "round", "vale").set_index(["round", "choice"])
    assert v.loc[("1-2", "V"), "share"] == pytest.approx(1 / 3)


# -- the recording ----------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_recording_does_not_change_the_game(name):
    g, cs = _cs(name)
    pol = g.resolve_baseline("meta-{P}p", 2, cs)
    for gi in range(2):
        _, _, rec = S.hooks(g).observe_game(cs, 2, 3, gi, [pol, pol])
        plain = g.play_reference(cs, 2, 3, gi, [pol, pol], None)
        assert [dataclasses.asdict(t) for t in rec.turns] == \
               [dataclasses.asdict(t) for t in plain.turns]
        assert [dataclasses.asdict(r) for r in rec.results] == \
               [dataclasses.asdict(r) for r in plain.results]


def test_recorded_pushes_match_the_turn_records_mystic_vale():
    g, cs = _cs("mystic-vale")
    pol = g.resolve_baseline("meta-{P}p", 2, cs)
    dec, buys, rec = S.hooks(g).observe_game(cs, 2, 5, 0, [pol, pol])
    d = pd.DataFrame(dec)
    pushed = d[d.pushed].groupby(["player", "turn"]).size()
    checked = 0
    for t in rec.turns:
        n = int(pushed.get((t.player, t.turn), 0))
        assert n <= t.pushes                     # a push with nothing left to reveal: no row
        checked += n == t.pushes
    assert checked >= 0.9 * len(rec.turns)
    assert ((d.risk >= 0) & (d.risk <= 1)).all()
    # the push rule's count is the spoil-odds model's first push when no ability interferes
    plain = d[d.bad == 0]
    assert (plain.risk[plain.pool > 0] <= 1).all()
    harvests = [t for t in rec.turns if not (t.skipped or t.spoiled)]
    assert len(buys) == len(harvests)
    assert [b["mana"] for b in buys] == [t.mana for t in harvests]


def test_recorded_grows_match_the_turn_records_mystic_lands():
    g, cs = _cs("mystic-lands")
    pol = g.resolve_baseline("meta-{P}p", 2, cs)
    dec, buys, rec = S.hooks(g).observe_game(cs, 2, 5, 0, [pol, pol])
    d = pd.DataFrame(dec)
    grew = d[d.pushed].groupby(["player", "turn"]).size()
    for t in rec.turns:
        if t.grows and not t.out_of_cards:
            # the first card is always played; every further one followed a choice to grow
            assert 1 + int(grew.get((t.player, t.turn), 0)) == t.grows
    assert (d.risk == d.bad / d.pool).all()
    assert len(buys) == len(rec.turns)


# -- hybrids and the ablation -----------------------------------------------------------
def test_hybrid_takes_one_kind_only():
    g, cs = _cs("mystic-vale")
    strong, base = g.get_policy("meta-2p"), g.get_policy("balanced")
    h = S.hooks(g)
    push = h.hybrid(cs, strong, base, "push")
    assert push.push_risk_permille == base.push_risk_permille and push.mana_target == 0
    assert push.w_cost == strong.w_cost and push.w_vale_vp == strong.w_vale_vp
    adv = h.hybrid(cs, strong, base, "advancement")
    assert adv.w_cost == base.w_cost and adv.mana_target == strong.mana_target
    with pytest.raises(ValueError, match="unknown decision kind"):
        h.hybrid(cs, strong, base, "nope")


def test_hybrid_moves_the_buy_rules_of_its_kind_mystic_lands():
    g, cs = _cs("mystic-lands")
    strong, base = g.get_policy("meta-2p"), g.get_policy("balanced")
    assert strong.rules
    h = S.hooks(g)
    assert h.hybrid(cs, strong, base, "advancement").rules == ()
    assert h.hybrid(cs, strong, base, "vale").rules == strong.rules
    assert h.hybrid(cs, strong, base, "push").rest_risk_permille == base.rest_risk_permille


def test_mystic_vale_refuses_a_hybrid_that_would_buy_nothing():
    g, cs = _cs("mystic-vale")
    from vale_sim.games.mystic_vale.policy import BuyRule
    strong = dataclasses.replace(g.get_policy("balanced"), name="vale-rules",
                                 rules=(BuyRule(target="best", value="vale"),))
    with pytest.raises(ValueError, match="no advancement buy rule"):
        S.hooks(g).hybrid(cs, strong, g.get_policy("balanced"), "advancement")


def test_cost_of_planted_shares():
    # 2 players, 4 deals: the hybrid wins nothing on two deals, half on the others
    shares = np.array([[0, 0, 1, 0.5], [0, 0, 0, 0.5]], float)
    c = S.cost_estimate(shares, 2)
    assert c["win_share"] == pytest.approx(0.25) and c["cost"] == pytest.approx(0.25)
    assert c["cost_lo"] < 0.25 < c["cost_hi"] and c["n"] == 8 and c["deals"] == 4
    wide = S.cost_estimate(np.array([[0, 1], [0, 0]], float), 2)       # 2 deals: a wide t
    assert -0.5 <= wide["cost_lo"] and wide["cost_hi"] <= 0.5
    same = S.cost_estimate(np.array([[1, 0, 1], [0, 1, 0]], float), 2)
    assert same["cost"] == 0 and same["cost_lo"] < 0 < same["cost_hi"]


@pytest.mark.parametrize("name", GAMES)
def test_ablation_of_an_unchanged_kind_costs_nothing(name):
    """greedy differs from balanced in its push and advancement weights only: taking
    balanced's vale decisions changes nothing, so that row reads 0 within its interval;
    balanced against itself ("all" of a policy equal to the field) too."""
    g, cs = _cs(name)
    strong = g.get_policy("greedy")
    ab = S.ablation(g, cs, 2, strong, g.get_policy("balanced"), 4, 0, engine="reference",
                    which=["vale"]).set_index("kind")
    row = ab.loc["vale"]
    assert bool(row["unchanged"]) and row["cost"] == 0
    assert row["cost_lo"] <= 0 <= row["cost_hi"] and row["n"] == 8
    assert row["win_share"] == pytest.approx(0.5)
    assert not bool(ab.loc["all", "unchanged"])


# -- the report section and the command ------------------------------------------------
@pytest.fixture(scope="module")
def tiny_guide(tmp_path_factory):
    out = {}
    for name in GAMES:
        doc = S.guide(name, (2,), "meta-{P}p", "balanced", games=3, deals=2, seed=0,
                      engine="reference")
        doc["command"] = "test"
        path = tmp_path_factory.mktemp(name) / S.GUIDE_NAME
        path.write_text(json.dumps(doc))
        out[name] = (doc, path)
    return out


@pytest.mark.parametrize("name", GAMES)
def test_section_renders_with_n_and_intervals(tiny_guide, name):
    doc, path = tiny_guide[name]
    title, paras, tables, figs, bullets = S.section_parts(name, path)
    assert title == "Strategy guide"
    lines = [s for _, ls, *_ in bullets for s in ls]
    assert lines and all("n = " in s or "(n =" in s or "decisions" in s or "buying phases" in s
                         for s in lines if "[" in s)
    rates = [s for s in lines if "%" in s and not s.startswith(("Rule of thumb", "(Bands"))]
    assert rates and all("[" in s for s in rates)
    ab = tables["strategy_ablation_2p"]
    assert {"win_cost", "win_cost_lo", "win_cost_hi", "n", "deals"} <= set(ab.columns)
    assert set(ab["kind"]) == set(S.kinds(name)) | {"all"}
    assert [f[0] for f in figs] == ["strategy_push", "strategy_ablation"]
    assert doc["players"]["2"]["strong"] == "meta-2p"


def test_section_renders_into_a_report(tiny_guide, tmp_path):
    from vale_sim.report.rendering import render, table_units
    from vale_sim.report.sections import Section
    from vale_sim.games.mystic_vale import report as mv_report
    title, paras, tables, figs, bullets = S.section_parts("mystic-vale", tiny_guide["mystic-vale"][1])
    render([Section(title, paras, tables, figs, bullets)], tmp_path, "t", glossary=False,
           units=table_units(mv_report))
    md = (tmp_path / "report.md").read_text()
    assert "Strategy guide" in md and "which decisions matter" in md and "n = " in md
    assert (tmp_path / "figures" / "strategy_push.png").exists()
    assert (tmp_path / "tables" / "strategy_ablation_2p.csv").exists()


def test_a_guide_of_another_policy_reads_out_of_date(tiny_guide, tmp_path):
    doc, _ = tiny_guide["mystic-vale"]
    assert S.stale_players(doc, "mystic-vale") == []
    doc = json.loads(json.dumps(doc))
    doc["players"]["2"]["strong_digest"] = "0" * 16
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    assert S.stale_players(doc, "mystic-vale") == ["2"]
    paras = S.section_parts("mystic-vale", path)[1]
    assert any(p.startswith("**Out of date:** at 2 players") for p in paras)


def test_section_without_a_bundled_guide_says_how_to_make_it(tmp_path):
    title, paras, tables, figs, bullets = S.section_parts("mystic-vale", tmp_path / "none.json")
    assert "vale-sim strategy --game mystic-vale" in paras[0] and not tables


def test_a_game_without_a_guide_is_one_line(monkeypatch, capsys):
    g = get_game("mystic-vale")
    with pytest.raises(Exception, match="no strategy guide"):
        S.hooks(dataclasses.replace(g, strategy=None))
    assert isinstance(g, Game)


@pytest.mark.parametrize("argv, names", [
    (["strategy", "--players", "5"], ["--players", "'5'"]),
    (["strategy", "--players", "2,x"], ["--players", "'x'"]),
    (["strategy", "--policy", "no-such-policy"], ["no-such-policy"]),
    (["strategy", "--game", "mystic-lands", "--baseline", "nope"], ["nope"]),
    (["strategy", "--games", "-1"], ["--games"]),
    (["strategy", "--deals", "1"], ["--deals"]),
    (["strategy", "--seed", "-1"], ["--seed"]),
])
def test_bad_options_one_line_exit_2(capsys, argv, names):
    rc = main(argv)
    one_line_error(capsys, rc, *names)


def test_bad_out_folder_one_line_and_nothing_written(capsys, tmp_path):
    rc = main(["strategy", "--out", str(tmp_path / "missing" / "g.json")])
    one_line_error(capsys, rc, "--out")
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("name", GAMES)
def test_bundled_guide_is_current(name):
    """The report's bundled guide: made for the current card set (a changed card set
    means rerunning its command, docs/strategy.md), for the strongest field at 2-4 players,
    with every kind ablated and every rate carrying n and an interval."""
    doc = S.load_guide(name)
    assert doc is not None, f"rerun: vale-sim strategy --game {name} (docs/strategy.md)"
    g, cs = _cs(name)
    assert doc["card_set_digest"] == cs.digest(), doc["command"]
    from vale_sim.strong_field import field_of
    assert doc["policy"] == field_of(name) and sorted(doc["players"]) == ["2", "3", "4"]
    assert S.stale_players(doc, name) == [], f"rerun {doc['command']} (docs/strategy.md)"
    for p, r in doc["players"].items():
        assert r["strong"] == f"meta-{p}p"
        assert {x["kind"] for x in r["ablation"]} == set(S.kinds(name)) | {"all"}
        for x in r["ablation"]:
            assert x["n"] == int(p) * doc["settings"]["deals"]
            assert x["cost_lo"] <= x["cost"] <= x["cost_hi"]
        for x in r["push_by_risk"]:
            assert x["n"] > 0
            assert x["push_lo"] is None or x["push_lo"] <= x["push_rate"] <= x["push_hi"]
