"""The report's executive summary: verdicts first, one plain sentence each.

Every verdict states its estimate with an interval and the sample size it
rests on, and says which of the card-set numbers behind it are estimates
rather than printed facts (see docs/rules.md, "What is known about the
cards").  The functions here read what the report's sections computed
(``Context.results``) and never play games themselves.

    verdicts = card_verdicts(adv_frame) + seat_verdicts(pool_summary) + ...
    section = summary_section(verdicts, card_set, quick=False)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: statsmodels' multipletests method names, as a reader knows them.
CORRECTION_NAMES = {"fdr_bh": "Benjamini–Hochberg", "holm": "Holm", "bonferroni": "Bonferroni"}

#: How many flagged cards the summary names one by one (the rest are counted).
MAX_NAMED_CARDS = 8


@dataclass(frozen=True)
class Verdict:
    """One line of the executive summary.

    ``topic``: one of :data:`TOPICS` (the shared ones) or of the game report
    module's ``TOPICS`` (e.g. "seats", "spoil"; :func:`topics`).  ``sentence``: plain
    words with the interval and n.  ``cards``: the card names whose numbers
    the verdict rests on; ``None`` means the whole card set.
    """
    topic: str
    sentence: str
    cards: tuple | None = None


def _pp(x: float) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:+.1f} pp"


def _pct(x: float, digits: int = 1) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:.{digits}f}%"


def _ci_pp(lo: float, hi: float) -> str:
    return f"[{100 * lo:+.1f}, {100 * hi:+.1f}]"


def _ci_pct(lo: float, hi: float) -> str:
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def _n(n) -> str:
    return f"{int(n):,}"


# ---------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------
def strength_counts(deals: int, players: int) -> str:
    """The card-strength sample, every count once and side by side, e.g. ``"10,000
    deals each = 40,000 games per card: 20,000 in each arm, prefer and ban, each deal
    played with the focal player in each of the 2 seats"``."""
    per_arm = deals * players
    return (f"{_n(deals)} deals each = {_n(2 * per_arm)} games per card: {_n(per_arm)} in each "
            f"arm, prefer and ban, each deal played with the focal player in each of the "
            f"{players} seats")


def unstable(v) -> bool:
    """A ``verdict_stable`` cell says the verdict sits near a label boundary (False; not
    None or nan, which say it was not estimated)."""
    return v is not None and v == v and not bool(v)


def near_boundary(df: pd.DataFrame) -> str:
    """" 12 of the 70 verdicts sit near a label boundary ..." from a strength frame's
    (or table's) ``verdict_stable`` / ``verdict_agreement`` columns (docs/statistics.md
    §5.8); "" when they were not estimated."""
    if "verdict_stable" not in df or not df["verdict_agreement"].notna().any():
        return ""
    near = df[df["verdict_stable"].map(unstable)]
    sure = 100 * float(df.attrs.get("stable_agreement", 0.9))
    head = (f" {len(near)} of the {len(df)} verdicts sit near a label boundary (verdict "
            f"agreement below {sure:.0f}%: an identical card, or a rerun of this size, would "
            f"read another verdict more than 1 time in {100 / (100 - sure):.0f}; more games "
            f"shrink that zone, no labelling rule removes it)")
    if not len(near):
        return head + "."
    flagged = near[near["verdict"].isin(["over", "under"])]
    return head + ("; among them the flagged " + ", ".join(
        f"{r['card']} ({r['verdict']}, {100 * r['verdict_agreement']:.0f}%)"
        for _, r in flagged.iterrows()) + "." if len(flagged) else ".")


def agreement_note(stable, agreement) -> str:
    """" (near a label boundary: 64% the same on a rerun)" for a verdict that is not
    stable (``stable``, ``agreement``: its ``verdict_stable`` and ``verdict_agreement``
    cells), else ""."""
    if not unstable(stable):
        return ""
    return f" (near a label boundary: {100 * agreement:.0f}% the same on a rerun)"


