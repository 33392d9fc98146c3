"""What both games' policy modules share: presets and policy files by name, the
TOML policy-file parser, field validation with one-line errors, and the check of
a policy's card names against a card set.

Each game keeps its own :class:`Policy` and ``BuyRule`` dataclasses (their fields
are the game's) and describes the rest to a :class:`PolicyBook`: its presets, the
folder of its bundled rule bots, the buy-rule targets and conditions, and how a
target's value is checked.  ``games/<game>/policy.py`` exposes the book's methods
under the names the rest of the code imports (``get_policy``, ``load_policy``,
``policies_for``, ``check_policies``, ``policy_label``, ...).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Callable

from .inputs import read_policy_toml, unknown_card

INT_LIMIT = 10**6     # every integer of a policy (weights, scores, conditions): |v| <= 10**6
MAX_FILE_BYTES = 1_000_000           # a policy file larger than this is refused


def dataclass_repr(obj, omit_default=()) -> str:
    """The repr a dataclass makes of ``obj``, leaving out the fields of ``omit_default``
    that hold their default: fields added to a policy class after results were digested
    by it (policy_digest), so every policy that does not use them keeps its digest."""
    from dataclasses import fields
    parts = [f"{f.name}={getattr(obj, f.name)!r}" for f in fields(obj)
             if f.repr and not (f.name in omit_default and getattr(obj, f.name) == f.default)]
    return f"{type(obj).__qualname__}({', '.join(parts)})"


def policy_digest(pol) -> str:
    """What a result was measured on: a digest of what a policy plays (its repr), so a
    re-bundled field reads as another policy (balance, the draft, the strategy guide,
    the skill ladder's partial rows, the verdicts under search play, the exploit table)."""
    import hashlib
    return hashlib.sha256(repr(pol).encode()).hexdigest()[:16]


class PolicyError(ValueError):
    """A policy (preset name, file or field) is invalid; the text is one line."""


def check_int(where: str, name: str, v, lo: int = -INT_LIMIT, hi: int = INT_LIMIT) -> None:
    """PolicyError unless ``v`` is an integer (not a bool) in ``lo..hi``."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise PolicyError(f"{where}: {name} must be an integer, got {v!r}")
    if not lo <= v <= hi:
        raise PolicyError(f"{where}: {name} must be between {lo} and {hi}, got {v}")


def check_rule_conditions(rule, conditions) -> None:
    """A BuyRule's conditions: each absent (None) or an integer within INT_LIMIT."""
    for cond in conditions:
        v = getattr(rule, cond)
        if v is not None:
            check_int(f"buy rule {rule.target} {rule.value!r}", f"condition {cond}", v)


@dataclass(frozen=True)
class BuyRuleBase:
    """One line of a buy-priority list (a rule bot): a target, its value and
    conditions that must all hold; absent conditions are None.  Each game's
    BuyRule adds its own conditions after these (the field order is the engines')
    and checks them all: every field after ``value`` is a condition."""
    target: str
    value: str
    mana_at_least: int | None = None
    mana_at_most: int | None = None
    round_at_least: int | None = None
    round_at_most: int | None = None

    def __post_init__(self):
        check_rule_conditions(self, [f.name for f in fields(self)][2:])


def check_policy_fields(pol, rule_cls, *, modes=None, bools=(), at_least_zero=(),
                        permille=(), tables=()) -> None:
    """Validate a Policy dataclass from its ``fields``: the name a non-empty string,
    ``never`` a list of card names (made a tuple), ``rules`` ``rule_cls`` objects,
    each field of ``modes`` one of its words, ``bools`` true or false, every other
    field an integer within INT_LIMIT; ``at_least_zero`` fields >= 0 and
    ``permille`` fields in 0..1000 (``tables``: fields the policy class checks itself,
    e.g. a value player's weights).  PolicyError (one line) otherwise."""
    modes = modes or {}
    if not isinstance(pol.name, str) or not pol.name:
        raise PolicyError(f"policy name must be a non-empty string, got {pol.name!r}")
    where = f"policy {pol.name!r}"
    if isinstance(pol.never, list):
        object.__setattr__(pol, "never", tuple(pol.never))
    if not isinstance(pol.never, tuple) or not all(isinstance(n, str) for n in pol.never):
        raise PolicyError(f"{where}: never must be a list of card names, got {pol.never!r}")
    if not all(isinstance(r, rule_cls) for r in pol.rules):
        raise PolicyError(f"{where}: rules must be BuyRule objects")
    for f in fields(pol):
        v = getattr(pol, f.name)
        if f.name in ("name", "rules", "never") or f.name in tables:
            continue
        if f.name in modes:
            if v not in modes[f.name]:
                raise PolicyError(f"{where}: {f.name} must be one of "
                                  f"{', '.join(modes[f.name])}, got {v!r}")
        elif f.name in bools:
            if not isinstance(v, bool):
                raise PolicyError(f"{where}: {f.name} must be true or false, got {v!r}")
        else:
            check_int(where, f.name, v)
    for name in permille:
        check_int(where, name, getattr(pol, name), 0, 1000)
    for name in at_least_zero:
        if getattr(pol, name) < 0:
            raise PolicyError(f"{where}: {name} must be >= 0, got {getattr(pol, name)}")


@dataclass
class PolicyBook:
    """One game's policies: presets, bundled rule bots and the policy-file format.

    ``check_target(target, value)`` returns the error text (after ``buy rule i: ``)
    for a bad value of a buy rule's target, or None; ``card_only`` lists the
    conditions that apply only to a ``card`` rule.  ``named(spec)``: a policy a name
    makes that is no preset or file (e.g. ``search:k=64``, docs/search.md), or None;
    ``kinds``: ``kind = "..."`` of a policy file -> ``make(path, table)`` of that kind."""
    policy_cls: type
    rule_cls: type
    presets: dict
    folder: Path
    rule_targets: tuple
    rule_conditions: tuple
    check_target: Callable[[str, object], "str | None"]
    default: str = "balanced"
    card_only: tuple = ()
    max_bytes: int = MAX_FILE_BYTES
    files: dict = field(default_factory=dict)   # Policy -> the file it came from (messages)
    named: "Callable | None" = None
    kinds: dict = field(default_factory=dict)

    def functions(self) -> tuple:
        """What a game's policy module exposes, in this order: ``get_policy``,
        ``policies_for``, ``bundled_policy_files``, ``load_policy``, ``policy_label``,
        ``presets`` (the book's get, for_players, bundled_files, load, label, names)."""
        return self.get, self.for_players, self.bundled_files, self.load, self.label, self.names

    # --- by name -------------------------------------------------------------
    def bundled_files(self) -> dict[str, Path]:
        """The rule bots shipped in the game's ``policies/`` folder, by file stem."""
        return {p.stem: p for p in sorted(self.folder.glob("*.toml"))}

    def names(self) -> tuple:
        return tuple(self.presets) + tuple(self.bundled_files())

    def get(self, spec):
        """A preset name, a bundled rule bot, a policy file path, or a Policy."""
        from .mixture import is_mixture
        if isinstance(spec, self.policy_cls) or is_mixture(spec):
            return spec
        if spec is None or not str(spec).strip():
            raise PolicyError(f"no policy named: give one of {', '.join(self.names())} "
                              "or a policy .toml file")
        if spec in self.presets:
            return self.presets[spec]
        if self.named is not None:
            pol = self.named(spec)
            if pol is not None:
                return pol
        bundled = self.bundled_files()
        if spec in bundled:
            return self.load(bundled[spec])
        p = Path(str(spec))
        if p.suffix == ".toml" or p.exists():
            return self.load(p)
        raise PolicyError(f"unknown policy {spec!r}: use one of {', '.join(self.names())} "
                          f"or a policy .toml file")

    def for_players(self, players: int, policies=None) -> list:
        """One Policy per player: None -> the default; one spec -> everyone; else one each."""
        if policies is None:
            policies = [self.default]
        if isinstance(policies, (str, Path, self.policy_cls)):
            policies = [policies]
        pols = [self.get(p) for p in policies]
        if len(pols) == 1:
            pols = pols * players
        if len(pols) != players:
            raise PolicyError(f"give 1 or {players} policies, got {len(pols)}")
        return pols

    # --- files ---------------------------------------------------------------
    def load(self, path):
        """Parse a policy file (TOML): ``base`` preset, fields to override, ``[[buy]]``
        rules; parsed and validated, never evaluated as code."""
        path = Path(path)
        data = read_policy_toml(path, PolicyError, self.max_bytes)
        from . import mixture
        if data.get("kind") == mixture.KIND:          # a mixed field (vale_sim.mixture)
            pol = mixture.from_table(path, data, self.get)
            self.files[pol] = str(path)
            return pol
        if "kind" in data and self.kinds:
            make = self.kinds.get(data["kind"])
            if make is None:
                raise PolicyError(f"{path}: field 'kind': unknown kind {data['kind']!r} (known: "
                                  f"{', '.join(self.kinds)}; leave it out for a scripted policy)")
            pol = make(path, data)
            self.files[pol] = str(path)
            return pol
        base_name = data.pop("base", self.default)
        if not isinstance(base_name, str) or base_name not in self.presets:
            raise PolicyError(f"{path}: field 'base': unknown preset {base_name!r} "
                              f"(use one of {', '.join(self.presets)})")
        raw_rules = data.pop("buy", [])
        if not isinstance(raw_rules, list):
            raise PolicyError(f"{path}: field 'buy' must be a list of [[buy]] tables")
        known = {f.name for f in fields(self.policy_cls)} - {"rules"}
        for k in data:
            if k not in known:
                raise PolicyError(f"{path}: unknown field {k!r} (known: base, buy, "
                                  f"{', '.join(sorted(known))})")
        rules = [self._rule(path, i, r) for i, r in enumerate(raw_rules, 1)]
        data.setdefault("name", path.stem)
        try:
            pol = replace(self.presets[base_name], rules=tuple(rules), **data)
        except (TypeError, PolicyError) as e:
            raise PolicyError(f"{path}: {e}") from None
        self.files[pol] = str(path)
        return pol

    def _rule(self, path, i, r):
        where = f"{path}: buy rule {i}"
        if not isinstance(r, dict):
            raise PolicyError(f"{where}: must be a table (write [[buy]])")
        targets = [t for t in self.rule_targets if t in r]
        if len(targets) != 1:
            raise PolicyError(f"{where}: give exactly one of {', '.join(self.rule_targets)}")
        t = targets[0]
        extra = set(r) - {t, "when"}
        if extra:
            raise PolicyError(f"{where}: unknown field {sorted(extra)[0]!r} (use {t} and when)")
        when = r.get("when", {})
        if not isinstance(when, dict):
            raise PolicyError(f"{where}: 'when' must be a table of conditions")
        for k, v in when.items():
            if k not in self.rule_conditions:
                raise PolicyError(f"{where}: unknown condition {k!r} "
                                  f"(known: {', '.join(self.rule_conditions)})")
            if isinstance(v, bool) or not isinstance(v, int):
                raise PolicyError(f"{where}: condition {k!r} must be an integer")
            if k in self.card_only and t != "card":
                raise PolicyError(f"{where}: {k} applies only to a 'card' rule")
        value = r[t]
        if t == "card" and not isinstance(value, str):
            raise PolicyError(f"{where}: card must be a card name (a string)")
        problem = self.check_target(t, value)
        if problem:
            raise PolicyError(f"{where}: {problem}")
        try:
            return self.rule_cls(target=t, value=str(value), **when)
        except PolicyError as e:
            raise PolicyError(f"{where}: {str(e).split(': ', 1)[-1]}") from None

    # --- messages and card names ---------------------------------------------
    def label(self, pol) -> str:
        """How messages name a policy: its file, if it came from one, else its name."""
        f = self.files.get(pol)
        return f"policy file {f}" if f else f"policy {pol.name!r}"

    def check_cards(self, policies, names, set_name: str, kinds: str) -> list:
        """Each policy's card names (``card`` buy rules, ``never``) must be in ``names``
        (the card set ``set_name``'s buyable cards, ``kinds`` saying which, e.g. "an
        Advance or Vale").  Returns the policies; PolicyError names the policy's file."""
        from .mixture import is_mixture
        out = []
        for spec in policies:
            pol = self.get(spec)
            if is_mixture(pol):                # its members are checked
                self.check_cards(pol.members, names, set_name, kinds)
                out.append(pol)
                continue
            for i, r in enumerate(pol.rules, 1):
                if r.target == "card" and r.value not in names:
                    raise PolicyError(unknown_card(self.label(pol), f"buy rule {i}", r.value,
                                                   names, set_name, kinds))
            for n in pol.never:
                if n not in names:
                    raise PolicyError(unknown_card(self.label(pol), "never", n, names, set_name,
                                                   kinds))
            out.append(pol)
        return out
