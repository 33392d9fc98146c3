"""Fill in the X's: a proposed value, with its evidence, for every open number of a draft
rulebook (``vale-sim balance --draft``, docs/balance.md "Filling in the X's").

    d = fill_in(GAME, players=(2, 3, 4), deals=2000)    # a game with an open_numbers hook
    print(d.text()); d.to_json()

The game lists its open numbers (``Game.open_numbers(card_set)``: :class:`OpenNumber`
records, each with the manual's wording, the value played now and its source --
``estimate`` when the manual prints an X, ``manual`` when it prints a number --, the
candidate values and one of two criteria):

* ``enough`` (a supply or a count of cards: "X Rain tokens", "X Advances"): the smallest
  value that does not change the game.  Every candidate is played against the
  **reference** (the largest candidate, a supply that never runs short) on common deals,
  everyone the baseline bots (default the game's strongest bundled field, as for
  ``balance``: :func:`vale_sim.strong_field.field_of`); per deal the paired
  difference of the game-level measures of ``what-if`` (each seat's win rate, game
  length, score margin, the game's bad-turn rate).  A candidate is **enough** when every difference's 95% interval lies inside its
  equivalence bound (``BOUNDS``; seats: ±margin) at every player count -- an
  intersection-union test, no correction needed.  The value played now is kept unless it
  is shown to change the game (fewest changes); else the candidate is the smallest
  larger one shown enough.  The reference is enough by definition, so it is no finding:
  when no candidate between the value played now and the reference is shown enough the
  number is *undecided* (with the deals the nearest would need), and the reference is
  the candidate only when it is the sole larger one.
* ``seats`` (a number printed in the manual: the seat schedule, the end trigger, the
  market growth points): every seat's win rate minus 1/P within ±margin.  The value is
  changed only when some seat is **shown** beyond ±margin with it (95% interval,
  Bonferroni across the seats and counts, wholly outside): then the proposal is the
  candidate nearest the printed value whose largest seat gap is within margin/2, else
  the one with the smallest largest gap.  Otherwise the printed value is kept.

The numbers are handled one after another in the game's order, each measured with the
proposals before it applied.  Each number's candidates play the deals of its own
selection seed (``seed + i``); its proposal is then replayed, with the value played now
(and, for ``enough``, the reference), on the fresh deals of a confirmation seed
(``seed + 2**62 + i``, never used by a selection), a size fixed in advance: the
evidence reported is the confirmation's.

Shared code: the game only through :func:`vale_sim.games.get_game` and its hooks.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from . import stats
from .errors import UserError
from .games import get_game
from .policy_files import policy_digest
from .games.base import OpenNumber  # noqa: F401  (the record a game's open_numbers returns)
from .rng import offset_seed

DEFAULT_DEALS = 2000
DEFAULT_PLAYERS = (2, 3, 4)
CONFIRM_OFFSET = 2**62
AGREE_OFFSET = 2**61            # the second seed of the agreement check
# equivalence bounds of the "enough" criterion, per measure (seat gaps use the margin)
BOUNDS = {"rounds": 0.25, "score_margin": 1.0, "event_per_player": 0.1}


class DraftError(UserError, ValueError):
    """A bad --draft request: one line naming the option and the fix."""


class DraftCancelled(Exception):
    """The caller's ``cancel()`` asked the fill-in to stop."""


@dataclass
class Draft:
    config: dict
    numbers: list[dict] = field(default_factory=list)
    games: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        from .strong_field import field_label
        return {**self.config, "field": field_label(self.config["baseline"],
                                                    self.config["players"]),
                "numbers": self.numbers, "games_played": self.games}

    def text(self) -> str:
        return format_text(self.to_json())


def _mean_ci(x: np.ndarray, level: float) -> tuple[float, float, float]:
    r = stats.paired_difference(np.asarray(x, float), np.zeros(len(x)), level)
    return float(r.mean), float(r.lo), float(r.hi)


def _measures(g, frame, players: int) -> dict[str, np.ndarray]:
    from .whatif import _per_deal
    m = _per_deal(frame, players, g.event_column)
    m["event_per_player"] = m.pop(f"{g.event_column}_per_player")
    return m


