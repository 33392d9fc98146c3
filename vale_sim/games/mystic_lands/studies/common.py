"""Building blocks of the settings studies: rule variants played on common deals,
per-game outcomes, paired differences and equivalence tests.

Every variant of a study plays games ``0 .. deals-1`` of the same seed, so a
deal (game index) has the same shuffles, Druid deal, market and starting
player under every variant; differences are taken deal by deal
(:func:`paired`), and every interval over games that share a deal (the seatings of one line-up,
:func:`vale_sim.seating.seatings`) is clustered by deal
(:func:`vale_sim.stats.cluster_ratio`).
"""
from __future__ import annotations

import dataclasses
import math
import sys

import numpy as np
import pandas as pd

from vale_sim import stats
from vale_sim.inputs import parse_int
from vale_sim.io import json_records, jsonable
from vale_sim.games import get_game
from vale_sim.seating import seatings, slots
from vale_sim.tournament import play_frame

GAME = "mystic-lands"
CONFIDENCE = 0.95


class StudyError(ValueError):
    """A study setting a user gave is invalid; the text is one line."""


ENGINES = ("auto", "fast", "reference")


def resolve_engine(engine: str = "auto", game: str = GAME) -> str:
    """"auto": the fast engine when the game has one and numba works, else the
    reference engine; "fast"/"reference" as given (a game without a fast engine
    asked for "fast" is the runner's one-line error)."""
    if engine not in ENGINES:
        raise StudyError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine != "auto":
        return engine
    from vale_sim.runner import fast_available
    return "fast" if fast_available(game) else "reference"


def variant_rules(changes: dict, game: str = GAME, base=None, where: str = "variant"):
    """The game's rule options with ``changes`` (option -> value) applied to ``base``
    (default: the manual's game).  Unknown options or bad values: one-line StudyError."""
    g = get_game(game)
    base = base if base is not None else g.rules_class()
    names = [f.name for f in dataclasses.fields(g.rules_class)]
    clean = {}
    for k, v in dict(changes).items():
        if k not in names:
            raise StudyError(f"{where}: unknown rule option {k!r} of {g.name} "
                             f"(known: {', '.join(names)})")
        clean[k] = tuple(v) if isinstance(v, list) else v
    try:
        return dataclasses.replace(base, **clean)
    except (TypeError, ValueError) as e:
        raise StudyError(f"{where}: {str(e).removeprefix('rules: ')}") from None


def check_count(name: str, v, least: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < least:
        raise StudyError(f"{name} must be a whole number >= {least}, got {v!r}")
    from vale_sim.limits import MAX_COUNT, count_problem
    if v > MAX_COUNT:                  # the one cap (vale_sim.limits)
        raise StudyError(f"{name}: {count_problem(v, least, 'deals' if 'deals' in name else 'games')}")
    return v


def check_players(players, game: str = GAME) -> tuple:
    allowed = tuple(get_game(game).players)
    ps = tuple(players)
    if not ps or any(p not in allowed for p in ps):
        raise StudyError(f"players must be among {', '.join(map(str, allowed))}, got "
                         f"{', '.join(map(str, ps)) or 'none'}")
    return tuple(sorted(set(ps)))


def parse_players(spec) -> tuple:
    """``"2,3,4"`` or ``[2, 3]`` -> a sorted tuple (one-line StudyError)."""
    if isinstance(spec, str):
        try:
            spec = [parse_int(x, negative=True) for x in spec.split(",") if x.strip()]
        except ValueError:
            raise StudyError(f"players must be a comma-separated list such as 2,3,4, "
                             f"got {spec!r}") from None
    return check_players(spec)


def _bar(total: int, desc: str, progress: bool):
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit="game", leave=False, file=sys.stderr,
                disable=not progress or not sys.stderr.isatty())


def lineup_roles(policies, roles=None, game: str = GAME) -> tuple:
    """The seating labels of a line-up: ``roles`` (one per place, e.g. ``("focal",
    "field", "field")``: places with equal roles must hold equal policies) or,
    by default, the policies' names -- two places with one policy are then
    interchangeable.  One-line StudyError for two different policies of one
    name or roles that do not fit."""
    g = get_game(game)
    try:
        pols = [g.get_policy(p) for p in policies]
    except ValueError as e:
        raise StudyError(str(e)) from None
    labels = tuple(roles) if roles is not None else tuple(p.name for p in pols)
    if len(labels) != len(pols):
        raise StudyError(f"roles: {len(labels)} roles for a line-up of {len(pols)} policies")
    seen = {}
    for lab, p in zip(labels, pols):
        if seen.setdefault(lab, p) != p:
            raise StudyError(f"line-up: two different policies share the "
                             f"{'role' if roles is not None else 'name'} {lab!r}: rename one")
    return labels


