"""The Mystic Lands numba kernels: the reference engine
(``vale_sim/games/mystic_lands/reference/game.py``) step for step, on integer arrays.

docs/mystic-lands-engine-spec.md is the contract: the same random draws in the
same order, the same state changes, the same integer decisions with the same
tie-breaks.  Every kernel takes the table ``T`` (card set, rules and, from row
QB, the policies: ``tables``), the state ``S`` (layout below) and, where a turn
record tuple may grow, ``X`` (turn records and events, written only when tracing
one game).  Few arrays: a call passes each as nine machine words.

State ``S``: its layout is in ``state`` (one int64 array, -1 = none).
"""
from __future__ import annotations

import numpy as np

from vale_sim.kernels.jit import kernel
from vale_sim.kernels.rng import randbelow, rng_init, shuffle_in_registers

from .tables import (
    ADV, VALE, SPACE, BASE, UID, LIST, GROWTH, OPTS, EF, MAX_CARDS, MAX_SPACE, MAX_ROWS,
    MAX_ADV, MAX_PLAYERS, MAX_TRACK,
    A_COST, A_POS, A_SUN, A_CLOUD, A_RAIN, A_MANA, A_SPIRIT, A_VP, A_ENDVP, A_NEFF, A_TMASK,
    A_KMASK, A_WLIM, A_ASPMASK, A_EFF,
    V_COST, V_NROWS, V_NTRACK, V_NEFF, V_NONACT, V_ROW, V_TRK, V_EFF, RF, QF,
    R_VP, R_MANA, R_SPIRIT, R_GVP, R_RAIN, R_ACT, Q_MANA, Q_SPIRIT, Q_VP, Q_RAIN, Q_EFFECT,
    SP_KIND, SP_COST, SP_NROWS, SP_RW, SP_ROW, SP_START, SP_I, SP_II,
    SP_SMALL, SP_ADJ, V_FLAGS, VF_NIGHT_GAIN, VF_DAY_GAIN, VF_REFRESH, VF_CONVERT, VF_NOD,
    B_SUN, B_RAIN, B_MANA, B_SPIRIT, B_VP, B_ASPMASK, B_SUNHALF, B_RAINHALF,
    E_TIMING, E_KIND, E_AMOUNT, E_RES, E_ASP, E_NEED, E_PAY, E_COST, E_PER,
    T_PLAYED, T_NIGHT, T_DAY, T_DAYREP, T_DUSK, T_ACQUIRE, T_IMMEDIATE, T_NOD, T_ACTIVATION,
    K_GAIN, K_GPAL, K_GPAC, K_CONVERT, K_PLAY_ONDECK, K_TO_ONDECK, K_SWAP_ONDECK, K_REFRESH,
    K_ENCH_DISC, K_REPLACE, K_REMOVE, K_SLEEVE_MARKET, K_VP_PER_SUN,
    MANA, SPIRIT, VP, RAIN,
    O_PLAYERS, O_NADV, O_NSPACE, O_MAPSTART, O_NCARDS, O_DRUID_BASE, O_WITHER,
    O_RAIN_SUPPLY, O_MAX_BUYS, O_MAX_ENCH, O_ML1, O_ML2, O_NGROWTH, O_END_VP, O_END_CUBES,
    O_END_BONUS, O_HELD_END, O_MAX_ROUNDS, O_CUBES, O_DRUID_DEAL, O_LEN, O_SEAT_MANA,
    O_SEAT_SPIRIT, O_HELD_CAP, O_ONGOING_ALL, O_EFFECT_ENCH,
    P_PERMILLE, P_RAIN_NEEDED, P_WCHOICE, P_WMANA, P_WSPIRIT, P_WVP, P_MINSCORE, P_WVVP,
    P_WVREW, P_WVEFF, P_WVCOST, P_VMIN, P_CONVERT, P_CONVMANA, P_REMOVE, P_RULE0, P_NRULES,
    P_DRYAD_MIN, P_PARROT_MIN, CONV_BOUGHT, CONV_NEVER, RL_TARGET, RL_ADV, RL_VALE, RL_LEVEL, RL_COND, RL_SMALL,
    RULE_CARD, RULE_LEVEL, RULE_VALE, ABSENT, ASCORE, NEVER_A, NEVER_V, NEVER_SP, QB, BUYCOST)
from .tables import P_STAGES, P_EXPLORE, VROW, SROW

from .state import (
    PM_MANA, PM_SPIRIT, PM_VP, PM_RAIN, PM_PLACED, PM_WITHERED, PM_RESTRICT, PM_WILD,
    PM_BOUGHT, PM_ENCH, PM_WITHERS, PM_TURNS, PM_MTOT, PM_STOT, PM_BONUS, PM_DRUID, PM_SEAT,
    DHEAD, DN, NDISC, NLAND, NHELD, NCUBES, PM_ONMASK, PM_VFLAGS, PM_LTM, PM_LKM, PM_MAXSUN,
    PM_DSHOWN,
    CARD, CW, F_SUN, F_M, F_SP, F_V, F_ASP, F_TM, F_KM, F_PKM, F_WLIM, F_SLV, F_EVP, F_PTM,
    LN_RC, LN_X, LN_G, LN_EMPTY, LN_NOSUN, DECK, DISC, LAND, CUBE, TRACK, NOD, ON, ACQ, HELD,
    G_START, G_ROUND, G_TRIGGER, G_INDAY, G_GROWTHS, G_RAINSUP, G_NM1, G_NM2, G_AH, G_AN,
    G_TRACE, G_TRUNC, G_ROUNDS, G_TURNIDX, G_NEV, G_EVB, G_LAYOUT, G_OWNER, G_ONSP, G_SPNR,
    G_SPCOST, G_WIDTH, G, DK, MK1, MK2, REC, LSNAP, CSNAP, CAND, STK, SCR, RNG, SPOT, BCR,
    N_ROWS, SP_NEVER, RC_ROUND, RC_PLAYER, RC_TURN, RC_GROWS, RC_OVERGROWS, RC_WITHERED,
    RC_OOC, RC_RAIN_PLACED, RC_CHOSEN, RC_MGAIN, RC_SGAIN, RC_VGAIN, RC_GROWTHS, RC_TRIGGERED,
    RC_MANA, RC_SPIRIT, RC_VP, RC_RAIN, RC_HELD, RC_CUBES, RC_DECK, RC_DISC, RC_N, EV_BOUGHT,
    EV_ENCHANTED, EV_SLEEVED, EV_REMOVED, EV_W, RS_SCORE, RS_TRACK, RS_BONUS, RS_ADV, RS_VALE,
    RS_EFF, RS_WITHERS, RS_TURNS, RS_MTOT, RS_STOT, RS_CUBES, RS_TRIG, RS_DRUID, RS_SEAT,
    RS_N, GO_START, GO_ROUNDS, GO_TRUNC, GO_LAYOUT, GO_N, state_width, new_state)
from .state import SP_SCORE, SP_STAGE, SN_GAME, SN_PLAYER, SN_PROGRESS, SN_VP, SN_CUBES, SN_ACQ

SIMPLE_MASK = (1 << K_GAIN) | (1 << K_GPAL) | (1 << K_GPAC)
LOW = -(10 ** 9)
NONE_SC = -(1 << 62)                  # below every Advance score (|weights| <= 10**6)
PICK = 1 << 24                        # choose_buy: level * PICK + slot

# =====================================================================================
# small helpers
# =====================================================================================
@kernel(inline=True)
def row_field(T, S, s, r, f):
    """Field f (R_*) of row r of space s: a small space's own rows, else its Vale's."""
    if T[SPACE + s, SP_KIND] == SP_SMALL:
        return T[SPACE + s, SP_ROW + RF * r + f]
    return T[VALE + S[G, G_LAYOUT + s], V_ROW + RF * r + f]


@kernel(inline=True)
def space_nrows(T, S, s):
    if T[SPACE + s, SP_KIND] == SP_SMALL:
        return T[SPACE + s, SP_NROWS]
    return T[VALE + S[G, G_LAYOUT + s], V_NROWS]


@kernel(inline=True)
def space_cost(T, S, s):
    if T[SPACE + s, SP_KIND] == SP_SMALL:
        return T[SPACE + s, SP_COST]
    return T[VALE + S[G, G_LAYOUT + s], V_COST]


@kernel(inline=True)
def suns_of(T, S, p, u):
    """Uncovered suns of card u from its slots (spec §4 helpers)."""
    b = BASE + T[UID, u]
    total = 0
    for half in range(2):
        covered = False
        a = S[p, CARD + CW * u + 2 * half]          # foreground
        if a >= 0:
            total += T[ADV + a, A_SUN]
            if T[ADV + a, A_CLOUD] > 0:
                covered = True
        a = S[p, CARD + CW * u + 2 * half + 1]      # background
        if a >= 0:
            if not covered:
                total += T[ADV + a, A_SUN]
            if T[ADV + a, A_CLOUD] > 0:
                covered = True
        if not covered and T[b, B_SUNHALF] == half:
            total += T[b, B_SUN]
    return total


@kernel
def refresh_card(T, S, p, u):
    """Rebuild the cache of card u after a slot changed: its basic card's values, then
    each Advance on it added (add_advance), then the halves (refresh_halves)."""
    b = BASE + T[UID, u]
    S[p, CARD + F_M + CW * u] = T[b, B_MANA]
    S[p, CARD + F_SP + CW * u] = T[b, B_SPIRIT]
    S[p, CARD + F_V + CW * u] = T[b, B_VP]
    S[p, CARD + F_ASP + CW * u] = T[b, B_ASPMASK]
    S[p, CARD + F_TM + CW * u] = 0
    S[p, CARD + F_KM + CW * u] = 0
    S[p, CARD + F_PKM + CW * u] = 0
    S[p, CARD + F_WLIM + CW * u] = 0
    S[p, CARD + F_EVP + CW * u] = 0
    S[p, CARD + F_PTM + CW * u] = 0
    for pos in range(4):
        a = S[p, CARD + CW * u + pos]
        if a >= 0:
            add_advance(T, S, p, u, a)
    refresh_halves(T, S, p, u)


@kernel
def sleeve_card(T, S, p, u, a):
    """Advance a goes into a free slot of card u: refresh_card, with the sums and ORs
    updated from a alone."""
    S[p, CARD + CW * u + T[ADV + a, A_POS]] = a
    add_advance(T, S, p, u, a)
    refresh_halves(T, S, p, u)


@kernel(inline=True)
def add_advance(T, S, p, u, a):
    """Card u's cached sums and ORs with Advance a (at its position) added."""
    lane = 16 * T[ADV + a, A_POS]
    S[p, CARD + F_EVP + CW * u] += T[ADV + a, A_ENDVP]
    S[p, CARD + F_M + CW * u] += T[ADV + a, A_MANA]
    S[p, CARD + F_SP + CW * u] += T[ADV + a, A_SPIRIT]
    S[p, CARD + F_V + CW * u] += T[ADV + a, A_VP]
    S[p, CARD + F_ASP + CW * u] |= T[ADV + a, A_ASPMASK]
    S[p, CARD + F_TM + CW * u] |= T[ADV + a, A_TMASK]
    S[p, CARD + F_PTM + CW * u] |= T[ADV + a, A_TMASK] << lane
    S[p, CARD + F_KM + CW * u] |= T[ADV + a, A_KMASK]
    S[p, CARD + F_WLIM + CW * u] += T[ADV + a, A_WLIM]
    S[p, CARD + F_PKM + CW * u] |= T[ADV + a, A_KMASK] << lane


