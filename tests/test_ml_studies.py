"""Mystic Lands settings studies (vale_sim/games/mystic_lands/studies), their commands, configs and
the Mystic Lands report.  Small sizes on the reference engine (~30 ms a game)."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from vale_sim.cli import main
from vale_sim.games import get_game
from vale_sim.games.mystic_lands.studies import common as C
from vale_sim.games.mystic_lands.studies import lands, seats

ML = "mystic-lands"


# ---------------------------------------------------------------------------
# Schedules
# ---------------------------------------------------------------------------
def test_monotone_grid_is_every_non_decreasing_schedule():
    two = seats.monotone(2)
    assert len(two) == 6 and all(s[0] == (0, 0) for s in two)
    three = seats.monotone(3)
    assert len(three) == 18
    for s in three:
        assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(s, s[1:]))
    assert seats.manual(4) in seats.monotone(4)
    assert seats.schedules(4, "monotone")[:2] == [seats.NONE, seats.MANUAL]


def test_ladder_holds_none_and_the_manual_and_stays_in_the_caps():
    for k in (2, 3, 4):
        lad = seats.schedules(k)
        assert lad[0] == seats.NONE[:k] and lad[1] == seats.manual(k)
        assert len(set(lad)) == len(lad)
        assert all(0 <= m <= 2 and 0 <= s <= 1 for sch in lad for m, s in sch)
    assert seats.label(seats.MANUAL) == "- / 1m / 1m1s / 2m1s"


def test_a_schedule_becomes_the_seat_resources_of_the_rules():
    r = seats.schedule_rules(((0, 0), (2, 1)))
    assert r.seat_mana[:2] == (0, 2) and r.seat_spirit[:2] == (0, 1)
    assert r.seat_mana[2:] == get_game(ML).rules_class().seat_mana[2:]
    with pytest.raises(C.StudyError, match="unknown rule option 'nope'"):
        C.variant_rules({"nope": 1})
    with pytest.raises(C.StudyError, match="end_vp must be >= 0"):
        C.variant_rules({"end_vp": -1}, where="variant x")


# ---------------------------------------------------------------------------
# Equivalence and sample size
# ---------------------------------------------------------------------------
def test_tost_passes_only_inside_the_margin():
    p_in, (lo, hi) = C.tost(0.0, 0.005, 0.03, df=999)
    assert p_in < 1e-6 and -0.03 < lo < hi < 0.03
    p_edge, _ = C.tost(0.03, 0.005, 0.03, df=999)
    assert 0.49 < p_edge < 0.51
    p_out, _ = C.tost(0.06, 0.005, 0.03)
    assert p_out > 0.99
    # se = 0: the difference is known exactly; the point decides (vale_sim.stats.tost)
    assert C.tost(0.0, 0.0, 0.03)[0] == 0.0 and C.tost(0.04, 0.0, 0.03)[0] == 1.0


def test_deals_needed_grows_as_the_room_shrinks():
    a = C.deals_needed(0.5, 0.0, 0.03, 0.05)
    b = C.deals_needed(0.5, 0.01, 0.03, 0.05)
    assert 1500 < a < b           # (1.645 + 0.842)^2 * 0.25 / 0.03^2 ~ 1718
    assert C.deals_needed(0.5, 0.03, 0.03, 0.05) == math.inf


def test_holm_rejects_in_step_down_order():
    reject, adj = C.holm([0.01, 0.04, 0.03], 0.05)
    assert list(reject) == [True, False, False]
    assert adj[0] == pytest.approx(0.03)


# ---------------------------------------------------------------------------
# Playing variants on common deals
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def same_rules_twice():
    r = get_game(ML).rules_class()
    return C.play_variants({"a": r, "b": r}, 2, 4, 9, engine="reference", progress=False)


def test_variants_play_the_same_deals(same_rules_twice):
    df = same_rules_twice
    a = df[df.variant == "a"].drop(columns="variant").reset_index(drop=True)
    b = df[df.variant == "b"].drop(columns="variant").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert sorted(df["deal"].unique()) == [0, 1, 2, 3]


def test_a_difference_no_deal_shows_is_not_a_precise_point(same_rules_twice):
    df = same_rules_twice
    s = lambda v: C.deal_means(df[(df.variant == v) & (df.seat == 0)]["win_share"],  # noqa: E731
                               df[(df.variant == v) & (df.seat == 0)]["deal"])
    d = C.paired(s("a"), s("b"), bound=1.0)
    assert d.mean == 0 and d.lo < 0 < d.hi and d.method == "zero-count bound"
    assert d.hi == pytest.approx(1 - 0.05 ** (1 / 4))


def test_per_game_outcomes_and_what_ended_each_game(same_rules_twice):
    r = get_game(ML).rules_class()
    g = C.per_game(same_rules_twice, {"a": r, "b": r})
    assert len(g) == 8 and set(g["players"]) == {2}
    assert (g["margin"] >= 0).all()
    assert set(g["trigger"]) <= {"VP", "cubes", "both", "none", "unclear"}
    trig = same_rules_twice[same_rules_twice.triggered_end.astype(bool)]
    for row in trig.itertuples():
        kind = g[(g.variant == row.variant) & (g.deal == row.deal)]["trigger"].iloc[0]
        assert (kind in ("cubes", "both")) == (row.cubes >= r.end_cubes)


def test_a_rotated_line_up_puts_every_policy_in_every_seat():
    r = get_game(ML).rules_class()
    df = C.play_variants({"m": r}, 2, 3, 4, ("balanced", "greedy"), rotate=True,
                         engine="reference", progress=False)
    assert set(df["rotation"]) == {0, 1}
    for pol, x in df.groupby("policy"):
        assert sorted(x["slot"].unique()) == [0 if pol == "balanced" else 1]
        assert x.groupby("deal")["seat"].nunique().eq(2).all()


# ---------------------------------------------------------------------------
# The studies, small
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def seat2():
    return seats.seat_study((2,), deals=8, seed=3, engine="reference", progress=False,
                            confirm_deals=8)


def test_seat_study_rates_are_shares_of_one_win_per_game(seat2):
    s = seat2.seats
    assert set(s["schedule"]) == {seats.label(x) for x in seats.schedules(2)}
    tot = s.groupby(["stage", "schedule"])["win_rate"].sum()
    assert np.allclose(tot, 1.0)
    assert ((s["win_rate_lo"] <= s["win_rate"]) & (s["win_rate"] <= s["win_rate_hi"])).all()
    assert (s["n_deals"] == 8).all()
    sc = seat2.schedules
    sel = sc[sc["stage"] == "selection"]
    assert sel["manual"].sum() == 1 and sel["none"].sum() == 1
    assert (sc["p_holm"] >= sc["p_iut"] - 1e-12).all()
    rec = seat2.recommendations[0]
    assert rec["recommended"] is None            # 8 deals cannot show ±3 pp
    assert rec["decision"] == "inconclusive" and rec["manual_verdict"] != "fair"
    js = json.loads(json.dumps(seat2.to_json()))
    assert js["config"]["engine"] == "reference" and len(js["effect"]) == 2


def test_end_trigger_study_table(tmp_path):
    st = lands.end_trigger_study((2,), deals=4, seed=1, options={"end_vp": [20]},
                                 engine="reference", progress=False)
    t = st.table.set_index("variant")
    assert list(t.index) == ["manual", "end_vp=20"]
    ends = t[["ends_VP", "ends_cubes", "ends_both", "ends_none"]].sum(axis=1)
    assert np.allclose(ends, 1.0)
    assert np.isnan(t.loc["manual", "d_rounds"]) and np.isfinite(t.loc["end_vp=20", "d_rounds"])


def test_the_value_of_rain_compares_the_focal_player_on_common_deals():
    v = lands.rain_value(2, deals=3, seed=2, engine="reference", progress=False)
    assert list(v["measure"]) == ["win share", "score", "withers"]
    w = v.iloc[0]
    assert w["n_deals"] == 3 and w["uses_rain"] == pytest.approx(0.5)   # a policy against itself
    assert w["difference"] == pytest.approx(w["never_rains"] - w["uses_rain"])


# ---------------------------------------------------------------------------
# Commands: one-line errors, JSON
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["seat-compensation", "--deals", "3"], "is a Mystic Lands study; add --game mystic-lands"),
    (["end-trigger", "--game", ML, "--deals", "1"], "--deals: must be at least 2"),
    (["seat-compensation", "--game", ML, "--margin", "0"], "--margin must be between 0 and 100"),
    (["end-trigger", "--game", ML, "--end-vp", "20,x"], "--end-vp must be a comma-separated list"),
    (["end-trigger", "--game", ML, "--end-cubes", "-3"], "end_cubes must be >= 0"),
    (["market-growth", "--game", ML, "--lineup", "balanced,nobody"], "unknown policy 'nobody'"),
    (["seat-compensation", "--game", ML, "--players", "5"], "players must be among 2, 3, 4"),
])
def test_study_commands_fail_in_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_plot_into_a_file_path_fails_before_any_game(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["end-trigger", "--game", ML, "--plot", str(f), "--deals", "2"]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_end_trigger_json_and_plot(tmp_path, capsys):
    assert main(["end-trigger", "--game", ML, "--players", "2", "--deals", "2", "--end-vp", "20",
                 "--end-cubes", "", "--end-bonus", "", "--json", "--plot", str(tmp_path)]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["study"] == "end-trigger" and [r["variant"] for r in js["table"]] == ["manual",
                                                                                      "end_vp=20"]
    assert all(r["n_deals"] == 2 for r in js["table"])
    assert (tmp_path / "end-trigger.png").stat().st_size > 1000


# ---------------------------------------------------------------------------
# Configs and the report
# ---------------------------------------------------------------------------
def test_every_bundled_mystic_lands_config_loads():
    from pathlib import Path
    from vale_sim.experiments import load_experiment
    files = sorted((Path(__file__).resolve().parents[1] / "experiments").glob("mystic-lands-*.toml"))
    assert {f.stem for f in files} >= {"mystic-lands-seat-compensation", "mystic-lands-end-trigger",
                                       "mystic-lands-market-growth", "mystic-lands-wither-rain",
                                       "mystic-lands-report"}
    for f in files:
        assert load_experiment(f).game == ML


def test_a_config_runs_a_study(tmp_path):
    from vale_sim.experiments import run_experiment
    cfg = tmp_path / "mg.toml"
    cfg.write_text('study = "market_growth"\ngame = "mystic-lands"\ndeals = 2\nfirst = [3]\n'
                   'second = []\nnever = false\nlineup = ["balanced", "greedy"]\n'
                   'engine = "reference"\n')
    m = run_experiment(cfg, tmp_path / "res", progress=False)
    out = tmp_path / "res" / "mg"
    t = pd.read_csv(out / "market_growth_table.csv")
    assert list(t["variant"]) == ["manual", "first=3"] and m["engine"] == "reference"
    assert (out / "market_growth.png").exists() and (out / "market_growth.json").exists()
    sp = pd.read_csv(out / "market_growth_spread.csv")
    assert (sp["spread_lo"] <= sp["spread"] + 1e-12).all()


def test_the_mystic_lands_report_and_the_index(tmp_path):
    from vale_sim.report import build_report, write_index
    from vale_sim.games.mystic_lands.studies.report import LandsReportSettings
    s = LandsReportSettings.make(size="tiny", engine="reference", end_deals=3, seat_deals=3,
                                 seat_confirm_deals=3)
    m = build_report(tmp_path / "report-mystic-lands", s, progress=False, game=ML)
    out = tmp_path / "report-mystic-lands"
    md = (out / "report.md").read_text()
    assert md.index("Executive summary") < md.index("Seat compensation") < md.index("End trigger")
    for text in ("are estimates", "n = 3 deals", "95% CI", "Holm"):
        assert text in md, text
    html = (out / "index.html").read_text()
    assert "data:image/png;base64," in html and "<script" not in html
    assert m["game"] == ML and m["card_set"]["sources"]["estimate"] > 0
    assert (out / "tables" / "seat_win_rates.csv").exists()
    # the headline card verdicts under the strong field, settled against a second field
    # (the run's previous best response, else its strongest other member)
    assert (out / "tables" / "card_verdicts_strong_field.csv").exists()
    assert "Headline verdicts: under the strongest field" in md
    idx = write_index(tmp_path).read_text()
    assert 'href="report-mystic-lands/index.html"' in idx and "Mystic Lands" in idx


# ---------------------------------------------------------------------------
# Card strength through the game's hooks
# ---------------------------------------------------------------------------
def test_strength_arms_prefer_and_ban_a_card():
    g = get_game(ML)
    cs = g.load_card_set(g.default_card_set)
    prefer, ban = g.strength_arms("Rain Lily", "balanced")
    assert prefer.rules[0].target == "card" and prefer.rules[0].value == "Rain Lily"
    assert "Rain Lily" in ban.never and "Rain Lily" not in prefer.never
    g.check_policies(cs, [prefer, ban])
    names = {n for n, *_ in g.strength_cards(cs)}
    assert {"Rain Lily", "Spirit Cave"} <= names
    assert all(col in ("buy:" + n, "vale:" + n) for n, _, _, col in g.strength_cards(cs))


def test_card_strength_of_mystic_lands():
    from vale_sim.advancements import game_strength_run, strength_frame
    run = game_strength_run(ML, None, 6, 2, 1, "balanced", ["Rain Lily", "Spirit Cave"],
                            engine="reference")
    df = strength_frame(run)
    assert set(df["card"]) == {"Rain Lily", "Spirit Cave"} and (df["n_deals"] == 3).all()
    assert set(df["kind"]) == {"advance", "vale"}
    assert ((df["strength_lo"] <= df["strength"]) & (df["strength"] <= df["strength_hi"])).all()
    with pytest.raises(ValueError, match="unknown card 'Nope'"):
        game_strength_run(ML, None, 4, 2, 1, cards=["Nope"], engine="reference")


def test_advancements_command_for_mystic_lands(capsys):
    assert main(["advancements", "--game", ML, "--compare", "A,B"]) == 2
    assert "--compare is not available for mystic-lands" in capsys.readouterr().err
    assert main(["advancements", "--game", ML, "--games", "2", "--cards", "Rain Lily",
                 "--engine", "reference", "--json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert recs[0]["card"] == "Rain Lily" and recs[0]["n_deals"] == 1


def test_the_report_command_reaches_its_build_and_refuses_only_a_given_baseline(
        monkeypatch, tmp_path, capsys):
    """`make report` runs `vale-sim report --game mystic-lands` with no --baseline; the
    command's --baseline is None (Mystic Vale's report: its strongest field), so the
    refusal must look at what was given, not at the value (it refused every Mystic
    Lands report once, and only `make report` showed it)."""
    import vale_sim.report as R              # the command imports build_report from here
    built = []
    monkeypatch.setattr(R, "build_report",
                        lambda out, settings, **kw: built.append(settings) or
                        {"seconds": 0, "engine": "fast", "size": "quick"})
    assert main(["report", "--game", "mystic-lands", "--quick", "--out",
                 str(tmp_path / "r")]) == 0
    assert len(built) == 1
    capsys.readouterr()
    assert main(["report", "--game", "mystic-lands", "--quick", "--baseline", "meta-{P}p",
                 "--out", str(tmp_path / "r2")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "takes no --baseline" in err[0]


def test_the_flagged_sentence_gives_each_card_per_pick():
    """The strong field's flagged cards in the report's section: natural value, the value
    per pick and, for an under, per forced purchase, each with its interval (issue 36)."""
    import pandas as pd
    from vale_sim.games.mystic_lands.studies.report import flagged_sentence
    row = dict(card="Sun Parrot", verdict="over", settled=True, natural_value=0.081,
               natural_lo=0.05, natural_hi=0.11, per_pick_value=0.145, per_pick_lo=0.09,
               per_pick_hi=0.2, forced_per_pick=0.1, forced_per_pick_lo=0.05,
               forced_per_pick_hi=0.15, verdict_stable=True, verdict_agreement=1.0)
    under = dict(row, card="Rain Lily", verdict="under", settled=False, natural_value=-0.002,
                 natural_lo=-0.01, natural_hi=0.006, per_pick_value=float("nan"),
                 forced_per_pick=-0.081, forced_per_pick_lo=-0.1, forced_per_pick_hi=-0.06)
    text = flagged_sentence(pd.DataFrame([row, under]))
    assert "Sun Parrot (over, settled) natural +8.1 pp [+5.0, +11.0]" in text
    assert "each purchase +14.5 pp [+9.0, +20.0] to its buyer (per pick)" in text
    assert "Rain Lily (under, not settled)" in text
    assert "each forced purchase -8.1 pp [-10.0, -6.0]" in text
    assert text.count("each forced purchase") == 1          # only the under says it
    assert flagged_sentence(pd.DataFrame([row]).iloc[:0]) == (
        "No card is flagged under the strong field.")
