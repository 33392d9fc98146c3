"""The Mystic Lands fast engine (numba): the reference engine's games, bit for bit.

``run_fast`` (the Game interface's per-game/player frame) and ``play_game_fast``
(one game as a GameRecord, for the differential tests) are in ``api``; the
kernels in ``engine``; the card set, rules and policies as integer tables in
``tables``.  docs/mystic-lands-engine-spec.md is the replay contract.
"""
from __future__ import annotations

from pathlib import Path

from vale_sim.kernels.jit import register_engine

_HERE = Path(__file__).resolve().parent
# the kernels compile in the card vocabularies of ``cards.py`` too: a change there
# drops the cache as well; the first compilation says so on stderr
register_engine(_HERE, {"vale_sim.games.mystic_lands.fast.engine": ("Mystic Lands fast engine", 30)},
                files=(_HERE.parent / "cards.py",))


def run_fast(cs, players, seed, n_games, policies=None, rules=None, first_game=0):
    """``Game.run_fast``: the results frame of games first_game.. from the fast engine
    (numba is imported on the first call only)."""
    from .api import run_fast as run
    return run(cs, players, seed, n_games, policies, rules, first_game=first_game)


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels in this process."""
    from .api import warm_up as warm
    warm()
