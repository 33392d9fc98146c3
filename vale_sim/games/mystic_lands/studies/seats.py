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
(TOST at level alpha); a schedule is *fair* when *every* seat passes (an
intersection-union test: its p-value is the largest seat p-value, no
correction needed across seats).  A schedule is *shown unfair* when some
seat's gap is shown beyond the margin (the 1 − alpha interval of the gap
wholly outside ±margin, Bonferroni over the seats).  Otherwise it is
*inconclusive*: "not shown fair" is not "unfair".

Two stages, on separate deals, so that the schedule recommended is not the
luckiest of the search (the winner's curse: picking the smallest estimated gap
among many schedules picks gaps that are too small):

1. **Selection**: every schedule of the grid plays deals ``0 .. deals-1`` of
   ``seed``; the TOST of each (Holm over the schedules) is shown, and the
   *alternative* is the non-manual schedule with the smallest largest gap
   among those passing (among all, when none passes).
2. **Confirmation**: the manual's schedule and the alternative play
   ``confirm_deals`` fresh deals (``seed + CONFIRM_SEED_OFFSET``); their fair /
   shown-unfair tests use these deals only (Holm over the two schedules), and
   the printed gaps are these confirmation estimates.

The manual's schedule is preferred: it is recommended whenever it is
confirmed fair; a change (the alternative) is recommended only when the
manual's schedule is shown unfair *and* the alternative is confirmed fair.
Otherwise the verdict is inconclusive and the study says how many deals the
manual's schedule would need to be resolved.  ``deals=None`` (default) sizes
the selection so that a schedule whose every seat is within ``margin/2`` of a
fair share is confirmed with 80 % power (:func:`auto_deals`);
``confirm_deals=None`` (default) sizes the confirmation from the selection
stage as a pilot, so that the manual's schedule is resolved with 80 % power if
its true gaps are its selection estimates (:func:`confirm_size`, at most
``MAX_CONFIRM_DEALS``).
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
    from vale_sim.games import get_game
    base = base if base is not None else get_game(game).rules_class()
    mana = tuple(m for m, _ in schedule) + tuple(base.seat_mana[len(schedule):])
    spirit = tuple(s for _, s in schedule) + tuple(base.seat_spirit[len(schedule):])
    return C.variant_rules({"seat_mana": mana, "seat_spirit": spirit}, game, base,
                           where=f"schedule {label(schedule)}")


CONFIRM_SEED_OFFSET = 0xC0F1_0000      # the confirmation deals are played on seed + this
MAX_CONFIRM_DEALS = 100_000            # the automatic confirmation size stops here
DEFAULT_POWER = 0.8
STAGES = ("selection", "confirmation")


def auto_deals(players: int, margin: float = DEFAULT_MARGIN, alpha: float = DEFAULT_ALPHA,
               power: float = DEFAULT_POWER, design_gap: float | None = None,
               tests: int = 2) -> int:
    """Deals per schedule and stage so that a schedule whose seats are all within
    ``design_gap`` (default ``margin/2``) of a fair share passes the confirmation
    TOST (level ``alpha/tests``: Holm over the manual's schedule and the
    alternative, worst case) with probability ``power`` at its worst seat.

    One deal's win share has SD at most ``sqrt(f(1 − f))`` with ``f = 1/players``
    (0/1 outcomes; shared wins only lower it), so no pilot is needed:
    ``n = ((z_(1−α/tests) + z_power)·sqrt(f(1−f)) / (margin − design_gap))²``.
    At ±3 pp: about 8,700 deals at 2 players, 7,700 at 3, 6,500 at 4."""
    from vale_sim import stats
    f = 1 / players
    gap = margin / 2 if design_gap is None else design_gap
    n = stats.n_for_equivalence(math.sqrt(f * (1 - f)), gap, margin, alpha / tests, power)
    if not math.isfinite(n):
        raise C.StudyError(f"design gap {gap!r} must be smaller than the margin {margin!r}")
    return int(n)


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


