"""Fuzz: counts and seeds at the edges, for every option of every command of both games.

Every count option (games, deals, repeats, budget, chunk size, ...) is a whole
number of at most vale_sim.limits.MAX_COUNT = 10^8, every seed and game index a
whole number 0 .. 2**64 - 1; both are argparse types (vale_sim.limits), so a bad
value is refused while the command line is read: exit status 2, one line on
stderr, no traceback, nothing written, and the command itself never starts (so
no game is played: each case takes milliseconds).  The options are found by
walking the parsers, so a new option with a bare ``type=int`` fails
``test_every_int_option_uses_a_shared_type``.
"""
import argparse
import importlib
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vale_sim import cli, limits
from vale_sim.games import GAMES, get_game

SCALE = int(os.environ.get("VALE_SIM_FUZZ_SCALE", "1"))
SETTINGS = dict(deadline=None, derandomize=SCALE == 1, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])

# What a command needs besides the option under test (required arguments).
BASE = {"tournament": ["--policies", "balanced"], "optimize": ["--players", "2"],
        "pools": ["--games", "2"], "run": ["x.toml"],
        "curve": ["--card", "Podlings", "--number", "cost"]}
# int options validated by the command itself (choices or a small documented range,
# each checked before any game and covered by the commands' own tests).
OWN_CHECKS = {"--players", "--workers", "--pushes", "--grows", "--rain", "--explore"}


def _subparsers():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


def _kind(action):
    t = action.type
    if t is limits.seed:
        return "seed"
    if t is limits.game_index:
        return "index"
    if getattr(t, "__name__", "") == "count":
        return "count"
    if getattr(t, "__name__", "") == "int_range":
        return "range"
    return None


def _cases():
    """(command, game, option, kind, type) for every seed/count/range option of every
    command, with each game the command applies to."""
    from vale_sim.study import find
    out = []
    for name, p in _subparsers().items():
        games = [g for g in GAMES
                 if name in cli.SHARED_COMMANDS or find(get_game(g), command=name) is not None]
        for a in p._actions:
            kind = _kind(a)
            if kind is None:
                continue
            for g in games:
                out.append((name, g, a.option_strings[-1], kind, a.type))
    return out


CASES = _cases()


def test_the_cases_cover_every_command_and_both_games():
    commands = {c for c, *_ in CASES}
    assert {"simulate", "tournament", "advancements", "pools", "report", "optimize", "bench",
            "play", "spoil-odds", "wither-odds", "seat-compensation", "end-trigger",
            "market-growth", "wither-rain", "exploit", "meta", "strategy", "balance",
            "what-if", "curve"} <= commands
    assert {g for _, g, *_ in CASES} == set(GAMES)
    for cmd in ("simulate", "tournament", "play", "bench"):     # shared: with both games
        assert {g for c, g, *_ in CASES if c == cmd} == set(GAMES)
    opts = {o for _, _, o, *_ in CASES}
    assert {"--games", "--deals", "--repeats", "--budget", "--chunk-size", "--seed",
            "--game-index", "--popsize", "--value-deals", "--vp-pool"} <= opts


def test_every_int_option_uses_a_shared_type():
    for name, p in _subparsers().items():
        for a in p._actions:
            if a.type is int:
                assert a.option_strings[-1] in OWN_CHECKS, (name, a.option_strings)


@pytest.fixture
def nothing_runs(monkeypatch, tmp_path):
    """Work in an empty folder; every command's entry point fails the test if called."""
    monkeypatch.chdir(tmp_path)

    def ran(*a, **k):
        raise AssertionError("the command started: the value was not refused while parsing")
    for name in cli.command_modules():          # the shared commands and every game's studies
        mod = importlib.import_module(name)
        for fn in ("run", "run_game"):
            if hasattr(mod, fn):
                monkeypatch.setattr(mod, fn, ran)
    return tmp_path


