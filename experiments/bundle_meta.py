"""Bundle a `vale-sim meta` result as the named field ``meta-{P}p`` (docs/meta.md §6b).

    PYTHONPATH=. .venv/bin/python experiments/bundle_meta.py vale_sim/games/mystic_vale/data/meta/2p
    PYTHONPATH=. .venv/bin/python experiments/bundle_meta.py --member meta-2p vale_sim/games/mystic_lands/data/meta/3p

Writes the mixture into the game's bundled policies
(``vale_sim/games/<game package>/policies/meta-{P}p.toml``), so that ``meta-{P}p`` (and
``meta-{P}p`` through ``{P}``) works wherever a policy name or ``--baseline`` does.

* A PURE mixture (one member with weight 1 up to 1e-9) is bundled as that member's
  policy file, renamed ``meta-{P}p``.
* A MIXED one is bundled as a mixture file (``kind = "mixture"``, vale_sim/mixture.py):
  its members (weight > 1e-9) are copied to ``policies/meta-{P}p.members/NAME.toml``
  and listed with their weights (renormalised over the kept members); opponents are
  then drawn from it per deal.
* ``--member NAME`` bundles one member of a MIXED equilibrium as a pure field (for
  the tools that play one policy: the strategy guide, a search player's rollouts).
  Allowed only when the member is an approximate equilibrium on its own: against a
  field of NAME, no population member may gain more than ``--epsilon`` points in the
  run's matrix (default 1).  The header gives the member's weight, that largest gain
  and the member it belongs to.

The header records the run (command, seed, each member's weight and bootstrap
interval, exploitability with its interval, convergence).
"""
from __future__ import annotations

import importlib
import json
import sys
from dataclasses import replace
from pathlib import Path

from vale_sim.exploit import policy_file_text
from vale_sim.games import get_game
from vale_sim.io import atomic_write
from vale_sim.metagame import HEADER


def pure_regret(meta: dict, member: str) -> tuple[float, str]:
    """(gain, who): the largest win-share gain over ``member``'s own share
    ``M[j, j]`` of any population member against a field of ``member``, in the run's
    matrix, and that member."""
    pop, M = meta["population"], meta["matrix"]
    j = pop.index(member)
    gains = [(M[i][j] - M[j][j], n) for i, n in enumerate(pop)]
    return max(gains)


def _write_pure(target: Path, pol, g, header: str) -> Path:
    """Write ``pol`` (renamed ``meta-{P}p``) to ``target`` and check it loads back."""
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, policy_file_text(pol, g, header))
    if g.get_policy(str(target)) != replace(pol, name=g.get_policy(str(target)).name):
        raise SystemExit(f"{target}: does not load back to the member")   # pragma: no cover
    return target


