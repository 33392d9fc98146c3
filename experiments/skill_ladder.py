"""The skill ladder: how much does good play matter? (issue 26; docs/meta.md §6)

    PYTHONPATH=. .venv/bin/python experiments/skill_ladder.py --game mystic-vale --players 2 \\
        --meta results/meta/mystic-vale-2p --deals 500

Levels, weakest first: ``random`` (the game's default policy buying at random, when its
policy has an ``explore_permille`` field), the presets (``lookahead`` last among them when
the game has it), ``optimized-{P}p`` (when bundled), the best responses of a ``vale-sim
meta`` run (``--meta DIR``: its population's ``br*`` members) and that run's mixture.

The matrix: cell (row i, column j) is the win share of ONE player of level i against
``P - 1`` players of level j, every seat of every deal (the ``P`` rotations), on the same
``--deals`` deals of one seed for every cell, with a 95% interval clustered by deal
(:func:`vale_sim.stats.cluster_rate`).  The mixture as a row: ``sum_k x_k`` times member
k's share (its expected share when a member is drawn per deal); as a column: the row
against a field of one member drawn per deal (``sum_k x_k`` times the row's share against
k); the per-unit weighted shares are what the interval is computed from.  The first-player
win rate of a level: all ``P`` players of that level, the win share of the starting player
(seat 1) over ``--deals`` games (one per deal; 1/P would be no seat advantage).  Results:
``--out FILE.json`` (default ``results/meta/skill-ladder-{game}-{P}p.json``) and a Markdown
table on stdout.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import fields, replace
from pathlib import Path

import numpy as np

from vale_sim import optimize as opt
from vale_sim import stats
from vale_sim.games import get_game
from vale_sim.io import atomic_write, read_manifest

ROOT = Path(__file__).resolve().parent.parent
LADDER_TAG = 11          # SeedSequence([seed, 11]): the ladder's deals


def levels(g, players: int, meta_dir=None, cs=None) -> tuple[list, dict | None]:
    """[(label, policy)] weakest first, and the meta mixture {member name: weight}."""
    out = []
    base = g.resolve_baseline(g.default_policy, players, cs)
    if "explore_permille" in {f.name for f in fields(base)}:
        out.append(("random", replace(base, name="random", explore_permille=1000)))
    presets = [p for p in g.presets if p != "lookahead"]
    presets += [p for p in g.presets if p == "lookahead"]
    for name in presets:
        out.append((name, g.resolve_baseline(name, players, cs)))
    try:
        out.append(("optimized", g.resolve_baseline("optimized-{P}p", players, cs)))
    except ValueError:
        pass
    mixture = None
    if meta_dir is not None:
        m = read_manifest(Path(meta_dir) / "mixture.json")
        if not m:
            raise SystemExit(f"--meta {meta_dir}: no mixture.json of vale-sim meta in it")
        files = m["files"]
        for name, f in files.items():
            if name.startswith("br"):
                out.append((name, g.get_policy(str(Path(meta_dir) / f))))
        mixture = {}
        for name, w in m["mixture"].items():
            if w > 1e-9:
                mixture[name] = (w, g.get_policy(str(Path(meta_dir) / files[name])))
    return out, mixture


def ladder(game: str, players: int, deals: int, seed: int, meta_dir=None, engine="fast"):
    g = get_game(game)
    obj = opt.GameObjective(None, players, deals, None, engine, 1, None, g.name)
    lv, mixture = levels(g, players, meta_dir, obj.cs)
    pols = [p for _, p in lv]
    labels = [lab for lab, _ in lv]
    mix_pols = [] if mixture is None else [p for _, p in mixture.values()]
    mix_w = np.array([] if mixture is None else [w for w, _ in mixture.values()])
    allp = pols + mix_pols
    seed_l = opt.derived_seed(seed, LADDER_TAG)
    n = len(allp)
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    try:
        sh = dict(zip(pairs, obj.many_shares([(allp[i], allp[j]) for i, j in pairs], seed_l,
                                              deals)))
    finally:
        obj.close()
    fair = np.full((players, deals), 1.0 / players)

    def S(i, j):
        return fair if i == j else sh[(i, j)]
    k0 = len(pols)
    rows = list(range(k0)) + (["mixture"] if mixture else [])

    def cell(r, c):
        ri = [r] if r != "mixture" else list(range(k0, n))
        rw = [1.0] if r != "mixture" else mix_w
        ci = [c] if c != "mixture" else list(range(k0, n))
        cw = [1.0] if c != "mixture" else mix_w
        return sum(a * b * S(i, j) for i, a in zip(ri, rw) for j, b in zip(ci, cw))

    clusters = np.tile(np.arange(deals), players)
    names = labels + (["meta mixture"] if mixture else [])
    matrix = []
    for r in rows:
        line = []
        for c in rows:
            v = cell(r, c)
            e = stats.cluster_rate(v.ravel(), clusters)
            if np.allclose(v.mean(axis=0), 1.0 / players, atol=1e-12):
                # a level against itself: every seat of every deal, 1/P exactly (no interval)
                line.append({"value": 1.0 / players, "lo": 1.0 / players, "hi": 1.0 / players,
                             "n": e.n, "deals": e.clusters, "exact": True})
                continue
            line.append({"value": e.value, "lo": e.lo, "hi": e.hi, "n": e.n, "deals": e.clusters})
        matrix.append(line)
    # the first player's win rate at each level (all players of that level)
    from vale_sim.tournament import play_frame
    first = []
    for r in rows:
        if r == "mixture":
            rates = []
            for w, (i, p) in zip(mix_w, enumerate(mix_pols)):
                df = play_frame(obj.cs, players, seed_l, deals, [p], None, engine, game=g.name)
                rates.append((w, df[df["seat"] == 0].sort_values("game")["win_share"].to_numpy(float)))
            vals = sum(w * v for w, v in rates)
        else:
            df = play_frame(obj.cs, players, seed_l, deals, [allp[r]], None, engine,
                            game=g.name)
            vals = df[df["seat"] == 0].sort_values("game")["win_share"].to_numpy(float)
        e = stats.cluster_rate(vals, np.arange(deals))
        first.append({"value": e.value, "lo": e.lo, "hi": e.hi, "n": e.n})
    return {"game": g.name, "players": players, "deals": deals, "seed": seed,
            "deal_seed": seed_l, "card_set": obj.cs.name, "levels": names,
            "matrix": matrix, "first_player": first,
            "mixture": None if mixture is None else {k: w for k, (w, _) in mixture.items()},
            "meta": None if meta_dir is None else str(meta_dir)}


def markdown(r) -> str:
    pct = lambda v: f"{100 * v:.1f}"                                         # noqa: E731
    head = "| row vs field | " + " | ".join(r["levels"]) + " | first player wins |"
    lines = [head, "|" + "---|" * (len(r["levels"]) + 2)]
    for name, line, fp in zip(r["levels"], r["matrix"], r["first_player"]):
        cells = [f"{pct(c['value'])} (exact)" if c.get("exact") else
                 f"{pct(c['value'])} [{pct(c['lo'])}, {pct(c['hi'])}]" for c in line]
        lines.append(f"| {name} | " + " | ".join(cells)
                     + f" | {pct(fp['value'])} [{pct(fp['lo'])}, {pct(fp['hi'])}] |")
    n = r["matrix"][0][-1]["n"]
    lines.append(f"\n{r['game']}, {r['players']} players, set {r['card_set']}: win share % of "
                 f"one row player against {r['players'] - 1} of the column, 95% intervals "
                 f"clustered by deal, n = {n} player-games per cell on {r['deals']} common "
                 f"deals (seed {r['deal_seed']}); the first-player column: {r['deals']} games "
                 f"of the row level against itself (fair {pct(1 / r['players'])}).")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="mystic-vale")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--meta", default=None, help="a vale-sim meta --out folder")
    ap.add_argument("--engine", default="fast", choices=("fast", "reference"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    t0 = time.time()
    r = ladder(a.game, a.players, a.deals, a.seed, a.meta, a.engine)
    r["seconds"] = round(time.time() - t0, 1)
    r["command"] = "experiments/skill_ladder.py " + " ".join(sys.argv[1:])
    out = Path(a.out) if a.out else ROOT / "results" / "meta" / \
        f"skill-ladder-{a.game}-{a.players}p.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, json.dumps(r, indent=1, default=float))
    print(markdown(r))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
