"""The open numbers of the Mystic Lands draft manual, for ``vale-sim balance --draft``
(vale_sim/draft.py; docs/balance.md "Filling in the X's"; the manual's X's are listed in
docs/mystic-lands-rules.md "The manual's X and where they live")."""
from __future__ import annotations

import dataclasses

from ..base import OpenNumber
from . import cards


def _rule(name):
    def apply(cs, rules, v):
        return cs, dataclasses.replace(rules, **{name: v})
    return apply


def _copies(level):
    """Every level-``level`` Advance's copies + delta (the value: the level's total)."""
    def apply(cs, rules, total):
        items = [a for a in cs.advances if a.level == level]
        now = sum(a.copies for a in items)
        delta, rest = divmod(total - now, len(items))
        assert rest == 0, (total, now)
        for a in items:
            cs, _, _ = cards.apply_edit(cs, a.name, "copies", a.copies + delta)
        return cs, rules
    return apply


def _vales(level):
    """The first ``k`` level-``level`` Vales of the card file (the rest left out)."""
    def apply(cs, rules, k):
        keep, seen = [], 0
        for v in cs.vales:
            if v.level == level:
                seen += 1
                if seen > k:
                    continue
            keep.append(v)
        return dataclasses.replace(cs, vales=tuple(keep)), rules
    return apply


def _schedule(v):
    mana, spirit = v
    return " / ".join(("".join(([f"{m}m"] if m else []) + ([f"{s}s"] if s else [])) or "-")
                      for m, s in zip(mana, spirit))


def _schedule_apply(cs, rules, v):
    return cs, dataclasses.replace(rules, seat_mana=v[0], seat_spirit=v[1])


def _schedule_distance(a, b):
    return sum(abs(x - y) for x, y in zip(a[0] + a[1], b[0] + b[1]))


def _growth_distance(a, b):
    return sum(abs(x - y) for x, y in zip(a, b))


def open_numbers(cs) -> list[OpenNumber]:
    """The draft's open numbers, in the order the fill-in handles them: the supplies
    (estimates: the manual prints X) first, then the printed numbers that decide the
    seats' fairness (the seat schedule, the end trigger, the market growth points)."""
    from .rules import Rules
    r = Rules()
    out = [OpenNumber("rain_supply", "Rain supply", '"X Rain tokens"', "estimate", "enough",
                      r.rain_supply, (4, 8, 12, 16, 20, 30, 60), _rule("rain_supply"))]
    for level in (1, 2):
        items = [a for a in cs.advances if a.level == level]
        now, n = sum(a.copies for a in items), len(items)
        lo = min(a.copies for a in items) - 1
        cands = tuple(now + n * d for d in range(-lo, 5) if d in (-2, -1, 0, 1, 2, 4))
        out.append(OpenNumber(
            f"advances_level_{level}", f"Level {level} Advances", '"X Advances (X level 1 and '
            'X level 2)"', "estimate", "enough", now, cands, _copies(level),
            note=f"{n} different level {level} Advances; a candidate adds the same number of "
                 f"copies to each"))
    for level, kind in ((1, "I"), (2, "II")):
        k = sum(1 for v in cs.vales if v.level == level)
        need = len(cs.map.of_kind(kind))
        out.append(OpenNumber(
            f"vales_level_{level}", f"Level {level} Vales", '"X Vale cards (X level 1 and X '
            'level 2)"', "estimate", "enough", k, tuple(range(need, k + 1)), _vales(level),
            note=f"the map {cs.map.name!r} has {need} {kind} spaces (the least that plays); a "
                 f"candidate keeps the first k level {level} Vales of the card file, so it "
                 f"also changes which Vales are in the game"))
    m, s = tuple(r.seat_mana), tuple(r.seat_spirit)

    def shift(t, d):
        return (t[0],) + tuple(max(0, x + d) for x in t[1:])
    scheds = [(m, s), (shift(m, -1), s), (shift(m, 1), s), (m, shift(s, 1)),
              (m, (0, 0, 0, 0)), ((0, 0, 0, 0), (0, 0, 0, 0))]
    scheds = tuple(dict.fromkeys(scheds))
    out += [
        OpenNumber("seat_schedule", "Seat schedule (starting resources by seat)",
                   "1st nothing, 2nd 1 mana, 3rd 1 mana 1 spirit, 4th 2 mana 1 spirit",
                   "manual", "seats", (m, s), scheds, _schedule_apply, _schedule,
                   _schedule_distance),
        OpenNumber("end_vp", "End trigger: VP", '"25 VP"', "manual", "seats", r.end_vp,
                   (20, 25, 30), _rule("end_vp")),
        OpenNumber("end_cubes", "End trigger: cubes", '"10th cube"', "manual", "seats",
                   r.end_cubes, (8, 10, 12), _rule("end_cubes")),
        OpenNumber("market_growth_vp", "Market growth points (VP)", '"5 and 15 VP"', "manual",
                   "seats", tuple(r.market_growth_vp), ((3, 10), (5, 15), (8, 20), (10, 25)),
                   _rule("market_growth_vp"), lambda v: f"{v[0]} and {v[1]} VP",
                   _growth_distance),
    ]
    return out
