"""Does the listing order of a line-up decide between identical policies? (issue 24 §1,
docs/statistics.md §2.2)

Mystic Vale, core plus "Same twin" (a copy of Lifebringer Seed but for its name).  "A"
prefers Lifebringer Seed and never buys the twin, "B" is its mirror image, the others
(greedy; at 4 players also cautious) buy neither: relabelling the two cards swaps A and
B, so their true strengths are equal in any design that treats them alike.  Each
tournament (round robin, fast engine) is played with the old design (the cyclic
rotations of the listed line-up) and with every order of the line-up
(vale_sim.seating.seatings), listed A-first and reversed, on the same number of games.

Mystic Lands (``lands``): the market-growth line-up (balanced, greedy, spirit, vp) under
the manual's rules, listed in two orders, with both designs, on the same deals: each
policy's win rate (vale_sim.games.mystic_lands.studies.lands.policy_table).

    PYTHONPATH=. .venv/bin/python experiments/seating_order.py [games_3p] [games_4p] [lands_deals]
"""
from __future__ import annotations

import sys
import time
from dataclasses import replace

import numpy as np

import vale_sim.tournament as T
from vale_sim import stats
from vale_sim.games.mystic_vale.strength import prefer_policy
from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.policy import get_policy
from vale_sim.seating import cyclic_rotations, seatings

ORIG, TWIN = "Lifebringer Seed", "Same twin"


def mirrored(players: int):
    core = load_card_set("core")
    orig = core.advancements[core.advancement_id(ORIG)]
    cs = replace(core, name="core+same-twin",
                 advancements=core.advancements + (replace(orig, name=TWIN),))
    a = replace(prefer_policy(ORIG), name="A", never=(TWIN,))
    b = replace(prefer_policy(TWIN), name="B", never=(ORIG,))
    others = [replace(get_policy(n), name=n, never=(ORIG, TWIN)) for n in ("greedy", "cautious")]
    return cs, [a, b] + others[:players - 2]


def one(players: int, games: int, design, reverse: bool, seed: int = 0) -> dict:
    cs, pols = mirrored(players)
    if reverse:
        pols = pols[::-1]
    T.seatings = design
    try:
        t0 = time.time()
        t = T.tournament(pols, players=players, games=games, seed=seed, card_set=cs,
                         mode="round-robin")
    finally:
        T.seatings = seatings
    tab = t.table.set_index("policy")
    per = t.frame.groupby(["policy", "game"])["win_share"].mean().unstack("policy")
    d = stats.paired_difference(per["A"].to_numpy(), per["B"].to_numpy())
    rk = t.ranking.set_index("name")
    return {"players": players, "design": "cyclic" if design is cyclic_rotations else "all orders",
            "listing": " ".join(p.name for p in pols), "games": t.config["games_per_matchup"],
            "deals": t.config["deals"], "A": tab.loc["A", ["win_rate", "win_lo", "win_hi"]].tolist(),
            "B": tab.loc["B", ["win_rate", "win_lo", "win_hi"]].tolist(),
            "A-B": (d.mean, d.lo, d.hi), "bt_A": rk.loc["A", ["strength", "lo", "hi"]].tolist(),
            "bt_B": rk.loc["B", ["strength", "lo", "hi"]].tolist(), "s": time.time() - t0}


def pct(x) -> str:
    return f"{100 * x[0]:.2f} [{100 * x[1]:.2f}, {100 * x[2]:.2f}]"


def lands(deals: int = 500, seed: int = 3) -> None:
    import vale_sim.games.mystic_lands.studies.common as C
    import vale_sim.variants as V                  # play_variants' seating design
    from vale_sim.games.mystic_lands.studies.lands import policy_table
    rules = {"manual": C.variant_rules({})}
    orders = (("balanced", "greedy", "spirit", "vp"), ("balanced", "vp", "spirit", "greedy"))
    print(f"\n| design | listing | deals x seatings | " + " | ".join(sorted(orders[0])) + " |")
    print("|---|---|---|" + "---|" * 4)
    for design in (cyclic_rotations, seatings):
        for lineup in orders:
            V.seatings = design
            try:
                df = C.play_variants(rules, 4, deals, seed, lineup, rotate=True, engine="fast",
                                     progress=False)
            finally:
                V.seatings = seatings
            p = policy_table(df, 4, rules).set_index("policy").sort_index()
            name = "cyclic" if design is cyclic_rotations else "all orders"
            cells = [pct((r.win_rate, r.win_rate_lo, r.win_rate_hi)) for r in p.itertuples()]
            print(f"| {name} | {', '.join(lineup)} | {deals} x {df['rotation'].nunique()} | "
                  + " | ".join(cells) + " |", flush=True)


def main(games3: int = 120_000, games4: int = 120_000, lands_deals: int = 500) -> None:
    if games3 == games4 == 0:
        return lands(lands_deals)
    print("| players | design | listing | games (deals) | A win % | B win % | A − B, pp (paired by deal) "
          "| BT A | BT B |")
    print("|---|---|---|---|---|---|---|---|---|")
    for players, games in ((3, games3), (4, games4)):
        for design in (cyclic_rotations, seatings):
            for rev in (False, True):
                r = one(players, games, design, rev)
                bt = lambda x: f"{x[0]:+.3f} [{x[1]:+.3f}, {x[2]:+.3f}]"
                print(f"| {players} | {r['design']} | {r['listing']} | {r['games']:,} "
                      f"({r['deals']:,}) | {pct(r['A'])} | {pct(r['B'])} | "
                      f"{100 * r['A-B'][0]:+.2f} [{100 * r['A-B'][1]:+.2f}, "
                      f"{100 * r['A-B'][2]:+.2f}] | {bt(r['bt_A'])} | {bt(r['bt_B'])} |",
                      flush=True)
    lands(lands_deals)


if __name__ == "__main__":
    main(*[int(x) for x in sys.argv[1:]])
