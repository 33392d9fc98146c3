"""Spoil odds: "if I push now, how likely am I to spoil?" — exact and simulated.

The exact calculator follows docs/engine-spec.md §1 (what a card shows),
§4.2 (Planting: push, When Played, reveal, reshuffle), §4.4 (spoil check with
Peacekeeper Druid, Conclave of Ents, Blooming Arbor) and §4.6 (Prep), reading
every card through :mod:`vale_sim.games.mystic_vale.reference.symbols`.  See docs/spoil-odds.md.

How it stays small: cards that behave the same for the spoil mechanics are
grouped into *types* (their net decay, their gross decay when Prep counts
gross, Druid, When Played kinds, and on Grovetender cards what the Conclave's
guardian adds), and a state is the multiset
of types in the deck, the discard pile and the field, plus the on-deck type
and the once-per-turn uses.  The remaining deck is uniformly shuffled given
the state (RB: Planting — "shuffle your discard pile; it becomes your draw
deck" is a fresh uniform order too), so the next reveal is type ``t`` with
probability count(t)/deck size: the computation runs over compositions, not
orderings, and transitions are memoised.  The field's order is not needed
either: the engine's choices among field cards (Deadwood/Owl's discard, the
Conclave's guardian) look at net decay and break ties uniformly at random
(engine-spec §6.2, §4.4), so a kind of card is picked with probability
count / ties.

Harvest quantities (mana, spirits, VP) are linear in the cards of the field,
so within a type they are averaged over its members: cards of one type are
exchangeable (the dynamics never tell them apart), which makes the averages
exact.  Where a quantity is not linear (Grassland's "not below 0"), the mana
attributes join the type key so nothing is averaged.  Cards whose place is
known (an explicit field or on-deck card) keep their own identity.

Numbers: floats by default (each probability is a sum of products of ratios
of small integers; the relative error stays near 1e-15, checked against
``exact=True``, which computes in :class:`fractions.Fraction`).

Engines: :class:`SpoilModel` is the readable definition; vale_sim.games.mystic_vale.spoil.fast runs
the same transitions compiled (numba) over the same states, 30-60x faster a
state.  ``engine="auto"`` (the default) uses the Python model for small decks
and the compiled one past AUTO_PYTHON_STATES states.
"""
from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import dataclass, field as dc_field
from fractions import Fraction
from pathlib import Path

from ..cards import LIMITS, CardSet, load_card_set
from ..reference import symbols as sym
from ..reference.symbols import Card
from vale_sim.rng import GameRng
from vale_sim import odds
from vale_sim.odds import DeckError  # noqa: F401  (spoil.DeckError)
from ..rules import Rules
from .state import PrepLoop, TooManyStates, _S, unsupported  # noqa: F401  (spoil.X)

SPOIL_AT = 4        # RB: Spoiling — 4 or more decay revealed (engine-spec §1)
PREP_UNTIL = 3      # RB: Prep Phase — until three or more decay showing (§4.6)
WHEN_PLAYED = ("when_played_discard_field", "when_played_peek", "when_played_search_deck")
SPIRITS = ("animal", "forest", "sky", "wild")
QUANTITIES = ("mana", "animal", "forest", "sky", "wild", "spirits", "vp")
DECKS_DIR = Path(__file__).parents[1] / "data" / "decks"
DECK_LIMIT = LIMITS["deck_cards"]        # cards in a deck file without a base


# ---------------------------------------------------------------------------
# Decks
# ---------------------------------------------------------------------------
@dataclass(eq=False)
class Deck:
    """A player's cards (any number, usually 20) and the vales they own (active)."""
    cs: CardSet
    cards: list[Card]
    vales: tuple[int, ...] = ()
    name: str = "deck"

    def describe(self) -> list[str]:
        """One line per distinct card: ``count x A + B``."""
        seen: dict[str, int] = {}
        for c in self.cards:
            names = [self.cs.advancements[k].name for k in c.slots if k >= 0]
            label = " + ".join(names) or "blank"
            seen[label] = seen.get(label, 0) + 1
        out = [f"{n} x {label}" for label, n in seen.items()]
        out += [f"vale: {self.cs.vales[v].name}" for v in self.vales]
        return out


def bundled_decks() -> list[str]:
    """Names accepted by :func:`load_deck`: "starter" and the files in data/decks."""
    return ["starter"] + sorted(p.stem for p in DECKS_DIR.glob("*.toml"))


def starter_deck(cs: CardSet, name: str = "starter") -> Deck:
    """The set's starting cards (engine-spec §1: ids in ``starting_cards`` order)."""
    return Deck(cs, [Card(list(s)) for s in cs.starting_deck()], (), name)


def make_card(cs: CardSet, names, where: str = "card") -> Card:
    """A sleeve holding the named advancements (sleeved in the order given)."""
    slots, top = [-1, -1, -1], -1
    for n in names:
        try:
            k = cs.advancement_id(n)
        except KeyError as e:
            raise DeckError(f"{where}: {e.args[0]}") from None
        a = cs.advancements[k]
        if slots[a.position] >= 0:
            other = cs.advancements[slots[a.position]].name
            raise DeckError(f"{where}: {n!r} and {other!r} both need the "
                            f"{('top', 'middle', 'bottom')[a.position]} position")
        slots[a.position] = k
        if a.longwise:
            top = a.position          # the last long-wise strip sleeved lies on top
    return Card(slots, top)


def load_deck(spec, card_set=None) -> Deck:
    """A deck from a bundled name ("starter", "thornhide", ...), a TOML path, or a Deck.

    ``card_set`` (name, path or CardSet) is used when the deck file names none;
    default "core".  See docs/spoil-odds.md for the file format.
    """
    if isinstance(spec, Deck):
        return spec
    default_set = card_set if card_set is not None else "core"
    text = str(spec)
    if text == "starter":
        return starter_deck(load_card_set(default_set))
    path = odds.deck_path(text, DECKS_DIR, bundled_decks())
    return deck_from_dict(odds.read_deck_file(path), path, default_set)


