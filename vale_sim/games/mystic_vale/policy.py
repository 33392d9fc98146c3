"""Scripted policies: plain data the engines read (docs/engine-spec.md §6).

A :class:`Policy` is a frozen dataclass of integers and a tuple of
:class:`BuyRule`; the fast engine takes it as arrays (``policy_arrays``).
Named presets live in :data:`PRESETS`; policy files (TOML buy-rule lists) are
parsed by :func:`load_policy` — parsed and validated, never evaluated as code.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...policy_files import (INT_LIMIT, MAX_FILE_BYTES, BuyRuleBase,  # noqa: F401
                             PolicyBook, PolicyError, check_policy_fields, dataclass_repr)
from .rules import MAX_PHASE_PLAYS

TOKEN_MODES = ("needed", "never")
#: The fields of a value player's model (docs/value.md): set from its model file.
VALUE_FIELDS = ("value_stages", "value_adv", "value_vale", "value_vp")
#: Fields added after bundled results recorded policy digests: left out of the repr (so
#: of policy_digest) while they hold their default.
_ADDED_FIELDS = ("best_min_score", "push_bonus", "carry_decay_cost") + VALUE_FIELDS
PUSH_RULES = ("risk", "lookahead", "value")       # engine-spec §6.1
#: The push rules ``vale-sim optimize`` / ``exploit`` search over (optimize._choices_for
#: reads ``PUSH_RULE_MODES`` before ``PUSH_RULES``): the two rules it has always searched,
#: so that the bundled searches' commands reproduce their policies (a categorical field's
#: encoding depends on its choices).
PUSH_RULE_MODES = ("risk", "lookahead")
RULE_TARGETS = ("card", "level", "vale_ability", "best")
RULE_CONDITIONS = ("mana_at_least", "mana_at_most", "round_at_least",
                   "round_at_most", "pool_at_most", "owned_at_most")


@dataclass(frozen=True)
class BuyRule(BuyRuleBase):
    """One line of a buy-priority list: a target and conditions (all must hold).

    ``target`` is one of RULE_TARGETS; ``value`` is the card name, the level
    (as str), the vale ability kind, or "advancement"/"vale" for ``best``.
    Conditions absent from the file are ``None``.
    """
    pool_at_most: int | None = None
    owned_at_most: int | None = None

    def __post_init__(self):
        super().__post_init__()
        if self.owned_at_most is not None and self.target != "card":
            # the engines would read it differently (spec §6.5: copies of the target card)
            raise PolicyError(f"buy rule {self.target} {self.value!r}: owned_at_most applies "
                              "only to a 'card' rule")


@dataclass(frozen=True)
class Policy:
    """How a scripted player decides.  See engine-spec §6 for the exact use."""
    name: str = "balanced"
    # Planting: pass once field mana reaches mana_target; else push_rule decides
    # (engine-spec §6.1).  "risk": push while the exact risk that the next reveal
    # spoils is at most push_risk_permille/1000.  "lookahead": push while the
    # expected gain of one more push is at least the expected loss, the loss
    # scaled by lookahead_caution_permille/1000.  "value": push while the expected value
    # of the Harvest after one more push (the policy's own scores of what it would buy,
    # and its VP) is at least the value of the Harvest now, scaled by the same caution.
    push_risk_permille: int = 250
    mana_target: int = 0
    push_rule: str = "risk"
    lookahead_caution_permille: int = 1000
    # "value" only: what one push is worth beyond the Harvest it adds to (the policy's
    # score units; e.g. moving the deck on by a card), added to each push it weighs.
    push_bonus: int = 0
    # "value" only: what one net decay on the card left on deck at the end of a Planting
    # costs (it starts the next field, whose Prep then stops sooner); growth gains as much.
    carry_decay_cost: int = 0
    # Advancement score weights (integers) and the least score worth buying.
    w_mana: int = 3
    w_spirit: int = 2
    w_harvest_vp: int = 3
    w_end_vp: int = 2
    w_growth: int = 2
    w_decay: int = 4
    w_guardian: int = 1
    w_ability: int = 1
    w_cost: int = 0
    min_score: int = 1
    # Vales.
    w_vale_vp: int = 1
    w_vale_ability: int = 2
    vale_min_score: int = 0
    # Sleeving, mana token, Sunstone Aerie.
    avoid_decay_stack: bool = True
    token: str = "needed"
    use_sunstone: bool = True
    # rules.md I16: "may discard" When Played abilities (Deadwood Harvester, Mindful Owl)
    # are used only while fewer than this many cards were played before in the phase
    # (Planting or Prep); later plays decline, which ends a cycle of discards.  0 = never
    # used; 200 (= rules.MAX_PHASE_PLAYS, the I15 cap) = always used.
    discard_field_plays: int = MAX_PHASE_PLAYS
    # Buy randomly with this chance (per mille) per purchase: for card statistics.
    explore_permille: int = 0
    rules: tuple[BuyRule, ...] = ()
    # A `best` buy rule takes only cards scoring at least min_score (vales:
    # vale_min_score), as the policy without rules does (engine-spec §6.5).
    best_min_score: bool = False
    # Card names (advancements or vales) this player never buys: not even by a
    # buy rule or by exploration (engine-spec §6.3, §6.4).
    never: tuple[str, ...] = ()
    # A value player (docs/value.md; engine-spec §6.7): with value_stages > 0 the scores
    # of advancements and vales are its learned values at the game's stage, the weights
    # [stage][feature] of value.ADV_SPEC / VALE_SPEC (scaled integers), not the w_* above.
    value_stages: int = 0
    value_adv: tuple = ()
    value_vale: tuple = ()
    # [stage] the value of one VP token (the model's optional "vp" row, scaled as the
    # weights): the Harvest VP of the "value" push rule (engine-spec §6.1); () = 0.
    value_vp: tuple = ()

    def __post_init__(self):
        check_policy_fields(self, BuyRule, modes={"push_rule": PUSH_RULES, "token": TOKEN_MODES},
                            bools=("avoid_decay_stack", "use_sunstone", "best_min_score"),
                            permille=("push_risk_permille", "explore_permille"),
                            at_least_zero=("discard_field_plays", "mana_target",
                                           "lookahead_caution_permille"),
                            tables=VALUE_FIELDS)
        from ...value import check_policy_weights
        from .value import ADV_SPEC, VALE_SPEC
        check_policy_weights(self, ADV_SPEC, VALE_SPEC, PolicyError)

    def __repr__(self) -> str:
        return dataclass_repr(self, _ADDED_FIELDS)


PRESETS: dict[str, Policy] = {
    "balanced": Policy(name="balanced"),
    "cautious": Policy(name="cautious", push_risk_permille=0),
    "greedy": Policy(name="greedy", push_risk_permille=500, w_mana=4, w_cost=0),
    "spirit-rush": Policy(name="spirit-rush", w_spirit=5, w_mana=2, w_vale_vp=2,
                          w_vale_ability=1),
    "vp-rush": Policy(name="vp-rush", w_harvest_vp=6, w_end_vp=4, w_mana=2,
                      push_risk_permille=300),
    "mana-target": Policy(name="mana-target", push_risk_permille=400, mana_target=7),
    "lookahead": Policy(name="lookahead", push_rule="lookahead", lookahead_caution_permille=400),
}
DEFAULT_POLICY = "balanced"


def _check_target(t: str, value) -> "str | None":
    if t == "level" and value not in (1, 2, 3):
        return "level must be 1, 2 or 3"
    if t == "best" and value not in ("advancement", "vale"):
        return "best must be \"advancement\" or \"vale\""
    if t == "vale_ability":
        from .cards import VALE_ABILITIES
        if value not in VALE_ABILITIES:
            return f"unknown vale ability {value!r} (known: {', '.join(VALE_ABILITIES)})"
    return None


BOOK = PolicyBook(Policy, BuyRule, PRESETS, Path(__file__).parent / "policies", RULE_TARGETS,
                  RULE_CONDITIONS, _check_target, default=DEFAULT_POLICY,
                  card_only=("owned_at_most",), max_bytes=MAX_FILE_BYTES)
# get_policy(a preset name, a policy file path or a Policy); policies_for(players, specs);
# bundled_policy_files() (policies/*.toml); load_policy(path) (docs/policies.md);
# policy_label(policy) (its file, if it came from one, else its name); presets()
(get_policy, policies_for, bundled_policy_files, load_policy, policy_label,
 presets) = BOOK.functions()


def check_policies(cs, policies) -> list[Policy]:
    """The one check of policies against a card set, made before any game by every
    command (play, simulate, tournament, run): each buy rule's card must exist in
    ``cs``.  Returns the policies; PolicyError names the policy's file."""
    names = {a.name for a in cs.advancements} | {v.name for v in cs.vales}
    return BOOK.check_cards(policies, names, cs.name, "an advancement or vale")


