"""The Mystic Lands fast engine (numba): the reference engine's games, bit for bit.

``run_fast`` (the Game interface's per-game/player frame) and ``play_game_fast``
(one game as a GameRecord, for the differential tests) are in ``api``; the
kernels in ``engine``; the card set, rules and policies as integer tables in
``tables``.  docs/mystic-lands-engine-spec.md is the replay contract.
"""
from __future__ import annotations

from ._cache import drop_stale_cache

drop_stale_cache()
