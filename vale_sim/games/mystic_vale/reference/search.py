"""The search player in the reference engine: the readable twin of ``fast/search.py``
(docs/search.md).  Both engines play the same game for the same seed and K.

A search player decides each push, each vale step and each advancement step of its
turns by rollouts (``vale_sim.search.decide``).  A rollout of option ``o`` at a
decision: a copy of the game as it was at the start of this turn replays the turn
with the choices made so far, then, at the decision, draws again what no player sees
(:meth:`SearchGame.resample`) from the rollout's stream, takes option ``o``, and
plays the rest of the game with the rollout policies (the searcher's rollout policy
for itself, its model of the opponents for the others).  Replaying from the turn's
start is how a Python engine "copies a mid-turn state": the replay is the same game
as the real one up to the decision, draw for draw.
"""
from __future__ import annotations

import copy
from dataclasses import fields

from vale_sim.search import committed_cards, decide, rollout_key, win_points
from ..policy import Policy, SearchPolicy
from . import game as _game
from .game import MysticValeGame, pay

SPIRIT_NAMES = ("animal", "forest", "sky")


def rollout_policy(pol: SearchPolicy) -> Policy:
    """The scripted policy a search player's own fields are."""
    return Policy(**{f.name: getattr(pol, f.name) for f in fields(Policy)})


