"""Figures of a tournament: win rates, seats, ranking, per-round curves (Agg backend)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _errbar(ax, y, x, lo, hi, **kw):
    ax.errorbar(x, y, xerr=[x - lo, hi - x], fmt="o", capsize=3, **kw)


def plot_win_rates(table, ax=None):
    """Win rate per matchup and policy with 95% deal-clustered intervals (percent), n in the label."""
    ax = ax or plt.subplots(figsize=(7, 0.4 * len(table) + 1.2))[1]
    labels = [f"{r.policy}  ({r.matchup}, n={r.n})" for r in table.itertuples()]
    y = list(range(len(table)))[::-1]
    _errbar(ax, y, 100 * table["win_rate"].to_numpy(), 100 * table["win_lo"].to_numpy(),
            100 * table["win_hi"].to_numpy())
    ax.set_yticks(y, labels)
    ax.set_xlabel("win rate % (95% interval, clustered by deal)")
    ax.set_xlim(0, 100)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_seat_advantage(seats, ax=None):
    """Win rate by seat over all games (seat 1 = starting player; 95% deal-clustered
    intervals, n per seat in the tick label), with the even share 1/players marked."""
    ax = ax or plt.subplots(figsize=(4, 3))[1]
    s = seats[seats["policy"] == "all"]
    x = s["seat"].to_numpy()
    ax.errorbar(x, 100 * s["win_rate"], yerr=[100 * (s["win_rate"] - s["win_lo"]),
                                             100 * (s["win_hi"] - s["win_rate"])],
                fmt="o", capsize=4)
    ax.axhline(100 / len(s), color="grey", ls="--", lw=1)
    ax.set_xticks(x, [f"seat {v}" + (" (first)" if v == 1 else "") + f"\nn={n}"
                      for v, n in zip(x, s["n"])])
    ax.set_ylabel("win rate %")
    ax.set_title("seat advantage")
    return ax


def plot_ranking(ranking, ax=None):
    """Bradley–Terry strengths on the Elo scale with 95% intervals (n = comparisons in the label)."""
    ax = ax or plt.subplots(figsize=(5, 0.4 * len(ranking) + 1.2))[1]
    y = list(range(len(ranking)))[::-1]
    _errbar(ax, y, ranking["elo"].to_numpy(), ranking["elo_lo"].to_numpy(),
            ranking["elo_hi"].to_numpy())
    ax.set_yticks(y, [f"{r.name} (n={int(r.comparisons)})" for r in ranking.itertuples()])
    ax.axvline(0, color="grey", lw=1)
    ax.set_xlabel("Bradley–Terry strength (Elo points, mean 0)")
    return ax


def plot_tournament(t):
    """One figure: win rates, seat advantage and ranking of a Tournament."""
    n = len(t.table)
    fig = plt.figure(figsize=(12, max(3.5, 0.35 * n + 1.5)))
    gs = fig.add_gridspec(2, 2, width_ratios=[1.6, 1])
    plot_win_rates(t.table, fig.add_subplot(gs[:, 0]))
    plot_seat_advantage(t.seats, fig.add_subplot(gs[0, 1]))
    plot_ranking(t.ranking, fig.add_subplot(gs[1, 1]))
    fig.tight_layout()
    return fig


def plot_turn_curves(curves, min_n: int = 10):
    """Mean VP taken, mana and cards crafted by round, one line per policy with
    its 95 % deal-clustered band (rounds with fewer than ``min_n`` turns are
    left out; the legend gives the turns averaged in round 1)."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    c = curves[curves["n"] >= min_n]
    for pol, g in c.groupby("policy", sort=False):
        for ax, col in zip(axes, ("vp", "mana", "crafted")):
            line, = ax.plot(g["round"], g[col], marker=".", label=f"{pol} (n={int(g['n'].iloc[0])})")
            if f"{col}_lo" in g:
                ax.fill_between(g["round"], g[f"{col}_lo"], g[f"{col}_hi"], alpha=0.2,
                                color=line.get_color(), linewidth=0)
    for ax, title in zip(axes, ("cumulative VP taken", "mana at Harvest", "cards crafted (cumulative)")):
        ax.set_title(title)
        ax.set_xlabel("round")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig
