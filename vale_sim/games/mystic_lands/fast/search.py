"""The search player in the Mystic Lands fast engine (docs/search.md): snapshot,
resampling, play from a mid-turn state, and the game loop in which search players
decide each grow decision, each enchantment step and each buy step by rollouts.

Arrays, besides ``T`` (the game's tables, its policies from row QB), ``S`` and ``X``
(``engine``):

* ``D`` -- a second state array (``state.new_state``) the rollouts play in: each
  rollout starts with :func:`snapshot` (S -> D, the parts a game reads) and
  :func:`resample`;
* ``TR[p]`` -- the tables the rollouts of search player p play with: the game's card
  set and rules, and the policies they give every seat (row p: its rollout policy;
  the others: its model of the opponents), ``tables.game_tables`` stacked;
* ``XS[p, X_*]`` -- search parameters of player p (X_ON 0: a scripted player);
* ``W[o, W_*]`` -- the options of the decision being made, their totals, the survivors;
* ``RES``, ``SH``, ``GO``, ``AQ``, ``VL``, ``SPC`` -- one game's outputs of ``finish``,
  scratch for the score of a rollout.

Row p of the policies of ``T`` of a search player holds its rollout policy: every
choice the search does not make (the Rain tokens, the Wither choice, sleeving,
conversions, Sun Priestess, the optional effects) is that policy's, in the game and
in the rollouts.  Grow / Rest, each enchantment step of D7 and each buy step of D11
are decisions (a step with one legal option -- "no more" only -- is not); the kinds
the search does not decide (X_DECIDES) take option 0, the rollout policy's own choice.
"""
from __future__ import annotations

import numpy as np

from vale_sim.kernels.jit import kernel
from vale_sim.kernels.rng import rng_init
from vale_sim.kernels.search import (WIN_POINTS, rollout_key, n_rounds, round_target,
                                     keep_best, best_alive)
from .engine import (PICK, setup, base_cards, turn, turn_begin, turn_end, night_begin,
                     night_grow, night_rest, grow_wanted, day, day_gains, enchant_steps,
                     day_tracks, buy, buy_slot, day_end, dusk, finish, enchant,
                     policy_enchant, choose_buy, spot_rows, shuffle_row, spot_named,
                     druid_hidden, refresh_card)
from .state import (G, DK, MK1, MK2, REC, CAND, SCR, RNG, CARD, CW, DECK, DISC, LAND,
                    CUBE, TRACK, NOD, ON, ACQ, HELD, DHEAD, DN, NDISC, NLAND, NCUBES, NHELD,
                    PM_ENCH, PM_BOUGHT, PM_SPIRIT, PM_MANA, PM_ONMASK, G_START, G_ROUND,
                    G_TRIGGER, G_TRUNC, G_ROUNDS, G_TURNIDX, G_TRACE, G_EVB, G_AH, G_AN,
                    G_NM1, G_NM2, G_LAYOUT, G_OWNER, G_ONSP, G_SPNR, G_SPCOST, G_WIDTH, RC_N,
                    SPOT, SP_NEVER, PM_DRUID, PM_SEAT)
from .tables import (OPTS, O_PLAYERS, O_NCARDS, O_NSPACE, O_NADV, O_NVALE, O_MAPSTART,
                     O_MAX_ROUNDS, O_MAX_ENCH, O_MAX_BUYS, O_CUBES, O_LEN, SPACE, SP_KIND,
                     SP_START, SP_SMALL, SP_I, SP_ADJ, LIST, ADV, A_COST, MAX_ROWS, QB,
                     NEVER_A, P_RULE0, RL_ADV, UID, A_POS, O_DRUID_BASE, O_DRUID_DEAL)

# -- search parameters XS[p, .] ---------------------------------------------------
X_ON, X_K, X_HALVING, X_DECIDES, X_COMMITS, X_N = range(6)   # X_DECIDES: bit 1 << phase
# X_COMMITS: how many of the first buy rules of p's policy (row p of T) are commitments
# (vale_sim.search.committed_cards): a step whose own choice one names is not searched
# -- options W[o, .]: (a, b, c) of the option, its total, the survivors list -------
W_A, W_B, W_C, W_TOTAL, W_ALIVE, W_N = range(6)
# -- decision phases: grow or rest, an enchantment step, a buy step -----------------
PH_PUSH, PH_VALE, PH_ADV = range(3)


