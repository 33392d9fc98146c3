"""The executive summary's verdicts of the Mystic Lands settings studies: one
sentence each, with its 95% interval and n (the shared helpers and the summary
are :mod:`vale_sim.verdicts`)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from vale_sim.verdicts import Verdict, _n, _pct

# ---------------------------------------------------------------------------
# Mystic Lands settings studies 
# ---------------------------------------------------------------------------
def _iv(v, lo, hi, k: float = 1.0, d: int = 1, signed: bool = False, unit: str = "") -> str:
    """``"83.3% (95% CI [40.5, 100.0])"``; a difference that is 0 on every deal reads
    ``"0 (no deal changed)"`` rather than a precise-looking point interval."""
    from .text import point_digits
    d = point_digits(v, lo, hi, k, d)
    f = f"{{:+.{d}f}}" if signed else f"{{:.{d}f}}"
    one = lambda x: "nan" if x is None or not np.isfinite(x) else f.format(k * x)  # noqa: E731
    if signed and v == 0 and lo == 0 and hi == 0:
        return f"0{unit} (no deal changed)"
    return f"{one(v)}{unit} (95% CI [{one(lo)}, {one(hi)}])"


def _seat1(study, k):
    """Seat 1's row with the manual's schedule (selection deals) and its reading."""
    seats = study.seats
    if "stage" in seats:
        seats = seats[seats["stage"] == "selection"]
    s = seats[seats["players"] == k]
    sc = study.schedules[study.schedules["players"] == k]
    man = sc[sc["manual"]]["schedule"].iloc[0]
    a = s[(s["schedule"] == man) & (s["seat"] == 1)].iloc[0]
    fair = 1 / k
    return a, ("an advantage" if a["win_rate_lo"] > fair else "a disadvantage"
               if a["win_rate_hi"] < fair else "no detectable advantage")


def manual_reading(rec: dict) -> str:
    """A recommendation's reading of the manual's compensation: its verdict on the
    confirmation deals ("fair", "shown unfair" or "inconclusive")."""
    return rec["manual_verdict"]


def seat_compensation_readings(study) -> list[tuple]:
    """``[(players, reading), ...]`` in :func:`seat_compensation_verdicts`' order: seat 1's
    reading with the manual's compensation, then the manual's verdict."""
    out = []
    for rec in study.recommendations:
        k = rec["players"]
        out += [(k, _seat1(study, k)[1]), (k, manual_reading(rec))]
    return out


def seat_compensation_verdicts(study, field=None) -> list[Verdict]:
    """Per player count: seat 1 and the last seat with and without the manual's
    compensation, the paired effect on seat 1, then the schedule search's sentence
    (:func:`vale_sim.studies.seats.sentence`).  ``field``: the policy every seat played
    (a name or a function of the player count), named at the start of each sentence."""
    from vale_sim.verdicts import _field_prefix
    from .seats import sentence
    out = []
    seats, eff = study.seats, study.effect
    if "stage" in seats:                  # manual vs none: both played on the selection deals
        seats = seats[seats["stage"] == "selection"]
    for rec in study.recommendations:
        k = rec["players"]
        s = seats[seats["players"] == k]
        sc = study.schedules[study.schedules["players"] == k]
        man = sc[sc["manual"]]["schedule"].iloc[0]
        none = sc[sc["none"]]["schedule"].iloc[0]
        a = s[(s["schedule"] == man) & (s["seat"] == 1)].iloc[0]
        b = s[(s["schedule"] == none) & (s["seat"] == 1)].iloc[0]
        last = s[(s["schedule"] == man) & (s["seat"] == k)].iloc[0]
        e = eff[(eff["players"] == k) & (eff["seat"] == 1)].iloc[0]
        fair = 1 / k
        reading = ("an advantage" if a["win_rate_lo"] > fair else "a disadvantage"
                   if a["win_rate_hi"] < fair else "no detectable advantage")
        out.append(Verdict("compensation", _field_prefix(field, k) + (
            f"At {k} players with the manual's compensation ({man}), seat 1 (the starting "
            f"player) wins {_iv(a['win_rate'], a['win_rate_lo'], a['win_rate_hi'], 100, unit='%')} and "
            f"seat {k} wins {_iv(last['win_rate'], last['win_rate_lo'], last['win_rate_hi'], 100, unit='%')}"
            f" against a fair {_pct(fair)}: {reading} for seat 1; without compensation seat 1 "
            f"wins {_iv(b['win_rate'], b['win_rate_lo'], b['win_rate_hi'], 100, unit='%')}, so the "
            f"compensation moves seat 1 by {_iv(e['effect'], e['effect_lo'], e['effect_hi'], 100, signed=True)}"
            f" pp (paired by deal), n = {_n(a['n_deals'])} deals.")))
        out.append(Verdict("compensation", _field_prefix(field, k) + sentence(rec)))
    return out


def end_trigger_verdicts(table: pd.DataFrame, field=None) -> list[Verdict]:
    """Per player count: the manual's end (length, what ends games, the trigger's
    win share, the margin), then the length and seat-1 changes of each variant.
    ``field``: every seat's policy (a name or a function of the player count), named at
    the start of each sentence."""
    from vale_sim.verdicts import _field_prefix
    out = []
    for k, t in table.groupby("players"):
        m = t[t["variant"] == "manual"].iloc[0]
        fair = 1 / k
        trig = ("wins more than a fair share" if m["trigger_win_lo"] > fair else
                "wins less than a fair share" if m["trigger_win_hi"] < fair else
                "is not shown to win more or less than a fair share")
        out.append(Verdict("end", _field_prefix(field, k) + (
            f"At {k} players the manual's end (25 VP or 10 cubes, +5 VP) comes after "
            f"{_iv(m['rounds'], m['rounds_lo'], m['rounds_hi'])} rounds; "
            f"{_iv(m['ends_VP'], m['ends_VP_lo'], m['ends_VP_hi'], 100, 0, unit='%')} of games end by VP, "
            f"{_iv(m['ends_cubes'], m['ends_cubes_lo'], m['ends_cubes_hi'], 100, 0, unit='%')} by cubes; "
            f"the player who triggers the end wins "
            f"{_iv(m['trigger_win'], m['trigger_win_lo'], m['trigger_win_hi'], 100, unit='%')} "
            f"(fair {_pct(fair)}): the trigger {trig}; the winner leads by "
            f"{_iv(m['margin'], m['margin_lo'], m['margin_hi'])} VP; n = {_n(m['n_deals'])} deals.")))
        parts = []
        for r in t[t["variant"] != "manual"].itertuples():
            parts.append(f"{r.variant}: {_iv(r.d_rounds, r.d_rounds_lo, r.d_rounds_hi, d=2, signed=True)}"
                         f" rounds, seat 1 {_iv(r.d_seat1_win, r.d_seat1_win_lo, r.d_seat1_win_hi, 100, signed=True)} pp")
        if parts:
            out.append(Verdict("end", _field_prefix(field, k) + (
                f"At {k} players, changes from the manual's end, paired on the same "
                f"{_n(m['n_deals'])} deals: " + "; ".join(parts) + ".")))
    return out


def market_verdicts(study) -> list[Verdict]:
    t, sp = study.table, study.extra["spread"]
    m, ms = t[t["variant"] == "manual"].iloc[0], sp[sp["variant"] == "manual"].iloc[0]
    per = study.config.get("seatings_per_deal", 4)      # games per deal: every seating
    parts = []
    for r in t[t["variant"] != "manual"].itertuples():
        x = sp[sp["variant"] == r.variant].iloc[0]
        parts.append(f"{r.variant}: length {_iv(r.d_rounds, r.d_rounds_lo, r.d_rounds_hi, d=2, signed=True)}"
                     f" rounds, spread {_iv(x['d_spread'], x['d_spread_lo'], x['d_spread_hi'], 100, signed=True)} pp")
    out = [Verdict("market", (
        f"With the manual's market growth (5 and 15 VP), {int(m['players'])}-player games of a "
        f"mixed line-up last {_iv(m['rounds'], m['rounds_lo'], m['rounds_hi'])} rounds and the "
        f"policies' win rates spread by {_iv(ms['spread'], ms['spread_lo'], ms['spread_hi'], 100)} pp "
        f"(SD), n = {_n(m['n_deals'])} deals x {per} seatings.  Changes, paired by deal: "
        + "; ".join(parts) + "."))]
    if "level2_sold_out" in t and pd.notna(m.get("level2_sold_out")):
        supply = int(m["level2_supply"])
        low = t["level2_sold_out_lo"].min()
        # floor, not round: a bound of 99.7% is not "at least 100%"
        why = (f"  Under every variant the lower bound is at least "
               f"{math.floor(1000 * low) / 10:g}%: the growth "
               f"points change when Level 2 Advances come out, not how many are bought; for them "
               f"to matter the Level 2 supply must outlast the game."
               if low >= 0.9 else "")
        out.append(Verdict("market", (
            f"Level 2 Advances bought per player-game in the manual's game: "
            f"{_iv(m['level2'], m['level2_lo'], m['level2_hi'], d=2)} of a supply of {supply} "
            f"copies; every copy is bought in "
            f"{_iv(m['level2_sold_out'], m['level2_sold_out_lo'], m['level2_sold_out_hi'], 100, unit='%')}"
            f" of its games, n = {_n(m['n_deals'])} deals x {per} seatings." + why)))
    return out


def wither_verdicts(study) -> list[Verdict]:
    p = study.extra["policies"]
    man = p[p["variant"] == "manual"].sort_values("withers_per_turn", ascending=False)
    out = [Verdict("rain", (
        "Withers per turn under the estimated Rain supply (20): " + ", ".join(
            f"{r.policy} {_iv(r.withers_per_turn, r.withers_per_turn_lo, r.withers_per_turn_hi, 100, unit='%')}"
            for r in man.itertuples())
        + f"; n = {_n(man['n_player_games'].iloc[0])} player-games per policy on "
          f"{_n(man['n_deals'].iloc[0])} deals."))]
    t = study.table
    parts = [f"{r.variant}: withers per player-game {_iv(r.d_withers, r.d_withers_lo, r.d_withers_hi, d=2, signed=True)}, "
             f"length {_iv(r.d_rounds, r.d_rounds_lo, r.d_rounds_hi, d=2, signed=True)} rounds"
             for r in t[t["variant"] != "manual"].itertuples()]
    if parts:
        out.append(Verdict("rain", "The Rain supply (an \"X\" of the manual), changes from 20 "
                                   "paired by deal: " + "; ".join(parts) + "."))
    v = study.extra.get("rain_value")
    if v is not None and len(v):
        w = v[v["measure"] == "win share"].iloc[0]
        sc = v[v["measure"] == "score"].iloc[0]
        out.append(Verdict("rain", (
            f"Using Rain is worth "
            f"{_iv(-w['difference'], -w['difference_hi'], -w['difference_lo'], 100, signed=True)} pp "
            f"of win share and {_iv(-sc['difference'], -sc['difference_hi'], -sc['difference_lo'], d=1, signed=True)}"
            f" points to a {int(w['players'])}-player focal player (against never placing Rain, "
            f"paired by deal), n = {_n(w['n_deals'])} deals.")))
    return out


