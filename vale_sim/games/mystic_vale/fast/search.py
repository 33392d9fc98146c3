"""The search player in the fast engine (docs/search.md): snapshot, resampling, play
from a mid-turn state, and the game loop in which search players decide each push and
each buy by rollouts.

Arrays, besides ``T``, ``S``, ``Q`` (``engine``):

* ``D`` -- a second state array (``state.new_state``) the rollouts play in: each rollout
  starts with :func:`snapshot` (S -> D, the parts a game reads) and :func:`resample`;
* ``QR[p]`` -- the policies the rollouts of search player p give every seat (row p: the
  rollout policy; the others: the opponents' model), ``policy_tables`` stacked;
* ``X[p, X_*]`` -- search parameters of player p (X_ON 0: a scripted player);
* ``W[o, W_*]`` -- the options of the decision being made, their totals, the survivors;
* ``RES``, ``SH`` -- scratch for the score of a rollout.

Row p of ``Q`` of a search player holds its rollout policy: the choices the search does
not make (placements, the mana token, Sunstone, When Played discards) are that policy's,
in the game and in the rollouts.  Push / pass, each vale step and each advancement step
are decisions (a step with one legal option -- "buy nothing" only -- is not); the kinds
the search does not decide (X_DECIDES) take option 0, the rollout policy's own choice.
"""
from __future__ import annotations

import numpy as np

from vale_sim.kernels.jit import kernel
from vale_sim.kernels.search import (WIN_POINTS, rollout_key, n_rounds, round_target,
                                     keep_best, best_alive)
from ..rules import MAX_PHASE_PLAYS
from .engine import (stage_of, finish_game, game_shuffle, decide_push, play_on_deck, spoil_check, harvest,
                     harvest_gain, take_vale, buy_vales_from, take_advancement,
                     buy_advancements_from, discard_phase, prep, take_turn, setup,
                     score_game, write_trace_row, vale_summary,
                     choose_vale, vale_affordable, sunstone_cost, owns_vale, placement,
                     token_bonus, decay_showing, advancement_candidates, pick_advancement)
from .state import (GAME, ADECK, VDECK, TR, VOWN, VTURN, VOWN_N, ACQ, DHEAD, DN, DECK,
                    ON_DECK, PS_TOKEN, PS_SPOILS, PS_SKIP, PS_TURN, PS_VALES_NEW,
                    PS_UNSEEN, DISC,
                    G_RNG, G_POOL, G_ROUND, G_START, G_TRUNC, G_NTRACE, G_GAME, G_TRACING,
                    G_NO_DETAILS, AHEAD, VHEAD, VN, VSLOTS, SPIRITS, COMMONS, FERT_LEFT,
                    CAND_KIND, CAND_OK, FIELD_N, DISC_N, FIELD, PS_N_CHORUS, CC, CC_N,
                    CC_CHORUS, CC_CHORUS_AMT, CHORUS_USED,
                    TR_GAME, TR_ROUND, TR_PLAYER, TR_TURN, TR_SKIPPED, TR_PUSHES,
                    TR_SPOILED, TR_FIXED_N, TR_POOL_AFTER, TR_FIELD, TR_DECK, TR_DISCARD,
                    TR_DECAY, TR_N_BOUGHT, TR_N_VALES, R_N)
from .tables import (MIN_KEY, NEVER_ADV, NEVER_VALE, OPTS, O_PLAYERS, O_N_ADV, O_LVL_LEN, O_VALE_LEN, O_TRACE_W,
                     O_MAX_ROUNDS, O_MIN_VALE_COST, O_N_FERTILE, FERTILE_KINDS, VALE,
                     V_UNIQUE, P_DISCARD_PLAYS, P_EXPLORE, P_N_RULES, N_COMMONS, N_VALE_SLOTS, MAX_KINDS)