# ---------------------------------------------------------------------------
# The search player (docs/search.md)
# ---------------------------------------------------------------------------
#: The rollout policy of ``search`` when none is given.
SEARCH_DEFAULT_ROLLOUT = "balanced"
#: The kinds of decision a search player makes (fast/search.py PH_PUSH, PH_VALE, PH_ADV).
DECISION_KINDS = ("push", "vale", "advancement")


@dataclass(frozen=True)
class SearchPolicy(Policy):
    """A search player: the fields of its rollout policy (every choice the search does
    not make is that policy's), and how it searches: ``search_k`` rollouts per option,
    ``search_halving``, and the policy its rollouts give the opponents
    (``search_opponents``; None: the rollout policy)."""
    search_k: int = 64
    search_halving: bool = False
    search_opponents: Policy | None = None
    search_decides: tuple = ("push", "vale", "advancement")   # the others: the policy's

    def __post_init__(self):
        pass          # made by make_search_policy from checked policies only

    __repr__ = Policy.__repr__


def _install_search():
    from vale_sim.search import install
    return install(BOOK, Policy, SearchPolicy, SEARCH_DEFAULT_ROLLOUT, DECISION_KINDS)


#: make_search_policy(SearchSpec, name=None) -> SearchPolicy; ``search...`` names and
#: ``kind = "search"`` files through BOOK (vale_sim.search.install)
make_search_policy = _install_search()


