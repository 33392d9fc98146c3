"""Bundle a `vale-sim meta` result as the named field ``meta-{P}p`` (docs/meta.md §6b).

    PYTHONPATH=. .venv/bin/python experiments/bundle_meta.py vale_sim/games/mystic_vale/data/meta/2p

Writes the mixture into the game's bundled policies
(``vale_sim/games/<game package>/policies/meta-{P}p.toml``), so that ``meta-{P}p`` (and
``meta-{P}p`` through ``{P}``) works wherever a policy name or ``--baseline`` does.

* A PURE mixture (one member with weight 1 up to 1e-9) is bundled as that member's
  policy file, renamed ``meta-{P}p``.
* A MIXED one is bundled as a mixture file (``kind = "mixture"``, vale_sim/mixture.py):
  its members (weight > 1e-9) are copied to ``policies/meta-{P}p.members/NAME.toml``
  and listed with their weights (renormalised over the kept members); opponents are
  then drawn from it per deal.

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


def bundle(folder, policies_dir=None) -> Path:
    """Bundle the meta run in ``folder``; ``policies_dir``: where (default the game's
    bundled ``policies/`` folder).  Returns the file written."""
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
    if len(mix) == 1 and abs(next(iter(mix.values())) - 1) <= 1e-9:
        (member,) = mix
        pol = replace(g.get_policy(str(folder / meta["files"][member])), name=f"meta-{P}p")
        lo, hi = ivs[member]
        header = (f"{HEADER} the {P}-player meta field of {g.title}: the pure equilibrium "
                  f"mixture (member {member}, bootstrap interval of its weight "
                  f"[{100 * lo:.0f}, {100 * hi:.0f}]%) of a vale-sim meta run, seed "
                  f"{meta['config']['seed']}; " + tail)
        atomic_write(target, policy_file_text(pol, g, header))
        if g.get_policy(str(target)) != replace(pol, name=g.get_policy(str(target)).name):
            raise SystemExit(f"{target}: does not load back to the member")   # pragma: no cover
        return target
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


if __name__ == "__main__":
    for f in sys.argv[1:]:
        print(f"wrote {bundle(f)}")
