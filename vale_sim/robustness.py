"""Are the balance verdicts robust to the bots that play the games?

Every verdict is conditional on the baseline policy: a card can look strong
only because a weak bot misplays the rest of the set, and a pool size tuned
for bots may not suit stronger play.  This module compares the two studies of
the report -- card strengths and pool sizes -- under the **default** baseline
(``balanced``) and a **strong** one (by default the game's strongest bundled field,
:func:`vale_sim.strong_field.field_of`: ``meta-{P}p`` for P players, docs/meta.md; or
``optimized-{P}p``, docs/optimize.md), played on the same deals
and seeds:

    cmp = compare_strengths(table_default, table_strong, runs=(run_default, run_strong))
    cmp.rho, cmp.rho_lo, cmp.rho_hi        # Spearman rank correlation, bootstrap over deals
    cmp.table                             # side by side per card, with the change and a label
    cmp.sentences()                       # "N of M flags are robust to the bots: ...; these change: ..."
    pools_cmp = compare_pools(recs_default, recs_strong)

Rules (docs/statistics.md §9):

* **Rank correlation**: ``scipy.stats.spearmanr`` of the strengths.  Its
  interval is a bootstrap over **deals** -- the hull of the percentile and the
  BCa interval (:func:`rho_interval`): both studies play the
  same deals, so one resample of deals is applied to every card under both
  baselines at once (the per-deal paired differences of every card and arm
  move together, which keeps the correlation between cards and between the
  two baselines that the shared deals create).  When only the tables are at
  hand (no per-deal results) the interval is a parametric bootstrap from each
  card's estimate and standard error, independent across cards and baselines
  -- an approximation, said so in ``method``.
* **Per card** (``label``), from the two flags (over / under / none) and the
  raw 95 % intervals: ``robust`` -- the same flag under both;
  ``not robust`` -- flagged under one baseline and, under the other, flagged
  the opposite way or shown *inside* the band (its 95 % interval within
  ±tolerance); ``not shown robust`` -- flagged under one baseline and neither
  under the other (not significant there, but not shown inside the band
  either: not "wrong", just not confirmed); ``no flag under either``.
* **Pools** (per player count and target): the rulebook pool's verdict under
  each baseline is "equivalent" (the equivalence test passes), "shown
  different" (the 95 % interval of its difference lies wholly outside the
  margin; for the seat gap: the 95 % interval's lower end above the margin)
  or "inconclusive" (``Recommendation.rulebook_verdict``).  ``robust``: the same decisive verdict under both and the
  equivalent ranges share a pool (or are both empty); ``not robust``:
  equivalent under one, different under the other; else ``not shown robust``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .games.base import baseline_label, baseline_spec  # noqa: F401  (re-exported)

# The report's strong baseline is the game's strongest bundled field
# (vale_sim.strong_field.field_of).
#: The default baseline of the strength and pool studies.
DEFAULT_BASELINE = "balanced"

#: Below this many deals the deal bootstrap gives no interval (it would be degenerate).
MIN_BOOTSTRAP_DEALS = 20

ROBUST, NOT_ROBUST, NOT_SHOWN, NO_FLAG = ("robust", "not robust", "not shown robust",
                                         "no flag under either")
LABELS = (ROBUST, NOT_ROBUST, NOT_SHOWN, NO_FLAG)


# ---------------------------------------------------------------------------
# Baselines: NAME | FILE, with {P} standing for the player count
# ---------------------------------------------------------------------------
def resolve_baseline(spec, players: int, card_set=None, game=None):
    """The baseline policy for ``players`` players of ``game`` (default: the default game):
    :meth:`vale_sim.games.base.Game.resolve_baseline`."""
    from .games import DEFAULT_GAME, get_game
    return get_game(game or DEFAULT_GAME).resolve_baseline(spec, players, card_set)


# ---------------------------------------------------------------------------
# Card strengths
# ---------------------------------------------------------------------------
def _flag(x) -> str:
    return x if isinstance(x, str) and x in ("over", "under") else ""


def card_label(flag_a: str, flag_b: str, lo_b: float, hi_b: float, lo_a: float, hi_a: float,
               tolerance: float) -> str:
    """The per-card rule (module docstring): flags ``flag_a``/``flag_b`` under the two
    baselines and each one's raw interval."""
    fa, fb = _flag(flag_a), _flag(flag_b)
    if fa == fb:
        return ROBUST if fa else NO_FLAG
    if fa and fb:                               # over under one, under under the other
        return NOT_ROBUST
    lo, hi = (lo_b, hi_b) if fa else (lo_a, hi_a)     # the baseline without a flag
    inside = np.isfinite(lo) and np.isfinite(hi) and -tolerance <= lo and hi <= tolerance
    return NOT_ROBUST if inside else NOT_SHOWN


