"""Numba kernels of the fast engine: one game = setup, rounds of turns, scoring.

Every function follows docs/engine-spec.md (section numbers cited).  Each kernel
takes at most three arrays (a call passes every array as nine machine words, so
the state is ONE array): ``T`` = card tables (layout in ``tables``),
``S`` = game state (layout in ``state``), ``Q`` = policies; ``p`` = player
(= its row of S), ``c`` = card, ``s`` = slot, ``k`` = advancement kind,
``v`` = vale kind.  No allocation inside a game.
"""
from __future__ import annotations

import numpy as np

from vale_sim.kernels.jit import kernel
from vale_sim.kernels.rng import rng_init, randbelow, shuffle_in_registers
from .tables import (
    A_LEVEL, A_SUPPLY, A_COST, A_POS, A_LONGWISE, A_MANA, A_ANIMAL, A_FOREST, A_SKY,
    A_WILD, A_GUARDIAN, A_DECAY, A_GROWTH, A_HVP, A_EVP, A_ABILITY, A_AMOUNT,
    A_SYMBOLS, A_PERG, A_LIMIT, SUP_COMMONS,
    V_LEVEL, V_COST_A, V_COST_F, V_COST_S, V_COST_W, V_END_VP, V_ABILITY, V_AMOUNT,
    V_SYMBOL, V_EXTRA_BUYS, V_UNIQUE,
    AB_NONE, AB_HVP_PER_GUARDIAN, AB_HMANA_PER_GUARDIAN, AB_GROWTH_PER_GUARDIAN,
    AB_ENDGAME_PER_SYMBOL, AB_HVP_PER_CARDS, AB_HMANA_PER_OTHER, AB_HMANA_PENALTY,
    AB_WP_PEEK, AB_WP_SEARCH, AB_WP_DISCARD_FIELD, AB_DISCOUNT, AB_NO_DECAY,
    AB_MAX_ONE_DECAY, AB_PREVENT_SPOIL,
    VAB_HMANA, VAB_HSPIRIT, VAB_ARBOR, VAB_ALWAYS_GROWTH, VAB_CONCLAVE, VAB_SUNSTONE,
    VALE, START, LVL_CARDS, VALE_CARDS, FERTILE, FERTILE_KINDS, OPTS,
    O_PLAYERS, O_POOL, O_L1SIZE, O_MAX_ROUNDS, O_PREP_GROSS, O_MAX_BUYS, O_N_ADV,
    O_N_VALE, O_LVL_LEN, O_VALE_LEN, O_TRACE_W, O_N_FERTILE, O_MIN_VALE_COST,
    ADV_KEY, VALE_SCORE, NEVER_VALE, ADV_BUY_COST, KEY_MUL,
    P_PUSH_RISK, P_MANA_TARGET, P_VALE_MIN_SCORE, P_AVOID_DECAY_STACK,
    P_TOKEN_NEEDED, P_USE_SUNSTONE, P_EXPLORE, P_N_RULES, P_RULES,
    RC_TARGET, RC_ID, RC_MANA_AT_LEAST, RC_MANA_AT_MOST, RC_ROUND_AT_LEAST,
    RC_ROUND_AT_MOST, RC_POOL_AT_MOST, RC_OWNED_AT_MOST, ABSENT,
    T_CARD_ADV, T_CARD_VALE, T_LEVEL, T_VALE_ABILITY, T_BEST_ADV, T_BEST_VALE,
    N_CARDS, N_COMMONS, N_VALE_SLOTS)
from .tables import P_LOOKAHEAD, P_CAUTION, P_W_MANA, P_W_SPIRIT, P_W_HVP, P_DISCARD_PLAYS
from .tables import P_STAGES, P_BEST_MIN, MIN_KEY, MAX_PLAYERS
from .tables import (P_VALUE_PUSH, P_MIN_SCORE, P_PUSH_BONUS, P_CARRY_DECAY, ADV_SCORE,
                     VP_WEIGHT, NEVER_COST)
from ..rules import MAX_PHASE_PLAYS
from .state import (
    GAME, ADECK, VDECK, TR, STARTING, STARTING_READY,
    PS_TOKEN, PS_SKIP, PS_TURN, PS_DRUID_USED, PS_CONC_USED, PS_SUN_USED,
    PS_ARBOR_GROWTH, PS_VP, PS_BOX, PS_SPOILS, PS_HARVESTS, PS_ALWAYS_GROWTH, PS_SHOWING,
    PS_VALES_NEW, PS_VAB_MASK, PS_N_CHORUS, PS_CHORUS_SET, PS_EVP, PS_TIE_ADV, PS_GAIA,
    DHEAD, DN, DISC_N, FIELD_N, ON_DECK, VOWN_N, PS_UNSEEN, PS_N,
    SLOTS, LWTOP, ACT, ACT_AMT, CC, TEMP, CHORUS_USED, RESERVED, DECK, DISC, FIELD,
    VOWN, VTURN, ACQ, FIRST_ROUND, HARVESTED, VACQ,
    CC_DECAY, CC_GROWTH, CC_GPG, CC_GUARD, CC_MANA, CC_NPERG, CC_OCC, CC_WP,
    CC_DRUID, CC_CHORUS, CC_CHORUS_AMT, CC_ANIMAL, CC_FOREST, CC_SKY, CC_WILD, CC_HVP,
    CC_HARVEST_AB, CC_HPERG, CC_SLOT_MASK, CC_NET, CC_N, HARV_SLOTS,
    G_POOL, G_ROUND, G_START, G_TRUNC, G_NTRACE, G_GAME, G_RNG,
    AHEAD, AN, VHEAD, VN, COMMONS, VSLOTS, SPIRITS, BOUGHT_COMMON, BOUGHT_VSLOT,
    FERT_LEFT, CAND_KIND, CAND_SRC, CAND_CARD, CAND_COST, CAND_CHORUS, CAND_OK,
    CAND_SCORE, CAND_BCOST, G_TRACING, G_NO_DETAILS, VMEMO, VMEMO_N, N_CAND,
    TR_GAME, TR_ROUND, TR_PLAYER, TR_TURN, TR_SKIPPED, TR_PUSHES, TR_SPOILED,
    TR_SPOILED_PREP, TR_DRUID, TR_ARBOR, TR_CONCLAVE, TR_MANA, TR_ANIMAL, TR_FOREST,
    TR_SKY, TR_WILD, TR_VP, TR_VP_BOX, TR_POOL_AFTER, TR_TOKEN_SPENT, TR_SUNSTONE,
    TR_N_BOUGHT, TR_N_VALES, TR_FIELD, TR_DECK, TR_DISCARD, TR_DECAY, TR_FIXED_N,
    MAX_VALE_BUYS,
    R_SCORE, R_TOKENS, R_ADV, R_VALE, R_TIE, R_SEAT, R_SPOILS, R_HARVESTS, R_BOX,
    GO_START, GO_ROUNDS, GO_TRUNC, GO_POOL_LEFT)


# ---------------------------------------------------------------------------
# The game's random stream (§2): S[GAME, G_RNG:G_RNG + 2] seen as fast.rng's
# uint64 (key, draws)
# ---------------------------------------------------------------------------
@kernel
def game_rng_init(S, seed, game_index):
    rng_init(S[GAME, G_RNG:G_RNG + 2].view(np.uint64), seed, game_index)


@kernel
def game_randbelow(S, n):
    return randbelow(S[GAME, G_RNG:G_RNG + 2].view(np.uint64), n)


@kernel
def game_shuffle(S, a, n):
    """rng.shuffle on a[:n] from the game's stream, its (key, draws) in registers
    (kernels.rng.shuffle_in_registers).  Same draws, bit for bit."""
    shuffle_in_registers(S[GAME, G_RNG:G_RNG + 2].view(np.uint64), a, n)


# ---------------------------------------------------------------------------
# Cards (§1)
# ---------------------------------------------------------------------------
@kernel
def refresh_card(T, S, p, c):
    """Rebuild the active abilities and symbol cache of card c (after sleeving)."""
    # spec §1: the symbols of a card (guardians, decay, growth; covered abilities)
    d = 0
    g = 0
    gu = 0
    mana = 0
    occ = 0
    gpg = 0
    nperg = 0
    wp = 0
    druid = 0
    chorus = 0
    chorus_amt = 0
    a = 0
    f = 0
    sk = 0
    w = 0
    hvp = 0
    harvest_ab = 0
    hperg = 0
    mask = 0
    no_decay = False
    max_one = False
    for s in range(3):
        S[p, ACT + 3 * c + s] = AB_NONE
        S[p, ACT_AMT + 3 * c + s] = 0
        kk = S[p, SLOTS + 3 * c + s]
        if kk < 0:
            continue
        k = np.uint64(kk)
        occ += 1
        mask |= 1 << s
        d += T[k, A_DECAY]
        g += T[k, A_GROWTH]
        gu += T[k, A_GUARDIAN]
        mana += T[k, A_MANA]
        a += T[k, A_ANIMAL]
        f += T[k, A_FOREST]
        sk += T[k, A_SKY]
        w += T[k, A_WILD]
        hvp += T[k, A_HVP]
        ab = T[k, A_ABILITY]
        if ab == AB_NONE:
            continue
        if T[k, A_LONGWISE] != 0 and S[p, LWTOP + c] != s:
            continue                      # long-wise strip covered
        amt = T[k, A_AMOUNT]
        S[p, ACT + 3 * c + s] = ab
        S[p, ACT_AMT + 3 * c + s] = amt
        if T[k, A_PERG] != 0:
            nperg += 1
        if ab == AB_NO_DECAY:
            no_decay = True
        elif ab == AB_MAX_ONE_DECAY:
            max_one = True
        elif ab == AB_GROWTH_PER_GUARDIAN:
            gpg += amt
        elif ab == AB_PREVENT_SPOIL:
            druid = 1
        elif ab == AB_DISCOUNT:
            if chorus == 0:
                chorus = 1
                chorus_amt = amt
        elif ab == AB_WP_PEEK or ab == AB_WP_SEARCH or ab == AB_WP_DISCARD_FIELD:
            wp = 1
        elif ab == AB_HVP_PER_GUARDIAN or ab == AB_HMANA_PER_GUARDIAN:
            harvest_ab = 1
            hperg += amt
        elif ab == AB_HMANA_PER_OTHER or ab == AB_HVP_PER_CARDS or ab == AB_HMANA_PENALTY:
            harvest_ab = 1
        elif ab == AB_ENDGAME_PER_SYMBOL:
            S[p, PS_GAIA] = 1             # score_game looks at the cards' abilities
    if no_decay:
        d = 0
    elif max_one and d > 1:
        d = 1
    S[p, CC + CC_N * c + CC_DECAY] = d
    S[p, CC + CC_N * c + CC_GROWTH] = g + gpg * gu
    S[p, CC + CC_N * c + CC_GPG] = gpg
    S[p, CC + CC_N * c + CC_GUARD] = gu
    S[p, CC + CC_N * c + CC_MANA] = mana
    S[p, CC + CC_N * c + CC_NPERG] = nperg
    S[p, CC + CC_N * c + CC_OCC] = occ
    S[p, CC + CC_N * c + CC_WP] = wp
    S[p, CC + CC_N * c + CC_DRUID] = druid
    S[p, PS_N_CHORUS] += chorus - S[p, CC + CC_N * c + CC_CHORUS]
    S[p, CC + CC_N * c + CC_CHORUS] = chorus
    S[p, CC + CC_N * c + CC_CHORUS_AMT] = chorus_amt
    S[p, CC + CC_N * c + CC_ANIMAL] = a
    S[p, CC + CC_N * c + CC_FOREST] = f
    S[p, CC + CC_N * c + CC_SKY] = sk
    S[p, CC + CC_N * c + CC_WILD] = w
    S[p, CC + CC_N * c + CC_HVP] = hvp
    S[p, CC + CC_N * c + CC_HARVEST_AB] = harvest_ab
    S[p, CC + CC_N * c + CC_HPERG] = hperg
    S[p, CC + CC_N * c + CC_SLOT_MASK] = mask
    S[p, CC + CC_N * c + CC_NET] = d - (g + gpg * gu) - gpg * S[p, TEMP + c]


