"""Random but valid card sets, for property tests and planted-card studies.

``random_card_set(seed)`` draws symbols, costs, positions, long-wise strips and
abilities from the whole vocabulary, so tests exercise every rule, not only
the bundled set.  Built directly as :class:`CardSet` objects (always valid).
"""
from __future__ import annotations

import random

from .cards import (ADVANCEMENT_ABILITIES, DEFAULT_AMOUNT, VALE_ABILITIES, Advancement,
                    CardSet, StartingCard, Vale)

STARTER_ADVANCEMENTS = (
    Advancement(name="Cursed Land", level=0, supply="starter", copies=1, cost=0, position=0,
                source="rulebook", mana=1, decay=1),
    Advancement(name="Fertile Soil (top)", level=0, supply="fertile", copies=6, cost=2,
                position=0, source="rulebook", mana=1),
    Advancement(name="Fertile Soil (middle)", level=0, supply="fertile", copies=6, cost=2,
                position=1, source="rulebook", mana=1),
    Advancement(name="Fertile Soil (bottom)", level=0, supply="fertile", copies=6, cost=2,
                position=2, source="rulebook", mana=1),
)
STARTING_CARDS = (
    StartingCard("Cursed Land", ("Cursed Land",), 9, "rulebook"),
    StartingCard("Fertile Soil (top)", ("Fertile Soil (top)",), 1, "rulebook"),
    StartingCard("Fertile Soil (middle)", ("Fertile Soil (middle)",), 1, "rulebook"),
    StartingCard("Fertile Soil (bottom)", ("Fertile Soil (bottom)",), 1, "rulebook"),
    StartingCard("Blank", (), 8, "rulebook"),
)


def random_advancement(r: random.Random, name: str, level: int) -> Advancement:
    ability = r.choice(ADVANCEMENT_ABILITIES) if r.random() < 0.6 else "none"
    sym = {k: (r.random() < p) * r.randint(1, m) for k, p, m in (
        ("mana", 0.5, 3), ("animal", 0.25, 2), ("forest", 0.25, 2), ("sky", 0.25, 2),
        ("wild", 0.1, 1), ("guardian", 0.3, 2), ("decay", 0.3, 2), ("growth", 0.2, 1),
        ("harvest_vp", 0.35, 3), ("end_vp", 0.35, 4))}
    return Advancement(name=name, level=level, supply="commons", copies=r.randint(1, 3),
                       cost=r.randint(0, 3 * level + 2), position=r.randint(0, 2),
                       source="estimate", longwise=r.random() < 0.25, ability=ability,
                       amount=DEFAULT_AMOUNT.get(ability, 0) and r.randint(1, 3), **sym)


def random_vale(r: random.Random, name: str, level: int) -> Vale:
    ability = r.choice(VALE_ABILITIES)
    cost = [0, 0, 0, 0]
    for _ in range(r.randint(1, 2 + 2 * level)):
        cost[r.randint(0, 3)] += 1
    return Vale(name=name, level=level, copies=1, cost_animal=cost[0], cost_forest=cost[1],
                cost_sky=cost[2], cost_wild=cost[3], end_vp=r.randint(0, 3 * level + 1),
                source="estimate", ability=ability,
                amount=DEFAULT_AMOUNT.get(ability, 0) and r.randint(1, 2),
                symbol=r.choice(("animal", "forest", "sky", "wild")) if ability == "harvest_spirit" else "",
                extra_buys=r.randint(0, 1) if ability == "harvest_mana" else 0,
                unique=r.random() < 0.2)


def random_card_set(seed: int, kinds_per_level: int = 8, vales_per_level: int = 6) -> CardSet:
    """A valid, playable card set with random cards (enough for 4 players)."""
    r = random.Random(seed)
    advs = list(STARTER_ADVANCEMENTS)
    for level in (1, 2, 3):
        for i in range(kinds_per_level):
            advs.append(random_advancement(r, f"Random L{level} #{i}", level))
        # make sure every level has enough copies for a 4-player level 1 deck
        while sum(a.copies for a in advs if a.level == level and a.supply == "commons") < 18:
            i += 1
            advs.append(random_advancement(r, f"Random L{level} #{i}", level))
    vales = [random_vale(r, f"Random Vale L{level} #{i}", level)
             for level in (1, 2) for i in range(vales_per_level)]
    return CardSet(name=f"random-{seed}", advancements=tuple(advs), vales=tuple(vales),
                   starting_cards=STARTING_CARDS, description="random test set")
