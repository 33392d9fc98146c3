"""vale-sim what-if (issue 27): the original and the edited set on common deals.

Tiny sizes: a few cards, 40-200 games per card and arm."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from vale_sim import whatif
from vale_sim.cli import main
from vale_sim.games import get_game

MV_CARDS = ["Stag", "Grassland", "Azure Lake"]
ML_CARDS = ["Meadow", "Rain Lily"]


def _all_zero(w):
    for pc in w.counts:
        assert not pc.cards["verdict_changed"].any()
        assert (pc.cards["change"] == 0).all() and (pc.cards["deals_changed"] == 0).all()
        assert not pc.cards["moved"].any()
        assert (pc.game["change"] == 0).all() and (pc.game["deals_changed"] == 0).all()
        # the two sets' strengths are the same numbers, deal by deal
        assert list(pc.original.sort_values("card")["strength"]) == \
            list(pc.edited.sort_values("card")["strength"])
        assert any(s.startswith("No verdict changed") for s in whatif.summary_lines(pc, w.config))


@pytest.mark.parametrize("edit", ["Stag.cost=+0", "Stag.cost=2", "rule:max_rounds=200"])
def test_an_edit_that_changes_nothing_changes_no_verdict(edit):
    # value = the current one (relative 0, absolute = current), or a rule no game of
    # these deals reaches (the round cap: games last ~20 rounds): identical games
    cs = get_game("mystic-vale").load_card_set("core")
    stag = next(a for a in cs.advancements if a.name == "Stag")
    if edit == "Stag.cost=2":
        edit = f"Stag.cost={stag.cost}"
    kw = ({"rules": [edit[5:]]} if edit.startswith("rule:") else {"edits": [edit]})
    w = whatif.what_if(games=40, cards=MV_CARDS, seed=3, **kw)
    _all_zero(w)
    assert w.counts[0].cards["n_deals"].iloc[0] == 20


def test_a_real_edit_is_not_reported_as_no_change():
    # the same check as above would fail for an edit that changes play (the field buys
    # Podlings; it never buys Stag, whose cost then changes nothing it plays)
    w = whatif.what_if(["Podlings.cost=+3"], games=40, cards=MV_CARDS, seed=3)
    assert (w.counts[0].cards["deals_changed"] > 0).any()
    with pytest.raises(AssertionError):
        _all_zero(w)


def test_plus_six_vp_raises_the_card_and_lowers_the_others():
    others = ["Stag", "Seedling", "Grassland", "Calm Weather", "Azure Lake", "Cascading Falls"]
    w = whatif.what_if(["Model L1 Sprout C.end_vp=+6"], games=200, cards=others, seed=1)
    c = w.counts[0].cards
    me = c[c["edited_card"]].iloc[0]
    assert me["card"] == "Model L1 Sprout C"
    assert me["change"] > 0 and me["change_lo"] > 0            # interval above 0
    assert me["strength_edited"] > me["strength_original"]
    assert c.loc[~c["edited_card"], "change"].mean() < 0        # the others, on average
    assert len(c) == 1 + len(others)
    e = w.config["edits"][0]
    assert (e["field"], e["new"] - e["old"], e["source"]) == ("end_vp", 6, "user")


def test_mystic_lands_edit_and_no_op():
    # the forced value under the default bot: at 100 games the +6 VP moves it for sure
    # (the natural value under the strong field needs more: docs/what-if.md)
    w = whatif.what_if(["Morning Mist.end_vp=+6"], game="mystic-lands", games=100,
                       cards=ML_CARDS, seed=1, baseline="balanced", estimand="prefer")
    me = w.counts[0].cards.query("edited_card").iloc[0]
    assert me["change_lo"] > 0
    assert "withers_per_player" in set(w.counts[0].game["measure"])
    _all_zero(whatif.what_if(rules=["max_rounds=120"], game="mystic-lands", games=40,
                             cards=ML_CARDS, seed=1))


def test_relative_and_absolute_values_and_the_source():
    g = get_game("mystic-vale")
    cs = g.load_card_set("core")
    stag = next(a for a in cs.advancements if a.name == "Stag")
    for text, new in (("Stag.cost=+1", stag.cost + 1), ("Stag.cost=-1", stag.cost - 1),
                      ("Stag.cost=7", 7)):
        e = whatif.parse_edit(text)
        out, recs = whatif.apply_card_edits(g, cs, [e])
        edited = next(a for a in out.advancements if a.name == "Stag")
        assert edited.cost == new and recs[0]["old"] == stag.cost and recs[0]["new"] == new
        assert edited.source_of("cost") == "user"
        assert out.digest() != cs.digest()
    assert cs is g.load_card_set("core") and stag.source_of("cost") != "user"   # untouched
    ml = get_game("mystic-lands")
    mcs = ml.load_card_set(ml.default_card_set)
    out, recs = whatif.apply_card_edits(ml, mcs, [whatif.parse_edit("Rain Lily.vp=+2")])
    lily = next(a for a in out.advances if a.name == "Rain Lily")
    assert lily.icons.vp == recs[0]["old"] + 2 and lily.source_of("vp") == "user"
    rules, ch = whatif.apply_rule_edits(ml, ml.rules_class(), [whatif.parse_rule("end_vp=+3", ml)])
    assert rules.end_vp == ml.rules_class().end_vp + 3 and ch[0][0] == "end_vp"
    rules, _ = whatif.apply_rule_edits(ml, ml.rules_class(),
                                       [whatif.parse_rule("seat_mana=0,0,1,1", ml)])
    assert rules.seat_mana == (0, 0, 1, 1)


def test_mystic_vale_strength_hooks_are_the_advancement_arms():
    from vale_sim.advancements import analysed_cards
    from vale_sim.games.mystic_vale.strength import ban_policy, prefer_policy
    g = get_game("mystic-vale")
    cs = g.load_card_set("core")
    assert g.strength_arms("Stag", "balanced") == (prefer_policy("Stag", "balanced"),
                                                   ban_policy("Stag", "balanced"))
    assert [c[:3] for c in g.strength_cards(cs)] == [c[:3] for c in analysed_cards(cs)]


@pytest.mark.parametrize("args, words", [
    (["--edit", "Feral Chieftin.cost=+1"], "did you mean 'Feral Chieftain'"),
    (["--edit", "Feral Chieftain.costt=1"], "editable: copies, cost"),
    (["--edit", "Feral Chieftain.cost=1.5"], "not a whole number"),
    (["--edit", "Feral Chieftain.cost=-99"], "outside 0..30"),
    (["--edit", "Feral Chieftain.cost"], "CARD.FIELD=VALUE"),
    (["--edit", "Stag.cost=+1", "--edit", "Stag.cost=2"], "edited twice"),
    (["--rule", "vp_pol=3"], "did you mean 'vp_pool'"),
    (["--rule", "max_rounds=0"], "max_rounds"),
    (["--edit", "Stag.cost=+1", "--cards", "Stagg"], "did you mean 'Stag'"),
    (["--edit", "Stag.cost=+1", "--players", "5"], "--players"),
    (["--game", "mystic-lands", "--edit", "Rain Lily.vpp=1"], "editable: copies, cost, end_vp"),
    ([], "give at least one"),
])
def test_bad_edits_are_one_line_exit_2_and_write_nothing(args, words, tmp_path, capsys):
    plot = tmp_path / "f.png"
    rc = main(["what-if", *args, "--plot", str(plot)])
    err = capsys.readouterr().err
    assert rc == 2
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not plot.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("opt, value", [("--games", "1"), ("--games", "x"), ("--seed", "-1")])
def test_bad_counts_are_refused_before_anything_runs(opt, value, capsys):
    try:                           # argparse (the shared count/seed types) or what-if's own check
        rc = main(["what-if", "--edit", "Stag.cost=+1", opt, value])
    except SystemExit as e:
        rc = e.code
    assert rc == 2 and opt in capsys.readouterr().err.strip().splitlines()[-1]


def test_edits_file_errors(tmp_path, capsys):
    f = tmp_path / "e.toml"
    f.write_text('[cards."Stag"]\ncost = "x"\n')
    assert main(["what-if", "--edits", str(f)]) == 2
    err = capsys.readouterr().err
    assert str(f) in err and "cards.Stag.cost" in err and len(err.strip().splitlines()) == 1


def test_cli_json_schema_and_plot(tmp_path, capsys):
    f = tmp_path / "e.toml"
    f.write_text('[cards."Stag"]\ncost = "+1"\n[rules]\nvp_pool = 25\n')
    plot = tmp_path / "w.png"
    rc = main(["what-if", "--edits", str(f), "--edit", "Azure Lake.end_vp=+1", "--games", "40",
               "--cards", "Grassland", "--players", "2,3", "--seed", "2", "--json",
               "--plot", str(plot)])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "mystic-vale" and out["correction"] == "fdr_bh"
    assert [e["edit"] for e in out["edits"]] == ["Azure Lake.end_vp=+1", "Stag.cost=+1"]
    assert out["rules"] == [{"name": "vp_pool", "old": None, "new": 25}]
    assert [p["players"] for p in out["players"]] == [2, 3]
    for p in out["players"]:
        assert {r["card"] for r in p["cards"]} == {"Stag", "Azure Lake", "Grassland"}
        r = p["cards"][0]
        for k in ("strength_original", "strength_original_ci", "verdict_original",
                  "strength_edited", "strength_edited_ci", "verdict_edited", "change",
                  "change_ci", "change_ci_adjusted", "p_value", "p_adjusted", "moved",
                  "verdict_changed", "within_noise", "n_deals", "deals_changed", "edited_card",
                  "natural_original", "natural_original_ci", "per_pick_original",
                  "per_pick_original_ci", "acquired_original", "acquired_original_ci",
                  "per_pick_edited", "per_pick_edited_ci", "acquired_edited",
                  "acquired_edited_ci"):
            assert k in r, k
        assert {m["measure"] for m in p["game"]} >= {"rounds", "score_margin",
                                                     "spoils_per_player", "seat_1_advantage"}
        for m in p["game"]:
            assert len(m["change_ci"]) == 2 and m["n_deals"] == p["deals"]
        assert isinstance(p["verdicts_changed"], list) and p["summary"]
    assert plot.stat().st_size > 0


def test_every_card_row_carries_the_three_estimands_of_both_sets():
    """Natural, per pick (with the acquisition share) and forced, original and edited:
    the strength tables' own numbers, card by card (issue 36 item 5)."""
    w = whatif.what_if(["Stag.cost=-2"], game="mystic-vale", players=2, games=60, seed=3,
                cards=["Grassland", "Podlings"], estimand="natural")
    pc = w.counts[0]
    for which, frame in (("original", pc.original), ("edited", pc.edited)):
        f = frame.set_index("card")
        for _, r in pc.cards.iterrows():
            o = f.loc[r["card"]]
            for mine, theirs in (("per_pick_{w}", "per_pick_value"),
                                 ("per_pick_{w}_lo", "per_pick_lo"),
                                 ("acquired_{w}", "natural_acquired_rate"),
                                 ("natural_{w}", "natural_value"),
                                 ("strength_{w}", "strength")):
                a, b = r[mine.format(w=which)], o[theirs]
                assert (a == b) or (a != a and b != b), (r["card"], mine, a, b)
    stag = pc.cards.set_index("card").loc["Stag"]
    assert 0 <= stag["acquired_original"] <= 1 and 0 <= stag["acquired_edited"] <= 1
    text = w.text()
    assert "per pick original" in text and "bought edited %" in text


