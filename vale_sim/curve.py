"""Price curves: one card played at every value of one of its numbers (docs/curve.md).

    df = price_curve("Stag", "cost", players=(2, 3), games=4000)
    df.attrs["balanced"]                  # the values balanced at every count asked
    print(curve_text(df)); curve_json(df); fig = plot_curve(df)

For each value ``v`` of the card's number (its cost, end VP, mana, ...: any number
``Game.edit_card`` may change) the card set with that one number set to ``v`` is
played on the same deals (the seed's game indices ``0 .. deals-1``: common random
numbers, so the values are paired deal by deal) by the same field -- by default the
game's strongest bundled field (:func:`vale_sim.strong_field.field_of`, the one of
``advancements``, ``what-if`` and ``balance``) -- in the card-strength design of
:func:`vale_sim.advancements.game_strength_run`: the natural arm, *prefer X* and *ban
X*, the focal player at every player index.  Each value gets the estimates of the card
tables (:func:`vale_sim.advancements.strength_frame`): the natural value (natural −
ban X), the value per pick (§5.7 of docs/statistics.md), the forced value (prefer X −
ban X) and per forced pick, the acquisition share, each with its interval over the
deals, and the verdict of the card tables' rule
(:func:`vale_sim.advancements.verdict_rule`, the estimand's, with its per-pick tests).
The values asked at one player count are one family, as the cards of a card table are:
the multiplicity correction (``correction``, Benjamini-Hochberg by default) runs across
them, so "balanced" over the range is a claim about all of them together.  Each verdict
carries how often a rerun of this size would read it again (``verdict_agreement``,
§5.8: the deals resampled together for every value, since the values share them).

The **balanced range** is the values whose verdict is balanced at every player count
asked.  A card the field never buys at its printed value is a candidate like any
other: the text says where it starts to be bought and where it becomes balanced.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import UserError
from .games import DEFAULT_GAME, get_game
from .inputs import did_you_mean, parse_int
from .limits import CURVE_MAX_GAMES, CURVE_MAX_VALUES, cost_text
from .strong_field import ESTIMAND, field_label, field_of, unpin_edited

#: Games per value, player count and arm (deals x players), as what-if's --games.
DEFAULT_GAMES = 4000
#: The default values around the printed one: (below, above), clipped at 0 and at the
#: number's own limits.  A cost moves further down (a card too dear to be bought).
DEFAULT_SPAN = {"cost": (3, 3)}
OTHER_SPAN = (2, 3)
CHECKPOINT_VERSION = 1
CHECKPOINT_FORMAT = "vale-sim curve checkpoint"


class CurveError(UserError, ValueError):
    """A bad curve request: one line naming the option, the item and the fix."""


# ---------------------------------------------------------------------------
# The values
# ---------------------------------------------------------------------------
def parse_values(text) -> list[int]:
    """``"LO..HI"`` (both whole numbers, LO <= HI) or ``"A,B,C"`` -> the values, in
    increasing order without repeats.  A list or range of ints passes through."""
    if isinstance(text, range) or (isinstance(text, (list, tuple))
                                   and all(isinstance(x, int) and not isinstance(x, bool)
                                           for x in text)):
        vals = list(text)
    else:
        s = str(text).strip()
        fix = "write LO..HI (e.g. 1..6) or values separated by commas (e.g. 2,4,6)"
        m = re.fullmatch(r"(\S+?)\s*\.\.\s*(\S+)", s)
        try:
            ends = (parse_int(m.group(1), True), parse_int(m.group(2), True)) if m else None
            vals = ([parse_int(p.strip(), True) for p in s.split(",")] if s and not m
                    else [])
        except ValueError:
            raise CurveError(f"--values {text!r}: not whole numbers; {fix}") from None
        if ends is not None:
            lo, hi = ends
            if lo > hi:
                raise CurveError(f"--values {text!r}: {lo} is above {hi}; write the lower "
                                 f"value first, e.g. {hi}..{lo}")
            if hi - lo + 1 > CURVE_MAX_VALUES:
                raise CurveError(f"--values {text!r}: {hi - lo + 1:,} values; a curve takes "
                                 f"at most {CURVE_MAX_VALUES} (narrow the range)")
            vals = list(range(lo, hi + 1))
    if not vals:
        raise CurveError(f"--values {text!r}: no value given; write LO..HI, e.g. 1..6")
    if any(v < 0 for v in vals):
        raise CurveError(f"--values {text!r}: a card's number is never below 0; give values "
                         f"from 0")
    vals = sorted(set(vals))
    if len(vals) > CURVE_MAX_VALUES:
        raise CurveError(f"--values: {len(vals):,} values; a curve takes at most "
                         f"{CURVE_MAX_VALUES} (give fewer)")
    return vals


def default_values(number: str, printed: int) -> list[int]:
    """The values tried when none are given: printed − 3 .. printed + 3 for a cost
    (any number whose name starts with "cost"), printed − 2 .. printed + 3 for the
    others, clipped at 0 (the number's upper limit is the game's: values it refuses
    are left out)."""
    below, above = DEFAULT_SPAN["cost"] if number.startswith("cost") else OTHER_SPAN
    return list(range(max(0, printed - below), printed + above + 1))


def _edit_message(e, card: str, number: str, option: str) -> str:
    """The game's one-line edit error (it names ``--edit CARD.FIELD``) for ``option``."""
    msg = str(e).splitlines()[0] if str(e) else repr(e)
    return re.sub(rf"^--edit {re.escape(card)}\.{re.escape(number)}:\s*", "", msg)


