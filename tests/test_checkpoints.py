"""Checkpoints are data, never code (issue 41, items 3, 5 and 7; docs/runs.md, "Checkpoints").

``optimize``, ``exploit`` and ``meta`` keep JSON checkpoints (vale_sim/checkpoint.py): a
crafted pickle is never loaded (its code does not run), a checkpoint holding plain text,
cut-short JSON, another format or version, or another run's digest is one line and exit
2 before any game; an interrupted run says what it kept and the command that continues
it, and the continued run writes the same files as an uninterrupted one.  One
``--popsize`` rule for the three commands is checked before anything is allocated.  A
corrupt resume manifest is one line naming it and what is wrong.

The commands run on the toy game ``hands`` (tests/checkpoint_driver.py: the biased
rock-paper-scissors of tests/rps_game.py with the three searches), in this process or
as a subprocess of that driver."""
from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from vale_sim.cli import main

import checkpoint_driver

DRIVER = Path(checkpoint_driver.__file__)
ROOT = Path(sys.modules["vale_sim"].__file__).parent.parent     # the vale_sim under test

# small runs of each command (hands plays in microseconds); FILE is the --out
COMMANDS = {
    "optimize": ["optimize", "--game", "hands", "--players", "2", "--budget", "600",
                 "--deals", "4", "--popsize", "3", "--hall", "1", "--validate-deals", "10"],
    "exploit": ["exploit", "--game", "hands", "--policy", "rock", "--players", "2",
                "--budget", "600", "--deals", "4", "--popsize", "3", "--validate-deals", "10",
                "--select-deals", "10"],
    "meta": ["meta", "--game", "hands", "--players", "2", "--population", "rock",
             "--iterations", "2", "--budget", "300", "--deals", "4", "--popsize", "3",
             "--matrix-deals", "10", "--validate-deals", "10", "--select-deals", "10",
             "--bootstrap", "5"],
}


def _out(command: str, d: Path) -> Path:
    return d / ("run" if command == "meta" else "run.toml")


def _checkpoint(command: str, d: Path) -> Path:
    """Where the command keeps its checkpoint for ``--out _out(command, d)``."""
    return d / "run.checkpoint.json"


@pytest.fixture
def hands(monkeypatch):
    from vale_sim import games
    mods: dict = {}
    checkpoint_driver.register({}, mods)      # GAMES is changed below, undone after the test
    for k, v in mods.items():
        monkeypatch.setitem(sys.modules, k, v)
    monkeypatch.setitem(games.GAMES, "hands", checkpoint_driver.PACKAGE)
    from vale_sim import exploit as ex
    real = ex.exploit
    import dataclasses
    monkeypatch.setattr(ex, "exploit", lambda cfg, *a, **kw: real(
        dataclasses.replace(cfg, engine="reference"), *a, **kw))
    return checkpoint_driver.HANDS


@pytest.fixture
def nothing_runs(monkeypatch):
    """Fail if a game is played or a CMA-ES search starts: a refusal must come first."""
    import cma
    from vale_sim import tournament

    def boom(*a, **k):
        raise AssertionError("work started before the refusal")
    monkeypatch.setattr(tournament, "focal_shares", boom)
    monkeypatch.setattr(cma, "CMAEvolutionStrategy", boom)


class _RunsCode:
    """Unpickling this runs ``exec`` of a line that writes a marker file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({str(self.marker)!r}, 'w').write('ran')",)


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ---------------------------------------------------------------------------
# Item 3: a checkpoint is data
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["run.checkpoint.pkl", "run.checkpoint.json"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_crafted_pickle_never_runs(hands, nothing_runs, tmp_path, capsys, command, name):
    """The old checkpoint name (.pkl, what vale-sim read before) and the new one: the
    pickle's code does not run, the refusal is one line naming the file, exit 2."""
    marker = tmp_path / "marker"
    (tmp_path / name).write_bytes(pickle.dumps(_RunsCode(marker)))
    rc = main(COMMANDS[command] + ["--out", str(_out(command, tmp_path)), "--resume"])
    line = _one_line(capsys.readouterr().err)
    assert not marker.exists(), "the checkpoint's code ran"
    assert rc == 2 and name in line and "old pickle format" in line and "without --resume" in line


@pytest.mark.parametrize("content, words", [
    (b"I am not a checkpoint\n", "not a vale-sim checkpoint (not JSON"),
    (b'{"format": "vale-sim checkpoint", "version": 1, "kind": "sea', "cut short"),
    (b"\xff\xfe\x00", "not UTF-8"),
    (b"[" * 100_000, "not a vale-sim checkpoint"),
    (b'{"format": "something else"}', 'no "format": "vale-sim checkpoint"'),
    (b'{"format": "vale-sim checkpoint", "version": 99, "kind": "search"}', "version 99"),
])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_checkpoint_that_is_not_one_is_one_line(hands, nothing_runs, tmp_path, capsys,
                                                  command, content, words):
    """Plain text, cut-short JSON, bytes, deep nesting, another format or version: one
    line, exit 2, nothing run.  (The same text at the old .pkl name, which the code
    before this format unpickled: a traceback for plain text.)"""
    _checkpoint(command, tmp_path).write_bytes(content)
    (tmp_path / "run.checkpoint.pkl").write_bytes(content)
    rc = main(COMMANDS[command] + ["--out", str(_out(command, tmp_path)), "--resume"])
    line = _one_line(capsys.readouterr().err)
    assert rc == 2 and str(_checkpoint(command, tmp_path)) in line and words in line, line
    assert _checkpoint(command, tmp_path).read_bytes() == content      # left as it was


