"""Card sets as data: the schema, the ability vocabulary, loading and validation.

A card set is a TOML file (see ``docs/card-format.md``) or a CSV file with the
same columns.  Loading turns it into a frozen :class:`CardSet`; every engine and
analysis reads cards only through it.  Errors name the file, the card and the
field (:class:`CardSetError`).

Provenance is kept per number: every card has a default ``source`` and may
override it per field (``sources = {mana = "review"}``); :func:`provenance_counts`
counts the numbers of a set (or of some of its cards) by source.  Sizes are
bounded at load time (:data:`LIMITS`), so a typo such as ``copies = 1000000000``
is a one-line error, not a hang or a terabyte allocation.
"""
from __future__ import annotations

import csv
import difflib
import functools
import hashlib
import io
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from ...card_data import (CardFileError, FieldReader, PlayerCountMixin, Sourced, index_by_name,
                          read_data_toml, unknown_name as _unknown_name)
from ...inputs import InputFileError, check_file, name_key, parse_int, read_text

POSITIONS = ("top", "middle", "bottom")
SPIRITS = ("animal", "forest", "sky", "wild")
# Where a number comes from (docs/card-format.md, "Where numbers come from"):
#   rulebook  stated or fixed by the rulebook's text or examples
#   review    reviews and fan implementations (secondary sources, not the rulebook)
#   fan-list  the public fan transcription of vale costs (unverified)
#   estimate  this project's estimate: not a printed value
#   user      entered by the user (e.g. from printed cards they own)
SOURCES = ("rulebook", "review", "fan-list", "estimate", "user", "balance")
SUPPLIES = ("commons", "fertile", "starter")

# The numbers of a card, each with its own source (an ability's `amount` counts
# only when the ability takes one; a vale's `extra_buys` only with harvest_mana).
# `position` is a number too: the engines store it as 0/1/2.
ADVANCEMENT_NUMBERS = ("level", "copies", "cost", "position", "mana", "animal", "forest",
                       "sky", "wild", "guardian", "decay", "growth", "harvest_vp", "end_vp")
VALE_NUMBERS = ("level", "copies", "cost_animal", "cost_forest", "cost_sky", "cost_wild",
                "end_vp")
STARTING_NUMBERS = ("count",)
# Fields a `sources` table may name (a vale's "cost" stands for its four cost_* fields).
_SOURCE_KEYS = {
    "advancement": ADVANCEMENT_NUMBERS + ("amount",),
    "vale": VALE_NUMBERS + ("amount", "extra_buys", "cost"),
    "starting": STARTING_NUMBERS,
}

# Size limits checked at load time (docs/card-format.md, "Limits").  They keep
# every engine's tables small: a card set within them builds in milliseconds.
LIMITS = {
    "copies": 50,            # copies of one advancement or vale kind
    "cost": 30,              # an advancement's mana cost
    "symbol": 20,            # each symbol count and VP of an advancement; a vale's end VP
    "amount": 10,            # an ability's amount
    "vale_cost": 10,         # each spirit of a vale's cost
    "extra_buys": 3,         # a vale's extra advancement buys
    "level_copies": 200,     # commons copies of one level
    "advancement_kinds": 128,  # advancement kinds of a set (= fast engine MAX_KINDS)
    "vale_kinds": 64,        # vale kinds (= fast engine MAX_VALE_KINDS)
    "vale_copies": 128,      # vale copies of a set (= fast engine MAX_OWNED_VALES)
    "deck_cards": 200,       # cards of a spoil-odds deck file without a base (vale_sim.games.mystic_vale.spoil)
}

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


class CardSetError(CardFileError):
    """A card-set file is malformed.  The message names file, card and field."""

    @staticmethod
    def item_text(item) -> str:
        return f"card {item!r}"

    @property
    def card(self):
        return self.item


class PlayerCountError(PlayerCountMixin, CardSetError):
    """A player count the game does not have (not a fault of the card file)."""


@dataclass(frozen=True)
class Advancement(Sourced):
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
    sources: tuple[tuple[str, str], ...] = ()   # (field, source) overrides of `source`

    def numbers(self) -> dict[str, str]:
        """The card's numbers (see :data:`ADVANCEMENT_NUMBERS`) -> their source."""
        fields = ADVANCEMENT_NUMBERS + (("amount",) if self.ability in DEFAULT_AMOUNT else ())
        return {f: self.source_of(f) for f in fields}

    @property
    def spirits(self) -> int:
        return self.animal + self.forest + self.sky + self.wild

    @property
    def symbol_count(self) -> int:
        """Printed symbols Gaia's Chosen counts (RB: Gaia's Chosen)."""
        return (self.mana + self.animal + self.forest + self.sky + self.wild
                + self.guardian + self.decay + self.growth)


@dataclass(frozen=True)
class Vale(Sourced):
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
    sources: tuple[tuple[str, str], ...] = ()   # (field, source) overrides of `source`

    def numbers(self) -> dict[str, str]:
        """The vale's numbers (see :data:`VALE_NUMBERS`) -> their source."""
        fields = VALE_NUMBERS + (("amount",) if self.ability in DEFAULT_AMOUNT else ()) \
            + (("extra_buys",) if self.ability == "harvest_mana" else ())
        return {f: self.source_of(f) for f in fields}

    @property
    def cost(self) -> tuple[int, int, int, int]:
        return (self.cost_animal, self.cost_forest, self.cost_sky, self.cost_wild)