# Indexes computed from a card or kind read from S are cast to uint64 on the hot paths:
# numba adds a negative-index wrap-around (three instructions on the load's dependency
# chain) to every signed index LLVM cannot prove non-negative, and none to unsigned ones.
@kernel
def guardians(S, p, c):
    return S[p, np.uint64(CC + CC_N * c + CC_GUARD)] + S[p, np.uint64(TEMP + c)]


@kernel
def net(S, p, c):
    """decay(c) - growth(c), temp guardians included (§6.2)."""
    return S[p, np.uint64(CC + CC_N * c + CC_NET)]


@kernel
def add_temp_guardians(S, p, c, n):
    """Conclave of Ents: n temp guardians on card c, in the field or on deck (its
    growth per guardian grows)."""
    S[p, TEMP + c] += n
    S[p, CC + CC_N * c + CC_NET] -= S[p, CC + CC_N * c + CC_GPG] * n
    S[p, PS_SHOWING] -= S[p, CC + CC_N * c + CC_GPG] * n


@kernel
def clear_temp_guardians(S, p):
    """Prep start: temp guardians go, wherever their cards are now."""
    for c in range(N_CARDS):
        t = S[p, TEMP + c]
        if t != 0:
            S[p, TEMP + c] = 0
            S[p, CC + CC_N * c + CC_NET] += S[p, CC + CC_N * c + CC_GPG] * t
    showing_on_deck_only(S, p)


@kernel
def vale_active(S, p, i):
    """Owned vale i is active iff bought in an earlier turn of p (§4.3)."""
    return S[p, VTURN + i] < S[p, PS_TURN]


@kernel
def vale_summary(T, S, p):
    """Turn start, after a vale was bought (PS_VALES_NEW): PS_ALWAYS_GROWTH and the
    abilities of the active vales as bits (PS_VAB_MASK).  Without a purchase the
    active vales stay those of the last turn (Blooming Arbor, the only vale that
    leaves, has no always_growth ability): nothing to recompute."""
    g = 0
    m = 0
    for i in range(S[p, VOWN_N]):
        if vale_active(S, p, i):
            v = S[p, VOWN + i]
            ab = T[VALE + v, V_ABILITY]
            m |= 1 << ab
            if ab == VAB_ALWAYS_GROWTH:
                g += T[VALE + v, V_AMOUNT]
    S[p, PS_ALWAYS_GROWTH] = g
    S[p, PS_VAB_MASK] = m


@kernel
def global_growth(T, S, p):
    return S[p, PS_ARBOR_GROWTH] + S[p, PS_ALWAYS_GROWTH]


@kernel
def recount_showing(S, p):
    """PS_SHOWING from scratch: Σ net over the field and the on-deck card."""
    tot = 0
    for i in range(S[p, FIELD_N]):
        tot += net(S, p, S[p, FIELD + i])
    od = S[p, ON_DECK]
    if od >= 0:
        tot += net(S, p, od)
    S[p, PS_SHOWING] = tot


@kernel
def showing_on_deck_only(S, p):
    """PS_SHOWING once the field is empty (discard phase, Prep start)."""
    od = S[p, ON_DECK]
    S[p, PS_SHOWING] = net(S, p, od) if od >= 0 else 0


@kernel
def decay_showing(T, S, p):
    """§1 decay_showing.  PS_SHOWING follows every card entering or leaving the field
    and the on-deck spot (reveal, discards) and every change of a showing card's net."""
    return S[p, PS_SHOWING] - global_growth(T, S, p)


@kernel
def gross_showing(S, p):
    tot = 0
    for i in range(S[p, FIELD_N]):
        tot += S[p, CC + CC_N * S[p, FIELD + i] + CC_DECAY]
    od = S[p, ON_DECK]
    if od >= 0:
        tot += S[p, CC + CC_N * od + CC_DECAY]
    return tot


@kernel
def find_active_vale(T, S, p, ability):
    """Index (in vown) of the first active owned vale with this ability, or -1."""
    for i in range(S[p, VOWN_N]):
        if T[VALE + S[p, VOWN + i], V_ABILITY] == ability and vale_active(S, p, i):
            return i
    return -1


# ---------------------------------------------------------------------------
# Zones
# ---------------------------------------------------------------------------
@kernel
def to_discard(S, p, c):
    S[p, DISC + S[p, DISC_N]] = c
    S[p, DISC_N] += 1


@kernel
def reshuffle(S, p):
    """The discard pile (entry order) is shuffled and becomes the (empty) deck."""
    n = S[p, DISC_N]
    for i in range(n):
        S[p, DECK + i] = S[p, DISC + i]
    S[p, DHEAD] = 0
    S[p, DN] = n
    S[p, DISC_N] = 0
    S[p, PS_UNSEEN] = 0
    game_shuffle(S, S[p, DECK:DECK + N_CARDS], n)


@kernel
def reveal(S, p):
    """§4.2 reveal: reshuffle if the deck is empty, then the top card goes on deck."""
    if S[p, DHEAD] >= S[p, DN]:
        if S[p, DISC_N] > 0:
            reshuffle(S, p)
        else:
            S[p, ON_DECK] = -1
            return
    c = S[p, DECK + S[p, DHEAD]]
    S[p, ON_DECK] = c
    S[p, DHEAD] += 1
    S[p, PS_SHOWING] += net(S, p, c)


@kernel
def worst(S, p, zone, lo, hi, skip, random_ties):
    """§6.2: index in S[p, zone+lo:zone+hi] of a card with the most net decay (> 0),
    never the card ``skip``; -1 if none.  Ties: the first, or if ``random_ties``
    the j-th tied card in zone order, j = randbelow(number tied) -- no draw
    without a tie."""
    # spec §6.2: When Played choices
    best = -1
    bn = 0
    tied = 0
    for i in range(lo, hi):
        x = S[p, zone + i]
        if x == skip:
            continue
        nt = net(S, p, x)
        if nt > bn:
            bn = nt
            best = i
            tied = 1
        elif nt == bn and best >= 0:
            tied += 1
    if tied < 2 or not random_ties:
        return best
    j = game_randbelow(S, tied)
    for i in range(best, hi):
        x = S[p, zone + i]
        if x != skip and net(S, p, x) == bn:
            if j == 0:
                return i
            j -= 1
    return -1                     # not reached: j < tied


@kernel
def remove_at(S, p, zone, count, i):
    """Remove element i of the zone S[p, zone:zone+S[p, count]]; return the card."""
    x = S[p, zone + i]
    for j in range(i, S[p, count] - 1):
        S[p, zone + j] = S[p, zone + j + 1]
    S[p, count] -= 1
    return x


@kernel
def when_played(S, p, c, discard_ok):
    """§7: the active When Played abilities of card c (just put in the field);
    discard_ok False: the policy declines a field discard (rules.md I16)."""
    # spec §7: When Played abilities
    for s in range(3):
        ab = S[p, ACT + 3 * c + s]
        if ab == AB_WP_DISCARD_FIELD:
            if not discard_ok:
                continue
            best = worst(S, p, FIELD, 0, S[p, FIELD_N], c, True)
            if best >= 0:
                x = remove_at(S, p, FIELD, FIELD_N, best)
                S[p, PS_SHOWING] -= net(S, p, x)
                to_discard(S, p, x)
        elif ab == AB_WP_PEEK:
            if S[p, DHEAD] >= S[p, DN]:
                reshuffle(S, p)
            if S[p, DHEAD] < S[p, DN]:
                top = S[p, DECK + S[p, DHEAD]]
                if net(S, p, top) > 0:
                    S[p, DHEAD] += 1
                    to_discard(S, p, top)
                    S[p, PS_UNSEEN] |= np.int64(1) << top      # face down: unseen
        elif ab == AB_WP_SEARCH:
            if S[p, DHEAD] >= S[p, DN]:
                reshuffle(S, p)
            h = S[p, DHEAD]
            best = worst(S, p, DECK, h, S[p, DN], -1, False)
            if best >= 0:
                x = remove_at(S, p, DECK, DN, best)
                to_discard(S, p, x)
                S[p, PS_UNSEEN] |= np.int64(1) << x        # face down: unseen
            game_shuffle(S, S[p, DECK + h:DECK + N_CARDS], S[p, DN] - h)


@kernel(inline=True)
def play_on_deck(S, p, discard_ok):
    """Move the on-deck card into the field, resolve When Played, reveal."""
    c = S[p, ON_DECK]
    S[p, FIELD + S[p, FIELD_N]] = c
    S[p, FIELD_N] += 1
    S[p, ON_DECK] = -1
    if S[p, CC + CC_N * c + CC_WP] != 0:
        when_played(S, p, c, discard_ok)
    reveal(S, p)


# ---------------------------------------------------------------------------
# Spoil check (§4.4)
# ---------------------------------------------------------------------------
@kernel
def spoil_check(T, S, p):
    """True if the player spoils.  Small, so LLVM inlines it: the saves are a call
    made only when 4 decay show."""
    # spec §4.4: the spoil check and its saves
    return decay_showing(T, S, p) >= 4 and not spoil_saved(T, S, p)


@kernel
def conclave_saves(S, p, ds, extra, c):
    """Card c (-1: none) would save: extra temp guardians on it bring ds below 4."""
    if c < 0:
        return False
    g = S[p, CC + CC_N * c + CC_GPG]
    return g > 0 and ds - g * extra < 4


@kernel
def conclave_saver(S, p, ds, extra):
    """§4.4 step 2: the card getting the Conclave's guardians, -1 if none saves.
    Savers in order (field left to right, then on-deck); several: the j-th,
    j = randbelow(number of savers) -- no draw for a single saver."""
    od = S[p, ON_DECK]
    n = 1 if conclave_saves(S, p, ds, extra, od) else 0
    for i in range(S[p, FIELD_N]):
        if conclave_saves(S, p, ds, extra, S[p, FIELD + i]):
            n += 1
    if n == 0:
        return -1
    j = 0 if n == 1 else game_randbelow(S, n)
    for i in range(S[p, FIELD_N]):
        c = S[p, FIELD + i]
        if conclave_saves(S, p, ds, extra, c):
            if j == 0:
                return c
            j -= 1
    return od


