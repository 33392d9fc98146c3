"""Targets beyond per-card parity, for a rule number (``vale-sim balance --rules NAME
--target ...``; issue 40 item 3; docs/balance.md "Rule numbers against targets").

A designer sets the VP pool, the end trigger or a seat compensation so that the game
*as a whole* behaves: skill should matter, and the first seat should not decide.  Two
targets, each measured per deal on common deals, with a 95% interval clustered by deal:

* **skill gradient** (``skill-gradient=PP``): one player of the strong field (default
  the game's strongest bundled field) against ``players - 1`` of a weaker field
  (default ``balanced``), the strong player at every seat in turn on the same deals: its
  win share minus the fair share ``1/players``.  Met when it is *shown* to be at least
  ``PP`` percentage points (the interval's lower end above it).
* **first seat** (``first-seat=LO..HI``): everyone the strong field; the first seat's
  win rate, in percent.  Met when it is *shown* inside ``[LO, HI]`` (the interval
  inside the band).

The search: every candidate value of the rule is played on the same selection deals
(``seed``) at every player count asked; the candidate is the value that meets every
target at every count (Bonferroni across targets and counts) nearest the value played
now, else none.  It is then replayed with the value played now on fresh deals
(``seed + 2**62``, a size fixed in advance); a change is proposed only when the fresh
deals show the candidate meeting every target.  Otherwise the value played now is
kept and the output says which target no value met, with the closest value.

    r = search_rule(GAME, "vp_pool", values=range(18, 34, 3),
                    targets=[parse_target("skill-gradient=5"), parse_target("first-seat=45..55")])
    print(r.text())

Shared code: it names no game; the game's rules class gives the rule and its value.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field

import numpy as np

from . import stats
from .errors import UserError
from .games import get_game
from .rng import offset_seed

CONFIRM_OFFSET = 2**62
KINDS = ("skill-gradient", "first-seat")
DEFAULT_WEAK = "balanced"


class RuleTargetError(UserError, ValueError):
    """A bad --rules / --target / --values request: one line naming it and the fix."""


@dataclass(frozen=True)
class Target:
    """``kind`` "skill-gradient" (``lo``: the least gradient, ``hi`` inf) or
    "first-seat" (``[lo, hi]``: the band of the first seat's win rate); fractions."""
    kind: str
    lo: float
    hi: float

    def text(self) -> str:
        if self.kind == "skill-gradient":
            return f"skill-gradient >= {100 * self.lo:g} pp"
        return f"first-seat {100 * self.lo:g}..{100 * self.hi:g} %"


_TARGET = re.compile(r"\s*(?P<kind>[a-z-]+)\s*=\s*(?P<value>.+?)\s*$")


def parse_target(text: str, option: str = "--target") -> Target:
    """``skill-gradient=5`` (pp) or ``first-seat=45..55`` (percent of games)."""
    m = _TARGET.fullmatch(str(text))
    if not m or m["kind"] not in KINDS:
        raise RuleTargetError(f"{option} {text!r}: give skill-gradient=PP or "
                              f"first-seat=LO..HI (percent), e.g. {option} first-seat=45..55")
    v = m["value"]
    try:
        if m["kind"] == "skill-gradient":
            pp = float(v)
            if not 0 <= pp < 100:
                raise ValueError
            return Target("skill-gradient", pp / 100, math.inf)
        lo, hi = (float(x) for x in v.split(".."))
        if not 0 <= lo < hi <= 100:
            raise ValueError
        return Target("first-seat", lo / 100, hi / 100)
    except ValueError:
        raise RuleTargetError(
            f"{option} {text!r}: " + ("the gradient is percentage points from 0 to 100, e.g. "
                                      "skill-gradient=5" if m["kind"] == "skill-gradient" else
                                      "the band is LO..HI percent with 0 <= LO < HI <= 100, "
                                      "e.g. first-seat=45..55")) from None


def parse_values(text: str, current: int, option: str = "--values") -> list[int]:
    """``LO..HI`` (every whole number), ``LO..HI/STEP`` or ``A,B,C``; None: about the
    value played now (``current`` − 6 .. + 6, step 2, at least 1)."""
    if text is None:
        return sorted({max(1, current + d) for d in range(-6, 7, 2)})
    try:
        if ".." in text:
            span, _, step = text.partition("/")
            lo, hi = (int(x) for x in span.split(".."))
            step = int(step) if step else 1
            if lo > hi or step < 1:
                raise ValueError
            vals = list(range(lo, hi + 1, step))
        else:
            vals = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise RuleTargetError(f"{option} {text!r}: give LO..HI, LO..HI/STEP or A,B,C "
                              f"(whole numbers), e.g. {option} 18..33/3") from None
    if not vals or len(vals) > 50:
        raise RuleTargetError(f"{option} {text!r}: give 1 to 50 values, got {len(vals)}")
    return vals


# ---------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------
def game_measure(game, card_set, strong, weak, engine: str = "fast", workers: int = 1,
                 play=None):
    """A ``measure(rules, players, seed, deals) -> {kind: per-deal array}`` playing
    ``game``: first seat (everyone ``strong``; the first seat's win share per deal) and
    skill gradient (one ``strong`` against ``weak`` at every seat in turn: its mean win
    share per deal minus 1/players)."""
    from .tournament import focal_shares, play_frame
    g = get_game(game)
    cs = g.load_card_set(card_set if card_set is not None else g.default_card_set)
    pols = {}

    def policy(spec, option, players):
        if (spec, players) not in pols:
            try:
                pols[spec, players] = g.resolve_baseline(spec, players, cs)
            except (ValueError, *g.user_errors) as e:
                raise RuleTargetError(f"{option} {spec}: {str(e).splitlines()[0] if str(e) else e!r}"
                                      ) from None
        return pols[spec, players]

    def measure(rules, players, seed, deals, kinds=KINDS):
        s, w = policy(strong, "--baseline", players), policy(weak, "--weak", players)
        out = {}
        if "first-seat" in kinds:
            f = (play or play_frame)(cs, players, seed, deals, [s], rules, engine, workers,
                                     game=g.name)
            first = f[f["seat"] == 0].sort_values("game", kind="stable")
            out["first-seat"] = first["win_share"].to_numpy(float)
        if "skill-gradient" in kinds:
            shares, _ = focal_shares(cs, players, seed, deals, s, w, rules, engine, workers,
                                     play=play, game=g.name)
            out["skill-gradient"] = shares.mean(axis=0) - 1.0 / players
        return out
    return measure


def _interval(x: np.ndarray, level: float) -> tuple[float, float, float]:
    r = stats.paired_difference(np.asarray(x, float), np.zeros(len(x)), level)
    return float(r.mean), float(r.lo), float(r.hi)


def judge(arrays: dict, targets, level: float) -> list[dict]:
    """Per target: the estimate with its ``level`` interval (clustered by deal: one
    value per deal), ``met`` (shown inside the target) and ``missed`` (shown outside)."""
    rows = []
    for t in targets:
        x = arrays[t.kind]
        m, lo, hi = _interval(x, level)
        met = lo > t.lo and hi < t.hi
        missed = hi < t.lo or lo > t.hi
        # how far outside the target the estimate is, in its own units (0: inside)
        miss = max(t.lo - m, m - t.hi, 0.0)
        rows.append({"target": t.text(), "kind": t.kind, "estimate": m, "lo": lo, "hi": hi,
                     "met": bool(met), "missed": bool(missed), "miss": miss,
                     "n_deals": int(len(x))})
    return rows


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------
@dataclass
class RuleSearch:
    config: dict
    selection: list = field(default_factory=list)      # one row per value, count, target
    confirmation: dict = field(default_factory=dict)
    decision: str = "kept"
    proposed: object = None
    why: str = ""

    def to_json(self) -> dict:
        return {**self.config, "selection": self.selection, "confirmation": self.confirmation,
                "decision": self.decision, "proposed": self.proposed, "why": self.why}

    def text(self) -> str:
        return format_text(self.to_json())


def search_rule(game: str, rule: str, values, targets, players=(2,), deals: int = 2000,
                confirm_deals: int | None = None, seed: int = 0, strong=None,
                weak: str = DEFAULT_WEAK, card_set=None, engine: str = "fast",
                workers: int = 1, measure=None, base_rules=None, progress=None) -> RuleSearch:
    """Search ``rule``'s ``values`` for ``targets`` (module docstring).  ``measure``: a
    function as :func:`game_measure` returns (default: the game's, with ``strong``
    defaulting to its strongest bundled field); ``progress(done, total)`` after each
    measurement."""
    from .strong_field import field_of
    g = get_game(game)
    targets = list(targets)
    if not targets:
        raise RuleTargetError("--target: give at least one, e.g. --target first-seat=45..55")
    if len({t.kind for t in targets}) != len(targets):
        raise RuleTargetError("--target: give each kind once")
    rules0 = base_rules if base_rules is not None else g.rules_class()
    names = [f.name for f in dataclasses.fields(rules0)]
    if rule not in names:
        raise RuleTargetError(f"--rules {rule!r}: not a rule of {g.title} (its rules: "
                              f"{', '.join(names)})")
    counts = [players] if isinstance(players, int) else list(players)
    for p in counts:
        if p not in g.players:
            raise RuleTargetError(f"--players: give counts from "
                                  f"{', '.join(map(str, g.players))}, got {p!r}")
    for n, what in ((deals, "--games"), (confirm_deals, "--confirm-games")):
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 2):
            raise RuleTargetError(f"{what} must be a whole number of at least 2, got {n!r}")
    confirm_deals = confirm_deals or deals
    values = list(values)

    def rules_at(v):
        try:
            return dataclasses.replace(rules0, **{rule: v})
        except (TypeError, ValueError) as e:
            raise RuleTargetError(f"--values: {rule} = {v!r} is not allowed ({e})") from None
    by_value = {v: rules_at(v) for v in values}             # every value valid, before a game
    current = getattr(rules0, rule)
    strong = strong or field_of(g)
    if measure is None:
        measure = game_measure(g.name, card_set, strong, weak, engine, workers)
        for p in counts:                     # both fields resolve, before any game
            measure(by_value[values[0]], p, 0, 0, ())
    kinds = tuple(t.kind for t in targets)
    level = 1 - 0.05 / (len(targets) * len(counts))         # Bonferroni: targets x counts
    total = (len(values) + 2) * len(counts)
    done = [0]

    def run(v, p, s, n):
        arrays = measure(by_value[v] if v in by_value else rules_at(v), p, s, n, kinds)
        done[0] += 1
        if progress is not None:
            progress(done[0], total)
        return judge(arrays, targets, level)

    config = {"game": g.name, "rule": rule, "current": current, "values": values,
              "targets": [t.text() for t in targets], "players": counts, "deals": deals,
              "confirm_deals": confirm_deals, "seed": seed, "strong": strong, "weak": weak,
              "interval_level": level, "engine": engine}
    out = RuleSearch(config)
    s_sel = offset_seed(seed, 0)
    passing, score = [], {}
    for v in values:
        ok, worst = True, 0.0
        for p in counts:
            for r in run(v, p, s_sel, deals):
                out.selection.append({"value": v, "players": p, **r})
                ok &= r["met"]
                worst = max(worst, r["miss"])
        score[v] = worst
        if ok:
            passing.append(v)
    dist = (lambda v: abs(v - current)) if isinstance(current, (int, float)) else (lambda v: 0)
    if not passing:
        close = min(values, key=lambda v: (score[v], dist(v)))
        unmet = sorted({r["target"] for r in out.selection if r["value"] == close
                        and not r["met"]})
        out.why = (f"selection: no value of {rule} is shown to meet every target at every "
                   f"count ({deals:,} deals each); the closest is {close} (not shown: "
                   f"{'; '.join(unmet) or 'none'}): kept")
        out.decision = "kept: no value shown to meet the targets"
        out.proposed = current
        return out
    cand = min(passing, key=lambda v: (dist(v), v))
    s_conf = offset_seed(seed, CONFIRM_OFFSET)
    conf = {"candidate": {"value": cand, "rows": []}}
    if cand != current:
        conf["current"] = {"value": current, "rows": []}
    for k, c in conf.items():
        for p in counts:
            c["rows"] += [{"players": p, **r} for r in run(c["value"], p, s_conf,
                                                            confirm_deals)]
        c["met"] = all(r["met"] for r in c["rows"])
    out.confirmation = conf
    others = ", ".join(str(v) for v in passing if v != cand)
    head = (f"selection: {len(passing)} of {len(values)} values shown to meet every target "
            f"({', '.join(map(str, passing))}); candidate {cand}, the nearest the value "
            f"played now {current}")
    if cand == current:
        ok = conf["candidate"]["met"]
        out.decision = "kept: meets the targets" if ok else "kept: not confirmed"
        out.why = head + ("; confirmed on the fresh deals: kept" if ok else
                          "; not confirmed on the fresh deals: kept, more deals would decide")
        out.proposed = current
    elif conf["candidate"]["met"]:
        out.decision = "changed: confirmed"
        out.proposed = cand
        out.why = (head + f"; confirmed on {confirm_deals:,} fresh deals per count"
                   + (f"; the others that met them in the selection: {others}" if others
                      else ""))
    else:
        out.decision = "kept: not confirmed"
        out.proposed = current
        out.why = head + "; not confirmed on the fresh deals: kept, more deals would decide"
    return out


