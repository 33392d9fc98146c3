"""The search player in the Mystic Lands reference engine: the readable twin of
``fast/search.py`` (docs/search.md).  Both engines play the same game for the same
seed and K.

A search player decides each Grow or Rest of its Nights (``decide_grow``), each
enchantment step of its Days (``pick_enchant``, spec D7) and each buy step
(``choose_buy``, spec D11) by rollouts (``vale_sim.search.decide``), within its
policy's bans and commitments: a spot or Advance its ``never`` list names is not an
option, and a step at which its policy's own choice is a committed card
(``vale_sim.search.committed_cards``) takes it without searching.  A rollout of
option ``o`` at a decision: a copy of the game as it was at the start of this turn
replays the turn with the choices made so far, then, at the decision, draws again
what no player sees (:meth:`SearchGame.resample`) from the rollout's stream, takes
option ``o``, and plays the rest of the game with the rollout policies (the
searcher's rollout policy for itself, its model of the opponents for the others).
Replaying from the turn's start is how a Python engine "copies a mid-turn state":
the replay is the same game as the real one up to the decision, draw for draw.
"""
from __future__ import annotations

import copy

from vale_sim.search import committed_cards, decide, rollout_key, win_points
from .. import cards as C
from ..policy import SearchPolicy, policies_for, rollout_policy
from .cardmath import NO_ADVANCE
from .game import MysticLandsGame, play_reference as _plain_reference

KINDS = {1: "I", 2: "II"}


