"""The first run of a fast engine: the compile notice only when numba really
compiles, compilation left out of reported timings, one compilation in the parent
before a process pool spawns, and a stale numba cache dropped when a source the
kernels compile in changes.  (Moved from tests/test_hardening.py, issue 18 §10.)
"""
import json

import pytest

from vale_sim import runner
from vale_sim.cli import main


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