def card_verdicts(df: pd.DataFrame, max_named: int = MAX_NAMED_CARDS) -> list[Verdict]:
    """Flagged cards, from the advancement section's strength table.

    One sentence for the count (how many tested, the band, the correction),
    then one per flagged card (strongest effect first), at most ``max_named``.
    When a ``card_type`` column marks model cards (stand-ins, not printed cards;
    the game's ``card_type`` column), the flagged printed and
    model cards are listed apart (topics ``cards_printed`` and ``cards_model``, at
    most ``max_named`` each).
    """
    if df is None or not len(df):
        return []
    a = df.attrs
    tol = float(a.get("tolerance", math.nan))
    corr = CORRECTION_NAMES.get(a.get("correction"), a.get("correction", "multiplicity"))
    n_deals = int(df["n_deals"].max())
    flagged = df[df["flag"].isin(["over", "under"])]
    over, under = (flagged["flag"] == "over").sum(), (flagged["flag"] == "under").sum()
    hi, lo = df.loc[df["strength"].idxmax()], df.loc[df["strength"].idxmin()]
    sample = (strength_counts(n_deals, int(a["players"])) if "players" in a
              else f"{_n(n_deals)} deals each")
    players = a.get("players")
    at = f" at {players} players" if players else ""
    head = (f"Of {len(df)} cards tested{at} (n = {sample}; baseline "
            f"{a.get('baseline', 'balanced')}), {over} {'is' if over == 1 else 'are'} flagged "
            f"over and {under} under: their {corr}-adjusted strength interval lies beyond "
            f"±{100 * tol:.0f} pp of win share (a band chosen to catch gross errors, not a "
            f"convention).")
    if "verdict" in df:
        bal = int((df["verdict"] == "balanced").sum())
        inc = int((df["verdict"] == "inconclusive").sum())
        margin = float(a.get("margin", df["margin"].iloc[0]))
        head += (f" {bal} {'is' if bal == 1 else 'are'} shown balanced (within "
                 f"±{100 * margin:.0f} pp, two one-sided tests, {corr}-adjusted) and {inc} "
                 f"{'is' if inc == 1 else 'are'} inconclusive: no flag is not balanced."
                 + near_boundary(df))
    elif not len(flagged):
        head += " No card's strength is shown to lie outside that band."
    head += (f" The strongest is {hi['card']}, {_pp(hi['strength'])} (95% CI "
             f"{_ci_pp(hi['strength_lo'], hi['strength_hi'])}); the weakest {lo['card']}, "
             f"{_pp(lo['strength'])} (95% CI {_ci_pp(lo['strength_lo'], lo['strength_hi'])}).")
    # Model cards (stand-ins, not printed cards; column card_type) are listed apart.
    types = df["card_type"] if "card_type" in df.columns else pd.Series("printed", df.index)
    split = bool((types == "model").any())
    if split:
        ft = types[flagged.index]
        head += (f" Of the flagged, {int((ft == 'printed').sum())} are printed cards and "
                 f"{int((ft == 'model').sum())} model cards (stand-ins for unknown printed "
                 f"cards), listed apart below.")
    out = [Verdict("cards", head, tuple(df["card"]))]
    groups = ((("cards_printed", flagged[types[flagged.index] == "printed"]),
               ("cards_model", flagged[types[flagged.index] == "model"])) if split
              else (("cards", flagged),))
    for topic, part in groups:
        ranked = part.reindex(part["strength"].abs().sort_values(ascending=False).index)
        for r in ranked.head(max_named).itertuples():
            out.append(Verdict(topic, (
                f"{r.card} (level {r.level} {r.kind}) is {'over' if r.flag == 'over' else 'under'}-"
                f"powered: pursuing it is worth {_pp(r.strength)} of win share against never buying "
                f"it, 95% CI {_ci_pp(r.strength_lo, r.strength_hi)} ({corr}-adjusted "
                f"{_ci_pp(r.strength_lo_adj, r.strength_hi_adj)}), n = {_n(r.n_deals)} deals"
                f"{agreement_note(getattr(r, 'verdict_stable', None), getattr(r, 'verdict_agreement', None))}."),
                (r.card,)))
        if len(ranked) > max_named:
            rest = ", ".join(ranked["card"].iloc[max_named:])
            out.append(Verdict(topic, f"Also flagged: {rest} (see the advancement section).",
                               tuple(ranked["card"].iloc[max_named:])))
    return out


