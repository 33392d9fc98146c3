"""Numba kernels of the fast engine: one game = setup, rounds of turns, scoring.

Every function follows docs/engine-spec.md (section numbers cited); state
layout in ``state``, tables in ``tables``.  ``T`` = Tables, ``S`` = State,
``Q`` = Policies, ``p`` = player index.  No allocation inside a game.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .rng import rng_init, randbelow, shuffle
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
    O_PLAYERS, O_POOL, O_L1SIZE, O_MAX_ROUNDS, O_PREP_GROSS, O_MAX_BUYS,
    P_PUSH_RISK, P_MANA_TARGET, P_MIN_SCORE, P_VALE_MIN_SCORE, P_AVOID_DECAY_STACK,
    P_TOKEN_NEEDED, P_USE_SUNSTONE, P_EXPLORE,
    RC_TARGET, RC_ID, RC_MANA_AT_LEAST, RC_MANA_AT_MOST, RC_ROUND_AT_LEAST,
    RC_ROUND_AT_MOST, RC_POOL_AT_MOST, RC_OWNED_AT_MOST, ABSENT,
    T_CARD_ADV, T_CARD_VALE, T_LEVEL, T_VALE_ABILITY, T_BEST_ADV, T_BEST_VALE,
    N_CARDS, N_COMMONS, N_VALE_SLOTS)
from .state import (
    G_POOL, G_ROUND, G_START, G_TRUNC, G_NTRACE, G_GAME,
    PS_TOKEN, PS_SKIP, PS_TURN, PS_DRUID_USED, PS_CONC_USED, PS_SUN_USED,
    PS_ARBOR_GROWTH, PS_VP, PS_BOX, PS_SPOILS, PS_HARVESTS, PS_N,
    CC_DECAY, CC_GROWTH, CC_GPG, CC_GUARD, CC_MANA, CC_NPERG, CC_OCC, CC_WP,
    CC_DRUID, CC_CHORUS, CC_CHORUS_AMT,
    TR_GAME, TR_ROUND, TR_PLAYER, TR_TURN, TR_SKIPPED, TR_PUSHES, TR_SPOILED,
    TR_SPOILED_PREP, TR_DRUID, TR_ARBOR, TR_CONCLAVE, TR_MANA, TR_ANIMAL, TR_FOREST,
    TR_SKY, TR_WILD, TR_VP, TR_VP_BOX, TR_POOL_AFTER, TR_TOKEN_SPENT, TR_SUNSTONE,
    TR_N_BOUGHT, TR_N_VALES, TR_FIELD, TR_DECK, TR_DISCARD, TR_DECAY, TR_FIXED_N,
    MAX_VALE_BUYS,
    R_SCORE, R_TOKENS, R_ADV, R_VALE, R_TIE, R_SEAT, R_SPOILS, R_HARVESTS, R_BOX,
    GO_START, GO_ROUNDS, GO_TRUNC, GO_POOL_LEFT)


# ---------------------------------------------------------------------------
# Cards (§1)
# ---------------------------------------------------------------------------
@njit(cache=True)
def refresh_card(T, S, p, c):
    """Rebuild the active abilities and symbol cache of card c (after sleeving)."""
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
    no_decay = False
    max_one = False
    for s in range(3):
        S.act[p, c, s] = AB_NONE
        S.act_amt[p, c, s] = 0
        k = S.slots[p, c, s]
        if k < 0:
            continue
        occ += 1
        d += T.adv[k, A_DECAY]
        g += T.adv[k, A_GROWTH]
        gu += T.adv[k, A_GUARDIAN]
        mana += T.adv[k, A_MANA]
        ab = T.adv[k, A_ABILITY]
        if ab == AB_NONE:
            continue
        if T.adv[k, A_LONGWISE] != 0 and S.lwtop[p, c] != s:
            continue                      # long-wise strip covered
        amt = T.adv[k, A_AMOUNT]
        S.act[p, c, s] = ab
        S.act_amt[p, c, s] = amt
        if T.adv[k, A_PERG] != 0:
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
    if no_decay:
        d = 0
    elif max_one and d > 1:
        d = 1
    S.cc[p, c, CC_DECAY] = d
    S.cc[p, c, CC_GROWTH] = g + gpg * gu
    S.cc[p, c, CC_GPG] = gpg
    S.cc[p, c, CC_GUARD] = gu
    S.cc[p, c, CC_MANA] = mana
    S.cc[p, c, CC_NPERG] = nperg
    S.cc[p, c, CC_OCC] = occ
    S.cc[p, c, CC_WP] = wp
    S.cc[p, c, CC_DRUID] = druid
    S.cc[p, c, CC_CHORUS] = chorus
    S.cc[p, c, CC_CHORUS_AMT] = chorus_amt


@njit(cache=True)
def guardians(S, p, c):
    return S.cc[p, c, CC_GUARD] + S.temp[p, c]


@njit(cache=True)
def growth(S, p, c):
    return S.cc[p, c, CC_GROWTH] + S.cc[p, c, CC_GPG] * S.temp[p, c]


@njit(cache=True)
def net(S, p, c):
    return S.cc[p, c, CC_DECAY] - S.cc[p, c, CC_GROWTH] - S.cc[p, c, CC_GPG] * S.temp[p, c]


@njit(cache=True)
def vale_active(S, p, i):
    """Owned vale i is active iff bought in an earlier turn of p (§4.3)."""
    return S.vturn[p, i] < S.ps[p, PS_TURN]


@njit(cache=True)
def global_growth(T, S, p):
    g = S.ps[p, PS_ARBOR_GROWTH]
    for i in range(S.vown_n[p]):
        v = S.vown[p, i]
        if T.vale[v, V_ABILITY] == VAB_ALWAYS_GROWTH and vale_active(S, p, i):
            g += T.vale[v, V_AMOUNT]
    return g


@njit(cache=True)
def decay_showing(T, S, p):
    tot = 0
    for i in range(S.field_n[p]):
        tot += net(S, p, S.field[p, i])
    od = S.on_deck[p]
    if od >= 0:
        tot += net(S, p, od)
    return tot - global_growth(T, S, p)


@njit(cache=True)
def gross_showing(S, p):
    tot = 0
    for i in range(S.field_n[p]):
        tot += S.cc[p, S.field[p, i], CC_DECAY]
    od = S.on_deck[p]
    if od >= 0:
        tot += S.cc[p, od, CC_DECAY]
    return tot


@njit(cache=True)
def find_active_vale(T, S, p, ability):
    """Index (in vown) of the first active owned vale with this ability, or -1."""
    for i in range(S.vown_n[p]):
        if T.vale[S.vown[p, i], V_ABILITY] == ability and vale_active(S, p, i):
            return i
    return -1


# ---------------------------------------------------------------------------
# Zones
# ---------------------------------------------------------------------------
@njit(cache=True)
def to_discard(S, p, c):
    S.disc[p, S.disc_n[p]] = c
    S.disc_n[p] += 1


@njit(cache=True)
def reshuffle(S, p):
    """The discard pile (entry order) is shuffled and becomes the (empty) deck."""
    n = S.disc_n[p]
    for i in range(n):
        S.deck[p, i] = S.disc[p, i]
    S.dhead[p] = 0
    S.dn[p] = n
    S.disc_n[p] = 0
    shuffle(S.rng, S.deck[p], n)


@njit(cache=True)
def reveal(S, p):
    """§4.2 reveal: reshuffle if the deck is empty, then the top card goes on deck."""
    if S.dhead[p] >= S.dn[p]:
        if S.disc_n[p] > 0:
            reshuffle(S, p)
        else:
            S.on_deck[p] = -1
            return
    S.on_deck[p] = S.deck[p, S.dhead[p]]
    S.dhead[p] += 1


@njit(cache=True)
def when_played(S, p, c):
    """§7: the active When Played abilities of card c (just put in the field)."""
    for s in range(3):
        ab = S.act[p, c, s]
        if ab == AB_WP_DISCARD_FIELD:
            best = -1
            bn = 0
            for i in range(S.field_n[p]):
                x = S.field[p, i]
                if x == c:
                    continue
                nt = net(S, p, x)
                if nt > bn:
                    bn = nt
                    best = i
            if best >= 0:
                x = S.field[p, best]
                for i in range(best, S.field_n[p] - 1):
                    S.field[p, i] = S.field[p, i + 1]
                S.field_n[p] -= 1
                to_discard(S, p, x)
        elif ab == AB_WP_PEEK:
            if S.dhead[p] >= S.dn[p]:
                reshuffle(S, p)
            if S.dhead[p] < S.dn[p]:
                top = S.deck[p, S.dhead[p]]
                if net(S, p, top) > 0:
                    S.dhead[p] += 1
                    to_discard(S, p, top)
        elif ab == AB_WP_SEARCH:
            if S.dhead[p] >= S.dn[p]:
                reshuffle(S, p)
            h = S.dhead[p]
            best = -1
            bn = 0
            for j in range(h, S.dn[p]):
                nt = net(S, p, S.deck[p, j])
                if nt > bn:
                    bn = nt
                    best = j
            if best >= 0:
                x = S.deck[p, best]
                for j in range(best, S.dn[p] - 1):
                    S.deck[p, j] = S.deck[p, j + 1]
                S.dn[p] -= 1
                to_discard(S, p, x)
            shuffle(S.rng, S.deck[p, h:], S.dn[p] - h)


@njit(cache=True)
def play_on_deck(S, p):
    """Move the on-deck card into the field, resolve When Played, reveal."""
    c = S.on_deck[p]
    S.field[p, S.field_n[p]] = c
    S.field_n[p] += 1
    S.on_deck[p] = -1
    if S.cc[p, c, CC_WP] != 0:
        when_played(S, p, c)
    reveal(S, p)


# ---------------------------------------------------------------------------
# Spoil check (§4.4)
# ---------------------------------------------------------------------------
@njit(cache=True)
def spoil_check(T, S, p):
    """True if the player spoils; tries Druid, Conclave, Blooming Arbor in order."""
    ds = decay_showing(T, S, p)
    if ds < 4:
        return False
    # 1. Peacekeeper Druid
    if S.ps[p, PS_DRUID_USED] == 0:
        has = False
        for i in range(S.field_n[p]):
            if S.cc[p, S.field[p, i], CC_DRUID] != 0:
                has = True
                break
        if has:
            S.ps[p, PS_DRUID_USED] = 1
            S.tr[TR_DRUID] = 1
            if S.on_deck[p] >= 0:
                to_discard(S, p, S.on_deck[p])
                S.on_deck[p] = -1
            reveal(S, p)
            ds = decay_showing(T, S, p)
            if ds < 4:
                return False
    # 2. Conclave of Ents: +1 guardian on a Grovetender-like card
    ci = find_active_vale(T, S, p, VAB_CONCLAVE)
    if S.ps[p, PS_CONC_USED] == 0 and ci >= 0:
        extra = T.vale[S.vown[p, ci], V_AMOUNT]
        target = -1
        for i in range(S.field_n[p]):
            c = S.field[p, i]
            g = S.cc[p, c, CC_GPG]
            if g > 0 and ds - g * extra < 4:
                target = c
                break
        if target < 0:
            c = S.on_deck[p]
            if c >= 0:
                g = S.cc[p, c, CC_GPG]
                if g > 0 and ds - g * extra < 4:
                    target = c
        if target >= 0:
            S.temp[p, target] += extra
            S.ps[p, PS_CONC_USED] = 1
            S.tr[TR_CONCLAVE] = 1
            return False          # chosen only if it brings decay below 4
    # 3. Blooming Arbor
    i = find_active_vale(T, S, p, VAB_ARBOR)
    if i >= 0:
        amt = T.vale[S.vown[p, i], V_AMOUNT]
        if ds - amt < 4:
            for j in range(i, S.vown_n[p] - 1):
                S.vown[p, j] = S.vown[p, j + 1]
                S.vturn[p, j] = S.vturn[p, j + 1]
            S.vown_n[p] -= 1
            S.ps[p, PS_ARBOR_GROWTH] += amt
            S.tr[TR_ARBOR] = 1
            return False
    return True


# ---------------------------------------------------------------------------
# Planting (§4.2, §6.1)
# ---------------------------------------------------------------------------
@njit(cache=True)
def decide_push(T, S, Q, p):
    mt = Q.par[p, P_MANA_TARGET]
    if mt > 0:
        fm = 0
        for i in range(S.field_n[p]):
            fm += S.cc[p, S.field[p, i], CC_MANA]
        if fm >= mt:
            return False
    thr = 4 - decay_showing(T, S, p)
    bad = 0
    if S.dhead[p] < S.dn[p]:
        n = S.dn[p] - S.dhead[p]
        for j in range(S.dhead[p], S.dn[p]):
            if net(S, p, S.deck[p, j]) >= thr:
                bad += 1
    else:
        n = S.disc_n[p]
        if n == 0:
            return True
        for j in range(n):
            if net(S, p, S.disc[p, j]) >= thr:
                bad += 1
    return bad * 1000 <= Q.par[p, P_PUSH_RISK] * n


@njit(cache=True)
def planting(T, S, Q, p):
    """Push until the policy passes; True if the player spoiled."""
    pushes = 0
    spoiled = False
    while S.on_deck[p] >= 0:
        if not decide_push(T, S, Q, p):
            break
        pushes += 1
        play_on_deck(S, p)
        if spoil_check(T, S, p):
            spoiled = True
            break
    S.tr[TR_PUSHES] = pushes
    return spoiled


# ---------------------------------------------------------------------------
# Buying vales (§6.3, §6.5)
# ---------------------------------------------------------------------------
@njit(cache=True)
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


@njit(cache=True)
def vale_affordable(T, S, v, conv):
    """Can the spirits pay vale v, after turning one spirit `conv` into wild (-1: none)?"""
    a = S.spirits[0]
    f = S.spirits[1]
    s = S.spirits[2]
    w = S.spirits[3]
    if conv == 0:
        a -= 1
        w += 1
    elif conv == 1:
        f -= 1
        w += 1
    elif conv == 2:
        s -= 1
        w += 1
    ok, a, f, s, w = pay(a, f, s, w, T.vale[v, V_COST_A], T.vale[v, V_COST_F],
                         T.vale[v, V_COST_S], T.vale[v, V_COST_W])
    return ok


@njit(cache=True)
def owns_vale(S, p, v):
    n = 0
    for i in range(S.vown_n[p]):
        if S.vown[p, i] == v:
            n += 1
    return n


@njit(cache=True)
def sunstone_cost(T, S, Q, p, mana):
    """Mana the Sunstone Aerie asks if usable now (policy, active, unused, affordable), else -1."""
    if Q.par[p, P_USE_SUNSTONE] == 0 or S.ps[p, PS_SUN_USED] != 0:
        return -1
    i = find_active_vale(T, S, p, VAB_SUNSTONE)
    if i < 0:
        return -1
    amt = T.vale[S.vown[p, i], V_AMOUNT]
    return amt if mana >= amt else -1


@njit(cache=True)
def rule_holds(Q, p, r, mana, rnd, pool):
    """The rule's mana / round / pool conditions (owned_at_most is per candidate)."""
    x = Q.rules[p, r, RC_MANA_AT_LEAST]
    if x != ABSENT and mana < x:
        return False
    x = Q.rules[p, r, RC_MANA_AT_MOST]
    if x != ABSENT and mana > x:
        return False
    x = Q.rules[p, r, RC_ROUND_AT_LEAST]
    if x != ABSENT and rnd < x:
        return False
    x = Q.rules[p, r, RC_ROUND_AT_MOST]
    if x != ABSENT and rnd > x:
        return False
    x = Q.rules[p, r, RC_POOL_AT_MOST]
    if x != ABSENT and pool > x:
        return False
    return True


