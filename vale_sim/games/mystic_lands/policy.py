"""Mystic Lands scripted policies: plain integer data the engines read
(docs/mystic-lands-engine-spec.md §6).

A :class:`Policy` is a frozen dataclass of integers, a few mode words and a
tuple of :class:`BuyRule`.  Presets are in :data:`PRESETS`; rule bots are TOML
files (``policies/*.toml``) parsed and validated by :func:`load_policy`, never
evaluated as code.  Every error is one line naming the file or policy, the
field and the fix.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...policy_files import (INT_LIMIT, MAX_FILE_BYTES, BuyRuleBase,  # noqa: F401
                             PolicyBook, PolicyError, check_policy_fields, dataclass_repr)

RAIN_MODES = ("needed", "never")                     # spec §6.2
WITHER_CHOICES = ("best", "mana", "spirit", "vp")    # spec §6.3
CONVERT_MODES = ("bought", "always", "never")        # spec §6.7
RULE_TARGETS = ("card", "level", "vale")
RULE_CONDITIONS = ("mana_at_least", "mana_at_most", "round_at_least", "round_at_most",
                   "vp_at_most", "owned_at_most")
_MODES = {"rain": RAIN_MODES, "wither_choice": WITHER_CHOICES, "convert": CONVERT_MODES}
#: The fields of a value player's model (docs/value.md): set from its model file.
VALUE_FIELDS = ("value_stages", "value_adv", "value_vale")
#: Fields added after bundled results recorded policy digests: left out of the repr (so
#: of policy_digest) while they hold their default.
_ADDED_FIELDS = ("explore_permille",) + VALUE_FIELDS


@dataclass(frozen=True)
class BuyRule(BuyRuleBase):
    """One line of a rule bot: a target and conditions (all must hold).

    ``target`` "card" (an Advance or Vale name), "level" ("1"/"2": the best
    Advance of that level) or "vale" ("best": the best Vale spot)."""
    vp_at_most: int | None = None
    owned_at_most: int | None = None

    def holds(self, mana: int, round_: int, vp: int, owned: int) -> bool:
        return not ((self.mana_at_least is not None and mana < self.mana_at_least)
                    or (self.mana_at_most is not None and mana > self.mana_at_most)
                    or (self.round_at_least is not None and round_ < self.round_at_least)
                    or (self.round_at_most is not None and round_ > self.round_at_most)
                    or (self.vp_at_most is not None and vp > self.vp_at_most)
                    or (self.owned_at_most is not None and owned > self.owned_at_most))


@dataclass(frozen=True)
class Policy:
    """How a scripted player decides (spec §6 gives the exact integer rules)."""
    name: str = "balanced"
    # Night: Grow while (cards of the next reveal that would Wither) * 1000
    # <= rest_risk_permille * (cards it may come from).  0 = cautious.
    rest_risk_permille: int = 250
    rain: str = "needed"              # place Rain tokens when a reveal would Wither; or never
    wither_choice: str = "best"       # the resource chosen after Withering
    # Advance score: weights times the card's icons, effects and cost.
    w_mana: int = 3
    w_spirit: int = 2
    w_vp: int = 4
    w_end_vp: int = 2
    w_cloud: int = 3
    w_sun: int = -3
    w_rain: int = 1
    w_aspect: int = 1
    w_effect: int = 1
    w_cost: int = 0
    min_score: int = 1
    # Vale spot score.
    w_vale_vp: int = 3
    w_vale_reward: int = 1
    w_vale_effect: int = 2
    w_vale_cost: int = -1
    vale_min_score: int = 0
    convert: str = "bought"           # conversions: when mana would be lost anyway
    convert_mana: int = 10            # ... or when at least this much mana is left ("bought")
    remove_below: int = 0             # Grasping Vines: remove the worst Land card if its value < this
    # Optional effects (M19): declined when the card's value (2 mana + 2 spirit + 3 VP of its
    # left edge, never negative) is below the threshold; 0 = always used.
    dryad_min_value: int = 0          # Hibiscus Dryad: play the on-deck card only if worth this
    parrot_min_value: int = 0         # Sun Parrot: make its card the on-deck card only if worth this
    rules: tuple = ()
    never: tuple = ()                 # names never bought nor enchanted
    # Buy a random affordable Market Advance with this chance per mille at each buy step
    # (spec §6.4; meant for training a value player and for card statistics)
    explore_permille: int = 0
    # A value player (docs/value.md; spec §6.14): with value_stages > 0 the Advance and
    # spot scores are its learned values at the game's stage, the weights
    # [stage][feature] of value.ADV_SPEC / VALE_SPEC (scaled integers), not the w_* above.
    value_stages: int = 0
    value_adv: tuple = ()
    value_vale: tuple = ()

    def __post_init__(self):
        check_policy_fields(self, BuyRule, modes=_MODES,
                            permille=("rest_risk_permille", "explore_permille"),
                            tables=VALUE_FIELDS)
        from ...value import check_policy_weights
        from .value import ADV_SPEC, VALE_SPEC
        check_policy_weights(self, ADV_SPEC, VALE_SPEC, PolicyError)

    def __repr__(self) -> str:
        return dataclass_repr(self, _ADDED_FIELDS)


PRESETS: dict[str, Policy] = {
    "balanced": Policy(name="balanced"),
    "cautious": Policy(name="cautious", rest_risk_permille=0),
    "greedy": Policy(name="greedy", rest_risk_permille=500, w_mana=4, w_sun=-1),
    "spirit": Policy(name="spirit", w_spirit=5, w_mana=2, w_vale_vp=4, w_vale_reward=2,
                     wither_choice="spirit"),
    "vp": Policy(name="vp", w_vp=7, w_end_vp=4, w_mana=2, wither_choice="vp",
                 convert="always"),
}
DEFAULT_POLICY = "balanced"
POLICY_DIR = Path(__file__).parent / "policies"


def _check_target(t: str, value) -> "str | None":
    if t == "level" and value not in (1, 2):
        return "level must be 1 or 2"
    if t == "vale" and value != "best":
        return "vale must be \"best\""
    return None


BOOK = PolicyBook(Policy, BuyRule, PRESETS, POLICY_DIR, RULE_TARGETS, RULE_CONDITIONS,
                  _check_target, default=DEFAULT_POLICY, max_bytes=MAX_FILE_BYTES)
# get_policy(a preset name, a bundled rule bot, a file or a Policy); policies_for(players,
# specs); bundled_policy_files(); load_policy(path): a rule bot (base, fields, [[buy]]);
# policy_label(policy); presets(): the presets and bundled bots
(get_policy, policies_for, bundled_policy_files, load_policy, policy_label,
 presets) = BOOK.functions()


def check_policies(cs, policies) -> list[Policy]:
    """Validate policies against a card set: every named card exists.  Returns them."""
    names = {a.name for a in cs.advances if a.level} | {v.name for v in cs.vales} | {
        s.name for s in cs.map.spaces if s.kind == "small"}
    return BOOK.check_cards(policies, names, cs.name, "an Advance or Vale")


def _value_policy(path, data):
    from ...value import policy_from_file
    from .value import ADV_SPEC, VALE_SPEC
    return policy_from_file(path, data, BOOK, ADV_SPEC, VALE_SPEC, "mystic-lands")


BOOK.kinds["value"] = _value_policy


# ---------------------------------------------------------------------------
# The search player (docs/search.md)
# ---------------------------------------------------------------------------
#: The rollout policy of ``search`` when none is given.
SEARCH_DEFAULT_ROLLOUT = "balanced"
#: The kinds of decision a search player makes (fast/search.py PH_PUSH, PH_VALE, PH_ADV):
#: Grow or Rest, each enchantment step, each buy step.
DECISION_KINDS = ("push", "vale", "advancement")


@dataclass(frozen=True)
class SearchPolicy(Policy):
    """A search player: the fields of its rollout policy (every choice the search does
    not make is that policy's), and how it searches: ``search_k`` rollouts per option,
    ``search_halving``, the policy its rollouts give the opponents (``search_opponents``;
    None: the rollout policy) and the kinds of decision it searches."""
    search_k: int = 64
    search_halving: bool = False
    search_opponents: Policy | None = None
    search_decides: tuple = DECISION_KINDS

    def __post_init__(self):
        pass          # made by make_search_policy from checked policies only

    __repr__ = Policy.__repr__


def _install_search():
    from ...search import install
    return install(BOOK, Policy, SearchPolicy, SEARCH_DEFAULT_ROLLOUT, DECISION_KINDS)


#: make_search_policy(SearchSpec, name=None) -> SearchPolicy; ``search...`` names and
#: ``kind = "search"`` files through BOOK (vale_sim.search.install)
make_search_policy = _install_search()


def rollout_policy(pol: SearchPolicy) -> Policy:
    """The scripted policy a search player's own fields are (its rollout policy)."""
    from ...search import rollout_policy as scripted
    return scripted(pol, Policy)


# ---------------------------------------------------------------------------
# The search space of vale-sim optimize / exploit (docs/optimize.md §1)
# ---------------------------------------------------------------------------
#: Search ranges of integer fields (inclusive).  Fields not listed: 0..1000 for
#: ``*_permille`` (rest_risk_permille), else -10..10 (the weights, remove_below).
#: ``rain``, ``wither_choice`` and ``convert`` join through RAIN_MODES,
#: WITHER_CHOICES and CONVERT_MODES.
SEARCH_RANGES: dict[str, tuple[int, int]] = {
    "min_score": (-10, 20),
    "vale_min_score": (-10, 20),
    "convert_mana": (0, 20),
    # a card's value (spec §6.8: 2 mana + 2 spirit + 3 VP of its left edge); 0 = always used
    "dryad_min_value": (0, 15),
    "parrot_min_value": (0, 15),
}
#: Fields never searched: the lists, random buying (for training and card statistics)
#: and a value player's weights.
SEARCH_EXCLUDED = ("name", "rules", "never", "explore_permille") + VALUE_FIELDS


def search_space() -> dict:
    """What the policy search may vary (``Game.search_space``; vale_sim.optimize)."""
    import sys
    return {"policy": Policy, "module": sys.modules[__name__], "ranges": SEARCH_RANGES,
            "excluded": SEARCH_EXCLUDED, "int_limit": INT_LIMIT}