@dataclass(frozen=True)
class StartingCard(Sourced):
    """A kind of starting card: the advancements printed on it, and how many."""
    name: str
    advancements: tuple[str, ...]
    count: int
    source: str
    sources: tuple[tuple[str, str], ...] = ()   # ("count", source) override

    def numbers(self) -> dict[str, str]:
        return {"count": self.source_of("count")}


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
        """Id (file order) of the advancement kind called ``name``.

        Raises KeyError naming the closest matches when there is no such kind.
        """
        return index_by_name(self.advancements, name, "advancement", self.name)

    def vale_id(self, name: str) -> int:
        """Id (file order) of the vale kind called ``name`` (KeyError with close matches)."""
        return index_by_name(self.vales, name, "vale", self.name)

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


def provenance_counts(cs: "CardSet", cards=None) -> dict[str, int]:
    """How many numbers of ``cs`` come from each source.

    Counts every number of every card kind once (not per copy): an
    advancement's level, copies, cost, position, ten symbol counts and its
    ability's amount; a vale's level, copies, four cost symbols, end VP and
    ability parameters; a starting card's count.  ``cards``: names to count
    (all if None; a name selects every entry of that name, e.g. the
    "Cursed Land" advancement and starting card).  Returns ``{source: n}``
    for every source in :data:`SOURCES` (0 if none); the total is the sum.
    Raises KeyError for an unknown name.
    """
    items = list(cs.starting_cards) + list(cs.advancements) + list(cs.vales)
    if cards is not None:
        wanted = [cards] if isinstance(cards, str) else list(cards)
        names = {c.name for c in items}
        for n in wanted:
            if n not in names:
                raise KeyError(_unknown_name("card", n, cs.name, sorted(names)))
        items = [c for c in items if c.name in set(wanted)]
    counts = dict.fromkeys(SOURCES, 0)
    for c in items:
        for src in c.numbers().values():
            counts[src] = counts.get(src, 0) + 1
    return counts


#: The naming convention of the project's model cards (docs/card-format.md, "What
#: `core` contains"): ``Model L<level> <Sprout|Bloom|Grove> <letter>``.
MODEL_CARD_PREFIX = "Model L"

#: Why the model cards exist (the report, `vale-sim cards`) ...
MODEL_CARDS_WHY = (
    "The rulebook prints no card list and no public list of the base game's advancements "
    "was found, so the project made up these stand-ins, every number an estimate (set on "
    "its cost curve; in core a few refit by vale-sim balance, docs/balance.md), to fill "
    "the printed supply counts (33/30/33 level 1/2/3 advancement "
    "copies) that the named cards do not; they give the simulated market its size and "
    "mix.  A verdict on a model card is about that stand-in, not about any printed card "
    "(docs/rules.md section 6).")
#: ... and what they are, in one paragraph.
MODEL_CARDS_EXPLAINED = ("Model cards (named \"Model L<level> ...\") are not printed cards.  "
                         + MODEL_CARDS_WHY)


def is_model_card(card) -> bool:
    """Whether ``card`` (a card or its name) is one of the project's model cards: a
    stand-in named ``Model L<level> ...``, not a printed card."""
    name = card if isinstance(card, str) else card.name
    rest = name[len(MODEL_CARD_PREFIX):]
    return name.startswith(MODEL_CARD_PREFIX) and rest[:1].isdigit()


def card_type(card) -> str:
    """``"model"`` for a model card (:func:`is_model_card`), else ``"printed"``."""
    return "model" if is_model_card(card) else "printed"


# ---------------------------------------------------------------------------
# The cost curve every estimated card follows (docs/card-format.md, "Cost curve").
# value = Σ symbol weight × count + ability value;  cost ≈ CURVE_A × value + CURVE_B.
# An estimated commons card's cost lies within CURVE_TOLERANCE of that, and its
# level is the band its cost falls in.
# ---------------------------------------------------------------------------
SYMBOL_VALUE = {"mana": 1.0, "animal": 1.0, "forest": 1.0, "sky": 1.0, "wild": 1.0,
                "harvest_vp": 1.0, "end_vp": 1.0, "growth": 1.0, "decay": -1.0,
                "guardian": 0.25}
CURVE_A, CURVE_B, CURVE_TOLERANCE = 1.5, 0.5, 1.0
LEVEL_BANDS = {1: (2, 4), 2: (5, 7), 3: (8, 11)}
TYPICAL_FIELD = 5          # cards in a typical field, for field-size abilities
# Value of one unit of `amount` of each ability (per-guardian kinds: per guardian
# on the card, at least one; field-size kinds: see ability_value).
ABILITY_UNIT_VALUE = {
    "none": 0.0,
    "harvest_vp_per_guardian": 1.0, "harvest_mana_per_guardian": 1.0,
    "ongoing_growth_per_guardian": 0.5, "endgame_vp_per_symbol": 3.0,
    "harvest_vp_per_cards": 1.0, "harvest_mana_per_other_card": 1.0,
    "harvest_mana_penalty": -1.0, "when_played_peek": 0.5,
    "when_played_search_deck": 1.0, "when_played_discard_field": 1.0,
    "discount_same_card": 0.5, "ongoing_no_decay": 1.0,
    "ongoing_max_one_decay": 0.5, "prevent_spoil": 1.0,
}
# Vale end VP estimate: cost symbols + (level - 1) - ability weight (not below 0).
VALE_ABILITY_WEIGHT = {"none": 0, "harvest_mana": 1, "harvest_spirit": 1,
                       "spoil_save_growth": 1, "always_growth": 2,
                       "guardian_once_per_turn": 2, "spirit_to_wild": 1}


