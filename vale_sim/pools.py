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
    rec = recommend(table, target="equal-length")
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from .rules import VP_POOL, Rules
from .stats import wilson_interval

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
            items = [int(s) for s in spec.replace(" ", "").split(",") if s]
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
                parts = [int(x) for x in s.split(":")]
                if len(parts) not in (2, 3):
                    raise ValueError
                lo, hi = parts[0], parts[1]
                step = parts[2] if len(parts) == 3 else 1
                if step < 1 or hi < lo:
                    raise ValueError
                pools = list(range(lo, hi + 1, step))
            else:
                pools = [int(x) for x in s.split(",") if x]
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
        from . import runner
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
        from .fast.api import run_games
        return run_games(cs, players, seed, games, policies, rules)
    from .records import results_frame
    from .reference.game import play_game
    recs = [play_game(cs, players, seed, i, policies=policies, rules=rules)
            for i in _progress(range(games), progress, f"{players}p pool {rules.pool_for(players)}")]
    return results_frame(recs)


def _progress(it, on: bool, desc: str):
    if not on:
        return it
    from tqdm.auto import tqdm
    return tqdm(it, desc=desc, leave=False, disable=not sys.stderr.isatty())


KEEP_COLUMNS = ("players", "pool", "game", "player", "seat", "policy", "score", "tokens_vp",
                "adv_vp", "vale_vp", "win_share", "rounds", "truncated")


def simulate_pools(card_set="core", players=(2, 3, 4), pools=None, games: int = 200,
                   seed: int = 1, policies=None, engine: str = "auto", rules: Rules | None = None,
                   out=None, progress: bool = False, workers: int = 1):
    """Play ``games`` games per (player count, pool size); one frame of all of them.

    Every cell uses the same master seed and game indices (common random
    numbers), so differences between pool sizes are not shuffle luck.
    ``policies`` is one policy spec for all seats (or None: the default).
    Adds columns ``players`` and ``pool``.  ``out`` (a directory) keeps each
    cell's chunks under ``out/p{players}_pool{pool}`` for resuming; or a
    chunk store with a ``run(cfg, workers)`` method (vale_sim.experiments).
    """
    import pandas as pd
    from pathlib import Path
    players = parse_players(players if not isinstance(players, int) else [players])
    pools = parse_pools(pools if pools is not None else DEFAULT_POOLS, players)
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
    """The pool size that best meets ``target`` for one player count."""
    players: int
    target: str
    pool: int                    # best grid pool
    pool_range: tuple[int, int]  # grid pools statistically consistent with the target
    value: float                 # the metric at ``pool``
    value_ci: tuple[float, float]
    goal: float                  # the value aimed at (target length, or 0 advantage)
    goal_ci: tuple[float, float]
    rulebook_pool: int
    rulebook_value: float
    rulebook_value_ci: tuple[float, float]
    rulebook_consistent: bool    # the rulebook pool lies inside pool_range
    interpolated_pool: float     # pool where the metric crosses the goal (linear), or nan

    def to_dict(self) -> dict:
        from dataclasses import asdict
        return asdict(self)

    def sentence(self) -> str:
        what = "game length" if self.target == "equal-length" else "largest seat gap"
        unit = " rounds" if self.target == "equal-length" else ""
        fmt = (lambda x: f"{x:.2f}") if self.target == "equal-length" else (lambda x: f"{100 * x:+.1f} pp")
        lo, hi = self.pool_range
        rng = f"{lo}" if lo == hi else f"{lo}–{hi}"
        rb = "inside" if self.rulebook_consistent else "outside"
        interp = (f", curve crosses the goal at ≈{self.interpolated_pool:.1f}"
                  if self.target == "equal-length" and np.isfinite(self.interpolated_pool) else "")
        return (f"{self.players} players: pool {self.pool} (consistent range {rng}{interp}) gives {what} "
                f"{fmt(self.value)}{unit} [{fmt(self.value_ci[0])}, {fmt(self.value_ci[1])}] "
                f"vs goal {fmt(self.goal)}; the rulebook's {self.rulebook_pool} gives "
                f"{fmt(self.rulebook_value)} [{fmt(self.rulebook_value_ci[0])}, "
                f"{fmt(self.rulebook_value_ci[1])}] — {rb} the range.")


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


