"""The decision procedure of a search player in numba (docs/search.md), game-neutral.

A game's fast engine plays the rollouts; these kernels say which rollouts to play and
which option wins, exactly as :mod:`vale_sim.search` does in Python:

* rollout ``i`` of decision ``d`` of a game whose stream key is ``key`` plays from the
  stream :func:`rollout_key` ``(key, d, i)`` -- the same for every option of the
  decision (common random numbers);
* an option's value is the sum of the searching player's win points
  (``WIN_POINTS / k`` for a k-way shared win) over its rollouts;
* without halving every option gets K rollouts; with successive halving there are
  ceil(log2 n) rounds, round j bringing each surviving option up to
  ``max(1, K >> (rounds - 1 - j))`` rollouts, and after every round but the last
  the better half (rounded up) survives;
* the best value wins, ties to the lower option index.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel
from .rng import mix, GOLDEN, ONE

SALT = np.uint64(0x5EA2C4B1D0E5A11D)
WIN_POINTS = 12                  # 12 / k is whole for k = 1..4 winners


@kernel
def rollout_key(key, decision, i):
    """The stream key of rollout i of decision `decision` (all uint64 arithmetic)."""
    k = mix((np.uint64(key) ^ SALT) + np.uint64(decision) * GOLDEN)
    return mix(k + (np.uint64(i) + ONE) * GOLDEN)


@kernel
def n_rounds(n, halving):
    """Rounds of the schedule for n options: ceil(log2 n) with halving, else 1."""
    if halving == 0 or n <= 2:
        return 1
    r = 0
    m = 1
    while m < n:
        m *= 2
        r += 1
    return r


@kernel
def round_target(k, rounds, j):
    """Rollouts per surviving option once round j is done."""
    t = k >> (rounds - 1 - j)
    return t if t > 0 else 1


@kernel
def keep_best(total, alive, n_alive):
    """Keep the (n_alive + 1) // 2 best of alive[:n_alive] (option indexes, ascending)
    by total (ties: the lower index) in place, in index order; returns their number."""
    m = (n_alive + 1) // 2
    cut = -1                      # the m-th best: ranks read the list before it changes
    for a in range(n_alive):
        o = alive[a]
        rank = 0
        for b in range(n_alive):
            q = alive[b]
            if total[q] > total[o] or (total[q] == total[o] and q < o):
                rank += 1
        if rank == m - 1:
            cut = o
    w = 0
    for a in range(n_alive):
        o = alive[a]
        if total[o] > total[cut] or (total[o] == total[cut] and o <= cut):
            alive[w] = o          # w <= a: alive[a:] is not written yet
            w += 1
    return w


@kernel
def best_alive(total, alive, n_alive):
    """The alive option with the highest total, ties the lower index."""
    best = alive[0]
    for a in range(1, n_alive):
        if total[alive[a]] > total[best]:
            best = alive[a]
    return best
