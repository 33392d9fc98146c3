"""`vale-sim play`: a readable game, and identical JSON for identical seeds."""
from __future__ import annotations

import json

from vale_sim.cli import main


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_play_prints_a_followable_game(capsys):
    rc, out, _ = run(capsys, "play", "--players", "3", "--seed", "5")
    assert rc == 0
    assert "Setup: 3 players, VP pool 28" in out
    assert "--- Round 1" in out and "harvests" in out and "buys" in out
    assert "Winner:" in out and "preps the next field" in out


def test_play_json_is_deterministic(capsys):
    _, a, _ = run(capsys, "play", "--players", "3", "--seed", "5", "--json")
    _, b, _ = run(capsys, "play", "--players", "3", "--seed", "5", "--json")
    _, c, _ = run(capsys, "play", "--players", "3", "--seed", "6", "--json")
    assert a == b and a != c
    data = json.loads(a)
    assert data["players"] == 3 and data["seed"] == 5 and len(data["results"]) == 3
    assert sum(r["win_share"] for r in data["results"]) == 1.0


def test_malformed_card_file_exit_2_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[set]\nname = "x"\n[[advancements]]\nname = "Oops"\nlevel = 1\n'
                   'supply = "commons"\ncopies = 1\ncost = -2\nposition = "top"\nsource = "estimate"\n')
    rc, _, err = run(capsys, "play", "--set", str(bad))
    assert rc == 2
    line = err.strip()
    assert len(line.splitlines()) == 1
    assert "bad.toml" in line and "Oops" in line and "cost" in line
