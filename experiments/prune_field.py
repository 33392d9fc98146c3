"""Prune a field's mistakes: the cards it buys although buying them hurts it
(docs/meta.md §6c, docs/statistics.md §5.6).

    PYTHONPATH=. .venv/bin/python experiments/prune_field.py --game mystic-vale \
        --players 2 --policy meta-2p --games 20000 --seed 1000 --out FILE.toml

A player who plays well is never hurt by having one more option, so under a strong
field no card's natural value (natural − ban X, vale_sim.advancements) should be
significantly below 0.  A card that is (one-sided paired t over the deals, Holm
across the cards) is a buy the field makes that costs it win share.  This script
repeats, for ``--rounds`` rounds at most:

1. the card-strength study (natural estimand) of every card under the current
   policy, ``--games`` games per card and arm, seed ``--seed + round`` (never the
   report's seed 0, so the report's check is a confirmation on other deals);
2. every card significantly below 0 goes into the policy's ``never`` list.

It stops at the first round that finds none.  Then it plays the pruned policy
against the original head to head (``--h2h-deals`` deals, balanced seatings, seed
``--seed + 100``) and writes the pruned policy (name kept) to ``--out`` with a header
that records the rounds, the cards and the head-to-head result.  Nothing else is
changed; a card in ``never`` is still measured by the "prefer X" arm (which forces
it), so the verdict of a pruned card says what forcing it costs.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from vale_sim import advancements as adv
from vale_sim.exploit import policy_file_text
from vale_sim.games import get_game
from vale_sim.games.base import baseline_spec
from vale_sim.io import atomic_write


def head_to_head(g, cs, a, b, players: int, deals: int, seed: int) -> dict:
    """Win share of ``a`` against ``players - 1`` copies of ``b`` (every seat of every
    deal, deal-clustered 95% interval): the held-out measurement of vale-sim exploit."""
    from vale_sim import optimize as opt
    from vale_sim.exploit import _estimate_row
    obj = opt.GameObjective(cs, players, deals, None, "fast", 1, None, g.name)
    try:
        (sh,) = obj.many_shares([(a, b)], seed, deals, None)
    finally:
        obj.close()
    return _estimate_row(sh, players, 0.95, seed)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="mystic-vale")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--policy", required=True)
    ap.add_argument("--set", default=None)
    ap.add_argument("--games", type=int, default=20000, help="games per card and arm")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--h2h-deals", type=int, default=4000)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    g = get_game(a.game)
    cs = g.load_card_set(a.set or g.default_card_set)
    original = g.resolve_baseline(a.policy, a.players, cs)
    pol = original
    rounds = []
    t0 = time.time()
    for r in range(a.rounds):
        df = adv.strength_table(cs, games=a.games, players=a.players, seed=a.seed + r,
                                baseline=pol, game=g.name, estimand="natural")
        rat = df.attrs["rationality"]
        cards = [c["card"] for c in rat["cards"]]
        rounds.append({"round": r, "seed": a.seed + r, "games_per_card_and_arm": a.games,
                       "cards_tested": rat["cards_tested"],
                       "below_zero": [{"card": c["card"],
                                       "natural_value": round(c["natural_value"], 4),
                                       "ci": [round(x, 4) for x in c["natural_ci"]]}
                                      for c in rat["cards"]]})
        print(json.dumps(rounds[-1]), flush=True)
        if not cards:
            break
        pol = replace(pol, never=tuple(pol.never) + tuple(c for c in cards
                                                          if c not in pol.never))
    added = [c for c in pol.never if c not in original.never]
    h2h = head_to_head(g, cs, pol, original, a.players, a.h2h_deals, a.seed + 100) if added else None
    clean = not rounds[-1]["below_zero"]
    lines = [f"vale-sim: {original.name} pruned of its mistakes (experiments/prune_field.py; "
             f"docs/meta.md §6c).",
             f"Added to never: {', '.join(added) if added else 'nothing'} "
             f"({len(rounds)} round(s) of the natural-value check, {a.games} games per card "
             f"and arm, seeds {a.seed}..{a.seed + len(rounds) - 1}; last round "
             f"{'found no card' if clean else 'still found cards'} significantly below 0, "
             f"Holm).",
             ]
    if h2h:
        lines.append(f"Head to head against the unpruned policy: {100 * h2h['win_share']:.1f}% "
                     f"[{100 * h2h['lo']:.1f}, {100 * h2h['hi']:.1f}] (fair "
                     f"{100 / a.players:.1f}%, {h2h['deals']} deals, n = {h2h['n']}, seed "
                     f"{a.seed + 100}).")
    lines.append(f"Run: experiments/prune_field.py --game {g.name} --players {a.players} "
                 f"--policy {a.policy} --games {a.games} --seed {a.seed} --rounds {a.rounds} "
                 f"--h2h-deals {a.h2h_deals}")
    header = "\n".join(lines)
    src = Path(str(a.policy))
    if not src.exists():                 # a bundled policy name: its file's header
        import importlib
        mod = importlib.import_module(g.package + ".policy")
        src = Path(mod.__file__).parent / "policies" / f"{baseline_spec(a.policy, a.players)}.toml"
    prev_header = ([ln[2:] for ln in src.read_text().splitlines() if ln.startswith("# ")]
                   if src.exists() else [])
    if prev_header:
        header += "\nThe unpruned policy's header:\n" + "\n".join(prev_header)
    atomic_write(Path(a.out), policy_file_text(pol, g.name, header))
    report = {"added": added, "rounds": rounds, "head_to_head": h2h,
              "seconds": round(time.time() - t0, 1)}
    atomic_write(Path(a.out).with_suffix(".prune.json"), json.dumps(report, indent=1) + "\n")
    print(json.dumps({"added": added, "head_to_head": h2h, "seconds": report["seconds"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
