"""Rule variants played on common deals, and the paired comparisons over them
(game-neutral: any game; a game's settings studies build on it, each passing its
game).

Every variant plays games ``0 .. deals-1`` of the same seed, so a deal (game
index) has the same shuffles and starting player under every variant;
differences are taken deal by deal (:func:`paired`), and every interval over
games that share a deal (the seatings of one line-up,
:func:`vale_sim.seating.seatings`) is clustered by deal
(:func:`vale_sim.stats.cluster_ratio`).
"""
from __future__ import annotations

import dataclasses
import math
import sys

import numpy as np
import pandas as pd

from . import stats
from .games import DEFAULT_GAME, get_game
from .inputs import parse_int
from .seating import seatings, slots
from .tournament import play_frame

CONFIDENCE = 0.95


class VariantError(ValueError):
    """A study setting a user gave is invalid; the text is one line."""


ENGINES = ("auto", "fast", "reference")


def resolve_engine(engine: str, game) -> str:
    """"auto": the fast engine when the game has one and numba works, else the
    reference engine; "fast"/"reference" as given (a game without a fast engine
    asked for "fast" is the runner's one-line error)."""
    if engine not in ENGINES:
        raise VariantError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine != "auto":
        return engine
    from vale_sim.runner import fast_available
    return "fast" if fast_available(game) else "reference"


def variant_rules(changes: dict, game, base=None, where: str = "variant"):
    """The game's rule options with ``changes`` (option -> value) applied to ``base``
    (default: the manual's game).  Unknown options or bad values: one-line VariantError."""
    g = get_game(game)
    base = base if base is not None else g.rules_class()
    names = [f.name for f in dataclasses.fields(g.rules_class)]
    clean = {}
    for k, v in dict(changes).items():
        if k not in names:
            raise VariantError(f"{where}: unknown rule option {k!r} of {g.name} "
                               f"(known: {', '.join(names)})")
        clean[k] = tuple(v) if isinstance(v, list) else v
    try:
        return dataclasses.replace(base, **clean)
    except (TypeError, ValueError) as e:
        raise VariantError(f"{where}: {str(e).removeprefix('rules: ')}") from None


def check_count(name: str, v, least: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < least:
        raise VariantError(f"{name} must be a whole number >= {least}, got {v!r}")
    from vale_sim.limits import MAX_COUNT, count_problem
    if v > MAX_COUNT:                  # the one cap (vale_sim.limits)
        raise VariantError(f"{name}: {count_problem(v, least, 'deals' if 'deals' in name else 'games')}")
    return v


def check_players(players, game) -> tuple:
    allowed = tuple(get_game(game).players)
    ps = tuple(players)
    if not ps or any(p not in allowed for p in ps):
        raise VariantError(f"players must be among {', '.join(map(str, allowed))}, got "
                           f"{', '.join(map(str, ps)) or 'none'}")
    return tuple(sorted(set(ps)))


def parse_players(spec, game) -> tuple:
    """``"2,3,4"`` or ``[2, 3]`` -> a sorted tuple (one-line VariantError)."""
    if isinstance(spec, str):
        try:
            spec = [parse_int(x, negative=True) for x in spec.split(",") if x.strip()]
        except ValueError:
            raise VariantError(f"players must be a comma-separated list such as 2,3,4, "
                               f"got {spec!r}") from None
    return check_players(spec, game)


def _bar(total: int, desc: str, progress: bool):
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit="game", leave=False, file=sys.stderr,
                disable=not progress or not sys.stderr.isatty())


def lineup_roles(policies, roles, game) -> tuple:
    """The seating labels of a line-up: ``roles`` (one per place, e.g. ``("focal",
    "field", "field")``: places with equal roles must hold equal policies) or,
    by default, the policies' names -- two places with one policy are then
    interchangeable.  One-line VariantError for two different policies of one
    name or roles that do not fit."""
    g = get_game(game)
    try:
        pols = [g.get_policy(p) for p in policies]
    except ValueError as e:
        raise VariantError(str(e)) from None
    labels = tuple(roles) if roles is not None else tuple(p.name for p in pols)
    if len(labels) != len(pols):
        raise VariantError(f"roles: {len(labels)} roles for a line-up of {len(pols)} policies")
    seen = {}
    for lab, p in zip(labels, pols):
        if seen.setdefault(lab, p) != p:
            raise VariantError(f"line-up: two different policies share the "
                               f"{'role' if roles is not None else 'name'} {lab!r}: rename one")
    return labels


def play_variants(variants: dict, players: int, deals: int, seed: int, policies=None,
                  rotate: bool = False, card_set=None, engine: str = "fast", workers: int = 1,
                  game=DEFAULT_GAME, progress: bool = True, desc: str = "",
                  roles=None) -> pd.DataFrame:
    """Play deals ``0 .. deals-1`` of ``seed`` once per variant (label -> rules).

    ``policies``: 1 policy (everyone plays it; default the game's default policy) or a
    line-up of ``players``;
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
    lineup = tuple(policies) if policies is not None else (g.default_policy,)
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
# Estimates over deals
# ---------------------------------------------------------------------------
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
# Resampling deals
# ---------------------------------------------------------------------------
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
