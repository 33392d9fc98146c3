"""Study configs: validation before any game runs, manifest, chunk reuse."""
import json
from pathlib import Path

import pytest

from cli_checks import one_line_error
from vale_sim import experiments
from vale_sim.cli import main
from vale_sim.experiments import ExperimentError, load_experiment, run_experiment

REPO = Path(__file__).resolve().parents[1]


def write(tmp_path, name, text):
    p = tmp_path / f"{name}.toml"
    p.write_text(text)
    return p


def test_bundled_configs_validate():
    names = sorted(p.stem for p in (REPO / "experiments").glob("*.toml"))
    assert {"spoil_odds", "tournament", "advancement_value", "pool_sizes", "report"} <= set(names)
    for n in names:
        exp = load_experiment(REPO / "experiments" / f"{n}.toml")
        assert exp.study in experiments.STUDIES


def test_unknown_key_fails_before_any_game_and_names_it(tmp_path, no_games, capsys):
    p = write(tmp_path, "pools_bad", 'study = "pool_sizes"\ngames = 10\ngamez = 5\n')
    with pytest.raises(ExperimentError, match="gamez") as e:
        run_experiment(p, tmp_path / "results")
    assert str(p) in str(e.value)
    assert not (tmp_path / "results" / "pools_bad").exists()
    assert main(["run", str(p), "--results", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err.strip()
    assert "gamez" in err and str(p) in err and len(err.splitlines()) == 1


def test_unknown_rules_key_is_named(tmp_path, no_games):
    p = write(tmp_path, "t", 'study = "tournament"\n[rules]\nvp_poool = 20\n')
    with pytest.raises(ExperimentError, match=r"rules\.vp_poool"):
        load_experiment(p)


@pytest.mark.parametrize("text, key", [
    ('study = "tournament"\ngames = -3\n', "games"),
    ('study = "tournament"\nplayers = 7\n', "players"),
    ('study = "tournament"\npolicies = ["balanced", "no-such-policy"]\n', "policies"),
    ('study = "pool_sizes"\npools = "40:20"\n', "pools"),
    ('study = "pool_sizes"\nplayers = [3, 4]\n', "target"),
    ('study = "spoil_odds"\ndecks = ["nope"]\n', "decks"),
    ('study = "advancement_value"\ntolerance = 2\n', "tolerance"),
    ('study = "advancement_value"\ncards = ["Not A Card"]\n', "cards"),
    ('study = "report"\n[sizes]\npool_gamez = 3\n', "sizes"),
    ('study = "tournament"\ncard_set = "nonexistent-set"\n', "card_set"),
    ('study = "pool_sizes"\nengine = "turbo"\n', "engine"),
    ('study = "sudoku"\n', "study"),
    ('games = 3\n', "study"),
])
def test_bad_values_fail_naming_the_key(tmp_path, no_games, text, key):
    p = write(tmp_path, "bad", text)
    with pytest.raises(ExperimentError) as e:
        run_experiment(p, tmp_path / "results")
    msg = str(e.value)
    assert f": {key}" in msg and str(p) in msg


def test_rerun_reuses_chunks(tmp_path):
    p = write(tmp_path, "pools_small",
              'study = "pool_sizes"\nseed = 4\nplayers = [2]\npools = [25]\ngames = 6\n')
    res = tmp_path / "results"
    m1 = run_experiment(p, res, progress=False)
    out = res / "pools_small"
    assert (out / "manifest.json").exists() and (out / "pool_sizes.csv").exists()
    # an in-process run is one chunk of up to runner.DEFAULT_CHUNK games (it was cut
    # in four): what matters is that the rerun below reuses every chunk played here
    assert m1["chunks"]["played"] >= 1 and m1["chunks"]["reused"] == 0
    man = json.loads((out / "manifest.json").read_text())
    for k in ("config", "card_set", "seed", "games", "code", "seconds", "started"):
        assert k in man, k
    assert man["card_set"]["digest"] and man["card_set"]["sources"]
    assert man["config"]["games"] == 6
    first = (out / "pool_sizes.csv").read_text()
    m2 = run_experiment(p, res, progress=False)
    assert m2["chunks"] == {"reused": m1["chunks"]["played"], "played": 0}
    assert (out / "pool_sizes.csv").read_text() == first


def test_spoil_study_writes_exact_and_simulated(tmp_path):
    p = write(tmp_path, "sp", 'study = "spoil_odds"\ndecks = ["starter"]\npushes = 2\ngames = 200\n')
    m = run_experiment(p, tmp_path / "r", progress=False)
    csv = (tmp_path / "r" / "sp" / "spoil_odds.csv").read_text().splitlines()
    assert csv[0].startswith("deck,pushes,p_spoil_exact,p_spoil_sim") and len(csv) == 3
    assert m["chunks"]["played"] == 1
    assert run_experiment(p, tmp_path / "r", progress=False)["chunks"]["reused"] == 1


# run --check: bounded grids, the cost stated, the file read as UTF-8 (moved from
# tests/test_hardening.py, issue 18 §5)
def test_run_check_refuses_a_huge_pool_grid_at_once(tmp_path, capsys):
    exp = tmp_path / "huge.toml"
    exp.write_text('study = "pool_sizes"\npools = "1:100000000:1"\ngames = 2\n')
    rc = main(["run", "--check", str(exp)])
    one_line_error(capsys, rc, "huge.toml", "pools", "100000000", "200")


def test_run_check_states_the_cost(tmp_path, capsys):
    exp = tmp_path / "small.toml"
    exp.write_text('study = "pool_sizes"\nplayers = [2, 3]\npools = "20:30:5"\ngames = 7\n')
    assert main(["run", "--check", str(exp)]) == 0
    # pools 20, 25, 30 plus the rulebook's 23 and 28, for 2 and 3 players
    assert "about 70 games" in capsys.readouterr().out


def test_non_utf8_experiment_file_is_one_line(tmp_path, capsys):
    exp = tmp_path / "latin.toml"
    exp.write_bytes('study = "tournament"\ndescription = "café"\n'.encode("latin-1"))
    rc = main(["run", "--check", str(exp)])
    one_line_error(capsys, rc, "latin.toml", "UTF-8")
