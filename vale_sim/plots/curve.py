"""The price-curve figure (vale_sim.curve): per player count, the card's natural value and
value per pick against the value of its number, with intervals, the balanced range
shaded and the printed value marked."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

VERDICT_COLOURS = {"over": "tab:red", "under": "tab:blue", "balanced": "tab:green",
                   "inconclusive": "tab:grey"}


def plot_curve(df):
    """One panel per player count (side by side): x the value of the number, y the natural
    value (pp; line, its 95% interval as a band), the forced value (dash-dot, its band)
    and the value per pick (dashed, its interval as error bars); the ±margin band around 0 in grey, the balanced range (the
    values balanced at every count) shaded green, the printed value a dashed vertical
    line, each point coloured by its verdict.  Returns the figure (Agg)."""
    c = df.attrs["config"]
    counts = c["players"]
    bal = df.attrs["balanced"]
    fig, axes = plt.subplots(1, len(counts), figsize=(6.2 * len(counts), 4.6), squeeze=False,
                             sharey=True)
    for ax, p in zip(axes[0], counts):
        d = df[df["players"] == p].sort_values("value")
        x = d["value"].to_numpy()
        k = 100.0
        m = c["margin"] * k
        ax.axhspan(-m, m, color="0.88", zorder=0, label=f"±{m:g} pp (balanced margin)")
        ax.axhline(0, color="0.5", lw=0.8, zorder=1)
        for i, v in enumerate(bal):          # the balanced range, value by value
            ax.axvspan(v - 0.5, v + 0.5, color="tab:green", alpha=0.15, lw=0, zorder=0,
                       label="balanced range" if i == 0 else None)
        ax.fill_between(x, k * d["natural_lo"], k * d["natural_hi"], color="tab:purple",
                        alpha=0.25, lw=0, zorder=2, label="natural value, 95% interval")
        ax.plot(x, k * d["natural_value"], "-", color="tab:purple", lw=1.8, zorder=3)
        ax.fill_between(x, k * d["forced_lo"], k * d["forced_hi"], color="tab:cyan",
                        alpha=0.18, lw=0, zorder=2,
                        label="forced value (prefer - ban), 95% interval")
        ax.plot(x, k * d["forced_value"], "-.", color="tab:cyan", lw=1.2, zorder=3)
        pp = d["per_pick_value"].to_numpy(float)
        ok = pp == pp
        if ok.any():
            ax.errorbar(x[ok] + 0.08, k * pp[ok],
                        yerr=[k * (pp[ok] - d["per_pick_lo"].to_numpy(float)[ok]),
                              k * (d["per_pick_hi"].to_numpy(float)[ok] - pp[ok])],
                        fmt="--", color="tab:orange", lw=1, capsize=2, zorder=3,
                        label="per pick, 95% interval")
        for v, nv, verdict in zip(x, d["natural_value"], d["verdict"]):
            ax.plot([v], [k * nv], "o", ms=7, zorder=4,
                    color=VERDICT_COLOURS.get(verdict, "black"), mec="black", mew=0.5)
        ax.axvline(c["printed"], color="black", ls=":", lw=1.2, zorder=1,
                   label=f"printed ({c['printed']})")
        n = int(d["n_deals"].iloc[0])
        ax.set_title(f"{p} players (field {c['fields'][str(p)]}, n = {n} deals per value)",
                     fontsize=10)
        ax.set_xlabel(f"{c['card']}: {c['number']}")
        ax.set_xticks(list(x))
        ax.grid(axis="y", color="0.9", lw=0.6)
    axes[0][0].set_ylabel("value to the player (pp of win share)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    for verdict, colour in VERDICT_COLOURS.items():
        if (df["verdict"] == verdict).any():
            handles.append(plt.Line2D([], [], marker="o", ls="", color=colour, mec="black",
                                      mew=0.5))
            labels.append(verdict)
    ncol = min(len(labels), 3 if len(counts) == 1 else 6)
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=ncol, frameon=False)
    rng = df.attrs.get("summary", [""])[0]
    fig.suptitle(f"Price curve of {c['card']}.{c['number']}  (estimand {c['estimand']}, "
                 f"seed {c['seed']})\n{rng}", fontsize=10)
    rows = -(-len(labels) // ncol)
    fig.tight_layout(rect=(0, 0.035 * rows + 0.02, 1, 1))
    return fig
