"""One player's cards, deck, field and the Planting/Prep mechanics.

Plain Python following the rulebook phase by phase (docs/engine-spec.md §1,
§4.2, §4.4, §4.6, §6.1, §6.2, §7).  The game (``game.py``) owns the shared
supply; this class owns everything that is the player's alone, so the
spoil-odds simulation can drive Planting and Prep without a whole game.
"""
from __future__ import annotations

from ..cards import CardSet
from vale_sim.rng import GameRng
from ..rules import MAX_PHASE_PLAYS, Rules
from . import symbols as sym
from .symbols import Card

SPOIL_AT = 4        # RB: Spoiling — 4 or more decay revealed
PREP_UNTIL = 3      # RB: Prep Phase — until three or more decay showing


class OwnedVale:
    """A vale card a player bought; active from the player's next turn on."""

    def __init__(self, vale_id: int, bought_turn: int):
        self.vale_id = vale_id
        self.bought_turn = bought_turn


class Player:
    """A player's 20 cards and the zones they move through.

    Zones hold card indices into ``cards``: ``deck`` (element 0 is the top),
    ``field`` (left to right), ``discard`` (oldest first), ``on_deck`` (-1 if none).
    """

    def __init__(self, cs: CardSet, cards: list[Card], rules: Rules | None = None,
                 rng: GameRng | None = None, vales=(), index: int = 0, log=None):
        self.cs = cs
        self.cards = [c.copy() for c in cards]
        self.rules = rules or Rules()
        self.rng = rng or GameRng(0, 0)
        self.index = index
        self.log = log if log is not None else []
        self.deck: list[int] = []
        self.field: list[int] = []
        self.discard: list[int] = []
        self.on_deck = -1
        # cards in the discard pile that went there face down (Calm Weather, Cleansing
        # Rain): the other players did not see them (docs/search.md); a reshuffle clears it
        self.unseen: set[int] = set()
        self.turn_number = 1 if vales else 0
        # vales given to the constructor are owned and active (for spoil studies)
        self.vales = [OwnedVale(v, 0) for v in vales]
        self.token_active = False          # docs/rules.md I4: all mana tokens start spent
        self.tokens_vp = 0
        self.skip_harvest = False          # spoiled in Prep: next turn skips Harvest
        self.prep_spoiled = False
        self.spoils = 0
        self.harvests = 0
        self.acquired: dict[int, int] = {}
        self.first_round: dict[int, int] = {}
        self.harvested: set[int] = set()
        self.vales_acquired: list[int] = []
        self.events = {}                   # uses of abilities during the current turn
        # rules.md I16: Deadwood Harvester / Mindful Owl discard only while fewer cards than
        # this have been played in the phase (the policy's discard_field_plays)
        self.discard_field_plays = MAX_PHASE_PLAYS
        # the "value" push rule's value of a Harvest, (player, policy, cards) -> int
        # (engine-spec §6.1): what a Harvest buys depends on the game's offer, so the game
        # sets it (game.py harvest_value)
        self.harvest_value = None
        self.reset_window()

    # -- once-per-turn uses (engine-spec §4.6) ------------------------------
    def reset_window(self) -> None:
        """At Prep start: Druid, Conclave, Sunstone and Chorus uses become available."""
        self.druid_used = False
        self.conclave_used = False
        self.temp_card = -1
        self.temp_amount = 0
        self.sunstone_used = False
        self.chorus_used: set[int] = set()
        self.arbor_growth = 0

    def say(self, text: str) -> None:
        self.log.append(f"P{self.index}: {text}")

    # -- what cards show ------------------------------------------------------
    def temp(self, c: int) -> int:
        return self.temp_amount if c == self.temp_card else 0

    def decay(self, c: int) -> int:
        # spec §1: the symbols of a card (guardians, decay, growth; covered abilities)
        return sym.decay(self.cs, self.cards[c])

    def growth(self, c: int) -> int:
        return sym.growth(self.cs, self.cards[c], self.temp(c))

    def guardians(self, c: int) -> int:
        return sym.guardians(self.cs, self.cards[c], self.temp(c))

    def net(self, c: int) -> int:
        return self.decay(c) - self.growth(c)

    def abilities(self, c: int) -> list[tuple[str, int]]:
        return sym.active_abilities(self.cs, self.cards[c])

    def showing(self) -> list[int]:
        return self.field + ([self.on_deck] if self.on_deck >= 0 else [])

    def active_vales(self) -> list[OwnedVale]:
        """Vales usable now: bought in an earlier turn (RB: Buy Vale Cards)."""
        return [v for v in self.vales if v.bought_turn < self.turn_number]

    def vale_amounts(self, kind: str) -> list[int]:
        return [self.cs.vales[v.vale_id].amount for v in self.active_vales()
                if self.cs.vales[v.vale_id].ability == kind]

    def global_growth(self) -> int:
        """Ancient Liferoots (always) plus Blooming Arbor used this window."""
        return sum(self.vale_amounts("always_growth")) + self.arbor_growth

    def decay_showing(self) -> int:
        """Decay on field + on-deck minus growth there and from abilities."""
        cards = self.showing()
        return (sum(self.decay(c) for c in cards) - sum(self.growth(c) for c in cards)
                - self.global_growth())

    def gross_showing(self) -> int:
        return sum(self.decay(c) for c in self.showing())

    def field_mana_symbols(self) -> int:
        return sum(sym.slot_sum(self.cs, self.cards[c], "mana") for c in self.field)

    # -- moving cards -----------------------------------------------------------
    def new_deck(self) -> None:
        """Setup step A: all cards shuffled into the deck."""
        self.deck = list(range(len(self.cards)))
        self.field, self.discard, self.on_deck = [], [], -1
        self.unseen = set()
        self.rng.shuffle(self.deck)

    def reshuffle(self) -> None:
        """RB: Planting — an empty deck is replaced by the shuffled discard pile."""
        self.deck, self.discard = self.discard, []
        self.unseen = set()
        self.rng.shuffle(self.deck)
        self.say(f"reshuffles {len(self.deck)} discarded cards into a new deck")

    def reveal(self) -> None:
        """Turn over the top card of the deck as the new on-deck card."""
        if not self.deck and self.discard:
            self.reshuffle()
        self.on_deck = self.deck.pop(0) if self.deck else -1

    def describe(self, c: int) -> str:
        names = [self.cs.advancements[k].name for k in self.cards[c].slots if k >= 0]
        return f"#{c}[{' + '.join(names) or 'blank'}]"

    # -- When Played abilities (engine-spec §7) -------------------------------
    def play_on_deck(self, played: int = 0) -> int:
        """Put the on-deck card into the field and resolve its When Played abilities;
        ``played``: cards played before it in this phase (rules.md I16)."""
        # spec §7: When Played abilities
        c = self.on_deck
        self.on_deck = -1
        self.field.append(c)
        for kind, _ in self.abilities(c):
            if kind == "when_played_discard_field":      # Deadwood Harvester, Mindful Owl
                if played >= self.discard_field_plays:   # I16: the policy declines
                    self.say(f"  {self.describe(c)} does not discard (play {played + 1} "
                             "of the phase)")
                    continue
                others = [x for x in self.field if x != c]
                pick = self.worst(others, random_ties=True)
                if pick >= 0:
                    self.field.remove(pick)
                    self.discard.append(pick)
                    self.say(f"  {self.describe(c)} discards {self.describe(pick)} from the field")
            elif kind == "when_played_peek":              # Calm Weather
                if not self.deck and self.discard:
                    self.reshuffle()
                if self.deck:
                    top = self.deck[0]
                    if self.net(top) > 0:
                        self.discard.append(self.deck.pop(0))
                        self.unseen.add(top)                # face down: unseen
                        self.say(f"  Calm Weather discards the top card {self.describe(top)}")
            elif kind == "when_played_search_deck":       # Cleansing Rain
                if not self.deck and self.discard:
                    self.reshuffle()
                pick = self.worst(self.deck)
                if pick >= 0:
                    self.deck.remove(pick)
                    self.discard.append(pick)
                    self.unseen.add(pick)                   # face down: unseen
                    self.say(f"  Cleansing Rain discards {self.describe(pick)} from the deck")
                self.rng.shuffle(self.deck)
        return c

    def worst(self, candidates: list[int], random_ties: bool = False) -> int:
        """The card with the most net decay (> 0), -1 if none (§6.2).  Ties: the first
        in order; with ``random_ties``, ``tied[randbelow(len(tied))]`` of the tied cards
        in order (drawn only if there are several)."""
        # spec §6.2: When Played choices
        nets = [self.net(c) for c in candidates]
        top = max(nets, default=0)
        if top <= 0:
            return -1
        tied = [c for c, n in zip(candidates, nets) if n == top]
        if len(tied) == 1 or not random_ties:
            return tied[0]
        return tied[self.rng.randbelow(len(tied))]

    # -- Spoiling (engine-spec §4.4) --------------------------------------------
    def check_spoil(self) -> bool:
        """True if the player spoils now, after trying Druid, Conclave and Arbor."""
        # spec §4.4: the spoil check and its saves
        if self.decay_showing() < SPOIL_AT:
            return False
        if not self.druid_used and any(k == "prevent_spoil" for c in self.field
                                       for k, _ in self.abilities(c)):
            self.druid_used = True
            self.events["druid"] = True
            gone = self.on_deck
            if gone >= 0:
                self.discard.append(gone)
                self.on_deck = -1
            self.reveal()
            self.say(f"  Peacekeeper Druid discards on-deck {self.describe(gone)}"
                     + (f", reveals {self.describe(self.on_deck)}" if self.on_deck >= 0 else ""))
            if self.decay_showing() < SPOIL_AT:
                return False
        conclave = self.vale_amounts("guardian_once_per_turn")
        if conclave and not self.conclave_used:
            savers = self.conclave_savers(conclave[0])
            if savers:
                c = savers[0] if len(savers) == 1 else savers[self.rng.randbelow(len(savers))]
                self.temp_card, self.temp_amount = c, conclave[0]
                self.conclave_used = True
                self.events["conclave"] = True
                self.say(f"  Conclave of Ents gives {self.describe(c)} +{conclave[0]} guardian")
                return False
        for v in self.active_vales():
            vale = self.cs.vales[v.vale_id]
            if vale.ability != "spoil_save_growth":
                continue
            if self.decay_showing() - vale.amount < SPOIL_AT:
                self.vales.remove(v)                      # back to the box
                self.arbor_growth += vale.amount
                self.events["arbor"] = True
                self.say(f"  discards {vale.name} for +{vale.amount} growth")
                return False
            break                                         # only the first Arbor is tried
        return True

    def conclave_savers(self, amount: int) -> list[int]:
        """Showing cards (field in order, then on-deck) with an active
        ``ongoing_growth_per_guardian`` that ``amount`` temp guardians would bring
        below 4 decay showing (§4.4 step 2); the temp guardians are left unset."""
        savers = []
        for c in self.showing():
            if not any(k == "ongoing_growth_per_guardian" for k, _ in self.abilities(c)):
                continue
            self.temp_card, self.temp_amount = c, amount
            if self.decay_showing() < SPOIL_AT:
                savers.append(c)
            self.temp_card, self.temp_amount = -1, 0
        return savers

    # -- Planting (engine-spec §4.2, §6.1) ------------------------------------
    def wants_push(self, policy) -> bool:
        """The policy's push rule (engine-spec §6.1): "risk" (the exact risk that
        the next reveal spoils), "lookahead" (expected gain against expected loss) or
        "value" (the expected value of the Harvest after one more push against its
        value now)."""
        if self.on_deck < 0:
            return False                                   # every card is in the field
        if policy is None:
            return True
        if policy.mana_target > 0 and self.field_mana_symbols() >= policy.mana_target:
            return False
        pool = self.deck if self.deck else self.discard
        if not pool:
            return True
        s = self.decay_showing()
        bad = sum(1 for c in pool if self.net(c) >= SPOIL_AT - s)
        if policy.push_rule == "lookahead":
            n, _, v_on_deck, v_field, v_token = self.lookahead_terms(policy)
            return (1000 * (n - bad) * v_on_deck
                    >= policy.lookahead_caution_permille * bad * (v_field - v_token))
        if policy.push_rule == "value":
            n, n2, total, h0 = self.value_terms(policy)
            d2 = max(n2, 1)
            stop = h0 - policy.carry_decay_cost * self.net(self.on_deck)
            return (1000 * (total + policy.push_bonus * n * d2)
                    >= policy.lookahead_caution_permille * n * d2 * stop)
        return bad * 1000 <= policy.push_risk_permille * len(pool)

    def value_terms(self, policy) -> tuple[int, int, int, int]:
        """The integers of the value rule (engine-spec §6.1), for an on-deck card c:
        (n, n2, total, H0).  ``n`` cards in the pool the next reveal r comes from, ``n2``
        in the pool of the reveal after it; H0 is the value of a Harvest now, H1 with c
        played, H2(r) with c and r played; with d2 = max(n2, 1), b = push_bonus and
        k = carry_decay_cost (per net decay of the card left on deck), ``total`` = Σ
        over the reveals r that do not spoil of max(d2 × (H1 − k net(r)), good2(r) ×
        H2(r) − k × (net of the next pool) + b × d2), good2(r) the cards of the next
        pool that would not spoil after r (n2 = 0: H2(r) + b), minus Σ over the
        spoiling reveals of d2 × k × net(r) (r stays on deck)."""
        if self.harvest_value is None:
            raise ValueError('push_rule "value" needs the game\'s offer: a player of a '
                             "game (reference/game.py sets harvest_value)")
        pool = self.deck if self.deck else self.discard
        n = len(pool)
        thr = SPOIL_AT - self.decay_showing()
        c = self.on_deck

        def value(*cards):
            return self.harvest_value(self, policy, list(cards))

        if n > 1:                              # the next pool: the pool less r
            n2, after = n - 1, (lambda j: pool[:j] + pool[j + 1:])
        elif self.deck:                        # r is the deck's last card: the discard pile
            n2, after = len(self.discard), (lambda j: self.discard)
        else:
            n2, after = 0, (lambda j: [])
        h0, h1 = value(), value(c)
        b, k, d2 = policy.push_bonus, policy.carry_decay_cost, max(n2, 1)
        total = 0
        for j, r in enumerate(pool):
            nr = self.net(r)
            if nr >= thr:
                total -= d2 * k * nr           # spoils: no Harvest; r starts the next field
                continue
            h2 = value(c, r)
            if n2 == 0:
                cont = h2                      # nothing left to reveal, nothing on deck
            else:
                nxt = after(j)
                cont = (sum(1 for x in nxt if self.net(x) < thr - nr) * h2
                        - k * sum(self.net(x) for x in nxt))
            cont += b * d2                     # the second push's bonus
            total += max(d2 * (h1 - k * nr), cont)
        return n, n2, total, h0

    def harvest_totals_with(self, cards) -> dict:
        """harvest_totals of the field with ``cards`` played too (no When Played effect;
        nothing changes)."""
        field = self.field
        self.field = field + list(cards)
        try:
            return self.harvest_totals()
        finally:
            self.field = field

    def card_value(self, policy, c: int) -> int:
        """A card's printed Harvest symbols under the policy's weights (§6.1):
        w_mana × mana + w_spirit × (animal + forest + sky + wild) + w_harvest_vp × VP."""
        card = self.cards[c]
        spirits = sum(sym.slot_sum(self.cs, card, s) for s in ("animal", "forest", "sky", "wild"))
        return (policy.w_mana * sym.slot_sum(self.cs, card, "mana") + policy.w_spirit * spirits
                + policy.w_harvest_vp * sym.slot_sum(self.cs, card, "harvest_vp"))

    def lookahead_terms(self, policy) -> tuple[int, int, int, int, int]:
        """The integers of the lookahead rule (engine-spec §6.1), for an on-deck card:
        (n, bad, v_on_deck, v_field, v_token).  ``n`` cards in the pool the next reveal
        comes from, ``bad`` of them spoil; pushing adds ``v_on_deck`` to the field's
        ``v_field`` unless the reveal spoils; spoiling makes the token active, worth
        ``v_token`` = w_mana if it is spent now and the policy spends it ("needed")."""
        pool = self.deck if self.deck else self.discard
        s = self.decay_showing()
        bad = sum(1 for c in pool if self.net(c) >= SPOIL_AT - s)
        v_on_deck = self.card_value(policy, self.on_deck)
        v_field = sum(self.card_value(policy, c) for c in self.field)
        v_token = policy.w_mana if (not self.token_active and policy.token == "needed") else 0
        return len(pool), bad, v_on_deck, v_field, v_token

    def push(self, policy=None, played: int = 0) -> bool:
        """Push once: play the on-deck card, reveal, check spoil.  True if spoiled.
        ``played``: pushes before this one in the Planting."""
        # spec §4.2: Planting and reveal
        c = self.play_on_deck(played)
        self.reveal()
        spoiled = self.check_spoil()
        self.say(f"pushes {self.describe(c)}; on-deck "
                 + (self.describe(self.on_deck) if self.on_deck >= 0 else "none")
                 + f"; decay showing {self.decay_showing()}" + (" -> SPOILS" if spoiled else ""))
        return spoiled

    # -- Prep (engine-spec §4.6) ----------------------------------------------
    def prep(self) -> bool:
        """Prep the next field.  True if the player spoiled during Prep."""
        # spec §4.6: Prep
        self.reset_window()
        self.prep_spoiled = False
        if self.on_deck < 0:
            self.reveal()
        plays = 0
        while self.on_deck >= 0 and plays < MAX_PHASE_PLAYS:   # rules.md I15: a cycle ends
            plays += 1
            self.play_on_deck(plays - 1)
            self.reveal()
            if self.check_spoil():
                self.prep_spoiled = True
                self.skip_harvest = True
                self.token_active = True
                self.spoils += 1
                self.say("spoils during Prep: the next turn skips its Harvest")
                return True
            shown = self.decay_showing() if self.rules.prep_count == "net" else self.gross_showing()
            if shown >= PREP_UNTIL:
                break
        return False

    def setup_field(self) -> bool:
        """Setup step 5 / start of a turn: reveal an on-deck card, then Prep."""
        self.reveal()
        return self.prep()

    # -- Harvest counts (engine-spec §4.3 steps 2-4) ----------------------------
    def harvest_totals(self) -> dict:
        """Mana, spirits and VP a Harvest would count now (no purchases)."""
        cs, n = self.cs, len(self.field)
        mana = sum(sym.slot_sum(cs, self.cards[c], "mana") for c in self.field)
        vp = sum(sym.slot_sum(cs, self.cards[c], "harvest_vp") for c in self.field)
        penalty = []
        for c in self.field:
            for kind, amount in self.abilities(c):
                if kind == "harvest_mana_per_guardian":
                    mana += amount * self.guardians(c)
                elif kind == "harvest_mana_per_other_card":
                    mana += amount * (n - 1)
                elif kind == "harvest_mana_penalty":
                    penalty.append(amount)
                elif kind == "harvest_vp_per_guardian":
                    vp += amount * self.guardians(c)
                elif kind == "harvest_vp_per_cards":
                    vp += n // amount
        mana += sum(self.vale_amounts("harvest_mana"))
        for p in penalty:                                   # Grassland: not below 0
            mana = max(0, mana - p)
        spirits = {s: sum(sym.slot_sum(cs, self.cards[c], s) for c in self.field)
                   for s in ("animal", "forest", "sky", "wild")}
        for v in self.active_vales():
            vale = cs.vales[v.vale_id]
            if vale.ability == "harvest_spirit":
                spirits[vale.symbol] += vale.amount
        return dict(mana=mana, vp=vp, **spirits)