def max_options(T) -> int:
    """Rows of W: every spot of the map (or every Market slot) and "no more"."""
    o = T[OPTS]
    from .tables import O_ML1, O_ML2, O_NGROWTH
    return max(int(o[O_NSPACE]) * MAX_ROWS, int(o[O_ML1]) + int(o[O_ML2]) + int(o[O_NGROWTH]),
               2) + 1


# ---------------------------------------------------------------------------
# Snapshot and resampling
# ---------------------------------------------------------------------------
@kernel
def snapshot(T, S, D):
    """D = S for everything a game reads from here on: each player's scalars, cards,
    deck, Discard, Land, cubes, tracks, night-or-day marks, spaces, acquisitions and
    held Advances; the game row; the Advance decks not drawn yet (and the Druid hands
    dealt at setup, which resample reads); the Market; the turn record so far.  The
    scratch rows are written before they are read; the spot rows and the stream are
    resample's."""
    nc = T[OPTS, O_NCARDS]
    nsp = T[OPTS, O_NSPACE]
    na = T[OPTS, O_NADV]
    for p in range(T[OPTS, O_PLAYERS]):
        for x in range(CARD + CW * nc):
            D[p, x] = S[p, x]
        for x in range(DECK + S[p, DHEAD], DECK + S[p, DN]):
            D[p, x] = S[p, x]
        for x in range(S[p, NDISC]):
            D[p, DISC + x] = S[p, DISC + x]
        for x in range(S[p, NLAND]):
            D[p, LAND + x] = S[p, LAND + x]
        for x in range(2 * S[p, NCUBES]):
            D[p, CUBE + x] = S[p, CUBE + x]
        for s in range(nsp):
            D[p, TRACK + s] = S[p, TRACK + s]
            D[p, NOD + s] = S[p, NOD + s]
            D[p, ON + s] = S[p, ON + s]
        for a in range(na):
            D[p, ACQ + a] = S[p, ACQ + a]
        for x in range(S[p, NHELD]):
            D[p, HELD + x] = S[p, HELD + x]
    for x in range(G_WIDTH):
        D[G, x] = S[G, x]
    for i in range(S[G, G_AN]):                  # the Druid hands dealt, the Druid deck
        D[DK, i] = S[DK, i]
    for lv in range(1, 3):
        for i in range(S[G, G_AH + lv], S[G, G_AN + lv]):
            D[DK + lv, i] = S[DK + lv, i]
    for k in range(S[G, G_NM1]):
        D[MK1, k] = S[MK1, k]
    for k in range(S[G, G_NM2]):
        D[MK2, k] = S[MK2, k]
    for x in range(RC_N):
        D[REC, x] = S[REC, x]
    D[G, G_TRACE] = 0


@kernel
def canonical_shuffle(S, row, lo, hi):
    """Sort S[row, lo:hi] (forget its order), then shuffle it from S's stream."""
    for i in range(lo + 1, hi):
        x = S[row, i]
        j = i - 1
        while j >= lo and S[row, j] > x:
            S[row, j + 1] = S[row, j]
            j -= 1
        S[row, j + 1] = x
    if hi - lo > 1:
        shuffle_row(S, row, lo, hi - lo)


@kernel
def revealed_spaces(T, S):
    """Bit s: space s is face up (reference engine ``revealed``: the small spaces, the
    start's links, the links of every space with a cube; and a space with a cube)."""
    nsp = T[OPTS, O_NSPACE]
    mask = T[SPACE + T[OPTS, O_MAPSTART], SP_ADJ]
    for s in range(nsp):
        if T[SPACE + s, SP_KIND] == SP_START or T[SPACE + s, SP_KIND] == SP_SMALL:
            mask |= np.int64(1) << s
        if S[G, G_ONSP + s] > 0:
            mask |= T[SPACE + s, SP_ADJ] | (np.int64(1) << s)
    return mask


