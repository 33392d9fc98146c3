"""``Game.score_trace`` of Mystic Vale (the shape of a game, vale_sim.shape; docs/luck.md):
games played by the fast engine with its turn trace, and each player's VP on the table
after every turn: harvest VP tokens taken so far plus the printed end-of-game VP of the
Advancements and Vales bought so far (conditional end-game VP is left out)."""
from __future__ import annotations

import numpy as np
import pandas as pd


def score_trace(cs, players, seed, n_games, policies, rules=None, first_game=0) -> dict:
    from .fast.api import simulate
    from .fast.state import (MAX_VALE_BUYS, R_SCORE, R_SEAT, TR_FIXED_N, TR_GAME,
                             TR_N_BOUGHT, TR_N_VALES, TR_PLAYER, TR_ROUND, TR_VP)
    from .policy import policies_for
    pols = policies_for(players, policies)
    out = simulate(cs, players, seed, n_games, pols, rules, first_game=first_game, trace=True,
                   details=False)
    tr = out.trace
    adv = np.array([a.end_vp for a in cs.advancements] + [0], np.int64)     # -1 -> 0
    vale = np.array([v.end_vp for v in cs.vales] + [0], np.int64)
    mb = out.max_buys
    nb = tr[:, TR_N_BOUGHT]
    bought = tr[:, TR_FIXED_N:TR_FIXED_N + mb]
    take = np.arange(mb)[None, :] < nb[:, None]
    card_vp = np.where(take, adv[np.where(bought >= 0, bought, len(adv) - 1)], 0).sum(axis=1)
    vl = tr[:, tr.shape[1] - MAX_VALE_BUYS:]
    vtake = np.arange(MAX_VALE_BUYS)[None, :] < tr[:, TR_N_VALES][:, None]
    vale_vp = np.where(vtake, vale[np.where(vl >= 0, vl, len(vale) - 1)], 0).sum(axis=1)
    turns = pd.DataFrame({"game": tr[:, TR_GAME].astype(np.int64), "round": tr[:, TR_ROUND],
                          "player": tr[:, TR_PLAYER],
                          "gain": tr[:, TR_VP] + card_vp + vale_vp})
    turns["vp"] = turns.groupby(["game", "player"], sort=False)["gain"].cumsum()
    n, P = out.share.shape
    final = pd.DataFrame({"game": np.repeat(np.arange(n) + first_game, P),
                          "player": np.tile(np.arange(P), n),
                          "seat": out.res[:, :, R_SEAT].ravel(),
                          "score": out.res[:, :, R_SCORE].ravel(),
                          "win_share": out.share.ravel()})
    return {"turns": turns.drop(columns="gain"), "final": final,
            "vp_meaning": "harvest VP tokens plus the printed VP of cards bought"}
