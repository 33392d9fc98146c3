"""The conformance suite (vale_sim/games/conformance.py) over every registered game
and the toy game of tests/pig.py; the golden playthroughs and the agreement of the
two engines are checked there once for all games.

The second half checks the checks: a game broken in each way the suite looks
for makes its check fail (so none of them passes whatever the game does).
"""
from __future__ import annotations

import dataclasses
import re
import textwrap
from pathlib import Path

import pytest

import pig
from vale_sim import games as games_mod
from vale_sim.games import conformance as C
from vale_sim.games import get_game

ROOT = Path(__file__).resolve().parents[1]


def _games():
    out = []
    for name in games_mod.GAMES:
        try:
            out.append(get_game(name))
        except ValueError:                      # not built in this checkout
            continue
    return out + [pig.PIG]


GAMES = _games()
CHECKS = [c for c in C.CHECKS if c is not C.check_golden]      # golden: per case below
GOLDEN = [(g, case) for g in GAMES for case in C.golden_cases(g)]


def test_every_registered_game_and_the_toy_game_are_checked():
    assert {g.name for g in GAMES} == set(games_mod.GAMES) | {"pig"}
    assert all(games_mod.GAMES[g.name] == g.package for g in GAMES if g is not pig.PIG)
    assert C.check_golden in C.CHECKS and len(C.CHECKS) == 7


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_conformance(game, check):
    check(game)


@pytest.mark.parametrize("game", [g for g in GAMES if g is not pig.PIG], ids=lambda g: g.name)
def test_every_game_package_follows_the_template(game):
    C.check_package_template(game)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_golden_files(game):
    C.check_golden_files(game)


@pytest.mark.parametrize("game, case", GOLDEN, ids=[f"{g.name}:{c.name}" for g, c in GOLDEN])
def test_golden(game, case):
    C.check_golden_case(game, case)


# ---------------------------------------------------------------------------
# The checks fail on a game that breaks them
# ---------------------------------------------------------------------------
def _broken(**changes):
    return dataclasses.replace(pig.PIG, **changes)


def test_a_frame_without_seats_fails_the_schema():
    def no_seat(records, cs):
        return pig.pig_frame(records, cs).drop(columns=["seat"])
    with pytest.raises(C.ConformanceError, match=r"pig: result schema: 2p: .*lacks \['seat'"):
        C.check_result_schema(_broken(results_frame=no_seat))


def test_win_shares_that_do_not_split_fail_the_schema():
    def everyone_wins(records, cs):
        return pig.pig_frame(records, cs).assign(win_share=1.0)
    with pytest.raises(C.ConformanceError, match="win shares .* are not 1/k"):
        C.check_result_schema(_broken(results_frame=everyone_wins))


def test_a_fast_engine_that_differs_fails_engine_agreement():
    def off_by_one(cs, players, seed, n_games, policies=None, rules=None, first_game=0):
        recs = [pig.play_pig(cs, players, seed, i, policies, rules)
                for i in range(first_game, first_game + n_games)]
        df = pig.pig_frame(recs, cs)
        df.loc[df.index[-1], "score"] += 1
        return df

    def faithful(cs, players, seed, n_games, policies=None, rules=None, first_game=0):
        return pig.pig_frame([pig.play_pig(cs, players, seed, i, policies, rules)
                              for i in range(first_game, first_game + n_games)], cs)

    C.check_engines_agree(_broken(run_fast=faithful))
    with pytest.raises(C.ConformanceError, match=r"pig: engines agree: 2p games 0\.\.2"):
        C.check_engines_agree(_broken(run_fast=off_by_one))


def test_a_changed_game_fails_its_golden_file(monkeypatch):
    case = pig.CASES[0]
    C.check_golden_case(pig.PIG, case)
    monkeypatch.setitem(pig.PRESETS, "bold", pig.PigPolicy("bold", 24))
    with pytest.raises(C.ConformanceError, match=r"golden pig-2p-bold-cautious \(reference\): line"):
        C.check_golden_case(pig.PIG, case)


