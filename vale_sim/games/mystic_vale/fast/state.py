"""Fixed-shape game state of the fast engine: ONE int64 array, allocated once per chunk.

Every kernel gets the state as a single array ``S[N_ROWS, width]`` (plus the
tables ``T`` and policies ``Q``, see ``tables``): a call passes every array as
nine machine words, so few arrays = cheap calls.  Offsets are module
constants, which numba compiles in.  -1 = empty.  ``c`` = card 0..19,
``s`` = slot 0 top / 1 middle / 2 bottom, ``k`` = advancement kind,
``v`` = vale kind::

    row p = 0..3  PLAYER p (columns below; rows of absent players unused)
      0 .. PS_N-1          scalars: PS_TOKEN .. PS_HARVESTS, PS_ALWAYS_GROWTH (growth of
                           the active always_growth vales, set at turn start),
                           PS_SHOWING (Σ net of field and on-deck cards, kept up to
                           date by every move), PS_VALES_NEW (a vale was bought since
                           PS_ALWAYS_GROWTH and PS_VAB_MASK were computed), PS_VAB_MASK
                           (bit a set: an active vale had ability a at turn start; a
                           superset after a Blooming Arbor leaves), PS_N_CHORUS (cards with
                           an active Earthchant discount, kept by refresh_card),
                           PS_CHORUS_SET (a CHORUS_USED cell was set since Prep), what
                           scoring needs of the sleeved advancements, kept as they are
                           sleeved: PS_EVP (Σ end-game VP), PS_TIE_ADV (level 3 commons),
                           PS_GAIA (1 once a card had an active end-game-per-symbol
                           ability), then the zones'
                           DHEAD, DN (deck = DECK[DHEAD:DN], top first),
                           DISC_N, FIELD_N, ON_DECK (card or -1), VOWN_N,
                           PS_UNSEEN (bit c: card c was discarded face down, below)
      SLOTS   + 3c + s     advancement id in the slot, or -1
      LWTOP   + c          slot whose long-wise strip is on top, or -1
      ACT     + 3c + s     active ability code of the slot (0 if none / covered)
      ACT_AMT + 3c + s     its amount
      CC + CC_N*c + CC_*   per-card symbol cache, rebuilt on sleeving
      HARV_SLOTS + c       bit s set: slot s's advancement was in a field at a Harvest
      TEMP    + c          Conclave temp guardians (reset at Prep start)
      CHORUS_USED + c      Earthchant discount used (reset at Prep start)
      RESERVED + 3c + s    slot reserved by a purchase this Harvest
      DECK + i             deck cards (i in DHEAD..DN-1)
      DISC + i             discard pile in entry order (i < DISC_N)
      FIELD + i            field left to right (i < FIELD_N)
      VOWN + i, VTURN + i  owned vales: id, player turn bought (i < VOWN_N)
      ACQ + k, FIRST_ROUND + k, HARVESTED + k, VACQ + v   outputs of one game
    row GAME
      G_POOL .. G_GAME     game scalars; G_RNG, G_RNG + 1: the random stream
                           (key, draws) as int64 bits, see ``engine.game_randbelow``
      AHEAD + l, AN + l    commons deck l (0..2): cards ADECK row l [AHEAD:AN]
      VHEAD + l, VN + l    vale deck l (0..1): cards VDECK row l [VHEAD:VN]
      COMMONS + i          face-up commons: 0-2 level 1, 3-5 level 2, 6-8 level 3
      VSLOTS + i           face-up vales: 0-3 level 1, 4-7 level 2
      FERT_LEFT + k        Fertile Soil copies left per kind
      scratch: SPIRITS + 4, BOUGHT_COMMON + 9, BOUGHT_VSLOT + 8,
               CAND_KIND .. CAND_BCOST + (9 + n_adv)   advancement candidates of one
                                                         Harvest (see buy_advancements)
      G_TRACING, G_NO_DETAILS   set by play_one / play_games (not by reset_state)
      scratch: VMEMO + VMEMO_N  one push decision of the "value" rule (engine.value_push)
    rows ADECK + l (l = 0..2)   level l+1 commons deck, top = S[ADECK + l, S[GAME, AHEAD + l]]
    rows VDECK + l (l = 0..1)   level l+1 vale deck, same scheme
    row TR                      the TurnRecord being built (trace row layout below)
    row STARTING                SLOTS .. CC of a player holding the 20 starting cards,
                                as refresh_card leaves them; STARTING_READY = 1 once
                                made (by the first setup on this S)

Trace row (one per turn): the fixed columns TR_GAME .. TR_DECAY, then
``max_buys`` columns each of bought kind, sleeve card, sleeve slot, then
MAX_VALE_BUYS columns of vales bought, all -1 padded.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from vale_sim.kernels.layout import blocks, state_array

from .tables import (N_CARDS, N_COMMONS, N_VALE_SLOTS, MAX_KINDS, MAX_VALE_KINDS,
                     MAX_OWNED_VALES, MAX_PLAYERS, O_PLAYERS, O_N_ADV, O_N_VALE, O_LVL_LEN,
                     O_VALE_LEN, O_TRACE_W, OPTS)

# -- rows ---------------------------------------------------------------------
# rows 0..3 are the players; then GAME, ADECK (3 rows), VDECK (2 rows), TR, STARTING
GAME, ADECK, VDECK, TR, STARTING, N_ROWS = blocks(MAX_PLAYERS, 1, 3, 2, 1, 1)

# -- player row ---------------------------------------------------------------
(PS_TOKEN, PS_SKIP, PS_TURN, PS_DRUID_USED, PS_CONC_USED, PS_SUN_USED,
 PS_ARBOR_GROWTH, PS_VP, PS_BOX, PS_SPOILS, PS_HARVESTS, PS_ALWAYS_GROWTH, PS_SHOWING,
 PS_VALES_NEW, PS_VAB_MASK, PS_N_CHORUS, PS_CHORUS_SET, PS_EVP, PS_TIE_ADV, PS_GAIA,
 DHEAD, DN, DISC_N, FIELD_N, ON_DECK, VOWN_N, PS_UNSEEN, PS_N) = range(28)
# PS_UNSEEN: bit c = card c is in the discard pile and went there face down, unseen by the
# other players (Calm Weather, Cleansing Rain: docs/search.md); cleared by a reshuffle
# per-card cache
# per-card cache: printed symbols (decay after Seedling / Lifebringer), the growth of
# its ongoing_growth_per_guardian abilities per guardian (GPG), per-guardian abilities
# (NPERG), occupied slots (OCC count, SLOT_MASK bits), flags of its active abilities
# (WP When Played, DRUID, CHORUS + amount, HARVEST_AB any Harvest ability) and the
# Σ amounts of its per-guardian Harvest abilities (HPERG, what Conclave looks at),
# and NET = decay - growth counting the Conclave temp guardians (kept up to date)
(CC_DECAY, CC_GROWTH, CC_GPG, CC_GUARD, CC_MANA, CC_NPERG, CC_OCC, CC_WP,
 CC_DRUID, CC_CHORUS, CC_CHORUS_AMT, CC_ANIMAL, CC_FOREST, CC_SKY, CC_WILD, CC_HVP,
 CC_HARVEST_AB, CC_HPERG, CC_SLOT_MASK, CC_NET, CC_N) = range(21)
# after the scalars, blocks of: per card 3 slots (SLOTS, ACT, ACT_AMT, RESERVED), 1 cell
# (LWTOP, HARV_SLOTS, TEMP, CHORUS_USED, DECK, DISC, FIELD) or CC_N cells (CC); per owned
# vale (VOWN, VTURN); per kind (ACQ, FIRST_ROUND, HARVESTED); per vale kind (VACQ)
(SLOTS, LWTOP, ACT, ACT_AMT, CC, HARV_SLOTS, TEMP, CHORUS_USED, RESERVED, DECK, DISC, FIELD,
 VOWN, VTURN, ACQ, FIRST_ROUND, HARVESTED, VACQ, PLAYER_W) = blocks(
    PS_N, 3 * N_CARDS, N_CARDS, 3 * N_CARDS, 3 * N_CARDS, CC_N * N_CARDS, N_CARDS, N_CARDS,
    N_CARDS, 3 * N_CARDS, N_CARDS, N_CARDS, N_CARDS, MAX_OWNED_VALES, MAX_OWNED_VALES,
    MAX_KINDS, MAX_KINDS, MAX_KINDS, MAX_VALE_KINDS)
STARTING_READY = HARV_SLOTS      # the cell after the block, in row STARTING

# -- game row -----------------------------------------------------------------
G_POOL, G_ROUND, G_START, G_TRUNC, G_NTRACE, G_GAME, G_RNG = range(7)   # G_RNG: 2 cells
N_CAND = N_COMMONS + MAX_KINDS
# scratch of one push decision of the "value" rule (engine.VM_N): memos (53 cells), two
# counts, the advancement candidates (3 per) and the vale candidates (4 per)
VMEMO_N = 53 + 2 + 3 * N_CAND + 4 * N_VALE_SLOTS
# after G_RNG's 2 cells, blocks of: AHEAD, AN (3: a commons deck each), VHEAD, VN (2: a vale
# deck each), COMMONS, VSLOTS (the face-up ones), SPIRITS (4), BOUGHT_COMMON, BOUGHT_VSLOT,
# FERT_LEFT (a kind each), the candidates of one Harvest (N_CAND each): CAND_KIND, CAND_SRC,
# CAND_CARD, CAND_COST, CAND_CHORUS, CAND_OK (1 buyable, 0 not, -1 placement not looked at
# yet), CAND_SCORE (the policy's score of the candidate's kind), CAND_BCOST (its cost, or
# NEVER_COST if the policy never buys it); G_TRACING (1: play_one writes trace rows, the
# whole turn row is kept), G_NO_DETAILS (1: play_games keeps no first_round / harvested, no
# HARV_SLOTS); VMEMO: scratch of the "value" push rule (engine.value_push); GAME_W: the
# cells of the game row
(AHEAD, AN, VHEAD, VN, COMMONS, VSLOTS, SPIRITS, BOUGHT_COMMON, BOUGHT_VSLOT, FERT_LEFT,
 CAND_KIND, CAND_SRC, CAND_CARD, CAND_COST, CAND_CHORUS, CAND_OK, CAND_SCORE, CAND_BCOST,
 G_TRACING, G_NO_DETAILS, VMEMO, GAME_W) = blocks(
    G_RNG + 2, 3, 3, 2, 2, N_COMMONS, N_VALE_SLOTS, 4, N_COMMONS, N_VALE_SLOTS, MAX_KINDS,
    N_CAND, N_CAND, N_CAND, N_CAND, N_CAND, N_CAND, N_CAND, N_CAND, 1, 1, VMEMO_N)

# -- trace row, fixed part ----------------------------------------------------
(TR_GAME, TR_ROUND, TR_PLAYER, TR_TURN, TR_SKIPPED, TR_PUSHES, TR_SPOILED,
 TR_SPOILED_PREP, TR_DRUID, TR_ARBOR, TR_CONCLAVE, TR_MANA, TR_ANIMAL, TR_FOREST,
 TR_SKY, TR_WILD, TR_VP, TR_VP_BOX, TR_POOL_AFTER, TR_TOKEN_SPENT, TR_SUNSTONE,
 TR_N_BOUGHT, TR_N_VALES, TR_FIELD, TR_DECK, TR_DISCARD, TR_DECAY, TR_FIXED_N) = range(28)
MAX_VALE_BUYS = 2
# per-game, per-player results
(R_SCORE, R_TOKENS, R_ADV, R_VALE, R_TIE, R_SEAT, R_SPOILS, R_HARVESTS, R_BOX,
 R_N) = range(10)
# per-game results
GO_START, GO_ROUNDS, GO_TRUNC, GO_POOL_LEFT, GO_N = range(5)


def trace_width(max_buys: int) -> int:
    return TR_FIXED_N + 3 * max_buys + MAX_VALE_BUYS


def new_state(T) -> np.ndarray:
    """Allocate the state for one game of the tables' card set (reused per game)."""
    return state_array(N_ROWS, max(PLAYER_W, GAME_W, T.shape[1], int(T[OPTS, O_TRACE_W])))