@kernel
def remove_one(D, row, m, x):
    """Remove one x from D[row, 0:m] (the last entry takes its place); the new m."""
    for i in range(m):
        if D[row, i] == x:
            D[row, i] = D[row, m - 1]
            return m - 1
    return m


@kernel
def set_druid(T, D, q, a):
    """Player q's Druid Advance is a: on its Druid card (in a's position) and PM_DRUID."""
    db = T[OPTS, O_DRUID_BASE]
    old = D[q, PM_DRUID]
    for u in range(T[OPTS, O_NCARDS]):
        if T[UID, u] == db:
            D[q, CARD + CW * u + T[ADV + old, A_POS]] = -1
            D[q, CARD + CW * u + T[ADV + a, A_POS]] = a
            refresh_card(T, D, q, u)
    D[q, PM_DRUID] = a


@kernel
def resample_druids(T, D, s):
    """Deal each hidden Druid Advance of search player s's opponents (player order,
    ``druid_hidden``) from those s has not seen -- all Druid Advances but the ones dealt
    to s (row DK from s's seat) and those of the opponents whose Druid card was seen --,
    sorted, shuffled; no draw when none is hidden (reference ``resample_druids``)."""
    n = T[OPTS, O_PLAYERS]
    nh = 0
    for q in range(n):
        if q != s and druid_hidden(T, D, q):
            nh += 1
    if nh == 0:
        return
    m = T[OPTS, O_LEN]
    for i in range(m):
        D[SCR, i] = T[LIST, i]
    deal = T[OPTS, O_DRUID_DEAL]
    for j in range(deal):
        m = remove_one(D, SCR, m, D[DK, deal * D[s, PM_SEAT] + j])
    for q in range(n):
        if q != s and not druid_hidden(T, D, q):
            m = remove_one(D, SCR, m, D[q, PM_DRUID])
    canonical_shuffle(D, SCR, 0, m)
    j = 0
    for q in range(n):
        if q != s and druid_hidden(T, D, q):
            set_druid(T, D, q, D[SCR, j])
            j += 1


@kernel
def resample(T, D, key, searcher):
    """What search player ``searcher`` does not see, drawn again from the stream
    ``key`` (draws 0): every player's deck below its on-deck card (the on-deck card is
    face up), the Advance decks of levels 1 and 2, the Vales of the face-down spaces
    (level I, then II, together with the Vales of that level left out of the game), and
    the Druid Advances of the opponents whose Druid card it never saw (``resample_druids``).
    Each is sorted first, so the result depends on what it sees only (docs/search.md).
    Then the spot rows for D's layout and T's policies."""
    st = D[RNG, 0:2].view(np.uint64)
    st[0] = key
    st[1] = np.uint64(0)
    for p in range(T[OPTS, O_PLAYERS]):
        canonical_shuffle(D, p, DECK + D[p, DHEAD] + 1, DECK + D[p, DN])
    for lv in range(1, 3):
        canonical_shuffle(D, DK + lv, D[G, G_AH + lv], D[G, G_AN + lv])
    nsp = T[OPTS, O_NSPACE]
    shown = revealed_spaces(T, D)
    for lv in range(2):
        kind = SP_I + lv
        nv = T[OPTS, O_NVALE]
        for v in range(nv):
            D[CAND, v] = 0
        for i in range(T[OPTS, O_LEN + 3 + lv]):
            D[CAND, T[LIST + 3 + lv, i]] += 1
        hidden = 0
        for s in range(nsp):
            if T[SPACE + s, SP_KIND] != kind:
                continue
            if (shown >> s) & 1:
                D[CAND, D[G, G_LAYOUT + s]] -= 1
            else:
                hidden += 1
        if hidden == 0:
            continue
        m = 0
        for v in range(nv):
            for c in range(D[CAND, v]):
                D[SCR, m] = v
                m += 1
        shuffle_row(D, SCR, 0, m)
        h = 0
        for s in range(nsp):
            if T[SPACE + s, SP_KIND] == kind and ((shown >> s) & 1) == 0:
                D[G, G_LAYOUT + s] = D[SCR, h]
                for r in range(MAX_ROWS):
                    D[G, G_OWNER + MAX_ROWS * s + r] = -1
                h += 1
    resample_druids(T, D, searcher)
    spot_rows(T, D)


