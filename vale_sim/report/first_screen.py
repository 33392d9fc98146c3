"""The report's first screen: one block of small figures, before any prose.

A designer opening a report sees, above everything else, the card verdicts
(a forest plot with the verdict band and the equivalence margin), the seat
advantage per player count, the game length and the spoil (or wither) odds,
each with its interval.  The shell asks the game's report module for them
(the optional hook ``first_screen(ctx) -> list[Panel]``); the game builds them
from what its sections already computed (``ctx.results``: no game is played
for them) and leaves out a panel whose section did not run.

Every panel says its sample size and what its bars are: the caption is
``"<reading> n = <n>; bars: <interval>."``, and the same fields go into the
report's ``manifest.json`` (``first_screen``), where ``results/index.html``
reads the headline of each game's report.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Size of one first-screen figure (inches at 100 dpi): two fit side by side in the
#: report's 1100-pixel column and two rows fit a 1280x900 window with the title.
PANEL_SIZE = (5.4, 3.0)

#: How many flagged cards of each direction the card reading names.
NAMED = 5

#: Verdict -> colour, for the first-screen forest plot.
VERDICT_COLOURS = {"over": "tab:red", "under": "tab:blue", "balanced": "tab:green",
                   "inconclusive": "dimgrey"}


@dataclass
class Panel:
    """One figure of the first screen.

    ``name``: the PNG's file stem (``figures/<name>.png``); ``title``: a few words
    ("Card verdicts"); ``reading``: one sentence computed from the numbers;
    ``n``: the sample behind it in words ("10,000 deals per card"); ``interval``:
    what the bars are ("95% CI, paired over deals").  ``link``: the section it
    summarises (its title), if any.
    """
    name: str
    title: str
    figure: object
    reading: str
    n: str
    interval: str
    link: str = ""

    @property
    def caption(self) -> str:
        return f"{self.title}: {self.reading} n = {self.n}; bars: {self.interval}."

    def record(self) -> dict:
        """The panel in ``manifest.json`` (no figure: the PNG is in figures/)."""
        return {"name": self.name, "title": self.title, "reading": self.reading, "n": self.n,
                "interval": self.interval, "figure": f"figures/{self.name}.png"}


def first_screen(ctx) -> list[Panel]:
    """The game's first-screen panels (its report module's ``first_screen(ctx)``;
    none when it has no such hook)."""
    hook = getattr(ctx.report_module(), "first_screen", None)
    panels = list(hook(ctx)) if hook is not None else []
    for p in panels:
        if not isinstance(p, Panel):
            raise TypeError(f"first_screen must give Panel objects, got {type(p).__name__}")
    return panels


def new_panel_figure(w: float | None = None, h: float | None = None):
    """A figure of the first screen's size and its axes."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=(w or PANEL_SIZE[0], h or PANEL_SIZE[1]))
    return fig, fig.subplots()


def _n(x) -> str:
    return f"{int(x):,}"


