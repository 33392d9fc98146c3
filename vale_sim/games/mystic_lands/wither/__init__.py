"""Wither odds: "if I Grow now, how likely am I to Wither, given my Rain tokens?"

The Mystic Lands counterpart of :mod:`vale_sim.games.mystic_vale.spoil` (docs/wither-odds.md).

**What is computed.**  The start of a Night (rules doc §3, engine spec §4 N):
the player's deck is uniformly shuffled (or its top card, the on-deck card, is
given and the rest is shuffled), the Discard is given (possibly empty), the Land
is empty and the player holds ``rain`` Rain tokens.  The player plays k = 1..K
cards (the first play is forced, M2), Resting after the k-th unless the Night
ended first by Withering or by running out of cards (M15).  Every step is the
reference engine's Night (vale_sim/games/mystic_lands/reference/game.py
``night``): Vale night gains at the start; play the on-deck card and resolve its
when-played and night effects (Rain tokens, mana, spirit, VP); reveal the next
card, reshuffling the Discard when the deck is empty; count the uncovered suns of
the Land and of the on-deck card minus the tokens placed; place Rain tokens only
when the count reaches the limit (4 plus the Land's ``wither_limit`` effects);
Wither if it still does; on Resting, Turtle Nesting Ground swaps.

**How.**  A card enters only through its *profile*: uncovered suns (after
clouds), left-edge mana/spirit/VP, Rain and resources its when-played and night
effects give, its ``wither_limit`` and its swap effects.  Cards of one profile
are one *type*.  Between a play and the next reveal the state (a *position*) is
(Land, reshuffled?, Rain held, Rain placed, order summary): the deck is then
known as a multiset (all cards of the pool minus the Land; the pool is the
starting deck, plus the Discard once it has been reshuffled in), and its order
is uniform, so the next on-deck card is type t with probability count(t) / deck
size.  The Land is a multiset (a sorted tuple of types).  Turtle Nesting
Ground's swap breaks ties by playing order; the *order summary* keeps just what
it needs (the first Turtle card, the first two cards of each tied value class:
:meth:`WitherModel.rest_land` says why that suffices).  Land facts and payoffs are
memoised.  Numbers are floats, or :class:`fractions.Fraction`
with ``exact=True``; the tests compare both, and both with simulation of the
engine's own Night.
"""
from __future__ import annotations

import re
import time
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from vale_sim import odds
from vale_sim.odds import DeckError, TooManyStates  # noqa: F401  (wither.X)

from .. import cards as C
from ..cards import CardSet, load_card_set
from ..policy import Policy, get_policy
from ..reference import cardmath as M
from ..reference.cardmath import NO_ADVANCE, Card
from ..rules import Rules

DECKS_DIR = Path(__file__).parents[1] / "decks"
QUANTITIES = ("mana", "spirit", "vp")
_NUMBER = re.compile(r"[0-9]+")
PLACES = ("deck", "discard", "on-deck")
SIMPLE_NIGHT = ("played", "night")
GOALS = ("mana", "spirit", "vp", "value")
MAX_PLAYS = 40


class Unsupported(ValueError):
    """A deck the exact calculator does not model (one line; --simulate handles it)."""


