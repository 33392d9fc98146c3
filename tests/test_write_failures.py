"""Write failures and output paths: every output path is checked before any game;
a failed write (unwritable folder, full disk, an unexpected OS error) is ONE line on
stderr naming the path, exit status 2, and no half-written output -- finished
chunks are kept for ``--resume``, an old file is kept when its replacement fails.

Tests run as root in CI, where a chmod-read-only folder is still writable:
unwritable paths are made with a regular file in the way (``somefile/out``) or by
making the writer fail.  (Moved from tests/test_hardening.py, issue 18 §1.)
"""
import errno
import json
from pathlib import Path

import pytest

from cli_checks import leftovers, one_line_error
from vale_sim import io as vio
from vale_sim.cli import main

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def blocker(tmp_path):
    """A regular file: any path under it cannot be created, even by root."""
    f = tmp_path / "somefile"
    f.write_text("not a folder\n")
    return f


@pytest.mark.parametrize("argv", [
    ["simulate", "--games", "4", "--no-progress", "--out", "{b}/out.parquet"],
    ["report", "--quick", "--quiet", "--out", "{b}/report"],
    ["cards", "--csv", "{b}/cards.csv"],
    ["pools", "--games", "2", "--players", "2", "--pools", "23", "--plot", "{b}/figs"],
    ["tournament", "--policies", "balanced,greedy", "--games", "2", "--plot", "{b}/t.png"],
    ["advancements", "--games", "2", "--plot", "{b}/a.png"],
])
def test_unwritable_output_fails_before_any_game(argv, blocker, no_analyses, capsys):
    argv = [a.format(b=blocker) for a in argv]
    rc = main(argv)
    one_line_error(capsys, rc, blocker)


def test_run_results_unwritable(blocker, no_games, capsys):
    rc = main(["run", str(REPO / "experiments" / "spoil_odds.toml"), "--results", str(blocker)])
    one_line_error(capsys, rc, blocker)


@pytest.mark.parametrize("cmd", ["tournament", "advancements"])
def test_plot_into_missing_folder_fails_before_any_game(cmd, tmp_path, no_analyses, capsys):
    """Seen: every game played, then a crash printing nothing (even with --json)."""
    target = tmp_path / "missing" / "fig.png"
    argv = {"tournament": ["tournament", "--policies", "balanced,greedy", "--games", "2"],
            "advancements": ["advancements", "--games", "2"]}[cmd]
    rc = main(argv + ["--json", "--plot", str(target)])
    line = one_line_error(capsys, rc, "missing")
    assert "does not exist" in line
    assert not (tmp_path / "missing").exists()


def test_check_output_refuses_a_folder_for_a_file_and_accepts_new_folders(tmp_path):
    from vale_sim.cli import UserError
    with pytest.raises(UserError, match="is a folder"):
        vio.check_output(tmp_path, "file")
    assert vio.check_output(tmp_path / "a" / "b", "dir") == tmp_path / "a" / "b"
    assert not (tmp_path / "a").exists()                 # checking creates nothing


def _enospc(*a, **k):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_full_disk_in_simulate_leaves_no_partial_chunk(tmp_path, monkeypatch, capsys):
    import pyarrow.parquet as pq
    real = pq.write_table
    calls = []

    def write_then_fail(table, where, *a, **k):
        calls.append(where)
        if len(calls) == 1:
            return real(table, where, *a, **k)         # the first chunk fits
        Path(where).write_bytes(b"PAR1 half a chunk")  # the disk fills mid-write
        _enospc()

    monkeypatch.setattr(pq, "write_table", write_then_fail)
    out = tmp_path / "run.parquet"
    rc = main(["simulate", "--games", "6", "--chunk-size", "3", "--no-progress", "--out", str(out)])
    line = one_line_error(capsys, rc, out)
    assert "no space left" in line
    assert leftovers(tmp_path) == []
    parts = sorted(p.name for p in out.glob("part-*"))
    assert parts == ["part-000000000000.parquet"]          # the finished chunk is kept...
    monkeypatch.setattr(pq, "write_table", real)
    rc = main(["simulate", "--games", "6", "--chunk-size", "3", "--no-progress", "--out", str(out),
               "--resume", "--json"])
    assert rc == 0
    assert json.loads(capsys.readouterr().out)["by_seat"][0]["games"] == 6   # ...and reused


def test_resume_into_a_folder_that_became_unwritable(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run.parquet"
    assert main(["simulate", "--games", "3", "--chunk-size", "3", "--no-progress",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    before = sorted(p.name for p in out.iterdir())

    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(out))
    monkeypatch.setattr(vio.tempfile, "mkstemp", denied)     # what a read-only folder does
    rc = main(["simulate", "--games", "6", "--chunk-size", "3", "--no-progress",
               "--out", str(out), "--resume"])
    one_line_error(capsys, rc, out, "Permission denied")
    assert sorted(p.name for p in out.iterdir()) == before


def test_cards_csv_full_disk_leaves_no_file(tmp_path, monkeypatch, capsys):
    from vale_sim.games.mystic_vale import cards
    real = cards.card_set_to_csv

    def half(cs, path):
        Path(path).write_text("type,name\nset,co")
        _enospc()
    monkeypatch.setattr(cards, "card_set_to_csv", half)
    target = tmp_path / "cards.csv"
    rc = main(["cards", "--csv", str(target)])
    one_line_error(capsys, rc, target, "no space left")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(cards, "card_set_to_csv", real)


def test_atomic_write_keeps_the_old_file_on_failure(tmp_path, monkeypatch):
    p = tmp_path / "x.json"
    vio.atomic_write(p, "old")
    monkeypatch.setattr(vio.os, "replace", _enospc)
    from vale_sim.cli import UserError
    with pytest.raises(UserError, match="no space left"):
        vio.atomic_write(p, "new")
    assert p.read_text() == "old"
    assert leftovers(tmp_path) == []


def test_an_unexpected_os_error_is_still_one_line(monkeypatch, capsys):
    from vale_sim.games.mystic_vale import cards

    def fail(*a, **k):
        raise OSError(errno.EIO, "Input/output error", "/some/file")
    monkeypatch.setattr(cards, "load_card_set", fail)
    rc = main(["cards"])
    one_line_error(capsys, rc, "/some/file", "Input/output error")
