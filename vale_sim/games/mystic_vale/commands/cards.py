"""``vale-sim cards`` for Mystic Vale: a card set as a table with where each number comes from.

Every number has a source (the card's ``source``, or a per-field override in
``sources``); the tables show each card's default and its overrides, and the
footer counts the set's numbers per source.  ``--json`` prints every number with
its source; ``--csv`` exports the set (the ``sources`` column keeps the overrides).
"""
from __future__ import annotations

from collections import Counter
import json
import sys

# Compact symbol codes for the table (legend printed under it).
SYMBOL_CODES = (("mana", "M"), ("animal", "A"), ("forest", "F"), ("sky", "S"),
                ("wild", "W"), ("guardian", "G"), ("decay", "D"), ("growth", "R"),
                ("harvest_vp", "H"), ("end_vp", "E"))
LEGEND = ("symbols: M mana, A animal, F forest, S sky, W wild, G guardian, D decay, "
          "R growth, H harvest VP, E end-of-game VP")


def symbols(card) -> str:
    """Compact symbol string, e.g. '2M 1A 1D'."""
    out = [f"{getattr(card, f)}{code}" for f, code in SYMBOL_CODES if getattr(card, f)]
    return " ".join(out) or "-"


def vale_cost(v) -> str:
    parts = [f"{n}{c}" for n, c in zip(v.cost, "AFSW") if n]
    return " ".join(parts) or "0"


def ability(kind: str, amount: int, extra: str = "") -> str:
    if kind == "none":
        return "-"
    s = f"{kind} {amount}" if amount else kind
    return s + extra


def overrides(card) -> str:
    """The numbers whose source differs from the card's, grouped by source:
    e.g. 'rulebook: cost; estimate: copies end_vp' ('-' if none)."""
    by: dict = {}
    for f, src in card.numbers().items():
        if src != card.source:
            by.setdefault(src, []).append(f)
    costs = ["cost_animal", "cost_forest", "cost_sky", "cost_wild"]
    for src, fs in by.items():          # a vale's four cost numbers from one source: "cost"
        if all(c in fs for c in costs):
            by[src] = ["cost"] + [f for f in fs if f not in costs]
    from ..cards import SOURCES
    order = sorted(by, key=lambda src: SOURCES.index(src) if src in SOURCES else len(SOURCES))
    return "; ".join(f"{src}: {' '.join(by[src])}" for src in order) or "-"


def number_value(card, field_):
    from ..cards import POSITIONS
    v = getattr(card, field_)
    return POSITIONS[v] if field_ == "position" else v


def card_json(cs) -> dict:
    """Every card with each number's value and source, and the counts per source."""
    from ..cards import MODEL_CARDS_EXPLAINED, card_type, provenance_counts
    counts = provenance_counts(cs)
    total = sum(counts.values())
    out_cards = []
    for kind, items in (("starting", cs.starting_cards), ("advancement", cs.advancements),
                        ("vale", cs.vales)):
        for c in items:
            out_cards.append({"type": kind, "name": c.name, "card_type": card_type(c),
                              "source": c.source,
                              "numbers": {f: {"value": number_value(c, f), "source": src}
                                          for f, src in c.numbers().items()}})
    return {"card_set": cs.name, "path": cs.path, "digest": cs.digest(),
            "numbers": total, "numbers_by_source": counts,
            "estimated_numbers": counts["estimate"],
            "estimated_share": counts["estimate"] / total if total else 0.0,
            "model_cards": sum(c["card_type"] == "model" for c in out_cards),
            "model_cards_note": MODEL_CARDS_EXPLAINED,
            "cards": out_cards}


def table(headers, rows) -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*headers).rstrip(), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*map(str, r)).rstrip() for r in rows]
    return lines