def fill_in(game: str, card_set=None, players=DEFAULT_PLAYERS, deals: int = DEFAULT_DEALS,
            confirm_deals: int | None = None, seed: int = 0, margin: float = 0.02,
            baseline=None, engine: str = "fast", workers: int = 1, keys=None,
            progress=None, cancel=None, play=None, scheduler=None,
            agreement: bool = True) -> Draft:
    """A proposed value and its evidence for every open number of ``game``'s draft
    rulebook (module docstring).  ``deals``: deals per candidate and player count in a
    selection; ``confirm_deals`` (default ``deals``): in each confirmation.  ``keys``:
    only these open numbers.  ``progress(games_played)`` after every batch of games;
    ``cancel()`` before each (true: :class:`DraftCancelled`).  ``scheduler``: a Dask
    address or client (the same result).  ``baseline``: the bots (default
    :func:`vale_sim.strong_field.field_of`, the game's strongest bundled field, the field
    balance is measured under).  ``agreement``: the whole fill-in again at a second
    seed (``seed + 2**61``: selections and confirmations of their own), each number
    then says what that seed proposed and whether the two agree (twice the games)."""
    from .tournament import play_frame
    g = get_game(game)
    if getattr(g, "open_numbers", None) is None:
        raise DraftError(f"--draft: {g.title} has no open numbers (no draft rulebook); "
                         f"drop --draft")
    counts = [players] if isinstance(players, int) else list(players)
    for p in counts:
        if p not in g.players:
            raise DraftError(f"--players: give counts from {', '.join(map(str, g.players))} "
                             f"for {g.title}, got {p!r}")
    if not 0 < margin < 1:
        raise DraftError(f"--margin must be above 0 and below 100 pp, got {100 * margin:g}")
    confirm_deals = confirm_deals or deals
    cs0 = g.load_card_set(card_set if card_set is not None else g.default_card_set)
    rules0 = g.rules_class()
    numbers = list(g.open_numbers(cs0))
    if keys is not None:
        known = [n.key for n in numbers]
        for k in keys:
            if k not in known:
                raise DraftError(f"--numbers: unknown open number {k!r} (known: "
                                 f"{', '.join(known)})")
        numbers = [n for n in numbers if n.key in keys]
    for n, what in ((deals, "deals"), (confirm_deals, "confirm_deals")):
        if isinstance(n, bool) or not isinstance(n, int) or n < 2:
            raise DraftError(f"--games ({what}) must be a whole number of at least 2, got {n!r}")
    for num in numbers:                         # every candidate playable, before any game
        _check_playable(g, num, cs0, rules0, counts)
    from .strong_field import field_of
    baseline = baseline or field_of(g)
    base_of = {}
    for p in counts:
        try:
            base_of[p] = g.resolve_baseline(baseline, p, cs0)
        except (ValueError, *g.user_errors) as e:
            raise DraftError(f"--baseline {baseline} at {p} players: "
                             f"{str(e).splitlines()[0] if str(e) else e!r}; give another "
                             f"--baseline (e.g. {g.default_policy})") from None
    dask = None
    if play is None and scheduler is not None:
        from .balance import _DaskPlay          # one client for the whole fill-in
        dask = play = _DaskPlay(scheduler)
    play = play or play_frame
    try:
        out = _fill_in(g, cs0, rules0, numbers, counts, deals, confirm_deals, seed, margin,
                       baseline, engine, workers, base_of, progress, cancel, play)
        if agreement:
            done = out.games["games"]
            more = None if progress is None else (lambda n: progress(done + n))
            seed2 = offset_seed(seed, AGREE_OFFSET)
            two = _fill_in(g, cs0, rules0, numbers, counts, deals, confirm_deals, seed2,
                           margin, baseline, engine, workers, base_of, more, cancel, play)
            out.config["second_seed"] = seed2
            for a, b in zip(out.numbers, two.numbers):
                a["second_seed_proposed"] = b["proposed"]
                a["second_seed_decision"] = b["decision"]
                a["seeds_agree"] = (a["proposed"] == b["proposed"]
                                    and a["decision"] == b["decision"])
            out.games = {k: round(out.games[k] + two.games[k], 2) if k != "games" else
                         out.games[k] + two.games[k] for k in out.games}
        return out
    finally:
        if dask is not None:
            dask.close()


