"""Do identical twins read the same verdict?  (issue 36, item 6, "Stable labels";
docs/statistics.md §5.8)

    .venv/bin/python experiments/twin_labels.py run --deals 10000 --seed 0 \\
        --out tests/data/twin_labels_meta-2p.npz
    .venv/bin/python experiments/twin_labels.py agree tests/data/twin_labels_meta-2p.npz \\
        --deals 1000
    .venv/bin/python experiments/twin_labels.py direct --deals 1000 --seeds 0-39

``run`` plays ``core`` plus an identical twin (the same numbers under another name) of
the first card of each kind in the set's order -- Podlings (L1), Feral Chieftain (L2),
Woodland Warden (L3), Azure Lake (a vale) and Fertile Soil (top) -- with every buyable
card measured (so the multiplicity correction is the real one), under ``--field``
(default ``meta-2p``), natural estimand, and keeps the per-deal differences
(:func:`save_matrices`; the test data of ``tests/test_stable_labels.py``).

``agree`` draws "seeds" from that file: each draws ``--deals`` of its deals with
replacement (the deal is the independent unit) and labels every card with the verdict
rule (``vale_sim.advancements.resampled_verdicts``).  It prints

* per twin pair, how often both twins read the same verdict and how they split;
* per card, how often two independent seeds read the same verdict (a card against
  itself: what an identical twin reads when the twins' games are independent);
* the marker: per seed, each card's ``verdict_agreement`` is estimated from that
  seed alone (``--inner`` resamples of its own deals) and the verdicts it calls
  stable (>= 0.9) are compared with an independent seed's;
* what an "undecided" label would do instead (every verdict the seed's own estimate
  calls unstable read "undecided"): the exact agreement it gives.

``direct`` plays fresh seeds instead of drawing them (about 15 s per seed at 1,000
deals on one core) -- the check of the resampling.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import replace

import numpy as np

TWIN_OF = ("Podlings", "Feral Chieftain", "Woodland Warden", "Azure Lake",
           "Fertile Soil (top)")
SUFFIX = " (twin)"
STABLE = 0.9


def planted_set():
    """``core`` + one identical twin of each card of :data:`TWIN_OF`."""
    from vale_sim.games.mystic_vale.cards import load_card_set
    core = load_card_set("core")
    advs, vales = list(core.advancements), list(core.vales)
    for name in TWIN_OF:
        hit = [a for a in advs if a.name == name]
        if hit:
            advs.append(replace(hit[0], name=name + SUFFIX))
        else:
            v = next(v for v in vales if v.name == name)
            vales.append(replace(v, name=name + SUFFIX))
    return replace(core, name="core+twins", advancements=tuple(advs), vales=tuple(vales))


def pairs(cards) -> list[tuple[str, str]]:
    return [(c, c + SUFFIX) for c in TWIN_OF if c in cards and c + SUFFIX in cards]


def save_matrices(run, path) -> None:
    """The run's :func:`~vale_sim.advancements.deal_matrices`, compactly: 2-player
    differences are multiples of 1/4 (a rotation's share is 0, 1/2 or 1), stored as
    int8 of 4 × the difference; the changed flags as bits."""
    from vale_sim.advancements import deal_matrices
    ds, dn, cs, cn = deal_matrices(run)
    q = lambda d: np.rint(4 * d).astype(np.int8)                       # noqa: E731
    for d in (ds, dn):
        if not np.array_equal(q(d) / 4, d):
            raise ValueError("differences are not multiples of 1/4 (a 2-player run?)")
    cards = list(run.arms)
    np.savez_compressed(
        path, cards=np.array(cards), kinds=np.array([run.known[c][0] for c in cards]),
        levels=np.array([run.known[c][1] for c in cards]), players=run.players,
        seed=run.seed, baseline=run.baseline.name, strength4=q(ds), natural4=q(dn),
        strength_changed=np.packbits(cs.astype(bool), axis=0),
        natural_changed=np.packbits(cn.astype(bool), axis=0), deals=ds.shape[0])


def load_matrices(path) -> tuple[list[str], tuple[np.ndarray, ...]]:
    """``(cards, (strength, natural, strength changed, natural changed))`` of a file of
    :func:`save_matrices`, each ``(deals, cards)``."""
    z = np.load(path)
    n = int(z["deals"])
    unbits = lambda b: np.unpackbits(b, axis=0, count=n).astype(float)  # noqa: E731
    return ([str(c) for c in z["cards"]],
            (z["strength4"] / 4.0, z["natural4"] / 4.0, unbits(z["strength_changed"]),
             unbits(z["natural_changed"])))


def observed(matrices, idx=None) -> tuple[np.ndarray, ...]:
    """The matrices of a seed: the deals ``idx`` (all when None)."""
    return tuple(m if idx is None else m[idx] for m in matrices)


def own_labels(matrices) -> np.ndarray:
    """The verdicts of a run given by its matrices (natural estimand, the defaults)."""
    from vale_sim.advancements import verdict_rule
    ds, dn, cs, cn = matrices
    summ = lambda d, c: (d.mean(axis=0), d.std(axis=0, ddof=1), c.sum(axis=0))  # noqa: E731
    return verdict_rule(summ(ds, cs), summ(dn, cn), ds.shape[0], estimand="natural")["verdict"]


def cmd_run(a) -> int:
    from vale_sim.advancements import strength_run
    t = time.perf_counter()
    run = strength_run(planted_set(), games=a.deals * 2, seed=a.seed, baseline=a.field,
                       engine="fast")
    save_matrices(run, a.out)
    print(f"{len(run.arms)} cards, {run.deals} deals, seed {a.seed}, {a.field}: "
          f"{time.perf_counter() - t:.0f} s -> {a.out}")
    return 0


def _twins(labels: np.ndarray, cards, title: str) -> None:
    k = labels.shape[0]
    tp = [(cards.index(x), cards.index(y), x) for x, y in pairs(cards)]
    print(f"{title}: all {len(tp)} twin pairs agree in "
          f"{int(sum(all(r[i] == r[j] for i, j, _ in tp) for r in labels))} of {k} seeds")
    for i, j, name in tp:
        same = int((labels[:, i] == labels[:, j]).sum())
        splits = Counter(tuple(sorted((str(x), str(y)))) for x, y in zip(labels[:, i], labels[:, j])
                         if x != y)
        print(f"  {name:<20} {same:>4}/{k} = {100 * same / k:5.1f}%  splits {dict(splits)}")


def cmd_agree(a) -> int:
    from vale_sim.advancements import agreement_of, resampled_verdicts
    cards, mats = load_matrices(a.data)
    rng = np.random.default_rng(a.rng_seed)
    print(f"{a.data}: {mats[0].shape[0]} deals, {len(cards)} cards; seeds of {a.deals} deals")
    lab = resampled_verdicts(mats, 2 * a.seeds, rng, estimand="natural", deals=a.deals)
    _twins(lab[:a.seeds], cards, f"{a.seeds} drawn seeds")
    own = [i for i, c in enumerate(cards) if not c.endswith(SUFFIX)]
    same = (lab[:a.seeds] == lab[a.seeds:])[:, own]
    rate = same.mean(axis=0)
    names = [cards[i] for i in own]
    print(f"a card against itself in two independent seeds ({len(own)} cards): mean "
          f"{100 * rate.mean():.1f}%, {int((rate >= STABLE).sum())} cards >= 90%; lowest: "
          + ", ".join(f"{names[i]} {100 * rate[i]:.0f}%" for i in np.argsort(rate)[:10]))
    splits = Counter(tuple(sorted((str(x), str(y)))) for r1, r2 in zip(lab[:a.seeds], lab[a.seeds:])
                     for x, y in zip(r1[own], r2[own]) if x != y)
    print(f"  splits: {dict(splits)}")
    if a.outer:
        # the marker, estimated from each seed alone, against an independent seed
        pool = mats[0].shape[0]
        labs, ags = [], []
        for _ in range(2 * a.outer):
            m = observed(mats, rng.integers(0, pool, a.deals))
            labs.append(own_labels(m))
            ags.append(agreement_of(resampled_verdicts(m, a.inner, rng, estimand="natural")))
        labs, ags = np.array(labs)[:, own], np.array(ags)[:, own]
        x, y, ax = labs[:a.outer], labs[a.outer:], ags[:a.outer]
        st = ax >= STABLE
        print(f"marker from each seed's own deals ({a.outer} pairs of seeds, {a.inner} "
              f"resamples): mean estimate {100 * ags.mean():.1f}%; "
              f"{100 * st.mean():.0f}% of verdicts stable, read again by the other seed "
              f"{100 * (x == y)[st].mean():.1f}%; unstable ones {100 * (x == y)[~st].mean():.1f}%;"
              f" every verdict {100 * (x == y).mean():.1f}%")
        ux = np.where(ags[:a.outer] >= STABLE, x, "undecided")
        uy = np.where(ags[a.outer:] >= STABLE, y, "undecided")
        print(f"with an 'undecided' label instead (unstable verdicts read 'undecided'): exact "
              f"agreement {100 * (ux == uy).mean():.1f}%")
    return 0


def cmd_direct(a) -> int:
    from vale_sim.advancements import strength_frame, strength_run
    lo, hi = (int(x) for x in a.seeds.split("-"))
    cs = planted_set()
    rows, cards = [], None
    for s in range(lo, hi + 1):
        run = strength_run(cs, games=a.deals * 2, seed=s, baseline=a.field, engine="fast")
        df = strength_frame(run, estimand="natural").set_index("card")
        cards = list(run.arms)
        rows.append([df.loc[c, "verdict"] for c in cards])
        print(f"seed {s}: " + "; ".join(
            f"{x} {df.loc[x, 'verdict']}/{df.loc[y, 'verdict']} "
            f"({100 * df.loc[x, 'verdict_agreement']:.0f}%/"
            f"{100 * df.loc[y, 'verdict_agreement']:.0f}%)" for x, y in pairs(cards)),
            flush=True)
    _twins(np.array(rows), cards, f"{len(rows)} played seeds")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--deals", type=int, default=10000)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--field", default="meta-2p")
    r.add_argument("--out", required=True)
    g = sub.add_parser("agree")
    g.add_argument("data")
    g.add_argument("--deals", type=int, default=1000)
    g.add_argument("--seeds", type=int, default=400)
    g.add_argument("--outer", type=int, default=100, help="pairs of seeds for the marker")
    g.add_argument("--inner", type=int, default=200, help="resamples per seed")
    g.add_argument("--rng-seed", type=int, default=0)
    d = sub.add_parser("direct")
    d.add_argument("--deals", type=int, default=1000)
    d.add_argument("--seeds", default="0-39")
    d.add_argument("--field", default="meta-2p")
    a = p.parse_args(argv)
    return {"run": cmd_run, "agree": cmd_agree, "direct": cmd_direct}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
