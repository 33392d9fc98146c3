"""What is a card worth?  Observational win rates and paired (causal) values.

    obs = observational(cs, games=5000)              # associations, per card
    val = strength_table(cs, games=2000)             # causal: prefer X vs ban X
    rep = advancement_report(cs, games=2000)         # both, sorted by strength

(``game=``: whose cards; the game's ``strength_*`` hooks say what a card is, what
"prefer X" / "ban X" play and what counts as acquiring it.)

**Observational** (like 17lands' "games in hand"): one run in which every
player uses the baseline with random purchases mixed in
(``explore_permille``), so every card is bought sometimes.  Per card: how
often it was acquired, the win rate of players who acquired it and of those
who did not, the difference (*lift*), the win rate when it was in a field at
a Harvest, the mean round it was first bought.  These are **associations,
not causes**: strong players buy more, buying a card means having had the
mana, late cards are bought by players already ahead.

**Strength (causal)**: for each card X three focal arms play the same deals
(common random numbers: same seed and game indices, so the same shuffles and
supply as far as the players' choices leave them alike), the focal player
rotated through every player index, against baseline opponents:
*prefer X* (the baseline with X first whenever it is buyable), *ban X* (the
baseline that never buys X -- opponents still may) and *natural* (the
baseline).  ``strength`` = win share(prefer X) − win share(ban X): what pursuing
X is worth against never having it; ``natural_value`` = natural − ban X: what X
is worth as the baseline uses it.  Per deal the focal shares are averaged over
the rotations, then paired t intervals run over deals.  Verdicts over/under
come from a multiplicity correction across the cards tested (Benjamini-
Hochberg by default) of the test of H0: |strength| <= tolerance.  See
docs/statistics.md.

All rates and values are fractions (0.05 = 5 percentage points).
"""
from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Callable

import numpy as np
import pandas as pd

from . import stats
from .rng import offset_seed
from .games import DEFAULT_GAME, get_game
from .inputs import did_you_mean
from .tournament import (play_frame, resolve_card_set, deals_for, focal_shares, focal_outcomes,
                         outcomes_player)
from .io import json_records

def strength_game(game):
    """The Game of ``game``, with its card-strength hooks (``Game.strength_arms``,
    ``strength_cards``); ValueError naming the game when it has none."""
    g = get_game(game)
    if g.strength_arms is None or g.strength_cards is None:
        raise ValueError(f"{g.name} has no card-strength hooks (Game.strength_arms, "
                         f"strength_cards); use tournament or simulate")
    return g


def _observing_game(game):
    g = strength_game(game)
    if g.strength_observations is None or g.strength_observation_frame is None:
        raise ValueError(f"{g.name} has no observational card statistics (Game."
                         f"strength_observations); use the strength table (paired)")
    return g


def _known(g, cs) -> dict:
    """name -> (kind, level, key) of the cards a player of ``g`` can acquire."""
    return {name: (kind, level, key) for name, kind, level, key in g.strength_cards(cs)}


def check_cards(cs, cards, game=DEFAULT_GAME) -> list[str]:
    """The card names, checked against the cards a player can acquire (ValueError
    naming the bad one)."""
    known = _known(strength_game(game), cs)
    names = list(cards)
    for n in names:
        if n not in known:
            hint = did_you_mean(n, sorted(known))
            raise ValueError(f"unknown card {n!r} (not a buyable card of set {cs.name!r})"
                             + (f"; {hint}" if hint else ""))
    return names


def analysed_cards(cs, game=DEFAULT_GAME) -> list[tuple]:
    """(name, kind, level, key) of the cards a player of ``game`` can acquire
    (``Game.strength_cards``)."""
    return list(strength_game(game).strength_cards(cs))


def _acquired(g, frame, cs, card: str, known: dict) -> np.ndarray:
    """Per row: the player acquired ``card`` (``Game.strength_acquired``, else the
    frame column ``strength_cards`` names)."""
    if g.strength_acquired is not None:
        return np.asarray(g.strength_acquired(frame, cs, card), bool)
    col = known[card][2]
    return (frame[col].to_numpy(float) > 0) if col in frame.columns else np.zeros(len(frame), bool)


ASSOCIATION_NOTE = ("Observational columns are associations, not causes: players who buy a "
                    "card differ from those who do not (mana, position, luck). "
                    "Use strength for the effect of pursuing a card.")
FLAGS = ("over", "under", "")


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


def observational(card_set=None, games: int = 2000, players: int = 2, seed: int = 0,
                  baseline="balanced", explore_permille: int = 300,
                  rules=None, engine: str = "fast", workers: int = 1,
                  confidence: float = 0.95, frame: pd.DataFrame | None = None, game: str = DEFAULT_GAME) -> pd.DataFrame:
    """Per-card associations from one run of exploring baseline players.

    Columns: card, kind, level, games_acquired (player-games in which it was
    bought), player_games (n of acquire_rate), acquire_rate (+ _lo, _hi:
    game-clustered), win_rate_acquired (+ _lo, _hi), games_not_acquired,
    win_rate_not_acquired (+ _lo, _hi), lift (= the difference; lift_lo, lift_hi: game-clustered
    interval — the players of one game are not independent), games_harvested,
    win_rate_harvested (+ _lo, _hi; nan when the engine does not record it),
    mean_round_acquired (+ _lo, _hi: game-clustered; n_round player-games with
    a recorded first round).  Win rates: Wilson intervals over player-games.
    ``frame``: analyse an existing run instead of playing one.  ``workers``
    is accepted for symmetry and unused (the run is one process: the game's
    ``strength_observation_frame``).  The per-card columns come from the game's
    ``strength_observations``.
    """
    g = _observing_game(game)
    cs = resolve_card_set(card_set if card_set is not None else g.default_card_set, players,
                          game=g.name)
    if frame is None:
        from .mixture import is_mixture
        from .errors import UserError
        if is_mixture(g.get_policy(baseline)):
            raise UserError(f"--baseline {g.get_policy(baseline).name}: the observational run "
                            f"explores around one policy, not a mixed field; use --only "
                            f"strength (the strength study takes a mixture)")
        frame = g.strength_observation_frame(cs, players, seed, games, baseline,
                                             explore_permille, rules, engine)
    frame = _sorted(frame)
    cc = g.strength_observations(frame, cs)
    share = _by_game(frame, frame["win_share"].to_numpy(float), players)      # (G, P)
    rows = []
    for name, kind, level, k in g.strength_cards(cs):
        card = cc[name]
        acq = _by_game(frame, card["acquired"] > 0, players)                   # (G, P)
        s1, n1 = (share * acq).sum(1), acq.sum(1)
        s0, n0 = (share * ~acq).sum(1), (~acq).sum(1)
        r1 = stats.rate(s1.sum(), int(n1.sum()), confidence)
        r0 = stats.rate(s0.sum(), int(n0.sum()), confidence)
        lift, lift_lo, lift_hi = lift_interval(s1, n1, s0, n0, confidence)
        acq_rate = stats.clustered_ratio(acq.sum(1), np.full(acq.shape[0], players), confidence)
        rec = {"card": name, "kind": kind, "level": level, "games_acquired": r1.n,
               "player_games": int(acq.size),
               "acquire_rate": r1.n / acq.size, "acquire_rate_lo": acq_rate[1],
               "acquire_rate_hi": acq_rate[2],
               "win_rate_acquired": r1.rate, "win_rate_acquired_lo": r1.lo,
               "win_rate_acquired_hi": r1.hi,
               "games_not_acquired": r0.n, "win_rate_not_acquired": r0.rate, "win_rate_not_acquired_lo": r0.lo,
               "win_rate_not_acquired_hi": r0.hi,
               "lift": lift, "lift_lo": lift_lo, "lift_hi": lift_hi}
        if not np.isnan(card["harvested"]).all():
            h = card["harvested"] > 0
            rh = stats.rate(float(frame["win_share"].to_numpy()[h].sum()), int(h.sum()), confidence)
            rec.update(games_harvested=rh.n, win_rate_harvested=rh.rate,
                       win_rate_harvested_lo=rh.lo, win_rate_harvested_hi=rh.hi)
        else:
            rec.update(games_harvested=math.nan, win_rate_harvested=math.nan,
                       win_rate_harvested_lo=math.nan, win_rate_harvested_hi=math.nan)
        frg = _by_game(frame, card["first_round"], players)
        has = np.isfinite(frg)
        mr = (stats.clustered_ratio(np.where(has, frg, 0).sum(1), has.sum(1), confidence)
              if has.any() else (math.nan,) * 3)
        rec.update(mean_round_acquired=mr[0], mean_round_acquired_lo=mr[1],
                   mean_round_acquired_hi=mr[2], n_round=int(has.sum()))
        rows.append(rec)
    out = pd.DataFrame(rows)
    out.attrs.update(note=ASSOCIATION_NOTE, games=len(frame) // players, players=players,
                     confidence=confidence, baseline=g.get_policy(baseline).name)
    return out


