"""Mystic Lands scripted policies: plain integer data the engines read
(docs/mystic-lands-engine-spec.md §6).

A :class:`Policy` is a frozen dataclass of integers, a few mode words and a
tuple of :class:`BuyRule`.  Presets are in :data:`PRESETS`; rule bots are TOML
files (``policies/*.toml``) parsed and validated by :func:`load_policy`, never
evaluated as code.  Every error is one line naming the file or policy, the
field and the fix.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path

from ...inputs import read_policy_toml, unknown_card

RAIN_MODES = ("needed", "never")                     # spec §6.2
WITHER_CHOICES = ("best", "mana", "spirit", "vp")    # spec §6.3
CONVERT_MODES = ("bought", "always", "never")        # spec §6.7
RULE_TARGETS = ("card", "level", "vale")
RULE_CONDITIONS = ("mana_at_least", "mana_at_most", "round_at_least", "round_at_most",
                   "vp_at_most", "owned_at_most")
INT_LIMIT = 10**6
MAX_FILE_BYTES = 1_000_000
_MODES = {"rain": RAIN_MODES, "wither_choice": WITHER_CHOICES, "convert": CONVERT_MODES}


class PolicyError(ValueError):
    """A policy (preset name, file or field) is invalid; the text is one line."""


def _check_int(where, name, v, lo=-INT_LIMIT, hi=INT_LIMIT):
    if isinstance(v, bool) or not isinstance(v, int):
        raise PolicyError(f"{where}: {name} must be an integer, got {v!r}")
    if not lo <= v <= hi:
        raise PolicyError(f"{where}: {name} must be between {lo} and {hi}, got {v}")


@dataclass(frozen=True)
class BuyRule:
    """One line of a rule bot: a target and conditions (all must hold).

    ``target`` "card" (an Advance or Vale name), "level" ("1"/"2": the best
    Advance of that level) or "vale" ("best": the best Vale spot)."""
    target: str
    value: str
    mana_at_least: int | None = None
    mana_at_most: int | None = None
    round_at_least: int | None = None
    round_at_most: int | None = None
    vp_at_most: int | None = None
    owned_at_most: int | None = None

    def __post_init__(self):
        for c in RULE_CONDITIONS:
            v = getattr(self, c)
            if v is not None:
                _check_int(f"buy rule {self.target} {self.value!r}", c, v)

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

    def __post_init__(self):
        where = f"policy {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise PolicyError(f"policy name must be a non-empty string, got {self.name!r}")
        if isinstance(self.never, list):
            object.__setattr__(self, "never", tuple(self.never))
        if not isinstance(self.never, tuple) or not all(isinstance(n, str) for n in self.never):
            raise PolicyError(f"{where}: never must be a list of card names")
        if not all(isinstance(r, BuyRule) for r in self.rules):
            raise PolicyError(f"{where}: rules must be BuyRule objects")
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in _MODES:
                if v not in _MODES[f.name]:
                    raise PolicyError(f"{where}: {f.name} must be one of "
                                      f"{', '.join(_MODES[f.name])}, got {v!r}")
            elif f.name not in ("name", "rules", "never"):
                _check_int(where, f.name, v)
        _check_int(where, "rest_risk_permille", self.rest_risk_permille, 0, 1000)


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


def bundled_policy_files() -> dict[str, Path]:
    return {p.stem: p for p in sorted(POLICY_DIR.glob("*.toml"))}


def presets() -> tuple:
    return tuple(PRESETS) + tuple(bundled_policy_files())


def get_policy(spec) -> Policy:
    """A preset name, a bundled rule bot, a policy file path, or a Policy."""
    if isinstance(spec, Policy):
        return spec
    if spec is None or not str(spec).strip():
        raise PolicyError(f"no policy named: give one of {', '.join(presets())} "
                          "or a policy .toml file")
    if spec in PRESETS:
        return PRESETS[spec]
    if spec in bundled_policy_files():
        return load_policy(bundled_policy_files()[spec])
    p = Path(str(spec))
    if p.suffix == ".toml" or p.exists():
        return load_policy(p)
    raise PolicyError(f"unknown policy {spec!r}: use one of {', '.join(presets())} "
                      f"or a policy .toml file")


def policies_for(players: int, policies=None) -> list[Policy]:
    """One Policy per player: None -> the default; one spec -> everyone; else one each."""
    if policies is None:
        policies = [DEFAULT_POLICY]
    if isinstance(policies, (str, Policy, Path)):
        policies = [policies]
    pols = [get_policy(p) for p in policies]
    if len(pols) == 1:
        pols = pols * players
    if len(pols) != players:
        raise PolicyError(f"give 1 or {players} policies, got {len(pols)}")
    return pols


def load_policy(path) -> Policy:
    """Parse a rule bot (TOML): ``base`` preset, fields to override, ``[[buy]]`` rules."""
    path = Path(path)
    data = read_policy_toml(path, PolicyError, MAX_FILE_BYTES)
    base_name = data.pop("base", DEFAULT_POLICY)
    if base_name not in PRESETS:
        raise PolicyError(f"{path}: field 'base': unknown preset {base_name!r} "
                          f"(use one of {', '.join(PRESETS)})")
    raw_rules = data.pop("buy", [])
    if not isinstance(raw_rules, list):
        raise PolicyError(f"{path}: field 'buy' must be a list of [[buy]] tables")
    known = {f.name for f in fields(Policy)} - {"rules"}
    for k in data:
        if k not in known:
            raise PolicyError(f"{path}: unknown field {k!r} (known: base, buy, "
                              f"{', '.join(sorted(known))})")
    rules = []
    for i, r in enumerate(raw_rules, 1):
        if not isinstance(r, dict):
            raise PolicyError(f"{path}: buy rule {i}: must be a table (write [[buy]])")
        targets = [t for t in RULE_TARGETS if t in r]
        if len(targets) != 1:
            raise PolicyError(f"{path}: buy rule {i}: give exactly one of {', '.join(RULE_TARGETS)}")
        t = targets[0]
        extra = set(r) - {t, "when"}
        if extra:
            raise PolicyError(f"{path}: buy rule {i}: unknown field {sorted(extra)[0]!r} "
                              f"(use {t} and when)")
        when = r.get("when", {})
        if not isinstance(when, dict):
            raise PolicyError(f"{path}: buy rule {i}: 'when' must be a table of conditions")
        for k, v in when.items():
            if k not in RULE_CONDITIONS:
                raise PolicyError(f"{path}: buy rule {i}: unknown condition {k!r} "
                                  f"(known: {', '.join(RULE_CONDITIONS)})")
            if isinstance(v, bool) or not isinstance(v, int):
                raise PolicyError(f"{path}: buy rule {i}: condition {k!r} must be an integer")
        value = r[t]
        if t == "card" and not isinstance(value, str):
            raise PolicyError(f"{path}: buy rule {i}: card must be a card name (a string)")
        if t == "level" and value not in (1, 2):
            raise PolicyError(f"{path}: buy rule {i}: level must be 1 or 2")
        if t == "vale" and value != "best":
            raise PolicyError(f"{path}: buy rule {i}: vale must be \"best\"")
        try:
            rules.append(BuyRule(target=t, value=str(value), **when))
        except PolicyError as e:
            raise PolicyError(f"{path}: buy rule {i}: {str(e).split(': ', 1)[-1]}") from None
    data.setdefault("name", path.stem)
    try:
        pol = replace(PRESETS[base_name], rules=tuple(rules), **data)
    except (TypeError, PolicyError) as e:
        raise PolicyError(f"{path}: {e}") from None
    _FILES[pol] = str(path)
    return pol


_FILES: dict = {}


def policy_label(pol: Policy) -> str:
    f = _FILES.get(pol)
    return f"policy file {f}" if f else f"policy {pol.name!r}"


def check_policies(cs, policies) -> list[Policy]:
    """Validate policies against a card set: every named card exists.  Returns them."""
    names = {a.name for a in cs.advances if a.level} | {v.name for v in cs.vales} | {
        s.name for s in cs.map.spaces if s.kind == "small"}
    out = []
    for spec in policies:
        pol = get_policy(spec)
        for i, r in enumerate(pol.rules, 1):
            if r.target == "card" and r.value not in names:
                raise PolicyError(unknown_card(policy_label(pol), f"buy rule {i}", r.value, names,
                                               cs.name, "an Advance or Vale"))
        for n in pol.never:
            if n not in names:
                raise PolicyError(unknown_card(policy_label(pol), "never", n, names, cs.name,
                                               "an Advance or Vale"))
        out.append(pol)
    return out


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
SEARCH_EXCLUDED = ("name", "rules", "never")


def search_space() -> dict:
    """What the policy search may vary (``Game.search_space``; vale_sim.optimize)."""
    import sys
    return {"policy": Policy, "module": sys.modules[__name__], "ranges": SEARCH_RANGES,
            "excluded": SEARCH_EXCLUDED, "int_limit": INT_LIMIT}
