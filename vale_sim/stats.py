"""Honest statistics for simulated games: rates with intervals, paired
differences, Bradley–Terry strengths.

Every rate an analysis reports comes with its sample size and an interval;
the helpers here are the one place those intervals are computed.  See
docs/statistics.md for which interval is used where and why.

Outcomes in [0, 1] that are not 0/1
-----------------------------------
A win shared by ``k`` players counts ``1/k`` to each (``win_share``), so a
"number of wins" may be fractional.  The binomial intervals below take the
fractional count as it is: ``p̂ = successes / n`` goes into the same formula.
An outcome in [0, 1] with mean ``p`` has variance at most ``p(1 - p)``
(equality only for 0/1 outcomes), so treating it as binomial over-states the
variance: the interval is, if anything, a little too wide — conservative,
never too narrow.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, asdict

import numpy as np

PROPORTION_METHODS = ("wilson", "exact")


@functools.lru_cache(maxsize=64)
def _z(confidence: float) -> float:
    from scipy.stats import norm
    _check_confidence(confidence)
    return float(norm.ppf(0.5 + confidence / 2))


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def _check_counts(successes: float, n: float) -> None:
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes!r}, n={n!r}")


def wilson_interval(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion: ``(lo, hi)``.

    ``successes`` may be fractional (shared wins counted ``1/k``; see the
    module docstring: the interval is then conservative).  ``n == 0`` gives
    ``(nan, nan)``: no games, no estimate.
    """
    if n <= 0:
        return (math.nan, math.nan)
    _check_counts(successes, n)
    z = _z(confidence)
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
    # Clamp rounding noise; at p = 0 (or 1) the bound is exactly 0 (or 1).
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def clopper_pearson_interval(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) interval for a proportion: ``(lo, hi)``.

    Guaranteed coverage of at least ``confidence`` for 0/1 outcomes (usually
    more: it is conservative).  Fractional ``successes`` use the continuous
    extension of the beta quantiles.
    """
    from scipy.stats import beta
    if n <= 0:
        return (math.nan, math.nan)
    _check_counts(successes, n)
    _check_confidence(confidence)
    a = 1 - confidence
    lo = 0.0 if successes == 0 else float(beta.ppf(a / 2, successes, n - successes + 1))
    hi = 1.0 if successes == n else float(beta.ppf(1 - a / 2, successes + 1, n - successes))
    return (lo, hi)


def proportion_interval(successes: float, n: float, confidence: float = 0.95,
                        method: str = "wilson") -> tuple[float, float]:
    """Interval for a proportion by ``method``: "wilson" (default) or "exact"."""
    if method == "wilson":
        return wilson_interval(successes, n, confidence)
    if method == "exact":
        return clopper_pearson_interval(successes, n, confidence)
    raise ValueError(f"method must be one of {PROPORTION_METHODS}, got {method!r}")


@dataclass(frozen=True)
class Rate:
    """A proportion with its sample size and interval."""
    successes: float
    n: int
    rate: float        # successes / n (nan when n == 0)
    lo: float
    hi: float
    confidence: float = 0.95

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return format_rate(self)


def rate(successes: float, n: int, confidence: float = 0.95, method: str = "wilson") -> Rate:
    """A :class:`Rate`: ``successes / n`` with its interval."""
    lo, hi = proportion_interval(successes, n, confidence, method)
    r = successes / n if n else float("nan")
    return Rate(float(successes), int(n), float(r), lo, hi, confidence)


def format_rate(r: Rate, digits: int = 1) -> str:
    """``"52.3% [49.2, 55.4] n=1000"`` (percent)."""
    if r.n == 0:
        return "—  n=0"
    return f"{100 * r.rate:.{digits}f}% [{100 * r.lo:.{digits}f}, {100 * r.hi:.{digits}f}] n={r.n}"


@dataclass(frozen=True)
class PairedDifference:
    """Mean of paired differences ``a_i - b_i`` with standard error and interval."""
    mean: float
    se: float
    lo: float
    hi: float
    n: int
    sd: float
    confidence: float = 0.95
    method: str = "t"

    def to_dict(self) -> dict:
        return asdict(self)


def paired_difference(a, b, confidence: float = 0.95, method: str = "t") -> PairedDifference:
    """Mean difference of paired outcomes ``a[i] - b[i]`` and its interval.

    Use it when ``a[i]`` and ``b[i]`` come from the same game ``i`` (same seed
    and game index: the same shuffles and commons — common random numbers), so
    the shared luck cancels in the difference.  ``method`` "t" (Student t with
    ``n - 1`` degrees of freedom, default) or "normal".  With fewer than two
    pairs the interval is ``(nan, nan)``; when all differences are equal the
    standard error is 0 and the interval is that single point.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a and b must be 1-d of the same length, got {a.shape} and {b.shape}")
    if method not in ("t", "normal"):
        raise ValueError(f"method must be 't' or 'normal', got {method!r}")
    _check_confidence(confidence)
    d = a - b
    n = d.size
    if n == 0:
        nan = float("nan")
        return PairedDifference(nan, nan, nan, nan, 0, nan, confidence, method)
    mean = float(d.mean())
    if n < 2:
        nan = float("nan")
        return PairedDifference(mean, nan, nan, nan, n, nan, confidence, method)
    sd = float(d.std(ddof=1))
    se = sd / math.sqrt(n)
    if method == "t":
        q = t_quantile(0.5 + confidence / 2, n - 1)
    else:
        q = _z(confidence)
    return PairedDifference(mean, se, mean - q * se, mean + q * se, n, sd, confidence, method)