def _players(players, g) -> list[int]:
    counts = [players] if isinstance(players, int) else list(players)
    if not counts:
        raise CurveError("--players: give at least one player count")
    out = []
    for p in counts:
        if isinstance(p, bool) or not isinstance(p, int) or p not in g.players:
            raise CurveError(f"--players: give counts from {', '.join(map(str, g.players))} "
                             f"for {g.title}, got {p!r}")
        if p not in out:
            out.append(p)
    return sorted(out)


def plan(card: str, number: str, values=None, players=(2,), game: str = DEFAULT_GAME,
         card_set=None, games: int = DEFAULT_GAMES, seed: int = 0, baseline=None,
         estimand: str | None = None, correction: str = "fdr_bh") -> dict:
    """Every check of a curve before any game (CurveError, one line): the card (a card a
    player buys), the number (an editable number of it), the values (each a number the
    game allows; the defaults keep those it allows), the player counts, the games (at
    most :data:`vale_sim.limits.CURVE_MAX_GAMES` over the whole curve), the field at
    every count.  Returns what :func:`price_curve` plays."""
    from .advancements import CORRECTIONS, ESTIMANDS
    from .seating import deals_for
    from .whatif import check_count
    g = get_game(game)
    if g.strength_arms is None or g.strength_cards is None or g.edit_card is None:
        raise CurveError(f"curve: {g.name} has no card-strength hooks or card edits")
    if correction not in CORRECTIONS:
        raise CurveError(f"--correction must be one of {', '.join(CORRECTIONS)}, got "
                         f"{correction!r}")
    estimand = estimand or ESTIMAND
    if estimand not in ESTIMANDS:
        raise CurveError(f"--estimand must be one of {', '.join(ESTIMANDS)}, got {estimand!r}")
    try:
        check_count(games, "--games", 2)
    except UserError as e:
        raise CurveError(str(e)) from None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise CurveError(f"--seed must be a whole number from 0 to 2**64 - 1, got {seed!r}")
    counts = _players(players, g)
    cs0 = g.load_card_set(card_set if card_set is not None else g.default_card_set)
    known = [c[0] for c in g.strength_cards(cs0)]
    if card not in known:
        hint = did_you_mean(str(card), known)
        raise CurveError(f"--card {card!r}: not a card a player buys in set {cs0.name!r}"
                         + (f"; {hint}" if hint else "; `vale-sim cards` lists them"))
    try:
        _, printed, _ = g.edit_card(cs0, card, number, 0, True)
    except g.user_errors as e:
        raise CurveError(f"--number {number}: {_edit_message(e, card, number, '--number')}") \
            from None
    given = values is not None
    vals = parse_values(values) if given else default_values(number, int(printed))
    sets = {}
    for v in vals:
        try:
            sets[v] = g.edit_card(cs0, card, number, v, False)[0]
        except g.user_errors as e:
            if given:
                raise CurveError(f"--values: {card}.{number} = {v}: "
                                 f"{_edit_message(e, card, number, '--values')}") from None
    if not sets:
        raise CurveError(f"--values: no value the game allows for {card}.{number}; give values "
                         f"it allows")
    vals = sorted(sets)
    total = sum(len(vals) * 3 * deals_for(games, p) * p for p in counts)
    if total > CURVE_MAX_GAMES:
        raise CurveError(
            f"--games {games:,} x {len(vals)} values x {len(counts)} player count(s) x 3 arms "
            f"is {total:,} games, above the curve's cap of {CURVE_MAX_GAMES:,} "
            f"({cost_text(total)}, and every per-deal outcome held in memory); give fewer "
            f"--games or --values")
    baseline = baseline or field_of(g)
    bases = {}
    for p in counts:
        for v, cs in sets.items():
            try:
                g.validate_playable(cs, p)
            except g.user_errors as e:
                raise CurveError(f"--values: {card}.{number} = {v} at {p} players: "
                                 f"{str(e).splitlines()[0]}") from None
        try:
            # the card is played at other numbers than printed: the field plays it by its
            # weights even when its never list names it (strong_field.unpin_edited)
            bases[p] = unpin_edited(g.resolve_baseline(baseline, p, cs0), {card})
        except (ValueError, *g.user_errors) as e:
            raise CurveError(f"--baseline {baseline} at {p} players: "
                             f"{str(e).splitlines()[0] if str(e) else e!r}; give another "
                             f"(e.g. {g.default_policy})") from None
    return {"game": g, "card_set": cs0, "card": card, "number": number,
            "printed": int(printed), "values": vals, "sets": sets, "players": counts,
            "bases": bases, "baseline": baseline, "estimand": estimand, "games": games,
            "seed": seed, "games_total": total, "values_given": given}