@kernel
def spoil_saved(T, S, p):
    """4 decay show: try Druid, Conclave, Blooming Arbor in order; True if one saves."""
    ds = decay_showing(T, S, p)
    # 1. Peacekeeper Druid
    if S[p, PS_DRUID_USED] == 0:
        has = False
        for i in range(S[p, FIELD_N]):
            if S[p, CC + CC_N * S[p, FIELD + i] + CC_DRUID] != 0:
                has = True
                break
        if has:
            S[p, PS_DRUID_USED] = 1
            S[TR, TR_DRUID] = 1
            if S[p, ON_DECK] >= 0:
                S[p, PS_SHOWING] -= net(S, p, S[p, ON_DECK])
                to_discard(S, p, S[p, ON_DECK])
                S[p, ON_DECK] = -1
            reveal(S, p)
            ds = decay_showing(T, S, p)
            if ds < 4:
                return True
    # 2. Conclave of Ents: +amount guardians on a Grovetender-like card that saves
    ci = find_active_vale(T, S, p, VAB_CONCLAVE)
    if S[p, PS_CONC_USED] == 0 and ci >= 0:
        extra = T[VALE + S[p, VOWN + ci], V_AMOUNT]
        target = conclave_saver(S, p, ds, extra)
        if target >= 0:
            add_temp_guardians(S, p, target, extra)
            S[p, PS_CONC_USED] = 1
            S[TR, TR_CONCLAVE] = 1
            return True           # chosen only if it brings decay below 4
    # 3. Blooming Arbor
    i = find_active_vale(T, S, p, VAB_ARBOR)
    if i >= 0:
        amt = T[VALE + S[p, VOWN + i], V_AMOUNT]
        if ds - amt < 4:
            for j in range(i, S[p, VOWN_N] - 1):
                S[p, VOWN + j] = S[p, VOWN + j + 1]
                S[p, VTURN + j] = S[p, VTURN + j + 1]
            S[p, VOWN_N] -= 1
            S[p, PS_VALES_NEW] = 1
            S[p, PS_ARBOR_GROWTH] += amt
            S[TR, TR_ARBOR] = 1
            return True
    return False


# ---------------------------------------------------------------------------
# Planting (§4.2, §6.1)
# ---------------------------------------------------------------------------
# VMEMO (game row scratch) of one decision of the value rule: advancement values per
# budget (VM_A_N), pool counts per net threshold t (VM_G_N, from VM_G_LOW), the last
# spirits (4 cells) and their vales' value
VM_A_N = 32
VM_G = VMEMO + VM_A_N
VM_G_N = 16
VM_G_LOW = -4
VM_V = VM_G + VM_G_N
VM_CLEAR = VM_A_N + VM_G_N + 5          # the memo cells, cleared per decision
# then the decision's candidates in the order the policy buys them: advancements
# (VC_N of them: score, cost, copies) and vales (VV_N, -1 until listed: score, vale,
# slot, whole cost)
VC_N = VMEMO + VM_CLEAR
VV_N = VC_N + 1
VC_SC = VV_N + 1
VC_COST = VC_SC + N_CAND
VC_LEFT = VC_COST + N_CAND
VV_SC = VC_LEFT + N_CAND
VV_V = VV_SC + N_VALE_SLOTS
VV_SL = VV_V + N_VALE_SLOTS
VV_TOT = VV_SL + N_VALE_SLOTS          # the vale's whole cost (fewer spirits cannot pay)
VM_N = VV_TOT + N_VALE_SLOTS - VMEMO
VM_UNKNOWN = -(1 << 62)
assert VM_N == VMEMO_N, "engine.VM_N must equal state.VMEMO_N"
# ---------------------------------------------------------------------------
@kernel(inline=True)
def decide_push(T, S, Q, p):
    # spec §6.1: push or pass
    mt = Q[p, P_MANA_TARGET]
    if mt > 0:
        fm = 0
        for i in range(S[p, FIELD_N]):
            fm += S[p, CC + CC_N * S[p, FIELD + i] + CC_MANA]
        if fm >= mt:
            return False
    thr = 4 - decay_showing(T, S, p)
    bad = 0
    if S[p, DHEAD] < S[p, DN]:
        n = S[p, DN] - S[p, DHEAD]
        for j in range(S[p, DHEAD], S[p, DN]):
            if net(S, p, S[p, DECK + j]) >= thr:
                bad += 1
    else:
        n = S[p, DISC_N]
        if n == 0:
            return True
        for j in range(n):
            if net(S, p, S[p, DISC + j]) >= thr:
                bad += 1
    if Q[p, P_LOOKAHEAD] != 0:
        return lookahead_push(S, Q, p, n, bad)
    if Q[p, P_VALUE_PUSH] != 0:
        return value_push(T, S, Q, p, n, bad)
    return bad * 1000 <= Q[p, P_PUSH_RISK] * n


@kernel
def card_value(S, Q, p, c):
    """A card's printed Harvest symbols under the policy's weights (§6.1)."""
    b = CC + CC_N * c
    spirits = S[p, b + CC_ANIMAL] + S[p, b + CC_FOREST] + S[p, b + CC_SKY] + S[p, b + CC_WILD]
    return (Q[p, P_W_MANA] * S[p, b + CC_MANA] + Q[p, P_W_SPIRIT] * spirits
            + Q[p, P_W_HVP] * S[p, b + CC_HVP])


@kernel
def lookahead_push(S, Q, p, n, bad):
    """The lookahead rule (§6.1): n cards in the pool, bad of them spoil."""
    v_on_deck = card_value(S, Q, p, S[p, ON_DECK])
    v_field = 0
    for i in range(S[p, FIELD_N]):
        v_field += card_value(S, Q, p, S[p, FIELD + i])
    v_token = Q[p, P_W_MANA] if (S[p, PS_TOKEN] == 0 and Q[p, P_TOKEN_NEEDED] != 0) else 0
    return 1000 * (n - bad) * v_on_deck >= Q[p, P_CAUTION] * bad * (v_field - v_token)


@kernel
def value_push(T, S, Q, p, n, bad):
    """The value rule (§6.1): n cards in the pool, bad of them spoil.  An expectimax
    two reveals deep: H0 = the value of a Harvest now, H1 = with the on-deck card c
    played; for each card r of the pool that does not spoil, the better of passing
    after it (H1) and pushing once more (r played: H2(r), if the reveal after it does
    not spoil, good2(r) of the n2 cards of the next pool do not); a spoil is worth 0.
    Each push is worth push_bonus b more, and each outcome costs k = carry_decay_cost
    per net decay of the card then left on deck (it starts the next field).  Push iff

        1000 x (total + b n n2) >= caution x n x n2 x (H0 - k net(c))

    with total = sum over safe r of max(n2 (H1 - k net(r)), good2(r) H2(r) - k D(r)
    + b n2) - sum over spoiling r of n2 k net(r), D(r) the net of the next pool (n2 = 0,
    nothing left to reveal: H2(r) + b, and n2 counts 1 elsewhere)."""
    # spec §6.1: the value rule
    mana, a, f, sk, w, vp, extra = harvest_totals(T, S, p)
    pool = S[GAME, G_POOL]
    st = stage_at(T, Q, p, pool - (vp if vp < pool else pool))
    tok = token_bonus(S, Q, p)
    lim = 2 + extra                      # the vales, and so the buy limit, stay
    for i in range(VM_CLEAR):
        S[GAME, VMEMO + i] = VM_UNKNOWN
    list_adv_candidates(T, S, Q, p, st)
    S[GAME, VV_N] = -1                   # vales listed when first needed (harvest_value)
    h0 = harvest_value(T, S, Q, p, st, tok, lim, mana, a, f, sk, w, vp)
    c = S[p, ON_DECK]
    m1, a1, f1, sk1, w1, vp1, _x = field_totals(T, S, p, c, -1)
    h1 = harvest_value(T, S, Q, p, st, tok, lim, m1, a1, f1, sk1, w1, vp1)
    b = Q[p, P_PUSH_BONUS]
    kap = Q[p, P_CARRY_DECAY]           # the card left on deck starts the next field
    thr = 4 - decay_showing(T, S, p)
    if S[p, DHEAD] < S[p, DN]:
        lo = DECK + S[p, DHEAD]
    else:
        lo = DISC
    dpool = 0
    for j in range(n):
        dpool += net(S, p, S[p, lo + j])
    s0 = h0 - kap * net(S, p, c)
    if 1000 * ((n - bad) * h1 - kap * dpool + b * n) >= Q[p, P_CAUTION] * n * s0:
        return True         # each term of the sum is at least n2 H1: pushing wins already
    # without Harvest abilities in the field and on c and r, a Harvest with r played too
    # counts r's symbols more (harvest_totals' sums), so H2(r) needs no recount
    plain = S[p, CC + CC_N * c + CC_HARVEST_AB] == 0
    for i in range(S[p, FIELD_N]):
        if S[p, CC + CC_N * S[p, FIELD + i] + CC_HARVEST_AB] != 0:
            plain = False
    # the pool of the reveal after r: the pool less r, or (r the deck's last card) the
    # discard pile, reshuffled then
    if n > 1:
        n2 = n - 1
    elif S[p, DHEAD] < S[p, DN]:
        n2 = S[p, DISC_N]
    else:
        n2 = 0
    d2 = n2 if n2 > 0 else 1
    ddisc = 0
    if n == 1 and n2 > 0:
        for j in range(n2):
            ddisc += net(S, p, S[p, DISC + j])
    total = 0
    for j in range(n):
        r = S[p, lo + j]
        nr = net(S, p, r)
        if nr >= thr:
            total -= d2 * kap * nr        # spoils: no Harvest; r starts the next field
            continue
        cc = CC + CC_N * r
        if plain and S[p, cc + CC_HARVEST_AB] == 0:
            h2 = harvest_value(T, S, Q, p, st, tok, lim, m1 + S[p, cc + CC_MANA],
                               a1 + S[p, cc + CC_ANIMAL], f1 + S[p, cc + CC_FOREST],
                               sk1 + S[p, cc + CC_SKY], w1 + S[p, cc + CC_WILD],
                               vp1 + S[p, cc + CC_HVP])
        else:
            m2, a2, f2, sk2, w2, vp2, _x = field_totals(T, S, p, c, r)
            h2 = harvest_value(T, S, Q, p, st, tok, lim, m2, a2, f2, sk2, w2, vp2)
        if n2 == 0:
            cont = h2
        elif n > 1:                       # the pool less r
            t = thr - nr
            cont = ((pool_below(S, p, lo, n, t) - (1 if nr < t else 0)) * h2
                    - kap * (dpool - nr))
        else:                             # the discard pile
            cont = pool_below(S, p, DISC, n2, thr - nr) * h2 - kap * ddisc
        cont += b * d2                    # the second push's bonus
        stop = d2 * (h1 - kap * nr)
        total += cont if cont > stop else stop
    return 1000 * (total + b * n * d2) >= Q[p, P_CAUTION] * n * d2 * s0


@kernel
def pool_below(S, p, lo, n, t):
    """How many of the n cards S[p, lo:lo + n] have net < t (memoized per t: VMEMO;
    one decision asks about one pool)."""
    memo = t >= VM_G_LOW and t < VM_G_LOW + VM_G_N
    i = VM_G + t - VM_G_LOW
    if memo and S[GAME, i] != VM_UNKNOWN:
        return S[GAME, i]
    k = 0
    for j in range(n):
        if net(S, p, S[p, lo + j]) < t:
            k += 1
    if memo:
        S[GAME, i] = k
    return k


@kernel
def field_totals(T, S, p, c1, c2):
    """harvest_totals of p's field with cards c1 and c2 (-1: none) played too; the
    state is left as it was."""
    fn = S[p, FIELD_N]
    o1 = S[p, FIELD + fn]
    o2 = S[p, FIELD + fn + 1]           # fn + 2 <= N_CARDS: c1, c2 are not in the field
    m = fn
    if c1 >= 0:
        S[p, FIELD + m] = c1
        m += 1
    if c2 >= 0:
        S[p, FIELD + m] = c2
        m += 1
    S[p, FIELD_N] = m
    out = harvest_totals(T, S, p)
    S[p, FIELD_N] = fn
    S[p, FIELD + fn] = o1
    S[p, FIELD + fn + 1] = o2
    return out