def deck_from_dict(data: dict, where="deck", card_set=None) -> Deck:
    """Build a deck from parsed TOML (see docs/spoil-odds.md)."""
    odds.check_fields(data, {"name", "set", "base", "vales", "cards", "description"}, where)
    cs = load_card_set(odds.set_spec(data, where, card_set if card_set is not None else "core",
                                     (".toml", ".csv")))
    name = odds.deck_name(data, where)
    base = odds.check_base(data, where)
    cards = [Card(list(s)) for s in cs.starting_deck()] if base == "starter" else []
    printed = [set(c.slots) - {-1} for c in cards]      # what each base card still shows
    for i, entry in enumerate(odds.card_entries(data, where), 1):
        if not isinstance(entry, dict) or "advancements" not in entry:
            raise DeckError(f"{where}: card {i}: needs advancements = [names...]")
        extra = set(entry) - {"advancements", "count"}
        if extra:
            raise DeckError(f"{where}: card {i}: unknown field {sorted(extra)[0]!r}")
        names = odds.name_list(f"{where}: card {i}", entry["advancements"], "advancements")
        count = odds.positive_count(f"{where}: card {i}", entry)
        if len(cards) + count > DECK_LIMIT and base is None:     # cards.LIMITS (docs/card-format.md)
            raise DeckError(f"{where}: card {i}: count {count} makes the deck larger than the "
                            f"limit of {DECK_LIMIT} cards (use a smaller count)")
        card = make_card(cs, names, f"{where}: card {i}")
        ids = set(card.slots) - {-1}
        for _ in range(count):
            if base is None:
                cards.append(card.copy())
                continue
            # craft onto the most specific base card whose printed advancements it keeps
            fits = [j for j, p in enumerate(printed) if p is not None and p <= ids]
            if not fits:
                raise DeckError(f"{where}: card {i}: no starting card left to craft "
                                f"{' + '.join(names)} on (it must keep a starting card's print)")
            j = max(fits, key=lambda j: (len(printed[j]), -j))
            cards[j], printed[j] = card.copy(), None
    if not cards:
        raise DeckError(f"{where}: the deck has no cards")
    return Deck(cs, cards, odds.vale_ids(cs, where, data.get("vales", [])), name)


# ---------------------------------------------------------------------------
# Situations
# ---------------------------------------------------------------------------
@dataclass
class Situation:
    """An explicit moment of a Planting Phase: card indices into ``Deck.cards``.

    The order of ``field`` does not matter (no choice reads it); the order of
    ``deck`` is unknown (uniform);
    ``discard`` order does not matter (it is shuffled before use).  The
    once-per-turn uses since the last Prep start are given as flags.
    """
    field: list[int]
    on_deck: int
    deck: list[int]
    discard: list[int] = dc_field(default_factory=list)
    druid_used: bool = False
    conclave_used: bool = False
    arbors_used: int = 0          # Blooming Arbors already discarded this window
    arbor_growth: int = 0

    def check(self, n: int) -> None:
        zones = self.field + self.deck + self.discard + ([self.on_deck] if self.on_deck >= 0 else [])
        if sorted(zones) != list(range(n)):
            raise ValueError(f"a situation must place each of the {n} cards exactly once "
                             f"(field, on-deck, deck, discard)")


# ---------------------------------------------------------------------------
# The model: types and transitions
# ---------------------------------------------------------------------------
def card_profile(cs: CardSet, card: Card, conclave: int) -> dict:
    """What one card contributes, read through vale_sim.games.mystic_vale.reference.symbols."""
    abil = sym.active_abilities(cs, card)
    kinds = [k for k, _ in abil]
    d, g = sym.decay(cs, card), sym.growth(cs, card)
    # the Conclave's spoil save puts its guardians only on such a card (§4.4)
    gpg = "ongoing_growth_per_guardian" in kinds and conclave > 0
    gu = sym.guardians(cs, card)

    def amt(kind):
        return sum(a for k, a in abil if k == kind)
    pgm, pgv = amt("harvest_mana_per_guardian"), amt("harvest_vp_per_guardian")
    return dict(
        decay=d, net=sym.net_decay(cs, card), druid="prevent_spoil" in kinds,
        wp=tuple(k for k in kinds if k in WHEN_PLAYED), gpg=gpg,
        # Conclave's +guardians on this card: growth gained, Harvest mana/VP gained
        # (0 on any other card: they never hold them, so they do not split types)
        bonus=(sym.growth(cs, card, conclave) - g) if gpg else 0,
        tmana=pgm * conclave if gpg else 0, tvp=pgv * conclave if gpg else 0,
        # Harvest (engine-spec §4.3 steps 2-4, as Player.harvest_totals counts)
        mana=sym.slot_sum(cs, card, "mana") + pgm * gu,
        magic=amt("harvest_mana_per_other_card"), pen=amt("harvest_mana_penalty"),
        vp=sym.slot_sum(cs, card, "harvest_vp") + pgv * gu,
        aurora=tuple(a for k, a in abil if k == "harvest_vp_per_cards"),
        **{s: sym.slot_sum(cs, card, s) for s in SPIRITS})