def games_played(card: str, number: str, values=None, players=(2,), game: str = DEFAULT_GAME,
                 card_set=None, games: int = DEFAULT_GAMES) -> int:
    """Games :func:`price_curve` plays (every value, count and arm)."""
    return plan(card, number, values, players, game, card_set, games)["games_total"]


# ---------------------------------------------------------------------------
# The checkpoint: one JSON line per finished (players, value)
# ---------------------------------------------------------------------------
class _Checkpoint:
    """The finished runs of a curve, one JSON line each after a header naming the run;
    a line an interruption cut short is dropped (that run is played again)."""

    def __init__(self, path, config: dict, resume: bool):
        self.path = Path(path) if path else None
        self.config = config
        self.runs: dict = {}
        self.loaded = 0
        if self.path is None:
            return
        if resume:
            if not self.path.exists():
                raise CurveError(f"--resume: no checkpoint {self.path} to resume; drop --resume "
                                 f"or give the --checkpoint of the earlier run")
            self.runs = self._read()
            self.loaded = len(self.runs)
        self._rewrite()

    def _read(self) -> dict:
        from .balance import _arrays
        bad = CurveError(f"--checkpoint {self.path}: written by a different curve (other game, "
                         f"card, number, values, field, seed or games); drop --resume or use "
                         f"the same options")
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
            head = json.loads(lines[0]) if lines else None
        except (OSError, ValueError, UnicodeDecodeError, RecursionError) as e:
            why = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise CurveError(f"--checkpoint {self.path}: not a curve checkpoint ({why}); give "
                             f"another file or drop --resume") from None
        if not isinstance(head, dict) or head.get("format") != CHECKPOINT_FORMAT \
                or head.get("version") != CHECKPOINT_VERSION:
            raise CurveError(f"--checkpoint {self.path}: not a curve checkpoint (no \"format\": "
                             f"\"{CHECKPOINT_FORMAT}\" header); give another file or drop "
                             f"--resume")
        if head.get("config") != self.config:
            raise bad
        runs = {}
        for i, line in enumerate(lines[1:], 2):
            try:
                rec = json.loads(line)
                run = _arrays(rec["run"])
                _check_shapes(rec["key"], run)
                runs[rec["key"]] = run
            except (ValueError, KeyError, TypeError, RecursionError):
                if i == len(lines):             # an append cut short: played again
                    break
                raise CurveError(f"--checkpoint {self.path}: line {i} is not a finished run; "
                                 f"give another file or drop --resume") from None
        return runs

    def _rewrite(self):
        from .balance import _lists
        from .io import atomic_write
        head = json.dumps({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION,
                           "written_by": "vale-sim curve", "config": self.config})
        atomic_write(self.path, "\n".join([head] + [json.dumps({"key": k, "run": _lists(v)})
                                                    for k, v in self.runs.items()]) + "\n")

    def save(self, key: str, run: dict):
        self.runs[key] = run
        if self.path is None:
            return
        import os
        from .balance import _lists
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"key": key, "run": _lists(run)}) + "\n")
            f.flush()
            os.fsync(f.fileno())