# ---------------------------------------------------------------------------
# Decks
# ---------------------------------------------------------------------------
@dataclass(eq=False)
class WitherDeck:
    """A player's cards at the start of a Night.

    ``cards[uid]`` is a crafted card (:class:`cardmath.Card`); ``discard`` the uids in
    the Discard; ``on_deck`` the uid of a known on-deck card (-1: the deck is shuffled,
    the on-deck card is its uniformly random top card); ``vales`` the Vale ids the
    player has a cube on (their night effects apply).  Every other card is in the deck.
    """
    cs: CardSet
    cards: list
    discard: tuple = ()
    on_deck: int = -1
    vales: tuple = ()
    name: str = "deck"

    @property
    def deck(self) -> list[int]:
        d = set(self.discard)
        return [u for u in range(len(self.cards)) if u not in d]

    def label(self, card: Card) -> str:
        names = [self.cs.starting[card.base].name] + [self.cs.advances[a].name
                                                        for a in card.slots if a != NO_ADVANCE]
        return " + ".join(names)

    def describe(self) -> list[str]:
        """One line per distinct card and place: ``count x Land + Advances``."""
        seen: dict[str, int] = {}
        for u, c in enumerate(self.cards):
            where = (" (on-deck)" if u == self.on_deck else
                     " (Discard)" if u in self.discard else "")
            key = self.label(c) + where
            seen[key] = seen.get(key, 0) + 1
        out = [f"{n} x {k}" for k, n in seen.items()]
        out += [f"vale: {self.cs.vales[v].name}" for v in self.vales]
        return out

    def sunlight_valley_vp(self) -> int:
        """End VP of the deck's owned Sunlight Valley effects (vp_per_sun_all): they
        count uncovered suns on all cards and never change the Night (rules doc §9)."""
        suns = sum(M.exposed_suns(self.cs, c) for c in self.cards)
        return sum(e.amount * (suns // e.per) for v in self.vales
                   for e in self.cs.vales[v].effects if e.kind == "vp_per_sun_all")


def bundled_decks() -> list[str]:
    return sorted(p.stem for p in DECKS_DIR.glob("*.toml"))


def load_deck(spec, card_set=None) -> WitherDeck:
    """A deck from a bundled name, a TOML path, or a WitherDeck (docs/wither-odds.md)."""
    if isinstance(spec, WitherDeck):
        return spec
    path = odds.deck_path(spec, DECKS_DIR, bundled_decks())
    return deck_from_dict(odds.read_deck_file(path), path, card_set)


def deck_from_dict(data: dict, where="deck", card_set=None) -> WitherDeck:
    """Build a deck from parsed TOML (format in docs/wither-odds.md)."""
    odds.check_fields(data, {"name", "set", "base", "druid", "vales", "cards", "description"},
                      where)
    cs = load_card_set(odds.set_spec(data, where,
                                     card_set if card_set is not None else C.DEFAULT_SET))
    name = odds.deck_name(data, where)
    base = odds.check_base(data, where)
    cards = [Card(uid=u, base=b) for u, b in enumerate(cs.starting_deck())] if base else []
    free = [True] * len(cards)                  # starting cards not crafted nor placed yet
    place = ["deck"] * len(cards)
    druid = data.get("druid")
    if druid is not None:
        if not base:
            raise DeckError(f"{where}: field 'druid' needs base = \"starter\" (else list the "
                            f"Druid card in [[cards]])")
        a = _advance_id(cs, druid, f"{where}: field 'druid'")
        if cs.advances[a].level != 0:
            raise DeckError(f"{where}: field 'druid': {druid!r} is not a Druid Advance")
        k = next(u for u, c in enumerate(cards) if cs.starting[c.base].druid)
        cards[k].slots[cs.advances[a].position] = a
    lands = [s.name for s in cs.starting]
    for i, entry in enumerate(odds.card_entries(data, where), 1):
        w = f"{where}: card {i}"
        if not isinstance(entry, dict) or "land" not in entry:
            raise DeckError(f"{w}: needs land = one of {', '.join(lands)}")
        extra = set(entry) - {"land", "advances", "count", "place"}
        if extra:
            raise DeckError(f"{w}: unknown field {sorted(extra)[0]!r} "
                            f"(known: advances, count, land, place)")
        if entry["land"] not in lands:
            raise DeckError(f"{w}: unknown land {entry['land']!r} (use one of {', '.join(lands)})")
        b = lands.index(entry["land"])
        names = odds.name_list(w, entry.get("advances", []), "advances")
        count = odds.positive_count(w, entry)
        pl = entry.get("place", "deck")
        if pl not in PLACES:
            raise DeckError(f"{w}: place must be one of {', '.join(PLACES)}, got {pl!r}")
        slots = [NO_ADVANCE] * 4
        for n in names:
            a = _advance_id(cs, n, w)
            pos = cs.advances[a].position
            if slots[pos] != NO_ADVANCE:
                raise DeckError(f"{w}: {n!r} and {cs.advances[slots[pos]].name!r} both need "
                                f"the {C.POSITIONS[pos]} position")
            slots[pos] = a
        for _ in range(count):
            if base:
                # crafted onto a starting card of the same land not used yet
                ks = [u for u, c in enumerate(cards) if free[u] and c.base == b]
                if not ks:
                    raise DeckError(f"{w}: no {entry['land']} left in the starting deck "
                                    f"(it has {cs.starting[b].count}; use a smaller count)")
                k = ks[0]
                keep = cards[k].slots
                for pos, a in enumerate(slots):
                    if a != NO_ADVANCE:
                        if keep[pos] != NO_ADVANCE:
                            raise DeckError(f"{w}: the {C.POSITIONS[pos]} position of the "
                                            f"{entry['land']} already holds "
                                            f"{cs.advances[keep[pos]].name!r}")
                        keep[pos] = a
                free[k] = False
                place[k] = pl
            else:
                if len(cards) >= C.LIMITS["deck"]:
                    raise DeckError(f"{w}: the deck is larger than the limit of "
                                    f"{C.LIMITS['deck']} cards (use a smaller count)")
                cards.append(Card(uid=len(cards), base=b, slots=list(slots)))
                place.append(pl)
    if not cards:
        raise DeckError(f"{where}: the deck has no cards (add [[cards]] or base = \"starter\")")
    on = [u for u, p in enumerate(place) if p == "on-deck"]
    if len(on) > 1:
        raise DeckError(f"{where}: {len(on)} cards have place = \"on-deck\" (at most one)")
    vales = odds.vale_ids(cs, where, data.get("vales", []))
    return WitherDeck(cs, cards, tuple(u for u, p in enumerate(place) if p == "discard"),
                      on[0] if on else -1, vales, name)


def _advance_id(cs, name, where):
    try:
        return cs.advance_id(name)
    except KeyError as e:
        raise DeckError(f"{where}: {e.args[0]}") from None


def deck_of_player(game, p, name: str = "played") -> WitherDeck:
    """The start of the next Night of a reference-engine player (after its Dusk): the
    cards it still has, its Discard, its (known) on-deck card and its Vales."""
    uids = p.deck + p.discard + p.land
    cards = [Card(uid=k, base=p.cards[u].base, slots=list(p.cards[u].slots))
             for k, u in enumerate(uids)]
    nd = len(p.deck)
    vales = tuple(game.layout[s] for s in game.owned_spaces(p) if game.layout[s] >= 0)
    return WitherDeck(game.cs, cards, tuple(range(nd, len(uids))), 0 if nd else -1,
                      vales, name)


def as_deck(deck, card_set=None) -> WitherDeck:
    if isinstance(deck, WitherDeck):
        return deck
    return load_deck(deck, card_set)


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Profile:
    """What the Night sees of a card (a type's key)."""
    suns: int           # uncovered suns (after clouds)
    mana: int           # left edge
    spirit: int
    vp: int
    rain: int           # Rain tokens its when-played and night effects give
    g_mana: int         # mana / spirit / VP its when-played and night effects give
    g_spirit: int
    g_vp: int
    wither_limit: int   # ongoing wither_limit amounts
    swaps: int          # swap_ondeck (night) effects: Turtle Nesting Ground

    @property
    def value(self) -> int:
        """2 mana + 2 spirit + 3 VP of the left edge (engine spec §6.8)."""
        return 2 * self.mana + 2 * self.spirit + 3 * self.vp


def profile(cs: CardSet, card: Card) -> Profile:
    """The card's Night profile.  Raises :class:`Unsupported` for per-aspect
    when-played or night effects (their gain depends on the wild's choice and the
    Land's order; ``--simulate`` plays them)."""
    g = [0, 0, 0, 0]
    wl = sw = 0
    for a in card.advances():
        adv = cs.advances[a]
        for e in adv.effects:
            if e.kind == "wither_limit":
                wl += e.amount
            elif e.kind == "swap_ondeck":
                sw += 1
            elif e.timing in SIMPLE_NIGHT:
                if e.kind != "gain":
                    raise Unsupported(f"{adv.name!r} has a {e.timing} {e.kind} effect, which "
                                      f"the exact calculator does not model: use --simulate")
                g[C.RESOURCES.index(e.resource)] += e.amount
    m, s, v = M.resources(cs, card)
    return Profile(M.exposed_suns(cs, card), m, s, v, g[3], g[0], g[1], g[2], wl, sw)


ALIVE, WITHERED = 0, 1


def _counts(types, T):
    c = [0] * T
    for t in types:
        c[t] += 1
    return c


class WitherModel:
    """Types, states and transitions (module docstring).  A state is the tuple
    (status, land, on_deck, reshuffled, rain, placed, order): status ALIVE or WITHERED;
    land a sorted tuple of types; on_deck a type or -1 (out of cards); rain the tokens
    held, placed those placed; order what the Turtle swaps need of the playing order
    (``()`` in decks without a swap card, see :meth:`rest_land`)."""

    def __init__(self, deck: WitherDeck, rain: int = 0, rules: Rules | None = None,
                 policy: Policy | None = None, exact: bool = False,
                 max_states: int | None = None):
        self.deck, self.rules = deck, rules or Rules()
        self.policy = policy or Policy()
        self.exact, self.max_states = exact, max_states
        self.num = Fraction if exact else float
        cs = deck.cs
        if rain < 0 or rain > self.rules.rain_supply:
            raise ValueError(f"rain must be between 0 and the supply of "
                             f"{self.rules.rain_supply} tokens, got {rain}")
        profs = [profile(cs, c) for c in deck.cards]
        self.profiles = sorted(set(profs), key=lambda p: (p.suns, p.value, repr(p)))
        index = {p: t for t, p in enumerate(self.profiles)}
        self.type_of = [index[p] for p in profs]
        self.T = T = len(self.profiles)
        P = self.profiles
        self.suns = [p.suns for p in P]
        self.wl = [p.wither_limit for p in P]
        self.rain_gain = [p.rain for p in P]
        self.ordered = any(p.swaps for p in P)
        # swap classes: what the Turtle swaps and the payoff see of a card
        sck = [(p.value, p.mana, p.spirit, p.vp, p.g_mana, p.g_spirit, p.g_vp, p.swaps > 0)
               for p in P]
        keys = sorted(set(sck))
        self.sc = [keys.index(k) for k in sck]
        self.sc_prof = [P[self.sc.index(c)] for c in range(len(keys))]
        # value classes holding several swap classes: their first two cards are tracked
        by_value: dict = defaultdict(set)
        for c, k in enumerate(keys):
            by_value[k[0]].add(c)
        self.amb = {v: j for j, v in enumerate(sorted(v for v, cs_ in by_value.items()
                                                      if len(cs_) > 1))}
        self.order0 = (-1, ((),) * len(self.amb)) if self.ordered else ()
        disc = set(deck.discard)
        self.d0 = _counts([self.type_of[u] for u in range(len(deck.cards)) if u not in disc], T)
        self.all = _counts(self.type_of, T)
        # Vale night gains at the start of the Night (spec §4 N2)
        vg = [0, 0, 0, 0]
        for v in sorted(deck.vales):
            for e in cs.vales[v].effects:
                if e.kind == "gain" and e.timing in ("night", "night_or_day"):
                    vg[C.RESOURCES.index(e.resource)] += e.amount
        self.vale_gain = tuple(vg[:3])
        self.supply = self.rules.rain_supply
        self.rain0 = rain + min(vg[3], self.supply - rain)
        self.has_discard = sum(self.all) > sum(self.d0)
        self.night_vec = [(p.g_mana, p.g_spirit, p.g_vp) for p in P]
        self.memo: dict = {}
        self.land_memo: dict = {}
        self.play_memo: dict = {}
        self.order_memo: dict = {}
        self.pay_memo: dict = {}
        self.suns_memo: dict = {}
        self.seen: set = set()

    # -- helpers -----------------------------------------------------------------
    def _see(self, key) -> None:
        if key not in self.seen:
            self.seen.add(key)
            if self.max_states is not None and len(self.seen) > self.max_states:
                raise TooManyStates(self.deck.name, self.max_states)

    @property
    def states(self) -> int:
        return len(self.seen)

    def next_order(self, order, t):
        """The order summary after playing a card of type ``t``: the swap class of the
        first Turtle card, and of the first two cards of each tied value class."""
        if not order:
            return order
        ft, pre = order
        c = self.sc[t]
        if ft < 0 and self.profiles[t].swaps:
            ft = c
        j = self.amb.get(self.profiles[t].value)
        if j is not None and len(pre[j]) < 2:
            pre = pre[:j] + (pre[j] + (c,),) + pre[j + 1:]
        return (ft, pre)

    def deck_counts(self, land, od, resh) -> list[int]:
        pool = self.all if resh else self.d0
        c = list(pool)
        for t in land:
            c[t] -= 1
        if od >= 0:
            c[od] -= 1
        return c

    def start(self) -> dict:
        """{state: probability} after the Vale night gains and the first reveal."""
        one = self.num(1)
        resh = sum(self.d0) == 0
        if resh:
            self.d0 = list(self.all)
        if self.deck.on_deck >= 0 and not resh:
            key = (ALIVE, (), self.type_of[self.deck.on_deck], resh, self.rain0, 0,
                   self.order0)
            self._see(key)
            return {key: one}
        n = sum(self.d0)
        out = {}
        for t, c in enumerate(self.d0):
            if c:
                key = (ALIVE, (), t, resh, self.rain0, 0, self.order0)
                self._see(key)
                out[key] = self.num(c) / n if self.exact else c / n
        return out

    def _after_play(self, land2, resh):
        """What a Land (after a play) fixes: (reshuffled, [(type, P(next reveal))] or [],
        Wither limit, its uncovered suns).  Memoised: many states share a Land."""
        k = (land2, resh)
        got = self.land_memo.get(k)
        if got is None:
            deck = self.deck_counts(land2, -1, resh)
            n = sum(deck)
            if n == 0 and not resh and self.has_discard:              # reshuffle (§3.3)
                resh = True
                deck = self.deck_counts(land2, -1, resh)
                n = sum(deck)
            reveal = [(t, (self.num(c) / n if self.exact else c / n))
                      for t, c in enumerate(deck) if c]
            got = (resh, reveal, self.rules.wither_suns + sum(self.wl[t] for t in land2),
                   sum(self.suns[t] for t in land2))
            self.land_memo[k] = got
        return got

    def play(self, key) -> tuple:
        """The position after playing the on-deck card of decision state ``key``:
        (Land, reshuffled, Rain held, Rain placed, order summary); its when-played
        Rain tokens are gained (from the supply, M3)."""
        _, land, od, resh, rain, placed, order = key
        rain += min(self.rain_gain[od], self.supply - rain - placed)
        got = self.play_memo.get((land, resh, od))
        if got is None:
            land2 = tuple(sorted(land + (od,)))
            got = (land2, self._after_play(land2, resh)[0])   # the reveal's reshuffle (§3.3)
            self.play_memo[(land, resh, od)] = got
        if order:
            o = self.order_memo.get((order, od))
            if o is None:
                o = self.order_memo[(order, od)] = self.next_order(order, od)
            order = o
        return (got[0], got[1], rain, placed, order)

    def reveal(self, pos) -> list:
        """[(probability, status, on-deck type, Rain held, Rain placed, uncovered suns)] of
        revealing the next card at ``pos`` (reshuffling if the deck is empty; [] if out of
        cards)."""
        land2, resh, rain, placed, _ = pos
        _, reveal, limit, lsuns = self._after_play(land2, resh)
        base = lsuns - placed
        needed = self.policy.rain == "needed"
        out = []
        for t, q in reveal:
            sn = base + self.suns[t]
            r, pl = rain, placed
            if sn >= limit and needed:                               # §3.4 Rain tokens
                use = min(r, sn - limit + 1)
                r, pl, sn = r - use, pl + use, sn - use
            out.append((q, WITHERED if sn >= limit else ALIVE, t, r, pl, sn))   # §3.5
        return out

    def grow(self, key) -> list:
        """[(probability, next state)] of playing the on-deck card (alive, on-deck >= 0)."""
        got = self.memo.get(key)
        if got is not None:
            return got
        _, land, od, resh, rain, placed, order = key
        land2 = tuple(sorted(land + (od,)))
        order = self.next_order(order, od)
        rain += min(self.rain_gain[od], self.supply - rain - placed)     # when-played Rain
        resh, reveal, limit, lsuns = self._after_play(land2, resh)
        out = []
        seen = self.seen
        if not reveal:                                                   # out of cards (M15)
            nxt = (ALIVE, land2, -1, resh, rain, placed, order)
            seen.add(nxt)
            out.append((self.num(1), nxt))
        else:
            base = lsuns - placed
            needed = self.policy.rain == "needed"
            suns_of = self.suns
            for t, q in reveal:
                suns = base + suns_of[t]
                r, pl = rain, placed
                if suns >= limit and needed:                             # §3.4 Rain tokens
                    use = min(r, suns - limit + 1)
                    r, pl, suns = r - use, pl + use, suns - use
                nxt = (WITHERED if suns >= limit else ALIVE, land2, t, resh, r, pl, order)
                seen.add(nxt)                                            # §3.5 Wither
                out.append((q, nxt))
        if self.max_states is not None and len(seen) > self.max_states:
            raise TooManyStates(self.deck.name, self.max_states)
        self.memo[key] = out
        return out

    # -- what a Night gives ----------------------------------------------------------
    def rest_land(self, key):
        """(profiles of the Land after the Turtle swaps on Resting, night gains of the
        cards swapped in): engine ``night_swaps`` (spec §6.8) from the order summary.

        The first Turtle card T1 of the Land swaps the first card c1 (playing order) of
        least value among the others for the on-deck card if that is worth more.  After
        that every other card is worth at least c1, so a later Turtle can only swap T1
        itself out (for the on-deck card, c1 or the first one), when T1 is worth less
        than every other card and than the on-deck card: so the result needs only T1's
        class and, where tied values hold different classes, the first two cards."""
        status, land, od, order = key[0], key[1], key[2], key[6]
        S = self.sc_prof
        final = [self.sc[t] for t in land]
        if status != ALIVE or od < 0 or not order or order[0] < 0:
            return [S[c] for c in final], (0, 0, 0)
        ft, pre = order
        others = list(final)
        others.remove(ft)
        if not others:
            return [S[c] for c in final], (0, 0, 0)
        low = min(S[c].value for c in others)
        j = self.amb.get(low)
        if j is None:
            c1 = next(c for c in others if S[c].value == low)
        else:
            c1 = pre[j][1] if (S[ft].value == low and pre[j][0] == ft) else pre[j][0]
        turtles = sum(1 for c in others if S[c].swaps)      # Turtle cards other than T1
        top = self.sc[od]
        extra = [0, 0, 0]

        def swap_in(out, c):
            final.remove(out)
            final.append(c)
            extra[0] += S[c].g_mana
            extra[1] += S[c].g_spirit
            extra[2] += S[c].g_vp

        if S[top].value > low:
            swap_in(c1, top)
            turtles -= 1 if S[c1].swaps else 0
            top = c1
        if turtles and S[ft].value < low and S[top].value > S[ft].value:
            swap_in(ft, top)
        return [S[c] for c in final], tuple(extra)

    def payoff(self, key) -> tuple[int, int, int]:
        """(mana, spirit, VP) of the Night ending in state ``key`` (Resting if alive):
        the Day's left-edge gain of the Land (only the Wither choice after Withering,
        spec §6.3) plus everything gained in the Night (Vale night gains, when-played and
        night effects of the cards played, and of a card swapped in)."""
        status, land = key[0], key[1]
        # the order summary and on-deck card matter only for a Turtle Resting in the Land
        turtle = self.ordered and status == ALIVE and key[2] >= 0 and key[6][0] >= 0
        ck = (status, land, self.sc[key[2]], key[6]) if turtle else (status, land)
        got = self.pay_memo.get(ck)
        if got is not None:
            return got
        night = list(self.vale_gain)
        gv = self.night_vec
        for t in land:
            g = gv[t]
            night[0] += g[0]
            night[1] += g[1]
            night[2] += g[2]
        final, extra = self.rest_land(key)
        left = [sum(p.mana for p in final), sum(p.spirit for p in final),
                sum(p.vp for p in final)]
        if status == WITHERED:
            r = self.wither_choice(left)
            left = [x if i == r else 0 for i, x in enumerate(left)]
        out = tuple(night[i] + extra[i] + left[i] for i in range(3))
        self.pay_memo[ck] = out
        return out

    def showing(self, key) -> int:
        """Uncovered suns of the Land and the on-deck card, minus Rain tokens placed."""
        land, od, placed = key[1], key[2], key[5]
        ls = self.suns_memo.get(land)
        if ls is None:
            ls = self.suns_memo[land] = sum(self.suns[t] for t in land)
        return ls + (self.suns[od] if od >= 0 else 0) - placed

    def wither_choice(self, left) -> int:
        pol = self.policy
        if pol.wither_choice != "best":
            return C.RESOURCES.index(pol.wither_choice)
        scores = [pol.w_mana * left[0], pol.w_spirit * left[1], pol.w_vp * left[2]]
        return scores.index(max(scores))


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------
@dataclass
class WitherOdds(odds.OddsResult):
    """Wither odds of a deck; index k = "after k plays" (k = 1..plays).

    ``p_wither_within[k]``: P(Withered by play k).  ``p_can_grow[k]``: P(not Withered
    and an on-deck card to play) after k.  ``p_out_of_cards[k]``: P(the Night ended
    with deck and Discard empty by play k).  ``suns_distribution[k]``: uncovered suns
    (Land and on-deck card, minus Rain tokens placed) after k plays; a Withered Night
    keeps the count it Withered at.  ``expected[k]``: E[mana, spirit, VP] if you Rest
    after k plays (a Withered Night gives its chosen resource); ``expected_given_no_wither``
    the same given no Wither by play k.  Simulated results carry ``se`` (standard errors
    of the same keys) and ``games``.
    """
    plays: int
    rain: int
    p_wither_within: dict
    p_can_grow: dict
    p_out_of_cards: dict
    suns_distribution: dict
    expected: dict
    expected_given_no_wither: dict
    sunlight_valley_vp: int = 0

    def to_dict(self) -> dict:
        f = float
        d = {"deck": self.deck, "method": self.method, "plays": self.plays, "rain": self.rain,
             "p_wither_within": {str(k): f(v) for k, v in self.p_wither_within.items()},
             "p_can_grow": {str(k): f(v) for k, v in self.p_can_grow.items()},
             "p_out_of_cards": {str(k): f(v) for k, v in self.p_out_of_cards.items()},
             "suns_distribution": {str(k): {str(s): f(p) for s, p in sorted(v.items())}
                                   for k, v in self.suns_distribution.items()},
             "expected_if_rest_after": {str(k): {q: f(x) for q, x in v.items()}
                                        for k, v in self.expected.items()},
             "expected_if_rest_after_given_no_wither": {
                 str(k): {q: (None if x is None else f(x)) for q, x in v.items()}
                 for k, v in self.expected_given_no_wither.items()},
             "sunlight_valley_vp": self.sunlight_valley_vp}
        d.update(self.method_fields())
        return d


def _check_plays(plays):
    if isinstance(plays, bool) or not isinstance(plays, int) or not 1 <= plays <= MAX_PLAYS:
        raise ValueError(f"plays must be between 1 and {MAX_PLAYS}, got {plays!r}")


def wither_odds(deck, plays: int = 6, rain: int = 0, rules: Rules | None = None,
                policy=None, exact: bool = False, card_set=None,
                max_states: int | None = None) -> WitherOdds:
    """Exact wither odds and expected resources if the player Rests after k = 1..plays plays.

    ``deck``: a :class:`WitherDeck`, a bundled deck name or a deck file.  ``rain``:
    Rain tokens held at the start of the Night.  ``policy`` (a Policy or a preset
    name): its ``rain`` mode (place tokens when needed, or never) and its Wither
    choice.  ``max_states``: raise :class:`TooManyStates` past that many states.
    """
    _check_plays(plays)
    deck = as_deck(deck, card_set)
    pol = get_policy(policy) if policy is not None else Policy()
    t0 = time.perf_counter()
    m = WitherModel(deck, rain, rules, pol, exact, max_states)
    zero = m.num(0)
    # Forward over the positions between a play and the next reveal ("after k plays"):
    # (Land, reshuffled, Rain held, Rain placed, order summary) -> probability.  A
    # reveal leads to a Grow/Rest decision (or a Wither); the decision state lasts only
    # until the next play, so its payoff and suns are summed on the way.
    pre: dict = defaultdict(lambda: zero)
    for key, p in m.start().items():
        pre[m.play(key)] += p
    w_mass, o_mass = zero, zero                      # Withered / out of cards, cumulative
    w_tot, o_tot = [zero] * 3, [zero] * 3
    w_hist: dict = defaultdict(lambda: zero)
    o_hist: dict = defaultdict(lambda: zero)
    pw, can, ooc, suns, exp, expc = {}, {}, {}, {}, {}, {}
    positions = 0
    for k in range(1, plays + 1):
        positions += len(pre)
        if max_states is not None and positions > max_states:
            raise TooManyStates(deck.name, max_states)
        nxt: dict = defaultdict(lambda: zero)
        a_mass = zero
        a_tot = [zero] * 3
        hist: dict = defaultdict(lambda: zero)
        for pos, p in pre.items():
            land2, resh, rain_, placed, order = pos
            reveal = m.reveal(pos)
            if not reveal:                           # out of cards (M15): the Night ends
                key = (ALIVE, land2, -1, resh, rain_, placed, order)
                o_mass += p
                o_hist[m.showing(key)] += p
                for i, x in enumerate(m.payoff(key)):
                    o_tot[i] += p * x
                continue
            # without a Turtle in the Land a payoff depends on the Land and status only
            fixed = not (order and order[0] >= 0)
            pay_a = m.payoff((ALIVE, land2, 0, resh, rain_, placed, order)) if fixed else None
            q_alive = zero
            for q, status, t, r, pl, sn in reveal:
                pq = p * q
                if status == WITHERED:
                    key = (status, land2, t, resh, r, pl, order)
                    pay = m.payoff(key)
                    w_mass += pq
                    w_hist[sn] += pq
                    for i in range(3):
                        w_tot[i] += pq * pay[i]
                    continue
                hist[sn] += pq
                key = (status, land2, t, resh, r, pl, order)
                if fixed:
                    q_alive += q
                else:
                    pay = m.payoff(key)
                    for i in range(3):
                        a_tot[i] += pq * pay[i]
                    a_mass += pq
                if k < plays:
                    nxt[m.play(key)] += pq
            if fixed and q_alive:
                pa = p * q_alive
                a_mass += pa
                for i in range(3):
                    a_tot[i] += pa * pay_a[i]
        pre = nxt
        pw[k] = w_mass if exact else min(w_mass, 1.0)
        can[k], ooc[k] = a_mass, o_mass
        for h in (w_hist, o_hist):
            for sn, p in h.items():
                hist[sn] += p
        suns[k] = dict(sorted(hist.items()))
        exp[k] = {q: w_tot[i] + o_tot[i] + a_tot[i] for i, q in enumerate(QUANTITIES)}
        alive = a_mass + o_mass
        expc[k] = {q: ((o_tot[i] + a_tot[i]) / alive if alive > 0 else None)
                   for i, q in enumerate(QUANTITIES)}
    m.positions = positions
    return WitherOdds(deck=deck.name, plays=plays, rain=rain, method="exact",
                      p_wither_within=pw, p_can_grow=can, p_out_of_cards=ooc,
                      suns_distribution=suns, expected=exp, expected_given_no_wither=expc,
                      states=positions, seconds=time.perf_counter() - t0,
                      sunlight_valley_vp=deck.sunlight_valley_vp())


# ---------------------------------------------------------------------------
# Best Rest/Grow rule
# ---------------------------------------------------------------------------
def parse_goal(text: str):
    """'mana', 'spirit', 'vp', 'value' (2 mana + 2 spirit + 3 VP) or 'RES>=N'
    (maximise P(RES >= N)); returns (goal, target)."""
    t = str(text).replace(" ", "")
    if t in GOALS:
        return t, None
    if ">=" in t:
        res, _, n = t.partition(">=")
        if res in QUANTITIES and _NUMBER.fullmatch(n):      # ASCII digits (isdigit takes '²')
            return res, int(n)
    raise ValueError(f"goal must be one of {', '.join(GOALS)} or RES>=N with RES mana, "
                     f"spirit or vp (e.g. mana>=5), got {text!r}")


@dataclass
class BestRule(odds.StoppingRule):
    """The best Rest/Grow rule for a goal (backward induction, at most ``horizon`` plays).

    ``value``: the goal's expected value (or probability) under the rule;
    ``fixed[k]``: the same for "play exactly k cards" (k = 1..horizon); ``table``: per
    state met, (plays made, suns showing, Rain tokens held, P(next play Withers),
    decision, P(reach))."""
    fixed: dict

    def summary(self, min_reach: float = 0.0) -> list[dict]:
        from vale_sim.stats import stopping_rule_summary
        return [dict(plays=k, suns=s, rain=r, reach=reach, p_grow=p_go, grow_up_to=up,
                     rest_from=stop)
                for (k, s, r), reach, p_go, up, stop in stopping_rule_summary(
                    self.table, ("plays", "suns", "rain"), "p_next_wither", "grow", min_reach)]

    def to_dict(self) -> dict:
        return self._dict("fixed", self.fixed)


def best_rule(deck, goal: str = "mana", target: int | None = None, horizon: int = 6,
              rain: int = 0, rules: Rules | None = None, policy=None, exact: bool = False,
              card_set=None, max_states: int | None = None) -> BestRule:
    """The Rest/Grow rule that maximises E[goal] (goal mana, spirit, vp or value =
    2 mana + 2 spirit + 3 VP), or P(goal >= target) for a resource goal with a target,
    over at most ``horizon`` plays.  The player sees the Land, the on-deck card and
    their Rain tokens, not the deck's order; the first play is forced (M2); ties Rest."""
    _check_plays(horizon)
    if goal not in GOALS:
        raise ValueError(f"goal must be one of {', '.join(GOALS)}, got {goal!r}")
    if target is not None and goal == "value":
        raise ValueError("a target needs goal mana, spirit or vp")
    deck = as_deck(deck, card_set)
    pol = get_policy(policy) if policy is not None else Policy()
    t0 = time.perf_counter()
    m = WitherModel(deck, rain, rules, pol, exact, max_states)
    zero, one = m.num(0), m.num(1)

    def score(key):
        mn, sp, vp = m.payoff(key)
        if goal == "value":
            return m.num(2 * mn + 2 * sp + 3 * vp)
        x = (mn, sp, vp)[QUANTITIES.index(goal)]
        return m.num(x) if target is None else (one if x >= target else zero)

    best, fixed, rows = odds.best_stopping_rule(
        m.start(), horizon, zero, score,
        steps=lambda key: [(q, k2[0] == WITHERED, k2) for q, k2 in m.grow(key)],
        can_go=lambda key: key[2] >= 0, end_value=score,
        row_key=lambda key: (m.showing(key), key[4]), words=("grow", "rest"),
        first_forced=True)                           # the forced first play (M2)
    table = [dict(plays=k, suns=s, rain=r, p_next_wither=risk, decision=d, reach=p)
             for (k, s, r, risk, d), p in sorted(rows.items())]
    return BestRule(goal=goal, target=target, horizon=horizon, value=best, fixed=fixed,
                    table=table, states=m.states, seconds=time.perf_counter() - t0)


# ---------------------------------------------------------------------------
# Simulation: the reference engine's own Night
# ---------------------------------------------------------------------------
def _night_game(deck: WitherDeck, rules: Rules, rng):
    """A reference-engine game object holding only what its Night reads: the card set,
    the rules, the random stream, the Rain supply and the owned Vales (map spaces 0..
    holding them)."""
    from ..reference.game import MysticLandsGame

    class NightGame(MysticLandsGame):
        def __init__(self):                    # no setup: a single Night, no other player
            self.cs, self.rules, self.rng = deck.cs, rules, rng
            self.logging, self.log = False, []
            self.in_day, self.round, self.trigger = False, 1, -1
            self.layout = list(deck.vales)
            self.rain_supply = rules.rain_supply
            self.growths = 0

        def decide_grow(self, p, suns):        # Grow k then Rest, observing each step
            self.grows_done += 1
            self.observe(p, suns)
            return self.grows_done < self.plays

    return NightGame()


def play_night(deck: WitherDeck, plays: int, rain: int, rules: Rules, policy: Policy, rng):
    """Play one Night on the reference engine (``MysticLandsGame.night``) with the rule
    "Grow ``plays`` times, then Rest", drawing from ``rng`` (its ``shuffle``): the deck's
    shuffle (a given on-deck card stays on top), then the engine's reshuffles.  Returns,
    for k = 1..plays, (withered by play k, can still grow, uncovered suns, (mana, spirit,
    VP) if Resting after k plays); for k below ``plays`` "Rest" is read at the k-th
    Grow/Rest decision, the Turtle swaps tried on a copy."""
    from ..records import TurnRecord
    from ..reference.game import PlayerState
    g = _night_game(deck, rules, rng)
    p = PlayerState(index=0, seat=0, policy=policy)
    p.cards = [Card(uid=c.uid, base=c.base, slots=list(c.slots)) for c in deck.cards]
    p.deck = [u for u in deck.deck if u != deck.on_deck]
    g.rng.shuffle(p.deck)
    if deck.on_deck >= 0:
        p.deck.insert(0, deck.on_deck)
    p.discard = list(deck.discard)
    p.rain = rain
    p.cubes = [(s, 0) for s in range(len(deck.vales))]
    g.rain_supply = rules.rain_supply - rain
    start = (p.mana, p.spirit, p.vp)
    seen = {}

    def gains(pl, withered):
        left = [0, 0, 0]
        for u in pl.land:
            for j, x in enumerate(M.resources(g.cs, pl.cards[u])):
                left[j] += x
        if withered:
            r = g.wither_choice(pl)
            left = [x if j == r else 0 for j, x in enumerate(left)]
        return (pl.mana - start[0] + left[0], pl.spirit - start[1] + left[1],
                pl.vp - start[2] + left[2])

    def observe(pl, suns):
        # "Rest now": Turtle swaps on a copy of what they change (spec §6.8)
        saved = (list(pl.land), list(pl.deck), pl.mana, pl.spirit, pl.vp, pl.rain,
                 g.rain_supply, pl.wild)
        g.night_swaps(pl)
        got = gains(pl, False)
        pl.land, pl.deck, pl.mana, pl.spirit, pl.vp, pl.rain, g.rain_supply, pl.wild = saved
        seen[g.grows_done] = (suns, got)

    g.observe, g.grows_done, g.plays = observe, 0, plays
    rec = TurnRecord(round=1, player=0, turn=1)
    g.night(p, rec)
    end = (g.land_suns(p) + g.ondeck_suns(p) - p.placed, gains(p, rec.withered))
    out = []
    for k in range(1, plays + 1):
        if k < rec.grows or (k == rec.grows and not rec.withered and not rec.out_of_cards):
            out.append((False, True) + seen[k])
        else:
            out.append((rec.withered, False) + end)
    return out


def simulate_wither_odds(deck, plays: int = 6, rain: int = 0, games: int = 10_000,
                         seed: int = 0, rules: Rules | None = None, policy=None,
                         card_set=None, progress: bool = False) -> WitherOdds:
    """The same quantities estimated by playing the reference engine's Night
    (``MysticLandsGame.night``) with the fixed rule "Grow ``plays`` times, then Rest";
    game i draws from GameRng(seed, i): the deck's shuffle (the on-deck card given in
    the deck stays on top), then the engine's reshuffles.  "Rest after k" for k below
    ``plays`` is read at the k-th Grow/Rest decision (Turtle swaps tried on a copy).

    Standard errors: sqrt(p(1-p)/n) for probabilities, s/sqrt(n) for means (for
    "given no Wither", over the games not Withered by play k)."""
    from vale_sim.rng import GameRng
    _check_plays(plays)
    deck = as_deck(deck, card_set)
    rules = rules or Rules()
    pol = get_policy(policy) if policy is not None else Policy()
    if games < 1:
        raise ValueError("games must be at least 1")
    if rain < 0 or rain > rules.rain_supply:
        raise ValueError(f"rain must be between 0 and the supply of {rules.rain_supply} "
                         f"tokens, got {rain}")
    K = plays
    wn, cn, on = [0] * (K + 1), [0] * (K + 1), [0] * (K + 1)
    show = [defaultdict(int) for _ in range(K + 1)]
    sums = [[[0.0, 0.0] for _ in QUANTITIES] for _ in range(K + 1)]
    csums = [[[0.0, 0.0] for _ in QUANTITIES] for _ in range(K + 1)]
    it = range(games)
    if progress:
        from tqdm import tqdm
        it = tqdm(it, desc=f"wither-odds {deck.name}", unit="night", leave=False,
                  disable=None)                 # only on a terminal
    for i in it:
        for k, (withered, can, sn, got) in enumerate(
                play_night(deck, K, rain, rules, pol, GameRng(seed, i)), 1):
            wn[k] += withered
            cn[k] += can
            on[k] += not withered and not can
            show[k][sn] += 1
            for j, x in enumerate(got):
                sums[k][j][0] += x
                sums[k][j][1] += x * x
                if not withered:
                    csums[k][j][0] += x
                    csums[k][j][1] += x * x
    n = games
    ks = range(1, K + 1)
    res = WitherOdds(
        deck=deck.name, plays=K, rain=rain, method="simulated",
        p_wither_within={k: wn[k] / n for k in ks}, p_can_grow={k: cn[k] / n for k in ks},
        p_out_of_cards={k: on[k] / n for k in ks},
        suns_distribution={k: {s: c / n for s, c in sorted(show[k].items())} for k in ks},
        expected={k: {q: sums[k][j][0] / n for j, q in enumerate(QUANTITIES)} for k in ks},
        expected_given_no_wither={}, games=n, seed=seed,
        sunlight_valley_vp=deck.sunlight_valley_vp())
    se_e, se_c = {}, {}
    for k in ks:
        alive = n - wn[k]
        res.expected_given_no_wither[k], se_e[k], se_c[k] = {}, {}, {}
        for j, q in enumerate(QUANTITIES):
            se_e[k][q] = odds.mean_se(*sums[k][j], n)[1]
            res.expected_given_no_wither[k][q], se_c[k][q] = odds.mean_se(*csums[k][j], alive)
    res.se = {"p_wither_within": {k: odds.rate_se(p, n) for k, p in res.p_wither_within.items()},
              "expected": se_e, "expected_given_no_wither": se_c}
    return res


# ---------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------
def plot_wither_curves(results, ax=None):
    """P(Wither within k plays) against k, one line per result (deck, Rain tokens);
    simulated results get 95% error bars."""
    return odds.plot_risk_curves(
        results, ax, lambda res: list(range(1, res.plays + 1)),
        lambda res, k: res.p_wither_within[k],
        lambda res, ks: ([1.96 * res.se["p_wither_within"][k] for k in ks]
                         if res.method == "simulated" else None),
        lambda res: f"{res.deck}, {res.rain} rain" + (" (simulated)"
                                                      if res.method == "simulated" else ""),
        "cards played in the Night (k)", "P(Withered within k plays)", "Wither risk per play",
        legend={"fontsize": 8})


def plot_report(res, path, others=()) -> None:
    """P(Wither within k) of ``res`` and of ``others`` (e.g. the same deck with other Rain
    counts) and E[mana, spirit, VP] of ``res`` if you Rest after k, as a PNG at ``path``
    (written atomically)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from vale_sim.io import save_figure
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    plot_wither_curves(sorted([res, *others], key=lambda r: (r.deck, r.rain)), a1)
    ks = list(range(1, res.plays + 1))
    for q in QUANTITIES:
        ys = [float(res.expected[k][q]) for k in ks]
        if res.method == "simulated":
            a2.errorbar(ks, ys, yerr=[1.96 * res.se["expected"][k][q] for k in ks],
                        marker="o", capsize=3, label=q)
        else:
            a2.plot(ks, ys, marker="o", label=q)
    a2.set_xlabel("Rest after k plays")
    a2.set_ylabel("E[gain] if you Rest after k")
    a2.set_title(f"What the Night gives ({res.deck}, {res.rain} rain)")
    a2.grid(alpha=0.3)
    a2.legend()
    fig.tight_layout()
    save_figure(fig, path, dpi=100)          # atomic; one line naming path on a full disk


# ---------------------------------------------------------------------------
# Benchmark: decks players make
# ---------------------------------------------------------------------------
def played_decks(games: int = 20, players: int = 2, seed: int = 0, policies=None):
    """(deck, Rain tokens) at the start of every Night of ``games`` reference games
    (after the previous Dusk: the real Discard, on-deck card, Vales and Rain tokens)."""
    from ..reference.game import MysticLandsGame
    out = []

    class Recording(MysticLandsGame):
        def night(self, p, rec):
            out.append((deck_of_player(self, p, f"game {self.rng.game_index} P{p.index} "
                                                 f"turn {p.turns}"), p.rain))
            return super().night(p, rec)

    cs = load_card_set()
    for i in range(games):
        Recording(cs, players, seed, i, policies, log=False).play()
    return out


def benchmark(decks, plays: int = 6, max_states: int | None = None) -> dict:
    """Seconds and positions of :func:`wither_odds` on (deck, rain) pairs: the median and
    the slowest, how many answer under a second.  ``cpu`` is the process's CPU time (what
    the machine's load does not inflate), ``wall`` the elapsed time."""
    rows = []
    for deck, rain in decks:
        c0 = time.process_time()
        r = wither_odds(deck, plays, rain, max_states=max_states)
        rows.append((time.process_time() - c0, r.seconds, r.states, deck.name))
    by_cpu = sorted(rows)
    by_wall = sorted(rows, key=lambda x: x[1])
    n = len(rows)
    return {"decks": n, "under_1s_cpu": sum(1 for c, *_ in rows if c < 1.0),
            "under_1s_wall": sum(1 for _, w, *_ in rows if w < 1.0),
            "median_cpu": round(by_cpu[n // 2][0], 4), "median_wall": round(by_wall[n // 2][1], 4),
            "slowest_cpu": by_cpu[-1], "slowest_wall": by_wall[-1],
            "most_positions": max(x[2] for x in rows)}
