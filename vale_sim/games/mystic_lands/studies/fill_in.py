"""The "Filling in the X's" section of the Mystic Lands report: the bundled result of
``vale-sim balance --game mystic-lands --draft`` (data/balance/draft.json, made by
:data:`COMMAND`; docs/balance.md).  The report reads it and plays no game for it."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

BUNDLED = Path(__file__).resolve().parents[1] / "data" / "balance" / "draft.json"
COMMAND = ("vale-sim balance --game mystic-lands --draft --games 6000 --json "
           "> vale_sim/games/mystic_lands/data/balance/draft.json")
CARDS_BUNDLED = BUNDLED.with_name("cards-2p.json")
CARDS_COMMAND = ("vale-sim balance --game mystic-lands --players 2 --estimated-only --json "
                 "--out-cards vale_sim/games/mystic_lands/data/mystic-lands-fitted.toml "
                 "> vale_sim/games/mystic_lands/data/balance/cards-2p.json")


def _pp(x) -> str:
    return f"{100 * x:+.1f}"


def evidence(n: dict) -> str:
    """One number's confirmation evidence in a sentence (intervals and n)."""
    out = []
    for k, c in n["confirmation"].items():
        if n["criterion"] == "seats":
            worst = max(c["seats"], key=lambda r: abs(r["gap"]))
            out.append(f"{k} ({c['value']}): "
                       f"{c['verdict']}, largest seat gap {worst['players']}p seat "
                       f"{worst['seat']} {_pp(worst['gap'])} [{_pp(worst['lo'])}, "
                       f"{_pp(worst['hi'])}] pp, n = {worst['n_deals']} deals per count")
        elif c.get("is_reference"):
            out.append(f"{k} {c['value']} is the reference (the largest candidate)")
        else:
            w = max(c["differences"], key=lambda r: max(abs(r["lo"]), abs(r["hi"])) / r["bound"])
            out.append(f"{k} {c['value']} vs the reference {n['reference']}: "
                       + ("shown to change the game" if c["binds"] else "shown enough"
                          if c["enough"] else "inconclusive") + ", largest "
                       f"difference {w['measure']} at {w['players']}p {w['diff']:+.3f} "
                       f"[{w['lo']:+.3f}, {w['hi']:+.3f}] (bound ±{w['bound']:g}), "
                       f"n = {w['n_deals']} deals")
    return "; ".join(out)


def table(res: dict) -> pd.DataFrame:
    return pd.DataFrame([{"number": n["label"], "the manual says": n["manual"],
                          "source now": n["source"], "criterion": n["criterion"],
                          "played now": n["current"], "proposed": n["proposed"],
                          "changed": n["changed"], "evidence (confirmation)": evidence(n)}
                         for n in res["numbers"]])


