"""Mystic Lands' training positions for vale-sim train (vale_sim.train; docs/value.md):
the fast engine's games as rows of (position, outcome).  Apart from ``value`` (the
features), which the policies read: this module plays games, so it imports the engine.
"""
from __future__ import annotations

import numpy as np

from ...value import relative_positions, stage_blocks, stage_of
from .value import feature_tables

def training_data(cs, players: int, policies, seed: int, first_game: int, n_games: int,
                  stages: int, rules=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions and outcomes of ``n_games`` fast-engine games (vale-sim train).

    One row per turn: the position after the acting player's turn, as the stage-blocks
    of (its Advances' features − the mean of the others'), the same for its spots
    (cubes), and per stage its VP − the others' mean (a control); the outcome is its
    win share − 1/players; the group is the game.  A player's Advances are its Druid
    Advance and those it acquired (bought, or by Satyr Home), counted from the turn
    they were acquired; its spots from the turn it enchanted them."""
    from .fast.api import snapshots
    from .rules import Rules
    rules = rules or Rules()
    fa, fv, fs = feature_tables(cs)
    R = fv.shape[1]
    P = players
    parts = []
    step = 250
    for g0 in range(first_game, first_game + n_games, step):
        n = min(step, first_game + n_games - g0)
        sn = snapshots(cs, players, seed, n, policies=policies, rules=rules, first_game=g0)
        parts.append(_rows(sn, fa, fv, fs, R, P, stages, rules, g0))
    return tuple(np.concatenate(z) for z in zip(*parts))


def _rows(sn, fa, fv, fs, R, P, stages, rules, g0):
    from .fast import state as L
    snap, layout = sn.snap, sn.layout
    g = snap[:, L.SN_GAME]
    p = snap[:, L.SN_PLAYER]
    N = len(snap)
    na = fa.shape[0]
    acq = snap[:, L.SN_ACQ:L.SN_ACQ + na]
    druid = sn.druid[g, p]
    adv = acq @ fa + fa[druid]
    cubes = snap[:, L.SN_ACQ + na:]
    s_idx = np.where(cubes >= 0, cubes // R, 0)
    r_idx = np.where(cubes >= 0, cubes % R, 0)
    kinds = sn.space_kind[s_idx]                             # 1: a Vale space
    v_idx = np.where(kinds == 1, layout[g[:, None], s_idx], 0)
    spot = fs[s_idx, r_idx] + np.where((kinds == 1)[..., None], fv[v_idx, r_idx], 0)
    spot = np.where((cubes >= 0)[..., None], spot, 0).sum(axis=1)
    F = np.concatenate([adv, spot, snap[:, [L.SN_VP]]], axis=1).astype(np.float64)
    d = F.shape[1]
    # each player's state at every row: its last snapshot so far, else its Druid alone
    F0 = np.zeros((sn.druid.shape[0], P, d))
    F0[:, :, :fa.shape[1]] = fa[sn.druid]
    prev = np.full(N, -1)
    last = {}
    for t in range(N):                                       # rows are in play order
        key = (g[t], p[t])
        prev[t] = last.get(key, -1)
        last[key] = t
    Fp = np.where((prev >= 0)[:, None], F[np.maximum(prev, 0)], F0[g, p])
    x = relative_positions(F - Fp, g, p, P, start=F0)
    pool0 = rules.end_vp * rules.end_cubes
    gone = np.minimum(snap[:, L.SN_PROGRESS], pool0)
    st = np.array([stage_of(pool0, pool0 - int(a), stages) for a in gone], np.int64)
    X = stage_blocks(x, st, (fa.shape[1], fv.shape[2], 1), stages)
    y = sn.share[g, p] - 1.0 / P
    return X, y, g + g0