@njit(cache=True)
def vale_candidates(T, S, Q, p, use_min):
    """Fill S.vorder with candidate vale slots, score descending then slot ascending."""
    n = 0
    for sl in range(N_VALE_SLOTS):
        v = S.vslots[sl]
        if v < 0:
            continue
        if T.vale[v, V_UNIQUE] != 0 and owns_vale(S, p, v) > 0:
            continue
        sc = Q.vale_score[p, v]
        if use_min and sc < Q.par[p, P_VALE_MIN_SCORE]:
            continue
        j = n
        while j > 0 and Q.vale_score[p, S.vslots[S.vorder[j - 1]]] < sc:
            S.vorder[j] = S.vorder[j - 1]
            j -= 1
        S.vorder[j] = sl
        n += 1
    return n


@njit(cache=True)
def vale_rule_match(T, S, Q, p, r, v):
    tt = Q.rules[p, r, RC_TARGET]
    if tt == T_CARD_VALE:
        if v != Q.rules[p, r, RC_ID]:
            return False
    elif tt == T_VALE_ABILITY:
        if T.vale[v, V_ABILITY] != Q.rules[p, r, RC_ID]:
            return False
    elif tt != T_BEST_VALE:
        return False
    x = Q.rules[p, r, RC_OWNED_AT_MOST]
    if x != ABSENT and owns_vale(S, p, v) > x:
        return False
    return True