def headline_card_verdicts(results: dict) -> list:
    """The summary's card verdicts from a report's results: under the strong field
    (``results["field_verdicts"]``) when the report ran it, else the advancement
    section's (``results["advancements"]``), else none."""
    if "field_verdicts" in results:
        fv = results["field_verdicts"]
        return field_card_verdicts(fv["table"], fv["frame"].attrs, fv["settlement"],
                                   fv["rationality"])
    if "advancements" in results:
        return card_verdicts(results["advancements"])
    return []


def _per_pick_words(r) -> str:
    """"; each purchase +14.5 pp [...] to its buyer" (per pick, when the field buys the
    card) and, for an under, "each forced purchase -8.1 pp [...]" (docs/statistics.md
    §5.7); "" where the table has no such numbers."""
    out = ""
    pp = r.get("per_pick_value")
    if pp is not None and pp == pp:
        out += (f"; each purchase {_pp(pp)} {_ci_pp(r['per_pick_lo'], r['per_pick_hi'])} "
                "to its buyer (per pick)")
    fp = r.get("forced_per_pick")
    if r.get("verdict") == "under" and fp is not None and fp == fp:
        out += (f"; each forced purchase {_pp(fp)} "
                f"{_ci_pp(r['forced_per_pick_lo'], r['forced_per_pick_hi'])}")
    return out


def field_card_verdicts(table: pd.DataFrame, attrs: dict, settlement, rationality=None,
                        max_named: int = MAX_NAMED_CARDS) -> list[Verdict]:
    """The headline card verdicts under the strongest field (the natural estimand,
    docs/statistics.md §5.6), from :func:`vale_sim.strong_field.verdict_table`'s table,
    the strong frame's ``attrs``, the :class:`~vale_sim.advancements.Settlement` and
    the :func:`~vale_sim.strong_field.rationality_table` (optional).  Each flagged
    card is marked settled or not; model cards (``card_type``) are listed apart."""
    if table is None or not len(table):
        return []
    field, second = settlement.labels
    comp = [c[len("verdict ("):-1] for c in table.columns
            if c.startswith("verdict (") and c != f"verdict ({second})"]
    corr = CORRECTION_NAMES.get(attrs.get("correction"), attrs.get("correction", ""))
    n_deals = int(table["n_deals"].max())
    flagged = table[table["verdict"].isin(["over", "under"])]
    head = (f"Under the strongest field, {field}, of {len(table)} cards tested at "
            f"{attrs.get('players')} players (n = {strength_counts(n_deals, int(attrs['players']))}"
            f"), {int((flagged['verdict'] == 'over').sum())} read over and "
            f"{int((flagged['verdict'] == 'under').sum())} under when played well (over: the "
            f"natural value or the value per pick beyond +{100 * float(attrs['tolerance']):.0f}"
            f" pp, {corr}-adjusted; under: not shown to help the field and costly when forced, "
            f"per opportunity or per forced purchase; docs/statistics.md §5.7). "
            + settlement.sentence() + near_boundary(table))
    for k in comp:
        v = table[f"verdict ({k})"]
        head += (f"  The same estimand under {k} (comparison): {int((v == 'over').sum())} "
                 f"over, {int((v == 'under').sum())} under; {int((v == table['verdict']).sum())}"
                 f" of {len(table)} verdicts agree with {field}'s.")
    out = [Verdict("cards", head, tuple(table["card"]))]
    types = table["card_type"] if "card_type" in table.columns else pd.Series("printed",
                                                                                table.index)
    split = bool((types == "model").any())
    groups = ((("cards_printed", flagged[types[flagged.index] == "printed"]),
               ("cards_model", flagged[types[flagged.index] == "model"])) if split
              else (("cards", flagged),))
    for topic, part in groups:
        ranked = part.reindex(part["natural_value"].abs().sort_values(ascending=False).index)
        for r in ranked.head(max_named).to_dict("records"):
            # "the meta-2p field", not "under meta-2p": a verdict may itself be "under"
            also = "; ".join(f"{k} field: {r[f'verdict ({k})']}" for k in comp)
            out.append(Verdict(topic, (
                f"{r['card']} (level {r['level']} {r['kind']}) reads {r['verdict']} in the "
                f"{field} field ({'settled' if r['settled'] else 'not settled'}: "
                f"{r[f'verdict ({second})']} in the {second} field"
                f"{'; ' + also if also else ''}): having it is worth "
                f"{_pp(r['natural_value'])} of win share to the field's own play, 95% CI "
                f"{_ci_pp(r['natural_lo'], r['natural_hi'])} ({corr}-adjusted "
                f"{_ci_pp(r['natural_lo_adj'], r['natural_hi_adj'])}); taking it whenever "
                f"possible {_pp(r['forced_value'])} {_ci_pp(r['forced_lo'], r['forced_hi'])}"
                f"{_per_pick_words(r)}; n = {_n(r['n_deals'])} deals"
                f"{agreement_note(r.get('verdict_stable'), r.get('verdict_agreement'))}."),
                (r["card"],)))
        if len(ranked) > max_named:
            rest = ", ".join(ranked["card"].iloc[max_named:])
            out.append(Verdict(topic, f"Also flagged: {rest} (see the advancement section).",
                               tuple(ranked["card"].iloc[max_named:])))
    if rationality is not None and len(rationality):
        parts = [f"{r.field} {r.below_zero} of {r.cards_tested}"
                 + (f", {r.never_bought} never bought" if getattr(r, "never_bought", None)
                    is not None and r.never_bought == r.never_bought else "") + " (sum "
                 f"{_pp(r.below_zero_sum or 0.0)}; lowest {r.lowest_card} "
                 f"{_pp(r.lowest_natural_value)}, 95% CI "
                 f"{_ci_pp(r.lowest_natural_lo, r.lowest_natural_hi)}; n = {_n(r.n_deals)} deals)"
                 for r in rationality.itertuples()]
        out.append(Verdict("cards", (
            "Rationality check (cards whose natural value is significantly below 0, "
            "one-sided, Holm-adjusted: mistakes of the field, not properties of the cards; "
            "a field that plays well has none): " + "; ".join(parts) + "."), None))
    return out