def play_variants(variants: dict, players: int, deals: int, seed: int, policies=("balanced",),
                  rotate: bool = False, card_set=None, engine: str = "fast", workers: int = 1,
                  game: str = GAME, progress: bool = True, desc: str = "",
                  roles=None) -> pd.DataFrame:
    """Play deals ``0 .. deals-1`` of ``seed`` once per variant (label -> rules).

    ``policies``: 1 policy (everyone plays it) or a line-up of ``players``;
    ``rotate``: play every deal once per seating of the line-up
    (:func:`vale_sim.seating.seatings`: every distinct ordering of its policies
    -- 24 for four different ones, 6 for three, ``players`` for one focal
    player against copies of one policy -- in a canonical order), so each
    policy sits in every seat, and right after every other policy, equally
    often, whatever order the line-up was listed in.  ``roles``: the seating
    labels (:func:`lineup_roles`; default the policy names), e.g.
    ``("focal", "field")`` to seat a focal player through every seat even when
    it plays the field's policy.  Returns the per-game/player frame with
    columns ``variant``, ``rotation`` (the seating's index), ``deal`` (= game
    index) and ``slot`` (the player's place in ``policies``; copies of one
    label take that label's places in order).
    """
    g = get_game(game)
    cs = g.load_card_set(card_set if card_set is not None else g.default_card_set)
    g.validate_playable(cs, players)
    engine = resolve_engine(engine, g.name)
    lineup = tuple(policies)
    if rotate and len(lineup) > 1:
        labels = lineup_roles(lineup, roles, g.name)
        design = [slots(labels, s) for s in seatings(labels)]
    else:
        design = [list(range(len(lineup)))]
    bar = _bar(len(variants) * len(design) * deals, desc or f"{players} players", progress)
    frames = []
    try:
        for label, rules in variants.items():
            for r, places in enumerate(design):
                df = play_frame(cs, players, seed, deals, [lineup[k] for k in places], rules,
                                engine, workers, game=g.name)
                df.insert(0, "rotation", r)
                df.insert(0, "variant", label)
                df["deal"] = df["game"].astype(int)
                player = df["player"].astype(int).to_numpy()
                # one policy for everyone: the player index; else its place in the line-up
                df["slot"] = np.asarray(places)[player] if len(lineup) > 1 else player
                frames.append(df)
                bar.update(deals)
    finally:
        bar.close()
    return pd.concat(frames, ignore_index=True)


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


def estimate_row(prefix: str, e: stats.Estimate) -> dict:
    return {prefix: e.value, f"{prefix}_lo": e.lo, f"{prefix}_hi": e.hi}


def mean_by_deal(values, deals, nonnegative: bool = True) -> stats.Estimate:
    """Mean of ``values`` with an interval clustered by deal (clipped at 0 for a
    measure that cannot be negative: rounds, scores, counts)."""
    return stats.cluster_ratio(np.asarray(values, float), None, np.asarray(deals),
                               bounds=(0.0, math.inf) if nonnegative else None)


def ratio_by_deal(num, den, deals) -> stats.Estimate:
    """``Σnum / Σden`` (e.g. withers per turn) clustered by deal, within [0, 1]."""
    return stats.cluster_ratio(np.asarray(num, float), np.asarray(den, float), np.asarray(deals),
                               bounds=(0.0, 1.0))


def rate_by_deal(values, deals) -> stats.Estimate:
    """A rate (values in [0, 1]) with an interval clustered by deal."""
    return stats.cluster_rate(np.asarray(values, float), np.asarray(deals))


def deal_means(values, deals) -> pd.Series:
    """Per deal, the mean of ``values`` (e.g. over seat rotations): index deal."""
    return pd.Series(np.asarray(values, float)).groupby(np.asarray(deals)).mean()


def paired(a: pd.Series, b: pd.Series, confidence: float = CONFIDENCE,
           bound: float | None = None) -> stats.PairedDifference:
    """``a - b`` over the deals both have (Series indexed by deal): paired t interval.

    When no deal changed at all, the t interval would be the point [0, 0] -- a
    statement about these deals, not about the setting.  With ``bound`` (the
    largest possible size of one deal's difference: 1 for win shares) the
    interval is then the bound a zero count allows, ``±bound·u`` with
    ``u = 1 - (1 - confidence)^(1/n)`` (the share of deals a change could touch,
    Clopper-Pearson, as in vale_sim.advancements.paired_interval)."""
    common = a.index.intersection(b.index)
    x, y = a.loc[common].to_numpy(float), b.loc[common].to_numpy(float)
    d = stats.paired_difference(x, y, confidence)
    if bound is not None and d.n and (d.n < 2 or d.sd == 0):
        # every deal moved by the same amount (often 0): no spread seen, so the
        # t interval would be a point.  Bound the share of deals that could
        # differ instead; one deal's difference can move by at most 2*bound.
        u = 1.0 - (1.0 - confidence) ** (1.0 / d.n)
        lo = max(-bound, d.mean - 2 * bound * u) if d.mean else -bound * u
        hi = min(bound, d.mean + 2 * bound * u) if d.mean else bound * u
        d = dataclasses.replace(d, lo=lo, hi=hi, method="zero-count bound")
    return d


def paired_row(prefix: str, d: stats.PairedDifference) -> dict:
    return {prefix: d.mean, f"{prefix}_lo": d.lo, f"{prefix}_hi": d.hi}


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


def bootstrap_by_deal(stat, deals, reps: int = 1000, seed: int = 0, confidence: float = CONFIDENCE
                      ) -> tuple[float, float]:
    """Percentile interval of ``stat(sample_of_deals)`` over ``reps`` resamples of whole
    deals (``deals``: the distinct deal labels; ``stat`` takes an array of them)."""
    rng = np.random.default_rng(seed)
    deals = np.asarray(deals)
    vals = np.array([stat(rng.choice(deals, size=deals.size, replace=True)) for _ in range(reps)])
    vals = vals[np.isfinite(vals)]
    if not vals.size:
        return math.nan, math.nan
    a = (1 - confidence) / 2
    return float(np.quantile(vals, a)), float(np.quantile(vals, 1 - a))


clean = jsonable           # JSON-ready: numpy to Python, nan/inf to None (vale_sim.io)
records = json_records     # a DataFrame as JSON-ready records