# ---------------------------------------------------------------------------
# Card strength (causal): three focal arms on common deals
# ---------------------------------------------------------------------------
CORRECTIONS = ("fdr_bh", "holm", "bonferroni")
PILOT_SEED_OFFSET = 0x5EED_0000_0000      # the --precision pilot plays on seed + this
INDISTINGUISHABLE = "indistinguishable by design (no deal changed)"


def flag_for(lo: float, hi: float, tolerance: float) -> str:
    """"over" if the interval lies wholly above +tolerance, "under" if wholly
    below −tolerance, else "" (tolerance a fraction: 0.05 = 5 pp)."""
    if lo > tolerance:
        return "over"
    if hi < -tolerance:
        return "under"
    return ""


def deals_changed(a_rot: np.ndarray, b_rot: np.ndarray) -> int:
    """Deals (columns) on which the focal outcome differs between two arms in at
    least one rotation.  (Comparing the rotation means instead would miss deals
    where one rotation's gain cancels another's loss.)"""
    return int(np.any(a_rot != b_rot, axis=0).sum())


def _mean_sd(d: np.ndarray) -> tuple[float, float]:
    """Mean and SD (ddof 1) of per-deal differences (nan where undefined)."""
    n = d.size
    return (float(d.mean()) if n else math.nan,
            float(d.std(ddof=1)) if n > 1 else math.nan)