@kernel(inline=True)
def refresh_halves(T, S, p, u):
    """refresh_card's uncovered suns (F_SUN) and sleeving lanes (F_SLV)."""
    b = BASE + T[UID, u]
    suns = suns_of(T, S, p, u)
    S[p, CARD + F_SUN + CW * u] = suns
    if suns > S[p, PM_MAXSUN]:
        S[p, PM_MAXSUN] = suns
    lanes = 0
    nosun = (1 << LN_NOSUN) if suns == 0 else 0
    for half in range(2):
        fg = S[p, CARD + CW * u + 2 * half]
        bg = S[p, CARD + CW * u + 2 * half + 1]
        bs = T[b, B_SUN] if T[b, B_SUNHALF] == half else 0
        rain = T[b, B_RAIN] if T[b, B_RAINHALF] == half else 0
        # background slot: covers the basic rain if no foreground; a sun or cloud
        # there counts unless a foreground cloud covers the half
        g = 0 if (fg >= 0 and T[ADV + fg, A_CLOUD] > 0) else 1
        lane = ((rain if fg < 0 else 0) | (bs << LN_X) | (g << LN_G) | nosun
                | ((1 << LN_EMPTY) if bg < 0 else 0))
        lanes |= lane << (16 * (2 * half + 1))
        # foreground slot: covers the background's rain (or the basic rain); a cloud
        # there covers what the half shows now
        if bg >= 0:
            rc = T[ADV + bg, A_RAIN]
            old = T[ADV + bg, A_SUN] + (0 if T[ADV + bg, A_CLOUD] > 0 else bs)
        else:
            rc = rain
            old = bs
        lane = (rc | (old << LN_X) | (1 << LN_G) | nosun
                | ((1 << LN_EMPTY) if fg < 0 else 0))
        lanes |= lane << (16 * (2 * half))
    S[p, CARD + F_SLV + CW * u] = lanes


@kernel(inline=True)
def card_value(S, p, u):
    return 2 * S[p, CARD + F_M + CW * u] + 2 * S[p, CARD + F_SP + CW * u] + 3 * S[p, CARD + F_V + CW * u]


@kernel(inline=True)
def shows(S, p, u, asp, w):
    m = S[p, CARD + F_ASP + CW * u]
    return ((m >> asp) & 1) == 1 or (((m >> 4) & 1) == 1 and w == asp)


@kernel(inline=True)
def rain_covered(T, S, p, u, a):
    """Rain icons sleeving a on card u covers for the first time (spec §4 K2)."""
    pos = T[ADV + a, A_POS]
    half = pos // 2
    b = BASE + T[UID, u]
    basic = T[b, B_RAIN] if T[b, B_RAINHALF] == half else 0
    bg = S[p, CARD + CW * u + 2 * half + 1]
    fg = S[p, CARD + CW * u + 2 * half]
    if pos % 2 == 1:                                  # background
        return basic if fg < 0 else 0
    if bg < 0:
        return basic
    return T[ADV + bg, A_RAIN]


@kernel(inline=True)
def event(S, X, kind, x, y, z):
    if S[G, G_TRACE] != 0:
        i = S[G, G_NEV] + S[G, G_EVB]
        if i >= X.shape[0]:                   # cannot happen (api sizes X); never overrun
            return
        S[G, G_NEV] += 1
        X[i, 0] = S[G, G_TURNIDX]
        X[i, 1] = kind
        X[i, 2] = x
        X[i, 3] = y
        X[i, 4] = z


@kernel(inline=True)
def rule_holds(T, r, mana, rnd, vp, owned):
    c = T[QB + r, RL_COND]
    if c != ABSENT and mana < c:
        return False
    c = T[QB + r, RL_COND + 1]
    if c != ABSENT and mana > c:
        return False
    c = T[QB + r, RL_COND + 2]
    if c != ABSENT and rnd < c:
        return False
    c = T[QB + r, RL_COND + 3]
    if c != ABSENT and rnd > c:
        return False
    c = T[QB + r, RL_COND + 4]
    if c != ABSENT and vp > c:
        return False
    c = T[QB + r, RL_COND + 5]
    if c != ABSENT and owned > c:
        return False
    return True


# =====================================================================================
# zones
# =====================================================================================
@kernel
def game_randbelow(S, n):
    return randbelow(S[RNG, 0:2].view(np.uint64), n)


@kernel
def progress(T, S):
    """Spec §6.14: how far the game is toward its end trigger, at most end_vp *
    end_cubes: the most of VP * end_cubes and cubes * end_vp over the players."""
    ev = T[OPTS, O_END_VP]
    ec = T[OPTS, O_END_CUBES]
    top = 0
    for q in range(T[OPTS, O_PLAYERS]):
        x = S[q, PM_VP] * ec
        y = S[q, NCUBES] * ev
        if y > x:
            x = y
        if x > top:
            top = x
    return top if top < ev * ec else ev * ec


@kernel
def stage_of(T, S, p):
    """The stage at which p's policy scores now: 0 for a scripted policy, else
    ``stages * progress // (end_vp * end_cubes)``, at most stages - 1
    (vale_sim.value.stage_of)."""
    # spec §6.14: the stage of a value player
    k = T[QB + p, P_STAGES]
    if k <= 1:
        return 0
    pool0 = T[OPTS, O_END_VP] * T[OPTS, O_END_CUBES]
    if pool0 <= 0:
        return 0
    st = k * progress(T, S) // pool0
    return st if st < k - 1 else k - 1


@kernel(inline=True)
def score_row(T, S, p):
    """The row of T holding p's Advance scores at its stage now (spec §6.4, §6.14)."""
    return QB + ASCORE + MAX_PLAYERS * stage_of(T, S, p) + p


@kernel
def shuffle_row(S, row, off, n):
    """GameRng.shuffle of S[row, off:off+n] from the game's stream, its (key, draws) in
    registers (kernels.rng.shuffle_in_registers): the same draws, bit for bit."""
    shuffle_in_registers(S[RNG, 0:2].view(np.uint64), S[row, off:off + n], n)


@kernel(inline=True)
def reveal(S, p):
    """Spec §2.9: with an empty deck the Discard becomes the deck, shuffled."""
    if S[p, DHEAD] == S[p, DN] and S[p, NDISC] > 0:
        n = S[p, NDISC]
        for i in range(n):
            S[p, DECK + i] = S[p, DISC + i]
        S[p, DHEAD] = 0
        S[p, DN] = n
        S[p, NDISC] = 0
        shuffle_row(S, p, DECK, n)


@kernel(inline=True)
def land_add(S, p, u):
    """Card u is in the Land (or a Land card changed): its timings and kinds join the
    Land's masks."""
    S[p, PM_LTM] |= S[p, CARD + F_TM + CW * u]
    S[p, PM_LKM] |= S[p, CARD + F_KM + CW * u]


@kernel(inline=True)
def land_remove_at(S, p, k):
    n = S[p, NLAND]
    for i in range(k, n - 1):
        S[p, LAND + i] = S[p, LAND + i + 1]
    S[p, NLAND] = n - 1


@kernel(inline=True)
def land_index(S, p, u):
    for i in range(S[p, NLAND]):
        if S[p, LAND + i] == u:
            return i
    return -1


@kernel
def deck_push_front(S, p, u):
    h = S[p, DHEAD]
    if h > 0:
        S[p, DECK + h - 1] = u
        S[p, DHEAD] = h - 1
        return
    n = S[p, DN]
    for i in range(n, 0, -1):
        S[p, DECK + i] = S[p, DECK + i - 1]
    S[p, DECK] = u
    S[p, DN] = n + 1


@kernel(inline=True)
def draw_adv(S, level):
    h = S[G, G_AH + level]
    if h >= S[G, G_AN + level]:
        return -1
    S[G, G_AH + level] = h + 1
    return S[DK + level, h]


@kernel(inline=True)
def wither_limit(T, S, p, extra):
    lim = T[OPTS, O_WITHER]
    if T[OPTS, O_ONGOING_ALL] != 0:       # M17 option: every card (deck, Discard, Land)
        for i in range(S[p, DHEAD], S[p, DN]):
            lim += S[p, CARD + F_WLIM + CW * S[p, DECK + i]]
        for i in range(S[p, NDISC]):
            lim += S[p, CARD + F_WLIM + CW * S[p, DISC + i]]
        for i in range(S[p, NLAND]):
            lim += S[p, CARD + F_WLIM + CW * S[p, LAND + i]]
        return lim
    for i in range(S[p, NLAND]):
        lim += S[p, CARD + F_WLIM + CW * S[p, LAND + i]]
    if extra >= 0:
        lim += S[p, CARD + F_WLIM + CW * extra]
    return lim


# =====================================================================================
# gains
# =====================================================================================
@kernel(inline=True)
def growth_due(T, S, p):
    """check_growth would add a Market slot (tested before calling it)."""
    g = S[G, G_GROWTHS]
    return g < T[OPTS, O_NGROWTH] and S[p, PM_VP] >= T[GROWTH, g]


@kernel
def check_growth(T, S, p):
    """D-growth: remove the least-valued level 1 slot, add a level 2 slot."""
    # spec D-growth: Market growth
    ng = T[OPTS, O_NGROWTH]
    while S[G, G_GROWTHS] < ng and S[p, PM_VP] >= T[GROWTH, S[G, G_GROWTHS]]:
        S[G, G_GROWTHS] += 1
        S[REC, RC_GROWTHS] += 1
        n1 = S[G, G_NM1]
        if n1 > 0:
            best = 0
            bsc = 0
            srow = score_row(T, S, p)
            for k in range(n1):
                a = S[MK1, k]
                sc = T[srow, a] if a >= 0 else LOW
                if k == 0 or sc < bsc:
                    best = k
                    bsc = sc
            for k in range(best, n1 - 1):
                S[MK1, k] = S[MK1, k + 1]
            S[G, G_NM1] = n1 - 1
        a = draw_adv(S, 2)
        S[MK2, S[G, G_NM2]] = a
        S[G, G_NM2] += 1


@kernel(inline=True)
def gain(T, S, p, res, amount):
    """gain(res, x) of spec §4: returns what was gained."""
    if amount <= 0:
        return 0
    if res == RAIN:
        sup = S[G, G_RAINSUP]
        if amount > sup:
            amount = sup
        S[G, G_RAINSUP] = sup - amount
        S[p, PM_RAIN] += amount
        return amount
    rs = S[p, PM_RESTRICT]
    if rs >= 0 and res != rs:
        return 0
    if res == MANA:
        S[p, PM_MANA] += amount
        S[p, PM_MTOT] += amount
    elif res == SPIRIT:
        S[p, PM_SPIRIT] += amount
        S[p, PM_STOT] += amount
    else:
        S[p, PM_VP] += amount
        if S[G, G_INDAY] != 0 and growth_due(T, S, p):
            check_growth(T, S, p)
    return amount


