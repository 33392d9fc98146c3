"""A third game gets every shared command and its own study by registering itself
(issue 25 §1): the toy game of tests/pig.py -- its package is that one module, which
declares its report (``Game.report``), card-strength hooks and its own study record
(``bust_odds``) -- registered as ``--game pig`` (the registry entry) and nothing else.
"""
from __future__ import annotations

import json

import pandas as pd
import pytest

import pig as pig_game
from vale_sim.cli import main


@pytest.fixture
def pig(monkeypatch):
    return pig_game.registered(monkeypatch)


def test_play_simulate_tournament(pig, capsys, tmp_path):
    assert main(["play", "--game", "pig", "--seed", "3"]) == 0
    assert "banks" in capsys.readouterr().out
    assert main(["simulate", "--game", "pig", "--engine", "reference", "--games", "6",
                 "--summary-only", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == "pig"
    assert main(["tournament", "--game", "pig", "--engine", "reference", "--games", "4",
                 "--policies", "bold,cautious", "--json"]) == 0
    capsys.readouterr()


def test_its_own_study_on_the_command_line_and_under_run(pig, capsys, tmp_path):
    assert main(["bust-odds", "--game", "pig", "--hold", "10", "--hold", "30",
                 "--turns", "50"]) == 0
    t = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    assert list(t["hold_at"]) == [10, 30]
    assert t["bust_share"].iloc[0] < t["bust_share"].iloc[1]   # holding longer busts more
    # the study is pig's: another game refuses it in one line naming pig
    assert main(["bust-odds", "--hold", "10"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("it is a Pig study; add --game pig") and len(err.splitlines()) == 1
    cfg = tmp_path / "pig_busts.toml"
    cfg.write_text('study = "bust_odds"\ngame = "pig"\nholds = [10, 30]\nturns = 40\n'
                   'engine = "reference"\n')
    assert main(["run", str(cfg), "--results", str(tmp_path / "results")]) == 0
    capsys.readouterr()
    out = tmp_path / "results" / "pig_busts"
    assert pd.read_csv(out / "bust_odds.csv")["turns"].eq(40).all()
    m = json.loads((out / "manifest.json").read_text())
    assert m["study"] == "bust_odds" and m["config"]["game"] == "pig"
    # a bad key of its schema is one line naming the file and the key
    cfg.write_text('study = "bust_odds"\ngame = "pig"\nholdz = [1]\n')
    assert main(["run", str(cfg), "--results", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err
    assert "holdz" in err and str(cfg) in err


def test_advancements_through_its_hooks(pig, capsys):
    assert main(["advancements", "--game", "pig", "--games", "8", "--engine", "reference",
                 "--baseline", "cautious", "--json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert {r["card"] for r in recs} == {"hold-12", "hold-20"}
    assert all(r["n_deals"] == 4 for r in recs)
    # the observational run is a hook pig does not have: one line
    assert main(["advancements", "--game", "pig", "--games", "8", "--engine", "reference",
                 "--only", "observational"]) == 2
    assert "not available for pig" in capsys.readouterr().err


def test_its_report(pig, capsys, tmp_path):
    out = tmp_path / "report-pig"
    assert main(["report", "--game", "pig", "--quick", "--engine", "reference",
                 "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    md = (out / "report.md").read_text()
    assert "Pig report (quick)" in md and "Bust odds" in md and "Run manifest" in md
    assert "vale-sim report --game pig --quick" in md
    t = pd.read_csv(out / "tables" / "bust_odds.csv")
    assert t["turns"].eq(100).all() and len(t) == 3
    assert json.loads((out / "manifest.json").read_text())["game"] == "pig"
