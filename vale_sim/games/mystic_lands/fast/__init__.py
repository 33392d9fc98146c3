"""The Mystic Lands fast engine (numba): the reference engine's games, bit for bit.

``api`` is the public layer (``run_fast``: the Game interface's per-game/player
frame; ``play_game_fast``: one game as a GameRecord; ``simulate``, ``warm_up``);
``engine`` holds the kernels, ``state`` the layout of the state array,
``tables`` turns a CardSet / Rules / Policy into integer arrays.
docs/mystic-lands-engine-spec.md is the replay contract.  Importing this
package imports numba (``register_engine``): the game's ``__init__`` reaches it
only inside the functions that run the fast engine.
"""
from __future__ import annotations

from pathlib import Path

from vale_sim.kernels.jit import register_engine

_HERE = Path(__file__).resolve().parent
# the kernels compile in the card vocabularies of ``cards.py`` too: a change there
# drops the cache as well; the first compilation says so on stderr
register_engine(_HERE, {"vale_sim.games.mystic_lands.fast.engine": ("Mystic Lands fast engine", 30),
                        "vale_sim.games.mystic_lands.fast.search": ("Mystic Lands search player", 60)},
                files=(_HERE.parent / "cards.py",))