@kernel
def gain_reward(T, S, p, m, sp, v, rn):
    gain(T, S, p, MANA, m)
    gain(T, S, p, SPIRIT, sp)
    gain(T, S, p, VP, v)
    gain(T, S, p, RAIN, rn)


@kernel
def simple_effect(T, S, p, u, a, e):
    """gain / gain_per_aspect_land / gain_per_aspect_card (effect e of Advance a)."""
    c = ADV + a
    o = A_EFF + EF * e
    kind = T[c, o + E_KIND]
    res = T[c, o + E_RES]
    amt = T[c, o + E_AMOUNT]
    if kind == K_GAIN:
        gain(T, S, p, res, amt)
        return
    asp = T[c, o + E_ASP]
    if S[p, PM_WILD] < 0:
        S[p, PM_WILD] = asp
    w = S[p, PM_WILD]
    cnt = 0
    if kind == K_GPAL:
        for i in range(S[p, NLAND]):
            if shows(S, p, S[p, LAND + i], asp, w):
                cnt += 1
    else:
        for pos in range(4):
            b = S[p, CARD + CW * u + pos]
            if b >= 0:
                m = T[ADV + b, A_ASPMASK]
                if ((m >> asp) & 1) == 1 or (((m >> 4) & 1) == 1 and w == asp):
                    cnt += 1
    gain(T, S, p, res, amt * cnt)


@kernel(inline=True)
def resolve_played(T, S, p, u, t):
    """The simple effects of timing t of card u: T_PLAYED when it enters the Land,
    T_NIGHT once the next on-deck card is revealed (rules §3.1)."""
    tm = S[p, CARD + F_TM + CW * u]
    if ((tm >> t) & 1) == 0:
        return
    s0 = S[p, CARD + CW * u]
    s1 = S[p, CARD + CW * u + 1]
    s2 = S[p, CARD + CW * u + 2]
    s3 = S[p, CARD + CW * u + 3]
    ptm = S[p, CARD + F_PTM + CW * u]
    for pos in range(4):
        if ((ptm >> (16 * pos + t)) & 1) == 0:
            continue
        a = s0 if pos == 0 else (s1 if pos == 1 else (s2 if pos == 2 else s3))
        for e in range(T[ADV + a, A_NEFF]):
            o = A_EFF + EF * e
            if T[ADV + a, o + E_TIMING] == t and \
                    ((SIMPLE_MASK >> T[ADV + a, o + E_KIND]) & 1) == 1:
                simple_effect(T, S, p, u, a, e)


@kernel(inline=True)
def acquire(T, S, p, a):
    # spec D-acquire: acquiring an Advance
    S[p, ACQ + a] += 1
    for e in range(T[ADV + a, A_NEFF]):
        o = A_EFF + EF * e
        if T[ADV + a, o + E_TIMING] == T_ACQUIRE and T[ADV + a, o + E_KIND] == K_GAIN:
            gain(T, S, p, T[ADV + a, o + E_RES], T[ADV + a, o + E_AMOUNT])


@kernel
def convert(T, S, p, row, o, repeat):
    """Spec §6.7: the convert effect at T[row, o:]; True if it converted."""
    mode = T[QB + p, P_CONVERT]
    pay = T[row, o + E_PAY]
    res = T[row, o + E_RES]
    if mode == CONV_NEVER:
        return False
    if mode == CONV_BOUGHT and not (pay == MANA and (S[p, PM_BOUGHT] > 0
                                                     or S[p, PM_MANA] >= T[QB + p, P_CONVMANA])):
        return False
    rs = S[p, PM_RESTRICT]
    if rs >= 0 and res != rs and res != RAIN:
        return False
    cost = T[row, o + E_COST]
    done = False
    while S[p, PM_MANA + pay] >= cost:
        S[p, PM_MANA + pay] -= cost
        gain(T, S, p, res, T[row, o + E_AMOUNT])
        done = True
        if not repeat:
            break
    return done


# =====================================================================================
# sleeving
# =====================================================================================
@kernel(inline=True)
def best_target(T, S, p, a):
    """Spec §6.6: the Land card where a scores best, or -1.  Sleeving changes one
    half only; each card's F_SLV lane for a's position (kept by refresh_card) holds
    what it takes: can it go there, the rain it covers, the change of suns.  With
    Δ the change of the half's uncovered suns, the score 2 rain - 4 Δ is
    2 rc - 4 g (sun_a - [cloud_a] x)."""
    pos = T[ADV + a, A_POS]
    sun_a = T[ADV + a, A_SUN]
    shift = np.uint64(16 * pos)
    need = (1 << LN_EMPTY) | ((1 << LN_NOSUN) if sun_a > 0 else 0)
    cl = 1 if T[ADV + a, A_CLOUD] > 0 else 0
    best = -1
    bsc = LOW                       # below every score: the first card that can take a
    for i in range(S[p, NLAND]):    # wins ties (no branch on the data)
        u = np.uint64(S[p, LAND + i])
        lane = (np.uint64(S[p, np.uint64(CARD + F_SLV) + np.uint64(CW) * u]) >> shift) \
            & np.uint64(0xFFFF)
        ln = np.int64(lane)
        g = (ln >> LN_G) & 1
        x = (ln >> LN_X) & 63
        sc = 2 * (ln & 31) - 4 * g * (sun_a - cl * x)
        sc = sc if (ln & need) == need else LOW       # can_sleeve
        if sc > bsc:
            best = np.int64(u)
            bsc = sc
    return best


@kernel(inline=True)
def sleeve(T, S, X, p, a, u):
    rain = rain_covered(T, S, p, u, a)
    pos = T[ADV + a, A_POS]
    sleeve_card(T, S, p, u, a)
    land_add(S, p, u)
    gain(T, S, p, RAIN, rain)
    event(S, X, EV_SLEEVED, a, u, pos)


@kernel
def sleeve_market(T, S, X, p, level):
    """Satyr Home (spec §6.11)."""
    row = MK1 if level == 1 else MK2
    n = S[G, G_NM1] if level == 1 else S[G, G_NM2]
    best_k = -1
    bsc = 0
    bu = -1
    srow = score_row(T, S, p)
    for k in range(n):
        a = S[row, k]
        if a < 0 or T[QB + NEVER_A + p, a] != 0:
            continue
        u = best_target(T, S, p, a)
        if u < 0:
            continue
        sc = T[srow, a]
        if best_k < 0 or sc > bsc:
            best_k = k
            bsc = sc
            bu = u
    if best_k < 0:
        return
    a = S[row, best_k]
    S[row, best_k] = draw_adv(S, level)
    acquire(T, S, p, a)
    sleeve(T, S, X, p, a, bu)
    for e in range(T[ADV + a, A_NEFF]):
        o = A_EFF + EF * e
        if T[ADV + a, o + E_TIMING] == T_DAY and \
                ((SIMPLE_MASK >> T[ADV + a, o + E_KIND]) & 1) == 1:
            simple_effect(T, S, p, bu, a, e)


@kernel
def remove_card(T, S, X, p):
    """Grasping Vines (spec §6.10)."""
    best = -1
    bval = 0
    for k in range(S[p, NLAND]):
        u = S[p, LAND + k]
        if (S[p, CARD + CW * u] & S[p, CARD + CW * u + 1] & S[p, CARD + CW * u + 2]
                & S[p, CARD + CW * u + 3]) >= 0:      # an Advance on it (-1: none)
            continue
        val = card_value(S, p, u) - 4 * S[p, CARD + F_SUN + CW * u]
        if best < 0 or val < bval:
            best = k
            bval = val
    if best >= 0 and bval < T[QB + p, P_REMOVE]:
        u = S[p, LAND + best]
        land_remove_at(S, p, best)
        event(S, X, EV_REMOVED, u, 0, 0)


# =====================================================================================
# Vale spots, cubes and tracks
# =====================================================================================
@kernel(inline=True)
def pick_refresh(T, S, p):
    """Spec §6.12: the cube space whose next square is worth most, or -1."""
    best = -1
    bval = 0
    for i in range(S[p, NCUBES]):
        s = S[p, CUBE + 2 * i]
        pos = S[p, TRACK + s]
        if pos < 0:
            continue
        v = VALE + S[G, G_LAYOUT + s]
        if pos >= T[v, V_NTRACK]:
            continue
        o = V_TRK + QF * pos
        val = 2 * T[v, o + Q_MANA] + 2 * T[v, o + Q_SPIRIT] + 3 * T[v, o + Q_VP] + T[v, o + Q_RAIN]
        if T[v, o + Q_EFFECT] != 0:
            val += 6
        if best < 0 or val > bval:
            best = s
            bval = val
    return best


@kernel(inline=True)
def enter_square(T, S, p, s):
    """A cube moves one square right and gains it; True if it is an effect square."""
    pos = S[p, TRACK + s]
    S[p, TRACK + s] = pos + 1
    v = VALE + S[G, G_LAYOUT + s]
    o = V_TRK + QF * pos
    gain_reward(T, S, p, T[v, o + Q_MANA], T[v, o + Q_SPIRIT], T[v, o + Q_VP], T[v, o + Q_RAIN])
    return T[v, o + Q_EFFECT] != 0


@kernel
def vale_effect_flat(T, S, X, p, v, e):
    """A Vale effect other than refresh (spec §5 `vale effect`)."""
    c = VALE + v
    o = V_EFF + EF * e
    kind = T[c, o + E_KIND]
    if kind == K_GAIN:
        gain(T, S, p, T[c, o + E_RES], T[c, o + E_AMOUNT])
    elif kind == K_REMOVE:
        remove_card(T, S, X, p)
    elif kind == K_SLEEVE_MARKET:
        sleeve_market(T, S, X, p, T[c, o + E_NEED])
    elif kind == K_CONVERT:
        convert(T, S, p, c, o, False)


@kernel
def move_cube(T, S, X, p, s0):
    """Move (spec §5) of the cube on s0; an effect square resolves the Vale's activation
    effects in order, a refresh among them moves another cube first (an explicit stack
    instead of recursion: frame = space, next effect index)."""
    if not enter_square(T, S, p, s0):
        return
    d = 0
    S[STK, 0] = s0
    S[STK, 1] = 0
    while d >= 0:
        s = S[STK, 2 * d]
        e = S[STK, 2 * d + 1]
        v = S[G, G_LAYOUT + s]
        if e >= T[VALE + v, V_NEFF]:
            d -= 1
            continue
        S[STK, 2 * d + 1] = e + 1
        o = V_EFF + EF * e
        if T[VALE + v, o + E_TIMING] != T_ACTIVATION:
            continue
        if T[VALE + v, o + E_KIND] == K_REFRESH:
            s2 = pick_refresh(T, S, p)
            if s2 >= 0 and enter_square(T, S, p, s2):
                d += 1
                S[STK, 2 * d] = s2
                S[STK, 2 * d + 1] = 0
        else:
            vale_effect_flat(T, S, X, p, v, e)


