"""Mystic Lands on the command line: play, cards and simulate (reference engine)."""
from __future__ import annotations

import json

import pytest

from vale_sim.cli import main


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_play_four_players_turn_by_turn(capsys):
    rc, out, err = run(capsys, "play", "--game", "mystic-lands", "--players", "4", "--seed", "1")
    assert rc == 0, err
    assert out.startswith("Setup: 4 players")
    assert "Round 1, P0" in out and "Night:" in out and "Day:" in out and "Dusk:" in out
    table = out[out.index("player seat policy"):].splitlines()
    assert [line.split()[0] for line in table[1:5]] == ["P0", "P1", "P2", "P3"]
    assert table[5].endswith("rounds")


def test_play_json_is_the_record(capsys):
    rc, out, _ = run(capsys, "play", "--game", "mystic-lands", "--players", "2", "--seed", "3",
                     "--json")
    assert rc == 0
    rec = json.loads(out)
    assert rec["players"] == 2 and len(rec["results"]) == 2
    assert sum(r["win_share"] for r in rec["results"]) == pytest.approx(1.0)


def test_cards_text_and_json_carry_sources(capsys):
    rc, out, _ = run(capsys, "cards", "--game", "mystic-lands")
    assert rc == 0 and "Starting deck:" in out and "Numbers by source:" in out
    rc, out, _ = run(capsys, "cards", "--game", "mystic-lands", "--json")
    d = json.loads(out)
    assert d["numbers"] == sum(d["numbers_by_source"].values())
    arid = next(c for c in d["cards"] if c["name"] == "Arid Land")
    assert arid["numbers"]["count"] == {"value": 8, "source": "manual"}
    assert all(n["value"] is not None for c in d["cards"] for n in c["numbers"].values())


@pytest.mark.parametrize("argv, needle", [
    (("play", "--game", "mystic-lands", "--set", "nope"), "nope"),
    (("play", "--game", "mystic-lands", "--policy", "no-such-bot"), "no-such-bot"),
    (("play", "--game", "mystic-lands", "--prep-count", "gross"), "--prep-count"),
    (("cards", "--game", "mystic-lands", "--csv", "x.csv"), "--csv"),
    (("pools", "--game", "mystic-lands", "--games", "10"), "pools"),
])
def test_user_mistakes_are_one_line(capsys, argv, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and needle in err
    assert list(tmp_path.iterdir()) == []


def test_simulate_reference_engine(capsys, tmp_path):
    out_path = tmp_path / "ml.parquet"
    rc, out, err = run(capsys, "simulate", "--game", "mystic-lands", "--engine", "reference",
                       "--games", "6", "--players", "3", "--out", str(out_path))
    assert rc == 0, err
    assert "6 games, 3 players" in out and "withers/game" in out
    import pandas as pd
    from vale_sim.runner import load_results
    df = load_results(out_path)
    assert len(df) == 18 and set(df["seat"]) == {0, 1, 2}
    assert (df.groupby("game")["win_share"].sum().round(9) == 1).all()
    assert isinstance(df, pd.DataFrame)
