"""The readable Mystic Lands reference engine.

It follows docs/mystic-lands-rules.md section by section (the § numbers in the
comments) and docs/mystic-lands-engine-spec.md for every random draw and
every policy decision: integer scores, ties to the lowest index, no
iteration over unordered containers.  A fast engine replays it exactly.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ....rng import GameRng
from .. import cards as C
from ..cards import RESOURCES, CardSet
from ..policy import Policy, policies_for
from ..records import GameRecord, PlayerResult, TurnRecord
from ..rules import Rules
from . import cardmath as M
from .cardmath import NO_ADVANCE, Card
from ..value import adv_features, game_stage, spot_features

MANA, SPIRIT, VP, RAIN = 0, 1, 2, 3
SIMPLE = ("gain", "gain_per_aspect_land", "gain_per_aspect_card")


def advance_score(cs: CardSet, pol: Policy, a: int) -> int:
    """The policy's integer score of Advance ``a`` (spec §6.4)."""
    adv = cs.advances[a]
    ic = adv.icons
    return (pol.w_mana * ic.mana + pol.w_spirit * ic.spirit + pol.w_vp * ic.vp
            + pol.w_end_vp * adv.end_vp + pol.w_cloud * ic.cloud + pol.w_sun * ic.sun
            + pol.w_rain * ic.rain
            + pol.w_aspect * (ic.blue + ic.green + ic.red + ic.yellow + ic.wild)
            + pol.w_effect * sum(C.effect_value(e) for e in adv.effects) + pol.w_cost * adv.cost)


def reward_value(r) -> int:
    """2 mana + 2 spirit + 3 VP + 1 rain (spec §6.5)."""
    return 2 * r[0] + 2 * r[1] + 3 * r[2] + r[3]


@dataclass
class PlayerState:
    index: int
    seat: int
    policy: Policy
    cards: list = field(default_factory=list)      # Card by uid
    deck: list = field(default_factory=list)       # uids, deck[0] = the on-deck card
    discard: list = field(default_factory=list)
    land: list = field(default_factory=list)
    removed: list = field(default_factory=list)    # uids removed from the game
    held: list = field(default_factory=list)       # Advance ids below the board
    mana: int = 0
    spirit: int = 0
    vp: int = 0
    rain: int = 0                                  # Rain tokens held
    cubes: list = field(default_factory=list)      # (space, row) in placement order
    track: dict = field(default_factory=dict)      # space -> position on its track (0 = VP spot)
    druid: int = -1
    druid_hand: list = field(default_factory=list)  # the Druid Advances dealt to it (§1.2)
    druid_shown: bool = False      # its Druid card was face up (on deck, Land, Discard) at
    #                                a Dusk: the other players know its Druid Advance
    # per turn
    placed: int = 0                                # Rain tokens placed this Night
    withered: bool = False
    restrict: int = -1                             # the only resource a Withered Day may gain
    wild: int = -1                                 # the aspect the wild icons are this turn
    bought: int = 0
    enchanted: int = 0
    used_nod: list = field(default_factory=list)   # spaces whose night_or_day effect was used
    # totals
    withers: int = 0
    turns: int = 0
    mana_total: int = 0
    spirit_total: int = 0
    bonus: int = 0
    acquired: dict = field(default_factory=dict)


