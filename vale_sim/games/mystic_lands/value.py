"""Mystic Lands' features for the value player (vale_sim.value; docs/value.md).

What a card or a Vale spot does, as integers: an Advance's icons, end VP and effects by
kind (the effect's amount); a spot's row VP, its rewards (the row's and the map's), its
activation track and its Vale's effects by kind.  No name, no cost.

Bounds (rules doc §2, §3): mana, spirit, VP, end VP, Rain, clouds (they cover suns),
aspects and wild icons (they only count toward effects that gain), gains of every kind,
``wither_limit`` (a higher sun limit) and ``vp_per_sun_all`` are benefits (>= 0); a sun
is the drawback (<= 0: it counts toward Withering); the other effects are free.

The stage of a game (spec §6.14) is how near the end trigger (VP >= ``end_vp`` or cubes
>= ``end_cubes``, rules §5.9) the leading player is: ``progress`` =
max over players of max(VP × end_cubes, cubes × end_vp), out of end_vp × end_cubes.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...value import FeatureSpec, card_values, stage_of
from . import cards as C

_RES = C.RESOURCES                                   # mana, spirit, vp, rain
_ADV_ICONS = ("mana", "spirit", "vp", "end_vp", "cloud", "rain", "aspects", "wild", "sun")
#: Advance effect kinds other than the gains (their amount, at least 1)
_ADV_KINDS = ("wither_limit", "vp_per_sun_all", "convert", "play_ondeck", "to_ondeck",
              "swap_ondeck", "refresh", "enchant_discount", "replace_sleeve", "remove_card",
              "sleeve_market")
_BENEFIT_KINDS = ("wither_limit", "vp_per_sun_all")
ADV_SPEC = FeatureSpec(
    names=_ADV_ICONS + tuple(f"gain:{r}" for r in _RES)
    + tuple(f"per_aspect:{r}" for r in _RES) + tuple(f"effect:{k}" for k in _ADV_KINDS),
    signs=(1,) * 8 + (-1,) + (1,) * 8
    + tuple(1 if k in _BENEFIT_KINDS else 0 for k in _ADV_KINDS))

_SPOT = ("end_vp", "mana", "spirit", "vp", "rain", "track_mana", "track_spirit", "track_vp",
         "track_rain", "activation")
_VALE_KINDS = ("vp_per_sun_all", "convert", "refresh", "remove_card", "sleeve_market")
#: Spot features: the row's end VP, the rewards of the row and the map, the activation
#: track's rewards (activation rows), the activation itself (free), the Vale's gains and
#: other effects by kind (an activation effect only for a row on the track).
VALE_SPEC = FeatureSpec(
    names=_SPOT + tuple(f"gain:{r}" for r in _RES) + tuple(f"effect:{k}" for k in _VALE_KINDS),
    signs=(1,) * 9 + (0,) + (1,) * 4
    + tuple(1 if k in _BENEFIT_KINDS else 0 for k in _VALE_KINDS))

_NA, _NV = len(ADV_SPEC.names), len(VALE_SPEC.names)


def _effects(effects, out: list[int], names: tuple[str, ...], active=lambda e: True) -> None:
    for e in effects:
        if not active(e):
            continue
        if e.kind == "gain":
            out[names.index(f"gain:{e.resource}")] += e.amount
        elif e.kind in ("gain_per_aspect_land", "gain_per_aspect_card"):
            out[names.index(f"per_aspect:{e.resource}")] += e.amount
        elif f"effect:{e.kind}" in names:
            out[names.index(f"effect:{e.kind}")] += max(e.amount, 1)


def adv_features(a) -> list[int]:
    """An Advance's features (ADV_SPEC order)."""
    ic = a.icons
    f = [ic.mana, ic.spirit, ic.vp, a.end_vp, ic.cloud, ic.rain,
         ic.blue + ic.green + ic.red + ic.yellow, ic.wild, ic.sun] + [0] * (_NA - 9)
    _effects(a.effects, f, ADV_SPEC.names)
    return f