class SpoilModel:
    """Exact Planting/Prep dynamics of one deck over compositions of card types.

    ``mode``: "report" groups only by what the spoil mechanics see (Harvest
    values averaged within a type); "mana" also keeps each card's mana, as the
    push/stop optimisation must know the mana in the field exactly.
    """

    def __init__(self, deck: Deck, rules: Rules | None = None, situation: Situation | None = None,
                 exact: bool = False, mode: str = "report", max_states: int | None = None):
        self.deck, self.rules, self.exact = deck, rules or Rules(), exact
        self.max_states = max_states
        self.situation = situation
        cs = deck.cs
        vales = [cs.vales[v] for v in deck.vales]
        self.global_growth = sum(v.amount for v in vales if v.ability == "always_growth")
        self.arbors = [v.amount for v in vales if v.ability == "spoil_save_growth"]
        conc = [v.amount for v in vales if v.ability == "guardian_once_per_turn"]
        self.conclave = conc[0] if conc else 0           # §8: first one's amount, one use
        self.vale_mana = sum(v.amount for v in vales if v.ability == "harvest_mana")
        self.vale_spirit = {s: sum(v.amount for v in vales
                                   if v.ability == "harvest_spirit" and v.symbol == s)
                            for s in SPIRITS}
        gross = self.rules.prep_count == "gross"
        profiles = [card_profile(cs, c, self.conclave) for c in deck.cards]
        self.penalty = any(p["pen"] for p in profiles)
        n = len(deck.cards)
        origin = ["deck"] * n
        if situation is not None:
            situation.check(n)
            for i in situation.discard:
                origin[i] = "discard"
            for i in situation.field + ([situation.on_deck] if situation.on_deck >= 0 else []):
                origin[i] = "known"
        harvest_keys = ("mana", "magic", "pen", "vp", "aurora") + SPIRITS

        def key(i):
            p = profiles[i]
            dyn = (p["net"], p["decay"] if gross else 0, p["druid"], p["wp"], p["gpg"],
                   p["bonus"], p["tmana"], p["tvp"])
            if origin[i] == "known":
                extra = tuple(p[k] for k in harvest_keys)
            elif mode == "mana":
                extra = (p["mana"], p["magic"], p["pen"])
            else:
                extra = ()
            return (dyn, extra, origin[i])

        index: dict = {}
        self.type_of = []
        members: list[list[int]] = []
        for i in range(n):
            k = key(i)
            if k not in index:
                index[k] = len(members)
                members.append([])
            members[index[k]].append(i)
            self.type_of.append(index[k])
        self.members = members
        T = self.T = len(members)
        first = [profiles[m[0]] for m in members]
        self.net = [p["net"] for p in first]
        self.dec = [p["decay"] for p in first]
        self.druid = [p["druid"] for p in first]
        self.wp = [p["wp"] for p in first]
        self.gpg = [p["gpg"] for p in first]
        self.bonus = [p["bonus"] for p in first]
        self.tmana = [p["tmana"] for p in first]
        self.tvp = [p["tvp"] for p in first]
        self.num = Fraction if exact else float
        mean = (lambda vals: Fraction(sum(vals), len(vals))) if exact else \
            (lambda vals: sum(vals) / len(vals))
        self.mean = {q: [mean([profiles[i][q] for i in m]) for m in members]
                     for q in ("mana", "magic", "pen", "vp") + SPIRITS}
        self._aurora_members = [[profiles[i]["aurora"] for i in m] for m in members]
        self._mana_members = [[(profiles[i]["mana"], profiles[i]["magic"], profiles[i]["pen"])
                               for i in m] for m in members]
        self._subset_cache: dict = {}
        self._aurora_cache: dict = {}
        self.push_memo: dict = {}
        self.reveal_memo: dict = {}
        self.prep_memo: dict = {}
        self.value_memo: dict = {}
        self.harvest_memo: dict = {}
        self._show_cache: dict = {}
        self.ids: dict = {}
        self.keys: list = []

    # -- numbers ---------------------------------------------------------------
    def ratio(self, a: int, b: int):
        return Fraction(a, b) if self.exact else a / b

    # -- what is showing (engine-spec §1) --------------------------------------
    def showing(self, s: _S) -> int:
        v = s.fn - self.global_growth - s.arbor_growth
        if s.od >= 0:
            v += self.net[s.od]
        if s.temp is not None:
            v -= self.bonus[s.temp[0]]
        return v

    def gross(self, s: _S) -> int:
        return sum(c * x for c, x in zip(s.field, self.dec)) + (self.dec[s.od] if s.od >= 0 else 0)

    # -- building blocks; each returns [(probability, state), ...] -------------
    def _reshuffle_if_empty(self, s: _S) -> None:
        if not any(s.deck) and any(s.disc):
            s.deck, s.disc, s.top = s.disc, [0] * self.T, -1

    def reveal(self, s: _S) -> list:
        """§4.2 reveal: the top card becomes on-deck (discard pile reshuffled if needed)."""
        self._reshuffle_if_empty(s)
        n = sum(s.deck)
        if n == 0:
            s.od = -1
            return [(1, s)]
        if s.top >= 0:
            s.deck[s.top] -= 1
            s.od, s.top = s.top, -1
            return [(1, s)]
        out = []
        for t, c in enumerate(s.deck):
            if c:
                s2 = s.copy()
                s2.deck[t] -= 1
                s2.od = t
                out.append((self.ratio(c, n), s2))
        return out

    def play(self, s: _S) -> list:
        """Move the on-deck card into the field and resolve its When Played (§4.2, §7)."""
        s = s.copy()
        t, s.od = s.od, -1
        s.field[t] += 1
        s.fn += self.net[t]
        has_temp = s.temp is not None and not s.temp[1]
        if has_temp:
            s.temp = (t, True)
        played = (t, has_temp)
        states = [(1, s)]
        for kind in self.wp[t]:
            nxt = []
            for p, st in states:
                for q, st2 in getattr(self, "_" + kind)(st, played):
                    nxt.append((p * q, st2))
            states = nxt
        return states

    def _discard_candidates(self, s: _S, played) -> list:
        """Field cards a Deadwood/Owl may discard, as [((type, has_guardian), count,
        net decay)]: net decay > 0 (Conclave's guardian counted), never the card
        just played (``played`` = its (type, has_guardian))."""
        out = []
        guard = s.temp[0] if s.temp is not None and s.temp[1] else -1
        for t, c in enumerate(s.field):
            if c == 0 or self.net[t] <= 0:
                continue
            plain = c - (t == guard) - (played == (t, False))
            if plain > 0:
                out.append(((t, False), plain, self.net[t]))
            eff = self.net[t] - self.bonus[t]
            if t == guard and played != (t, True) and eff > 0:
                out.append(((t, True), 1, eff))
        return out

    def _when_played_discard_field(self, s: _S, played) -> list:
        """Deadwood Harvester / Mindful Owl: discard a field card with the most net
        decay (> 0), uniformly at random among ties, never the card just played
        (§6.2): a card of each tied kind with probability count / ties."""
        cands = self._discard_candidates(s, played)
        if not cands:
            return [(1, s)]
        m = max(net for _, _, net in cands)
        tied = [(e, c) for e, c, net in cands if net == m]
        ties = sum(c for _, c in tied)
        out = []
        for (t, has_temp), c in tied:
            s2 = s.copy()
            s2.field[t] -= 1
            s2.fn -= self.net[t]
            s2.disc[t] += 1
            if has_temp:
                s2.temp = None   # the guardian left with the card (see docs: limits)
            out.append((self.ratio(c, ties), s2))
        return out

    def _when_played_peek(self, s: _S, played) -> list:
        """Calm Weather: look at the top card; discard it if its net decay > 0."""
        s = s.copy()
        self._reshuffle_if_empty(s)
        n = sum(s.deck)
        if n == 0:
            return [(1, s)]
        if s.top >= 0:
            tops = [(1, s.top)]
        else:
            tops = [(self.ratio(c, n), t) for t, c in enumerate(s.deck) if c]
        out = []
        for p, t in tops:
            s2 = s.copy()
            if self.net[t] > 0:
                s2.deck[t] -= 1
                s2.disc[t] += 1
                s2.top = -1
            else:
                s2.top = t       # left on top: the next reveal shows it
            out.append((p, s2))
        return out

    def _when_played_search_deck(self, s: _S, played) -> list:
        """Cleansing Rain: discard the deck card with most net decay (> 0), then shuffle."""
        s = s.copy()
        self._reshuffle_if_empty(s)
        cands = [t for t, c in enumerate(s.deck) if c and self.net[t] > 0]
        if not cands:
            s.top = -1
            return [(1, s)]
        m = max(self.net[t] for t in cands)
        tied = [t for t in cands if self.net[t] == m]
        if s.top in tied:                   # the known top card is first in deck order
            picks = [(1, s.top)]
        else:
            tot = sum(s.deck[t] for t in tied)
            picks = [(self.ratio(s.deck[t], tot), t) for t in tied]
        out = []
        for p, t in picks:
            s2 = s.copy()
            s2.deck[t] -= 1
            s2.disc[t] += 1
            s2.top = -1
            out.append((p, s2))
        return out

    def spoil_check(self, s: _S) -> list:
        """§4.4: [(p, state, spoiled, showing)], trying Druid, Conclave, Arbor in order."""
        sh = self.showing(s)
        if sh < SPOIL_AT:
            return [(1, s, False, sh)]
        branches = [(1, s)]
        if not s.druid_used and any(c and self.druid[t] for t, c in enumerate(s.field)):
            s = s.copy()
            s.druid_used = True
            if s.od >= 0:
                s.disc[s.od] += 1
                s.od = -1
            branches = self.reveal(s)
        out = []
        for p, st in branches:
            sh = self.showing(st)
            if sh < SPOIL_AT:
                out.append((p, st, False, sh))
                continue
            saved = self._conclave(st, sh)
            if not saved:
                arbor = self._arbor(st, sh)
                saved = [] if arbor is None else [(1, arbor)]
            if not saved:
                out.append((p, st, True, sh))
            for q, s2 in saved:
                out.append((p * q, s2, False, self.showing(s2)))
        return out

    def _conclave(self, s: _S, sh: int) -> list:
        """§4.4 step 2: [(p, state)] with the guardian on a Grovetender card that saves,
        uniformly at random among them (field cards and the on-deck card); [] if none."""
        if not self.conclave or s.conclave_used:
            return []
        savers = [((t, True), c) for t, c in enumerate(s.field)
                  if c and self.gpg[t] and sh - self.bonus[t] < SPOIL_AT]
        if s.od >= 0 and self.gpg[s.od] and sh - self.bonus[s.od] < SPOIL_AT:
            savers.append(((s.od, False), 1))
        n = sum(c for _, c in savers)
        out = []
        for temp, c in savers:
            s2 = s.copy()
            s2.conclave_used = True
            s2.temp = temp
            out.append((self.ratio(c, n), s2))
        return out

    def _arbor(self, s: _S, sh: int):
        if s.arbors_used >= len(self.arbors):
            return None
        a = self.arbors[s.arbors_used]               # §8: only the first active Arbor
        if sh - a >= SPOIL_AT:
            return None
        s = s.copy()
        s.arbors_used += 1
        s.arbor_growth += a
        return s

    # -- states are interned: an int id per distinct key ------------------------
    def intern(self, key) -> int:
        sid = self.ids.get(key)
        if sid is None:
            if self.max_states is not None and len(self.keys) >= self.max_states:
                raise TooManyStates(self.deck.name, self.max_states)
            sid = self.ids[key] = len(self.keys)
            self.keys.append(key)
        return sid

    def on_deck(self, sid: int) -> int:
        return self.keys[sid][3]

    def showing_of(self, sid: int) -> int:
        v = self._show_cache.get(sid)
        if v is None:
            v = self._show_cache[sid] = self.showing(_S.of(self.keys[sid]))
        return v

    # -- states --------------------------------------------------------------------
    @staticmethod
    def canon(s: _S) -> tuple:
        """The key of ``s``: counts per type and the turn's flags.  The field's order
        is not part of it (no choice reads it, engine-spec §6.2, §4.4) nor is a
        known top card (it lives only inside a push)."""
        return (tuple(s.deck), tuple(s.disc), tuple(s.field), s.od,
                s.druid_used, s.conclave_used, s.arbors_used, s.arbor_growth, s.temp, s.fn)

    # -- one push, memoised -------------------------------------------------------
    def push(self, sid: int) -> list:
        """Planting push from state ``sid``: [(p, spoiled, showing, next sid or None)].

        The push is split at the moment the on-deck card has been played (When
        Played resolved) and the next reveal is due: that intermediate state
        does not know the on-deck card, so the reveal and spoil check from it are
        memoised once for every on-deck card that leads there.
        """
        hit = self.push_memo.get(sid)
        if hit is not None:
            return hit
        plays = self.play(_S.of(self.keys[sid]))
        if len(plays) == 1:
            out = self._reveal_check(plays[0][1])
        else:
            acc: dict = {}
            for p, s1 in plays:
                for q, spoiled, sh, k in self._reveal_check(s1):
                    kk = (spoiled, sh, k)
                    acc[kk] = acc.get(kk, 0) + p * q
            out = [(pr, sp, sh, k) for (sp, sh, k), pr in acc.items()]
        self.push_memo[sid] = out
        return out

    def _reveal_check(self, s1: _S) -> list:
        """Reveal and spoil check from a state whose on-deck card was just played."""
        pk = self.canon(s1) + (s1.top,)
        hit = self.reveal_memo.get(pk)
        if hit is not None:
            return hit
        acc: dict = {}
        for q, s2 in self.reveal(s1):
            for r, s3, spoiled, sh in self.spoil_check(s2):
                k = (True, sh, None) if spoiled else (False, sh, self.intern(self.canon(s3)))
                acc[k] = acc.get(k, 0) + q * r
        out = [(pr, sp, sh, k) for (sp, sh, k), pr in acc.items()]
        self.reveal_memo[pk] = out
        return out

    def _prep_step(self, sid: int) -> list:
        """One Prep move (§4.6): [(p, outcome, showing, sid)]; outcome "spoil"/"done"/"more"."""
        hit = self.prep_memo.get(sid)
        if hit is not None:
            return hit
        out = []
        for p, spoiled, sh, k in self.push(sid):
            if spoiled:
                out.append((p, "spoil", sh, None))
                continue
            key = self.keys[k]
            shown = sh if self.rules.prep_count == "net" else self.gross(_S.of(key))
            out.append((p, "done" if shown >= PREP_UNTIL or key[3] < 0 else "more", sh, k))
        self.prep_memo[sid] = out
        return out

    # -- the starting distribution ------------------------------------------------
    def _empty(self) -> _S:
        s = _S()
        s.deck, s.disc, s.field = [0] * self.T, [0] * self.T, [0] * self.T
        s.od, s.druid_used, s.conclave_used = -1, False, False
        s.arbors_used, s.arbor_growth, s.temp, s.top = 0, 0, None, -1
        s.fn = 0
        return s

    def start(self):
        """(states {key: p} at the start of Planting, prep-spoil showings {showing: p})."""
        sit = self.situation
        s = self._empty()
        if sit is not None:
            for i in sit.deck:
                s.deck[self.type_of[i]] += 1
            for i in sit.discard:
                s.disc[self.type_of[i]] += 1
            for i in sit.field:
                t = self.type_of[i]
                s.field[t] += 1
                s.fn += self.net[t]
            s.od = self.type_of[sit.on_deck] if sit.on_deck >= 0 else -1
            s.druid_used, s.conclave_used = sit.druid_used, sit.conclave_used
            s.arbors_used, s.arbor_growth = sit.arbors_used, sit.arbor_growth
            if self.showing(s) >= SPOIL_AT:
                raise ValueError(f"the situation already shows {self.showing(s)} decay: "
                                 f"it would have spoiled")
            return {self.intern(self.canon(s)): self.num(1)}, {}
        # Setup / Prep on a freshly shuffled deck: reveal, then Prep (§3, §4.6)
        for t, m in enumerate(self.members):
            s.deck[t] = len(m)
        done: dict = defaultdict(int)
        spoil: dict = defaultdict(int)
        frontier = defaultdict(int)
        for p, s1 in self.reveal(s):
            if s1.od < 0:
                done[self.intern(self.canon(s1))] += p
            else:
                frontier[self.intern(self.canon(s1))] += p
        steps = 0
        while frontier:
            steps += 1
            if steps > len(self.keys) + 1:     # a Prep path came back to a state
                raise PrepLoop(self.deck.name)
            nxt = defaultdict(int)
            for key, p in frontier.items():
                for q, what, sh, k in self._prep_step(key):
                    if what == "spoil":
                        spoil[sh] += p * q
                    elif what == "done":
                        done[k] += p * q
                    elif p * q:                  # (a float underflow to 0 adds nothing)
                        nxt[k] += p * q
            frontier = nxt
        return dict(done), dict(spoil)

    # -- Harvest (what Player.harvest_totals counts) -------------------------------
    def aurora(self, t: int, n: int):
        k = (t, n)
        if k not in self._aurora_cache:
            vals = [sum(n // a for a in am) for am in self._aurora_members[t]]
            self._aurora_cache[k] = (Fraction(sum(vals), len(vals)) if self.exact
                                     else sum(vals) / len(vals))
        return self._aurora_cache[k]

    def harvest(self, sid: int) -> dict:
        """Expected Harvest counts given the state (exact per card when not averaged)."""
        hit = self.harvest_memo.get(sid)
        if hit is None:
            hit = self.harvest_memo[sid] = self._harvest(self.keys[sid])
        return hit

    def _harvest(self, key) -> dict:
        s = _S.of(key)
        n = sum(s.field)
        m = self.mean
        mana = sum(c * (m["mana"][t] + m["magic"][t] * (n - 1))
                   for t, c in enumerate(s.field) if c) + self.vale_mana
        vp = sum(c * (m["vp"][t] + self.aurora(t, n)) for t, c in enumerate(s.field) if c)
        if s.temp is not None and s.temp[1]:
            mana += self.tmana[s.temp[0]]
            vp += self.tvp[s.temp[0]]
        if self.penalty:
            mana = self._mana_with_penalty(s, n)
        out = {"mana": mana, "vp": vp}
        for sp in SPIRITS:
            out[sp] = sum(c * m[sp][t] for t, c in enumerate(s.field) if c) + self.vale_spirit[sp]
        out["spirits"] = sum(out[sp] for sp in SPIRITS)
        return out

    def _subset_sums(self, t: int, c: int, n: int) -> dict:
        """Distribution of a type's mana net of penalties over c of its members drawn
        uniformly without replacement (exchangeability: see the module docstring)."""
        k = (t, c, n)
        hit = self._subset_cache.get(k)
        if hit is not None:
            return hit
        vals = [mana + magic * (n - 1) - pen for mana, magic, pen in self._mana_members[t]]
        ways = [defaultdict(int) for _ in range(c + 1)]
        ways[0][0] = 1
        for v in vals:
            for j in range(c, 0, -1):
                for x, w in list(ways[j - 1].items()):
                    ways[j][x + v] += w
        total = math.comb(len(vals), c)
        hit = self._subset_cache[k] = {x: self.ratio(w, total) for x, w in ways[c].items()}
        return hit

    def _mana_with_penalty(self, s: _S, n: int):
        """E[max(0, mana - penalties)] (Grassland: "not below 0"), from the exact
        distribution of the field's mana net of penalties."""
        base = self.vale_mana
        if s.temp is not None and s.temp[1]:
            base += self.tmana[s.temp[0]]
        dist = {base: self.num(1)}
        for t, c in enumerate(s.field):
            if c:
                nxt: dict = defaultdict(int)
                for x, p in dist.items():
                    for y, q in self._subset_sums(t, c, n).items():
                        nxt[x + y] += p * q
                dist = nxt
        return sum((p * x for x, p in dist.items() if x > 0), self.num(0))

    @property
    def states(self) -> int:
        """Distinct states the computation visited (the memo sizes)."""
        return len(self.push_memo) + len(self.reveal_memo) + len(self.value_memo)


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------
@dataclass
class SpoilOdds(odds.OddsResult):
    """Spoil odds of a deck; index k = "after k pushes" (k = 0: start of Planting).

    ``p_spoil_within[k]``: probability of having spoiled by push k (Prep spoils
    count from k = 0: that turn has no Planting).  Expected values are
    unconditional (a spoiled turn counts 0) or given no spoil by push k.
    With ``method == "simulated"``, ``se`` holds standard errors of the same keys.
    """
    pushes: int
    p_prep_spoil: float
    p_spoil_within: dict
    p_spoil_within_given_turn: dict
    p_can_push: dict                 # P(not spoiled and an on-deck card to push) after k
    decay_showing_distribution: dict  # k -> {showing: p}; spoiled turns keep their showing
    expected: dict                   # k -> {quantity: E[X; spoil = 0]}
    expected_given_no_spoil: dict

    @property
    def expected_mana_if_stop_after(self) -> dict:
        return {k: v["mana"] for k, v in self.expected.items()}

    def to_dict(self) -> dict:
        f = float
        d = {
            "deck": self.deck, "method": self.method, "pushes": self.pushes,
            "p_prep_spoil": f(self.p_prep_spoil),
            "p_spoil_within": {str(k): f(v) for k, v in self.p_spoil_within.items() if k >= 1},
            "p_spoil_within_given_turn": {str(k): f(v) for k, v in
                                          self.p_spoil_within_given_turn.items() if k >= 1},
            "p_can_push": {str(k): f(v) for k, v in self.p_can_push.items()},
            "expected_mana_if_stop_after": {str(k): f(v["mana"]) for k, v in self.expected.items()},
            "expected_mana_if_stop_after_given_no_spoil": {
                str(k): (None if v["mana"] is None else f(v["mana"]))
                for k, v in self.expected_given_no_spoil.items()},
            "expected_if_stop_after": {str(k): {q: f(x) for q, x in v.items()}
                                       for k, v in self.expected.items()},
            "expected_if_stop_after_given_no_spoil": {
                str(k): {q: (None if x is None else f(x)) for q, x in v.items()}
                for k, v in self.expected_given_no_spoil.items()},
            "decay_showing_distribution": {
                str(k): {str(s): f(p) for s, p in sorted(v.items())}
                for k, v in self.decay_showing_distribution.items()},
        }
        d.update(self.method_fields())
        return d


ENGINES = ("auto", "compiled", "python")


# "auto" first tries the Python model up to this many states (a few ms to ~0.1 s):
# small decks then answer without loading the compiled kernels (~0.7 s once per
# process: numba's import and its cache)
AUTO_PYTHON_STATES = 2_000


def _engine(engine: str, exact: bool, model: "SpoilModel", python_call, max_states):
    """(answer, engine to use): "compiled" unless Fractions are asked for or it cannot
    take the deck, else "python", with answer None.  "auto" on a deck the compiled
    engine can take first runs the Python model (``python_call(limit)``): its
    answer if it needs at most AUTO_PYTHON_STATES states (or the caller's smaller
    limit)."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "python" or (engine == "auto" and (exact or unsupported(model))):
        return None, "python"
    if engine == "auto":
        if max_states is not None and max_states <= AUTO_PYTHON_STATES:
            return python_call(max_states), "python"
        try:
            return python_call(AUTO_PYTHON_STATES), "python"
        except TooManyStates:
            return None, "compiled"
    if exact:
        raise ValueError("exact=True (Fractions) needs engine='python'")
    why = unsupported(model)
    if why:
        raise ValueError(f"the compiled spoil engine cannot take this deck: {why}; "
                         f"use engine='python'")
    return None, "compiled"


def spoil_odds(deck, pushes: int = 6, situation: Situation | None = None,
               rules: Rules | None = None, exact: bool = False, card_set=None,
               max_states: int | None = None, engine: str = "auto") -> SpoilOdds:
    """Exact spoil odds and expected Harvest if the player stops after k = 0..pushes pushes.

    ``deck``: a :class:`Deck`, a list of :class:`Card` (with ``card_set``), a
    bundled deck name or a deck file.  ``situation``: None for "start of turn
    after Prep" on a freshly shuffled deck, else an explicit :class:`Situation`.
    Every push is taken while possible (no on-deck card: the player must pass,
    and the turn stays as it is).  ``max_states``: raise :class:`TooManyStates`
    instead of computing past that many distinct states (None: no limit).
    ``engine``: "compiled" (vale_sim.games.mystic_vale.spoil.fast), "python" (SpoilModel; needed for
    ``exact=True``) or "auto" (Python up to AUTO_PYTHON_STATES states, then
    compiled): the same states and numbers either way.  Raises :class:`PrepLoop`
    for a deck whose Prep can come back to a state.
    """
    deck = as_deck(deck, card_set)
    t0 = time.perf_counter()
    model = SpoilModel(deck, rules, situation, exact, max_states=max_states)
    res, how = _engine(engine, exact, model, lambda limit: spoil_odds(
        deck, pushes, situation, rules, exact, card_set, limit, "python"), max_states)
    if res is not None:
        return res
    if how == "compiled":
        return _spoil_odds_compiled(model, pushes, max_states, t0)
    start, prep_spoil = model.start()
    zero = model.num(0)
    p_prep = sum(prep_spoil.values(), zero)
    dist = start
    spoiled_at: dict = defaultdict(lambda: zero)     # showing at spoil, cumulative
    for sh, p in prep_spoil.items():
        spoiled_at[sh] += p
    p_spoil, show, exp, exp_c, can = {}, {}, {}, {}, {}
    for k in range(pushes + 1):
        if k > 0:
            nxt: dict = defaultdict(lambda: zero)
            for key, p in dist.items():
                if model.on_deck(key) < 0:       # every card in the field: must pass
                    nxt[key] += p
                    continue
                for q, spoiled, sh, k2 in model.push(key):
                    if spoiled:
                        spoiled_at[sh] += p * q
                    else:
                        nxt[k2] += p * q
            dist = dict(nxt)
        ps = sum(spoiled_at.values(), zero)
        p_spoil[k] = ps
        hist: dict = defaultdict(lambda: zero)
        for sh, p in spoiled_at.items():
            hist[sh] += p
        tot = {q: zero for q in QUANTITIES}
        for key, p in dist.items():
            hist[model.showing_of(key)] += p
            h = model.harvest(key)
            for q in QUANTITIES:
                tot[q] += p * h[q]
        show[k] = dict(hist)
        exp[k] = tot
        alive = sum(dist.values(), zero)     # = 1 - ps, summed over the turns not spoiled
        exp_c[k] = {q: (v / alive if alive > 0 else None) for q, v in tot.items()}
        can[k] = sum((p for key, p in dist.items() if model.on_deck(key) >= 0), zero)
        if not exact:
            p_spoil[k] = min(ps, 1.0)            # a float sum of 1 may round above it
    started = sum(start.values(), zero)          # = 1 - p_prep
    given = {k: ((v - p_prep) / started if started > 0 else None) for k, v in p_spoil.items()}
    return SpoilOdds(deck=deck.name, pushes=pushes, method="exact", p_prep_spoil=p_prep,
                     p_spoil_within=p_spoil, p_spoil_within_given_turn=given, p_can_push=can,
                     decay_showing_distribution=show, expected=exp,
                     expected_given_no_spoil=exp_c, states=model.states + len(model.prep_memo),
                     seconds=time.perf_counter() - t0)


def _spoil_odds_compiled(model: SpoilModel, pushes: int, max_states, t0: float) -> SpoilOdds:
    """spoil_odds on vale_sim.games.mystic_vale.spoil.fast: the same quantities from the same states."""
    from .fast import CompiledModel
    cm = CompiledModel(model, max_states).run(pushes, summarize=True)
    spoiled_at = cm.prep_spoil.copy()
    p_prep = float(spoiled_at.sum())
    p_spoil, hist_k, exp, exp_c, can = {}, {}, {}, {}, {}
    for k, (sums, can_k, alive_hist, alive) in enumerate(cm.layer_sums):
        spoiled_at = spoiled_at + cm.spoil_step[k] if k else spoiled_at
        ps = float(spoiled_at.sum())
        p_spoil[k] = ps
        can[k] = can_k
        hist: dict = {int(sh): float(q) for sh, q in enumerate(spoiled_at) if q > 0}
        for sh, q in alive_hist.items():
            hist[sh] = hist.get(sh, 0.0) + q
        hist_k[k] = hist
        exp[k] = dict(zip(QUANTITIES, sums.tolist()))
        # alive = 1 - ps, summed over the turns not spoiled
        exp_c[k] = {q: (v / alive if alive > 0 else None) for q, v in exp[k].items()}
        p_spoil[k] = min(ps, 1.0)                # a float sum of 1 may round above it
    started = cm.layer_sums[0][3]                # = 1 - p_prep
    given = {k: ((v - p_prep) / started if started > 0 else None) for k, v in p_spoil.items()}
    return SpoilOdds(deck=model.deck.name, pushes=pushes, method="exact", p_prep_spoil=p_prep,
                     p_spoil_within=p_spoil, p_spoil_within_given_turn=given, p_can_push=can,
                     decay_showing_distribution=hist_k, expected=exp,
                     expected_given_no_spoil=exp_c, states=cm.states,
                     seconds=time.perf_counter() - t0)


def as_deck(deck, card_set=None) -> Deck:
    """Accept a Deck, a list of Card (needs ``card_set``), a bundled name or a path."""
    if isinstance(deck, Deck):
        return deck
    if isinstance(deck, (list, tuple)):
        if card_set is None:
            raise ValueError("a list of cards needs card_set")
        return Deck(load_card_set(card_set), [c.copy() for c in deck], (), "cards")
    return load_deck(deck, card_set)


# ---------------------------------------------------------------------------
# Best push/stop rule (dynamic programming)
# ---------------------------------------------------------------------------
@dataclass
class BestRule(odds.StoppingRule):
    """The optimal push/stop rule for a goal, and what it achieves.

    ``value``: E[mana] (goal "mana", spoil = 0) or P(mana >= target) (goal
    "reach") under the optimal rule, from the situation.  ``always_push[k]``:
    the same measure for "push exactly k times".  ``table``: rows (pushes made,
    decay showing, mana in field, P(next push spoils), decision, P(reach this
    row under the optimal rule)) for every state the rule meets.
    """
    always_push: dict

    def summary(self, min_reach: float = 0.0) -> list[dict]:
        """The rule by (pushes made, decay showing, mana): how often it pushes there, and
        the risk threshold it uses (push when P(next spoils) <= push_up_to)."""
        from vale_sim.stats import stopping_rule_summary
        return [dict(pushes=k, decay_showing=sh, mana=m, reach=reach, p_push=p_go,
                     push_up_to=up, stop_from=stop)
                for (k, sh, m), reach, p_go, up, stop in stopping_rule_summary(
                    self.table, ("pushes", "decay_showing", "mana"), "p_next_spoil", "push",
                    min_reach)]

    def to_dict(self) -> dict:
        return {**self._dict("always_push", self.always_push),
                "rule": [dict(r, p_next_spoil=float(r["p_next_spoil"]), reach=float(r["reach"]))
                         for r in self.table]}


def best_rule(deck, goal: str = "mana", target: int | None = None, horizon: int = 6,
              situation: Situation | None = None, rules: Rules | None = None,
              exact: bool = False, card_set=None, max_states: int | None = None,
              engine: str = "auto") -> BestRule:
    """Best push/stop rule by backward induction over compositions (≤ ``horizon`` pushes).

    goal "mana": maximise expected Harvest mana (a spoil gives 0);
    goal "reach": maximise P(Harvest mana >= target).  The player is assumed to
    see the field and on-deck card (so the rule may depend on them) but not the
    deck order.  Ties are resolved in favour of stopping.  ``max_states`` and
    ``engine`` as in :func:`spoil_odds`.
    """
    if goal not in ("mana", "reach"):
        raise ValueError(f"goal must be 'mana' or 'reach', got {goal!r}")
    if goal == "reach" and target is None:
        raise ValueError("goal 'reach' needs a target mana")
    deck = as_deck(deck, card_set)
    t0 = time.perf_counter()
    m = SpoilModel(deck, rules, situation, exact, mode="mana", max_states=max_states)
    res, how = _engine(engine, exact, m, lambda limit: best_rule(
        deck, goal, target, horizon, situation, rules, exact, card_set, limit, "python"),
        max_states)
    if res is not None:
        return res
    if how == "compiled":
        return _best_rule_compiled(m, goal, target, horizon, max_states, t0)
    start, _ = m.start()
    zero = m.num(0)

    def stop_value(key):
        mana = m.harvest(key)["mana"]
        return mana if goal == "mana" else m.num(1 if mana >= target else 0)

    best, always, rows = odds.best_stopping_rule(
        start, horizon, zero, stop_value,
        steps=lambda key: [(q, sp, k2) for q, sp, _, k2 in m.push(key)],
        can_go=lambda key: m.on_deck(key) >= 0, end_value=lambda key: zero,
        row_key=lambda key: (m.showing_of(key), float(m.harvest(key)["mana"])),
        words=("push", "stop"), memo=m.value_memo)
    table = [dict(pushes=k, decay_showing=sh, mana=mana, p_next_spoil=risk, decision=dec,
                  reach=p) for (k, sh, mana, risk, dec), p in sorted(rows.items())]
    return BestRule(goal=goal, target=target, horizon=horizon, value=best, always_push=always,
                    table=table, states=m.states + len(m.prep_memo),
                    seconds=time.perf_counter() - t0)


def _best_rule_compiled(m: SpoilModel, goal: str, target, horizon: int, max_states,
                        t0: float) -> BestRule:
    """best_rule on vale_sim.games.mystic_vale.spoil.fast: backward induction over the same states, with
    numpy over the edge lists (ties go to stopping, as in best_rule)."""
    import numpy as np
    from .fast import CompiledModel
    H = horizon
    cm = CompiledModel(m, max_states).run(H + 1)     # layer H is pushed too: its risk
    n = len(cm.state_rows)
    mana = cm.harvest()["mana"]
    stop = mana if goal == "mana" else (mana >= target).astype(float)
    show, on_deck = cm.showing(), cm.on_deck()
    pushable = cm.pushed() & (on_deck >= 0)
    owner, ep, _, eto = cm.edges()
    ok = eto >= 0
    o_ok, p_ok, to_ok = owner[ok], ep[ok], eto[ok]
    risk = np.bincount(owner[~ok], weights=ep[~ok], minlength=n)
    value, push_value = [stop], [None]
    for h in range(1, H + 1):
        pv = np.bincount(o_ok, weights=p_ok * value[h - 1][to_ok], minlength=n)
        push_value.append(pv)
        value.append(np.where(pushable & (pv > stop), pv, stop))
    ids0, p0 = cm.layers[0]
    best = float(p0 @ value[H][ids0])
    always = {k: float(p @ stop[ids]) for k, (ids, p) in enumerate(cm.layers[:H + 1])}
    rows: dict = defaultdict(float)
    ids, p = ids0, p0
    for k in range(H + 1):
        h = H - k
        pushes = (pushable[ids] & (push_value[h][ids] > stop[ids])) if h > 0 else \
            np.zeros(len(ids), bool)
        r = np.where(on_deck[ids] >= 0, risk[ids], 0.0)
        for key, q in zip(zip(show[ids].tolist(), mana[ids].tolist(), r.tolist(),
                              pushes.tolist()), p.tolist()):
            sh, mn, rk, pu = key
            rows[(k, sh, mn, rk, "push" if pu else "stop")] += q
        w = np.zeros(n)
        w[ids[pushes]] = p[pushes]
        nxt = np.bincount(to_ok, weights=w[o_ok] * p_ok, minlength=n)
        ids = np.flatnonzero(nxt)
        p = nxt[ids]
    table = [dict(pushes=k, decay_showing=sh, mana=mn, p_next_spoil=rk, decision=dec, reach=q)
             for (k, sh, mn, rk, dec), q in sorted(rows.items())]
    return BestRule(goal=goal, target=target, horizon=H, value=best, always_push=always,
                    table=table, states=cm.states, seconds=time.perf_counter() - t0)


# ---------------------------------------------------------------------------
# Simulation with the reference engine
# ---------------------------------------------------------------------------
def simulate_spoil_odds(deck, pushes: int = 6, games: int = 10_000, seed: int = 0,
                        rules: Rules | None = None, situation: Situation | None = None,
                        card_set=None, engine: str = "auto") -> SpoilOdds:
    """The same quantities estimated by playing Prep and Planting; game i uses
    GameRng(seed, i).  ``engine``: "reference" plays the reference engine's
    :class:`~vale_sim.games.mystic_vale.reference.player.Player`; "fast" the same turns on the numba
    engine (:mod:`vale_sim.games.mystic_vale.fast.spoil_sim`: the same draws, the same numbers, about
    a hundred times faster); "auto" (default) the fast engine when it is installed
    and can take the deck (20 cards, no ``situation``), else the reference.

    Standard errors: sqrt(p(1-p)/n) for probabilities, s/sqrt(n) for means
    (s the sample standard deviation; for "given no spoil", over the games
    that had not spoiled).
    """
    from ..reference.player import Player       # the engine is imported only when simulating
    deck = as_deck(deck, card_set)
    if games < 1:
        raise ValueError("games must be at least 1")
    if engine not in ("auto", "fast", "reference"):
        raise ValueError(f"engine must be auto, fast or reference, got {engine!r}")
    K = pushes
    spoiled_n = [0] * (K + 1)
    can_n = [0] * (K + 1)
    prep_n = 0
    show = [defaultdict(int) for _ in range(K + 1)]
    sums = [{q: [0.0, 0.0] for q in QUANTITIES} for _ in range(K + 1)]   # sum, sum of squares
    fast = None
    if engine != "reference":
        from vale_sim.runner import fast_available
        if fast_available():
            from ..fast import spoil_sim
            if spoil_sim.fast_simulation_supported(deck, situation):
                fast = spoil_sim
        if fast is None and engine == "fast":
            raise ValueError("the fast engine cannot simulate this deck (20 cards, no "
                             "situation, numba installed); use engine='reference'")
    if fast is not None:
        spoiled_n, can_n, prep_n, hist, arr = fast.simulate_counts(deck, K, games, seed,
                                                                   rules or Rules())
        for k in range(K + 1):
            show[k].update(hist[k])
            for j, q in enumerate(QUANTITIES):
                sums[k][q] = [float(arr[k, j, 0]), float(arr[k, j, 1])]
    for i in range(games if fast is None else 0):
        pl = Player(deck.cs, deck.cards, rules=rules, rng=GameRng(seed, i), vales=deck.vales)
        if situation is None:
            pl.new_deck()
            spoiled = pl.setup_field()
            prep_n += spoiled
        else:
            pl.field, pl.discard = list(situation.field), list(situation.discard)
            pl.deck, pl.on_deck = list(situation.deck), situation.on_deck
            pl.rng.shuffle(pl.deck)
            pl.druid_used, pl.conclave_used = situation.druid_used, situation.conclave_used
            pl.arbor_growth = situation.arbor_growth
            arbors = [v for v in pl.vales if deck.cs.vales[v.vale_id].ability == "spoil_save_growth"]
            for v in arbors[:situation.arbors_used]:
                pl.vales.remove(v)
            spoiled = False
        h, showing = None, None
        for k in range(K + 1):
            moved = k == 0
            if k > 0 and not spoiled and pl.on_deck >= 0:
                spoiled, moved = pl.push(), True
            if moved:                  # otherwise the turn is over: nothing changed
                showing = pl.decay_showing()
                h = None if spoiled else pl.harvest_totals()
                if h is not None:
                    h["spirits"] = sum(h[s] for s in SPIRITS)
            spoiled_n[k] += spoiled
            show[k][showing] += 1
            if not spoiled:
                can_n[k] += pl.on_deck >= 0
                for q in QUANTITIES:
                    sums[k][q][0] += h[q]
                    sums[k][q][1] += h[q] * h[q]
    n = games
    p_spoil = {k: spoiled_n[k] / n for k in range(K + 1)}
    p_prep = prep_n / n
    res = SpoilOdds(
        deck=deck.name, pushes=K, method="simulated", p_prep_spoil=p_prep, p_spoil_within=p_spoil,
        p_spoil_within_given_turn={k: ((spoiled_n[k] - prep_n) / (n - prep_n) if n > prep_n else None)
                                   for k in range(K + 1)},
        p_can_push={k: can_n[k] / n for k in range(K + 1)},
        decay_showing_distribution={k: {s: c / n for s, c in sorted(show[k].items())}
                                    for k in range(K + 1)},
        expected={k: {q: sums[k][q][0] / n for q in QUANTITIES} for k in range(K + 1)},
        expected_given_no_spoil={}, games=n, seed=seed)
    se_p = {k: odds.rate_se(p, n) for k, p in p_spoil.items()}
    se_e, se_c = {}, {}
    for k in range(K + 1):
        alive = n - spoiled_n[k]          # a spoiled turn adds nothing to the sums
        res.expected_given_no_spoil[k] = {}
        se_e[k], se_c[k] = {}, {}
        for q in QUANTITIES:
            s1, s2 = sums[k][q]
            se_e[k][q] = odds.mean_se(s1, s2, n)[1]
            res.expected_given_no_spoil[k][q], se_c[k][q] = odds.mean_se(s1, s2, alive)
    res.se = {"p_prep_spoil": odds.rate_se(p_prep, n), "p_spoil_within": se_p,
              "expected": se_e, "expected_given_no_spoil": se_c}
    return res


# ---------------------------------------------------------------------------
# Benchmark
# ---------------------------------------------------------------------------
def benchmark(decks=None, pushes: int = 6, card_set="core", with_rule: bool = True) -> list[dict]:
    """Time the exact calculator (and the best-rule DP) on some decks.

    Default decks: the starter deck and every bundled example deck.  Returns
    one dict per deck: name, seconds, states.
    """
    if decks is None:
        decks = bundled_decks()
    out = []
    for d in decks:
        deck = as_deck(d, card_set)
        r = spoil_odds(deck, pushes)
        row = {"deck": deck.name, "seconds": r.seconds, "states": r.states}
        if with_rule:
            b = best_rule(deck, "mana", horizon=pushes)
            row.update(rule_seconds=b.seconds, rule_states=b.states)
        out.append(row)
    return out


def spoil_row(deck: str, pushes: int, exact: float, sim: float, se: float, games: int) -> dict:
    """One row of the spoil table: exact vs simulated P(spoiled within k pushes)."""
    from vale_sim.stats import wilson_interval
    lo, hi = wilson_interval(round(sim * games), games)
    return {"deck": deck, "pushes": pushes, "p_spoil_exact": exact, "p_spoil_sim": sim,
            "sim_lo": lo, "sim_hi": hi, "sim_n": games,
            "z": (sim - exact) / se if se and se > 0 else 0.0,
            "agrees": bool(lo <= exact <= hi)}