def test_cli_text_says_plainly(capsys):
    assert main(["what-if", "--edit", "Stag.cost=+0", "--games", "40", "--cards",
                 "Grassland"]) == 0
    out = capsys.readouterr().out
    assert "No verdict changed at 2 players" in out and "No deal changed" in out


def test_paired_change_zero_count_bound():
    d = np.zeros(20)
    r = whatif.paired_change(d, d, 0, 0.95, 1.0)
    assert r["change"] == 0 and r["p_value"] == 1 and 0 < r["change_hi"] == -r["change_lo"] < 0.2
    r = whatif.paired_change(np.r_[np.ones(10), np.zeros(10)], d, 10, 0.95, 1.0)
    assert r["change"] == 0.5 and r["change_lo"] > 0 and r["p_value"] < 0.01


# --- configs ------------------------------------------------------------------------------
def test_bundled_what_if_configs_load():
    from pathlib import Path
    from vale_sim.experiments import estimated_games, load_experiment
    root = Path(__file__).resolve().parents[1] / "experiments"
    for name, game in (("what_if", "mystic-vale"), ("mystic-lands-what-if", "mystic-lands")):
        exp = load_experiment(root / f"{name}.toml")
        assert exp.study == "what_if" and exp.game == game
        assert estimated_games(exp) > 0