def two_proportion_diff(s1: float, n1: float, s2: float, n2: float, confidence: float = 0.95,
                        method: str = "newcombe") -> tuple[float, float, float]:
    """Difference of two independent proportions ``s1/n1 - s2/n2``: ``(diff, lo, hi)``.

    ``method`` "newcombe" (default): Newcombe's hybrid score interval (method
    10 of Newcombe 1998), built from the two Wilson intervals; good coverage
    even near 0 or 1 and for small ``n``.  "wald": ``diff ± z·se`` with the
    unpooled standard error — caveat: it under-covers when a rate is near 0
    or 1 or a sample is small, and can leave [-1, 1]; use only for large,
    mid-range samples.  The two samples must be independent; for outcomes
    paired by game use :func:`paired_difference`.
    """
    if n1 <= 0 or n2 <= 0:
        return (math.nan, math.nan, math.nan)
    _check_counts(s1, n1)
    _check_counts(s2, n2)
    p1, p2 = s1 / n1, s2 / n2
    d = p1 - p2
    if method == "newcombe":
        l1, u1 = wilson_interval(s1, n1, confidence)
        l2, u2 = wilson_interval(s2, n2, confidence)
        lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
        hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
        return (d, lo, hi)
    if method == "wald":
        z = _z(confidence)
        se = math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
        return (d, d - z * se, d + z * se)
    raise ValueError(f"method must be 'newcombe' or 'wald', got {method!r}")


def games_for_halfwidth(halfwidth: float, p: float = 0.5, confidence: float = 0.95) -> int:
    """Games needed for a normal-approximation interval of ``±halfwidth`` at rate ``p``.

    ``halfwidth`` is a proportion (0.02 for ±2 percentage points).  p = 0.5
    is the worst case.  For paired differences, divide by the variance
    reduction the pairing brings (see docs/statistics.md).
    """
    z = _z(confidence)
    return int(math.ceil(z * z * p * (1 - p) / halfwidth ** 2))


# ---------------------------------------------------------------------------
# Bradley–Terry
# ---------------------------------------------------------------------------

ELO_PER_LOG = 400 / math.log(10)    # Elo points per unit of log strength


