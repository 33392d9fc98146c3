"""Figures of the pool-size study (``vale_sim.games.mystic_vale.pools``).

Each function takes :func:`vale_sim.games.mystic_vale.pools.summarize_pools` output and returns
a matplotlib Figure (no pyplot state, so it works headless and in notebooks);
each ``*_reading`` function returns the one-line reading of that figure,
computed from the same numbers.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..pools import RULEBOOK_POOLS

COLORS = {2: "#1f77b4", 3: "#ff7f0e", 4: "#2ca02c"}


def length_vs_pool(summary, recs=()) -> Figure:
    """Mean game length (rounds, 95 % band) against VP pool size, one line per player count.

    Stars mark the rulebook pools; with equal-length recommendations ``recs``
    the target length is a dashed line, the equivalence margin a grey band,
    and the closest pools are circled.  n (games per cell) is in the legend.
    """
    fig = Figure(figsize=(7, 4.2))
    ax = fig.subplots()
    for p, s in summary.groupby("players", sort=True):
        s = s.sort_values("pool")
        c = COLORS.get(int(p), None)
        lo = np.array([v[0] for v in s["mean_rounds_ci"]], float)
        hi = np.array([v[1] for v in s["mean_rounds_ci"]], float)
        ax.fill_between(s["pool"], lo, hi, color=c, alpha=0.2, linewidth=0)
        ax.plot(s["pool"], s["mean_rounds"], "-", color=c,
                label=f"{p} players (n={int(s['n_games'].min())}/pool)")
        rb = s[s.pool == RULEBOOK_POOLS[int(p)]]
        if not rb.empty:
            ax.plot(rb["pool"], rb["mean_rounds"], "*", color=c, markersize=14,
                    markeredgecolor="black", zorder=5)
    recs = [r for r in recs if r.target == "equal-length"]
    if recs:
        ax.axhline(recs[0].goal, color="grey", linestyle="--", linewidth=1,
                   label=f"target: {recs[0].goal:.1f} rounds")
        ax.axhspan(recs[0].goal - recs[0].margin, recs[0].goal + recs[0].margin, color="grey",
                   alpha=0.12, linewidth=0, label=f"equivalence margin ±{recs[0].margin:.2g} rounds")
        for r in recs:
            ax.plot([r.pool], [r.value], "o", markersize=12, markerfacecolor="none",
                    markeredgecolor=COLORS.get(r.players, "black"), markeredgewidth=2, zorder=6)
    ax.set_xlabel("VP pool size")
    ax.set_ylabel("game length (rounds, mean)")
    ax.set_title("Game length vs VP pool (★ rulebook, ○ closest; bands: 95% CI)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig


def length_reading(summary, recs=()) -> str:
    """One line: how length grows with the pool (least-squares slope over the pool
    means, 95 % interval), and where the rulebook pools land (mean, interval, n)."""
    parts = []
    for p, s in summary.groupby("players", sort=True):
        s = s.sort_values("pool")
        if len(s) >= 3:
            from scipy.stats import linregress, t
            fit = linregress(s["pool"].to_numpy(float), s["mean_rounds"].to_numpy(float))
            q = float(t.ppf(0.975, len(s) - 2)) * fit.stderr
            parts.append(f"{p}p {fit.slope:+.3f} [{fit.slope - q:+.3f}, {fit.slope + q:+.3f}] "
                         f"rounds per extra VP over {len(s)} pools")
        elif len(s) == 2:
            slope = np.polyfit(s["pool"].to_numpy(float), s["mean_rounds"].to_numpy(float), 1)[0]
            parts.append(f"{p}p {slope:+.3f} rounds per extra VP (2 pools, no interval)")
    rb = []
    for p in sorted(summary["players"].unique()):
        r = summary[(summary.players == p) & (summary.pool == RULEBOOK_POOLS[int(p)])]
        if not r.empty:
            lo, hi = r["mean_rounds_ci"].iloc[0]
            rb.append(f"{p}p/{RULEBOOK_POOLS[int(p)]} VP → {r['mean_rounds'].iloc[0]:.1f} "
                      f"[{lo:.1f}, {hi:.1f}] (n={int(r['n_games'].iloc[0])})")
    line = "Game length against the pool (" + ", ".join(parts) + ")"
    if rb:
        line += "; rulebook pools give " + ", ".join(rb) + " rounds"
    recs = [r for r in recs if r.target == "equal-length"]
    if recs:
        line += (f"; pools equivalent to the 2-player length within ±{recs[0].margin:.2g} rounds: "
                 + ", ".join(f"{r.players}p {r.range_text() or 'none'}" for r in recs))
    return line + "."


def seat_matrix(summary):
    """(rows, pools, values, labels): seat win rate minus 1/players, rows = (players, seat)."""
    pools = sorted(summary["pool"].unique())
    rows, labels = [], []
    for p in sorted(summary["players"].unique()):
        s = summary[summary.players == p].set_index("pool")
        for seat in range(int(p)):
            vals = [s.loc[v, "seat_win_rates"][seat] - 1 / p if v in s.index else np.nan for v in pools]
            rows.append(vals)
            labels.append(f"{p}p seat {seat + 1}")
    return np.array(rows, float), pools, labels


def seat_heatmap(summary) -> Figure:
    """Seat win rate minus the fair share 1/players (percentage points), by pool size.

    Rows: player count and seat (seat 1 starts); columns: pool sizes; the
    rulebook pool's column of each player count is outlined.
    """
    vals, pools, labels = seat_matrix(summary)
    fig = Figure(figsize=(max(6, 0.45 * len(pools) + 2.5), 0.42 * len(labels) + 1.6))
    ax = fig.subplots()
    lim = max(0.02, float(np.nanmax(np.abs(vals)))) if vals.size else 0.02
    im = ax.imshow(100 * vals, cmap="RdBu_r", vmin=-100 * lim, vmax=100 * lim, aspect="auto")
    ax.set_xticks(range(len(pools)), [str(v) for v in pools], fontsize=8)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.set_xlabel("VP pool size")
    if len(pools) <= 20:
        for i in range(vals.shape[0]):
            for j in range(vals.shape[1]):
                if np.isfinite(vals[i, j]):
                    dark = abs(vals[i, j]) > 0.6 * lim          # white on the dark cells
                    ax.text(j, i, f"{100 * vals[i, j]:+.0f}", ha="center", va="center", fontsize=6,
                            color="white" if dark else "black")
    row = 0
    for p in sorted(summary["players"].unique()):
        rbp = RULEBOOK_POOLS[int(p)]
        if rbp in pools:
            j = pools.index(rbp)
            ax.add_patch(_rect(j - 0.5, row - 0.5, 1, int(p)))
        row += int(p)
    fig.colorbar(im, ax=ax, label="win rate − 1/players (pp)")
    ax.set_title("Seat advantage by pool size (outlined: rulebook pool)")
    fig.tight_layout()
    return fig


def _rect(x, y, w, h):
    from matplotlib.patches import Rectangle
    return Rectangle((x, y), w, h, fill=False, edgecolor="black", linewidth=1.5)


def seat_reading(summary) -> str:
    """One line: the first-seat advantage range per player count and how many cells are significant."""
    parts = []
    for p, s in summary.groupby("players", sort=True):
        adv = 100 * s["seat_advantage"].to_numpy(float)
        sig = sum(1 for c in s["seat_advantage_ci"] if c[0] > 0 or c[1] < 0)
        # The seat furthest from fair on average over pools, and in how many pools it is significant.
        dev = np.array([[r - 1 / p for r in rates] for rates in s["seat_win_rates"]])
        worst = int(np.argmax(np.abs(dev.mean(axis=0))))
        wsig = sum(1 for cis in s["seat_win_rates_ci"] if not cis[worst][0] <= 1 / p <= cis[worst][1])
        parts.append(f"{p}p first seat {adv.min():+.1f} to {adv.max():+.1f} pp ({sig}/{len(s)} "
                     f"pools significant), seat {worst + 1} furthest from fair at "
                     f"{100 * dev[:, worst].mean():+.1f} pp on average ({wsig}/{len(s)} significant)")
    n = int(summary["n_games"].min()) if len(summary) else 0
    return (f"Seat win rate minus fair share (n={n} games per cell, 95% Wilson intervals): "
            + "; ".join(parts) + ".")
