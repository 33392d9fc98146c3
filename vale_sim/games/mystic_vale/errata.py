"""The "Proposed errata" section of the Mystic Vale report: the bundled result of
``vale-sim balance`` on ``core`` at 2 players (data/balance/core-2p.json, made by
:data:`COMMAND`; docs/balance.md).  The report reads it; it never runs balance (a full
search takes many minutes).  Verdicts on printed numbers are kept apart from verdicts
on the project's estimates (the card data's sources)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from vale_sim.report import Section, SectionUnavailable

BUNDLED = Path(__file__).with_name("data") / "balance" / "core-2p.json"
COMMAND = ("vale-sim balance --game mystic-vale --set core --players 2 --json "
           "> vale_sim/games/mystic_vale/data/balance/core-2p.json")
PRINTED = ("rulebook", "review", "fan-list")      # sources that are a printed card's number


def load_bundled(path=BUNDLED) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise SectionUnavailable(f"the bundled balance result {path} cannot be read ({e})")


def _pp(x) -> str:
    return "-" if x != x else f"{100 * x:+.1f}"


def _iv(lo, hi) -> str:
    return "[no interval]" if lo != lo else f"[{100 * lo:+.1f}, {100 * hi:+.1f}]"


def number_source(cs, card: str, fld: str) -> str:
    """The source of ``card.fld`` in the card data (``estimate``, ``rulebook``, ...)."""
    c = next((a for a in list(cs.advancements) + list(cs.vales) if a.name == card), None)
    return "?" if c is None else c.numbers().get(fld, "?")


def card_kind(cs, card: str) -> str:
    """``printed`` when the card's cost and end VP are printed numbers (its verdict is a
    verdict on the printed card), ``estimated`` when either is the project's estimate,
    ``model`` for a stand-in card (every number the project's)."""
    from .cards import is_model_card
    c = next((a for a in list(cs.advancements) + list(cs.vales) if a.name == card), None)
    if c is None:
        return "?"
    if is_model_card(c):
        return "model"
    n = c.numbers()
    return ("printed" if all(n.get(f) in PRINTED for f in ("cost", "end_vp") if f in n)
            else "estimated")


def errata_table(res: dict, cs) -> pd.DataFrame:
    rows = []
    for r in res["errata"]:
        rows.append({"card": r["card"], "card_numbers": card_kind(cs, r["card"]),
                     "field": r["field"], "source_of_number": number_source(cs, r["card"], r["field"]),
                     "printed": r["printed"], "proposed": r["proposed"], "players": r["players"],
                     "strength_before": r["strength_before"],
                     "strength_before_lo": r["strength_before_lo"],
                     "strength_before_hi": r["strength_before_hi"],
                     "strength_after": r["strength_after"],
                     "strength_after_lo": r["strength_after_lo"],
                     "strength_after_hi": r["strength_after_hi"],
                     "verdict_after": r["verdict_after"], "n_deals": r["n_deals"]})
    return pd.DataFrame(rows)


def section_errata(ctx) -> Section:
    """Proposed errata: the bundled ``balance`` result on core, 2 players."""
    from vale_sim.balance import plot_convergence
    res = load_bundled()
    cs = ctx.card_set()
    if res.get("card_set") != cs.name or res.get("digest") != cs.digest():
        return Section("Proposed errata", [
            f"The bundled balance result is for card set {res.get('card_set')!r} as it was "
            f"when it was made (digest {str(res.get('digest'))[:12]}); this report's set "
            f"{cs.name!r} differs (digest {cs.digest()[:12]}), so its errata are not shown.  "
            f"Run `{COMMAND.split(' >')[0]}` with `--set` for this set."])
    et = errata_table(res, cs)
    conf = pd.DataFrame(res["confirmation"])
    conf["card_numbers"] = [card_kind(cs, c) for c in conf["card"]]
    g = res["games_played"]
    paras = [
        f"What should the flagged cards cost?  `vale-sim balance` (docs/balance.md) searched "
        f"the fewest, smallest integer edits of {', '.join(res['fields'])} after which every "
        f"card a player buys is shown within ±{100 * res['margin']:g} pp of strength "
        f"(prefer X − ban X) at {', '.join(map(str, res['players']))} players against the "
        f"`{res['baseline']}` bots, and replayed the proposal on a fresh seed "
        f"({res['confirm_seed']}) the search never used: {g['search']:,} search and "
        f"{g['confirmation']:,} confirmation games, {res['confirm_games']:,} games per card "
        f"and arm in the confirmation, {res['correction']} across the "
        f"{len(res['cards'])} cards.  This is a **precomputed bundled result**, made by "
        f"`{COMMAND}` (seed {res['seed']}); the report reads it and plays no game for it.",
        f"{len(res['targets'])} cards were shown beyond ±{100 * res['margin']:g} pp in the "
        f"first screen and could be edited; {len(res['edits'])} edits are proposed.  The "
        f"errata table gives, per edit, the card, the field, printed → proposed, and the "
        f"strength before → after on the confirmation deals with the adjusted intervals and "
        f"n (deals).",
    ]
    bullets = []
    for kind, head in (("printed", "Verdicts on printed numbers (cost and end VP printed)"),
                       ("estimated", "Verdicts on estimated numbers (printed card, its cost or "
                                     "end VP the project's estimate)"),
                       ("model", "Verdicts on model cards (stand-ins: every number the "
                                 "project's)")):
        ed = et[et["card_numbers"] == kind] if len(et) else et
        sub = conf[conf["card_numbers"] == kind]
        shown = sub[sub["verdict_before"].isin(["over", "under"])]
        items = [f"{r.card}: {r.field} {r.printed} → {r.proposed} ({r.source_of_number}); "
                 f"strength {_pp(r.strength_before)} {_iv(r.strength_before_lo, r.strength_before_hi)}"
                 f" → {_pp(r.strength_after)} {_iv(r.strength_after_lo, r.strength_after_hi)} pp, "
                 f"{r.verdict_after} after, n = {r.n_deals} deals" for r in ed.itertuples()]
        items.append(f"{len(sub)} cards of this kind; before the edits "
                     f"{len(shown)} over/under in the confirmation"
                     + (f" ({', '.join(shown['card'])})" if len(shown) else "")
                     + f"; after: {int(sub['verdict_after'].isin(['over', 'under']).sum())} "
                       f"over/under, {int((sub['verdict_after'] == 'balanced').sum())} balanced, "
                       f"{int((sub['verdict_after'] == 'inconclusive').sum())} inconclusive.")
        bullets.append((head, items))
    unb = res.get("unbalanced", {})
    reasons = [f"{c}: {why}" for c, why in unb.items()
               if not why.startswith("not edited (not shown beyond")]
    quiet = sum(1 for why in unb.values() if why.startswith("not edited (not shown beyond"))
    if reasons or quiet:
        bullets.append(("Not balanced with the allowed fields", reasons + (
            [f"{quiet} more cards were not edited (not shown beyond the margin in the screen) "
             f"and are not shown balanced either: more games would decide."] if quiet else [])))
    fig = plot_convergence(res)
    tables = {"errata": et, "errata_confirmation": conf}
    return Section("Proposed errata", paras, tables,
                   [("errata_convergence", fig,
                     "Per edited card, the largest |strength| over the player counts at each "
                     "step of the search (screen, race candidates) and in the confirmation, "
                     "against the games played so far; dashed: the margin.")],
                   bullets, top_tables={"errata": et})