def ability_value(kind: str, amount: int, guardian: int = 0) -> float:
    """Curve value of an advancement ability (see docs/card-format.md)."""
    unit = ABILITY_UNIT_VALUE[kind]
    if kind in PER_GUARDIAN:
        return unit * amount * max(1, guardian)
    if kind == "harvest_vp_per_cards":          # 1 VP per `amount` field cards
        return unit * TYPICAL_FIELD / max(1, amount)
    if kind == "harvest_mana_per_other_card":
        return unit * amount * (TYPICAL_FIELD - 1)
    if kind in DEFAULT_AMOUNT:
        return unit * amount
    return unit


def card_value(a: Advancement) -> float:
    """Curve value of an advancement: symbols, VP and ability."""
    v = sum(w * getattr(a, f) for f, w in SYMBOL_VALUE.items())
    return v + ability_value(a.ability, a.amount, a.guardian)


def curve_cost(a: Advancement) -> float:
    """The cost the curve gives an advancement (unrounded)."""
    return CURVE_A * card_value(a) + CURVE_B


def level_for_cost(cost: int) -> int:
    """Commons level whose band holds ``cost`` (0 if none)."""
    for level, (lo, hi) in LEVEL_BANDS.items():
        if lo <= cost <= hi:
            return level
    return 0


def estimate_bounds(cs: "CardSet", card: str, field_: str):
    """``(lo, hi, why)``: the range an estimated number of ``card`` is refit in
    (``vale-sim balance``; ``Game.estimate_bounds``), None when there is none.  A
    commons advancement's cost stays in the cost band of its level (``LEVEL_BANDS``):
    its level decides which supply deck it is shuffled into and the rulebook fixes
    each level's copy count, so a cost out of the band would make it a card of
    another level that its deck does not hold."""
    if field_ != "cost":
        return None
    a = next((a for a in cs.advancements if a.name == card and a.supply == "commons"), None)
    if a is None or a.level not in LEVEL_BANDS:
        return None
    lo, hi = LEVEL_BANDS[a.level]
    return lo, hi, f"the cost band {lo}..{hi} of level {a.level}"


def vale_curve_vp(v: Vale) -> int:
    """Estimated end VP of a vale by the vale curve."""
    w = VALE_ABILITY_WEIGHT[v.ability]
    if v.ability in ("harvest_mana", "harvest_spirit", "always_growth"):
        w *= v.amount
    w += v.extra_buys
    return max(0, sum(v.cost) + (v.level - 1) - w)


# ---------------------------------------------------------------------------
# Loading and validation
# ---------------------------------------------------------------------------
DATA_DIR = Path(__file__).parent / "data"
STARTING_DECK_SIZE = 20
_SYMBOLS = ("mana", "animal", "forest", "sky", "wild", "guardian", "decay",
            "growth", "harvest_vp", "end_vp")

# field -> (type, required).  Types: int, str, bool, names (list of str), cost (table).
ADVANCEMENT_FIELDS = {
    "name": ("str", True), "level": ("int", True), "supply": ("str", False),
    "copies": ("int", False), "cost": ("int", True), "position": ("str", True),
    "longwise": ("bool", False),
    **{s: ("int", False) for s in _SYMBOLS},
    "ability": ("str", False), "amount": ("int", False),
    "text": ("str", False), "note": ("str", False), "source": ("str", True),
    "sources": ("sources", False),
}
VALE_FIELDS = {
    "name": ("str", True), "level": ("int", True), "copies": ("int", False),
    "cost": ("cost", True), "end_vp": ("int", False), "ability": ("str", False),
    "amount": ("int", False), "symbol": ("str", False), "extra_buys": ("int", False),
    "unique": ("bool", False), "text": ("str", False), "note": ("str", False),
    "source": ("str", True), "sources": ("sources", False),
}
STARTING_FIELDS = {
    "name": ("str", True), "advancements": ("names", False), "count": ("int", True),
    "source": ("str", True), "sources": ("sources", False),
}
SET_FIELDS = {"name": ("str", False), "description": ("str", False)}
_TYPE_WORDS = {"int": "a whole number (e.g. 2)", "str": "a text string in quotes",
               "bool": "true or false", "names": "a list of names, e.g. [\"Cursed Land\"]",
               "cost": "a table, e.g. {animal = 1, forest = 1}",
               "sources": "a table of field = source, e.g. {mana = \"review\"}"}


def _ctx(file, label) -> FieldReader:
    """Where a card comes from (file, card), for error messages."""
    return FieldReader(str(file), label, error=CardSetError)


def _typed(ctx: FieldReader, raw: dict, spec: dict, what: str) -> dict:
    """Check field names, required fields and value types; return the typed dict."""
    return ctx.typed(raw, spec, what, _TYPE_WORDS)


