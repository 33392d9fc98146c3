"""The balancer's search for one card: a race over the values of its numbers
(docs/balance.md, "The search").

Plays no game itself: :func:`race_card` is given a ``measure(field, value, seed, games)``
that returns, per player count, the card's per-deal natural and forced values with the
number at ``value``.  Everything here is plain arithmetic on those arrays, so the
allocation rules are tested without the engines (tests/test_balancer.py).

The idea in four lines:

* every value of the number in its allowed range on the fixing side is a candidate,
  including values at which the field never buys the card (such a value simply has a
  gap of at least the margin: a never-bought card is a candidate, not an exception);
* the candidates are played in rounds of growing size on fresh deals (common to the
  candidates of a round); after each round the natural and forced values are fitted
  monotone in the card's strength (isotonic, per player count) and the proposal is the
  smallest change whose fitted gap is within margin/2;
* a candidate shown beyond the margin (its gap's lower bound above the margin) or
  further from the printed value than the proposal's neighbour gets no more games;
  the rest, at most half of the live ones, nearest the proposal first, go on
  (successive halving around the open decision);
* the passing range is the run of values around the proposal whose fitted gap is
  within the margin and that are not shown beyond it.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

import numpy as np

#: The racing bound's z: a candidate is out when its gap's lower bound (estimate - Z
#: standard errors, per component) is beyond the margin.  An allocation rule, not a test:
#: the proposals are judged by the confirmation on fresh deals.
Z = 2.0
#: Rounds of the race: round r plays ``games * ROUND_SIZES[r]`` games per candidate and arm.
ROUND_SIZES = (0.25, 0.5, 1.0, 2.0)
#: The seeds of a card's race: ``seed + RACE_OFFSET + crc32(card) * 16 + round`` (a card's
#: race does not depend on which other cards are considered, nor on their order).
RACE_OFFSET = 2 ** 40


def race_seed(seed: int, card: str, rnd: int) -> int:
    from .rng import offset_seed
    return offset_seed(seed, RACE_OFFSET + zlib.crc32(card.encode()) * 16 + rnd)


def gap(natural: float, forced: float, taken: bool, margin: float, tolerance: float,
        estimand: str, kind: str = "over") -> float:
    """A card's distance from "balanced" at one count (fractions; docs/balance.md, "What
    the search aims at").  The search's target is gap <= margin/2.

    ``prefer``: |forced value| (prefer X - ban X).  ``natural``, by the card's flag
    ``kind``:

    * ``over`` (the field gains too much from it): the larger of |natural value| and
      ``-forced - (tolerance - margin)``;
    * ``under`` (the field does not gain from it and forcing it costs): the larger of
      |natural value| and ``-forced``.

    A card the field never takes (``taken`` false) cannot be shown balanced: its gap is
    at least ``margin``."""
    if estimand == "prefer":
        return abs(forced)
    slack = 0.0 if kind == "under" else tolerance - margin
    g = max(abs(natural), -forced - slack)
    return g if taken else max(g, margin)


def gap_bounds(nat: float, nat_se: float, forced: float, forced_se: float, taken: bool,
               margin: float, tolerance: float, estimand: str, kind: str,
               z: float = Z) -> tuple[float, float]:
    """(lower, upper) racing bounds of :func:`gap` from the two means and their standard
    errors (each component moved by ``z`` SE; nan SE: no bound)."""
    ns = nat_se if nat_se == nat_se else math.inf
    fs = forced_se if forced_se == forced_se else math.inf
    if estimand == "prefer":
        lo = max(0.0, abs(forced) - z * fs)
        return lo, abs(forced) + z * fs
    slack = 0.0 if kind == "under" else tolerance - margin
    lo = max(0.0, abs(nat) - z * ns, -forced - slack - z * fs)
    hi = max(abs(nat) + z * ns, -forced - slack + z * fs)
    if not taken:
        lo, hi = max(lo, margin), max(hi, margin)
    return lo, hi


def isotonic(y, w) -> np.ndarray:
    """The increasing least-squares fit of ``y`` with weights ``w`` (pool adjacent
    violators); ``y`` in the order of the x it is fitted against."""
    y = [float(v) for v in y]
    w = [float(v) for v in w]
    blocks: list[list[float]] = []                    # [mean, weight, count]
    for v, wt in zip(y, w):
        blocks.append([v, wt, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            tw = w1 + w2
            blocks.append([(m1 * w1 + m2 * w2) / tw if tw else (m1 + m2) / 2, tw, c1 + c2])
    out = []
    for m, _, c in blocks:
        out += [m] * c
    return np.array(out)


@dataclass
class Candidate:
    """One value of the raced number: its pooled per-deal values per count."""
    value: int
    change: int
    natural: dict = field(default_factory=dict)     # count -> per-deal natural values
    forced: dict = field(default_factory=dict)      # count -> per-deal forced values
    taken: dict = field(default_factory=dict)       # count -> the field took it on some deal
    games: int = 0                                  # games per arm, summed over rounds
    out_round: int | None = None                    # the round after which it got no more
    out_why: str = ""

    def add(self, p: int, natural, forced, taken: bool):
        n, f = np.asarray(natural, float), np.asarray(forced, float)
        self.natural[p] = n if p not in self.natural else np.concatenate([self.natural[p], n])
        self.forced[p] = f if p not in self.forced else np.concatenate([self.forced[p], f])
        self.taken[p] = bool(self.taken.get(p, False) or taken)

    def n_deals(self, p: int) -> int:
        return int(self.natural[p].size) if p in self.natural else 0

    def mean_se(self, p: int, q: str) -> tuple[float, float]:
        d = (self.natural if q == "natural" else self.forced).get(p)
        if d is None or not d.size:
            return math.nan, math.nan
        return float(d.mean()), (float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1
                                 else math.nan)


class CardRace:
    """The race of one number of one card: candidates, the monotone fit, the proposal,
    the passing range and which candidates play the next round.

    ``values``: the candidate values (the printed ``v0`` among them, change 0);
    ``stronger``: +1 when a higher value makes the card stronger (end VP), -1 when a
    lower one does (cost); ``kind``: the card's flag, "over" (the fix weakens it) or
    "under" (the fix strengthens it)."""

    def __init__(self, card: str, fld: str, v0: int, values, stronger: int, kind: str,
                 counts, margin: float, tolerance: float, estimand: str = "natural",
                 limits: tuple[int, int] | None = None):
        self.card, self.field, self.v0 = card, fld, v0
        self.stronger, self.kind = stronger, kind
        self.counts = list(counts)
        self.margin, self.tolerance, self.estimand = margin, tolerance, estimand
        self.target = margin / 2
        vals = sorted(set(int(v) for v in values) | {v0})
        self.cands = {v: Candidate(v, v - v0) for v in vals}
        self.limits = limits or (vals[0], vals[-1])

    # -- the data ---------------------------------------------------------------------
    def add(self, value: int, p: int, natural, forced, taken: bool, games: int = 0):
        c = self.cands[value]
        c.add(p, natural, forced, taken)
        if p == self.counts[0]:
            c.games += games

    def measured(self) -> list[Candidate]:
        return [c for c in self.cands.values() if all(c.n_deals(p) for p in self.counts)]

    # -- the fit ------------------------------------------------------------------------
    def fitted(self) -> dict:
        """value -> {count: (natural, forced)}: per count, both values fitted increasing
        in the card's strength (isotonic, weights = deals) over the measured candidates."""
        ms = sorted(self.measured(), key=lambda c: self.stronger * c.value)
        out = {c.value: {} for c in ms}
        if not ms:
            return out
        for p in self.counts:
            w = [c.n_deals(p) for c in ms]
            nat = isotonic([c.mean_se(p, "natural")[0] for c in ms], w)
            frc = isotonic([c.mean_se(p, "forced")[0] for c in ms], w)
            for c, a, b in zip(ms, nat, frc):
                out[c.value][p] = (float(a), float(b))
        return out

    def fitted_gap(self, fit: dict | None = None) -> dict:
        """value -> the largest fitted gap over the counts (a value the field never took
        on any of its deals keeps a gap of at least the margin)."""
        fit = self.fitted() if fit is None else fit
        return {v: max(gap(a, b, self.cands[v].taken[p], self.margin, self.tolerance,
                           self.estimand, self.kind) for p, (a, b) in per.items())
                for v, per in fit.items()}

    def bounds(self, c: Candidate) -> tuple[float, float]:
        """The racing bounds of a candidate's raw pooled gap, the largest over the counts."""
        lo = hi = 0.0
        for p in self.counts:
            nm, ns = c.mean_se(p, "natural")
            fm, fs = c.mean_se(p, "forced")
            a, b = gap_bounds(nm, ns, fm, fs, c.taken.get(p, False), self.margin,
                              self.tolerance, self.estimand, self.kind)
            lo, hi = max(lo, a), max(hi, b)
        return lo, hi

    # -- the decision -------------------------------------------------------------------
    def proposal(self, fg: dict | None = None) -> tuple[int | None, float]:
        """(value, fitted gap): the smallest change whose fitted gap is within margin/2,
        else the change of the smallest fitted gap (ties: the smaller change); None when
        no value but the printed one was measured."""
        fg = self.fitted_gap() if fg is None else fg
        moved = {v: g for v, g in fg.items() if v != self.v0}
        if not moved:
            return None, math.nan
        good = [v for v, g in moved.items() if g <= self.target + 1e-12]
        if good:
            v = min(good, key=lambda v: (abs(v - self.v0), v))
        else:
            v = min(moved, key=lambda v: (round(moved[v], 12), abs(v - self.v0)))
        return v, moved[v]

    def next_round(self, rnd: int) -> list[int]:
        """The candidates that play the next round; the others are marked out (with the
        round and why).  Out: shown beyond the margin (racing lower bound above it), or
        further from the printed value than the proposal's next value.  The rest, at most
        half of them rounded up (at least 2), nearest the proposal first; the proposal
        itself always plays (again, when the fit moved it to a value that had stopped)."""
        fg = self.fitted_gap()
        best, _ = self.proposal(fg)
        if best is not None and self.cands[best].out_round is not None:
            # the fit moved the proposal to a value that had stopped: it plays again
            self.cands[best].out_round, self.cands[best].out_why = None, ""
        live = [c for c in self.measured() if c.out_round is None]
        keep = []
        for c in live:
            lo, _ = self.bounds(c)
            if c.value == best:
                keep.append(c)
            elif lo > self.margin:
                c.out_round, c.out_why = rnd, "shown beyond the margin"
            elif not all(c.taken.get(p) for p in self.counts):
                c.out_round, c.out_why = rnd, "never bought on its deals"
            elif best is not None and abs(c.change) > abs(best - self.v0) + 1:
                c.out_round, c.out_why = rnd, "further than the proposal"
            elif (best is not None and abs(c.change) < abs(best - self.v0)
                  and lo > self.target):
                c.out_round, c.out_why = rnd, "shown beyond margin/2, nearer than the proposal"
            else:
                keep.append(c)
        n_keep = max(2, math.ceil(len(live) / 2))
        if best is not None:
            # the proposal first, then the values nearer the printed one that could still
            # take its place (not shown beyond margin/2), then the others; nearest first
            b = abs(best - self.v0)
            keep.sort(key=lambda c: (0 if c.value == best else 1 if abs(c.change) < b else 2,
                                     abs(c.value - best)))
        for c in keep[n_keep:]:
            c.out_round, c.out_why = rnd, "halved (further from the proposal)"
        return [c.value for c in keep[:n_keep]]

    def passing(self, fg: dict | None = None) -> tuple[int, int] | None:
        """(lo, hi): the run of measured values around the proposal whose fitted gap is
        within the margin and whose racing lower bound is not beyond it; None when the
        proposal itself does not pass."""
        fg = self.fitted_gap() if fg is None else fg
        best, g = self.proposal(fg)
        if best is None:
            return None

        def ok(v):
            return (v in fg and fg[v] <= self.margin + 1e-12
                    and self.bounds(self.cands[v])[0] <= self.margin)
        if not ok(best):
            return None
        vals = sorted(fg)
        i = vals.index(best)
        lo = hi = i
        while lo > 0 and ok(vals[lo - 1]):
            lo -= 1
        while hi < len(vals) - 1 and ok(vals[hi + 1]):
            hi += 1
        return vals[lo], vals[hi]

    def at_limit(self, value: int) -> bool:
        return value in self.limits

    def table(self) -> list[dict]:
        """One row per candidate: games, deals, pooled values (pp fractions) with their
        racing bounds, the fitted gap, and when it stopped and why."""
        fg = self.fitted_gap()
        rows = []
        for v, c in sorted(self.cands.items()):
            if not c.n_deals(self.counts[0]):
                continue
            lo, hi = self.bounds(c)
            rows.append({"value": v, "change": c.change, "games": c.games,
                         "n_deals": {p: c.n_deals(p) for p in self.counts},
                         "natural": {p: c.mean_se(p, "natural")[0] for p in self.counts},
                         "natural_se": {p: c.mean_se(p, "natural")[1] for p in self.counts},
                         "forced": {p: c.mean_se(p, "forced")[0] for p in self.counts},
                         "forced_se": {p: c.mean_se(p, "forced")[1] for p in self.counts},
                         "taken": {p: c.taken[p] for p in self.counts},
                         "gap_lo": lo, "gap_hi": hi, "fitted_gap": fg.get(v, math.nan),
                         "out_round": c.out_round, "out_why": c.out_why})
        return rows