def _check_shapes(key: str, e: dict) -> None:
    """A stored run of key ``[players, value]`` has (players, deals) arrays of the arms and
    (deals,) acquisition shares; ValueError otherwise."""
    players, _ = json.loads(key)
    want = (int(players), int(e["deals"]))
    arrays = [e["natural"]] + [a for pair in e["arms"].values() for a in pair]
    if len(e["arms"]) != 1 or any(a.shape != want for a in arrays) or any(
            v.shape != want[1:] for d in (e["got"], e["got_natural"]) for v in d.values()):
        raise ValueError("arrays of the wrong shape")


def _stored(run) -> dict:
    return {"natural": np.asarray(run.natural, float), "deals": int(run.deals),
            "arms": {n: [np.asarray(a, float), np.asarray(b, float)]
                     for n, (a, b) in run.arms.items()},
            "got": {n: np.asarray(v, float) for n, v in run.got.items()},
            "got_natural": {n: np.asarray(v, float) for n, v in run.got_natural.items()},
            "known": {n: list(v) for n, v in run.known.items()}}


def _restored(e: dict, players: int, seed: int, base):
    from .advancements import StrengthRun
    run = StrengthRun(None, players, seed, e["deals"], base, e["natural"],
                      known={n: tuple(v) for n, v in e["known"].items()})
    for n, (a, b) in e["arms"].items():
        run.arms[n] = (a, b)
        run.got[n] = e["got"][n]
    run.got_natural.update(e.get("got_natural", {}))
    return run


# ---------------------------------------------------------------------------
# The curve
# ---------------------------------------------------------------------------
#: The columns of a curve frame, in order (values as fractions; ``_lo``/``_hi``: the
#: raw interval at the frame's confidence).
COLUMNS = ("players", "value", "printed", "verdict", "verdict_agreement", "verdict_stable",
           "natural_value", "natural_lo", "natural_hi", "per_pick_value", "per_pick_lo",
           "per_pick_hi", "forced_value", "forced_lo", "forced_hi", "forced_per_pick",
           "forced_per_pick_lo", "forced_per_pick_hi", "acquired", "acquired_lo", "acquired_hi",
           "acquired_forced", "acquired_forced_lo", "acquired_forced_hi", "n_deals",
           "deals_changed", "natural_deals_changed", "p_natural_equivalent_adjusted",
           "flag", "card", "number")