def refused(capsys, folder, argv, *words):
    rc = cli.main(argv)
    err = capsys.readouterr().err
    assert rc == 2, (argv, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, (argv, err)
    assert "Traceback" not in err
    for w in words:
        assert str(w) in lines[0], (argv, lines[0])
    assert list(folder.iterdir()) == [], argv               # nothing written
    return lines[0]


def _bad_values(kind, t):
    if kind == "seed" or kind == "index":
        return [2**64, 2**64 + 12345, 10**30, -1, -(2**63)]
    if kind == "range":
        return [t.lo - 1, t.hi + 1, 10**20, -(10**20)]
    vals = [t.cap + 1, 10**12, 99999999999999999999, t.least - 1, -1, -(10**20)]
    if t.least >= 1:
        vals.append(0)
    return vals


@pytest.mark.parametrize("command, game, option, kind, t", CASES,
                         ids=[f"{c}-{g}-{o}" for c, g, o, *_ in CASES])
def test_edges_are_refused_in_one_line(nothing_runs, capsys, command, game, option, kind, t):
    for v in _bad_values(kind, t):
        argv = [command, "--game", game, *BASE.get(command, []), option, str(v)]
        line = refused(capsys, nothing_runs, argv, option, str(v))
        if kind == "count" and v > t.cap:
            assert f"{t.cap:,}" in line
            assert t.cap != limits.MAX_COUNT or limits.MAX_COUNT_TEXT in line
            if t.unit in limits.GAME_UNITS:
                assert "games/s on one core" in line
                assert any(u in line for u in ("minutes", "hours", "years"))
    for text in ("abc", "1e12", "2.5", ""):
        refused(capsys, nothing_runs, [command, "--game", game, *BASE.get(command, []), option,
                                       text], option)


@settings(max_examples=60 * SCALE, **SETTINGS)
@given(case=st.sampled_from(CASES), data=st.data())
def test_fuzz_huge_and_negative(nothing_runs, capsys, case, data):
    command, game, option, kind, t = case
    if kind in ("seed", "index"):
        v = data.draw(st.one_of(st.integers(min_value=2**64, max_value=2**200),
                                st.integers(max_value=-1, min_value=-(2**200))))
    elif kind == "range":
        v = data.draw(st.one_of(st.integers(min_value=t.hi + 1, max_value=10**40),
                                st.integers(max_value=t.lo - 1, min_value=-(10**40))))
    else:
        v = data.draw(st.one_of(st.integers(min_value=t.cap + 1, max_value=10**40),
                                st.integers(max_value=t.least - 1, min_value=-(10**40))))
    refused(capsys, nothing_runs, [command, "--game", game, *BASE.get(command, []), option,
                                   str(v)], option)


def test_valid_edges_pass_the_parser():
    """The cap itself, the least value and the largest seed are accepted."""
    p = cli.build_parser()
    a = p.parse_args(["simulate", "--games", str(limits.MAX_COUNT), "--seed", str(2**64 - 1)])
    assert a.games == 10**8 and a.seed == 2**64 - 1
    a = p.parse_args(["play", "--game-index", str(2**64 - 1), "--seed", "0"])
    assert a.game_index == 2**64 - 1
    a = p.parse_args(["optimize", "--players", "2", "--validate-deals", "0", "--hall", "0",
                      "--seed", str(2**64 - 1)])
    assert a.validate_deals == 0 and a.seed == 2**64 - 1


def test_simulate_games_zero_is_refused_and_writes_nothing(tmp_path, capsys, monkeypatch):
    """It used to exit 0 and write a run folder of no games; every other command refused 0."""
    monkeypatch.chdir(tmp_path)
    refused(capsys, tmp_path, ["simulate", "--games", "0"], "--games", "at least 1")
    refused(capsys, tmp_path, ["simulate", "--games", "0", "--out", "r.parquet"], "--games")


def test_report_huge_seed_is_refused_before_any_section(nothing_runs, capsys):
    """report --seed 2**64 ran section 1, then ended in a 29-line ValueError traceback."""
    line = refused(capsys, nothing_runs, ["report", "--seed", str(2**64), "--quick"], "--seed",
                   str(2**64))
    assert str(2**64 - 1) in line


def test_product_of_bench_counts_is_capped(monkeypatch, tmp_path, capsys):
    from vale_sim.commands import bench
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bench, "measure", lambda *a, **k: pytest.fail("games were timed"))
    monkeypatch.setattr("vale_sim.runner.fast_engine_ok", lambda g: True)
    refused(capsys, tmp_path, ["bench", "--games", "100000", "--repeats", "10000"],
            "--games x --repeats", "10^8", "hours")


def test_optimize_popsize_beyond_the_budget_is_refused(monkeypatch, tmp_path, capsys):
    """--popsize 10**8 made cma draw a 10^8-candidate generation (memory without
    bound) before the search noticed one generation passes the budget."""
    from vale_sim import optimize as opt
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(opt, "search", lambda *a, **k: pytest.fail("the search started"))
    refused(capsys, tmp_path, ["optimize", "--players", "2", "--popsize", str(10**8),
                               "--budget", "1000", "--out", "o.toml"], "--popsize",
            "cap of 10,000 candidates")
    refused(capsys, tmp_path, ["optimize", "--players", "2", "--popsize", "5000",
                               "--budget", "1000", "--out", "o.toml"], "--popsize", "--budget")


def test_study_configs_and_report_sizes_use_the_same_cap(tmp_path, capsys):
    exp = tmp_path / "big.toml"
    exp.write_text('study = "tournament"\npolicies = ["balanced", "greedy"]\n'
                   'games = 1000000000000\n')
    rc = cli.main(["run", "--check", str(exp)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1
    assert "games" in err and "10^8" in err and "hours" in err
    rep = tmp_path / "rep.toml"
    rep.write_text('study = "report"\nquick = true\n[sizes]\npool_games = 1000000000000\n')
    rc = cli.main(["run", "--check", str(rep)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "pool_games" in err and "10^8" in err
    seed = tmp_path / "seed.toml"
    seed.write_text(f'study = "tournament"\npolicies = ["balanced", "greedy"]\ngames = 4\n'
                    f'seed = {2**64 - 1}\n')
    assert cli.main(["run", "--check", str(seed)]) == 0


def test_the_other_entry_points_refuse_bad_counts_and_seeds(capsys):
    # (Mystic Lands' obsolete `python -m vale_sim.games.mystic_lands` entry point is gone:
    # `vale-sim play --game mystic-lands` is covered by the parser walk above.)
    from vale_sim.kernels import profile
    with pytest.raises(SystemExit) as e:
        profile.main("m", "doc", "what", None, ["--games", str(10**12)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "10^8" in err


def test_derived_seeds_wrap_at_2_64():
    from vale_sim.rng import MASK, offset_seed
    assert offset_seed(5, 3) == 8
    assert offset_seed(MASK, 1) == 0 and offset_seed(MASK - 1, 4) == 2
    from vale_sim import optimize as opt
    opt.SearchConfig(seed=MASK).check()                      # was refused above 2**63
    assert 0 <= opt.generation_seed(MASK, 3) < 2**63
    with pytest.raises(opt.SearchError, match="seed"):
        opt.SearchConfig(seed=MASK + 1).check()