def seat_study(players=(2, 3, 4), deals: int | None = None, seed: int = 1, grid: str = "ladder",
               margin: float = DEFAULT_MARGIN, alpha: float = DEFAULT_ALPHA,
               policy: str = "balanced", card_set=None, engine: str = "auto", workers: int = 1,
               max_mana: int = 2, max_spirit: int = 1, progress: bool = True,
               keep_frame: bool = False, confirm_deals: int | None = None,
               power: float = DEFAULT_POWER,
               max_confirm_deals: int = MAX_CONFIRM_DEALS) -> SeatStudy:
    """Select a schedule on deals ``0 .. deals-1`` of ``seed``, then confirm the manual's
    and the selected alternative on ``confirm_deals`` fresh deals (module docstring).

    ``deals`` None: :func:`auto_deals` per player count; ``confirm_deals`` None: sized
    from the selection stage as a pilot (:func:`confirm_size`).  ``policy``: the policy
    every seat plays -- a name, file or policy, ``{P}`` standing for the player count
    (``meta-{P}p``: the strongest bundled field), or a dict player count -> spec."""
    from vale_sim.games import get_game
    from vale_sim.games.base import baseline_label, baseline_spec
    players = C.check_players(players)
    g = get_game(C.GAME)

    def spec_for(k):
        sp = policy.get(k) if isinstance(policy, dict) else policy
        if sp is None:
            raise C.StudyError(f"policy: no policy given for {k} players")
        return baseline_spec(sp, k)
    try:
        pols = {k: g.resolve_baseline(spec_for(k), k) for k in players}
    except ValueError as e:
        raise C.StudyError(f"policy: {e}") from None
    if deals is not None:
        C.check_count("deals", deals, 2)
    if confirm_deals is not None:
        C.check_count("confirm_deals", confirm_deals, 2)
    if not 0 < margin < 1:
        raise C.StudyError(f"margin must be a fraction between 0 and 1 (0.03 = 3 pp), got {margin!r}")
    if not 0 < alpha < 1:
        raise C.StudyError(f"alpha must be between 0 and 1, got {alpha!r}")
    if not 0 < power < 1:
        raise C.StudyError(f"power must be between 0 and 1, got {power!r}")
    seat_rows, sched_rows, effect_rows, recs, frames = [], [], [], [], []
    sizes = {}
    confirm_seed = seed + CONFIRM_SEED_OFFSET
    for k in players:
        n_sel = deals if deals is not None else auto_deals(k, margin, alpha, power)
        scheds = schedules(k, grid, max_mana, max_spirit)
        variants = {label(s): schedule_rules(s) for s in scheds}
        df = C.play_variants(variants, k, n_sel, seed, (pols[k],), card_set=card_set,
                             engine=engine, workers=workers, progress=progress,
                             desc=f"seats, {k} players (selection)")
        s_rows, c_rows = evaluate(df, k, scheds, margin, alpha, "selection")
        reject, p_adj = C.holm([r["p_iut"] for r in c_rows], alpha)
        for r, rej, pa in zip(c_rows, reject, p_adj):
            r["p_holm"] = float(pa)
            r["passes"] = bool(rej)
        alt = select_alternative(c_rows)
        man = manual(k)
        n_conf = (confirm_deals if confirm_deals is not None else
                  confirm_size(s_rows, label(man), alt, margin, alpha, power, n_sel,
                               max_confirm_deals))
        sizes[k] = {"deals": n_sel, "confirm_deals": n_conf}
        chosen = [man] + [s for s in scheds if label(s) == alt]
        cdf = C.play_variants({label(s): variants[label(s)] for s in chosen}, k, n_conf,
                              confirm_seed, (pols[k],), card_set=card_set, engine=engine,
                              workers=workers, progress=progress,
                              desc=f"seats, {k} players (confirmation)")
        cs_rows, cc_rows = evaluate(cdf, k, chosen, margin, alpha, "confirmation")
        confirm(cc_rows, alpha)
        if keep_frame:
            frames += [df.assign(stage="selection"), cdf.assign(stage="confirmation")]
        seat_rows += s_rows + cs_rows
        sched_rows += c_rows + cc_rows
        effect_rows += compensation_effect(df, k)
        recs.append(recommend(c_rows, cc_rows, cs_rows, k, margin, alpha, n_sel, n_conf,
                              power))
    config = {"players": list(players), "deals": deals if deals is not None else "auto",
              "deals_by_players": {str(k): v for k, v in sizes.items()},
              "confirm_deals": confirm_deals if confirm_deals is not None else "auto",
              "max_confirm_deals": max_confirm_deals,
              "seed": seed, "confirm_seed": confirm_seed, "grid": grid, "margin": margin,
              "alpha": alpha, "power": power, "correction": "holm",
              "policy": (baseline_label(policy) if not isinstance(policy, dict) else
                         "by player count"),
              "policy_by_players": {str(k): pols[k].name for k in players},
              "engine": C.resolve_engine(engine), "max_mana": max_mana, "max_spirit": max_spirit,
              "card_set": str(card_set) if card_set is not None else None}
    return SeatStudy(config, pd.DataFrame(seat_rows), pd.DataFrame(sched_rows),
                     pd.DataFrame(effect_rows), recs,
                     pd.concat(frames, ignore_index=True) if keep_frame else None)


