"""Mystic Vale's training positions for vale-sim train (vale_sim.train; docs/value.md):
the fast engine's games as rows of (position, outcome).  Apart from ``value`` (the
features), which the policies read: this module plays games, so it imports the engine.
"""
from __future__ import annotations

import numpy as np

from ...value import relative_positions, stage_blocks, stage_of
from .value import feature_table

def training_data(cs, players: int, policies, seed: int, first_game: int, n_games: int,
                  stages: int, rules=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions and outcomes of ``n_games`` fast-engine games (vale-sim train).

    One row per turn: the position after the acting player's turn, as the stage-blocks
    of (its cards' features − the mean of the others'), the same for vales, and per
    stage its VP tokens − the others' mean (a control); the outcome is its win share −
    1/players; the group is the game.  The features of a card count from the turn it was
    bought (its sleeve or vale), as the value player reads them."""
    from .fast.api import simulate
    from .fast.state import TR_FIXED_N, TR_GAME, TR_PLAYER, TR_VP, TR_POOL_AFTER
    from .rules import Rules
    rules = rules or Rules()
    out = simulate(cs, players, seed, n_games, policies=policies, rules=rules,
                   first_game=first_game, trace=True, details=False)
    tr = out.trace
    fa, fv = feature_table(cs)
    da, dv = fa.shape[1], fv.shape[1]
    fa0 = np.vstack([fa, np.zeros((1, da), np.int64)])      # index -1: no purchase
    fv0 = np.vstack([fv, np.zeros((1, dv), np.int64)])
    mb = out.max_buys
    kinds = tr[:, TR_FIXED_N:TR_FIXED_N + mb]
    vales = tr[:, tr.shape[1] - 2:]
    gain = np.concatenate([fa0[kinds].sum(axis=1), fv0[vales].sum(axis=1),
                           tr[:, [TR_VP]]], axis=1).astype(np.float64)
    g = tr[:, TR_GAME] - first_game
    p = tr[:, TR_PLAYER]
    x = relative_positions(gain, g, p, players)
    pool0 = rules.pool_for(players)
    st = np.array([stage_of(pool0, int(a), stages) for a in tr[:, TR_POOL_AFTER]])
    X = stage_blocks(x, st, (da, dv, 1), stages)
    y = out.share[g, p] - 1.0 / players
    return X, y, g + first_game