def row_features(row) -> list[int]:
    """A row's own part of a spot's features (its end VP and rewards; VALE_SPEC order)."""
    f = [0] * _NV
    f[0], f[1], f[2], f[3], f[4] = row.vp, row.mana, row.spirit, row.gain_vp, row.rain
    return f


def vale_row_features(vale, r: int) -> list[int]:
    """Row r of a Vale: the row's part, its track (an activation row) and the Vale's
    effects (an activation effect only for an activation row)."""
    row = vale.rows[r]
    f = row_features(row)
    if row.activation:
        f[5:9] = [sum(getattr(q, x) for q in vale.track) for x in ("mana", "spirit", "vp", "rain")]
        f[9] = 1
    _effects(vale.effects, f, VALE_SPEC.names,
             lambda e: e.timing != "activation" or row.activation)
    return f


def space_row_features(sp, r: int) -> list[int]:
    """The space's part of its row r: the map's reward, and a small space's row."""
    f = row_features(sp.rows[r]) if sp.kind == "small" and r < len(sp.rows) else [0] * _NV
    for i, x in enumerate(sp.reward(r)):
        f[1 + i] += x
    return f


def spot_features(cs, layout, s: int, r: int) -> list[int]:
    """The features of spot (space s, row r) in a game whose Vale layout is ``layout``."""
    sp = cs.map.spaces[s]
    f = space_row_features(sp, r)
    if sp.kind in ("I", "II"):
        f = [a + b for a, b in zip(f, vale_row_features(cs.vales[layout[s]], r))]
    return f