@njit(cache=True)
def choose_vale(T, S, Q, p, mana, rnd):
    """(slot, spirit to turn wild or -1, sunstone mana) of the next vale to buy; slot -1: none."""
    has_rules = Q.n_rules[p] > 0
    n = vale_candidates(T, S, Q, p, not has_rules)
    if n == 0:
        return -1, -1, 0
    pool = S.gs[G_POOL]
    if not has_rules:
        for i in range(n):
            sl = S.vorder[i]
            if vale_affordable(T, S, S.vslots[sl], -1):
                return sl, -1, 0
    else:
        for r in range(Q.n_rules[p]):
            if not rule_holds(Q, p, r, mana, rnd, pool):
                continue
            for i in range(n):          # best-scored match first
                sl = S.vorder[i]
                v = S.vslots[sl]
                if vale_rule_match(T, S, Q, p, r, v) and vale_affordable(T, S, v, -1):
                    return sl, -1, 0
    cost = sunstone_cost(T, S, Q, p, mana)
    if cost < 0:
        return -1, -1, 0
    nr = Q.n_rules[p] if has_rules else 1
    for r in range(nr):
        if has_rules and not rule_holds(Q, p, r, mana, rnd, pool):
            continue
        for i in range(n):
            sl = S.vorder[i]
            v = S.vslots[sl]
            if has_rules and not vale_rule_match(T, S, Q, p, r, v):
                continue
            for x in range(3):
                if S.spirits[x] > 0 and vale_affordable(T, S, v, x):
                    return sl, x, cost
    return -1, -1, 0


