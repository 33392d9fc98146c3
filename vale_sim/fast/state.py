"""Fixed-shape game state of the fast engine, allocated once per chunk.

Layout (P players, 20 cards each, -1 = empty; ``int64`` unless said)::

    rng         uint64[2]          stream (key, draws) -- fast.rng
    gs          [G_N]              game scalars: G_POOL, G_ROUND, G_START, ...
    adeck       [3, L]             level 1/2/3 commons decks; top = adeck[l, ahead[l]]
    ahead, an   [3]                deck head index and end (cards = adeck[l, ahead:an])
    vdeck       [2, M]             vale decks 1/2, same scheme with vhead, vn
    commons     [9]                face-up commons: 0-2 level 1, 3-5 level 2, 6-8 level 3
    vslots      [8]                face-up vales: 0-3 level 1, 4-7 level 2
    fert_left   [n_adv]            Fertile Soil copies left per kind
    slots       [P, 20, 3]         advancement id in (card, slot 0 top/1 middle/2 bottom)
    lwtop       [P, 20]            slot whose long-wise strip is on top, or -1
    act, act_amt[P, 20, 3]         active ability code / amount per slot (0 if none/covered)
    cc          [P, 20, CC_N]      per-card symbol cache (CC_DECAY ..), rebuilt on sleeving
    temp        [P, 20]            Conclave temp guardians (reset at Prep start)
    chorus_used [P, 20]            Earthchant discount used (reset at Prep start)
    reserved    [P, 20, 3]         slot reserved by a purchase this Harvest
    deck        [P, 20]            deck: deck[p, dhead[p]:dn[p]], top first
    disc        [P, 20]            discard pile in entry order, length disc_n[p]
    field       [P, 20]            field left to right, length field_n[p]
    on_deck     [P]                on-deck card or -1
    vown, vturn [P, VMAX]          owned vales (id, player turn bought), vown_n[p] used
    owned_adv   [P, n_adv]         advancement copies owned (starting + bought)
    ps          [P, PS_N]          player scalars: PS_TOKEN, PS_SKIP, PS_TURN, ...
    acq, first_round, harvested [P, n_adv]; vacq [P, n_vale]   outputs of one game
    tr          [TR width]         the TurnRecord being built (trace layout below)
    scratch: spirits[4], vorder[8], cand_* [9 + n_adv], bought_common[9], bought_vslot[8]

Trace row (one per turn, ``int64``): the fixed columns TR_GAME .. TR_DECAY,
then ``max_buys`` columns each of bought kind, sleeve card, sleeve slot, then
2 columns of vales bought, all -1 padded.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .tables import (N_CARDS, N_COMMONS, N_VALE_SLOTS, O_PLAYERS, O_MAX_BUYS)

# game scalars
G_POOL, G_ROUND, G_START, G_TRUNC, G_NTRACE, G_GAME, G_N = range(7)
# player scalars
(PS_TOKEN, PS_SKIP, PS_TURN, PS_DRUID_USED, PS_CONC_USED, PS_SUN_USED,
 PS_ARBOR_GROWTH, PS_VP, PS_BOX, PS_SPOILS, PS_HARVESTS, PS_N) = range(12)
# per-card cache
(CC_DECAY, CC_GROWTH, CC_GPG, CC_GUARD, CC_MANA, CC_NPERG, CC_OCC, CC_WP,
 CC_DRUID, CC_CHORUS, CC_CHORUS_AMT, CC_N) = range(12)
# trace row, fixed part
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

State = namedtuple("State", [
    "rng", "gs", "adeck", "ahead", "an", "vdeck", "vhead", "vn", "commons", "vslots",
    "fert_left", "slots", "lwtop", "act", "act_amt", "cc", "temp", "chorus_used",
    "reserved", "deck", "dhead", "dn", "disc", "disc_n", "field", "field_n", "on_deck",
    "vown", "vturn", "vown_n", "owned_adv", "ps", "acq", "first_round", "harvested",
    "vacq", "tr", "spirits", "vorder", "cand_kind", "cand_src", "cand_card",
    "cand_cost", "cand_chorus", "cand_ok", "bought_common", "bought_vslot"])


def trace_width(max_buys: int) -> int:
    return TR_FIXED_N + 3 * max_buys + MAX_VALE_BUYS


def new_state(T) -> State:
    """Allocate the state for one game of the tables' player count (reused per game)."""
    P = int(T.opts[O_PLAYERS])
    na, nv = T.adv.shape[0], T.vale.shape[0]
    vmax = max(1, int(T.vale_n.sum()))
    i64 = np.int64
    z = lambda *shape: np.zeros(shape, dtype=i64)
    return State(
        rng=np.zeros(2, np.uint64), gs=z(G_N),
        adeck=np.full((3, T.lvl_cards.shape[1]), -1, i64), ahead=z(3), an=z(3),
        vdeck=np.full((2, T.vale_cards.shape[1]), -1, i64), vhead=z(2), vn=z(2),
        commons=z(N_COMMONS), vslots=z(N_VALE_SLOTS), fert_left=z(na),
        slots=z(P, N_CARDS, 3), lwtop=z(P, N_CARDS), act=z(P, N_CARDS, 3),
        act_amt=z(P, N_CARDS, 3), cc=z(P, N_CARDS, CC_N), temp=z(P, N_CARDS),
        chorus_used=z(P, N_CARDS), reserved=z(P, N_CARDS, 3),
        deck=z(P, N_CARDS), dhead=z(P), dn=z(P), disc=z(P, N_CARDS), disc_n=z(P),
        field=z(P, N_CARDS), field_n=z(P), on_deck=z(P),
        vown=z(P, vmax), vturn=z(P, vmax), vown_n=z(P), owned_adv=z(P, na),
        ps=z(P, PS_N), acq=z(P, na), first_round=z(P, na), harvested=z(P, na),
        vacq=z(P, nv), tr=z(trace_width(int(T.opts[O_MAX_BUYS]))),
        spirits=z(4), vorder=z(N_VALE_SLOTS),
        cand_kind=z(N_COMMONS + na), cand_src=z(N_COMMONS + na),
        cand_card=z(N_COMMONS + na), cand_cost=z(N_COMMONS + na),
        cand_chorus=z(N_COMMONS + na), cand_ok=z(N_COMMONS + na),
        bought_common=z(N_COMMONS), bought_vslot=z(N_VALE_SLOTS))
