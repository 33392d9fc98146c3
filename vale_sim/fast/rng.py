"""The per-game random stream of ``vale_sim.rng`` in numba, bit for bit.

State of one stream: ``np.uint64[2]`` = (key, draws).  Everything is kept in
uint64 with explicit ``np.uint64`` constants: mixing int64 and uint64 in
numba promotes to float64 and silently loses bits.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
S32 = np.uint64(32)
ONE = np.uint64(1)
TWO32 = np.uint64(1 << 32)

KEY = 0     # rng state layout: [KEY, DRAWS]
DRAWS = 1


@kernel
def mix(z):
    """SplitMix64's output function (uint64 -> uint64, wrapping)."""
    z = np.uint64(z)
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@kernel
def game_key(seed, game_index):
    """Key of game ``game_index`` of a run seeded ``seed`` (both uint64)."""
    return mix((mix(np.uint64(seed) + GOLDEN) ^ np.uint64(game_index)) + GOLDEN)


@kernel
def rng_init(state, seed, game_index):
    state[KEY] = game_key(seed, game_index)
    state[DRAWS] = np.uint64(0)


@kernel
def bits(state):
    """Next 64-bit word of the stream."""
    state[DRAWS] += ONE
    return mix(state[KEY] + state[DRAWS] * GOLDEN)


@kernel
def randbelow(state, n):
    """Uniform int in [0, n), rejection on 32-bit words (1 <= n < 2**31)."""
    un = np.uint64(n)
    limit = (TWO32 // un) * un
    while True:
        r = bits(state) >> S32
        if r < limit:
            return np.int64(r % un)


@kernel
def shuffle(state, a, n):
    """Fisher-Yates on a[:n] in place, exactly as GameRng.shuffle."""
    for i in range(n - 1, 0, -1):
        j = randbelow(state, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


def new_state(seed: int, game_index: int) -> np.ndarray:
    """A ready stream state for (seed, game_index), for tests and tools."""
    st = np.zeros(2, dtype=np.uint64)
    rng_init(st, np.uint64(seed), np.uint64(game_index & ((1 << 64) - 1)))
    return st
