"""Tournaments: seat rotation, common seeds, tables, ranking, CLI (small sizes)."""
import json

import numpy as np
import pandas as pd
import pytest

from vale_sim.cli import main
from vale_sim.tournament import (game_comparisons, matchups, play_frame, rotations,
                                 tournament, turn_curves)

POLS = ["balanced", "greedy", "cautious"]


@pytest.fixture(scope="module")
def t2():
    return tournament(POLS, players=2, games=8, engine="reference")


@pytest.fixture(scope="module")
def t3():
    return tournament(POLS, players=3, games=6, engine="reference")


def test_matchups_and_rotations():
    assert matchups(POLS, 2, "round-robin") == [("balanced", "greedy"), ("balanced", "cautious"),
                                                ("greedy", "cautious")]
    assert matchups(POLS, 3, "field") == [("greedy", "balanced", "balanced"),
                                          ("cautious", "balanced", "balanced")]
    assert rotations(("a", "b", "b")) == [("a", "b", "b"), ("b", "a", "b"), ("b", "b", "a")]
    with pytest.raises(ValueError):
        matchups(POLS, 4, "round-robin")


@pytest.mark.parametrize("fixture", ["t2", "t3"])
def test_seat_rotation_balances_seats(fixture, request):
    t = request.getfixturevalue(fixture)
    f = t.frame
    players = t.config["players"]
    counts = f.groupby(["matchup", "policy", "seat"]).size().unstack("seat")
    assert counts.shape[1] == players
    # every policy of a matchup sits in every seat equally often
    assert (counts.nunique(axis=1) == 1).all()
    # and per deal: each policy of the line-up takes each seat exactly once over the rotations
    focal = f[f["policy"] == f.groupby("matchup")["policy"].transform("first")]
    per_deal = focal.groupby(["matchup", "game"])["seat"].agg(lambda s: sorted(set(s)))
    assert all(v == list(range(players)) for v in per_deal)


def test_rotations_share_deals(t2):
    # Common random numbers: deal i has the same starting player in every rotation.
    f = t2.frame
    start = (f["player"] - f["seat"]) % 2
    assert (f.assign(start=start).groupby("game")["start"].nunique() == 1).all()


def test_table_rates_with_n_and_intervals(t2):
    tab = t2.table
    assert len(tab) == 6 and (tab["n"] == 8).all()
    for k in ("win", "tie"):
        assert (tab[f"{k}_lo"] <= tab[f"{k}_rate"] + 1e-12).all()
        assert (tab[f"{k}_rate"] <= tab[f"{k}_hi"] + 1e-12).all()
    for k in ("spoils_per_turn", "mean_score", "mean_rounds"):
        assert (tab[f"{k}_lo"] <= tab[k] + 1e-12).all() and (tab[k] <= tab[f"{k}_hi"] + 1e-12).all()
    assert (tab["n_deals"] == 4).all()          # 8 games = 4 deals x 2 rotations: 4 clusters
    # win shares of the two policies of a matchup add up to the games played
    assert (tab.groupby("matchup")["wins"].sum() == 8).all()
    seats = t2.seats[t2.seats["policy"] == "all"]
    # seat 1 = the starting player (frame seat 0)
    assert list(seats["seat"]) == [1, 2] and seats["n"].sum() == len(t2.frame)
    first = t2.frame[t2.frame["seat"] == 0]["win_share"].mean()
    assert seats["win_rate"].iloc[0] == pytest.approx(first)
    assert set(t2.ranking["name"]) == set(POLS)


def test_field_mode(t3):
    assert t3.config["baseline"] == "balanced"
    tab = t3.table
    assert set(tab["matchup"]) == {"greedy vs 2×balanced", "cautious vs 2×balanced"}
    assert (tab[tab["policy"] != "balanced"]["n"] == 6).all()
    assert (tab[tab["policy"] == "balanced"]["n"] == 12).all()


def test_game_comparisons_rank_breaking():
    f = pd.DataFrame({"game": [0, 0, 0, 1, 1, 1], "player": [0, 1, 2] * 2,
                      "policy": ["a", "b", "b", "a", "b", "b"],
                      "score": [10, 12, 8, 5, 5, 9], "tiebreak": [0, 0, 0, 1, 0, 0]})
    c = game_comparisons(f, ["a", "b"])
    # game 0: a loses to the first b, beats the second; game 1: a beats b on tie-break, loses to 9
    assert c[0].tolist() == [[0, 1], [1, 0]]
    assert c[1].tolist() == [[0, 1], [1, 0]]
    f.loc[3, "tiebreak"] = 0
    assert game_comparisons(f, ["a", "b"])[1].tolist() == [[0, 0.5], [1.5, 0]]


