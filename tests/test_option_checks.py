"""Options are never silently ignored, and a message only suggests options its command
has (issue 41, item 7).

* an option that only means something with another (``balance --numbers`` with
  ``--draft``, ``bench --decks`` with ``--spoil``, ``--connect-timeout`` with
  ``--scheduler``...) is refused with one line, exit 2, before any game;
* every command that takes ``--scheduler`` takes ``--connect-timeout`` and
  ``--worker-timeout`` (its messages name them), and every ``--option`` in the one-line
  message of an unreachable scheduler or of a game without a fast engine is an option of
  the command that printed it.
"""
import re
import warnings

import pytest

from vale_sim.cli import build_parser, main


def _options(command: str) -> set:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return {o for a in sub.choices[command]._actions for o in a.option_strings}


def _one_line_naming_only_own_options(command, capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*[a-z]", err))
    assert named <= _options(command), (command, named - _options(command), err)
    return err


@pytest.mark.parametrize("argv, option, needs", [
    (["balance", "--numbers", "X1"], "--numbers", "--draft"),
    (["bench", "--decks", "5"], "--decks", "--spoil"),
    (["bench", "--search-k", "4"], "--search-k", "--search"),
    (["bench", "--search-rollout", "balanced"], "--search-rollout", "--search"),
    (["simulate", "--games", "2", "--connect-timeout", "3"], "--connect-timeout", "--scheduler"),
    (["simulate", "--games", "2", "--worker-timeout", "3"], "--worker-timeout", "--scheduler"),
    (["balance", "--worker-timeout", "3"], "--worker-timeout", "--scheduler"),
    (["optimize", "--players", "2", "--connect-timeout", "3"], "--connect-timeout",
     "--scheduler"),
    (["spoil-odds", "--games", "50"], "--games", "--simulate"),
    (["spoil-odds", "--seed", "3"], "--seed", "--simulate"),
    (["spoil-odds", "--simulate", "--max-states", "5000"], "--max-states", "exact"),
    (["spoil-odds", "--simulate", "--engine", "python"], "--engine", "exact"),
    (["advancements", "--pilot-games", "50"], "--pilot-games", "--precision"),
    (["advancements", "--only", "strength", "--explore", "100"], "--explore", "observational"),
    (["advancements", "--compare", "A,B", "--observational-games", "10"],
     "--observational-games", "observational"),
])
def test_an_option_that_needs_another_is_refused_before_any_game(argv, option, needs, capsys,
                                                                   no_analyses, tmp_path,
                                                                   monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = _one_line_naming_only_own_options(argv[0], capsys)
    assert option in err and needs in err, err


@pytest.mark.parametrize("option", ["--fields", "--flagged", "--estimand", "--budget",
                                    "--tolerance", "--correction"])
def test_balance_draft_refuses_the_settings_of_card_edits(option, capsys, no_games):
    value = {"--fields": ["cost"], "--flagged": [], "--estimand": ["prefer"],
             "--budget": ["100"], "--tolerance": ["3"], "--correction": ["bonferroni"]}[option]
    assert main(["balance", "--draft", option, *value]) == 2
    err = _one_line_naming_only_own_options("balance", capsys)
    assert f"{option} does not apply to --draft" in err


@pytest.mark.parametrize("argv", [["bench", "--spoil", "--search"],
                                  ["bench", "--spoil", "--repeats", "3"],
                                  ["bench", "--search", "--reference-games", "10"],
                                  ["bench", "--spoil", "--games", "10"]])
def test_bench_modes_refuse_the_options_of_the_engine_benchmark(argv, capsys, no_games):
    assert main(argv) == 2
    _one_line_naming_only_own_options("bench", capsys)


@pytest.mark.parametrize("argv", [
    ["simulate", "--games", "4"],
    ["balance", "--games", "2", "--cards", "Podlings"],
    ["balance", "--draft", "--games", "2", "--players", "2"],
    ["optimize", "--players", "2", "--budget", "1000", "--deals", "2", "--validate-deals", "0"],
])
def test_an_unreachable_scheduler_names_only_options_of_the_command(argv, capsys, tmp_path,
                                                                    monkeypatch):
    """Port 1 refuses at once: the message says to check the address or raise
    --connect-timeout, which every command with --scheduler has."""
    monkeypatch.chdir(tmp_path)
    if argv[0] == "balance" and "--draft" in argv:
        argv = argv + ["--game", "mystic-lands"]         # the game with a draft rulebook
    assert {"--scheduler", "--connect-timeout", "--worker-timeout"} <= _options(argv[0])
    assert main(argv + ["--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "2",
                        "--worker-timeout", "5"]) == 2
    err = _one_line_naming_only_own_options(argv[0], capsys)
    assert "127.0.0.1:1" in err and "--connect-timeout" in err


def test_every_command_with_scheduler_has_its_timeouts():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    have = [name for name, p in sub.choices.items()
            if any("--scheduler" in a.option_strings for a in p._actions)]
    assert {"simulate", "optimize", "balance"} <= set(have)
    for name in have:
        assert {"--connect-timeout", "--worker-timeout"} <= _options(name), name


@pytest.fixture
def rps_studies(monkeypatch):
    """The toy rock-paper-scissors game (tests/rps_game.py, reference engine only) with the
    exploit and meta studies, as ``--game rps``."""
    import dataclasses
    import rps_game
    from toy_game import register
    from vale_sim.study import EXPLOIT, META
    return register(monkeypatch, dataclasses.replace(rps_game.GAME, package="rps_studies_game",
                                                     studies=(EXPLOIT, META)))


def test_exploit_runs_on_a_game_without_a_fast_engine(rps_studies, capsys, tmp_path):
    """exploit had no --engine and always asked for the fast engine: on a game without
    one it said "use --engine reference", an option it did not have.  Now --engine auto
    (as meta) plays the reference engine."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["exploit", "--game", "rps", "--policy", "rock", "--players", "2",
                     "--budget", "200", "--deals", "10", "--validate-deals", "20",
                     "--select-deals", "0", "--json"]) == 0
    assert '"engine": "reference"' in capsys.readouterr().out


@pytest.mark.parametrize("command, extra", [
    ("exploit", ["--policy", "rock", "--players", "2", "--budget", "200"]),
    ("meta", ["--players", "2", "--population", "rock", "--budget", "200"]),
])
def test_asking_a_game_without_a_fast_engine_for_it_names_an_option_the_command_has(
        command, extra, rps_studies, capsys, tmp_path):
    assert main([command, "--game", "rps", "--engine", "fast", *extra]) == 2
    err = _one_line_naming_only_own_options(command, capsys)
    assert "--engine reference" in err
