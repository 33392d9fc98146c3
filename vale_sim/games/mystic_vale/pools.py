"""VP pool size by player count: game length, seat advantage, score make-up.

The rulebook's pools are 23 / 28 / 33 VP for 2 / 3 / 4 players (RB: Setup,
VP Tokens).  This module plays the same games (same master seed, same game
indices: common random numbers) at every pool size of a grid, per player
count, and measures

* game length in rounds,
* seat win rates (first-player advantage),
* the share of the final score that comes from harvest VP tokens (the rest is
  end-game VP on advancements and vales),
* score spread (winner − runner-up margin, within-game standard deviation),
* how often the pool runs dry and VP are taken from the box
  (box VP of a game = max(0, Σ tokens_vp − pool)),

each with its sample size and a 95 % interval, then recommends a pool size per
player count for a stated target (:data:`TARGETS`).

    frame = simulate_pools("core", players=[2, 3, 4], pools=parse_pools("15:45:2"), games=500)
    table = summarize_pools(frame)
    rec = recommend(table, target="equal-length", margin=0.5)   # TOST, ±0.5 rounds
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np

from .rules import VP_POOL, Rules
from vale_sim import stats
from vale_sim.stats import wilson_interval
from vale_sim.inputs import parse_int
from vale_sim.io import jsonable

RULEBOOK_POOLS = dict(VP_POOL)          # {2: 23, 3: 28, 4: 33}
TARGETS = ("equal-length", "seat-advantage")
DEFAULT_POOLS = "15:45:2"
ENGINES = ("auto", "fast", "reference")


# ---------------------------------------------------------------------------
# Grids
# ---------------------------------------------------------------------------
def parse_players(spec) -> list[int]:
    """``"2,3,4"`` (or an int / list) -> sorted unique player counts in 2..4."""
    if isinstance(spec, int):
        items = [spec]
    elif isinstance(spec, str):
        try:
            items = [parse_int(s, negative=True) for s in spec.replace(" ", "").split(",") if s]
        except ValueError:
            raise ValueError(f"players must be a comma list like 2,3,4, got {spec!r}") from None
    else:
        items = [int(s) for s in spec]
    bad = [p for p in items if p not in RULEBOOK_POOLS]
    if bad or not items:
        raise ValueError(f"players must be among 2, 3, 4, got {spec!r}")
    return sorted(set(items))


def parse_pools(spec, players=(2, 3, 4), include_rulebook: bool = True) -> list[int]:
    """Pool sizes from ``"lo:hi:step"`` (inclusive), ``"20,25,30"``, an int or a list.

    The rulebook values for ``players`` are always added unless
    ``include_rulebook`` is False.
    """
    if isinstance(spec, int):
        pools = [spec]
    elif isinstance(spec, str):
        s = spec.replace(" ", "")
        try:
            if ":" in s:
                parts = [parse_int(x, negative=True) for x in s.split(":")]
                if len(parts) not in (2, 3):
                    raise ValueError
                lo, hi = parts[0], parts[1]
                step = parts[2] if len(parts) == 3 else 1
                if step < 1 or hi < lo:
                    raise ValueError
                pools = list(range(lo, hi + 1, step))
            else:
                pools = [parse_int(x, negative=True) for x in s.split(",") if x]
        except ValueError:
            raise ValueError(f"pools must be lo:hi:step (e.g. 15:45:2) or a comma list, got {spec!r}") from None
    else:
        pools = [int(x) for x in spec]
    if not pools or any(p < 1 for p in pools):
        raise ValueError(f"pool sizes must be positive integers, got {spec!r}")
    if include_rulebook:
        pools += [RULEBOOK_POOLS[p] for p in players]
    return sorted(set(pools))


# ---------------------------------------------------------------------------
# Playing the games
# ---------------------------------------------------------------------------
def fast_engine_available() -> bool:
    """True when the numba engine can be imported."""
    try:
        from .fast import api  # noqa: F401
    except Exception:
        return False
    return True


def resolve_engine(engine: str = "auto") -> str:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine == "auto":
        return "fast" if fast_engine_available() else "reference"
    return engine


def play_games(card_set, players: int, seed: int, games: int, policies=None,
               rules: Rules | None = None, engine: str = "auto", out=None,
               progress: bool = False, workers: int = 1):
    """Per-game, per-player results of games ``0 .. games-1`` (DataFrame).

    Uses ``vale_sim.runner.run`` when it exists (chunks written to ``out`` are
    reused on a re-run), else the engines' own batch functions.
    """
    from .cards import load_card_set
    cs = load_card_set(card_set)
    rules = rules or Rules()
    engine = resolve_engine(engine)
    try:
        from vale_sim import runner
    except ImportError:
        runner = None
    if runner is not None:
        from .policy import DEFAULT_POLICY
        cfg = runner.RunConfig(card_set=cs, players=players, seed=seed, games=games,
                               policies=policies or (DEFAULT_POLICY,), rules=rules, engine=engine)
        if hasattr(out, "run"):                  # a chunk store (vale_sim.experiments.ChunkStore)
            return out.run(cfg, workers)
        kw = dict(workers=workers, progress=progress)
        if out is not None:
            kw.update(out=out, resume=True)
        return runner.run(cfg, **kw)
    if engine == "fast":
        from .fast.api import run_fast
        return run_fast(cs, players, seed, games, policies, rules)
    from .records import results_frame
    from .reference.game import play_reference
    recs = [play_reference(cs, players, seed, i, policies=policies, rules=rules)
            for i in _progress(range(games), progress, f"{players}p pool {rules.pool_for(players)}")]
    return results_frame(recs, cs)


def _progress(it, on: bool, desc: str):
    if not on:
        return it
    from tqdm.auto import tqdm
    return tqdm(it, desc=desc, leave=False, disable=not sys.stderr.isatty())


KEEP_COLUMNS = ("players", "pool", "game", "player", "seat", "policy", "score", "tokens_vp",
                "adv_vp", "vale_vp", "win_share", "rounds", "truncated")


def simulate_pools(card_set="core", players=(2, 3, 4), pools=None, games: int = 200,
                   seed: int = 1, policies=None, engine: str = "auto", rules: Rules | None = None,
                   out=None, progress: bool = False, workers: int = 1, baseline=None):
    """Play ``games`` games per (player count, pool size); one frame of all of them.

    Every cell uses the same master seed and game indices (common random
    numbers), so differences between pool sizes are not shuffle luck.
    ``policies`` is one policy spec for all seats (or None: the default).
    Adds columns ``players`` and ``pool``.  ``out`` (a directory) keeps each
    cell's chunks under ``out/p{players}_pool{pool}`` for resuming; or a
    chunk store with a ``run(cfg, workers)`` method (vale_sim.experiments).
    ``baseline``: the policy of every seat instead of ``policies`` -- a preset,
    bundled policy, policy file or Policy, where ``{P}`` in a name stands for
    the player count ("optimized-{P}p": the bundled optimised policy of each
    count); all are resolved before any game is played.
    """
    import pandas as pd
    from pathlib import Path
    players = parse_players(players if not isinstance(players, int) else [players])
    pools = parse_pools(pools if pools is not None else DEFAULT_POOLS, players)
    by_players = {}
    if baseline is not None:
        from . import GAME
        by_players = {p: GAME.resolve_baseline(baseline, p) for p in players}
    base = rules or Rules()
    frames = []
    cells = [(p, v) for p in players for v in pools]
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(cells) * games, desc="pool sizes", unit="game", leave=False,
                   disable=not sys.stderr.isatty())
    for p, v in cells:
        r = Rules(prep_count=base.prep_count, vp_pool=v, level1_deck_size=base.level1_deck_size,
                  max_rounds=base.max_rounds)
        pol = None if policies is None else ([policies] * p if isinstance(policies, str) else policies)
        if baseline is not None:
            pol = [by_players[p]] * p
        cell_out = out if out is None or hasattr(out, "run") else Path(out) / f"p{p}_pool{v}"
        df = play_games(card_set, p, seed, games, pol, r, engine, cell_out, False, workers)
        df = df[[c for c in KEEP_COLUMNS[2:] if c in df.columns]].copy()   # drop per-card columns
        df.insert(0, "pool", v)
        df.insert(0, "players", p)
        frames.append(df)
        if bar is not None:
            bar.update(games)
    if bar is not None:
        bar.close()
    return pd.concat(frames, ignore_index=True)


def baseline_name(baseline, players: int) -> str:
    """The name of the policy every seat plays at ``players`` players (see
    :func:`simulate_pools`; None: the default policy)."""
    if baseline is None:
        from .policy import DEFAULT_POLICY
        return DEFAULT_POLICY
    from . import GAME
    return GAME.resolve_baseline(baseline, players).name


# ---------------------------------------------------------------------------
# Summaries
# ---------------------------------------------------------------------------
def mean_interval(x, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(mean, lo, hi)``: Student-t interval for a mean (nan bounds below 2 values)."""
    x = np.asarray(x, dtype=float)
    n = x.size
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = float(x.mean())
    if n < 2:
        return (m, math.nan, math.nan)
    from scipy.stats import t
    se = float(x.std(ddof=1)) / math.sqrt(n)
    q = float(t.ppf(0.5 + confidence / 2, n - 1))
    return (m, m - q * se, m + q * se)