def section_fill_in(ctx):
    from vale_sim.report import Section, SectionUnavailable
    try:
        res = json.loads(BUNDLED.read_text())
    except (OSError, ValueError) as e:
        raise SectionUnavailable(f"the bundled --draft result {BUNDLED} cannot be read ({e})")
    cs = ctx.card_set()
    if res.get("card_set") != cs.name or res.get("digest", cs.digest()) != cs.digest():
        return Section("Filling in the X's", [
            f"The bundled result is for card set {res.get('card_set')!r} (digest "
            f"{res.get('digest', '?')}), this report's is {cs.name!r} ({cs.digest()}): run "
            f"`{COMMAND.split(' >')[0]} --set ...` for it."])
    t = table(res)
    g = res["games_played"]
    paras = [
        f"The draft manual leaves numbers open.  `vale-sim balance --game mystic-lands "
        f"--draft` (docs/balance.md, \"Filling in the X's\") proposes a value for each with "
        f"its evidence: every candidate value is played on common deals, everyone the "
        f"`{res['baseline']}` bots, at {', '.join(map(str, res['players']))} players, "
        f"{res['deals']:,} deals per candidate and count; the proposal is then replayed on "
        f"{res['confirm_deals']:,} fresh deals per count (the evidence column), "
        f"{g['games']:,} games in all.  This is a **precomputed bundled result**, made by "
        f"`{COMMAND}` (seed {res['seed']}); the report plays no game for it.",
        "Two criteria.  *enough* (the manual's \"X\" counts, our estimates): the smallest "
        "value whose games do not differ from those of a generous reference (every seat's "
        f"win rate within ±{100 * res['margin']:g} pp, game length within "
        f"±{res['bounds']['rounds']:g} rounds, score margin within "
        f"±{res['bounds']['score_margin']:g} VP, Withers per player within "
        f"±{res['bounds']['event_per_player']:g}: 95% intervals of the paired differences); "
        "the value played now is kept when it is shown enough.  *seats* (numbers the manual "
        f"prints): changed only when some seat is shown beyond ±{100 * res['margin']:g} pp "
        "of a fair share with it (Bonferroni across seats and counts).  The numbers are "
        "handled in the order listed, each with the proposals before it applied.",
    ]
    est = [n for n in res["numbers"] if n["source"] == "estimate"]
    man = [n for n in res["numbers"] if n["source"] != "estimate"]
    bullets = [
        ("The manual's X's (our estimates)",
         [f"{n['label']}: {n['current']} → **{n['proposed']}** — {n['why']}" for n in est]),
        ("Numbers the manual prints",
         [f"{n['label']}: {n['current']} → **{n['proposed']}** — {n['why']}" for n in man]),
    ]
    tables = {"fill_in_the_xs": t}
    cards = card_numbers(cs)
    if cards is not None:
        res_c, ct = cards
        if len(ct):
            tables["estimated_card_numbers_balance_changed"] = ct.rename(columns={
                **{f"strength_{t}{e}": (f"strength ({t})" if not e else f"{e[1:]} ({t})")
                   for t in ("before", "after") for e in ("", "_lo", "_hi")},
                **{f"natural_{t}{e}": (f"natural_value ({t})" if not e
                                       else f"natural_{e[1:]} ({t})")
                   for t in ("before", "after") for e in ("", "_lo", "_hi")}})
        g2 = res_c["games_played"]
        nat = res_c.get("estimand", "prefer") == "natural"
        paras.append(
            f"The estimated **card** numbers: `{CARDS_COMMAND}` (the card search of "
            f"docs/balance.md at {', '.join(map(str, res_c['players']))} players under the "
            f"`{res_c.get('baseline', 'balanced')}` field, "
            + ("the natural estimand (natural value and forced value, docs/statistics.md "
               "§5.6), " if nat else "")
            + ("estimated numbers only (every printed number held fixed), "
               if res_c.get("estimated_only") else "")
            + f"fields {', '.join(res_c['fields'])}, margin ±{100 * res_c['margin']:g} pp; "
            f"{g2['search']:,} search and {g2['confirmation']:,} confirmation games, "
            f"bundled; the refit card file is bundled beside the set as "
            f"`mystic-lands-fitted.toml`, not played by default).  "
            f"{len(res_c['targets'])} of {len(res_c['cards'])} cards were shown over or "
            f"under; {len(res_c['edits'])} numbers are proposed, each an "
            f"estimate of the project unless the table's source column says otherwise "
            f"(printed numbers are the manual's).  On the confirmation deals, over the "
            f"{len(res_c['cards'])} cards: {_counts(res_c, 'verdict_before')} before the "
            f"edits, {_counts(res_c, 'verdict_after')} after; the cards still not balanced "
            f"and why are in the bundled result (`unbalanced`): the search fixes one card at "
            f"a time, and in this set the cards interact strongly (a card fixed early can "
            f"move another beyond the margin).")
        def values(r):
            def pair(q):
                return (f"{_pp(r[f'{q}_before'])} [{_pp(r[f'{q}_before_lo'])}, "
                        f"{_pp(r[f'{q}_before_hi'])}] → {_pp(r[f'{q}_after'])} "
                        f"[{_pp(r[f'{q}_after_lo'])}, {_pp(r[f'{q}_after_hi'])}] pp")
            return (f"natural value {pair('natural')}, forced {pair('strength')}"
                    if "natural_before" in r else f"strength {pair('strength')}")
        bullets.append(("Estimated card numbers balance changed",
                        [f"{r['card']}: {r['field']} {r['printed']} → {r['proposed']} "
                         f"({r['source']}); {values(r)}, {r['verdict_after']} after, n = "
                         f"{r['n_deals']} deals" for r in ct.to_dict("records")]
                        or ["none"]))
        for c, why in res_c.get("unbalanced", {}).items():
            if why.startswith("no allowed edit"):
                bullets[-1][1].append(f"{c}: {why}")
    return Section("Filling in the X's", paras, tables, [], bullets,
                   top_tables={"fill_in_the_xs": t})


def _counts(res, col) -> str:
    c = pd.Series([r[col] for r in res["confirmation"]]).value_counts()
    return ", ".join(f"{c.get(v, 0)} {v}" for v in ("over", "under", "balanced", "inconclusive"))


def card_numbers(cs):
    """(bundled card-balance result, its errata with each number's source), or None when
    no such result is bundled or it was made from another card set."""
    try:
        res = json.loads(CARDS_BUNDLED.read_text())
    except (OSError, ValueError):
        return None
    if res.get("card_set") != cs.name or res.get("digest") != cs.digest():
        return None
    src = {c.name: dict(c.sources) for c in list(cs.advances) + list(cs.vales)}
    qs = ("natural", "strength") if res.get("estimand", "prefer") == "natural" else ("strength",)
    vals = [f"{q}_{w}{e}" for q in qs for w in ("before", "after") for e in ("", "_lo", "_hi")]
    cols = ["card", "field", "printed", "proposed", "players", "source"] + vals + [
        "verdict_after", "n_deals"]
    rows = [{**{k: r[k] for k in ("card", "field", "printed", "proposed", "players",
                                  *vals, "verdict_after", "n_deals")},
             "source": r.get("number_source") or src.get(r["card"], {}).get(r["field"], "estimate")}
            for r in res["errata"]]
    return res, pd.DataFrame(rows, columns=cols)
