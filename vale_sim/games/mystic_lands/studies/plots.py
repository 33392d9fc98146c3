"""Figures of the settings studies (vale_sim.games.mystic_lands.studies): every point with its 95% interval.

Each function returns ``(Figure, caption)``; the caption is a one-line
reading computed from the numbers.  Figures are built with
``matplotlib.figure.Figure`` (no pyplot state).
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def _fig(cols: int, w: float = 4.2, h: float = 3.4):
    from matplotlib.figure import Figure
    fig = Figure(figsize=(w * cols, h))
    axes = fig.subplots(1, cols, squeeze=False)[0]
    return fig, axes


def _err(df, col):
    v = df[col].to_numpy(float)
    lo = df[f"{col}_lo"].to_numpy(float)
    hi = df[f"{col}_hi"].to_numpy(float)
    return v, np.vstack([np.clip(v - lo, 0, None), np.clip(hi - v, 0, None)])


def seat_figure(study) -> tuple:
    """Win rate by seat: no compensation (selection deals), the manual's and the
    alternative (confirmation deals: the estimates the verdicts rest on)."""
    players = list(study.config["players"])
    fig, axes = _fig(len(players))
    recs = {r["players"]: r for r in study.recommendations}
    for ax, k in zip(axes, players):
        s = study.seats[study.seats["players"] == k]
        sc = study.schedules[study.schedules["players"] == k]
        none = sc[sc["none"]]["schedule"].iloc[0]
        man = sc[sc["manual"]]["schedule"].iloc[0]
        alt = recs[k].get("alternative")
        shown = [(none, "selection", "no compensation"), (man, "confirmation", "manual")]
        if alt is not None and alt != none:
            shown.append((alt, "confirmation", "recommended" if recs[k]["recommended"] == alt
                          else "best other"))
        elif alt == none:
            shown[0] = (none, "confirmation", "no compensation (best other)")
        for i, (lab, stage, what) in enumerate(shown):
            x = s[(s["schedule"] == lab) & (s["stage"] == stage)]
            v, e = _err(x, "win_rate")
            ax.errorbar(x["seat"] + (i - 1) * 0.12, 100 * v, yerr=100 * e, fmt="o", capsize=3,
                        label=f"{what}: {lab} ({stage}, n = {int(x['n_deals'].iloc[0])})")
        ax.axhline(100 / k, color="grey", ls="--", lw=1)
        ax.axhspan(100 / k - 100 * study.config["margin"], 100 / k + 100 * study.config["margin"],
                   color="grey", alpha=0.12)
        ax.set_xticks(range(1, k + 1))
        ax.set_xlabel("seat (1 = starting player)")
        ax.set_ylabel("win rate, %")
        ax.set_title(f"{k} players")
        ax.legend(fontsize=7)
    parts = []
    for k in players:
        r = recs[k]
        parts.append(f"{k}p: manual {r['manual_verdict']} (largest gap "
                     f"{100 * r['manual_max_gap']:.1f} pp on fresh deals)"
                     + (f", recommended {r['recommended']}" if r["recommended"] else
                        ", nothing recommended"))
    fig.tight_layout()
    return fig, ("Seat win rates with 95% intervals; dashed: fair share, band: ±margin; "
                 "schedules list each seat's start, seat 1 first (- nothing, 1m 1 mana, "
                 "1m1s 1 mana + 1 spirit). " + "; ".join(parts) + ".")


def variants_figure(table: pd.DataFrame, measures, title: str = "") -> tuple:
    """One panel per measure: value by variant (95% intervals), a series per player count."""
    fig, axes = _fig(len(measures), w=5.0, h=3.6)
    variants = list(dict.fromkeys(table["variant"]))
    for ax, (col, name, k) in zip(axes, measures):
        for i, (players, t) in enumerate(table.groupby("players")):
            t = t.set_index("variant").reindex(variants).reset_index()
            v, e = _err(t, col)
            ax.errorbar(np.arange(len(variants)) + (i - 0.5) * 0.15, k * v, yerr=k * e, fmt="o",
                        capsize=3, label=f"{players} players")
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels(variants, rotation=35, ha="right", fontsize=8)
        ax.set_ylabel(name)
        ax.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def end_trigger_figure(study) -> tuple:
    t = study.table
    fig = variants_figure(t, [("rounds", "game length (rounds)", 1),
                              ("seat1_win", "seat 1 win rate, %", 100),
                              ("trigger_win", "triggering player wins, %", 100)])
    man = t[t["variant"] == "manual"]
    cap = "; ".join(f"{int(r.players)}p manual: {r.rounds:.1f} rounds, seat 1 wins "
                    f"{100 * r.seat1_win:.0f}%, the trigger wins {100 * r.trigger_win:.0f}%"
                    for r in man.itertuples())
    return fig, "End-trigger variants, 95% intervals over deals. " + cap + "."


def market_figure(study) -> tuple:
    t = study.table.merge(study.extra["spread"][["variant", "spread", "spread_lo", "spread_hi"]],
                          on="variant")
    fig = variants_figure(t, [("rounds", "game length (rounds)", 1),
                              ("spread", "spread of policy win rates (SD), pp", 100),
                              ("level2", "level 2 Advances bought per player", 1)])
    man = t[t["variant"] == "manual"].iloc[0]
    return fig, (f"Market growth points, {int(man.players)} players, a line-up of "
                 f"{study.extra['spread']['policies'].iloc[0]} policies in every seating, 95% "
                 f"intervals. Manual "
                 f"(5, 15): {man.rounds:.1f} rounds, spread {100 * man.spread:.1f} pp.")


def wither_figure(study) -> tuple:
    p = study.extra["policies"]
    fig, axes = _fig(2, w=5.0, h=3.6)
    variants = list(dict.fromkeys(p["variant"]))
    pols = list(dict.fromkeys(p["policy"]))
    for ax, (col, name) in zip(axes, (("withers_per_turn", "withers per turn, %"),
                                      ("win_rate", "win rate, %"))):
        for i, pol in enumerate(pols):
            t = p[p["policy"] == pol].set_index("variant").reindex(variants).reset_index()
            v, e = _err(t, col)
            ax.errorbar(np.arange(len(variants)) + (i - len(pols) / 2) * 0.1, 100 * v,
                        yerr=100 * e, fmt="o", capsize=3, label=pol)
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels(variants, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(name)
        ax.legend(fontsize=7)
    fig.tight_layout()
    man = p[p["variant"] == "manual"].sort_values("withers_per_turn")
    return fig, ("Withers per turn and win rate by policy and Rain supply, 95% intervals "
                 "clustered by deal. Manual supply: " + ", ".join(
                     f"{r.policy} {100 * r.withers_per_turn:.1f}%" for r in man.itertuples()) + ".")