def evaluate(df: pd.DataFrame, players: int, scheds, margin: float, alpha: float = DEFAULT_ALPHA,
             stage: str = "selection") -> tuple[list, list]:
    """Per schedule and seat: win rate with a 95% interval, gap to a fair share with
    its 90% interval, TOST p-value and the p-value of "beyond the margin"; per
    schedule: the largest gap, the IUT p-value (fair) and the Bonferroni-over-seats
    p-value of "some seat beyond the margin" (unfair)."""
    from vale_sim import stats
    fair = 1 / players
    seat_rows, sched_rows = [], []
    for order, sched in enumerate(scheds):
        lab = label(sched)
        d = df[df["variant"] == lab]
        gaps, ps, pb = [], [], []
        for seat in range(players):
            x = d[d["seat"] == seat]
            e = C.rate_by_deal(x["win_share"], x["deal"])
            p, (lo90, hi90) = stats.tost(e.value - fair, e.se, margin, e.clusters - 1, alpha)
            p_out = stats.beyond_p(e.value - fair, e.se, margin, e.clusters - 1)
            sd = float(np.std(x["win_share"].to_numpy(float), ddof=1)) if len(x) > 1 else math.nan
            seat_rows.append({"players": players, "stage": stage, "schedule": lab,
                              "seat": seat + 1, "mana": sched[seat][0], "spirit": sched[seat][1],
                              "n_games": e.n, "n_deals": e.clusters, "win_rate": e.value,
                              "win_rate_lo": e.lo, "win_rate_hi": e.hi, "fair": fair,
                              "gap": e.value - fair, "gap_se": e.se, "gap_lo90": lo90,
                              "gap_hi90": hi90,
                              "p_tost": p, "p_beyond": p_out, "sd": sd})
            gaps.append(e.value - fair)
            ps.append(p)
            pb.append(p_out)
        sched_rows.append({"players": players, "stage": stage, "schedule": lab, "order": order,
                           "manual": sched == manual(players), "none": sched == NONE[:players],
                           "n_deals": int(d["deal"].nunique()),
                           "max_gap": float(np.max(np.abs(gaps))),
                           "worst_seat": int(np.argmax(np.abs(gaps))) + 1,
                           "p_iut": float(max(ps)),
                           "p_unfair": float(min(1.0, players * min(pb))),
                           "rounds": float(d.groupby("deal")["rounds"].first().mean())})
    return seat_rows, sched_rows


def select_alternative(sel_rows: list) -> str:
    """The non-manual schedule to confirm: the smallest largest gap among those
    passing the selection test (Holm), or among all when none passes."""
    others = [r for r in sel_rows if not r["manual"]]
    pool = [r for r in others if r.get("passes")] or others
    return min(pool, key=lambda r: (r["max_gap"], r["order"]))["schedule"]