# -- search parameters X[p, .] ---------------------------------------------------
X_ON, X_K, X_HALVING, X_DECIDES, X_N = range(5)   # X_DECIDES: bit 1 << phase
# X[p, X_N + k] = 1: advancement kind k is committed (vale_sim.search.committed_cards);
# X[p, X_N + n_adv + v] = 1: vale v is.  A step whose own choice is committed is forced.
X_COMMIT = X_N
#: vale_options / adv_options: option 0 is a committed buy, taken without searching.
FORCED = -1
# -- options W[o, .]: (a, b, c, d, e) of the option, its total, the survivors list ----
W_A, W_B, W_C, W_D, W_E, W_TOTAL, W_ALIVE, W_N = range(8)
MAX_OPTIONS = N_COMMONS + MAX_KINDS + 1
# -- decision phases ------------------------------------------------------------------
PH_PUSH, PH_VALE, PH_ADV = range(3)


# ---------------------------------------------------------------------------
# Snapshot and resampling
# ---------------------------------------------------------------------------
@kernel
def snapshot(T, S, D):
    """D = S for everything a game reads from here on (the players' zones, cards,
    sleeves, vales and counts bought; the game row up to the Fertile Soil counts; the
    supply decks; the turn row).  Outputs no rollout reads (first rounds, Harvest
    marks, vale counts) and scratch written before it is read are not copied."""
    P = T[OPTS, O_PLAYERS]
    for p in range(P):
        nv = S[p, VOWN_N]
        for x in range(VOWN + nv):
            D[p, x] = S[p, x]
        for i in range(nv):
            D[p, VTURN + i] = S[p, VTURN + i]
        for k in range(T[OPTS, O_N_ADV]):
            D[p, ACQ + k] = S[p, ACQ + k]
    for x in range(FERT_LEFT + T[OPTS, O_N_ADV]):
        D[GAME, x] = S[GAME, x]
    for lv in range(3):
        for i in range(T[OPTS, O_LVL_LEN + lv]):
            D[ADECK + lv, i] = S[ADECK + lv, i]
    for lv in range(2):
        for i in range(T[OPTS, O_VALE_LEN + lv]):
            D[VDECK + lv, i] = S[VDECK + lv, i]
    for x in range(T[OPTS, O_TRACE_W]):
        D[TR, x] = S[TR, x]
    D[GAME, G_TRACING] = 0
    D[GAME, G_NO_DETAILS] = 1


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
    game_shuffle(S, S[row, lo:hi], hi - lo)


@kernel
def pool_unseen(D, p):
    """Player p's deck and the cards of its discard pile that went there face down
    (PS_UNSEEN), which another player cannot tell apart: sorted, shuffled, and dealt
    again -- the first to the deck (DECK[0:n], DHEAD 0), the rest to those discard
    positions in pile order (reference ``SearchGame.resample``: the same draws)."""
    h = D[p, DHEAD]
    n = D[p, DN] - h
    for i in range(n):
        D[p, DECK + i] = D[p, DECK + h + i]
    D[p, DHEAD] = 0
    D[p, DN] = n
    old = D[p, PS_UNSEEN]
    u = n
    for i in range(D[p, DISC_N]):
        if (old >> D[p, DISC + i]) & 1:
            D[p, DECK + u] = D[p, DISC + i]
            u += 1
    canonical_shuffle(D, p, DECK, DECK + u)
    mask = np.int64(0)
    j = n
    for i in range(D[p, DISC_N]):
        if (old >> D[p, DISC + i]) & 1:
            c = D[p, DECK + j]
            D[p, DISC + i] = c
            mask |= np.int64(1) << c
            j += 1
    D[p, PS_UNSEEN] = mask


@kernel
def resample(T, D, key, s):
    """What search player s does not see, drawn again from the stream ``key`` (draws
    0): every player's deck order -- an opponent's deck together with the cards it
    discarded face down (Calm Weather, Cleansing Rain: ``pool_unseen``) --, the order
    of the commons decks (level 1: with the copies left out of the game, which nobody
    saw either) and of the vale decks.  Each is sorted first, so the result depends on
    what s sees only (docs/search.md)."""
    st = D[GAME, G_RNG:G_RNG + 2].view(np.uint64)
    st[0] = key
    st[1] = np.uint64(0)
    for p in range(T[OPTS, O_PLAYERS]):
        if p != s and D[p, PS_UNSEEN] != 0:
            pool_unseen(D, p)
        else:
            canonical_shuffle(D, p, DECK + D[p, DHEAD], DECK + D[p, DN])
    for lv in range(3):
        canonical_shuffle(D, ADECK + lv, D[GAME, AHEAD + lv], T[OPTS, O_LVL_LEN + lv])
    for lv in range(2):
        canonical_shuffle(D, VDECK + lv, D[GAME, VHEAD + lv], D[GAME, VN + lv])