@pytest.mark.parametrize("body, words", [
    ('[edits."Stagg"]\ncost = "+1"\n', "did you mean 'Stag'"),
    ('[edits."Stag"]\ncost = 1.5\n', "not a whole number"),
    ('[rule_edits]\nvp_pol = 3\n', "did you mean 'vp_pool'"),
    ('cards = ["Stagg"]\n[edits."Stag"]\ncost = 1\n', "did you mean 'Stag'"),
    ('games = 10\n', "give [edits"),
])
def test_a_bad_config_fails_before_any_game(body, words, tmp_path, capsys):
    p = tmp_path / "wi.toml"
    p.write_text('study = "what-if"\n' + body)
    assert main(["run", str(p), "--results", str(tmp_path / "res")]) == 2
    err = capsys.readouterr().err
    assert words in err and str(p) in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "res").exists()


@pytest.mark.parametrize("game, body", [
    ("mystic-vale", '[edits."Stag"]\ncost = "+0"\n[rules]\nvp_pool = 25\n'),
    ("mystic-lands", '[edits."Rain Lily"]\ncost = "-1"\n[rule_edits]\nend_vp = 28\n'),
])
def test_a_config_runs(game, body, tmp_path):
    import pandas as pd
    from vale_sim.experiments import run_experiment
    p = tmp_path / "wi.toml"
    cards = '["Grassland"]' if game == "mystic-vale" else '["Meadow"]'
    p.write_text(f'study = "what_if"\ngame = "{game}"\ngames = 20\ncards = {cards}\n' + body)
    m = run_experiment(p, tmp_path / "res", progress=False)
    out = tmp_path / "res" / "wi"
    data = json.loads((out / "what_if.json").read_text())
    assert data["game"] == game and data["players"][0]["players"] == 2
    assert len(pd.read_csv(out / "what_if_cards.csv")) == 2
    assert (out / "what_if.png").stat().st_size > 0 and (out / "what_if.txt").exists()
    assert m["study"] == "what_if" and "verdicts_changed" in m["outputs"]
    if game == "mystic-vale":              # a no-op edit: also under the config's base rules
        assert data["rules_original"]["vp_pool"] == 25
        assert data["players"][0]["verdicts_changed"] == []
        m2 = run_experiment(p, tmp_path / "res", progress=False)     # again: every chunk kept
        assert m2["chunks"]["played"] == 0 < m["chunks"]["played"]
        assert m2["chunks"]["reused"] == m["chunks"]["played"] + m["chunks"]["reused"]
        assert json.loads((out / "what_if.json").read_text()) == data


