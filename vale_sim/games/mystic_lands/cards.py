"""Mystic Lands components as data: the schema, the effect vocabulary, loading
and validation (docs/mystic-lands-components.md).

A card set is a TOML file (``data/mystic-lands.toml``) naming a vale map
(``data/maps/<map>.toml``).  Loading turns both into one frozen
:class:`CardSet`; the engines read components only through it.  Every number
carries a source (``manual``, ``estimate``, ``user``): the card's ``source``
unless its ``sources`` table overrides a field.  Estimated costs that a file
leaves out follow the documented curves (:func:`advance_curve_cost`,
:func:`vale_curve_cost`).  Errors are one line naming file, item, field and
fix (:class:`CardSetError`).

Everything an engine needs is an integer or a tuple of integers once loaded:
positions, halves, aspects, resources, timings and effect kinds are indexes
into the tuples below (a numba engine holds them in integer arrays).
"""
from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from ...card_data import (CardFileError, FieldReader, PlayerCountMixin, Sourced, index_by_name,
                          read_data_toml)
from ...inputs import name_key

# -- vocabulary (the integer code of a word is its index) ---------------------
#: The four Advance positions: a card has a top and a bottom half, each with a
#: background layer (against the basic card) and a foreground layer (in front).
POSITIONS = ("top-fg", "top-bg", "bottom-fg", "bottom-bg")
HALVES = ("top", "bottom")
ASPECTS = ("blue", "green", "red", "yellow")
RESOURCES = ("mana", "spirit", "vp", "rain")
SOURCES = ("manual", "estimate", "user", "balance")

#: Layers of one half of a card, back to front (rules doc §2.2).
LAYER_BASIC, LAYER_BG, LAYER_FG = 0, 1, 2


def position_half(pos: int) -> int:
    return pos // 2


def position_layer(pos: int) -> int:
    return LAYER_FG if pos % 2 == 0 else LAYER_BG


#: When an effect resolves (manual "Advance effect timing" and "Vale cards").
TIMINGS = ("played", "night", "day", "day_repeatable", "dusk", "ongoing", "acquire",
           "endgame", "immediate", "night_or_day", "activation")
ADVANCE_TIMINGS = ("played", "night", "day", "day_repeatable", "dusk", "ongoing", "acquire",
                   "endgame")
VALE_TIMINGS = ("immediate", "night", "day", "night_or_day", "activation", "endgame")

#: Effect kinds: kind -> (timings it may have, parameters it reads).
EFFECT_KINDS = {
    "gain": (("played", "night", "day", "dusk", "acquire", "immediate", "night_or_day",
              "activation"), ("resource", "amount")),
    "gain_per_aspect_land": (("played", "night", "day", "dusk"),
                             ("resource", "aspect", "amount")),
    "gain_per_aspect_card": (("played", "night", "day", "dusk"),
                             ("resource", "aspect", "amount")),
    "convert": (("day", "day_repeatable", "dusk", "night_or_day", "activation"),
                ("pay", "cost", "resource", "amount")),
    "play_ondeck": (("day",), ("aspect", "need")),                 # Hibiscus Dryad
    "to_ondeck": (("dusk",), ()),                                  # Sun Parrot
    "swap_ondeck": (("night",), ()),                               # Turtle Nesting Ground
    "refresh": (("day", "immediate", "activation", "night_or_day"), ()),  # Ent Guardian, Sequoia
    "enchant_discount": (("day",), ("amount", "need")),            # Sun Priestess
    "replace_sleeve": (("dusk",), ()),                             # Mangrove Forest
    "remove_card": (("day", "activation", "immediate"), ()),       # Grasping Vines
    "sleeve_market": (("day", "activation", "immediate"), ("need",)),  # Satyr Home
    "vp_per_sun_all": (("endgame",), ("amount", "per")),           # Sunlight Valley
    "wither_limit": (("ongoing",), ("amount",)),
}
KINDS = tuple(EFFECT_KINDS)
#: The kinds a Vale may have (the others act on the card they are sleeved on).
VALE_KINDS = ("gain", "convert", "refresh", "remove_card", "sleeve_market", "vp_per_sun_all")

# Size limits checked at load time: they keep every engine's tables small.
LIMITS = {"copies": 20, "cost": 30, "icon": 5, "amount": 10, "vale_cost": 10, "rows": 6,
          "track": 6, "effects": 3, "kinds": 96, "vale_kinds": 48, "spaces": 40,
          "starting_count": 20, "deck": 40}


class CardSetError(CardFileError):
    """A card-set or map file is malformed.  One line: file, item, field, problem, fix."""


# -- the data model -------------------------------------------------------------
@dataclass(frozen=True)
class Effect:
    """One effect: when (``timing``), what (``kind``) and its integer parameters."""
    timing: str
    kind: str
    amount: int = 0
    resource: str = ""     # what it gains (RESOURCES)
    aspect: str = ""       # the aspect it counts (ASPECTS)
    need: int = 0          # play_ondeck: cards needed; enchant_discount: max printed cost;
    #                        sleeve_market: Advance level
    pay: str = ""          # convert: the resource paid
    cost: int = 0          # convert: how much of it
    per: int = 1           # vp_per_sun_all: suns per `amount` VP

    def code(self) -> tuple[int, ...]:
        """The effect as integers (timing, kind, amount, resource, aspect, need, pay, cost, per)."""
        return (TIMINGS.index(self.timing), KINDS.index(self.kind), self.amount,
                RESOURCES.index(self.resource) if self.resource else -1,
                ASPECTS.index(self.aspect) if self.aspect else -1, self.need,
                RESOURCES.index(self.pay) if self.pay else -1, self.cost, self.per)