def per_game(frame):
    """One row per (players, pool, game): length, box VP, token share, margin, spread."""
    import pandas as pd
    keys = ["players", "pool", "game"]
    f = frame.sort_values(keys + ["score"], ascending=[True, True, True, False], kind="stable")
    g = f.groupby(keys, sort=True)
    out = g.agg(rounds=("rounds", "first"), truncated=("truncated", "first"),
                tokens=("tokens_vp", "sum"), score_total=("score", "sum"))
    out["score_sd"] = g["score"].std(ddof=0).fillna(0.0)
    first = g["score"].nth(0).to_numpy(float)            # rows sorted by score, best first
    second = g["score"].nth(1)
    second = second.to_numpy(float) if len(second) == len(out) else first
    out["margin"] = first - second                      # winner - runner-up
    out = out.reset_index()
    out["box_vp"] = np.maximum(0, out["tokens"] - out["pool"])
    out["token_share"] = np.where(out["score_total"] > 0,
                                  out["tokens"] / out["score_total"].where(out["score_total"] > 0, 1),
                                  np.nan)
    return pd.DataFrame(out)


def seat_gap(rates, cis, fair) -> tuple[float, list]:
    """Largest |seat win rate − fair share| over seats, with an interval.

    Per seat, |rate − fair| lies in [distance from fair to the seat's interval
    (0 if it contains fair), farther end]; the maximum over seats lies between
    the maxima of those bounds (no multiplicity correction: indicative).
    """
    gaps = [abs(r - fair) for r in rates]
    lo = [0.0 if c[0] <= fair <= c[1] else min(abs(c[0] - fair), abs(c[1] - fair)) for c in cis]
    hi = [max(abs(c[0] - fair), abs(c[1] - fair)) for c in cis]
    return float(max(gaps)), [float(max(lo)), float(max(hi))]


