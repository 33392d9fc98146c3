"""Spoil-odds charts (matplotlib, Agg backend): risk per push and the push-your-luck frontier."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _errorbars(res, k_values):
    if res.method != "simulated":
        return None
    return [res.se["p_spoil_within"][k] for k in k_values]


def plot_spoil_curves(results, ax=None):
    """P(spoil within k pushes) against k, one line per deck (SpoilOdds results;
    simulated ones with ± one standard error)."""
    from vale_sim.odds import plot_risk_curves
    return plot_risk_curves(
        results, ax, lambda res: list(range(res.pushes + 1)),
        lambda res, k: res.p_spoil_within[k], _errorbars,
        lambda res: res.deck + (" (simulated)" if res.method == "simulated" else ""),
        "pushes after Prep (k)", "P(spoiled within k pushes)", "Spoil risk per push")


def plot_frontier(results, ax=None):
    """Push-your-luck frontier: E[mana] (spoil = 0) against P(spoil) for k = 0..K pushes."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    for res in results:
        ks = list(range(res.pushes + 1))
        risk = [float(res.p_spoil_within[k]) for k in ks]
        mana = [float(res.expected[k]["mana"]) for k in ks]
        line, = ax.plot(risk, mana, marker="o", label=res.deck)
        for k, x, y in zip(ks, risk, mana):
            ax.annotate(str(k), (x, y), textcoords="offset points", xytext=(4, 4),
                        fontsize=8, color=line.get_color())
    ax.set_xlabel("P(spoiled)")
    ax.set_ylabel("expected mana (spoil = 0)")
    ax.set_title("Expected mana against risk (labels: pushes)")
    ax.grid(alpha=0.3)
    ax.legend()
    return ax


def spoil_report_figure(results, out=None):
    """Both charts side by side; ``results`` is one SpoilOdds or a list.  Saves to ``out``."""
    if not isinstance(results, (list, tuple)):
        results = [results]
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    plot_spoil_curves(results, a)
    plot_frontier(results, b)
    fig.tight_layout()
    if out is not None:
        from vale_sim.io import save_figure
        save_figure(fig, out, dpi=110)          # atomic; closes the figure
    return fig
