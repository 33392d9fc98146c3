"""Building blocks of the settings studies: rule variants played on common deals,
per-game outcomes, paired differences and equivalence tests.

The game-neutral part -- variants played on common deals over the seatings of a
line-up, estimates clustered by deal, paired differences, the deal bootstrap --
is :mod:`vale_sim.variants` (re-exported here, with this game as the default);
what is Mystic Lands' own stays: the per-game outcomes (:func:`per_game`, the end
trigger of :func:`trigger_kind`) and the names the studies use for the shared
tests (:func:`tost`, :func:`holm`, :func:`deals_needed`).

Every variant of a study plays games ``0 .. deals-1`` of the same seed, so a
deal (game index) has the same shuffles, Druid deal, market and starting
player under every variant; differences are taken deal by deal
(:func:`paired`), and every interval over games that share a deal (the seatings of one line-up,
:func:`vale_sim.seating.seatings`) is clustered by deal
(:func:`vale_sim.stats.cluster_ratio`).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from vale_sim import stats
from vale_sim import variants as V
from vale_sim.io import json_records, jsonable
from vale_sim.variants import (CONFIDENCE, ENGINES, VariantError, bootstrap_by_deal,  # noqa: F401
                               check_count, deal_means, estimate_row, mean_by_deal, paired,
                               paired_row, rate_by_deal, ratio_by_deal)

GAME = "mystic-lands"


#: A study setting a user gave is invalid (one line): the shared layer's error, so
#: that ``except StudyError`` catches what vale_sim.variants raises.
StudyError = VariantError


# ---------------------------------------------------------------------------
# The shared variant play (vale_sim.variants) with this game as the default
# ---------------------------------------------------------------------------
def resolve_engine(engine: str = "auto", game: str = GAME) -> str:
    """:func:`vale_sim.variants.resolve_engine` (default this game)."""
    return V.resolve_engine(engine, game)


def variant_rules(changes: dict, game: str = GAME, base=None, where: str = "variant"):
    """:func:`vale_sim.variants.variant_rules` (default this game)."""
    return V.variant_rules(changes, game, base, where)


def check_players(players, game: str = GAME) -> tuple:
    """:func:`vale_sim.variants.check_players` (default this game)."""
    return V.check_players(players, game)


def parse_players(spec) -> tuple:
    """``"2,3,4"`` or ``[2, 3]`` -> a sorted tuple of this game's player counts."""
    return V.parse_players(spec, GAME)


def lineup_roles(policies, roles=None, game: str = GAME) -> tuple:
    """:func:`vale_sim.variants.lineup_roles` (default this game)."""
    return V.lineup_roles(policies, roles, game)


def play_variants(variants: dict, players: int, deals: int, seed: int, policies=("balanced",),
                  rotate: bool = False, card_set=None, engine: str = "fast", workers: int = 1,
                  game: str = GAME, progress: bool = True, desc: str = "",
                  roles=None) -> pd.DataFrame:
    """:func:`vale_sim.variants.play_variants` (default this game, every seat ``balanced``)."""
    return V.play_variants(variants, players, deals, seed, policies, rotate, card_set, engine,
                           workers, game, progress, desc, roles)


# ---------------------------------------------------------------------------
# Per-game outcomes
# ---------------------------------------------------------------------------
def trigger_kind(frame: pd.DataFrame, rules_by_variant: dict) -> pd.Series:
    """Per game (index: variant, rotation, deal): what ended it -- "VP", "cubes",
    "both", "none" (truncated at the round cap) or "unclear" (neither holds at the end).

    Reconstructed from the final frame: the triggering player plays no turn
    after their trigger, so their cube count is the one at the trigger and
    their VP then is the track VP without the +bonus, plus whatever the same
    Dusk added (rare: the report names this as a reconstruction)."""
    t = frame[frame["triggered_end"].astype(bool)]
    out = {}
    for r in t.itertuples():
        rules = rules_by_variant[r.variant]
        vp = (r.track_vp - r.bonus_vp) >= rules.end_vp
        cubes = r.cubes >= rules.end_cubes
        out[(r.variant, r.rotation, r.deal)] = "both" if vp and cubes else "VP" if vp else \
            "cubes" if cubes else "unclear"
    games = frame.groupby(["variant", "rotation", "deal"], sort=False).size().index
    return pd.Series([out.get(k, "none") for k in games], index=games, name="trigger")