def _fill_in(g, cs0, rules0, numbers, counts, deals, confirm_deals, seed, margin, baseline,
             engine, workers, base_of, progress, cancel, play) -> Draft:
    import time
    t0 = time.perf_counter()
    played = {"games": 0, "play_seconds": 0.0}

    def measure(cs, rules, p, s, n):
        if cancel is not None and cancel():
            raise DraftCancelled("balance --draft: cancelled")
        t = time.perf_counter()
        f = play(cs, p, s, n, [base_of[p]], rules, engine, workers, game=g.name)
        played["play_seconds"] += time.perf_counter() - t
        played["games"] += n
        if progress is not None:
            progress(played["games"])
        return _measures(g, f, p)

    config = {"game": g.name, "card_set": cs0.name, "digest": cs0.digest(),
              "players": counts, "deals": deals,
              "confirm_deals": confirm_deals, "seed": seed, "margin": margin,
              "baseline": baseline, "engine": engine, "bounds": BOUNDS,
              "baseline_digest": {str(p): policy_digest(base_of[p]) for p in counts},
              "confidence": 0.95}
    out = Draft(config)
    cs, rules = cs0, rules0
    for i, num in enumerate(numbers):
        s_sel = offset_seed(seed, i)
        s_conf = offset_seed(seed, CONFIRM_OFFSET + i)
        _check_playable(g, num, cs, rules, counts)     # with the proposals so far
        sel = {v: {p: measure(*num.apply(cs, rules, v), p, s_sel, deals) for p in counts}
               for v in num.candidates}
        if num.criterion == "enough":
            rec = _enough(num, sel, counts, margin, lambda v, s, n: {
                p: measure(*num.apply(cs, rules, v), p, s, n) for p in counts}, s_conf,
                confirm_deals)
        else:
            rec = _seats(num, sel, counts, margin, lambda v, s, n: {
                p: measure(*num.apply(cs, rules, v), p, s, n) for p in counts}, s_conf,
                confirm_deals)
        rec.update({"key": num.key, "label": num.label, "manual": num.manual,
                    "source": num.source, "criterion": num.criterion, "note": num.note,
                    "current": num.show(num.current), "current_value": _plain(num.current),
                    "selection_seed": s_sel, "confirm_seed": s_conf,
                    "candidates": [num.show(v) for v in num.candidates]})
        rec["proposed"] = num.show(rec.pop("_proposed"))
        rec["changed"] = rec["proposed"] != rec["current"]
        out.numbers.append(rec)
        if rec["changed"]:
            cs, rules = num.apply(cs, rules, _unshow(num, rec["proposed"]))
    out.games = {"games": played["games"], "wall_seconds": round(time.perf_counter() - t0, 2),
                 "play_seconds": round(played["play_seconds"], 2)}
    return out


def _check_playable(g, num, cs, rules, counts) -> None:
    for v in num.candidates:
        try:
            c2, _ = num.apply(cs, rules, v)
            for p in counts:
                g.validate_playable(c2, p)
        except g.user_errors as e:
            raise DraftError(f"--draft: {num.key} = {num.show(v)} cannot be played: "
                             f"{e}") from None


def _unshow(num, text):
    return next(v for v in num.candidates if num.show(v) == text)


def _plain(v):
    return list(v) if isinstance(v, tuple) else v


def _seat_keys(m: dict) -> list[str]:
    return [k for k in m if k.startswith("seat_")]


def _seat_table(meas: dict, counts, level: float) -> list[dict]:
    rows = []
    for p in counts:
        for k in _seat_keys(meas[p]):
            mean, lo, hi = _mean_ci(meas[p][k], level)
            rows.append({"players": p, "seat": int(k.split("_")[1]), "gap": mean, "lo": lo,
                         "hi": hi, "n_deals": int(meas[p][k].size)})
    return rows


def _seat_verdict(rows, margin) -> str:
    if any(r["lo"] > margin or r["hi"] < -margin for r in rows):
        return "shown unfair"
    if all(-margin < r["lo"] and r["hi"] < margin for r in rows):
        return "shown fair"
    return "inconclusive"