@kernel
def harvest_value(T, S, Q, p, st, tok, lim, mana, a, f, sk, w, vp):
    """§6.1 value rule: the value of a Harvest that counts mana, spirits (a, f, sk, w)
    and vp: the stage-st scores of the advancements (with the token `tok`, at most
    `lim`) and vales the policy's best-score buying takes, + vp x a VP's value.  The
    advancements' part is memoized per budget, the vales' for the last spirits
    (VMEMO, cleared by value_push)."""
    b = mana + tok
    if b < VM_A_N:
        adv = S[GAME, VMEMO + b]
        if adv == VM_UNKNOWN:
            adv = adv_purchase_value(S, b, lim)
            S[GAME, VMEMO + b] = adv
    else:
        adv = adv_purchase_value(S, b, lim)
    if a + f + sk + w < T[OPTS, O_MIN_VALE_COST]:
        vales = 0
    elif (S[GAME, VM_V] == a and S[GAME, VM_V + 1] == f and S[GAME, VM_V + 2] == sk
          and S[GAME, VM_V + 3] == w):
        vales = S[GAME, VM_V + 4]
    else:
        if S[GAME, VV_N] < 0:
            list_vale_candidates(T, S, Q, p, st)
        vales = vale_purchase_value(T, S, a, f, sk, w)
        S[GAME, VM_V] = a
        S[GAME, VM_V + 1] = f
        S[GAME, VM_V + 2] = sk
        S[GAME, VM_V + 3] = w
        S[GAME, VM_V + 4] = vales
    return adv + vales + Q[VP_WEIGHT + p, st] * vp


@kernel
def list_adv_candidates(T, S, Q, p, st):
    """The advancements §6.4's buying would consider now, in its order (stage-st score
    descending, ties in candidate order: commons slots 0-8, then the Fertile Soil kinds
    with copies left), those scoring at least min_score and not never-bought: VC_N of
    them, score VC_SC, cost VC_COST, copies VC_LEFT (1, or a Fertile Soil kind's
    copies left).  An insertion sort: a dozen candidates."""
    row = ADV_SCORE + MAX_PLAYERS * st + p
    ms = Q[p, P_MIN_SCORE]
    m = 0
    for i in range(N_COMMONS + T[OPTS, O_N_FERTILE]):
        if i < N_COMMONS:
            k = S[GAME, COMMONS + i]
            if k < 0:
                continue
            left = 1
        else:
            k = T[FERTILE_KINDS, i - N_COMMONS]
            left = S[GAME, FERT_LEFT + k]
            if left <= 0:
                continue
        sc = Q[row, k]
        cost = Q[ADV_BUY_COST + p, k]
        if sc < ms or cost >= NEVER_COST:
            continue
        j = m
        while j > 0 and S[GAME, VC_SC + j - 1] < sc:
            S[GAME, VC_SC + j] = S[GAME, VC_SC + j - 1]
            S[GAME, VC_COST + j] = S[GAME, VC_COST + j - 1]
            S[GAME, VC_LEFT + j] = S[GAME, VC_LEFT + j - 1]
            j -= 1
        S[GAME, VC_SC + j] = sc
        S[GAME, VC_COST + j] = cost
        S[GAME, VC_LEFT + j] = left
        m += 1
    S[GAME, VC_N] = m


@kernel
def adv_purchase_value(S, budget, limit):
    """Σ of the scores of the advancements §6.4's buying takes with `budget` mana (the
    token included), at most `limit`: the listed candidates (list_adv_candidates) in
    order, each taken while it is affordable (a Fertile Soil kind while copies last).
    The buyer takes the best affordable one each time; one passed over here was not
    affordable and stays so, as the budget only falls.  Placements and Earthchant
    discounts are not looked at."""
    total = 0
    nb = 0
    for e in range(S[GAME, VC_N]):
        if nb >= limit:
            break
        cost = S[GAME, VC_COST + e]
        left = S[GAME, VC_LEFT + e]
        while left > 0 and nb < limit and cost <= budget:
            total += S[GAME, VC_SC + e]
            budget -= cost
            left -= 1
            nb += 1
    return total


@kernel
def list_vale_candidates(T, S, Q, p, st):
    """The vales §6.3's buying would consider now, in its order (stage-st score
    descending, then slot), those scoring at least vale_min_score, not never-bought
    and not a unique vale p owns: VV_N of them, score VV_SC, vale VV_V, slot VV_SL."""
    row = VALE_SCORE + MAX_PLAYERS * st + p
    m = 0
    for sl in range(N_VALE_SLOTS):
        v = S[GAME, VSLOTS + sl]
        if v < 0:
            continue
        sc = Q[row, v]
        if sc < Q[p, P_VALE_MIN_SCORE] or Q[NEVER_VALE + p, v] != 0:
            continue
        if T[VALE + v, V_UNIQUE] != 0 and owns_vale(S, p, v) > 0:
            continue
        j = m
        while j > 0 and S[GAME, VV_SC + j - 1] < sc:
            S[GAME, VV_SC + j] = S[GAME, VV_SC + j - 1]
            S[GAME, VV_V + j] = S[GAME, VV_V + j - 1]
            S[GAME, VV_SL + j] = S[GAME, VV_SL + j - 1]
            S[GAME, VV_TOT + j] = S[GAME, VV_TOT + j - 1]
            j -= 1
        S[GAME, VV_SC + j] = sc
        S[GAME, VV_V + j] = v
        S[GAME, VV_SL + j] = sl
        S[GAME, VV_TOT + j] = (T[VALE + v, V_COST_A] + T[VALE + v, V_COST_F]
                               + T[VALE + v, V_COST_S] + T[VALE + v, V_COST_W])
        m += 1
    S[GAME, VV_N] = m


@kernel
def vale_purchase_value(T, S, a, f, sk, w):
    """Σ of the scores of the vales §6.3's buying takes with spirits (a, f, sk, w), at
    most MAX_VALE_BUYS: each time the first listed candidate (list_vale_candidates)
    the spirits pay (a unique vale once).  Buy rules and the Sunstone Aerie are not
    looked at."""
    total = 0
    taken = -1
    for nv in range(MAX_VALE_BUYS):
        if a + f + sk + w < T[OPTS, O_MIN_VALE_COST]:
            break
        found = -1
        for e in range(S[GAME, VV_N]):
            if e == taken:
                continue
            v = S[GAME, VV_V + e]
            if S[GAME, VV_TOT + e] > a + f + sk + w:
                continue
            if taken >= 0 and T[VALE + v, V_UNIQUE] != 0 and v == S[GAME, VV_V + taken]:
                continue
            ok, _a, _f, _s, _w = pay(a, f, sk, w, T[VALE + v, V_COST_A], T[VALE + v, V_COST_F],
                                     T[VALE + v, V_COST_S], T[VALE + v, V_COST_W])
            if ok:
                found = e
                break
        if found < 0:
            break
        v = S[GAME, VV_V + found]
        ok, a, f, sk, w = pay(a, f, sk, w, T[VALE + v, V_COST_A], T[VALE + v, V_COST_F],
                              T[VALE + v, V_COST_S], T[VALE + v, V_COST_W])
        total += S[GAME, VV_SC + found]
        taken = found
    return total


@kernel
def planting(T, S, Q, p):
    """Push until the policy passes; True if the player spoiled."""
    # spec §4.2: Planting and reveal
    pushes = 0
    spoiled = False
    while S[p, ON_DECK] >= 0:
        if pushes >= MAX_PHASE_PLAYS:             # rules.md I15: a cycle ends
            break
        if not decide_push(T, S, Q, p):
            break
        pushes += 1
        play_on_deck(S, p, pushes <= Q[p, P_DISCARD_PLAYS])      # I16
        if spoil_check(T, S, p):
            spoiled = True
            break
    S[TR, TR_PUSHES] = pushes
    return spoiled


# ---------------------------------------------------------------------------
# Buying vales (§6.3, §6.5)
# ---------------------------------------------------------------------------
@kernel
def pay(a, f, s, w, ca, cf, cs, cw):
    """§6.3 paying rule: (ok, spirits left).  Specific costs first, deficit by wilds;
    each wild cost from the largest specific pile (ties a, f, s), wild last."""
    a -= ca
    if a < 0:
        w += a
        a = 0
    f -= cf
    if f < 0:
        w += f
        f = 0
    s -= cs
    if s < 0:
        w += s
        s = 0
    if w < 0:
        return False, a, f, s, w
    for _ in range(cw):
        if a >= f and a >= s and a > 0:
            a -= 1
        elif f >= s and f > 0:
            f -= 1
        elif s > 0:
            s -= 1
        elif w > 0:
            w -= 1
        else:
            return False, a, f, s, w
    return True, a, f, s, w


@kernel
def vale_affordable(T, S, v, conv):
    """Can the spirits pay vale v, after turning one spirit `conv` into wild (-1: none)?"""
    a = S[GAME, SPIRITS + 0]
    f = S[GAME, SPIRITS + 1]
    s = S[GAME, SPIRITS + 2]
    w = S[GAME, SPIRITS + 3]
    if conv == 0:
        a -= 1
        w += 1
    elif conv == 1:
        f -= 1
        w += 1
    elif conv == 2:
        s -= 1
        w += 1
    ok, a, f, s, w = pay(a, f, s, w, T[VALE + v, V_COST_A], T[VALE + v, V_COST_F],
                         T[VALE + v, V_COST_S], T[VALE + v, V_COST_W])
    return ok


@kernel
def owns_vale(S, p, v):
    n = 0
    for i in range(S[p, VOWN_N]):
        if S[p, VOWN + i] == v:
            n += 1
    return n


@kernel
def sunstone_cost(T, S, Q, p, mana):
    """Mana the Sunstone Aerie asks if usable now (policy, active, unused, affordable), else -1."""
    if Q[p, P_USE_SUNSTONE] == 0 or S[p, PS_SUN_USED] != 0:
        return -1
    i = find_active_vale(T, S, p, VAB_SUNSTONE)
    if i < 0:
        return -1
    amt = T[VALE + S[p, VOWN + i], V_AMOUNT]
    return amt if mana >= amt else -1


@kernel
def rule_holds(Q, p, r, mana, rnd, pool):
    """The rule's mana / round / pool conditions (owned_at_most is per candidate)."""
    # spec §6.5: buy rules of policy files
    x = Q[Q[p, P_RULES] + r, RC_MANA_AT_LEAST]
    if x != ABSENT and mana < x:
        return False
    x = Q[Q[p, P_RULES] + r, RC_MANA_AT_MOST]
    if x != ABSENT and mana > x:
        return False
    x = Q[Q[p, P_RULES] + r, RC_ROUND_AT_LEAST]
    if x != ABSENT and rnd < x:
        return False
    x = Q[Q[p, P_RULES] + r, RC_ROUND_AT_MOST]
    if x != ABSENT and rnd > x:
        return False
    x = Q[Q[p, P_RULES] + r, RC_POOL_AT_MOST]
    if x != ABSENT and pool > x:
        return False
    return True