# ---------------------------------------------------------------------------
# Seats
# ---------------------------------------------------------------------------
#: The default bot, shown as the comparison of the strong-field verdicts.
COMPARISON_FIELD = "balanced"


def _field_prefix(field, players: int) -> str:
    """``"[meta-2p] "``: ``field`` a name or a function of the player count."""
    if callable(field):
        field = field(players)
    return f"[{field}] " if field else ""


def seat_verdicts(summary: pd.DataFrame, field=None) -> list[Verdict]:
    """The starting player's win rate at each player count's rulebook pool
    (``field``: the policies every seat played, named at the start of each sentence)."""
    out = []
    for r in summary[summary.rulebook].sort_values("players").itertuples():
        fair = 1 / r.players
        w = r.seat_win_rates[0]
        lo, hi = r.seat_win_rates_ci[0]
        if lo > fair:
            reading = "an advantage"
        elif hi < fair:
            reading = "a disadvantage"
        else:
            reading = "no detectable advantage"
        out.append(Verdict("seats", _field_prefix(field, r.players) + (
            f"At {r.players} players (rulebook pool {r.pool} VP), seat 1 (the starting player) "
            f"wins {_pct(w)} of games, 95% CI {_ci_pct(lo, hi)}, n = {_n(r.n_games)}, against a "
            f"fair share of {_pct(fair)}: {reading}.")))
    return out


def seat_reading(r) -> str:
    """A rulebook-pool row's reading of seat 1: "an advantage", "a disadvantage" or
    "no detectable advantage" (its 95% interval against the fair share)."""
    lo, hi = r.seat_win_rates_ci[0]
    fair = 1 / r.players
    return ("an advantage" if lo > fair else "a disadvantage" if hi < fair
            else "no detectable advantage")