class MysticLandsGame:
    """One game: ``MysticLandsGame(cs, players, seed, game_index, policies, rules).play()``."""

    def __init__(self, cs: CardSet, players: int, seed: int, game_index: int = 0,
                 policies=None, rules: Rules | None = None, log: bool = True):
        C.validate_playable(cs, players, rules)
        self.cs, self.n = cs, players
        self.rules = rules or Rules()
        self.rng = GameRng(seed, game_index)
        self.pols = policies_for(players, policies)
        self.logging = log
        self.log: list[str] = []
        self.record = GameRecord(seed=self.rng.seed, game_index=game_index, players=players,
                                 starting_player=-1, rounds=0, truncated=False)
        self.round = 0
        self.trigger = -1
        self.in_day = False
        self._rec: TurnRecord | None = None
        self._setup()

    # -- helpers ------------------------------------------------------------------
    def say(self, text: str) -> None:
        if self.logging:
            self.log.append(text)

    def space_rows(self, s: int):
        sp = self.cs.map.spaces[s]
        return sp.rows if sp.kind == "small" else self.cs.vales[self.layout[s]].rows

    def space_cost(self, s: int) -> int:
        sp = self.cs.map.spaces[s]
        return sp.cost if sp.kind == "small" else self.cs.vales[self.layout[s]].cost

    def space_vale(self, s: int):
        v = self.layout[s]
        return self.cs.vales[v] if v >= 0 else None

    def space_name(self, s: int) -> str:
        sp = self.cs.map.spaces[s]
        return sp.name if sp.kind == "small" else f"{self.cs.vales[self.layout[s]].name} ({sp.id})"

    def adv_name(self, a: int) -> str:
        return self.cs.advances[a].name

    def gain(self, p: PlayerState, res: int, amount: int) -> int:
        """Gain ``amount`` of resource ``res``: a Withered Day gains only its chosen
        resource (§5.2, M7); Rain tokens come from the supply (M3)."""
        if amount <= 0:
            return 0
        if res == RAIN:
            amount = min(amount, self.rain_supply)
            self.rain_supply -= amount
            p.rain += amount
            return amount
        if p.restrict >= 0 and res != p.restrict:
            return 0
        if res == MANA:
            p.mana += amount
            p.mana_total += amount
        elif res == SPIRIT:
            p.spirit += amount
            p.spirit_total += amount
        else:
            p.vp += amount
            if self.in_day:
                self.check_growth(p, self._rec)
        return amount

    def gain_reward(self, p: PlayerState, reward) -> None:
        for res in (MANA, SPIRIT, VP, RAIN):
            self.gain(p, res, reward[res])

    def land_suns(self, p: PlayerState) -> int:
        return sum(M.exposed_suns(self.cs, p.cards[u]) for u in p.land)

    def ondeck_suns(self, p: PlayerState) -> int:
        return M.exposed_suns(self.cs, p.cards[p.deck[0]]) if p.deck else 0

    def wither_limit(self, p: PlayerState, extra_card: int = -1) -> int:
        """§3.5: the suns that Wither, plus the ongoing wither_limit effects of the Land
        (and of ``extra_card``, the on-deck card a Grow would play); with
        ``Rules.ongoing_everywhere`` of every card the player has (M17)."""
        lim = self.rules.wither_suns
        if self.rules.ongoing_everywhere:
            uids = self.player_cards(p)
        else:
            uids = p.land + ([extra_card] if extra_card >= 0 else [])
        for u in uids:
            for a in p.cards[u].advances():
                for e in self.cs.advances[a].effects:
                    if e.kind == "wither_limit":
                        lim += e.amount
        return lim

    def card_effects(self, p: PlayerState, u: int):
        """(Advance id, effect) of card ``u`` in slot order, then effect order."""
        out = []
        for a in p.cards[u].slots:
            if a != NO_ADVANCE:
                for e in self.cs.advances[a].effects:
                    out.append((a, e))
        return out

    def owned_spaces(self, p: PlayerState) -> list[int]:
        return sorted(s for s, _ in p.cubes)

    def reveal_ondeck(self, p: PlayerState) -> None:
        """§3.2 Reveal: with an empty deck, shuffle the Discard to form a new deck."""
        if not p.deck and p.discard:
            p.deck = p.discard
            p.discard = []
            self.rng.shuffle(p.deck)
            self.say(f"    P{p.index} shuffles {len(p.deck)} cards into a new deck")

    def wild_for(self, p: PlayerState, aspect: int) -> int:
        """M6: the wild icons take the aspect of the first effect that counts one."""
        if p.wild < 0:
            p.wild = aspect
        return p.wild

    # -- §1 setup -----------------------------------------------------------------
    def _setup(self) -> None:
        cs, rng, n = self.cs, self.rng, self.n
        self.start = rng.randbelow(n)                                    # spec §2 draw 1
        self.record.starting_player = self.start
        self.players = [PlayerState(index=i, seat=(i - self.start) % n, policy=self.pols[i])
                        for i in range(n)]
        vdecks = {lvl: cs.vale_deck_list(lvl) for lvl in (1, 2)}
        rng.shuffle(vdecks[1])                                           # draw 2
        rng.shuffle(vdecks[2])                                           # draw 3
        self.layout = []
        for sp in cs.map.spaces:                                         # §1.1
            lvl = {"I": 1, "II": 2}.get(sp.kind)
            self.layout.append(vdecks[lvl].pop(0) if lvl else -1)
        self.record.layout = tuple(self.layout)
        nsp = len(cs.map.spaces)
        self.revealed = [sp.kind != "I" and sp.kind != "II" for sp in cs.map.spaces]
        for j in cs.map.spaces[cs.map.start].links:
            self.revealed[j] = True
        self.row_owner = [[-1] * len(self.space_rows(s)) if s != cs.map.start else []
                          for s in range(nsp)]
        self.on_space = [[] for _ in range(nsp)]                         # players with a cube
        self.track_occ = [[[] for _ in (self.space_vale(s).track if self.space_vale(s) else ())]
                          for s in range(nsp)]
        druids = cs.deck_list(0)
        rng.shuffle(druids)                                              # draw 4
        order = [(self.start + k) % n for k in range(n)]                 # seat order
        dealt = {}
        for i in order:                                                  # §1.2
            dealt[i] = [druids.pop(0) for _ in range(self.rules.druid_deal)]
        for i in order:
            p = self.players[i]
            hand = dealt[i]
            scores = [self.adv_score(p, a) for a in hand]
            k = scores.index(max(scores))
            p.druid = hand[k]
            p.druid_hand = list(hand)
            druids.extend(a for j, a in enumerate(hand) if j != k)
        rng.shuffle(druids)                                              # draw 5
        self.druid_deck = druids
        self.adv_deck = {lvl: cs.deck_list(lvl) for lvl in (1, 2)}
        rng.shuffle(self.adv_deck[1])                                    # draw 6
        rng.shuffle(self.adv_deck[2])                                    # draw 7
        self.market = {1: [self.draw_adv(1) for _ in range(self.rules.market_l1)],
                       2: [self.draw_adv(2) for _ in range(self.rules.market_l2)]}  # §1.3
        self.growths = 0
        self.rain_supply = self.rules.rain_supply
        for i in order:                                                  # §1.4
            p = self.players[i]
            for uid, base in enumerate(cs.starting_deck()):
                card = Card(uid=uid, base=base)
                if cs.starting[base].druid:
                    card.slots[cs.advances[p.druid].position] = p.druid
                p.cards.append(card)
            p.deck = list(range(len(p.cards)))
            rng.shuffle(p.deck)                                          # draws 8.. (seat order)
            p.mana = self.rules.seat_mana[p.seat]
            p.spirit = self.rules.seat_spirit[p.seat]
        self.say(f"Setup: {n} players, P{self.start} starts; map {cs.map.name}")
        for s, v in enumerate(self.layout):
            if v >= 0:
                self.say(f"  {cs.map.spaces[s].id}: {cs.vales[v].name}"
                         + ("" if self.revealed[s] else " (facedown)"))
        for i in order:
            p = self.players[i]
            self.say(f"  P{i} (seat {p.seat + 1}, {p.policy.name}): Druid Advance "
                     f"{self.adv_name(p.druid)}; {p.mana} mana, {p.spirit} spirit")
        self.say("  Market: " + self.market_text())

    def place_vale(self, s: int, v: int) -> None:
        """Put Vale ``v`` on map space ``s`` (setup, and scenario tests)."""
        self.layout[s] = v
        self.record.layout = tuple(self.layout)
        self.row_owner[s] = [-1] * len(self.cs.vales[v].rows)
        self.track_occ[s] = [[] for _ in self.cs.vales[v].track]

    def draw_adv(self, level: int) -> int:
        deck = self.adv_deck[level]
        return deck.pop(0) if deck else NO_ADVANCE

    def market_text(self) -> str:
        parts = [("-" if a < 0 else self.adv_name(a)) for a in self.market[1]]
        parts2 = [("-" if a < 0 else self.adv_name(a)) for a in self.market[2]]
        return "L1 [" + ", ".join(parts) + "]  L2 [" + ", ".join(parts2) + "]"

    # -- the game loop (§7) ---------------------------------------------------------
    def play(self) -> GameRecord:
        # spec §3: turns, rounds, the end trigger and truncation
        n, k, final_left = self.n, 0, None
        while True:
            self.round = k // n + 1
            if final_left is None and self.round > self.rules.max_rounds:
                self.record.truncated = True
                self.say(f"Truncated after {self.rules.max_rounds} rounds")
                break
            i = (self.start + k) % n
            triggered_before = self.trigger
            self.turn(self.players[i])
            self.record.rounds = self.round
            k += 1
            if final_left is not None:
                final_left -= 1
            elif self.trigger >= 0 and triggered_before < 0:
                final_left = n - 1
            if final_left == 0:
                break
        self.finish()
        self.record.log = self.log
        return self.record

    def turn(self, p: PlayerState) -> None:
        p.turns += 1
        rec = TurnRecord(round=self.round, player=p.index, turn=p.turns)
        self._rec = rec
        self.say(f"Round {self.round}, P{p.index} ({p.policy.name}) "
                 f"mana {p.mana} spirit {p.spirit} VP {p.vp} rain {p.rain}")
        self.night(p, rec)
        self.day(p, rec)
        self.dusk(p, rec)
        rec.mana, rec.spirit, rec.vp, rec.rain = p.mana, p.spirit, p.vp, p.rain
        rec.held, rec.cubes = len(p.held), len(p.cubes)
        rec.deck_size, rec.discard_size = len(p.deck), len(p.discard)
        self.record.turns.append(rec)

    # -- §3 Night ---------------------------------------------------------------------
    def night(self, p: PlayerState, rec: TurnRecord) -> None:
        # spec N4: the Night: grow, reveal, rain, wither
        p.placed, p.withered, p.restrict, p.wild = 0, False, -1, -1
        p.bought, p.enchanted, p.used_nod = 0, 0, []
        # §3.1 Vale night effects, and night_or_day gains, at the start of the Night
        for s in self.owned_spaces(p):
            v = self.space_vale(s)
            for e in (v.effects if v else ()):
                if e.kind == "gain" and e.timing in ("night", "night_or_day"):
                    self.gain(p, RESOURCES.index(e.resource), e.amount)
                    if e.timing == "night_or_day":
                        p.used_nod.append(s)
        self.reveal_ondeck(p)
        end, suns = "rested", 0
        while True:
            if not p.deck:                                           # §3.6 out of cards
                rec.out_of_cards, end = True, "ran out of cards"
                break
            if rec.grows and suns == self.wither_limit(p) - 1:
                rec.overgrows += 1                                   # Overgrow (§3.6)
            u = p.deck.pop(0)                                        # §3.2 Grow
            p.land.append(u)
            rec.grows += 1
            self.resolve_played(p, u)
            self.reveal_ondeck(p)                                    # §3.3 Reveal
            self.resolve_night(p, u)                                 # §3.1: not before it
            if not p.deck:
                rec.out_of_cards, end = True, "ran out of cards"
                break
            limit = self.wither_limit(p)
            suns = self.land_suns(p) + self.ondeck_suns(p) - p.placed
            while suns >= limit and p.rain > 0 and p.policy.rain == "needed":   # §3.4
                p.rain -= 1
                p.placed += 1
                suns -= 1
            if suns >= limit:                                        # §3.5 Wither
                p.withered = True
                p.withers += 1
                rec.withered, end = True, "WITHERED"
                break
            if not self.decide_grow(p, suns):                        # §3.6 Rest or Grow
                self.night_swaps(p)
                break
        rec.rain_placed = p.placed
        self.say(f"  Night: {rec.grows} cards, {end}; suns {self.land_suns(p)} in Land"
                 f"{f', {p.placed} rain placed' if p.placed else ''}")

    def decide_grow(self, p: PlayerState, suns: int) -> bool:
        """Spec §6.1: Grow while bad * 1000 <= rest_risk_permille * pool."""
        ondeck = p.deck[0]
        limit = self.wither_limit(p, extra_card=ondeck)
        tokens = p.rain if p.policy.rain == "needed" else 0
        need = limit - suns + tokens
        pool = p.deck[1:] if len(p.deck) >= 2 else p.discard
        if not pool:
            return True
        bad = sum(1 for u in pool if M.exposed_suns(self.cs, p.cards[u]) >= need)
        return bad * 1000 <= p.policy.rest_risk_permille * len(pool)

    def resolve_played(self, p: PlayerState, u: int) -> None:
        """When-played effects of a card entering the Land (§3.2)."""
        for a, e in self.card_effects(p, u):
            if e.timing == "played" and e.kind in SIMPLE:
                self.simple_effect(p, u, e)

    def resolve_night(self, p: PlayerState, u: int) -> None:
        """Night effects of a card that entered the Land this Night, once the next
        on-deck card is revealed (§3.1: never between playing a card and revealing the
        next; also when there is none to reveal, before the Night ends, M22)."""
        for a, e in self.card_effects(p, u):
            if e.timing == "night" and e.kind in SIMPLE:
                self.simple_effect(p, u, e)

    def simple_effect(self, p: PlayerState, u: int, e) -> None:
        """gain / gain_per_aspect_land / gain_per_aspect_card."""
        res = RESOURCES.index(e.resource)
        if e.kind == "gain":
            self.gain(p, res, e.amount)
        elif e.kind == "gain_per_aspect_land":
            asp = C.ASPECTS.index(e.aspect)
            w = self.wild_for(p, asp)
            cnt = sum(1 for x in p.land if M.shows(self.cs, p.cards[x], asp, w))
            self.gain(p, res, e.amount * cnt)
        elif e.kind == "gain_per_aspect_card":
            asp = C.ASPECTS.index(e.aspect)
            w = self.wild_for(p, asp)
            self.gain(p, res, e.amount * M.advances_showing(self.cs, p.cards[u], asp, w))

    def night_swaps(self, p: PlayerState) -> None:
        """Turtle Nesting Ground (§9): on Resting, swap the lowest-value other Land
        card with the on-deck card when that is worth more (spec §6.8)."""
        for u in list(p.land):
            for a, e in self.card_effects(p, u):
                if e.kind != "swap_ondeck" or not p.deck or u not in p.land:
                    continue
                cands = [(M.value(self.cs, p.cards[x]), k) for k, x in enumerate(p.land) if x != u]
                if not cands:
                    continue
                low, k = min(cands)
                top = p.deck[0]
                if M.value(self.cs, p.cards[top]) > low:
                    out = p.land[k]
                    p.land[k], p.deck[0] = top, out
                    self.say(f"    swaps card {out} with on-deck card {top}")
                    self.resolve_played(p, top)
                    self.resolve_night(p, top)

    # -- §4-5 Day -------------------------------------------------------------------------
    def day(self, p: PlayerState, rec: TurnRecord) -> None:
        # spec D5: the Day effects of the Land
        self.rain_supply += p.rain + p.placed                        # §5.1 discard Rain tokens
        p.rain, p.placed = 0, 0
        if p.withered:                                               # §5.2 choose
            p.restrict = self.wither_choice(p)
            rec.chosen = RESOURCES[p.restrict]
        m = s = v = 0                                                # §5.3 gain
        for u in p.land:
            cm, cs_, cv = M.resources(self.cs, p.cards[u])
            m, s, v = m + cm, s + cs_, v + cv
        self.in_day = True
        self.check_growth(p, rec)                                    # §5.7 (VP from before)
        rec.mana_gain = self.gain(p, MANA, m)
        rec.spirit_gain = self.gain(p, SPIRIT, s)
        rec.vp_gain = self.gain(p, VP, v)
        self.say(f"  Day: gains {rec.mana_gain} mana, {rec.spirit_gain} spirit, {rec.vp_gain} VP"
                 + (f" (Withered: {rec.chosen} only)" if p.withered else ""))
        k = 0                                                        # §5.4 day effects
        while k < len(p.land):
            u = p.land[k]
            for a, e in self.card_effects(p, u):
                if e.timing != "day":
                    continue
                if e.kind in SIMPLE:
                    self.simple_effect(p, u, e)
                elif e.kind == "play_ondeck":
                    self.play_ondeck(p, e)
                elif e.kind == "remove_card":
                    self.remove_card(p, rec)
                elif e.kind == "sleeve_market":
                    self.sleeve_market(p, e.need, rec)
            k += 1
        for sp in self.owned_spaces(p):
            vale = self.space_vale(sp)
            for e in (vale.effects if vale else ()):
                if e.kind == "gain" and e.timing in ("day", "night_or_day") and sp not in p.used_nod:
                    self.gain(p, RESOURCES.index(e.resource), e.amount)
                    if e.timing == "night_or_day":
                        p.used_nod.append(sp)
        while p.enchanted < self.rules.max_enchants:                 # §5.6 enchant
            pick = self.pick_enchant(p)
            if pick is None:
                break
            self.enchant(p, *pick, rec)
            p.enchanted += 1
        self.activations(p, rec)                                     # §6.5 activation
        for u in list(p.land):                                       # refresh effects
            for a, e in self.card_effects(p, u):
                if e.timing == "day" and e.kind == "refresh" and u in p.land:
                    self.refresh(p, rec)
        for sp in self.owned_spaces(p):
            vale = self.space_vale(sp)
            for e in (vale.effects if vale else ()):
                if e.kind == "refresh" and e.timing in ("day", "night_or_day"):
                    self.refresh(p, rec)
        counts = self.rules.effect_enchants_count                    # M18
        for u in list(p.land):                                       # Sun Priestess
            for a, e in self.card_effects(p, u):
                if e.kind == "enchant_discount" and u in p.land:
                    if counts and p.enchanted >= self.rules.max_enchants:
                        continue
                    pick = self.choose_enchant(p, discount=e.amount, max_printed=e.need)
                    if pick is not None:
                        self.enchant(p, *pick, rec)
                        if counts:
                            p.enchanted += 1
        self.buy(p, rec)                                             # §5.5 buy
        self.conversions(p)                                          # spec §6.7
        self.in_day = False
        if self.trigger < 0 and (p.vp >= self.rules.end_vp
                                 or len(p.cubes) >= self.rules.end_cubes):   # §7.1
            self.trigger = p.index
            rec.triggered = True
            self.say(f"  P{p.index} triggers the end ({p.vp} VP, {len(p.cubes)} cubes)")
        p.restrict = -1

    def wither_choice(self, p: PlayerState) -> int:
        """Spec §6.3: a fixed resource, or the one whose left-edge gain scores most."""
        # spec D2: a Withered Day: the wither choice (spec §6.3)
        pol = p.policy
        if pol.wither_choice != "best":
            return RESOURCES.index(pol.wither_choice)
        tot = [0, 0, 0]
        for u in p.land:
            for r, x in enumerate(M.resources(self.cs, p.cards[u])):
                tot[r] += x
        scores = [pol.w_mana * tot[0], pol.w_spirit * tot[1], pol.w_vp * tot[2]]
        return scores.index(max(scores))

    def check_growth(self, p: PlayerState, rec: TurnRecord) -> None:
        """§5.7: the first player to have 5 (then 15) VP in a Day phase grows the Market."""
        # spec D-growth: Market growth
        thr = self.rules.market_growth_vp
        while self.growths < len(thr) and p.vp >= thr[self.growths]:
            self.growths += 1
            rec.growths += 1
            l1 = self.market[1]
            if l1:
                scores = [(self.adv_score(p, a) if a >= 0 else -10**9, k)
                          for k, a in enumerate(l1)]
                # the least valued Level 1 Advance (an empty slot first); ties: first slot
                k = min(scores)[1]
                gone = l1.pop(k)
                gone_txt = self.adv_name(gone) if gone >= 0 else "an empty slot"
            else:
                gone_txt = "nothing"
            self.market[2].append(self.draw_adv(2))
            self.say(f"    Market grows ({p.vp} VP): removes {gone_txt}; "
                     + self.market_text())

    def play_ondeck(self, p: PlayerState, e) -> None:
        """Hibiscus Dryad (§9): with `need` cards showing the aspect, play the on-deck card."""
        # spec §6.9: Hibiscus Dryad
        asp = C.ASPECTS.index(e.aspect)
        w = self.wild_for(p, asp)
        if not p.deck or sum(1 for x in p.land if M.shows(self.cs, p.cards[x], asp, w)) < e.need:
            return
        worth = M.value(self.cs, p.cards[p.deck[0]])
        if worth < p.policy.dryad_min_value:                        # M19: declined
            self.say(f"    does not play on-deck card {p.deck[0]} (worth {worth})")
            return
        u = p.deck.pop(0)
        p.land.append(u)
        m, s, v = M.resources(self.cs, p.cards[u])
        self.gain(p, MANA, m)
        self.gain(p, SPIRIT, s)
        self.gain(p, VP, v)
        self.resolve_played(p, u)
        self.reveal_ondeck(p)
        self.say(f"    plays card {u} from the deck")

    # -- enchanting (§6) --------------------------------------------------------------
    def legal_spots(self, p: PlayerState):
        """(space, row, cost) a player may enchant now (§6.1-6.3), map order."""
        if len(p.cubes) >= self.rules.cubes:
            return []
        mine = {s for s, _ in p.cubes}
        out = []
        for s, sp in enumerate(self.cs.map.spaces):
            if sp.kind == "start" or s in mine:
                continue
            if not any((j == self.cs.map.start and sp.kind != "small") or j in mine
                       for j in sp.links):
                continue                                            # §6.2: no path
            others = sum(1 for q in self.on_space[s] if q != p.index)
            cost = max(0, self.space_cost(s) - others)
            for r in range(len(self.space_rows(s))):
                if self.row_owner[s][r] < 0:
                    out.append((s, r, cost))
        return out

    def stage(self, policy: Policy) -> int:
        """The stage a value player scores at (0 for a scripted policy)."""
        # spec §6.14: the stage of a value player
        return game_stage(self.rules, [q.vp for q in self.players],
                          [len(q.cubes) for q in self.players], policy.value_stages)

    def adv_score(self, p: PlayerState, a: int) -> int:
        """p's score of Advance a: its policy's (spec §6.4), a value player's value at
        the stage now (spec §6.14)."""
        if p.policy.value_stages:
            w = p.policy.value_adv[self.stage(p.policy)]
            return sum(x * y for x, y in zip(w, adv_features(self.cs.advances[a])))
        return advance_score(self.cs, p.policy, a)

    def spot_score(self, p: PlayerState, s: int, r: int, cost: int) -> int:
        pol = p.policy
        if pol.value_stages:                       # spec §6.14: its value, no cost term
            w = pol.value_vale[self.stage(pol)]
            return sum(x * y for x, y in zip(w, spot_features(self.cs, self.layout, s, r)))
        row = self.space_rows(s)[r]
        vale = self.space_vale(s)
        reward = [a + b for a, b in zip(row.reward(), self.cs.map.spaces[s].reward(r))]
        has_effect = 1 if vale and (row.activation or any(
            e.timing not in ("activation",) for e in vale.effects)) else 0
        return (pol.w_vale_vp * row.vp + pol.w_vale_reward * reward_value(reward)
                + pol.w_vale_effect * has_effect + pol.w_vale_cost * cost)

    def spot_name(self, s: int) -> str:
        sp = self.cs.map.spaces[s]
        return sp.name if sp.kind == "small" else self.cs.vales[self.layout[s]].name

    def choose_enchant(self, p: PlayerState, discount: int, max_printed: int):
        """Spec §6.5: a rule bot's Vale rule first, then the best-scoring spot."""
        cands = []
        for s, r, cost in self.legal_spots(p):
            printed = self.space_cost(s)
            if discount or max_printed < 99:
                if not 1 <= printed <= max_printed:
                    continue
                cost = max(0, cost - discount)
            if cost > p.spirit or self.spot_name(s) in p.policy.never:
                continue
            cands.append((s, r, cost))
        if not cands:
            return None
        for rule in p.policy.rules:
            if not rule.holds(p.mana, self.round, p.vp, 0):
                continue
            if rule.target == "card":
                fit = [c for c in cands if self.spot_name(c[0]) == rule.value]
            elif rule.target == "vale":
                fit = cands
            else:
                continue
            if fit:
                return max(fit, key=lambda c: (self.spot_score(p, *c), -c[0], -c[1]))
        best = max(cands, key=lambda c: (self.spot_score(p, *c), -c[0], -c[1]))
        if self.spot_score(p, *best) < p.policy.vale_min_score:
            return None
        return best

    def pick_enchant(self, p: PlayerState):
        """An enchantment step of the Day (§5.6; spec D7): the policy's pick, or None.
        (A search player overrides it, docs/search.md.)"""
        return self.policy_enchant(p)

    def policy_enchant(self, p: PlayerState):
        """The policy's pick of a D7 step (spec §6.5).  With the rule option
        ``effect_enchants_count`` (M18) None when the slots left are kept for the Sun
        Priestesses of the Land: when they are no more than the Priestess effects whose
        own pick (§6.5 with her discount) scores at least as much as this one, both
        scored at the cost a normal enchantment pays (so her spot is judged as a spot,
        whatever the policy's weight of the cost: the same spot qualifies)."""
        pick = self.choose_enchant(p, discount=0, max_printed=99)
        if pick is None or not self.rules.effect_enchants_count:
            return pick
        score, waiting = self.spot_score(p, *pick), 0
        for u in p.land:
            for a, e in self.card_effects(p, u):
                if e.kind == "enchant_discount":
                    hers = self.choose_enchant(p, discount=e.amount, max_printed=e.need)
                    if hers is None:
                        continue
                    full = max(0, self.space_cost(hers[0]) - len(self.on_space[hers[0]]))
                    if self.spot_score(p, hers[0], hers[1], full) >= score:
                        waiting += 1
        return None if self.rules.max_enchants - p.enchanted <= waiting else pick

    def enchant(self, p: PlayerState, s: int, r: int, cost: int, rec: TurnRecord) -> None:
        """§6: pay, place the cube, gain the spot's rewards, reveal connected Vales."""
        # spec §5: enchanting and moving a cube
        p.spirit -= cost
        self.row_owner[s][r] = p.index
        self.on_space[s].append(p.index)
        p.cubes.append((s, r))
        row = self.space_rows(s)[r]
        if row.activation:
            p.track[s] = 0
        self.gain_reward(p, row.reward())
        self.gain_reward(p, self.cs.map.spaces[s].reward(r))
        newly = [j for j in self.cs.map.spaces[s].links if not self.revealed[j]]
        for j in newly:
            self.revealed[j] = True
        rec.enchanted = rec.enchanted + ((s, r),)
        self.say(f"    enchants {self.space_name(s)} row {r + 1} for {cost} spirit"
                 + (f"; reveals {', '.join(self.space_name(j) for j in newly)}" if newly else ""))
        vale = self.space_vale(s)
        for e in (vale.effects if vale else ()):
            if e.timing == "immediate":
                self.vale_effect(p, e, rec)

    def activations(self, p: PlayerState, rec: TurnRecord) -> None:
        """§6.5: each cube on an activation row that has not moved moves onto square 1."""
        # spec D8: activations
        for s, r in list(p.cubes):
            if s in p.track and p.track[s] == 0:
                if any(q != p.index for q in self.track_occ[s][0]):
                    continue                                        # blocked (§6.6)
                self.move_cube(p, s, rec)

    def move_cube(self, p: PlayerState, s: int, rec: TurnRecord) -> None:
        pos = p.track[s]
        if pos > 0:
            self.track_occ[s][pos - 1].remove(p.index)
        self.track_occ[s][pos].append(p.index)
        p.track[s] = pos + 1
        sq = self.space_vale(s).track[pos]
        self.say(f"    activates {self.space_name(s)} square {pos + 1}")
        self.gain_reward(p, sq.reward())
        if sq.effect:
            for e in self.space_vale(s).effects:
                if e.timing == "activation":
                    self.vale_effect(p, e, rec)

    def refresh(self, p: PlayerState, rec: TurnRecord) -> None:
        """Ent Guardian, Sequoia Forest (§9): move the cube whose next square is worth
        most one square right (it may share squares), resolving it."""
        # spec §6.12: refresh
        best = None
        for s, r in p.cubes:
            if s not in p.track:
                continue
            track = self.space_vale(s).track
            pos = p.track[s]
            if pos >= len(track):
                continue
            sq = track[pos]
            val = reward_value(sq.reward()) + (6 if sq.effect else 0)
            if best is None or val > best[0]:
                best = (val, s)
        if best is not None:
            self.move_cube(p, best[1], rec)

    def vale_effect(self, p: PlayerState, e, rec: TurnRecord) -> None:
        if e.kind == "gain":
            self.gain(p, RESOURCES.index(e.resource), e.amount)
        elif e.kind == "remove_card":
            self.remove_card(p, rec)
        elif e.kind == "sleeve_market":
            self.sleeve_market(p, e.need, rec)
        elif e.kind == "refresh":
            self.refresh(p, rec)
        elif e.kind == "convert":
            self.convert(p, e, repeat=False)

    def remove_card(self, p: PlayerState, rec: TurnRecord) -> None:
        """Grasping Vines (§9): remove the Land card without Advances of least
        value - 4 x uncovered suns, if below the policy's remove_below."""
        # spec §6.10: Grasping Vines
        cands = [(M.value(self.cs, p.cards[u]) - 4 * M.exposed_suns(self.cs, p.cards[u]), k)
                 for k, u in enumerate(p.land) if not p.cards[u].advances()]
        if not cands:
            return
        val, k = min(cands)
        if val < p.policy.remove_below:
            u = p.land.pop(k)
            p.removed.append(u)
            rec.removed = rec.removed + (u,)
            self.say(f"    removes card {u} ({self.cs.starting[p.cards[u].base].name})")

    def sleeve_market(self, p: PlayerState, level: int, rec: TurnRecord) -> None:
        """Satyr Home (§9): gain the best Market Advance of ``level`` that fits a Land
        card and sleeve it now; its day effects resolve, its when-played ones do not."""
        # spec §6.11: Satyr Home
        slots = self.market[level]
        best = None
        for k, a in enumerate(slots):
            if a < 0 or self.adv_name(a) in p.policy.never:
                continue
            target = self.best_target(p, a)
            if target is None:
                continue
            sc = self.adv_score(p, a)
            if best is None or sc > best[0]:
                best = (sc, k, a, target)
        if best is None:
            return
        _, k, a, u = best
        slots[k] = self.draw_adv(level)
        self.acquire(p, a)
        self.sleeve(p, a, u, rec)
        for e in self.cs.advances[a].effects:
            if e.timing == "day" and e.kind in SIMPLE:
                self.simple_effect(p, u, e)

    # -- buying (§5.5) -------------------------------------------------------------------
    def buy(self, p: PlayerState, rec: TurnRecord) -> None:
        # spec D11: buying
        while p.bought < self.rules.max_buys:
            pick = self.choose_buy(p)
            if pick is None:
                break
            level, k = pick
            a = self.market[level][k]
            p.mana -= self.cs.advances[a].cost
            self.market[level][k] = self.draw_adv(level)
            p.held.append(a)
            p.bought += 1
            rec.bought = rec.bought + (a,)
            self.acquire(p, a)
            self.say(f"    buys {self.adv_name(a)} for {self.cs.advances[a].cost} mana")

    def choose_buy(self, p: PlayerState):
        """Spec §6.4: the first rule that applies, else the best score >= min_score.
        Candidates in Market order (level 1 slots, then level 2); ties to the first."""
        cands = []
        for level in (1, 2):
            for k, a in enumerate(self.market[level]):
                if a >= 0 and self.cs.advances[a].cost <= p.mana \
                        and self.adv_name(a) not in p.policy.never:
                    cands.append((level, k, a))
        if not cands:
            return None
        if p.policy.explore_permille > 0:           # exploration: a random candidate
            if self.rng.randbelow(1000) < p.policy.explore_permille:
                c = cands[self.rng.randbelow(len(cands))]
                return c[0], c[1]

        def best(cs_):
            top = None
            for level, k, a in cs_:
                sc = self.adv_score(p, a)
                if top is None or sc > top[0]:
                    top = (sc, level, k)
            return top

        for rule in p.policy.rules:
            if rule.target == "card":
                fit = [c for c in cands if self.adv_name(c[2]) == rule.value]
                owned = p.acquired.get(fit[0][2], 0) if fit else 0
            elif rule.target == "level":
                fit = [c for c in cands if c[0] == int(rule.value)]
                owned = 0
            else:
                continue
            if fit and rule.holds(p.mana, self.round, p.vp, owned):
                top = best(fit)
                return top[1], top[2]
        top = best(cands)
        if top[0] < p.policy.min_score:
            return None
        return top[1], top[2]

    def acquire(self, p: PlayerState, a: int) -> None:
        # spec D-acquire: acquiring an Advance
        p.acquired[a] = p.acquired.get(a, 0) + 1
        for e in self.cs.advances[a].effects:
            if e.timing == "acquire" and e.kind == "gain":
                self.gain(p, RESOURCES.index(e.resource), e.amount)

    def conversions(self, p: PlayerState) -> None:
        """Spec §6.7: convert effects after buying, by the policy's convert mode."""
        for u in p.land:
            for a, e in self.card_effects(p, u):
                if e.kind == "convert" and e.timing in ("day", "day_repeatable"):
                    self.convert(p, e, repeat=e.timing == "day_repeatable")
        for s in self.owned_spaces(p):
            vale = self.space_vale(s)
            for e in (vale.effects if vale else ()):
                if e.kind == "convert" and e.timing in ("day", "night_or_day") \
                        and s not in p.used_nod:
                    if self.convert(p, e, repeat=False) and e.timing == "night_or_day":
                        p.used_nod.append(s)

    def convert(self, p: PlayerState, e, repeat: bool) -> bool:
        mode = p.policy.convert
        pay = RESOURCES.index(e.pay)
        res = RESOURCES.index(e.resource)
        if mode == "never" or (mode == "bought" and not (
                pay == MANA and (p.bought > 0 or p.mana >= p.policy.convert_mana))):
            return False
        if p.restrict >= 0 and res != p.restrict and res != RAIN:
            return False
        done = False
        while [p.mana, p.spirit, p.vp][pay] >= e.cost:
            if pay == MANA:
                p.mana -= e.cost
            elif pay == SPIRIT:
                p.spirit -= e.cost
            else:
                p.vp -= e.cost
            self.gain(p, res, e.amount)
            done = True
            if not repeat:
                break
        if done:
            self.say(f"    converts {e.pay} into {e.resource}")
        return done

    # -- §8 Dusk -------------------------------------------------------------------------------
    def druid_hidden(self, p: PlayerState) -> bool:
        """No player but p has seen p's Druid Advance: its Druid card was never face up
        at a Dusk and is below the on-deck card now (docs/search.md)."""
        if p.druid_shown:
            return False
        uids = [u for u, c in enumerate(p.cards) if self.cs.starting[c.base].druid]
        return bool(uids) and all(u in p.deck[1:] for u in uids)

    def dusk(self, p: PlayerState, rec: TurnRecord) -> None:
        # docs/search.md: the Druid card was seen if it is not below the on-deck card
        # now, before Sun Parrot can put the on-deck card below another; it reaches the
        # Discard only at a Dusk (after this), so a check here misses no sighting
        p.druid_shown = not self.druid_hidden(p)
        # spec K2: the Dusk: sleeving held Advances
        if p.bought:                                                  # §8.1
            p.mana = 0
        order = sorted(range(len(p.held)),                            # §8.2 sleeve
                       key=lambda k: (-self.adv_score(p, p.held[k]), k))
        keep = []
        for k in order:
            a = p.held[k]
            u = self.best_target(p, a)
            if u is None:
                keep.append(k)
            else:
                self.sleeve(p, a, u, rec)
        p.held = [p.held[k] for k in sorted(keep)]
        for u in list(p.land):                                        # §8.3 dusk effects
            for a, e in self.card_effects(p, u):
                if e.timing != "dusk" or u not in p.land:
                    continue
                if e.kind in SIMPLE:
                    self.simple_effect(p, u, e)
                elif e.kind == "convert":
                    self.convert(p, e, repeat=False)
                elif e.kind == "replace_sleeve":
                    self.replace_sleeve(p, rec)
        for u in list(p.land):                                        # Sun Parrot last
            for a, e in self.card_effects(p, u):
                if e.timing == "dusk" and e.kind == "to_ondeck" and u in p.land:
                    worth = M.value(self.cs, p.cards[u])
                    if worth < p.policy.parrot_min_value:            # M19: declined
                        self.say(f"    {self.adv_name(a)}: card {u} (worth {worth}) is discarded")
                        continue
                    p.land.remove(u)
                    p.deck.insert(0, u)
                    self.say(f"    {self.adv_name(a)}: card {u} becomes the on-deck card")
        p.discard.extend(p.land)                                      # §8.4 clean up
        p.land = []
        if rec.triggered:                                             # §7.1 the +5
            p.vp += self.rules.end_bonus
            p.bonus += self.rules.end_bonus
        self.say(f"  Dusk: mana {p.mana} spirit {p.spirit} VP {p.vp} rain {p.rain}"
                 + (f", holds {', '.join(self.adv_name(a) for a in p.held)}" if p.held else ""))

    def best_target(self, p: PlayerState, a: int):
        """Spec §6.6: the Land card where sleeving ``a`` scores
        -4 x (change of uncovered suns) + 2 x (rain covered); ties to the first."""
        best = None
        for u in p.land:
            card = p.cards[u]
            if not M.can_sleeve(self.cs, card, a):
                continue
            before = M.exposed_suns(self.cs, card)
            card.slots[self.cs.advances[a].position] = a
            after = M.exposed_suns(self.cs, card)
            card.slots[self.cs.advances[a].position] = NO_ADVANCE
            sc = -4 * (after - before) + 2 * M.rain_covered(self.cs, card, a)
            if best is None or sc > best[0]:
                best = (sc, u)
        return None if best is None else best[1]

    def sleeve(self, p: PlayerState, a: int, u: int, rec: TurnRecord) -> None:
        card = p.cards[u]
        rain = M.rain_covered(self.cs, card, a)
        card.slots[self.cs.advances[a].position] = a
        got = self.gain(p, RAIN, rain)
        rec.sleeved = rec.sleeved + ((a, u, self.cs.advances[a].position),)
        self.say(f"    sleeves {self.adv_name(a)} on card {u} "
                 f"({self.cs.starting[card.base].name}, {C.POSITIONS[self.cs.advances[a].position]})"
                 + (f", +{got} rain" if got else ""))

    def replace_sleeve(self, p: PlayerState, rec: TurnRecord) -> None:
        """Mangrove Forest (§9): sleeve the best held Advance over an occupied
        position when it scores more than the Advance there (which is removed)."""
        # spec §6.13: Mangrove Forest
        if not p.held:
            return
        scores = [self.adv_score(p, a) for a in p.held]
        k = scores.index(max(scores))
        a = p.held[k]
        pos = self.cs.advances[a].position
        best = None
        for u in p.land:
            card = p.cards[u]
            b = card.slots[pos]
            if b == NO_ADVANCE:
                continue
            card.slots[pos] = NO_ADVANCE
            ok = self.cs.advances[a].icons.sun == 0 or M.exposed_suns(self.cs, card) == 0
            card.slots[pos] = b
            gain = scores[k] - self.adv_score(p, b)
            if ok and gain > 0 and (best is None or gain > best[0]):
                best = (gain, u, b)
        if best is None:
            return
        _, u, b = best
        p.cards[u].slots[pos] = a
        p.held.pop(k)
        rec.sleeved = rec.sleeved + ((a, u, pos),)
        self.say(f"    Mangrove Forest: {self.adv_name(a)} replaces {self.adv_name(b)} on card {u}")

    # -- §7.3 scoring -------------------------------------------------------------------------
    def player_cards(self, p: PlayerState) -> list[int]:
        return p.deck + p.discard + p.land

    def final_parts(self, p: PlayerState) -> tuple[int, int, int]:
        # spec §7: scoring
        cs = self.cs
        adv = sum(cs.advances[a].end_vp for u in self.player_cards(p) for a in p.cards[u].advances())
        if self.rules.held_end_vp:
            adv += sum(cs.advances[a].end_vp for a in p.held)
        vale = sum(self.space_rows(s)[r].vp for s, r in p.cubes)
        eff = 0
        suns = sum(M.exposed_suns(cs, p.cards[u]) for u in self.player_cards(p))
        sources = [cs.advances[a].effects for u in self.player_cards(p)
                   for a in p.cards[u].advances()]
        if self.rules.held_end_vp:
            sources += [cs.advances[a].effects for a in p.held]
        sources += [self.space_vale(s).effects for s in self.owned_spaces(p) if self.space_vale(s)]
        for effects in sources:
            for e in effects:
                if e.kind == "vp_per_sun_all":
                    eff += e.amount * (suns // e.per)
        return adv, vale, eff

    def finish(self) -> None:
        scores = []
        results = []
        for p in self.players:
            adv, vale, eff = self.final_parts(p)
            score = p.vp + adv + vale + eff
            scores.append(score)
            results.append(PlayerResult(
                player=p.index, seat=p.seat, policy=p.policy.name, score=score, track_vp=p.vp,
                bonus_vp=p.bonus, adv_vp=adv, vale_vp=vale, effect_vp=eff, win_share=0.0,
                withers=p.withers, turns=p.turns, mana_total=p.mana_total,
                spirit_total=p.spirit_total, cubes=len(p.cubes),
                triggered_end=p.index == self.trigger,
                acquired=dict(sorted(p.acquired.items())),
                vales=tuple(sorted({self.layout[s] for s, _ in p.cubes if self.layout[s] >= 0})),
                spaces=tuple(sorted(s for s, _ in p.cubes)), druid=p.druid))
        top = max(scores)
        winners = [i for i, s in enumerate(scores) if s == top]          # M10
        for i in winners:
            results[i].win_share = 1.0 / len(winners)
        self.record.results = results
        self.say("End: " + ", ".join(
            f"P{r.player} {r.score} (track {r.track_vp}, Advances {r.adv_vp}, Vales {r.vale_vp}"
            + (f", effects {r.effect_vp}" if r.effect_vp else "") + ")" for r in results))
        self.say("Winner: " + ", ".join(f"P{i}" for i in winners))


def play_reference(cs, players: int, seed: int, game_index: int = 0, policies=None,
                   rules: Rules | None = None, log: bool = True) -> GameRecord:
    """Play game ``game_index`` of master seed ``seed`` with the reference engine."""
    cs = C.load_card_set(cs)
    return MysticLandsGame(cs, players, seed, game_index, policies, rules, log).play()
