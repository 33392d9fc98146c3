"""Figures of card values: forest plot of strengths, lift vs strength (Agg backend)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FLAG_COLOURS = {"over": "tab:red", "under": "tab:blue", "": "black"}


def _group(kind: str, level: int) -> str:
    return f"Vale L{level}" if kind == "vale" else ("Fertile Soil" if level == 0 else f"Level {level}")


def plot_forest(df, value="strength", lo="strength_lo", hi="strength_hi", tolerance=None,
                limit: int = 30, adjusted: bool = True):
    """Forest plot: each card's strength (percentage points) with its raw 95%
    interval (thick) and, if ``adjusted`` and present, its multiplicity-adjusted
    interval (thin), grouped by level and sorted inside a group; the
    ±tolerance band shaded and the ±margin of "balanced" (``df.attrs["margin"]``)
    dashed green; flagged cards coloured (red over, blue under);
    cards whose arms never differed (``deals_changed`` 0) drawn hollow; model
    cards (column ``card_type`` "model": stand-ins, not printed cards) named in
    grey italics.  With
    more than ``limit`` cards only the ``limit // 2`` highest and lowest are
    drawn, and the title says so."""
    tolerance = df.attrs.get("tolerance") if tolerance is None else tolerance
    d = df.copy()
    title = f"{len(d)} cards"
    if limit and len(d) > limit:
        k = limit // 2
        d = d.sort_values(value)
        d = d.iloc[list(range(k)) + list(range(len(d) - k, len(d)))]
        title = f"{k} best and {k} worst of {len(df)} cards"
    d["group"] = [_group(k, lv) for k, lv in zip(d["kind"], d["level"])]
    order = sorted(d["group"].unique(), key=lambda g: (g.startswith("Vale"), g))
    rows, labels, y = [], [], 0
    ticks = []
    for g in order:
        part = d[d["group"] == g].sort_values(value)
        labels.append((y + len(part) / 2 - 0.5, g))
        for r in part.itertuples():
            rows.append((y, r))
            ticks.append((y, r.card, getattr(r, "card_type", "") == "model"))
            y += 1
        y += 1
    fig, ax = plt.subplots(figsize=(7, 0.22 * y + 1.7))
    adj = adjusted and f"{lo}_adj" in d.columns
    for yy, r in rows:
        v, a, b = (100 * getattr(r, c) for c in (value, lo, hi))
        colour = FLAG_COLOURS.get(getattr(r, "flag", ""), "black")
        hollow = getattr(r, "deals_changed", 1) == 0
        if adj:
            ax.hlines(yy, 100 * getattr(r, f"{lo}_adj"), 100 * getattr(r, f"{hi}_adj"),
                      color=colour, lw=0.7)
        ax.errorbar([v], [yy], xerr=[[v - a], [b - v]], fmt="o", ms=3.5, capsize=2,
                    color=colour, mfc="white" if hollow else colour, elinewidth=2)
    if tolerance:
        ax.axvspan(-100 * tolerance, 100 * tolerance, color="grey", alpha=0.12, lw=0)
    margin = df.attrs.get("margin")          # "balanced": shown within ±margin (TOST)
    if margin:
        for v in (-margin, margin):
            ax.axvline(100 * v, color="tab:green", lw=0.8, ls="--")
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks([t[0] for t in ticks], [t[1] for t in ticks], fontsize=7)
    models = 0
    for label, (_, _, model) in zip(ax.get_yticklabels(), ticks):
        if model:                 # model cards: stand-ins, not printed cards
            label.set_color("dimgrey")
            label.set_fontstyle("italic")
            models += 1
    for yy, g in labels:
        ax.annotate(g, xy=(1.01, yy), xycoords=("axes fraction", "data"), fontsize=8,
                    va="center", weight="bold")
    ax.invert_yaxis()
    ax.set_title(f"Card strength: {title} (red over, blue under; hollow: no deal changed"
                 + ")" + (f"\nshaded: the ±{100 * tolerance:g} pp band of the flags" if tolerance
                          else "")
                 + (f"; dashed green: the ±{100 * margin:g} pp margin of \"balanced\""
                    if margin else "")
                 + ("\ngrey italic names: model cards (stand-ins, not printed cards)"
                    if models else ""), fontsize=9)
    ax.set_xlabel("strength: win share preferring the card minus never buying it (pp; thick "
                  "95% interval, thin adjusted)" if adj else
                  "strength: win share preferring the card minus never buying it (pp, 95%)",
                  fontsize=8)
    fig.tight_layout()
    return fig


def plot_lift_vs_value(df):
    """Observational lift against strength (pp): how far associations mislead."""
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.errorbar(100 * df["strength"], 100 * df["lift"],
                xerr=[100 * (df["strength"] - df["strength_lo"]),
                      100 * (df["strength_hi"] - df["strength"])],
                yerr=[100 * (df["lift"] - df["lift_lo"]), 100 * (df["lift_hi"] - df["lift"])],
                fmt="o", ms=3, alpha=0.6, capsize=0)
    lim = [min(ax.get_xlim()[0], ax.get_ylim()[0]), max(ax.get_xlim()[1], ax.get_ylim()[1])]
    ax.plot(lim, lim, color="grey", ls="--", lw=1)
    ax.set_xlabel("strength (pp)")
    ax.set_ylabel("observational lift (pp)")
    ax.set_title("association vs effect")
    return fig