@kernel(inline=True)
def refresh(T, S, X, p):
    s = pick_refresh(T, S, p)
    if s >= 0:
        move_cube(T, S, X, p, s)


@kernel
def vale_effect(T, S, X, p, v, e):
    if T[VALE + v, V_EFF + EF * e + E_KIND] == K_REFRESH:
        refresh(T, S, X, p)
    else:
        vale_effect_flat(T, S, X, p, v, e)


@kernel
def spot_static(T, S, p, s, r, st):
    """Spec §6.5 spot score without its cost term (fixed for a game's layout); a value
    player's value at stage st (spec §6.14): its space part plus its Vale part."""
    if T[QB + p, P_STAGES] > 0:
        v = T[QB + SROW + MAX_PLAYERS * st + p, MAX_ROWS * s + r]
        if T[SPACE + s, SP_KIND] != SP_SMALL:
            v += T[QB + VROW + MAX_PLAYERS * st + p, MAX_ROWS * S[G, G_LAYOUT + s] + r]
        return v
    row_vp = row_field(T, S, s, r, R_VP)
    m = row_field(T, S, s, r, R_MANA) + T[SPACE + s, SP_RW + 4 * r]
    sp = row_field(T, S, s, r, R_SPIRIT) + T[SPACE + s, SP_RW + 4 * r + 1]
    v = row_field(T, S, s, r, R_GVP) + T[SPACE + s, SP_RW + 4 * r + 2]
    rn = row_field(T, S, s, r, R_RAIN) + T[SPACE + s, SP_RW + 4 * r + 3]
    eff = 0
    if T[SPACE + s, SP_KIND] != SP_SMALL:
        if row_field(T, S, s, r, R_ACT) != 0 or T[VALE + S[G, G_LAYOUT + s], V_NONACT] != 0:
            eff = 1
    return (T[QB + p, P_WVVP] * row_vp + T[QB + p, P_WVREW] * (2 * m + 2 * sp + 3 * v + rn)
            + T[QB + p, P_WVEFF] * eff)


@kernel(inline=True)
def spot_score(T, S, p, s, r, cost):
    return (S[SPOT + p, SP_SCORE + SP_STAGE * stage_of(T, S, p) + MAX_ROWS * s + r]
            + T[QB + p, P_WVCOST] * cost)


@kernel(inline=True)
def spot_named(T, S, r, s):
    """Buy rule r names the spot of space s (a small space's name or its Vale's)."""
    if T[SPACE + s, SP_KIND] == SP_SMALL:
        return T[QB + r, RL_SMALL + s] != 0
    return T[QB + r, RL_VALE] == S[G, G_LAYOUT + s]


@kernel
def choose_enchant(T, S, p, discount, max_printed):
    """Spec §6.5; the pick is left in S[CAND, 0..2] (space, row, cost); False if none."""
    if S[p, NCUBES] >= T[OPTS, O_CUBES]:
        return False
    nsp = T[OPTS, O_NSPACE]
    start = T[OPTS, O_MAPSTART]
    flag = discount != 0 or max_printed < 99
    n = 0
    for s in range(nsp):
        if T[SPACE + s, SP_KIND] == SP_START or S[p, ON + s] != 0:
            continue
        reach = S[p, PM_ONMASK]               # linked to a cube of p, or to the start
        if T[SPACE + s, SP_KIND] != SP_SMALL:   # (small spaces: not from the start)
            reach |= 1 << start
        if (T[SPACE + s, SP_ADJ] & reach) == 0:
            continue
        printed = S[G, G_SPCOST + s]
        cost = printed - S[G, G_ONSP + s]
        if cost < 0:
            cost = 0
        if flag:
            if not (1 <= printed <= max_printed):
                continue
            cost = cost - discount
            if cost < 0:
                cost = 0
        if cost > S[p, PM_SPIRIT]:
            continue
        if S[SPOT + p, SP_NEVER + s] != 0:
            continue
        for r in range(S[G, G_SPNR + s]):
            if S[G, G_OWNER + MAX_ROWS * s + r] < 0:
                o = 4 + 4 * n
                S[CAND, o] = s
                S[CAND, o + 1] = r
                S[CAND, o + 2] = cost
                S[CAND, o + 3] = spot_score(T, S, p, s, r, cost)
                n += 1
    if n == 0:
        return False
    r0 = T[QB + p, P_RULE0]
    for ri in range(T[QB + p, P_NRULES]):
        rr = r0 + ri
        if not rule_holds(T, rr, S[p, PM_MANA], S[G, G_ROUND], S[p, PM_VP], 0):
            continue
        tg = T[QB + rr, RL_TARGET]
        if tg == RULE_LEVEL:
            continue
        best = -1
        bsc = 0
        for i in range(n):
            o = 4 + 4 * i
            if tg == RULE_CARD and not spot_named(T, S, rr, S[CAND, o]):
                continue
            if best < 0 or S[CAND, o + 3] > bsc:
                best = i
                bsc = S[CAND, o + 3]
        if best >= 0:
            o = 4 + 4 * best
            S[CAND, 0] = S[CAND, o]
            S[CAND, 1] = S[CAND, o + 1]
            S[CAND, 2] = S[CAND, o + 2]
            return True
    best = 0
    bsc = S[CAND, 7]
    for i in range(1, n):
        if S[CAND, 4 + 4 * i + 3] > bsc:
            best = i
            bsc = S[CAND, 4 + 4 * i + 3]
    if bsc < T[QB + p, P_VMIN]:
        return False
    o = 4 + 4 * best
    S[CAND, 0] = S[CAND, o]
    S[CAND, 1] = S[CAND, o + 1]
    S[CAND, 2] = S[CAND, o + 2]
    return True


@kernel
def enchant(T, S, X, p, s, r, cost):
    """Spec §5 Enchanting."""
    S[p, PM_SPIRIT] -= cost
    S[G, G_OWNER + MAX_ROWS * s + r] = p
    S[G, G_ONSP + s] += 1
    n = S[p, NCUBES]
    S[p, CUBE + 2 * n] = s
    S[p, CUBE + 2 * n + 1] = r
    S[p, NCUBES] = n + 1
    S[p, ON + s] = 1
    S[p, PM_ONMASK] |= 1 << s
    if T[SPACE + s, SP_KIND] != SP_SMALL:
        S[p, PM_VFLAGS] |= T[VALE + S[G, G_LAYOUT + s], V_FLAGS]
    if row_field(T, S, s, r, R_ACT) != 0:
        S[p, TRACK + s] = 0
    gain_reward(T, S, p, row_field(T, S, s, r, R_MANA), row_field(T, S, s, r, R_SPIRIT),
                row_field(T, S, s, r, R_GVP), row_field(T, S, s, r, R_RAIN))
    o = SP_RW + 4 * r
    gain_reward(T, S, p, T[SPACE + s, o], T[SPACE + s, o + 1], T[SPACE + s, o + 2],
                T[SPACE + s, o + 3])
    event(S, X, EV_ENCHANTED, s, r, 0)
    if T[SPACE + s, SP_KIND] != SP_SMALL:
        v = S[G, G_LAYOUT + s]
        for e in range(T[VALE + v, V_NEFF]):
            if T[VALE + v, V_EFF + EF * e + E_TIMING] == T_IMMEDIATE:
                vale_effect(T, S, X, p, v, e)


@kernel(inline=True)
def enchant_pick(T, S, X, p, discount, max_printed):
    if not choose_enchant(T, S, p, discount, max_printed):
        return False
    enchant(T, S, X, p, S[CAND, 0], S[CAND, 1], S[CAND, 2])
    return True


# =====================================================================================
# Night
# =====================================================================================
@kernel(inline=True)
def land_suns(S, p):
    t = 0
    for i in range(S[p, NLAND]):
        t += S[p, CARD + F_SUN + CW * S[p, LAND + i]]
    return t


@kernel(inline=True)
def decide_grow(T, S, p, suns, land_limit, land_only):
    """Spec §6.1: True = Grow (land_limit: the wither limit of the Land alone; with
    land_only 0, M17's option, the limit of all the cards, the on-deck one included)."""
    h = S[p, DHEAD]
    limit = land_limit + land_only * S[p, CARD + F_WLIM + CW * S[p, DECK + h]]
    tokens = S[p, PM_RAIN] if T[QB + p, P_RAIN_NEEDED] != 0 else 0
    need = limit - suns + tokens
    # Grow unless bad * 1000 > permille * n (bad of the n cards would wither): stop at
    # the first bad card that decides it (a loop with an exit: also kept scalar, LLVM
    # does not vectorise it into wide gathers for a handful of cards)
    if S[p, DN] - h >= 2:
        n = S[p, DN] - h - 1
        base = DECK + h + 1
    else:
        n = S[p, NDISC]
        base = DISC
    if n == 0 or need > S[p, PM_MAXSUN]:    # no card has need suns: none is bad
        return True
    thr = T[QB + p, P_PERMILLE] * n
    bad = 0
    for i in range(n):
        u = np.uint64(S[p, base + i])
        if S[p, np.uint64(CARD + F_SUN) + np.uint64(CW) * u] >= need:
            bad += 1000
            if bad > thr:
                return False
    return True


@kernel
def night_swaps(T, S, p):
    """Turtle Nesting Ground on Resting (spec §6.8)."""
    if ((S[p, PM_LKM] >> K_SWAP_ONDECK) & 1) == 0:
        return
    nl = S[p, NLAND]
    for i in range(nl):
        S[LSNAP, i] = S[p, LAND + i]
    for i in range(nl):
        u = S[LSNAP, i]
        if ((S[p, CARD + F_KM + CW * u] >> K_SWAP_ONDECK) & 1) == 0:
            continue
        s0 = S[p, CARD + CW * u]
        s1 = S[p, CARD + CW * u + 1]
        s2 = S[p, CARD + CW * u + 2]
        s3 = S[p, CARD + CW * u + 3]
        pkm = S[p, CARD + F_PKM + CW * u]
        for pos in range(4):
            if ((pkm >> (16 * pos + K_SWAP_ONDECK)) & 1) == 0:
                continue
            a = s0 if pos == 0 else (s1 if pos == 1 else (s2 if pos == 2 else s3))
            for e in range(T[ADV + a, A_NEFF]):
                if T[ADV + a, A_EFF + EF * e + E_KIND] != K_SWAP_ONDECK:
                    continue
                if S[p, DHEAD] == S[p, DN] or land_index(S, p, u) < 0:
                    continue
                low_k = -1
                low = 0
                for k in range(S[p, NLAND]):
                    x = S[p, LAND + k]
                    if x == u:
                        continue
                    val = card_value(S, p, x)
                    if low_k < 0 or val < low:
                        low_k = k
                        low = val
                if low_k < 0:
                    continue
                h = S[p, DHEAD]
                top = S[p, DECK + h]
                if card_value(S, p, top) > low:
                    out = S[p, LAND + low_k]
                    S[p, LAND + low_k] = top
                    land_add(S, p, top)
                    S[p, DECK + h] = out
                    resolve_played(T, S, p, top, T_PLAYED)
                    resolve_played(T, S, p, top, T_NIGHT)