# ---------------------------------------------------------------------------
# The card verdicts: a compact forest plot of a strength frame
# ---------------------------------------------------------------------------
def forest_panel(df, name: str = "first_cards", show: int = 16, link: str = "",
                 field: str | None = None) -> Panel:
    """The card verdicts of a strength table (:func:`vale_sim.advancements.strength_frame`
    columns: card, strength, strength_lo/hi, strength_lo_adj/hi_adj, flag, verdict,
    n_deals; attrs tolerance, margin, correction, players, deals) as a forest plot of
    the ``show`` cards with the largest |strength| (every flagged card first), the
    ±tolerance band shaded and the ±margin dashed; colours by verdict.

    A table of the natural estimand (``attrs["estimand"] == "natural"``: the headline
    verdicts under a strong field, named ``field``) is drawn by its natural value, the
    number its verdicts rest on (docs/statistics.md 5.6), not by prefer − ban."""
    from vale_sim.verdicts import CORRECTION_NAMES
    a = df.attrs
    if a.get("estimand") == "natural" and "natural_value" in df:
        df = df.assign(**{f"strength{s}": df[f"natural{c}"] for s, c in
                          (("", "_value"), ("_lo", "_lo"), ("_hi", "_hi"),
                           ("_lo_adj", "_lo_adj"), ("_hi_adj", "_hi_adj"))
                          if f"natural{c}" in df})
        df.attrs = a
        axis = (f"natural value under {field}" if field else "natural value") + \
            ": win share with the card − never taking it (pp)"
        head = f"Card verdicts under {field}" if field else "Card verdicts"
        rule = ("over: natural value beyond the ±{t:g} pp band; under: not shown to help "
                "the field and costly when forced; balanced: within the ±{m:g} pp margin")
    else:
        axis, head = "strength: win share prefer − ban (pp)", "Card verdicts"
        rule = "flagged: beyond the ±{t:g} pp band; balanced: within the ±{m:g} pp margin"
    tol = float(a.get("tolerance", math.nan))
    margin = float(a.get("margin", df["margin"].iloc[0] if "margin" in df else math.nan))
    corr = CORRECTION_NAMES.get(a.get("correction"), a.get("correction", "multiplicity"))
    verdict = df["verdict"] if "verdict" in df else df["flag"].replace("", "inconclusive")
    d = df.assign(fs_verdict=verdict.to_numpy(), fs_flagged=df["flag"].isin(["over", "under"]),
                  fs_abs=df["strength"].abs())
    d = d.sort_values(["fs_flagged", "fs_abs"], ascending=False).head(show)
    d = d.sort_values("strength", ascending=False)
    fig, ax = new_panel_figure()
    y = np.arange(len(d))
    for yy, r in zip(y, d.itertuples()):
        c = VERDICT_COLOURS.get(r.fs_verdict, "black")
        if "strength_lo_adj" in d:
            ax.hlines(yy, 100 * r.strength_lo_adj, 100 * r.strength_hi_adj, color=c, lw=0.7)
        ax.hlines(yy, 100 * r.strength_lo, 100 * r.strength_hi, color=c, lw=2.2)
        ax.plot([100 * r.strength], [yy], "o", ms=3.5, color=c)
    if np.isfinite(tol):
        ax.axvspan(-100 * tol, 100 * tol, color="grey", alpha=0.13, lw=0,
                   label=f"band ±{100 * tol:g} pp")
    if np.isfinite(margin):
        for v in (-margin, margin):
            ax.axvline(100 * v, color="tab:green", lw=0.9, ls="--",
                       label=f"margin ±{100 * margin:g} pp" if v > 0 else None)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y, [str(c)[:26] for c in d["card"]], fontsize=6.5)
    ax.invert_yaxis()
    ax.tick_params(axis="x", labelsize=7)
    ax.set_xlabel(axis, fontsize=7)
    counts = verdict.value_counts()
    ax.set_title(f"{head}: {len(d)} of {len(df)} cards, largest |value| first\n"
                 f"red over, blue under, green balanced, grey inconclusive", fontsize=7)
    ax.legend(fontsize=6, loc="lower right")
    ax.grid(alpha=0.25, axis="x")
    fig.tight_layout()
    said = ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICT_COLOURS)
    players = a.get("players")
    reading = (f"of {len(df)} cards tested{f' at {players} players' if players else ''}, "
               f"{said} ({rule.format(t=100 * tol, m=100 * margin)}; {corr}-adjusted)")
    named = []
    for flag in ("over", "under"):
        part = df[df["flag"] == flag].sort_values("strength", ascending=flag == "under")
        if len(part):
            names = ", ".join(part["card"].head(NAMED))
            more = f" and {len(part) - NAMED} more" if len(part) > NAMED else ""
            named.append(f"{flag}: {names}{more}")
    reading += ("; " + "; ".join(named) + "." if named else ".")
    per = int(df["n_deals"].max())
    n = f"{_n(per)} deals per card" + (f" ({_n(per * players)} games in each arm)"
                                       if players else "")
    return Panel(name, "Card verdicts", fig, reading, n,
                 f"95% CI paired over deals (thick), {corr}-adjusted (thin)", link)


def points_panel(ax, groups, colours=None, offset: float = 0.13):
    """Draw ``groups`` — ``[(label, xs, values, los, his), ...]`` — as points with
    error bars, side by side around each x."""
    k = len(groups)
    for i, (label, xs, v, lo, hi) in enumerate(groups):
        xs, v, lo, hi = (np.asarray(a, float) for a in (xs, v, lo, hi))
        ax.errorbar(xs + (i - (k - 1) / 2) * offset, v,
                    yerr=[np.clip(v - lo, 0, None), np.clip(hi - v, 0, None)], fmt="o", ms=3.5,
                    capsize=2, label=label,
                    color=None if colours is None else colours[i % len(colours)])