@dataclass(frozen=True)
class Icons:
    """What an Advance or a basic card shows (counts)."""
    sun: int = 0
    cloud: int = 0
    rain: int = 0          # rain reward icons (a Rain token when first covered)
    mana: int = 0          # left-edge resources, gained in the Day phase
    spirit: int = 0
    vp: int = 0
    blue: int = 0
    green: int = 0
    red: int = 0
    yellow: int = 0
    wild: int = 0

    def aspect(self, a: str) -> int:
        return getattr(self, a)


ICON_FIELDS = tuple(f for f in Icons.__dataclass_fields__)


@dataclass(frozen=True)
class Advance(Sourced):
    """One Advance kind (level 0 = Druid Advance)."""
    name: str
    level: int
    copies: int
    cost: int
    position: int          # index in POSITIONS
    icons: Icons
    end_vp: int = 0
    effects: tuple[Effect, ...] = ()
    source: str = "estimate"
    sources: tuple[tuple[str, str], ...] = ()
    text: str = ""

    @property
    def half(self) -> int:
        return position_half(self.position)

    @property
    def layer(self) -> int:
        return position_layer(self.position)

    def numbers(self) -> dict[str, str]:
        names = ("level", "copies", "cost", "position", "end_vp") + tuple(
            f for f in ICON_FIELDS if getattr(self.icons, f)) + (
            ("effects",) if self.effects else ())
        return {f: self.source_of(f) for f in names}


@dataclass(frozen=True)
class StartingCard(Sourced):
    """A basic card kind of the starting deck: its icons, where they sit, and how many."""
    name: str
    count: int
    icons: Icons
    sun_half: int = 0      # HALVES index of its sun icon(s)
    rain_half: int = 1     # HALVES index of its rain icon(s)
    druid: bool = False    # the Druid card: sleeved with the chosen Druid Advance
    source: str = "estimate"
    sources: tuple[tuple[str, str], ...] = ()

    def numbers(self) -> dict[str, str]:
        names = ("count",) + tuple(f for f in ICON_FIELDS if getattr(self.icons, f))
        return {f: self.source_of(f) for f in names}


@dataclass(frozen=True)
class Row:
    """A VP spot of a Vale (or a small space): end VP, immediate rewards, activation arrow."""
    vp: int                # end-of-game VP of a cube here
    mana: int = 0          # gained when a cube is placed here
    spirit: int = 0
    gain_vp: int = 0
    rain: int = 0
    activation: bool = False   # connected to the Vale's activation track

    def reward(self) -> tuple[int, int, int, int]:
        return (self.mana, self.spirit, self.gain_vp, self.rain)


@dataclass(frozen=True)
class Square:
    """A square of an activation track: a reward, or the Vale's activation effect."""
    mana: int = 0
    spirit: int = 0
    vp: int = 0
    rain: int = 0
    effect: bool = False

    def reward(self) -> tuple[int, int, int, int]:
        return (self.mana, self.spirit, self.vp, self.rain)


@dataclass(frozen=True)
class Vale(Sourced):
    """One Vale card kind (level 1 or 2)."""
    name: str
    level: int
    copies: int
    cost: int              # spirit
    rows: tuple[Row, ...]
    track: tuple[Square, ...] = ()
    effects: tuple[Effect, ...] = ()
    source: str = "estimate"
    sources: tuple[tuple[str, str], ...] = ()
    text: str = ""

    def numbers(self) -> dict[str, str]:
        names = ("level", "copies", "cost", "rows") + (("track",) if self.track else ()) + (
            ("effects",) if self.effects else ())
        return {f: self.source_of(f) for f in names}


SPACE_KINDS = ("start", "I", "II", "small")


@dataclass(frozen=True)
class Space:
    """A space of a Vale map.  ``links`` are indexes of connected spaces (sorted)."""
    id: str
    kind: str              # SPACE_KINDS
    links: tuple[int, ...]
    rewards: tuple[tuple[int, tuple[int, int, int, int]], ...] = ()  # (row, (mana,spirit,vp,rain))
    name: str = ""         # small spaces
    cost: int = 0          # small spaces
    rows: tuple[Row, ...] = ()   # small spaces

    def reward(self, row: int) -> tuple[int, int, int, int]:
        for r, rw in self.rewards:
            if r == row:
                return rw
        return (0, 0, 0, 0)


@dataclass(frozen=True)
class ValeMap:
    name: str
    spaces: tuple[Space, ...]
    start: int
    source: str = "estimate"
    path: str = ""

    def of_kind(self, kind: str) -> list[int]:
        return [i for i, s in enumerate(self.spaces) if s.kind == kind]


