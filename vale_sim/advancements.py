"""What is a card worth?  Observational win rates and paired (causal) values.

    obs = observational("core", games=5000)          # associations, per card
    val = paired_values("core", games=1000)          # causal: prefer X vs baseline
    rep = advancement_report("core", games=1000)     # both, sorted by value

**Observational** (like 17lands' "games in hand"): one run in which every
player uses the baseline with random purchases mixed in
(``explore_permille``), so every card is bought sometimes.  Per card: how
often it was acquired, the win rate of players who acquired it and of those
who did not, the difference (*lift*), the win rate when it was in a field at
a Harvest, the mean round it was first bought.  These are **associations,
not causes**: strong players buy more, buying a card means having had the
mana, late cards are bought by players already ahead.

**Paired (causal)**: for each card X, a policy that is the baseline plus a
strong preference for X (buy rules ``card X``, then ``best advancement``,
``best vale``) plays against the baseline; the control is the baseline with
the same rules minus ``card X`` (on the core set it makes exactly the
baseline's purchases).  Both run on the same seeds and the same deals (common
random numbers) with the focal player rotated through every player index, so
through every seat.  Value = mean over deals of (focal win share with the X
preference − focal win share of the control), with a paired t interval.  A
card whose interval lies wholly above ``+tolerance`` percentage points is
flagged "over", wholly below ``−tolerance`` "under".

All rates and values are fractions (0.05 = 5 percentage points).
"""
from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Callable

import numpy as np
import pandas as pd

from .cards import CardSet
from .policy import BuyRule, Policy, get_policy
from .rules import Rules
from . import stats
from .tournament import play_frame, resolve_card_set, rotations, deals_for, json_records

ASSOCIATION_NOTE = ("Observational columns are associations, not causes: players who buy a "
                    "card differ from those who do not (mana, position, luck). "
                    "Use paired_value for the effect of preferring a card.")
FLAGS = ("over", "under", "")


# ---------------------------------------------------------------------------
# Per-card columns of a run frame (the one place that knows their names)
# ---------------------------------------------------------------------------
def card_columns(frame: pd.DataFrame, cs: CardSet) -> dict[str, np.ndarray]:
    """Per-card arrays of a per-game/player frame, rows in frame order.

    Returns ``acquired`` (rows × advancements, copies bought), ``first_round``
    (round first bought; nan if never or not recorded), ``harvested`` (1/0,
    nan if not recorded) and ``vales`` (rows × vale kinds, copies bought).
    Understands the reference frame (``acquired_<id>``, ``first_round_<id>``
    with -1 for never, ``harvested_<id>``, ``vales_acquired_<id>``) and the
    fast engine's (``buy:<name>``, ``vale:<name>``, optionally
    ``first_round:<name>``, ``harvested:<name>``); ids not in the frame are 0
    (starting prints are never bought) or nan.
    """
    n, na, nv = len(frame), len(cs.advancements), len(cs.vales)
    acquired = np.zeros((n, na))
    first = np.full((n, na), np.nan)
    harvested = np.full((n, na), np.nan)
    vales = np.zeros((n, nv))
    cols = set(frame.columns)
    for k, a in enumerate(cs.advancements):
        for c in (f"acquired_{k}", f"buy:{a.name}"):
            if c in cols:
                acquired[:, k] = frame[c].to_numpy(float)
        for c in (f"first_round_{k}", f"first_round:{a.name}"):
            if c in cols:
                f = frame[c].to_numpy(float)
                first[:, k] = np.where(f > 0, f, np.nan)
        for c in (f"harvested_{k}", f"harvested:{a.name}"):
            if c in cols:
                harvested[:, k] = frame[c].to_numpy(float)
    for v, vale in enumerate(cs.vales):
        for c in (f"vales_acquired_{v}", f"vale:{vale.name}"):
            if c in cols:
                vales[:, v] = frame[c].to_numpy(float)
    return {"acquired": acquired, "first_round": first, "harvested": harvested, "vales": vales}


