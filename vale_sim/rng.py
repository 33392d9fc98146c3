"""The per-game counter-based random stream (docs/engine-spec.md §2).

Game ``i`` of a run with master seed ``s`` draws from ``GameRng(s, i)`` and from
nothing else, so results never depend on how games are split across workers.
Plain 64-bit integer arithmetic (SplitMix64), so the numba engine reproduces
it bit for bit (``vale_sim.kernels.rng``).
"""
from __future__ import annotations

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix(z: int) -> int:
    """SplitMix64's output function."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def check_seed(seed) -> int:
    """Validate a master seed and return it as an int in [0, 2**64)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        try:
            if isinstance(seed, str) and seed.strip().lstrip("-").isdigit():
                seed = int(seed)
            else:
                raise TypeError
        except TypeError:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}") from None
    if not 0 <= seed <= MASK:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return seed


def offset_seed(seed: int, k: int) -> int:
    """The seed ``k`` past ``seed``, wrapping at 2**64 (a derived seed of a run seeded
    near 2**64 - 1 stays a valid seed; unchanged for every smaller seed)."""
    return (seed + k) & MASK


def game_key(seed: int, game_index: int) -> int:
    """The stream key of game ``game_index`` of a run seeded ``seed``."""
    return (mix((mix((seed + GOLDEN) & MASK) ^ (game_index & MASK)) + GOLDEN & MASK)) & MASK


class GameRng:
    """The random stream of one game.  ``draws`` counts the 64-bit words used."""

    def __init__(self, seed: int, game_index: int = 0):
        self.seed = check_seed(seed)
        self.game_index = int(game_index)
        self.key = game_key(self.seed, self.game_index)
        self.draws = 0

    def bits(self) -> int:
        self.draws += 1
        return mix((self.key + self.draws * GOLDEN) & MASK)

    def randbelow(self, n: int) -> int:
        """Uniform integer in [0, n), unbiased (rejection on 32-bit words)."""
        if not 1 <= n < (1 << 31):
            raise ValueError(f"randbelow needs 1 <= n < 2**31, got {n}")
        limit = ((1 << 32) // n) * n
        while True:
            r = self.bits() >> 32
            if r < limit:
                return r % n

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place: for i from the end down to 1, swap with randbelow(i+1)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]