def fit_bradley_terry(wins, prior: float = 0.5, tol: float = 1e-10,
                      max_iter: int = 10_000) -> np.ndarray:
    """Log strengths ``θ`` (mean 0) maximising the Bradley–Terry likelihood.

    ``wins[i, j]`` is how often ``i`` beat ``j`` (fractional allowed: a tie
    counts 1/2 to each).  Model: ``P(i beats j) = 1 / (1 + exp(θ_j - θ_i))``.
    ``prior`` adds that many pseudo-wins each way to every pair that met, so
    the fit stays finite when a policy never (or always) wins; it shrinks
    toward equal strength by ``prior`` drawn games per pair — negligible at
    tournament sizes.  Fitted by Hunter's (2004) MM algorithm.
    """
    w = np.array(wins, dtype=float)
    k = w.shape[0]
    if w.ndim != 2 or w.shape != (k, k):
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    if (w < 0).any():
        raise ValueError("wins must be non-negative")
    np.fill_diagonal(w, 0.0)
    n = w + w.T
    w = w + prior * (n > 0)
    n = w + w.T
    total = w.sum(axis=1)
    if (n.sum(axis=1) == 0).any():
        raise ValueError("every policy must have played at least one comparison")
    if prior == 0 and ((total == 0).any() or (total == n.sum(axis=1)).any()):
        raise ValueError("a policy won none or all of its games: use prior > 0")
    p = np.ones(k)
    for _ in range(max_iter):
        denom = (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = total / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    theta = np.log(p)
    return theta - theta.mean()


def _bt_covariance(theta: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Covariance of mean-zero log strengths from the observed Fisher information.

    The information matrix is a weighted graph Laplacian (rank k-1 when the
    comparison graph is connected); its pseudo-inverse is the covariance of
    the estimate under the sum-zero constraint.
    """
    pi = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))     # P(i beats j)
    wgt = n * pi * pi.T
    np.fill_diagonal(wgt, 0.0)
    info = np.diag(wgt.sum(axis=1)) - wgt
    return np.linalg.pinv(info)


def bradley_terry(wins, names=None, confidence: float = 0.95, method: str = "fisher",
                  n_boot: int = 1000, seed: int = 0, prior: float = 0.5, strata=None,
                  clusters=None):
    """Bradley–Terry strengths with intervals, as a DataFrame sorted by strength.

    ``wins`` is either a ``(k, k)`` matrix (``wins[i, j]``: times ``i`` beat
    ``j``; ties 1/2 each) or a ``(games, k, k)`` array holding each game's
    contribution, so a bootstrap can resample whole games (needed for 3–4
    player games, whose pairwise comparisons share a game and are not
    independent).  ``method``:

    - "fisher": Wald intervals from the observed Fisher information; right
      only for independent pairwise games.
    - "sandwich": Wald intervals from the cluster-robust (sandwich)
      covariance (:func:`bt_sandwich_covariance`); needs a 3-d ``wins`` and
      ``clusters`` (one label per game, e.g. its deal: games replaying one
      deal are correlated), Student t with ``clusters − 1`` df.
    - "bootstrap": percentile intervals; with ``clusters`` resamples whole
      clusters (deals: every matchup and rotation of a deal together); else
      resamples games when ``wins`` is 3-d, within each ``strata`` label
      (e.g. the matchup), or redraws each pair's wins from a binomial at the
      observed rate when ``wins`` is 2-d (parametric bootstrap).

    Columns: name, strength (log, mean 0), lo, hi, se, elo (strength in Elo
    points, mean 0), elo_lo, elo_hi, comparisons (games the policy took part
    in, pairwise), expected_vs_mean (P(beat a policy of strength 0)) with
    its interval expected_lo, expected_hi.
    """
    import pandas as pd
    arr = np.asarray(wins, dtype=float)
    per_game = arr if arr.ndim == 3 else None
    total = arr.sum(axis=0) if arr.ndim == 3 else arr
    k = total.shape[0]
    names = list(names) if names is not None else [str(i) for i in range(k)]
    if len(names) != k:
        raise ValueError(f"{len(names)} names for {k} policies")
    theta = fit_bradley_terry(total, prior=prior)
    n_obs = total + total.T
    np.fill_diagonal(n_obs, 0.0)
    if method == "fisher":
        n_fit = n_obs + 2 * prior * (n_obs > 0)
        se = np.sqrt(np.clip(np.diag(_bt_covariance(theta, n_fit)), 0, None))
        z = _z(confidence)
        lo, hi = theta - z * se, theta + z * se
    elif method == "sandwich":
        if per_game is None or clusters is None:
            raise ValueError("method 'sandwich' needs per-game wins (3-d) and clusters")
        cov = bt_sandwich_covariance(per_game, theta, clusters, prior)
        se = np.sqrt(np.clip(np.diag(cov), 0, None))
        q = _t(confidence, max(1, np.unique(np.asarray(clusters)).size - 1))
        lo, hi = theta - q * se, theta + q * se
    elif method == "bootstrap":
        rng = np.random.default_rng(seed)
        draws = np.empty((n_boot, k))
        by_cluster = None
        if per_game is not None and clusters is not None:
            codes = np.unique(np.asarray(clusters), return_inverse=True)[1].ravel()
            by_cluster = np.zeros((codes.max() + 1, k, k))
            np.add.at(by_cluster, codes, per_game)
        elif per_game is not None:
            labels = np.zeros(per_game.shape[0]) if strata is None else np.asarray(strata)
            groups = [np.flatnonzero(labels == u) for u in np.unique(labels)]
        for b in range(n_boot):
            if by_cluster is not None:
                counts = rng.multinomial(by_cluster.shape[0], np.full(by_cluster.shape[0],
                                                                      1 / by_cluster.shape[0]))
                wb = np.tensordot(counts, by_cluster, axes=1)
            elif per_game is not None:
                idx = np.concatenate([g[rng.integers(0, g.size, g.size)] for g in groups])
                wb = per_game[idx].sum(axis=0)
            else:
                frac = np.divide(total, n_obs, out=np.zeros_like(total), where=n_obs > 0)
                upper = np.triu(rng.binomial(n_obs.round().astype(int), np.clip(frac, 0, 1)), 1)
                # One draw per unordered pair: i's wins over j; j gets the rest.
                wb = upper + np.triu(n_obs.round().astype(int) - upper, 1).T
            draws[b] = fit_bradley_terry(wb, prior=prior)
        a = 1 - confidence
        lo = np.quantile(draws, a / 2, axis=0)
        hi = np.quantile(draws, 1 - a / 2, axis=0)
        se = draws.std(axis=0, ddof=1)
    else:
        raise ValueError(f"method must be 'fisher', 'sandwich' or 'bootstrap', got {method!r}")
    df = pd.DataFrame({
        "name": names, "strength": theta, "lo": lo, "hi": hi, "se": se,
        "elo": ELO_PER_LOG * theta, "elo_lo": ELO_PER_LOG * lo, "elo_hi": ELO_PER_LOG * hi,
        "comparisons": n_obs.sum(axis=1), "expected_vs_mean": 1 / (1 + np.exp(-theta)),
        "expected_lo": 1 / (1 + np.exp(-lo)), "expected_hi": 1 / (1 + np.exp(-hi)),
    })
    df.attrs.update(confidence=confidence, method=method, prior=prior,
                    clusters=None if clusters is None else int(np.unique(np.asarray(clusters)).size))
    return df.sort_values("strength", ascending=False, ignore_index=True)


# ---------------------------------------------------------------------------
# Ratios over clusters (games): cluster-robust (sandwich) intervals
# ---------------------------------------------------------------------------
def _cluster_residual_var(resid: np.ndarray) -> float:
    g = resid.size
    return float(g / (g - 1) * np.sum(resid ** 2)) if g > 1 else math.nan


def clustered_ratio(s, n, confidence: float = 0.95) -> tuple[float, float, float]:
    """Ratio ``Σs / Σn`` over clusters with a cluster-robust interval: ``(ratio, lo, hi)``.

    ``s[g]``, ``n[g]``: successes and trials of cluster ``g`` (e.g. spoils and
    turns of one player-game).  Trials inside a cluster need not be
    independent: the variance comes from the spread of the cluster residuals
    ``s[g] - ratio·n[g]`` (delta method, with the ``G/(G-1)`` correction).
    Normal interval, clipped to [0, 1] when all ``s <= n``.
    """
    s = np.asarray(s, dtype=float)
    n = np.asarray(n, dtype=float)
    tot = n.sum()
    if tot <= 0:
        return (math.nan, math.nan, math.nan)
    r = s.sum() / tot
    se = math.sqrt(_cluster_residual_var((s - r * n) / tot))
    z = _z(confidence)
    lo, hi = r - z * se, r + z * se
    if (s <= n).all() and (s >= 0).all():
        lo, hi = max(0.0, lo), min(1.0, hi)
    return (float(r), float(lo), float(hi))


def clustered_ratio_difference(s1, n1, s0, n0, confidence: float = 0.95) -> tuple[float, float, float]:
    """``Σs1/Σn1 − Σs0/Σn0`` with a cluster-robust interval: ``(diff, lo, hi)``.

    Arrays are per cluster (game): ``s1[g]`` wins of the players in group 1
    in game ``g``, ``n1[g]`` how many of them there were; likewise group 0.
    Both groups may come from the same game — in a 2-player game one player
    holding a card and the other not are perfectly negatively correlated — so
    an independent-samples interval (Newcombe) would be too narrow.  The
    linearised residuals are summed per game and their spread gives the
    variance (delta method; sandwich estimator).  Normal interval.
    """
    s1, n1, s0, n0 = (np.asarray(x, dtype=float) for x in (s1, n1, s0, n0))
    t1, t0 = n1.sum(), n0.sum()
    if t1 <= 0 or t0 <= 0:
        return (math.nan, math.nan, math.nan)
    r1, r0 = s1.sum() / t1, s0.sum() / t0
    resid = (s1 - r1 * n1) / t1 - (s0 - r0 * n0) / t0
    se = math.sqrt(_cluster_residual_var(resid))
    z = _z(confidence)
    d = r1 - r0
    return (float(d), float(d - z * se), float(d + z * se))


# ---------------------------------------------------------------------------
# Deal-clustered estimates (games that share a deal are not independent)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Estimate:
    """A mean or ratio with its sample size, clusters and interval.

    ``n``: observations (e.g. player-games); ``clusters``: independent units
    the interval is built from (deals when clustered; ``n`` when not).
    """
    value: float
    lo: float
    hi: float
    se: float
    n: int
    clusters: int
    confidence: float = 0.95
    method: str = "cluster"

    def to_dict(self) -> dict:
        return asdict(self)


def _t(confidence: float, df: float) -> float:
    _check_confidence(confidence)
    return t_quantile(0.5 + confidence / 2, df)


@functools.lru_cache(maxsize=1024)
def t_quantile(p: float, df: float) -> float:
    """``float(scipy.stats.t.ppf(p, df))``, kept: the studies ask for the same few
    (level, deals) pairs thousands of times, and scipy's ppf costs a millisecond."""
    from scipy.stats import t
    return float(t.ppf(p, df))


def cluster_ratio(num, den=None, clusters=None, confidence: float = 0.95,
                  bounds: tuple[float, float] | None = None) -> Estimate:
    """``Σnum / Σden`` with a cluster-robust (sandwich) interval.

    ``num[i]``, ``den[i]`` per observation (``den`` default 1: a mean);
    ``clusters[i]`` the cluster label of observation ``i`` (e.g. the deal
    index of a player-game: all matchups and seat rotations of one deal share
    its shuffles, so their outcomes are correlated).  ``clusters=None``: every
    observation is its own cluster (the independent-observations interval).

    Delta method on the per-cluster totals: residual ``e_g = (S_g − r·N_g)/ΣN``,
    variance ``G/(G−1)·Σ e_g²`` (the CR1 small-sample factor, as statsmodels'
    ``cov_type="cluster"`` for a mean), Student t quantile with ``G − 1``
    degrees of freedom.  ``bounds`` clips the interval (e.g. ``(0, 1)`` for a
    rate).  When every cluster has the same ratio (no variation seen) a rate
    in ``bounds == (0, 1)`` falls back to the Wilson interval over the
    ``G`` clusters, never a precise-looking point.
    """
    num = np.asarray(num, dtype=float)
    den = np.ones_like(num) if den is None else np.broadcast_to(np.asarray(den, dtype=float), num.shape)
    n = int(num.size)
    if clusters is None:
        s, m = num, den
    else:
        codes = np.unique(np.asarray(clusters), return_inverse=True)[1].ravel()
        s = np.bincount(codes, weights=num)
        m = np.bincount(codes, weights=den)
    g = int(s.size)
    tot = float(m.sum())
    if g == 0 or tot <= 0:
        nan = math.nan
        return Estimate(nan, nan, nan, nan, n, g, confidence)
    r = float(s.sum() / tot)
    method = "cluster" if clusters is not None else "independent"
    return _ratio_estimate(r, float(np.sum((s - r * m) ** 2)), tot, n, g, confidence, bounds,
                           method)


def cluster_ratio_sums(s: float, m: float, ss: float, sm: float, mm: float, g: int, n: int,
                       confidence: float = 0.95, bounds: tuple[float, float] | None = None
                       ) -> Estimate:
    """:func:`cluster_ratio` from running sums over clusters, for runs that keep
    only a fixed-size summary: ``s = Σ S_g``, ``m = Σ M_g``, ``ss = Σ S_g²``,
    ``sm = Σ S_g·M_g``, ``mm = Σ M_g²`` over the ``g`` clusters (``S_g``,
    ``M_g``: cluster ``g``'s numerator and denominator totals), ``n``
    observations.  Same estimate, as ``Σ(S_g − r·M_g)² = ss − 2r·sm + r²·mm``."""
    if g == 0 or m <= 0:
        nan = math.nan
        return Estimate(nan, nan, nan, nan, n, g, confidence)
    r = s / m
    resid2 = max(0.0, ss - 2 * r * sm + r * r * mm)     # rounding may leave a tiny negative
    return _ratio_estimate(r, resid2, m, n, g, confidence, bounds, "cluster")


def _ratio_estimate(r: float, resid2: float, tot: float, n: int, g: int, confidence: float,
                    bounds, method: str) -> Estimate:
    """The interval of a ratio ``r`` from the sum of squared cluster residuals."""
    if g < 2:
        return Estimate(r, math.nan, math.nan, math.nan, n, g, confidence)
    se = math.sqrt(g / (g - 1) * resid2) / tot
    q = _t(confidence, g - 1)
    lo, hi = r - q * se, r + q * se
    if bounds == (0.0, 1.0) and se <= 1e-15:
        lo, hi = wilson_interval(r * g, g, confidence)
        method += "+wilson"
    if bounds is not None:
        lo, hi = max(bounds[0], lo), min(bounds[1], hi)
    return Estimate(r, float(lo), float(hi), se, n, g, confidence, method)


def fieller_ratio(num, den, confidence: float = 0.95,
                  bounds: tuple[float, float] = (-math.inf, math.inf)) -> tuple[float, float, float]:
    """``mean(num) / mean(den)`` over independent units (deals) with Fieller's
    interval: ``(ratio, lo, hi)``.

    The interval is every ``r`` for which ``mean(num) − r·mean(den) = 0`` is not
    rejected by a t test with ``n − 1`` degrees of freedom (its variance from the
    per-unit spread of ``num − r·den``, so the covariance of the two means is
    kept).  For an instrumental-variable ratio with one instrument this is the
    Anderson-Rubin interval, which, unlike the delta method, keeps its coverage
    when the denominator is small and noisy (a card the field rarely buys): then
    the set is unbounded and the interval is ``bounds`` (say ``(-1, 1)`` for a
    difference of win shares), an honest "the data cannot say".  A bounded set is
    clipped to ``bounds`` (intersecting a confidence set with the parameter's range
    keeps its coverage).  ``nan`` ratio when ``mean(den)`` is 0."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    n = int(num.size)
    if n == 0 or den.shape != num.shape:
        return (math.nan, math.nan, math.nan)
    a, b = float(num.mean()), float(den.mean())
    r = a / b if b != 0 else math.nan
    lo_b, hi_b = float(bounds[0]), float(bounds[1])
    if n < 2:
        return (r, lo_b, hi_b)
    saa = float(num.var(ddof=1)) / n
    sbb = float(den.var(ddof=1)) / n
    sab = float(np.cov(num, den, ddof=1)[0, 1]) / n
    q2 = _t(confidence, n - 1) ** 2
    # (a − r b)² <= q² (saa − 2 r sab + r² sbb)  <=>  A r² − 2 B r + C <= 0
    A, B, C = b * b - q2 * sbb, a * b - q2 * sab, a * a - q2 * saa
    disc = B * B - A * C
    if A > 0 and disc >= 0:
        root = math.sqrt(disc)
        lo, hi = (B - root) / A, (B + root) / A
        if not math.isfinite(r):
            r = B / A
        return (r, max(lo_b, lo), min(hi_b, hi))
    # A <= 0: the set is the whole line or the complement of an interval (the
    # denominator is not shown to differ from 0); A > 0 with no real root cannot
    # happen for a sample covariance (the set holds a/b), kept for rounding.
    return (r, lo_b, hi_b)


def cluster_rate(successes, clusters=None, confidence: float = 0.95) -> Estimate:
    """Mean of outcomes in [0, 1] (e.g. win shares) with a cluster-robust interval in [0, 1]."""
    return cluster_ratio(successes, None, clusters, confidence, bounds=(0.0, 1.0))


def format_estimate(e: Estimate, digits: int = 1, percent: bool = False) -> str:
    """``"52.3 [49.2, 55.4]"`` (``percent``: values × 100)."""
    k = 100 if percent else 1
    if not np.isfinite(e.value):
        return "—"
    lo = f"{k * e.lo:.{digits}f}" if np.isfinite(e.lo) else "nan"
    hi = f"{k * e.hi:.{digits}f}" if np.isfinite(e.hi) else "nan"
    return f"{k * e.value:.{digits}f} [{lo}, {hi}]"


def _bt_scores(per_game: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Per game, the score (gradient of the log-likelihood) of the log strengths: ``(G, k)``.

    ``∂/∂θ_a Σ_{ij} w[i,j]·log σ(θ_i − θ_j) = Σ_j w[a,j]·P(j beats a) − Σ_i w[i,a]·P(a beats i)``.
    """
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))     # P(i beats j)
    m = per_game * p.T[None, :, :]                               # w[i,j] * P(j beats i)
    return m.sum(axis=2) - m.sum(axis=1)