def seat_readings(summary: pd.DataFrame) -> list[tuple[int, str]]:
    """``[(players, reading), ...]`` in :func:`seat_verdicts`' order."""
    return [(r.players, seat_reading(r))
            for r in summary[summary.rulebook].sort_values("players").itertuples()]


def pool_readings(recs: dict) -> list[tuple[int, str]]:
    """``[(players, the rulebook pool's verdict, "pools that give the target there: ..."),
    ...]`` in :func:`pool_verdicts`' order."""
    out = []
    for target, rs in recs.items():
        for r in rs:
            if target == "equal-length" and r.players == 2:
                continue
            verdict = getattr(r, "rulebook_verdict", None) or (
                "equivalent" if r.rulebook_equivalent else "inconclusive")
            pools = r.range_text() if r.pool_range else "none"
            out.append((r.players, verdict, f"pools that give the target there: {pools}"))
    return out


#: Readings that say nothing was shown: a verdict resting on one is never "settled".
UNSETTLED_READINGS = ("no detectable advantage", "inconclusive")


def mark_settled(verdicts: list, readings_a: list, readings_b: list, field_b) -> list:
    """``verdicts`` (one per reading, same order) with "Settled" / "Not settled" appended:
    settled when the reading under the second field (``field_b``: a name or a function
    of the player count) is the same and shows something (not
    :data:`UNSETTLED_READINGS`).  Readings: ``(players, reading)`` or ``(players,
    reading, detail)``; the second field's detail is appended in brackets."""
    out = []
    for v, ra, rb in zip(verdicts, readings_a, readings_b):
        p, a, b = ra[0], ra[1], rb[1]
        extra = f" ({rb[2]})" if len(rb) > 2 else ""
        name = field_b(p) if callable(field_b) else field_b
        shows = a not in UNSETTLED_READINGS
        tail = (f" Settled: the same under {name}{extra}." if a == b and shows else
                f" Not settled: under {name}, {b}{extra}." if a != b else
                f" Not settled: the same under {name}, but nothing is shown{extra}.")
        out.append(Verdict(v.topic, v.sentence + tail, v.cards))
    return out


# ---------------------------------------------------------------------------
# Pools
# ---------------------------------------------------------------------------
def pool_verdicts(recs: dict, field=None) -> list[Verdict]:
    """One sentence per player count and target, from the pool recommendations
    (a pool study's ``Recommendation``: an equivalence test within a margin;
    ``field``: the policies every seat played, named at the start)."""
    out = []
    for target, rs in recs.items():
        for r in rs:
            if target == "equal-length" and r.players == 2:
                continue              # the 2-player rulebook game is the target itself
            out.append(Verdict("pools", _field_prefix(field, r.players) + _pool_sentence(r)))
    return out


def _pool_sentence(r) -> str:
    eq = r.target == "equal-length"
    if eq:
        margin = f"±{r.margin:.1f} rounds"
        goal = f"a game as long as the 2-player rulebook game ({r.goal:.1f} rounds, within {margin})"
        diff = (f"differs by {r.rulebook_difference:+.2f} rounds, 90% CI "
                f"[{r.rulebook_difference_ci[0]:+.2f}, {r.rulebook_difference_ci[1]:+.2f}]")
    else:
        margin = f"{100 * r.margin:.1f} pp"
        goal = f"every seat within {margin} of a fair share"
        diff = (f"has a largest seat gap of {100 * r.rulebook_value:.1f} pp, 95% CI "
                f"[{100 * r.rulebook_value_ci[0]:.1f}, {100 * r.rulebook_value_ci[1]:.1f}]")
    if r.pool_range is None:
        which = f"no pool of the grid is shown to give {goal}"
    else:
        lo, hi = r.pool_range
        which = (f"VP pool {lo} gives {goal}" if lo == hi
                 else f"VP pools {r.range_text()} give {goal}")
    verdict = getattr(r, "rulebook_verdict", None) or (
        "equivalent" if r.rulebook_equivalent else "inconclusive")
    return (f"At {r.players} players, {which}; the rulebook's {r.rulebook_pool} {diff}, "
            f"n = {_n(r.n_games)} games per pool: {verdict}.")


