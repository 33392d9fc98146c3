"""How fast the exact spoil-odds calculator answers, on decks players make and on
decks crafted at random (``vale-sim bench --spoil``; docs/spoil-odds.md).

* ``played_decks``: each player's deck at the end of reference-engine games
  (20 cards with everything they sleeved, and their vales) — the decks the
  calculator is asked about.
* ``crafted_decks``: the set's starting deck with 0-40 random advancements
  sleeved where they fit and 0-3 random vales — a stress test far beyond what
  games produce (several When Played cards with a Druid, Liferoots, Arbor...).
"""
from __future__ import annotations

import random
import time

from ..cards import load_card_set
from ..policy import PRESETS
from . import Deck, TooManyStates, spoil_odds, starter_deck

BENCH_PRESETS = ("balanced", "cautious", "greedy", "mana-target", "spirit-rush", "vp-rush")


def played_decks(games: int = 100, seed: int = 0, players: int = 2, card_set="core",
                 progress=None) -> list[Deck]:
    """The decks (cards and vales) of every player at the end of ``games`` games
    (game i: GameRng(seed, i); the presets take turns in the seats).  ``progress()``
    after each game."""
    from ..reference.game import MysticValeGame
    cs = load_card_set(card_set)
    # the six presets of docs/spoil-odds.md's numbers (later presets join no rotation)
    names = [n for n in sorted(PRESETS) if n in BENCH_PRESETS]
    out = []
    for g in range(games):
        pols = [names[(g + i) % len(names)] for i in range(players)]
        game = MysticValeGame(cs, players, seed, g, policies=pols)
        game.play()
        for i, pl in enumerate(game.players):
            out.append(Deck(cs, [c.copy() for c in pl.cards],
                            tuple(v.vale_id for v in pl.vales), f"game {g} seat {i} ({pols[i]})"))
        if progress is not None:
            progress()
    return out


def crafted_deck(cs, r: random.Random, n_adv: int, n_vales: int, when_played: bool = True,
                 name: str = "crafted") -> Deck:
    """The starting deck with ``n_adv`` random commons sleeved where their position is
    free, and ``n_vales`` random vales."""
    deck = starter_deck(cs, name)
    kinds = [i for i, a in enumerate(cs.advancements) if a.supply == "commons"
             and (when_played or not a.ability.startswith("when_played"))]
    for _ in range(n_adv):
        k = r.choice(kinds)
        a = cs.advancements[k]
        free = [c for c in deck.cards if c.slots[a.position] < 0]
        if free:
            c = r.choice(free)
            c.slots[a.position] = k
            if a.longwise:
                c.longwise_top = a.position
    deck.vales = tuple(r.sample(range(len(cs.vales)), n_vales))
    return deck


def crafted_decks(n: int = 100, seed: int = 0, card_set="core") -> list[Deck]:
    """Deck i: random.Random(seed + i) draws 0-40 advancements and 0-3 vales."""
    cs = load_card_set(card_set)
    out = []
    for i in range(n):
        r = random.Random(seed + i)
        n_adv, n_vales = r.randint(0, 40), r.randint(0, 3)
        out.append(crafted_deck(cs, r, n_adv, n_vales, name=f"crafted {seed + i}"))
    return out


def scan(decks, pushes: int = 6, engine: str = "compiled", max_states: int | None = None,
         progress=None) -> list[dict]:
    """Time spoil_odds on each deck: rows {deck, seconds, states} (states None and
    seconds the time to give up when ``max_states`` stopped it)."""
    spoil_odds("starter", 1, engine=engine)          # compile / load the kernels first
    rows = []
    for d in decks:
        t = time.perf_counter()
        try:
            states = spoil_odds(d, pushes, engine=engine, max_states=max_states).states
        except TooManyStates:
            states = None
        rows.append({"deck": d.name, "seconds": time.perf_counter() - t, "states": states})
        if progress is not None:
            progress()
    return rows


def summarize(rows: list[dict], limit: float = 1.0) -> dict:
    """Count, share answered within ``limit`` seconds, median and slowest."""
    secs = sorted(r["seconds"] for r in rows)
    slow = max(rows, key=lambda r: r["seconds"]) if rows else None
    return {"decks": len(rows), f"under_{limit:g}s": sum(s < limit for s in secs),
            "median_seconds": secs[len(secs) // 2] if secs else None,
            "max_seconds": slow["seconds"] if slow else None,
            "slowest": slow["deck"] if slow else None,
            "max_states": max((r["states"] or 0) for r in rows) if rows else None}


def bench(games: int = 100, crafted: int = 100, compare: int = 10, seed: int = 0,
          pushes: int = 6, progress=None) -> dict:
    """The spoil benchmark of ``vale-sim bench --spoil``, measured in one run:

    * ``played`` / ``crafted``: the compiled engine on the decks of ``games`` games
      (two per game) and on ``crafted`` random crafted decks (summarize());
    * ``engines``: the Python model and the compiled engine on the same decks, the
      ``compare`` played decks with the most states (total seconds each, ratio).

    ``progress(stage, total)``: called as each stage starts, returns the function to
    call after each of its ``total`` steps (a game or a deck); None for no progress.
    (A callback between two decks costs microseconds; a deck takes milliseconds or more.)"""
    def stage(what, total):
        return progress(what, total) if progress is not None else None
    played = played_decks(games, seed, progress=stage("playing games", games))
    rows = scan(played, pushes, progress=stage("played decks, compiled", len(played)))
    order = sorted(range(len(played)), key=lambda i: -(rows[i]["states"] or 0))
    some = [played[i] for i in order[:compare]]
    scan(some[:1], pushes, "python")                  # warm both engines up
    t = time.perf_counter()
    scan(some, pushes, "python", progress=stage("largest decks, Python model", len(some)))
    py = time.perf_counter() - t
    t = time.perf_counter()
    scan(some, pushes, "compiled")
    comp = time.perf_counter() - t
    made = crafted_decks(crafted, seed)
    return {"pushes": pushes,
            "engines": {"decks": len(some), "states": sum(rows[i]["states"] for i in
                                                          order[:compare]),
                        "python_seconds": py, "compiled_seconds": comp,
                        "speedup": py / comp if comp else None},
            "played": summarize(rows),
            "crafted": summarize(scan(made, pushes,
                                      progress=stage("crafted decks, compiled", len(made))))}