def run_race(race: CardRace, measure, games: int, seed: int, affordable=None,
             sizes=ROUND_SIZES, on_round=None) -> dict:
    """Play ``race`` round by round: round r plays every open candidate with
    ``max(2, round(games * sizes[r]))`` games per arm on the deals of
    :func:`race_seed` (common to the round's candidates).  ``measure(value, seed, games)``
    -> {count: (natural deals, forced deals, taken)}; ``affordable(n_candidates, games)``:
    False stops the race (budget); ``on_round(summary)`` after each round.  Returns the race's summary: the proposal, its fitted
    gap, the printed value's, the passing range, the status and the rounds played."""
    open_ = sorted(race.cands)
    rounds, stopped = [], None
    for rnd, size in enumerate(sizes):
        if not open_:
            break
        n = max(2, int(round(games * size)))
        if affordable is not None and not affordable(len(open_), n):
            stopped = "budget"
            break
        s = race_seed(seed, f"{race.card}\x00{race.field}", rnd)
        for v in open_:
            for p, (nat, frc, taken) in measure(v, s, n).items():
                race.add(v, p, nat, frc, taken, n)
        best, g = race.proposal()
        rounds.append({"round": rnd, "games": n, "seed": s, "played": list(open_),
                       "proposal": best, "fitted_gap": g})
        if on_round is not None:
            on_round(rounds[-1])
        open_ = race.next_round(rnd) if rnd < len(sizes) - 1 else []
    fg = race.fitted_gap()
    best, g = race.proposal(fg)
    g0 = fg.get(race.v0, math.nan)
    rng = race.passing(fg)
    if best is None:
        status = "budget" if stopped else "cannot move"
    elif g0 <= race.target and g0 <= g:
        status = "balanced without an edit"
    elif g <= race.margin:
        status = "proposed"
    elif race.at_limit(best):
        status = "at the limit of its range"
    else:
        status = "no value passes"
    if stopped and status != "proposed":
        status = "budget"
    return {"card": race.card, "field": race.field, "kind": race.kind, "old": race.v0,
            "proposal": best, "change": None if best is None else best - race.v0,
            "fitted_gap": g, "fitted_gap_printed": g0, "passing": list(rng) if rng else None,
            "status": status, "stopped": stopped, "rounds": rounds,
            "limits": list(race.limits), "candidates": race.table()}