@kernel
def night(T, S, p):
    # spec N4: the Night: grow, reveal, rain, wither
    night_begin(T, S, p)
    night_grow(T, S, p, 0)


@kernel(inline=True)
def night_begin(T, S, p):
    """N1-N3: the Night's start, up to its first Grow."""
    S[p, PM_PLACED] = 0
    S[p, PM_WITHERED] = 0
    S[p, PM_RESTRICT] = -1
    S[p, PM_WILD] = -1
    S[p, PM_BOUGHT] = 0
    S[p, PM_ENCH] = 0
    nsp = T[OPTS, O_NSPACE]
    vf = S[p, PM_VFLAGS]
    if vf & VF_NOD:
        for s in range(nsp):
            S[p, NOD + s] = 0
    for s in range(nsp if vf & VF_NIGHT_GAIN else 0):       # N2
        if S[p, ON + s] == 0 or T[SPACE + s, SP_KIND] == SP_SMALL:
            continue
        v = VALE + S[G, G_LAYOUT + s]
        for e in range(T[v, V_NEFF]):
            o = V_EFF + EF * e
            t = T[v, o + E_TIMING]
            if T[v, o + E_KIND] == K_GAIN and (t == T_NIGHT or t == T_NOD):
                gain(T, S, p, T[v, o + E_RES], T[v, o + E_AMOUNT])
                if t == T_NOD:
                    S[p, NOD + s] = 1
    reveal(S, p)                                        # N3


@kernel(inline=True)
def night_grow(T, S, p, pause):
    """N4 from a Grow: the Night's first, or the one a grow decision chose (the search
    player, docs/search.md: everything the loop keeps is read again from the state).
    With pause 0 the policy decides every Grow and 0 is returned when the Night has
    ended; with pause 1 it returns 1 at the next grow decision instead (the caller
    Grows with night_grow again or Rests with night_rest) and 0 if the Night ended
    before one."""
    limit = wither_limit(T, S, p, -1)      # the Land's limit and suns, kept up to date:
    lsuns = land_suns(S, p)                # only Grow changes the Land in this loop
    land_only = 1 - T[OPTS, O_ONGOING_ALL]  # M17 option: the limit counts every card already
    suns = 0
    if S[REC, RC_GROWS] > 0:               # after a grow decision: the suns it saw
        suns = lsuns + S[p, CARD + F_SUN + CW * S[p, DECK + S[p, DHEAD]]] - S[p, PM_PLACED]
    while True:                                            # N4
        if S[p, DHEAD] == S[p, DN]:
            S[REC, RC_OOC] = 1
            break
        if S[REC, RC_GROWS] > 0 and suns == limit - 1:
            S[REC, RC_OVERGROWS] += 1
        h = S[p, DHEAD]
        u = S[p, DECK + h]
        S[p, DHEAD] = h + 1
        S[p, LAND + S[p, NLAND]] = u
        S[p, NLAND] += 1
        land_add(S, p, u)
        limit += land_only * S[p, CARD + F_WLIM + CW * u]
        lsuns += S[p, CARD + F_SUN + CW * u]
        S[REC, RC_GROWS] += 1
        resolve_played(T, S, p, u, T_PLAYED)
        reveal(S, p)
        resolve_played(T, S, p, u, T_NIGHT)     # rules §3.1: not before the reveal
        if S[p, DHEAD] == S[p, DN]:
            S[REC, RC_OOC] = 1
            break
        suns = lsuns + S[p, CARD + F_SUN + CW * S[p, DECK + S[p, DHEAD]]] - S[p, PM_PLACED]
        while suns >= limit and S[p, PM_RAIN] > 0 and T[QB + p, P_RAIN_NEEDED] != 0:
            S[p, PM_RAIN] -= 1
            S[p, PM_PLACED] += 1
            suns -= 1
        if suns >= limit:
            S[p, PM_WITHERED] = 1
            S[p, PM_WITHERS] += 1
            S[REC, RC_WITHERED] = 1
            break
        if pause != 0:
            return 1
        if not decide_grow(T, S, p, suns, limit, land_only):
            if (S[p, PM_LKM] >> K_SWAP_ONDECK) & 1:
                night_swaps(T, S, p)
            break
    S[REC, RC_RAIN_PLACED] = S[p, PM_PLACED]
    return 0


@kernel(inline=True)
def night_rest(T, S, p):
    """N4 after a grow decision chose Rest: the Turtle swaps, and the Night ends."""
    if (S[p, PM_LKM] >> K_SWAP_ONDECK) & 1:
        night_swaps(T, S, p)
    S[REC, RC_RAIN_PLACED] = S[p, PM_PLACED]


@kernel(inline=True)
def grow_wanted(T, S, p):
    """decide_grow at a grow decision, its arguments read again from the state."""
    land_only = 1 - T[OPTS, O_ONGOING_ALL]
    suns = land_suns(S, p) + S[p, CARD + F_SUN + CW * S[p, DECK + S[p, DHEAD]]] - S[p, PM_PLACED]
    return decide_grow(T, S, p, suns, wither_limit(T, S, p, -1), land_only)


# =====================================================================================
# Day
# =====================================================================================
@kernel
def play_ondeck(T, S, p, a, e):
    """Hibiscus Dryad (spec §6.9)."""
    o = A_EFF + EF * e
    asp = T[ADV + a, o + E_ASP]
    if S[p, PM_WILD] < 0:
        S[p, PM_WILD] = asp
    w = S[p, PM_WILD]
    if S[p, DHEAD] == S[p, DN]:
        return
    cnt = 0
    for i in range(S[p, NLAND]):
        if shows(S, p, S[p, LAND + i], asp, w):
            cnt += 1
    if cnt < T[ADV + a, o + E_NEED]:
        return
    h = S[p, DHEAD]
    u = S[p, DECK + h]
    if card_value(S, p, u) < T[QB + p, P_DRYAD_MIN]:       # M19: the policy declines
        return
    S[p, DHEAD] = h + 1
    S[p, LAND + S[p, NLAND]] = u
    S[p, NLAND] += 1
    land_add(S, p, u)
    gain(T, S, p, MANA, S[p, CARD + F_M + CW * u])
    gain(T, S, p, SPIRIT, S[p, CARD + F_SP + CW * u])
    gain(T, S, p, VP, S[p, CARD + F_V + CW * u])
    resolve_played(T, S, p, u, T_PLAYED)
    reveal(S, p)


@kernel
def wither_choice(T, S, p):
    # spec D2: a Withered Day: the wither choice (spec §6.3)
    c = T[QB + p, P_WCHOICE]
    if c >= 0:
        return c
    m = 0
    sp = 0
    v = 0
    for i in range(S[p, NLAND]):
        u = S[p, LAND + i]
        m += S[p, CARD + F_M + CW * u]
        sp += S[p, CARD + F_SP + CW * u]
        v += S[p, CARD + F_V + CW * u]
    a = T[QB + p, P_WMANA] * m
    b = T[QB + p, P_WSPIRIT] * sp
    c2 = T[QB + p, P_WVP] * v
    if a >= b and a >= c2:
        return MANA
    if b >= c2:
        return SPIRIT
    return VP


@kernel(inline=True)
def choose_buy(T, S, p):
    """Spec §6.4: returns level * PICK + slot, or -1."""
    mana = S[p, PM_MANA]
    n1 = S[G, G_NM1]
    n2 = S[G, G_NM2]
    if T[QB + p, P_EXPLORE] > 0:              # exploration: a random candidate
        nc = 0
        for i in range(n1 + n2):
            a = S[MK1, i] if i < n1 else S[MK2, i - n1]
            if a >= 0 and T[QB + BUYCOST + p, a] <= mana:
                nc += 1
        if nc > 0 and game_randbelow(S, 1000) < T[QB + p, P_EXPLORE]:
            j = game_randbelow(S, nc)
            for i in range(n1 + n2):
                a = S[MK1, i] if i < n1 else S[MK2, i - n1]
                if a >= 0 and T[QB + BUYCOST + p, a] <= mana:
                    if j == 0:
                        return PICK + i if i < n1 else 2 * PICK + i - n1
                    j -= 1
    srow = score_row(T, S, p)
    r0 = T[QB + p, P_RULE0]
    for ri in range(T[QB + p, P_NRULES]):
        rr = r0 + ri
        tg = T[QB + rr, RL_TARGET]
        if tg == RULE_VALE:
            continue
        best = -1
        bsc = 0
        first_a = -1
        for i in range(n1 + n2):
            a = S[MK1, i] if i < n1 else S[MK2, i - n1]
            if a < 0 or T[QB + BUYCOST + p, a] > mana:
                continue
            if tg == RULE_CARD:
                if a != T[QB + rr, RL_ADV]:
                    continue
            elif (1 if i < n1 else 2) != T[QB + rr, RL_LEVEL]:
                continue
            if first_a < 0:
                first_a = a
            sc = T[srow, a]
            if best < 0 or sc > bsc:
                best = i
                bsc = sc
        if best < 0:
            continue
        owned = S[p, ACQ + first_a] if tg == RULE_CARD else 0
        if rule_holds(T, rr, mana, S[G, G_ROUND], S[p, PM_VP], owned):
            return PICK + best if best < n1 else 2 * PICK + best - n1
    best = -1
    bsc = NONE_SC               # below every score: the first affordable slot wins ties
    for i in range(n1 + n2):    # (a select, not a branch, on what is affordable)
        a = S[MK1, i] if i < n1 else S[MK2, i - n1]
        sc = T[srow, a]
        sc = sc if (a >= 0 and T[QB + BUYCOST + p, a] <= mana) else NONE_SC
        if sc > bsc:
            best = i
            bsc = sc
    if best < 0 or bsc < T[QB + p, P_MINSCORE]:
        return -1
    return PICK + best if best < n1 else 2 * PICK + best - n1