# ---------------------------------------------------------------------------
# Play from a state: the rest of the game
# ---------------------------------------------------------------------------
@kernel(inline=True)
def game_over(T, S, i):
    """play_one's end: after the turn of player i, the end was triggered and i is the
    player before the one who triggered it (players - 1 turns were played since)."""
    t = S[G, G_TRIGGER]
    return t >= 0 and (i + 1) % T[OPTS, O_PLAYERS] == t


@kernel
def play_rest(T, S, X, p):
    """The game after player p's turn (engine.play_one's loop from a state: G_TURNIDX
    turns played), every seat played by T's policies."""
    if game_over(T, S, p):
        return
    n = T[OPTS, O_PLAYERS]
    k = S[G, G_TURNIDX]
    while True:
        rnd = k // n + 1
        S[G, G_ROUND] = rnd
        if S[G, G_TRIGGER] < 0 and rnd > T[OPTS, O_MAX_ROUNDS]:
            S[G, G_TRUNC] = 1
            break
        i = (S[G, G_START] + k) % n
        turn(T, S, X, i)
        S[G, G_ROUNDS] = rnd
        k += 1
        if game_over(T, S, i):
            break


@kernel
def rollout(T, S, D, Tr, W, X, RES, SH, GO, AQ, VL, SPC, p, phase, o, key):
    """Win points of player p in one playout of option o from the state S (at a grow
    decision, an enchantment step or a buy step of p's turn), hidden parts resampled
    from stream `key`, everything else played by the policies of Tr."""
    snapshot(T, S, D)
    resample(Tr, D, key, p)
    if phase == PH_PUSH:
        if W[o, W_A] == 1:
            night_grow(Tr, D, p, 0)
        else:
            night_rest(Tr, D, p)
        day(Tr, D, X, p)
    elif phase == PH_VALE:
        if W[o, W_A] >= 0:
            enchant(Tr, D, X, p, W[o, W_A], W[o, W_B], W[o, W_C])
            D[p, PM_ENCH] += 1
            enchant_steps(Tr, D, X, p)
        day_tracks(Tr, D, X, p)
        buy(Tr, D, X, p)
        day_end(Tr, D, p)
    else:
        if W[o, W_A] >= 0:
            buy_slot(Tr, D, X, p, W[o, W_A], W[o, W_B])
            buy(Tr, D, X, p)
        day_end(Tr, D, p)
    dusk(Tr, D, X, p)
    turn_end(D, X, p)
    play_rest(Tr, D, X, p)
    finish(Tr, D, 0, RES, SH, GO, AQ, VL, SPC)
    return np.int64(SH[0, p] * WIN_POINTS + 0.5)


@kernel
def decide(T, S, D, Tr, W, X, RES, SH, GO, AQ, VL, SPC, p, phase, n, k, halving, decision):
    """The option (index into W) of decision number `decision` of the game."""
    key = S[RNG, 0:2].view(np.uint64)[0]
    for o in range(n):
        W[o, W_TOTAL] = 0
        W[o, W_ALIVE] = o
    rounds = n_rounds(n, halving)
    alive = W[:, W_ALIVE]
    total = W[:, W_TOTAL]
    na = n
    done = 0
    for j in range(rounds):
        t = round_target(k, rounds, j)
        for a in range(na):
            o = alive[a]
            for i in range(done, t):
                W[o, W_TOTAL] += rollout(T, S, D, Tr, W, X, RES, SH, GO, AQ, VL, SPC, p,
                                         phase, o, rollout_key(key, decision, i))
        done = t
        if j < rounds - 1:
            na = keep_best(total, alive, na)
    return best_alive(total, alive, na)


# ---------------------------------------------------------------------------
# The options of a decision
# ---------------------------------------------------------------------------
@kernel(inline=True)
def to_front(W, first):
    """Move option `first` to the front, the others keeping their order."""
    if first > 0:
        a, b, c = W[first, W_A], W[first, W_B], W[first, W_C]
        for o in range(first, 0, -1):
            W[o, W_A] = W[o - 1, W_A]
            W[o, W_B] = W[o - 1, W_B]
            W[o, W_C] = W[o - 1, W_C]
        W[0, W_A] = a
        W[0, W_B] = b
        W[0, W_C] = c