@kernel
def vale_rule_match(T, S, Q, p, r, v):
    tt = Q[Q[p, P_RULES] + r, RC_TARGET]
    if tt == T_CARD_VALE:
        if v != Q[Q[p, P_RULES] + r, RC_ID]:
            return False
    elif tt == T_VALE_ABILITY:
        if T[VALE + v, V_ABILITY] != Q[Q[p, P_RULES] + r, RC_ID]:
            return False
    elif tt != T_BEST_VALE:
        return False
    x = Q[Q[p, P_RULES] + r, RC_OWNED_AT_MOST]
    if x != ABSENT and owns_vale(S, p, v) > x:
        return False
    return True


@kernel
def stage_of(T, S, Q, p):
    """§6.7: the stage at which p's policy scores now: 0 for a scripted policy, else
    ``stages * (pool0 - pool) // pool0``, at most stages - 1 (vale_sim.value.stage_of)."""
    # spec §6.7: the stage of a value player
    return stage_at(T, Q, p, S[GAME, G_POOL])


@kernel
def stage_at(T, Q, p, pool):
    """stage_of with the VP pool holding ``pool``."""
    k = Q[p, P_STAGES]
    if k <= 1:
        return 0
    pool0 = T[OPTS, O_POOL]
    st = k * (pool0 - pool) // pool0 if pool0 > 0 else 0
    return st if st < k - 1 else k - 1


@kernel
def best_vale(T, S, Q, p, r, sunstone):
    """(slot, spirit turned wild) of the first candidate in §6.3 order (score descending,
    then slot) that rule r matches (r = -1: the policy has no rules, min score applies)
    and the spirits pay -- with `sunstone`, after turning one spirit (animal, forest,
    sky: the first that works) into wild.  Slot -1: none.

    The first in that order is the highest-scored, lowest slot: one pass, no sort."""
    best = -1
    conv = -1
    bs = 0
    row = VALE_SCORE + MAX_PLAYERS * stage_of(T, S, Q, p) + p
    for sl in range(N_VALE_SLOTS):
        v = S[GAME, VSLOTS + sl]
        if v < 0:
            continue
        sc = Q[row, v]
        if (best >= 0 and sc <= bs) or (r < 0 and sc < Q[p, P_VALE_MIN_SCORE]):
            continue
        if T[VALE + v, V_UNIQUE] != 0 and owns_vale(S, p, v) > 0:
            continue            # not a candidate
        if Q[NEVER_VALE + p, v] != 0:
            continue            # the policy never buys it
        if r >= 0 and not vale_rule_match(T, S, Q, p, r, v):
            continue
        if (r >= 0 and Q[p, P_BEST_MIN] != 0 and sc < Q[p, P_VALE_MIN_SCORE]
                and Q[Q[p, P_RULES] + r, RC_TARGET] == T_BEST_VALE):
            continue
        x = -1
        if sunstone:
            for y in range(3):
                if S[GAME, SPIRITS + y] > 0 and vale_affordable(T, S, v, y):
                    x = y
                    break
            if x < 0:
                continue
        elif not vale_affordable(T, S, v, -1):
            continue
        best = sl
        conv = x
        bs = sc
    return best, conv


@kernel
def choose_vale(T, S, Q, p, mana, rnd):
    """(slot, spirit to turn wild or -1, sunstone mana) of the next vale to buy; slot -1: none.

    Rules in order (the implicit rule of a policy without rules: every candidate
    scoring at least vale_min_score); for each rule, paying directly first, then (§8)
    with the Sunstone Aerie if it can be used, before the next rule."""
    # spec §6.3: buying vales
    n_rules = Q[p, P_N_RULES]
    pool = S[GAME, G_POOL]
    cost = sunstone_cost(T, S, Q, p, mana)
    for r in range(n_rules if n_rules > 0 else 1):
        if n_rules > 0 and not rule_holds(Q, p, r, mana, rnd, pool):
            continue
        sl, x = best_vale(T, S, Q, p, r if n_rules > 0 else -1, False)
        if sl >= 0:
            return sl, -1, 0
        if cost >= 0:
            sl, x = best_vale(T, S, Q, p, r if n_rules > 0 else -1, True)
            if sl >= 0:
                return sl, x, cost
    return -1, -1, 0


@kernel
def take_vale(T, S, p, sl, conv, cost, mana, nv):
    """Buy the vale in slot sl as the nv-th vale of this Harvest (conv: the spirit turned
    wild by the Sunstone Aerie for `cost` mana, or -1); returns the mana left."""
    v = S[GAME, VSLOTS + sl]
    if conv >= 0:
        S[GAME, SPIRITS + conv] -= 1
        S[GAME, SPIRITS + 3] += 1
        mana -= cost
        S[p, PS_SUN_USED] = 1
        S[TR, TR_SUNSTONE] = 1
    ok, a, f, s, w = pay(S[GAME, SPIRITS + 0], S[GAME, SPIRITS + 1], S[GAME, SPIRITS + 2], S[GAME, SPIRITS + 3],
                         T[VALE + v, V_COST_A], T[VALE + v, V_COST_F],
                         T[VALE + v, V_COST_S], T[VALE + v, V_COST_W])
    S[GAME, SPIRITS + 0] = a
    S[GAME, SPIRITS + 1] = f
    S[GAME, SPIRITS + 2] = s
    S[GAME, SPIRITS + 3] = w
    k = S[p, VOWN_N]
    S[p, VOWN + k] = v
    S[p, VTURN + k] = S[p, PS_TURN]
    S[p, VOWN_N] = k + 1
    S[p, PS_VALES_NEW] = 1
    S[p, VACQ + v] += 1
    S[GAME, VSLOTS + sl] = -1
    S[GAME, BOUGHT_VSLOT + sl] = 1
    S[TR, TR_N_VALES + 0] = S[TR, TR_N_VALES] + 1
    S[TR, T[OPTS, O_TRACE_W] - MAX_VALE_BUYS + nv] = v
    return mana


@kernel
def buy_vales(T, S, Q, p, mana, rnd):
    """§6.3: buy up to 2 vales; returns the mana left (Sunstone may cost mana)."""
    return buy_vales_from(T, S, Q, p, mana, rnd, 0)


@kernel
def buy_vales_from(T, S, Q, p, mana, rnd, nv):
    """buy_vales after nv vales of this Harvest were bought (a search resumes here)."""
    while nv < MAX_VALE_BUYS:
        if (S[GAME, SPIRITS + 0] + S[GAME, SPIRITS + 1] + S[GAME, SPIRITS + 2]
                + S[GAME, SPIRITS + 3] < T[OPTS, O_MIN_VALE_COST]):
            break                       # no vale is affordable
        sl, conv, cost = choose_vale(T, S, Q, p, mana, rnd)
        if sl < 0:
            break
        mana = take_vale(T, S, p, sl, conv, cost, mana, nv)
        nv += 1
    return mana


# ---------------------------------------------------------------------------
# Buying advancements (§6.4, §6.5)
# ---------------------------------------------------------------------------
NO_PLACE = -(1 << 60)                   # below every placement key


@kernel
def placement(T, S, Q, p, k):
    """(card, effective cost, Earthchant used) of kind k's placement (§6.4); card -1: none
    (placement_inline as a call)."""
    return placement_inline(T, S, Q, p, k)


@kernel(inline=True)
def placement_inline(T, S, Q, p, k):
    """(card, effective cost, Earthchant used) of kind k's placement (§6.4); card -1: none.
    Inlined into the walk of policies without rules or exploration (buy_advancements'
    usual path), called as ``placement`` elsewhere.

    One pass over the field: among the cards with k's position free, the leftmost
    card with an unused Earthchant discount wins; else the best placement score (ties
    leftmost)."""
    pos = T[k, A_POS]
    cost = T[k, A_COST]
    avoid = Q[p, P_AVOID_DECAY_STACK] != 0 and T[k, A_DECAY] > 0
    perg = T[k, A_PERG] != 0
    guard = T[k, A_GUARDIAN] > 0
    lim = T[k, A_GROWTH] > 0 or T[k, A_LIMIT] != 0
    # The best score, ties leftmost, as a maximum of keys score * 32 + (31 - field
    # index) (unique; a taken slot keys NO_PLACE); the leftmost card with an unused
    # Earthchant discount as a maximum of 31 - field index -- no branch per card
    bk = NO_PLACE
    ck = -1
    av = 1000 if avoid else 0
    wg = 10 if perg else 0
    wn = 10 if guard else 0
    wd = 10 if lim else 0
    for i in range(S[p, FIELD_N]):
        c = S[p, FIELD + i]
        # indexes as uint64: numba adds no negative-index wrap-around to those (c is a
        # card 0..19, read from S: LLVM cannot know it is not negative)
        cc = CC + CC_N * c
        # CC_SLOT_MASK: the occupied slots (the card's cache lines, read below anyway)
        free = (((S[p, np.uint64(cc + CC_SLOT_MASK)] >> pos) & 1) == 0) & (
            S[p, np.uint64(RESERVED + 3 * c + pos)] == 0)
        ch = free & (S[p, np.uint64(cc + CC_CHORUS)] != 0) & (
            S[p, np.uint64(CHORUS_USED + c)] == 0)
        ck = max(ck, 31 - i if ch else -1)
        d = S[p, np.uint64(cc + CC_DECAY)]
        sc = (S[p, np.uint64(cc + CC_OCC)] - (av if d > 0 else 0)
              + wg * guardians(S, p, c) + wn * S[p, np.uint64(cc + CC_NPERG)] + wd * d)
        bk = max(bk, sc * 32 + (31 - i) if free else NO_PLACE)
    if ck >= 0:                           # the discount wins
        c = S[p, np.uint64(FIELD + 31 - ck)]
        eff = cost - S[p, np.uint64(CC + CC_N * c + CC_CHORUS_AMT)]
        return c, (eff if eff > 0 else 0), 1
    if bk == NO_PLACE:
        return -1, cost, 0
    return S[p, np.uint64(FIELD + 31 - (bk & 31))], cost, 0


@kernel
def adv_rule_match(T, S, Q, p, r, k):
    tt = Q[Q[p, P_RULES] + r, RC_TARGET]
    if tt == T_CARD_ADV:
        if k != Q[Q[p, P_RULES] + r, RC_ID]:
            return False
    elif tt == T_LEVEL:
        if T[k, A_SUPPLY] != SUP_COMMONS or T[k, A_LEVEL] != Q[Q[p, P_RULES] + r, RC_ID]:
            return False
    elif tt != T_BEST_ADV:
        return False
    x = Q[Q[p, P_RULES] + r, RC_OWNED_AT_MOST]
    if x != ABSENT and S[p, ACQ + k] > x:          # copies bought (spec §8)
        return False
    return True