def format_text(d: dict) -> str:
    lines = [f"Rule {d['rule']} of {d['game']} against targets: {'; '.join(d['targets'])}.  "
             f"Values {', '.join(map(str, d['values']))} (played now {d['current']}), players "
             f"{','.join(map(str, d['players']))}, {d['deals']:,} selection deals per value and "
             f"count, {d['confirm_deals']:,} fresh confirmation deals; strong field "
             f"{d['strong']}, weaker field {d['weak']}; intervals at "
             f"{100 * d['interval_level']:.2f}% (Bonferroni over targets and counts), one "
             f"value per deal; seed {d['seed']}.",
             f"Decision: {d['decision']} -> {d['rule']} = {d['proposed']}.  {d['why']}.", "",
             f"{'value':>8} {'players':>7}  {'target':<28} {'estimate [interval]':>28}  shown"]
    for r in d["selection"]:
        lines.append(f"{r['value']!s:>8} {r['players']:>7}  {r['target']:<28} {_est(r):>28}  "
                     f"{'met' if r['met'] else 'missed' if r['missed'] else '-'}"
                     f"  (n = {r['n_deals']:,} deals)")
    for k, c in d["confirmation"].items():
        lines.append("")
        lines.append(f"confirmation, {k} {d['rule']} = {c['value']}: "
                     + ("every target met" if c["met"] else "not every target met"))
        for r in c["rows"]:
            lines.append(f"  {r['players']}p {r['target']:<28} {_est(r)}  "
                         f"{'met' if r['met'] else 'missed' if r['missed'] else '-'}  "
                         f"(n = {r['n_deals']:,} deals)")
    return "\n".join(lines)


def _est(r: dict) -> str:
    if r["kind"] == "first-seat":                 # a win rate, percent of games
        return f"{100 * r['estimate']:.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"
    return f"{100 * r['estimate']:+.1f} pp [{100 * r['lo']:+.1f}, {100 * r['hi']:+.1f}]"