@njit(cache=True)
def buy_vales(T, S, Q, p, mana, rnd):
    """§6.3: buy up to 2 vales; returns the mana left (Sunstone may cost mana)."""
    nv = 0
    while nv < MAX_VALE_BUYS:
        sl, conv, cost = choose_vale(T, S, Q, p, mana, rnd)
        if sl < 0:
            break
        v = S.vslots[sl]
        if conv >= 0:
            S.spirits[conv] -= 1
            S.spirits[3] += 1
            mana -= cost
            S.ps[p, PS_SUN_USED] = 1
            S.tr[TR_SUNSTONE] = 1
        ok, a, f, s, w = pay(S.spirits[0], S.spirits[1], S.spirits[2], S.spirits[3],
                             T.vale[v, V_COST_A], T.vale[v, V_COST_F],
                             T.vale[v, V_COST_S], T.vale[v, V_COST_W])
        S.spirits[0] = a
        S.spirits[1] = f
        S.spirits[2] = s
        S.spirits[3] = w
        k = S.vown_n[p]
        S.vown[p, k] = v
        S.vturn[p, k] = S.ps[p, PS_TURN]
        S.vown_n[p] = k + 1
        S.vacq[p, v] += 1
        S.vslots[sl] = -1
        S.bought_vslot[sl] = 1
        S.tr[TR_N_VALES + 0] = S.tr[TR_N_VALES] + 1
        S.tr[S.tr.shape[0] - MAX_VALE_BUYS + nv] = v
        nv += 1
    return mana