def price_curve(card: str, number: str, values=None, players=(2,), game: str = DEFAULT_GAME,
                card_set=None, games: int = DEFAULT_GAMES, seed: int = 0, baseline=None,
                rules=None, engine: str = "fast", workers: int = 1, confidence: float = 0.95,
                tolerance: float = 0.05, margin: float | None = None,
                correction: str = "fdr_bh", estimand: str | None = None, progress=None,
                play=None, checkpoint=None, resume: bool = False,
                agreement_resamples: int | None = None, command: str | None = None
                ) -> pd.DataFrame:
    """The price curve of ``card``'s ``number`` (module docstring, docs/curve.md): one row
    per player count and value (:data:`COLUMNS`).

    ``values``: ``"LO..HI"``, ``"A,B,C"`` or a list (default :func:`default_values`);
    ``players``: a count or counts; ``games``: games per value, count and arm (deals x
    players, as what-if's); ``baseline``: the field (default the game's strongest bundled
    field; ``{P}`` the player count); ``estimand``: "natural" (default) or "prefer";
    ``progress``: a tqdm-like object (``update(n)``) or None; ``play``: a
    :func:`~vale_sim.tournament.play_frame`-like function; ``checkpoint``: a file in which
    each finished run is kept (``resume=True`` reads it back: nothing finished is played
    again).  ``df.attrs``: ``config`` (what was played, the field, n), ``balanced`` (the
    values balanced at every count), ``balanced_by_players``, ``findings`` (per count:
    where the card starts to be bought and becomes balanced) and ``summary`` (the
    sentences of :func:`curve_text`).  CurveError (one line) for a bad request, before
    any game."""
    from .advancements import (AGREEMENT_RESAMPLES, AGREEMENT_SEED_OFFSET, DEFAULT_MARGIN,
                               STABLE_AGREEMENT, agreement_of, deal_matrices,
                               game_strength_run, resampled_verdicts, strength_frame,
                               verdict_rule)
    from .rng import offset_seed
    from .tournament import play_frame
    margin = DEFAULT_MARGIN if margin is None else margin
    if not (isinstance(margin, (int, float)) and 0 < margin < 1):
        raise CurveError(f"margin must be a fraction in (0, 1) (0.02 = 2 pp), got {margin!r}")
    if not (isinstance(tolerance, (int, float)) and 0 <= tolerance < 1):
        raise CurveError(f"tolerance must be a fraction in [0, 1) (0.05 = 5 pp), got "
                         f"{tolerance!r}")
    resamples = AGREEMENT_RESAMPLES if agreement_resamples is None else agreement_resamples
    pl = plan(card, number, values, players, game, card_set, games, seed, baseline, estimand,
              correction)
    g, est = pl["game"], pl["estimand"]
    cs0 = pl["card_set"]
    config = {"game": g.name, "card_set": cs0.name, "digest": cs0.digest(), "card": card,
              "number": number, "printed": pl["printed"], "values": pl["values"],
              "players": pl["players"],
              "baseline": pl["baseline"] if isinstance(pl["baseline"], str)
              else pl["bases"][pl["players"][0]].name,
              "field": field_label(pl["baseline"], pl["players"]),
              "fields": {str(p): b.name for p, b in pl["bases"].items()},
              "estimand": est, "seed": seed, "games": games, "engine": engine,
              "rules": None if rules is None else repr(rules),
              "confidence": confidence, "tolerance": tolerance, "margin": margin,
              "correction": correction}
    store = _Checkpoint(checkpoint, config, resume)
    play = play or play_frame
    rows, findings, by_players = [], {}, {}
    for p in pl["players"]:
        base = pl["bases"][p]
        frames, mats = [], []
        for v in pl["values"]:
            key = json.dumps([p, v])
            if key in store.runs:
                run = _restored(store.runs[key], p, seed, base)
            else:
                run = game_strength_run(g.name, pl["sets"][v], games, p, seed, base, [card],
                                        rules, engine, workers, play=play)
                store.save(key, _stored(run))
            if progress is not None:
                progress.update(1)
            frames.append(strength_frame(run, confidence, tolerance, correction, margin, est,
                                         agreement_resamples=0).iloc[0])
            mats.append(deal_matrices(run))
        deals = int(mats[0][0].shape[0])
        # the values at this count: one family, as the cards of a card table
        ds, dn, chs, chn, gn, gp = (np.concatenate([m[i] for m in mats], axis=1)
                                    for i in range(6))

        def summary(d, ch):
            return (d.mean(axis=0), d.std(axis=0, ddof=1) if deals > 1
                    else np.full(d.shape[1], math.nan), ch.sum(axis=0))
        pick = ((summary(dn - tolerance * gn, chn), summary(ds + tolerance * gp, chs))
                if est != "prefer" else None)
        o = verdict_rule(summary(ds, chs), summary(dn, chn), deals, confidence, tolerance,
                         correction, margin, est, pick)
        if resamples >= 2 and deals >= 2:
            rng = np.random.default_rng(offset_seed(int(seed), AGREEMENT_SEED_OFFSET))
            agree = agreement_of(resampled_verdicts((ds, dn, chs, chn, gn, gp), resamples,
                                                    rng, confidence, tolerance, correction,
                                                    margin, est))
        else:
            agree = np.full(len(pl["values"]), math.nan)
        for i, (v, r) in enumerate(zip(pl["values"], frames)):
            r = _zero_share_bounds(r, deals, confidence)
            rows.append({
                "players": p, "value": v, "printed": v == pl["printed"],
                "verdict": str(o["verdict"][i]), "verdict_agreement": float(agree[i]),
                "verdict_stable": (bool(agree[i] >= STABLE_AGREEMENT) if agree[i] == agree[i]
                                   else None),
                "natural_value": r["natural_value"], "natural_lo": r["natural_lo"],
                "natural_hi": r["natural_hi"], "per_pick_value": r["per_pick_value"],
                "per_pick_lo": r["per_pick_lo"], "per_pick_hi": r["per_pick_hi"],
                "forced_value": r["strength"], "forced_lo": r["strength_lo"],
                "forced_hi": r["strength_hi"], "forced_per_pick": r["forced_per_pick"],
                "forced_per_pick_lo": r["forced_per_pick_lo"],
                "forced_per_pick_hi": r["forced_per_pick_hi"],
                "acquired": r["natural_acquired_rate"], "acquired_lo": r["natural_acquired_rate_lo"],
                "acquired_hi": r["natural_acquired_rate_hi"],
                "acquired_forced": r["acquired_rate"], "acquired_forced_lo": r["acquired_rate_lo"],
                "acquired_forced_hi": r["acquired_rate_hi"],
                "n_deals": int(r["n_deals"]), "deals_changed": int(r["deals_changed"]),
                "natural_deals_changed": int(r["natural_deals_changed"]),
                "p_natural_equivalent_adjusted": float(o["p_natural_equivalent_adjusted"][i]),
                "flag": str(o["flag"][i]), "card": card, "number": number})
        by_players[p] = [v for v, verdict in zip(pl["values"], o["verdict"])
                         if verdict == "balanced"]
        findings[p] = _findings(rows[-len(pl["values"]):], pl["printed"], deals)
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    balanced = [v for v in pl["values"] if all(v in by_players[p] for p in pl["players"])]
    config.update(deals={str(p): int(df.loc[df["players"] == p, "n_deals"].iloc[0])
                         for p in pl["players"]},
                  games_total=pl["games_total"], replayed_from_checkpoint=store.loaded,
                  checkpoint=str(store.path) if store.path else None,
                  adjusted_over=f"the {len(pl['values'])} values of each player count",
                  command=command)
    df.attrs.update(config=config, balanced=balanced,
                    balanced_by_players={str(p): v for p, v in by_players.items()},
                    findings={str(p): f for p, f in findings.items()})
    df.attrs["summary"] = summary_lines(df)
    return df


