"""Mystic Vale's features for the value player (vale_sim.value; docs/value.md).

What a card does, as integers: its symbols, VP, growth and decay, guardians, and its
ability by kind (the ability's amount).  No name, no cost.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...value import FeatureSpec, card_values
from .cards import ADVANCEMENT_ABILITIES, VALE_ABILITIES

_ADV_SYMBOLS = ("mana", "animal", "forest", "sky", "wild", "harvest_vp", "end_vp",
                "growth", "decay", "guardian")
#: Advancement features: symbols, then one per ability kind (its amount).  Bounds: the
#: benefits >= 0, decay <= 0, guardians and abilities free (docs/value.md).
ADV_SPEC = FeatureSpec(
    names=_ADV_SYMBOLS + tuple(f"ability:{a}" for a in ADVANCEMENT_ABILITIES[1:]),
    signs=(1, 1, 1, 1, 1, 1, 1, 1, -1, 0) + (0,) * (len(ADVANCEMENT_ABILITIES) - 1))
#: Vale features: end VP, extra buys (both >= 0), one per ability kind (its amount).
VALE_SPEC = FeatureSpec(
    names=("end_vp", "extra_buys") + tuple(f"ability:{a}" for a in VALE_ABILITIES[1:]),
    signs=(1, 1) + (0,) * (len(VALE_ABILITIES) - 1))


def _ability(kinds, kind: str, amount: int) -> list[int]:
    return [max(amount, 1) if kind == k else 0 for k in kinds[1:]]


def adv_features(a) -> list[int]:
    return ([getattr(a, n) for n in _ADV_SYMBOLS]
            + _ability(ADVANCEMENT_ABILITIES, a.ability, a.amount))


def vale_features(v) -> list[int]:
    return [v.end_vp, v.extra_buys] + _ability(VALE_ABILITIES, v.ability, v.amount)


#: id of a card set -> (the set, its feature tables), for the last few sets: every
#: value player's tables in a study's many short runs read the same set's features.
_FEATURES: dict = {}


def feature_table(cs) -> tuple[np.ndarray, np.ndarray]:
    """([advancement, feature], [vale, feature]) integer features of a card set (kept
    for the last few sets; read-only arrays)."""
    hit = _FEATURES.get(id(cs))
    if hit is not None and hit[0] is cs:
        return hit[1]
    out = _feature_table(cs)
    for a in out:
        a.setflags(write=False)
    if len(_FEATURES) >= 8:
        del _FEATURES[next(iter(_FEATURES))]
    _FEATURES[id(cs)] = (cs, out)
    return out


def _feature_table(cs) -> tuple[np.ndarray, np.ndarray]:
    fa = np.array([adv_features(a) for a in cs.advancements], np.int64).reshape(
        -1, len(ADV_SPEC.names))
    fv = np.array([vale_features(v) for v in cs.vales], np.int64).reshape(
        -1, len(VALE_SPEC.names))
    return fa, fv


def vp_weight(pol, stage: int) -> int:
    """A VP token's value at ``stage`` for the "value" push rule (engine-spec §6.1): a
    value player's ``value_vp[stage]`` (0 if its model gives none), a scripted policy's
    ``w_harvest_vp``.  Both engines read this number."""
    if pol.value_stages:
        return pol.value_vp[stage] if pol.value_vp else 0
    return pol.w_harvest_vp


def policy_values(cs, pol) -> tuple[np.ndarray, np.ndarray] | None:
    """A value player's [stage, advancement] and [stage, vale] values; None for a
    scripted policy."""
    if not getattr(pol, "value_stages", 0):
        return None
    fa, fv = feature_table(cs)
    return card_values(pol.value_adv, fa), card_values(pol.value_vale, fv)


#: The cards of vale_sim.field_checks (docs/statistics.md §5.9): planted bases (a level-1,
#: level-2 and level-3 card, a vale and a Fertile Soil; Podlings and Ley Line Nexus are
#: the rare cards on which the old field missed a +6 VP twin, issue 36), and the cards
#: whose strictly better printings (-1 cost, +1 end VP, +1 mana) are checked.
FIELD_CHECK_PLANTED = ("Podlings", "Model L2 Bloom D", "Model L3 Grove A", "Ley Line Nexus",
                       "Fertile Soil (bottom)")
FIELD_CHECK_MONOTONE = ("Podlings", "Model L1 Sprout F", "Peacekeeper Druid",
                        "Model L2 Bloom D", "Model L2 Bloom I", "Model L3 Grove A",
                        "Woodland Warden", "Fertile Soil (bottom)", "Ley Line Nexus")


def field_check_useless(card):
    """The same card doing nothing, at its cost (vale_sim.field_checks): no symbols, no
    VP, no ability."""
    if hasattr(card, "position"):
        return replace(card, name=f"{card.name} useless", mana=0, animal=0, forest=0, sky=0,
                       wild=0, guardian=0, growth=0, harvest_vp=0, end_vp=0, ability="none",
                       amount=0, text="")
    return replace(card, name=f"{card.name} useless", end_vp=0, ability="none", amount=0,
                   extra_buys=0, symbol="", text="")


def field_check_gross(card):
    """The card with +6 end VP (vale_sim.field_checks)."""
    return replace(card, name=f"{card.name} gross", end_vp=card.end_vp + 6)


def field_check_better(card) -> dict:
    """Strictly better printings (vale_sim.field_checks): −1 cost (if it costs anything),
    +1 end VP, +1 mana (advancements); +1 end VP (vales)."""
    out = {}
    if hasattr(card, "position"):
        if card.cost > 0:
            out["cost-1"] = replace(card, name=f"{card.name} cost-1", cost=card.cost - 1)
        out["mana+1"] = replace(card, name=f"{card.name} mana+1", mana=card.mana + 1)
    out["vp+1"] = replace(card, name=f"{card.name} vp+1", end_vp=card.end_vp + 1)
    return out
