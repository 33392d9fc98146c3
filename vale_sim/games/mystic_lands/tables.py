"""The card set and policies as integer numpy arrays, for a compiled engine
(docs/mystic-lands-engine-spec.md §10).  Index layout (-1 pads):

Advances (A kinds, file order; Druid Advances first):
  ``adv_info[A, 5]``     level, copies, cost, position, end_vp
  ``adv_icons[A, 11]``   ICON_FIELDS: sun cloud rain mana spirit vp blue green red yellow wild
  ``adv_effects[A, E, 9]`` Effect.code(): timing, kind, amount, resource, aspect, need, pay,
                          cost, per (E = LIMITS["effects"]; unused rows are -1)
Starting cards (S kinds):
  ``start_info[S, 4]``   count, sun_half, rain_half, druid (0/1)
  ``start_icons[S, 11]``
Vales (V kinds):
  ``vale_info[V, 5]``    level, copies, cost, rows, track squares
  ``vale_rows[V, R, 6]`` vp, mana, spirit, gain_vp, rain, activation (R = LIMITS["rows"])
  ``vale_track[V, Q, 5]`` mana, spirit, vp, rain, effect (Q = LIMITS["track"])
  ``vale_effects[V, E, 9]``
Map (P spaces, file order):
  ``space_info[P, 3]``   kind (SPACE_KINDS index), cost (small spaces), rows (small spaces)
  ``space_links[P, P]``  1 where two spaces are linked
  ``space_rows[P, R, 6]`` the rows of small spaces
  ``space_rewards[P, R, 4]`` the map's reward beside each row: mana, spirit, vp, rain
  ``map_start``          the starting space (a 0-d array)
"""
from __future__ import annotations

from dataclasses import fields

import numpy as np

from .cards import ICON_FIELDS, LIMITS, SPACE_KINDS, CardSet
from .policy import CONVERT_MODES, RAIN_MODES, WITHER_CHOICES, Policy

E, R, Q = LIMITS["effects"], LIMITS["rows"], LIMITS["track"]


def _effects(out: np.ndarray, i: int, effects) -> None:
    for k, e in enumerate(effects):
        out[i, k] = e.code()


def _row(r) -> tuple:
    return (r.vp, r.mana, r.spirit, r.gain_vp, r.rain, int(r.activation))


def card_tables(cs: CardSet) -> dict[str, np.ndarray]:
    """Every number of ``cs`` that changes play, as int64 arrays (layout: module doc)."""
    A, S, V, P = len(cs.advances), len(cs.starting), len(cs.vales), len(cs.map.spaces)
    t = {
        "adv_info": np.array([(a.level, a.copies, a.cost, a.position, a.end_vp)
                              for a in cs.advances], dtype=np.int64).reshape(A, 5),
        "adv_icons": np.array([[getattr(a.icons, f) for f in ICON_FIELDS] for a in cs.advances],
                              dtype=np.int64).reshape(A, len(ICON_FIELDS)),
        "adv_effects": np.full((A, E, 9), -1, dtype=np.int64),
        "start_info": np.array([(s.count, s.sun_half, s.rain_half, int(s.druid))
                                for s in cs.starting], dtype=np.int64).reshape(S, 4),
        "start_icons": np.array([[getattr(s.icons, f) for f in ICON_FIELDS] for s in cs.starting],
                                dtype=np.int64).reshape(S, len(ICON_FIELDS)),
        "vale_info": np.array([(v.level, v.copies, v.cost, len(v.rows), len(v.track))
                               for v in cs.vales], dtype=np.int64).reshape(V, 5),
        "vale_rows": np.full((V, R, 6), -1, dtype=np.int64),
        "vale_track": np.full((V, Q, 5), -1, dtype=np.int64),
        "vale_effects": np.full((V, E, 9), -1, dtype=np.int64),
        "space_info": np.zeros((P, 3), dtype=np.int64),
        "space_links": np.zeros((P, P), dtype=np.int64),
        "space_rows": np.full((P, R, 6), -1, dtype=np.int64),
        "space_rewards": np.zeros((P, R, 4), dtype=np.int64),
        "map_start": np.array(cs.map.start, dtype=np.int64),
    }
    for i, a in enumerate(cs.advances):
        _effects(t["adv_effects"], i, a.effects)
    for i, v in enumerate(cs.vales):
        for k, r in enumerate(v.rows):
            t["vale_rows"][i, k] = _row(r)
        for k, sq in enumerate(v.track):
            t["vale_track"][i, k] = (sq.mana, sq.spirit, sq.vp, sq.rain, int(sq.effect))
        _effects(t["vale_effects"], i, v.effects)
    for i, sp in enumerate(cs.map.spaces):
        t["space_info"][i] = (SPACE_KINDS.index(sp.kind), sp.cost, len(sp.rows))
        for j in sp.links:
            t["space_links"][i, j] = 1
        for k, r in enumerate(sp.rows):
            t["space_rows"][i, k] = _row(r)
        for row, reward in sp.rewards:
            t["space_rewards"][i, row] = reward
    return t


#: Policy fields held by policy_vector, in order (modes as their index; rules and
#: never are not numbers: a compiled engine takes them as separate arrays).
POLICY_FIELDS = tuple(f.name for f in fields(Policy) if f.name not in ("name", "rules", "never"))
_MODE_WORDS = {"rain": RAIN_MODES, "wither_choice": WITHER_CHOICES, "convert": CONVERT_MODES}


def policy_vector(pol: Policy) -> np.ndarray:
    """A policy's numbers (POLICY_FIELDS order; a mode word as its index) as int64."""
    return np.array([_MODE_WORDS[f].index(getattr(pol, f)) if f in _MODE_WORDS
                     else getattr(pol, f) for f in POLICY_FIELDS], dtype=np.int64)