# ---------------------------------------------------------------------------
# Robust to the bots?
# ---------------------------------------------------------------------------
def robust_verdicts(cards, pools, strong: str) -> list[Verdict]:
    """One sentence: the card strengths' rank correlation under the default and the
    strong baseline, the flags that hold and those that change, and the pool
    verdicts (:mod:`vale_sim.robustness`)."""
    if cards is None and pools is None:
        return []
    from .robustness import summary_sentence
    names = tuple(cards.flagged["card"]) if cards is not None and len(cards.flagged) else None
    return [Verdict("robust", summary_sentence(cards, pools, strong), names)]


# ---------------------------------------------------------------------------
# Spoil odds
# ---------------------------------------------------------------------------
def spoil_verdicts(table: pd.DataFrame, exact: dict, deck: str = "starter",
                   cards: tuple | None = None) -> list[Verdict]:
    """The starting deck's spoil odds (exact), with the simulation that checks them.

    ``cards``: the names of the deck's cards (for the share of estimated numbers).
    """
    if deck not in exact:
        return []
    ex = exact[deck]
    t = table[table.deck == deck].set_index("pushes")
    ks = [k for k in (1, 2, 3) if k in t.index]
    if not ks:
        return []
    odds = ", ".join(f"{_pct(ex.p_spoil_within[k])} within {k} push{'es' if k > 1 else ''}"
                     for k in ks)
    k = ks[-1]
    row = t.loc[k]
    agrees = "agrees" if bool(row["agrees"]) else "DISAGREES"
    return [Verdict("spoil", (
        f"The starting deck spoils {odds} (exact, over all deck orders); a simulation "
        f"{agrees}: {_pct(row['p_spoil_sim'])} within {k} pushes, 95% CI "
        f"{_ci_pct(row['sim_lo'], row['sim_hi'])}, n = {_n(row['sim_n'])} turns."), cards)]


# ---------------------------------------------------------------------------
# The summary
# ---------------------------------------------------------------------------
#: The summary's topics every game shares (the card strength), in order; a game's
#: own follow them: its report module's ``TOPICS`` (:func:`topics`).
TOPICS = (("cards", "Cards flagged over and under"),
          ("cards_printed", "Printed cards flagged over and under"),
          ("cards_model", "Model cards (stand-ins, not printed cards) flagged over and under"))


def topics(report_module=None) -> tuple:
    """The summary's ``(topic, heading)`` pairs: the shared :data:`TOPICS`, then those of
    the game's report module (its ``TOPICS``, if any)."""
    own = tuple(getattr(report_module, "TOPICS", ()))
    clash = {t for t, _ in own} & {t for t, _ in TOPICS}
    if clash:
        raise ValueError(f"{report_module.__name__}.TOPICS repeats the shared topic "
                         f"{sorted(clash)[0]!r}")
    return TOPICS + own


def summary_bullets(verdicts: list[Verdict], estimated_share=None,
                    topics: tuple = TOPICS) -> list[tuple]:
    """``[(heading, [sentence, ...], provenance), ...]`` in ``topics`` order (default the
    shared :data:`TOPICS`; a game's report: :func:`topics` of its module); a verdict of a
    topic not listed is not shown.

    ``estimated_share(cards) -> (estimated, total)`` counts the card numbers
    behind a verdict (``cards`` None: the whole set); when given, each heading's
    provenance says once, for all its verdicts together (the union of their
    cards), how many of those numbers are estimates ("" without it).
    """
    out = []
    for topic, heading in topics:
        mine = [v for v in verdicts if v.topic == topic]
        if not mine:
            continue
        note = ""
        if estimated_share is not None:
            cards = (None if any(v.cards is None for v in mine)
                     else tuple(sorted({c for v in mine for c in v.cards})))
            est, total = estimated_share(cards)
            if total:
                behind = "this verdict" if len(mine) == 1 else f"these {len(mine)} verdicts"
                note = (f"Card numbers behind {behind}: {est} of {total}, "
                        f"{100 * est / total:.0f}%, are estimates.")
        out.append((heading, [v.sentence for v in mine], note))
    return out