def bt_sandwich_covariance(per_game, theta, clusters=None, prior: float = 0.5) -> np.ndarray:
    """Cluster-robust (sandwich) covariance of mean-zero Bradley–Terry log strengths.

    ``H⁺ (G/(G−1) Σ_c S_c S_cᵀ) H⁺`` with ``H`` the Fisher information (the
    bread; its pseudo-inverse applies the sum-zero constraint) and ``S_c``
    the summed per-game scores of cluster ``c`` (the meat), centred.  With
    one game per cluster and independent games it estimates the same
    covariance as the Fisher information; when the games of a deal are
    correlated (seat rotations and matchups replaying one deal) it widens.
    """
    per_game = np.asarray(per_game, dtype=float)
    total = per_game.sum(axis=0)
    n_obs = total + total.T
    np.fill_diagonal(n_obs, 0.0)
    h_pinv = _bt_covariance(theta, n_obs + 2 * prior * (n_obs > 0))
    sc = _bt_scores(per_game, theta)
    if clusters is not None:
        codes = np.unique(np.asarray(clusters), return_inverse=True)[1].ravel()
        sc = np.stack([np.bincount(codes, weights=sc[:, a]) for a in range(sc.shape[1])], axis=1)
    g = sc.shape[0]
    if g < 2:
        return np.full((len(theta), len(theta)), math.nan)
    sc = sc - sc.mean(axis=0)
    meat = g / (g - 1) * sc.T @ sc
    return h_pinv @ meat @ h_pinv