def summarize_pools(frame, confidence: float = 0.95):
    """One row per (players, pool): every rate and mean with ``n`` and an interval.

    Columns include ``players, pool, rulebook, n_games, mean_rounds,
    mean_rounds_ci, first_seat_win_rate, first_seat_win_rate_ci,
    last_seat_win_rate(_ci), seat_advantage(_ci)`` (first seat minus ``1/players``),
    ``max_seat_gap(_ci)`` (largest |seat win rate − 1/players| over seats),
    ``seat_win_rates`` / ``seat_win_rates_ci`` (lists by seat),
    ``token_vp_share(_ci)``, ``endgame_vp_share(_ci)``, ``mean_margin(_ci)``,
    ``score_sd(_ci)``, ``overflow_rate(_ci)``, ``mean_box_vp(_ci)``,
    ``truncated_rate``.  Intervals are ``[lo, hi]`` lists.
    """
    import pandas as pd
    games = per_game(frame)
    rows = []
    seat_tab = frame.groupby(["players", "pool", "seat"])["win_share"].agg(["sum", "size"])
    for (p, v), gdf in games.groupby(["players", "pool"], sort=True):
        n = len(gdf)
        row = {"players": int(p), "pool": int(v), "rulebook": RULEBOOK_POOLS.get(int(p)) == int(v),
               "n_games": n}
        m, lo, hi = mean_interval(gdf["rounds"], confidence)
        row.update(mean_rounds=m, mean_rounds_ci=[lo, hi],
                   sd_rounds=float(gdf["rounds"].std(ddof=1)) if n > 1 else math.nan)
        rates, cis = [], []
        for s in range(int(p)):
            succ, cnt = seat_tab.loc[(p, v, s)] if (p, v, s) in seat_tab.index else (0.0, 0)
            rates.append(float(succ / cnt) if cnt else math.nan)
            cis.append(list(wilson_interval(float(succ), int(cnt), confidence)))
        row.update(first_seat_win_rate=rates[0], first_seat_win_rate_ci=cis[0],
                   last_seat_win_rate=rates[-1], last_seat_win_rate_ci=cis[-1],
                   seat_win_rates=rates, seat_win_rates_ci=cis)
        fair = 1.0 / p
        row.update(seat_advantage=rates[0] - fair,
                   seat_advantage_ci=[cis[0][0] - fair, cis[0][1] - fair])
        gap, gap_ci = seat_gap(rates, cis, fair)
        row.update(max_seat_gap=gap, max_seat_gap_ci=gap_ci)
        m, lo, hi = mean_interval(gdf["token_share"].dropna(), confidence)
        row.update(token_vp_share=m, token_vp_share_ci=[lo, hi],
                   endgame_vp_share=1 - m, endgame_vp_share_ci=[1 - hi, 1 - lo])
        m, lo, hi = mean_interval(gdf["margin"], confidence)
        row.update(mean_margin=m, mean_margin_ci=[lo, hi])
        m, lo, hi = mean_interval(gdf["score_sd"], confidence)
        row.update(score_sd=m, score_sd_ci=[lo, hi])
        k = int((gdf["box_vp"] > 0).sum())
        row.update(overflow_rate=k / n, overflow_rate_ci=list(wilson_interval(k, n, confidence)))
        m, lo, hi = mean_interval(gdf["box_vp"], confidence)
        row.update(mean_box_vp=m, mean_box_vp_ci=[lo, hi])
        t = int(gdf["truncated"].sum())
        row.update(truncated_rate=t / n, truncated_rate_ci=list(wilson_interval(t, n, confidence)))
        rows.append(row)
    df = pd.DataFrame(rows)
    df.attrs["confidence"] = confidence
    return df