def confirm(conf_rows: list, alpha: float) -> None:
    """The confirmation verdicts, in place: Holm over the confirmed schedules for
    "fair" (``p_holm``, ``passes``) and for "shown unfair" (``p_unfair_holm``,
    ``unfair``); ``verdict`` "fair", "shown unfair" or "inconclusive"."""
    ok, p_ok = C.holm([r["p_iut"] for r in conf_rows], alpha)
    bad, p_bad = C.holm([r["p_unfair"] for r in conf_rows], alpha)
    for r, a, pa, b, pb in zip(conf_rows, ok, p_ok, bad, p_bad):
        r.update(p_holm=float(pa), passes=bool(a), p_unfair_holm=float(pb), unfair=bool(b),
                 verdict="fair" if a else "shown unfair" if b else "inconclusive")


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


def deals_to_resolve(seat_rows: list, schedule: str, margin: float, alpha: float,
                     power: float = DEFAULT_POWER, pilot_se: float = 0.0) -> tuple[float, str]:
    """Deals the confirmation of ``schedule`` would need to be resolved, if its true
    gaps are the estimated ones (80% power): to be shown fair when its largest
    estimated gap is inside the margin (every seat's TOST at ``alpha/2``), else to
    be shown unfair (its worst seat beyond the margin at ``alpha/(2·seats)``).
    ``(deals, "fair" | "unfair")``.

    ``pilot_se`` > 0 plans on the unfavourable end of each gap instead of its estimate:
    ``|gap| + pilot_se·se`` when showing fair, ``|gap| − pilot_se·se`` when showing unfair
    (``se``: the row's ``gap_se``, the standard error of the gap clustered by deal).  A
    gap within ``pilot_se`` standard errors of the margin then needs every deal there is
    (infinite): a pilot cannot tell on which side of the margin it lies."""
    from vale_sim import stats
    mine = [r for r in seat_rows if r["schedule"] == schedule]
    k = len(mine)
    se = [pilot_se * float(r.get("gap_se", 0.0) or 0.0) for r in mine]
    if max(abs(r["gap"]) for r in mine) < margin:
        need = []
        for r, e in zip(mine, se):
            g = abs(r["gap"]) + e
            need.append(math.inf if g >= margin else
                        stats.n_for_equivalence(r["sd"], g, margin, alpha / 2, power))
        return max(need), "fair"
    need = []
    for r, e in zip(mine, se):
        g = max(0.0, abs(r["gap"]) - e)
        need.append(math.inf if g <= margin else
                    stats.n_for_beyond(r["sd"], g, margin, alpha / (2 * k), power))
    return min(need), "unfair"


#: How many standard errors of a pilot gap the automatic confirmation size plans for
#: (:func:`confirm_size`): the unfavourable end of the gap, not its estimate.
PILOT_SE = 2.0


def confirm_size(sel_seats: list, manual_label: str, alternative: str, margin: float,
                 alpha: float, power: float, floor: int, cap: int = MAX_CONFIRM_DEALS) -> int:
    """The automatic confirmation size: the selection stage as a pilot.

    The manual's schedule is not selected, so its selection-stage gaps are unbiased
    estimates, but estimates: sizing from a gap as if it were true leaves a decision
    near the margin inconclusive about half the time.  The confirmation gets the deals
    that would resolve it (shown fair or shown unfair, :func:`deals_to_resolve`, 80%
    power) if each gap were :data:`PILOT_SE` standard errors less favourable than its
    estimate -- every deal up to ``cap`` when a gap lies within that of the margin --
    and, when it looks unfair, the deals that would show the alternative fair (from
    its selection gaps, which the selection flatters: a lower bound).  At least
    ``floor`` (the selection's deals), at most ``cap``.  The confirmation's tests are
    untouched by this choice: its deals are fresh, and their number is fixed before
    any is played."""
    need, what = deals_to_resolve(sel_seats, manual_label, margin, alpha, power, PILOT_SE)
    if what == "unfair":
        need = max(need, deals_to_resolve(sel_seats, alternative, margin, alpha, power,
                                          PILOT_SE)[0])
    if not math.isfinite(need):
        need = cap
    return int(min(cap, max(floor, need)))