# ---------------------------------------------------------------------------
# Buying advancements (§6.4, §6.5)
# ---------------------------------------------------------------------------
@njit(cache=True)
def placement(T, S, Q, p, k):
    """(card, effective cost, Chorus used) of kind k's placement; card -1: none."""
    pos = T.adv[k, A_POS]
    cost = T.adv[k, A_COST]
    for i in range(S.field_n[p]):
        c = S.field[p, i]
        if (S.cc[p, c, CC_CHORUS] != 0 and S.chorus_used[p, c] == 0
                and S.slots[p, c, pos] < 0 and S.reserved[p, c, pos] == 0):
            eff = cost - S.cc[p, c, CC_CHORUS_AMT]
            return c, (eff if eff > 0 else 0), 1
    avoid = Q.par[p, P_AVOID_DECAY_STACK] != 0 and T.adv[k, A_DECAY] > 0
    perg = T.adv[k, A_PERG] != 0
    guard = T.adv[k, A_GUARDIAN] > 0
    lim = T.adv[k, A_GROWTH] > 0 or T.adv[k, A_LIMIT] != 0
    best = -1
    bs = 0
    for i in range(S.field_n[p]):
        c = S.field[p, i]
        if S.slots[p, c, pos] >= 0 or S.reserved[p, c, pos] != 0:
            continue
        d = S.cc[p, c, CC_DECAY]
        sc = S.cc[p, c, CC_OCC]
        if avoid and d > 0:
            sc -= 1000
        if perg:
            sc += 10 * guardians(S, p, c)
        if guard:
            sc += 10 * S.cc[p, c, CC_NPERG]
        if lim:
            sc += 10 * d
        if best < 0 or sc > bs:
            best = c
            bs = sc
    return best, cost, 0


@njit(cache=True)
def adv_rule_match(T, S, Q, p, r, k):
    tt = Q.rules[p, r, RC_TARGET]
    if tt == T_CARD_ADV:
        if k != Q.rules[p, r, RC_ID]:
            return False
    elif tt == T_LEVEL:
        if T.adv[k, A_SUPPLY] != SUP_COMMONS or T.adv[k, A_LEVEL] != Q.rules[p, r, RC_ID]:
            return False
    elif tt != T_BEST_ADV:
        return False
    x = Q.rules[p, r, RC_OWNED_AT_MOST]
    if x != ABSENT and S.owned_adv[p, k] > x:
        return False
    return True


@njit(cache=True)
def buy_advancements(T, S, Q, p, mana, rnd, limit):
    """§6.4: buy up to `limit` advancements, reserving their placements."""
    na = T.adv.shape[0]
    mb = T.opts[O_MAX_BUYS]
    nb = 0
    while nb < limit:
        bonus = 1 if (S.ps[p, PS_TOKEN] != 0 and Q.par[p, P_TOKEN_NEEDED] != 0) else 0
        nc = 0
        nbuy = 0
        for src in range(N_COMMONS + na):
            if src < N_COMMONS:
                k = S.commons[src]
                if k < 0:
                    continue
            else:
                k = src - N_COMMONS
                if S.fert_left[k] <= 0:
                    continue
            card, cost, ch = placement(T, S, Q, p, k)
            S.cand_kind[nc] = k
            S.cand_src[nc] = src
            S.cand_card[nc] = card
            S.cand_cost[nc] = cost
            S.cand_chorus[nc] = ch
            ok = card >= 0 and cost <= mana + bonus
            S.cand_ok[nc] = 1 if ok else 0
            if ok:
                nbuy += 1
            nc += 1
        pick = -1
        ex = Q.par[p, P_EXPLORE]
        if ex > 0:
            r = randbelow(S.rng, 1000)
            if r < ex and nbuy > 0:
                j = randbelow(S.rng, nbuy)
                for i in range(nc):
                    if S.cand_ok[i] != 0:
                        if j == 0:
                            pick = i
                            break
                        j -= 1
        if pick < 0:
            if Q.n_rules[p] > 0:
                pool = S.gs[G_POOL]
                for r in range(Q.n_rules[p]):
                    if not rule_holds(Q, p, r, mana, rnd, pool):
                        continue
                    bs = 0
                    for i in range(nc):
                        if S.cand_ok[i] == 0:
                            continue
                        k = S.cand_kind[i]
                        if not adv_rule_match(T, S, Q, p, r, k):
                            continue
                        sc = Q.adv_score[p, k]
                        if pick < 0 or sc > bs:
                            pick = i
                            bs = sc
                    if pick >= 0:
                        break
            else:
                ms = Q.par[p, P_MIN_SCORE]
                bs = 0
                for i in range(nc):
                    if S.cand_ok[i] == 0:
                        continue
                    sc = Q.adv_score[p, S.cand_kind[i]]
                    if sc < ms:
                        continue
                    if pick < 0 or sc > bs:
                        pick = i
                        bs = sc
        if pick < 0:
            break
        k = S.cand_kind[pick]
        card = S.cand_card[pick]
        cost = S.cand_cost[pick]
        pos = T.adv[k, A_POS]
        if cost > mana:
            S.ps[p, PS_TOKEN] = 0
            S.tr[TR_TOKEN_SPENT] = 1
            mana += 1
        mana -= cost
        S.reserved[p, card, pos] = 1
        if S.cand_chorus[pick] != 0:
            S.chorus_used[p, card] = 1
        src = S.cand_src[pick]
        if src < N_COMMONS:
            S.commons[src] = -1
            S.bought_common[src] = 1
        else:
            S.fert_left[k] -= 1
        S.tr[TR_FIXED_N + nb] = k
        S.tr[TR_FIXED_N + mb + nb] = card
        S.tr[TR_FIXED_N + 2 * mb + nb] = pos
        S.acq[p, k] += 1
        if S.first_round[p, k] == 0:
            S.first_round[p, k] = rnd
        S.owned_adv[p, k] += 1
        nb += 1
        S.tr[TR_N_BOUGHT] = nb
    return mana