def _zero_share_bounds(r, deals: int, confidence: float):
    """An acquisition share of exactly 0 (bought in none of the deals) with the
    zero-count bound of :func:`vale_sim.whatif.zero_count_bound` as its upper end, not
    the point interval [0, 0] of a t interval over zeros."""
    from .whatif import zero_count_bound
    r = r.copy()
    for col in ("natural_acquired_rate", "acquired_rate"):
        if r[col] == 0 and deals:
            r[f"{col}_lo"], r[f"{col}_hi"] = 0.0, zero_count_bound(deals, confidence)
    return r


def _findings(rows: list[dict], printed: int, deals: int) -> dict:
    """At one count: is the card bought at its printed value, the nearest value at which
    it is bought, the nearest balanced value (nearest to the printed one; ties: the
    lower), each with its acquisition share."""
    def nearest(cands):
        return min(cands, key=lambda r: (abs(r["value"] - printed), r["value"]), default=None)
    at = next((r for r in rows if r["value"] == printed), None)
    bought = nearest([r for r in rows if r["acquired"] > 0])
    bal = nearest([r for r in rows if r["verdict"] == "balanced"])
    share = lambda r: None if r is None else [r["acquired"], r["acquired_lo"], r["acquired_hi"]]  # noqa: E731
    return {"printed_in_values": at is not None,
            "printed_verdict": None if at is None else at["verdict"],
            "printed_acquired": share(at),
            "never_bought_at_printed": at is not None and not at["acquired"] > 0,
            "bought_from": None if bought is None else bought["value"],
            "bought_from_acquired": share(bought),
            "balanced_nearest": None if bal is None else bal["value"], "n_deals": deals}


