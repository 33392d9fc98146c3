"""``vale-sim golden [--game GAME] [--regenerate]`` (vale_sim/commands/golden.py): one
command for every game with golden playthroughs, run here on the toy game of
tests/pig.py against a copy of its files."""
from __future__ import annotations

import shutil

import pytest

import pig
from vale_sim.cli import build_parser, main


@pytest.fixture
def pig_copy(monkeypatch, tmp_path):
    pig.registered(monkeypatch)
    folder = tmp_path / "golden"
    shutil.copytree(pig.GOLDEN_DIR, folder)
    monkeypatch.setattr(pig, "GOLDEN_DIR", folder)
    return folder


def test_check_reports_each_case_then_a_changed_file_then_regenerates_it(pig_copy, capsys):
    assert main(["golden", "--game", "pig"]) == 0
    out = capsys.readouterr().out
    assert all(f"ok   {c.name}" in out for c in pig.CASES)

    path = pig_copy / f"{pig.CASES[0].name}.txt"
    good = path.read_text()
    path.write_text(good.replace("banked=", "banked=1", 1))
    assert main(["golden", "--game", "pig"]) == 1
    out = capsys.readouterr().out
    assert f"DIFF {pig.CASES[0].name}" in out and f"ok   {pig.CASES[1].name}" in out
    assert "vale-sim golden --game pig --regenerate" in out

    assert main(["golden", "--game", "pig", "--regenerate"]) == 0
    assert path.read_text() == good


@pytest.mark.parametrize("game", ["mystic-vale", "mystic-lands"])
def test_both_games_have_the_command(game):
    args = build_parser().parse_args(["golden", "--game", game])
    assert args.func.__module__ == "vale_sim.commands.golden"


def test_a_golden_file_that_is_not_utf8_is_one_line(pig_copy, capsys):
    """Was a UnicodeDecodeError traceback (issue 41, item 6)."""
    path = pig_copy / f"{pig.CASES[0].name}.txt"
    path.write_bytes(b"\xff\xfe" + path.read_bytes())
    assert main(["golden", "--game", "pig"]) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert str(path) in lines[0] and "UTF-8" in lines[0] and "--regenerate" in lines[0]
