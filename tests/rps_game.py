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
import types
from dataclasses import dataclass, field

import pandas as pd

from vale_sim.games import Game
from vale_sim.rng import GameRng

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


def get_policy(spec):
    if isinstance(spec, RpsPolicy):
        return spec
    if spec in PRESETS:
        return PRESETS[spec]
    if isinstance(spec, str) and spec.endswith(".toml"):      # a file vale-sim meta wrote
        import tomllib
        from dataclasses import replace
        with open(spec, "rb") as f:
            data = tomllib.load(f)
        base = PRESETS[data.get("base", "rock")]
        return replace(base, **{k: data[k] for k in ("name", "throw", "noise") if k in data})
    raise ValueError(f"unknown policy {spec!r}: use one of {', '.join(PRESETS)}")


@dataclass
class Record:
    game_index: int
    results: list
    log: list = field(default_factory=list)
    turns: list = field(default_factory=list)
    rounds: int = 1
    truncated: bool = False

    def to_dict(self) -> dict:
        return {"game": self.game_index, "results": [vars(r) for r in self.results]}


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
    top = max(wins)
    k = wins.count(top)
    results = [types.SimpleNamespace(player=p, seat=(p - start) % players, policy=pols[p].name,
                                     score=wins[p], busts=0,
                                     win_share=1.0 / k if wins[p] == top else 0.0)
               for p in range(players)]
    return Record(game_index, results)


def frame(records, cs):
    return pd.DataFrame([{"game": g.game_index, "player": r.player, "seat": r.seat,
                          "policy": r.policy, "score": r.score, "win_share": r.win_share,
                          "rounds": 1, "truncated": False, "busts": r.busts}
                         for g in records for r in g.results])


def space():
    return {"policy": RpsPolicy, "module": sys.modules[__name__],
            "ranges": {"throw": (0, 2), "noise": (0, 10)}, "excluded": ("name",)}


from vale_sim.study import META  # noqa: E402

GAME = Game(name="rps", title="Biased rock-paper-scissors", package="rps_game",
            default_card_set="hands", bundled_card_sets=lambda: {"hands": None},
            load_card_set=lambda spec: spec if isinstance(spec, Hands) else Hands(),
            validate_playable=lambda cs, players: None, presets=tuple(PRESETS),
            default_policy="rock", get_policy=get_policy,
            check_policies=lambda cs, pols: [get_policy(p) for p in pols],
            rules_class=RpsRules, play_reference=play, results_frame=frame, run_fast=None,
            event_column="busts", players=(2, 3, 4), search_space=space,
            studies=(META,))