def per_game(frame: pd.DataFrame, rules_by_variant: dict | None = None) -> pd.DataFrame:
    """One row per game (variant, rotation, deal): players, rounds, truncated,
    the winner's score margin over the runner-up, the triggering player's win
    share and seat, and (with ``rules_by_variant``) the trigger kind."""
    keys = ["variant", "rotation", "deal"]
    f = frame.reset_index(drop=True)
    # vectorised over games (a 4-player line-up plays 24 seatings per deal): games
    # numbered in order of first appearance, as a groupby(sort=False) loop would
    gid = f.groupby(keys, sort=False).ngroup().to_numpy()
    n_games = int(gid.max()) + 1 if len(f) else 0
    first = np.unique(gid, return_index=True)[1]                 # each game's first row
    size = np.bincount(gid, minlength=n_games)
    score = f["score"].to_numpy(float)
    order = np.lexsort((-score, gid))                            # by game, best score first
    start = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(int)
    top = score[order][start]
    second = score[order][np.minimum(start + 1, len(f) - 1)]
    trig = np.flatnonzero(f["triggered_end"].astype(bool).to_numpy())
    tg, ti = np.unique(gid[trig], return_index=True)             # first triggering row per game
    trigger_win = np.full(n_games, math.nan)
    trigger_win[tg] = f["win_share"].to_numpy(float)[trig[ti]]
    trigger_seat = np.full(n_games, -1, dtype=np.int64)
    trigger_seat[tg] = f["seat"].to_numpy()[trig[ti]]
    out = pd.DataFrame({
        "variant": f["variant"].to_numpy()[first], "rotation": f["rotation"].to_numpy()[first],
        "deal": f["deal"].to_numpy()[first], "players": size.astype(np.int64),
        "rounds": f["rounds"].to_numpy()[first].astype(np.int64),
        "truncated": f["truncated"].to_numpy()[first].astype(bool),
        "margin": np.where(size > 1, top - second, math.nan),
        "trigger_win": trigger_win, "trigger_seat": trigger_seat})
    if rules_by_variant is not None and len(out):
        kinds = trigger_kind(frame, rules_by_variant)
        out["trigger"] = [kinds[(r.variant, r.rotation, r.deal)] for r in out.itertuples()]
    return out


# ---------------------------------------------------------------------------
# Equivalence and multiplicity
# ---------------------------------------------------------------------------
def tost(diff: float, se: float, margin: float, df: float | None = None
         ) -> tuple[float, tuple[float, float]]:
    """Two one-sided tests of ``|true difference| < margin``: :func:`vale_sim.stats.tost`
    (``(p, 90% interval)``; ``se == 0`` is decided by the point estimate)."""
    return stats.tost(diff, se, margin, df)


def holm(pvalues, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down correction: ``(reject, adjusted p)`` (:func:`vale_sim.stats.adjust_pvalues`)."""
    return stats.adjust_pvalues(pvalues, "holm", alpha)


def deals_needed(sd: float, gap: float, margin: float, alpha: float, power: float = 0.8) -> float:
    """Deals for a TOST at level ``alpha`` to pass with probability ``power`` when the
    true difference is ``gap`` and one deal's outcome has standard deviation ``sd``
    (:func:`vale_sim.stats.n_for_equivalence`).  Infinite when ``|gap| >= margin``."""
    return stats.n_for_equivalence(sd, gap, margin, alpha, power)


clean = jsonable           # JSON-ready: numpy to Python, nan/inf to None (vale_sim.io)
records = json_records     # a DataFrame as JSON-ready records