@dataclass(frozen=True)
class CardSet:
    name: str
    starting: tuple[StartingCard, ...]
    advances: tuple[Advance, ...]        # Druid Advances (level 0) and levels 1, 2
    vales: tuple[Vale, ...]
    map: ValeMap
    path: str = ""
    description: str = ""

    def advance_id(self, name: str) -> int:
        return index_by_name(self.advances, name, "advance", self.name)

    def vale_id(self, name: str) -> int:
        return index_by_name(self.vales, name, "vale", self.name)

    def of_level(self, level: int) -> list[int]:
        """Advance ids of one level (0 = Druid Advances), file order."""
        return [i for i, a in enumerate(self.advances) if a.level == level]

    def vales_of_level(self, level: int) -> list[int]:
        return [i for i, v in enumerate(self.vales) if v.level == level]

    def deck_list(self, level: int) -> list[int]:
        """One entry per copy: the Advance ids of a level's deck, before shuffling."""
        return [i for i in self.of_level(level) for _ in range(self.advances[i].copies)]

    def vale_deck_list(self, level: int) -> list[int]:
        return [i for i in self.vales_of_level(level) for _ in range(self.vales[i].copies)]

    def starting_deck(self) -> list[int]:
        """One StartingCard index per card of a player's starting deck (file order)."""
        return [i for i, s in enumerate(self.starting) for _ in range(s.count)]

    def digest(self) -> str:
        """A hash of everything that changes play (not the file names)."""
        blob = json.dumps([[asdict(s) for s in self.starting], [asdict(a) for a in self.advances],
                           [asdict(v) for v in self.vales],
                           [self.map.name, [asdict(s) for s in self.map.spaces], self.map.start]],
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def provenance_counts(cs: CardSet) -> dict[str, int]:
    """How many numbers of ``cs`` come from each source (each kind once, not per copy)."""
    counts = dict.fromkeys(SOURCES, 0)
    for c in list(cs.starting) + list(cs.advances) + list(cs.vales):
        for src in c.numbers().values():
            counts[src] += 1
    return counts


# -- estimate curves (docs/mystic-lands-components.md "Curves") -----------------------
#: Curve value of one unit of each icon and of each effect kind (per `amount`).
ICON_VALUE = {"sun": -2, "cloud": 2, "rain": 1, "mana": 2, "spirit": 2, "vp": 3,
              "blue": 0, "green": 0, "red": 0, "yellow": 0, "wild": 1}
RESOURCE_VALUE = {"mana": 2, "spirit": 2, "vp": 3, "rain": 1}
KIND_VALUE = {"play_ondeck": 3, "to_ondeck": 2, "swap_ondeck": 2, "refresh": 3,
              "enchant_discount": 3, "replace_sleeve": 2, "remove_card": 2,
              "sleeve_market": 4, "vp_per_sun_all": 3, "wither_limit": 3}


def effect_value(e: Effect) -> int:
    """Curve value of an effect (integers; see docs/mystic-lands-components.md)."""
    if e.kind == "gain":
        v = RESOURCE_VALUE[e.resource] * e.amount
        return v // 2 if e.timing == "acquire" else v
    if e.kind == "gain_per_aspect_land":
        return RESOURCE_VALUE[e.resource] * e.amount * 2      # a typical Land: 2 such cards
    if e.kind == "gain_per_aspect_card":
        return RESOURCE_VALUE[e.resource] * e.amount
    if e.kind == "convert":
        gain = RESOURCE_VALUE[e.resource] * e.amount - RESOURCE_VALUE[e.pay] * e.cost
        return max(1, gain + 1) * (2 if e.timing == "day_repeatable" else 1)
    if e.kind == "wither_limit":
        return KIND_VALUE[e.kind] * e.amount
    return KIND_VALUE[e.kind]


def advance_curve_cost(icons: Icons, end_vp: int, effects) -> int:
    """Estimated mana cost: the sum of icon and effect values, at least 1."""
    v = sum(ICON_VALUE[f] * getattr(icons, f) for f in ICON_FIELDS) + end_vp
    v += sum(effect_value(e) for e in effects)
    return max(1, v)


def vale_curve_cost(level: int, rows, effects) -> int:
    """Estimated spirit cost: best row VP + (level - 1) + 1 if it has an effect, 1..6."""
    best = max((r.vp for r in rows), default=0)
    return max(1, min(6, best + (level - 1) + (1 if effects else 0)))


# -- loading ------------------------------------------------------------------------
PACKAGE_DIR = Path(__file__).parent
DATA_DIR = PACKAGE_DIR / "data"
MAP_DIR = DATA_DIR / "maps"
DEFAULT_SET = "mystic-lands"
DEFAULT_MAP = "gateway-vale"


def bundled_card_sets() -> dict[str, Path]:
    return {p.stem: p for p in sorted(DATA_DIR.glob("*.toml"))}


def bundled_maps() -> dict[str, Path]:
    return {p.stem: p for p in sorted(MAP_DIR.glob("*.toml"))}


class PlayerCountError(PlayerCountMixin, CardSetError):
    """A player count Mystic Lands does not have (not a fault of the card file)."""
    TAIL = ": Mystic Lands plays 2-4"


class _Reader(FieldReader):
    """Type-checked field access for one item of a file (vale_sim.card_data), and the
    ``source`` / ``sources`` fields as Mystic Lands writes them."""

    def __init__(self, file, item, table: dict, allowed: tuple):
        super().__init__(file, item, table, allowed, error=CardSetError)

    def sources(self, numbers: tuple):
        src = self.str("source", "estimate", SOURCES)
        raw = self.t.get("sources", {})
        if not isinstance(raw, dict):
            raise self.err("sources", "must be a table", "write sources = {field = \"manual\"}")
        out = []
        for k in sorted(raw):
            if k not in numbers:
                raise self.err("sources", f"names {k!r}, which is not a number of this item",
                               f"use one of {', '.join(numbers)}")
            if raw[k] not in SOURCES:
                raise self.err("sources", f"{k} has unknown source {raw[k]!r}",
                               f"use one of {', '.join(SOURCES)}")
            out.append((k, raw[k]))
        return src, tuple(out)


def _icons(r: _Reader) -> Icons:
    return Icons(**{f: r.int(f, 0, 0, LIMITS["icon"]) for f in ICON_FIELDS})


_EFFECT_FIELDS = ("timing", "kind", "amount", "resource", "aspect", "need", "pay", "cost", "per")


def _effects(file, item, raw, timings, kinds=KINDS) -> tuple[Effect, ...]:
    if not isinstance(raw, list):
        raise CardSetError(file, item, "effects", "must be a list of tables",
                           "write effects = [{timing = \"day\", kind = \"gain\", ...}]")
    if len(raw) > LIMITS["effects"]:
        raise CardSetError(file, item, "effects", f"{len(raw)} effects",
                           f"use at most {LIMITS['effects']}")
    out = []
    for n, t in enumerate(raw):
        r = _Reader(file, f"{item} effect {n + 1}", t, _EFFECT_FIELDS)
        kind = r.str("kind", None, KINDS)
        if kind not in kinds:
            raise r.err("kind", f"a {item.split()[0]} cannot have {kind}",
                        f"use one of {', '.join(kinds)}")
        allowed, params = EFFECT_KINDS[kind]
        timing = r.str("timing", None, timings)
        if timing not in allowed:
            raise r.err("timing", f"{kind} cannot have timing {timing!r}",
                        f"use one of {', '.join(t for t in allowed if t in timings)}")
        for p in _EFFECT_FIELDS[2:]:
            if p in t and p not in params:
                raise r.err(p, f"{kind} takes no {p}",
                            f"remove it; {kind} takes {', '.join(params) or 'no parameters'}")
        e = Effect(
            timing=timing, kind=kind,
            amount=r.int("amount", 1 if "amount" in params else 0, 1 if "amount" in params else 0,
                         LIMITS["amount"]),
            resource=r.str("resource", None, RESOURCES) if "resource" in params else "",
            aspect=r.str("aspect", None, ASPECTS) if "aspect" in params else "",
            need=r.int("need", 1 if "need" in params else 0, 0, LIMITS["amount"]),
            pay=r.str("pay", None, RESOURCES[:3]) if "pay" in params else "",
            cost=r.int("cost", 1 if "cost" in params else 0, 0, LIMITS["amount"]),
            per=r.int("per", 1, 1, LIMITS["amount"]))
        if kind == "sleeve_market" and e.need not in (1, 2):
            raise r.err("need", f"sleeve_market needs an Advance level, got {e.need}",
                        "use need = 1 or need = 2")
        if kind == "convert" and e.pay == e.resource:
            raise r.err("pay", "pays and gains the same resource", "make pay and resource differ")
        if kind == "convert" and timing == "day_repeatable" and e.cost == 0:
            raise r.err("cost", "a repeatable convert that costs nothing repeats for ever",
                        "give cost = 1 or more, or make the timing day")
        out.append(e)
    return tuple(out)


_ROW_FIELDS = ("vp", "mana", "spirit", "gain_vp", "rain", "activation")
_SQUARE_FIELDS = ("mana", "spirit", "vp", "rain", "effect")


def _rows(file, item, raw) -> tuple[Row, ...]:
    if not isinstance(raw, list) or not raw:
        raise CardSetError(file, item, "rows", "must be a non-empty list of tables",
                           "write rows = [{vp = 2}, {vp = 1}]")
    if len(raw) > LIMITS["rows"]:
        raise CardSetError(file, item, "rows", f"{len(raw)} rows", f"use at most {LIMITS['rows']}")
    out = []
    for n, t in enumerate(raw):
        r = _Reader(file, f"{item} row {n + 1}", t, _ROW_FIELDS)
        out.append(Row(vp=r.int("vp", None, 0, LIMITS["icon"] * 2),
                       **{f: r.int(f, 0, 0, LIMITS["icon"]) for f in _ROW_FIELDS[1:5]},
                       activation=r.bool("activation")))
    return tuple(out)


def _track(file, item, raw) -> tuple[Square, ...]:
    if not isinstance(raw, list):
        raise CardSetError(file, item, "track", "must be a list of tables",
                           "write track = [{mana = 1}, {effect = true}]")
    if len(raw) > LIMITS["track"]:
        raise CardSetError(file, item, "track", f"{len(raw)} squares",
                           f"use at most {LIMITS['track']}")
    out = []
    for n, t in enumerate(raw):
        r = _Reader(file, f"{item} track square {n + 1}", t, _SQUARE_FIELDS)
        out.append(Square(**{f: r.int(f, 0, 0, LIMITS["icon"]) for f in _SQUARE_FIELDS[:4]},
                          effect=r.bool("effect")))
    return tuple(out)


_START_FIELDS = ("name", "count", "sun_half", "rain_half", "druid", "source", "sources") + ICON_FIELDS
_ADV_FIELDS = ("name", "level", "copies", "cost", "position", "end_vp", "effects", "text",
               "source", "sources") + ICON_FIELDS
_VALE_FIELDS = ("name", "level", "copies", "cost", "rows", "track", "effects", "text",
                "source", "sources")


def _starting(file, t, n) -> StartingCard:
    item = f"starting card {t.get('name', n + 1)!r}" if isinstance(t, dict) else f"starting card {n + 1}"
    r = _Reader(file, item, t, _START_FIELDS)
    src, srcs = r.sources(("count",) + ICON_FIELDS)
    return StartingCard(name=r.str("name").strip(), count=r.int("count", None, 1, LIMITS["starting_count"]),
                        icons=_icons(r), sun_half=HALVES.index(r.str("sun_half", "top", HALVES)),
                        rain_half=HALVES.index(r.str("rain_half", "bottom", HALVES)),
                        druid=r.bool("druid"), source=src, sources=srcs)


def _advance(file, t, n, druid: bool) -> Advance:
    what = "druid advance" if druid else "advance"
    item = f"{what} {t.get('name', n + 1)!r}" if isinstance(t, dict) else f"{what} {n + 1}"
    r = _Reader(file, item, t, _ADV_FIELDS)
    name = r.str("name").strip()             # surrounding spaces are not part of a name
    numbers = ("level", "copies", "cost", "position", "end_vp", "effects") + ICON_FIELDS
    src, srcs = r.sources(numbers)
    icons = _icons(r)
    end_vp = r.int("end_vp", 0, 0, LIMITS["icon"] * 2)
    effects = _effects(file, item, t.get("effects", []), ADVANCE_TIMINGS)
    curve = advance_curve_cost(icons, end_vp, effects)
    cost = r.int("cost", 0 if druid else curve, 0, LIMITS["cost"])
    if druid:
        level = r.int("level", 0, 0, 0)
    else:
        level = r.int("level", None, 1, 2)
    return Advance(name=name, level=level, copies=r.int("copies", 1, 1, LIMITS["copies"]),
                   cost=cost, position=POSITIONS.index(r.str("position", None, POSITIONS)),
                   icons=icons, end_vp=end_vp, effects=effects, source=src, sources=srcs,
                   text=r.str("text", ""))


def _vale(file, t, n) -> Vale:
    item = f"vale {t.get('name', n + 1)!r}" if isinstance(t, dict) else f"vale {n + 1}"
    r = _Reader(file, item, t, _VALE_FIELDS)
    name = r.str("name").strip()
    src, srcs = r.sources(("level", "copies", "cost", "rows", "track", "effects"))
    level = r.int("level", None, 1, 2)
    rows = _rows(file, item, t.get("rows"))
    track = _track(file, item, t.get("track", []))
    effects = _effects(file, item, t.get("effects", []), VALE_TIMINGS, VALE_KINDS)
    if any(row.activation for row in rows) and not track:
        raise r.err("track", "a row has an activation arrow but the vale has no track",
                    "add track = [...] or remove activation = true")
    if track and not any(row.activation for row in rows):
        raise r.err("rows", "the vale has a track but no row has an activation arrow",
                    "set activation = true on a row")
    if any(s.effect for s in track) and not any(e.timing == "activation" for e in effects):
        raise r.err("track", "an effect square but no effect with timing 'activation'",
                    "add an effect with timing = \"activation\"")
    cost = r.int("cost", vale_curve_cost(level, rows, effects), 0, LIMITS["vale_cost"])
    return Vale(name=name, level=level, copies=r.int("copies", 1, 1, LIMITS["copies"]),
                cost=cost, rows=rows, track=track, effects=effects, source=src, sources=srcs,
                text=r.str("text", ""))


def _read_toml(path: Path, what: str) -> dict:
    return read_data_toml(path, what, CardSetError)


_SPACE_FIELDS = ("id", "kind", "links", "rewards", "name", "cost", "rows")
_REWARD_FIELDS = ("row", "mana", "spirit", "vp", "rain")


def load_map(spec, base: Path | None = None) -> ValeMap:
    """A Vale map: a bundled name (``gateway-vale``) or a TOML path."""
    if isinstance(spec, ValeMap):
        return spec
    maps = bundled_maps()
    path = maps.get(str(spec))
    if path is None:
        path = Path(spec)
        if base is not None and not path.is_absolute():
            path = base / path
        if not path.exists() and not str(spec).endswith(".toml"):
            raise CardSetError(spec, None, None, "unknown map",
                               f"use one of {', '.join(maps)} or a .toml path")
    data = _read_toml(path, "map")
    top = _Reader(path, "map", {k: v for k, v in data.items() if k != "space"},
                  ("name", "source", "description"))
    name = top.str("name")
    src = top.str("source", "estimate", SOURCES)
    raw = data.get("space")
    if not isinstance(raw, list) or not raw:
        raise CardSetError(path, "map", "space", "no spaces", "add [[space]] tables")
    if len(raw) > LIMITS["spaces"]:
        raise CardSetError(path, "map", "space", f"{len(raw)} spaces",
                           f"use at most {LIMITS['spaces']}")
    ids = []
    for n, t in enumerate(raw):
        sid = t.get("id") if isinstance(t, dict) else None
        if not isinstance(sid, str) or not sid:
            raise CardSetError(path, f"space {n + 1}", "id", "missing", "add id = \"...\"")
        if sid in ids:
            raise CardSetError(path, f"space {sid!r}", "id", "duplicate id", "give every space its own id")
        ids.append(sid)
    links: list[set] = [set() for _ in raw]
    parsed = []
    for n, t in enumerate(raw):
        item = f"space {ids[n]!r}"
        r = _Reader(path, item, t, _SPACE_FIELDS)
        kind = r.str("kind", None, SPACE_KINDS)
        for other in r.list("links"):
            if other not in ids:
                close = difflib.get_close_matches(str(other), ids, n=1)
                raise r.err("links", f"unknown space {other!r}",
                            f"did you mean {close[0]!r}?" if close else "link to a space id of this map")
            j = ids.index(other)
            if j == n:
                raise r.err("links", "links to itself", "remove it")
            links[n].add(j)
            links[j].add(n)
        rewards = []
        for k, rt in enumerate(r.list("rewards")):
            rr = _Reader(path, f"{item} reward {k + 1}", rt, _REWARD_FIELDS)
            rewards.append((rr.int("row", None, 1, LIMITS["rows"]) - 1,
                            tuple(rr.int(f, 0, 0, LIMITS["icon"]) for f in _REWARD_FIELDS[1:])))
        if kind == "small":
            rows = _rows(path, item, t.get("rows"))
            if any(x.activation for x in rows):
                raise r.err("rows", "small spaces have no activation track", "remove activation")
            cost = r.int("cost", None, 0, LIMITS["vale_cost"])
            nm = r.str("name", ids[n])
        else:
            for f in ("rows", "cost", "name"):
                if f in t:
                    raise r.err(f, f"only small spaces have {f} (a {kind} space holds a card)",
                                "remove it or make the space kind = \"small\"")
            rows, cost, nm = (), 0, ""
        if kind == "start" and rewards:
            raise r.err("rewards", "the starting space has no spots", "remove it")
        parsed.append((kind, tuple(sorted(rewards)), nm, cost, rows))
    starts = [i for i, p in enumerate(parsed) if p[0] == "start"]
    if len(starts) != 1:
        raise CardSetError(path, "map", "space", f"{len(starts)} starting spaces",
                           "give exactly one space kind = \"start\"")
    spaces = tuple(Space(id=ids[i], kind=p[0], links=tuple(sorted(links[i])), rewards=p[1],
                         name=p[2], cost=p[3], rows=p[4]) for i, p in enumerate(parsed))
    seen, todo = {starts[0]}, [starts[0]]
    while todo:
        for j in spaces[todo.pop()].links:
            if j not in seen:
                seen.add(j)
                todo.append(j)
    if len(seen) != len(spaces):
        lost = next(s.id for i, s in enumerate(spaces) if i not in seen)
        raise CardSetError(path, f"space {lost!r}", "links", "not connected to the start",
                           "link it to a space on a path from the start")
    return ValeMap(name=name, spaces=spaces, start=starts[0], source=src, path=str(path))


def load_card_set(spec=DEFAULT_SET) -> CardSet:
    """A card set: a bundled name, a TOML path or a loaded CardSet (passed through)."""
    if isinstance(spec, CardSet):
        return spec
    sets = bundled_card_sets()
    path = sets.get(str(spec))
    if path is None:
        path = Path(spec)
        if not path.exists() and not str(spec).endswith(".toml"):
            raise CardSetError(spec, None, None, "unknown card set",
                               f"use one of {', '.join(sets)} or a .toml path")
    data = _read_toml(path, "card set")
    top = _Reader(path, "card set", data,
                  ("name", "description", "map", "starting", "druid", "advance", "vale"))
    name = top.str("name")
    for key in ("starting", "druid", "advance", "vale"):
        if not isinstance(data.get(key, []), list):
            raise CardSetError(path, "card set", key, "must be an array of tables",
                               f"write [[{key}]]")
    starting = tuple(_starting(path, t, n) for n, t in enumerate(data.get("starting", [])))
    druids = tuple(_advance(path, t, n, True) for n, t in enumerate(data.get("druid", [])))
    advs = tuple(_advance(path, t, n, False) for n, t in enumerate(data.get("advance", [])))
    vales = tuple(_vale(path, t, n) for n, t in enumerate(data.get("vale", [])))
    map_spec = top.str("map", DEFAULT_MAP)
    if map_spec not in bundled_maps() and not (Path(path).parent / map_spec).exists() \
            and not Path(map_spec).exists():
        raise CardSetError(path, "card set", "map", f"unknown map {map_spec!r}",
                           f"use one of {', '.join(bundled_maps())} or a map .toml path")
    vmap = load_map(map_spec, base=Path(path).parent)
    cs = CardSet(name=name, starting=starting, advances=druids + advs, vales=vales, map=vmap,
                 path=str(path), description=top.str("description", ""))
    validate(cs)
    return cs


def validate(cs: CardSet) -> None:
    """Whole-set checks: unique names, one Druid card, decks that can be dealt."""
    f = cs.path or cs.name
    for what, items in (("starting card", cs.starting), ("advance", cs.advances),
                        ("vale", cs.vales)):
        seen: dict[str, str] = {}          # names equal up to case and spaces are one name
        for c in items:
            other = seen.get(name_key(c.name))
            if other is not None:
                same = "" if other == c.name else \
                    f" ({other!r} and {c.name!r} differ only by case or spaces)"
                raise CardSetError(f, f"{what} {c.name!r}", "name", f"duplicate name{same}",
                                   "give every kind its own name")
            seen[name_key(c.name)] = c.name
    if len(cs.advances) > LIMITS["kinds"]:
        raise CardSetError(f, "card set", "advance", f"{len(cs.advances)} kinds",
                           f"use at most {LIMITS['kinds']}")
    if len(cs.vales) > LIMITS["vale_kinds"]:
        raise CardSetError(f, "card set", "vale", f"{len(cs.vales)} kinds",
                           f"use at most {LIMITS['vale_kinds']}")
    druid_cards = [s for s in cs.starting if s.druid]
    if len(druid_cards) != 1 or druid_cards[0].count != 1:
        raise CardSetError(f, "card set", "starting", "needs exactly one Druid card (count 1)",
                           "mark one [[starting]] with druid = true and count = 1")
    if sum(s.count for s in cs.starting) > LIMITS["deck"]:
        raise CardSetError(f, "card set", "starting", "starting deck too large",
                           f"use at most {LIMITS['deck']} cards")
    for s in cs.starting:
        if s.druid and (s.icons.sun or s.icons.rain):
            raise CardSetError(f, f"starting card {s.name!r}", "sun",
                               "the Druid card carries no sun or rain icon here",
                               "set sun = 0 and rain = 0")
    for lvl, label in ((0, "druid"), (1, "advance"), (2, "advance")):
        if not cs.of_level(lvl):
            raise CardSetError(f, "card set", label, f"no level {lvl} Advances" if lvl else
                               "no Druid Advances", f"add [[{label}]] tables")
    for lvl in (1, 2):
        if not cs.vales_of_level(lvl):
            raise CardSetError(f, "card set", "vale", f"no level {lvl} Vales", "add [[vale]] tables")
    for lvl, kind in ((1, "I"), (2, "II")):
        need = len(cs.map.of_kind(kind))
        have = len(cs.vale_deck_list(lvl))
        if have < need:
            raise CardSetError(f, "card set", "vale",
                               f"map {cs.map.name!r} has {need} {kind} spaces but only {have} "
                               f"level {lvl} Vale cards", f"add copies of level {lvl} Vales")


def validate_playable(cs: CardSet, players: int, rules=None) -> None:
    """Raise CardSetError when ``cs`` cannot be set up for ``players`` players."""
    from .rules import Rules
    rules = rules or Rules()
    f = cs.path or cs.name
    if not 2 <= players <= 4:        # the count is the mistake, not the card file
        raise PlayerCountError(players)
    have, deal = len(cs.deck_list(0)), rules.druid_deal
    if have < deal * players:
        raise CardSetError(f, "card set", "druid",
                           f"{have} Druid Advances cannot deal {deal} to each of {players} players",
                           f"add at least {deal * players - have} more")
    for lvl, slots in ((1, rules.market_l1), (2, rules.market_l2)):
        have = len(cs.deck_list(lvl))
        if have < slots:
            raise CardSetError(f, "card set", "advance",
                               f"{have} level {lvl} Advances cannot fill {slots} market slots",
                               f"add copies of level {lvl} Advances")
    for lvl, kind in ((1, "I"), (2, "II")):     # as the loader checks (a set built in memory)
        need, have = len(cs.map.of_kind(kind)), len(cs.vale_deck_list(lvl))
        if have < need:
            raise CardSetError(f, "card set", "vale",
                               f"map {cs.map.name!r} has {need} {kind} spaces but only {have} "
                               f"level {lvl} Vale cards", f"add copies of level {lvl} Vales")


def describe(cs: CardSet) -> list[str]:
    """Readable lines for ``vale-sim cards --game mystic-lands``."""
    counts = provenance_counts(cs)
    total = sum(counts.values())
    lines = [f"Card set {cs.name!r} (digest {cs.digest()}), map {cs.map.name!r}",
             "Numbers by source: " + ", ".join(f"{s} {n}" for s, n in counts.items())
             + f" (total {total})", "", "Starting deck:"]
    for s in cs.starting:
        lines.append(f"  {s.count:2d} x {s.name:<14} {_icon_text(s.icons)}"
                     + ("  [Druid card]" if s.druid else ""))
    for lvl, title in ((0, "Druid Advances"), (1, "Level 1 Advances"), (2, "Level 2 Advances")):
        lines += ["", f"{title}:"]
        for i in cs.of_level(lvl):
            a = cs.advances[i]
            lines.append(f"  {a.copies} x {a.name:<22} cost {a.cost:2d}  {POSITIONS[a.position]:<9} "
                         f"{_icon_text(a.icons)}{f'  end {a.end_vp} VP' if a.end_vp else ''}"
                         f"{_effects_text(a.effects)}")
    for lvl in (1, 2):
        lines += ["", f"Level {lvl} Vales:"]
        for i in cs.vales_of_level(lvl):
            v = cs.vales[i]
            rows = " / ".join(str(r.vp) + ("*" if r.activation else "") for r in v.rows)
            lines.append(f"  {v.copies} x {v.name:<22} cost {v.cost}  rows VP {rows}"
                         f"{f'  track {len(v.track)}' if v.track else ''}{_effects_text(v.effects)}")
    lines += ["", f"Map {cs.map.name!r}:"]
    for s in cs.map.spaces:
        links = ", ".join(cs.map.spaces[j].id for j in s.links)
        extra = f" {s.name!r} cost {s.cost}" if s.kind == "small" else ""
        lines.append(f"  {s.id:<8} {s.kind:<5}{extra} -> {links}")
    return lines


def _icon_text(ic: Icons) -> str:
    parts = [f"{f} {getattr(ic, f)}" for f in ICON_FIELDS if getattr(ic, f)]
    return ", ".join(parts) if parts else "-"


def _effects_text(effects) -> str:
    if not effects:
        return ""
    return "  [" + "; ".join(effect_text(e) for e in effects) + "]"


def effect_text(e: Effect) -> str:
    p = []
    if e.kind == "convert":
        p.append(f"pay {e.cost} {e.pay}: +{e.amount} {e.resource}")
    elif e.resource:
        p.append(f"+{e.amount} {e.resource}" + (f" per {e.aspect}" if e.aspect else ""))
    elif e.kind == "play_ondeck":
        p.append(f"with {e.need} {e.aspect}")
    elif e.kind == "vp_per_sun_all":
        p.append(f"{e.amount} VP per {e.per} sun")
    elif e.amount:
        p.append(f"{e.amount}")
    return f"{e.timing}: {e.kind}" + (f" {' '.join(p)}" if p else "")


# ---------------------------------------------------------------------------
# What-if edits (vale_sim.whatif): one number of one card changed
# ---------------------------------------------------------------------------
#: The numbers ``vale-sim what-if --game mystic-lands --edit CARD.FIELD=VALUE`` may
#: change, with the loader's bounds.  Level and position move a card (edit the file);
#: a Vale's rows, track and effects are tables, not one number; the basic cards of
#: the starting deck are left out.
EDITABLE_ADVANCE = {"copies": (1, LIMITS["copies"]), "cost": (0, LIMITS["cost"]),
                    "end_vp": (0, LIMITS["icon"] * 2),
                    **{f: (0, LIMITS["icon"]) for f in ICON_FIELDS}}
EDITABLE_VALE = {"copies": (1, LIMITS["copies"]), "cost": (0, LIMITS["vale_cost"])}
EDIT_SOURCE = "user"          # the source of an edited number


def apply_edit(cs: CardSet, card: str, field_: str, value: int, relative: bool = False):
    """``cs`` with number ``field_`` of Advance or Vale ``card`` set to ``value``
    (``relative``: the current value plus ``value``); its source becomes ``user``.
    Returns ``(new_set, old_value, new_value)``.  One-line CardSetError for an
    unknown card (closest name), a field that is not an editable number (listing
    them) or a value outside the loader's range."""
    from dataclasses import replace
    from ...inputs import did_you_mean
    where = f"--edit {card}.{field_}"
    found = next(((k, i) for k, items in (("advance", cs.advances), ("vale", cs.vales))
                  for i, c in enumerate(items) if c.name == card), None)
    if found is None:
        names = [a.name for a in cs.advances] + [v.name for v in cs.vales]
        hint = did_you_mean(card, names)
        raise CardSetError(where, None, None, f"unknown card {card!r} in set {cs.name!r} "
                           f"(an Advance or Vale)", hint or "use a name `vale-sim cards "
                           "--game mystic-lands` lists")
    kind, i = found
    items = cs.advances if kind == "advance" else cs.vales
    c = items[i]
    table = EDITABLE_ADVANCE if kind == "advance" else EDITABLE_VALE
    if field_ not in table:
        raise CardSetError(where, None, None, f"{field_!r} is not an editable number of {kind} "
                           f"{card!r}", f"editable: {', '.join(table)}")
    icon = field_ in ICON_FIELDS
    old = getattr(c.icons, field_) if icon else getattr(c, field_)
    new = old + value if relative else value
    lo, hi = table[field_]
    if not lo <= new <= hi:
        shown = f"{old} {'+' if value >= 0 else '-'} {abs(value)} = {new}" if relative else str(new)
        raise CardSetError(where, None, None, f"{field_} would be {shown}, outside {lo}..{hi}",
                           f"give a value from {lo} to {hi}")
    src = dict(c.sources)
    src[field_] = EDIT_SOURCE
    sources = tuple(sorted((k, s) for k, s in src.items()))
    if icon:
        edited = replace(c, icons=replace(c.icons, **{field_: new}), sources=sources)
    else:
        edited = replace(c, **{field_: new}, sources=sources)
    out = replace(cs, **{"advances" if kind == "advance" else "vales":
                         items[:i] + (edited,) + items[i + 1:]})
    return out, old, new
