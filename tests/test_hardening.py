"""No tracebacks, nothing lost (issue 18): write failures, output paths checked
before any game, one policy validator, scheduler timeouts, bounded configs,
workers, orphaned worker processes, the chunked results reader.

Every user mistake must end as ONE line on stderr naming the path or item, exit
status 2, and no half-written output.  Tests run as root in CI, where a
chmod-read-only folder is still writable: unwritable paths are made with a
regular file in the way (``somefile/out``) or by making the writer fail.
"""
import errno
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from vale_sim import io as vio
from vale_sim import runner
from vale_sim.cli import main
from vale_sim.games.mystic_vale.policy import Policy, PolicyError, load_policy

REPO = Path(__file__).resolve().parents[1]


def one_line_error(capsys, rc, *names):
    """rc is 2 and stderr is one line, no traceback, naming each of ``names``."""
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for n in names:
        assert str(n) in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def blocker(tmp_path):
    """A regular file: any path under it cannot be created, even by root."""
    f = tmp_path / "somefile"
    f.write_text("not a folder\n")
    return f


@pytest.fixture
def no_analyses(monkeypatch, no_games):
    """Also fail if an analysis starts (a check must come before it)."""
    def boom(*a, **k):
        raise AssertionError("an analysis started")
    from vale_sim import advancements, tournament
    from vale_sim.games.mystic_vale import pools
    monkeypatch.setattr(pools, "simulate_pools", boom)
    monkeypatch.setattr(tournament, "tournament", boom)
    monkeypatch.setattr(advancements, "advancement_report", boom)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(".tmp"))


# ---------------------------------------------------------------------------
# 1. Write failures: one line, exit 2, nothing half-written
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# 3. Policy files: one validator for every path
# ---------------------------------------------------------------------------
POLICY_COMMANDS = [
    lambda f: ["play", "--policy", f],
    lambda f: ["simulate", "--games", "2", "--summary-only", "--no-progress", "--policy", f],
    lambda f: ["tournament", "--policies", f"balanced,{f}", "--games", "2"],
]


def _policy_experiment(tmp_path, policy_file) -> list[str]:
    exp = tmp_path / "t.toml"
    exp.write_text(f'study = "tournament"\npolicies = ["balanced", "{policy_file}"]\ngames = 2\n')
    return ["run", "--check", str(exp)]


@pytest.mark.parametrize("content,expect", [
    (b"w_mana = 3\n# caf\xe9\n", "UTF-8"),
    (b"w_mana = 9223372036854775807\n", "w_mana"),
    (b'[[buy]]\nvale_ability = "spiritt_to_wild"\n', "spiritt_to_wild"),
    (b'[[buy]]\ncard = "No Such Card"\n', "No Such Card"),
    (b'[[buy]]\ncard = "Druid of the Vale"\nwhen = { mana_at_least = 99999999999 }\n',
     "mana_at_least"),
])
def test_bad_policy_file_same_one_line_everywhere(tmp_path, content, expect, no_games, capsys):
    f = tmp_path / "mine.toml"
    f.write_bytes(content)
    for argv in [make(str(f)) for make in POLICY_COMMANDS] + [_policy_experiment(tmp_path, f)]:
        rc = main(argv)
        one_line_error(capsys, rc, "mine.toml", expect)


def test_policy_integer_limits():
    with pytest.raises(PolicyError, match="w_mana"):
        Policy(w_mana=2**63 - 1)
    with pytest.raises(PolicyError, match="min_score"):
        Policy(min_score=-(10**6) - 1)
    assert Policy(w_mana=10**6, w_cost=-(10**6)).w_mana == 10**6


def test_policy_file_path_named_even_for_directory(tmp_path):
    d = tmp_path / "dir.toml"
    d.mkdir()
    with pytest.raises(PolicyError, match="dir.toml"):
        load_policy(d)


# ---------------------------------------------------------------------------
# 4. Dask scheduler: malformed, unreachable, silent
# ---------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("address", ["bogus::addr", "tcp://127.0.0.1:{port}", "tcp://127.0.0.1"])
def test_bad_scheduler_address_is_one_line(address, capsys):
    address = address.format(port=_free_port())
    rc = main(["simulate", "--games", "2", "--summary-only", "--no-progress",
               "--scheduler", address, "--connect-timeout", "2"])
    one_line_error(capsys, rc, address, "Dask scheduler")


def test_scheduler_that_never_answers_times_out(capsys):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    address = f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    accepted = []
    threading.Thread(target=lambda: accepted.append(srv.accept()), daemon=True).start()
    try:
        rc = main(["simulate", "--games", "2", "--summary-only", "--no-progress",
                   "--scheduler", address, "--connect-timeout", "0.5"])
        one_line_error(capsys, rc, address, "0.5 s")
    finally:
        srv.close()


