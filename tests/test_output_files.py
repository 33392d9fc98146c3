"""Output files (issue 41, items 4, 7 and 8): every command that writes a file
replaces an existing one only when vale-sim wrote it (its mark) or ``--force`` is
given -- a user's file is refused before any game, one line, exit 2, untouched;
results are printed before a file is written, so a failed write loses none; a
failed write to standard output names it.  The output options are found by
walking the parsers, so a new one must be added to the table below."""
from __future__ import annotations

import argparse
import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_checks import leftovers
from vale_sim import io as vio
from vale_sim.cli import build_parser, main

REPO = Path(__file__).resolve().parents[1]
USERS = b"my own notes, not made by vale-sim\n"

# (command, option): (the argv before it, the value given, the user's file it must not
# replace, relative to the working folder).  "--plot DIR" writes named figures in DIR.
FILE_OUTPUTS = {
    ("strategy", "--out"): ([], "notes.json", "notes.json"),
    ("balance", "--out-cards"): ([], "mycards.toml", "mycards.toml"),
    ("balance", "--out-edits"): ([], "edits.toml", "edits.toml"),
    ("balance", "--plot"): ([], "fig.png", "fig.png"),
    ("balance", "--checkpoint"): ([], "ck.json", "ck.json"),
    ("what-if", "--plot"): (["--edit", "Podlings.cost=+1"], "fig.png", "fig.png"),
    ("curve", "--out"): (["--card", "Podlings", "--number", "cost"], "fig.png", "fig.png"),
    ("curve", "--checkpoint"): (["--card", "Podlings", "--number", "cost"], "ck.json",
                                "ck.json"),
    ("tournament", "--plot"): (["--policies", "balanced,greedy"], "fig.png", "fig.png"),
    ("advancements", "--plot"): ([], "fig.png", "fig.png"),
    ("cards", "--csv"): ([], "cards.csv", "cards.csv"),
    ("spoil-odds", "--plot"): ([], "fig.png", "fig.png"),
    ("wither-odds", "--plot"): (["--game", "mystic-lands"], "fig.png", "fig.png"),
    ("optimize", "--out"): (["--players", "2"], "mine.toml", "mine.toml"),
    ("exploit", "--out"): (["--policy", "balanced", "--players", "2"], "mine.toml", "mine.toml"),
    ("train", "--out"): (["--players", "2"], "mine.json", "mine.json"),
    ("luck", "--out"): (["--players", "2"], "mine.json", "mine.json"),
    ("report", "--index"): ([], "site", "site/index.html"),
    ("pools", "--plot"): (["--games", "2"], "figs", "figs/pool_length.png"),
    ("seat-compensation", "--plot"): (["--game", "mystic-lands"], "figs",
                                      "figs/seat-compensation.png"),
    ("end-trigger", "--plot"): (["--game", "mystic-lands"], "figs", "figs/end-trigger.png"),
    ("market-growth", "--plot"): (["--game", "mystic-lands"], "figs", "figs/market-growth.png"),
    ("wither-rain", "--plot"): (["--game", "mystic-lands"], "figs", "figs/wither-rain.png"),
}
# Files named after --out (companions): the user's one is refused as well.
COMPANIONS = [
    ("optimize", ["--players", "2", "--out", "mine.toml"], "mine.log.csv"),
    ("optimize", ["--players", "2", "--out", "mine.toml"], "mine.manifest.json"),
    ("optimize", ["--players", "2", "--out", "mine.toml"], "mine.curve.png"),
    ("exploit", ["--policy", "balanced", "--players", "2", "--out", "mine.toml"], "mine.json"),
    ("train", ["--players", "2", "--out", "mine.json"], "mine.policy.toml"),
]
# Folder outputs: the folder rule of io.check_replaceable (an earlier output of the same
# command, recognised by its manifest; tests/test_out_folder_safety.py, test_meta.py).
FOLDER_OUTPUTS = {("meta", "--out"), ("report", "--out"), ("run", "--results"),
                  ("simulate", "--out")}


def _subparsers():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


def output_options():
    """(command, option) of every option that names a path vale-sim writes."""
    found = set()
    for name, p in _subparsers().items():
        for a in p._actions:
            if not a.option_strings or a.nargs == 0:
                continue
            if (a.dest.startswith("out") or a.dest in ("plot", "csv", "checkpoint", "index",
                                                        "results")):
                found.add((name, a.option_strings[0]))
    return found


def test_every_output_option_is_covered():
    assert output_options() == set(FILE_OUTPUTS) | FOLDER_OUTPUTS


def test_every_command_writing_files_has_force():
    subs = _subparsers()
    for cmd, _ in FILE_OUTPUTS:
        assert "--force" in subs[cmd]._option_string_actions, cmd