def bundle(folder, policies_dir=None, member=None, epsilon=0.01) -> Path:
    """Bundle the meta run in ``folder``; ``policies_dir``: where (default the game's
    bundled ``policies/`` folder); ``member``: bundle that member of a mixed mixture
    as a pure field (module docstring).  Returns the file written."""
    folder = Path(folder)
    meta = json.loads((folder / "meta.json").read_text())
    if meta.get("written_by") != "vale-sim meta":
        raise SystemExit(f"{folder}: not a vale-sim meta --out folder")
    g = get_game(meta["game"])
    P = meta["players"]
    mix = {k: w for k, w in meta["mixture"].items() if w > 1e-9}
    if not mix:
        raise SystemExit(f"{folder}: the mixture has no member with a weight > 0")
    import re
    cmd = re.sub(r"--out \S+", "--out DIR", meta["command"] or "")
    try:
        where = folder.resolve().relative_to(Path(__file__).resolve().parent.parent)
    except ValueError:
        where = folder
    h = meta["exploitability"]
    ivs = meta["mixture_interval"]
    if policies_dir is None:
        mod = importlib.import_module(g.package + ".policy")
        policies_dir = Path(mod.__file__).parent / "policies"
    target = Path(policies_dir) / f"meta-{P}p.toml"
    tail = (f"converged: {meta['converged']}.\n"
            f"Exploitability (the last best response's gain over the mixture, held-out "
            f"deals): {100 * h['gain']:+.1f} [{100 * h['gain_lo']:+.1f}, "
            f"{100 * h['gain_hi']:+.1f}] points (n = {h['n']} player-games).\n"
            f"Run: {cmd}\nThe run's folder: {where}; docs/meta.md.")
    pure = len(mix) == 1 and abs(next(iter(mix.values())) - 1) <= 1e-9
    if member is not None and member not in mix:
        raise SystemExit(f"{folder}: --member {member!r} is not a member of the mixture "
                         f"({', '.join(sorted(mix))})")
    if pure:
        (member,) = mix
    if member is not None:
        lo, hi = ivs[member]
        pol = replace(g.get_policy(str(folder / meta["files"][member])), name=f"meta-{P}p")
    if member is not None and not pure:
        gain, who = pure_regret(meta, member)
        if gain > epsilon:
            raise SystemExit(f"{folder}: --member {member!r} is not an equilibrium on its own: "
                             f"{who} gains {100 * gain:+.1f} points against it in the matrix "
                             f"(allowed {100 * epsilon:.1f}); bundle the mixture")
        others = ", ".join(f"{m} {100 * w:.1f}%" for m, w in sorted(mix.items(), key=lambda kv: -kv[1])
                           if m != member)
        header = (f"{HEADER} the {P}-player meta field of {g.title}: member {member} "
                  f"(weight {100 * mix[member]:.1f}%, bootstrap interval [{100 * lo:.0f}, "
                  f"{100 * hi:.0f}]%; the others: {others}) of the mixed equilibrium of a "
                  f"vale-sim meta run, seed {meta['config']['seed']}, bundled pure: against a "
                  f"field of {member} no population member gains more than "
                  f"{100 * gain:+.1f} points ({who}) in the run's matrix of "
                  f"{meta['config']['matrix_deals']} deals; " + tail)
        return _write_pure(target, pol, g, header)
    if pure:
        header = (f"{HEADER} the {P}-player meta field of {g.title}: the pure equilibrium "
                  f"mixture (member {member}, bootstrap interval of its weight "
                  f"[{100 * lo:.0f}, {100 * hi:.0f}]%) of a vale-sim meta run, seed "
                  f"{meta['config']['seed']}; " + tail)
        return _write_pure(target, pol, g, header)
    from vale_sim import mixture as MX
    sub = f"meta-{P}p.members"
    rows = []
    (Path(policies_dir) / sub).mkdir(parents=True, exist_ok=True)
    for member, w in sorted(mix.items(), key=lambda kv: (-kv[1], kv[0])):
        src = folder / meta["files"][member]
        g.get_policy(str(src))                       # loads (one-line error otherwise)
        atomic_write(Path(policies_dir) / sub / f"{member}.toml", src.read_text())
        rows.append((member, w, f"{sub}/{member}.toml"))
    weights = ", ".join(f"{m} {100 * w:.1f}% [{100 * ivs[m][0]:.0f}, {100 * ivs[m][1]:.0f}]"
                        for m, w, _ in rows)
    header = (f"{HEADER} the {P}-player meta field of {g.title}: the mixed equilibrium of a "
              f"vale-sim meta run, seed {meta['config']['seed']}; opponents drawn from it per "
              f"deal (vale_sim/mixture.py).\nMembers, weight [95% bootstrap interval]: "
              f"{weights}.\n" + tail)
    atomic_write(target, MX.file_text(f"meta-{P}p", [(f, w) for _, w, f in rows],
                                      header=header))
    back = g.get_policy(str(target))
    total = sum(w for _, w, _ in rows)
    if (not MX.is_mixture(back) or [m.name for m in back.members] !=
            [g.get_policy(str(folder / meta["files"][m])).name for m, _, _ in rows]
            or any(abs(a - w / total) > 1e-12 for a, (_, w, _) in zip(back.weights, rows))):
        raise SystemExit(f"{target}: does not load back to the mixture")   # pragma: no cover
    return target


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", metavar="FOLDER", help="vale-sim meta --out folders")
    ap.add_argument("--member", default=None, help="bundle this member of a mixed "
                    "equilibrium as a pure field (module docstring)")
    ap.add_argument("--epsilon", type=float, default=1.0,
                    help="--member: the largest gain, points, allowed against it (default 1)")
    args = ap.parse_args(argv)
    for f in args.folders:
        try:
            print(f"wrote {bundle(f, member=args.member, epsilon=args.epsilon / 100)}")
        except SystemExit as e:            # a refusal: its one line, exit status 2
            if not isinstance(e.code, str):
                raise
            print(e.code, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