@kernel(inline=True)
def advancement_candidates(T, S, Q, p, budget, discount, floor):
    """§6.4 candidates of one Harvest's purchases: commons slots 0-8, then Fertile Soil kinds with
    copies left -- leaving out kinds dearer than `budget` + `discount` (the largest
    Earthchant discount on offer), which no placement makes buyable, and kinds whose
    key is below `floor` (its MIN_KEY for a policy that only walks by score, else 0).

    Fills, in this candidate order, CAND_KIND, CAND_SRC (commons slot, or N_COMMONS +
    kind), CAND_SCORE (the candidate's key: ADV_KEY of its kind + KEY_MUL - 1 - its
    index, unique, so "higher key" = higher score, ties in candidate order) and
    CAND_BCOST (the kind's cost, or NEVER_COST); returns the number of candidates.
    Branch-free: every source is written at position nc, which advances only if it
    is a candidate.  No sort: pick_advancement walks them in key order by repeated
    maxima."""
    # spec §6.4: buying advancements and where they go
    nc = 0
    lim = budget + discount
    row = ADV_KEY + MAX_PLAYERS * stage_of(T, S, Q, p) + p
    for src in range(N_COMMONS):
        k = S[GAME, COMMONS + src]
        ku = np.uint64(k if k >= 0 else 0)
        bc = Q[ADV_BUY_COST + p, ku]
        key = Q[row, ku] + (KEY_MUL - 1 - nc)
        S[GAME, CAND_KIND + nc] = k
        S[GAME, CAND_SRC + nc] = src
        S[GAME, CAND_SCORE + nc] = key
        S[GAME, CAND_BCOST + nc] = bc
        nc += (k >= 0) & (bc <= lim) & (key >= floor)     # dear, never bought or too low
    for j in range(T[OPTS, O_N_FERTILE]):
        k = T[FERTILE_KINDS, j]
        ku = np.uint64(k)
        bc = Q[ADV_BUY_COST + p, ku]
        key = Q[row, ku] + (KEY_MUL - 1 - nc)
        S[GAME, CAND_KIND + nc] = k
        S[GAME, CAND_SRC + nc] = N_COMMONS + k
        S[GAME, CAND_SCORE + nc] = key
        S[GAME, CAND_BCOST + nc] = bc
        nc += (S[GAME, FERT_LEFT + ku] > 0) & (bc <= lim) & (key >= floor)
    return nc


@kernel
def place_candidate(T, S, Q, p, i, budget):
    """Look at candidate i's placement: 1 if it makes the candidate buyable, else 0."""
    card, cost, ch = placement(T, S, Q, p, S[GAME, CAND_KIND + i])
    S[GAME, CAND_CARD + i] = card
    S[GAME, CAND_COST + i] = cost
    S[GAME, CAND_CHORUS + i] = ch
    return 1 if card >= 0 and cost <= budget else 0


@kernel
def buyable(T, S, Q, p, i, budget, discount):
    """Candidate i has a placement whose effective cost is within budget.  Its
    placement is looked at once per purchase step, lazily (most candidates never are),
    and only if `discount` (the largest Earthchant discount) could make it affordable."""
    ok = S[GAME, CAND_OK + i]
    if ok < 0:
        ok = 0
        if Q[ADV_BUY_COST + p, S[GAME, CAND_KIND + i]] - discount <= budget:
            ok = place_candidate(T, S, Q, p, i, budget)
        S[GAME, CAND_OK + i] = ok
    return ok != 0


NO_KEY = 1 << 62                        # above every key: nothing rejected yet


@kernel(inline=True)
def next_in_score_order(S, nc, lim, min_key, last_key):
    """The key of the candidate after the one keyed last_key in score order (key
    descending: score descending, ties in candidate order) among those keyed at least
    min_key whose cost (CAND_BCOST) is at most lim; -1 if none.  One pass: the maximum
    of the keys below the last one looked at -- the first of the walk usually is the
    one bought, so this costs less than sorting the candidates.  A maximum of
    conditional values, no branch (the keys are unique)."""
    bk = -1
    for i in range(nc):
        key = S[GAME, CAND_SCORE + i]
        ok = (key < last_key) & (key >= min_key) & (S[GAME, CAND_BCOST + i] <= lim)
        bk = max(bk, key if ok else -1)
    return bk


@kernel(inline=True)
def pick_advancement(T, S, Q, p, nc, budget, discount, mana, rnd):
    """§6.4-6.5: the candidate to buy, or -1.  Exploration first (its draw happens at
    every purchase step), then the buy rules or the best score: walking the
    candidates by score, the first buyable one is the best buyable one.

    Placements are pure functions of the state, so looking at one twice gives the same
    answer; CAND_OK keeps them within a step only where exploration or several rules
    may ask again (buy_advancements resets it for those policies only)."""
    ex = Q[p, P_EXPLORE]
    if ex > 0:
        r = game_randbelow(S, 1000)
        if r < ex:
            nbuy = 0
            for i in range(nc):
                if buyable(T, S, Q, p, i, budget, discount):
                    nbuy += 1
            if nbuy > 0:
                j = game_randbelow(S, nbuy)
                for i in range(nc):
                    if S[GAME, CAND_OK + i] != 0:
                        if j == 0:
                            return i
                        j -= 1
    lim = budget + discount
    n_rules = Q[p, P_N_RULES]
    if n_rules > 0:
        pool = S[GAME, G_POOL]
        # best_min_score: a `best` rule takes only candidates scoring >= min_score (§6.5)
        mkb = Q[MIN_KEY + p, stage_of(T, S, Q, p)] if Q[p, P_BEST_MIN] != 0 else -1
        for r in range(n_rules):
            if not rule_holds(Q, p, r, mana, rnd, pool):
                continue
            fl = mkb if Q[Q[p, P_RULES] + r, RC_TARGET] == T_BEST_ADV else -1
            ls = NO_KEY
            while True:                 # the candidates in score order, first match
                best = -1
                bs = 0
                for i in range(nc):
                    sc = S[GAME, CAND_SCORE + i]
                    if ((best < 0 or sc > bs) and sc < ls and sc >= fl
                            and S[GAME, CAND_BCOST + i] <= lim
                            and adv_rule_match(T, S, Q, p, r, S[GAME, CAND_KIND + i])):
                        best = i
                        bs = sc
                if best < 0:
                    break
                if buyable(T, S, Q, p, best, budget, discount):
                    return best
                ls = bs
        return -1
    # no rules: the candidates scoring at least min_score (all of them, unless the
    # policy explores: then the list was not filtered by MIN_KEY).  A key's low
    # bits give the candidate's index in the list as built: without exploration, a
    # candidate bought out is not dropped from the list but its key set to -1
    # (buy_advancements), so that stays its index; with it, look the key up
    mk = Q[MIN_KEY + p, stage_of(T, S, Q, p)]
    ls = NO_KEY
    while True:
        key = next_in_score_order(S, nc, lim, mk, ls)
        if key < 0:
            return -1                   # the rest score lower or cost more
        i = KEY_MUL - 1 - (key & (KEY_MUL - 1))
        if ex > 0:
            i = 0
            while S[GAME, CAND_SCORE + i] != key:
                i += 1
        card, cost, ch = placement_inline(T, S, Q, p, S[GAME, CAND_KIND + i])
        S[GAME, CAND_CARD + i] = card
        S[GAME, CAND_COST + i] = cost
        S[GAME, CAND_CHORUS + i] = ch
        if card >= 0 and cost <= budget:
            return i
        ls = key


@kernel(inline=True)
def drop_candidate(S, i, nc):
    """Remove candidate i (bought, none left) from the lists; returns the new count."""
    for j in range(i, nc - 1):
        S[GAME, CAND_KIND + j] = S[GAME, CAND_KIND + j + 1]
        S[GAME, CAND_SRC + j] = S[GAME, CAND_SRC + j + 1]
        S[GAME, CAND_SCORE + j] = S[GAME, CAND_SCORE + j + 1]
        S[GAME, CAND_BCOST + j] = S[GAME, CAND_BCOST + j + 1]
    return nc - 1


@kernel
def token_bonus(S, Q, p):
    """1 if the policy may spend its active mana token now, else 0."""
    return 1 if (S[p, PS_TOKEN] != 0 and Q[p, P_TOKEN_NEEDED] != 0) else 0


@kernel
def buy_advancements(T, S, Q, p, mana, rnd, limit):
    """§6.4: buy up to `limit` advancements, reserving their placements."""
    return buy_advancements_from(T, S, Q, p, mana, rnd, limit, 0)


@kernel
def buy_advancements_from(T, S, Q, p, mana, rnd, limit, nb):
    """buy_advancements after nb advancements of this Harvest were bought (a search
    resumes here).

    The candidates are listed once per Harvest: a purchase only takes one away, lowers
    the mana and uses up discounts, so every later step's candidates are among them.
    Placements change with each reservation: they are looked at again each step."""
    mb = T[OPTS, O_MAX_BUYS]
    # The largest Earthchant discount on offer: a kind dearer than mana + token +
    # that can never be bought this Harvest.
    discount = 0
    for i in range(S[p, FIELD_N] if S[p, PS_N_CHORUS] > 0 else 0):    # none owned: no scan
        c = S[p, FIELD + i]
        if (S[p, CC + CC_N * c + CC_CHORUS] != 0 and S[p, CHORUS_USED + c] == 0
                and S[p, CC + CC_N * c + CC_CHORUS_AMT] > discount):
            discount = S[p, CC + CC_N * c + CC_CHORUS_AMT]
    cached = Q[p, P_EXPLORE] > 0 or Q[p, P_N_RULES] > 0
    nc = advancement_candidates(T, S, Q, p, mana + token_bonus(S, Q, p), discount,
                                0 if cached else Q[MIN_KEY + p, stage_of(T, S, Q, p)])
    while nb < limit:
        if cached:
            for i in range(nc):
                S[GAME, CAND_OK + i] = -1   # the field changed: placements not known
        pick = pick_advancement(T, S, Q, p, nc, mana + token_bonus(S, Q, p), discount,
                                mana, rnd)
        if pick < 0:
            break
        k = S[GAME, CAND_KIND + pick]
        src = S[GAME, CAND_SRC + pick]
        mana = take_advancement(T, S, p, k, src, S[GAME, CAND_CARD + pick],
                                S[GAME, CAND_COST + pick], S[GAME, CAND_CHORUS + pick],
                                mana, nb, rnd)
        if src < N_COMMONS or S[GAME, FERT_LEFT + k] == 0:
            if cached:
                nc = drop_candidate(S, pick, nc)
            else:                        # out of the walk, the others keep their index
                S[GAME, CAND_SCORE + pick] = -1
        nb += 1
    return mana


@kernel(inline=True)
def take_advancement(T, S, p, k, src, card, cost, chorus, mana, nb, rnd):
    """Buy kind k from source src (commons slot, or N_COMMONS + k: Fertile Soil) as the
    nb-th advancement of this Harvest, sleeved on `card` for `cost` mana (the token
    pays the last one if needed), Earthchant used if `chorus`; returns the mana left."""
    mb = T[OPTS, O_MAX_BUYS]
    pos = T[k, A_POS]
    if cost > mana:
        S[p, PS_TOKEN] = 0
        S[TR, TR_TOKEN_SPENT] = 1
        mana += 1
    mana -= cost
    S[p, RESERVED + 3 * card + pos] = 1
    if chorus != 0:
        S[p, CHORUS_USED + card] = 1
        S[p, PS_CHORUS_SET] = 1
    if src < N_COMMONS:
        S[GAME, COMMONS + src] = -1
        S[GAME, BOUGHT_COMMON + src] = 1
    else:
        S[GAME, FERT_LEFT + k] -= 1
    S[TR, TR_FIXED_N + nb] = k
    S[TR, TR_FIXED_N + mb + nb] = card
    S[TR, TR_FIXED_N + 2 * mb + nb] = pos
    S[p, ACQ + k] += 1
    if S[p, FIRST_ROUND + k] == 0:
        S[p, FIRST_ROUND + k] = rnd
    S[TR, TR_N_BOUGHT] = nb + 1
    return mana