def field_order(fields: list[dict], kind: str) -> list[dict]:
    """The order in which a target's numbers are raced: a number outside its level's band
    alone (only it can bring the card back into the band); else the number least like
    its level's on the side of the error first (the share of the level's other cards
    that are weaker by this number, for an over card; stronger, for an under card),
    then the order of ``--fields``.  ``fields``: {"field", "v0", "stronger", "peers",
    "band", ...} per allowed number."""
    out = [f for f in fields if f.get("out_of_band")]
    if out:
        return out[:1]

    def atypical(f):
        peers, s = f.get("peers") or [], f.get("stronger") or 0
        if not peers or not s:
            return 0.0
        if kind == "over":       # the share of the level's cards this number makes it beat
            return sum(1 for v in peers if s * (f["v0"] - v) > 0) / len(peers)
        return sum(1 for v in peers if s * (f["v0"] - v) < 0) / len(peers)
    return sorted(fields, key=lambda f: -atypical(f))


def detection_limit(sd: float, n: int, tests: int, margin: float, alpha: float = 0.05,
                    power: float = 0.8) -> float:
    """The smallest |value| the screen shows beyond ±margin with ``power`` (the band test
    at the corrected level ``alpha / tests``, two-sided): margin + (z(1 - alpha/(2 tests))
    + z(power)) * sd / sqrt(n)."""
    from scipy.stats import norm
    if not (n > 1 and sd == sd):
        return math.nan
    return margin + (float(norm.ppf(1 - alpha / (2 * max(1, tests)))) + float(norm.ppf(power))
                     ) * sd / math.sqrt(n)


