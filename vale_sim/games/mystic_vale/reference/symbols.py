"""What a card shows: symbols with Ongoing effects applied (engine-spec §1).

A *card* here is its three slots ``(top, middle, bottom)`` of advancement ids
(-1 empty), plus the slot whose long-wise strip lies on top and any temporary
guardians (Conclave of Ents).  These functions are the single place the
reference engine and the spoil-odds calculator read symbols from.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..cards import CardSet, PER_GUARDIAN


@dataclass
class Card:
    """One sleeve: slots hold advancement ids or -1 (RB: Card vs. Advancement)."""
    slots: list[int]
    longwise_top: int = -1

    def copy(self) -> "Card":
        return Card(list(self.slots), self.longwise_top)


def active_abilities(cs: CardSet, card: Card) -> list[tuple[str, int]]:
    """(ability kind, amount) of each slot whose ability is not covered, in slot order."""
    out = []
    for pos, k in enumerate(card.slots):
        if k < 0:
            continue
        a = cs.advancements[k]
        if a.ability == "none":
            continue
        if a.longwise and card.longwise_top != pos:
            continue                       # covered by another long-wise strip
        out.append((a.ability, a.amount))
    return out


def has_ability(cs: CardSet, card: Card, kind: str) -> bool:
    return any(k == kind for k, _ in active_abilities(cs, card))


def slot_sum(cs: CardSet, card: Card, attr: str) -> int:
    return sum(getattr(cs.advancements[k], attr) for k in card.slots if k >= 0)


def guardians(cs: CardSet, card: Card, temp: int = 0) -> int:
    return slot_sum(cs, card, "guardian") + temp


def decay(cs: CardSet, card: Card) -> int:
    """Decay after Lifebringer Seed (none) and Seedling (at most 1)."""
    d = slot_sum(cs, card, "decay")
    kinds = [k for k, _ in active_abilities(cs, card)]
    if "ongoing_no_decay" in kinds:
        return 0
    if "ongoing_max_one_decay" in kinds:
        return min(d, 1)
    return d


def growth(cs: CardSet, card: Card, temp_guardians: int = 0) -> int:
    """Printed growth plus Grovetender's +amount per guardian on the card."""
    g = slot_sum(cs, card, "growth")
    gu = guardians(cs, card, temp_guardians)
    for kind, amount in active_abilities(cs, card):
        if kind == "ongoing_growth_per_guardian":
            g += amount * gu
    return g


def net_decay(cs: CardSet, card: Card, temp_guardians: int = 0) -> int:
    return decay(cs, card) - growth(cs, card, temp_guardians)


def per_guardian_count(cs: CardSet, card: Card) -> int:
    """How many active per-guardian abilities the card carries (sleeving score)."""
    return sum(1 for k, _ in active_abilities(cs, card) if k in PER_GUARDIAN)


def occupied(card: Card) -> int:
    return sum(1 for k in card.slots if k >= 0)


def endgame_vp(cs: CardSet, card: Card) -> int:
    """End-game VP of a card: printed grey VP plus Gaia's Chosen bonus
    (amount per printed symbol on the card, ignoring text effects)."""
    vp = slot_sum(cs, card, "end_vp")
    symbols = sum(cs.advancements[k].symbol_count for k in card.slots if k >= 0)
    for kind, amount in active_abilities(cs, card):
        if kind == "endgame_vp_per_symbol":
            vp += amount * symbols
    return vp
