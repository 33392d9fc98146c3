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


# Mystic Lands' disputed readings (docs/mystic-lands-rules.md M9, M17, M18): `play`
# takes them as `what-if --rule` does.  Each seed is one whose game the reading changes.
ML_READINGS = [("ongoing_everywhere", True, 0), ("effect_enchants_count", True, 4),
               ("held_end_vp", False, 2)]


def test_play_chooses_each_mystic_lands_reading_as_the_api_does(capsys):
    from vale_sim.games.mystic_lands import GAME as ML
    from vale_sim.games.mystic_lands.rules import Rules
    cs = ML.load_card_set(ML.default_card_set)
    pols = [ML.get_policy(ML.default_policy)] * 2
    for name, value, seed in ML_READINGS:
        rc, out, err = run(capsys, "play", "--game", "mystic-lands", "--seed", str(seed),
                           "--json", "--rule", f"{name}={str(value).lower()}")
        assert rc == 0, err
        api = ML.play_reference(cs, 2, seed, 0, pols, Rules(**{name: value}))
        assert json.loads(out) == json.loads(json.dumps(api.to_dict(), sort_keys=True)), name
        default = ML.play_reference(cs, 2, seed, 0, pols, Rules())
        assert json.loads(out) != json.loads(json.dumps(default.to_dict(), sort_keys=True)), name
        rc, text, _ = run(capsys, "play", "--game", "mystic-lands", "--seed", str(seed),
                          "--rule", f"{name}={str(value).lower()}")
        assert rc == 0 and text.splitlines()[0] == (
            f"Rule {name}: {str(not value).lower()} -> {str(value).lower()}")


def test_play_rule_refuses_a_bad_reading_in_one_line(capsys):
    from cli_checks import one_line_error
    rc = main(["play", "--game", "mystic-lands", "--rule", "held_end_vp=maybe"])
    one_line_error(capsys, rc, "--rule held_end_vp", "true or false")