def test_connect_timeout_must_be_positive(capsys):
    rc = main(["simulate", "--games", "2", "--summary-only", "--scheduler", "tcp://127.0.0.1:1",
               "--connect-timeout", "0"])
    one_line_error(capsys, rc, "--connect-timeout")


# ---------------------------------------------------------------------------
# 5. run --check: bounded grids, the cost stated
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# 6. Workers: one rule everywhere
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", ["0", "-1", "1000"])
@pytest.mark.parametrize("argv", [
    ["pools", "--games", "2", "--players", "2", "--pools", "23"],
    ["simulate", "--games", "2", "--summary-only", "--no-progress"],
    ["tournament", "--policies", "balanced,greedy", "--games", "2"],
    ["advancements", "--games", "2"],
    ["bench", "--games", "2", "--reference-games", "1"],
])
def test_workers_validated_everywhere(argv, n, no_analyses, capsys):
    rc = main(argv + ["--workers", n])
    one_line_error(capsys, rc, "--workers", str(vio.max_workers()))


def test_workers_in_configs_and_the_api(tmp_path, capsys):
    exp = tmp_path / "w.toml"
    exp.write_text('study = "tournament"\nworkers = 1000\ngames = 2\n')
    one_line_error(capsys, main(["run", "--check", str(exp)]), "w.toml", "workers")
    from vale_sim.cli import UserError
    with pytest.raises(UserError, match="workers"):
        runner.run(runner.RunConfig(games=2), workers=0, progress=False)
    assert vio.check_workers(vio.max_workers()) == vio.max_workers()