# ---------------------------------------------------------------------------
# Recommendation
# ---------------------------------------------------------------------------
@dataclass
class Recommendation:
    """The pool sizes that meet ``target`` for one player count, by an equivalence test.

    ``equal-length``: a pool is *equivalent* to the target when the 90 %
    interval of (its mean length − the target length) lies inside
    ``±margin`` rounds (two one-sided tests, TOST, at 5 % each).
    ``seat-advantage``: when the upper end of its largest-seat-gap interval
    is below ``margin`` (a fraction: 0.02 = 2 pp).
    """
    players: int
    target: str
    margin: float                # rounds (equal-length) or a fraction (seat-advantage)
    pool: int                    # the grid pool closest to the goal
    equivalent_pools: list       # grid pools equivalent to the target within the margin
    pool_range: tuple | None     # (min, max) of equivalent_pools, None when there is none
    value: float                 # the metric at ``pool``
    value_ci: tuple[float, float]
    n_games: int                 # games at ``pool``
    goal: float                  # the value aimed at (target length, or 0 gap)
    goal_ci: tuple[float, float]
    difference: float            # value − goal at ``pool``
    difference_ci: tuple[float, float]   # 90 % interval (TOST) for equal-length
    rulebook_pool: int
    rulebook_value: float
    rulebook_value_ci: tuple[float, float]
    rulebook_difference: float
    rulebook_difference_ci: tuple[float, float]
    rulebook_p_tost: float       # TOST p-value of the rulebook pool (equal-length), nan otherwise
    rulebook_equivalent: bool    # the rulebook pool is equivalent to the target
    interpolated_pool: float     # pool where the metric crosses the goal (linear), or nan
    tested_pools: list = field(default_factory=list)   # every pool played for this count
    #: the rulebook pool: "equivalent", "shown different" (shown outside the margin) or
    #: "inconclusive" (vale_sim.stats.equivalence_verdict)
    rulebook_verdict: str = "inconclusive"
    paired: bool = False         # equal-length: differences paired by game (deal) index

    def range_text(self) -> str:
        """The equivalent pools as a range, naming the tested pools inside it that are
        not equivalent ("27–31", "15–45 (except 28, 35)"); "" when there is none."""
        if self.pool_range is None:
            return ""
        lo, hi = self.pool_range
        if lo == hi:
            return f"{lo}"
        gaps = [p for p in self.tested_pools if lo < p < hi and p not in self.equivalent_pools]
        return f"{lo}–{hi}" + (f" (except {', '.join(map(str, gaps))})" if gaps else "")

    def to_dict(self) -> dict:
        from dataclasses import asdict
        return asdict(self)

    def sentence(self) -> str:
        eq = self.target == "equal-length"
        what = "game length" if eq else "largest seat gap"
        fmt = (lambda x: f"{x:.2f}") if eq else (lambda x: f"{100 * x:.1f} pp")
        dfmt = (lambda x: f"{x:+.2f}") if eq else (lambda x: f"{100 * x:+.1f} pp")
        unit = " rounds" if eq else ""
        marg = f"±{self.margin:.2f} rounds" if eq else f"{100 * self.margin:.1f} pp"
        if self.pool_range is None:
            rng = f"no grid pool is equivalent within {marg}"
        else:
            rng = f"pools equivalent within {marg}: {self.range_text()}"
        interp = (f"; the curve crosses the goal at ≈{self.interpolated_pool:.1f}"
                  if eq and np.isfinite(self.interpolated_pool) else "")
        ci = "90%" if eq else "95%"
        rb = self.rulebook_verdict
        return (f"{self.players} players ({rng}{interp}): closest pool {self.pool} gives {what} "
                f"{fmt(self.value)}{unit} [{fmt(self.value_ci[0])}, {fmt(self.value_ci[1])}] "
                f"(n={self.n_games}) vs goal {fmt(self.goal)}; the rulebook's {self.rulebook_pool} "
                f"gives {fmt(self.rulebook_value)} [{fmt(self.rulebook_value_ci[0])}, "
                f"{fmt(self.rulebook_value_ci[1])}], {'difference' if eq else 'gap'} "
                f"{dfmt(self.rulebook_difference)} [{ci} {dfmt(self.rulebook_difference_ci[0])}, "
                f"{dfmt(self.rulebook_difference_ci[1])}] — {rb}.")


