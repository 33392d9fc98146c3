"""Run the strong-field checks of issue 36 item 6 (vale_sim.field_checks) under a field and
print what they saw as JSON: planted twins and strictly better printings.

    python experiments/field_checks.py --field value-2p --games 4000 --seed 0
    python experiments/field_checks.py --field meta-2p  --games 4000 --seed 0   # the old field
    python experiments/field_checks.py --game mystic-lands --field meta-2p --games 4000 --seed 0

``--game`` (default mystic-vale) picks the game, whose value module lists the planted and
checked cards and says how to plant them (vale_sim.field_checks).

The suite holds the strongest bundled field to the same checks (tests/test_field_checks.py);
docs/statistics.md §5.9 records the results, per game and field.
"""
from __future__ import annotations

import argparse
import json
import time


def main(argv=None) -> int:
    from vale_sim import field_checks as fc
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="mystic-vale", help="the game (default mystic-vale)")
    ap.add_argument("--field", required=True)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", choices=("planted", "monotone"), default=None)
    a = ap.parse_args(argv)
    out = {"game": a.game, "field": a.field, "players": a.players, "games": a.games,
           "seed": a.seed}
    t = time.time()
    if a.only in (None, "planted"):
        out["planted"] = fc.planted_run(a.game, a.field, a.players, a.games, a.seed)
    if a.only in (None, "monotone"):
        run, df, pairs = fc.monotone_run(a.game, a.field, a.players, a.games, a.seed)
        out["monotone_pairs"] = len(pairs)
        out["monotone_violations"] = fc.monotone_violations(run, df, pairs)
        out["monotone_rationality"] = df.attrs.get("rationality")
        out["monotone_all"] = fc.monotone_pairs(run, df, pairs)
    out["seconds"] = round(time.time() - t, 1)
    print(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
