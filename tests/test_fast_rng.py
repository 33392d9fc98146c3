"""The numba stream equals vale_sim.rng.GameRng bit for bit."""
import numpy as np
import pytest

from vale_sim import rng as pyrng
from vale_sim.kernels import rng as frng

MASK = (1 << 64) - 1
SEEDS = [0, 1, 2, 12345, 2**32 - 1, 2**32, 2**63 - 1, 2**63, MASK - 1, MASK,
         0x9E3779B97F4A7C15, (MASK - 0x9E3779B97F4A7C15) + 1]


@pytest.mark.parametrize("seed", SEEDS)
def test_mix_and_key(seed):
    assert int(frng.mix(np.uint64(seed))) == pyrng.mix(seed)
    for gi in (0, 1, 7, 1000, 2**40, MASK):
        assert int(frng.game_key(np.uint64(seed), np.uint64(gi))) == pyrng.game_key(seed, gi)


@pytest.mark.parametrize("seed", SEEDS)
def test_bits_and_randbelow(seed):
    for gi in (0, 3, 99):
        py = pyrng.GameRng(seed, gi)
        st = frng.new_state(seed, gi)
        for _ in range(500):
            assert int(frng.bits(st)) == py.bits()
        for n in (1, 2, 3, 7, 10, 1000, 2**31 - 1, 3 * 2**29):
            for _ in range(200):
                assert frng.randbelow(st, n) == py.randbelow(n)
        assert int(st[frng.DRAWS]) == py.draws


@pytest.mark.parametrize("seed", SEEDS[::2])
def test_shuffle(seed):
    for gi in range(5):
        py = pyrng.GameRng(seed, gi)
        st = frng.new_state(seed, gi)
        for n in (0, 1, 2, 5, 20, 33, 96):
            items = list(range(n))
            arr = np.arange(n + 3, dtype=np.int32)  # longer buffer: only a[:n] shuffled
            for _ in range(20):
                py.shuffle(items)
                frng.shuffle(st, arr, n)
                assert list(arr[:n]) == items
                assert list(arr[n:]) == list(range(n, n + 3))
        assert int(st[frng.DRAWS]) == py.draws