def feature_tables(cs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """([advance, feature], [vale, row, feature], [space, row, feature]) integer features
    of a card set (rows beyond a Vale's or space's are 0)."""
    R = C.LIMITS["rows"]
    fa = np.array([adv_features(a) for a in cs.advances], np.int64).reshape(-1, _NA)
    fv = np.zeros((max(1, len(cs.vales)), R, _NV), np.int64)
    for v, vale in enumerate(cs.vales):
        for r in range(len(vale.rows)):
            fv[v, r] = vale_row_features(vale, r)
    fs = np.zeros((len(cs.map.spaces), R, _NV), np.int64)
    for s, sp in enumerate(cs.map.spaces):
        for r in range(R):
            fs[s, r] = space_row_features(sp, r)
    return fa, fv, fs


def policy_values(cs, pol):
    """A value player's [stage, advance], [stage, vale, row] and [stage, space, row]
    integer values (a spot's value is its space's part plus, on a Vale space, its Vale's
    part); None for a scripted policy."""
    if not getattr(pol, "value_stages", 0):
        return None
    fa, fv, fs = feature_tables(cs)
    k = pol.value_stages
    va = card_values(pol.value_adv, fa)
    vv = card_values(pol.value_vale, fv.reshape(-1, _NV)).reshape(k, *fv.shape[:2])
    vs = card_values(pol.value_vale, fs.reshape(-1, _NV)).reshape(k, *fs.shape[:2])
    return va, vv, vs


def progress(rules, vps, cubes) -> tuple[int, int]:
    """(pool0, gone): how far the game is toward its end trigger (spec §6.14)."""
    pool0 = rules.end_vp * rules.end_cubes
    gone = max((max(v * rules.end_cubes, c * rules.end_vp) for v, c in zip(vps, cubes)),
               default=0)
    return pool0, min(gone, pool0)


def game_stage(rules, vps, cubes, stages: int) -> int:
    """The stage of a value player of ``stages`` stages (vale_sim.value.stage_of)."""
    pool0, gone = progress(rules, vps, cubes)
    return stage_of(pool0, pool0 - gone, stages)


#: The policies vale-sim train starts from and takes the fields that are not scores from
#: (vale_sim.commands.train): None, the game's strongest bundled field (Game.strong_field,
#: meta-{P}p when the bundled value players were trained)
TRAIN_START = None
TRAIN_BASE = None


# -- the field checks (vale_sim.field_checks; docs/statistics.md §5.9) -----------------
#: Planted bases: a level 1 and a level 2 Advance, a level 1 and a level 2 Vale (the first
#: of each in the card file), and Sun Parrot, a level 1 Advance neither 2-player field
#: buys (1.0 % of focal games under meta-2p, 0.0 % under value-2p, 4,000 games, seed 11):
#: a gross error on a card the field leaves must be caught too.  Mystic Lands has no level
#: 3 and nothing in Fertile Soil's role: its Druid Advances (level 0) are dealt, never
#: bought, and the starting cards are not for sale.
FIELD_CHECK_PLANTED = ("Morning Mist", "Ent Guardian", "Spirit Cave", "Satyr Home",
                       "Sun Parrot")
#: Cards whose strictly better printings are checked, chosen by a rule fixed before any
#: check ran: the first five level 1 Advances, the first four level 2 Advances and the
#: first two Vales of each level, in the card file's order.  Among them, Firefly Glade and
#: Moss Spirit, which meta-2p buys in 0.0 % and 1.1 % of focal games; Rain Lily and Storm
#: Caller, which meta-2p buys by name.  They show every kind of icon (sun, cloud, mana,
#: spirit, VP, rain, aspects), end VP, refresh and the enchant discount; not the converts,
#: the per-aspect gains, the on-deck effects, the wither limit or the re-sleeving.
FIELD_CHECK_MONOTONE = ("Morning Mist", "Rain Lily", "Meadow", "Firefly Glade", "Moss Spirit",
                        "Ent Guardian", "Sequoia Forest", "Sun Priestess", "Storm Caller",
                        "Spirit Cave", "Great Table", "Satyr Home", "Crystal Spire")


def field_check_useless(card):
    """The same card doing nothing, at its cost (vale_sim.field_checks).  An Advance: no
    icon (no sun either: its drawback goes too), no end VP, no effect; it still takes
    its position on the card it is sleeved on and, in front, covers the rain icons
    there as any Advance does.  A Vale: its rows (its cube spots) give no VP and no
    reward, no activation track, no effect (a map space's own rewards stay: they are
    the map's)."""
    if isinstance(card, C.Advance):
        return replace(card, name=f"{card.name} useless", icons=C.Icons(), end_vp=0,
                       effects=(), text="")
    return replace(card, name=f"{card.name} useless", rows=tuple(C.Row(vp=0) for _ in card.rows),
                   track=(), effects=(), text="")


def _rows(card, **add):
    return tuple(replace(r, **{k: getattr(r, k) + v for k, v in add.items()}) for r in card.rows)


def field_check_gross(card):
    """The card with +6 end VP (vale_sim.field_checks): an Advance's end VP, every row of
    a Vale (whichever spot its cube takes is worth 6 VP more at the end)."""
    if isinstance(card, C.Advance):
        return replace(card, name=f"{card.name} gross", end_vp=card.end_vp + 6)
    return replace(card, name=f"{card.name} gross", rows=_rows(card, vp=6))


def field_check_better(card) -> dict:
    """Strictly better printings (vale_sim.field_checks), each one number better: an
    Advance at 1 mana less (``cost-1``), with one more mana icon (``mana+1``, gained in the
    Day) or 1 more end VP (``vp+1``); a Vale at 1 spirit less (``cost-1``), with 1 more mana
    (``mana+1``, a reward when a cube takes the spot) or 1 more end VP (``vp+1``) on every
    row."""
    out = {}
    if card.cost > 0:
        out["cost-1"] = replace(card, name=f"{card.name} cost-1", cost=card.cost - 1)
    if isinstance(card, C.Advance):
        out["mana+1"] = replace(card, name=f"{card.name} mana+1",
                                icons=replace(card.icons, mana=card.icons.mana + 1))
        out["vp+1"] = replace(card, name=f"{card.name} vp+1", end_vp=card.end_vp + 1)
    else:
        out["mana+1"] = replace(card, name=f"{card.name} mana+1", rows=_rows(card, mana=1))
        out["vp+1"] = replace(card, name=f"{card.name} vp+1", rows=_rows(card, vp=1))
    return out
