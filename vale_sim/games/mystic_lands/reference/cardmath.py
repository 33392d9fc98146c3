"""What a crafted card shows (rules doc §2): its suns, resources, aspects, and
what sleeving an Advance on it does.  Pure integer functions of the card set
and a card's four position slots."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import ASPECTS, LAYER_BG, LAYER_FG, CardSet, position_half, position_layer

NO_ADVANCE = -1


@dataclass
class Card:
    """One card of a player: its basic card (a StartingCard index) and the
    Advance ids in its four positions (POSITIONS order, -1 empty)."""
    uid: int
    base: int
    slots: list = field(default_factory=lambda: [NO_ADVANCE] * 4)

    def advances(self) -> list[int]:
        return [a for a in self.slots if a != NO_ADVANCE]


def _layer_icons(cs: CardSet, card: Card, half: int):
    """(sun, cloud, rain) of the three layers of one half, back to front."""
    b = cs.starting[card.base]
    basic = (b.icons.sun if b.sun_half == half else 0, 0,
             b.icons.rain if b.rain_half == half else 0)
    out = [basic]
    for pos in (half * 2 + 1, half * 2):          # background, then foreground
        a = card.slots[pos]
        if a == NO_ADVANCE:
            out.append((0, 0, 0))
        else:
            ic = cs.advances[a].icons
            out.append((ic.sun, ic.cloud, ic.rain))
    return out


def exposed_suns(cs: CardSet, card: Card) -> int:
    """Suns not covered by a cloud in front of them in the same half (§2.2)."""
    total = 0
    for half in (0, 1):
        covered = False
        for sun, cloud, _ in reversed(_layer_icons(cs, card, half)):   # front to back
            if not covered:
                total += sun
            if cloud:
                covered = True
    return total


def all_suns(cs: CardSet, card: Card) -> int:
    """Every sun icon of the card, covered or not."""
    return sum(s for half in (0, 1) for s, _, _ in _layer_icons(cs, card, half))


def resources(cs: CardSet, card: Card) -> tuple[int, int, int]:
    """Left-edge (mana, spirit, vp) of the basic card and its Advances."""
    ic = cs.starting[card.base].icons
    m, s, v = ic.mana, ic.spirit, ic.vp
    for a in card.advances():
        ai = cs.advances[a].icons
        m, s, v = m + ai.mana, s + ai.spirit, v + ai.vp
    return m, s, v


def value(cs: CardSet, card: Card) -> int:
    """2 mana + 2 spirit + 3 VP of the card's left edge (spec §6.8)."""
    m, s, v = resources(cs, card)
    return 2 * m + 2 * s + 3 * v


def shows(cs: CardSet, card: Card, aspect: int, wild: int) -> bool:
    """The card shows ``aspect`` (a wild icon counts when the player's wild is ``aspect``)."""
    name = ASPECTS[aspect]
    icons = [cs.starting[card.base].icons] + [cs.advances[a].icons for a in card.advances()]
    return any(ic.aspect(name) > 0 or (ic.wild > 0 and wild == aspect) for ic in icons)


def advances_showing(cs: CardSet, card: Card, aspect: int, wild: int) -> int:
    """Advances on the card showing ``aspect`` (the per-card aspect icon)."""
    name = ASPECTS[aspect]
    return sum(1 for a in card.advances()
               if cs.advances[a].icons.aspect(name) > 0 or (cs.advances[a].icons.wild > 0
                                                            and wild == aspect))


def can_sleeve(cs: CardSet, card: Card, adv: int) -> bool:
    """Its position is empty and, if it shows a sun, the card shows no uncovered sun (§2.3)."""
    a = cs.advances[adv]
    if card.slots[a.position] != NO_ADVANCE:
        return False
    return a.icons.sun == 0 or exposed_suns(cs, card) == 0


def rain_covered(cs: CardSet, card: Card, adv: int) -> int:
    """Rain icons that sleeving ``adv`` covers for the first time (§2.4)."""
    a = cs.advances[adv]
    half, layer = position_half(a.position), position_layer(a.position)
    b = cs.starting[card.base]
    basic_rain = b.icons.rain if b.rain_half == half else 0
    bg, fg = card.slots[half * 2 + 1], card.slots[half * 2]
    if layer == LAYER_BG:
        return basic_rain if fg == NO_ADVANCE else 0
    assert layer == LAYER_FG
    if bg == NO_ADVANCE:
        return basic_rain
    return cs.advances[bg].icons.rain
