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
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from toy_game import ToyRecord, policy_getter, register, seat_results, shared_wins, toy_frame, toy_game
from vale_sim.games import Game
from vale_sim.rng import GameRng
from vale_sim.study import GOLDEN, OPTIMIZE, REPORT, Study

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
get_pig_policy = policy_getter(PRESETS, PigPolicy, "cautious")   # presets and policy files
PigRecord = ToyRecord
pig_frame = toy_frame


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
    results = seat_results(pols, start, score, shared_wins(score), busts)
    return ToyRecord(game_index, results, log, turns, rounds, max(score) < rules.target)


def search_space() -> dict:
    """What ``vale-sim optimize`` may vary (``Game.search_space``): the hold threshold."""
    return {"policy": PigPolicy, "module": sys.modules[__name__], "ranges": {"hold_at": (1, 40)},
            "excluded": ("name",)}


# -- card strength (vale_sim.advancements): the "cards" are hold thresholds ----------
TACTICS = {"hold-12": 12, "hold-20": 20}


def strength_arms(card, baseline):
    """prefer X: hold at the tactic's threshold; ban X: never hold there (one more)."""
    from dataclasses import replace
    base = get_pig_policy(baseline)
    at = TACTICS[card]
    return (replace(base, name=f"{base.name}:prefer:{card}", hold_at=at),
            replace(base, name=f"{base.name}:ban:{card}",
                    hold_at=base.hold_at if base.hold_at != at else at + 1))


def strength_cards(cs):
    return [(name, "tactic", 1, None) for name in TACTICS]


def strength_acquired(frame, cs, card):
    return frame["policy"].str.endswith(f":prefer:{card}").to_numpy()


# -- its own study: bust odds by hold threshold (`vale-sim bust-odds`, `study = "bust_odds"`)
def bust_odds(holds, turns: int, seed: int, cs=None) -> pd.DataFrame:
    """Per hold threshold: the share of ``turns`` simulated turns that bust."""
    cs = cs or Dice()
    rows = []
    for h in holds:
        busts = 0
        for i in range(turns):
            rng, total = GameRng(seed, i), 0
            while total < h:
                roll = cs.faces[rng.randbelow(len(cs.faces))]
                if roll == 1:
                    busts += 1
                    break
                total += roll
        rows.append({"hold_at": h, "turns": turns, "bust_share": busts / turns})
    return pd.DataFrame(rows)


def add_parser(sub) -> None:
    from vale_sim.limits import count, seed
    p = sub.add_parser("bust-odds", help="pig: the share of turns that bust, by hold threshold")
    p.add_argument("--hold", type=int, action="append", help="hold threshold (repeat)")
    p.add_argument("--turns", type=count(1), default=200)
    p.add_argument("--seed", type=seed, default=0)
    p.set_defaults(func=run_command)


def run_command(args) -> int:
    print(bust_odds(args.hold or [10, 20], args.turns, args.seed).to_csv(index=False), end="")
    return 0


def bust_odds_schema() -> dict:
    from vale_sim.experiments import _count, _int, _list_of
    return {"holds": (_list_of(_int(1, 100)), [10, 20]), "turns": (_count(1), 200)}


def run_bust_odds(exp, out, store, progress) -> dict:
    from vale_sim.experiments import _write_csv
    c = exp.config
    _write_csv(bust_odds(c["holds"], c["turns"], c["seed"]), out / "bust_odds.csv")
    return {"holds": len(c["holds"])}


# -- its report (vale_sim.report asks GAME.report for these) ----------------------------
@dataclass(frozen=True)
class Settings:
    size: str = "full"
    engine: str = "reference"
    card_set: str = "d6"
    seed: int = 1
    workers: int = 1
    turns: int = 400
    fallback_note: str = ""
    PRESETS = {s: ({}, {"turns": n}) for s, n in (("full", 400), ("quick", 100), ("tiny", 20))}

    @classmethod
    def make(cls, size="full", quick=False, engine="fast", **overrides):
        from vale_sim.report import settings_from_preset
        return settings_from_preset(cls, size, quick, engine, overrides, lambda: False,
                                    "pig has no fast engine: the reference engine plays.")

    def check(self):
        if self.turns < 1:
            raise ValueError(f"turns must be at least 1, got {self.turns}")

    def to_dict(self):
        return {f: getattr(self, f) for f in self.__dataclass_fields__}

    def games(self):
        return {"turns_per_threshold": self.turns}


def section_busts(ctx):
    from vale_sim.report import Section
    t = bust_odds([10, 20, 30], ctx.settings.turns, ctx.settings.seed, ctx.card_set())
    ctx.results["busts"] = t
    return Section("Bust odds", [f"n = {ctx.settings.turns} turns per threshold."],
                   {"bust_odds": t})


def sections():
    from vale_sim.report import section_manifest
    return [section_busts, section_manifest]


def title(settings):
    return f"Pig report ({settings.size})"


def verdicts(ctx):
    return []


def estimated_share(ctx):
    return None


def settings_from_config(c, **kw):
    return Settings.make(quick=c["quick"], **kw, **(c["sizes"] or {}))


def settings_from_args(args, card_set, cs):
    return Settings.make(quick=args.quick, engine=args.engine, seed=args.seed, card_set=card_set)


DEFAULT_OUT = "results/report-pig"
EXPERIMENT_FILE = "experiments/pig-report.toml"
TAKES_BASELINE = False


PIG = toy_game(name="pig", title="Pig", package="pig", card_set=Dice(), presets=PRESETS,
               default_policy="cautious", get_policy=get_pig_policy, rules_class=PigRules,
               play=play_pig, players=(2, 3), golden_module="pig",
               report="pig", strength_arms=strength_arms, strength_cards=strength_cards,
               strength_acquired=strength_acquired, search_space=search_space,
               studies=(REPORT, OPTIMIZE, GOLDEN,
                    Study("advancement_value", command="advancements",
                          parser="vale_sim.commands.advancements"),
                    Study("bust_odds", command="bust-odds", parser="pig",
                          schema="pig:bust_odds_schema", run="pig:run_bust_odds",
                          doc="the share of turns that bust, by hold threshold")))
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


def regenerate(directory: Path | None = None) -> list[Path]:
    from vale_sim.games.base import write_cases
    return write_cases(directory or GOLDEN_DIR, CASES, render, play_case)


def registered(monkeypatch) -> Game:
    """Register pig as --game pig for one test (GAMES and sys.modules, undone after)."""
    return register(monkeypatch, PIG, sys.modules[__name__])


if __name__ == "__main__":                      # pragma: no cover
    for p in regenerate():
        print(p)
