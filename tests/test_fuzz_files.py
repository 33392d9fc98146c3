"""Fuzz: every file a user gives, to every command, found by walking the parsers.

Each option of each command that reads a user's file (card sets, policies, the
lists of policies, decks, edits, study configs; ``tests/test_output_files.py``
has the outputs) gets each bad file: missing, a folder, a special file, bytes
that are not UTF-8, TOML nested 100,000 levels deep (issue 41, item 6: a
3,000-line RecursionError traceback), not TOML, and empty (where an empty file
is not a valid one).  Every case must end as a user mistake ends: exit status
2, exactly one line on stderr naming the file, no traceback, nothing written.
Each is refused while the inputs are read, before any game (this module is not
marked ``compiled``: a case that played a game would compile an engine and fail
conftest's check), so the whole module takes seconds.  Counts and seeds:
``tests/test_fuzz_counts.py``.
"""
from __future__ import annotations

import argparse
import re

import pytest

from vale_sim import cli
from vale_sim.games import GAMES, get_game

# Options that name a file to read (a value may also be a bundled name); a list
# option takes the bad file as one of its items.
INPUT_DESTS = {"set", "card_set", "policy", "baseline", "start", "base", "deck", "edits",
               "config", "weak", "level"}
LIST_DESTS = {"policies", "population", "lineup"}
POLICY_DESTS = {"policy", "baseline", "start", "base", "policies", "population", "lineup",
                "weak", "level"}
OUTPUT_DESTS = {"plot", "csv", "checkpoint", "index", "results"}
# What a command needs besides the option under test.
BASE = {"tournament": ["--policies", "balanced,greedy"],
        "exploit": ["--policy", "balanced", "--players", "2"],
        "optimize": ["--players", "2"], "pools": ["--games", "2"],
        "what-if": {"mystic-vale": ["--edit", "Podlings.cost=+1"],
                    "mystic-lands": ["--edit", "Meadow.cost=+1"]},
        "curve": {"mystic-vale": ["--card", "Podlings", "--number", "cost"],
                  "mystic-lands": ["--card", "Meadow", "--number", "cost"]},
        "meta": ["--players", "2"], "train": ["--players", "2"], "market-growth": [],
        "luck": ["--players", "2", "--deals", "2", "--bootstrap", "20"],
        "wither-rain": []}
# What an option needs besides the command's base (an option that applies only with another).
NEEDS = {("balance", "weak"): {"mystic-vale": ["--rules", "vp_pool", "--target",
                                               "first-seat=40..60", "--games", "2"],
                               "mystic-lands": ["--rules", "end_vp", "--target",
                                                "first-seat=40..60", "--games", "2"]}}
# Option values that are the base's own: replaced, not added twice.
PAIR = {("tournament", "policies"), ("exploit", "policy")}

BAD = {
    "missing": None,
    "folder": None,
    "special": None,
    "not utf-8": b"name = \"\xff\xfe\"\n",
    "deep arrays": ("a = " + "[" * 100_000 + "]" * 100_000 + "\n").encode(),
    "deep tables": ("[" + ".".join(["t"] * 100_000) + "]\nx = 1\n").encode(),
    "not toml": b"this is = = not toml [\n",
    "empty": b"",
}


def _subparsers():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


def _games(name):
    from vale_sim.study import find
    return [g for g in GAMES
            if name in cli.SHARED_COMMANDS or find(get_game(g), command=name) is not None]


def input_options():
    """(command, game, dest, option) of every file input of every command."""
    out = []
    for name, p in _subparsers().items():
        for a in p._actions:
            if a.dest in INPUT_DESTS | LIST_DESTS:
                for g in _games(name):
                    out.append((name, g, a.dest, a.option_strings[0] if a.option_strings
                                else None))
    return out


def test_every_file_option_is_classified():
    """An option whose help or metavar speaks of a file is an input or an output here,
    so a new one is fuzzed (or its test table must say where it goes)."""
    for name, p in _subparsers().items():
        for a in p._actions:
            text = f"{a.metavar or ''} {a.help or ''}"
            if a.nargs == 0 or not re.search(r"FILE|\bfile\b|config", text):
                continue
            assert (a.dest in INPUT_DESTS | LIST_DESTS | OUTPUT_DESTS
                    or a.dest.startswith("out")), (name, a.option_strings, a.dest)


def test_the_cases_cover_the_new_commands():
    cmds = {c for c, *_ in input_options()}
    assert {"exploit", "meta", "optimize", "strategy", "balance", "what-if", "report", "play",
            "run", "spoil-odds", "wither-odds", "tournament", "simulate", "curve"} <= cmds


def _argv(cmd, game, dest, option, value):
    base = BASE.get(cmd, [])
    base = list(base[game] if isinstance(base, dict) else base)
    base += NEEDS.get((cmd, dest), {}).get(game, [])
    if (cmd, dest) in PAIR:
        i = base.index(option)
        base[i + 1] = value if dest not in LIST_DESTS else f"{value},balanced"
        return [cmd, "--game", game, *base]
    if dest in LIST_DESTS:
        value = f"{value},balanced"
    if option is None:                              # a positional: run CONFIG
        return [cmd, value, "--game", game, "--check"] if cmd == "run" else [cmd, value]
    return [cmd, "--game", game, *base, option, value]


CASES = [(c, g, d, o, b) for c, g, d, o in input_options() for b in BAD
         if not (b == "empty" and (d in POLICY_DESTS or d == "edits"))]
# (an empty policy file is all defaults; an empty edits file adds nothing to --edit)


@pytest.mark.parametrize("cmd, game, dest, option, bad", CASES,
                         ids=[f"{c}-{g}-{o or d}-{b}" for c, g, d, o, b in CASES])
def test_a_bad_file_is_one_line_naming_it(cmd, game, dest, option, bad, tmp_path, monkeypatch,
                                          capsys):
    monkeypatch.chdir(tmp_path)
    if bad == "missing":
        value = "nothing-here.toml"
    elif bad == "folder":
        (tmp_path / "a-folder.toml").mkdir()
        value = "a-folder.toml"
    elif bad == "special":
        value = "/dev/null"
    else:
        (tmp_path / "bad.toml").write_bytes(BAD[bad])
        value = "bad.toml"
    before = sorted(p.name for p in tmp_path.iterdir())
    rc = cli.main(_argv(cmd, game, dest, option, value))
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2, (rc, out[-500:], err[-2000:])
    assert len(lines) == 1 and "Traceback" not in err, err[-2000:]
    assert value in lines[0] or value.removesuffix(".toml") in lines[0], lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before