# -- readable numpy views, for tests and tools (not used by the kernels) -------
StateView = namedtuple("StateView", [
    "gs", "adeck", "ahead", "an", "vdeck", "vhead", "vn", "commons", "vslots",
    "fert_left", "slots", "lwtop", "act", "act_amt", "cc", "temp", "chorus_used",
    "reserved", "deck", "dhead", "dn", "disc", "disc_n", "field", "field_n", "on_deck",
    "vown", "vturn", "vown_n", "ps", "acq", "first_round", "harvested",
    "vacq", "tr", "spirits"])


def views(T, S) -> StateView:
    """Writable views of S with the shapes [P, 20, 3], [P, 20], [P], ... by name."""
    P, na, nv = int(T[OPTS, O_PLAYERS]), int(T[OPTS, O_N_ADV]), int(T[OPTS, O_N_VALE])
    pl, g = S[:P], S[GAME]
    cards = lambda at, per=1: (pl[:, at:at + per * N_CARDS].reshape(P, N_CARDS, per)
                               if per > 1 else pl[:, at:at + N_CARDS])
    return StateView(
        gs=g[:G_RNG], adeck=S[ADECK:ADECK + 3, :int(T[OPTS, O_LVL_LEN:O_LVL_LEN + 3].max())],
        ahead=g[AHEAD:AHEAD + 3], an=g[AN:AN + 3],
        vdeck=S[VDECK:VDECK + 2, :int(T[OPTS, O_VALE_LEN:O_VALE_LEN + 2].max())],
        vhead=g[VHEAD:VHEAD + 2], vn=g[VN:VN + 2], commons=g[COMMONS:COMMONS + N_COMMONS],
        vslots=g[VSLOTS:VSLOTS + N_VALE_SLOTS], fert_left=g[FERT_LEFT:FERT_LEFT + na],
        slots=cards(SLOTS, 3), lwtop=cards(LWTOP), act=cards(ACT, 3), act_amt=cards(ACT_AMT, 3),
        cc=cards(CC, CC_N), temp=cards(TEMP), chorus_used=cards(CHORUS_USED),
        reserved=cards(RESERVED, 3), deck=cards(DECK), dhead=pl[:, DHEAD], dn=pl[:, DN],
        disc=cards(DISC), disc_n=pl[:, DISC_N], field=cards(FIELD), field_n=pl[:, FIELD_N],
        on_deck=pl[:, ON_DECK], vown=pl[:, VOWN:VOWN + MAX_OWNED_VALES],
        vturn=pl[:, VTURN:VTURN + MAX_OWNED_VALES], vown_n=pl[:, VOWN_N],
        ps=pl[:, :PS_HARVESTS + 1],
        acq=pl[:, ACQ:ACQ + na], first_round=pl[:, FIRST_ROUND:FIRST_ROUND + na],
        harvested=pl[:, HARVESTED:HARVESTED + na], vacq=pl[:, VACQ:VACQ + nv],
        tr=S[TR, :int(T[OPTS, O_TRACE_W])], spirits=g[SPIRITS:SPIRITS + 4])


from . import tables as _tables                                   # noqa: E402
assert (_tables.TR_FIXED_N, _tables.MAX_VALE_BUYS) == (TR_FIXED_N, MAX_VALE_BUYS)
