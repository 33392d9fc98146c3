"""The fast-engine profilers (vale_sim.kernels.profile, each game's fast/profile.py)
name the kernels of the engines' current modules (vale_sim.games.<game>.fast,
vale_sim.kernels): before this, Mystic Vale's kept only ``_ZN8vale_sim4fast...``
symbols and counted 0 samples."""
import pytest

from vale_sim.kernels.profile import short_name


def test_short_names_of_current_modules():
    assert short_name("_ZN8vale_sim5games11mystic_vale4fast6engine10play_gamesB2v5B38xyz") \
        == "play_games"
    assert short_name("_ZN8vale_sim5games12mystic_lands4fast6engine5nightB2v5") == "night"
    assert short_name("_ZN8vale_sim7kernels3rng7shuffleB3v13B36c8") == "rng.shuffle"
    assert short_name("_ZN8vale_sim5games11mystic_vale4fast8spoil_dp5solveB2v1") \
        == "spoil_dp.solve"


def test_kernel_ranges_cover_the_engine():
    from vale_sim.games.mystic_vale.fast import profile
    from vale_sim.games.mystic_vale.fast.api import simulate
    simulate("core", 2, 0, 2, details=False)
    names = {nm for _, _, nm in profile._kernel_ranges()}
    assert {"play_games", "take_turn", "placement"} <= names


def test_kernel_ranges_cover_the_mystic_lands_engine():
    from vale_sim.games.mystic_lands import cards as C
    from vale_sim.games.mystic_lands.fast import profile
    from vale_sim.games.mystic_lands.fast.api import simulate
    simulate(C.DEFAULT_SET, 2, 0, 2)
    ranges = profile._kernel_ranges()
    names = {nm for _, _, nm in ranges}
    assert {"play_games", "night", "dusk"} <= names
    assert all(a < b for a, b, _ in ranges)
    assert all(b <= a2 for (_, b, _), (a2, _, _) in zip(ranges, ranges[1:]))   # disjoint


@pytest.mark.parametrize("module", ["mystic_vale", "mystic_lands"])
def test_profiler_refuses_bad_games_and_missing_perf(module, monkeypatch, capsys):
    import importlib

    from vale_sim.kernels import profile as shared
    prof = importlib.import_module(f"vale_sim.games.{module}.fast.profile")
    with pytest.raises(SystemExit) as e:
        prof.main(["--games", "0"])
    assert e.value.code == 2
    monkeypatch.setattr(shared.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit) as e:
        prof.main(["--games", "5"])
    assert e.value.code == 2
    assert "perf is not installed" in capsys.readouterr().err


def test_machine_code_copy_stops_at_unmapped_memory():
    """--asm copies each kernel's bytes; a range running past its last mapped page (freshly
    compiled kernels are not contiguous) gave the child a segmentation fault: now the copy
    reads through /proc/self/mem and pads the unmapped part with zeros."""
    import ctypes

    from vale_sim.kernels.profile import _read_memory
    buf = ctypes.create_string_buffer(b"kernel bytes")
    with open("/proc/self/mem", "rb", buffering=0) as mem:
        assert _read_memory(mem, ctypes.addressof(buf), 12) == b"kernel bytes"
        assert _read_memory(mem, 4096, 100) == bytes(100)          # page 1: never mapped