@kernel
def buy(T, S, X, p):
    # spec D11: buying
    while S[p, PM_BOUGHT] < T[OPTS, O_MAX_BUYS]:
        pick = choose_buy(T, S, p)
        if pick < 0:
            break
        buy_slot(T, S, X, p, pick // PICK, pick % PICK)


@kernel(inline=True)
def buy_slot(T, S, X, p, level, k):
    """D11: buy the Advance of Market slot k of level `level`."""
    row = MK1 if level == 1 else MK2
    a = S[row, k]
    S[p, PM_MANA] -= T[ADV + a, A_COST]
    S[row, k] = draw_adv(S, level)
    S[p, HELD + S[p, NHELD]] = a
    S[p, NHELD] += 1
    S[p, PM_BOUGHT] += 1
    event(S, X, EV_BOUGHT, a, 0, 0)
    acquire(T, S, p, a)


@kernel
def conversions(T, S, p):
    for i in range(S[p, NLAND] if (S[p, PM_LKM] >> K_CONVERT) & 1 else 0):
        u = S[p, LAND + i]
        if ((S[p, CARD + F_KM + CW * u] >> K_CONVERT) & 1) == 0:
            continue
        pkm = S[p, CARD + F_PKM + CW * u]
        for pos in range(4):
            if ((pkm >> (16 * pos + K_CONVERT)) & 1) == 0:
                continue
            a = S[p, CARD + CW * u + pos]
            for e in range(T[ADV + a, A_NEFF]):
                o = A_EFF + EF * e
                t = T[ADV + a, o + E_TIMING]
                if T[ADV + a, o + E_KIND] == K_CONVERT and (t == T_DAY or t == T_DAYREP):
                    convert(T, S, p, ADV + a, o, t == T_DAYREP)
    for s in range(T[OPTS, O_NSPACE] if S[p, PM_VFLAGS] & VF_CONVERT else 0):
        if S[p, ON + s] == 0 or T[SPACE + s, SP_KIND] == SP_SMALL:
            continue
        v = VALE + S[G, G_LAYOUT + s]
        for e in range(T[v, V_NEFF]):
            o = V_EFF + EF * e
            t = T[v, o + E_TIMING]
            if T[v, o + E_KIND] == K_CONVERT and (t == T_DAY or t == T_NOD) \
                    and S[p, NOD + s] == 0:
                if convert(T, S, p, v, o, False) and t == T_NOD:
                    S[p, NOD + s] = 1


@kernel(inline=True)
def day_card_effects(T, S, X, p):
    """D5: day effects, the Land walked by index as it stands (it may grow: only by
    a day effect, so with none in the Land there is nothing to do)."""
    # spec D5: the Day effects of the Land
    if ((S[p, PM_LTM] >> T_DAY) & 1) == 0:
        return
    k = 0
    while k < S[p, NLAND]:
        u = S[p, LAND + k]
        if ((S[p, CARD + F_TM + CW * u] >> T_DAY) & 1) == 0:
            k += 1
            continue
        s0 = S[p, CARD + CW * u]
        s1 = S[p, CARD + CW * u + 1]
        s2 = S[p, CARD + CW * u + 2]
        s3 = S[p, CARD + CW * u + 3]
        ptm = S[p, CARD + F_PTM + CW * u]
        for pos in range(4):
            if ((ptm >> (16 * pos + T_DAY)) & 1) == 0:
                continue
            a = s0 if pos == 0 else (s1 if pos == 1 else (s2 if pos == 2 else s3))
            for e in range(T[ADV + a, A_NEFF]):
                o = A_EFF + EF * e
                if T[ADV + a, o + E_TIMING] != T_DAY:
                    continue
                kind = T[ADV + a, o + E_KIND]
                if ((SIMPLE_MASK >> kind) & 1) == 1:
                    simple_effect(T, S, p, u, a, e)
                elif kind == K_PLAY_ONDECK:
                    play_ondeck(T, S, p, a, e)
                elif kind == K_REMOVE:
                    remove_card(T, S, X, p)
                elif kind == K_SLEEVE_MARKET:
                    sleeve_market(T, S, X, p, T[ADV + a, o + E_NEED])
        k += 1


@kernel
def day_land_kind(T, S, X, p, kind):
    """D9 (refresh) and D10 (enchant_discount): for each Land card of a snapshot still in
    the Land, its effects of that kind."""
    if ((S[p, PM_LKM] >> kind) & 1) == 0:
        return
    nl = S[p, NLAND]
    for i in range(nl):
        S[LSNAP, i] = S[p, LAND + i]
    for i in range(nl):
        u = S[LSNAP, i]
        if ((S[p, CARD + F_KM + CW * u] >> kind) & 1) == 0:
            continue
        s0 = S[p, CARD + CW * u]
        s1 = S[p, CARD + CW * u + 1]
        s2 = S[p, CARD + CW * u + 2]
        s3 = S[p, CARD + CW * u + 3]
        pkm = S[p, CARD + F_PKM + CW * u]
        for pos in range(4):
            if ((pkm >> (16 * pos + kind)) & 1) == 0:
                continue
            a = s0 if pos == 0 else (s1 if pos == 1 else (s2 if pos == 2 else s3))
            for e in range(T[ADV + a, A_NEFF]):
                o = A_EFF + EF * e
                if T[ADV + a, o + E_KIND] != kind or land_index(S, p, u) < 0:
                    continue
                if kind == K_REFRESH:
                    if T[ADV + a, o + E_TIMING] == T_DAY:
                        refresh(T, S, X, p)
                elif T[OPTS, O_EFFECT_ENCH] == 0:
                    enchant_pick(T, S, X, p, T[ADV + a, o + E_AMOUNT],
                                 T[ADV + a, o + E_NEED])
                elif S[p, PM_ENCH] < T[OPTS, O_MAX_ENCH]:   # M18 option: it counts
                    if enchant_pick(T, S, X, p, T[ADV + a, o + E_AMOUNT],
                                    T[ADV + a, o + E_NEED]):
                        S[p, PM_ENCH] += 1


@kernel
def day(T, S, X, p):
    # spec D8: activations
    day_gains(T, S, X, p)                                   # D1-D6
    enchant_steps(T, S, X, p)                               # D7
    day_tracks(T, S, X, p)                                  # D8-D10
    buy(T, S, X, p)                                         # D11
    day_end(T, S, p)                                        # D12-D13


@kernel(inline=True)
def day_gains(T, S, X, p):
    """D1-D6: the Day up to enchanting."""
    S[G, G_RAINSUP] += S[p, PM_RAIN] + S[p, PM_PLACED]          # D1
    S[p, PM_RAIN] = 0
    S[p, PM_PLACED] = 0
    if S[p, PM_WITHERED] != 0:                                  # D2
        c = wither_choice(T, S, p)
        S[p, PM_RESTRICT] = c
        S[REC, RC_CHOSEN] = c
    m = 0
    sp = 0
    v = 0
    for i in range(S[p, NLAND]):
        u = S[p, LAND + i]
        m += S[p, CARD + F_M + CW * u]
        sp += S[p, CARD + F_SP + CW * u]
        v += S[p, CARD + F_V + CW * u]
    S[G, G_INDAY] = 1
    if growth_due(T, S, p):
        check_growth(T, S, p)                                # D3
    S[REC, RC_MGAIN] = gain(T, S, p, MANA, m)                # D4
    S[REC, RC_SGAIN] = gain(T, S, p, SPIRIT, sp)
    S[REC, RC_VGAIN] = gain(T, S, p, VP, v)
    if (S[p, PM_LTM] >> T_DAY) & 1:                          # D5 (calls cost: the
        day_card_effects(T, S, X, p)                         # kernels test it again)
    nsp = T[OPTS, O_NSPACE]
    for s in range(nsp if S[p, PM_VFLAGS] & VF_DAY_GAIN else 0):  # D6
        if S[p, ON + s] == 0 or T[SPACE + s, SP_KIND] == SP_SMALL:
            continue
        vr = VALE + S[G, G_LAYOUT + s]
        for e in range(T[vr, V_NEFF]):
            o = V_EFF + EF * e
            t = T[vr, o + E_TIMING]
            if T[vr, o + E_KIND] == K_GAIN and (t == T_DAY or t == T_NOD) \
                    and S[p, NOD + s] == 0:
                gain(T, S, p, T[vr, o + E_RES], T[vr, o + E_AMOUNT])
                if t == T_NOD:
                    S[p, NOD + s] = 1


@kernel
def policy_enchant(T, S, p):
    """The policy's pick of a D7 step (spec §6.5), left in S[CAND, 0..2]; False if none.
    With the rule option effect_enchants_count (M18) also False when the slots left are
    kept for the Sun Priestesses of the Land: when they are no more than the
    enchant_discount effects whose own pick scores at least as much as this one, both
    scored at the cost a normal enchantment pays."""
    if not choose_enchant(T, S, p, 0, 99):
        return False
    if T[OPTS, O_EFFECT_ENCH] == 0 or ((S[p, PM_LKM] >> K_ENCH_DISC) & 1) == 0:
        return True
    s = S[CAND, 0]
    r = S[CAND, 1]
    cost = S[CAND, 2]
    score = spot_score(T, S, p, s, r, cost)
    waiting = 0
    for i in range(S[p, NLAND]):
        u = S[p, LAND + i]
        if ((S[p, CARD + F_KM + CW * u] >> K_ENCH_DISC) & 1) == 0:
            continue
        for pos in range(4):
            a = S[p, CARD + CW * u + pos]
            if a < 0:
                continue
            for e in range(T[ADV + a, A_NEFF]):
                o = A_EFF + EF * e
                if T[ADV + a, o + E_KIND] != K_ENCH_DISC or not choose_enchant(
                        T, S, p, T[ADV + a, o + E_AMOUNT], T[ADV + a, o + E_NEED]):
                    continue
                hs = S[CAND, 0]
                full = S[G, G_SPCOST + hs] - S[G, G_ONSP + hs]    # p has no cube on hs
                if full < 0:
                    full = 0
                if spot_score(T, S, p, hs, S[CAND, 1], full) >= score:
                    waiting += 1
    S[CAND, 0] = s
    S[CAND, 1] = r
    S[CAND, 2] = cost
    return T[OPTS, O_MAX_ENCH] - S[p, PM_ENCH] > waiting


@kernel(inline=True)
def enchant_steps(T, S, X, p):
    """D7 from its `PM_ENCH`-th enchantment on (the search player resumes it there)."""
    while S[p, PM_ENCH] < T[OPTS, O_MAX_ENCH]:                  # D7
        if not policy_enchant(T, S, p):
            break
        enchant(T, S, X, p, S[CAND, 0], S[CAND, 1], S[CAND, 2])
        S[p, PM_ENCH] += 1


@kernel(inline=True)
def day_tracks(T, S, X, p):
    """D8-D10: activations, refreshes, Sun Priestess."""
    nsp = T[OPTS, O_NSPACE]
    nc = S[p, NCUBES]                                           # D8
    for i in range(nc):
        S[CSNAP, i] = S[p, CUBE + 2 * i]
    for i in range(nc):
        s = S[CSNAP, i]
        if S[p, TRACK + s] == 0:
            blocked = False
            for q in range(T[OPTS, O_PLAYERS]):
                if q != p and S[q, TRACK + s] == 1:
                    blocked = True
            if not blocked:
                move_cube(T, S, X, p, s)
    if (S[p, PM_LKM] >> K_REFRESH) & 1:
        day_land_kind(T, S, X, p, K_REFRESH)                # D9
    for s in range(nsp if S[p, PM_VFLAGS] & VF_REFRESH else 0):
        if S[p, ON + s] == 0 or T[SPACE + s, SP_KIND] == SP_SMALL:
            continue
        vv = S[G, G_LAYOUT + s]
        for e in range(T[VALE + vv, V_NEFF]):
            o = V_EFF + EF * e
            t = T[VALE + vv, o + E_TIMING]
            if T[VALE + vv, o + E_KIND] == K_REFRESH and (t == T_DAY or t == T_NOD):
                refresh(T, S, X, p)
    if (S[p, PM_LKM] >> K_ENCH_DISC) & 1:
        day_land_kind(T, S, X, p, K_ENCH_DISC)              # D10


@kernel(inline=True)
def day_end(T, S, p):
    """D12-D13: conversions, the end trigger."""
    if (S[p, PM_LKM] >> K_CONVERT) & 1 or S[p, PM_VFLAGS] & VF_CONVERT:
        conversions(T, S, p)                                 # D12
    S[G, G_INDAY] = 0
    if S[G, G_TRIGGER] < 0 and (S[p, PM_VP] >= T[OPTS, O_END_VP]
                                or S[p, NCUBES] >= T[OPTS, O_END_CUBES]):
        S[G, G_TRIGGER] = p
        S[REC, RC_TRIGGERED] = 1
    S[p, PM_RESTRICT] = -1


# =====================================================================================
# Dusk
# =====================================================================================
@kernel
def replace_sleeve(T, S, X, p):
    """Mangrove Forest (spec §6.13)."""
    nh = S[p, NHELD]
    if nh == 0:
        return
    k = 0
    srow = score_row(T, S, p)
    best_sc = T[srow, S[p, HELD]]
    for i in range(1, nh):
        sc = T[srow, S[p, HELD + i]]
        if sc > best_sc:
            k = i
            best_sc = sc
    a = S[p, HELD + k]
    pos = T[ADV + a, A_POS]
    bu = -1
    bgain = 0
    for i in range(S[p, NLAND]):
        u = S[p, LAND + i]
        b = S[p, CARD + CW * u + pos]
        if b < 0:
            continue
        S[p, CARD + CW * u + pos] = -1
        ok = T[ADV + a, A_SUN] == 0 or suns_of(T, S, p, u) == 0
        S[p, CARD + CW * u + pos] = b
        g = best_sc - T[srow, b]
        if ok and g > 0 and (bu < 0 or g > bgain):
            bu = u
            bgain = g
    if bu < 0:
        return
    S[p, CARD + CW * bu + pos] = a
    refresh_card(T, S, p, bu)
    land_add(S, p, bu)
    for i in range(k, nh - 1):
        S[p, HELD + i] = S[p, HELD + i + 1]
    S[p, NHELD] = nh - 1
    event(S, X, EV_SLEEVED, a, bu, pos)


@kernel
def druid_hidden(T, S, p):
    """No player but p has seen p's Druid Advance: its Druid card was never face up at
    a Dusk (PM_DSHOWN) and is below the on-deck card now (reference ``druid_hidden``)."""
    if S[p, PM_DSHOWN] != 0:
        return False
    db = T[OPTS, O_DRUID_BASE]
    found = False
    for u in range(T[OPTS, O_NCARDS]):
        if T[UID, u] != db:
            continue
        found = True
        below = False
        for i in range(S[p, DHEAD] + 1, S[p, DN]):
            if S[p, DECK + i] == u:
                below = True
        if not below:
            return False
    return found


@kernel
def dusk(T, S, X, p):
    # docs/search.md: the Druid card was seen if it is not below the on-deck card now,
    # before Sun Parrot can put the on-deck card below another (reference dusk)
    S[p, PM_DSHOWN] = 0 if druid_hidden(T, S, p) else 1
    # spec K2: the Dusk: sleeving held Advances
    if S[p, PM_BOUGHT] > 0:                                     # K1
        S[p, PM_MANA] = 0
    nh = S[p, NHELD]                                            # K2
    if nh > 0:
        # order by (-score, index): insertion sort into SCR[0..nh-1]; SCR[nh + i]: keep
        srow = score_row(T, S, p)
        for i in range(nh):
            sc = T[srow, S[p, HELD + i]]
            j = i
            while j > 0 and T[srow, S[p, HELD + S[SCR, j - 1]]] < sc:
                S[SCR, j] = S[SCR, j - 1]
                j -= 1
            S[SCR, j] = i
        for j in range(nh):
            k = S[SCR, j]
            a = S[p, HELD + k]
            u = best_target(T, S, p, a)
            if u < 0:
                S[SCR, nh + k] = 1
            else:
                S[SCR, nh + k] = 0
                sleeve(T, S, X, p, a, u)
        n = 0
        for k in range(nh):
            if S[SCR, nh + k] != 0:
                S[p, HELD + n] = S[p, HELD + k]
                n += 1
        S[p, NHELD] = n
    nl = S[p, NLAND]                                            # K3
    if ((S[p, PM_LTM] >> T_DUSK) & 1) == 0:
        nl = 0
    for i in range(nl):
        S[LSNAP, i] = S[p, LAND + i]
    for i in range(nl):
        u = S[LSNAP, i]
        if ((S[p, CARD + F_TM + CW * u] >> T_DUSK) & 1) == 0:
            continue
        s0 = S[p, CARD + CW * u]
        s1 = S[p, CARD + CW * u + 1]
        s2 = S[p, CARD + CW * u + 2]
        s3 = S[p, CARD + CW * u + 3]
        ptm = S[p, CARD + F_PTM + CW * u]
        for pos in range(4):
            if ((ptm >> (16 * pos + T_DUSK)) & 1) == 0:
                continue
            a = s0 if pos == 0 else (s1 if pos == 1 else (s2 if pos == 2 else s3))
            for e in range(T[ADV + a, A_NEFF]):
                o = A_EFF + EF * e
                if T[ADV + a, o + E_TIMING] != T_DUSK:   # (u is in the Land: no K3
                    continue                                # effect removes a card)
                kind = T[ADV + a, o + E_KIND]
                if ((SIMPLE_MASK >> kind) & 1) == 1:
                    simple_effect(T, S, p, u, a, e)
                elif kind == K_CONVERT:
                    convert(T, S, p, ADV + a, o, False)
                elif kind == K_REPLACE:
                    replace_sleeve(T, S, X, p)
    nl = S[p, NLAND]                                            # K4
    if ((S[p, PM_LKM] >> K_TO_ONDECK) & 1) == 0:
        nl = 0
    for i in range(nl):
        S[LSNAP, i] = S[p, LAND + i]
    for i in range(nl):
        u = S[LSNAP, i]
        if ((S[p, CARD + F_KM + CW * u] >> K_TO_ONDECK) & 1) == 0:
            continue
        s0 = S[p, CARD + CW * u]
        s1 = S[p, CARD + CW * u + 1]
        s2 = S[p, CARD + CW * u + 2]
        s3 = S[p, CARD + CW * u + 3]
        pkm = S[p, CARD + F_PKM + CW * u]
        for pos in range(4):
            if ((pkm >> (16 * pos + K_TO_ONDECK)) & 1) == 0:
                continue
            a = s0 if pos == 0 else (s1 if pos == 1 else (s2 if pos == 2 else s3))
            for e in range(T[ADV + a, A_NEFF]):
                o = A_EFF + EF * e
                if T[ADV + a, o + E_TIMING] == T_DUSK and T[ADV + a, o + E_KIND] == K_TO_ONDECK:
                    k = land_index(S, p, u)
                    if k >= 0 and card_value(S, p, u) >= T[QB + p, P_PARROT_MIN]:   # M19
                        land_remove_at(S, p, k)
                        deck_push_front(S, p, u)
    nd = S[p, NDISC]                                            # K5
    for i in range(S[p, NLAND]):
        S[p, DISC + nd + i] = S[p, LAND + i]
    S[p, NDISC] = nd + S[p, NLAND]
    S[p, NLAND] = 0
    S[p, PM_LTM] = 0
    S[p, PM_LKM] = 0
    if S[REC, RC_TRIGGERED] != 0:                               # K6
        S[p, PM_VP] += T[OPTS, O_END_BONUS]
        S[p, PM_BONUS] += T[OPTS, O_END_BONUS]


# =====================================================================================
# setup, the game loop, scoring
# =====================================================================================
@kernel
def spot_rows(T, S):
    """Each space's rows and printed cost in this layout, and every player's spot scores
    (without cost) and never marks (the SPOT rows) of it."""
    n = T[OPTS, O_PLAYERS]
    for s in range(T[OPTS, O_NSPACE]):
        if T[SPACE + s, SP_KIND] == SP_START:
            continue
        nr = space_nrows(T, S, s)
        S[G, G_SPNR + s] = nr
        S[G, G_SPCOST + s] = space_cost(T, S, s)
        for q in range(n):
            if T[SPACE + s, SP_KIND] == SP_SMALL:
                S[SPOT + q, SP_NEVER + s] = T[QB + NEVER_SP + q, s]
            else:
                S[SPOT + q, SP_NEVER + s] = T[QB + NEVER_V + q, S[G, G_LAYOUT + s]]
            k = T[QB + q, P_STAGES]
            for st in range(k if k > 1 else 1):
                for r in range(nr):
                    S[SPOT + q, SP_SCORE + SP_STAGE * st + MAX_ROWS * s + r] = \
                        spot_static(T, S, q, s, r, st)


@kernel
def setup(T, S):
    # spec §2: the random draws of setup, in order
    n = T[OPTS, O_PLAYERS]
    start = game_randbelow(S, n)                                     # draw 1
    for k in range(G_WIDTH):
        S[G, k] = 0 if k < G_LAYOUT or k >= G_ONSP else -1
    S[G, G_START] = start
    S[G, G_TRIGGER] = -1
    S[G, G_RAINSUP] = T[OPTS, O_RAIN_SUPPLY]
    na = T[OPTS, O_NADV]
    for q in range(n):        # what is read before written (zones are read below counts)
        for k in range(CARD):
            S[q, k] = 0
        S[q, PM_RESTRICT] = -1
        S[q, PM_WILD] = -1
        for k in range(MAX_SPACE):
            S[q, TRACK + k] = -1
            S[q, NOD + k] = 0
            S[q, ON + k] = 0
        for k in range(na):
            S[q, ACQ + k] = 0
    # Vale layout: draws 2 and 3
    n1 = T[OPTS, O_LEN + 3]
    n2 = T[OPTS, O_LEN + 4]
    for i in range(n1):
        S[SCR, i] = T[LIST + 3, i]
    for i in range(n2):
        S[SCR, n1 + i] = T[LIST + 4, i]
    shuffle_row(S, SCR, 0, n1)
    shuffle_row(S, SCR, n1, n2)
    h1 = 0
    h2 = 0
    nsp = T[OPTS, O_NSPACE]
    for s in range(nsp):
        kd = T[SPACE + s, SP_KIND]
        if kd == SP_I:
            S[G, G_LAYOUT + s] = S[SCR, h1]
            h1 += 1
        elif kd == SP_II:
            S[G, G_LAYOUT + s] = S[SCR, n1 + h2]
            h2 += 1
    spot_rows(T, S)                                             # spots of this layout
    # Advance decks
    for lvl in range(3):
        ln = T[OPTS, O_LEN + lvl]
        for i in range(ln):
            S[DK + lvl, i] = T[LIST + lvl, i]
        S[G, G_AH + lvl] = 0
        S[G, G_AN + lvl] = ln
    shuffle_row(S, DK, 0, T[OPTS, O_LEN])                    # draw 4
    deal = T[OPTS, O_DRUID_DEAL]
    for k in range(n):                                          # seat order
        i = (start + k) % n
        for j in range(deal):
            S[SCR, deal * i + j] = draw_adv(S, 0)
    for k in range(n):
        i = (start + k) % n
        best = 0
        srow = score_row(T, S, i)
        bsc = T[srow, S[SCR, deal * i]]
        for j in range(1, deal):
            sc = T[srow, S[SCR, deal * i + j]]
            if sc > bsc:
                best = j
                bsc = sc
        S[i, PM_DRUID] = S[SCR, deal * i + best]
        for j in range(deal):
            if j != best:
                S[DK, S[G, G_AN]] = S[SCR, deal * i + j]
                S[G, G_AN] += 1
    h = S[G, G_AH]
    shuffle_row(S, DK, h, S[G, G_AN] - h)                    # draw 5
    shuffle_row(S, DK + 1, 0, S[G, G_AN + 1])                # draw 6
    shuffle_row(S, DK + 2, 0, S[G, G_AN + 2])                # draw 7
    S[G, G_NM1] = T[OPTS, O_ML1]
    for k in range(T[OPTS, O_ML1]):
        S[MK1, k] = draw_adv(S, 1)
    S[G, G_NM2] = T[OPTS, O_ML2]
    for k in range(T[OPTS, O_ML2]):
        S[MK2, k] = draw_adv(S, 2)
    nc = T[OPTS, O_NCARDS]
    db = T[OPTS, O_DRUID_BASE]
    for k in range(n):                                          # draws 8..
        i = (start + k) % n
        S[i, PM_SEAT] = k
        for k2 in range(CARD, CARD + CW * nc):        # the unsleeved cards' caches
            S[i, k2] = S[BCR, k2]
        S[i, PM_MAXSUN] = S[BCR, PM_MAXSUN]
        for u in range(nc):
            if T[UID, u] == db:
                d = S[i, PM_DRUID]
                S[i, CARD + CW * u + T[ADV + d, A_POS]] = d
                refresh_card(T, S, i, u)
            S[i, DECK + u] = u
        S[i, DHEAD] = 0
        S[i, DN] = nc
        shuffle_row(S, i, DECK, nc)
        S[i, PM_MANA] = T[OPTS, O_SEAT_MANA + k]
        S[i, PM_SPIRIT] = T[OPTS, O_SEAT_SPIRIT + k]


@kernel
def turn(T, S, X, p):
    turn_begin(S, p)
    night(T, S, p)
    day(T, S, X, p)
    dusk(T, S, X, p)
    turn_end(S, X, p)


@kernel(inline=True)
def turn_begin(S, p):
    S[p, PM_TURNS] += 1
    for k in range(RC_N):
        S[REC, k] = 0
    S[REC, RC_ROUND] = S[G, G_ROUND]
    S[REC, RC_PLAYER] = p
    S[REC, RC_TURN] = S[p, PM_TURNS]
    S[REC, RC_CHOSEN] = -1


@kernel(inline=True)
def turn_end(S, X, p):
    """The TurnRecord after the Dusk (written to X when tracing)."""
    S[REC, RC_MANA] = S[p, PM_MANA]
    S[REC, RC_SPIRIT] = S[p, PM_SPIRIT]
    S[REC, RC_VP] = S[p, PM_VP]
    S[REC, RC_RAIN] = S[p, PM_RAIN]
    S[REC, RC_HELD] = S[p, NHELD]
    S[REC, RC_CUBES] = S[p, NCUBES]
    S[REC, RC_DECK] = S[p, DN] - S[p, DHEAD]
    S[REC, RC_DISC] = S[p, NDISC]
    if S[G, G_TRACE] != 0:
        t = S[G, G_TURNIDX]
        for k in range(RC_N):
            X[t, k] = S[REC, k]
    S[G, G_TURNIDX] += 1


@kernel
def finish(T, S, g, res, share, gout, acq, vales, spaces):
    # spec §7: scoring
    n = T[OPTS, O_PLAYERS]
    na = T[OPTS, O_NADV]
    top = 0
    for p in range(n):
        adv = 0
        suns = 0
        km = 0
        for part in range(3):
            if part == 0:
                lo = S[p, DHEAD]
                hi = S[p, DN]
                base = DECK
            elif part == 1:
                lo = 0
                hi = S[p, NDISC]
                base = DISC
            else:
                lo = 0
                hi = S[p, NLAND]
                base = LAND
            for i in range(lo, hi):
                u = np.uint64(S[p, base + i])
                co = np.uint64(CARD) + np.uint64(CW) * u
                suns += S[p, co + np.uint64(F_SUN)]
                adv += S[p, co + np.uint64(F_EVP)]
                km |= S[p, co + np.uint64(F_KM)]
        if T[OPTS, O_HELD_END] != 0:
            for i in range(S[p, NHELD]):
                adv += T[ADV + S[p, HELD + i], A_ENDVP]
        eff = 0
        # vp_per_sun_all of the Advances (on the cards only if one of them has it)
        for part in range(0 if (km >> K_VP_PER_SUN) & 1 else 3, 4):
            if part == 0:
                lo = S[p, DHEAD]
                hi = S[p, DN]
                base = DECK
            elif part == 1:
                lo = 0
                hi = S[p, NDISC]
                base = DISC
            elif part == 2:
                lo = 0
                hi = S[p, NLAND]
                base = LAND
            else:
                lo = 0
                hi = S[p, NHELD] if T[OPTS, O_HELD_END] != 0 else 0
                base = HELD
            for i in range(lo, hi):
                for pos in range(4 if part < 3 else 1):
                    a = S[p, CARD + CW * S[p, base + i] + pos] if part < 3 else S[p, base + i]
                    if a >= 0 and ((T[ADV + a, A_KMASK] >> K_VP_PER_SUN) & 1) == 1:
                        for e in range(T[ADV + a, A_NEFF]):
                            o = A_EFF + EF * e
                            if T[ADV + a, o + E_KIND] == K_VP_PER_SUN:
                                eff += T[ADV + a, o + E_AMOUNT] * (suns // T[ADV + a, o + E_PER])
        vale = 0
        for i in range(S[p, NCUBES]):
            vale += row_field(T, S, S[p, CUBE + 2 * i], S[p, CUBE + 2 * i + 1], R_VP)
        for s in range(T[OPTS, O_NSPACE]):
            if S[p, ON + s] == 0:
                continue
            spaces[g, p, s] = 1
            if T[SPACE + s, SP_KIND] == SP_SMALL:
                continue
            v = S[G, G_LAYOUT + s]
            vales[g, p, v] = 1
            for e in range(T[VALE + v, V_NEFF]):
                o = V_EFF + EF * e
                if T[VALE + v, o + E_KIND] == K_VP_PER_SUN:
                    eff += T[VALE + v, o + E_AMOUNT] * (suns // T[VALE + v, o + E_PER])
        score = S[p, PM_VP] + adv + vale + eff
        res[g, p, RS_SCORE] = score
        res[g, p, RS_TRACK] = S[p, PM_VP]
        res[g, p, RS_BONUS] = S[p, PM_BONUS]
        res[g, p, RS_ADV] = adv
        res[g, p, RS_VALE] = vale
        res[g, p, RS_EFF] = eff
        res[g, p, RS_WITHERS] = S[p, PM_WITHERS]
        res[g, p, RS_TURNS] = S[p, PM_TURNS]
        res[g, p, RS_MTOT] = S[p, PM_MTOT]
        res[g, p, RS_STOT] = S[p, PM_STOT]
        res[g, p, RS_CUBES] = S[p, NCUBES]
        res[g, p, RS_TRIG] = 1 if S[G, G_TRIGGER] == p else 0
        res[g, p, RS_DRUID] = S[p, PM_DRUID]
        res[g, p, RS_SEAT] = S[p, PM_SEAT]
        for a in range(na):
            acq[g, p, a] = S[p, ACQ + a]
        if p == 0 or score > top:
            top = score
    k = 0
    for p in range(n):
        if res[g, p, RS_SCORE] == top:
            k += 1
    for p in range(n):
        share[g, p] = 1.0 / k if res[g, p, RS_SCORE] == top else 0.0
    gout[g, GO_START] = S[G, G_START]
    gout[g, GO_ROUNDS] = S[G, G_ROUNDS]
    gout[g, GO_TRUNC] = S[G, G_TRUNC]
    for s in range(T[OPTS, O_NSPACE]):
        gout[g, GO_LAYOUT + s] = S[G, G_LAYOUT + s]


@kernel
def snapshot(T, S, X, t, p):
    """Row t of X (trace = 2, value-player training): p's position after its turn
    (state.SN_*)."""
    X[t, SN_PLAYER] = p
    X[t, SN_PROGRESS] = progress(T, S)
    X[t, SN_VP] = S[p, PM_VP]
    nc = S[p, NCUBES]
    X[t, SN_CUBES] = nc
    na = T[OPTS, O_NADV]
    for a in range(na):
        X[t, SN_ACQ + a] = S[p, ACQ + a]
    for i in range(X.shape[1] - SN_ACQ - na):
        X[t, SN_ACQ + na + i] = (MAX_ROWS * S[p, CUBE + 2 * i] + S[p, CUBE + 2 * i + 1]
                                 if i < nc else -1)


@kernel
def play_one(T, S, X, trace, evb):
    # spec §3: turns, rounds, the end trigger and truncation
    setup(T, S)
    S[G, G_TRACE] = trace if trace != 2 else 0
    S[G, G_EVB] = evb
    n = T[OPTS, O_PLAYERS]
    k = 0
    final_left = -1
    while True:
        rnd = k // n + 1
        S[G, G_ROUND] = rnd
        if final_left < 0 and rnd > T[OPTS, O_MAX_ROUNDS]:
            S[G, G_TRUNC] = 1
            break
        i = (S[G, G_START] + k) % n
        before = S[G, G_TRIGGER]
        turn(T, S, X, i)
        if trace == 2:               # snapshots from row evb (value-player training)
            snapshot(T, S, X, evb + S[G, G_TURNIDX] - 1, i)
        S[G, G_ROUNDS] = rnd
        k += 1
        if final_left >= 0:
            final_left -= 1
        elif S[G, G_TRIGGER] >= 0 and before < 0:
            final_left = n - 1
        if final_left == 0:
            break


@kernel
def base_cards(T, S):
    """The starting cards unsleeved (row BCR), which setup copies."""
    for u in range(T[OPTS, O_NCARDS]):
        for pos in range(4):
            S[BCR, CARD + CW * u + pos] = -1
        refresh_card(T, S, BCR, u)


@kernel
def play_games(T, S, X, seed, first_game, n_games, trace, evb,
               res, share, gout, acq, vales, spaces):
    """Games first_game .. first_game + n_games - 1 of master seed ``seed``.  Tracing
    (one game): X[turn] the turn records, X[evb + i, :EV_W] the events.  trace = 2
    (value-player training, any number of games): X[i] the snapshot after each turn of
    every game (state.SN_*); returns the rows written."""
    base_cards(T, S)
    row = 0
    for g in range(n_games):
        rng_init(S[RNG, 0:2].view(np.uint64), seed, first_game + np.uint64(g))
        play_one(T, S, X, trace, row if trace == 2 else evb)
        if trace == 2:
            for t in range(row, row + S[G, G_TURNIDX]):
                X[t, SN_GAME] = g
            row += S[G, G_TURNIDX]
        finish(T, S, g, res, share, gout, acq, vales, spaces)
    return row