@pytest.mark.parametrize("command", list(COMMANDS))
def test_another_runs_checkpoint_is_one_line(hands, tmp_path, capsys, command):
    """A real checkpoint of the same command with another --seed: refused before any
    game, naming what differs; the checkpoint is left as it was."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert main(COMMANDS[command] + ["--seed", "1", "--out", str(_out(command, a))]) == 0
    capsys.readouterr()
    theirs = _checkpoint(command, a).read_bytes()
    _checkpoint(command, b).write_bytes(theirs)
    rc = main(COMMANDS[command] + ["--seed", "2", "--out", str(_out(command, b)), "--resume"])
    line = _one_line(capsys.readouterr().err)
    assert rc == 2 and "of a different" in line and "seed" in line, line
    assert _checkpoint(command, b).read_bytes() == theirs
    assert not _out(command, b).exists()


def test_a_checkpoint_with_a_doctored_log_is_refused(hands, tmp_path, capsys):
    """The CMA-ES state is replayed from the log: a log whose candidates are not the
    ones the replay asks is refused (one line), not resumed into another search."""
    ck = tmp_path / "s.checkpoint.json"
    from vale_sim import checkpoint as ckpt
    from vale_sim import optimize as opt
    cfg = opt.SearchConfig(seed=5, players=2, budget=400, popsize=3, hall=1, game="hands")
    obj = opt.GameObjective(None, 2, deals=2, engine="reference", game="hands")
    opt.search(cfg, obj, checkpoint=ck, max_generations=2)
    doc = json.loads(ck.read_text())
    assert doc["format"] == ckpt.FORMAT and doc["run_digest"] == ckpt.run_digest(
        opt._config_key(cfg, obj))
    row = next(r for r in doc["state"]["log"] if r["generation"] == 1)
    row["throw"] = (row["throw"] + 1) % 3
    ck.write_text(json.dumps(doc))
    with pytest.raises(opt.SearchError, match="malformed .*generation 1 does not replay"):
        opt.search(cfg, obj, checkpoint=ck, resume=True)


# ---------------------------------------------------------------------------
# Item 7: Ctrl-C says how to continue; the continued run equals an uninterrupted one
# ---------------------------------------------------------------------------
def _driver(args, cwd, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT), **kw.pop("env", {}))
    return subprocess.Popen([sys.executable, str(DRIVER)] + args, cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                            **kw)


def _outputs(command: str, d: Path) -> dict:
    """The files a run wrote, by name; run-specific fields (time, command line) left out."""
    out = {}
    for f in sorted(d.rglob("*")):
        if not f.is_file() or f.suffix == ".png" or "checkpoint" in f.name:
            continue
        text = f.read_text()
        if f.name in ("run.json", "meta.json", "run.manifest.json"):
            data = json.loads(text)
            for k in ("seconds", "command", "outputs"):
                data.pop(k, None)
            text = json.dumps(data, sort_keys=True)
        out[str(f.relative_to(d))] = text
    return out


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_interrupted_run_continues_to_the_same_files(tmp_path, command, sig):
    """Ctrl-C: the run names its checkpoint and the exact command that continues it;
    SIGKILL: the checkpoint is whole (atomic writes).  Either way the continued run
    writes the same files as an uninterrupted one."""
    full, cut = tmp_path / "full", tmp_path / "cut"
    full.mkdir()
    cut.mkdir()
    args = COMMANDS[command] + ["--out", _out(command, Path(".")).name]
    p = _driver(args, full)
    assert p.wait(timeout=300) == 0, p.stderr.read()
    # the same run, every game slowed down, interrupted once it has a checkpoint
    p = _driver(args, cut, env={"HANDS_GAME_DELAY": "0.005"})
    ck = _checkpoint(command, cut)
    deadline = time.monotonic() + 300
    while not ck.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ck.exists() and p.poll() is None, p.stderr.read() if p.poll() is not None else ""
    p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    cont = f"vale-sim {' '.join(args)} --resume"
    if sig == signal.SIGINT:
        assert p.returncode == 130, err
        lines = err.strip().splitlines()
        assert "Traceback" not in err and lines[-1] == f"vale-sim {command}: interrupted", err
        kept = lines[-2].split(": ", 1)[1].split(" are kept")[0]
        assert lines[-2] == (f"vale-sim {command}: {kept} are kept in {ck.name}; to continue, "
                             f"run the same command with --resume: {cont}"), lines[-2]
    else:
        assert p.returncode == -signal.SIGKILL
    # the command printed (the same with --resume) continues it: the uninterrupted files
    p = _driver(cont.split()[1:], cut)
    assert p.wait(timeout=300) == 0, p.stderr.read()
    assert _outputs(command, cut) == _outputs(command, full)


def test_ctrl_c_without_a_checkpoint_says_nothing_more(tmp_path, capsys, monkeypatch, hands):
    """Interrupted before its first checkpoint: only the usual line."""
    from vale_sim import optimize as opt

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(opt, "search", interrupted)
    assert main(COMMANDS["optimize"] + ["--out", str(tmp_path / "run.toml")]) == 130
    assert capsys.readouterr().err == "vale-sim optimize: interrupted\n"


def test_balance_ctrl_c_names_its_checkpoint(tmp_path, capsys, monkeypatch):
    from vale_sim import balance as B
    ck = tmp_path / "bal.json"

    def interrupted(*a, checkpoint=None, **k):
        Path(checkpoint).write_text("{}\n")           # a run was kept
        raise KeyboardInterrupt
    monkeypatch.setattr(B, "balance", interrupted)
    argv = ["balance", "--games", "10", "--checkpoint", str(ck)]
    assert main(argv) == 130
    err = capsys.readouterr().err.splitlines()
    assert err == [f"vale-sim balance: the finished runs are kept in {ck}; to continue, run the "
                   f"same command with --resume: vale-sim {' '.join(argv)} --resume",
                   "vale-sim balance: interrupted"]


# ---------------------------------------------------------------------------
# Item 5: one --popsize rule, before anything is allocated
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("popsize, words", [
    ("100000000", "above the cap of 10,000 candidates"),
    ("5000", "--popsize 5000: one generation plays up to"),
])
def test_a_huge_popsize_is_refused_before_anything_is_allocated(hands, nothing_runs, tmp_path,
                                                                capsys, command, popsize, words):
    args = list(COMMANDS[command])
    args[args.index("--popsize") + 1] = popsize
    tracemalloc.start()
    try:
        rc = main(args + ["--out", str(_out(command, tmp_path))])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    line = _one_line(capsys.readouterr().err)
    assert rc == 2 and words in line, line
    assert peak < 50 * 2**20, f"{peak / 2**20:.0f} MB allocated before the refusal"
    assert list(tmp_path.iterdir()) == []


def test_the_product_rule_names_each_commands_field(hands, nothing_runs, capsys):
    for command, field in (("optimize", "3 presets"), ("exploit", "1 target"),
                           ("meta", "at least 1 mixture member")):
        args = list(COMMANDS[command])
        args[args.index("--popsize") + 1] = "100"
        assert main(args) == 2
        line = _one_line(capsys.readouterr().err)
        assert f"((100 + 1 candidates) x {field} x 2 seats x 4 deals)" in line, line


# ---------------------------------------------------------------------------
# Item 7: a corrupt resume manifest names the file and what is wrong
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("content, words", [
    ('{"key": ', "not valid JSON"),
    ("[1, 2]", "holds a JSON list"),
    ("{}", "no configuration key"),
    ("\udcff", "not UTF-8"),
])
def test_a_corrupt_run_manifest_is_named_with_its_problem(tmp_path, capsys, content, words):
    out = tmp_path / "r"
    argv = ["simulate", "--games", "2", "--engine", "reference", "--out", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    m = out / "_manifest.json"
    m.write_bytes(content.encode("utf-8", "surrogateescape"))
    assert main(argv + ["--resume"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert f"run manifest {m} is corrupt" in line and words in line, line
    assert "restore it" in line


def test_a_corrupt_exploit_result_is_named_with_its_problem(hands, nothing_runs, tmp_path,
                                                            capsys):
    (tmp_path / "run.json").write_text('{"written_by": "vale-sim exp')
    assert main(COMMANDS["exploit"] + ["--out", str(tmp_path / "run.toml")]) == 2
    line = _one_line(capsys.readouterr().err)
    # the one rule for output files (io.check_replaceable_file): a cut-short result
    # carries no whole vale-sim mark, so it is refused, named, with the way out
    assert str(tmp_path / "run.json") in line and "vale-sim did not write it" in line, line
    assert "--force" in line


@pytest.mark.parametrize("name, content, words", [
    ("run.checkpoint.search1.json", b"plain text", "not a vale-sim checkpoint"),
    ("run.checkpoint.search0.pkl", b"\x80\x04junk", "old pickle format"),
])
def test_meta_checks_its_searches_checkpoints_up_front(hands, nothing_runs, tmp_path, capsys,
                                                       name, content, words):
    """meta --resume: the checkpoint of each best-response search too, before any game."""
    (tmp_path / name).write_bytes(content)
    rc = main(COMMANDS["meta"] + ["--out", str(tmp_path / "run"), "--resume"])
    line = _one_line(capsys.readouterr().err)
    assert rc == 2 and name in line and words in line, line