def stopping_rule_summary(table, state_keys, risk_key: str, go: str, min_reach: float = 0.0):
    """A push-your-luck stopping rule, state by state.

    ``table``: one row per situation the rule can meet, with its ``reach``
    (probability of meeting it), its ``decision`` and ``risk_key`` (the chance
    the next play goes bad); ``state_keys``: the columns that name a state.
    Returns ``[(state, reach, p_go, go_up_to, stop_from)]`` sorted by state, for
    states met with probability at least ``min_reach``: how often the rule plays on
    there (``decision == go``), the largest risk it plays on at and the smallest
    it stops at (None when it never does).  Used by the games' bad-turn odds
    (spoil odds, wither odds)."""
    groups: dict = {}
    for r in table:
        g = groups.setdefault(tuple(r[k] for k in state_keys), [0.0, 0.0, None, None])
        g[0] += float(r["reach"])
        risk = float(r[risk_key])
        if r["decision"] == go:
            g[1] += float(r["reach"])
            g[2] = risk if g[2] is None else max(g[2], risk)
        else:
            g[3] = risk if g[3] is None else min(g[3], risk)
    return [(state, reach, on / reach if reach else 0.0, up, stop)
            for state, (reach, on, up, stop) in sorted(groups.items()) if reach >= min_reach]