# ---------------------------------------------------------------------------
# Harvest (§4.3)
# ---------------------------------------------------------------------------
@njit(cache=True)
def harvest(T, S, Q, p, rnd):
    fn = S.field_n[p]
    # 1. Conclave of Ents on the best per-guardian Harvest card
    ci = find_active_vale(T, S, p, VAB_CONCLAVE)
    if S.ps[p, PS_CONC_USED] == 0 and ci >= 0:
        best = -1
        bs = 0
        for i in range(fn):
            c = S.field[p, i]
            sm = 0
            for s in range(3):
                ab = S.act[p, c, s]
                if ab == AB_HVP_PER_GUARDIAN or ab == AB_HMANA_PER_GUARDIAN:
                    sm += S.act_amt[p, c, s]
            if sm > bs:
                bs = sm
                best = c
        if best >= 0:
            S.temp[p, best] += T.vale[S.vown[p, ci], V_AMOUNT]
            S.ps[p, PS_CONC_USED] = 1
            S.tr[TR_CONCLAVE] = 1
    # 2-4. mana, spirits, VP
    mana = 0
    penalty_seen = False
    a = 0
    f = 0
    sk = 0
    w = 0
    vp = 0
    for i in range(fn):
        c = S.field[p, i]
        for s in range(3):
            k = S.slots[p, c, s]
            if k < 0:
                continue
            S.harvested[p, k] = 1
            mana += T.adv[k, A_MANA]
            a += T.adv[k, A_ANIMAL]
            f += T.adv[k, A_FOREST]
            sk += T.adv[k, A_SKY]
            w += T.adv[k, A_WILD]
            vp += T.adv[k, A_HVP]
            ab = S.act[p, c, s]
            amt = S.act_amt[p, c, s]
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
    for i in range(S.vown_n[p]):
        if not vale_active(S, p, i):
            continue
        v = S.vown[p, i]
        vab = T.vale[v, V_ABILITY]
        extra += T.vale[v, V_EXTRA_BUYS]
        if vab == VAB_HMANA:
            mana += T.vale[v, V_AMOUNT]
        elif vab == VAB_HSPIRIT:
            sy = T.vale[v, V_SYMBOL]
            amt = T.vale[v, V_AMOUNT]
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
            c = S.field[p, i]
            for s in range(3):
                if S.act[p, c, s] == AB_HMANA_PENALTY:
                    mana -= S.act_amt[p, c, s]
                    if mana < 0:
                        mana = 0
    pool = S.gs[G_POOL]
    from_pool = vp if vp <= pool else pool
    S.gs[G_POOL] = pool - from_pool
    S.ps[p, PS_VP] += vp
    S.ps[p, PS_BOX] += vp - from_pool
    S.ps[p, PS_HARVESTS] += 1
    S.tr[TR_MANA] = mana
    S.tr[TR_ANIMAL] = a
    S.tr[TR_FOREST] = f
    S.tr[TR_SKY] = sk
    S.tr[TR_WILD] = w
    S.tr[TR_VP] = vp
    S.tr[TR_VP_BOX] = vp - from_pool
    # 5-6. buy
    S.spirits[0] = a
    S.spirits[1] = f
    S.spirits[2] = sk
    S.spirits[3] = w
    mana = buy_vales(T, S, Q, p, mana, rnd)
    buy_advancements(T, S, Q, p, mana, rnd, 2 + extra)


# ---------------------------------------------------------------------------
# Discard, replenish, prep (§4.5, §5, §4.6)
# ---------------------------------------------------------------------------
@njit(cache=True)
def draw_adv(S, level):
    """Top card of the level deck (0-based level) or -1."""
    h = S.ahead[level]
    if h >= S.an[level]:
        return -1
    S.ahead[level] = h + 1
    return S.adeck[level, h]


