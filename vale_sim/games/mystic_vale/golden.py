"""Golden playthroughs: whole games recorded as readable text.

Each case (configuration + seed) is played by the reference engine and stored
in ``tests/golden/NAME.txt``: the configuration, the readable event log (every
push, reveal, spoil, purchase, sleeve, Prep) and the turn-by-turn records and
final results, one line each.  The tests replay every case with both engines
and compare with the file, so an unintended change to the rules or the random
stream shows up as a readable diff.  Regenerate with ``vale-sim golden --regenerate``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..base import record_section, turns_and_results, write_cases  # noqa: F401  (record_section: the tests)
from .records import GameRecord
from .rules import Rules

GOLDEN_DIR = Path(__file__).resolve().parents[3] / "tests" / "golden"


@dataclass(frozen=True)
class Case:
    name: str
    card_set: str            # bundled name, or "random:N" for synthetic.random_card_set(N)
    players: int
    seed: int
    policies: tuple
    prep_count: str = "net"
    game_index: int = 0
    vp_pool: int | None = None           # the rulebook's unless given (short games)

    def load_set(self):
        if self.card_set.startswith("random:"):
            from .synthetic import random_card_set
            return random_card_set(int(self.card_set.split(":")[1]))
        from .cards import load_card_set
        return load_card_set(self.card_set)

    def rules(self) -> Rules:
        return Rules(prep_count=self.prep_count, vp_pool=self.vp_pool)

    def header(self) -> str:
        return (f"config: set={self.card_set} players={self.players} seed={self.seed} "
                f"game={self.game_index} policies={','.join(self.policies)} "
                f"prep_count={self.prep_count}"
                + (f" vp_pool={self.vp_pool}" if self.vp_pool is not None else ""))


def explore_policy(name: str, permille: int):
    from dataclasses import replace
    from .policy import get_policy
    return replace(get_policy(name), explore_permille=permille, name=f"{name}+explore")


CASES = (
    Case("core-2p-balanced-greedy", "core", 2, 7, ("balanced", "greedy")),
    Case("core-3p-mixed", "core", 3, 11, ("spirit-rush", "vp-rush", "cautious")),
    Case("core-4p-rules-bots", "core", 4, 13, ("warden-rush", "fertile-first", "greedy", "mana-target")),
    Case("core-2p-gross-prep", "core", 2, 17, ("balanced", "balanced"), prep_count="gross"),
    Case("random-3p-explore", "random:5", 3, 19, ("balanced+explore", "greedy", "vp-rush")),
    Case("random-2p-big-seed", "random:9", 2, 2**64 - 3, ("greedy+explore", "cautious"), game_index=41),
    # rules.md I16: a policy whose Mindful Owl / Deadwood Harvester discards cycled cards
    # for 200 plays (I15) declines them after 20 plays of a phase: no phase reaches the cap
    Case("core-2p-declined-discards", "core", 2, 1555537883283606233,
         ("spirit-rush", "cycling+discard-20"), game_index=9),
    # docs/search.md: a search player (K = 2, halving) against its rollout policy, short game
    Case("core-2p-search", "core", 2, 23, ("search:k=2:rollout=optimized-2p:halving=1",
                                           "optimized-2p"), vp_pool=8),
)

#: A policy the policy search once proposed (docs/optimize.md, rules.md I15): with it,
#: game 9 of seed 1555537883283606233 cycles the same cards through its Preps.
CYCLING = dict(push_risk_permille=17, w_mana=1, w_spirit=2, w_harvest_vp=-6, w_end_vp=-3,
               w_growth=4, w_decay=8, w_guardian=-1, w_ability=10, w_cost=-6, min_score=-4,
               w_vale_vp=6, w_vale_ability=3, vale_min_score=-5, avoid_decay_stack=False)


def case_policies(case: Case):
    out = []
    for name in case.policies:
        if name == "cycling+discard-20":
            from .policy import Policy
            out.append(Policy(name=name, discard_field_plays=20, **CYCLING))
        elif name.endswith("+explore"):
            out.append(explore_policy(name[: -len("+explore")], 300))
        else:
            out.append(name)
    return out


def record_lines(rec: GameRecord) -> list[str]:
    """The engine-independent part: turn records and results, one line each."""
    return ([f"starting_player={rec.starting_player} rounds={rec.rounds} "
             f"truncated={int(rec.truncated)}"] + turns_and_results(rec))


def play_case(case: Case, engine: str = "reference") -> GameRecord:
    cs = case.load_set()
    if engine == "reference":
        from .reference.search import play_reference      # search players too
        return play_reference(cs, case.players, case.seed, case.game_index, case_policies(case), case.rules())
    from .fast.api import play_game_fast
    return play_game_fast(cs, case.players, case.seed, case.game_index, case_policies(case), case.rules())


def render(case: Case, rec: GameRecord) -> str:
    out = ["# vale-sim golden playthrough (regenerate: vale-sim golden --regenerate)", case.header(),
           "## log"] + rec.log + ["## record"] + record_lines(rec)
    return "\n".join(out) + "\n"


def regenerate(directory: Path = GOLDEN_DIR) -> list[Path]:
    return write_cases(directory, CASES, render, play_case)