def _t_interval(m, sd, n: int, changed, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`paired_interval`'s bounds from the mean, SD and n, for arrays of any shape
    (``changed``: deals changed, 0 gives the zero-count bound)."""
    m = np.asarray(m, float)
    if n >= 2:
        se = np.asarray(sd, float) / math.sqrt(n)
        q = stats.t_quantile(0.5 + confidence / 2, n - 1)
        # A difference of two win shares lies in [-1, 1]; so does the interval.
        lo, hi = np.fmax(-1.0, m - q * se), np.fmin(1.0, m + q * se)
    else:
        lo, hi = np.full(m.shape, -1.0), np.full(m.shape, 1.0)
    if n:
        u = 1.0 - (1.0 - confidence) ** (1.0 / n)
        zero = np.asarray(changed) == 0
        lo, hi = np.where(zero, -u, lo), np.where(zero, u, hi)
    return lo, hi


def paired_interval(d: np.ndarray, changed: int, confidence: float) -> tuple[float, float, float]:
    """Mean of per-deal differences ``d`` with a paired t interval: ``(mean, lo, hi)``.

    When no deal changed, every difference is exactly 0 and the t interval
    would be the point [0, 0] -- a statement about these n deals, not about the
    card.  The interval is then the exact bound a zero count allows: the share
    of deals the change would touch is at most ``u = 1 - (1 - confidence)^(1/n)``
    (Clopper-Pearson, one-sided) and a deal's difference is at most 1 in size,
    so ``[-u, +u]``.  Intervals are clipped to [-1, 1], the range of a
    difference of win shares (it matters only for a handful of deals)."""
    if not (d.size and changed == 0):
        stats._check_confidence(confidence)
    m, sd = _mean_sd(d)
    lo, hi = _t_interval(m, sd, d.size, changed, confidence)
    return (m, float(lo), float(hi))


def _band_p(m, sd, n: int, changed, tolerance: float) -> np.ndarray:
    """:func:`band_p_value` from the mean, SD and n, for arrays of any shape."""
    from scipy.stats import t
    m = np.asarray(m, float)
    if n < 2:
        return np.ones(m.shape)
    se = np.asarray(sd, float) / math.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.minimum(1.0, 2 * np.minimum(t.sf((m - tolerance) / se, n - 1),
                                           t.cdf((m + tolerance) / se, n - 1)))
    p = np.where(se == 0, np.where(np.abs(m) > tolerance, 0.0, 1.0), p)
    return np.where(np.asarray(changed) == 0, 1.0, p)


def band_p_value(d: np.ndarray, tolerance: float, changed: int) -> float:
    """p-value of H0: |mean| <= tolerance against "beyond the band", from the
    paired t statistic: ``2 * min(P(T >= (m - tol)/se), P(T <= (m + tol)/se))``
    (capped at 1).  It is below alpha exactly when the two-sided 1 - alpha t
    interval lies wholly beyond ±tolerance, so p-values and intervals agree."""
    return float(_band_p(*_mean_sd(d), d.size, changed, tolerance))


def _mean_ci(x: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Mean of per-deal shares in [0, 1] with a t interval over deals, clipped to [0, 1]."""
    r = stats.paired_difference(x, np.zeros_like(x), confidence)
    return (r.mean, float(np.clip(r.lo, 0, 1)), float(np.clip(r.hi, 0, 1)))  # nan stays nan


def per_pick(natural_deals: np.ndarray, got: np.ndarray, confidence: float
             ) -> tuple[float, float, float]:
    """The card's value *per pick*: the effect of buying it on the player who buys
    it, under the field (docs/statistics.md §5.7): ``(value, lo, hi)``.

    The natural value (natural − ban X, per deal) is diluted by the games in which
    the field does not buy the card: there the two arms play the same game and the
    difference is exactly 0.  Dividing by the share of those games in which it does
    (the natural arm's acquisition share; the ban arm's is 0 by construction) gives
    the mean effect over the games where it is bought: the instrumental-variable
    (Wald, complier) estimate with the arm as the instrument.  Its interval is
    Fieller's (:func:`vale_sim.stats.fieller_ratio`, the deals as units), clipped to
    [-1, 1], the range of a difference of win shares: a card bought in few deals
    gets a wide interval, never a precise-looking one.  nan when the field never
    buys it (no pick to judge)."""
    got = np.asarray(got, dtype=float)
    if got.size == 0 or not np.any(got > 0):
        return (math.nan, math.nan, math.nan)
    return stats.fieller_ratio(natural_deals, got, confidence, bounds=(-1.0, 1.0))


def _sd(x) -> float:
    x = np.asarray(x, float)
    return float(x.std(ddof=1)) if x.size > 1 else math.nan


def pick_band_p_values(natural_deals, got_natural, forced_deals, got_prefer,
                       tolerance: float, changed_natural: int, changed_forced: int
                       ) -> tuple[float, float]:
    """One-sided p-values of the per-pick band tests (docs/statistics.md §5.7):

    * ``p_over``: H0 "per pick <= +tolerance" for the natural compliers.  Per pick =
      E[natural − ban] / E[acquired in the natural arm], so H0 is
      E[(natural − ban) − tolerance × acquired] <= 0: a paired t test on that per-deal
      combination (Fieller's interval lies above +tolerance exactly when it rejects);
    * ``p_under``: H0 "per forced pick >= −tolerance" for the arm that forces the card
      (prefer − ban over its acquisition share): E[(prefer − ban) + tolerance ×
      acquired in the prefer arm] >= 0.

    1.0 where no deal changed (nothing to test)."""
    from scipy.stats import t

    def one_sided(e, changed, upper):
        e = np.asarray(e, dtype=float)
        n = e.size
        if n < 2 or changed == 0:
            return 1.0
        m, se = float(e.mean()), float(e.std(ddof=1)) / math.sqrt(n)
        if se == 0:
            return 0.0 if (m > 0 if upper else m < 0) else 1.0
        return float(t.sf(m / se, n - 1) if upper else t.cdf(m / se, n - 1))

    p_over = (one_sided(np.asarray(natural_deals) - tolerance * np.asarray(got_natural),
                        changed_natural, True) if got_natural is not None else 1.0)
    p_under = one_sided(np.asarray(forced_deals) + tolerance * np.asarray(got_prefer),
                        changed_forced, False)
    return p_over, p_under


class StrengthRun:
    """The per-deal outcomes behind a strength table (see :func:`strength_run`).

    ``natural``: focal win share of the baseline arm, (rotations, deals);
    ``arms[card] = (prefer, ban)`` likewise; ``got[card]``: per deal, the share
    of rotations in which the focal player of the prefer arm bought the card."""

    def __init__(self, cs, players, seed, deals, baseline, natural, known=None):
        self.cs, self.players, self.seed, self.deals = cs, players, seed, deals
        self.baseline, self.natural = baseline, natural
        self.known = known        # name -> (kind, level) of the cards played
        self.arms: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.got: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        # per deal: the share of rotations in which the focal player of the natural
        # arm (the baseline itself) bought the card ("do strong players take it?")
        self.got_natural: dict[str, np.ndarray] = {}

    def strength_deals(self, card: str) -> np.ndarray:
        """Per deal: focal win share (mean over rotations) prefer X minus ban X."""
        pre, ban = self.arms[card]
        return pre.mean(axis=0) - ban.mean(axis=0)

    def natural_deals(self, card: str) -> np.ndarray:
        return self.natural.mean(axis=0) - self.arms[card][1].mean(axis=0)


def _arms(g, card: str, base):
    """(prefer, ban) of ``card`` for the baseline ``base``; a mixed field gives the
    mixtures of its members' arms (same draws: paired by deal; vale_sim.mixture)."""
    from .mixture import is_mixture, map_members
    if not is_mixture(base):
        return g.strength_arms(card, base)
    return (map_members(base, lambda m: g.strength_arms(card, m)[0]),
            map_members(base, lambda m: g.strength_arms(card, m)[1]))


def strength_run(card_set=None, games: int = 2000, players: int = 2, seed: int = 0,
                 baseline="balanced", cards=None, rules=None,
                 engine: str = "fast", workers: int = 1,
                 on_card: Callable[[int, int, str], None] | None = None,
                 play=play_frame, game: str = DEFAULT_GAME) -> StrengthRun:
    """Play the three arms (natural once; prefer X and ban X per card) on deals
    ``0 .. deals-1`` of ``seed`` (``deals = ceil(games / players)``), the focal
    player rotated through every player index against baseline opponents.  The
    arms, the cards and what counts as acquiring one are the game's hooks
    (``Game.strength_arms``, ``strength_cards``, ``strength_acquired``)."""
    g = strength_game(game)
    cs = resolve_card_set(card_set if card_set is not None else g.default_card_set, players,
                          game=g.name)
    base = g.get_policy(baseline)
    deals = deals_for(games, players)
    known = _known(g, cs)
    names = check_cards(cs, cards, g) if cards is not None else list(known)
    cols = _count_columns(g, cs, names, known)
    if cols is not None and outcomes_player(play, g.name) is not None:
        return _strength_run_outcomes(g, cs, players, seed, deals, base, names, known, cols,
                                      rules, engine, workers, on_card, play)
    nat, nat_df = focal_shares(cs, players, seed, deals, base, base, rules, engine, workers,
                               play, game=g.name)
    run = StrengthRun(cs, players, seed, deals, base, nat,
                      known={n: (k, lv) for n, (k, lv, _) in known.items()})
    for i, name in enumerate(names):
        if on_card is not None:
            on_card(i, len(names), name)
        prefer, ban_pol = _arms(g, name, base)
        pre, df = focal_shares(cs, players, seed, deals, prefer, base, rules, engine, workers,
                               play, game=g.name)
        ban, _ = focal_shares(cs, players, seed, deals, ban_pol, base, rules, engine, workers,
                              play, game=g.name)
        got = _acquired(g, df, cs, name, known)
        run.arms[name] = (pre, ban)
        run.got[name] = got.reshape(players, deals).mean(axis=0)
        run.got_natural[name] = _acquired(g, nat_df, cs, name, known).reshape(
            players, deals).mean(axis=0)
    if on_card is not None:
        on_card(len(names), len(names), "")
    return run


def _count_columns(g, cs, names, known) -> dict | None:
    """Per card: the results-frame column counting it (``Game.strength_column``, else
    ``strength_cards``' key), or None when the game reads acquisitions from its frames
    only (``strength_acquired`` without ``strength_column``)."""
    if g.strength_column is not None:
        return {n: g.strength_column(cs, n) for n in names}
    if g.strength_acquired is not None:
        return None
    return {n: known[n][2] for n in names}


def _focal_acquired(outs: list, col) -> np.ndarray:
    """``(rotations, deals)``: the focal player (index ``r`` in rotation ``r``) bought
    at least one copy of the card counted in column ``col``."""
    if not outs or col not in outs[0].counts:
        return np.zeros((len(outs), outs[0].n if outs else 0), bool)
    return np.stack([o.counts[col][:, r] > 0 for r, o in enumerate(outs)])


def _strength_run_outcomes(g, cs, players, seed, deals, base, names, known, cols, rules,
                           engine, workers, on_card, play) -> StrengthRun:
    """:func:`strength_run` through the summary path (outcome arrays, no frame): the
    same games and the same numbers."""
    nat, nat_o = focal_outcomes(cs, players, seed, deals, base, base, rules, engine, workers,
                                play, game=g.name)
    run = StrengthRun(cs, players, seed, deals, base, nat,
                      known={n: (k, lv) for n, (k, lv, _) in known.items()})
    for i, name in enumerate(names):
        if on_card is not None:
            on_card(i, len(names), name)
        prefer, ban_pol = _arms(g, name, base)
        pre, pre_o = focal_outcomes(cs, players, seed, deals, prefer, base, rules, engine,
                                    workers, play, game=g.name)
        ban, _ = focal_outcomes(cs, players, seed, deals, ban_pol, base, rules, engine,
                                workers, play, game=g.name)
        run.arms[name] = (pre, ban)
        run.got[name] = _focal_acquired(pre_o, cols[name]).mean(axis=0)
        run.got_natural[name] = _focal_acquired(nat_o, cols[name]).mean(axis=0)
    if on_card is not None:
        on_card(len(names), len(names), "")
    return run


def game_strength_run(game: str, card_set=None, games: int = 2000, players: int = 2,
                      seed: int = 0, baseline="balanced", cards=None, rules=None,
                      engine: str = "fast", workers: int = 1,
                      on_card: Callable[[int, int, str], None] | None = None,
                      play=play_frame) -> StrengthRun:
    """:func:`strength_run` with the game first (its default card set when None).
    ``play``: a :func:`~vale_sim.tournament.play_frame`-like function (e.g. a
    ChunkStore's, which keeps finished chunks); default play_frame."""
    return strength_run(card_set, games, players, seed, baseline, cards, rules, engine,
                        workers, on_card, play or play_frame, game=game)


def _adjusted_level(correction: str, confidence: float, m: int, flagged: int) -> float:
    """Confidence level of the adjusted intervals.  ``fdr_bh``: Benjamini and
    Yekutieli's false-coverage-rate level ``1 - max(R, 1) * alpha / m`` (R cards
    flagged), which makes "adjusted interval beyond the band" and "flagged by
    BH" the same statement; ``holm``/``bonferroni``: the Bonferroni level
    ``1 - alpha / m`` (simultaneous; Holm may flag a card whose Bonferroni
    interval still touches the band)."""
    alpha = 1 - confidence
    if correction == "fdr_bh":
        return 1 - max(flagged, 1) * alpha / m
    return 1 - alpha / m


DEFAULT_MARGIN = 0.02            # equivalence margin of "balanced" (fraction: 2 pp)
VERDICTS = ("over", "under", "balanced", "inconclusive")


def _tost_p(m, sd, n: int, changed, margin: float) -> np.ndarray:
    """:func:`equivalence_p_value` from the mean, SD and n, for arrays of any shape (the
    arithmetic of :func:`vale_sim.stats.tost`)."""
    from scipy.stats import t
    m = np.asarray(m, float)
    zero = np.asarray(changed) == 0
    if n == 0:
        return np.ones(m.shape)
    none_changed = float((1.0 - margin) ** n)
    if n < 2:
        return np.where(zero, none_changed, 1.0)
    se = np.asarray(sd, float) / math.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.maximum(t.sf((m + margin) / se, n - 1), t.cdf((m - margin) / se, n - 1))
    p = np.where(se == 0, np.where(np.abs(m) < margin, 0.0, 1.0), p)
    p = np.where(np.isfinite(m) & np.isfinite(se) & (se >= 0), p, 1.0)
    return np.where(zero, none_changed, p)


def equivalence_p_value(d: np.ndarray, margin: float, changed: int) -> float:
    """p-value of H0 ``|strength| >= margin`` against "within ±margin" (TOST,
    :func:`vale_sim.stats.tost`, t with ``n_deals − 1`` df).  When no deal changed,
    a true strength of size ``margin`` or more needs at least a share ``margin`` of
    deals to change (one deal moves the mean by at most ``1/n``), so the chance of
    seeing none is at most ``(1 − margin)^n``: that is the p-value."""
    return float(_tost_p(*_mean_sd(d), d.size, changed, margin))


def _verdict_array(flag, shown_within) -> np.ndarray:
    """The flag where there is one, else "balanced" where ``shown_within``, else
    "inconclusive" (arrays of any shape)."""
    flag = np.asarray(flag)
    return np.where(flag != "", flag, np.where(shown_within, "balanced", "inconclusive"))


def verdicts_for(strength, flag, p_eq_adjusted, alpha: float) -> list[str]:
    """"over"/"under" (flagged: shown beyond the tolerance band), "balanced" (shown
    within the margin: adjusted TOST p <= alpha), else "inconclusive"."""
    return _verdict_array(list(flag), np.asarray(p_eq_adjusted, float) <= alpha).tolist()


def games_needed(sd: float, strength: float, tolerance: float, margin: float, alpha: float,
                 players: int, power: float = 0.8) -> float:
    """Games per card and arm (deals × players) an inconclusive card would need, if its
    true strength is the estimated one (80% power, at the Bonferroni level ``alpha``
    given): to be shown balanced when ``|strength| < margin``, shown over/under when
    ``|strength| > tolerance``; nan in between (more games would show neither)."""
    if abs(strength) < margin:
        n = stats.n_for_equivalence(sd, strength, margin, alpha, power)
    elif abs(strength) > tolerance:
        n = stats.n_for_beyond(sd, strength, tolerance, alpha, power)
    else:
        return math.nan
    return float(n * players) if math.isfinite(n) else math.nan


ESTIMANDS = ("prefer", "natural")
#: The estimand of ``strength_table``'s flags and verdicts by default ("prefer": the
#: forced value prefer X − ban X, the historical one).  The report's headline verdicts
#: use "natural" under the strongest field (docs/statistics.md §5.6).
DEFAULT_ESTIMAND = "prefer"
#: Multiplicity correction of the rationality check (natural value below 0): Holm, a
#: family-wise guarantee, because its claim is "no card at all" (docs/statistics.md §5.6).
RATIONALITY_CORRECTION = "holm"


def _below_p(m, sd, n: int, changed) -> np.ndarray:
    """:func:`below_zero_p_value` from the mean, SD and n, for arrays of any shape."""
    from scipy.stats import t
    m = np.asarray(m, float)
    if n < 2:
        return np.ones(m.shape)
    se = np.asarray(sd, float) / math.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = t.cdf(m / se, n - 1)
    p = np.where(se == 0, np.where(m < 0, 0.0, 1.0), p)
    return np.where(np.asarray(changed) == 0, 1.0, p)


def below_zero_p_value(d: np.ndarray, changed: int) -> float:
    """One-sided p-value of H0 ``mean >= 0`` against ``mean < 0`` (paired t over the
    deals, ``n − 1`` df); 1 when no deal changed (the arms are the same games)."""
    return float(_below_p(*_mean_sd(d), d.size, changed))


def natural_flags(natural, natural_lo, natural_hi, reject_natural, strength, reject_forced,
                  margin: float, reject_pick=None, pick_over=None) -> list[str]:
    """The flags of the "natural" estimand (docs/statistics.md §5.6), per card:

    * **over**: the natural value (natural − ban X under the field) is shown beyond
      the band (``reject_natural``: the correction rejects |natural| <= tolerance)
      and is positive -- having the card is worth more than the band to strong play;
    * **under**: strong play is not shown to gain anything from it (the raw 95%
      interval of its natural value reaches 0 or lies below it: ``natural_lo <= 0``)
      and gains less than ``margin`` (``natural_hi < margin``), *and* taking it
      costs: the forced value (prefer X − ban X) is shown below −tolerance
      (``reject_forced`` and ``strength < 0``);
    * "" otherwise.

    And per pick (``reject_pick``, ``pick_over``: the corrected per-pick band tests of
    :func:`pick_band_p_values`, and whether a rejection is the "over" side), so that a
    gross error on a card that is rarely available is caught although its natural
    value is capped by how often it can be bought:

    * **over** also when buying it is shown to gain the buyer more than the band (per
      pick above +tolerance);
    * **under** also when forcing it is shown to cost each forced buyer more than the
      band (per forced pick below −tolerance) and strong play is not shown to gain
      from it (as above).

    Monotone by construction: raising the natural value, the per-pick value or the
    forced value never moves a card from "" to "under" or from "over" to anything
    else."""
    return _natural_flag_array(natural, natural_lo, natural_hi, reject_natural, strength,
                               reject_forced, margin, reject_pick, pick_over).tolist()


def _natural_flag_array(natural, natural_lo, natural_hi, reject_natural, strength,
                        reject_forced, margin: float, reject_pick=None,
                        pick_over=None) -> np.ndarray:
    """:func:`natural_flags` for arrays of any shape."""
    nv, nlo, nhi, fv = (np.asarray(x, float) for x in (natural, natural_lo, natural_hi,
                                                         strength))
    rp = (np.zeros(nv.shape, bool) if reject_pick is None
          else np.asarray(reject_pick, bool))
    po = np.zeros(nv.shape, bool) if pick_over is None else np.asarray(pick_over, bool)
    over = (np.asarray(reject_natural, bool) & (nv > 0)) | (rp & po)
    costly = (np.asarray(reject_forced, bool) & (fv < 0)) | (rp & ~po)
    under = costly & (nlo <= 0) & (nhi < margin)
    return np.where(over, "over", np.where(under, "under", ""))


def _pick_p(pick, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(p_pick, pick_over) of the per-pick band tests from the summaries ``pick`` =
    ((mean, sd, changed) of (natural − ban) − tolerance × acquired in the natural arm,
    the same of (prefer − ban) + tolerance × acquired in the prefer arm): one-sided
    paired t tests (:func:`pick_band_p_values`), twice the smaller p-value."""
    from scipy.stats import t
    (em, esd, ech), (fm, fsd, fch) = [[np.asarray(x, float) for x in part] for part in pick]
    if n < 2:
        return np.ones(em.shape), np.zeros(em.shape, bool)
    se_e, se_f = esd / math.sqrt(n), fsd / math.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        po = t.sf(em / se_e, n - 1)
        pu = t.cdf(fm / se_f, n - 1)
    po = np.where(se_e == 0, np.where(em > 0, 0.0, 1.0), po)
    pu = np.where(se_f == 0, np.where(fm < 0, 0.0, 1.0), pu)
    po = np.where(ech == 0, 1.0, po)
    pu = np.where(fch == 0, 1.0, pu)
    return np.minimum(1.0, 2 * np.minimum(po, pu)), po <= pu


def verdict_rule(strength, natural, n: int, confidence: float = 0.95,
                 tolerance: float = 0.05, correction: str = "fdr_bh",
                 margin: float = DEFAULT_MARGIN, estimand: str = DEFAULT_ESTIMAND,
                 pick=None) -> dict:
    """The verdict rule of :func:`strength_frame`, from per-card summaries: the one
    place the tests, the corrections and the labels are put together.

    ``strength`` and ``natural``: ``(mean, sd, changed)`` of the per-deal differences
    prefer − ban and natural − ban (``changed``: deals changed), arrays of shape
    ``(..., cards)``; each row of the last axis is one family of cards, corrected on
    its own (:func:`vale_sim.stats.adjust_pvalues_rows`), so a stack of resampled runs
    (:func:`verdict_agreement`) is labelled in one call.  ``n``: deals.  Returns a dict
    of arrays of that shape: the p-values (``p_value``, ``p_equivalent``,
    ``p_natural``, ``p_natural_equivalent``, ``p_natural_below``) and their adjusted
    values (``..._adjusted``), ``reject`` / ``reject_natural`` / ``below`` (the
    corrections' rejections), the raw intervals (``strength_lo``/``_hi``,
    ``natural_lo``/``_hi``), ``flag`` and ``verdict`` (docs/statistics.md §5.3, §5.6).
    ``pick``: the per-pick summaries of :func:`_pick_p` (the natural estimand's per-pick
    verdicts, §5.7; ``p_pick``, ``p_pick_adjusted``, ``reject_pick``, ``pick_over``);
    None: no per-pick test."""
    alpha = 1 - confidence
    sm, ssd, sch = (np.asarray(x, float) for x in strength)
    nm, nsd, nch = (np.asarray(x, float) for x in natural)
    o = {"p_value": _band_p(sm, ssd, n, sch, tolerance),
         "p_equivalent": _tost_p(sm, ssd, n, sch, margin),
         "p_natural": _band_p(nm, nsd, n, nch, tolerance),
         "p_natural_equivalent": _tost_p(nm, nsd, n, nch, margin),
         "p_natural_below": _below_p(nm, nsd, n, nch)}
    o["reject"], o["p_adjusted"] = stats.adjust_pvalues_rows(o["p_value"], correction, alpha)
    # the same correction, separately, over the cards' equivalence tests
    _, o["p_equivalent_adjusted"] = stats.adjust_pvalues_rows(o["p_equivalent"], correction,
                                                              alpha)
    o["reject_natural"], o["p_natural_adjusted"] = stats.adjust_pvalues_rows(
        o["p_natural"], correction, alpha)
    _, o["p_natural_equivalent_adjusted"] = stats.adjust_pvalues_rows(
        o["p_natural_equivalent"], correction, alpha)
    # the rationality check: natural value significantly below 0 (Holm)
    below, o["p_natural_below_adjusted"] = stats.adjust_pvalues_rows(
        o["p_natural_below"], RATIONALITY_CORRECTION, alpha)
    o["below"] = below & (nm < 0)
    o["strength_lo"], o["strength_hi"] = _t_interval(sm, ssd, n, sch, confidence)
    o["natural_lo"], o["natural_hi"] = _t_interval(nm, nsd, n, nch, confidence)
    if pick is not None:
        o["p_pick"], o["pick_over"] = _pick_p(pick, n)
        o["reject_pick"], o["p_pick_adjusted"] = stats.adjust_pvalues_rows(o["p_pick"],
                                                                           correction, alpha)
    else:
        o["reject_pick"] = o["pick_over"] = None
    if estimand == "prefer":
        o["flag"] = np.where(o["reject"], np.where(sm > 0, "over", "under"), "")
        o["verdict"] = _verdict_array(o["flag"], o["p_equivalent_adjusted"] <= alpha)
    else:
        o["flag"] = _natural_flag_array(nm, o["natural_lo"], o["natural_hi"],
                                        o["reject_natural"], sm, o["reject"], margin,
                                        o["reject_pick"], o["pick_over"])
        # balanced: shown within ±margin when played naturally, forcing it is shown
        # to cost less than the band (raw lower bound of the forced value), and the
        # field does take it (some deal changed: a card it never buys has a natural
        # value of exactly 0 by design, which shows nothing)
        shown_ok = ((o["p_natural_equivalent_adjusted"] <= alpha)
                    & (o["strength_lo"] > -tolerance) & (nch > 0))
        o["verdict"] = _verdict_array(o["flag"], shown_ok)
    return o


#: Resamples of the deals behind each frame's ``verdict_agreement`` (docs/statistics.md
#: §5.8); 0 skips it.
AGREEMENT_RESAMPLES = 200
#: A verdict is *stable* when an identical rerun would read it at least this often;
#: below it the card sits near a label boundary (marked "?").
STABLE_AGREEMENT = 0.9
AGREEMENT_SEED_OFFSET = 0xA6E0_0000_0000   # the resampling's seed: the run's seed + this


def deal_matrices(run: "StrengthRun") -> tuple[np.ndarray, ...]:
    """The per-deal inputs of the verdicts, cards in the order of ``run.arms``, each of
    shape ``(deals, cards)``: the strength (prefer − ban) and natural (natural − ban)
    differences, whether each deal changed between those arms (1.0 / 0.0), and the
    acquisition shares of the natural and the prefer arm (the per-pick tests)."""
    arms = list(run.arms.values())
    names = list(run.arms)
    gnat = getattr(run, "got_natural", {}) or {}
    gn = np.stack([np.asarray(gnat.get(c, np.zeros(run.deals)), float) for c in names],
                  axis=1)
    gp = np.stack([np.asarray(run.got.get(c, np.zeros(run.deals)), float) for c in names],
                  axis=1)
    ds = np.stack([p.mean(axis=0) - b.mean(axis=0) for p, b in arms], axis=1)
    dn = np.stack([run.natural.mean(axis=0) - b.mean(axis=0) for _, b in arms], axis=1)
    cs = np.stack([np.any(p != b, axis=0) for p, b in arms], axis=1).astype(float)
    cn = np.stack([np.any(run.natural != b, axis=0) for _, b in arms], axis=1).astype(float)
    return ds, dn, cs, cn, gn, gp


def resampled_verdicts(matrices, resamples: int, rng, confidence: float = 0.95,
                       tolerance: float = 0.05, correction: str = "fdr_bh",
                       margin: float = DEFAULT_MARGIN, estimand: str = DEFAULT_ESTIMAND,
                       deals: int | None = None) -> np.ndarray:
    """The verdicts of ``resamples`` runs drawn from one (``matrices``: its
    :func:`deal_matrices`): each draws ``deals`` (default the run's own count) of its
    deals with replacement -- the deal is the independent unit, every arm and card of a
    drawn deal comes with it -- and labels every card by :func:`verdict_rule`, the
    multiplicity correction included.  Returns the labels, ``(resamples, cards)``."""
    ds, dn, cs, cn = matrices[:4]
    pick_e = pick_f = None
    if len(matrices) > 4 and estimand != "prefer":      # the per-pick tests (§5.7)
        gn, gp = matrices[4:6]
        pick_e, pick_f = dn - tolerance * gn, ds + tolerance * gp
    pool = ds.shape[0]
    n = pool if deals is None else int(deals)
    out, done = [], 0
    batch = max(1, min(resamples, 4_000_000 // pool))       # at most ~32 MB of weights
    while done < resamples:
        b = min(batch, resamples - done)
        w = rng.multinomial(n, np.full(pool, 1.0 / pool), size=b).astype(float)  # (b, deals)

        def summary(d, ch):
            m = w @ d / n
            var = np.maximum((w @ (d * d) - n * m * m) / (n - 1), 0.0)
            return m, np.sqrt(var), w @ ch
        pick = ((summary(pick_e, cn), summary(pick_f, cs)) if pick_e is not None else None)
        out.append(verdict_rule(summary(ds, cs), summary(dn, cn), n, confidence, tolerance,
                                correction, margin, estimand, pick)["verdict"])
        done += b
    return np.concatenate(out, axis=0) if out else np.empty((0, ds.shape[1]), str)


def agreement_of(labels: np.ndarray) -> np.ndarray:
    """Per column of ``labels`` (draws × cards): the share of pairs of draws that read
    the same label, ``sum_k c_k (c_k − 1) / (R (R − 1))`` with ``c_k`` draws reading
    label ``k`` of ``R``: an unbiased estimate of the chance that two independent
    draws agree.  nan with fewer than 2 draws."""
    r = labels.shape[0]
    if r < 2:
        return np.full(labels.shape[1], math.nan)
    counts = [(labels == v).sum(axis=0) for v in np.unique(labels)]
    return sum(c * (c - 1.0) for c in counts) / (r * (r - 1.0))


def verdict_agreement(run: "StrengthRun", confidence: float = 0.95, tolerance: float = 0.05,
                      correction: str = "fdr_bh", margin: float = DEFAULT_MARGIN,
                      estimand: str = DEFAULT_ESTIMAND,
                      resamples: int = AGREEMENT_RESAMPLES) -> np.ndarray:
    """Per card (the order of ``run.arms``): the estimated probability that two
    independent runs of this size -- or a card and its identical twin in one run --
    read the same verdict (docs/statistics.md §5.8).

    ``resamples`` runs of the same size are drawn from this one
    (:func:`resampled_verdicts`: the deals with replacement, every card labelled by
    the verdict rule with its multiplicity correction), and the estimate is the share
    of pairs of them that agree (:func:`agreement_of`).  A card far from every label
    boundary reads 1; a card whose estimate sits on one reads about 0.5.  The draws
    use the seed ``run.seed + AGREEMENT_SEED_OFFSET``: the same run gives the same
    estimate.  nan with fewer than 2 deals or resamples."""
    names = list(run.arms)
    if not names or int(run.deals) < 2 or resamples < 2:
        return np.full(len(names), math.nan)
    rng = np.random.default_rng(offset_seed(int(run.seed or 0), AGREEMENT_SEED_OFFSET))
    return agreement_of(resampled_verdicts(deal_matrices(run), resamples, rng, confidence,
                                           tolerance, correction, margin, estimand))


def strength_frame(run: StrengthRun, confidence: float = 0.95, tolerance: float = 0.05,
                   correction: str = "fdr_bh", margin: float = DEFAULT_MARGIN,
                   estimand: str = DEFAULT_ESTIMAND,
                   agreement_resamples: int = AGREEMENT_RESAMPLES) -> pd.DataFrame:
    """The strength table of a :class:`StrengthRun` (see :func:`strength_table`).

    ``estimand``: "prefer" (flags and verdicts from the forced value ``strength`` =
    prefer − ban) or "natural" (from the natural value and the forced value together,
    :func:`natural_flags`; docs/statistics.md §5.6); the rule is :func:`verdict_rule`.
    Columns ``value``/``value_lo``/``value_hi``/``value_lo_adj``/``value_hi_adj`` are the
    estimand's headline number (``strength`` or ``natural_value``); the rows are sorted
    by it.  ``verdict_agreement``: how often an identical rerun of this size would read
    the same verdict (:func:`verdict_agreement`, ``agreement_resamples`` draws of the
    deals; nan with 0), ``verdict_stable``: at least :data:`STABLE_AGREEMENT`
    (docs/statistics.md §5.8)."""
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    if estimand not in ESTIMANDS:
        raise ValueError(f"estimand must be one of {', '.join(ESTIMANDS)}, got {estimand!r}")
    if not (isinstance(margin, (int, float)) and 0 < margin < 1):
        raise ValueError(f"margin must be a fraction in (0, 1) (0.02 = 2 pp), got {margin!r}")
    stats._check_confidence(confidence)
    known = run.known
    nat_share = run.natural.mean(axis=0)
    rows = []
    for name, (pre, ban) in run.arms.items():
        kind, level = known[name]
        d = run.strength_deals(name)
        ch = deals_changed(pre, ban)
        m, lo, hi = paired_interval(d, ch, confidence)
        dn = run.natural_deals(name)
        chn = deals_changed(run.natural, ban)
        nm, nlo, nhi = paired_interval(dn, chn, confidence)
        wp = _mean_ci(pre.mean(axis=0), confidence)
        wb = _mean_ci(ban.mean(axis=0), confidence)
        ga = _mean_ci(run.got[name], confidence)
        got_n = getattr(run, "got_natural", {}).get(name)
        gn = _mean_ci(got_n, confidence) if got_n is not None else (math.nan,) * 3
        pp = per_pick(dn, got_n, confidence) if got_n is not None else (math.nan,) * 3
        fpp = per_pick(d, run.got[name], confidence)     # per forced pick (prefer arm)
        e = dn - tolerance * (np.asarray(got_n, float) if got_n is not None else 0.0)
        f = d + tolerance * np.asarray(run.got[name], float)
        if chn == 0 and math.isfinite(pp[0]):
            # bought, yet no deal changed: not a precise zero but the zero-count bound of
            # the natural value (paired_interval) per pick, clipped to [-1, 1]
            a = float(np.mean(got_n))
            pp = (pp[0], max(-1.0, nlo / a), min(1.0, nhi / a))
        rows.append({"card": name, "kind": kind, "level": level,
                     "strength": m, "strength_lo": lo, "strength_hi": hi,
                     "strength_se": float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else math.nan,
                     "strength_sd": float(d.std(ddof=1)) if d.size > 1 else math.nan,
                     # the p-values: filled in below by verdict_rule
                     "p_value": math.nan, "p_equivalent": math.nan,
                     "natural_value": nm, "natural_lo": nlo, "natural_hi": nhi,
                     "natural_sd": float(dn.std(ddof=1)) if dn.size > 1 else math.nan,
                     "p_natural": math.nan, "p_natural_equivalent": math.nan,
                     "p_natural_below": math.nan,
                     "n_deals": int(d.size), "deals_changed": ch, "natural_deals_changed": chn,
                     "win_rate_prefer": wp[0], "win_rate_prefer_lo": wp[1], "win_rate_prefer_hi": wp[2],
                     "win_rate_ban": wb[0], "win_rate_ban_lo": wb[1], "win_rate_ban_hi": wb[2],
                     "acquired_rate": ga[0], "acquired_rate_lo": ga[1], "acquired_rate_hi": ga[2],
                     "natural_acquired_rate": gn[0], "natural_acquired_rate_lo": gn[1],
                     "natural_acquired_rate_hi": gn[2],
                     "per_pick_value": pp[0], "per_pick_lo": pp[1], "per_pick_hi": pp[2],
                     "forced_per_pick": fpp[0], "forced_per_pick_lo": fpp[1],
                     "forced_per_pick_hi": fpp[2],
                     "_e_mean": float(np.mean(e)), "_e_sd": _sd(e),
                     "_f_mean": float(np.mean(f)), "_f_sd": _sd(f),
                     "note": INDISTINGUISHABLE if ch == 0 else "",
                     "natural_note": INDISTINGUISHABLE if chn == 0 else ""})
    out = pd.DataFrame(rows)
    m_cards = len(rows)
    level = level_nat = confidence
    if rows:
        alpha = 1 - confidence
        pick = (((out["_e_mean"], out["_e_sd"], out["natural_deals_changed"]),
                 (out["_f_mean"], out["_f_sd"], out["deals_changed"]))
                if estimand != "prefer" else None)
        o = verdict_rule((out["strength"], out["strength_sd"], out["deals_changed"]),
                         (out["natural_value"], out["natural_sd"], out["natural_deals_changed"]),
                         run.deals, confidence, tolerance, correction, margin, estimand, pick)
        for k in ("p_value", "p_equivalent", "p_natural", "p_natural_equivalent",
                  "p_natural_below"):
            out[k] = o[k]
        out["p_adjusted"] = o["p_adjusted"]
        out["p_equivalent_adjusted"] = o["p_equivalent_adjusted"]
        level = _adjusted_level(correction, confidence, m_cards, int(o["reject"].sum()))
        # the natural value's band test, equivalence test and adjusted intervals
        out["p_natural_adjusted"] = o["p_natural_adjusted"]
        out["p_natural_equivalent_adjusted"] = o["p_natural_equivalent_adjusted"]
        level_nat = _adjusted_level(correction, confidence, m_cards,
                                    int(o["reject_natural"].sum()))
        out = out.drop(columns=["_e_mean", "_e_sd", "_f_mean", "_f_sd"])
        if o["reject_pick"] is not None:
            out["p_pick"] = o["p_pick"]
            out["p_pick_adjusted"] = o["p_pick_adjusted"]
            out["pick_direction"] = np.where(o["pick_over"], "over", "under")
        # the rationality check: natural value significantly below 0 (Holm)
        out["p_natural_below_adjusted"] = o["p_natural_below_adjusted"]
        out["natural_below_zero"] = o["below"]
        lo_adj, hi_adj, nlo_adj, nhi_adj = [], [], [], []
        for name in out["card"]:
            pre, ban = run.arms[name]
            _, a, b = paired_interval(run.strength_deals(name), deals_changed(pre, ban), level)
            lo_adj.append(a)
            hi_adj.append(b)
            _, a, b = paired_interval(run.natural_deals(name), deals_changed(run.natural, ban),
                                      level_nat)
            nlo_adj.append(a)
            nhi_adj.append(b)
        out["strength_lo_adj"], out["strength_hi_adj"] = lo_adj, hi_adj
        out["natural_lo_adj"], out["natural_hi_adj"] = nlo_adj, nhi_adj
        out["flag"] = o["flag"].tolist()
        out["verdict"] = o["verdict"].tolist()
        head, sd_col, ch_col = (("strength", "strength_sd", "deals_changed")
                                if estimand == "prefer" else
                                ("natural", "natural_sd", "natural_deals_changed"))
        # how often an identical rerun (or twin) would read the same verdict (§5.8)
        out["verdict_agreement"] = verdict_agreement(run, confidence, tolerance, correction,
                                                     margin, estimand, agreement_resamples)
        out["verdict_stable"] = pd.Series(     # True / False, None when not estimated
            [bool(a >= STABLE_AGREEMENT) if a == a else None for a in out["verdict_agreement"]],
            index=out.index, dtype=object)
        out["margin"] = margin
        out["players"] = run.players      # strength includes denial: per player count
        val = out["strength"] if head == "strength" else out["natural_value"]
        out["games_needed"] = [
            games_needed(sd, m, tolerance, margin, alpha / m_cards, run.players)
            if v == "inconclusive" and ch else math.nan
            for v, sd, m, ch in zip(out["verdict"], out[sd_col], val, out[ch_col])]
        src = {"value": val, "value_lo": out[f"{head}_lo"], "value_hi": out[f"{head}_hi"],
               "value_lo_adj": out[f"{head}_lo_adj"], "value_hi_adj": out[f"{head}_hi_adj"]}
        for k, v in src.items():
            out[k] = v.to_numpy(float)
        out = out.sort_values("value", ascending=False, ignore_index=True)
    nat = _mean_ci(nat_share, confidence) if run.deals > 1 else (math.nan,) * 3
    out.attrs.update(games_per_card=run.deals * run.players * 2, deals=run.deals,
                     players=run.players, seed=run.seed, baseline=run.baseline.name,
                     natural_win_rate=nat[0], natural_win_rate_lo=nat[1],
                     natural_win_rate_hi=nat[2], tolerance=tolerance, confidence=confidence,
                     correction=correction, adjusted_confidence=level,
                     natural_adjusted_confidence=level_nat, cards_tested=m_cards,
                     margin=margin, estimand=estimand,
                     rationality=rationality(out) if rows else None,
                     agreement_resamples=agreement_resamples,
                     stable_agreement=STABLE_AGREEMENT,
                     near_boundary=(int((out["verdict_agreement"] < STABLE_AGREEMENT).sum())
                                    if rows else 0))
    return out


def rationality(df: pd.DataFrame) -> dict:
    """The rationality check of a field (docs/statistics.md §5.6): a player who plays
    well is never hurt by one more option, so no card's natural value (natural − ban
    X) should be significantly below 0.  Returns ``{"cards_tested", "below_zero"
    (the count), "never_bought" (cards the field never bought: the check cannot see
    them, their natural value is 0 by construction) and "never_bought_cards", "sum"
    (of their natural values, a fraction), "cards": [{card,
    natural_value, natural_ci, p_adjusted}, ...] (most negative first),
    "correction"}`` from a strength frame's ``natural_below_zero`` column (one-sided
    paired t over the deals, Holm across the cards at the frame's confidence)."""
    below = df[df["natural_below_zero"].astype(bool)].sort_values("natural_value")
    # never bought by the field in the natural arm: natural and ban played the same
    # games, so the natural value is 0 by construction and the check cannot see the card
    never = (df["natural_acquired_rate"].to_numpy(float) == 0
             if "natural_acquired_rate" in df else df["natural_deals_changed"].to_numpy() == 0)
    return {"cards_tested": int(len(df)), "below_zero": int(len(below)),
            "never_bought": int(never.sum()),
            "never_bought_cards": [str(c) for c in df.loc[never, "card"]],
            "sum": float(below["natural_value"].sum()),
            "cards": [{"card": r.card, "natural_value": float(r.natural_value),
                       "natural_ci": [float(r.natural_lo), float(r.natural_hi)],
                       "p_adjusted": float(r.p_natural_below_adjusted)}
                      for r in below.itertuples()],
            "correction": RATIONALITY_CORRECTION}


def deals_for_precision(sd: float, halfwidth: float, confidence: float = 0.95,
                        minimum: int = 2) -> int:
    """Deals so that a paired t interval with per-deal SD ``sd`` has half-width
    ``halfwidth`` (normal quantile; at least ``minimum``)."""
    if halfwidth <= 0:
        raise ValueError(f"precision must be > 0, got {halfwidth}")
    if not sd > 0:
        return minimum
    return max(minimum, math.ceil((stats._z(confidence) * sd / halfwidth) ** 2))


def pilot_games(card_set=None, precision: float = 0.01, pilot: int = 400, players: int = 2,
                seed: int = 0, baseline="balanced", cards=None, rules=None,
                engine: str = "fast", workers: int = 1, confidence: float = 0.95,
                on_card=None, play=play_frame, game: str = DEFAULT_GAME) -> tuple[int, dict]:
    """Games per card (deals × players) for ``--precision``: a pilot of
    ``pilot`` games per card on an independent seed (``seed +
    PILOT_SEED_OFFSET``) estimates each card's per-deal SD of the strength
    difference; the largest SD sets the deals so that every raw interval
    reaches half-width ``precision`` (a fraction) in expectation.  The pilot's
    games are not reused: the main run's deals are fixed before any of them is
    played, so there is no optional stopping.  Returns (games, info)."""
    run = strength_run(card_set, pilot, players, offset_seed(seed, PILOT_SEED_OFFSET), baseline, cards,
                       rules, engine, workers, on_card, play, game)
    sds = {c: float(run.strength_deals(c).std(ddof=1)) for c in run.arms}
    sd = max(sds.values(), default=0.0)
    deals = deals_for_precision(sd, precision, confidence)
    return deals * players, {"pilot_games": run.deals * players, "pilot_seed": run.seed,
                             "pilot_sd_max": sd, "precision": precision}


def strength_table(card_set=None, games: int = 2000, players: int = 2, seed: int = 0,
                   baseline="balanced", cards=None, rules=None,
                   engine: str = "fast", workers: int = 1, confidence: float = 0.95,
                   tolerance: float = 0.05, correction: str = "fdr_bh",
                   precision: float | None = None, pilot: int = 400,
                   on_card: Callable[[int, int, str], None] | None = None,
                   play=play_frame, keep: dict | None = None, game: str = DEFAULT_GAME,
                   margin: float = DEFAULT_MARGIN,
                   estimand: str = DEFAULT_ESTIMAND) -> pd.DataFrame:
    """Card strength, one row per card, sorted by strength (by ``value``: the
    estimand's headline number; ``estimand`` see :func:`strength_frame`).

    Three focal arms on the same deals (common random numbers), the focal
    player rotated through every player index, against baseline opponents:
    **prefer X** (:func:`prefer_policy`), **ban X** (:func:`ban_policy`) and
    **natural** (the baseline).  Per deal the focal win shares are averaged
    over the rotations; the intervals are paired t intervals over deals.

    Columns: card, kind, level, ``strength`` = share(prefer) − share(ban)
    (``strength_lo``/``_hi``: raw interval; ``strength_lo_adj``/``_hi_adj``:
    adjusted for the number of cards tested, see :func:`_adjusted_level`),
    ``p_value``/``p_adjusted`` (H0: |strength| <= tolerance), ``natural_value``
    = natural − ban (``natural_lo``/``_hi``), ``n_deals``, ``deals_changed``
    (deals where the focal outcome differs between prefer and ban in some
    rotation; 0: the arms are indistinguishable by design, ``note`` says so and
    the interval is the zero-count bound of :func:`paired_interval`),
    ``natural_deals_changed``, ``win_rate_prefer``/``win_rate_ban`` and
    ``acquired_rate`` (prefer arm) with intervals, ``flag`` ("over" / "under"
    when the correction (``multipletests(method=correction)``) rejects H0,
    which happens exactly when the adjusted interval lies beyond the band for
    ``fdr_bh``), ``p_equivalent``/``p_equivalent_adjusted`` (TOST of
    |strength| < ``margin``, the same correction over the cards), ``verdict``
    ("over"/"under" = flagged; "balanced" = shown within ±``margin``;
    "inconclusive", with ``games_needed``: games per card and arm that would
    settle it at 80 % power if the estimate is right, nan when the estimate lies
    between the margin and the tolerance) and ``margin``.  A margin wider than
    the tolerance lets a card be both; the flag then wins.  ``games``: games per card and arm (deals × players);
    ``precision`` (a fraction): set them by :func:`pilot_games` instead.
    ``keep``: a dict that receives the :class:`StrengthRun` as ``keep["run"]``
    (the per-deal results, e.g. for :mod:`vale_sim.robustness`).
    """
    info = {}
    if precision is not None:
        games, info = pilot_games(card_set, precision, pilot, players, seed, baseline, cards,
                                  rules, engine, workers, confidence, None, play, game)
    run = strength_run(card_set, games, players, seed, baseline, cards, rules, engine, workers,
                       on_card, play, game)
    if keep is not None:
        keep["run"] = run
    out = strength_frame(run, confidence, tolerance, correction, margin, estimand)
    out.attrs.update(info)
    return out


def compare_strength(card_set=None, a: str = "", b: str = "", games: int = 2000,
                     players: int = 2, seed: int = 0, baseline="balanced",
                     rules=None, engine: str = "fast", workers: int = 1,
                     confidence: float = 0.95, run: StrengthRun | None = None,
                     play=play_frame, game: str = DEFAULT_GAME) -> dict:
    """strength(a) − strength(b) on the same deals, with a paired t interval
    over deals: ``{"a", "b", "difference", "difference_ci", "n_deals",
    "deals_changed", "strength_a", "strength_b"}``.  ``run``: reuse a
    :class:`StrengthRun` holding both cards."""
    if run is None or a not in run.arms or b not in run.arms:
        run = strength_run(card_set, games, players, seed, baseline, [a, b], rules, engine,
                           workers, play=play, game=game)
    da, db = run.strength_deals(a), run.strength_deals(b)
    (pa, ba), (pb, bb) = run.arms[a], run.arms[b]
    ch = int((np.any(pa != pb, axis=0) | np.any(ba != bb, axis=0)).sum())
    m, lo, hi = paired_interval(da - db, ch, confidence)
    return {"a": a, "b": b, "difference": m, "difference_ci": [lo, hi], "n_deals": int(da.size),
            "deals_changed": ch, "strength_a": float(da.mean()), "strength_b": float(db.mean()),
            "confidence": confidence, "note": INDISTINGUISHABLE if ch == 0 else ""}


def advancement_report(card_set=None, games: int = 2000, players: int = 2, seed: int = 0,
                       baseline="balanced", tolerance: float = 0.05, explore_permille: int = 300,
                       observational_games: int | None = None, cards=None,
                       rules=None, engine: str = "fast", workers: int = 1,
                       confidence: float = 0.95, paired: bool = True,
                       on_card: Callable[[int, int, str], None] | None = None,
                       play=play_frame, correction: str = "fdr_bh",
                       precision: float | None = None, pilot: int = 400,
                       keep: dict | None = None, game: str = DEFAULT_GAME,
                       margin: float = DEFAULT_MARGIN,
                       estimand: str = DEFAULT_ESTIMAND) -> pd.DataFrame:
    """Card strength and observational statistics per card, one row each,
    sorted by strength (or by lift when ``paired=False``).  ``tolerance`` is a
    fraction (0.05 = 5 pp).  ``keep``: see :func:`strength_table`.  See
    :func:`strength_table`, :func:`observational`."""
    g = _observing_game(game)
    if card_set is None:
        card_set = g.default_card_set
    if cards is not None:
        check_cards(resolve_card_set(card_set, players, game=g.name), cards, g)
    obs = observational(card_set, observational_games or games, players, seed, baseline,
                        explore_permille, rules, engine, workers, confidence, game=g.name)
    if cards is not None:
        obs = obs[obs["card"].isin(list(cards))].reset_index(drop=True)
    if not paired:
        out = obs.sort_values("lift", ascending=False, ignore_index=True)
    else:
        val = strength_table(card_set, games, players, seed, baseline, cards, rules, engine,
                             workers, confidence, tolerance, correction, precision, pilot,
                             on_card, play, keep, game=g.name, margin=margin,
                             estimand=estimand)
        out = val.merge(obs, on=["card", "kind", "level"], how="left")
        out.attrs.update(val.attrs)
    out.attrs.update(note=ASSOCIATION_NOTE, observational_games=obs.attrs["games"])
    return out


def report_records(df: pd.DataFrame) -> list[dict]:
    """JSON records: interval columns folded into ``<name>_ci`` pairs
    (``strength_ci``, ``strength_ci_adjusted`` from ``strength_lo_adj``/``_hi_adj``,
    ``natural_ci`` for ``natural_value``, ``lift_ci``, ``win_rate_acquired_ci``, ...)."""
    out = []
    for rec in json_records(df):
        folded = {}
        for k, v in rec.items():
            m = re.fullmatch(r"(.*)_(lo|hi)(_adj)?", k)
            base = m.group(1) if m else None
            if m and (base in rec or f"{base}_value" in rec):
                key = f"{base}_ci" + ("_adjusted" if m.group(3) else "")
                folded.setdefault(key, [None, None])[m.group(2) == "hi"] = v
            else:
                folded[k] = v
        if "natural_acquired_rate" in rec:          # the natural arm's acquisition share
            folded["acquired"] = rec["natural_acquired_rate"]
        out.append(folded)
    return out


# ---------------------------------------------------------------------------
# Settled or not: one verdict under the two strongest fields
# ---------------------------------------------------------------------------
class Settlement:
    """The verdicts of the same cards under two fields (:func:`settle`).

    ``table``: one row per card (order of ``a``): ``verdict_a``, ``verdict_b``,
    ``value_a``/``_lo``/``_hi`` and ``value_b``/..., ``change`` = value_b − value_a
    (``change_lo``/``_hi``: paired t over the shared deals when the runs are given,
    else nan), ``settled`` (the same verdict under both, and not inconclusive).
    ``rho``: Spearman rank correlation of the values; ``largest``: the row with the
    largest |change|; ``labels``: the two fields' names."""

    def __init__(self, table, rho, largest, labels):
        self.table, self.rho, self.largest, self.labels = table, rho, largest, labels

    def counts(self) -> dict:
        t = self.table
        flagged = t["verdict_a"].isin(["over", "under"])
        return {"cards": int(len(t)), "settled": int(t["settled"].sum()),
                "flagged": int(flagged.sum()),
                "flagged_settled": int((flagged & t["settled"]).sum())}

    def to_dict(self) -> dict:
        lg = self.largest
        return {"fields": list(self.labels), "rho": self.rho, **self.counts(),
                "largest_change": None if lg is None else {
                    "card": lg["card"], "change": float(lg["change"]),
                    "change_ci": [float(lg["change_lo"]), float(lg["change_hi"])],
                    "value_a": float(lg["value_a"]), "value_b": float(lg["value_b"])}}

    def sentence(self) -> str:
        a, b = self.labels
        c = self.counts()
        rho = "n/a" if not np.isfinite(self.rho) else f"{self.rho:.2f}"
        lg = self.largest
        n = ""
        if "n_deals_a" in self.table:
            n = f", n = {int(self.table['n_deals_a'].max()):,} deals under each"
        s = (f"Settled (the same verdict under {a} and {b}, not inconclusive): {c['settled']} "
             f"of {c['cards']} cards, {c['flagged_settled']} of the {c['flagged']} flagged "
             f"under {a}{n}; Spearman rank correlation of the values {rho}")
        if lg is not None:
            iv = (f", 95% CI [{100 * lg['change_lo']:+.1f}, {100 * lg['change_hi']:+.1f}]"
                  if np.isfinite(lg["change_lo"]) else "")
            s += (f"; the largest change is {lg['card']}, {100 * lg['value_a']:+.1f} pp under "
                  f"{a} and {100 * lg['value_b']:+.1f} pp under {b} ({100 * lg['change']:+.1f} "
                  f"pp{iv})")
        return s + "."


def settle(a: pd.DataFrame, b: pd.DataFrame, labels=None, runs=None,
           confidence: float = 0.95) -> Settlement:
    """Compare the verdicts of two strength frames of the same cards (e.g. under
    ``meta-2p`` and ``optimized-2p``): a verdict is **settled** only when it is the
    same under both and is not "inconclusive".  ``runs``: the two
    :class:`StrengthRun` behind the frames, on the same deals, for a paired interval
    of each card's change (of the estimand's value: the natural value for
    "natural", the strength for "prefer")."""
    from scipy.stats import spearmanr
    labels = tuple(labels or (a.attrs.get("baseline", "a"), b.attrs.get("baseline", "b")))
    est = a.attrs.get("estimand", DEFAULT_ESTIMAND)
    tb = b.set_index("card")
    missing = [c for c in a["card"] if c not in tb.index]
    if missing:
        raise ValueError(f"settle: cards missing from the second frame: {', '.join(missing)}")
    t = a[["card", "kind", "level"]].copy()
    t["verdict_a"] = a["verdict"].to_numpy()
    t["verdict_b"] = t["card"].map(tb["verdict"]).to_numpy()
    t["n_deals_a"] = a["n_deals"].to_numpy()
    t["n_deals_b"] = t["card"].map(tb["n_deals"]).to_numpy()
    for side, f in (("a", a.set_index("card")), ("b", tb)):
        for k in ("", "_lo", "_hi"):
            t[f"value_{side}{k}"] = t["card"].map(f[f"value{k}"]).to_numpy(float)
    t["change"] = t["value_b"] - t["value_a"]
    lo, hi = [], []
    for card in t["card"]:
        if runs is None or runs[0].deals != runs[1].deals:
            lo.append(math.nan)
            hi.append(math.nan)
            continue
        ra, rb = runs
        if est == "natural":
            da, db = ra.natural_deals(card), rb.natural_deals(card)
        else:
            da, db = ra.strength_deals(card), rb.strength_deals(card)
        _, x, y = paired_interval(db - da, int((da != db).sum()), confidence)
        lo.append(x)
        hi.append(y)
    t["change_lo"], t["change_hi"] = lo, hi
    t["settled"] = (t["verdict_a"] == t["verdict_b"]) & (t["verdict_a"] != "inconclusive")
    ok = np.isfinite(t["value_a"]) & np.isfinite(t["value_b"])
    va, vb = t.loc[ok, "value_a"], t.loc[ok, "value_b"]
    rho = (float(spearmanr(va, vb).statistic)
           if ok.sum() > 2 and va.nunique() > 1 and vb.nunique() > 1 else math.nan)
    largest = t.loc[t["change"].abs().idxmax()] if len(t) else None
    return Settlement(t.reset_index(drop=True), rho, largest, labels)