# ---------------------------------------------------------------------------
# Harvest (§4.3)
# ---------------------------------------------------------------------------
@kernel
def harvest_totals(T, S, p):
    """What a Harvest of player p's field counts now (§4.3 steps 2-4, after the
    Conclave): ``(mana, animal, forest, sky, wild, vp, extra buys)``.  Symbols
    of the field cards, their per-guardian / per-card Harvest abilities, active
    vales' Harvest mana and spirits and extra buys; Grassland's penalties last,
    mana not below 0.  No side effects (the spoil simulation calls it too)."""
    fn = S[p, FIELD_N]
    mana = 0
    penalty_seen = False
    a = 0
    f = 0
    sk = 0
    w = 0
    vp = 0
    for i in range(fn):
        c = S[p, FIELD + i]
        cc = CC + CC_N * c
        mana += S[p, np.uint64(cc + CC_MANA)]
        a += S[p, np.uint64(cc + CC_ANIMAL)]
        f += S[p, np.uint64(cc + CC_FOREST)]
        sk += S[p, np.uint64(cc + CC_SKY)]
        w += S[p, np.uint64(cc + CC_WILD)]
        vp += S[p, np.uint64(cc + CC_HVP)]
        if S[p, np.uint64(cc + CC_HARVEST_AB)] == 0:
            continue
        for s in range(3):
            ab = S[p, ACT + 3 * c + s]
            amt = S[p, ACT_AMT + 3 * c + s]
            if ab == AB_HMANA_PER_GUARDIAN:
                mana += amt * guardians(S, p, c)
            elif ab == AB_HMANA_PER_OTHER:
                mana += amt * (fn - 1)
            elif ab == AB_HVP_PER_GUARDIAN:
                vp += amt * guardians(S, p, c)
            elif ab == AB_HVP_PER_CARDS:
                if amt > 0:
                    vp += fn // amt
            elif ab == AB_HMANA_PENALTY:
                penalty_seen = True
    extra = 0
    for i in range(S[p, VOWN_N]):
        if not vale_active(S, p, i):
            continue
        v = S[p, VOWN + i]
        vab = T[VALE + v, V_ABILITY]
        extra += T[VALE + v, V_EXTRA_BUYS]
        if vab == VAB_HMANA:
            mana += T[VALE + v, V_AMOUNT]
        elif vab == VAB_HSPIRIT:
            sy = T[VALE + v, V_SYMBOL]
            amt = T[VALE + v, V_AMOUNT]
            if sy == 0:
                a += amt
            elif sy == 1:
                f += amt
            elif sy == 2:
                sk += amt
            elif sy == 3:
                w += amt
    if penalty_seen:
        for i in range(fn):
            c = S[p, FIELD + i]
            for s in range(3):
                if S[p, ACT + 3 * c + s] == AB_HMANA_PENALTY:
                    mana -= S[p, ACT_AMT + 3 * c + s]
                    if mana < 0:
                        mana = 0
    return mana, a, f, sk, w, vp, extra


@kernel
def harvest(T, S, Q, p, rnd):
    # spec §4.3: Harvest, in its fixed order
    mana, extra = harvest_gain(T, S, Q, p, rnd)
    mana = buy_vales(T, S, Q, p, mana, rnd)
    buy_advancements(T, S, Q, p, mana, rnd, 2 + extra)


@kernel
def harvest_gain(T, S, Q, p, rnd):
    """§4.3 steps 1-4 (Conclave, mana, spirits into SPIRITS, VP): (mana, extra buys)."""
    fn = S[p, FIELD_N]
    # 1. Conclave of Ents on the best per-guardian Harvest card (PS_VAB_MASK: a superset
    # of the active vales' abilities, kept by take_turn)
    ci = -1
    if S[p, PS_CONC_USED] == 0 and (S[p, PS_VAB_MASK] >> VAB_CONCLAVE) & 1 != 0:
        ci = find_active_vale(T, S, p, VAB_CONCLAVE)
    if ci >= 0:
        best = -1
        bs = 0
        for i in range(fn):
            c = S[p, FIELD + i]
            sm = S[p, CC + CC_N * c + CC_HPERG]
            if sm > bs:
                bs = sm
                best = c
        if best >= 0:
            add_temp_guardians(S, p, best, T[VALE + S[p, VOWN + ci], V_AMOUNT])
            S[p, PS_CONC_USED] = 1
            S[TR, TR_CONCLAVE] = 1
    # 2-4. mana, spirits, VP
    if S[GAME, G_NO_DETAILS] == 0:           # only mark_harvested reads HARV_SLOTS
        for i in range(fn):
            c = S[p, FIELD + i]
            S[p, HARV_SLOTS + c] |= S[p, CC + CC_N * c + CC_SLOT_MASK]
    mana, a, f, sk, w, vp, extra = harvest_totals(T, S, p)
    pool = S[GAME, G_POOL]
    from_pool = vp if vp <= pool else pool
    S[GAME, G_POOL] = pool - from_pool
    S[p, PS_VP] += vp
    S[p, PS_BOX] += vp - from_pool
    S[p, PS_HARVESTS] += 1
    S[TR, TR_MANA] = mana
    S[TR, TR_ANIMAL] = a
    S[TR, TR_FOREST] = f
    S[TR, TR_SKY] = sk
    S[TR, TR_WILD] = w
    S[TR, TR_VP] = vp
    S[TR, TR_VP_BOX] = vp - from_pool
    # 5-6. buy
    S[GAME, SPIRITS + 0] = a
    S[GAME, SPIRITS + 1] = f
    S[GAME, SPIRITS + 2] = sk
    S[GAME, SPIRITS + 3] = w
    return mana, extra


# ---------------------------------------------------------------------------
# Discard, replenish, prep (§4.5, §5, §4.6)
# ---------------------------------------------------------------------------
@kernel
def draw_adv(S, level):
    """Top card of the level deck (0-based level) or -1."""
    h = S[GAME, AHEAD + level]
    if h >= S[GAME, AN + level]:
        return -1
    S[GAME, AHEAD + level] = h + 1
    return S[ADECK + level, h]