# ---------------------------------------------------------------------------
# Play from a state: the rest of a turn, the rest of the game
# ---------------------------------------------------------------------------
@kernel
def continue_planting(T, S, Q, p, pushes):
    """engine.planting after `pushes` pushes; True if the player spoiled."""
    while S[p, ON_DECK] >= 0:
        if pushes >= MAX_PHASE_PLAYS:
            break
        if not decide_push(T, S, Q, p):
            break
        pushes += 1
        play_on_deck(S, p, pushes <= Q[p, P_DISCARD_PLAYS])
        if spoil_check(T, S, p):
            return True
    return False


@kernel
def after_planting(T, S, Q, p, rnd, spoiled):
    """take_turn after the Planting: the spoil, or the Harvest by policy Q."""
    if spoiled:
        S[TR, TR_SPOILED] = 1
        S[p, PS_TOKEN] = 1
        S[p, PS_SPOILS] += 1
    else:
        harvest(T, S, Q, p, rnd)


@kernel
def end_turn(T, S, Q, p):
    discard_phase(T, S, p)
    prep(T, S, p, Q[p, P_DISCARD_PLAYS])


@kernel
def play_rest(T, S, Q, p, rnd):
    """The game after player p's turn of round rnd, every seat played by Q (play_one)."""
    P = T[OPTS, O_PLAYERS]
    start = S[GAME, G_START]
    for j in range((p - start + P) % P + 1, P):
        take_turn(T, S, Q, (start + j) % P, rnd)
    while True:
        if S[GAME, G_POOL] == 0:
            break
        if rnd >= T[OPTS, O_MAX_ROUNDS]:
            S[GAME, G_TRUNC] = 1
            break
        rnd += 1
        S[GAME, G_ROUND] = rnd
        for j in range(P):
            take_turn(T, S, Q, (start + j) % P, rnd)


@kernel
def rollout(T, S, D, Qr, W, RES, SH, p, rnd, phase, o, mana, count, limit, key):
    """Win points of player p in one playout of option o from the state S (mid-turn:
    `count` pushes / vales / advancements of this phase done, `mana` left, `limit`
    advancements allowed), hidden parts resampled from stream `key`, all played by Qr."""
    snapshot(T, S, D)
    resample(T, D, key, p)
    if phase == PH_PUSH:
        spoiled = False
        if W[o, W_A] == 1:
            pushes = count + 1
            play_on_deck(D, p, pushes <= Qr[p, P_DISCARD_PLAYS])
            spoiled = spoil_check(T, D, p)
            if not spoiled:
                spoiled = continue_planting(T, D, Qr, p, pushes)
        after_planting(T, D, Qr, p, rnd, spoiled)
    elif phase == PH_VALE:
        if W[o, W_A] >= 0:
            mana = take_vale(T, D, p, W[o, W_A], W[o, W_B], W[o, W_C], mana, count)
            mana = buy_vales_from(T, D, Qr, p, mana, rnd, count + 1)
        buy_advancements_from(T, D, Qr, p, mana, rnd, limit, 0)
    else:
        if W[o, W_A] >= 0:
            mana = take_advancement(T, D, p, W[o, W_A], W[o, W_B], W[o, W_C], W[o, W_D],
                                    W[o, W_E], mana, count, rnd)
            buy_advancements_from(T, D, Qr, p, mana, rnd, limit, count + 1)
    end_turn(T, D, Qr, p)
    play_rest(T, D, Qr, p, rnd)
    score_game(T, D, RES, SH)
    return np.int64(SH[p] * WIN_POINTS + 0.5)


@kernel
def decide(T, S, D, Qr, W, RES, SH, p, rnd, phase, n, k, halving, mana, count, limit,
           decision):
    """The option (index into W) of decision number `decision` of the game."""
    key = S[GAME, G_RNG:G_RNG + 2].view(np.uint64)[0]
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
                W[o, W_TOTAL] += rollout(T, S, D, Qr, W, RES, SH, p, rnd, phase, o, mana,
                                         count, limit, rollout_key(key, decision, i))
        done = t
        if j < rounds - 1:
            na = keep_best(total, alive, na)
    return best_alive(total, alive, na)


