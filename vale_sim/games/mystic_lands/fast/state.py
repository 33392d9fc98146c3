"""Fixed-shape game state of the Mystic Lands fast engine: ONE int64 array ``S``,
allocated once per call of ``engine.play_games`` (``new_state``).

Every kernel of ``engine`` takes the table ``T`` (``tables``), this state and,
where a turn record tuple may grow, ``X``; offsets are module constants, which
numba compiles in.  -1 = none.

State ``S`` (int64, -1 = none)::

    row p < 4      player p: scalars PM_*, then per card uid u its four slots
                   (CARD + CW u + position) and a cache of what it shows (F_* fields
                   after them, rebuilt by ``refresh_card`` or updated by ``sleeve_card``
                   whenever a slot changes), the deck
                   (DECK + i, i in DHEAD..DN-1, DECK + DHEAD the on-deck card), the
                   Discard, the Land, cubes (CUBE + 2 i: space, row), per space its
                   track position (TRACK, -1 no activation cube), night_or_day used
                   (NOD) and cube present (ON), Advances acquired (ACQ) and held (HELD)
    row G          game scalars G_*, the layout, row owners, players on each space
    rows DK + l    the Advance decks of levels 0..2 (head G_AH + l, end G_AN + l)
    rows MK1, MK2  Market slots of levels 1 and 2 (counts G_NM1, G_NM2)
    row REC        the TurnRecord being built (RC_*)
    rows LSNAP, CSNAP, CAND, STK, SCR   scratch: a Land snapshot, a cube snapshot,
                   enchant candidates, the activation stack, setup lists
    row RNG        the game's random stream (vale_sim.kernels.rng's uint64 key, draws)
    rows SPOT + p  player p's spot scores of this game's layout (one block per stage of a
                   value player, spec §6.14)
    row BCR        every starting card unsleeved (slots and cache, as a player row's
                   CARD part): setup copies it instead of rebuilding each card's cache
"""
from __future__ import annotations

import numpy as np

from vale_sim.kernels.layout import blocks, state_array

from .tables import (MAX_ADV, MAX_CARDS, MAX_PLAYERS, MAX_ROWS, MAX_SPACE, MAX_STAGES,
                     MAX_TRACK, OPTS, O_DRUID_DEAL, O_HELD_CAP, O_LEN, O_ML1, O_ML2, O_NGROWTH)

# -- player row -----------------------------------------------------------------
(PM_MANA, PM_SPIRIT, PM_VP, PM_RAIN, PM_PLACED, PM_WITHERED, PM_RESTRICT, PM_WILD,
 PM_BOUGHT, PM_ENCH, PM_WITHERS, PM_TURNS, PM_MTOT, PM_STOT, PM_BONUS, PM_DRUID, PM_SEAT,
 DHEAD, DN, NDISC, NLAND, NHELD, NCUBES, PM_ONMASK, PM_VFLAGS, PM_LTM, PM_LKM,
 PM_MAXSUN, PM_DSHOWN) = range(29)
# PM_ONMASK: bit s = a cube on space s; PM_VFLAGS: OR of V_FLAGS of those Vales;
# PM_LTM, PM_LKM: at least the OR of F_TM, F_KM of the Land's cards (bits are added when
# a card enters the Land or a Land card is sleeved, all cleared when the Land is
# discarded): a loop over the Land looking for an effect timing or kind is skipped
# when the bit is not there; PM_MAXSUN: at least the uncovered suns of each of p's
# cards (the most any card showed this game): decide_grow needs no look at the cards
# when it is below the suns that would wither; PM_DSHOWN: 1 once p's Druid card was seen
# (engine.druid_hidden, set at each Dusk): the other players know p's Druid Advance
CARD = 32                             # card u: fields CARD + CW u + f, together for
CW = 16                               # locality: its slots (f = 0..3), then what it shows:
(F_SUN, F_M, F_SP, F_V, F_ASP, F_TM, F_KM, F_PKM, F_WLIM, F_SLV, F_EVP, F_PTM) = range(4, 16)
# uncovered suns, left-edge mana, spirit and VP, aspect bits 0..3 (bit 4: a wild icon), the
# OR of its Advances' effect timing bits and kind bits, per position (16-bit lanes)
# the effect kind bits of the Advance there, Σ wither_limit,
# Σ end VP of its Advances, per position (16-bit lanes) the effect timing bits of the
# Advance there (the loops over a card's Advances for one timing skip the others),
# and for best_target what sleeving an Advance at each position would do (16-bit lane
# per position, LN_* bits: icons are at most cards.LIMITS["icon"] = 5, so rain covered
# <= 5 and suns a cloud covers <= 10 fit)
LN_RC = 0                             # 5 bits: rain icons sleeving there covers first
LN_X = 5                              # 6 bits: that half's suns a cloud there would cover
LN_G = 11                             # 1: a sun or cloud there changes the half's count
LN_EMPTY = 12                         # 1: the slot is free
LN_NOSUN = 13                         # 1: the card shows no uncovered sun
# after the cards: blocks of DECK, DISC, LAND (a card each), CUBE (space, row of each
# cube), TRACK, NOD, ON (a space each), ACQ (an Advance each); HELD: the rest of the row
DECK, DISC, LAND, CUBE, TRACK, NOD, ON, ACQ, HELD = blocks(
    CARD + CW * MAX_CARDS, MAX_CARDS, MAX_CARDS, MAX_CARDS, 2 * MAX_SPACE, MAX_SPACE,
    MAX_SPACE, MAX_SPACE, MAX_ADV)