def _seats(num, sel, counts, margin, replay, s_conf, n_conf) -> dict:
    m = sum(len(_seat_keys(sel[num.current][p])) for p in counts)
    level = 1 - 0.05 / m                          # Bonferroni across the seats and counts
    cur = _seat_table(sel[num.current], counts, level)
    shown = [r for r in cur if r["lo"] > margin or r["hi"] < -margin]
    worst = {v: max(abs(r["gap"]) for r in _seat_table(sel[v], counts, level))
             for v in num.candidates}
    conf = {"current": _seat_table(replay(num.current, s_conf, n_conf), counts, level)}
    vals = {"current": num.current}
    verdicts = {"current": _seat_verdict(conf["current"], margin)}
    pick = num.current
    branch = "kept: no seat shown beyond the margin"
    if not shown:
        why = (f"selection: no seat is shown beyond ±{100 * margin:g} pp with the value played "
               f"now; kept (fewest changes)")
    else:
        good = [v for v in num.candidates if worst[v] <= margin / 2]
        alt = (min(good, key=lambda v: (num.distance(v, num.current), worst[v])) if good
               else min(num.candidates, key=lambda v: (worst[v], num.distance(v, num.current))))
        where = ", ".join(f"{r['seat']} at {r['players']}p" for r in shown)
        why = (f"selection: seat(s) {where} shown beyond ±{100 * margin:g} pp with the value "
               f"played now; candidate {num.show(alt)} ("
               + ("the nearest whose largest seat gap is within margin/2" if good
                  else "no candidate within margin/2: the smallest largest gap") + ")")
        branch = "kept: not confirmed"
        if alt == num.current:
            why += "; it is the value played now: kept"
            branch = "kept: the nearest candidate is the value played now"
        else:
            vals["candidate"] = alt
            conf["candidate"] = _seat_table(replay(alt, s_conf, n_conf), counts, level)
            verdicts["candidate"] = _seat_verdict(conf["candidate"], margin)
            if verdicts["current"] == "shown unfair" and verdicts["candidate"] == "shown fair":
                pick = alt
                branch = "changed: confirmed"
                why += "; confirmed: the value played now shown unfair, the candidate fair"
            else:
                why += (f"; not confirmed on the fresh deals (value played now "
                        f"{verdicts['current']}, candidate {verdicts['candidate']}): kept")
    curve = [{"candidate": num.show(v), **r} for v in num.candidates
             for r in _seat_table(sel[v], counts, 0.95)]
    return {"_proposed": pick, "why": why, "branch": branch,
            "decision": "changed" if pick != num.current else "kept", "interval_level": level,
            "curve": curve,
            "selection": {num.show(v): {"largest_seat_gap": worst[v]} for v in num.candidates},
            "selection_current": cur,
            "confirmation": {k: {"value": num.show(vals[k]), "seats": v,
                                 "verdict": verdicts[k]} for k, v in conf.items()}}


def _diffs(a: dict, b: dict, counts, margin, level: float = 0.95) -> tuple[list[dict], bool, bool]:
    """Paired differences a - b of every measure, per count; (rows, every one shown within
    its bound, some one shown beyond its bound)."""
    rows, ok, beyond = [], True, False
    for p in counts:
        for k in a[p]:
            bound = margin if k.startswith("seat_") else BOUNDS[k]
            d = a[p][k] - b[p][k]
            changed = int((d != 0).sum())
            if changed == 0:                        # the same games deal by deal
                # at most a share u of deals could differ (one-sided Clopper-Pearson);
                # a seat's win share moves by at most 1 per deal: the interval +-u.
                # Other measures have no such bound: "no deal changed" is the evidence.
                u = 1 - 0.05 ** (1 / d.size)
                mean, lo, hi = (0.0, -u, u) if k.startswith("seat_") else (0.0, 0.0, 0.0)
            else:
                mean, lo, hi = _mean_ci(d, level)
            inside = -bound < lo and hi < bound
            out = lo > bound or hi < -bound
            ok &= inside
            beyond |= out
            rows.append({"players": p, "measure": k, "diff": mean, "lo": lo, "hi": hi,
                         "bound": bound, "within": bool(inside), "beyond": bool(out),
                         "deals_changed": changed, "n_deals": int(d.size)})
    return rows, ok, beyond