def _users_file(tmp_path, rel) -> Path:
    f = tmp_path / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(USERS)
    return f


def _refused(capsys, argv, f):
    rc = main(argv)
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert "refusing to replace" in lines[0] and f.name in lines[0], lines[0]
    assert f.read_bytes() == USERS
    assert leftovers(f.parent) == []
    return lines[0]


@pytest.mark.parametrize("cmd, option", sorted(FILE_OUTPUTS))
def test_a_users_file_is_refused_before_any_game(cmd, option, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    before, value, rel = FILE_OUTPUTS[(cmd, option)]
    f = _users_file(tmp_path, rel)
    line = _refused(capsys, [cmd, *before, option, value], f)
    assert "--force" in line


@pytest.mark.parametrize("cmd, argv, companion", COMPANIONS, ids=lambda x: str(x))
def test_a_users_file_named_after_out_is_refused(cmd, argv, companion, tmp_path, monkeypatch,
                                                 capsys):
    monkeypatch.chdir(tmp_path)
    _refused(capsys, [cmd, *argv], _users_file(tmp_path, companion))


def test_force_replaces_and_an_earlier_output_is_replaced_without_it(tmp_path, monkeypatch,
                                                                      capsys):
    monkeypatch.chdir(tmp_path)
    f = _users_file(tmp_path, "site/index.html")
    _refused(capsys, ["report", "--index", "site"], f)
    assert main(["report", "--index", "site", "--force"]) == 0
    assert f.read_bytes() != USERS and "<title>vale-sim reports</title>" in f.read_text()
    assert main(["report", "--index", "site"]) == 0           # its own: no --force needed
    c = _users_file(tmp_path, "cards.csv")
    _refused(capsys, ["cards", "--csv", "cards.csv"], c)
    assert main(["cards", "--csv", "cards.csv", "--force"]) == 0
    assert c.read_text().startswith("type,")


def test_what_vale_sim_writes_carries_its_mark(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from vale_sim.commands.balance import marked_toml
    for ext in ("png", "pdf", "svg"):
        fig, ax = plt.subplots()
        ax.plot([0, 1])
        plain = tmp_path / f"plain.{ext}"
        fig.savefig(plain)
        assert not vio.written_by_vale_sim(plain), ext        # matplotlib alone: no mark
        vio.save_figure(fig, tmp_path / f"ours.{ext}")
        assert vio.written_by_vale_sim(tmp_path / f"ours.{ext}"), ext
    cases = {"policy.toml": "# vale-sim optimize: mystic-vale, 2 players\nw_mana = 1\n",
             "refit.toml": "# Refit by vale-sim balance on 2026-01-01\n",
             "guide.json": '{"game": "x", "command": "vale-sim strategy --out g.json"}',
             "exploit.json": '{"a": 1,\n "written_by": "vale-sim exploit"}',
             "ck.json": '{"version": 2, "written_by": "vale-sim balance"}\n{"key": 1}\n',
             "cards.toml": marked_toml('name = "x"\n', "balance --out-cards")}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        assert vio.written_by_vale_sim(tmp_path / name), name
    users = {"notes.json": '{"command": "make coffee", "by": "vale-sim fan"}',
             "notes.toml": "# my notes about vale-sim\nx = 1\n",
             "list.json": '["vale-sim"]', "empty.txt": ""}
    for name, text in users.items():
        (tmp_path / name).write_text(text)
        assert not vio.written_by_vale_sim(tmp_path / name), name


def test_strategy_prints_its_guide_before_a_failed_write(tmp_path, monkeypatch, capsys):
    """Seen: a full disk behind --out lost the guide after all its games."""
    def enospc(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(vio.os, "replace", enospc)
    out = tmp_path / "guide.json"
    rc = main(["strategy", "--games", "1", "--deals", "2", "--engine", "reference",
               "--out", str(out)])
    captured = capsys.readouterr()
    lines = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert rc == 2 and len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert str(out) in lines[0] and "no space left" in lines[0]
    assert "== Mystic Vale, 2 players" in captured.out and "costs" in captured.out
    assert list(tmp_path.iterdir()) == []


# /dev/full is on every Linux, CI's included: with CI set it never skips (as the browser
# tests); a platform without it cannot show a full disk behind stdout this way
@pytest.mark.skipif(not os.path.exists("/dev/full") and not os.environ.get("CI"),
                    reason="needs /dev/full")
def test_a_full_disk_behind_stdout_is_named(tmp_path):
    """Was "cannot write ?" (issue 41, item 7)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "vale_sim", "cards", "--json"], stdout=full,
                           stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert "standard output (/dev/full)" in lines[0] and "no space left" in lines[0]
    assert "?" not in lines[0]
