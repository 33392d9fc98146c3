"""``Game.score_trace`` of Mystic Lands (the shape of a game, vale_sim.shape; docs/luck.md):
games played by the fast engine with its turn trace (one game a call: the trace holds
one game), and each player's VP on the track after every turn."""
from __future__ import annotations

import numpy as np
import pandas as pd


def score_trace(cs, players, seed, n_games, policies, rules=None, first_game=0) -> dict:
    from .fast import state as L
    from .fast.api import simulate
    from .policy import policies_for
    pols = policies_for(players, policies)
    turns, finals = [], []
    for g in range(first_game, first_game + n_games):
        out = simulate(cs, players, seed, 1, pols, rules, first_game=g, trace=True)
        tr = out.trace
        turns.append(np.column_stack([np.full(len(tr), g), tr[:, L.RC_ROUND],
                                      tr[:, L.RC_PLAYER], tr[:, L.RC_VP]]))
        finals.append(np.column_stack([np.full(players, g), np.arange(players),
                                       out.res[0, :, L.RS_SEAT], out.res[0, :, L.RS_SCORE],
                                       out.share[0]]))
    t = np.concatenate(turns)
    f = np.concatenate(finals)
    return {"turns": pd.DataFrame({"game": t[:, 0].astype(np.int64), "round": t[:, 1],
                                   "player": t[:, 2], "vp": t[:, 3]}),
            "final": pd.DataFrame({"game": f[:, 0].astype(np.int64),
                                   "player": f[:, 1].astype(np.int64),
                                   "seat": f[:, 2].astype(np.int64), "score": f[:, 3],
                                   "win_share": f[:, 4]}),
            "vp_meaning": "VP on the track"}