class SearchGame(MysticLandsGame):
    """A game in which the players with a SearchPolicy decide by rollouts."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.decisions = 0               # search decisions of the game so far (all players)
        self.replay = None               # in a rollout copy: the turn being replayed
        self.searching = True            # False in rollout copies: nobody searches there
        self.turn_k = 0
        self.rollout_policies = {}
        self.decides = {}
        self.committed = {}
        for i, pol in enumerate(self.pols):
            if isinstance(pol, SearchPolicy):
                self.decides[i] = pol.search_decides
                self.committed[i] = set(committed_cards(pol))
                base = rollout_policy(pol)
                opp = pol.search_opponents or base
                self.rollout_policies[i] = [base if q == i else opp for q in range(self.n)]

    # -- the game loop (MysticLandsGame.play from turn k) --------------------------------
    def play(self):
        self.play_from(0)
        self.finish()
        self.record.log = self.log
        return self.record

    def play_from(self, k: int) -> None:
        """Turns k, k + 1, ... (spec §3): the end comes after the turn of the player
        before the one who triggered it."""
        n = self.n
        while True:
            self.round = k // n + 1
            if self.trigger < 0 and self.round > self.rules.max_rounds:
                self.record.truncated = True
                self.say(f"Truncated after {self.rules.max_rounds} rounds")
                break
            i = (self.start + k) % n
            self.turn_k = k
            self.turn(self.players[i])
            self.record.rounds = self.round
            k += 1
            if self.trigger >= 0 and (i + 1) % n == self.trigger:
                break

    def turn(self, p) -> None:
        if self.searching and p.index in self.rollout_policies:
            self.turn_start = self.fork()        # where this turn's rollouts replay from
            self.turn_choices = []
        super().turn(p)

    def fork(self) -> "SearchGame":
        """A copy of the game (card set, rules and policies shared; log and records not
        carried over; no logging)."""
        memo = {id(self.cs): self.cs, id(self.rules): self.rules, id(self.log): [],
                id(self.record.turns): [], id(self.record.results): []}
        for pol in self.pols:
            memo[id(pol)] = pol
        for pols in self.rollout_policies.values():
            for pol in pols:
                memo[id(pol)] = pol
        memo[id(self.__dict__.get("turn_start"))] = None
        g = copy.deepcopy(self, memo)
        g.logging = False
        return g

    # -- what no player sees -----------------------------------------------------------
    def resample(self, key: int, searcher: int) -> None:
        """What player ``searcher`` does not see, drawn again from stream ``key``, each
        part sorted first: every deck below its on-deck card, the Advance decks of levels
        1 and 2, the Vales of the face-down spaces (with the Vales of their level left out
        of the game), and the Druid Advance of each opponent whose Druid card was never
        seen (``druid_hidden``), dealt from the Druid Advances the searcher has not seen
        (fast/search.py ``resample``: the same order of draws)."""
        self.rng.key, self.rng.draws = key, 0
        for p in self.players:
            rest = sorted(p.deck[1:])
            self.rng.shuffle(rest)
            p.deck = p.deck[:1] + rest
        for level in (1, 2):
            self.adv_deck[level] = sorted(self.adv_deck[level])
            self.rng.shuffle(self.adv_deck[level])
        spaces = self.cs.map.spaces
        for level, kind in KINDS.items():
            hidden = [s for s, sp in enumerate(spaces) if sp.kind == kind
                      and not self.revealed[s] and not self.on_space[s]]
            if not hidden:
                continue
            pool = list(self.cs.vale_deck_list(level))
            for s, sp in enumerate(spaces):
                if sp.kind == kind and s not in hidden:
                    pool.remove(self.layout[s])
            pool.sort()
            self.rng.shuffle(pool)
            for j, s in enumerate(hidden):
                self.place_vale(s, pool[j])
        self.resample_druids(searcher)

    def resample_druids(self, searcher: int) -> None:
        """Deal each hidden Druid Advance of the searcher's opponents (player order) from
        the Druid Advances it has not seen -- all of them but the two it was dealt and
        those of the opponents whose Druid card it saw --, sorted, shuffled; no draw when
        none is hidden."""
        hidden = [q for q in self.players if q.index != searcher and self.druid_hidden(q)]
        if not hidden:
            return
        pool = list(self.cs.deck_list(0))
        for a in self.players[searcher].druid_hand:
            pool.remove(a)
        for q in self.players:
            if q.index != searcher and not any(q is h for h in hidden):
                pool.remove(q.druid)
        pool.sort()
        self.rng.shuffle(pool)
        for j, q in enumerate(hidden):
            for c in q.cards:
                if self.cs.starting[c.base].druid:
                    c.slots[self.cs.advances[q.druid].position] = NO_ADVANCE
                    c.slots[self.cs.advances[pool[j]].position] = pool[j]
            q.druid = pool[j]

    # -- decisions -----------------------------------------------------------------------
    def searcher(self, p) -> bool:
        if self.replay is not None:
            return self.replay["player"] == p.index
        return self.searching and p.index in self.rollout_policies

    def choose(self, p, n: int, kind: str) -> int:
        """The option (0..n-1) of a decision of search player p: option 0 (its policy's
        own choice) for a kind of decision it does not search."""
        if kind not in self.decides[p.index]:
            return 0
        if self.replay is not None:                  # a rollout copy replaying the turn
            r = self.replay
            if r["forced"]:
                return r["forced"].pop(0)
            self.replay = None                       # the branch: from here on, policies
            self.resample(r["key"], r["player"])
            return r["option"]
        pol = self.pols[p.index]
        d = self.decisions
        best, _ = decide(n, pol.search_k, pol.search_halving,
                         lambda o, i: self.rollout_value(p.index, d, o, i))
        self.decisions += 1
        self.turn_choices.append(best)
        return best

    def rollout_value(self, i: int, decision: int, o: int, r: int) -> int:
        g = self.turn_start.fork()
        g.searching = False
        for q, pl in enumerate(g.players):
            pl.policy = self.rollout_policies[i][q]
        g.replay = {"player": i, "forced": list(self.turn_choices), "option": o,
                    "key": rollout_key(self.rng.key, decision, r)}
        g.play_from(g.turn_k)
        g.finish()
        return win_points(g.record.results[i].win_share)

    def decide_grow(self, p, suns: int) -> bool:
        """Grow or Rest (spec §6.1): options its policy's choice, then the other."""
        own = super().decide_grow(p, suns)
        if not self.searcher(p):
            return own
        return (own, not own)[self.choose(p, 2, "push")]

    def enchant_options(self, p) -> list:
        """[(space, row, cost) or None]: the legal spots (spec §5) p can pay, but not the
        spots its policy never enchants (its ``never`` list), and None ("no more"); its
        policy's pick (spec §6.5; None when it keeps the slot for a Sun Priestess) first."""
        spots = [c for c in self.legal_spots(p)
                 if c[2] <= p.spirit and self.spot_name(c[0]) not in p.policy.never]
        if not spots:
            return [None]
        opts = spots + [None]
        own = self.policy_enchant(p)
        first = len(opts) - 1
        if own is not None:
            first = next(j for j, c in enumerate(spots) if c[:2] == own[:2])
        return [opts[first]] + opts[:first] + opts[first + 1:]

    def forced(self, p, name: str) -> bool:
        """The policy's own choice ``name`` is a committed card: taken without search
        (docs/search.md, "Bans and commitments")."""
        return name in self.committed[p.index]

    def pick_enchant(self, p):
        if not self.searcher(p):
            return super().pick_enchant(p)
        opts = self.enchant_options(p)
        if opts[0] is not None and self.forced(p, self.spot_name(opts[0][0])):
            return opts[0]
        return opts[self.choose(p, len(opts), "vale")] if len(opts) > 1 else None

    def buy_options(self, p) -> list:
        """[(level, slot) or None]: the Advances p can buy now (Market order, one per
        Advance: its first slot), but not those its policy never buys (its ``never``
        list), and None ("stop"); its policy's pick (spec §6.4) first."""
        cands, seen = [], []
        for level in (1, 2):
            for k, a in enumerate(self.market[level]):
                if a >= 0 and self.cs.advances[a].cost <= p.mana and a not in seen \
                        and self.adv_name(a) not in p.policy.never:
                    cands.append((level, k))
                    seen.append(a)
        if not cands:
            return [None]
        opts = cands + [None]
        own = MysticLandsGame.choose_buy(self, p)
        first = len(opts) - 1
        if own is not None:
            first = seen.index(self.market[own[0]][own[1]])
        return [opts[first]] + opts[:first] + opts[first + 1:]

    def choose_buy(self, p):
        if not self.searcher(p):
            return super().choose_buy(p)
        opts = self.buy_options(p)
        if opts[0] is not None and self.forced(p, self.adv_name(self.market[opts[0][0]]
                                                                [opts[0][1]])):
            return opts[0]
        return opts[self.choose(p, len(opts), "advancement")] if len(opts) > 1 else None


def play_reference(cs, players: int, seed: int, game_index: int = 0, policies=None,
                   rules=None, log: bool = True):
    """``game.play_reference``, with SearchGame when a player searches (the Game
    interface's reference engine plays through this)."""
    if players in (2, 3, 4) and any(isinstance(p, SearchPolicy)
                                    for p in policies_for(players, policies)):
        cs = C.load_card_set(cs)
        return SearchGame(cs, players, seed, game_index, policies, rules, log).play()
    return _plain_reference(cs, players, seed, game_index, policies, rules, log)