def test_a_missing_or_stray_golden_file_fails(monkeypatch):
    monkeypatch.setattr(pig, "CASES", pig.CASES[:1])
    with pytest.raises(C.ConformanceError, match="golden: .* holds"):
        C.check_golden_files(pig.PIG)
    with pytest.raises(C.ConformanceError, match="no golden games"):
        C.check_golden_files(_broken(golden_module=None))


def test_a_two_line_error_fails(monkeypatch):
    def chatty(spec):
        if spec == "no-such-policy-anywhere":
            raise ValueError("unknown policy\nuse bold or cautious")
        return pig.get_pig_policy(spec)
    with pytest.raises(C.ConformanceError, match="an unknown policy: the error is not one line"):
        C.check_one_line_errors(_broken(get_policy=chatty), cli=False)

    def crash(cs, players):
        raise KeyError(players)
    with pytest.raises(C.ConformanceError, match="4 players: raised KeyError"):
        C.check_one_line_errors(_broken(validate_playable=crash), cli=False)


def test_the_cli_check_sees_a_traceback():
    # ValueErrors are one line in Python, but the CLI prints only user_errors as a line:
    # a game that leaves ValueError out of them shows users a traceback
    with pytest.raises(C.ConformanceError, match=r"vale-sim play with an unknown policy: exit 1"):
        C.check_one_line_errors(_broken(user_errors=()))


def test_a_game_that_imports_numba_eagerly_fails(tmp_path, monkeypatch):
    # the defect this check was written for: Mystic Lands imported its fast engine
    # (numba) in its package __init__, so without numba get_game failed
    (tmp_path / "eager_pig.py").write_text(textwrap.dedent("""
        import dataclasses
        import numba  # noqa: F401  -- at import time, like the old Mystic Lands __init__
        import pig
        GAME = dataclasses.replace(pig.PIG, name="eager-pig", package="eager_pig")
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    g = _broken(name="eager-pig", package="eager_pig")
    with pytest.raises(C.ConformanceError, match="numba unimportable: the reference engine failed"):
        C.check_no_numba_import(g)


def test_a_package_off_the_template_fails(tmp_path, monkeypatch):
    # Mystic Vale as it was: the reference class called Game, play_game, run_games
    src = Path(C.__file__).parent / "mystic_vale"
    import shutil
    pkg = tmp_path / "old_vale"
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__", "data", "policies"))
    monkeypatch.syspath_prepend(str(tmp_path))
    g = dataclasses.replace(get_game("mystic-vale"), package="old_vale",
                            golden_module="old_vale.golden", fast_module="old_vale.fast.api")
    C.check_package_template(g)                       # the copy itself follows it
    game_py = pkg / "reference" / "game.py"
    game_py.write_text(game_py.read_text().replace("class MysticValeGame:", "class Game:"))
    with pytest.raises(C.ConformanceError, match="reference/game.py does not define "
                                                 r"\['MysticValeGame'\]"):
        C.check_package_template(g)
    game_py.write_text(game_py.read_text().replace("class Game:", "class MysticValeGame:\n"
                                                   "    pass\n\n\nclass Game:"))
    with pytest.raises(C.ConformanceError, match="defines a class Game"):
        C.check_package_template(g)
    (pkg / "fast" / "state.py").unlink()
    with pytest.raises(C.ConformanceError, match="has no fast/state.py"):
        C.check_package_template(g)


def test_a_broken_contract_fails():
    with pytest.raises(C.ConformanceError, match="default_policy 'reckless' is not a preset"):
        C.check_contract(_broken(default_policy="reckless"))
    with pytest.raises(C.ConformanceError, match="event_column 'score' is one of RESULT_COLUMNS"):
        C.check_contract(_broken(event_column="score"))


def test_a_policy_that_does_not_survive_pickling_fails(monkeypatch):
    class Fickle(pig.PigPolicy):
        def __reduce__(self):
            return (pig.PigPolicy, (self.name, self.hold_at + 1))
    monkeypatch.setitem(pig.PRESETS, "bold", Fickle("bold", 25))
    with pytest.raises(C.ConformanceError, match="'bold' is not the same policy after pickling"):
        C.check_policies_round_trip(pig.PIG)
