"""The shape of a game (issue 39 item 2): lead changes, comebacks, margins, the first
player, and a calibrated turn-by-turn win-probability model tested on held-out games."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vale_sim import shape as SH


def toy_trace(games=400, players=2, rounds=10, seed=0):
    """A race: each round every player gains 0-3 VP at random; the most VP wins (ties
    broken for player 0's lowest index).  Lead changes, comebacks and the win
    probability are those of a random walk."""
    rng = np.random.default_rng(seed)
    turns, final = [], []
    for g in range(games):
        vp = np.zeros(players)
        for r in range(1, rounds + 1):
            for p in range(players):
                vp[p] += rng.integers(0, 4)
                turns.append((g, r, p, vp[p]))
        w = int(np.argmax(vp))
        for p in range(players):
            final.append((g, p, p, vp[p], 1.0 if p == w else 0.0))
    return {"turns": pd.DataFrame(turns, columns=["game", "round", "player", "vp"]),
            "final": pd.DataFrame(final, columns=["game", "player", "seat", "score",
                                                  "win_share"]), "vp_meaning": "toy VP"}


def test_measures_of_a_known_game():
    t = {"turns": pd.DataFrame({"game": 0, "round": [1, 1, 2, 2, 3, 3], "player": [0, 1] * 3,
                                "vp": [5, 0, 9, 4, 10, 20]}),
         "final": pd.DataFrame({"game": 0, "player": [0, 1], "seat": [0, 1],
                                "score": [10, 20], "win_share": [0.0, 1.0]})}
    m = SH.measures(t, 2, behind=5)
    row = m.iloc[0]
    assert row.lead_changes == 1 and row.winner == 1 and row.mid_gap == 5
    assert row.comeback == 1 and row.margin == 10 and row.first_share == 0


def test_the_win_model_is_calibrated_on_held_out_games():
    s = SH.shape("mystic-vale", 2, trace=toy_trace(games=2000))
    assert s["calibration_error"] <= 0.02
    assert s["held_out_games"] == 1000
    assert 1 <= s["decided_round"]["value"] <= 10
    assert s["comeback_rate"]["lo"] <= s["comeback_rate"]["value"] <= s["comeback_rate"]["hi"]
    assert abs(s["first_player"]["value"] - 0.5) < 0.1


def test_isotonic_is_the_monotone_fit():
    x = np.array([0.1, 0.2, 0.3, 0.4])
    kx, ky = SH.isotonic(x, [0, 1, 0, 1])
    assert np.all(np.diff(ky) >= 0)
    assert np.interp(0.25, kx, ky) == pytest.approx(0.5)


@pytest.mark.compiled
def test_each_game_gives_a_calibrated_model_on_held_out_games():
    for game in ("mystic-vale", "mystic-lands"):
        s = SH.shape(game, 3)                      # the default 2000 games, seed 0
        assert s["calibration_error"] <= 0.02, (game, s["calibration_error"])
        assert s["held_out_games"] == 1000
        assert s["games"] == 2000 and s["lead_changes"]["value"] > 0