@njit(cache=True)
def replenish_common(S, sl):
    for lv in range(sl // 3, 3):
        k = draw_adv(S, lv)
        if k >= 0:
            S.commons[sl] = k
            return
    S.commons[sl] = -1


@njit(cache=True)
def replenish_vale(S, sl):
    for lv in range(sl // 4, 2):
        h = S.vhead[lv]
        if h < S.vn[lv]:
            S.vhead[lv] = h + 1
            S.vslots[sl] = S.vdeck[lv, h]
            return
    S.vslots[sl] = -1


@njit(cache=True)
def discard_phase(T, S, p):
    mb = T.opts[O_MAX_BUYS]
    for i in range(S.tr[TR_N_BOUGHT]):
        k = S.tr[TR_FIXED_N + i]
        c = S.tr[TR_FIXED_N + mb + i]
        pos = S.tr[TR_FIXED_N + 2 * mb + i]
        S.slots[p, c, pos] = k
        S.reserved[p, c, pos] = 0
        if T.adv[k, A_LONGWISE] != 0:
            S.lwtop[p, c] = pos
        refresh_card(T, S, p, c)
    for i in range(S.field_n[p]):
        to_discard(S, p, S.field[p, i])
    S.field_n[p] = 0
    for sl in range(N_COMMONS):
        if S.bought_common[sl] != 0:
            S.bought_common[sl] = 0
            replenish_common(S, sl)
    for sl in range(N_VALE_SLOTS):
        if S.bought_vslot[sl] != 0:
            S.bought_vslot[sl] = 0
            replenish_vale(S, sl)


@njit(cache=True)
def prep(T, S, p):
    """§4.6: reset once-per-window uses, fill the field until 3 decay show."""
    S.ps[p, PS_DRUID_USED] = 0
    S.ps[p, PS_CONC_USED] = 0
    S.ps[p, PS_SUN_USED] = 0
    S.ps[p, PS_ARBOR_GROWTH] = 0
    for c in range(N_CARDS):
        S.temp[p, c] = 0
        S.chorus_used[p, c] = 0
    gross = T.opts[O_PREP_GROSS] != 0
    if S.on_deck[p] < 0:
        reveal(S, p)
    while S.on_deck[p] >= 0:
        play_on_deck(S, p)
        if spoil_check(T, S, p):
            S.ps[p, PS_SKIP] = 1
            S.ps[p, PS_TOKEN] = 1
            S.ps[p, PS_SPOILS] += 1
            S.tr[TR_SPOILED_PREP] = 1
            break
        if gross:
            if gross_showing(S, p) >= 3:
                break
        elif decay_showing(T, S, p) >= 3:
            break


# ---------------------------------------------------------------------------
# Turn, game (§3, §4, §4.7)
# ---------------------------------------------------------------------------
@njit(cache=True)
def take_turn(T, S, Q, p, rnd):
    mb = T.opts[O_MAX_BUYS]
    S.tr[:TR_FIXED_N] = 0
    S.tr[TR_FIXED_N:] = -1
    S.ps[p, PS_TURN] += 1
    S.tr[TR_GAME] = S.gs[G_GAME]
    S.tr[TR_ROUND] = rnd
    S.tr[TR_PLAYER] = p
    S.tr[TR_TURN] = S.ps[p, PS_TURN]
    if S.ps[p, PS_SKIP] != 0:
        S.ps[p, PS_SKIP] = 0
        S.tr[TR_SKIPPED] = 1
    elif planting(T, S, Q, p):
        S.tr[TR_SPOILED] = 1
        S.ps[p, PS_TOKEN] = 1
        S.ps[p, PS_SPOILS] += 1
    else:
        harvest(T, S, Q, p, rnd)
    discard_phase(T, S, p)
    prep(T, S, p)
    S.tr[TR_POOL_AFTER] = S.gs[G_POOL]
    S.tr[TR_FIELD] = S.field_n[p]
    S.tr[TR_DECK] = S.dn[p] - S.dhead[p]
    S.tr[TR_DISCARD] = S.disc_n[p]
    S.tr[TR_DECAY] = decay_showing(T, S, p)


@njit(cache=True)
def reset_state(T, S):
    S.gs[:] = 0
    S.fert_left[:] = T.fertile
    S.lwtop[:] = -1
    S.temp[:] = 0
    S.chorus_used[:] = 0
    S.reserved[:] = 0
    S.disc_n[:] = 0
    S.field_n[:] = 0
    S.on_deck[:] = -1
    S.vown_n[:] = 0
    S.ps[:] = 0
    S.acq[:] = 0
    S.first_round[:] = 0
    S.harvested[:] = 0
    S.vacq[:] = 0
    S.bought_common[:] = 0
    S.bought_vslot[:] = 0
    S.owned_adv[:] = 0


@njit(cache=True)
def setup(T, S, seed, game_index):
    """§2 draw order 1-8 and §3 setup."""
    P = T.opts[O_PLAYERS]
    reset_state(T, S)
    rng_init(S.rng, seed, game_index)
    for lv in range(3):
        n = T.lvl_n[lv]
        for i in range(n):
            S.adeck[lv, i] = T.lvl_cards[lv, i]
        shuffle(S.rng, S.adeck[lv], n)
        S.ahead[lv] = 0
        S.an[lv] = T.opts[O_L1SIZE] if lv == 0 else n
    for lv in range(2):
        n = T.vale_n[lv]
        for i in range(n):
            S.vdeck[lv, i] = T.vale_cards[lv, i]
        shuffle(S.rng, S.vdeck[lv], n)
        S.vhead[lv] = 0
        S.vn[lv] = n
    for p in range(P):
        for c in range(N_CARDS):
            S.deck[p, c] = c
        shuffle(S.rng, S.deck[p], N_CARDS)
        S.dhead[p] = 0
        S.dn[p] = N_CARDS
    S.gs[G_START] = randbelow(S.rng, P)
    for sl in range(N_COMMONS):
        replenish_common(S, sl)
    for sl in range(N_VALE_SLOTS):
        replenish_vale(S, sl)
    S.gs[G_POOL] = T.opts[O_POOL]
    for p in range(P):
        for c in range(N_CARDS):
            for s in range(3):
                k = T.start[c, s]
                S.slots[p, c, s] = k
                if k >= 0:
                    S.owned_adv[p, k] += 1
            refresh_card(T, S, p, c)
    for p in range(P):
        reveal(S, p)
        prep(T, S, p)


@njit(cache=True)
def score_game(T, S, res, share):
    """§4.7 scoring into res[P, R_N] and share[P]."""
    P = T.opts[O_PLAYERS]
    for p in range(P):
        adv_vp = 0
        tie = 0
        for c in range(N_CARDS):
            symbols = 0
            gaia = 0
            for s in range(3):
                k = S.slots[p, c, s]
                if k < 0:
                    continue
                adv_vp += T.adv[k, A_EVP]
                symbols += T.adv[k, A_SYMBOLS]
                if T.adv[k, A_LEVEL] == 3 and T.adv[k, A_SUPPLY] == SUP_COMMONS:
                    tie += 1
                if S.act[p, c, s] == AB_ENDGAME_PER_SYMBOL:
                    gaia += S.act_amt[p, c, s]
            adv_vp += gaia * symbols
        vale_vp = 0
        for i in range(S.vown_n[p]):
            v = S.vown[p, i]
            vale_vp += T.vale[v, V_END_VP]
            if T.vale[v, V_LEVEL] == 2:
                tie += 1
        res[p, R_TOKENS] = S.ps[p, PS_VP]
        res[p, R_ADV] = adv_vp
        res[p, R_VALE] = vale_vp
        res[p, R_SCORE] = S.ps[p, PS_VP] + adv_vp + vale_vp
        res[p, R_TIE] = tie
        res[p, R_SEAT] = (p - S.gs[G_START] + P) % P
        res[p, R_SPOILS] = S.ps[p, PS_SPOILS]
        res[p, R_HARVESTS] = S.ps[p, PS_HARVESTS]
        res[p, R_BOX] = S.ps[p, PS_BOX]
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


@njit(cache=True)
def play_one(T, S, Q, seed, game_index, trace):
    """Play one game in S; append one trace row per turn if trace has rows."""
    P = T.opts[O_PLAYERS]
    setup(T, S, seed, game_index)
    S.gs[G_GAME] = game_index
    max_rounds = T.opts[O_MAX_ROUNDS]
    rnd = 0
    while True:
        rnd += 1
        S.gs[G_ROUND] = rnd
        for j in range(P):
            p = (S.gs[G_START] + j) % P
            take_turn(T, S, Q, p, rnd)
            if trace.shape[0] > 0:
                row = S.gs[G_NTRACE]
                if row < trace.shape[0]:
                    trace[row, :] = S.tr
                S.gs[G_NTRACE] = row + 1
        if S.gs[G_POOL] == 0:
            break
        if rnd >= max_rounds:
            S.gs[G_TRUNC] = 1
            break


@njit(cache=True)
def play_games(T, S, Q, seed, first_game, n_games, res, share, gout, acq, first_round,
               harvested, vacq, trace):
    """Play games first_game .. first_game+n_games-1 of the run seeded `seed`.

    Writes res[g, p, R_*], share[g, p], gout[g, GO_*], acq/first_round/harvested
    [g, p, kind], vacq[g, p, vale]; trace rows (all games appended) if trace
    has rows.  Returns the number of trace rows wanted (may exceed its size).
    """
    P = T.opts[O_PLAYERS]
    ntrace = 0
    for g in range(n_games):
        gi = np.uint64(first_game) + np.uint64(g)
        play_one(T, S, Q, seed, gi, trace[min(ntrace, trace.shape[0]):])
        ntrace += S.gs[G_NTRACE]
        score_game(T, S, res[g], share[g])
        gout[g, GO_START] = S.gs[G_START]
        gout[g, GO_ROUNDS] = S.gs[G_ROUND]
        gout[g, GO_TRUNC] = S.gs[G_TRUNC]
        gout[g, GO_POOL_LEFT] = S.gs[G_POOL]
        for p in range(P):
            acq[g, p, :] = S.acq[p]
            first_round[g, p, :] = S.first_round[p]
            harvested[g, p, :] = S.harvested[p]
            vacq[g, p, :] = S.vacq[p]
    return ntrace
