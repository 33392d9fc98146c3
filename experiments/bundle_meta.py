"""Bundle a `vale-sim meta` result as the named field ``meta-{P}p`` (docs/meta.md §8).

    PYTHONPATH=. .venv/bin/python experiments/bundle_meta.py vale_sim/games/mystic_vale/data/meta/2p

Copies the mixture's policy into the game's bundled policies
(``vale_sim/games/<game package>/policies/meta-{P}p.toml``), so that ``meta-{P}p`` (and
``meta-{P}p`` through ``{P}``) works wherever a policy name or ``--baseline`` does.
Only a PURE mixture (one member with weight 1 up to 1e-9) is bundled: a mixed field
needs opponents drawn per deal inside the runner, which is not implemented; a mixed
result is refused with a one-line message.  The header records the run (command,
seed, exploitability with its interval, convergence).
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


def bundle(folder) -> Path:
    folder = Path(folder)
    meta = json.loads((folder / "meta.json").read_text())
    if meta.get("written_by") != "vale-sim meta":
        raise SystemExit(f"{folder}: not a vale-sim meta --out folder")
    g = get_game(meta["game"])
    P = meta["players"]
    mix = {k: w for k, w in meta["mixture"].items() if w > 1e-9}
    if len(mix) != 1 or abs(next(iter(mix.values())) - 1) > 1e-9:
        raise SystemExit(f"{folder}: the mixture is mixed ({', '.join(mix)}); only a pure one "
                         f"can be bundled as a single policy (docs/meta.md §8)")
    (member,) = mix
    pol = replace(g.get_policy(str(folder / meta["files"][member])), name=f"meta-{P}p")
    import re
    cmd = re.sub(r"--out \S+", "--out DIR", meta["command"] or "")
    try:
        where = folder.resolve().relative_to(Path(__file__).resolve().parent.parent)
    except ValueError:
        where = folder
    h = meta["exploitability"]
    lo, hi = meta["mixture_interval"][member]
    header = (f"{HEADER} the {P}-player meta field of {g.title}: the pure equilibrium mixture "
              f"(member {member}, bootstrap interval of its weight [{100 * lo:.0f}, "
              f"{100 * hi:.0f}]%) of a vale-sim meta run, seed {meta['config']['seed']}; "
              f"converged: {meta['converged']}.\n"
              f"Exploitability (the last best response's gain over the mixture, held-out "
              f"deals): {100 * h['gain']:+.1f} [{100 * h['gain_lo']:+.1f}, "
              f"{100 * h['gain_hi']:+.1f}] points (n = {h['n']} player-games).\n"
              f"Run: {cmd}\nThe run's folder: {where}; docs/meta.md.")
    mod = importlib.import_module(g.package + ".policy")
    target = Path(mod.__file__).parent / "policies" / f"meta-{P}p.toml"
    atomic_write(target, policy_file_text(pol, g, header))
    if g.get_policy(str(target)) != replace(pol, name=g.get_policy(str(target)).name):
        raise SystemExit(f"{target}: does not load back to the member")   # pragma: no cover
    return target


if __name__ == "__main__":
    for f in sys.argv[1:]:
        print(f"wrote {bundle(f)}")
