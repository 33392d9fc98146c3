"""A policy-search objective with a known optimum, on the exact spoil model: one
Planting of a one-player deck (tests/test_optimize.py, docs/optimize.md "Checks").

Moved from ``vale_sim.optimize`` (which names no game, issue 25 section 1)."""
from __future__ import annotations

import math

import numpy as np

from ..policy import SEARCH_RANGES
from . import SpoilModel, as_deck


class SpoilObjective:
    """A one-player push-your-luck problem with a known optimum, for tests.

    One Planting on ``deck`` (the exact model of :mod:`vale_sim.games.mystic_vale.spoil`):
    push while the exact probability that the next push spoils is at most
    ``push_risk_permille/1000``,
    at most ``horizon`` pushes, and pass once field mana reaches ``mana_target``
    (if > 0), as engine-spec §6.1 with the exact risk.  The score of a deal is the
    Harvest mana (0 on a spoil) of one trajectory drawn with the deal's uniforms,
    the same for every candidate (common random numbers).  :meth:`exact_value`
    is the expected mana of a rule, :meth:`best_in_family` the best rule of this
    family by exhaustive search; :func:`vale_sim.games.mystic_vale.spoil.best_rule` bounds them
    all.  It is an objective of :func:`vale_sim.optimize.search` (``games``, ``key``, ``bounds``,
    ``evaluate``) whose candidates are Mystic Vale policies (``push_risk_permille``,
    ``mana_target``)."""
    bounds = None

    def __init__(self, deck="seedling", card_set="core", horizon: int = 6, deals: int = 200):
        self.deck = as_deck(deck, card_set)
        self.m = SpoilModel(self.deck, None, None, False, mode="mana")
        self.start, _ = self.m.start()
        self.horizon, self.deals, self.players = horizon, deals, 1
        self._push, self._mana = {}, {}

    def games(self, n_candidates: int, n_field: int) -> int:
        return n_candidates * self.deals

    def key(self) -> dict:
        return {"objective": "spoil", "deck": self.deck.name, "horizon": self.horizon,
                "deals": self.deals}

    def push(self, key):
        e = self._push.get(key)
        if e is None:
            e = self._push[key] = [(float(p), bool(sp), k2) for p, sp, _, k2 in self.m.push(key)]
        return e

    def mana(self, key) -> float:
        v = self._mana.get(key)
        if v is None:
            v = self._mana[key] = float(self.m.harvest(key)["mana"])
        return v

    def risk(self, key) -> float:
        return sum(p for p, sp, _ in self.push(key) if sp)

    def pushes(self, key, h: int, t: int, target: int) -> bool:
        if h <= 0 or self.m.on_deck(key) < 0:
            return False
        if target > 0 and self.mana(key) >= target:
            return False
        return self.risk(key) * 1000 <= t + 1e-9

    def exact_value(self, t: int, target: int = 0) -> float:
        memo = {}

        def value(key, h):
            mk = (key, h)
            if mk not in memo:
                if self.pushes(key, h, t, target):
                    memo[mk] = sum(p * value(k2, h - 1) for p, sp, k2 in self.push(key) if not sp)
                else:
                    memo[mk] = self.mana(key)
            return memo[mk]
        return sum(float(p) * value(k, self.horizon) for k, p in self.start.items())

    def best_in_family(self) -> tuple[float, int, int]:
        """(value, push_risk_permille, mana_target) of the best rule of the family
        (every permille at which a decision can change, every target 0..12)."""
        cuts = {0, 1000}
        for key in list(self._all_keys()):
            if self.m.on_deck(key) >= 0:
                cuts.add(min(1000, math.ceil(self.risk(key) * 1000 - 1e-9)))
        best = (-1.0, 0, 0)
        for target in range(0, SEARCH_RANGES["mana_target"][1] + 1):
            for t in sorted(cuts):
                v = self.exact_value(t, target)
                if v > best[0] + 1e-12:
                    best = (v, t, target)
        return best

    def _all_keys(self):
        seen, frontier = set(), list(self.start)
        for _ in range(self.horizon + 1):
            nxt = []
            for k in frontier:
                if k in seen:
                    continue
                seen.add(k)
                if self.m.on_deck(k) >= 0:
                    nxt += [k2 for _, sp, k2 in self.push(k) if not sp]
            frontier = nxt
        return seen

    def evaluate(self, policies, seed: int, field, on_games=None):
        u = np.random.default_rng(seed).random((self.deals, self.horizon + 1))
        starts = list(self.start.items())
        cum0 = np.cumsum([float(p) for _, p in starts])
        rows = []
        for pol in policies:
            t, target = pol.push_risk_permille, pol.mana_target
            out = np.zeros(self.deals)
            for d in range(self.deals):
                i0 = int(np.searchsorted(cum0, u[d, 0], "right"))
                if i0 >= len(starts):          # the Prep spoiled (the missing mass): 0
                    continue
                key = starts[i0][0]
                h, score = self.horizon, None
                while self.pushes(key, h, t, target):
                    edges = self.push(key)
                    c = np.cumsum([p for p, _, _ in edges])
                    j = min(int(np.searchsorted(c, u[d, self.horizon - h + 1] * c[-1], "right")),
                            len(edges) - 1)         # the edges of a push sum to 1
                    _, sp, k2 = edges[j]
                    if sp:
                        score = 0.0
                        break
                    key, h = k2, h - 1
                out[d] = self.mana(key) if score is None else score
            rows.append(out)
            if on_games:
                on_games(self.deals)
        return np.array(rows), np.arange(self.deals)
