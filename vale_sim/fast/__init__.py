"""The numba fast engine (docs/engine-spec.md).

``api`` is the public layer (``play_game_fast``, ``run_games``); ``engine``
holds the kernels, ``tables`` turns a CardSet / Policy into integer arrays,
``rng`` reproduces ``vale_sim.rng`` bit for bit.
"""