def _enough(num, sel, counts, margin, replay, s_conf, n_conf) -> dict:
    ref = max(num.candidates)                  # the largest supply: never short
    m = sum(len(sel[ref][p]) for p in counts)
    level = 1 - 0.05 / m                       # "beyond": Bonferroni across measures, counts
    res = {}
    for v in num.candidates:
        if v == ref:                           # the reference is enough by definition
            res[v] = {"enough": True, "binds": False, "worst": None}
            continue
        rows, ok, _ = _diffs(sel[v], sel[ref], counts, margin)
        _, _, binds = _diffs(sel[v], sel[ref], counts, margin, level)
        res[v] = {"enough": ok, "binds": binds,
                  "worst": max(rows, key=lambda r: abs(r["diff"]) / r["bound"])}
    enough = sorted(v for v in num.candidates if res[v]["enough"])
    conf_ref = replay(ref, s_conf, n_conf) if num.current != ref else None
    curve = [{"candidate": num.show(v), **r}
             for v in num.candidates if v != ref
             for r in _diffs(sel[v], sel[ref], counts, margin)[0]]

    def confirm(v):
        if v == ref:
            return {"value": num.show(v), "enough": True, "binds": False,
                    "is_reference": True, "differences": []}
        x = replay(v, s_conf, n_conf)
        rows, ok, _ = _diffs(x, conf_ref, counts, margin)
        _, _, binds = _diffs(x, conf_ref, counts, margin, level)
        return {"value": num.show(v), "enough": bool(ok), "binds": bool(binds),
                "differences": rows}
    conf = {"current": confirm(num.current)}
    pick = num.current
    small = f"; the smallest shown enough in the selection is {num.show(enough[0])}" if enough else ""
    n_sel = len(next(iter(sel[ref][counts[0]].values())))
    if not res[num.current]["binds"]:
        why = ("selection: the value played now is not shown to change the game (no measure "
               f"shown beyond its bound of the reference {num.show(ref)}): kept"
               + (" -- shown enough" if res[num.current]["enough"] else
                  " -- not shown enough either, more deals would decide") + small)
        branch = "kept: not shown to change the game"
    else:
        larger = [v for v in num.candidates if v > num.current and v != ref]
        alt = next((v for v in enough if v > num.current and v != ref),
                   None if larger else ref)
        if alt is None:
            # the reference is enough by definition: proposing it would be a finding of
            # nothing.  Undecided, and what it would take: the larger candidate nearest to
            # being shown enough, and the deals that would show it (80% power, if its
            # selection differences are the true ones)
            need = {v: _deals_to_show_enough(sel[v], sel[ref], counts, margin) for v in larger}
            near = min(larger, key=lambda v: (need[v], v))
            why = (f"selection: the value played now is shown to change the game against the "
                   f"reference {num.show(ref)}; no smaller candidate larger than it is shown "
                   f"enough at {n_sel} deals (the reference is enough by definition, so it is "
                   f"not proposed): undecided")
            n = need[near]
            deals_needed = int(n) if math.isfinite(n) else None
            why += (f"; the nearest, {num.show(near)}, needs about {n:,.0f} deals per count "
                    f"to be shown enough" if math.isfinite(n) else
                    f"; the nearest, {num.show(near)}, differs from the reference by more "
                    f"than a bound: if that holds no number of deals would show it enough, "
                    f"and the answer lies at or above the reference (a larger reference "
                    f"would tell)")
            branch = "undecided: no candidate shown enough"
            return {"_proposed": pick, "why": why, "branch": branch, "decision": "undecided",
                    "deals_needed": deals_needed, "reference": num.show(ref),
                    "interval_level": level, "curve": curve,
                    "selection": _selection(num, res), "confirmation": conf}
        why = (f"selection: the value played now is shown to change the game against the "
               f"reference {num.show(ref)}; candidate {num.show(alt)} "
               + ("(the smallest larger one shown enough)" if alt != ref else
                  "(the reference: the only larger candidate)"))
        conf["candidate"] = confirm(alt)
        if conf["current"]["binds"] and conf["candidate"]["enough"]:
            pick = alt
            why += "; confirmed on the fresh deals"
            branch = ("changed: confirmed" if alt != ref else
                      "changed to the reference, the only larger candidate: confirmed")
        else:
            why += "; not confirmed on the fresh deals: kept"
            branch = "kept: not confirmed"
    return {"_proposed": pick, "why": why, "branch": branch,
            "decision": "changed" if pick != num.current else "kept",
            "reference": num.show(ref), "interval_level": level, "curve": curve,
            "selection": _selection(num, res), "confirmation": conf}


