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
#: The refit of the set's estimated card numbers (docs/balance.md, "The fitted sets"): eight
#: passes of the card search, pass 1 on the pre-refit set ``mystic-lands-unfitted``, each
#: next pass on the previous pass's ``--out-cards`` file (passes 4-8: the co-refit, each
#: under the field of a meta run on the set it edits); pass 7's file is the bundled
#: ``mystic-lands``, pass 8 proposed no edit.  Each result records ``fitted_set``/``fitted_digest``.
CARDS_PASSES = tuple(BUNDLED.with_name(n) for n in
                     ("cards-2p.json",) + tuple(f"cards-2p-pass{k}.json" for k in range(2, 9)))
CARDS_BUNDLED = CARDS_PASSES[0]
CARDS_COMMAND = ("vale-sim balance --game mystic-lands --set mystic-lands-unfitted --players 2 "
                 "--estimated-only --json --out-cards PASS1.toml "
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


def _decision(n: dict) -> str:
    d = n.get("decision", "changed" if n["changed"] else "kept")
    if "seeds_agree" in n:
        d += (", a second seed agrees" if n["seeds_agree"] else
              f", a second seed disagrees: {n['second_seed_proposed']}")
    return d


def table(res: dict) -> pd.DataFrame:
    return pd.DataFrame([{"number": n["label"], "the manual says": n["manual"],
                          "source now": n["source"], "criterion": n["criterion"],
                          "played now": n["current"], "proposed": n["proposed"],
                          "changed": n["changed"],
                          "decision": n.get("decision", "changed" if n["changed"] else "kept")
                          + (f" (needs about {n['deals_needed']:,} deals)"
                             if n.get("deals_needed") else ""),
                          "second seed": (f"{n['second_seed_proposed']}: "
                                          + ("agrees" if n["seeds_agree"] else "disagrees"))
                          if "seeds_agree" in n else "not run",
                          "evidence (confirmation)": evidence(n)}
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
        f"{g['games']:,} games in all"
        + (f", half of them the same fill-in at a second seed ({res['second_seed']}), whose "
           f"proposals agree with the first's for "
           f"{sum(bool(n['seeds_agree']) for n in res['numbers'])} of {len(res['numbers'])} "
           f"numbers" if "second_seed" in res else "")
        + f".  This is a **precomputed bundled result**, made by "
        f"`{COMMAND}` (seed {res['seed']}); the report plays no game for it.  A number "
        f"is **undecided** when it is shown to change the game but no smaller candidate "
        f"than the reference is shown enough: the reference is enough by definition, so "
        f"proposing it would be no finding.",
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
         [f"{n['label']}: {n['current']} → **{n['proposed']}** ({_decision(n)}) — {n['why']}"
          for n in est]),
        ("Numbers the manual prints",
         [f"{n['label']}: {n['current']} → **{n['proposed']}** ({_decision(n)}) — {n['why']}"
          for n in man]),
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
        first, last = res_c[0], res_c[-1]
        nat = first.get("estimand", "prefer") == "natural"
        n_final = len({(r["card"], r["field"]) for r in ct.to_dict("records")})
        games = sum(r["games_played"]["search"] + r["games_played"]["confirmation"]
                    for r in res_c)
        paras.append(
            f"The estimated **card** numbers of this set are **the refit**: this report's "
            f"`{cs.name}` is the pre-refit set `{first['card_set']}` (every estimate on the "
            f"curves; `--set {first['card_set']}` plays it) with {n_final} estimated numbers "
            f"changed by {len(res_c)} passes of the card search of docs/balance.md, so every "
            f"card verdict in this report is on the refit numbers.  Pass 1: `{CARDS_COMMAND}`; "
            f"each next pass the same on the previous pass's `--out-cards` file; the last "
            f"pass's file is the bundled set (its digest {last['fitted_digest']} is this "
            f"set's).  Each pass at {', '.join(map(str, first['players']))} players under the "
            f"`{first.get('baseline', 'balanced')}` field, "
            + ("the natural estimand (natural value and forced value, docs/statistics.md "
               "§5.6), " if nat else "")
            + ("estimated numbers only (every printed number held fixed), "
               if first.get("estimated_only") else "")
            + f"fields {', '.join(first['fields'])}, margin ±{100 * first['margin']:g} pp, "
            f"seed {first['seed']}; {games:,} games in all, bundled.  On each pass's "
            f"confirmation deals, over the {len(first['cards'])} cards, before → after: "
            + "; ".join(f"pass {i}: {len(r['edits'])} numbers, {_counts(r, 'verdict_before')}"
                        f" → {_counts(r, 'verdict_after')}" for i, r in enumerate(res_c, 1))
            + ".  The cards still not balanced and why are in the last pass's result "
            "(`unbalanced`): the search fixes one card at a time, and in this set the cards "
            "interact strongly (a card fixed in one pass can move another beyond the margin "
            "in the next), so the passes do not converge (docs/balance.md).")
        def values(r):
            def pair(q):
                return (f"{_pp(r[f'{q}_before'])} [{_pp(r[f'{q}_before_lo'])}, "
                        f"{_pp(r[f'{q}_before_hi'])}] → {_pp(r[f'{q}_after'])} "
                        f"[{_pp(r[f'{q}_after_lo'])}, {_pp(r[f'{q}_after_hi'])}] pp")
            return (f"natural value {pair('natural')}, forced {pair('strength')}"
                    if "natural_before" in r else f"strength {pair('strength')}")
        bullets.append(("Estimated card numbers balance changed (the refit)",
                        [f"pass {r['pass']}, {r['card']}: {r['field']} {r['printed']} → {r['proposed']} "
                         f"({r['source']}); {values(r)}, {r['verdict_after']} after, n = "
                         f"{r['n_deals']} deals" for r in ct.to_dict("records")]
                        or ["none"]))
        for c, why in last.get("unbalanced", {}).items():
            if why.startswith("no allowed edit"):
                bullets[-1][1].append(f"{c}: {why}")
    return Section("Filling in the X's", paras, tables, [], bullets,
                   top_tables={"fill_in_the_xs": t})


def _counts(res, col) -> str:
    c = pd.Series([r[col] for r in res["confirmation"]]).value_counts()
    return ", ".join(f"{c.get(v, 0)} {v}" for v in ("over", "under", "balanced", "inconclusive"))


def card_numbers(cs):
    """(the bundled refit passes' results, their errata with each number's source and
    pass), or None when a pass is not bundled or the refit is not this report's set
    (its ``fitted_digest`` is not ``cs``'s digest)."""
    from vale_sim.balance import bundled_refit
    passes = [bundled_refit(path, cs) for path in CARDS_PASSES]
    if any(res is None for res in passes):
        return None
    src = {c.name: dict(c.sources) for c in list(cs.advances) + list(cs.vales)}
    qs = ("natural", "strength") if passes[0].get("estimand", "prefer") == "natural" else ("strength",)
    vals = [f"{q}_{w}{e}" for q in qs for w in ("before", "after") for e in ("", "_lo", "_hi")]
    cols = ["pass", "card", "field", "printed", "proposed", "players", "source"] + vals + [
        "verdict_after", "n_deals"]
    rows = [{"pass": i, **{k: r[k] for k in ("card", "field", "printed", "proposed", "players",
                                             *vals, "verdict_after", "n_deals")},
             "source": r.get("number_source") or src.get(r["card"], {}).get(r["field"], "estimate")}
            for i, res in enumerate(passes, 1) for r in res["errata"]]
    return passes, pd.DataFrame(rows, columns=cols)