def render(cs) -> str:
    from ..cards import POSITIONS
    out = [f"Card set {cs.name!r} ({cs.path})" if cs.path else f"Card set {cs.name!r}"]
    if cs.description:
        out.append(cs.description)
    from ..cards import MODEL_CARDS_EXPLAINED, is_model_card
    if any(is_model_card(a) for a in cs.advancements):
        out.append(MODEL_CARDS_EXPLAINED)
    sources: Counter = Counter()

    out += ["", f"Starting cards ({sum(s.count for s in cs.starting_cards)} per player)"]
    rows = []
    for s in cs.starting_cards:
        rows.append((s.name, s.count, " + ".join(s.advancements) or "(blank)", s.source,
                     overrides(s)))
        sources[s.source] += s.count
    out += table(("name", "count", "advancements", "source", "other sources"), rows)

    by_supply = Counter(a.supply for a in cs.advancements)
    starter_only = [a.name for a in cs.advancements if a.supply == "starter"]
    out += ["", f"Advancements ({len(cs.advancements)} kinds: {by_supply['commons']} commons, "
                f"{by_supply['fertile']} Fertile Soil"
                + (f", {len(starter_only)} printed only on starting cards "
                   f"({', '.join(starter_only)}: never bought)" if starter_only else "")
                + f"; {sum(a.copies for a in cs.advancements if a.supply != 'starter')} "
                  f"supply copies; {len(cs.advancements) - len(starter_only)} buyable kinds)"]
    rows = []
    for a in cs.advancements:
        lw = " (long-wise)" if a.longwise else ""
        rows.append((a.name, a.supply, a.level, a.copies, a.cost, POSITIONS[a.position] + lw,
                     symbols(a), ability(a.ability, a.amount), a.source, overrides(a)))
        if a.supply != "starter":
            sources[a.source] += a.copies
    out += table(("name", "supply", "lvl", "copies", "cost", "position", "symbols",
                  "ability", "source", "other sources"), rows)
    model = [a for a in cs.advancements if is_model_card(a)]
    if model:
        out.append(f"{len(model)} of these {len(cs.advancements)} kinds "
                   f"({sum(a.copies for a in model)} copies) are model cards, not printed "
                   f"cards: see the note at the top.")

    out += ["", f"Vales ({len(cs.vales)} kinds, {sum(v.copies for v in cs.vales)} copies)"]
    rows = []
    for v in cs.vales:
        extra = (f" {v.symbol}" if v.symbol else "") + \
                (f" +{v.extra_buys} buy" if v.extra_buys else "") + \
                (" (unique)" if v.unique else "")
        rows.append((v.name, v.level, v.copies, vale_cost(v), v.end_vp,
                     ability(v.ability, v.amount, extra), v.source, overrides(v)))
        sources[v.source] += v.copies
    out += table(("name", "lvl", "copies", "cost", "end VP", "ability", "source",
                  "other sources"), rows)

    out += ["", LEGEND, "vale cost: A animal, F forest, S sky, W wild (any spirit)", ""]
    from ..cards import provenance_counts
    counts = provenance_counts(cs)
    total = sum(counts.values())
    est = counts["estimate"]
    kinds = list(cs.starting_cards) + list(cs.advancements) + list(cs.vales)
    n_est_kinds = sum("estimate" in c.numbers().values() for c in kinds)
    out.append(f"Numbers per source ({total} numbers: each number of each card kind once; "
               "'source' is a card's default, 'other sources' the numbers that differ): "
               + ", ".join(f"{src} {n}" for src, n in counts.items() if n))
    if total:
        out.append(f"Estimated numbers: {est} of {total} ({100 * est / total:.1f} %), on "
                   f"{n_est_kinds} of {len(kinds)} card kinds ({len(cs.starting_cards)} "
                   f"starting cards, {len(cs.advancements)} advancements, {len(cs.vales)} "
                   f"vales; the buyable ones are the {len(cs.advancements) - len(starter_only)} "
                   f"advancements in a supply and the {len(cs.vales)} vales).")
    out.append("Cards by default source (physical copies; starting cards per player): "
               + ", ".join(f"{src} {n}" for src, n in sorted(sources.items())))
    if est or counts["fan-list"] or counts["review"]:
        out.append("Note: 'estimate' values are this project's estimates, not printed card "
                   "values; 'fan-list' values come from an unverified fan transcription; "
                   "'review' values from reviews and a fan implementation, not the rulebook.")
    return "\n".join(out)


MODEL_MARK = "*"


def mark_model_cards(lines, cs) -> list[str]:
    """``lines`` (a game log) with every model card's name marked ``*`` and, when
    one appears, a first line saying what the mark means (model cards: stand-ins,
    not printed cards).  Card sets without model cards (or without advancements,
    other games) come back unchanged."""
    import re
    from ..cards import is_model_card
    lines = list(lines)
    names = sorted({a.name for a in getattr(cs, "advancements", ()) if is_model_card(a)},
                   key=len, reverse=True)
    if not names:
        return lines
    pat = re.compile("(" + "|".join(re.escape(n) for n in names) + r")(?![\w*])")
    marked = [pat.sub(lambda m: m.group(1) + MODEL_MARK, x) for x in lines]
    if marked == lines:
        return lines
    return [f"{MODEL_MARK} model card: a stand-in the project made up for the unknown printed "
            f"cards (every number estimated), not a printed card; `vale-sim cards` explains."
            ] + marked


def marked_log(record, cs) -> list[str]:
    """``GAME.format_log``: the game's log with the model cards marked."""
    return mark_model_cards(record.log, cs)


def describe_cards(cs, as_json: bool = False):
    """``GAME.describe_cards``: the table's text lines, or (``as_json``) every number
    with its value and source."""
    return card_json(cs) if as_json else render(cs).split("\n")


def export_cards(cs, path) -> None:
    """``GAME.export_cards``: the set as CSV (the ``sources`` column keeps the overrides)."""
    from ..cards import card_set_to_csv
    card_set_to_csv(cs, path)
