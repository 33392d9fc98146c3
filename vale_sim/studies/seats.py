"""Seat compensation: win rate per seat with and without the starting
resources of later seats, and a search over small compensation schedules.

    s = seat_study(players=(2, 3, 4), deals=300)
    s.seats        # per players, schedule and seat: win rate [95% CI], gap to 1/players, TOST p
    s.schedules    # per players and schedule: largest gap, IUT p, Holm-adjusted p, passes
    s.effect       # per players and seat: manual minus none, paired by deal
    s.recommendations

A *schedule* gives each seat (seat 1 = the starting player, who gets
nothing) a number of mana and spirit to start with; the manual's is
``1st nothing, 2nd 1 mana, 3rd 1 mana + 1 spirit, 4th 2 mana + 1 spirit``
(rule options ``seat_mana``, ``seat_spirit``).  Every schedule of a player
count plays the same deals (common random numbers), everyone playing the
same policy, so a seat's win rate is the only thing a schedule moves.

"Fair within a margin" is an equivalence test: for every seat, two one-sided
t tests that the seat's win rate lies within ``±margin`` of ``1/players``
(TOST at level alpha); a schedule passes when *every* seat passes (an
intersection-union test: its p-value is the largest seat p-value, no
correction needed across seats).  Searching over ``m`` schedules is ``m``
tests: Holm's correction over the schedules controls the chance that any
schedule is called fair when it is not.  A schedule is recommended only when
one passes after the correction (the passing one with the smallest largest
gap); otherwise the study says how many deals the closest schedule would need.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import common as C

MANUAL = ((0, 0), (1, 0), (1, 1), (2, 1))     # (mana, spirit) per seat, the manual's
NONE = ((0, 0),) * 4
GRIDS = ("ladder", "monotone")
DEFAULT_MARGIN = 0.03                          # 3 pp of win rate, as the Mystic Vale pool study
DEFAULT_ALPHA = 0.05


def label(schedule) -> str:
    """``"- / 1m / 1m1s / 2m1s"``: seat by seat, ``-`` for nothing."""
    def one(ms):
        m, s = ms
        return "-" if not (m or s) else (f"{m}m" if m else "") + (f"{s}s" if s else "")
    return " / ".join(one(x) for x in schedule)


def manual(players: int) -> tuple:
    return MANUAL[:players]


def monotone(players: int, max_mana: int = 2, max_spirit: int = 1) -> list[tuple]:
    """Every schedule with nothing for seat 1 and mana and spirit each
    non-decreasing from seat to seat, within the caps."""
    opts = [(m, s) for m in range(max_mana + 1) for s in range(max_spirit + 1)]
    out = []
    for rest in itertools.product(opts, repeat=players - 1):
        sched = ((0, 0),) + rest
        if all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(sched, sched[1:])):
            out.append(sched)
    return out


def ladder(players: int, max_mana: int = 2, max_spirit: int = 1) -> list[tuple]:
    """A small grid around the manual's schedule: none, the manual's, the manual's
    with one mana less / more at every compensated seat, without spirit, and with
    spirit at every later seat (within the caps, kept monotone)."""
    man = manual(players)
    cands = [NONE[:players], man,
             tuple((0, 0) if i == 0 else (max(0, m - 1), s) for i, (m, s) in enumerate(man)),
             tuple((0, 0) if i == 0 else (min(max_mana, m + 1), s) for i, (m, s) in enumerate(man)),
             tuple((m, 0) for m, _ in man),
             tuple((0, 0) if i == 0 else (m, min(max_spirit, 1)) for i, (m, s) in enumerate(man))]
    out = []
    for c in cands:
        c = tuple((min(m, max_mana), min(s, max_spirit)) for m, s in c)
        if c not in out:
            out.append(c)
    return out


def schedules(players: int, grid: str = "ladder", max_mana: int = 2, max_spirit: int = 1
              ) -> list[tuple]:
    """The schedules searched for ``players`` (the manual's and none always first)."""
    if grid not in GRIDS:
        raise C.StudyError(f"grid must be one of {', '.join(GRIDS)}, got {grid!r}")
    C.check_count("max_mana", max_mana, 0)
    C.check_count("max_spirit", max_spirit, 0)
    found = (ladder if grid == "ladder" else monotone)(players, max_mana, max_spirit)
    first = [NONE[:players], manual(players)]
    return first + [s for s in found if s not in first]


def schedule_rules(schedule, game: str = C.GAME, base=None):
    """The rule options with ``schedule`` as the starting resources (seats past
    ``len(schedule)`` keep the manual's values; they do not play)."""
    from ..games import get_game
    base = base if base is not None else get_game(game).rules_class()
    mana = tuple(m for m, _ in schedule) + tuple(base.seat_mana[len(schedule):])
    spirit = tuple(s for _, s in schedule) + tuple(base.seat_spirit[len(schedule):])
    return C.variant_rules({"seat_mana": mana, "seat_spirit": spirit}, game, base,
                           where=f"schedule {label(schedule)}")


@dataclass
class SeatStudy:
    config: dict
    seats: pd.DataFrame
    schedules: pd.DataFrame
    effect: pd.DataFrame
    recommendations: list = field(default_factory=list)
    frame: pd.DataFrame | None = None

    def to_json(self) -> dict:
        return C.clean({"study": "seat-compensation", "config": self.config,
                        "recommendations": self.recommendations,
                        "schedules": C.records(self.schedules), "seats": C.records(self.seats),
                        "effect": C.records(self.effect)})


def seat_study(players=(2, 3, 4), deals: int = 300, seed: int = 1, grid: str = "ladder",
               margin: float = DEFAULT_MARGIN, alpha: float = DEFAULT_ALPHA,
               policy: str = "balanced", card_set=None, engine: str = "auto", workers: int = 1,
               max_mana: int = 2, max_spirit: int = 1, progress: bool = True,
               keep_frame: bool = False) -> SeatStudy:
    """Play every schedule of the grid on deals ``0 .. deals-1`` of ``seed`` and test each."""
    players = C.check_players(players)
    C.check_count("deals", deals, 2)
    if not 0 < margin < 1:
        raise C.StudyError(f"margin must be a fraction between 0 and 1 (0.03 = 3 pp), got {margin!r}")
    if not 0 < alpha < 1:
        raise C.StudyError(f"alpha must be between 0 and 1, got {alpha!r}")
    seat_rows, sched_rows, effect_rows, recs, frames = [], [], [], [], []
    for k in players:
        scheds = schedules(k, grid, max_mana, max_spirit)
        variants = {label(s): schedule_rules(s) for s in scheds}
        df = C.play_variants(variants, k, deals, seed, (policy,), card_set=card_set,
                             engine=engine, workers=workers, progress=progress,
                             desc=f"seats, {k} players")
        if keep_frame:
            frames.append(df)
        s_rows, c_rows = evaluate(df, k, scheds, margin)
        reject, p_adj = C.holm([r["p_iut"] for r in c_rows], alpha)
        for r, rej, pa in zip(c_rows, reject, p_adj):
            r["p_holm"] = float(pa)
            r["passes"] = bool(rej)
        seat_rows += s_rows
        sched_rows += c_rows
        effect_rows += compensation_effect(df, k)
        recs.append(recommend(c_rows, s_rows, k, margin, alpha, deals))
    config = {"players": list(players), "deals": deals, "seed": seed, "grid": grid,
              "margin": margin, "alpha": alpha, "correction": "holm", "policy": policy,
              "engine": C.resolve_engine(engine), "max_mana": max_mana, "max_spirit": max_spirit,
              "card_set": str(card_set) if card_set is not None else None}
    return SeatStudy(config, pd.DataFrame(seat_rows), pd.DataFrame(sched_rows),
                     pd.DataFrame(effect_rows), recs,
                     pd.concat(frames, ignore_index=True) if keep_frame else None)


def evaluate(df: pd.DataFrame, players: int, scheds, margin: float) -> tuple[list, list]:
    """Per schedule and seat: win rate with a 95% interval, gap to a fair share,
    TOST p-value; per schedule: the largest gap and the IUT p-value."""
    fair = 1 / players
    seat_rows, sched_rows = [], []
    for order, sched in enumerate(scheds):
        lab = label(sched)
        d = df[df["variant"] == lab]
        gaps, ps = [], []
        for seat in range(players):
            x = d[d["seat"] == seat]
            e = C.rate_by_deal(x["win_share"], x["deal"])
            p, (lo90, hi90) = C.tost(e.value - fair, e.se, margin, e.clusters - 1)
            sd = float(np.std(x["win_share"].to_numpy(float), ddof=1)) if len(x) > 1 else math.nan
            seat_rows.append({"players": players, "schedule": lab, "seat": seat + 1,
                              "mana": sched[seat][0], "spirit": sched[seat][1],
                              "n_games": e.n, "n_deals": e.clusters, "win_rate": e.value,
                              "win_rate_lo": e.lo, "win_rate_hi": e.hi, "fair": fair,
                              "gap": e.value - fair, "gap_lo90": lo90, "gap_hi90": hi90,
                              "p_tost": p, "sd": sd})
            gaps.append(e.value - fair)
            ps.append(p)
        sched_rows.append({"players": players, "schedule": lab, "order": order,
                           "manual": sched == manual(players), "none": sched == NONE[:players],
                           "n_deals": int(d["deal"].nunique()),
                           "max_gap": float(np.max(np.abs(gaps))),
                           "worst_seat": int(np.argmax(np.abs(gaps))) + 1,
                           "p_iut": float(max(ps)),
                           "rounds": float(d.groupby("deal")["rounds"].first().mean())})
    return seat_rows, sched_rows


def compensation_effect(df: pd.DataFrame, players: int) -> list[dict]:
    """Per seat: win rate with the manual's compensation minus without, paired by deal."""
    man, none = label(manual(players)), label(NONE[:players])
    out = []
    for seat in range(players):
        def series(lab):
            x = df[(df["variant"] == lab) & (df["seat"] == seat)]
            return C.deal_means(x["win_share"], x["deal"])
        d = C.paired(series(man), series(none), bound=1.0)
        out.append({"players": players, "seat": seat + 1, "n_deals": d.n,
                    **C.paired_row("effect", d)})
    return out


def recommend(sched_rows: list, seat_rows: list, players: int, margin: float, alpha: float,
              deals: int) -> dict:
    """The schedule to recommend (or None) and, when none passes, the deals the
    closest schedule would need (80% power at the Bonferroni level alpha/m,
    assuming its true gaps are the estimated ones)."""
    m = len(sched_rows)
    passing = [r for r in sched_rows if r["passes"]]
    best = min(sched_rows, key=lambda r: (r["max_gap"], r["order"]))
    man = next(r for r in sched_rows if r["manual"])
    rec = {"players": players, "margin": margin, "alpha": alpha, "schedules_tested": m,
           "n_deals": deals, "manual": man["schedule"], "manual_max_gap": man["max_gap"],
           "manual_passes": man["passes"], "closest": best["schedule"],
           "closest_max_gap": best["max_gap"],
           "recommended": None, "recommended_max_gap": None, "deals_needed": None,
           "deals_needed_if_fair": None}
    if passing:
        pick = min(passing, key=lambda r: (r["max_gap"], r["order"]))
        rec["recommended"] = pick["schedule"]
        rec["recommended_max_gap"] = pick["max_gap"]
    else:
        mine = [r for r in seat_rows if r["schedule"] == best["schedule"]]
        rec["deals_needed"] = max(C.deals_needed(r["sd"], r["gap"], margin, alpha / m)
                                  for r in mine)
        rec["deals_needed_if_fair"] = max(C.deals_needed(r["sd"], 0.0, margin, alpha / m)
                                          for r in mine)
    return rec


def sentence(rec: dict) -> str:
    """The recommendation in one sentence (used by the command and the report)."""
    k, pp = rec["players"], 100 * rec["margin"]
    head = (f"At {k} players ({rec['schedules_tested']} schedules, n = {rec['n_deals']:,} deals "
            f"each, margin ±{pp:.0f} pp, Holm over schedules): ")
    if rec["recommended"] is not None:
        out = (f"schedule {rec['recommended']} brings every seat within ±{pp:.0f} pp of a fair share "
               f"(largest gap {100 * rec['recommended_max_gap']:.1f} pp)")
    else:
        need, fair = rec["deals_needed"], rec.get("deals_needed_if_fair")
        if need is not None and math.isfinite(need):
            need_s = (f"about {int(need):,} deals per schedule would be needed to show it "
                      f"(80% power, if its true gaps are the estimated ones)")
        else:
            need_s = ("its estimated gap exceeds the margin; even an exactly fair schedule would "
                      f"need about {int(fair):,} deals per schedule to be shown fair (80% power)"
                      if fair is not None and math.isfinite(fair) else
                      "its estimated gap exceeds the margin")
        out = (f"no schedule is shown fair; the closest is {rec['closest']} (largest seat gap "
               f"{100 * rec['closest_max_gap']:.1f} pp): {need_s}")
    man = (f"; the manual's {rec['manual']} {'passes' if rec['manual_passes'] else 'is not shown fair'}"
           f" (largest gap {100 * rec['manual_max_gap']:.1f} pp)")
    return head + out + man + "."