def _value_policy(path, data):
    from ...value import policy_from_file
    from .value import ADV_SPEC, VALE_SPEC
    return policy_from_file(path, data, BOOK, ADV_SPEC, VALE_SPEC, "mystic-vale")


BOOK.kinds["value"] = _value_policy


# Baselines: NAME | FILE, with {P} standing for the player count (--baseline)




# ---------------------------------------------------------------------------
# The search space of vale-sim optimize / exploit (docs/optimize.md §1)
# ---------------------------------------------------------------------------
#: Search ranges of integer fields (inclusive, inside the validation limits).  Fields
#: not listed: 0..1000 for ``*_permille``, else -10..10.  Categorical fields join
#: through their choices list (``token`` -> TOKEN_MODES, ``push_rule`` -> PUSH_RULES).
SEARCH_RANGES: dict[str, tuple[int, int]] = {
    "push_risk_permille": (0, 1000),
    "mana_target": (0, 12),
    "min_score": (-10, 20),
    "vale_min_score": (-10, 20),
    # rules.md I16: 0 (never discard) .. 200 (= MAX_PHASE_PLAYS: always, the default)
    "discard_field_plays": (0, MAX_PHASE_PLAYS),
}
#: Fields never searched: the lists, and random buying (meant for card statistics).
SEARCH_EXCLUDED = ("name", "rules", "never", "explore_permille",
                   "best_min_score", "push_bonus", "carry_decay_cost") + VALUE_FIELDS


def search_space() -> dict:
    """What the policy search may vary (``Game.search_space``; vale_sim.optimize)."""
    import sys
    return {"policy": Policy, "module": sys.modules[__name__], "ranges": SEARCH_RANGES,
            "excluded": SEARCH_EXCLUDED, "int_limit": INT_LIMIT}