# --- the report section -------------------------------------------------------------------
def test_a_report_config_naming_edits_gets_a_what_if_section(tmp_path):
    from vale_sim.experiments import run_experiment
    p = tmp_path / "rep.toml"
    p.write_text('study = "report"\nquick = true\nwhat_if_games = 20\n'
                 'what_if_cards = ["Grassland"]\n[sizes]\nsize = "tiny"\n'
                 '[edits."Stag"]\ncost = "+1"\n')
    run_experiment(p, tmp_path / "res", progress=False)
    md = (tmp_path / "res" / "rep" / "report.md").read_text()
    # (section numbers move as sections are added: match the title)
    assert re.search(r"^## \d+\. What if: Stag\.cost=\+1 \(3 -> 4\)$", md, re.M), md[:2000]
    assert "verdict changed" in md.lower()
    assert "by the same bots (field value-2p)" in md and "(estimand natural)" in md
    assert (tmp_path / "res" / "rep" / "tables" / "what_if_cards.csv").exists()


def test_the_section_function_for_mystic_lands_and_its_absence_without_edits(tmp_path):
    from types import SimpleNamespace
    from vale_sim.experiments import load_experiment
    fn = whatif.report_section_function([], [whatif.parse_rule("end_vp=28", "mystic-lands")],
                                        games=20, cards=["Meadow"])
    ctx = SimpleNamespace(settings=SimpleNamespace(size="tiny", card_set="mystic-lands", seed=1,
                                                   engine="fast", workers=1),
                          game="mystic-lands", results={})
    sec = fn(ctx)
    import matplotlib.pyplot as plt
    for _, fig, _ in sec.figures:        # the section's caller owns its figures
        plt.close(fig)
    assert sec.title == "What if: rule end_vp = 28 (was 25)"
    assert set(sec.tables) == {"what_if_cards", "what_if_game"}
    assert "withers per player and game" in set(sec.tables["what_if_game"]["measure"])
    p = tmp_path / "rep.toml"
    p.write_text('study = "report"\nquick = true\n')
    c = load_experiment(p).config
    assert c["edits"] is None and c["rule_edits"] is None      # no section: nothing named


def test_mystic_vale_through_the_hooks_plays_the_advancement_study():
    # game_strength_run (what-if's path) and strength_run (advancements') give the same run
    from vale_sim.advancements import game_strength_run, strength_run
    a = strength_run("core", 40, 2, 5, "balanced", ["Stag", "Azure Lake"])
    b = game_strength_run("mystic-vale", "core", 40, 2, 5, "balanced", ["Stag", "Azure Lake"])
    assert np.array_equal(a.natural, b.natural)
    for c in ("Stag", "Azure Lake"):
        assert all(np.array_equal(x, y) for x, y in zip(a.arms[c], b.arms[c]))
        assert np.array_equal(a.got[c], b.got[c])


def test_cli_mystic_lands_json(capsys):
    assert main(["what-if", "--game", "mystic-lands", "--edit", "Rain Lily.cost=-1",
                 "--rule", "end_vp=28", "--games", "20", "--cards", "Meadow", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "mystic-lands" and out["rules"] == [{"name": "end_vp", "old": 25,
                                                              "new": 28}]
    assert out["edits"][0]["new"] == out["edits"][0]["old"] - 1
    assert {r["card"] for r in out["players"][0]["cards"]} == {"Rain Lily", "Meadow"}
