"""The planted set of issue 40 item 2 (docs/balance.md, "The planted tests"): three errors
in a copy of Mystic Vale core, balanced with the defaults at 2 players under two seeds.

    PYTHONPATH=. python experiments/balance_planted.py [--games 2000] [--seeds 0,1] [--json OUT]

Plants: Model L1 Sprout B cost 4 -> 7 (too expensive), Model L2 Bloom D end VP 0 -> 5
(too strong), Podlings cost 2 -> 8 (made far too expensive: the field then almost
never buys it); partners Model L3 Grove D, Woodland Warden, Model L1 Sprout C,
Dawnsinger (near balanced under value-2p)."""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

PLANTS = [("Model L1 Sprout B", "cost", +3), ("Model L2 Bloom D", "end_vp", +5),
          ("Podlings", "cost", +6)]
PARTNERS = ["Model L3 Grove D", "Woodland Warden", "Model L1 Sprout C", "Dawnsinger"]


def planted_set(folder) -> tuple[str, dict]:
    from vale_sim import balance as B
    from vale_sim.games import get_game
    g = get_game("mystic-vale")
    cs = g.load_card_set(g.default_card_set)
    edits, printed = [], {}
    for card, fld, delta in PLANTS:
        old = g.edit_card(cs, card, fld, 0, True)[1]
        printed[card] = old
        edits.append({"card": card, "field": fld, "old": old, "new": old + delta})
    p = Path(folder) / "planted-core.toml"
    p.write_text(B.patch_card_file(cs.path, edits))
    return str(p), printed


def main():
    from vale_sim import balance as B
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    path, printed = planted_set(tempfile.mkdtemp())
    out = []
    for seed in [int(s) for s in a.seeds.split(",")]:
        t = time.perf_counter()
        b = B.balance("mystic-vale", path, ["cost", "end_vp"],
                      [c for c, _, _ in PLANTS] + PARTNERS, games=a.games, seed=seed)
        sec = time.perf_counter() - t
        print(f"=== seed {seed}: {sec:.0f} s, {b.games}")
        print(b.text(), flush=True)
        out.append({"seed": seed, "seconds": sec, "printed": printed, **b.to_json()})
    if a.json:
        Path(a.json).write_text(json.dumps(out, default=str, indent=1))


if __name__ == "__main__":
    main()