def _se_from_ci(lo: float, hi: float, z: float = 1.959964) -> float:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return math.nan
    return (hi - lo) / (2 * z)


def _crossing(x, y, goal) -> float:
    """First x where the piecewise-linear curve y(x) crosses ``goal`` (nan if none)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float) - goal
    for i in range(len(x) - 1):
        if y[i] == 0:
            return float(x[i])
        if np.sign(y[i]) != np.sign(y[i + 1]) and np.isfinite(y[i]) and np.isfinite(y[i + 1]):
            return float(x[i] + (x[i + 1] - x[i]) * (-y[i]) / (y[i + 1] - y[i]))
    if len(y) and y[-1] == 0:
        return float(x[-1])
    return math.nan


def tost(diff: float, se: float, margin: float) -> tuple[float, tuple[float, float], bool]:
    """Two one-sided tests of ``|difference| < margin`` (normal approximation):
    :func:`vale_sim.stats.tost` as ``(p, 90% interval, equivalent at 5%)``.
    ``se == 0`` (a cell against itself): the difference is known exactly and the
    point estimate decides."""
    from vale_sim.stats import tost as _tost
    if not np.isfinite(diff) or not np.isfinite(se):
        return math.nan, (math.nan, math.nan), False
    p, ci = _tost(diff, se, margin)
    return p, ci, p < 0.05


def _paired_rounds(games) -> dict:
    """(players, pool) -> rounds per game index (a Series), from :func:`per_game` rows."""
    return {(int(p), int(v)): g.set_index("game")["rounds"].astype(float)
            for (p, v), g in games.groupby(["players", "pool"], sort=False)}


DEFAULT_MARGIN = 0.5            # rounds (equal-length)
DEFAULT_SEAT_MARGIN = 0.03      # 3 pp (seat-advantage)


def recommend(summary, target: str = "equal-length", reference_players: int = 2,
              reference_pool: int | None = None, margin: float | None = None,
              frame=None) -> list[Recommendation]:
    """Per player count, the grid pools that meet ``target``, by an equivalence test.

    * ``"equal-length"``: goal = the mean length at ``reference_players`` with
      its rulebook pool (or ``reference_pool``).  A pool is equivalent when
      the 90 % interval of (its mean rounds − goal) lies inside ``±margin``
      rounds (TOST at 5 %; default 0.5 rounds).  With ``frame`` (the
      :func:`simulate_pools` frame) the difference is the mean of the per-game
      differences paired by game index (every cell plays games ``0 .. n-1`` of
      the same seed: the same deals), with a paired t interval: at 2 players
      the cells share the goal's deals, and the paired spread is far smaller
      than the sum of the two cells' (issue 24: 0.012 against 0.054 rounds).
      Without ``frame`` the cells are treated as independent samples
      (conservative).  The goal's own cell differs from itself by exactly 0
      (se 0: equivalent).
    * ``"seat-advantage"``: the largest seat gap ``max_seat_gap`` (max over
      seats of |win rate − 1/players|); a pool is equivalent to "no seat
      advantage" when the upper end of the gap's interval is below
      ``margin`` (a fraction; default 0.03 = 3 pp).

    ``pool`` is the grid pool closest to the goal; ``equivalent_pools`` /
    ``pool_range`` the equivalent ones (possibly none: more games or a wider
    margin are then needed).  ``summary`` is :func:`summarize_pools` output.
    """
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    if margin is None:
        margin = DEFAULT_MARGIN if target == "equal-length" else DEFAULT_SEAT_MARGIN
    if not (isinstance(margin, (int, float)) and margin > 0 and math.isfinite(margin)):
        raise ValueError(f"margin must be a positive number, got {margin!r}")
    recs = []
    if target == "equal-length":
        ref_pool = reference_pool or RULEBOOK_POOLS[reference_players]
        ref = summary[(summary.players == reference_players) & (summary.pool == ref_pool)]
        if ref.empty:
            raise ValueError(f"the summary has no row for {reference_players} players, pool {ref_pool}")
        ref = ref.iloc[0]
        goal = float(ref.mean_rounds)
        goal_ci = tuple(float(x) for x in ref.mean_rounds_ci)
        goal_se = _se_from_ci(*goal_ci)
        by_cell = _paired_rounds(per_game(frame)) if frame is not None else None
        goal_games = by_cell.get((reference_players, ref_pool)) if by_cell else None
    for p, s in summary.groupby("players", sort=True):
        s = s.sort_values("pool").reset_index(drop=True)
        if target == "equal-length":
            ci_col = "mean_rounds_ci"
            metric = s["mean_rounds"].to_numpy(float)
            diffs = metric - goal
            tests, verdicts = [], []
            paired = goal_games is not None
            for i, c in enumerate(s[ci_col]):
                same = int(p) == reference_players and int(s["pool"].iloc[i]) == ref_pool
                cell = by_cell.get((int(p), int(s["pool"].iloc[i]))) if paired else None
                df_ = None
                if same:
                    se = 0.0
                elif cell is not None and cell.index.equals(goal_games.index) and len(cell) > 1:
                    d = stats.paired_difference(cell.to_numpy(), goal_games.to_numpy())
                    diffs[i], se, df_ = d.mean, d.se, d.n - 1
                else:
                    se = math.sqrt(np.nan_to_num(_se_from_ci(*c)) ** 2
                                   + (0 if math.isnan(goal_se) else goal_se) ** 2)
                pt, ci90 = stats.tost(float(diffs[i]), se, margin, df_)
                tests.append((pt, ci90, pt < 0.05))
                verdicts.append(stats.equivalence_verdict(
                    pt, stats.beyond_p(float(diffs[i]), se, margin, df_)))
            ok = np.array([t[2] for t in tests])
            dist = np.abs(diffs)
            g, gci = goal, goal_ci
        else:
            ci_col = "max_seat_gap_ci"
            metric = s["max_seat_gap"].to_numpy(float)
            diffs, dist = metric, metric
            tests = [(math.nan, tuple(c), bool(c[1] < margin)) for c in s[ci_col]]
            verdicts = [stats.EQUIVALENT if c[1] < margin else
                        stats.DIFFERENT if c[0] > margin else stats.INCONCLUSIVE
                        for c in s[ci_col]]
            paired = False
            ok = np.array([t[2] for t in tests])
            g, gci = 0.0, (0.0, 0.0)
        b = int(np.nanargmin(dist))
        pools_ok = [int(v) for v in s["pool"][ok]]
        rb_pool = RULEBOOK_POOLS[int(p)]
        rbi = s.index[s.pool == rb_pool]
        if len(rbi):
            i = int(rbi[0])
            rb_val, rb_ci = float(metric[i]), tuple(float(x) for x in s[ci_col].iloc[i])
            rb_p, rb_dci, rb_ok = tests[i][0], tests[i][1], tests[i][2]
            rb_d, rb_v = float(diffs[i]), verdicts[i]
        else:
            rb_val, rb_ci, rb_p, rb_dci, rb_ok, rb_d = (math.nan, (math.nan, math.nan), math.nan,
                                                        (math.nan, math.nan), False, math.nan)
            rb_v = stats.INCONCLUSIVE
        recs.append(Recommendation(
            players=int(p), target=target, margin=float(margin), pool=int(s["pool"].iloc[b]),
            equivalent_pools=pools_ok,
            pool_range=(min(pools_ok), max(pools_ok)) if pools_ok else None,
            tested_pools=[int(x) for x in s["pool"]],
            value=float(metric[b]), value_ci=tuple(float(x) for x in s[ci_col].iloc[b]),
            n_games=int(s["n_games"].iloc[b]),
            goal=float(g), goal_ci=tuple(float(x) for x in gci),
            difference=float(diffs[b]), difference_ci=tuple(float(x) for x in tests[b][1]),
            rulebook_pool=rb_pool, rulebook_value=rb_val, rulebook_value_ci=rb_ci,
            rulebook_difference=rb_d, rulebook_difference_ci=tuple(float(x) for x in rb_dci),
            rulebook_p_tost=float(rb_p), rulebook_equivalent=bool(rb_ok),
            interpolated_pool=_crossing(s["pool"], metric, g), rulebook_verdict=rb_v,
            paired=bool(paired)))
    return recs


def metric_col(target: str) -> str:
    return "mean_rounds" if target == "equal-length" else "max_seat_gap"


def recommendations_frame(recs, digits: int = 2):
    """One row per player count with rounded numbers (rounds, or percentage
    points for the seat-advantage target) and intervals as ``_lo``/``_hi``
    columns: a table to print, not raw tuples."""
    import pandas as pd
    rows = []
    for r in recs:
        k = 1 if r.target == "equal-length" else 100
        unit = "rounds" if r.target == "equal-length" else "pp"

        def rd(x):
            return round(k * x, digits) if x is not None and np.isfinite(x) else math.nan
        rows.append({
            "players": r.players, "target": r.target, "unit": unit, "margin": rd(r.margin),
            "equivalent_range": r.range_text() or "none",
            "equivalent_pools": ", ".join(str(v) for v in r.equivalent_pools) or "none",
            "closest_pool": r.pool, "n_games": r.n_games, "value": rd(r.value),
            "value_lo": rd(r.value_ci[0]), "value_hi": rd(r.value_ci[1]), "goal": rd(r.goal),
            "difference": rd(r.difference), "difference_lo": rd(r.difference_ci[0]),
            "difference_hi": rd(r.difference_ci[1]),
            "interpolated_pool": round(r.interpolated_pool, 1) if np.isfinite(r.interpolated_pool)
            else math.nan,
            "rulebook_pool": r.rulebook_pool, "rulebook_value": rd(r.rulebook_value),
            "rulebook_value_lo": rd(r.rulebook_value_ci[0]),
            "rulebook_value_hi": rd(r.rulebook_value_ci[1]),
            "rulebook_difference": rd(r.rulebook_difference),
            "rulebook_difference_lo": rd(r.rulebook_difference_ci[0]),
            "rulebook_difference_hi": rd(r.rulebook_difference_ci[1]),
            "rulebook_p_tost": round(r.rulebook_p_tost, 4) if np.isfinite(r.rulebook_p_tost)
            else math.nan,
            "rulebook_equivalent": r.rulebook_equivalent,
            "rulebook_verdict": r.rulebook_verdict,
        })
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------
JSON_KEYS = ("players", "pool", "rulebook", "n_games", "mean_rounds", "mean_rounds_ci",
             "sd_rounds", "first_seat_win_rate", "first_seat_win_rate_ci",
             "last_seat_win_rate", "last_seat_win_rate_ci", "seat_advantage",
             "seat_advantage_ci", "max_seat_gap", "max_seat_gap_ci", "seat_win_rates",
             "seat_win_rates_ci", "token_vp_share",
             "token_vp_share_ci", "endgame_vp_share", "endgame_vp_share_ci", "mean_margin",
             "mean_margin_ci", "score_sd", "score_sd_ci", "overflow_rate", "overflow_rate_ci",
             "mean_box_vp", "mean_box_vp_ci", "truncated_rate", "truncated_rate_ci")


def to_records(summary, recs=()) -> list[dict]:
    """JSON-ready records (one per (players, pool)); nan becomes null.

    With recommendations ``recs`` (one target), each record also says
    ``target``, ``margin``, ``recommended`` (the closest pool) and
    ``equivalent`` (the pool passes the equivalence test).
    """
    by_players = {r.players: r for r in recs}
    out = []
    for r in summary.to_dict("records"):
        d = {k: jsonable(r[k]) for k in JSON_KEYS if k in r}
        rec = by_players.get(d["players"])
        if rec is not None:
            d.update(target=rec.target, margin=rec.margin, recommended=d["pool"] == rec.pool,
                     equivalent=d["pool"] in rec.equivalent_pools)
        out.append(d)
    return out


def flat_table(summary, digits: int = 3):
    """The summary with intervals as ``lo``/``hi`` columns (for CSV and display)."""
    import pandas as pd
    out = {}
    for c in summary.columns:
        if c in ("seat_win_rates", "seat_win_rates_ci"):
            continue
        if c.endswith("_ci"):
            base = c[:-3]
            out[f"{base}_lo"] = [v[0] for v in summary[c]]
            out[f"{base}_hi"] = [v[1] for v in summary[c]]
        else:
            out[c] = summary[c].tolist()
    for i in range(int(summary["players"].max()) if len(summary) else 0):
        out[f"seat{i}_win_rate"] = [r[i] if i < len(r) else math.nan for r in summary["seat_win_rates"]]
    df = pd.DataFrame(out)
    num = df.select_dtypes("float").columns
    df[num] = df[num].round(digits)
    return df


def format_table(summary) -> str:
    """A readable text table: one line per (players, pool), every mean and rate with its
    95 % interval (n = games per cell)."""
    def iv(m, ci, k=1.0, d=1):
        lo, hi = ci
        return f"{k * m:.{d}f} [{k * lo:.{d}f}, {k * hi:.{d}f}]"
    lines = [f"{'pl':>2} {'pool':>4} {'n':>6}  {'rounds':<19} {'1st seat win %':<19} "
             f"{'token VP share %':<19} {'winner margin':<20} {'box used %':<17}"]
    for r in summary.to_dict("records"):
        mark = "*" if r["rulebook"] else " "
        lines.append(
            f"{r['players']:>2} {r['pool']:>3}{mark} {r['n_games']:>6}  "
            f"{iv(r['mean_rounds'], r['mean_rounds_ci'], d=2):<19} "
            f"{iv(r['first_seat_win_rate'], r['first_seat_win_rate_ci'], 100):<19} "
            f"{iv(r['token_vp_share'], r['token_vp_share_ci'], 100):<19} "
            f"{iv(r['mean_margin'], r['mean_margin_ci'], d=2):<20} "
            f"{iv(r['overflow_rate'], r['overflow_rate_ci'], 100):<17}")
    lines.append("* rulebook pool for this player count; [95% interval]; seat 1 = starting player")
    return "\n".join(lines)
