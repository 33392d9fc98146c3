"""vale_sim.kernels.layout: how both fast engines lay out and allocate their one int64
state array (games/*/fast/state.py)."""
from __future__ import annotations

import numpy as np
import pytest

from vale_sim.kernels.layout import blocks, state_array


def test_blocks_follow_each_other():
    assert blocks(10, 3, 5) == (10, 13, 18)
    assert blocks(4) == (4,)
    assert blocks(0, 0, 2) == (0, 0, 2)
    with pytest.raises(ValueError, match="a block of -1 cells"):
        blocks(0, 2, -1)


def test_state_array_is_zeroed_int64_rows_rounded_to_the_alignment():
    s = state_array(3, 13, align=8)
    assert s.shape == (3, 16) and s.dtype == np.int64 and not s.any()
    assert state_array(2, 13).shape == (2, 13) and state_array(1, 16, 8).shape == (1, 16)


@pytest.mark.parametrize("game", ["mystic_vale", "mystic_lands"])
def test_each_engines_row_blocks_fit_in_their_rows(game):
    import importlib
    st = importlib.import_module(f"vale_sim.games.{game}.fast.state")
    if game == "mystic_vale":
        assert (st.GAME, st.N_ROWS) == (st.MAX_PLAYERS, st.STARTING + 1)
        row = [st.SLOTS, st.LWTOP, st.ACT, st.ACT_AMT, st.CC, st.HARV_SLOTS, st.TEMP,
               st.CHORUS_USED, st.RESERVED, st.DECK, st.DISC, st.FIELD, st.VOWN, st.VTURN,
               st.ACQ, st.FIRST_ROUND, st.HARVESTED, st.VACQ, st.PLAYER_W]
        assert row[0] == st.PS_N
    else:
        assert (st.G, st.N_ROWS) == (st.MAX_PLAYERS, st.BCR + 1)
        row = [st.DECK, st.DISC, st.LAND, st.CUBE, st.TRACK, st.NOD, st.ON, st.ACQ, st.HELD]
        assert row[0] == st.CARD + st.CW * st.MAX_CARDS
    assert row == sorted(row) and len(set(row)) == len(row)     # in order, none empty
