"""``vale-sim cards``: print a card set as a table (with each card's source), or export CSV."""
from __future__ import annotations

from collections import Counter

# Compact symbol codes for the table (legend printed under it).
SYMBOL_CODES = (("mana", "M"), ("animal", "A"), ("forest", "F"), ("sky", "S"),
                ("wild", "W"), ("guardian", "G"), ("decay", "D"), ("growth", "R"),
                ("harvest_vp", "H"), ("end_vp", "E"))
LEGEND = ("symbols: M mana, A animal, F forest, S sky, W wild, G guardian, D decay, "
          "R growth, H harvest VP, E end-of-game VP")


def add_parser(sub) -> None:
    p = sub.add_parser("cards", help="show a card set (with where each number comes from)",
                       description="Print a card set as a table: starting cards, advancements "
                                   "and vales, each with its source (rulebook, fan-list, "
                                   "estimate, user). With --csv, also export it as CSV.")
    p.add_argument("--set", default="core", metavar="core|starter|FILE",
                   help="card set: a bundled name or a .toml/.csv file (default core)")
    p.add_argument("--csv", metavar="OUT", help="write the set as CSV to OUT")
    p.set_defaults(func=run)


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
    sources: Counter = Counter()

    out += ["", f"Starting cards ({sum(s.count for s in cs.starting_cards)} per player)"]
    rows = []
    for s in cs.starting_cards:
        rows.append((s.name, s.count, " + ".join(s.advancements) or "(blank)", s.source))
        sources[s.source] += s.count
    out += table(("name", "count", "advancements", "source"), rows)

    out += ["", f"Advancements ({len(cs.advancements)} kinds, "
                f"{sum(a.copies for a in cs.advancements if a.supply != 'starter')} supply copies)"]
    rows = []
    for a in cs.advancements:
        lw = " (long-wise)" if a.longwise else ""
        rows.append((a.name, a.supply, a.level, a.copies, a.cost, POSITIONS[a.position] + lw,
                     symbols(a), ability(a.ability, a.amount), a.source))
        if a.supply != "starter":
            sources[a.source] += a.copies
    out += table(("name", "supply", "lvl", "copies", "cost", "position", "symbols",
                  "ability", "source"), rows)

    out += ["", f"Vales ({len(cs.vales)} kinds, {sum(v.copies for v in cs.vales)} copies)"]
    rows = []
    for v in cs.vales:
        extra = (f" {v.symbol}" if v.symbol else "") + \
                (f" +{v.extra_buys} buy" if v.extra_buys else "") + \
                (" (unique)" if v.unique else "")
        rows.append((v.name, v.level, v.copies, vale_cost(v), v.end_vp,
                     ability(v.ability, v.amount, extra), v.source))
        sources[v.source] += v.copies
    out += table(("name", "lvl", "copies", "cost", "end VP", "ability", "source"), rows)

    out += ["", LEGEND, "vale cost: A animal, F forest, S sky, W wild (any spirit)", ""]
    out.append("Cards per source (physical copies; starting cards per player): "
               + ", ".join(f"{src} {n}" for src, n in sorted(sources.items())))
    if sources.get("estimate") or sources.get("fan-list"):
        out.append("Note: 'estimate' values are this project's estimates, not printed card "
                   "values; 'fan-list' values come from an unverified fan transcription.")
    return "\n".join(out)


def run(args) -> int:
    from ..cards import card_set_to_csv, load_card_set
    from ..io import check_outputs
    check_outputs((args.csv, "file", "--csv"))
    cs = load_card_set(args.set)
    print(render(cs))
    if args.csv:
        from ..io import atomic_path
        with atomic_path(args.csv) as tmp:          # never a half-written CSV
            card_set_to_csv(cs, tmp)
        print(f"\nwrote {args.csv}")
    return 0