# ---------------------------------------------------------------------------
# Text and JSON
# ---------------------------------------------------------------------------
def _pp(v) -> str:
    return "-" if v is None or v != v else f"{100 * v:+.1f}"


def _ci(lo, hi, signed: bool = True) -> str:
    if lo is None or lo != lo:
        return "[no interval]"
    f = "{:+.1f}" if signed else "{:.1f}"
    return f"[{f.format(100 * lo + 0.0)}, {f.format(100 * hi + 0.0)}]"


def _pct(v, lo, hi) -> str:
    return "-" if v != v else f"{100 * v:.1f}% {_ci(lo, hi, False)}"


def ranges_text(values: list[int]) -> str:
    """[1, 2, 3, 5] -> "1..3, 5"."""
    out, run = [], []
    for v in values:
        if run and v != run[-1] + 1:
            out.append(run)
            run = []
        run.append(v)
    if run:
        out.append(run)
    return ", ".join(f"{r[0]}..{r[-1]}" if len(r) > 1 else str(r[0]) for r in out)


def summary_lines(df: pd.DataFrame) -> list[str]:
    """The sentences of a curve: the balanced range (or that none is), its edges, and
    per count where a card never bought at its printed value starts to be bought and
    becomes balanced."""
    c = df.attrs["config"]
    bal = df.attrs["balanced"]
    name = f"{c['card']}.{c['number']}"
    counts = c["players"]
    at = ", ".join(map(str, counts))
    vals = c["values"]
    lines = []
    if bal:
        contiguous = bal == list(range(bal[0], bal[-1] + 1))
        lines.append(f"Balanced range of {name}: {ranges_text(bal)} (balanced at every player "
                     f"count asked: {at}; printed {c['printed']}"
                     + (", inside it" if c["printed"] in bal else ", outside it") + ")"
                     + ("" if contiguous else "; not one run of values: the values between "
                        "read otherwise at this size") + ".")
        edges = [f"the lowest value asked ({vals[0]})" for _ in [0] if bal[0] == vals[0]
                 and vals[0] > 0] + [f"the highest ({vals[-1]})" for _ in [0]
                                     if bal[-1] == vals[-1]]
        if edges:
            lines.append(f"The range reaches {' and '.join(edges)}: it may go further; widen "
                         f"--values to see where it ends.")
    else:
        lines.append(f"No value of {name} from {vals[0]} to {vals[-1]} is balanced at every "
                     f"player count asked ({at})" + (
                         "" if len(counts) == 1 else "; at each count: " + "; ".join(
                             f"{p} players: {ranges_text(df.attrs['balanced_by_players'][str(p)]) or 'none'}"
                             for p in counts)) + ".")
    for p in counts:
        f = df.attrs["findings"][str(p)]
        n = f["n_deals"]
        if not f["printed_in_values"]:
            continue
        if f["never_bought_at_printed"]:
            s = (f"At {p} players the field never buys {c['card']} at its printed "
                 f"{c['number']} {c['printed']} (0 of {n} deals)")
            if f["bought_from"] is None:
                s += f"; it buys it at none of the values {vals[0]}..{vals[-1]} either"
            else:
                a = f["bought_from_acquired"]
                s += (f"; it starts to be bought at {f['bought_from']} (acquired in "
                      f"{_pct(*a)} of the focal player's games, n={n} deals)")
            s += ("; it becomes balanced at " + str(f["balanced_nearest"])
                  if f["balanced_nearest"] is not None else "; no value asked is balanced")
            lines.append(s + ".")
    return lines