@kernel
def grow_options(T, S, p, W):
    """Grow (1) / Rest (0), the rollout policy's own choice first."""
    d = 1 if grow_wanted(T, S, p) else 0
    W[0, W_A] = d
    W[1, W_A] = 1 - d
    return 2


@kernel
def enchant_options(T, S, p, W):
    """Spots p can enchant now and pay (space, row, cost; ascending space and row: the
    legal spots of spec §5, but not those its policy never enchants), and "no more"
    (space -1) last; then the rollout policy's own pick (spec §6.5; "no more" when it
    keeps the slot for a Sun Priestess) moved to the front."""
    n = 0
    if S[p, NCUBES] < T[OPTS, O_CUBES]:
        start = T[OPTS, O_MAPSTART]
        for s in range(T[OPTS, O_NSPACE]):
            if T[SPACE + s, SP_KIND] == SP_START or S[p, ON + s] != 0:
                continue
            reach = S[p, PM_ONMASK]
            if T[SPACE + s, SP_KIND] != SP_SMALL:
                reach |= np.int64(1) << start
            if (T[SPACE + s, SP_ADJ] & reach) == 0:
                continue
            cost = S[G, G_SPCOST + s] - S[G, G_ONSP + s]
            if cost < 0:
                cost = 0
            if cost > S[p, PM_SPIRIT] or S[SPOT + p, SP_NEVER + s] != 0:
                continue
            for r in range(S[G, G_SPNR + s]):
                if S[G, G_OWNER + MAX_ROWS * s + r] < 0:
                    W[n, W_A] = s
                    W[n, W_B] = r
                    W[n, W_C] = cost
                    n += 1
    W[n, W_A] = -1
    W[n, W_B] = -1
    W[n, W_C] = 0
    n += 1
    if n < 2:
        return n
    first = n - 1
    if policy_enchant(T, S, p):
        for o in range(n - 1):
            if W[o, W_A] == S[CAND, 0] and W[o, W_B] == S[CAND, 1]:
                first = o
    to_front(W, first)
    return n