def recommend(summary, target: str = "equal-length", reference_players: int = 2,
              reference_pool: int | None = None) -> list[Recommendation]:
    """Per player count, the grid pool size that best meets ``target``.

    * ``"equal-length"``: the expected game length (mean rounds) closest to the
      length at ``reference_players`` with its rulebook pool (or
      ``reference_pool``).  ``pool_range`` = grid pools whose difference from
      that length has a 95 % interval containing 0 (normal approximation,
      independent samples), always including the best.
    * ``"seat-advantage"``: the smallest largest-seat gap (``max_seat_gap``:
      max over seats of |win rate − 1/players|); ``pool_range`` = pools whose
      gap interval overlaps the best's.

    ``summary`` is :func:`summarize_pools` output.
    """
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    z = 1.959964
    recs = []
    if target == "equal-length":
        ref_pool = reference_pool or RULEBOOK_POOLS[reference_players]
        ref = summary[(summary.players == reference_players) & (summary.pool == ref_pool)]
        if ref.empty:
            raise ValueError(f"the summary has no row for {reference_players} players, pool {ref_pool}")
        ref = ref.iloc[0]
        goal = float(ref.mean_rounds)
        goal_ci = tuple(ref.mean_rounds_ci)
        goal_se = _se_from_ci(*goal_ci)
    for p, s in summary.groupby("players", sort=True):
        s = s.sort_values("pool").reset_index(drop=True)
        if target == "equal-length":
            metric, ci_col = s["mean_rounds"].to_numpy(float), "mean_rounds_ci"
            dist = np.abs(metric - goal)
            se = np.array([_se_from_ci(*c) for c in s[ci_col]])
            tot = np.sqrt(np.nan_to_num(se) ** 2 + (0 if math.isnan(goal_se) else goal_se) ** 2)
            ok = dist <= z * tot
            g, gci = goal, goal_ci
        else:
            metric, ci_col = s["max_seat_gap"].to_numpy(float), "max_seat_gap_ci"
            dist = metric
            best_ci = s[ci_col].iloc[int(np.nanargmin(dist))]
            ok = np.array([(c[0] <= best_ci[1]) and (c[1] >= best_ci[0]) for c in s[ci_col]])
            g, gci = 0.0, (0.0, 0.0)
        b = int(np.nanargmin(dist))
        ok[b] = True
        pools_ok = s["pool"][ok].to_numpy()
        rb_pool = RULEBOOK_POOLS[int(p)]
        rb = s[s.pool == rb_pool]
        rb_val = float(rb[metric_col(target)].iloc[0]) if not rb.empty else math.nan
        rb_ci = tuple(rb[ci_col].iloc[0]) if not rb.empty else (math.nan, math.nan)
        recs.append(Recommendation(
            players=int(p), target=target, pool=int(s["pool"].iloc[b]),
            pool_range=(int(pools_ok.min()), int(pools_ok.max())),
            value=float(metric[b]), value_ci=tuple(float(x) for x in s[ci_col].iloc[b]),
            goal=float(g), goal_ci=tuple(float(x) for x in gci), rulebook_pool=rb_pool,
            rulebook_value=rb_val, rulebook_value_ci=tuple(float(x) for x in rb_ci),
            rulebook_consistent=bool(rb_pool in set(pools_ok.tolist())),
            interpolated_pool=_crossing(s["pool"], metric, g)))
    return recs


def metric_col(target: str) -> str:
    return "mean_rounds" if target == "equal-length" else "max_seat_gap"


def recommendations_frame(recs):
    import pandas as pd
    rows = []
    for r in recs:
        d = r.to_dict()
        d["pool_range"] = f"{r.pool_range[0]}–{r.pool_range[1]}"
        rows.append(d)
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


def _clean(x):
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return None if not np.isfinite(x) else float(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def to_records(summary, recs=()) -> list[dict]:
    """JSON-ready records (one per (players, pool)); nan becomes null.

    With recommendations ``recs`` (one target), each record also says
    ``target``, ``recommended`` (the best pool) and ``in_recommended_range``.
    """
    by_players = {r.players: r for r in recs}
    out = []
    for r in summary.to_dict("records"):
        d = {k: _clean(r[k]) for k in JSON_KEYS if k in r}
        rec = by_players.get(d["players"])
        if rec is not None:
            d.update(target=rec.target, recommended=d["pool"] == rec.pool,
                     in_recommended_range=rec.pool_range[0] <= d["pool"] <= rec.pool_range[1])
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
    """A readable text table: one line per (players, pool)."""
    lines = [f"{'pl':>2} {'pool':>4} {'n':>5}  {'rounds [95% CI]':<21} {'1st seat win [CI]':<22} "
             f"{'token VP share':<15} {'margin':>6} {'overflow':>9}"]
    for r in summary.to_dict("records"):
        mark = "*" if r["rulebook"] else " "
        lo, hi = r["mean_rounds_ci"]
        flo, fhi = r["first_seat_win_rate_ci"]
        lines.append(
            f"{r['players']:>2} {r['pool']:>3}{mark} {r['n_games']:>5}  "
            f"{r['mean_rounds']:5.2f} [{lo:5.2f}, {hi:5.2f}]  "
            f"{100 * r['first_seat_win_rate']:5.1f}% [{100 * flo:4.1f}, {100 * fhi:4.1f}]  "
            f"{100 * r['token_vp_share']:5.1f}%          {r['mean_margin']:6.2f} "
            f"{100 * r['overflow_rate']:8.1f}%")
    lines.append("* rulebook pool for this player count")
    return "\n".join(lines)