# ---------------------------------------------------------------------------
# Equivalence, "shown beyond a margin", and multiplicity: the one place
# ---------------------------------------------------------------------------
#: the three readings of a difference against a margin, everywhere
EQUIVALENT, DIFFERENT, INCONCLUSIVE = "equivalent", "shown different", "inconclusive"
MULTIPLICITY_METHODS = ("fdr_bh", "holm", "bonferroni")


def _dist(df):
    from scipy import stats as st
    return st.t(df) if df is not None and np.isfinite(df) and df > 0 else st.norm()


def tost(diff: float, se: float, margin: float, df: float | None = None,
         alpha: float = 0.05) -> tuple[float, tuple[float, float]]:
    """Two one-sided tests of ``|true difference| < margin``: ``(p, (lo, hi))``.

    ``p`` is the larger of the two one-sided p-values (Student t with ``df``
    degrees of freedom; normal when ``df`` is None); ``(lo, hi)`` the
    ``1 − 2·alpha`` interval of the difference (90 % at the default 5 %), and
    ``p < alpha`` exactly when that interval lies inside ``±margin``.

    ``se == 0`` means the difference is known exactly (e.g. a cell compared
    with itself, or every paired difference equal): the decision is then the
    point estimate's, ``p = 0`` when ``|diff| < margin`` and ``p = 1``
    otherwise, with the interval ``(diff, diff)``.  A caller whose ``se`` is 0
    only because too few observations were seen must not call this (it has no
    estimate of the spread; see the settings studies' ``paired``).  A
    non-finite ``diff`` or ``se`` gives ``p = 1`` and a nan interval.
    """
    if not (np.isfinite(diff) and np.isfinite(se)) or se < 0:
        return 1.0, (math.nan, math.nan)
    if se == 0:
        return (0.0 if abs(diff) < margin else 1.0), (float(diff), float(diff))
    dist = _dist(df)
    p = max(float(dist.sf((diff + margin) / se)), float(dist.cdf((diff - margin) / se)))
    q = float(dist.ppf(1 - alpha))
    return p, (diff - q * se, diff + q * se)