# -- game row ---------------------------------------------------------------------
(G_START, G_ROUND, G_TRIGGER, G_INDAY, G_GROWTHS, G_RAINSUP, G_NM1, G_NM2, G_AH, _, _,
 G_AN, _, _, G_TRACE, G_TRUNC, G_ROUNDS, G_TURNIDX, G_NEV, G_EVB) = range(20)
# from cell 32: per space the layout (G_LAYOUT), the owner of each row (G_OWNER + MAX_ROWS
# s + r), the players on it (G_ONSP), its rows and printed cost in this game's layout
# (G_SPNR, G_SPCOST); G_WIDTH: the cells of the game row
G_LAYOUT, G_OWNER, G_ONSP, G_SPNR, G_SPCOST, G_WIDTH = blocks(
    32, MAX_SPACE, MAX_ROWS * MAX_SPACE, MAX_SPACE, MAX_SPACE, MAX_SPACE)
# -- rows -----------------------------------------------------------------------------
# after the player rows 0..MAX_PLAYERS-1: the game row G, the Advance decks DK (3 rows),
# the Market rows MK1, MK2, the TurnRecord REC, the scratch rows LSNAP .. SCR, the random
# stream RNG ((key, draws) as int64 bits), SPOT + p (p's spot scores of this game's
# layout, MAX_PLAYERS rows), BCR (the starting cards unsleeved: slots and cache as a
# player row's CARD part, built once per play_games); N_ROWS rows
G, DK, MK1, MK2, REC, LSNAP, CSNAP, CAND, STK, SCR, RNG, SPOT, BCR, N_ROWS = blocks(
    MAX_PLAYERS, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, MAX_PLAYERS, 1)
SP_NEVER = 0                      # SPOT row: at SP_NEVER + s 1 if p's policy never
SP_SCORE = MAX_SPACE              # enchants s; the score without cost of spot (s, r) at
SP_STAGE = MAX_ROWS * MAX_SPACE   # stage st at SP_SCORE + SP_STAGE st + MAX_ROWS s + r
SP_END = SP_SCORE + SP_STAGE * MAX_STAGES
# -- the TurnRecord row ------------------------------------------------------------
(RC_ROUND, RC_PLAYER, RC_TURN, RC_GROWS, RC_OVERGROWS, RC_WITHERED, RC_OOC, RC_RAIN_PLACED,
 RC_CHOSEN, RC_MGAIN, RC_SGAIN, RC_VGAIN, RC_GROWTHS, RC_TRIGGERED, RC_MANA, RC_SPIRIT,
 RC_VP, RC_RAIN, RC_HELD, RC_CUBES, RC_DECK, RC_DISC, RC_N) = range(23)
# -- events (the tuples of a TurnRecord): X[i] = turn, kind, x, y, z ----------------
EV_BOUGHT, EV_ENCHANTED, EV_SLEEVED, EV_REMOVED = range(4)
EV_W = 5
# -- value-player training snapshots (engine.play_games with trace = 2): one row per
# turn, after it: the game (within the call), the player, the progress toward the end
# (spec §6.14), its VP and cubes, its Advances acquired (SN_ACQ + a), then its cubes as
# MAX_ROWS space + row (-1 after the last)
SN_GAME, SN_PLAYER, SN_PROGRESS, SN_VP, SN_CUBES, SN_ACQ = range(6)
# -- per-player results -----------------------------------------------------------
(RS_SCORE, RS_TRACK, RS_BONUS, RS_ADV, RS_VALE, RS_EFF, RS_WITHERS, RS_TURNS, RS_MTOT,
 RS_STOT, RS_CUBES, RS_TRIG, RS_DRUID, RS_SEAT, RS_N) = range(15)
# -- per-game outputs ---------------------------------------------------------------
GO_START, GO_ROUNDS, GO_TRUNC, GO_LAYOUT = 0, 1, 2, 3
GO_N = GO_LAYOUT + MAX_SPACE


def state_width(T) -> int:
    o = T[OPTS]
    lens = [int(x) for x in o[O_LEN:O_LEN + 5]]
    return max(HELD + int(o[O_HELD_CAP]),                   # player rows
               G_WIDTH, max(lens[:3]),                          # game row, Advance decks
               int(o[O_ML1]) + 1, int(o[O_ML2]) + int(o[O_NGROWTH]) + 1,   # Market
               4 + 4 * MAX_ROWS * MAX_SPACE,                    # CAND: every spot
               2 * (MAX_SPACE * MAX_TRACK + 2),                 # STK: every square
               lens[3] + lens[4],                               # SCR: the Vale decks,
               MAX_PLAYERS * int(o[O_DRUID_DEAL]) + 1,          # the Druid hands,
               2 * int(o[O_HELD_CAP]),                          # the held order
               RC_N, SP_END, 64)


def new_state(T) -> np.ndarray:
    return state_array(N_ROWS, state_width(T), align=8)   # rows start on 64-byte boundaries
