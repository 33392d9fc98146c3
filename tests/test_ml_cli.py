"""The stand-alone Mystic Lands command line (python -m vale_sim.games.mystic_lands)."""
from __future__ import annotations

import json

import pytest

from vale_sim.games.mystic_lands.__main__ import main


def test_play_four_players_turn_by_turn(capsys):
    assert main(["play", "--players", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Setup: 4 players")
    assert "Round 1, P" in out and "Night:" in out and "Day:" in out and "Dusk:" in out
    assert "triggers the end" in out and "Winner:" in out
    assert out.count("\n    P") >= 4                          # the score table


def test_play_json_is_the_record(capsys):
    assert main(["play", "--players", "2", "--seed", "3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["players"] == 2 and d["seed"] == 3 and len(d["results"]) == 2 and d["turns"]


def test_cards_lists_the_set(capsys):
    assert main(["cards"]) == 0
    out = capsys.readouterr().out
    assert "Card set 'mystic-lands'" in out and "Gateway Vale" in out


@pytest.mark.parametrize("argv,expect", [
    (["play", "--policy", "nope"], "unknown policy 'nope'"),
    (["play", "--seed", "-1"], "seed must be in"),
    (["cards", "--set", "missing.toml"], "missing.toml: no such card set file"),
    (["play", "--policy", "cautious", "--policy", "greedy", "--policy", "vp"], "give 1 or 2"),
])
def test_user_mistakes_are_one_line_exit_2(capsys, argv, expect):
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and expect in cap.err and cap.err.count("\n") == 1