def beyond_p(diff: float, se: float, margin: float, df: float | None = None) -> float:
    """p-value of H0 ``|true difference| <= margin`` against "beyond the margin".

    ``min(1, 2·min(P(T >= (d − m)/se), P(T <= (d + m)/se)))``: below ``alpha``
    exactly when the two-sided ``1 − alpha`` interval lies wholly beyond
    ``±margin`` (above ``+margin`` or below ``−margin``), so it agrees with the
    intervals printed beside it.  ``se == 0``: decided by the point estimate
    (0 when ``|diff| > margin``, else 1), as in :func:`tost`."""
    if not (np.isfinite(diff) and np.isfinite(se)) or se < 0:
        return 1.0
    if se == 0:
        return 0.0 if abs(diff) > margin else 1.0
    dist = _dist(df)
    return min(1.0, 2 * min(float(dist.sf((diff - margin) / se)),
                            float(dist.cdf((diff + margin) / se))))


def equivalence_verdict(p_equivalent: float, p_beyond: float, alpha: float = 0.05) -> str:
    """"equivalent" (TOST p <= alpha), "shown different" (beyond-the-margin p <= alpha)
    or "inconclusive": the three readings used by every study.  The first two cannot
    both hold for alpha <= 0.5 (the 1 − 2α interval inside the margin and the 1 − α
    interval wholly outside it).  Pass adjusted p-values when several are tested."""
    if p_equivalent <= alpha:
        return EQUIVALENT
    if p_beyond <= alpha:
        return DIFFERENT
    return INCONCLUSIVE