def games_to_decide(sd: float, value: float, margin: float, tests: int, players: int,
                    alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Games per card and arm at which a card whose value is ``value`` would be shown
    beyond or within ±margin with ``power`` (equivalence or band test at alpha / tests);
    None when it sits on the margin."""
    from scipy.stats import norm
    d = abs(abs(value) - margin)
    if not d or sd != sd:
        return None
    z = float(norm.ppf(1 - alpha / (2 * max(1, tests)))) + float(norm.ppf(power))
    deals = math.ceil((z * sd / d) ** 2)
    return deals * players


def judge(active: list[dict], before: dict, after: dict, names, counts, gap_fn
          ) -> tuple[dict, list]:
    """The confirmation's judgement of the candidate errata ``active`` (each with
    ``card``, ``kind``, ``edit``), from the flags and means of every card before and after
    (``before[p][card]`` = {"flag", "taken", "natural", "forced"}) on the fresh deals:

    * an erratum is not confirmed when its card is still shown beyond the margin, the
      field does not take it, or its gap (``gap_fn(means by count, kind)``) did not
      shrink;
    * ``victims``: the cards no erratum edits that are shown beyond the margin after and
      were not before (which erratum pushed them is decided by the caller).

    Returns (``{edit: why}``, victims)."""
    bad = {}
    for e in active:
        c, k = e["card"], e["kind"]
        a = {p: after[p][c] for p in counts}
        b0 = {p: before[p][c] for p in counts}
        if any(a[p]["flag"] for p in counts):
            bad[e["edit"]] = ("still shown beyond the margin ("
                              + ", ".join(f"{a[p]['flag']} at {p}p" for p in counts
                                          if a[p]["flag"]) + ")")
        elif not all(a[p]["taken"] for p in counts):
            bad[e["edit"]] = "the field does not take it on the confirmation deals"
        elif gap_fn(a, k) >= gap_fn(b0, k):
            bad[e["edit"]] = "no closer to balanced on the confirmation deals"
    edited = {e["card"] for e in active}
    victims = [c for c in names if c not in edited
               and any(after[p][c]["flag"] for p in counts)
               and not any(before[p][c]["flag"] for p in counts)]
    return bad, victims


def split_confirmed(candidates: list[dict], rejected: dict) -> tuple[list, list]:
    """(proposals, unconfirmed): the candidates the confirmation kept, marked
    ``confirmed``, and the others with ``why`` (``rejected``: edit -> why).  Only the
    first list is proposed, written to --out-cards/--out-edits and applied by the
    workbench."""
    props = [dict(e, confirmed=True) for e in candidates if e["edit"] not in rejected]
    unc = [dict(e, confirmed=False, why=rejected[e["edit"]])
           for e in candidates if e["edit"] in rejected]
    return props, unc


def moved_z(run0, run1, card: str, flag: str) -> float:
    """How far ``card`` moved toward ``flag`` between two strength runs on the same deals,
    in standard errors of the paired per-deal difference: over -- the rise of its natural
    value; under -- the fall of its forced value (nan for no flag or too few deals)."""
    if flag == "over":
        d, sign = run1.natural_deals(card) - run0.natural_deals(card), 1
    elif flag == "under":
        d, sign = run1.strength_deals(card) - run0.strength_deals(card), -1
    else:
        return math.nan
    if d.size < 2:
        return math.nan
    se = float(d.std(ddof=1)) / math.sqrt(d.size)
    m = sign * float(d.mean())
    return m / se if se > 0 else (math.inf if m > 0 else -math.inf if m < 0 else 0.0)


def moved_toward(run0, run1, card: str, flag: str, z: float = 2.0) -> bool:
    """Whether ``card`` moved toward ``flag`` by more than ``z`` SE between two strength
    runs on the same deals (:func:`moved_z`; docs/balance.md, "The search": a card is
    pushed beyond the margin by the errata only if they moved it)."""
    v = moved_z(run0, run1, card, flag)
    return bool(v == v and v > z)