def curve_text(df: pd.DataFrame) -> str:
    """The curve as text: what was played (the field named), a table per count (each
    value with its interval and n), the balanced range."""
    c = df.attrs["config"]
    conf = 100 * c["confidence"]
    head = [f"Price curve of {c['card']}.{c['number']} (printed {c['printed']}), card set "
            f"{c['card_set']} ({c['game']}); field {c['field']} (every player), estimand "
            f"{c['estimand']}, seed {c['seed']}.",
            f"Each value is the card set with {c['card']}'s {c['number']} set to it, played on "
            f"the same deals by the same field (the focal player at every player index; "
            f"natural, prefer and ban arms); {conf:g}% intervals over the deals.  Natural "
            f"value = win share of the field's own play - never buying the card; per pick = "
            f"per game in which the field buys it; forced = preferring it - never buying it; "
            f"acquired = share of the focal player's natural games in which it was bought.  "
            f"Verdicts by the card tables' rule (estimand {c['estimand']}, band "
            f"±{100 * c['tolerance']:g} pp, margin ±{100 * c['margin']:g} pp), "
            f"{c['correction']} across {c['adjusted_over']}."]
    if c.get("replayed_from_checkpoint"):
        head.append(f"Resumed: {c['replayed_from_checkpoint']} finished runs read from the "
                    f"checkpoint, not played again.")
    lines = head
    for p in c["players"]:
        d = df[df["players"] == p]
        n = int(d["n_deals"].iloc[0])
        lines += ["", f"== {p} players: n = {n} deals x {p} seatings per value and arm "
                      f"(field {c['fields'][str(p)]})",
                  f"{'value':>7} {'verdict':>14} {'natural value pp':>22} "
                  f"{'per pick pp':>22} {'forced value pp':>22} {'acquired':>22}"]
        for _, r in d.iterrows():
            mark = "?" if r["verdict_agreement"] < 0.9 else ""
            lines.append(
                f"{('* ' if r['printed'] else '') + str(r['value']):>7} "
                f"{r['verdict'] + mark:>14} "
                f"{_pp(r['natural_value']) + ' ' + _ci(r['natural_lo'], r['natural_hi']):>22} "
                f"{(_pp(r['per_pick_value']) + ' ' + _ci(r['per_pick_lo'], r['per_pick_hi'])) if r['per_pick_value'] == r['per_pick_value'] else 'never bought':>22} "
                f"{_pp(r['forced_value']) + ' ' + _ci(r['forced_lo'], r['forced_hi']):>22} "
                f"{_pct(r['acquired'], r['acquired_lo'], r['acquired_hi']):>22}")
        lines.append(f"(* = printed; ? = a verdict a rerun of this size would read otherwise "
                     f"more than 1 time in 10, docs/statistics.md 5.8; n = {n} deals each)")
    lines.append("")
    lines += df.attrs["summary"]
    return "\n".join(lines)


def curve_json(df: pd.DataFrame) -> dict:
    """The curve as JSON data: the config (field, n, command), the balanced range and the
    findings, and one row per value and count with ``x_ci`` = [lo, hi] (fractions)."""
    from .io import jsonable
    rows = []
    for rec in df.to_dict("records"):
        out = {}
        for k, v in rec.items():
            m = re.fullmatch(r"(.*)_(lo|hi)", k)
            if m:
                out.setdefault(f"{m.group(1)}_ci", [None, None])[m.group(2) == "hi"] = v
            else:
                out[k] = v
        rows.append(out)
    c = df.attrs["config"]
    for out in rows:
        out["field"] = c["fields"][str(out["players"])]
    return jsonable({**c, "written_by": "vale-sim curve", "n_deals": c["deals"],
                     "balanced": df.attrs["balanced"],
                     "balanced_range": ranges_text(df.attrs["balanced"]) or None,
                     "balanced_by_players": df.attrs["balanced_by_players"],
                     "findings": df.attrs["findings"], "summary": df.attrs["summary"],
                     "rows": rows})