def analysed_cards(cs: CardSet) -> list[tuple[str, str, int, int]]:
    """(name, kind, level, id) of the cards a player can buy: commons and
    Fertile Soil advancements (level 0) and vales."""
    out = [(a.name, "advancement", a.level, k) for k, a in enumerate(cs.advancements)
           if a.supply != "starter"]
    out += [(v.name, "vale", v.level, k) for k, v in enumerate(cs.vales)]
    return out


def check_cards(cs: CardSet, cards) -> list[str]:
    """The card names, checked against the set's buyable cards (ValueError naming the bad one)."""
    known = {name for name, *_ in analysed_cards(cs)}
    names = list(cards)
    for n in names:
        if n not in known:
            raise ValueError(f"unknown card {n!r} (not a buyable card of set {cs.name!r})")
    return names


def _by_game(frame: pd.DataFrame, values: np.ndarray, players: int) -> np.ndarray:
    """Rows (game-major, player-minor) -> array (games, players, ...)."""
    return values.reshape((len(frame) // players, players) + values.shape[1:])


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    keys = [c for c in ("matchup", "rotation", "game", "player") if c in frame.columns]
    return frame.sort_values(keys, kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------
# Observational statistics
# ---------------------------------------------------------------------------
def lift_interval(s1, n1, s0, n0, confidence: float = 0.95) -> tuple[float, float, float]:
    """Win rate with the card minus without it, per-game arrays in (see
    :func:`vale_sim.stats.clustered_ratio_difference`): ``(lift, lo, hi)``.

    The interval is the hull of the game-clustered (sandwich) interval, which
    accounts for players of one game being dependent but is unreliable when a
    group has few games, and Newcombe's independent-samples interval, which
    behaves well for small groups: conservative in both regimes.
    """
    lift, c_lo, c_hi = stats.clustered_ratio_difference(s1, n1, s0, n0, confidence)
    _, n_lo, n_hi = stats.two_proportion_diff(float(np.sum(s1)), float(np.sum(n1)),
                                              float(np.sum(s0)), float(np.sum(n0)), confidence)
    if math.isnan(lift):
        return (lift, n_lo, n_hi)
    return (lift, float(np.nanmin([c_lo, n_lo])), float(np.nanmax([c_hi, n_hi])))


def play_card_frame(cs: CardSet, players: int, seed: int, games: int, policies,
                    rules: Rules | None = None, engine: str = "fast",
                    chunk: int = 20_000) -> pd.DataFrame:
    """Like :func:`vale_sim.tournament.play_frame`, plus ``first_round:<name>``
    and ``harvested:<name>`` per advancement, which the runner's frame leaves
    out: from the fast engine's public API (``vale_sim.fast.api.simulate``) or
    the reference engine's records.  One process (the observational run is a
    single run; the fast engine plays thousands of games a second)."""
    from .runner import effective_engine, reference_frame
    from .policy import get_policy
    rules = rules or Rules()
    pols = [get_policy(p) for p in policies]
    pols = pols * players if len(pols) == 1 else pols
    kinds = [(k, a.name) for k, a in enumerate(cs.advancements) if a.supply != "starter"]
    parts = []
    if effective_engine(engine) == "fast":
        from .fast.api import frame as fast_frame, simulate
        for first in range(0, games, chunk):
            out = simulate(cs, players, seed, min(chunk, games - first), pols, rules,
                           first_game=first)
            df = fast_frame(out, cs, pols)
            extra = {f"first_round:{name}": out.first_round[:, :, k].ravel() for k, name in kinds}
            extra.update({f"harvested:{name}": out.harvested[:, :, k].ravel() for k, name in kinds})
            parts.append(pd.concat([df, pd.DataFrame(extra, index=df.index)], axis=1))
    else:
        from .reference.game import play_game
        records = [play_game(cs, players, seed, i, pols, rules) for i in range(games)]
        df = reference_frame(records, cs)
        res = [r for g in records for r in g.results]
        extra = {f"first_round:{name}": [r.first_round.get(k, 0) for r in res] for k, name in kinds}
        extra.update({f"harvested:{name}": [int(k in r.harvested) for r in res] for k, name in kinds})
        parts.append(pd.concat([df, pd.DataFrame(extra, index=df.index)], axis=1))
    return pd.concat(parts, ignore_index=True)


def explore_policy(baseline="balanced", explore_permille: int = 300) -> Policy:
    """The baseline with random purchases mixed in (every card gets bought)."""
    base = get_policy(baseline)
    return replace(base, name=f"{base.name}+explore{explore_permille}",
                   explore_permille=explore_permille)


def observational(card_set="core", games: int = 2000, players: int = 2, seed: int = 0,
                  baseline="balanced", explore_permille: int = 300,
                  rules: Rules | None = None, engine: str = "fast", workers: int = 1,
                  confidence: float = 0.95, frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per-card associations from one run of exploring baseline players.

    Columns: card, kind, level, games_acquired (player-games in which it was
    bought), acquire_rate, win_rate_acquired (+ _lo, _hi), games_not_acquired,
    win_rate_not_acquired (+ _lo, _hi), lift (= the difference; lift_lo, lift_hi: game-clustered
    interval — the players of one game are not independent), games_harvested,
    win_rate_harvested (+ _lo, _hi; nan when the engine does not record it),
    mean_round_acquired.  Rates: Wilson intervals over player-games.
    ``frame``: analyse an existing run instead of playing one.  ``workers``
    is accepted for symmetry and unused (see :func:`play_card_frame`).
    """
    cs = resolve_card_set(card_set, players)
    if frame is None:
        pol = explore_policy(baseline, explore_permille)
        frame = play_card_frame(cs, players, seed, games, [pol], rules, engine)
    frame = _sorted(frame)
    cc = card_columns(frame, cs)
    share = _by_game(frame, frame["win_share"].to_numpy(float), players)      # (G, P)
    rows = []
    for name, kind, level, k in analysed_cards(cs):
        src = cc["acquired"] if kind == "advancement" else cc["vales"]
        acq = _by_game(frame, src[:, k] > 0, players)                          # (G, P)
        s1, n1 = (share * acq).sum(1), acq.sum(1)
        s0, n0 = (share * ~acq).sum(1), (~acq).sum(1)
        r1 = stats.rate(s1.sum(), int(n1.sum()), confidence)
        r0 = stats.rate(s0.sum(), int(n0.sum()), confidence)
        lift, lift_lo, lift_hi = lift_interval(s1, n1, s0, n0, confidence)
        rec = {"card": name, "kind": kind, "level": level, "games_acquired": r1.n,
               "acquire_rate": r1.n / acq.size,
               "win_rate_acquired": r1.rate, "win_rate_acquired_lo": r1.lo,
               "win_rate_acquired_hi": r1.hi,
               "games_not_acquired": r0.n, "win_rate_not_acquired": r0.rate, "win_rate_not_acquired_lo": r0.lo,
               "win_rate_not_acquired_hi": r0.hi,
               "lift": lift, "lift_lo": lift_lo, "lift_hi": lift_hi}
        if kind == "advancement" and not np.isnan(cc["harvested"][:, k]).all():
            h = cc["harvested"][:, k] > 0
            rh = stats.rate(float(frame["win_share"].to_numpy()[h].sum()), int(h.sum()), confidence)
            rec.update(games_harvested=rh.n, win_rate_harvested=rh.rate,
                       win_rate_harvested_lo=rh.lo, win_rate_harvested_hi=rh.hi)
        else:
            rec.update(games_harvested=math.nan, win_rate_harvested=math.nan,
                       win_rate_harvested_lo=math.nan, win_rate_harvested_hi=math.nan)
        fr = cc["first_round"][:, k] if kind == "advancement" else np.full(len(frame), np.nan)
        rec["mean_round_acquired"] = float(np.nanmean(fr)) if np.isfinite(fr).any() else math.nan
        rows.append(rec)
    out = pd.DataFrame(rows)
    out.attrs.update(note=ASSOCIATION_NOTE, games=len(frame) // players, players=players,
                     confidence=confidence)
    return out


# ---------------------------------------------------------------------------
# Paired (causal) values
# ---------------------------------------------------------------------------
def control_policy(baseline="balanced") -> Policy:
    """The baseline written as buy rules: ``best advancement``, ``best vale``."""
    base = get_policy(baseline)
    return replace(base, name=f"{base.name}:control",
                   rules=(BuyRule("best", "advancement"), BuyRule("best", "vale")))


def prefer_policy(card: str, baseline="balanced") -> Policy:
    """The baseline with a strong preference for ``card`` (an advancement or a
    vale): buy it whenever it is buyable, else buy as the control does."""
    base = get_policy(baseline)
    return replace(base, name=f"{base.name}:prefer:{card}",
                   rules=(BuyRule("card", card), BuyRule("best", "advancement"),
                          BuyRule("best", "vale")))


def _focal_shares(cs, players, seed, deals, focal: Policy, opponent: Policy, rules, engine,
                  workers, play=play_frame) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """Win share of the focal player, (rotations, deals), with the focal policy at
    player index r in rotation r; also its seats and the frames."""
    lineup = (focal,) + (opponent,) * (players - 1)
    shares = np.zeros((players, deals))
    seats = np.zeros((players, deals), dtype=int)
    frames = []
    for r, rot in enumerate(rotations(lineup)):
        df = _sorted(play(cs, players, seed, deals, list(rot), rules, engine, workers))
        mine = df[df["player"] == r]
        shares[r] = mine["win_share"].to_numpy(float)
        seats[r] = mine["seat"].to_numpy(int)
        df.insert(0, "rotation", r)
        frames.append(df)
    return shares, seats, pd.concat(frames, ignore_index=True)


def flag_for(lo: float, hi: float, tolerance: float) -> str:
    """"over" if the interval lies wholly above +tolerance, "under" if wholly
    below −tolerance, else "" (tolerance a fraction: 0.05 = 5 pp)."""
    if lo > tolerance:
        return "over"
    if hi < -tolerance:
        return "under"
    return ""


def paired_values(card_set="core", games: int = 1000, players: int = 2, seed: int = 0,
                  baseline="balanced", cards=None, rules: Rules | None = None,
                  engine: str = "fast", workers: int = 1, confidence: float = 0.95,
                  tolerance: float = 0.05,
                  on_card: Callable[[int, int, str], None] | None = None,
                  play=play_frame) -> pd.DataFrame:
    """Causal value of preferring each card, paired on common seeds.

    ``play`` plays a batch of games (signature of
    :func:`vale_sim.tournament.play_frame`); studies pass one that keeps chunks.

    ``games``: games per card (rounded up to a multiple of ``players``: deals
    × rotations).  ``cards``: names (default: every buyable advancement and
    vale, see :func:`analysed_cards`).  Columns: card, kind, level,
    paired_value, paired_lo, paired_hi, paired_se, paired_n (deals),
    deals_changed (deals whose result the preference changed; when it is 0
    the interval collapses to [0, 0]: no effect *seen*, not proven absent),
    win_rate_prefer (the preferring player's win rate, n = deals × players),
    acquired_rate (share of its games in which it got the card), flag.
    """
    cs = resolve_card_set(card_set, players)
    base = get_policy(baseline)
    deals = deals_for(games, players)
    known = {name: (kind, level, k) for name, kind, level, k in analysed_cards(cs)}
    names = check_cards(cs, cards) if cards is not None else list(known)
    ctl, _, _ = _focal_shares(cs, players, seed, deals, control_policy(base), base, rules,
                              engine, workers, play)
    b = ctl.mean(axis=0)                      # per deal: mean over rotations
    rows = []
    for i, name in enumerate(names):
        if on_card is not None:
            on_card(i, len(names), name)
        kind, level, k = known[name]
        a_rot, _, df = _focal_shares(cs, players, seed, deals, prefer_policy(name, base), base,
                                     rules, engine, workers, play)
        a = a_rot.mean(axis=0)
        pd_ = stats.paired_difference(a, b, confidence)
        focal = df[df["player"] == df["rotation"]]
        cc = card_columns(focal, cs)
        got = (cc["acquired"][:, k] if kind == "advancement" else cc["vales"][:, k]) > 0
        rows.append({"card": name, "kind": kind, "level": level,
                     "paired_value": pd_.mean, "paired_lo": pd_.lo, "paired_hi": pd_.hi,
                     "paired_se": pd_.se, "paired_n": pd_.n,
                     "deals_changed": int(np.sum(a != b)),
                     "win_rate_prefer": float(a_rot.mean()), "acquired_rate": float(got.mean()),
                     "flag": flag_for(pd_.lo, pd_.hi, tolerance)})
    out = pd.DataFrame(rows)
    out.attrs.update(games_per_card=deals * players, deals=deals, players=players,
                     baseline=base.name, control_win_rate=float(ctl.mean()),
                     tolerance=tolerance, confidence=confidence)
    return out.sort_values("paired_value", ascending=False, ignore_index=True) if rows else out


def advancement_report(card_set="core", games: int = 1000, players: int = 2, seed: int = 0,
                       baseline="balanced", tolerance: float = 0.05, explore_permille: int = 300,
                       observational_games: int | None = None, cards=None,
                       rules: Rules | None = None, engine: str = "fast", workers: int = 1,
                       confidence: float = 0.95, paired: bool = True,
                       on_card: Callable[[int, int, str], None] | None = None,
                       play=play_frame) -> pd.DataFrame:
    """Observational and paired statistics per card, one row each, sorted by
    paired value (or by lift when ``paired=False``).  ``tolerance`` is a
    fraction (0.05 = 5 pp).  See :func:`observational`, :func:`paired_values`."""
    if cards is not None:
        check_cards(resolve_card_set(card_set, players), cards)
    obs = observational(card_set, observational_games or games, players, seed, baseline,
                        explore_permille, rules, engine, workers, confidence)
    if cards is not None:
        obs = obs[obs["card"].isin(list(cards))].reset_index(drop=True)
    if not paired:
        out = obs.sort_values("lift", ascending=False, ignore_index=True)
    else:
        val = paired_values(card_set, games, players, seed, baseline, cards, rules, engine,
                            workers, confidence, tolerance, on_card, play)
        out = val.merge(obs, on=["card", "kind", "level"], how="left")
        out.attrs.update(val.attrs)
    out.attrs.update(note=ASSOCIATION_NOTE, observational_games=obs.attrs["games"])
    return out


def report_records(df: pd.DataFrame) -> list[dict]:
    """JSON records: interval columns folded into ``<name>_ci`` pairs
    (``lift_ci``, ``paired_ci``, ``win_rate_acquired_ci``, ...)."""
    out = []
    for rec in json_records(df):
        folded = {}
        for k, v in rec.items():
            m = re.fullmatch(r"(.*)_(lo|hi)", k)
            if m and m.group(1) in rec:
                folded.setdefault(f"{m.group(1)}_ci", [None, None])[m.group(2) == "hi"] = v
            elif m and m.group(1) == "paired":
                folded.setdefault("paired_ci", [None, None])[m.group(2) == "hi"] = v
            else:
                folded[k] = v
        out.append(folded)
    return out
