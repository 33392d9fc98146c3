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

# randbelow for n < SMALL_N (every shuffle and game draw) without integer division,
# which costs more than the draw itself: the rejection limit (2**32 // n) * n from a
# table, and r % n as r - q * n with q = r * (1 / n) in float64, off by at most one
# (|error| < 2**-20 for r < 2**32) and corrected -- the same results, bit for bit.
SMALL_N = 1024
_n = np.arange(1, SMALL_N, dtype=np.int64)
SMALL_LIMIT = np.zeros(SMALL_N, dtype=np.uint64)
SMALL_LIMIT[1:] = (2 ** 32 // _n) * _n
SMALL_RECIP = np.zeros(SMALL_N, dtype=np.float64)
SMALL_RECIP[1:] = 1.0 / _n


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
    if n < SMALL_N:
        limit = SMALL_LIMIT[n]
        recip = SMALL_RECIP[n]
        while True:
            r = bits(state) >> S32
            if r < limit:
                rem = np.int64(r) - np.int64(np.float64(r) * recip) * n
                if rem < 0:
                    rem += n
                elif rem >= n:
                    rem -= n
                return rem
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


@kernel(inline=True)
def shuffle_in_registers(state, a, n):
    """:func:`shuffle` on a[:n] with the stream's (key, draws) kept in registers.

    The engines keep the stream's state and the shuffled cards in one state
    array, so through :func:`shuffle` the compiler must re-read and re-write the
    state at every draw (a swap might change it).  Here they are read once and
    written back once.  The same draws, bit for bit (randbelow's small-n path)."""
    if n >= SMALL_N:
        shuffle(state, a, n)
        return
    key = state[0]
    d = state[1]
    for i in range(n - 1, 0, -1):
        m = i + 1
        limit = SMALL_LIMIT[m]
        while True:
            d += ONE
            r = mix(key + d * GOLDEN) >> S32
            if r < limit:
                break
        j = np.int64(r) - np.int64(np.float64(r) * SMALL_RECIP[m]) * m
        if j < 0:
            j += m
        elif j >= m:
            j -= m
        ju = np.uint64(j)                # 0 <= j < m: no wrap-around on the index
        t = a[i]
        a[i] = a[ju]
        a[ju] = t
    state[1] = d


def new_state(seed: int, game_index: int) -> np.ndarray:
    """A ready stream state for (seed, game_index), for tests and tools."""
    st = np.zeros(2, dtype=np.uint64)
    rng_init(st, np.uint64(seed), np.uint64(game_index & ((1 << 64) - 1)))
    return st