# ---------------------------------------------------------------------------
# The options of a decision
# ---------------------------------------------------------------------------
@kernel
def push_options(T, S, Q, p, W):
    """Push (1) / pass (0), the rollout policy's own choice first."""
    d = 1 if decide_push(T, S, Q, p) else 0
    W[0, W_A] = d
    W[1, W_A] = 1 - d
    return 2


@kernel
def vale_options(T, S, Q, X, p, W, mana, rnd):
    """Vales that can be bought now (slot, spirit turned wild or -1, Sunstone mana), one
    per kind (its first slot), and "no vale" (slot -1); the rollout policy's choice first.
    Vales the policy never buys are not options; FORCED when its own choice is a
    committed vale (option 0)."""
    n = 0
    if (S[GAME, SPIRITS + 0] + S[GAME, SPIRITS + 1] + S[GAME, SPIRITS + 2]
            + S[GAME, SPIRITS + 3] >= T[OPTS, O_MIN_VALE_COST]):
        cost = sunstone_cost(T, S, Q, p, mana)
        for sl in range(N_VALE_SLOTS):
            v = S[GAME, VSLOTS + sl]
            if v < 0 or (T[VALE + v, V_UNIQUE] != 0 and owns_vale(S, p, v) > 0):
                continue
            if Q[NEVER_VALE + p, v] != 0:
                continue
            seen = False
            for o in range(n):
                if S[GAME, VSLOTS + W[o, W_A]] == v:
                    seen = True
            if seen:
                continue
            conv = -2
            if vale_affordable(T, S, v, -1):
                conv = -1
            elif cost >= 0:
                for y in range(3):
                    if S[GAME, SPIRITS + y] > 0 and vale_affordable(T, S, v, y):
                        conv = y
                        break
            if conv == -2:
                continue
            W[n, W_A] = sl
            W[n, W_B] = conv
            W[n, W_C] = cost if conv >= 0 else 0
            n += 1
    if n == 0:
        W[0, W_A] = -1
        return 1
    dsl = -1
    if (S[GAME, SPIRITS + 0] + S[GAME, SPIRITS + 1] + S[GAME, SPIRITS + 2]
            + S[GAME, SPIRITS + 3] >= T[OPTS, O_MIN_VALE_COST]):
        dsl, x, c = choose_vale(T, S, Q, p, mana, rnd)
    first = n                                # "no vale" is the policy's choice
    if dsl >= 0:
        for o in range(n):
            if S[GAME, VSLOTS + W[o, W_A]] == S[GAME, VSLOTS + dsl]:
                first = o
    W[n, W_A] = -1
    W[n, W_B] = -1
    W[n, W_C] = 0
    n += 1
    if first > 0:                            # move it to the front, the rest in order
        a, b, c = W[first, W_A], W[first, W_B], W[first, W_C]
        for o in range(first, 0, -1):
            W[o, W_A] = W[o - 1, W_A]
            W[o, W_B] = W[o - 1, W_B]
            W[o, W_C] = W[o - 1, W_C]
        W[0, W_A] = a
        W[0, W_B] = b
        W[0, W_C] = c
    if dsl >= 0 and W[0, W_A] >= 0 and X[p, X_COMMIT + T[OPTS, O_N_ADV]
                                         + S[GAME, VSLOTS + W[0, W_A]]] != 0:
        return FORCED
    return n


@kernel
def policy_advancement(T, S, Q, p, mana, rnd):
    """The kind the policy Q[p] would buy now (exploration aside), or -1 (buy_advancements'
    first step; only the candidate scratch of S changes)."""
    ex = Q[p, P_EXPLORE]
    Q[p, P_EXPLORE] = 0
    discount = 0
    for i in range(S[p, FIELD_N] if S[p, PS_N_CHORUS] > 0 else 0):
        c = S[p, FIELD + i]
        if (S[p, CC + CC_N * c + CC_CHORUS] != 0 and S[p, CHORUS_USED + c] == 0
                and S[p, CC + CC_N * c + CC_CHORUS_AMT] > discount):
            discount = S[p, CC + CC_N * c + CC_CHORUS_AMT]
    cached = Q[p, P_N_RULES] > 0
    budget = mana + token_bonus(S, Q, p)
    nc = advancement_candidates(T, S, Q, p, budget, discount, 0 if cached else Q[MIN_KEY + p, stage_of(T, S, Q, p)])
    if cached:
        for i in range(nc):
            S[GAME, CAND_OK + i] = -1
    pick = pick_advancement(T, S, Q, p, nc, budget, discount, mana, rnd)
    Q[p, P_EXPLORE] = ex
    return S[GAME, CAND_KIND + pick] if pick >= 0 else -1