class SearchGame(MysticValeGame):
    """A game in which the players with a SearchPolicy decide by rollouts."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.decisions = 0               # search decisions of the game so far (all players)
        self.replay = None               # in a rollout copy: the turn being replayed
        self.searching = True            # False in rollout copies: nobody searches there
        self.rollout_policies = {}
        self.decides = {}
        self.committed = {}
        for p, pol in enumerate(self.policies):
            if isinstance(pol, SearchPolicy):
                self.decides[p] = pol.search_decides
                self.committed[p] = set(committed_cards(pol))
                base = rollout_policy(pol)
                opp = pol.search_opponents or base
                self.rollout_policies[p] = [base if q == p else opp for q in range(self.n)]

    # -- the game loop -------------------------------------------------------------
    def play(self):
        self.round = 1
        self.play_from(0)
        self.record.rounds = self.round
        self.score()
        return self.record

    def play_from(self, j: int) -> None:
        """Play on from the j-th turn (in seat order) of round self.round: the loop of
        MysticValeGame.play, its log lines included (a round's header when the round
        starts here, the end or the round cap)."""
        order = [(self.start + i) % self.n for i in range(self.n)]
        while True:
            if j == 0:
                self.log.append(f"--- Round {self.round} (pool {self.pool}) ---")
            for p in order[j:]:
                self.turn(self.players[p])
            j = 0
            if self.pool == 0:
                self.log.append(f"The VP pool ran out: the game ends after round {self.round}.")
                break
            if self.round >= self.rules.max_rounds:
                self.record.truncated = True
                self.log.append(f"Stopped at the max_rounds cap ({self.rules.max_rounds}).")
                break
            self.round += 1

    def turn(self, pl) -> None:
        if self.searching and pl.index in self.rollout_policies:
            self.turn_start = self.fork()        # where this turn's rollouts replay from
            self.turn_choices = []
        self.take_turn(pl)

    def fork(self) -> "SearchGame":
        """A copy of the game (card set, rules and policies shared; log and records not
        carried over)."""
        memo = {id(self.cs): self.cs, id(self.rules): self.rules, id(self.log): [],
                id(self.record.turns): [], id(self.record.results): []}
        for pol in self.policies:
            memo[id(pol)] = pol
        for pols in self.rollout_policies.values():
            for pol in pols:
                memo[id(pol)] = pol
        memo[id(self.__dict__.get("turn_start"))] = None
        return copy.deepcopy(self, memo)

    # -- what no player sees ---------------------------------------------------------
    def resample(self, key: int, searcher: int) -> None:
        """What player ``searcher`` does not see, drawn again from stream ``key``, each
        part sorted first: every deck order -- an opponent's deck together with the
        cards it discarded face down (``Player.unseen``: dealt again to the deck, then to
        those discard positions in pile order) --, the commons decks (level 1 with the
        copies left out of the game) and the vale decks (fast/search.py ``resample``:
        the same order of draws)."""
        self.rng.key, self.rng.draws = key, 0
        for pl in self.players:
            if pl.index != searcher and pl.unseen:
                at = [i for i, c in enumerate(pl.discard) if c in pl.unseen]
                pool = sorted(pl.deck + [pl.discard[i] for i in at])
                self.rng.shuffle(pool)
                n = len(pl.deck)
                pl.deck = pool[:n]
                for j, i in enumerate(at):
                    pl.discard[i] = pool[n + j]
                pl.unseen = set(pool[n:])
                continue
            pl.deck = sorted(pl.deck)
            self.rng.shuffle(pl.deck)
        n1 = len(self.adv_decks[1])
        level1 = sorted(self.adv_decks[1] + self.level1_unused)
        self.rng.shuffle(level1)
        self.adv_decks[1], self.level1_unused = level1[:n1], level1[n1:]
        for level in (2, 3):
            self.adv_decks[level] = sorted(self.adv_decks[level])
            self.rng.shuffle(self.adv_decks[level])
        for level in (1, 2):
            self.vale_decks[level] = sorted(self.vale_decks[level])
            self.rng.shuffle(self.vale_decks[level])

    # -- decisions -----------------------------------------------------------------
    def searcher(self, pl) -> bool:
        if self.replay is not None:
            return self.replay["player"] == pl.index
        return self.searching and pl.index in self.rollout_policies

    def choose(self, pl, n: int, kind: str) -> int:
        """The option (0..n-1) of a decision of search player pl: option 0 (its policy's
        own choice) for a kind of decision it does not search."""
        if kind not in self.decides[pl.index]:
            return 0
        if self.replay is not None:                  # a rollout copy replaying the turn
            r = self.replay
            if r["forced"]:
                return r["forced"].pop(0)
            self.replay = None                       # the branch: from here on, policies
            self.resample(r["key"], r["player"])
            return r["option"]
        pol = self.policies[pl.index]
        d = self.decisions
        best, _ = decide(n, pol.search_k, pol.search_halving,
                         lambda o, i: self.rollout_value(pl.index, d, o, i))
        self.decisions += 1
        self.turn_choices.append(best)
        return best

    def rollout_value(self, p: int, decision: int, o: int, i: int) -> int:
        g = self.turn_start.fork()
        g.searching = False
        g.policies = g.rollout_policies[p]
        g.replay = {"player": p, "forced": list(self.turn_choices), "option": o,
                    "key": rollout_key(self.rng.key, decision, i)}
        g.take_turn(g.players[p])
        g.replay = None
        g.play_from((p - g.start) % g.n + 1)
        g.score()
        return win_points(g.record.results[p].win_share)

    def wants_push(self, pl, policy, pushes: int) -> bool:
        if not self.searcher(pl) or pl.on_deck < 0:
            return super().wants_push(pl, policy, pushes)
        d = pl.wants_push(policy)                    # options: its policy's choice first
        return (d, not d)[self.choose(pl, 2, "push")]

    def vale_options(self, pl, policy, spirits: dict, mana: int) -> list:
        """[(slot, spirits left, Sunstone mana) or None]: one per kind that can be bought
        now (its first slot), and None ("no vale"); the policy's choice first."""
        owned = {v.vale_id for v in pl.vales}
        sunstone = pl.vale_amounts("spirit_to_wild")
        convert = policy.use_sunstone and sunstone and not pl.sunstone_used and mana >= sunstone[0]
        opts, kinds = [], []
        for s, v in enumerate(self.vale_row):
            if v < 0 or (self.cs.vales[v].unique and v in owned) or v in kinds:
                continue
            if self.cs.vales[v].name in policy.never:
                continue
            left = pay(spirits, self.cs.vales[v].cost)
            if left is not None:
                opts.append((s, left, 0))
            elif convert:
                for name in SPIRIT_NAMES:
                    if spirits[name] == 0:
                        continue
                    trial = dict(spirits, **{name: spirits[name] - 1, "wild": spirits["wild"] + 1})
                    left = pay(trial, self.cs.vales[v].cost)
                    if left is not None:
                        opts.append((s, left, sunstone[0]))
                        break
                else:
                    continue
            else:
                continue
            kinds.append(v)
        if not opts:
            return [None]
        opts.append(None)
        own = self.choose_vale(pl, policy, spirits, mana)
        first = len(opts) - 1
        if own is not None:
            first = kinds.index(self.vale_row[own[0]])
        return [opts[first]] + opts[:first] + opts[first + 1:]

    def forced(self, pl, name: str) -> bool:
        """The policy's own choice ``name`` is a committed card: bought without search."""
        return name in self.committed[pl.index]

    def pick_vale(self, pl, policy, spirits, mana, n_bought):
        if not self.searcher(pl):
            return super().pick_vale(pl, policy, spirits, mana, n_bought)
        opts = self.vale_options(pl, policy, spirits, mana)
        if opts[0] is not None and self.forced(pl, self.cs.vales[self.vale_row[opts[0][0]]].name):
            return opts[0]
        return opts[self.choose(pl, len(opts), "vale")] if len(opts) > 1 else None

    def advancement_options(self, pl, policy, reserved, mana: int) -> list:
        """Advancements that can be bought now, one per kind (commons slots in order, then
        Fertile Soil kinds), placed as the policy places them, and None (stop) last; then
        the policy's own choice (exploration aside) moved to the front."""
        token = 1 if (pl.token_active and policy.token == "needed") else 0
        sources = [(k, s) for s, k in enumerate(self.commons) if k >= 0]
        sources += [(k, -1) for k in self.cs.fertile() if self.fertile[k] > 0]
        opts = []
        for k, s in sources:
            if any(c.kind == k for c in opts) or self.cs.advancements[k].name in policy.never:
                continue
            cand = self.place(pl, policy, k, s, reserved)
            if cand.card >= 0 and cand.cost <= mana + token:
                opts.append(cand)
        opts.append(None)
        if len(opts) < 2:
            return opts
        buyable = [c for c in self.advancement_candidates(pl, policy, reserved)
                   if c.card >= 0 and c.cost <= mana + token]
        own = self.choose_by_rules(pl, policy, buyable, "advancement", mana)
        first = len(opts) - 1
        if own is not None:
            first = next(i for i, c in enumerate(opts[:-1]) if c.kind == own.kind)
        return [opts[first]] + opts[:first] + opts[first + 1:]

    def pick_advancement(self, pl, policy, reserved, mana, n_bought):
        if not self.searcher(pl):
            return super().pick_advancement(pl, policy, reserved, mana, n_bought)
        opts = self.advancement_options(pl, policy, reserved, mana)
        if opts[0] is not None and self.forced(pl, self.cs.advancements[opts[0].kind].name):
            return opts[0], False
        return (opts[self.choose(pl, len(opts), "advancement")] if len(opts) > 1 else None), False



def play_reference(cs, players: int = 2, seed: int = 0, game_index: int = 0,
                   policies=None, rules=None):
    """``game.play_reference``, with SearchGame when a player searches (the Game
    interface's reference engine plays through this)."""
    from ..policy import policies_for
    if players in (2, 3, 4) and any(isinstance(p, SearchPolicy)
                                    for p in policies_for(players, policies)):
        if not isinstance(cs, _game.CardSet):
            from ..cards import load_card_set
            cs = load_card_set(cs)
        return SearchGame(cs, players, seed, game_index, policies, rules).play()
    return _game.play_reference(cs, players, seed, game_index, policies, rules)