def adjust_pvalues(pvalues, method: str = "holm", alpha: float = 0.05
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Multiplicity correction of a family of p-values: ``(reject, adjusted p)``.

    statsmodels' ``multipletests``; ``method`` one of :data:`MULTIPLICITY_METHODS`:
    "holm" (family-wise error, used for the seat-compensation schedules and the
    pool grid), "fdr_bh" (Benjamini–Hochberg false discovery rate, the default
    for the card verdicts) or "bonferroni".  nan p-values count as 1."""
    from statsmodels.stats.multitest import multipletests
    if method not in MULTIPLICITY_METHODS:
        raise ValueError(f"method must be one of {', '.join(MULTIPLICITY_METHODS)}, got {method!r}")
    p = np.nan_to_num(np.asarray(pvalues, float), nan=1.0)
    if not p.size:
        return np.zeros(0, bool), np.zeros(0)
    reject, p_adj, _, _ = multipletests(np.clip(p, 0, 1), alpha=alpha, method=method)
    return reject, p_adj


def adjust_pvalues_rows(pvalues, method: str = "holm", alpha: float = 0.05
                        ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`adjust_pvalues` of each row at once: ``pvalues`` of shape ``(..., m)``, one
    family of ``m`` per row (e.g. the cards of one resampled run).  The same arithmetic
    as statsmodels' ``multipletests`` (sorted p-values, the same products, running
    minimum or maximum, capped at 1), so a row gives exactly what
    :func:`adjust_pvalues` gives for it; tested against it.  nan counts as 1."""
    if method not in MULTIPLICITY_METHODS:
        raise ValueError(f"method must be one of {', '.join(MULTIPLICITY_METHODS)}, got {method!r}")
    p = np.clip(np.nan_to_num(np.asarray(pvalues, float), nan=1.0), 0, 1)
    m = p.shape[-1]
    if m == 0:
        return np.zeros(p.shape, bool), np.zeros(p.shape)
    if method == "bonferroni":
        return p <= alpha / float(m), np.minimum(p * float(m), 1.0)
    order = np.argsort(p, axis=-1)
    ps = np.take_along_axis(p, order, axis=-1)
    rank = np.arange(m)
    if method == "fdr_bh":
        ecdf = np.arange(1, m + 1) / float(m)
        below = ps <= ecdf * alpha
        last = np.where(below.any(axis=-1), m - 1 - np.argmax(below[..., ::-1], axis=-1), -1)
        rej = rank <= last[..., None]
        adj = np.minimum.accumulate((ps / ecdf)[..., ::-1], axis=-1)[..., ::-1]
    else:                                                      # holm
        factor = np.arange(m, 0, -1)
        above = ps > alpha / factor
        first = np.where(above.any(axis=-1), np.argmax(above, axis=-1), m)
        rej = rank < first[..., None]
        adj = np.maximum.accumulate(ps * factor, axis=-1)
    adj = np.minimum(adj, 1.0)
    reject, p_adj = np.empty_like(rej), np.empty_like(adj)
    np.put_along_axis(reject, order, rej, axis=-1)
    np.put_along_axis(p_adj, order, adj, axis=-1)
    return reject, p_adj


def n_for_equivalence(sd: float, diff: float, margin: float, alpha: float = 0.05,
                      power: float = 0.8) -> float:
    """Observations for a TOST at level ``alpha`` to pass with probability ``power``
    when the true difference is ``diff`` and one observation's SD is ``sd`` (normal
    approximation, the nearer side binding): ``((z_(1−α) + z_power)·sd / (m − |d|))²``.
    Infinite when ``|diff| >= margin``."""
    from scipy.stats import norm
    room = margin - abs(diff)
    if not np.isfinite(sd) or not np.isfinite(diff) or room <= 0:
        return math.inf
    z = float(norm.ppf(1 - alpha) + norm.ppf(power))
    return float(max(2, math.ceil((z * sd / room) ** 2)))


def n_for_beyond(sd: float, diff: float, margin: float, alpha: float = 0.05,
                 power: float = 0.8) -> float:
    """Observations for :func:`beyond_p` to fall below ``alpha`` with probability
    ``power`` when the true difference is ``diff``: ``((z_(1−α/2) + z_power)·sd /
    (|d| − m))²``.  Infinite when ``|diff| <= margin``."""
    from scipy.stats import norm
    room = abs(diff) - margin
    if not np.isfinite(sd) or not np.isfinite(diff) or room <= 0:
        return math.inf
    z = float(norm.ppf(1 - alpha / 2) + norm.ppf(power))
    return float(max(2, math.ceil((z * sd / room) ** 2)))


# ---------------------------------------------------------------------------
# Synthetic multi-player tournaments (coverage checks of the ranking intervals)
# ---------------------------------------------------------------------------
def synthetic_rank_games(strengths, players: int, deals: int, deal_sd: float = 0.5,
                         seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise results of a synthetic tournament with deal-clustered luck:
    ``(per_game, deals)`` as :func:`vale_sim.tournament.game_comparisons` gives them.

    Every deal plays every line-up of ``players`` of the ``k`` policies once per
    seat rotation (the tournament's round robin of 3–4 player games).  A policy's
    performance in a game is ``strength + u + Gumbel noise`` with ``u`` drawn once
    per deal and policy (SD ``deal_sd``): the luck every matchup and rotation of a
    deal shares.  Without ``u`` the finishing order is exactly Plackett–Luce; each
    game is broken into its pairwise comparisons (rank breaking)."""
    import itertools
    theta = np.asarray(strengths, float)
    k = theta.size
    rng = np.random.default_rng(seed)
    lineups = [lu for c in itertools.combinations(range(k), players)
               for lu in (c[r:] + c[:r] for r in range(players))]
    lu = np.array(lineups)                                        # (L, players)
    n_games = deals * len(lineups)
    u = rng.normal(0.0, deal_sd, (deals, k))
    perf = (theta[lu][None] + u[:, lu] + rng.gumbel(size=(deals, len(lineups), players)))
    perf = perf.reshape(n_games, players)
    pol = np.tile(lu, (deals, 1))
    out = np.zeros((n_games, k, k))
    rows = np.arange(n_games)
    for p, q in itertools.combinations(range(players), 2):
        win = (perf[:, p] > perf[:, q]).astype(float)
        np.add.at(out, (rows, pol[:, p], pol[:, q]), win)
        np.add.at(out, (rows, pol[:, q], pol[:, p]), 1 - win)
    return out, np.repeat(np.arange(deals), len(lineups))
