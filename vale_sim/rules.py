"""Rule options: the places where RULES-NOTES.md names an interpretation.

Defaults follow ``../shared/RULES-NOTES.md``; an analysis can vary them.
"""
from __future__ import annotations

from dataclasses import dataclass

VP_POOL = {2: 23, 3: 28, 4: 33}            # RB: Setup VP Tokens
LEVEL1_DECK = {2: 12, 3: 15, 4: 18}        # RB: Setup The Commons
PREP_COUNTS = ("net", "gross")


@dataclass(frozen=True)
class Rules:
    """Rule options.  ``None`` means "the rulebook's value for this player count"."""
    prep_count: str = "net"          # prep stops at 3 decay showing: net of growth, or gross
    vp_pool: int | None = None       # 23/28/33 for 2/3/4 players
    level1_deck_size: int | None = None  # 12/15/18 for 2/3/4 players
    max_rounds: int = 100            # safety cap; a capped game is flagged `truncated`

    def __post_init__(self):
        if self.prep_count not in PREP_COUNTS:
            raise ValueError(f"prep_count must be one of {PREP_COUNTS}, got {self.prep_count!r}")
        for name in ("vp_pool", "level1_deck_size"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ValueError(f"{name} must be a positive integer or None, got {v!r}")
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int) or self.max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive integer, got {self.max_rounds!r}")

    def pool_for(self, players: int) -> int:
        return self.vp_pool if self.vp_pool is not None else VP_POOL[players]

    def level1_for(self, players: int) -> int:
        return self.level1_deck_size if self.level1_deck_size is not None else LEVEL1_DECK[players]
