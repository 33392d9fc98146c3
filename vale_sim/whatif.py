"""What if a card cost one more?  Paired changes of every verdict (docs/what-if.md).

    w = what_if(["Feral Chieftain.cost=+1"], players=(2,), games=400)
    w = what_if([], rules=["vp_pool=30"])                  # a rule edit
    w = what_if(["Rain Lily.end_vp=+6"], game=OTHER_GAME)   # any registered game
    print(w.text()); w.to_json()

The **original** set (and rules) and the **edited** one are played on the same
deals (seed, game indices 0 .. deals-1: common random numbers) by the same bots,
in the seatings of the card-strength study (:func:`vale_sim.advancements.game_strength_run`:
the focal player at every player index).  The bots are, by default, the game's
strongest bundled field (:func:`vale_sim.strong_field.field_of`, e.g. ``meta-{P}p``),
and the estimand the one every card verdict uses by default
(:data:`vale_sim.strong_field.ESTIMAND`, "natural"), as in ``advancements``,
``balance`` and the report.  For each card measured the change is

    change(X) = value_edited(X) - value_original(X),

value = the natural value, win share(natural) - win share(ban X) (``estimand="natural"``,
the default), or the forced value (the strength), win share(prefer X) - win
share(ban X) (``estimand="prefer"``), paired **by deal**: per deal
the difference of the two values, then a paired t interval over deals (the
deal is the independent unit; the rotations of a deal are averaged first).  A
card "moved" when the multiplicity correction across the cards measured (the
same as the advancement study's: Benjamini-Hochberg by default, ``correction``)
rejects change = 0.  Each set's verdicts (over / under / balanced /
inconclusive) come from :func:`vale_sim.advancements.strength_frame` with the same
estimand; a verdict "changed" when the two differ -- "within noise" when the card
did not move.  Both values (``natural_*`` and ``strength_*``) are in every card row.

Game-level measures, from the natural arm (every player the baseline, both
sets on the same deals): each seat's win rate minus 1/P (seat advantage), game
length (rounds), score margin (winner minus runner-up) and the game's bad-turn
rate (``Game.event_column`` per player and game, e.g. spoils or
withers); paired per deal, with the same correction across them.

When an edit changes nothing the games are identical deal by deal: every
difference is exactly 0, no deal changed, and the interval is the zero-count
bound (docs/what-if.md).
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import stats
from .errors import UserError
from .games import DEFAULT_GAME, get_game
from .strong_field import ESTIMAND, field_label, field_of, unpin_edited
from .advancements import STABLE_AGREEMENT
from .inputs import did_you_mean, parse_int

DEFAULT_GAMES = 2000            # games per card and arm (deals x players): modest, see docs
MAX_COUNT = 10**8               # the shared cap on a count (docs/runs.md)


class WhatIfError(UserError, ValueError):
    """A bad edit: one line naming the option (or file), the item and the fix."""


# ---------------------------------------------------------------------------
# Edits
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Edit:
    """``card.field = value`` (``relative``: current value + ``value``)."""
    card: str
    field: str
    value: int
    relative: bool = False

    def text(self) -> str:
        v = f"{self.value:+d}" if self.relative else str(self.value)
        return f"{self.card}.{self.field}={v}"


@dataclass(frozen=True)
class RuleEdit:
    """Rule option ``name = value`` (``relative``: current value + ``value``)."""
    name: str
    value: object
    relative: bool = False
    where: str = dataclasses.field(default="", compare=False)   # its file and key, if any

    def text(self) -> str:
        v = self.value
        if self.relative:
            v = f"{v:+d}"
        elif isinstance(v, tuple):
            v = ",".join(map(str, v))
        elif isinstance(v, bool):
            v = str(v).lower()
        return f"{self.name}={v}"


def parse_value(text, where: str) -> tuple[int, bool]:
    """A whole number: ``5`` (absolute), ``+1`` / ``-1`` (relative).  An int passes
    through as absolute.  WhatIfError naming ``where`` otherwise."""
    if isinstance(text, bool) or not isinstance(text, (int, str)):
        raise WhatIfError(f"{where}: value {text!r} is not a whole number (give e.g. 3, "
                          f"or +1 / -1 for a change)")
    if isinstance(text, int):
        return text, False
    s = text.strip()
    try:
        if s[:1] in ("+", "-"):
            magnitude = parse_int(s[1:])
            return (magnitude if s[0] == "+" else -magnitude), True
        return parse_int(s), False
    except ValueError:
        raise WhatIfError(f"{where}: value {text!r} is not a whole number (give e.g. 3, "
                          f"or +1 / -1 for a change)") from None


_EDIT = re.compile(r"(?P<card>.+)\.(?P<field>[^.=]+?)\s*=(?P<value>.*)", re.S)


def parse_edit(text: str, option: str = "--edit") -> Edit:
    """``"CARD.FIELD=VALUE"`` -> :class:`Edit` (VALUE: ``5``, ``+1`` or ``-1``)."""
    if isinstance(text, Edit):
        return text
    m = _EDIT.fullmatch(str(text).strip())
    if not m or not m.group("card").strip() or not m.group("field").strip():
        raise WhatIfError(f"{option} {text!r}: write CARD.FIELD=VALUE, e.g. "
                          f"\"Feral Chieftain.cost=+1\"")
    card, fld = m.group("card").strip(), m.group("field").strip()
    value, rel = parse_value(m.group("value"), f"{option} {card}.{fld}")
    return Edit(card, fld, value, rel)


def _rule_defaults(g) -> dict:
    return {f.name: getattr(g.rules_class(), f.name) for f in dataclasses.fields(g.rules_class)}


def parse_rule(text, g, option: str = "--rule", value=None) -> RuleEdit:
    """``"NAME=VALUE"`` (or ``text`` = NAME and a TOML ``value``) -> :class:`RuleEdit`,
    checked against the fields of ``g.rules_class``: an int option takes a whole
    number or +N / -N, a true/false one true or false, a list one comma-separated
    whole numbers (or a TOML list), a text one the text."""
    g = get_game(g)
    if value is None:
        name, eq, raw = str(text).partition("=")
        name = name.strip()
        if not eq or not name:
            raise WhatIfError(f"{option} {text!r}: write NAME=VALUE, e.g. "
                              f"{next(iter(_rule_defaults(g)))}=25")
        raw = raw.strip()
    else:
        name, raw = str(text), value
    defaults = _rule_defaults(g)
    where = f"{option}{name}" if option.endswith(".") else f"{option} {name}"
    if name not in defaults:
        hint = did_you_mean(name, list(defaults))
        raise WhatIfError(f"{where}: not a rule option of {g.name}"
                          + (f"; {hint}" if hint else "") + f" (options: {', '.join(defaults)})")
    d = defaults[name]
    src = where if option.endswith(".") else ""     # an edits file: name it in errors
    if isinstance(d, bool):
        if isinstance(raw, bool):
            return RuleEdit(name, raw, where=src)
        if str(raw).lower() in ("true", "false"):
            return RuleEdit(name, str(raw).lower() == "true", where=src)
        raise WhatIfError(f"{where}: give true or false, got {raw!r}")
    if isinstance(d, tuple):
        items = raw if isinstance(raw, (list, tuple)) else str(raw).split(",")
        try:
            return RuleEdit(name, tuple(x if isinstance(x, int) and not isinstance(x, bool)
                                        else parse_int(str(x)) for x in items), where=src)
        except ValueError:
            raise WhatIfError(f"{where}: give whole numbers separated by commas, e.g. "
                              f"{name}={','.join(map(str, d))}, got {raw!r}") from None
    if isinstance(d, str):
        return RuleEdit(name, str(raw), where=src)
    v, rel = parse_value(raw, where)       # an int option, or one whose default is None
    return RuleEdit(name, v, rel, where=src)


def apply_rule_edits(g, rules, edits, option: str = "--rule"):
    """``rules`` with the :class:`RuleEdit` s applied (the game's own checks run);
    returns ``(rules, [(name, old, new), ...])``."""
    out, changes = rules, []
    for e in edits:
        old = getattr(out, e.name)
        if e.relative:
            if isinstance(old, bool) or not isinstance(old, int):
                raise WhatIfError(f"{option} {e.text()}: {e.name} has no fixed value to add to "
                                  f"(it is {old!r}: the rulebook's value for the player "
                                  f"count); give the value itself")
            new = old + e.value
        else:
            new = e.value
        try:
            out = dataclasses.replace(out, **{e.name: new})
        except (TypeError, ValueError) as err:
            raise WhatIfError(f"{e.where or option + ' ' + e.text()}: "
                              f"{str(err).removeprefix('rules: ')}") from None
        changes.append((e.name, old, new))
    return out, changes


def read_edits_file(path, g) -> tuple[list[Edit], list[RuleEdit]]:
    """An edits file (TOML)::

        [cards."Feral Chieftain"]
        cost = "+1"          # or cost = 5
        [rules]
        vp_pool = 30

    One-line WhatIfError naming the file and the key."""
    from .inputs import InputFileError, read_toml
    g = get_game(g)
    try:
        raw = read_toml(path, "edits file", 1_000_000)
    except InputFileError as e:
        raise WhatIfError(str(e)) from None
    for k in raw:
        if k not in ("cards", "rules"):
            raise WhatIfError(f"{path}: unknown table [{k}]; an edits file has [cards.\"NAME\"] "
                              f"and [rules] tables")
    edits = []
    cards = raw.get("cards", {})
    if not isinstance(cards, dict):
        raise WhatIfError(f"{path}: cards must be tables [cards.\"NAME\"] of FIELD = VALUE")
    for card, fields_ in cards.items():
        if not isinstance(fields_, dict):
            raise WhatIfError(f"{path}: cards.{card}: write a table [cards.\"{card}\"] of "
                              f"FIELD = VALUE")
        for f, v in fields_.items():
            value, rel = parse_value(v, f"{path}: cards.{card}.{f}")
            edits.append(Edit(card, f, value, rel))
    rules = raw.get("rules", {})
    if not isinstance(rules, dict):
        raise WhatIfError(f"{path}: rules must be a table [rules] of NAME = VALUE")
    return edits, [parse_rule(k, g, f"{path}: rules.", v) for k, v in rules.items()]


def apply_card_edits(g, cs, edits) -> tuple[object, list[dict]]:
    """``cs`` with the :class:`Edit` s applied through ``Game.edit_card``; returns the
    new set and one record per edit (card, field, old, new, source)."""
    g = get_game(g)
    seen, out, recs = set(), cs, []
    for e in edits:
        key = (e.card, e.field)
        if key in seen:
            raise WhatIfError(f"--edit {e.card}.{e.field}: edited twice; give one value")
        seen.add(key)
        if g.edit_card is None:
            raise WhatIfError(f"--edit: {g.title} has no card edits; use --rule")
        out, old, new = g.edit_card(out, e.card, e.field, e.value, e.relative)
        recs.append({"card": e.card, "field": e.field, "old": old, "new": new,
                     "edit": e.text(), "source": "user"})
    return out, recs


def check_count(value, name: str, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= MAX_COUNT:
        raise WhatIfError(f"{name} must be a whole number from {least} to {MAX_COUNT:,}, "
                          f"got {value!r}")
    return value


# ---------------------------------------------------------------------------
# Paired differences
# ---------------------------------------------------------------------------
def zero_count_bound(n: int, confidence: float) -> float:
    """At most this share of deals is changed by an edit that changed none of ``n``
    (one-sided Clopper-Pearson bound at zero counts)."""
    return 1.0 - (1.0 - confidence) ** (1.0 / n) if n else math.nan


def paired_change(new: np.ndarray, old: np.ndarray, changed: int, confidence: float,
                  bound: float | None) -> dict:
    """Mean of per-deal ``new - old`` with a paired t interval, its two-sided p-value
    of "no change", n and the deals changed.  No deal changed: the mean is exactly 0,
    p = 1, and the interval is the zero-count bound ``±u·bound`` when the per-deal
    difference is bounded by ``bound`` (win shares), else the point [0, 0] (with the
    share bound ``u`` in ``share_changed_hi``)."""
    from scipy.stats import t
    d = np.asarray(new, float) - np.asarray(old, float)
    n = d.size
    out = {"n_deals": int(n), "deals_changed": int(changed),
           "share_changed_hi": zero_count_bound(n, confidence) if changed == 0 else math.nan}
    if n == 0:
        return {**out, "change": math.nan, "change_lo": math.nan, "change_hi": math.nan,
                "p_value": 1.0, "sd": math.nan}
    if changed == 0:
        u = zero_count_bound(n, confidence) * bound if bound is not None else 0.0
        return {**out, "change": 0.0, "change_lo": -u, "change_hi": u, "p_value": 1.0,
                "sd": 0.0}
    r = stats.paired_difference(new, old, confidence)
    lo, hi = r.lo, r.hi
    if bound is not None:
        lo, hi = max(-bound, lo), min(bound, hi)
    if n < 2:
        p = 1.0
    elif not r.se > 0:
        p = 0.0 if r.mean != 0 else 1.0
    else:
        p = float(2 * t.sf(abs(r.mean / r.se), n - 1))
    return {**out, "change": r.mean, "change_lo": lo, "change_hi": hi, "p_value": p,
            "sd": r.sd}


def _mean_ci(x, confidence):
    x = np.asarray(x, float)
    r = stats.paired_difference(x, np.zeros_like(x), confidence)
    return r.mean, r.lo, r.hi


def _adjust(df: pd.DataFrame, correction: str, confidence: float, new, old, bounds,
            changed) -> pd.DataFrame:
    """p_adjusted, moved, and intervals at the adjusted level (advancements._adjusted_level)."""
    from .advancements import _adjusted_level
    if not len(df):
        for c in ("p_adjusted", "moved", "change_lo_adj", "change_hi_adj"):
            df[c] = []
        return df
    reject, p_adj = stats.adjust_pvalues(df["p_value"].to_numpy(float), correction,
                                         1 - confidence)
    df["p_adjusted"] = p_adj
    df["moved"] = reject
    level = _adjusted_level(correction, confidence, len(df), int(reject.sum()))
    adj = [paired_change(a, b, ch, level, bd) for a, b, bd, ch in zip(new, old, bounds, changed)]
    df["change_lo_adj"] = [a["change_lo"] for a in adj]
    df["change_hi_adj"] = [a["change_hi"] for a in adj]
    df.attrs["adjusted_confidence"] = level
    return df


# ---------------------------------------------------------------------------
# The study
# ---------------------------------------------------------------------------
@dataclass
class PlayerCount:
    """One player count's result: ``cards`` (one row per card measured) and
    ``game`` (one row per game-level measure), with the strength tables of both sets."""
    players: int
    deals: int
    cards: pd.DataFrame
    game: pd.DataFrame
    original: pd.DataFrame
    edited: pd.DataFrame

    def changed_verdicts(self) -> pd.DataFrame:
        return self.cards[self.cards["verdict_changed"]]


@dataclass
class WhatIf:
    """Result of :func:`what_if`: ``config`` and one :class:`PlayerCount` per count."""
    config: dict
    counts: list[PlayerCount] = field(default_factory=list)

    def to_json(self) -> dict:
        from .tournament import json_records
        out = dict(self.config)
        out["players"] = []
        for pc in self.counts:
            cards = _fold(json_records(pc.cards))
            game = _fold(json_records(pc.game))
            out["players"].append({
                "players": pc.players, "deals": pc.deals,
                "games_per_card_and_arm": pc.deals * pc.players,
                "adjusted_confidence": pc.cards.attrs.get("adjusted_confidence"),
                "cards": cards, "game": game,
                "verdicts_changed": [r["card"] for r in cards if r["verdict_changed"]],
                "cards_moved": [r["card"] for r in cards if r["moved"]],
                "summary": summary_lines(pc, self.config)})
        return out

    def text(self) -> str:
        return format_text(self)


def _fold(recs: list[dict]) -> list[dict]:
    """``x_lo``/``x_hi`` -> ``x_ci`` (``_lo_adj``/``_hi_adj`` -> ``x_ci_adjusted``)."""
    out = []
    for rec in recs:
        f = {}
        for k, v in rec.items():
            m = re.fullmatch(r"(.*)_(lo|hi)(_adj)?", k)
            if m and m.group(1) in rec:
                key = f"{m.group(1)}_ci" + ("_adjusted" if m.group(3) else "")
                f.setdefault(key, [None, None])[m.group(2) == "hi"] = v
            else:
                f[k] = v
        out.append(f)
    return out


def _per_deal(frame, players: int, event: str) -> dict[str, np.ndarray]:
    """Per-deal game-level values of a natural-arm frame (one game per deal), or of
    its :class:`~vale_sim.games.base.Outcomes` (the summary path: the same values)."""
    from .games.base import Outcomes
    if isinstance(frame, Outcomes):
        score = frame.score.astype(float)
        rounds = frame.rounds.astype(float)
        events = frame.event.astype(float)
        seat = frame.seat.astype(int)
        share = frame.share.astype(float)
    else:
        f = frame.sort_values(["game", "player"], kind="stable")
        n = len(f) // players
        score = f["score"].to_numpy(float).reshape(n, players)
        rounds = f["rounds"].to_numpy(float).reshape(n, players)[:, 0]
        events = f[event].to_numpy(float).reshape(n, players)
        seat = f["seat"].to_numpy(int).reshape(n, players)
        share = f["win_share"].to_numpy(float).reshape(n, players)
    top = np.sort(score, axis=1)
    out = {"rounds": rounds,
           "score_margin": top[:, -1] - top[:, -2],
           f"{event}_per_player": events.mean(axis=1)}
    for s in range(players):
        out[f"seat_{s + 1}_advantage"] = (share * (seat == s)).sum(axis=1) - 1.0 / players
    return out


MEASURE_TEXT = {"rounds": "game length (rounds)", "score_margin": "score margin (winner - runner-up)"}


def _measure_text(m: str) -> str:
    if m in MEASURE_TEXT:
        return MEASURE_TEXT[m]
    if m.startswith("seat_"):
        return f"seat {m.split('_')[1]} win rate - 1/P"
    return f"{m.replace('_per_player', '')} per player and game"


def game_measures(nat0, nat1, players: int, event: str,
                  confidence: float, correction: str) -> pd.DataFrame:
    """Paired per-deal changes of the game-level measures (natural arm, both sets):
    two frames, or two :class:`~vale_sim.games.base.Outcomes`."""
    a, b = _per_deal(nat0, players, event), _per_deal(nat1, players, event)
    rows, news, olds, bounds, chs = [], [], [], [], []
    for m in a:
        ch = int((a[m] != b[m]).sum())
        bound = 1.0 if m.startswith("seat_") else None
        r = paired_change(b[m], a[m], ch, confidence, bound)
        o, olo, ohi = _mean_ci(a[m], confidence)
        e, elo, ehi = _mean_ci(b[m], confidence)
        rows.append({"measure": m, "what": _measure_text(m), "original": o, "original_lo": olo,
                     "original_hi": ohi, "edited": e, "edited_lo": elo, "edited_hi": ehi, **r})
        news.append(b[m]), olds.append(a[m]), bounds.append(bound), chs.append(ch)
    df = pd.DataFrame(rows)
    return _adjust(df, correction, confidence, news, olds, bounds, chs)


#: What the change of each estimand is called in text, tables and figures.
VALUE_TEXT = {"natural": "natural value", "prefer": "strength (forced value)"}


def value_columns(estimand: str) -> str:
    """The column prefix of the estimand's value in a card row: "natural" or "strength"."""
    return "natural" if estimand == "natural" else "strength"


def card_changes(run0, run1, sf0: pd.DataFrame, sf1: pd.DataFrame, edited: set,
                 confidence: float, correction: str,
                 estimand: str = "prefer") -> pd.DataFrame:
    """Per card: both sets' forced values (strength) and natural values, their verdicts
    (of ``estimand``), the paired change by deal of the estimand's value, moved,
    changed."""
    v0 = sf0.set_index("card")
    v1 = sf1.set_index("card")
    natural = estimand == "natural"
    rows, news, olds, chs = [], [], [], []
    for name in run0.arms:
        (p0, b0), (p1, b1) = run0.arms[name], run1.arms[name]
        if natural:             # the natural arm or the ban arm played another game
            ch = int((np.any(run0.natural != run1.natural, axis=0)
                      | np.any(b0 != b1, axis=0)).sum())
            d0, d1 = run0.natural_deals(name), run1.natural_deals(name)
        else:
            ch = int((np.any(p0 != p1, axis=0) | np.any(b0 != b1, axis=0)).sum())
            d0, d1 = run0.strength_deals(name), run1.strength_deals(name)
        r = paired_change(d1, d0, ch, confidence, 2.0)
        o, e = v0.loc[name], v1.loc[name]
        rows.append({"card": name, "kind": o["kind"], "level": int(o["level"]),
                     "edited_card": name in edited,
                     "strength_original": o["strength"], "strength_original_lo": o["strength_lo"],
                     "strength_original_hi": o["strength_hi"],
                     "natural_original": o["natural_value"],
                     "natural_original_lo": o["natural_lo"],
                     "natural_original_hi": o["natural_hi"],
                     "verdict_original": o["verdict"],
                     "strength_edited": e["strength"], "strength_edited_lo": e["strength_lo"],
                     "strength_edited_hi": e["strength_hi"],
                     "natural_edited": e["natural_value"], "natural_edited_lo": e["natural_lo"],
                     "natural_edited_hi": e["natural_hi"], "verdict_edited": e["verdict"],
                     # per pick (the natural value per purchase of the field's, IV) and the
                     # natural arm's acquisition share, both sets (docs/statistics.md §5.7)
                     **_pick_columns(o, "original"), **_pick_columns(e, "edited"),
                     # how often a rerun of this size reads the same verdict (§5.8 of
                     # docs/statistics.md): a change between two near a boundary is noise
                     "verdict_agreement_original": o.get("verdict_agreement", math.nan),
                     "verdict_agreement_edited": e.get("verdict_agreement", math.nan),
                     **r})
        news.append(d1), olds.append(d0), chs.append(ch)
    df = pd.DataFrame(rows)
    df = _adjust(df, correction, confidence, news, olds, [2.0] * len(rows), chs)
    if len(df):
        df["verdict_changed"] = df["verdict_original"] != df["verdict_edited"]
        df["within_noise"] = df["verdict_changed"] & ~df["moved"]
        df = df.sort_values(["edited_card", "change"], ascending=[False, False],
                            ignore_index=True)
        df.attrs["adjusted_confidence"] = _adjust_level_of(df, correction, confidence)
    else:
        df["verdict_changed"] = []
        df["within_noise"] = []
    df.attrs["estimand"] = estimand
    return df


def _pick_columns(row, which: str) -> dict:
    """A strength-frame row's per-pick value (with its interval) and acquisition share
    as what-if columns (``per_pick_original``, ``per_pick_original_lo``, ...,
    ``acquired_original``); nan when the frame has none (an older run)."""
    g = lambda k: float(row[k]) if k in row.index else math.nan        # noqa: E731
    return {f"per_pick_{which}": g("per_pick_value"), f"per_pick_{which}_lo": g("per_pick_lo"),
            f"per_pick_{which}_hi": g("per_pick_hi"),
            f"acquired_{which}": g("natural_acquired_rate"),
            f"acquired_{which}_lo": g("natural_acquired_rate_lo"),
            f"acquired_{which}_hi": g("natural_acquired_rate_hi")}


def _adjust_level_of(df, correction, confidence):
    from .advancements import _adjusted_level
    return _adjusted_level(correction, confidence, len(df), int(df["moved"].sum()))


def what_if(edits=(), rules=(), game: str = DEFAULT_GAME, card_set=None, players=(2,),
            games: int = DEFAULT_GAMES, seed: int = 0, baseline=None, cards=None,
            base_rules=None, engine: str = "fast", workers: int = 1, confidence: float = 0.95,
            tolerance: float = 0.05, margin: float = 0.02, correction: str = "fdr_bh",
            progress=None, play=None, estimand: str | None = None) -> WhatIf:
    """Play the original and the edited card set (and rules) on common deals; return
    the paired change of every verdict (module docstring, docs/what-if.md).

    ``edits``: :class:`Edit` s or ``"CARD.FIELD=VALUE"`` strings (VALUE ``5``,
    ``+1``, ``-1``); ``rules``: :class:`RuleEdit` s, ``"NAME=VALUE"`` strings or a
    dict.  ``players``: a count or counts; ``games``: games per card and arm
    (deals x players), as in the advancement study; ``cards``: only these other
    cards (the edited cards are always measured); ``baseline``: the bots (a
    preset, bundled policy or file, ``{P}`` the player count; default the game's
    strongest bundled field, :func:`vale_sim.strong_field.field_of`; ``"balanced"``,
    the default bot, for comparison); ``estimand``: ``"natural"`` (default,
    :data:`vale_sim.strong_field.ESTIMAND`: the natural value and its verdicts) or
    ``"prefer"`` (the forced value, prefer X - ban X); ``base_rules``: the original
    rules (default the game's).
    ``progress``: a tqdm-like object (``update(n)``, ``total``) or None.  ``play``: a
    :func:`~vale_sim.tournament.play_frame`-like function (a ChunkStore's keeps
    finished chunks, so a config run again reuses them).
    Raises :class:`WhatIfError` (one line) for a bad edit, before any game."""
    from .advancements import CORRECTIONS, ESTIMANDS, game_strength_run, strength_frame
    from .tournament import outcomes_player, play_frame
    from .seating import deals_for
    play = play or play_frame
    g = get_game(game)
    if correction not in CORRECTIONS:
        raise WhatIfError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    estimand = estimand or ESTIMAND
    if estimand not in ESTIMANDS:
        raise WhatIfError(f"estimand must be one of {', '.join(ESTIMANDS)} (natural: the "
                          f"natural value, the default; prefer: the forced value), got "
                          f"{estimand!r}")
    baseline = baseline or field_of(g)      # the strongest bundled field by default
    if g.strength_arms is None or g.strength_cards is None:
        raise WhatIfError(f"what-if: {g.name} has no card-strength hooks")
    counts = [players] if isinstance(players, int) else list(players)
    if not counts:
        raise WhatIfError("players: give at least one player count")
    for p in counts:
        if p not in g.players:
            raise WhatIfError(f"players must be among {', '.join(map(str, g.players))} for "
                              f"{g.title}, got {p!r}")
    check_count(games, "games", 2)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise WhatIfError(f"seed must be a whole number from 0 to 2**64 - 1, got {seed!r}")
    edits = [parse_edit(e) for e in edits]
    if isinstance(rules, dict):
        rules = [parse_rule(k, g, "rules.", v) for k, v in rules.items()]
    rules = [r if isinstance(r, RuleEdit) else parse_rule(r, g) for r in rules]
    if not edits and not rules:
        raise WhatIfError("what-if: give at least one --edit CARD.FIELD=VALUE, --edits FILE "
                          "or --rule NAME=VALUE")
    cs0 = g.load_card_set(card_set if card_set is not None else g.default_card_set)
    cs1, edit_recs = apply_card_edits(g, cs0, edits)
    rules0 = base_rules if base_rules is not None else g.rules_class()
    rules1, rule_changes = apply_rule_edits(g, rules0, rules)
    known = {n: (k, lv) for n, k, lv, _ in g.strength_cards(cs0)}
    edited = {e.card for e in edits}
    if cards is not None:
        cards = list(cards)
        for c in cards:
            if c not in known:
                hint = did_you_mean(c, sorted(known))
                raise WhatIfError(f"--cards: unknown card {c!r} (not a card a player buys in set "
                                  f"{cs0.name!r})" + (f"; {hint}" if hint else ""))
        names = [c for c in known if c in edited] + [c for c in cards if c not in edited]
    else:
        names = list(known)
    unmeasured = sorted(edited - set(known))
    if not names:
        raise WhatIfError("--cards: no card to measure (name at least one card a player buys)")
    bases = {}
    for p in counts:                      # everything checked before any game is played
        for label, cs in (("original", cs0), ("edited", cs1)):
            try:
                g.validate_playable(cs, p)
            except g.user_errors as e:
                raise WhatIfError(f"the {label} card set at {p} players: {e}") from None
            try:
                bases[p] = unpin_edited(g.resolve_baseline(baseline, p, cs), edited)
            except (ValueError, *g.user_errors) as e:
                raise WhatIfError(f"baseline {baseline} at {p} players: "
                                  f"{str(e).splitlines()[0] if str(e) else e!r}; give another "
                                  f"baseline (e.g. {g.default_policy})") from None
    config = {"game": g.name, "card_set": cs0.name, "digest_original": cs0.digest(),
              "digest_edited": cs1.digest(), "edits": edit_recs,
              "rules": [{"name": n, "old": _plain(o), "new": _plain(v)} for n, o, v in rule_changes],
              "rules_original": {k: _plain(v) for k, v in dataclasses.asdict(rules0).items()},
              "baseline": baseline if isinstance(baseline, str) else bases[counts[0]].name,
              "field": field_label(baseline, counts), "estimand": estimand,
              "seed": seed, "games": games,
              "engine": engine, "confidence": confidence, "tolerance": tolerance,
              "margin": margin, "correction": correction, "cards_measured": names,
              "edited_cards_not_measured": unmeasured, "event": g.event_column}
    out = WhatIf(config)
    for p in counts:
        base = bases[p]
        deals = deals_for(games, p)

        def tick(i, n, name):
            if progress is not None and i > 0:
                progress.update(1)
        runs = [game_strength_run(g.name, cs, games, p, seed, base, names, r, engine, workers,
                                  on_card=tick, play=play)
                for cs, r in ((cs0, rules0), (cs1, rules1))]
        # the natural frames' game measures: from outcome arrays when play has them
        play_nat = outcomes_player(play, g.name) or play
        nats = [play_nat(cs, p, seed, deals, [base], r, engine, workers, game=g.name)
                for cs, r in ((cs0, rules0), (cs1, rules1))]
        sfs = [strength_frame(run, confidence, tolerance, correction, margin, estimand)
               for run in runs]
        cc = card_changes(runs[0], runs[1], sfs[0], sfs[1], edited, confidence, correction,
                          estimand)
        gm = game_measures(nats[0], nats[1], p, g.event_column, confidence, correction)
        out.counts.append(PlayerCount(p, deals, cc, gm, sfs[0], sfs[1]))
    return out


def games_played(n_cards: int, players, games: int) -> int:
    """Games :func:`what_if` plays: per count and set, the natural arm of the strength
    study (P seatings) and prefer/ban per card, plus the natural frame."""
    from .seating import deals_for
    counts = [players] if isinstance(players, int) else list(players)
    return sum(2 * (deals_for(games, p) * p * (1 + 2 * n_cards) + deals_for(games, p))
               for p in counts)


def _plain(v):
    return list(v) if isinstance(v, tuple) else v


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------
def _pp(v) -> str:
    return "-" if v != v else f"{100 * v:+.1f}"


def _share(v) -> str:
    return "-" if v != v else f"{100 * v:.1f}"


def _ci(lo, hi, k=100, d=1, signed=True) -> str:
    if lo != lo:
        return "[no interval]"
    f = f"{{:{'+' if signed else ''}.{d}f}}"
    return f"[{f.format(k * lo + 0.0)}, {f.format(k * hi + 0.0)}]"


def summary_lines(pc: PlayerCount, config: dict) -> list[str]:
    """Plain sentences: which verdicts changed (and whether within noise), which cards moved."""
    c = pc.cards
    lines = []
    est = config.get("estimand", "prefer")
    col, what = value_columns(est), VALUE_TEXT.get(est, est)
    changed = c[c["verdict_changed"]] if len(c) else c
    if not len(changed):
        lines.append(f"No verdict changed at {pc.players} players ({len(c)} cards measured).")
    for _, r in changed.iterrows():
        noise = (f" -- within noise: its {what} change is not distinguishable from 0 "
                 f"after {config['correction']}" if r["within_noise"] else "")
        near = [f"{k} {100 * r[f'verdict_agreement_{k}']:.0f}%" for k in ("original", "edited")
                if r.get(f"verdict_agreement_{k}", math.nan) < STABLE_AGREEMENT]
        if near:
            noise += (f" -- near a label boundary (the same verdict on a rerun of this size: "
                      f"{', '.join(near)})")
        lines.append(f"{r['card']}: {r['verdict_original']} -> {r['verdict_edited']} at "
                     f"{pc.players} players ({what} {_pp(r[col + '_original'])} -> "
                     f"{_pp(r[col + '_edited'])} pp, change {_pp(r['change'])} pp "
                     f"{_ci(r['change_lo'], r['change_hi'])}, n={r['n_deals']} deals){noise}.")
    moved = c[c["moved"]] if len(c) else c
    lines.append(f"Cards whose {what} moved ({config['correction']} over {len(c)} cards, "
                 f"n={pc.deals} deals): "
                 + (", ".join(f"{r['card']} ({_pp(r['change'])} pp "
                              f"{_ci(r['change_lo'], r['change_hi'])})"
                              for _, r in moved.iterrows()) if len(moved) else "none") + ".")
    gm = pc.game[pc.game["moved"]] if len(pc.game) else pc.game

    def game_change(r):
        k, d, unit = (100, 1, " pp") if r["measure"].startswith("seat_") else (1, 2, "")
        return (f"{r['what']} ({k * r['change']:+.{d}f}{unit} "
                f"{_ci(r['change_lo'], r['change_hi'], k, d)})")
    lines.append(f"Game-level measures that moved ({config['correction']} over {len(pc.game)}, "
                 f"n={pc.deals} deals): "
                 + (", ".join(game_change(r) for _, r in gm.iterrows()) if len(gm) else "none")
                 + ".")
    return lines


def _mark(r, side: str) -> str:
    """"?" after a verdict near a label boundary (its agreement below STABLE_AGREEMENT)."""
    return "?" if r.get(f"verdict_agreement_{side}", math.nan) < STABLE_AGREEMENT else ""


def format_text(w: WhatIf) -> str:
    c = w.config
    conf = 100 * c["confidence"]
    edits = [e["edit"] + f" ({e['old']} -> {e['new']}, source user)" for e in c["edits"]]
    edits += [f"rule {r['name']}={r['new']} (was {r['old']})" for r in c["rules"]]
    est = c.get("estimand", "prefer")
    col, what = value_columns(est), VALUE_TEXT.get(est, est)
    define = ("natural value = win share of the field's own play - never buying the card"
              if est == "natural" else "strength = win share preferring the card - never "
              "buying it")
    lines = [f"What if: {'; '.join(edits)}.  {c['game']}, card set {c['card_set']}, field "
             f"{c.get('field', c['baseline'])} (every player), estimand {est}, seed "
             f"{c['seed']}.",
             "Original and edited sets on the same deals with the same bots (focal player at "
             f"every player index); {define}; change = edited - original {what}, paired by "
             f"deal, {conf:g}% paired t intervals over deals; 'moved' = {c['correction']} "
             "across the cards (and, separately, across the game-level measures) rejects "
             "change = 0.  Verdicts as in `advancements` (estimand "
             f"{est}, band ±{100 * c['tolerance']:g} pp, margin ±{100 * c['margin']:g} pp)."]
    if c["edited_cards_not_measured"]:
        lines.append("Edited but not a card a player buys (no strength): "
                     + ", ".join(c["edited_cards_not_measured"]) + ".")
    for pc in w.counts:
        lines += ["", f"== {pc.players} players: {pc.deals} deals x {pc.players} seatings per "
                      f"arm; adjusted intervals at {100 * pc.cards.attrs.get('adjusted_confidence', c['confidence']):.2f}%"]
        lines += summary_lines(pc, c)
        lines.append("")
        lines.append(f"{what}, pp:")
        lines.append(f"{'card':<26} {'original pp':>24} {'verdict':>13} {'edited pp':>24} "
                     f"{'verdict':>13} {'change pp':>9} {'interval':>15} {'adjusted':>15} "
                     f"{'p adj':>6} {'changed/deals':>13}")
        for _, r in pc.cards.iterrows():
            name = ("* " if r["edited_card"] else "") + r["card"]
            tag = ("  moved" if r["moved"] else "") + ("  VERDICT CHANGED" if r["verdict_changed"] else "")
            lines.append(
                f"{name[:26]:<26} "
                f"{_pp(r[col + '_original']) + ' ' + _ci(r[col + '_original_lo'], r[col + '_original_hi']):>24} "
                f"{r['verdict_original'] + _mark(r, 'original'):>13} "
                f"{_pp(r[col + '_edited']) + ' ' + _ci(r[col + '_edited_lo'], r[col + '_edited_hi']):>24} "
                f"{r['verdict_edited'] + _mark(r, 'edited'):>13} {_pp(r['change']):>9} "
                f"{_ci(r['change_lo'], r['change_hi']):>15} "
                f"{_ci(r['change_lo_adj'], r['change_hi_adj']):>15} {r['p_adjusted']:>6.3f} "
                f"{r['deals_changed']:>6}/{r['n_deals']:<6}{tag}")
        lines.append("(* = an edited card; ? = a verdict near a label boundary: a rerun of this "
                     "size would read another verdict more than 1 time in 10, "
                     "docs/statistics.md 5.8)")
        if "per_pick_original" in pc.cards:
            lines.append("")
            lines.append("The other estimands, original -> edited: per pick = the natural value "
                         "per purchase (its effect on the player who buys it); bought = how "
                         "often the field buys it (natural arm); forced = prefer - ban.  pp, "
                         f"{conf:g}% intervals, n = {pc.deals} deals:")
            lines.append(f"{'card':<26} {'per pick original':>24} {'per pick edited':>24} "
                         f"{'bought original %':>20} {'bought edited %':>20} "
                         f"{'forced original':>24} {'forced edited':>24}")
            for _, r in pc.cards.iterrows():
                name = ("* " if r["edited_card"] else "") + r["card"]
                bought = [_share(r[f"acquired_{w}"]) + " " + _ci(r[f"acquired_{w}_lo"],
                                                             r[f"acquired_{w}_hi"], signed=False)
                          for w in ("original", "edited")]
                lines.append(
                    f"{name[:26]:<26} "
                    f"{_pp(r['per_pick_original']) + ' ' + _ci(r['per_pick_original_lo'], r['per_pick_original_hi']):>24} "
                    f"{_pp(r['per_pick_edited']) + ' ' + _ci(r['per_pick_edited_lo'], r['per_pick_edited_hi']):>24} "
                    f"{bought[0]:>20} {bought[1]:>20} "
                    f"{_pp(r['strength_original']) + ' ' + _ci(r['strength_original_lo'], r['strength_original_hi']):>24} "
                    f"{_pp(r['strength_edited']) + ' ' + _ci(r['strength_edited_lo'], r['strength_edited_hi']):>24}")
        lines.append("")
        lines.append(f"{'game-level measure':<40} {'original':>26} {'edited':>26} {'change':>9} "
                     f"{'interval':>19} {'p adj':>6} {'changed/deals':>13}")
        for _, r in pc.game.iterrows():
            k = 100 if r["measure"].startswith("seat_") else 1
            unit = " pp" if k == 100 else ""
            d = 1 if k == 100 else 2
            sg = k == 100
            fmt = lambda v, s=True: "-" if v != v else f"{k * v + 0.0:{'+' if s else ''}.{d}f}"  # noqa: E731
            lines.append(
                f"{(r['what'] + unit)[:40]:<40} "
                f"{fmt(r['original'], sg) + ' ' + _ci(r['original_lo'], r['original_hi'], k, d, sg):>26} "
                f"{fmt(r['edited'], sg) + ' ' + _ci(r['edited_lo'], r['edited_hi'], k, d, sg):>26} "
                f"{fmt(r['change']):>9} {_ci(r['change_lo'], r['change_hi'], k, d):>19} "
                f"{r['p_adjusted']:>6.3f} {r['deals_changed']:>6}/{r['n_deals']:<6}"
                + ("  moved" if r["moved"] else ""))
        if len(pc.game) and (pc.game["deals_changed"] == 0).all():
            u = pc.game["share_changed_hi"].iloc[0]
            lines.append(f"No deal changed: the games were identical on all {pc.deals} deals "
                         f"(the edit changes at most {100 * u:.1f}% of deals, {conf:g}%).")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# The report section (a report config that names edits: docs/report.md)
# ---------------------------------------------------------------------------
def report_tables(w: WhatIf) -> dict:
    """The section's tables as text columns (each value with its interval and n)."""
    cards, game = [], []
    est = w.config.get("estimand", "prefer")
    col, what = value_columns(est), ("natural value" if est == "natural" else "strength")
    for pc in w.counts:
        for _, r in pc.cards.iterrows():
            cards.append({
                "players": pc.players, "card": r["card"], "edited": bool(r["edited_card"]),
                f"{what} original (pp)": f"{_pp(r[col + '_original'])} "
                                         f"{_ci(r[col + '_original_lo'], r[col + '_original_hi'])}",
                "verdict original": r["verdict_original"] + _mark(r, "original"),
                f"{what} edited (pp)": f"{_pp(r[col + '_edited'])} "
                                       f"{_ci(r[col + '_edited_lo'], r[col + '_edited_hi'])}",
                "verdict edited": r["verdict_edited"] + _mark(r, "edited"),
                "change (pp)": f"{_pp(r['change'])} {_ci(r['change_lo'], r['change_hi'])}",
                "adjusted interval (pp)": _ci(r["change_lo_adj"], r["change_hi_adj"]),
                "moved": bool(r["moved"]), "verdict changed": bool(r["verdict_changed"]),
                "within noise": bool(r["within_noise"]),
                "changed/deals": f"{r['deals_changed']}/{r['n_deals']}"})
        for _, r in pc.game.iterrows():
            k, d = (100, 1) if r["measure"].startswith("seat_") else (1, 2)
            game.append({
                "players": pc.players, "measure": r["what"] + (" (pp)" if k == 100 else ""),
                "original": f"{k * r['original']:.{d}f} {_ci(r['original_lo'], r['original_hi'], k, d, False)}",
                "edited": f"{k * r['edited']:.{d}f} {_ci(r['edited_lo'], r['edited_hi'], k, d, False)}",
                "change": f"{k * r['change'] + 0.0:+.{d}f} {_ci(r['change_lo'], r['change_hi'], k, d)}",
                "moved": bool(r["moved"]), "changed/deals": f"{r['deals_changed']}/{r['n_deals']}"})
    return {"what_if_cards": pd.DataFrame(cards), "what_if_game": pd.DataFrame(game)}


def report_section_function(edits, rules, players=(2,), games: int | None = None, cards=None,
                            baseline=None, estimand=None):
    """A report section function ``section_what_if(ctx)`` for these edits: plays
    :func:`what_if` with the report's card set, seed, engine and workers (``games``:
    default 2000 per card and arm, 200 in a quick or tiny report; ``baseline`` and
    ``estimand``: :func:`what_if`'s, by default the game's strongest bundled field and
    the natural estimand)."""
    def section_what_if(ctx):
        from .plots.whatif import plot_changes
        from .report import Section
        s = ctx.settings
        n = games or (2000 if getattr(s, "size", "full") == "full" else 200)
        g = get_game(ctx.game)
        store = getattr(ctx, "store", None)
        w = what_if(edits, rules, g.name, getattr(s, "card_set", None), players, n,
                    getattr(s, "seed", 0), baseline, cards, None, getattr(s, "engine", "fast"),
                    getattr(s, "workers", 1), play=store.play_frame if store else None,
                    estimand=estimand)
        ctx.results["what_if"] = w
        c = w.config
        est = c["estimand"]
        what = VALUE_TEXT.get(est, est)
        named = "; ".join([e["edit"] + f" ({e['old']} -> {e['new']})" for e in c["edits"]]
                          + [f"rule {r['name']} = {r['new']} (was {r['old']})"
                             for r in c["rules"]])
        paras = [f"What if {named}?  The original and the edited set are played on the same "
                 f"deals by the same bots (field {c['field']}), the focal player at every player "
                 f"index; each card's {what} change (estimand {est}) is edited minus original, "
                 f"paired by deal, "
                 f"with {100 * c['confidence']:g}% intervals over deals and {c['correction']} "
                 f"across the {len(c['cards_measured'])} cards measured ('moved').  A verdict "
                 f"that changed while the card did not move is within noise.  Edited numbers "
                 f"are the user's (source user), not printed values.  docs/what-if.md."]
        for pc in w.counts:
            paras += summary_lines(pc, c)
        return Section("What if: " + named, paras, tables=report_tables(w),
                       figures=[("what_if", plot_changes(w),
                                 f"{what[:1].upper() + what[1:]} change of each card, edited "
                                 f"minus original (pp; field {c['field']}): "
                                 "thick the raw interval, thin the adjusted one; edited cards "
                                 "in red, filled when the card moved.")])
    return section_what_if
