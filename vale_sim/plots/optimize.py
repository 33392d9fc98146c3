"""The learning curve of a policy search (Agg backend)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def plot_learning_curve(curve: list[dict], log: list[dict] | None = None, fair: float | None = None,
                        ylabel: str = "win share % vs the field"):
    """Incumbent (rounded CMA-ES mean) score by generation with its 95% deal-clustered
    interval, on that generation's fresh deals; candidates as faint dots; n in the title."""
    fig, ax = plt.subplots(figsize=(7, 4))
    pct = 100 if fair is not None else 1
    if log:
        cand = [r for r in log if r["candidate"] != "incumbent"]
        ax.scatter([r["generation"] for r in cand], [pct * r["score"] for r in cand], s=6,
                   color="grey", alpha=0.35, label="candidates")
    if curve:
        g = np.array([r["generation"] for r in curve])
        y = pct * np.array([r["score"] for r in curve], float)
        lo = pct * np.array([r["lo"] for r in curve], float)
        hi = pct * np.array([r["hi"] for r in curve], float)
        ax.errorbar(g, y, yerr=[y - lo, hi - y], fmt="o-", capsize=3, color="C0",
                    label="incumbent vs the field: presets + hall of fame (95% interval, by deal)")
        if "score_presets" in curve[0]:
            y = pct * np.array([r["score_presets"] for r in curve], float)
            lo = pct * np.array([r["presets_lo"] for r in curve], float)
            hi = pct * np.array([r["presets_hi"] for r in curve], float)
            ax.errorbar(g + 0.15, y, yerr=[y - lo, hi - y], fmt="s-", capsize=3, color="C1",
                        label="incumbent vs the presets only")
        ax.set_title(f"policy search: {len(curve)} generations, n = {curve[-1]['n']} "
                     f"player-games per candidate per generation", fontsize=9)
    if fair is not None:
        ax.axhline(100 * fair, color="grey", ls="--", lw=1, label=f"fair share {100 * fair:.0f}%")
    ax.set_xlabel("generation")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
