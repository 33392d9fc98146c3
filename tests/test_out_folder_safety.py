"""Nothing lost at the edges (issue 23): output folders, killed runs, full disks.

* A command that replaces a whole folder (``report --out``, ``run``) refuses --
  one line, exit 2, before any game, every file untouched -- unless the folder
  is absent, empty or an earlier vale-sim output of that kind.
* A killed ``report`` leaves ``.NAME.tmp-PID``; the next one removes it (and only
  folders vale-sim marked as its own, of a process no longer alive).
* SIGTERM is handled like Ctrl-C by every command ("interrupted", exit 143).
* A full disk while writing a figure: the results are printed first, no 0-byte
  or partial file is left and the one-line error names the file.
* Mixing games in one ``simulate --out`` is one short line.
"""
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vale_sim import io as vio
from vale_sim import report, runner
from vale_sim.games.mystic_vale import report as mv_report
from vale_sim.cli import main
from vale_sim.report import build_report
from vale_sim.games.mystic_vale.report import ReportSettings

REPO = Path(__file__).resolve().parents[1]


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` (hidden ones too) with its bytes."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def one_line_error(capsys, rc, *names) -> str:
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    for n in names:
        assert str(n) in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def no_sections(monkeypatch):
    """Fail if a report section starts (the refusal must come before any game)."""
    def boom(ctx):
        raise AssertionError("a report section ran")
    monkeypatch.setattr(mv_report, "SECTIONS", [boom])


@pytest.fixture
def cheap_sections(monkeypatch):
    """The report with only its card-set section (no games): fast end-to-end."""
    monkeypatch.setattr(mv_report, "SECTIONS", [mv_report.section_card_set])


def user_folder(d: Path) -> Path:
    d.mkdir(parents=True)
    (d / "thesis.tex").write_text("my own work\n")
    (d / "data").mkdir()
    (d / "data" / "raw.bin").write_bytes(bytes(range(256)))
    (d / ".hidden").write_text("x")
    return d


# ---------------------------------------------------------------------------
# 1. report --out / run never delete a folder they did not write
# ---------------------------------------------------------------------------
def test_report_out_refuses_a_folder_of_user_files(tmp_path, no_sections, capsys):
    d = user_folder(tmp_path / "mine")
    before = snapshot(d)
    rc = main(["report", "--quick", "--quiet", "--out", str(d)])
    line = one_line_error(capsys, rc, d)
    assert "refusing to replace" in line and "vale-sim report" in line
    assert snapshot(d) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]      # no temp folder left


def test_report_out_refuses_a_simulate_results_folder(tmp_path, no_sections, capsys):
    d = tmp_path / "sim.parquet"
    runner.run(runner.RunConfig(games=2, engine="reference"), out=d, progress=False)
    assert (d / runner.MANIFEST).exists()
    before = snapshot(d)
    rc = main(["report", "--quick", "--quiet", "--out", str(d)])
    one_line_error(capsys, rc, d, runner.MANIFEST)
    assert snapshot(d) == before


def test_report_out_replaces_an_earlier_report_and_keeps_a_users_file(tmp_path, cheap_sections,
                                                                      capsys):
    d = tmp_path / "rep"
    assert main(["report", "--quick", "--quiet", "--seed", "1", "--out", str(d)]) == 0
    first = json.loads((d / "manifest.json").read_text())
    assert main(["report", "--quick", "--quiet", "--seed", "2", "--out", str(d)]) == 0
    second = json.loads((d / "manifest.json").read_text())
    assert (first["seed"], second["seed"]) == (1, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]       # nothing left aside
    assert ".vale-sim-temp" not in {p.name for p in d.iterdir()}     # the marker went
    capsys.readouterr()
    # A file the user put into the earlier report is not deleted with it.
    (d / "my-notes.txt").write_text("keep me")
    before = snapshot(d)
    rc = main(["report", "--quick", "--quiet", "--seed", "3", "--out", str(d)])
    one_line_error(capsys, rc, d, "my-notes.txt")
    assert snapshot(d) == before


def test_empty_out_folder_is_fine(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    build_report(d, ReportSettings.make(size="tiny"), sections=[mv_report.section_card_set],
                 progress=False)
    assert (d / "index.html").is_file() and report.is_report_folder(d)


def test_run_refuses_a_results_folder_of_user_files(tmp_path, capsys):
    exp = tmp_path / "mine.toml"
    exp.write_text('study = "tournament"\npolicies = ["balanced", "greedy"]\ngames = 2\n'
                   'engine = "reference"\n')
    results = tmp_path / "results"
    d = user_folder(results / "mine")
    (d / "tournament_table.csv").write_text("my,own,table\n")     # a name the study writes
    before = snapshot(d)
    rc = main(["run", str(exp), "--results", str(results)])
    one_line_error(capsys, rc, d)
    assert snapshot(d) == before
    # An earlier run of vale-sim is written over as before.
    other = results / "mine2"
    exp2 = tmp_path / "mine2.toml"
    exp2.write_text(exp.read_text())
    assert main(["run", str(exp2), "--results", str(results)]) == 0
    assert main(["run", str(exp2), "--results", str(results)]) == 0
    assert json.loads((other / "manifest.json").read_text())["chunks"]["played"] == 0


def test_index_never_overwrites_a_reports_own_page(tmp_path, capsys):
    d = tmp_path / "rep"
    build_report(d, ReportSettings.make(size="tiny"), sections=[mv_report.section_card_set],
                 progress=False)
    before = snapshot(d)
    rc = main(["report", "--index", str(d)])
    one_line_error(capsys, rc, d / "index.html")
    assert snapshot(d) == before
    # The folder that holds the reports: its index is written, then rewritten.
    assert main(["report", "--index", str(tmp_path)]) == 0
    assert main(["report", "--index", str(tmp_path)]) == 0
    assert "rep/index.html" in (tmp_path / "index.html").read_text()


# ---------------------------------------------------------------------------
# 2. Temporary folders of killed runs
# ---------------------------------------------------------------------------
def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def fake_temp(parent: Path, name: str, pid: int, marker: bool, content: bool = True) -> Path:
    d = parent / f".{name}.tmp-{pid}"
    d.mkdir()
    if content:
        (d / "index.html").write_text("half")
    if marker:
        (d / vio.TEMP_MARKER).write_text(json.dumps(
            {"vale_sim": "temporary folder", "pid": pid, "host": os.uname().nodename}))
    return d


def test_stale_temp_folders_of_dead_vale_sim_runs_are_removed_and_nothing_else(tmp_path):
    pid = dead_pid()
    ours = fake_temp(tmp_path, "rep", pid, marker=True)
    legacy_empty = fake_temp(tmp_path, "rep", dead_pid(), marker=False, content=False)
    not_ours = fake_temp(tmp_path, "rep", dead_pid(), marker=False)        # holds a file
    alive = fake_temp(tmp_path, "rep", os.getppid(), marker=True)          # a live process
    other_name = fake_temp(tmp_path, "other", dead_pid(), marker=True)     # another folder's
    build_report(tmp_path / "rep", ReportSettings.make(size="tiny"),
                 sections=[mv_report.section_card_set], progress=False)
    assert not ours.exists() and not legacy_empty.exists()
    assert not_ours.exists() and alive.exists() and other_name.exists()
    assert (not_ours / "index.html").read_text() == "half"


def test_stale_temp_files_of_killed_writers_are_removed_and_nothing_else(tmp_path):
    target = tmp_path / "fig.csv"
    stale = tmp_path / f".fig.csv.{dead_pid()}.tmp"           # a writer killed mid-write
    live = tmp_path / f".fig.csv.{os.getppid()}.tmp"          # a writer still running
    other = [tmp_path / ".fig.csv.notapid.tmp", tmp_path / f".other.csv.{dead_pid()}.tmp"]
    for f in [stale, live, *other]:
        f.write_text("half")
    vio.atomic_write(target, "a,b\n")
    assert target.read_text() == "a,b\n"
    assert not stale.exists() and live.exists() and all(f.exists() for f in other)


#: A `vale-sim report --quick` whose second section waits (it is killed there): without
#: the wait a quick report can finish inside the window between the test seeing its
#: temporary folder and the signal, on a loaded machine (seen in a full-suite run).
_SLOW_REPORT = """
import sys, time
from vale_sim.cli import main
from vale_sim.games.mystic_vale import report as R
real = R.SECTIONS[1]
def waiting(ctx):
    time.sleep(120)
    return real(ctx)
R.SECTIONS[1] = waiting
sys.exit(main(sys.argv[1:]))
"""


def _start_report(out: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-c", _SLOW_REPORT, "report", "--quick",
                             "--engine", "reference", "--out", str(out)],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_for_temp(proc, parent: Path, timeout=60.0) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [p for p in parent.iterdir() if ".tmp-" in p.name]
        if found:
            time.sleep(0.5)                       # into the first section
            return found[0]
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.1)
    raise AssertionError("the report did not start")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killed_report_leaves_nothing_the_next_run_does_not_clean(tmp_path, sig):
    out = tmp_path / "rep"
    build_report(out, ReportSettings.make(size="tiny"), sections=[mv_report.section_card_set],
                 progress=False)
    before = snapshot(out)
    proc = _start_report(out)
    try:
        tmp = _wait_for_temp(proc, tmp_path)
        os.kill(proc.pid, sig)
        rc = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode()
    assert snapshot(out) == before                  # the earlier report is intact
    if sig == signal.SIGTERM:                       # like Ctrl-C: a line, 143, no temp folder
        assert rc == 143, err
        assert "vale-sim report: interrupted" in err and "Traceback" not in err
        assert not tmp.exists()
    else:
        assert rc == -signal.SIGKILL and tmp.exists()
        build_report(out, ReportSettings.make(size="tiny"), sections=[mv_report.section_card_set],
                     progress=False)
        assert not tmp.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_sigterm_is_handled_like_ctrl_c_in_a_one_process_simulate(tmp_path):
    """Without workers no pool installs a handler: SIGTERM killed the process silently."""
    out = tmp_path / "run.parquet"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "vale_sim.cli", "simulate", "--engine",
                             "reference", "--games", "100000", "--chunk-size", "2",
                             "--no-progress", "--out", str(out)],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not list(out.glob("part-*.parquet")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGTERM)
        rc = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode()
    assert rc == 143, err
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err
    done = runner._prepare_out(out, runner.RunConfig(games=100000, engine="reference"),
                               resume=True)
    assert done and all(n == 2 for n in done.values())          # kept for --resume


# ---------------------------------------------------------------------------
# 3. A full disk while writing a figure
# ---------------------------------------------------------------------------
@pytest.fixture
def full_disk(monkeypatch):
    """savefig writes a few bytes, then the disk is full."""
    from matplotlib.figure import Figure
    calls = []

    def savefig(self, fname, *a, **k):
        calls.append(fname)
        if isinstance(fname, (str, os.PathLike)):
            Path(fname).write_bytes(b"\x89PNG half")
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(Figure, "savefig", savefig)
    return calls


ML = "mystic-lands"
PLOTS = {
    "tournament": (["tournament", "--policies", "balanced,greedy", "--games", "2",
                    "--engine", "reference"], "file", "matchup"),
    "advancements": (["advancements", "--games", "2", "--cards", "Podlings", "--only",
                      "strength", "--engine", "reference"], "file", "Podlings"),
    "spoil-odds": (["spoil-odds", "--deck", "starter", "--pushes", "2"], "file", "P(spoiled)"),
    "wither-odds": (["wither-odds", "--game", ML, "--deck", "starter", "--grows", "2"], "file",
                    "P(Withered)"),
    "pools": (["pools", "--games", "2", "--players", "2", "--pools", "23",
               "--engine", "reference"], "dir", "23"),
    "end-trigger": (["end-trigger", "--game", ML, "--players", "2", "--deals", "2",
                     "--end-vp", "20", "--end-cubes", "", "--end-bonus", "",
                     "--engine", "reference"], "dir", "end_vp=20"),
}


@pytest.mark.parametrize("cmd", sorted(PLOTS))
@pytest.mark.parametrize("as_json", [False, True])
def test_full_disk_with_plot_prints_the_results_and_leaves_no_partial_file(
        cmd, as_json, tmp_path, full_disk, capsys):
    argv, kind, shown = PLOTS[cmd]
    where = tmp_path / "figs"
    where.mkdir()
    target = where / "fig.png" if kind == "file" else where
    rc = main(argv + (["--json"] if as_json else []) + ["--plot", str(target)])
    out, err = capsys.readouterr()
    assert full_disk, "no figure was saved"
    assert rc == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip() and "warning" not in ln
             and "compiling" not in ln and not ln.startswith("\r")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "no space left on device" in lines[0] and ": ?:" not in lines[0]   # a path, not "?"
    written = [Path(f) for f in full_disk if isinstance(f, (str, os.PathLike))]
    named = target if kind == "file" else None
    if named is not None:
        assert str(named) in lines[0], lines[0]
    else:                                             # the figure file in --plot DIR
        assert str(where) in lines[0] and ".png" in lines[0], lines[0]
    assert all(p.parent == where for p in written)
    assert list(where.iterdir()) == []                # no 0-byte, partial or temp file
    if as_json:
        json.loads(out)                               # the whole result, as JSON
    else:
        assert shown in out, out


def test_one_wording_for_a_full_disk(tmp_path):
    e = OSError(errno.ENOSPC, "No space left on device")
    a = vio.os_error_message(e, tmp_path / "x.png")
    b = vio.os_error_message(e, tmp_path / "x.png", verb=None)     # the CLI's fallback
    assert a == b == f"cannot write {tmp_path / 'x.png'}: no space left on device; free some " \
                     f"space or choose another path"


def test_full_disk_while_a_report_is_written_names_out_and_keeps_the_old(tmp_path, monkeypatch,
                                                                           capsys):
    out = tmp_path / "rep"
    build_report(out, ReportSettings.make(size="tiny"), sections=[mv_report.section_card_set],
                 progress=False)
    before = snapshot(out)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(report, "render", full)
    monkeypatch.setattr(mv_report, "SECTIONS", [mv_report.section_card_set])
    rc = main(["report", "--quick", "--quiet", "--out", str(out)])
    line = one_line_error(capsys, rc, out)
    assert "no space left on device" in line and ".tmp-" not in line
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


# ---------------------------------------------------------------------------
# 4. Two games in one --out
# ---------------------------------------------------------------------------
def test_mixing_games_in_one_out_is_one_short_line(tmp_path, capsys):
    out = tmp_path / "mix.parquet"
    runner.run(runner.RunConfig(games=2, engine="reference"), out=out, progress=False)
    before = snapshot(out)
    rc = main(["simulate", "--game", ML, "--games", "2", "--engine", "reference",
               "--no-progress", "--out", str(out)])
    line = one_line_error(capsys, rc, out)
    assert line == (f"vale-sim simulate: error: {out} holds Mystic Vale results, not Mystic "
                    f"Lands; use another --out")
    assert snapshot(out) == before


# ---------------------------------------------------------------------------
# optimize --out FILE.toml: a policy of your own is not written over; a full
# disk loses none of the printed results
# ---------------------------------------------------------------------------
OPTIMIZE = ["optimize", "--players", "2", "--budget", "60", "--deals", "1", "--popsize", "2",
            "--hall", "0", "--validate-deals", "0", "--seed", "2"]


def test_optimize_refuses_to_overwrite_a_users_policy_file(tmp_path, monkeypatch, capsys):
    from vale_sim import optimize as opt

    def boom(*a, **k):
        raise AssertionError("the search started")
    monkeypatch.setattr(opt, "search", boom)
    mine = tmp_path / "my-bot.toml"
    mine.write_text('base = "balanced"\npush_risk_permille = 300\n')
    before = snapshot(tmp_path)
    rc = main(OPTIMIZE + ["--out", str(mine)])
    one_line_error(capsys, rc, mine)
    assert snapshot(tmp_path) == before


def test_optimize_full_disk_prints_the_results_and_writes_the_policy_first(tmp_path, full_disk,
                                                                           monkeypatch, capsys):
    out = tmp_path / "best.toml"
    rc = main(OPTIMIZE + ["--out", str(out)])
    text, err = capsys.readouterr()
    assert rc == 2, err
    assert "policy: " in text and "generations" in text            # the results were printed
    curve = tmp_path / "best.curve.png"
    assert str(curve) in err and "no space left on device" in err
    assert out.read_text().startswith("# vale-sim optimize:")        # the policy file is written
    assert not curve.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # Space again: the search resumes from its checkpoint and writes over its own files.
    monkeypatch.undo()
    assert main(OPTIMIZE + ["--out", str(out), "--resume"]) == 0, capsys.readouterr().err
    assert curve.stat().st_size > 1000


def test_run_of_a_report_study_replaces_its_report_and_keeps_its_chunk_cache(
        tmp_path, cheap_sections, capsys):
    exp = tmp_path / "rep.toml"
    exp.write_text('study = "report"\nquick = true\nengine = "reference"\n')
    results = tmp_path / "results"
    assert main(["run", str(exp), "--results", str(results)]) == 0
    out = results / "rep"
    assert (out / "index.html").is_file()
    cache = out / "runs" / "some-run" / "_manifest.json"      # the chunk cache of earlier games
    cache.parent.mkdir(parents=True)
    cache.write_text("{}")
    assert main(["run", str(exp), "--results", str(results)]) == 0
    assert cache.read_text() == "{}"                           # carried over, not deleted
    assert sorted(p.name for p in results.iterdir()) == ["rep"]
    capsys.readouterr()
    (out / "mine.txt").write_text("mine")
    before = snapshot(out)
    rc = main(["run", str(exp), "--results", str(results)])
    one_line_error(capsys, rc, out, "mine.txt")
    assert snapshot(out) == before