def test_results_do_not_depend_on_workers():
    one = play_frame("core", 2, 7, 6, ["balanced", "greedy"], engine="reference", workers=1)
    two = play_frame("core", 2, 7, 6, ["balanced", "greedy"], engine="reference", workers=2,
                     chunk_size=2)
    pd.testing.assert_frame_equal(one, two)


def test_turn_curves_small():
    c = turn_curves(["balanced", "greedy"], games=2, engine="reference")
    pd.testing.assert_frame_equal(c, turn_curves(["balanced", "greedy"], games=2, engine="fast"))
    assert set(c["policy"]) == {"balanced", "greedy"}
    assert {"round", "n", "n_deals", "vp", "mana", "crafted", "spoiled_turn_share"} <= set(c.columns)
    for k in ("vp", "mana", "crafted", "spoiled_turn_share"):
        ok = c[f"{k}_lo"].isna() | ((c[f"{k}_lo"] <= c[k] + 1e-9) & (c[k] <= c[f"{k}_hi"] + 1e-9))
        assert ok.all(), k
    for _, g in c.groupby("policy"):
        assert g["crafted"].is_monotonic_increasing or g["n"].min() < g["n"].max()


def test_plots(t2, tmp_path):
    from vale_sim.plots.tournament import plot_tournament, plot_turn_curves
    from vale_sim.io import save_figure
    save_figure(plot_tournament(t2), tmp_path / "t.png")             # closes the figure
    save_figure(plot_turn_curves(turn_curves(["balanced"], players=2, games=2, mode="field",
                                             baseline="greedy"), min_n=1), tmp_path / "c.png")
    assert (tmp_path / "t.png").stat().st_size > 0


def test_cli_json_and_errors(capsys):
    rc = main(["tournament", "--policies", "balanced,greedy", "--games", "4", "--engine",
               "reference", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"]["games_per_matchup"] == 4
    rows = out["table"]
    assert {r["policy"] for r in rows} == {"balanced", "greedy"}
    assert all({"n", "n_deals", "win_rate", "win_lo", "win_hi", "mean_score", "mean_score_lo",
                "mean_score_hi", "mean_rounds_lo", "spoils_per_turn", "spoils_per_turn_hi",
                "tie_lo"} <= set(r) for r in rows)
    assert not any("spoil_rate" in r for r in rows)
    assert [s["seat"] for s in out["seats"] if s["policy"] == "all"] == [1, 2]
    assert all({"n", "n_deals", "win_lo", "advantage_lo", "mean_score_hi"} <= set(s) for s in out["seats"])
    assert all({"comparisons", "expected_vs_mean", "expected_lo", "expected_hi"} <= set(r)
               for r in out["ranking"])
    assert out["config"]["clustered_by_deal"] is True
    assert main(["tournament", "--policies", "balanced,nope", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown policy" in err
    assert main(["tournament", "--policies", "balanced", "--games", "2"]) == 2


def test_cli_text(capsys):
    assert main(["tournament", "--policies", "balanced,cautious", "--games", "2",
                 "--engine", "reference"]) == 0
    out = capsys.readouterr().out
    assert "Seat advantage" in out and "Bradley-Terry" in out and "[" in out
    assert "seat 1 = starting player" in out and "clustered by deal" in out
    assert main(["tournament", "--policies", "balanced,cautious", "--games", "4", "--no-cluster",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["config"]["clustered_by_deal"] is False


def test_cluster_flag_changes_only_the_intervals(t2):
    from vale_sim.tournament import matchup_table, ranking, seat_table
    f = t2.frame
    a, b = seat_table(f), seat_table(f, cluster=False)
    pd.testing.assert_series_equal(a["win_rate"], b["win_rate"])
    assert (a["n_deals"] == 4).all()
    ta, tb = matchup_table(f), matchup_table(f, cluster=False)
    pd.testing.assert_series_equal(ta["spoils_per_turn"], tb["spoils_per_turn"])
    ra, rb = ranking(f, POLS, 2), ranking(f, POLS, 2, cluster=False)
    np.testing.assert_allclose(ra["strength"], rb["strength"])
    assert ra.attrs["method"] == "sandwich" and rb.attrs["method"] == "fisher"
    assert not np.allclose(ra["se"], rb["se"])
