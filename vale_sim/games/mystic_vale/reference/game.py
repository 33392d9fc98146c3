"""A whole game of Mystic Vale, readable against the rulebook.

``play_reference`` sets up (RB: Setup), plays rounds of turns (RB: Taking a Turn:
Planting, Harvest, Discard, Prep) until the VP pool is empty at the end of a
round (RB: End of the Game), and scores.  Decisions come from policies as
docs/engine-spec.md §6 specifies, so the fast engine can replay the game.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..cards import CardSet, DECAY_LIMITING, PER_GUARDIAN, POSITIONS
from ..policy import Policy, policies_for
from ..records import GameRecord, PlayerResult, TurnRecord
from vale_sim.rng import GameRng
from ..rules import MAX_PHASE_PLAYS, Rules
from . import symbols as sym
from .player import OwnedVale, Player
from .symbols import Card
from vale_sim.value import stage_of
from ..value import adv_features, vale_features, vp_weight

COMMONS_SLOTS = 9      # 3 face up per level (RB: Setup 2)
VALE_SLOTS = 8         # 4 face up per level (RB: Setup 3)
SPIRITS = ("animal", "forest", "sky", "wild")


@dataclass
class Candidate:
    """An advancement that could be bought now, and where it would be sleeved."""
    kind: int
    slot: int          # commons slot 0-8, or -1 for Fertile Soil
    card: int = -1     # placement: field card and slot position
    pos: int = -1
    cost: int = 0      # effective cost (after Earthchant Chorus)
    chorus: int = -1   # the Chorus card whose discount is used, or -1


def pay(spirits: dict, cost: tuple) -> dict | None:
    """Pay a vale cost (animal, forest, sky, wild) from spirits (engine-spec §6.3).

    Specific costs take matching symbols, the deficit wilds; wild costs take
    the largest remaining specific pile (ties animal, forest, sky), wild last.
    Returns the spirits left, or None if the cost cannot be paid.
    """
    left = dict(spirits)
    for name, need in zip(("animal", "forest", "sky"), cost[:3]):
        use = min(left[name], need)
        left[name] -= use
        left["wild"] -= need - use
        if left["wild"] < 0:
            return None
    for _ in range(cost[3]):
        name = max(("animal", "forest", "sky"), key=lambda s: (left[s], -"afs".index(s[0])))
        if left[name] > 0:
            left[name] -= 1
        elif left["wild"] > 0:
            left["wild"] -= 1
        else:
            return None
    return left


class MysticValeGame:
    """The shared supply, the players and the turn loop."""

    def __init__(self, cs: CardSet, players: int, seed: int, game_index: int = 0,
                 policies=None, rules: Rules | None = None):
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, got {players}")
        self.cs = cs
        self.n = players
        self.rules = rules or Rules()
        self.rng = GameRng(seed, game_index)
        self.policies = policies_for(players, policies)
        self.log: list[str] = []
        self.round = 0
        self.box_vp = 0
        self.record = GameRecord(seed=self.rng.seed, game_index=game_index, players=players,
                                 starting_player=-1, rounds=0, truncated=False,
                                 vp_pool=self.rules.pool_for(players), log=self.log)
        self.resolve_rule_targets()
        self.setup()

    # -- RB: Setup ---------------------------------------------------------------
    def setup(self) -> None:
        # spec §3: setup: commons, vales, Fertile Soil, the starting fields
        # spec §2: the random stream and the order of draws
        cs, rng = self.cs, self.rng
        level1 = [k for k in cs.commons(1) for _ in range(cs.advancements[k].copies)]
        rng.shuffle(level1)                                   # draw order 1
        self.adv_decks = {1: level1[: self.rules.level1_for(self.n)]}
        self.level1_unused = level1[self.rules.level1_for(self.n):]   # out of the game, unseen
        for level in (2, 3):                                  # draw order 2, 3
            deck = [k for k in cs.commons(level) for _ in range(cs.advancements[k].copies)]
            rng.shuffle(deck)
            self.adv_decks[level] = deck
        self.vale_decks = {}
        for level in (1, 2):                                  # draw order 4, 5
            deck = [v for v in cs.vales_of_level(level) for _ in range(cs.vales[v].copies)]
            rng.shuffle(deck)
            self.vale_decks[level] = deck
        self.fertile = {k: cs.advancements[k].copies for k in cs.fertile()}
        self.commons = [-1] * COMMONS_SLOTS
        for s in range(COMMONS_SLOTS):
            self.replenish_commons(s)
        self.vale_row = [-1] * VALE_SLOTS
        for s in range(VALE_SLOTS):
            self.replenish_vale(s)
        self.pool = self.rules.pool_for(self.n)
        start_cards = [Card(list(slots)) for slots in cs.starting_deck()]
        self.players = [Player(cs, start_cards, self.rules, rng, index=p, log=self.log)
                        for p in range(self.n)]
        for pl in self.players:                               # draw order 6
            pl.discard_field_plays = self.policies[pl.index].discard_field_plays
            pl.harvest_value = self.harvest_value             # §6.1 "value" rule
            pl.new_deck()
        self.start = rng.randbelow(self.n)                    # draw order 7
        self.record.starting_player = self.start
        # Seats as text counts them: seat 1 = the starting player (docs/runs.md).
        self.log.append(f"Setup: {self.n} players, VP pool {self.pool}, "
                        f"starting player P{self.start} (mana-token draw); "
                        + ", ".join(f"P{i} (seat {(i - self.start) % self.n + 1}, {p.name})"
                                    for i, p in enumerate(self.policies)))
        for pl in self.players:                               # draw order 8
            pl.setup_field()
            self.log.append(f"P{pl.index} starting field: "
                            + ", ".join(pl.describe(c) for c in pl.field)
                            + f"; on-deck {pl.describe(pl.on_deck)}")
        self.log.append("Commons: " + self.commons_text())
        self.log.append("Vales: " + ", ".join(cs.vales[v].name for v in self.vale_row if v >= 0))

    def commons_text(self) -> str:
        return ", ".join(self.cs.advancements[k].name if k >= 0 else "-" for k in self.commons)

    def replenish_commons(self, slot: int) -> None:
        """RB: Replenish Advancements — same level, falling back to the next level."""
        # spec §5: replenishing commons and vale slots
        for level in range(slot // 3 + 1, 4):
            if self.adv_decks[level]:
                self.commons[slot] = self.adv_decks[level].pop(0)
                return
        self.commons[slot] = -1

    def replenish_vale(self, slot: int) -> None:
        """RB: Replenish Vales — level 1 falls back to the level 2 deck."""
        for level in range(slot // 4 + 1, 3):
            if self.vale_decks[level]:
                self.vale_row[slot] = self.vale_decks[level].pop(0)
                return
        self.vale_row[slot] = -1

    # -- the game loop --------------------------------------------------------
    def play(self) -> GameRecord:
        # spec §4.7: the end of the game and the score
        order = [(self.start + i) % self.n for i in range(self.n)]
        while True:
            self.round += 1
            self.log.append(f"--- Round {self.round} (pool {self.pool}) ---")
            for p in order:
                self.take_turn(self.players[p])
            if self.pool == 0:
                self.log.append(f"The VP pool ran out: the game ends after round {self.round}.")
                break
            if self.round >= self.rules.max_rounds:
                self.record.truncated = True
                self.log.append(f"Stopped at the max_rounds cap ({self.rules.max_rounds}).")
                break
        self.record.rounds = self.round
        self.score()
        return self.record

    def take_turn(self, pl: Player) -> None:
        # spec §4.5: Discard: sleeving, the field to the discard pile
        # spec §4.1: turn start (a turn skipped after a spoil in Prep)
        pl.turn_number += 1
        pl.events = {}
        policy = self.policies[pl.index]
        rec = TurnRecord(round=self.round, player=pl.index, turn=pl.turn_number)
        pl.say(f"turn {pl.turn_number} ({policy.name}): {len(pl.field)} cards in the field, "
               f"decay showing {pl.decay_showing()}, VP {pl.tokens_vp}"
               + (", mana token active" if pl.token_active else ""))
        bought: list[Candidate] = []
        bought_vale_slots: list[int] = []
        if pl.skip_harvest:                                   # RB: Prep Phase spoil
            pl.skip_harvest = False
            rec.skipped = True
            pl.say("skips Planting and Harvest (spoiled during Prep)")
        else:
            # 1) Planting
            spoiled = False
            # rules.md I15: a Planting ends after MAX_PHASE_PLAYS pushes (a cycle ends)
            while rec.pushes < MAX_PHASE_PLAYS and self.wants_push(pl, policy, rec.pushes):
                rec.pushes += 1
                if pl.push(policy, rec.pushes - 1):
                    spoiled = True
                    break
            if spoiled:
                rec.spoiled = True
                pl.spoils += 1
                pl.token_active = True                        # consolation
                pl.say("spoils: no Harvest; mana token is active")
            else:
                pl.say(f"passes with {len(pl.field)} cards in the field")
                bought, bought_vale_slots = self.harvest(pl, policy, rec)
        # 3) Discard
        for cand in bought:
            card = pl.cards[cand.card]
            card.slots[cand.pos] = cand.kind
            if self.cs.advancements[cand.kind].longwise:
                card.longwise_top = cand.pos
            pl.say(f"sleeves {self.cs.advancements[cand.kind].name} into the "
                   f"{POSITIONS[cand.pos]} slot: {pl.describe(cand.card)}")
        pl.discard.extend(pl.field)
        pl.field = []
        for s in sorted(c.slot for c in bought if c.slot >= 0):
            self.replenish_commons(s)
        for s in sorted(bought_vale_slots):
            self.replenish_vale(s)
        # 4) Prep
        rec.spoiled_in_prep = pl.prep()
        if not rec.spoiled_in_prep:
            pl.say("preps the next field: " + ", ".join(pl.describe(c) for c in pl.field)
                   + f"; on-deck {pl.describe(pl.on_deck) if pl.on_deck >= 0 else 'none'}"
                   + f"; decay showing {pl.decay_showing()}")
        rec.druid_used = bool(pl.events.get("druid"))
        rec.arbor_used = bool(pl.events.get("arbor"))
        rec.conclave_used = bool(pl.events.get("conclave"))
        rec.pool_after = self.pool
        rec.field_size, rec.deck_size = len(pl.field), len(pl.deck)
        rec.discard_size, rec.decay_showing = len(pl.discard), pl.decay_showing()
        self.record.turns.append(rec)

    # -- 2) Harvest -----------------------------------------------------------
    def harvest(self, pl: Player, policy: Policy, rec: TurnRecord):
        # spec §4.3: Harvest, in its fixed order
        cs = self.cs
        pl.harvests += 1
        for c in pl.field:
            pl.harvested.update(k for k in pl.cards[c].slots if k >= 0)
        conclave = pl.vale_amounts("guardian_once_per_turn")
        if conclave and not pl.conclave_used:                 # §4.3 step 1
            best, best_gain = -1, 0
            for c in pl.field:
                gain = sum(a for k, a in pl.abilities(c)
                           if k in ("harvest_vp_per_guardian", "harvest_mana_per_guardian"))
                if gain > best_gain:
                    best, best_gain = c, gain
            if best >= 0:
                pl.conclave_used = True
                pl.events["conclave"] = True
                pl.temp_card, pl.temp_amount = best, conclave[0]
                pl.say(f"Conclave of Ents gives {pl.describe(best)} +{conclave[0]} guardian")
        t = pl.harvest_totals()
        mana = t["mana"]
        spirits = {s: t[s] for s in SPIRITS}
        rec.mana, rec.animal, rec.forest, rec.sky, rec.wild = (
            mana, spirits["animal"], spirits["forest"], spirits["sky"], spirits["wild"])
        self.take_vp(pl, t["vp"], rec)
        pl.say(f"harvests {mana} mana, spirits A{spirits['animal']} F{spirits['forest']} "
               f"S{spirits['sky']} W{spirits['wild']}, {t['vp']} VP (pool {self.pool})")
        # Buy vales (at most 2)
        vale_slots: list[int] = []
        while len(vale_slots) < 2:
            pick = self.pick_vale(pl, policy, spirits, mana, len(vale_slots))
            if pick is None:
                break
            slot, left, sunstone = pick
            if sunstone:
                mana -= sunstone
                pl.sunstone_used = True
                rec.sunstone_used = True
            spirits = left
            v = self.vale_row[slot]
            self.vale_row[slot] = -1
            vale_slots.append(slot)
            pl.vales.append(OwnedVale(v, pl.turn_number))
            pl.vales_acquired.append(v)
            rec.vales += (v,)
            pl.say(f"buys vale {cs.vales[v].name}" + (" (Sunstone Aerie)" if sunstone else ""))
        # Buy advancements
        limit = 2 + sum(cs.vales[v.vale_id].extra_buys for v in pl.active_vales())
        bought: list[Candidate] = []
        reserved: set[tuple[int, int]] = set()
        while len(bought) < limit:
            pick, explore = self.pick_advancement(pl, policy, reserved, mana, len(bought))
            if pick is None:
                break
            if pick.cost > mana:                                  # RB: Mana Token
                pl.token_active = False
                rec.token_spent = True
                mana += 1
                pl.say("spends the mana token for +1 mana")
            mana -= pick.cost
            reserved.add((pick.card, pick.pos))
            if pick.chorus >= 0:
                pl.chorus_used.add(pick.chorus)
            if pick.slot >= 0:
                self.commons[pick.slot] = -1
            else:
                self.fertile[pick.kind] -= 1
            pl.acquired[pick.kind] = pl.acquired.get(pick.kind, 0) + 1
            pl.first_round.setdefault(pick.kind, self.round)
            bought.append(pick)
            rec.bought += (pick.kind,)
            rec.sleeved += ((pick.card, pick.pos),)
            pl.say(f"buys {cs.advancements[pick.kind].name} for {pick.cost} mana"
                   + (" (explore)" if explore else "")
                   + (" (Earthchant Chorus)" if pick.chorus >= 0 else ""))
        return bought, vale_slots

    # -- the decisions of a Harvest and a Planting (a search player overrides them:
    # -- reference/search.py) ------------------------------------------------------
    def wants_push(self, pl: Player, policy: Policy, pushes: int) -> bool:
        """Push once more?  ``pushes``: the pushes of this Planting so far."""
        return pl.wants_push(policy)

    def pick_vale(self, pl: Player, policy: Policy, spirits: dict, mana: int, n_bought: int):
        """The vale to buy (see choose_vale) as the ``n_bought``-th of the Harvest, or None."""
        return self.choose_vale(pl, policy, spirits, mana)

    def pick_advancement(self, pl: Player, policy: Policy, reserved, mana: int, n_bought: int):
        """(Candidate or None, by exploration?) of the next advancement to buy."""
        token = 1 if (pl.token_active and policy.token == "needed") else 0
        cands = self.advancement_candidates(pl, policy, reserved)
        buyable = [c for c in cands if c.card >= 0 and c.cost <= mana + token]
        if policy.explore_permille > 0:
            r = self.rng.randbelow(1000)
            if r < policy.explore_permille and buyable:
                return buyable[self.rng.randbelow(len(buyable))], True
        return self.choose_by_rules(pl, policy, buyable, "advancement", mana), False

    def take_vp(self, pl: Player, vp: int, rec: TurnRecord) -> None:
        """RB: Score VP — from the pool; once it is empty, from the box."""
        from_pool = min(vp, self.pool)
        self.pool -= from_pool
        self.box_vp += vp - from_pool
        pl.tokens_vp += vp
        rec.vp_gained, rec.vp_from_box = vp, vp - from_pool

    # -- the "value" push rule (engine-spec §6.1) -------------------------------
    def harvest_value(self, pl: Player, policy: Policy, cards, st: int | None = None) -> int:
        """The value of a Harvest of pl's field with ``cards`` played too, at stage
        ``st`` (default: the stage pl would buy at if it passed now): the stage's scores
        of what the policy's best-score buying takes (vales with the spirits,
        advancements with the mana and the token, at most the buy limit), plus the VP
        times a VP's value."""
        if st is None:
            now = pl.harvest_totals()["vp"]
            st = self.stage(policy, self.pool - min(now, self.pool))
        t = pl.harvest_totals_with(cards)
        token = 1 if (pl.token_active and policy.token == "needed") else 0
        limit = 2 + sum(self.cs.vales[v.vale_id].extra_buys for v in pl.active_vales())
        return (self.adv_purchase_value(policy, st, t["mana"] + token, limit)
                + self.vale_purchase_value(pl, policy, st, {s: t[s] for s in SPIRITS})
                + vp_weight(policy, st) * t["vp"])

    def adv_purchase_value(self, policy: Policy, st: int, budget: int, limit: int) -> int:
        """Σ of the scores of the advancements §6.4's buying takes with ``budget`` mana,
        at most ``limit`` (placements and Earthchant discounts not looked at): the
        candidates scoring at least min_score in score order, ties in candidate order,
        each taken while affordable (a Fertile Soil kind while copies last)."""
        cands = [(self.commons[s], 1) for s in range(COMMONS_SLOTS)]
        cands += [(k, self.fertile[k]) for k in self.cs.fertile()]
        cands = [(k, n, self.adv_score(policy, k, st)) for k, n in cands
                 if k >= 0 and n > 0 and self.cs.advancements[k].name not in policy.never]
        total, nb = 0, 0
        for k, n, sc in sorted(cands, key=lambda c: -c[2]):     # stable: candidate order
            if sc < policy.min_score or nb >= limit:
                break
            cost = self.cs.advancements[k].cost
            while n > 0 and nb < limit and cost <= budget:
                total, budget, n, nb = total + sc, budget - cost, n - 1, nb + 1
        return total

    def vale_purchase_value(self, pl: Player, policy: Policy, st: int, spirits: dict) -> int:
        """Σ of the scores of the vales §6.3's buying takes with ``spirits`` (at most 2;
        buy rules and the Sunstone Aerie not looked at)."""
        owned = {v.vale_id for v in pl.vales}
        taken, total = set(), 0
        for _ in range(2):
            best = None
            for s in range(VALE_SLOTS):
                v = self.vale_row[s]
                if v < 0 or s in taken:
                    continue
                vale = self.cs.vales[v]
                sc = self.vale_score(policy, v, st)
                if sc < policy.vale_min_score or (best is not None and sc <= best[1]):
                    continue
                if (vale.unique and v in owned) or vale.name in policy.never:
                    continue
                left = pay(spirits, vale.cost)
                if left is not None:
                    best = (s, sc, left)
            if best is None:
                break
            s, sc, spirits = best
            total += sc
            taken.add(s)
            owned.add(self.vale_row[s])
        return total

    # -- choosing vales (engine-spec §6.3) --------------------------------------
    def stage(self, policy: Policy, pool: int | None = None) -> int:
        """The stage a value player scores at (0 for a scripted policy), with the VP pool
        holding ``pool`` (default: now)."""
        # spec §6.7: the stage of a value player
        return stage_of(self.rules.pool_for(self.n), self.pool if pool is None else pool,
                        policy.value_stages)

    def vale_score(self, policy: Policy, v: int, st: int | None = None) -> int:
        vale = self.cs.vales[v]
        if policy.value_stages:                       # §6.7: a value player
            w = policy.value_vale[self.stage(policy) if st is None else st]
            return sum(a * b for a, b in zip(w, vale_features(vale)))
        return policy.w_vale_vp * vale.end_vp + policy.w_vale_ability * (vale.ability != "none")

    def choose_vale(self, pl: Player, policy: Policy, spirits: dict, mana: int):
        """(slot, spirits left, mana paid to Sunstone Aerie) of the vale to buy, or None."""
        # spec §6.3: buying vales
        owned = {v.vale_id for v in pl.vales}
        cands = [s for s in range(VALE_SLOTS) if self.vale_row[s] >= 0
                 and not (self.cs.vales[self.vale_row[s]].unique and self.vale_row[s] in owned)
                 and self.cs.vales[self.vale_row[s]].name not in policy.never]
        cands.sort(key=lambda s: (-self.vale_score(policy, self.vale_row[s]), s))
        sunstone = pl.vale_amounts("spirit_to_wild")
        can_convert = (policy.use_sunstone and sunstone and not pl.sunstone_used
                       and mana >= sunstone[0])
        for rule in self.rules_for(policy, "vale"):
            if not self.conditions_hold(pl, rule, mana):
                continue
            matches = [s for s in cands if self.rule_matches_vale(rule, self.vale_row[s], policy)]
            for s in matches:
                left = pay(spirits, self.cs.vales[self.vale_row[s]].cost)
                if left is not None:
                    return s, left, 0
            if can_convert:
                for s in matches:
                    for name in ("animal", "forest", "sky"):
                        if spirits[name] == 0:
                            continue
                        trial = dict(spirits)
                        trial[name] -= 1
                        trial["wild"] += 1
                        left = pay(trial, self.cs.vales[self.vale_row[s]].cost)
                        if left is not None:
                            return s, left, sunstone[0]
        return None

    # -- choosing advancements (engine-spec §6.4) --------------------------------
    def adv_score(self, policy: Policy, k: int, st: int | None = None) -> int:
        a = self.cs.advancements[k]
        if policy.value_stages:                       # §6.7: a value player
            w = policy.value_adv[self.stage(policy) if st is None else st]
            return sum(x * y for x, y in zip(w, adv_features(a)))
        return (policy.w_mana * a.mana + policy.w_spirit * a.spirits
                + policy.w_harvest_vp * a.harvest_vp + policy.w_end_vp * a.end_vp
                + policy.w_growth * a.growth - policy.w_decay * a.decay
                + policy.w_guardian * a.guardian + policy.w_ability * (a.ability != "none")
                - policy.w_cost * a.cost)

    def advancement_candidates(self, pl: Player, policy: Policy, reserved) -> list[Candidate]:
        # spec §6.4: buying advancements and where they go
        kinds = [(self.commons[s], s) for s in range(COMMONS_SLOTS) if self.commons[s] >= 0]
        kinds += [(k, -1) for k in self.cs.fertile() if self.fertile[k] > 0]
        kinds = [(k, s) for k, s in kinds if self.cs.advancements[k].name not in policy.never]
        return [self.place(pl, policy, k, s, reserved) for k, s in kinds]

    def place(self, pl: Player, policy: Policy, k: int, slot: int, reserved) -> Candidate:
        """Where advancement k would be sleeved (RB: Sleeve Advancements)."""
        a = self.cs.advancements[k]
        cand = Candidate(kind=k, slot=slot, cost=a.cost)
        free = [c for c in pl.field
                if pl.cards[c].slots[a.position] < 0 and (c, a.position) not in reserved]
        for c in free:                                        # RB: Earthchant Chorus
            chorus = [amt for kind, amt in pl.abilities(c) if kind == "discount_same_card"]
            if chorus and c not in pl.chorus_used:
                cand.card, cand.pos = c, a.position
                cand.cost, cand.chorus = max(0, a.cost - chorus[0]), c
                return cand
        best_score = None
        for c in free:
            card = pl.cards[c]
            score = 0
            if policy.avoid_decay_stack and a.decay > 0 and pl.decay(c) > 0:
                score -= 1000                                 # RB tip: avoid 2+ decay
            if a.ability in PER_GUARDIAN:
                score += 10 * pl.guardians(c)
            if a.guardian > 0:
                score += 10 * sym.per_guardian_count(self.cs, card)
            if a.growth > 0 or a.ability in DECAY_LIMITING:
                score += 10 * pl.decay(c)
            score += sym.occupied(card)
            if best_score is None or score > best_score:
                best_score, cand.card, cand.pos = score, c, a.position
        return cand

    # -- buy rules (engine-spec §6.5) -------------------------------------------
    def resolve_rule_targets(self) -> None:
        """Check that every card a policy's buy rules (or never list) name exists in the set."""
        for pol in self.policies:
            for name in pol.never:
                if name not in {a.name for a in self.cs.advancements} | {v.name for v in self.cs.vales}:
                    raise ValueError(f"policy {pol.name!r}: never names unknown card {name!r} "
                                     f"(not in card set {self.cs.name!r})")
            for r in pol.rules:
                if r.target == "card":
                    try:
                        self.cs.advancement_id(r.value)
                    except KeyError:
                        try:
                            self.cs.vale_id(r.value)
                        except KeyError:
                            raise ValueError(f"policy {pol.name!r}: buy rule names unknown card "
                                             f"{r.value!r} (not in card set {self.cs.name!r})") from None

    def rules_for(self, policy: Policy, what: str):
        """The policy's rules that can buy `what`, or the implicit 'best' rule."""
        if not policy.rules:
            return [None]
        return [r for r in policy.rules if self.rule_kind(r) == what]

    def rule_kind(self, r) -> str:
        if r.target in ("level",):
            return "advancement"
        if r.target == "vale_ability":
            return "vale"
        if r.target == "best":
            return r.value
        names = {a.name for a in self.cs.advancements}
        return "advancement" if r.value in names else "vale"

    def conditions_hold(self, pl: Player, r, mana: int) -> bool:
        if r is None:
            return True
        checks = [(r.mana_at_least, lambda x: mana >= x), (r.mana_at_most, lambda x: mana <= x),
                  (r.round_at_least, lambda x: self.round >= x),
                  (r.round_at_most, lambda x: self.round <= x),
                  (r.pool_at_most, lambda x: self.pool <= x)]
        if r.owned_at_most is not None and r.target == "card":
            if self.rule_kind(r) == "advancement":
                owned = pl.acquired.get(self.cs.advancement_id(r.value), 0)
            else:
                vid = self.cs.vale_id(r.value)
                owned = sum(1 for v in pl.vales if v.vale_id == vid)
            checks.append((r.owned_at_most, lambda x: owned <= x))
        return all(v is None or ok(v) for v, ok in checks)

    def rule_matches_vale(self, r, v: int, policy: Policy) -> bool:
        if r is None:
            return self.vale_score(policy, v) >= policy.vale_min_score
        vale = self.cs.vales[v]
        if r.target == "card":
            return vale.name == r.value
        if r.target == "vale_ability":
            return vale.ability == r.value
        # best = "vale" (with best_min_score, only vales scoring >= vale_min_score)
        return not policy.best_min_score or self.vale_score(policy, v) >= policy.vale_min_score

    def choose_by_rules(self, pl: Player, policy: Policy, buyable, what: str, mana: int):
        # spec §6.5: buy rules of policy files
        for rule in self.rules_for(policy, what):
            if not self.conditions_hold(pl, rule, mana):
                continue
            best, best_score = None, None
            for c in buyable:
                a = self.cs.advancements[c.kind]
                score = self.adv_score(policy, c.kind)
                if rule is None:
                    ok = score >= policy.min_score
                elif rule.target == "card":
                    ok = a.name == rule.value
                elif rule.target == "level":
                    ok = a.level == int(rule.value)
                else:                                         # best = "advancement"
                    ok = not policy.best_min_score or score >= policy.min_score
                if ok and (best_score is None or score > best_score):
                    best, best_score = c, score
            if best is not None:
                return best
        return None

    # -- RB: End of the Game --------------------------------------------------
    def score(self) -> None:
        cs = self.cs
        totals = []
        for pl in self.players:
            adv_vp = sum(sym.endgame_vp(cs, card) for card in pl.cards)
            vale_vp = sum(cs.vales[v.vale_id].end_vp for v in pl.vales)
            tiebreak = (sum(1 for card in pl.cards for k in card.slots
                            if k >= 0 and cs.advancements[k].supply == "commons"
                            and cs.advancements[k].level == 3)
                        + sum(1 for v in pl.vales if cs.vales[v.vale_id].level == 2))
            totals.append((pl.tokens_vp + adv_vp + vale_vp, tiebreak, adv_vp, vale_vp))
        top = max((t[0], t[1]) for t in totals)
        winners = [p for p, t in enumerate(totals) if (t[0], t[1]) == top]
        for pl, (total, tiebreak, adv_vp, vale_vp) in zip(self.players, totals):
            self.record.results.append(PlayerResult(
                player=pl.index, seat=(pl.index - self.start) % self.n,
                policy=self.policies[pl.index].name, tokens_vp=pl.tokens_vp, adv_vp=adv_vp,
                vale_vp=vale_vp, score=total, tiebreak=tiebreak,
                win_share=(1.0 / len(winners)) if pl.index in winners else 0.0,
                spoils=pl.spoils, harvests=pl.harvests, acquired=dict(sorted(pl.acquired.items())),
                first_round=dict(sorted(pl.first_round.items())),
                harvested=tuple(sorted(pl.harvested)),
                vales_acquired=tuple(sorted(pl.vales_acquired))))
            self.log.append(f"P{pl.index}: {pl.tokens_vp} VP tokens + {adv_vp} advancement VP "
                            f"+ {vale_vp} vale VP = {total}")
        self.log.append("Winner: " + " and ".join(f"P{p}" for p in winners)
                        + (" (shared)" if len(winners) > 1 else ""))


def play_reference(cs, players: int = 2, seed: int = 0, game_index: int = 0,
                   policies=None, rules: Rules | None = None) -> GameRecord:
    """Play one game with the reference engine and return its record.

    ``cs`` is a CardSet or a bundled set name / file path; ``policies`` a preset
    name, a Policy, or one per player.  Game ``game_index`` of the run seeded
    ``seed`` uses the random stream ``GameRng(seed, game_index)`` only.
    """
    if not isinstance(cs, CardSet):
        from ..cards import load_card_set
        cs = load_card_set(cs)
    return MysticValeGame(cs, players, seed, game_index, policies, rules).play()