def recommend(sel_rows: list, conf_rows: list, conf_seats: list, players: int, margin: float,
              alpha: float, deals: int, confirm_deals: int,
              power: float = DEFAULT_POWER) -> dict:
    """The decision for one player count from the confirmation stage: keep the
    manual's schedule (confirmed fair), change to the alternative (the manual's
    shown unfair and the alternative confirmed fair), or inconclusive (with the
    deals the manual's schedule would need to be resolved)."""
    man_sel = next(r for r in sel_rows if r["manual"])
    best = min(sel_rows, key=lambda r: (r["max_gap"], r["order"]))
    man = next(r for r in conf_rows if r["manual"])
    alt = next((r for r in conf_rows if not r["manual"]), None)
    alt_sel = next((r for r in sel_rows if alt is not None and r["schedule"] == alt["schedule"]),
                   None)
    rec = {"players": players, "margin": margin, "alpha": alpha,
           "schedules_tested": len(sel_rows), "n_deals": deals, "confirm_deals": confirm_deals,
           "manual": man["schedule"], "manual_verdict": man["verdict"],
           "manual_max_gap": man["max_gap"], "manual_p": man["p_holm"],
           "manual_p_unfair": man["p_unfair_holm"], "manual_passes": man["passes"],
           "manual_max_gap_selection": man_sel["max_gap"],
           "alternative": alt["schedule"] if alt else None,
           "alternative_verdict": alt["verdict"] if alt else None,
           "alternative_max_gap": alt["max_gap"] if alt else None,
           "alternative_max_gap_selection": alt_sel["max_gap"] if alt_sel else None,
           "alternative_passed_selection": bool(alt_sel["passes"]) if alt_sel else None,
           "closest": best["schedule"], "closest_max_gap": best["max_gap"],
           "recommended": None, "recommended_max_gap": None, "decision": "inconclusive",
           "deals_needed": None, "deals_needed_to_show": None}
    if man["passes"]:
        rec.update(recommended=man["schedule"], recommended_max_gap=man["max_gap"],
                   decision="keep the manual's")
    elif man["unfair"] and alt is not None and alt["passes"]:
        rec.update(recommended=alt["schedule"], recommended_max_gap=alt["max_gap"],
                   decision="change")
    else:
        need, what = deals_to_resolve(conf_seats, man["schedule"], margin, alpha, power)
        if man["unfair"] and alt is not None:
            need, what = deals_to_resolve(conf_seats, alt["schedule"], margin, alpha, power)
        rec.update(deals_needed=need if math.isfinite(need) else None, deals_needed_to_show=what)
    return rec


def sentence(rec: dict) -> str:
    """The recommendation in one sentence (used by the command and the report)."""
    k, pp = rec["players"], 100 * rec["margin"]
    g = lambda x: f"{100 * x:.1f} pp"             # noqa: E731
    head = (f"At {k} players ({rec['schedules_tested']} schedules searched on "
            f"{rec['n_deals']:,} deals each, then the manual's and the best other one confirmed "
            f"on {rec['confirm_deals']:,} fresh deals; margin ±{pp:.0f} pp, Holm): ")
    man = (f"the manual's {rec['manual']} is {rec['manual_verdict']} on the fresh deals "
           f"(largest seat gap {g(rec['manual_max_gap'])})")
    alt = ""
    if rec["alternative"] is not None:
        alt = (f"; the best other schedule, {rec['alternative']} (largest gap "
               f"{g(rec['alternative_max_gap_selection'])} where it was selected, "
               f"{g(rec['alternative_max_gap'])} on the fresh deals), is "
               f"{rec['alternative_verdict']}")
    if rec["decision"] == "keep the manual's":
        out = man + ": keep it" + alt
    elif rec["decision"] == "change":
        out = man + alt + f": use {rec['recommended']}"
    else:
        need = rec.get("deals_needed")
        what = rec.get("deals_needed_to_show")
        who = rec["alternative"] if rec["manual_verdict"] == "shown unfair" else "the manual's"
        need_s = (f"about {int(need):,} deals would show {who} {what} (80% power, if its true "
                  f"gaps are the estimated ones)" if need is not None else
                  "its estimated gap lies on the margin: more deals may not settle it")
        out = (man + alt + ": no change is shown to be needed and none is recommended "
               "(not shown fair is not unfair); " + need_s)
    return head + out + "."
