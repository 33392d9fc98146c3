"""A toy game, push-your-luck dice ("pig"): the smallest complete
:class:`~vale_sim.games.base.Game`, following the package template of
docs/architecture.md in one file (card set ``Dice``, policies, rule options,
reference engine, results frame, golden games; no fast engine).

The tests register it as ``--game pig`` (GAMES["pig"] = "pig": this module,
importable because pytest puts tests/ on sys.path): tests/test_architecture.py
runs it through the shared runner, tournament, experiments and CLI, and
tests/test_conformance.py runs the conformance checks of
vale_sim/games/conformance.py over it as over every registered game.
Regenerate its golden files with ``python tests/pig.py``.
"""
from __future__ import annotations

import hashlib
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from vale_sim.games import Game
from vale_sim.rng import GameRng

@dataclass(frozen=True)
class Dice:
    name: str = "d6"
    faces: tuple = (1, 2, 3, 4, 5, 6)
    path: object = None

    def digest(self) -> str:
        return hashlib.sha256(repr(self.faces).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class PigPolicy:
    name: str
    hold_at: int


@dataclass(frozen=True)
class PigRules:
    target: int = 40
    max_rounds: int = 30


PRESETS = {"bold": PigPolicy("bold", 25), "cautious": PigPolicy("cautious", 8)}


def load_dice(spec):
    if isinstance(spec, Dice):
        return spec
    if spec == "d6":
        return Dice()
    raise ValueError(f"{spec}: unknown dice set; use d6")


def validate_dice(cs, players):
    if players not in (2, 3):
        raise ValueError(f"{cs.name}: {players} players is not supported (use 2 or 3 players)")


def get_pig_policy(spec):
    if isinstance(spec, PigPolicy):
        return spec
    if spec in PRESETS:
        return PRESETS[spec]
    raise ValueError(f"unknown policy {spec!r}: use one of {', '.join(PRESETS)}")


@dataclass
class PigRecord:
    game_index: int
    results: list
    log: list
    rounds: int
    truncated: bool
    turns: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"game": self.game_index, "rounds": self.rounds, "truncated": self.truncated,
                "results": [vars(r) for r in self.results]}


def play_pig(cs, players, seed, game_index=0, policies=None, rules=None):
    rules = rules or PigRules()
    pols = [get_pig_policy(p) for p in policies]
    rng = GameRng(seed, game_index)
    start = rng.randbelow(players)
    score, busts, log, turns = [0] * players, [0] * players, [], []
    rounds = 0
    while rounds < rules.max_rounds and max(score) < rules.target:
        rounds += 1
        for k in range(players):
            p = (start + k) % players
            total = 0
            while total < pols[p].hold_at:
                roll = cs.faces[rng.randbelow(len(cs.faces))]
                if roll == 1:
                    busts[p] += 1
                    total = 0
                    break
                total += roll
            score[p] += total
            turns.append((rounds, p, total))
            log.append(f"round {rounds}: P{p} banks {total}")
    best = max(score)
    winners = [p for p in range(players) if score[p] == best]
    results = [types.SimpleNamespace(player=p, seat=(p - start) % players, policy=pols[p].name,
                                     score=score[p], busts=busts[p],
                                     win_share=1 / len(winners) if p in winners else 0.0)
               for p in range(players)]
    return PigRecord(game_index, results, log, rounds, max(score) < rules.target, turns)


def pig_frame(records, cs):
    return pd.DataFrame([{"game": g.game_index, "player": r.player, "seat": r.seat,
                          "policy": r.policy, "score": r.score, "win_share": r.win_share,
                          "rounds": g.rounds, "truncated": g.truncated, "busts": r.busts}
                         for g in records for r in g.results])


PIG = Game(name="pig", title="Pig", package="pig", default_card_set="d6",
           bundled_card_sets=lambda: {"d6": None}, load_card_set=load_dice,
           validate_playable=validate_dice, presets=tuple(PRESETS), default_policy="cautious",
           get_policy=get_pig_policy, check_policies=lambda cs, pols: [get_pig_policy(p) for p in pols],
           rules_class=PigRules, play_reference=play_pig, results_frame=pig_frame,
           run_fast=None, event_column="busts", players=(2, 3), golden_module="pig")
GAME = PIG


# -- golden games (the protocol of vale_sim.games.conformance.check_golden) -----------
GOLDEN_DIR = Path(__file__).resolve().parent / "golden" / "pig"


@dataclass(frozen=True)
class Case:
    name: str
    players: int
    seed: int
    policies: tuple
    game_index: int = 0


CASES = (Case("pig-2p-bold-cautious", 2, 3, ("bold", "cautious")),
         Case("pig-3p-mixed", 3, 8, ("cautious", "bold", "cautious"), game_index=5))


def play_case(case: Case, engine: str = "reference") -> PigRecord:
    if engine != "reference":
        raise ValueError("pig has no fast engine")
    return play_pig(Dice(), case.players, case.seed, case.game_index, list(case.policies))


def record_lines(rec: PigRecord) -> list[str]:
    """The engine-independent part: the game, its turns and results, one line each."""
    return ([f"rounds={rec.rounds} truncated={int(rec.truncated)}", "## turns"]
            + [f"round={r} player={p} banked={t}" for r, p, t in rec.turns] + ["## results"]
            + [f"player={r.player} seat={r.seat} policy={r.policy} score={r.score} "
               f"busts={r.busts} win_share={r.win_share:.4f}" for r in rec.results])


def render(case: Case, rec: PigRecord) -> str:
    out = ["# pig golden playthrough (regenerate: python tests/pig.py)",
           f"config: players={case.players} seed={case.seed} game={case.game_index} "
           f"policies={','.join(case.policies)}", "## log"] + rec.log + ["## record"] \
        + record_lines(rec)
    return "\n".join(out) + "\n"


def registered(monkeypatch) -> Game:
    """Register pig as --game pig for one test (GAMES and sys.modules, undone after)."""
    from vale_sim import games as games_mod
    monkeypatch.setitem(sys.modules, "pig", sys.modules[__name__])
    monkeypatch.setitem(games_mod.GAMES, "pig", "pig")
    return PIG


if __name__ == "__main__":                      # pragma: no cover
    from vale_sim.games.base import write_cases
    for p in write_cases(GOLDEN_DIR, CASES, render, play_case):
        print(p)
