"""``spoil-odds --simulate`` on the fast engine: Prep and k pushes of one player.

The same turns as :func:`vale_sim.games.mystic_vale.spoil.simulate_spoil_odds` plays with the
reference engine's ``Player`` -- turn i uses the random stream (seed, i): the
20 cards are shuffled, an on-deck card is revealed, Prep fills the field, then
up to K pushes -- built from the fast engine's own kernels (``reveal``,
``prep``, ``play_on_deck``, ``spoil_check``), so the draws are the same and
so are the numbers (tests/test_spoil_simulation.py checks it deck by deck).

Decks of 20 cards without a ``Situation`` only (the fast engine's state holds
20 sleeves); others use the reference engine.
"""
from __future__ import annotations

import numpy as np

from .engine import (game_rng_init, game_shuffle, reveal, prep, play_on_deck, spoil_check,
                     decay_showing, refresh_card, reset_state, vale_summary, harvest_totals)
from vale_sim.kernels.jit import kernel
from .state import (new_state, SLOTS, LWTOP, VOWN, VTURN, VOWN_N, PS_TURN,
                    PS_SKIP, PS_SHOWING, DECK, DHEAD, DN, DISC_N, FIELD_N, ON_DECK)
from .tables import card_tables, N_CARDS, MAX_OWNED_VALES
from ..rules import MAX_PHASE_PLAYS

SHOW_OFFSET = 64          # decay showing s is counted at index s + SHOW_OFFSET
SHOW_N = 2 * SHOW_OFFSET
N_Q = 7                   # mana, animal, forest, sky, wild, spirits, vp (spoil.QUANTITIES)


@kernel
def _harvest_totals(T, S, p, h):
    """h[0..6] = mana, animal, forest, sky, wild, spirits, vp a Harvest would count now
    (no purchases, no Conclave): the engine's own ``harvest_totals``."""
    mana, a, f, sk, w, vp, _ = harvest_totals(T, S, p)
    h[0] = mana
    h[1] = a
    h[2] = f
    h[3] = sk
    h[4] = w
    h[5] = a + f + sk + w
    h[6] = vp


@kernel
def spoil_turns(T, S, slots, lwtop, vales, seed, K, n_games, spoiled_n, can_n, show, sums,
                sumsq, prep_n, h):
    """Play n_games turns of player 0; accumulate the counts simulate_spoil_odds uses."""
    p = 0
    nv = vales.shape[0]
    for i in range(n_games):
        reset_state(T, S)
        for c in range(N_CARDS):
            for s in range(3):
                S[p, SLOTS + 3 * c + s] = slots[c, s]
            S[p, LWTOP + c] = lwtop[c]
            refresh_card(T, S, p, c)
        for j in range(nv):
            S[p, VOWN + j] = vales[j]
            S[p, VTURN + j] = 0
        S[p, VOWN_N] = nv
        S[p, PS_TURN] = 1 if nv > 0 else 0        # owned vales are active (bought turn 0)
        vale_summary(T, S, p)                     # PS_ALWAYS_GROWTH (and PS_VAB_MASK)
        game_rng_init(S, seed, np.uint64(i))
        for c in range(N_CARDS):                  # new_deck: all cards shuffled
            S[p, DECK + c] = c
        S[p, DHEAD] = 0
        S[p, DN] = N_CARDS
        S[p, DISC_N] = 0
        S[p, FIELD_N] = 0
        S[p, ON_DECK] = -1
        S[p, PS_SHOWING] = 0
        game_shuffle(S, S[p, DECK:DECK + N_CARDS], N_CARDS)
        reveal(S, p)                              # setup_field: reveal, then Prep
        prep(T, S, p, MAX_PHASE_PLAYS)                # no policy: every discard used
        spoiled = S[p, PS_SKIP] != 0
        if spoiled:
            prep_n[0] += 1
        showing = 0
        for k in range(K + 1):
            moved = k == 0
            if k > 0 and not spoiled and S[p, ON_DECK] >= 0:
                play_on_deck(S, p, True)
                spoiled = spoil_check(T, S, p)
                moved = True
            if moved:
                showing = decay_showing(T, S, p)
                if not spoiled:
                    _harvest_totals(T, S, p, h)
            if spoiled:
                spoiled_n[k] += 1
            idx = showing + SHOW_OFFSET
            if idx < 0:
                idx = 0
            elif idx >= SHOW_N:
                idx = SHOW_N - 1
            show[k, idx] += 1
            if not spoiled:
                if S[p, ON_DECK] >= 0:
                    can_n[k] += 1
                for q in range(N_Q):
                    sums[k, q] += h[q]
                    sumsq[k, q] += h[q] * h[q]


def fast_simulation_supported(deck, situation) -> bool:
    return (situation is None and len(deck.cards) == N_CARDS
            and len(deck.vales) <= MAX_OWNED_VALES)


def simulate_counts(deck, pushes: int, games: int, seed: int, rules):
    """(spoiled_n, can_n, prep_n, show {k: {showing: count}}, sums [K+1, 7, 2]) of
    ``games`` turns, as the reference loop of simulate_spoil_odds counts them."""
    cs = deck.cs
    T = card_tables(cs, 2, rules)
    S = new_state(T)
    slots = np.array([list(c.slots) + [-1] * (3 - len(c.slots)) for c in deck.cards],
                     dtype=np.int64).reshape(N_CARDS, 3)
    lwtop = np.array([c.longwise_top for c in deck.cards], dtype=np.int64)
    vales = np.array(list(deck.vales), dtype=np.int64)
    K = pushes
    spoiled_n = np.zeros(K + 1, np.int64)
    can_n = np.zeros(K + 1, np.int64)
    show = np.zeros((K + 1, SHOW_N), np.int64)
    sums = np.zeros((K + 1, N_Q), np.int64)
    sumsq = np.zeros((K + 1, N_Q), np.int64)
    prep_n = np.zeros(1, np.int64)
    h = np.zeros(N_Q, np.int64)
    from vale_sim.rng import check_seed
    spoil_turns(T, S, slots, lwtop, vales, np.uint64(check_seed(seed)), K, games, spoiled_n,
                can_n, show, sums, sumsq, prep_n, h)
    if show[:, 0].any() or show[:, -1].any():
        raise ValueError("decay showing outside the counted range")
    hist = {k: {int(s) - SHOW_OFFSET: int(show[k, s]) for s in np.flatnonzero(show[k])}
            for k in range(K + 1)}
    return (spoiled_n.tolist(), can_n.tolist(), int(prep_n[0]), hist,
            np.stack([sums, sumsq], axis=-1).astype(float))
