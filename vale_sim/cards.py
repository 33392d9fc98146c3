"""Card sets as data: the schema, the ability vocabulary, loading and validation.

A card set is a TOML file (see ``docs/card-format.md``) or a CSV file with the
same columns.  Loading turns it into a frozen :class:`CardSet`; every engine and
analysis reads cards only through it.  Errors name the file, the card and the
field (:class:`CardSetError`).
"""
from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field, asdict
from pathlib import Path

POSITIONS = ("top", "middle", "bottom")
SPIRITS = ("animal", "forest", "sky", "wild")
SOURCES = ("rulebook", "fan-list", "estimate", "user")
SUPPLIES = ("commons", "fertile", "starter")

# Ability vocabulary: kind -> (applies to, timing, parameters it uses).
# The integer code of a kind is its index in this tuple (used by the fast engine).
ADVANCEMENT_ABILITIES = (
    "none",
    "harvest_vp_per_guardian",      # Feral Chieftain (1), Woodland Warden (2)
    "harvest_mana_per_guardian",    # Dawnsinger
    "ongoing_growth_per_guardian",  # Grovetender
    "endgame_vp_per_symbol",        # Gaia's Chosen
    "harvest_vp_per_cards",         # Aurora: 1 VP per `amount` field cards
    "harvest_mana_per_other_card",  # Magic Seed
    "harvest_mana_penalty",         # Grassland
    "when_played_peek",             # Calm Weather
    "when_played_search_deck",      # Cleansing Rain
    "when_played_discard_field",    # Deadwood Harvester, Mindful Owl
    "discount_same_card",           # Earthchant Chorus
    "ongoing_no_decay",             # Lifebringer Seed
    "ongoing_max_one_decay",        # Seedling
    "prevent_spoil",                # Peacekeeper Druid
)
VALE_ABILITIES = (
    "none",
    "harvest_mana",        # Azure Lake (1), Stream of Vigor (2, extra_buys 1)
    "harvest_spirit",      # Cascading Falls, Radiant Pinnacle, Talonthorn Den, Pool of Light
    "spoil_save_growth",   # Blooming Arbor
    "always_growth",       # Ancient Liferoots
    "guardian_once_per_turn",  # Conclave of Ents
    "spirit_to_wild",      # Sunstone Aerie (amount = mana paid)
)
# Default `amount` per kind when the file gives none.
DEFAULT_AMOUNT = {
    "harvest_vp_per_guardian": 1, "harvest_mana_per_guardian": 1,
    "ongoing_growth_per_guardian": 1, "endgame_vp_per_symbol": 1,
    "harvest_vp_per_cards": 2, "harvest_mana_per_other_card": 1,
    "harvest_mana_penalty": 1, "discount_same_card": 2,
    "harvest_mana": 1, "harvest_spirit": 1, "spoil_save_growth": 1,
    "always_growth": 1, "guardian_once_per_turn": 1, "spirit_to_wild": 2,
}
PER_GUARDIAN = ("harvest_vp_per_guardian", "harvest_mana_per_guardian",
                "ongoing_growth_per_guardian")
DECAY_LIMITING = ("ongoing_no_decay", "ongoing_max_one_decay")


class CardSetError(ValueError):
    """A card-set file is malformed.  The message names file, card and field."""

    def __init__(self, file, card, field_, problem, fix=""):
        self.file, self.card, self.field, self.problem = str(file), card, field_, problem
        where = f"{file}: card {card!r}" if card is not None else f"{file}"
        if field_:
            where += f", field {field_!r}"
        msg = f"{where}: {problem}"
        if fix:
            msg += f" ({fix})"
        super().__init__(msg)


@dataclass(frozen=True)
class Advancement:
    """One advancement kind (a row of the card set)."""
    name: str
    level: int            # 1-3 for commons, 0 for Fertile Soil and starting-card prints
    supply: str           # "commons", "fertile" or "starter"
    copies: int
    cost: int
    position: int         # 0 top, 1 middle, 2 bottom
    source: str
    longwise: bool = False
    mana: int = 0
    animal: int = 0
    forest: int = 0
    sky: int = 0
    wild: int = 0
    guardian: int = 0
    decay: int = 0
    growth: int = 0
    harvest_vp: int = 0
    end_vp: int = 0
    ability: str = "none"
    amount: int = 0
    text: str = ""
    note: str = ""

    @property
    def spirits(self) -> int:
        return self.animal + self.forest + self.sky + self.wild

    @property
    def symbol_count(self) -> int:
        """Printed symbols Gaia's Chosen counts (RB: Gaia's Chosen)."""
        return (self.mana + self.animal + self.forest + self.sky + self.wild
                + self.guardian + self.decay + self.growth)


@dataclass(frozen=True)
class Vale:
    """One vale card kind."""
    name: str
    level: int            # 1 or 2
    copies: int
    cost_animal: int
    cost_forest: int
    cost_sky: int
    cost_wild: int
    end_vp: int
    source: str
    ability: str = "none"
    amount: int = 0
    symbol: str = ""      # harvest_spirit: which spirit
    extra_buys: int = 0   # harvest_mana: extra advancement buys (Stream of Vigor)
    unique: bool = False  # at most one per player (Ancient Liferoots)
    text: str = ""
    note: str = ""

    @property
    def cost(self) -> tuple[int, int, int, int]:
        return (self.cost_animal, self.cost_forest, self.cost_sky, self.cost_wild)


@dataclass(frozen=True)
class StartingCard:
    """A kind of starting card: the advancements printed on it, and how many."""
    name: str
    advancements: tuple[str, ...]
    count: int
    source: str


@dataclass(frozen=True)
class CardSet:
    name: str
    advancements: tuple[Advancement, ...]
    vales: tuple[Vale, ...]
    starting_cards: tuple[StartingCard, ...]
    path: str = ""
    description: str = ""

    # -- lookups -------------------------------------------------------------
    def advancement_id(self, name: str) -> int:
        for i, a in enumerate(self.advancements):
            if a.name == name:
                return i
        raise KeyError(f"unknown advancement {name!r} in card set {self.name!r}")

    def vale_id(self, name: str) -> int:
        for i, v in enumerate(self.vales):
            if v.name == name:
                return i
        raise KeyError(f"unknown vale {name!r} in card set {self.name!r}")

    def starting_deck(self) -> list[tuple[int, int, int]]:
        """The 20 starting cards as (top, middle, bottom) advancement ids (-1 empty)."""
        deck = []
        for sc in self.starting_cards:
            slots = [-1, -1, -1]
            for n in sc.advancements:
                a = self.advancements[self.advancement_id(n)]
                slots[a.position] = self.advancement_id(n)
            deck.extend([tuple(slots)] * sc.count)
        return deck

    def commons(self, level: int) -> list[int]:
        return [i for i, a in enumerate(self.advancements)
                if a.supply == "commons" and a.level == level]

    def fertile(self) -> list[int]:
        return [i for i, a in enumerate(self.advancements) if a.supply == "fertile"]

    def vales_of_level(self, level: int) -> list[int]:
        return [i for i, v in enumerate(self.vales) if v.level == level]

    def copies(self, kind: str, level: int) -> int:
        if kind == "vale":
            return sum(self.vales[i].copies for i in self.vales_of_level(level))
        return sum(self.advancements[i].copies for i in self.commons(level))

    def digest(self) -> str:
        """A hash of the set's content (not its file name): for run manifests."""
        blob = json.dumps([[asdict(a) for a in self.advancements],
                           [asdict(v) for v in self.vales],
                           [asdict(s) for s in self.starting_cards]], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]
