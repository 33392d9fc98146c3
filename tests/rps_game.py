"""A toy game with a known meta-game, for tests/test_meta.py: rock-paper-scissors with
biased odds.  Each policy throws one of rock (0), paper (1), scissors (2); every pair of
players meets once per game, ``p`` beating ``q`` with probability ``1/2 + EDGE[t_p][t_q]``
(EDGE antisymmetric: paper beats rock by A, rock beats scissors by B, scissors beat paper
by C); the players with the most wins share the win.  At 2 players the meta-game is
the zero-sum game EDGE, whose Nash mixture is proportional to (C, B, A) over (rock, paper,
scissors); at any player count a uniform EDGE (A = B = C) is symmetric under the cycle,
so the uniform mixture is its equilibrium."""
from __future__ import annotations

import sys
from dataclasses import dataclass

from toy_game import ToyRecord, policy_getter, seat_results, shared_wins, toy_frame, toy_game
from vale_sim.rng import GameRng
from vale_sim.study import META

A, B, C = 0.2, 0.3, 0.4          # paper > rock, rock > scissors, scissors > paper
NASH_2P = tuple(v / (A + B + C) for v in (C, B, A))


@dataclass(frozen=True)
class Hands:
    name: str = "hands"
    edge: tuple = ((0.0, -A, B), (A, 0.0, -C), (-B, C, 0.0))
    path: object = None

    def digest(self) -> str:
        return repr(self.edge)


@dataclass(frozen=True)
class RpsPolicy:
    name: str = "rock"
    throw: int = 0
    noise: int = 0           # rolls thrown away first: changes the games, not their law


PRESETS = {"rock": RpsPolicy("rock", 0), "paper": RpsPolicy("paper", 1),
           "scissors": RpsPolicy("scissors", 2)}


@dataclass(frozen=True)
class RpsRules:
    rounds: int = 1


get_policy = policy_getter(PRESETS, RpsPolicy, "rock")    # presets and the files meta writes


def play(cs, players, seed, game_index=0, policies=None, rules=None):
    cs = cs if isinstance(cs, Hands) else Hands()
    pols = [get_policy(p) for p in policies]
    rng = GameRng(seed, game_index)
    start = rng.randbelow(players)
    for p in range(players):
        for _ in range(pols[p].noise):
            rng.randbelow(6)
    wins = [0] * players
    for p in range(players):
        for q in range(p + 1, players):
            u = rng.randbelow(10_000) / 10_000
            if u < 0.5 + cs.edge[pols[p].throw][pols[q].throw]:
                wins[p] += 1
            else:
                wins[q] += 1
    return ToyRecord(game_index, seat_results(pols, start, wins, shared_wins(wins)))


def space():
    return {"policy": RpsPolicy, "module": sys.modules[__name__],
            "ranges": {"throw": (0, 2), "noise": (0, 10)}, "excluded": ("name",)}


GAME = toy_game(name="rps", title="Biased rock-paper-scissors", package="rps_game",
                card_set=Hands(), presets=PRESETS, default_policy="rock", get_policy=get_policy,
                rules_class=RpsRules, play=play, players=(2, 3, 4), search_space=space,
                studies=(META,))
