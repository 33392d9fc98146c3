"""The skeleton game: the irreducible work of a 2-player ``core`` game, the yardstick
``vale-sim bench`` times the fast engine against (docs/speed.md, issue 42).

A game of the skeleton does what any engine of a 2-player Mystic Vale game must do,
and nothing else: per turn it reveals cards from the deck into the field (Prep), makes
the push decisions (the chance that the next card spoils the turn, from the decay
left in the deck), reveals the pushed cards, counts the turn's mana into VP from a
pool and into better cards (a purchase makes a card of the discard pile a
decay-free two-mana card: no placement, no vales, no abilities), discards the field
and reshuffles the discard pile into the deck when it runs out (a Fisher-Yates
shuffle, one random draw per card).  The decks start as the core set's: 9 cards with
a decay and a mana, 11 without either.  The VP pool (48) makes games of about 20
rounds, near the 21 rounds of the engine's 2-player core games with the default
policy.

The numbers are fixed on purpose: the skeleton is a yardstick, so it must not follow
the engine.  Its random stream is splitmix64, self-contained (numba's cache does not
see changes in other files).  ``play(n_games, seed)`` returns the rounds played (a
checksum, so that nothing is optimised away).  The rules are the skeleton's own: Prep
reveals while fewer than two decay show, then each push decision scans the deck for
the cards that would spoil the turn (three decay showing) and pushes below a 30 %
chance; a turn's mana takes VP from the pool (one per mana) and, from four mana, buys
one purchase.
"""
from __future__ import annotations

import numpy as np
from numba import njit

DECK = 20               # cards a player has (sleeves: the deck never grows)
CURSED = 9              # starting cards with a decay and a mana
POOL = 48               # VP pool (games of about 20 rounds)
PLAYERS = 2
MAX_ROUNDS = 100
SPOIL = 3               # decay showing that spoils the turn
RISK_PERMILLE = 300     # push while the next card spoils the turn with less than this chance
PRICE = 4               # mana a purchase costs
MASK = (1 << 64) - 1


@njit(cache=True, nogil=True)
def _next(state):
    """splitmix64: (new state, 64 random bits)."""
    state = (state + np.uint64(0x9E3779B97F4A7C15)) & np.uint64(MASK)
    z = state
    z = ((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & np.uint64(MASK)
    z = ((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & np.uint64(MASK)
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def _shuffle(cards, lo, hi, state):
    """Fisher-Yates on cards[lo:hi], one draw a card (the engines' shuffle)."""
    for i in range(hi - 1, lo, -1):
        state, r = _next(state)
        j = lo + np.int64(r % np.uint64(i - lo + 1))
        cards[i], cards[j] = cards[j], cards[i]
    return state


@njit(cache=True, nogil=True)
def play(n_games, seed):
    """``n_games`` skeleton games of master seed ``seed``; the rounds they lasted."""
    # per player: cards[p, :] the card ids (0..DECK-1) with the deck at [top, DECK) and
    # the discard pile at [0, n_discard); decay[p, c], mana[p, c] per card
    cards = np.zeros((PLAYERS, DECK), np.int64)
    decay = np.zeros((PLAYERS, DECK), np.int64)
    mana = np.zeros((PLAYERS, DECK), np.int64)
    top = np.zeros(PLAYERS, np.int64)
    n_disc = np.zeros(PLAYERS, np.int64)
    deck_bad = np.zeros(PLAYERS, np.int64)      # cards with decay in the deck, kept as it goes
    disc_bad = np.zeros(PLAYERS, np.int64)      # ... and in the discard pile
    field = np.zeros(DECK, np.int64)
    total = 0
    for g in range(n_games):
        state = np.uint64(seed) ^ (np.uint64(g) * np.uint64(0xD1B54A32D192ED03))
        for p in range(PLAYERS):
            for c in range(DECK):
                cards[p, c] = c
                decay[p, c] = 1 if c < CURSED else 0
                mana[p, c] = 1 if c < CURSED else 0
            state = _shuffle(cards[p], 0, DECK, state)
            top[p] = 0
            n_disc[p] = 0
            deck_bad[p] = CURSED
            disc_bad[p] = 0
        pool = POOL
        rounds = 0
        while pool > 0 and rounds < MAX_ROUNDS:
            rounds += 1
            for p in range(PLAYERS):
                n_field = 0
                showing = 0
                spoiled = False
                while True:
                    if top[p] == DECK:          # the deck ran out: the discard pile is shuffled
                        n = n_disc[p]
                        for i in range(n):
                            cards[p, DECK - n + i] = cards[p, i]
                        top[p] = DECK - n
                        n_disc[p] = 0
                        deck_bad[p] = disc_bad[p]
                        disc_bad[p] = 0
                        state = _shuffle(cards[p], top[p], DECK, state)
                        if top[p] == DECK:
                            break
                    # Prep reveals while less than SPOIL - 1 decay shows; then a push
                    # decision before each further card
                    if showing >= SPOIL - 1:
                        left = DECK - top[p]
                        if left == 0 or deck_bad[p] * 1000 >= RISK_PERMILLE * left:
                            break
                    c = cards[p, top[p]]
                    top[p] += 1
                    deck_bad[p] -= decay[p, c] > 0
                    field[n_field] = c
                    n_field += 1
                    showing += decay[p, c]
                    if showing >= SPOIL:
                        spoiled = True
                        break
                got = 0
                if not spoiled:
                    for i in range(n_field):
                        got += mana[p, field[i]]
                    pool -= min(pool, got)
                # the field goes to the discard pile; a purchase improves one of its cards
                if got >= PRICE:
                    for i in range(n_field):
                        c = field[i]
                        if decay[p, c] > 0 or mana[p, c] < 2:
                            decay[p, c] = 0
                            mana[p, c] = 2
                            break
                for i in range(n_field):
                    cards[p, n_disc[p]] = field[i]
                    n_disc[p] += 1
                    disc_bad[p] += decay[p, field[i]] > 0
        total += rounds
    return total


def rounds_per_game(n_games: int = 2000, seed: int = 0) -> float:
    """Mean rounds of a skeleton game (the module docstring's calibration)."""
    return float(play(n_games, seed)) / n_games


def warm_up() -> None:
    """Compile (or load from numba's cache) the skeleton in this process."""
    play(1, 0)
