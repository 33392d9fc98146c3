"""Mystic Lands golden playthroughs: whole games recorded as readable text.

Each case (players, policies, rule options, seed, game index) is played by the
reference engine and stored in ``tests/golden/mystic_lands/NAME.txt``: the
configuration, the readable log, then every turn record and the final results,
one line each.  ``tests/test_conformance.py`` (``vale_sim.games.conformance.check_golden``) replays
every case with both engines
and compares with the file, so an unintended change of the rules, the random
stream or a decision shows up as a readable diff.  Regenerate (and review
``git diff tests/golden/mystic_lands``) with::

    vale-sim golden --game mystic-lands --regenerate    # or: python -m vale_sim.games.mystic_lands.golden

(``vale-sim golden --game mystic-lands`` without ``--regenerate`` checks the files.)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..base import format_value, record_section, turns_and_results, write_cases  # noqa: F401  (record_section: the tests)
from .records import GameRecord
from .rules import Rules

GOLDEN_DIR = Path(__file__).resolve().parents[3] / "tests" / "golden" / "mystic_lands"


@dataclass(frozen=True)
class Case:
    name: str
    players: int
    seed: int
    policies: tuple
    game_index: int = 0
    rules: dict = field(default_factory=dict)      # Rules fields that differ from the manual's

    def rules_obj(self) -> Rules:
        return Rules(**self.rules)

    def header(self) -> str:
        opts = " ".join(f"{k}={v}" for k, v in sorted(self.rules.items()))
        return (f"config: set=mystic-lands players={self.players} seed={self.seed} "
                f"game={self.game_index} policies={','.join(self.policies)}"
                + (f" rules: {opts}" if opts else ""))


CASES = (
    Case("ml-2p-balanced-greedy", 2, 7, ("balanced", "greedy")),
    Case("ml-3p-rule-bots", 3, 11, ("vale-rush", "rain-dancer", "cautious")),
    Case("ml-4p-presets-big-seed", 4, 2**64 - 3, ("spirit", "vp", "greedy", "balanced"),
         game_index=41),
    Case("ml-2p-harsh-nights", 2, 23, ("cautious", "vp"),
         rules={"wither_suns": 3, "rain_supply": 4, "max_buys": 3, "held_end_vp": False}),
    # the disputed readings of docs/mystic-lands-rules.md M17 and M18, as rule options
    Case("ml-2p-disputed-rules", 2, 8, ("balanced", "greedy"),
         rules={"ongoing_everywhere": True, "effect_enchants_count": True}),
    # M19: policies that decline Hibiscus Dryad and Sun Parrot (PICKY)
    Case("ml-2p-declines-optional", 2, 7, ("balanced+picky", "greedy+picky")),
    # docs/search.md: a search player (K = 2, halving) against its rollout policy, short game
    Case("ml-2p-search", 2, 23, ("search:k=2:rollout=meta-2p:halving=1", "meta-2p"),
         rules={"end_vp": 12}),
)
#: "NAME+picky": the preset NAME declining the optional effects of low-value cards (M19)
PICKY = {"dryad_min_value": 6, "parrot_min_value": 9}


def case_policies(case: Case) -> list:
    from dataclasses import replace
    from .policy import get_policy
    out = []
    for name in case.policies:
        if name.endswith("+picky"):
            out.append(replace(get_policy(name[:-len("+picky")]), name=name, **PICKY))
        else:
            out.append(name)
    return out


def record_lines(rec: GameRecord) -> list[str]:
    """The engine-independent part: the game, turn records and results, one line each."""
    return ([f"starting_player={rec.starting_player} rounds={rec.rounds} "
             f"truncated={int(rec.truncated)} layout={format_value(rec.layout)}"]
            + turns_and_results(rec))


def play_case(case: Case, engine: str = "reference") -> GameRecord:
    from . import GAME
    cs = GAME.load_card_set(GAME.default_card_set)
    if engine == "reference":
        return GAME.play_reference(cs, case.players, case.seed, case.game_index,
                                   case_policies(case), case.rules_obj())
    from .fast.api import play_game_fast
    return play_game_fast(cs, case.players, case.seed, case.game_index, case_policies(case),
                          case.rules_obj())


def render(case: Case, rec: GameRecord) -> str:
    # the first line names the command as it was when the files were written (the files stay
    # byte-identical); fast/golden.py still runs it
    out = ["# vale-sim Mystic Lands golden playthrough "
           "(regenerate: python -m vale_sim.games.mystic_lands.fast.golden)", case.header(),
           "## log"] + list(rec.log) + ["## record"] + record_lines(rec)
    return "\n".join(out) + "\n"


def regenerate(directory: Path = GOLDEN_DIR) -> list[Path]:
    return write_cases(directory, CASES, render, play_case)

if __name__ == "__main__":                      # pragma: no cover
    for p in regenerate():
        print(p)