def _choice(ctx, d, key, allowed, default, what=None):
    v = d.get(key, default)
    if v not in allowed:
        close = difflib.get_close_matches(str(v), list(allowed), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ctx.err(key, f"unknown {what or key} {v!r}",
                      f"{hint}use one of: {', '.join(allowed)}")
    return v


def _nonneg(ctx, d, key, default=0, least=0, most=None):
    v = d.get(key, default)
    if v < least:
        word = "negative" if least == 0 else f"less than {least}"
        raise ctx.err(key, f"{key} is {word} ({v})", f"use a whole number >= {least}")
    if most is not None and v > most:
        raise _too_big(ctx, key, v, most)
    return v


def _too_big(ctx, key, v, most):
    shown = f"{v:.3g}" if v >= 10 ** 6 else str(v)
    return ctx.err(key, f"{key} is {shown}, above the limit {most}",
                   f"use at most {most}; limits: docs/card-format.md")


def _sources(ctx, d, kind: str, default: str) -> tuple[tuple[str, str], ...]:
    """The `sources` table: per-field overrides of the card's `source` (validated)."""
    allowed = _SOURCE_KEYS[kind]
    raw = d.get("sources", {})
    out: dict[str, str] = {}
    # a vale's "cost" first, so that a cost_<spirit> key given with it wins
    for k, v in sorted(raw.items(), key=lambda kv: kv[0] != "cost"):
        if k not in allowed:
            close = difflib.get_close_matches(str(k), list(allowed), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ctx.err("sources", f"unknown field {k!r} in sources",
                          f"{hint}sources may name: {', '.join(allowed)}")
        if v not in SOURCES:
            close = difflib.get_close_matches(str(v), list(SOURCES), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ctx.err("sources", f"unknown source {v!r} for {k!r}",
                          f"{hint}use one of: {', '.join(SOURCES)}")
        keys = ("cost_animal", "cost_forest", "cost_sky", "cost_wild") \
            if (kind == "vale" and k == "cost") else (k,)
        for key in keys:
            out[key] = v
    order = [k for k in allowed if not (kind == "vale" and k == "cost")]
    return tuple((k, out[k]) for k in order if k in out and out[k] != default)


def _check_amount(ctx, d, kind):
    if kind in DEFAULT_AMOUNT:
        return _nonneg(ctx, d, "amount", DEFAULT_AMOUNT[kind], least=1, most=LIMITS["amount"])
    amount = _nonneg(ctx, d, "amount", 0)
    if amount:
        raise ctx.err("amount", f"ability {kind!r} takes no amount (got {amount})",
                      "remove amount or set it to 0")
    return 0


def _name(ctx, d):
    name = d["name"].strip()          # as a CSV cell: surrounding spaces are not part of it
    if not name:
        raise ctx.err("name", "empty name", "give the card a name")
    ctx.item = name
    return name


def _advancement(ctx: FieldReader, raw: dict) -> Advancement:
    if isinstance(raw.get("name"), str) and raw["name"].strip():
        ctx.item = raw["name"]
    d = _typed(ctx, raw, ADVANCEMENT_FIELDS, "an advancement")
    name = _name(ctx, d)
    source = _choice(ctx, d, "source", SOURCES, None)
    supply = _choice(ctx, d, "supply", SUPPLIES, "commons")
    level = d["level"]
    if supply == "commons" and level not in (1, 2, 3):
        raise ctx.err("level", f"bad level {level} for a commons advancement",
                      "commons advancements have level 1, 2 or 3")
    if supply != "commons" and level != 0:
        raise ctx.err("level", f"bad level {level} for a {supply} advancement",
                      f"{supply} advancements have level 0")
    copies = _nonneg(ctx, d, "copies", 1, least=1, most=LIMITS["copies"])
    cost = _nonneg(ctx, d, "cost", most=LIMITS["cost"])
    position = _choice(ctx, d, "position", POSITIONS, None)
    kind = d.get("ability", "none")
    if kind not in ADVANCEMENT_ABILITIES:
        if kind in VALE_ABILITIES:
            raise ctx.err("ability", f"{kind!r} is a vale ability, not an advancement ability",
                          f"use one of: {', '.join(ADVANCEMENT_ABILITIES)}")
        kind = _choice(ctx, d, "ability", ADVANCEMENT_ABILITIES, None, "ability")
    symbols = {s: _nonneg(ctx, d, s, most=LIMITS["symbol"]) for s in _SYMBOLS}
    return Advancement(
        name=name, level=level, supply=supply, copies=copies, cost=cost,
        position=POSITIONS.index(position), source=source,
        longwise=d.get("longwise", False), **symbols, ability=kind,
        amount=_check_amount(ctx, d, kind), text=d.get("text", ""), note=d.get("note", ""),
        sources=_sources(ctx, d, "advancement", source))


def _vale(ctx: FieldReader, raw: dict) -> Vale:
    if isinstance(raw.get("name"), str) and raw["name"].strip():
        ctx.item = raw["name"]
    d = _typed(ctx, raw, VALE_FIELDS, "a vale")
    name = _name(ctx, d)
    source = _choice(ctx, d, "source", SOURCES, None)
    level = d["level"]
    if level not in (1, 2):
        raise ctx.err("level", f"bad level {level} for a vale", "vales have level 1 or 2")
    copies = _nonneg(ctx, d, "copies", 1, least=1, most=LIMITS["copies"])
    cost = {}
    for k, v in d["cost"].items():
        if k not in SPIRITS:
            raise ctx.err("cost", f"unknown spirit {k!r} in cost",
                          f"cost keys are: {', '.join(SPIRITS)}")
        if isinstance(v, bool) or not isinstance(v, int):
            raise ctx.err("cost", f"wrong type: cost {k} must be a whole number, got {v!r}",
                          f"write e.g. cost = {{{k} = 1}}")
        if v < 0:
            raise ctx.err("cost", f"cost {k} is negative ({v})", "use a whole number >= 0")
        if v > LIMITS["vale_cost"]:
            raise _too_big(ctx, "cost", v, LIMITS["vale_cost"])
        cost[k] = v
    kind = d.get("ability", "none")
    if kind not in VALE_ABILITIES:
        if kind in ADVANCEMENT_ABILITIES:
            raise ctx.err("ability", f"{kind!r} is an advancement ability, not a vale ability",
                          f"use one of: {', '.join(VALE_ABILITIES)}")
        kind = _choice(ctx, d, "ability", VALE_ABILITIES, None, "ability")
    symbol = d.get("symbol", "")
    if kind == "harvest_spirit":
        if symbol not in SPIRITS:
            raise ctx.err("symbol", f"harvest_spirit needs a valid symbol, got {symbol!r}",
                          f"set symbol to one of: {', '.join(SPIRITS)}")
    elif symbol:
        raise ctx.err("symbol", f"symbol is only used by harvest_spirit (ability is {kind!r})",
                      "remove symbol")
    return Vale(
        name=name, level=level, copies=copies,
        cost_animal=cost.get("animal", 0), cost_forest=cost.get("forest", 0),
        cost_sky=cost.get("sky", 0), cost_wild=cost.get("wild", 0),
        end_vp=_nonneg(ctx, d, "end_vp", most=LIMITS["symbol"]), source=source, ability=kind,
        amount=_check_amount(ctx, d, kind), symbol=symbol,
        extra_buys=_nonneg(ctx, d, "extra_buys", most=LIMITS["extra_buys"]),
        unique=d.get("unique", False),
        text=d.get("text", ""), note=d.get("note", ""), sources=_sources(ctx, d, "vale", source))


def _starting(ctx: FieldReader, raw: dict) -> StartingCard:
    if isinstance(raw.get("name"), str) and raw["name"].strip():
        ctx.item = raw["name"]
    d = _typed(ctx, raw, STARTING_FIELDS, "a starting card")
    name = _name(ctx, d)
    source = _choice(ctx, d, "source", SOURCES, None)
    return StartingCard(name=name, advancements=tuple(d.get("advancements", [])),
                        count=_nonneg(ctx, d, "count", least=1, most=STARTING_DECK_SIZE),
                        source=source, sources=_sources(ctx, d, "starting", source))


def _assemble(file, name, description, starting, advancements, vales) -> CardSet:
    """Cross-card checks: unique names, starting deck; then the CardSet."""
    file = str(file)
    for what, n, most in (("advancements", len(advancements), LIMITS["advancement_kinds"]),
                          ("vales", len(vales), LIMITS["vale_kinds"])):
        if n > most:
            raise CardSetError(file, None, what, f"{n} {what[:-1]} kinds, above the limit {most}",
                               f"use at most {most}; limits: docs/card-format.md")
    for level in (1, 2, 3):
        n = sum(a.copies for a in advancements if a.supply == "commons" and a.level == level)
        if n > LIMITS["level_copies"]:
            raise CardSetError(file, None, "advancements",
                               f"{n} level {level} commons copies, above the limit "
                               f"{LIMITS['level_copies']}",
                               f"use at most {LIMITS['level_copies']}; limits: docs/card-format.md")
    n = sum(v.copies for v in vales)
    if n > LIMITS["vale_copies"]:
        raise CardSetError(file, None, "vales", f"{n} vale copies, above the limit "
                           f"{LIMITS['vale_copies']}",
                           f"use at most {LIMITS['vale_copies']}; limits: docs/card-format.md")
    # Names that differ only by case or spaces print alike, and a policy's
    # `card = ...` would bind to one of them: they are one name (inputs.name_key).
    seen: dict[str, tuple[str, str]] = {}
    for what, cards in (("advancement", advancements), ("vale", vales)):
        for c in cards:
            prev = seen.get(name_key(c.name))
            if prev is not None:
                other, kind = prev
                same = "" if other == c.name else f" {other!r} (same name up to case and spaces)"
                raise CardSetError(file, c.name, "name",
                                   f"duplicate name: already used by {'an' if kind == 'advancement' else 'a'} {kind}{same}",
                                   "give every advancement and vale a different name")
            seen[name_key(c.name)] = (c.name, what)
    adv = {a.name: a for a in advancements}
    names: dict[str, str] = {}
    for sc in starting:
        if name_key(sc.name) in names:
            other = names[name_key(sc.name)]
            same = "" if other == sc.name else f" ({other!r}: the same name up to case and spaces)"
            raise CardSetError(file, sc.name, "name", f"duplicate starting card name{same}",
                               "merge the two entries or rename one")
        names[name_key(sc.name)] = sc.name
        used = {}
        for n in sc.advancements:
            if n not in adv:
                close = difflib.get_close_matches(n, list(adv), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                raise CardSetError(file, sc.name, "advancements",
                                   f"unknown advancement {n!r}",
                                   f"{hint}list it under [[advancements]] or fix the name")
            pos = adv[n].position
            if pos in used:
                raise CardSetError(file, sc.name, "advancements",
                                   f"{used[pos]!r} and {n!r} are both on the {POSITIONS[pos]} position",
                                   "a card holds at most one advancement per position")
            used[pos] = n
    total = sum(sc.count for sc in starting)
    if total != STARTING_DECK_SIZE:
        raise CardSetError(file, None, "starting_cards",
                           f"impossible deck: the starting cards count {total}, not {STARTING_DECK_SIZE}",
                           f"make the counts add up to {STARTING_DECK_SIZE}")
    return CardSet(name=name, advancements=tuple(advancements), vales=tuple(vales),
                   starting_cards=tuple(starting), path=file, description=description)


def _parse_toml(path: Path) -> CardSet:
    data = read_data_toml(path, "card set", CardSetError)
    sections = {"set": dict, "starting_cards": list, "advancements": list, "vales": list}
    for k, v in data.items():
        if k not in sections:
            close = difflib.get_close_matches(k, list(sections), n=1)
            raise CardSetError(path, None, k, "unknown section",
                               f"did you mean {close[0]!r}?" if close else
                               "sections are [set], [[starting_cards]], [[advancements]], [[vales]]")
        if not isinstance(v, sections[k]) or (
                sections[k] is list and not all(isinstance(x, dict) for x in v)):
            raise CardSetError(path, None, k, "wrong type: expected "
                               + ("a [set] table" if k == "set" else f"[[{k}]] tables"),
                               f"write [[{k}]] above each card" if k != "set" else "write [set]")
    meta = _typed(_ctx(path, None), data.get("set", {}), SET_FIELDS, "[set]")
    starting = [_starting(_ctx(path, f"starting_cards #{i + 1}"), c)
                for i, c in enumerate(data.get("starting_cards", []))]
    advs = [_advancement(_ctx(path, f"advancements #{i + 1}"), c)
            for i, c in enumerate(data.get("advancements", []))]
    vales = [_vale(_ctx(path, f"vales #{i + 1}"), c)
             for i, c in enumerate(data.get("vales", []))]
    return _assemble(path, meta.get("name", path.stem), meta.get("description", ""),
                     starting, advs, vales)


# ---------------------------------------------------------------------------
# CSV: one row per card, a `type` column, the TOML field names as columns.
# ---------------------------------------------------------------------------
CSV_COLUMNS = (
    "type", "name", "level", "supply", "copies", "cost", "position", "longwise",
    *_SYMBOLS, "ability", "amount", "symbol", "extra_buys", "unique",
    "cost_animal", "cost_forest", "cost_sky", "cost_wild", "advancements", "count",
    "text", "note", "sources", "source",
)
CSV_TYPES = ("set", "starting", "advancement", "vale")
_CSV_COST = {"cost_animal": "animal", "cost_forest": "forest", "cost_sky": "sky",
             "cost_wild": "wild"}
# Columns allowed per row type (CSV column name -> TOML field).
_CSV_FIELDS = {
    "set": {"name": "name", "text": "description"},
    "starting": {k: k for k in STARTING_FIELDS},
    "advancement": {k: k for k in ADVANCEMENT_FIELDS},
    "vale": {**{k: k for k in VALE_FIELDS if k != "cost"}, **{k: "cost" for k in _CSV_COST}},
}
_CSV_TYPE_WORDS = {"int": "a whole number (e.g. 2)", "str": "text",
                   "bool": "true or false", "names": "names separated by ';'",
                   "cost": "a whole number (e.g. 1)",
                   "sources": "field=source pairs separated by ';' (e.g. mana=review; end_vp=estimate)"}


def _csv_cell(ctx: FieldReader, column: str, typ: str, cell: str):
    cell = cell.strip()
    if typ in ("int", "cost"):
        try:        # ASCII digits only: int() also takes 1_0, +3, -0 and non-ASCII digits
            return parse_int(cell, negative=True)     # a negative one: the range check says so
        except ValueError:
            raise ctx.err(column, f"wrong type: expected {_CSV_TYPE_WORDS[typ]}, got {cell!r}",
                          f"write {column} as {_CSV_TYPE_WORDS[typ]} or leave it empty") from None
    if typ == "bool":
        low = cell.lower()
        if low in ("true", "yes", "1"):
            return True
        if low in ("false", "no", "0"):
            return False
        raise ctx.err(column, f"wrong type: expected true or false, got {cell!r}",
                      f"write {column} as true or false or leave it empty")
    if typ == "names":
        return [n.strip() for n in cell.split(";") if n.strip()]
    if typ == "sources":
        out = {}
        for part in (p.strip() for p in cell.split(";")):
            if not part:
                continue
            key, eq, value = part.partition("=")
            if not eq or not key.strip() or not value.strip():
                raise ctx.err(column, f"malformed sources {part!r}",
                              f"write {_CSV_TYPE_WORDS['sources']}")
            out[key.strip()] = value.strip()
        return out
    return cell


def _parse_csv(path: Path) -> CardSet:
    try:
        rows = list(csv.reader(io.StringIO(read_text(path, "card set file"), newline="")))
    except InputFileError as e:
        raise CardSetError(path, None, None, e.problem, e.fix) from None
    except csv.Error as e:
        raise CardSetError(path, None, None, f"unreadable CSV: {e}", "save it as UTF-8 CSV") from None
    if not rows:
        raise CardSetError(path, None, None, "empty CSV file", "the first row must name the columns")
    header = [h.strip() for h in rows[0]]
    for h in header:
        if h and h not in CSV_COLUMNS:
            close = difflib.get_close_matches(h, CSV_COLUMNS, n=1)
            raise CardSetError(path, None, h, "unknown column",
                               f"did you mean {close[0]!r}?" if close else
                               f"columns are: {', '.join(CSV_COLUMNS)}")
    if len(set(h for h in header if h)) != len([h for h in header if h]):
        raise CardSetError(path, None, None, "a column name appears twice", "remove the duplicate column")
    if "type" not in header:
        raise CardSetError(path, None, "type", "missing the 'type' column",
                           "add a 'type' column: starting, advancement or vale")
    meta = {}
    starting, advs, vales = [], [], []
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue                      # blank spreadsheet row
        rowfile = f"{path}, row {n}"
        if len(row) > len(header) and any(c.strip() for c in row[len(header):]):
            raise CardSetError(rowfile, None, None,
                               f"malformed row: {len(row)} cells but the header has {len(header)} columns",
                               "remove the extra cells or quote cells that contain commas")
        cells = {h: (row[i] if i < len(row) else "") for i, h in enumerate(header) if h}
        label = cells.get("name", "").strip() or None
        ctx = _ctx(rowfile, label)
        kind = cells["type"].strip().lower()
        if kind not in CSV_TYPES:
            raise ctx.err("type", f"malformed row: unknown card type {cells['type']!r}",
                          "type is one of: starting, advancement, vale (or set)")
        allowed = _CSV_FIELDS[kind]
        spec = {"set": SET_FIELDS, "starting": STARTING_FIELDS,
                "advancement": ADVANCEMENT_FIELDS, "vale": VALE_FIELDS}[kind]
        raw: dict = {}
        for col, cell in cells.items():
            if col == "type" or not cell.strip():
                continue                  # empty cell = default
            if col not in allowed:
                raise ctx.err(col, f"field {col!r} does not apply to a {kind} row",
                              f"leave {col} empty on {kind} rows")
            fld = allowed[col]
            value = _csv_cell(ctx, col, spec[fld][0], cell)
            if fld == "cost" and kind == "vale":
                raw.setdefault("cost", {})[_CSV_COST[col]] = value
            else:
                raw[fld] = value
        if kind == "set":
            meta.update(raw)
        elif kind == "starting":
            starting.append(_starting(ctx, raw))
        elif kind == "advancement":
            advs.append(_advancement(ctx, raw))
        else:
            vales.append(_vale(ctx, raw))
    return _assemble(path, meta.get("name", path.stem), meta.get("description", ""),
                     starting, advs, vales)


def card_set_to_csv(cs: CardSet, path) -> None:
    """Write ``cs`` as CSV (the schema :func:`load_card_set` reads back).

    Zero symbol counts and false flags are written as empty cells (= default).
    """
    def blank0(v):
        return "" if v in (0, False) else ("true" if v is True else v)

    def sources(card):
        return "; ".join(f"{k}={v}" for k, v in card.sources)

    rows = [{"type": "set", "name": cs.name, "text": cs.description}]
    for sc in cs.starting_cards:
        rows.append({"type": "starting", "name": sc.name, "count": sc.count,
                     "advancements": "; ".join(sc.advancements), "source": sc.source,
                     "sources": sources(sc)})
    for a in cs.advancements:
        row = {"type": "advancement", "name": a.name, "level": a.level, "supply": a.supply,
               "copies": a.copies, "cost": a.cost, "position": POSITIONS[a.position],
               "longwise": blank0(a.longwise), "ability": a.ability, "amount": a.amount,
               "text": a.text, "note": a.note, "source": a.source, "sources": sources(a)}
        row.update({s: blank0(getattr(a, s)) for s in _SYMBOLS})
        rows.append(row)
    for v in cs.vales:
        rows.append({"type": "vale", "name": v.name, "level": v.level, "copies": v.copies,
                     "cost_animal": blank0(v.cost_animal), "cost_forest": blank0(v.cost_forest),
                     "cost_sky": blank0(v.cost_sky), "cost_wild": blank0(v.cost_wild),
                     "end_vp": v.end_vp, "ability": v.ability, "amount": v.amount,
                     "symbol": v.symbol, "extra_buys": blank0(v.extra_buys),
                     "unique": blank0(v.unique), "text": v.text, "note": v.note,
                     "source": v.source, "sources": sources(v)})
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, restval="")
        w.writeheader()
        w.writerows(rows)


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------
def bundled_sets() -> list[str]:
    """Names of the card sets shipped in ``vale_sim/games/mystic_vale/data``."""
    return sorted(p.stem for p in DATA_DIR.glob("*.toml"))


@functools.lru_cache(maxsize=None)
def _load_bundled(name: str) -> CardSet:
    return _load_path(DATA_DIR / f"{name}.toml")


def _load_path(path: Path) -> CardSet:
    try:
        check_file(path, "card set file")
    except InputFileError as e:
        problem = "file not found" if e.problem == "no such file" else e.problem
        raise CardSetError(path, None, None, problem,
                           f"give a bundled set ({', '.join(bundled_sets())}) "
                           "or the path of a .toml or .csv file") from None
    suffix = path.suffix.lower()
    if suffix == ".toml":
        return _parse_toml(path)
    if suffix == ".csv":
        return _parse_csv(path)
    raise CardSetError(path, None, None, f"unknown file type {path.suffix!r}",
                       "card sets are .toml or .csv files")


def load_card_set(spec) -> CardSet:
    """Load a card set: a bundled name ("starter", "core"), a .toml/.csv path, or a CardSet.

    Bundled sets are cached; files are read every time.  Raises
    :class:`CardSetError` naming the file, card and field of the first problem.
    """
    if isinstance(spec, CardSet):
        return spec
    if not isinstance(spec, (str, Path)):
        raise TypeError(f"card set spec must be a name, a path or a CardSet, got {spec!r}")
    text = str(spec)
    if isinstance(spec, str) and text in bundled_sets():
        return _load_bundled(text)
    path = Path(text)
    if not path.suffix and not path.exists() and "/" not in text and "\\" not in text:
        names = bundled_sets()
        close = difflib.get_close_matches(text, names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise CardSetError(text, None, None, "unknown card set",
                           f"{hint}bundled sets: {', '.join(names)}; or give a .toml or .csv path")
    return _load_path(path)


def validate_playable(cs: CardSet, players: int) -> None:
    """Raise CardSetError if a ``players``-player game cannot be set up with ``cs``."""
    from .rules import LEVEL1_DECK
    file = cs.path or cs.name
    if players not in LEVEL1_DECK:          # the count is the mistake, not the card file
        raise PlayerCountError(players, tuple(LEVEL1_DECK))
    need = LEVEL1_DECK[players]
    have = cs.copies("advancement", 1)
    if have < need:
        raise CardSetError(file, None, "advancements",
                           f"only {have} level 1 advancement copies; a {players}-player game deals {need}",
                           f"add level 1 advancements to reach {need} copies")
    # (kind, level, face-up slots the setup fills, what to call them)
    for kind, level, shown, what in (("advancement", 2, 3, "the commons shows 3"),
                                     ("advancement", 3, 3, "the commons shows 3"),
                                     ("vale", 1, 4, "4 are shown face up"),
                                     ("vale", 2, 4, "4 are shown face up")):
        have = cs.copies(kind, level)
        if have < shown:
            raise CardSetError(file, None, f"{kind}s",
                               f"only {have} level {level} {kind} copies; {what}",
                               f"add level {level} {kind}s to reach {shown} copies")


# ---------------------------------------------------------------------------
# What-if edits (vale_sim.whatif): one number of one card changed
# ---------------------------------------------------------------------------
#: The numbers ``vale-sim what-if --edit CARD.FIELD=VALUE`` may change, with their
#: bounds (the loader's: docs/card-format.md, "Limits").  Level, position and
#: supply move a card to another deck or place (edit the card file for that);
#: starting cards are left out (their counts must add up to 20).
EDITABLE_ADVANCEMENT = {"copies": (1, LIMITS["copies"]), "cost": (0, LIMITS["cost"]),
                        **{s: (0, LIMITS["symbol"]) for s in _SYMBOLS},
                        "amount": (1, LIMITS["amount"])}
EDITABLE_VALE = {"copies": (1, LIMITS["copies"]),
                 **{f"cost_{s}": (0, LIMITS["vale_cost"]) for s in SPIRITS},
                 "end_vp": (0, LIMITS["symbol"]), "amount": (1, LIMITS["amount"]),
                 "extra_buys": (0, LIMITS["extra_buys"])}
EDIT_SOURCE = "user"          # the source of an edited number


def editable_fields(card) -> tuple[str, ...]:
    """The numbers of ``card`` (an Advancement or a Vale) an edit may change."""
    if isinstance(card, Advancement):
        return tuple(f for f in EDITABLE_ADVANCEMENT
                     if f != "amount" or card.ability in DEFAULT_AMOUNT)
    return tuple(f for f in EDITABLE_VALE
                 if (f != "amount" or card.ability in DEFAULT_AMOUNT)
                 and (f != "extra_buys" or card.ability == "harvest_mana"))


def apply_edit(cs: CardSet, card: str, field_: str, value: int, relative: bool = False):
    """``cs`` with number ``field_`` of card ``card`` set to ``value`` (``relative``:
    the current value plus ``value``); the number's source becomes ``user``.
    Returns ``(new_set, old_value, new_value)``.  A one-line CardSetError names the
    card, the field and the fix: an unknown card (with the closest name), a field
    that is not an editable number (listing those), a value out of the loader's
    range, or a set that no longer passes the cross-card limits."""
    from dataclasses import replace
    from ...inputs import did_you_mean
    where = f"--edit {card}.{field_}"
    names = [a.name for a in cs.advancements] + [v.name for v in cs.vales]
    idx = next(((k, i) for k, items in (("advancement", cs.advancements), ("vale", cs.vales))
                for i, c in enumerate(items) if c.name == card), None)
    if idx is None:
        hint = did_you_mean(card, names)
        raise CardSetError(where, None, None, f"unknown card {card!r} in set {cs.name!r}",
                           hint or "use a card name as `vale-sim cards` lists it")
    kind, i = idx
    items = cs.advancements if kind == "advancement" else cs.vales
    c = items[i]
    if kind == "advancement" and c.supply == "starter":
        raise CardSetError(where, None, None, f"{card!r} is a starting-card print",
                           "edit a commons or Fertile Soil advancement, or a vale")
    allowed = editable_fields(c)
    if field_ not in allowed:
        raise CardSetError(where, None, None, f"{field_!r} is not an editable number of {kind} "
                           f"{card!r}", f"editable: {', '.join(allowed)}")
    old = getattr(c, field_)
    new = old + value if relative else value
    lo, hi = (EDITABLE_ADVANCEMENT if kind == "advancement" else EDITABLE_VALE)[field_]
    if not lo <= new <= hi:
        shown = f"{old} {'+' if value >= 0 else '-'} {abs(value)} = {new}" if relative else str(new)
        raise CardSetError(where, None, None, f"{field_} would be {shown}, outside {lo}..{hi}",
                           f"give a value from {lo} to {hi}; limits: docs/card-format.md")
    src = dict(c.sources)
    src[field_] = EDIT_SOURCE
    order = _SOURCE_KEYS[kind]
    sources = tuple((k, src[k]) for k in order if k in src and src[k] != c.source)
    edited = replace(c, **{field_: new}, sources=sources)
    new_items = items[:i] + (edited,) + items[i + 1:]
    out = replace(cs, **{"advancements" if kind == "advancement" else "vales": new_items})
    level_total = [sum(a.copies for a in out.advancements if a.supply == "commons" and a.level == lv)
                   for lv in (1, 2, 3)]
    if max(level_total) > LIMITS["level_copies"] or \
            sum(v.copies for v in out.vales) > LIMITS["vale_copies"]:
        raise CardSetError(where, None, None, "the edited set has more copies than the engines "
                           "hold", "use fewer copies (limits: docs/card-format.md)")
    return out, old, new
