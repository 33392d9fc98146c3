"""The fast-engine profiler names the kernels of the engine's current modules
(vale_sim.games.mystic_vale.fast, vale_sim.kernels): before this, it kept only
``_ZN8vale_sim4fast...`` symbols and counted 0 samples."""
from vale_sim.games.mystic_vale.fast import profile


def test_short_names_of_current_modules():
    assert profile._short("_ZN8vale_sim5games11mystic_vale4fast6engine10play_gamesB2v5B38xyz") \
        == "play_games"
    assert profile._short("_ZN8vale_sim7kernels3rng7shuffleB3v13B36c8") == "rng.shuffle"
    assert profile._short("_ZN8vale_sim5games11mystic_vale4fast8spoil_dp5solveB2v1") \
        == "spoil_dp.solve"


def test_kernel_ranges_cover_the_engine():
    from vale_sim.games.mystic_vale.fast.api import simulate
    simulate("core", 2, 0, 2, details=False)
    names = {nm for _, _, nm in profile._kernel_ranges()}
    assert {"play_games", "take_turn", "placement"} <= names
