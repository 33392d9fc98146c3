"""The numba fast engine of Mystic Vale (docs/engine-spec.md).

``api`` is the public layer (``run_fast``: the Game interface's per-game/player
frame; ``play_game_fast``: one game as a GameRecord; ``simulate``, ``warm_up``);
``engine`` holds the kernels, ``state`` the layout of the state array,
``tables`` turns a CardSet / Rules / Policy into integer arrays;
the random stream comes from the shared ``vale_sim.kernels.rng``, which
reproduces ``vale_sim.rng`` bit for bit.
"""
from pathlib import Path

from vale_sim.kernels.jit import register_engine

register_engine(Path(__file__).resolve().parent, {
    "vale_sim.games.mystic_vale.fast.engine": ("fast engine", 20),
    "vale_sim.kernels.rng": ("fast engine", 20),
    "vale_sim.games.mystic_vale.fast.spoil_dp": ("spoil-odds engine", 17),
    "vale_sim.games.mystic_vale.fast.spoil_sim": ("spoil-odds simulation", 6),
    "vale_sim.games.mystic_vale.fast.search": ("search player", 60),
})