def _selection(num, res) -> dict:
    return {num.show(v): {"enough": bool(res[v]["enough"]), "binds": bool(res[v]["binds"]),
                          "worst_measure": res[v]["worst"]} for v in num.candidates}


def _deals_to_show_enough(a: dict, b: dict, counts, margin, power: float = 0.8) -> float:
    """Deals per count for every paired difference a − b to be shown within its bound
    (each a TOST at 5%; 80% power if the differences and their SDs are the true ones):
    the largest over the measures and counts, infinite when one is beyond its bound."""
    need = 2.0
    for p in counts:
        for k in a[p]:
            bound = margin if k.startswith("seat_") else BOUNDS[k]
            d = np.asarray(a[p][k], float) - np.asarray(b[p][k], float)
            sd = float(d.std(ddof=1)) if d.size > 1 else math.nan
            if sd == 0:
                continue
            need = max(need, stats.n_for_equivalence(sd, float(d.mean()), bound, 0.05, power))
    return need


def _pp(x) -> str:
    return f"{100 * x:+.1f}"


def format_text(d: dict) -> str:
    from .strong_field import field_label
    lines = [f"Filling in the X's: {d['game']}, card set {d['card_set']}, players "
             f"{','.join(map(str, d['players']))}, {d['deals']} deals per candidate and count "
             f"(confirmation {d['confirm_deals']} fresh deals), margin ±{100 * d['margin']:g} pp, "
             f"field {field_label(d['baseline'], d['players'])}, seed {d['seed']}; "
             f"{d['games_played']['games']:,} games.", ""]
    for n in d["numbers"]:
        dec = n.get("decision", "changed" if n["changed"] else "kept")
        lines.append(f"{n['label']} [{n['source']}; the manual: {n['manual']}]: "
                     f"{n['current']} -> {n['proposed']} ({dec}"
                     + (f", needs about {n['deals_needed']:,} deals per count"
                        if dec == "undecided" and n.get("deals_needed") else "")
                     + (f"; seeds {'agree' if n['seeds_agree'] else 'disagree'}: "
                        f"{n['second_seed_proposed']} at seed {d['second_seed']}"
                        if "seeds_agree" in n else "") + ")")
        lines.append(f"  criterion {n['criterion']}, {n.get('branch', '')}: {n['why']}")
        for k, c in n["confirmation"].items():
            if n["criterion"] == "seats":
                gaps = "; ".join(f"{r['players']}p seat {r['seat']} {_pp(r['gap'])} "
                                 f"[{_pp(r['lo'])}, {_pp(r['hi'])}]" for r in c["seats"])
                lines.append(f"  confirmation, {k} {c['value']}: {c['verdict']} -- {gaps} "
                             f"(n={c['seats'][0]['n_deals']} deals per count)")
            elif c.get("is_reference"):
                lines.append(f"  confirmation: {k} {c['value']} is the reference (the largest "
                             f"candidate)")
            else:
                w = max(c["differences"], key=lambda r: max(abs(r["lo"]), abs(r["hi"])) / r["bound"])
                lines.append(f"  confirmation, {k} {c['value']} vs the reference "
                             f"{n['reference']}: "
                             + ("shown to change the game" if c["binds"] else
                                "shown enough" if c["enough"] else "inconclusive")
                             + f"; largest difference {w['measure']} at {w['players']}p "
                             f"{w['diff']:+.3f} [{w['lo']:+.3f}, {w['hi']:+.3f}] (bound "
                             f"±{w['bound']:g}, n={w['n_deals']} deals)")
        if n.get("note"):
            lines.append(f"  note: {n['note']}")
    return "\n".join(lines)
