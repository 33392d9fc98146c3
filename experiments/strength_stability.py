"""Flag stability of the card-strength verdicts: the same cards flagged under seeds 0, 1, 2?

    .venv/bin/python experiments/strength_stability.py [--games 20000] [--seeds 0,1,2]
                                                      [--tolerance 5] [--set core]
                                                      [--correction fdr_bh]

Plays ``vale_sim.advancements.strength_run`` / ``strength_frame`` (= ``strength_table``) on every buyable card of the set (2 players,
balanced baseline, Benjamini-Hochberg) once per seed and prints, per seed, the flagged cards
and, per card near the band, strength and adjusted interval; the last line says whether the
flag sets agree.  The output at the defaults is recorded in docs/statistics.md ("Flag
stability"); it takes about 2-3 minutes per seed on one core with the fast engine.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from vale_sim.advancements import strength_frame, strength_run
from vale_sim.commands.advancements import DEFAULT_GAMES, DEFAULT_TOLERANCE


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=DEFAULT_GAMES)
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE, help="pp")
    p.add_argument("--set", default="core")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--correction", default="fdr_bh", choices=("fdr_bh", "holm", "bonferroni"))
    args = p.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    tol = args.tolerance / 100
    flags, tables = [], []
    for seed in seeds:
        t0 = time.perf_counter()
        run = strength_run(args.set, games=args.games, players=args.players, seed=seed)
        df = strength_frame(run, tolerance=tol, correction=args.correction)
        dt = time.perf_counter() - t0
        if seed == seeds[0]:
            # what pairing the arms on common deals buys: per-deal SD of prefer - ban as
            # played, and with the ban arm's deals shuffled (as if the arms were independent)
            rng = np.random.default_rng(0)
            sd = np.array([((p.mean(0) - b.mean(0)).std(ddof=1),
                            (p.mean(0) - rng.permutation(b.mean(0))).std(ddof=1))
                           for p, b in run.arms.values()])
            nat = run.natural.mean(0)
            print(f"seed {seed}: per-deal SD of prefer - ban over the cards: paired min "
                  f"{sd[:, 0].min():.3f}, median {np.median(sd[:, 0]):.3f}, max "
                  f"{sd[:, 0].max():.3f}; deals shuffled: median {np.median(sd[:, 1]):.3f}; "
                  f"natural arm: per-deal share (mean over rotations) SD {nat.std(ddof=1):.3f}, "
                  f"mean {nat.mean():.3f}", flush=True)
        f = {c: fl for c, fl in zip(df["card"], df["flag"]) if fl}
        flags.append(f)
        tables.append(df.set_index("card"))
        print(f"seed {seed}: {len(f)} of {len(df)} flagged ({df.attrs['deals']} deals x "
              f"{args.players} rotations per arm, {dt:.0f} s): "
              + ", ".join(f"{c} ({fl})" for c, fl in sorted(f.items())), flush=True)
    # cards whose adjusted interval comes within 1.5 pp of a band edge in some seed
    near = sorted({c for t in tables for c, r in t.iterrows()
                   if min(abs(r["strength_lo_adj"] - tol), abs(r["strength_hi_adj"] + tol),
                          abs(r["strength_lo_adj"] + tol) if r["strength"] < 0 else 9,
                          abs(r["strength_hi_adj"] - tol) if r["strength"] > 0 else 9) < 0.015})
    print(f"\ncards near the ±{args.tolerance:g} pp band (adjusted interval within 1.5 pp of "
          f"an edge in some seed): strength pp [adjusted interval] flag, per seed")
    for c in near:
        cells = [f"{100 * t.loc[c, 'strength']:+.1f} [{100 * t.loc[c, 'strength_lo_adj']:+.1f}, "
                 f"{100 * t.loc[c, 'strength_hi_adj']:+.1f}] {t.loc[c, 'flag'] or '-'}"
                 for t in tables]
        print(f"  {c:<24} " + " | ".join(cells))
    same = all(f == flags[0] for f in flags)
    print(f"\nsame flags under seeds {args.seeds}: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