@kernel
def adv_options(T, S, Q, X, p, W, mana, rnd):
    """Advancements that can be bought now, one per kind (commons slots in order, then
    Fertile Soil kinds), each (kind, source, card, cost, Earthchant) where the rollout
    policy would sleeve it, and "stop buying" (kind -1) last; then the rollout policy's
    own choice is moved to the front.  Kinds the policy never buys are not options;
    FORCED when its own choice is a committed kind (option 0)."""
    n = 0
    budget = mana + token_bonus(S, Q, p)
    for src in range(N_COMMONS + T[OPTS, O_N_FERTILE]):
        if src < N_COMMONS:
            k = S[GAME, COMMONS + src]
            if k < 0:
                continue
            s = src
        else:
            k = T[FERTILE_KINDS, src - N_COMMONS]
            if S[GAME, FERT_LEFT + k] <= 0:
                continue
            s = N_COMMONS + k
        if Q[NEVER_ADV + p, k] != 0:
            continue
        seen = False
        for o in range(n):
            if W[o, W_A] == k:
                seen = True
        if seen:
            continue
        card, cost, ch = placement(T, S, Q, p, k)
        if card < 0 or cost > budget:
            continue
        W[n, W_A] = k
        W[n, W_B] = s
        W[n, W_C] = card
        W[n, W_D] = cost
        W[n, W_E] = ch
        n += 1
    W[n, W_A] = -1
    n += 1
    if n < 2:
        return n
    own = policy_advancement(T, S, Q, p, mana, rnd)
    first = n - 1
    for o in range(n - 1):
        if W[o, W_A] == own:
            first = o
    if first > 0:
        a, b, c, d, e = W[first, W_A], W[first, W_B], W[first, W_C], W[first, W_D], W[first, W_E]
        for o in range(first, 0, -1):
            for x in range(W_E + 1):
                W[o, x] = W[o - 1, x]
        W[0, W_A] = a
        W[0, W_B] = b
        W[0, W_C] = c
        W[0, W_D] = d
        W[0, W_E] = e
    if W[0, W_A] >= 0 and X[p, X_COMMIT + W[0, W_A]] != 0:
        return FORCED
    return n


