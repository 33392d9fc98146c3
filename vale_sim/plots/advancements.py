"""Figures of card values: forest plot of paired values, lift vs value (Agg backend)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FLAG_COLOURS = {"over": "tab:red", "under": "tab:blue", "": "black"}


def _group(kind: str, level: int) -> str:
    return f"Vale L{level}" if kind == "vale" else ("Fertile Soil" if level == 0 else f"Level {level}")


def plot_forest(df, value="paired_value", lo="paired_lo", hi="paired_hi", tolerance=None):
    """Forest plot: each card's value (percentage points) with its 95% interval,
    grouped by level and sorted by value inside a group; the ±tolerance band
    shaded; flagged cards coloured (red over, blue under)."""
    tolerance = df.attrs.get("tolerance") if tolerance is None else tolerance
    d = df.copy()
    d["group"] = [_group(k, lv) for k, lv in zip(d["kind"], d["level"])]
    order = sorted(d["group"].unique(), key=lambda g: (g.startswith("Vale"), g))
    rows, labels, y = [], [], 0
    ticks = []
    for g in order:
        part = d[d["group"] == g].sort_values(value)
        labels.append((y + len(part) / 2 - 0.5, g))
        for r in part.itertuples():
            rows.append((y, r))
            ticks.append((y, r.card))
            y += 1
        y += 1
    fig, ax = plt.subplots(figsize=(7, 0.22 * y + 1.5))
    for yy, r in rows:
        v, a, b = (100 * getattr(r, c) for c in (value, lo, hi))
        colour = FLAG_COLOURS.get(getattr(r, "flag", ""), "black")
        ax.errorbar([v], [yy], xerr=[[v - a], [b - v]], fmt="o", ms=3, capsize=2, color=colour)
    if tolerance:
        ax.axvspan(-100 * tolerance, 100 * tolerance, color="grey", alpha=0.12, lw=0)
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks([t[0] for t in ticks], [t[1] for t in ticks], fontsize=7)
    for yy, g in labels:
        ax.annotate(g, xy=(1.01, yy), xycoords=("axes fraction", "data"), fontsize=8,
                    va="center", weight="bold")
    ax.invert_yaxis()
    ax.set_xlabel("paired value: win-rate change from preferring the card (pp, 95% interval)")
    fig.tight_layout()
    return fig


def plot_lift_vs_value(df):
    """Observational lift against paired value (pp): how far associations mislead."""
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.errorbar(100 * df["paired_value"], 100 * df["lift"],
                xerr=[100 * (df["paired_value"] - df["paired_lo"]),
                      100 * (df["paired_hi"] - df["paired_value"])],
                yerr=[100 * (df["lift"] - df["lift_lo"]), 100 * (df["lift_hi"] - df["lift"])],
                fmt="o", ms=3, alpha=0.6, capsize=0)
    lim = [min(ax.get_xlim()[0], ax.get_ylim()[0]), max(ax.get_xlim()[1], ax.get_ylim()[1])]
    ax.plot(lim, lim, color="grey", ls="--", lw=1)
    ax.set_xlabel("paired value (pp)")
    ax.set_ylabel("observational lift (pp)")
    ax.set_title("association vs effect")
    return fig
