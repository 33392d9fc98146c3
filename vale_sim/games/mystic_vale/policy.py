"""Scripted policies: plain data the engines read (docs/engine-spec.md §6).

A :class:`Policy` is a frozen dataclass of integers and a tuple of
:class:`BuyRule`; the fast engine takes it as arrays (``policy_arrays``).
Named presets live in :data:`PRESETS`; policy files (TOML buy-rule lists) are
parsed by :func:`load_policy` — parsed and validated, never evaluated as code.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path

from ...inputs import read_policy_toml, unknown_card
from .rules import MAX_PHASE_PLAYS

TOKEN_MODES = ("needed", "never")
PUSH_RULES = ("risk", "lookahead")       # engine-spec §6.1
RULE_TARGETS = ("card", "level", "vale_ability", "best")
RULE_CONDITIONS = ("mana_at_least", "mana_at_most", "round_at_least",
                   "round_at_most", "pool_at_most", "owned_at_most")


INT_LIMIT = 10**6     # every integer of a policy (weights, scores, conditions): |v| <= 10**6


class PolicyError(ValueError):
    """A policy (preset name, file or parameter) is invalid."""


def _check_int(where: str, name: str, v) -> None:
    if isinstance(v, bool) or not isinstance(v, int):
        raise PolicyError(f"{where}: {name} must be an integer, got {v!r}")
    if not -INT_LIMIT <= v <= INT_LIMIT:
        raise PolicyError(f"{where}: {name} must be between -{INT_LIMIT} and {INT_LIMIT}, got {v}")


@dataclass(frozen=True)
class BuyRule:
    """One line of a buy-priority list: a target and conditions (all must hold).

    ``target`` is one of RULE_TARGETS; ``value`` is the card name, the level
    (as str), the vale ability kind, or "advancement"/"vale" for ``best``.
    Conditions absent from the file are ``None``.
    """
    target: str
    value: str
    mana_at_least: int | None = None
    mana_at_most: int | None = None
    round_at_least: int | None = None
    round_at_most: int | None = None
    pool_at_most: int | None = None
    owned_at_most: int | None = None

    def __post_init__(self):
        for cond in RULE_CONDITIONS:
            v = getattr(self, cond)
            if v is not None:
                _check_int(f"buy rule {self.target} {self.value!r}", f"condition {cond}", v)
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
    # scaled by lookahead_caution_permille/1000.
    push_risk_permille: int = 250
    mana_target: int = 0
    push_rule: str = "risk"
    lookahead_caution_permille: int = 1000
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
    # Card names (advancements or vales) this player never buys: not even by a
    # buy rule or by exploration (engine-spec §6.3, §6.4).
    never: tuple[str, ...] = ()

    def __post_init__(self):
        if isinstance(self.never, (list, tuple)) and all(isinstance(n, str) for n in self.never):
            object.__setattr__(self, "never", tuple(self.never))
        else:
            raise PolicyError(f"policy {self.name!r}: never must be a list of card names, got {self.never!r}")
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in ("name", "token", "push_rule", "rules", "never"):
                continue
            if f.name in ("avoid_decay_stack", "use_sunstone"):
                if not isinstance(v, bool):
                    raise PolicyError(f"policy {self.name!r}: {f.name} must be true or false, got {v!r}")
                continue
            _check_int(f"policy {self.name!r}", f.name, v)
        if not isinstance(self.name, str) or not self.name:
            raise PolicyError(f"policy name must be a non-empty string, got {self.name!r}")
        if not all(isinstance(r, BuyRule) for r in self.rules):
            raise PolicyError(f"policy {self.name!r}: rules must be BuyRule objects")
        if not 0 <= self.push_risk_permille <= 1000:
            raise PolicyError(f"policy {self.name!r}: push_risk_permille must be in 0..1000, got {self.push_risk_permille}")
        if not 0 <= self.explore_permille <= 1000:
            raise PolicyError(f"policy {self.name!r}: explore_permille must be in 0..1000, got {self.explore_permille}")
        if self.discard_field_plays < 0:
            raise PolicyError(f"policy {self.name!r}: discard_field_plays must be >= 0, "
                              f"got {self.discard_field_plays}")
        if self.mana_target < 0:
            raise PolicyError(f"policy {self.name!r}: mana_target must be >= 0")
        if self.push_rule not in PUSH_RULES:
            raise PolicyError(f"policy {self.name!r}: push_rule must be one of {PUSH_RULES}, got {self.push_rule!r}")
        if self.lookahead_caution_permille < 0:
            raise PolicyError(f"policy {self.name!r}: lookahead_caution_permille must be >= 0, "
                              f"got {self.lookahead_caution_permille}")
        if self.token not in TOKEN_MODES:
            raise PolicyError(f"policy {self.name!r}: token must be one of {TOKEN_MODES}, got {self.token!r}")


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


def get_policy(spec: "str | Policy") -> Policy:
    """A preset name, a policy file path, or a Policy -> Policy."""
    if isinstance(spec, Policy):
        return spec
    if spec is None or not str(spec).strip():
        raise PolicyError(f"no policy named: give one of {', '.join(list(PRESETS) + list(bundled_policy_files()))} "
                          "or a policy .toml file")
    if spec in PRESETS:
        return PRESETS[spec]
    if spec in bundled_policy_files():
        return load_policy(bundled_policy_files()[spec])
    p = Path(spec)
    if p.suffix == ".toml" or p.exists():
        return load_policy(p)
    names = list(PRESETS) + list(bundled_policy_files())
    raise PolicyError(f"unknown policy {spec!r}: use one of {', '.join(names)} "
                      f"or a policy .toml file")


def policies_for(players: int, policies=None) -> list[Policy]:
    """One Policy per player: None -> the default preset for all; one policy
    (name, file or Policy) -> all players; else exactly one per player."""
    if policies is None:
        policies = [DEFAULT_POLICY]
    if isinstance(policies, (str, Policy)):
        policies = [policies]
    pols = [get_policy(p) for p in policies]
    if len(pols) == 1:
        pols = pols * players
    if len(pols) != players:
        raise PolicyError(f"give 1 or {players} policies, got {len(pols)}")
    return pols


def bundled_policy_files() -> dict[str, Path]:
    """Policy files shipped in vale_sim/games/mystic_vale/policies/, by name (file stem)."""
    folder = Path(__file__).parent / "policies"
    return {p.stem: p for p in sorted(folder.glob("*.toml"))}


def load_policy(path: "str | Path") -> Policy:
    """Parse a policy file (TOML).  See docs/policies.md."""
    path = Path(path)
    data = read_policy_toml(path, PolicyError, MAX_FILE_BYTES)
    base_name = data.pop("base", DEFAULT_POLICY)
    if not isinstance(base_name, str) or base_name not in PRESETS:
        raise PolicyError(f"{path}: field 'base': unknown preset {base_name!r} (use one of {', '.join(PRESETS)})")
    base = PRESETS[base_name]
    raw_rules = data.pop("buy", [])
    if not isinstance(raw_rules, list):
        raise PolicyError(f"{path}: field 'buy' must be a list of [[buy]] tables")
    known = {f.name for f in fields(Policy)} - {"rules"}
    for k in data:
        if k not in known:
            raise PolicyError(f"{path}: unknown field {k!r} (known: base, buy, {', '.join(sorted(known))})")
    rules = []
    for i, r in enumerate(raw_rules, 1):
        if not isinstance(r, dict):
            raise PolicyError(f"{path}: buy rule {i}: must be a table ([[buy]])")
        targets = [t for t in RULE_TARGETS if t in r]
        if len(targets) != 1:
            raise PolicyError(f"{path}: buy rule {i}: give exactly one of {', '.join(RULE_TARGETS)}")
        t = targets[0]
        when = r.get("when", {})
        extra = set(r) - {t, "when"}
        if extra:
            raise PolicyError(f"{path}: buy rule {i}: unknown field {sorted(extra)[0]!r} (use {t} and when)")
        if not isinstance(when, dict):
            raise PolicyError(f"{path}: buy rule {i}: 'when' must be a table of conditions")
        for k, v in when.items():
            if k not in RULE_CONDITIONS:
                raise PolicyError(f"{path}: buy rule {i}: unknown condition {k!r} (known: {', '.join(RULE_CONDITIONS)})")
            if isinstance(v, bool) or not isinstance(v, int):
                raise PolicyError(f"{path}: buy rule {i}: condition {k!r} must be an integer")
        if "owned_at_most" in when and t != "card":
            raise PolicyError(f"{path}: buy rule {i}: owned_at_most applies only to a 'card' rule")
        value = r[t]
        if t == "card" and not isinstance(value, str):
            raise PolicyError(f"{path}: buy rule {i}: card must be a card name (a string)")
        if t == "level" and value not in (1, 2, 3):
            raise PolicyError(f"{path}: buy rule {i}: level must be 1, 2 or 3")
        if t == "best" and value not in ("advancement", "vale"):
            raise PolicyError(f"{path}: buy rule {i}: best must be \"advancement\" or \"vale\"")
        if t == "vale_ability":
            from .cards import VALE_ABILITIES
            if value not in VALE_ABILITIES:
                raise PolicyError(f"{path}: buy rule {i}: unknown vale ability {value!r} "
                                  f"(known: {', '.join(VALE_ABILITIES)})")
        try:
            rules.append(BuyRule(target=t, value=str(value), **when))
        except PolicyError as e:
            raise PolicyError(f"{path}: buy rule {i}: {str(e).split(': ', 1)[-1]}") from None
    params = dict(data)
    params.setdefault("name", path.stem)
    try:
        pol = replace(base, rules=tuple(rules), **params)
    except (TypeError, PolicyError) as e:
        raise PolicyError(f"{path}: {e}") from None
    _FILES[pol] = str(path)
    return pol


MAX_FILE_BYTES = 1_000_000           # a policy file larger than this is refused
_FILES: dict = {}                    # Policy -> the file it was loaded from (for messages)


def policy_label(pol: Policy) -> str:
    """How messages name a policy: its file, if it came from one, else its name."""
    f = _FILES.get(pol)
    return f"policy file {f}" if f else f"policy {pol.name!r}"


def check_policies(cs, policies) -> list[Policy]:
    """The one check of policies against a card set, made before any game by every
    command (play, simulate, tournament, run): each buy rule's card must exist in
    ``cs``.  Returns the policies; PolicyError names the policy's file."""
    names = {a.name for a in cs.advancements} | {v.name for v in cs.vales}
    out = []
    for spec in policies:
        pol = get_policy(spec)
        for i, r in enumerate(pol.rules, 1):
            if r.target == "card" and r.value not in names:
                raise PolicyError(unknown_card(policy_label(pol), f"buy rule {i}", r.value, names,
                                               cs.name, "an advancement or vale"))
        for n in pol.never:
            if n not in names:
                raise PolicyError(unknown_card(policy_label(pol), "never", n, names, cs.name,
                                               "an advancement or vale"))
        out.append(pol)
    return out


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
SEARCH_EXCLUDED = ("name", "rules", "never", "explore_permille")


def search_space() -> dict:
    """What the policy search may vary (``Game.search_space``; vale_sim.optimize)."""
    import sys
    return {"policy": Policy, "module": sys.modules[__name__], "ranges": SEARCH_RANGES,
            "excluded": SEARCH_EXCLUDED, "int_limit": INT_LIMIT}
