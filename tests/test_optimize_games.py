"""`vale-sim optimize` for every game with a search space (issue 25 §1): the command
asks the Game (search space, presets, default set and policy, engines) and names no
game; a game without a space is refused in one line.  Tiny budgets."""
from __future__ import annotations

import json
import tomllib

import pytest

import pig as pig_game
from vale_sim import optimize as opt
from vale_sim.cli import main
from vale_sim.games import get_game

pytestmark = pytest.mark.compiled      # Mystic Lands' fast engine

TINY = ["--players", "2", "--budget", "400", "--deals", "2", "--popsize", "3", "--hall", "1",
        "--validate-deals", "3", "--seed", "2"]


def _outputs(tmp_path, stem):
    man = json.loads((tmp_path / f"{stem}.manifest.json").read_text())
    return man, (tmp_path / f"{stem}.toml")


def test_optimize_searches_mystic_lands_and_keeps_the_start_buy_rules(tmp_path, capsys):
    g = get_game("mystic-lands")
    out = tmp_path / "ml.toml"
    assert main(["optimize", "--game", "mystic-lands", *TINY, "--start", "rain-dancer",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Held-out validation" in text
    man, _ = _outputs(tmp_path, "ml")
    assert man["game"] == "mystic-lands" and man["start"] == "rain-dancer"
    assert man["card_set"]["name"] == g.default_card_set
    assert [r["opponent"] for r in man["validation"]["rows"]] == list(g.presets)
    space = opt.policy_space(game="mystic-lands")
    assert [p.describe() for p in space] == man["space"]
    pol = g.get_policy(str(out))                        # the policy file loads back ...
    assert opt.params_of(space, pol) == man["policy"]   # ... to the searched parameters
    start = g.get_policy("rain-dancer")
    assert start.rules and pol.rules == start.rules     # and the unsearched fields of --start
    assert out.read_text().startswith("# vale-sim optimize: mystic-lands, 2 players")


def test_optimize_keeps_the_unsearched_fields_of_a_start_policy_file(tmp_path, capsys):
    """A Mystic Vale --start file with buy rules and a never list: the optimised policy
    keeps them (the old writer put ``base = "balanced"`` and the searched fields only)."""
    g = get_game("mystic-vale")
    start = tmp_path / "mine.toml"
    start.write_text('base = "greedy"\nname = "mine"\nnever = ["Woodland Warden"]\n\n'
                     '[[buy]]\nbest = "vale"\n')
    out = tmp_path / "best.toml"
    assert main(["optimize", *TINY, "--budget", "150", "--deals", "1", "--hall", "0",
                 "--validate-deals", "0", "--start", str(start), "--out", str(out)]) == 0
    capsys.readouterr()
    mine, pol = g.get_policy(str(start)), g.get_policy(str(out))
    assert mine.rules and mine.never
    assert pol.rules == mine.rules and pol.never == mine.never
    assert pol.explore_permille == mine.explore_permille        # excluded from the space
    man, _ = _outputs(tmp_path, "best")
    assert opt.params_of(opt.policy_space(), pol) == man["policy"] and man["game"] == "mystic-vale"


@pytest.fixture
def pig(monkeypatch):
    return pig_game.registered(monkeypatch)


def test_optimize_searches_the_toy_game_on_its_reference_engine(pig, tmp_path, capsys):
    out = tmp_path / "p.toml"
    assert main(["optimize", "--game", "pig", "--players", "2", "--budget", "200", "--deals", "2",
                 "--popsize", "3", "--hall", "0", "--validate-deals", "4", "--seed", "1",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    man, _ = _outputs(tmp_path, "p")
    assert man["game"] == "pig" and man["space"] == ["hold_at: integer 1..40"]
    assert [r["opponent"] for r in man["validation"]["rows"]] == ["bold", "cautious"]
    data = tomllib.loads(out.read_text())
    assert data["base"] == pig.default_policy and data["hold_at"] == man["policy"]["hold_at"]
    assert 1 <= data["hold_at"] <= 40
    pol = pig.get_policy(str(out))                      # the toy game reads it back
    assert (pol.name, pol.hold_at) == ("p", man["policy"]["hold_at"])
    log = json.loads((tmp_path / "p.log.json").read_text())
    assert log["candidates"] and all(1 <= c["hold_at"] <= 40 for c in log["candidates"])


def test_the_same_seed_gives_the_same_search_for_another_game(pig):
    cfg = opt.SearchConfig(seed=4, players=2, budget=120, popsize=3, hall=0, game="pig")
    runs = [opt.search(cfg, opt.GameObjective(None, 2, deals=2, engine="reference", game="pig"))
            for _ in range(2)]
    assert runs[0].log == runs[1].log and runs[0].policy == runs[1].policy
    assert cfg.start == pig.default_policy              # the game's default policy


def test_a_game_without_a_search_space_is_one_line(monkeypatch, capsys):
    from dataclasses import replace
    from vale_sim.study import OPTIMIZE
    pig = pig_game.registered(monkeypatch)
    bare = replace(pig, search_space=None)
    monkeypatch.setattr(pig_game, "PIG", bare)
    monkeypatch.setattr(pig_game, "GAME", bare)
    assert main(["optimize", "--game", "pig", "--players", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("optimize needs a policy search space, which pig has none of"), err
    assert len(err.splitlines()) == 1
    assert OPTIMIZE in bare.studies


def test_the_player_count_is_the_games(pig, capsys):
    assert main(["optimize", "--game", "pig", "--players", "4"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--players must be 2 or 3 for Pig (got 4)" in err and len(err.splitlines()) == 1