def _per_deal(run, cards) -> np.ndarray:
    """(cards, deals) per-deal strength differences of a StrengthRun."""
    return np.vstack([run.strength_deals(c) for c in cards]).astype(float)


def _row_spearman(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman correlation of each row pair of ``a`` and ``b`` (resamples × cards),
    average ranks for ties (as scipy.stats.spearmanr); nan where a row is constant."""
    from scipy.stats import rankdata
    ra = rankdata(a, axis=1)
    rb = rankdata(b, axis=1)
    ra -= ra.mean(axis=1, keepdims=True)
    rb -= rb.mean(axis=1, keepdims=True)
    den = np.sqrt((ra ** 2).sum(axis=1) * (rb ** 2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (ra * rb).sum(axis=1) / np.where(den > 0, den, 1), np.nan)


def deal_bootstrap(da: np.ndarray, db: np.ndarray, resamples: int = 1000, seed: int = 0,
                   chunk: int = 100) -> np.ndarray:
    """Bootstrap distribution of the Spearman correlation between the card means of
    ``da`` and ``db`` (cards × deals, the same deals): each resample draws deals with
    replacement (multinomial counts, one draw for both baselines and every card)."""
    g = da.shape[1]
    rng = np.random.default_rng(seed)
    out = []
    done = 0
    while done < resamples:
        k = min(chunk, resamples - done)
        w = rng.multinomial(g, np.full(g, 1.0 / g), size=k).astype(float) / g   # (k, deals)
        out.append(_row_spearman(w @ da.T, w @ db.T))
        done += k
    return np.concatenate(out)


def deal_jackknife(da: np.ndarray, db: np.ndarray) -> np.ndarray:
    """Leave-one-deal-out values of the Spearman correlation of the card means (closed
    form: the mean without deal i is (sum - x_i) / (G - 1))."""
    g = da.shape[1]
    ja = (da.sum(axis=1)[None, :] - da.T) / (g - 1)          # (deals, cards)
    jb = (db.sum(axis=1)[None, :] - db.T) / (g - 1)
    return _row_spearman(ja, jb)


def bca_interval(boot: np.ndarray, point: float, jack: np.ndarray | None,
                 confidence: float = 0.95) -> tuple[float, float]:
    """Bias-corrected and accelerated percentile interval (Efron 1987).

    ``boot``: bootstrap values; ``point``: the estimate; ``jack``: jackknife values
    for the acceleration (None: 0, the bias-corrected percentile interval).  The bias
    correction ``z0`` counts ties with the estimate half, so a degenerate bootstrap
    (every value equal to the estimate) gives the point itself.
    """
    from scipy.stats import norm
    b = boot.size
    p = (np.sum(boot < point) + 0.5 * np.sum(boot == point)) / b
    z0 = float(norm.ppf(np.clip(p, 1 / (b + 1), b / (b + 1))))
    a = 0.0
    if jack is not None:
        j = jack[np.isfinite(jack)]
        d = j.mean() - j if j.size else j
        den = 6 * float(np.sum(d ** 2)) ** 1.5
        a = float(np.sum(d ** 3)) / den if den > 0 else 0.0
    z = float(norm.ppf(0.5 + confidence / 2))
    qs = []
    for zz in (-z, z):
        t = z0 + (z0 + zz) / (1 - a * (z0 + zz))
        qs.append(float(norm.cdf(t)))
    lo, hi = np.quantile(boot, qs)
    return float(lo), float(hi)


def rho_interval(boot: np.ndarray, point: float, jack: np.ndarray | None,
                 confidence: float = 0.95) -> tuple[float, float]:
    """The interval reported for the rank correlation: the hull of the plain percentile
    interval and the BCa interval (:func:`bca_interval`).

    Neither is right in every regime (docs/statistics.md §9, measured): when the noise
    of the strengths is small against their spread, the fraction of resamples below
    the estimate is itself noise (Spearman moves in rank swaps), BCa's bias correction
    shifts the interval at random and under-covers, while the percentile interval
    covers; when the noise is large, noise pulls the resampled values towards 0 and
    the percentile interval misses the true correlation far more often than BCa.
    The hull is conservative in both (as :func:`vale_sim.advancements.lift_interval`)."""
    alpha = 1 - confidence
    plo, phi = (float(x) for x in np.quantile(boot, [alpha / 2, 1 - alpha / 2]))
    blo, bhi = bca_interval(boot, point, jack, confidence)
    return min(plo, blo), max(phi, bhi)


def parametric_bootstrap(ma, sa, mb, sb, resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """Spearman correlations of strengths drawn as independent normals around each
    card's estimate with its standard error (both baselines)."""
    rng = np.random.default_rng(seed)
    ma, sa, mb, sb = (np.asarray(x, float) for x in (ma, sa, mb, sb))
    a = ma + rng.standard_normal((resamples, ma.size)) * np.nan_to_num(sa)
    b = mb + rng.standard_normal((resamples, mb.size)) * np.nan_to_num(sb)
    return _row_spearman(a, b)


@dataclass
class StrengthComparison:
    """Card strengths under two baselines, side by side (see :func:`compare_strengths`)."""
    table: pd.DataFrame
    rho: float
    rho_lo: float
    rho_hi: float
    n_cards: int
    n_deals: int
    method: str
    baseline_a: str
    baseline_b: str
    tolerance: float
    confidence: float = 0.95
    resamples: int = 0

    @property
    def flagged(self) -> pd.DataFrame:
        """Cards flagged under either baseline."""
        t = self.table
        return t[(t["flag_a"] != "") | (t["flag_b"] != "")]

    def counts(self) -> dict:
        return {lab: int((self.table["label"] == lab).sum()) for lab in LABELS}

    def rho_text(self) -> str:
        if not np.isfinite(self.rho):
            return (f"Spearman rank correlation of the card strengths n/a (no CI: a constant "
                    f"column has no ranks; n = {self.n_cards} cards × {self.n_deals:,} deals)")
        ci = (f"{100 * self.confidence:g}% CI [{self.rho_lo:.2f}, {self.rho_hi:.2f}]"
              if np.isfinite(self.rho_lo) else "no CI")
        return (f"Spearman rank correlation of the card strengths ρ = {self.rho:.2f} ({ci}, "
                f"{self.method}; n = {self.n_cards} cards × {self.n_deals:,} deals)")

    def flag_sentence(self) -> str:
        """"N of M flags are robust to the bots: ...; these change: ..." -- never more
        than the evidence: a flag not significant under the other baseline is "not shown
        robust", not wrong."""
        t = self.flagged
        a, b = self.baseline_a, self.baseline_b
        if not len(t):
            return (f"No card is flagged under either baseline ({a}, {b}), so no flag can be "
                    f"checked against the bots.")
        same = t[t["label"] == ROBUST]
        change = t[t["label"] != ROBUST]

        def fl(x):
            return x or "no flag"
        s = f"{len(same)} of {len(t)} flags are robust to the bots"
        s += (": " + ", ".join(f"{r.card} ({r.flag_a})" for r in same.itertuples())
              if len(same) else "")
        if len(change):
            s += f"; these change (flag under {a} → under {b}): " + "; ".join(
                f"{r.card} ({fl(r.flag_a)} → {fl(r.flag_b)}: {r.label})" for r in change.itertuples())
        else:
            s += f"; none changes between {a} and {b}"
        return s + "."

    def sentences(self) -> list[str]:
        t = self.flagged
        out = [self.rho_text() + ".", self.flag_sentence()]
        ns = t[t["label"] == NOT_SHOWN]
        nr = t[t["label"] == NOT_ROBUST]
        if len(nr):
            out.append("Not robust (flagged under one bot, and under the other flagged the "
                       "opposite way or measured inside the band): "
                       + ", ".join(nr["card"]) + ".")
        if len(ns):
            out.append("Not shown robust (flagged under one bot, neither flagged nor shown "
                       "inside the band under the other — more games would tell): "
                       + ", ".join(ns["card"]) + ".")
        return out


TABLE_COLUMNS = ("card", "kind", "level", "label", "flag_a", "strength_a", "strength_a_lo",
                 "strength_a_hi", "flag_b", "strength_b", "strength_b_lo", "strength_b_hi",
                 "change", "change_lo", "change_hi", "rank_a", "rank_b", "n_deals")


def compare_strengths(a: pd.DataFrame, b: pd.DataFrame, runs=None, confidence: float = 0.95,
                      resamples: int = 1000, seed: int = 0, tolerance: float | None = None,
                      labels: tuple[str, str] | None = None) -> StrengthComparison:
    """Compare two strength tables (:func:`vale_sim.advancements.strength_table`) of
    the same cards: ``a`` under the default baseline, ``b`` under the strong one.

    ``runs``: the two :class:`vale_sim.advancements.StrengthRun` behind them (same
    seed and deals) for the deal bootstrap and the paired change per card;
    without them the interval is a parametric bootstrap and the change's interval
    treats the two estimates as independent.  ``tolerance`` (a fraction): the
    band of the flags (default: the tables' attrs).  ``labels``: the two
    baselines' names (default: the tables' attrs).
    """
    from scipy.stats import spearmanr, t as student_t
    if set(a["card"]) != set(b["card"]):
        only = sorted(set(a["card"]) ^ set(b["card"]))
        raise ValueError(f"the two strength tables must hold the same cards; differ in "
                         f"{', '.join(only[:5])}")
    tol = float(tolerance if tolerance is not None else a.attrs.get("tolerance", 0.05))
    la, lb = labels or (a.attrs.get("baseline", "a"), b.attrs.get("baseline", "b"))
    bb = b.set_index("card").loc[list(a["card"])].reset_index()
    n_deals = int(min(a["n_deals"].min(), bb["n_deals"].min())) if len(a) else 0
    rows = pd.DataFrame({
        "card": a["card"].to_numpy(), "kind": a["kind"].to_numpy(), "level": a["level"].to_numpy(),
        "flag_a": [_flag(x) for x in a["flag"]], "strength_a": a["strength"].to_numpy(float),
        "strength_a_lo": a["strength_lo"].to_numpy(float),
        "strength_a_hi": a["strength_hi"].to_numpy(float),
        "flag_b": [_flag(x) for x in bb["flag"]], "strength_b": bb["strength"].to_numpy(float),
        "strength_b_lo": bb["strength_lo"].to_numpy(float),
        "strength_b_hi": bb["strength_hi"].to_numpy(float)})
    rows["change"] = rows["strength_b"] - rows["strength_a"]
    q = _quantile(confidence)
    if runs is not None:
        ra, rb = runs
        if ra.seed != rb.seed or ra.deals != rb.deals or ra.players != rb.players:
            raise ValueError(f"the two strength runs must play the same deals: seed "
                             f"{ra.seed}/{rb.seed}, deals {ra.deals}/{rb.deals}, players "
                             f"{ra.players}/{rb.players}")
        cards = list(rows["card"])
        da, db = _per_deal(ra, cards), _per_deal(rb, cards)
        diff = db - da                                  # paired by deal
        g = diff.shape[1]
        se = diff.std(axis=1, ddof=1) / math.sqrt(g) if g > 1 else np.full(len(cards), np.nan)
        tq = float(student_t.ppf(0.5 + confidence / 2, g - 1)) if g > 1 else math.nan
        rows["change_lo"] = np.clip(diff.mean(axis=1) - tq * se, -2, 2)
        rows["change_hi"] = np.clip(diff.mean(axis=1) + tq * se, -2, 2)
        boot = deal_bootstrap(da, db, resamples, seed) if len(cards) >= 2 else np.array([])
        jack = deal_jackknife(da, db) if len(cards) >= 2 and g > 2 else None
        method = f"bootstrap over deals (hull of percentile and BCa), {resamples} resamples"
        n_deals = g
    else:
        sa = a["strength_se"].to_numpy(float) if "strength_se" in a else _se(rows, "a", q)
        sb = bb["strength_se"].to_numpy(float) if "strength_se" in bb else _se(rows, "b", q)
        se = np.sqrt(sa ** 2 + sb ** 2)
        rows["change_lo"] = rows["change"] - q * se
        rows["change_hi"] = rows["change"] + q * se
        boot = (parametric_bootstrap(rows["strength_a"], sa, rows["strength_b"], sb, resamples,
                                     seed) if len(rows) >= 2 else np.array([]))
        jack = None
        method = (f"parametric bootstrap from each card's estimate and standard error "
                  f"(independent; no per-deal results; hull of percentile and bias-corrected), "
                  f"{resamples} resamples")
    rho = math.nan
    if len(rows) >= 2:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")             # constant input -> nan, said in text
            rho = float(spearmanr(rows["strength_a"], rows["strength_b"]).statistic)
    lo = hi = math.nan
    boot = boot[np.isfinite(boot)] if boot.size else boot
    if runs is not None and n_deals < MIN_BOOTSTRAP_DEALS:
        boot = np.array([])                     # a bootstrap over a handful of deals is no interval
        method = f"fewer than {MIN_BOOTSTRAP_DEALS} deals to resample"
    if np.isfinite(rho) and boot.size >= 20:
        lo, hi = rho_interval(boot, rho, jack, confidence)
    rows["rank_a"] = rows["strength_a"].rank(ascending=False, method="min").astype(int)
    rows["rank_b"] = rows["strength_b"].rank(ascending=False, method="min").astype(int)
    rows["n_deals"] = n_deals
    rows["label"] = [card_label(r.flag_a, r.flag_b, r.strength_b_lo, r.strength_b_hi,
                                r.strength_a_lo, r.strength_a_hi, tol)
                     for r in rows.itertuples()]
    order = {ROBUST: 2, NOT_ROBUST: 0, NOT_SHOWN: 1, NO_FLAG: 3}
    rows = rows.sort_values(["label", "strength_a"], key=lambda s: s.map(order) if s.name == "label"
                            else -s, kind="stable", ignore_index=True)
    rows = rows[list(TABLE_COLUMNS)]
    rows.attrs.update(baseline_a=la, baseline_b=lb, tolerance=tol, confidence=confidence)
    return StrengthComparison(rows, rho, lo, hi, len(rows), n_deals, method, la, lb, tol,
                              confidence, resamples)


def _quantile(confidence: float) -> float:
    from scipy.stats import norm
    return float(norm.ppf(0.5 + confidence / 2))


def _se(rows: pd.DataFrame, k: str, q: float) -> np.ndarray:
    """Standard error read back from a symmetric interval (tables without strength_se)."""
    return ((rows[f"strength_{k}_hi"] - rows[f"strength_{k}_lo"]) / (2 * q)).to_numpy(float)


def strength_side_by_side(cmp: StrengthComparison) -> pd.DataFrame:
    """The comparison table with the baselines' names in the column headers (for the report)."""
    a, b = cmp.baseline_a, cmp.baseline_b
    ren = {"flag_a": f"flag ({a})", "strength_a": f"strength ({a})",
           "strength_a_lo": f"lo ({a})", "strength_a_hi": f"hi ({a})",
           "flag_b": f"flag ({b})", "strength_b": f"strength ({b})",
           "strength_b_lo": f"lo ({b})", "strength_b_hi": f"hi ({b})",
           "rank_a": f"rank ({a})", "rank_b": f"rank ({b})",
           "change": f"change ({b} − {a})", "change_lo": "change lo", "change_hi": "change hi"}
    return cmp.table.rename(columns=ren)


# ---------------------------------------------------------------------------
# Pool sizes
# ---------------------------------------------------------------------------
def rulebook_verdict(r) -> str:
    """The rulebook pool's verdict of a pool study's ``Recommendation``:
    "equivalent", "shown different" (shown outside the margin) or "inconclusive"
    (``r.rulebook_verdict``, :func:`vale_sim.stats.equivalence_verdict`)."""
    return r.rulebook_verdict


def pool_label(ra, rb) -> str:
    """The per-(player count, target) rule (module docstring)."""
    va, vb = rulebook_verdict(ra), rulebook_verdict(rb)
    if {va, vb} == {"equivalent", "shown different"}:
        return NOT_ROBUST
    shared = set(ra.equivalent_pools) & set(rb.equivalent_pools)
    ranges_ok = bool(shared) or (not ra.equivalent_pools and not rb.equivalent_pools)
    if va == vb and va != "inconclusive" and ranges_ok:
        return ROBUST
    return NOT_SHOWN


def _range(pools_list) -> str:
    """Shared pools as text: "none", "27, 29" or "25–35 (6 pools)"."""
    if not pools_list:
        return "none"
    if len(pools_list) <= 4:
        return ", ".join(str(p) for p in pools_list)
    return f"{min(pools_list)}–{max(pools_list)} ({len(pools_list)} pools)"


#: The columns of the pool comparison the report shows open (the CSV has all).
POOL_SHOWN = ("target", "players", "baseline_a", "baseline_b", "range_a", "range_b", "shared",
              "closest_a", "closest_b", "rulebook_pool", "rulebook_difference_a",
              "rulebook_difference_a_lo", "rulebook_difference_a_hi", "rulebook_difference_b",
              "rulebook_difference_b_lo", "rulebook_difference_b_hi", "rulebook_a", "rulebook_b",
              "n_games", "label")


@dataclass
class PoolComparison:
    """The pool recommendations under two baselines (see :func:`compare_pools`)."""
    table: pd.DataFrame
    recs_a: dict = field(default_factory=dict)
    recs_b: dict = field(default_factory=dict)
    baseline_a: str = "a"
    baseline_b: str = "b"

    def sentences(self) -> list[str]:
        out = []
        for r in self.table.itertuples():
            if r.target == "equal-length" and r.players == 2:
                out.append(f"Equal length: the goal itself moves — the 2-player rulebook game "
                           f"lasts {r.goal_a:.2f} rounds under {r.baseline_a} and "
                           f"{r.goal_b:.2f} under {r.baseline_b} (n = {r.n_games:,} games each).")
                continue
            what = "equal length" if r.target == "equal-length" else "seat gap"
            shared = f" (shared: {r.shared})" if r.shared != "none" else ""
            out.append(
                f"{r.players} players, {what}: equivalent pools {r.range_a} under "
                f"{r.baseline_a}, {r.range_b} under {r.baseline_b}{shared}; closest pool "
                f"{r.closest_a} → {r.closest_b}; the rulebook's {r.rulebook_pool} is "
                f"{r.rulebook_a} under {r.baseline_a} and {r.rulebook_b} under "
                f"{r.baseline_b} (n = {r.n_games:,} games per pool): {r.label}.")
        return out

    def counts(self) -> dict:
        t = self.table[~((self.table.target == "equal-length") & (self.table.players == 2))]
        return {lab: int((t["label"] == lab).sum()) for lab in (ROBUST, NOT_ROBUST, NOT_SHOWN)}


def compare_pools(recs_a: dict, recs_b: dict, baseline_a: str = "a", baseline_b=None
                  ) -> PoolComparison:
    """Side by side, per target and player count, the pool recommendations under two
    baselines (``{target: [Recommendation, ...]}`` as the report keeps them; the
    same grid and games).  ``baseline_b``: a name, or a callable ``players ->
    name`` when the strong baseline differs by player count."""
    rows = []
    name_b = baseline_b if callable(baseline_b) else (lambda p: baseline_b or "b")
    for target, ra_list in recs_a.items():
        by_p = {r.players: r for r in recs_b.get(target, [])}
        for ra in ra_list:
            rb = by_p.get(ra.players)
            if rb is None:
                continue
            eq = target == "equal-length"
            k = 1.0 if eq else 100.0
            shared = sorted(set(ra.equivalent_pools) & set(rb.equivalent_pools))
            rows.append({
                "target": target, "players": ra.players,
                "baseline_a": baseline_a, "baseline_b": name_b(ra.players),
                "unit": "rounds" if eq else "pp", "margin": k * ra.margin,
                "goal_a": k * ra.goal, "goal_b": k * rb.goal,
                "range_a": ra.range_text() or "none", "range_b": rb.range_text() or "none",
                "shared": _range(shared), "closest_a": ra.pool, "closest_b": rb.pool,
                "closest_shift": rb.pool - ra.pool,
                "interpolated_a": ra.interpolated_pool, "interpolated_b": rb.interpolated_pool,
                "rulebook_pool": ra.rulebook_pool,
                "rulebook_value_a": k * ra.rulebook_value, "rulebook_value_b": k * rb.rulebook_value,
                "rulebook_difference_a": k * ra.rulebook_difference,
                "rulebook_difference_a_lo": k * ra.rulebook_difference_ci[0],
                "rulebook_difference_a_hi": k * ra.rulebook_difference_ci[1],
                "rulebook_difference_b": k * rb.rulebook_difference,
                "rulebook_difference_b_lo": k * rb.rulebook_difference_ci[0],
                "rulebook_difference_b_hi": k * rb.rulebook_difference_ci[1],
                "rulebook_a": rulebook_verdict(ra), "rulebook_b": rulebook_verdict(rb),
                "n_games": min(ra.n_games, rb.n_games),
                "label": ("(the goal)" if eq and ra.players == 2 else pool_label(ra, rb))})
    return PoolComparison(pd.DataFrame(rows), recs_a, recs_b, baseline_a,
                          baseline_b if isinstance(baseline_b, str) else "strong")


def summary_sentence(cards: StrengthComparison | None, pools: PoolComparison | None,
                     strong: str) -> str:
    """The executive summary's one bullet: rank correlation, the flags that hold and those
    that change, and the pool verdicts -- each with its interval or its n."""
    parts = [f"Against a strong baseline ({strong}) on the same deals:"]
    if cards is not None:
        c = cards
        parts.append(c.rho_text() + ";")
        t = c.flagged
        if len(t):
            same = t[t["label"] == ROBUST]
            ch = t[t["label"] != ROBUST]
            s = f"{len(same)} of {len(t)} card flags are robust to the bots"
            s += (" (" + ", ".join(same["card"]) + ")") if len(same) else ""
            if len(ch):
                s += ", these change: " + ", ".join(f"{r.card} ({r.label})" for r in ch.itertuples())
            parts.append(s + ".")
        else:
            parts.append("no card is flagged under either baseline.")
    if pools is not None and len(pools.table):
        t = pools.table[~((pools.table.target == "equal-length") & (pools.table.players == 2))]
        if len(t):
            by = {}
            for r in t.itertuples():
                what = "length" if r.target == "equal-length" else "seat gap"
                by.setdefault(r.label, []).append(f"{r.players}p {what}")
            n = int(t["n_games"].min())
            parts.append("Pool verdicts (rulebook pool and equivalent range, n = "
                         f"{n:,} games per pool): "
                         + "; ".join(f"{lab}: {', '.join(v)}" for lab, v in by.items()) + ".")
    return " ".join(parts)