# ---------------------------------------------------------------------------
# A search player's turn and the game
# ---------------------------------------------------------------------------
@kernel
def search_turn(T, S, D, Q, Qr, X, W, RES, SH, p, rnd, decisions):
    """take_turn of search player p; returns the game's decision count after it."""
    if S[GAME, G_TRACING] != 0:
        for x in range(TR_FIXED_N):
            S[TR, x] = 0
    else:
        S[TR, TR_N_BOUGHT] = 0
        S[TR, TR_N_VALES] = 0
    S[p, PS_TURN] += 1
    if S[p, PS_VALES_NEW] != 0:
        S[p, PS_VALES_NEW] = 0
        vale_summary(T, S, p)
    S[TR, TR_GAME] = S[GAME, G_GAME]
    S[TR, TR_ROUND] = rnd
    S[TR, TR_PLAYER] = p
    S[TR, TR_TURN] = S[p, PS_TURN]
    k = X[p, X_K]
    hv = X[p, X_HALVING]
    if S[p, PS_SKIP] != 0:
        S[p, PS_SKIP] = 0
        S[TR, TR_SKIPPED] = 1
    else:
        pushes = 0
        spoiled = False
        while S[p, ON_DECK] >= 0 and pushes < MAX_PHASE_PLAYS:
            n = push_options(T, S, Q, p, W)
            o = 0                            # the rollout policy's choice (option 0) ...
            if (X[p, X_DECIDES] >> PH_PUSH) & 1:     # ... unless the search decides pushes
                o = decide(T, S, D, Qr, W, RES, SH, p, rnd, PH_PUSH, n, k, hv, 0, pushes, 0,
                           decisions)
                decisions += 1
            if W[o, W_A] == 0:
                break
            pushes += 1
            play_on_deck(S, p, pushes <= Q[p, P_DISCARD_PLAYS])
            if spoil_check(T, S, p):
                spoiled = True
                break
        S[TR, TR_PUSHES] = pushes
        if spoiled:
            S[TR, TR_SPOILED] = 1
            S[p, PS_TOKEN] = 1
            S[p, PS_SPOILS] += 1
        else:
            mana, extra = harvest_gain(T, S, Q, p, rnd)
            limit = 2 + extra
            nv = 0
            while nv < 2:
                n = vale_options(T, S, Q, X, p, W, mana, rnd)
                if n != FORCED and n < 2:
                    break
                o = 0
                if n != FORCED and (X[p, X_DECIDES] >> PH_VALE) & 1:
                    o = decide(T, S, D, Qr, W, RES, SH, p, rnd, PH_VALE, n, k, hv, mana, nv,
                               limit, decisions)
                    decisions += 1
                if W[o, W_A] < 0:
                    break
                mana = take_vale(T, S, p, W[o, W_A], W[o, W_B], W[o, W_C], mana, nv)
                nv += 1
            nb = 0
            while nb < limit:
                n = adv_options(T, S, Qr, X, p, W, mana, rnd)   # Qr[p] = Q[p], writable
                if n != FORCED and n < 2:
                    break
                o = 0
                if n != FORCED and (X[p, X_DECIDES] >> PH_ADV) & 1:
                    o = decide(T, S, D, Qr, W, RES, SH, p, rnd, PH_ADV, n, k, hv, mana, nb,
                               limit, decisions)
                    decisions += 1
                if W[o, W_A] < 0:
                    break
                mana = take_advancement(T, S, p, W[o, W_A], W[o, W_B], W[o, W_C], W[o, W_D],
                                        W[o, W_E], mana, nb, rnd)
                nb += 1
    discard_phase(T, S, p)
    prep(T, S, p, Q[p, P_DISCARD_PLAYS])
    S[TR, TR_POOL_AFTER] = S[GAME, G_POOL]
    S[TR, TR_FIELD] = S[p, FIELD_N]
    S[TR, TR_DECK] = S[p, DN] - S[p, DHEAD]
    S[TR, TR_DISCARD] = S[p, DISC_N]
    S[TR, TR_DECAY] = decay_showing(T, S, p)
    return decisions


@kernel
def play_one_search(T, S, D, Q, QR, X, W, RES, SH, seed, game_index, trace, stats):
    """engine.play_one with search players; stats[0] += decisions made."""
    P = T[OPTS, O_PLAYERS]
    setup(T, S, Q, seed, game_index)
    S[GAME, G_GAME] = game_index
    S[GAME, G_TRACING] = 1 if trace.shape[0] > 0 else 0
    max_rounds = T[OPTS, O_MAX_ROUNDS]
    decisions = 0
    rnd = 0
    while True:
        rnd += 1
        S[GAME, G_ROUND] = rnd
        for j in range(P):
            p = (S[GAME, G_START] + j) % P
            if X[p, X_ON] != 0:
                decisions = search_turn(T, S, D, Q, QR[p], X, W, RES, SH, p, rnd, decisions)
            else:
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
    stats[0] += decisions


@kernel
def play_games_search(T, S, D, Q, QR, X, W, RES, SH, seed, first_game, n_games, res, share,
                      gout, acq, first_round, harvested, vacq, trace, stats):
    """engine.play_games with search players (X); stats[0]: decisions made."""
    ntrace = 0
    for g in range(n_games):
        S[GAME, G_NO_DETAILS] = 1 if first_round.shape[0] == 0 else 0
        gi = np.uint64(first_game) + np.uint64(g)
        play_one_search(T, S, D, Q, QR, X, W, RES, SH, seed, gi,
                        trace[min(ntrace, trace.shape[0]):], stats)
        ntrace += S[GAME, G_NTRACE]
        finish_game(T, S, g, res, share, gout, acq, first_round, harvested, vacq)
    return ntrace

