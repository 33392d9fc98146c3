"""experiments/bundle_meta.py: a pure meta result is bundled as its member's policy
file (the bundled meta-{P}p files), a mixed one as a mixture file that loads back to
the mixture (docs/meta.md §6b)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vale_sim import mixture as MX
from vale_sim.games import get_game

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "vale_sim/games/mystic_lands/data/meta/2p"


def test_a_pure_result_bundles_as_the_bundled_file(tmp_path, experiment_script):
    out = experiment_script("bundle_meta").bundle(RUN, tmp_path)
    assert out.read_text() == (ROOT / "vale_sim/games/mystic_lands/policies/meta-2p.toml").read_text()


def test_a_mixed_result_bundles_as_a_mixture_file(tmp_path, experiment_script):
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    meta = json.loads((run / "meta.json").read_text())
    meta["mixture"] = {k: 0.0 for k in meta["mixture"]} | {"br1": 0.3, "br2": 0.7}
    meta["mixture_interval"]["br1"] = [0.1, 0.5]
    (run / "meta.json").write_text(json.dumps(meta))
    pol_dir = tmp_path / "policies"
    out = experiment_script("bundle_meta").bundle(run, pol_dir)
    g = get_game("mystic-lands")
    m = g.get_policy(str(out))
    assert MX.is_mixture(m) and m.name == "meta-2p"
    assert [p.name for p in m.members] == ["br2", "br1"]
    assert m.weights == pytest.approx((0.7, 0.3))
    assert m.members[1] == g.get_policy(str(run / "population/br1.toml"))
    text = out.read_text()
    assert "br1 30.0% [10, 50]" in text and "Exploitability" in text
    assert (pol_dir / "meta-2p.members/br2.toml").is_file()