@kernel
def replenish_common(S, sl):
    # spec §5: replenishing commons and vale slots
    for lv in range(sl // 3, 3):
        k = draw_adv(S, lv)
        if k >= 0:
            S[GAME, COMMONS + sl] = k
            return
    S[GAME, COMMONS + sl] = -1


@kernel
def replenish_vale(S, sl):
    for lv in range(sl // 4, 2):
        h = S[GAME, VHEAD + lv]
        if h < S[GAME, VN + lv]:
            S[GAME, VHEAD + lv] = h + 1
            S[GAME, VSLOTS + sl] = S[VDECK + lv, h]
            return
    S[GAME, VSLOTS + sl] = -1


@kernel(inline=True)
def add_scoring(T, S, p, k):
    """What score_game counts of advancement k, added as it is sleeved."""
    S[p, PS_EVP] += T[k, A_EVP]
    if T[k, A_LEVEL] == 3 and T[k, A_SUPPLY] == SUP_COMMONS:
        S[p, PS_TIE_ADV] += 1


@kernel
def discard_phase(T, S, p):
    # spec §4.5: Discard: sleeving, the field to the discard pile
    mb = T[OPTS, O_MAX_BUYS]
    for i in range(S[TR, TR_N_BOUGHT]):
        k = S[TR, TR_FIXED_N + i]
        c = S[TR, TR_FIXED_N + mb + i]
        pos = S[TR, TR_FIXED_N + 2 * mb + i]
        S[p, SLOTS + 3 * c + pos] = k
        S[p, RESERVED + 3 * c + pos] = 0
        add_scoring(T, S, p, k)
        if T[k, A_LONGWISE] != 0:
            S[p, LWTOP + c] = pos
        refresh_card(T, S, p, c)
    fn = S[p, FIELD_N]
    dn = S[p, DISC_N]
    for i in range(fn):                  # to_discard of each, the count kept in a register
        S[p, DISC + dn + i] = S[p, FIELD + i]
    S[p, DISC_N] = dn + fn
    S[p, FIELD_N] = 0
    showing_on_deck_only(S, p)
    if S[TR, TR_N_BOUGHT] > 0:           # else no commons slot was bought from
        for sl in range(N_COMMONS):
            if S[GAME, BOUGHT_COMMON + sl] != 0:
                S[GAME, BOUGHT_COMMON + sl] = 0
                replenish_common(S, sl)
    if S[TR, TR_N_VALES] > 0:            # else no vale slot was bought from
        for sl in range(N_VALE_SLOTS):
            if S[GAME, BOUGHT_VSLOT + sl] != 0:
                S[GAME, BOUGHT_VSLOT + sl] = 0
                replenish_vale(S, sl)


@kernel
def prep(T, S, p, discard_plays):
    """§4.6: reset once-per-window uses, fill the field until 3 decay show;
    discard_plays: the policy's discard_field_plays (rules.md I16)."""
    # spec §4.6: Prep
    if S[p, PS_CONC_USED] != 0:
        # temp guardians come only with a Conclave use (which sets PS_CONC_USED):
        # none to clear otherwise, and PS_SHOWING is already net(on-deck card)
        clear_temp_guardians(S, p)
    S[p, PS_DRUID_USED] = 0
    S[p, PS_CONC_USED] = 0
    S[p, PS_SUN_USED] = 0
    S[p, PS_ARBOR_GROWTH] = 0
    if S[p, PS_CHORUS_SET] != 0:         # else no CHORUS_USED cell is set
        S[p, PS_CHORUS_SET] = 0
        for c in range(N_CARDS):
            S[p, CHORUS_USED + c] = 0
    gross = T[OPTS, O_PREP_GROSS] != 0
    if S[p, ON_DECK] < 0:
        reveal(S, p)
    plays = 0
    while S[p, ON_DECK] >= 0 and plays < MAX_PHASE_PLAYS:     # rules.md I15: a cycle ends
        plays += 1
        play_on_deck(S, p, plays <= discard_plays)
        if spoil_check(T, S, p):
            S[p, PS_SKIP] = 1
            S[p, PS_TOKEN] = 1
            S[p, PS_SPOILS] += 1
            S[TR, TR_SPOILED_PREP] = 1
            break
        if gross:
            if gross_showing(S, p) >= 3:
                break
        elif decay_showing(T, S, p) >= 3:
            break


# ---------------------------------------------------------------------------
# Turn, game (§3, §4, §4.7)
# ---------------------------------------------------------------------------
@kernel
def take_turn(T, S, Q, p, rnd):
    # spec §4.1: turn start (a turn skipped after a spoil in Prep)
    if S[GAME, G_TRACING] != 0:
        for x in range(TR_FIXED_N):
            S[TR, x] = 0             # the purchase columns count from TR_N_BOUGHT, TR_N_VALES
    else:                            # no trace row: only these two are read back
        S[TR, TR_N_BOUGHT] = 0
        S[TR, TR_N_VALES] = 0
    S[p, PS_TURN] += 1
    if S[p, PS_VALES_NEW] != 0:      # else the active vales are last turn's
        S[p, PS_VALES_NEW] = 0
        vale_summary(T, S, p)
    S[TR, TR_GAME] = S[GAME, G_GAME]
    S[TR, TR_ROUND] = rnd
    S[TR, TR_PLAYER] = p
    S[TR, TR_TURN] = S[p, PS_TURN]
    if S[p, PS_SKIP] != 0:
        S[p, PS_SKIP] = 0
        S[TR, TR_SKIPPED] = 1
    elif planting(T, S, Q, p):
        S[TR, TR_SPOILED] = 1
        S[p, PS_TOKEN] = 1
        S[p, PS_SPOILS] += 1
    else:
        harvest(T, S, Q, p, rnd)
    discard_phase(T, S, p)
    prep(T, S, p, Q[p, P_DISCARD_PLAYS])
    S[TR, TR_POOL_AFTER] = S[GAME, G_POOL]
    S[TR, TR_FIELD] = S[p, FIELD_N]
    S[TR, TR_DECK] = S[p, DN] - S[p, DHEAD]
    S[TR, TR_DISCARD] = S[p, DISC_N]
    S[TR, TR_DECAY] = decay_showing(T, S, p)


@kernel
def reset_state(T, S):
    P = T[OPTS, O_PLAYERS]
    na = T[OPTS, O_N_ADV]
    nv = T[OPTS, O_N_VALE]
    for x in range(G_RNG):
        S[GAME, x] = 0
    for k in range(na):
        S[GAME, FERT_LEFT + k] = T[FERTILE, k]
    for sl in range(N_COMMONS):
        S[GAME, BOUGHT_COMMON + sl] = 0
    for sl in range(N_VALE_SLOTS):
        S[GAME, BOUGHT_VSLOT + sl] = 0
    for p in range(P):
        for x in range(PS_N):
            S[p, x] = 0
        S[p, ON_DECK] = -1
        for c in range(N_CARDS):
            S[p, LWTOP + c] = -1
            S[p, HARV_SLOTS + c] = 0
            S[p, TEMP + c] = 0
            S[p, CHORUS_USED + c] = 0
            for s in range(3):
                S[p, RESERVED + 3 * c + s] = 0
        for k in range(na):
            S[p, ACQ + k] = 0
            S[p, FIRST_ROUND + k] = 0
            S[p, HARVESTED + k] = 0
        for v in range(nv):
            S[p, VACQ + v] = 0


@kernel
def setup(T, S, Q, seed, game_index):
    """§2 draw order 1-8 and §3 setup (Q: the policies, for the starting field's Prep)."""
    # spec §3: setup: commons, vales, Fertile Soil, the starting fields
    # spec §2: the random stream and the order of draws
    P = T[OPTS, O_PLAYERS]
    reset_state(T, S)
    game_rng_init(S, seed, game_index)
    for lv in range(3):
        n = T[OPTS, O_LVL_LEN + lv]
        for i in range(n):
            S[ADECK + lv, i] = T[LVL_CARDS + lv, i]
        game_shuffle(S, S[ADECK + lv], n)
        S[GAME, AHEAD + lv] = 0
        S[GAME, AN + lv] = T[OPTS, O_L1SIZE] if lv == 0 else n
    for lv in range(2):
        n = T[OPTS, O_VALE_LEN + lv]
        for i in range(n):
            S[VDECK + lv, i] = T[VALE_CARDS + lv, i]
        game_shuffle(S, S[VDECK + lv], n)
        S[GAME, VHEAD + lv] = 0
        S[GAME, VN + lv] = n
    for p in range(P):
        for c in range(N_CARDS):
            S[p, DECK + c] = c
        game_shuffle(S, S[p, DECK:DECK + N_CARDS], N_CARDS)
        S[p, DHEAD] = 0
        S[p, DN] = N_CARDS
    S[GAME, G_START] = game_randbelow(S, P)
    for sl in range(N_COMMONS):
        replenish_common(S, sl)
    for sl in range(N_VALE_SLOTS):
        replenish_vale(S, sl)
    S[GAME, G_POOL] = T[OPTS, O_POOL]
    if S[STARTING, STARTING_READY] == 0:
        for c in range(N_CARDS):
            S[STARTING, LWTOP + c] = -1
            S[STARTING, TEMP + c] = 0
            for s in range(3):
                S[STARTING, SLOTS + 3 * c + s] = T[START + c, s]
                if T[START + c, s] >= 0:
                    add_scoring(T, S, STARTING, T[START + c, s])
            refresh_card(T, S, STARTING, c)
        S[STARTING, STARTING_READY] = 1
    for p in range(P):
        for x in range(SLOTS, CC + CC_N * N_CARDS):     # slots, long-wise tops, caches
            S[p, x] = S[STARTING, x]
        S[p, PS_N_CHORUS] = S[STARTING, PS_N_CHORUS]
        S[p, PS_EVP] = S[STARTING, PS_EVP]
        S[p, PS_TIE_ADV] = S[STARTING, PS_TIE_ADV]
        S[p, PS_GAIA] = S[STARTING, PS_GAIA]
    for p in range(P):
        reveal(S, p)
        prep(T, S, p, Q[p, P_DISCARD_PLAYS])


@kernel
def score_game(T, S, res, share):
    """§4.7 scoring into res[P, R_N] and share[P]."""
    P = T[OPTS, O_PLAYERS]
    for p in range(P):
        # end-game VP and level 3 commons of the sleeves, added up as they were sleeved
        adv_vp = S[p, PS_EVP]
        tie = S[p, PS_TIE_ADV]
        if S[p, PS_GAIA] != 0:          # an end-game-per-symbol ability: per card
            for c in range(N_CARDS):
                symbols = 0
                gaia = 0
                for s in range(3):
                    k = S[p, SLOTS + 3 * c + s]
                    if k < 0:
                        continue
                    symbols += T[k, A_SYMBOLS]
                    if S[p, ACT + 3 * c + s] == AB_ENDGAME_PER_SYMBOL:
                        gaia += S[p, ACT_AMT + 3 * c + s]
                adv_vp += gaia * symbols
        vale_vp = 0
        for i in range(S[p, VOWN_N]):
            v = S[p, VOWN + i]
            vale_vp += T[VALE + v, V_END_VP]
            if T[VALE + v, V_LEVEL] == 2:
                tie += 1
        res[p, R_TOKENS] = S[p, PS_VP]
        res[p, R_ADV] = adv_vp
        res[p, R_VALE] = vale_vp
        res[p, R_SCORE] = S[p, PS_VP] + adv_vp + vale_vp
        res[p, R_TIE] = tie
        res[p, R_SEAT] = (p - S[GAME, G_START] + P) % P
        res[p, R_SPOILS] = S[p, PS_SPOILS]
        res[p, R_HARVESTS] = S[p, PS_HARVESTS]
        res[p, R_BOX] = S[p, PS_BOX]
    best_s = res[0, R_SCORE]
    best_t = res[0, R_TIE]
    for p in range(1, P):
        sc = res[p, R_SCORE]
        if sc > best_s or (sc == best_s and res[p, R_TIE] > best_t):
            best_s = sc
            best_t = res[p, R_TIE]
    k = 0
    for p in range(P):
        if res[p, R_SCORE] == best_s and res[p, R_TIE] == best_t:
            k += 1
    for p in range(P):
        share[p] = 1.0 / k if (res[p, R_SCORE] == best_s and res[p, R_TIE] == best_t) else 0.0


@kernel
def mark_harvested(T, S):
    """HARVESTED[k] = 1 for each kind that was in a field at a Harvest.  A slot, once
    filled, never changes: its HARV_SLOTS bit says its advancement was harvested."""
    for p in range(T[OPTS, O_PLAYERS]):
        for c in range(N_CARDS):
            m = S[p, HARV_SLOTS + c]
            for s in range(3):
                if m & (1 << s):
                    S[p, HARVESTED + S[p, SLOTS + 3 * c + s]] = 1


@kernel
def write_trace_row(T, S, trace, row):
    """trace[row] = the turn record in S[TR], purchase columns past the counts -1."""
    mb = T[OPTS, O_MAX_BUYS]
    nb = S[TR, TR_N_BOUGHT]
    for x in range(TR_FIXED_N):
        trace[row, x] = S[TR, x]
    for part in range(3):                      # kinds, sleeve cards, sleeve slots
        for i in range(mb):
            x = TR_FIXED_N + part * mb + i
            trace[row, x] = S[TR, x] if i < nb else -1
    v0 = T[OPTS, O_TRACE_W] - MAX_VALE_BUYS
    for i in range(MAX_VALE_BUYS):
        trace[row, v0 + i] = S[TR, v0 + i] if i < S[TR, TR_N_VALES] else -1


@kernel
def play_one(T, S, Q, seed, game_index, trace):
    """Play one game in S; append one trace row per turn if trace has rows."""
    # spec §4.7: the end of the game and the score
    P = T[OPTS, O_PLAYERS]
    setup(T, S, Q, seed, game_index)
    S[GAME, G_GAME] = game_index
    S[GAME, G_TRACING] = 1 if trace.shape[0] > 0 else 0
    max_rounds = T[OPTS, O_MAX_ROUNDS]
    rnd = 0
    while True:
        rnd += 1
        S[GAME, G_ROUND] = rnd
        for j in range(P):
            p = (S[GAME, G_START] + j) % P
            take_turn(T, S, Q, p, rnd)
            if trace.shape[0] > 0:
                row = S[GAME, G_NTRACE]
                if row < trace.shape[0]:
                    write_trace_row(T, S, trace, row)
                S[GAME, G_NTRACE] = row + 1
        if S[GAME, G_POOL] == 0:
            break
        if rnd >= max_rounds:
            S[GAME, G_TRUNC] = 1
            break


@kernel
def finish_game(T, S, g, res, share, gout, acq, first_round, harvested, vacq):
    """Game ``g`` just ended in ``S``: its scores, its game-level outputs and, per
    player, the advancements and vales acquired (and, with details, the first round
    and harvests of each advancement) into row ``g`` of the output arrays."""
    P = T[OPTS, O_PLAYERS]
    score_game(T, S, res[g], share[g])
    gout[g, GO_START] = S[GAME, G_START]
    gout[g, GO_ROUNDS] = S[GAME, G_ROUND]
    gout[g, GO_TRUNC] = S[GAME, G_TRUNC]
    gout[g, GO_POOL_LEFT] = S[GAME, G_POOL]
    details = first_round.shape[0] > 0
    if details:
        mark_harvested(T, S)
    for p in range(P):
        for k in range(T[OPTS, O_N_ADV]):
            acq[k, g, p] = S[p, ACQ + k]
        if details:
            for k in range(T[OPTS, O_N_ADV]):
                first_round[g, p, k] = S[p, FIRST_ROUND + k]
                harvested[g, p, k] = S[p, HARVESTED + k]
        for v in range(T[OPTS, O_N_VALE]):
            vacq[v, g, p] = S[p, VACQ + v]


@kernel
def play_games(T, S, Q, seed, first_game, n_games, res, share, gout, acq, first_round,
               harvested, vacq, trace):
    """Play games first_game .. first_game+n_games-1 of the run seeded `seed`.

    Writes res[g, p, R_*], share[g, p], gout[g, GO_*], acq[kind, g, p] and
    vacq[vale, g, p] (kind-major: a kind's counts over the games are contiguous, as
    the DataFrame's column), first_round/harvested[g, p, kind] unless those have no rows
    (a DataFrame of games does not use them: skipped, the kernel is faster); trace
    rows (all games appended) if trace has rows.  Returns the number of trace rows
    wanted (may exceed its size).
    """
    ntrace = 0
    S[GAME, G_NO_DETAILS] = 1 if first_round.shape[0] == 0 else 0
    for g in range(n_games):
        gi = np.uint64(first_game) + np.uint64(g)
        play_one(T, S, Q, seed, gi, trace[min(ntrace, trace.shape[0]):])
        ntrace += S[GAME, G_NTRACE]
        finish_game(T, S, g, res, share, gout, acq, first_round, harvested, vacq)
    return ntrace
