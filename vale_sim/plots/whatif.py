"""The what-if figure: each card's change of the estimand's value (natural value or
strength; edited - original), per player count."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot_changes(w, limit: int = 30):
    """One panel per player count: the paired change of each card's value (pp; the
    natural value or the strength, ``w.config["estimand"]``) with
    its raw interval (thick) and adjusted interval (thin); edited cards in red, cards
    that moved filled, cards whose verdict changed marked with their two verdicts.
    With more than ``limit`` cards the edited ones and the largest changes are drawn."""
    counts = w.counts
    est = w.config.get("estimand", "prefer")
    what = "natural value" if est == "natural" else "strength"
    fig, axes = plt.subplots(1, len(counts), figsize=(7 * len(counts), 0.3 * limit + 2),
                             squeeze=False)
    for ax, pc in zip(axes[0], counts):
        d = pc.cards.copy()
        shown = len(d)
        if limit and len(d) > limit:
            d["_size"] = d["change"].abs()
            d = d.sort_values(["edited_card", "_size"], ascending=False).head(limit)
        d = d.sort_values("change")
        y = range(len(d))
        for yi, (_, r) in zip(y, d.iterrows()):
            colour = "tab:red" if r["edited_card"] else "black"
            ax.plot([100 * r["change_lo_adj"], 100 * r["change_hi_adj"]], [yi, yi], color=colour,
                    lw=0.8)
            ax.plot([100 * r["change_lo"], 100 * r["change_hi"]], [yi, yi], color=colour, lw=2.5)
            ax.plot([100 * r["change"]], [yi], "o", color=colour,
                    mfc=colour if r["moved"] else "white")
        labels = [r["card"] + (f"  ({r['verdict_original']} -> {r['verdict_edited']})"
                               if r["verdict_changed"] else "") for _, r in d.iterrows()]
        ax.set_yticks(list(y))
        ax.set_yticklabels(labels, fontsize=8)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_xlabel(f"{what} change, edited - original (pp; thick: 95% raw, thin: adjusted)")
        ax.set_title(f"{pc.players} players, {pc.deals} deals"
                     + (f" ({len(d)} of {shown} cards)" if len(d) < shown else ""))
    edits = "; ".join([e["edit"] for e in w.config["edits"]]
                      + [f"{r['name']}={r['new']}" for r in w.config["rules"]])
    field = w.config.get("field", w.config.get("baseline"))
    fig.suptitle(f"What if {edits}  (field {field}, estimand {est})")
    fig.tight_layout()
    return fig