# ---------------------------------------------------------------------------
# 7. Orphaned workers: they exit with their parent; nothing computed is lost
# ---------------------------------------------------------------------------
def _start_simulate(tmp_path, games=400_000):
    out = tmp_path / "run.parquet"
    proc = subprocess.Popen(
        [sys.executable, "-m", "vale_sim.cli", "simulate", "--games", str(games), "--workers", "2",
         "--chunk-size", "2000", "--no-progress", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    return proc, out


def _workers_of(proc, want=2, timeout=60.0):
    import psutil
    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = [c for c in parent.children(recursive=True)
                if "spawn_main" in " ".join(c.cmdline())]
        if len(kids) >= want:
            return kids
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.2)
    raise AssertionError("the workers did not start")


def _gone(procs, timeout=10.0) -> list:
    import psutil
    deadline = time.monotonic() + timeout
    alive = list(procs)
    while alive and time.monotonic() < deadline:
        still = []
        for p in alive:
            try:
                if p.status() != psutil.STATUS_ZOMBIE:
                    still.append(p)
            except psutil.NoSuchProcess:
                pass
        alive = still
        time.sleep(0.2)
    return alive


def _kill_all(procs):
    for p in procs:
        try:
            p.kill()
        except Exception:
            pass


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_exit_when_simulate_parent_dies(tmp_path, sig):
    proc, out = _start_simulate(tmp_path)
    kids = []
    try:
        kids = _workers_of(proc)
        os.kill(proc.pid, sig)
        rc = proc.wait(timeout=30)
        assert rc == (-signal.SIGKILL if sig == signal.SIGKILL else 143)
        assert _gone(kids) == [], "worker processes outlived their parent"
        if sig == signal.SIGTERM:
            assert b"--resume" in proc.stderr.read()        # finished chunks kept, said so
    finally:
        _kill_all(kids)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # Nothing already computed is lost: every finished chunk is intact and resume
    # reuses it (and removes any temporary file a killed writer left).
    cfg = runner.RunConfig(games=400_000)
    done = runner._prepare_out(out, cfg, resume=True)
    assert sorted(done) == sorted(runner.read_part_info(p)[1] for p in out.glob("part-*.parquet"))
    assert all(n == 2000 for n in done.values())
    assert leftovers(out) == []
    todo = runner.plan_chunks(cfg.games, 2000, done)
    assert sum(n for _, n in todo) + sum(done.values()) == cfg.games


# ---------------------------------------------------------------------------
# 8. Reading results: only the requested columns, in batches
# ---------------------------------------------------------------------------
def test_read_results_reads_requested_columns_in_batches(tmp_path):
    out = tmp_path / "r.parquet"
    cfg = runner.RunConfig(games=30, seed=3)
    full = runner.run(cfg, chunk_size=10, out=out, progress=False)
    batches = list(runner.read_results(out, columns=["game", "score"], batch_size=7))
    assert all(list(b.columns) == ["game", "score"] for b in batches)
    assert all(len(b) <= 7 for b in batches) and len(batches) >= 60 // 7
    got = pd.concat(batches, ignore_index=True)
    pd.testing.assert_frame_equal(got, full[["game", "score"]].reset_index(drop=True),
                                  check_dtype=False)
    loaded = runner.load_results(out, columns=["seat"])
    assert list(loaded.columns) == ["seat"] and len(loaded) == 60
    from vale_sim.cli import UserError
    with pytest.raises(UserError, match="no column 'nope'"):
        list(runner.read_results(out, columns=["nope"]))


def test_summary_of_a_written_run_reads_only_the_columns_it_needs(tmp_path, monkeypatch):
    import pyarrow.parquet as pq
    out = tmp_path / "r.parquet"
    cfg = runner.RunConfig(games=12, seed=5)
    full = runner.run(cfg, chunk_size=6, out=out, progress=False)
    asked = []
    real = pq.read_table

    def spy(path, columns=None, **k):
        asked.append(columns)
        return real(path, columns=columns, **k)
    monkeypatch.setattr(pq, "read_table", spy)
    got = runner.summarize_parts(out, cfg)
    pd.testing.assert_frame_equal(got, runner.summarize_frame(full))
    assert asked and all(c is not None and not any(x.startswith("buy:") for x in c) for c in asked)


# ---------------------------------------------------------------------------
# 10. First run: the compile notice, compilation left out of timings, one compile
# ---------------------------------------------------------------------------
def test_compile_notice_only_when_numba_really_compiles(monkeypatch, capsys):
    from numba import njit
    from vale_sim.kernels import jit
    monkeypatch.setitem(jit.COMPILE_NOTICE, "vale_sim_test_kernels", ("test kernels", 3))
    monkeypatch.setattr(jit._WATCH, "announced", set())

    def add_one(x):
        return x + 1

    def add_two(x):
        return x + 2
    add_one.__module__ = add_two.__module__ = "vale_sim_test_kernels"
    before = jit.compile_seconds()
    assert njit(add_one)(1) == 2
    assert capsys.readouterr().err == "compiling the test kernels (once, ~3 s)...\n"
    assert jit.compile_seconds() > before
    assert njit(add_two)(1) == 3                      # same kernels: said once
    assert capsys.readouterr().err == ""


def test_spoil_odds_seconds_leave_compilation_out(monkeypatch, capsys):
    from vale_sim.games.mystic_vale import spoil
    from vale_sim.kernels import jit
    real = spoil.spoil_odds

    def compiling(*a, **k):
        res = real(*a, **k)
        jit._WATCH.total += 1000.0                    # as if numba compiled for 1000 s
        res.seconds += 1000.0
        return res
    monkeypatch.setattr(spoil, "spoil_odds", compiling)
    monkeypatch.setattr(jit._WATCH, "total", jit._WATCH.total)
    assert main(["spoil-odds", "--deck", "starter", "--pushes", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seconds"] < 100


def test_a_pool_run_compiles_in_the_parent_before_spawning(monkeypatch):
    import concurrent.futures
    order = []
    monkeypatch.setattr(runner, "warm_up_fast_engine", lambda: order.append("compile"))

    class NoPool:
        def __init__(self, *a, **k):
            order.append("spawn")
            raise RuntimeError("stop here")
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", NoPool)
    with pytest.raises(RuntimeError, match="stop here"):
        runner.run(runner.RunConfig(games=4), workers=2, chunk_size=2, progress=False)
    assert order == ["compile", "spawn"]


@pytest.mark.parametrize("cold", [True, False])
def test_warm_up_only_when_the_cache_is_cold(monkeypatch, cold):
    from vale_sim.games.mystic_vale.fast import api
    from vale_sim.kernels import jit
    calls = []
    monkeypatch.setattr(jit, "cache_is_cold", lambda *d: cold)
    monkeypatch.setattr(api, "warm_up", lambda: calls.append(1))
    runner.warm_up_fast_engine()
    assert calls == ([1] if cold else [])


def test_non_utf8_experiment_file_is_one_line(tmp_path, capsys):
    exp = tmp_path / "latin.toml"
    exp.write_bytes('study = "tournament"\ndescription = "café"\n'.encode("latin-1"))
    rc = main(["run", "--check", str(exp)])
    one_line_error(capsys, rc, "latin.toml", "UTF-8")


# ---------------------------------------------------------------------------
# spoil-odds --simulate on the fast engine: the same draws, the same numbers
# ---------------------------------------------------------------------------
def _padded(cs, names_per_card, vales=(), name="padded"):
    """A 20-card deck: the given cards, then Cursed Land and blank cards alternately."""
    from vale_sim.games.mystic_vale.reference.symbols import Card
    from vale_sim.games.mystic_vale.spoil import Deck, make_card
    cards = [make_card(cs, names) for names in names_per_card]
    while len(cards) < 20:
        cards.append(make_card(cs, ["Cursed Land"]) if len(cards) % 2 else Card([-1, -1, -1]))
    return Deck(cs, cards, tuple(cs.vale_id(v) for v in vales), name)


def _spoil_decks():
    import random as _random
    from vale_sim.games.mystic_vale.cards import load_card_set
    from vale_sim.games.mystic_vale.reference.symbols import Card
    from vale_sim.games.mystic_vale.spoil import Deck, bundled_decks, load_deck
    from vale_sim.games.mystic_vale.synthetic import random_card_set
    from test_spoil import sleeve_randomly                # test_spoil's deck helper
    core = load_card_set("core")
    decks = [load_deck(d) for d in bundled_decks()]
    decks += [
        _padded(core, [["Grovetender", "Dawnsinger", "Stag"], ["Cursed Land", "Hulking Thornhide"],
                       ["Cursed Land", "Model L1 Sprout A"]] * 3,
                vales=("Conclave of Ents", "Azure Lake"), name="conclave"),
        _padded(core, [["Cursed Land", "Hulking Thornhide"], ["Model L1 Sprout E"]] * 4,
                vales=("Blooming Arbor", "Ancient Liferoots"), name="arbor-liferoots"),
        _padded(core, [["Peacekeeper Druid"], ["Deadwood Harvester"], ["Cleansing Rain"],
                       ["Cursed Land", "Calm Weather"], ["Cursed Land", "Mindful Owl"]],
                name="druid-when-played"),
        _padded(core, [["Aurora", "Seedling", "Grassland"], ["Magic Seed"], ["Grassland"],
                       ["Feral Chieftain", "Stag"], ["Woodland Warden"]],
                vales=("Stream of Vigor", "Pool of Light", "Conclave of Ents"),
                name="harvest-abilities"),
    ]
    for seed in (3, 17):                                  # random sets: every ability kind
        cs = random_card_set(seed)
        r = _random.Random(seed)
        cards = [sleeve_randomly(cs, Card([-1, -1, -1]), r) for _ in range(20)]
        vales = tuple(r.sample(range(len(cs.vales)), min(3, len(cs.vales))))
        decks.append(Deck(cs, cards, vales, f"random-{seed}"))
    return decks


@pytest.mark.parametrize("prep", ["net", "gross"])
def test_fast_spoil_simulation_equals_the_reference(prep):
    from vale_sim.games.mystic_vale.rules import Rules
    from vale_sim.games.mystic_vale.spoil import simulate_spoil_odds
    rules = Rules(prep_count=prep)
    for deck in _spoil_decks():
        a = simulate_spoil_odds(deck, 7, 300, 5, rules, engine="fast").to_dict()
        b = simulate_spoil_odds(deck, 7, 300, 5, rules, engine="reference").to_dict()
        a.pop("seconds", None)
        b.pop("seconds", None)
        assert a == b, deck.name


def test_spoil_odds_simulate_command_uses_the_fast_engine(monkeypatch, capsys):
    from vale_sim.games.mystic_vale.reference import player

    def no_reference(*a, **k):
        raise AssertionError("the reference engine was used")
    monkeypatch.setattr(player, "Player", no_reference)
    assert main(["spoil-odds", "--deck", "thornhide", "--simulate", "--games", "2000",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "simulated" and out["games"] == 2000


def test_an_engine_cache_is_dropped_when_a_source_it_compiles_in_changes(tmp_path):
    """numba keys its cache on each function's own file: register_engine drops an engine
    package's cache files when any file of its folder, of vale_sim/kernels or of the
    extra files it names (Mystic Lands' cards.py) changes, and keeps them otherwise."""
    from vale_sim.kernels import jit
    pkg, extra = tmp_path / "fast", tmp_path / "cards.py"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "engine.py").write_text("X = 1\n")
    extra.write_text("KINDS = ('a',)\n")
    cached = pkg / "__pycache__" / "engine.f-1.py311.nbi"

    def register():
        cached.write_bytes(b"machine code")
        jit.register_engine(pkg, {"fake.engine": ("fake engine", 1)}, files=(extra,))
        return cached.exists()

    register()                                   # first time: no stamp yet
    assert register()                            # nothing changed: kept
    extra.write_text("KINDS = ('a', 'b')\n")
    assert not register()                        # the extra file changed: dropped
    assert register()
    (pkg / "engine.py").write_text("X = 2\n")
    assert not register()                        # a file of the folder changed: dropped
    assert jit.COMPILE_NOTICE["fake.engine"] == ("fake engine", 1)
    jit.COMPILE_NOTICE.pop("fake.engine")