@kernel
def buy_options(T, S, p, W):
    """Advances p can buy now (level, slot, Advance: Market order, level 1 slots then
    level 2, one per Advance, its first slot; not those its policy never buys), and
    "stop" (level -1) last; then the rollout policy's own pick (spec §6.4) moved to the
    front."""
    n = 0
    n1 = S[G, G_NM1]
    n2 = S[G, G_NM2]
    for i in range(n1 + n2):
        a = S[MK1, i] if i < n1 else S[MK2, i - n1]
        if a < 0 or T[ADV + a, A_COST] > S[p, PM_MANA] or T[QB + NEVER_A + p, a] != 0:
            continue
        seen = False
        for o in range(n):
            if W[o, W_C] == a:
                seen = True
        if seen:
            continue
        W[n, W_A] = 1 if i < n1 else 2
        W[n, W_B] = i if i < n1 else i - n1
        W[n, W_C] = a
        n += 1
    W[n, W_A] = -1
    W[n, W_B] = -1
    W[n, W_C] = -1
    n += 1
    if n < 2:
        return n
    first = n - 1
    pick = choose_buy(T, S, p)
    if pick >= 0:
        own = S[MK1 if pick // PICK == 1 else MK2, pick % PICK]
        for o in range(n - 1):
            if W[o, W_C] == own:
                first = o
    to_front(W, first)
    return n


@kernel
def committed(T, S, XS, p, phase, W):
    """Option 0 of an enchantment step or a buy step (the rollout policy's own choice)
    is a committed card of p (one of the first XS[p, X_COMMITS] buy rules names it):
    the step takes it without searching (docs/search.md, "Bans and commitments")."""
    if W[0, W_A] < 0:
        return False
    r0 = T[QB + p, P_RULE0]
    for ri in range(XS[p, X_COMMITS]):
        if phase == PH_VALE:
            if spot_named(T, S, r0 + ri, W[0, W_A]):
                return True
        elif T[QB + r0 + ri, RL_ADV] == W[0, W_C]:
            return True
    return False


# ---------------------------------------------------------------------------
# A search player's turn and the game
# ---------------------------------------------------------------------------
@kernel
def search_turn(T, S, D, Tr, XS, W, X, RES, SH, GO, AQ, VL, SPC, p, decisions):
    """engine.turn of search player p; returns the game's decision count after it."""
    k = XS[p, X_K]
    hv = XS[p, X_HALVING]
    dec = XS[p, X_DECIDES]
    turn_begin(S, p)
    night_begin(T, S, p)
    while night_grow(T, S, p, 1) == 1:                 # at a grow decision
        n = grow_options(T, S, p, W)
        o = 0                            # the rollout policy's choice (option 0) ...
        if (dec >> PH_PUSH) & 1:         # ... unless the search decides the Night
            o = decide(T, S, D, Tr, W, X, RES, SH, GO, AQ, VL, SPC, p, PH_PUSH, n, k, hv,
                       decisions)
            decisions += 1
        if W[o, W_A] == 0:
            night_rest(T, S, p)
            break
    day_gains(T, S, X, p)
    while S[p, PM_ENCH] < T[OPTS, O_MAX_ENCH]:
        n = enchant_options(T, S, p, W)
        if n < 2:
            break
        o = 0
        if (dec >> PH_VALE) & 1 and not committed(T, S, XS, p, PH_VALE, W):
            o = decide(T, S, D, Tr, W, X, RES, SH, GO, AQ, VL, SPC, p, PH_VALE, n, k, hv,
                       decisions)
            decisions += 1
        if W[o, W_A] < 0:
            break
        enchant(T, S, X, p, W[o, W_A], W[o, W_B], W[o, W_C])
        S[p, PM_ENCH] += 1
    day_tracks(T, S, X, p)
    while S[p, PM_BOUGHT] < T[OPTS, O_MAX_BUYS]:
        n = buy_options(T, S, p, W)
        if n < 2:
            break
        o = 0
        if (dec >> PH_ADV) & 1 and not committed(T, S, XS, p, PH_ADV, W):
            o = decide(T, S, D, Tr, W, X, RES, SH, GO, AQ, VL, SPC, p, PH_ADV, n, k, hv,
                       decisions)
            decisions += 1
        if W[o, W_A] < 0:
            break
        buy_slot(T, S, X, p, W[o, W_A], W[o, W_B])
    day_end(T, S, p)
    dusk(T, S, X, p)
    turn_end(S, X, p)
    return decisions


@kernel
def play_one_search(T, S, D, TR, XS, W, X, trace, evb, RES, SH, GO, AQ, VL, SPC, stats):
    """engine.play_one with search players; stats[0] += decisions made."""
    setup(T, S)
    S[G, G_TRACE] = trace
    S[G, G_EVB] = evb
    n = T[OPTS, O_PLAYERS]
    decisions = 0
    k = 0
    while True:
        rnd = k // n + 1
        S[G, G_ROUND] = rnd
        if S[G, G_TRIGGER] < 0 and rnd > T[OPTS, O_MAX_ROUNDS]:
            S[G, G_TRUNC] = 1
            break
        i = (S[G, G_START] + k) % n
        if XS[i, X_ON] != 0:
            decisions = search_turn(T, S, D, TR[i], XS, W, X, RES, SH, GO, AQ, VL, SPC, i,
                                    decisions)
        else:
            turn(T, S, X, i)
        S[G, G_ROUNDS] = rnd
        k += 1
        if game_over(T, S, i):
            break
    stats[0] += decisions


@kernel
def play_games_search(T, S, D, TR, XS, W, X, seed, first_game, n_games, trace, evb,
                      res, share, gout, acq, vales, spaces, RES, SH, GO, AQ, VL, SPC, stats):
    """engine.play_games with search players (XS); stats[0]: decisions made."""
    base_cards(T, S)
    for g in range(n_games):
        rng_init(S[RNG, 0:2].view(np.uint64), seed, first_game + np.uint64(g))
        play_one_search(T, S, D, TR, XS, W, X, trace, evb, RES, SH, GO, AQ, VL, SPC, stats)
        finish(T, S, g, res, share, gout, acq, vales, spaces)
