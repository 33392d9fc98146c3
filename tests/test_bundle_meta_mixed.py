"""experiments/bundle_meta.py: a pure meta result is bundled as its member's policy
file (the bundled meta-{P}p files), a mixed one as a mixture file that loads back to
the mixture (docs/meta.md §6b), and one member of a mixed one as a pure field only when
no population member gains more than epsilon against it (``--member``)."""
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
    meta["mixture"] = {k: 0.0 for k in meta["mixture"]} | {"greedy": 0.3, "vp": 0.7}
    meta["mixture_interval"]["greedy"] = [0.1, 0.5]
    (run / "meta.json").write_text(json.dumps(meta))
    pol_dir = tmp_path / "policies"
    out = experiment_script("bundle_meta").bundle(run, pol_dir)
    g = get_game("mystic-lands")
    m = g.get_policy(str(out))
    assert MX.is_mixture(m) and m.name == "meta-2p"
    assert [p.name for p in m.members] == ["vp", "greedy"]
    assert m.weights == pytest.approx((0.7, 0.3))
    assert m.members[1] == g.get_policy(str(run / "population/greedy.toml"))
    text = out.read_text()
    assert "greedy 30.0% [10, 50]" in text and "Exploitability" in text
    assert (pol_dir / "meta-2p.members/vp.toml").is_file()


def _mixed_run(tmp_path, weights, diagonal_gain=0.0):
    """A copy of the 2-player run whose mixture is ``weights``; ``diagonal_gain``: how
    much greedy wins over vp's own share against a field of vp in the matrix."""
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    meta = json.loads((run / "meta.json").read_text())
    meta["mixture"] = {k: 0.0 for k in meta["mixture"]} | weights
    pop = meta["population"]
    i, j = pop.index("greedy"), pop.index("vp")
    for k in range(len(pop)):                  # nobody gains against vp ...
        meta["matrix"][k][j] = min(meta["matrix"][k][j], meta["matrix"][j][j])
    meta["matrix"][i][j] = meta["matrix"][j][j] + diagonal_gain      # ... but greedy, maybe
    (run / "meta.json").write_text(json.dumps(meta))
    return run


def test_a_member_of_a_mixed_result_bundles_pure_when_it_is_an_equilibrium(
        tmp_path, experiment_script):
    bm = experiment_script("bundle_meta")
    run = _mixed_run(tmp_path, {"greedy": 0.2, "vp": 0.8}, diagonal_gain=0.004)
    out = bm.bundle(run, tmp_path / "policies", member="vp")
    g = get_game("mystic-lands")
    pol = g.get_policy(str(out))
    assert not MX.is_mixture(pol) and pol.name == "meta-2p"
    from dataclasses import replace
    assert pol == replace(g.get_policy(str(run / "population/vp.toml")), name="meta-2p")
    text = out.read_text()
    assert "member vp (weight 80.0%" in text and "greedy 20.0%" in text
    assert "+0.4 points (greedy)" in text


def test_a_member_that_is_not_an_equilibrium_on_its_own_is_refused(
        tmp_path, experiment_script):
    bm = experiment_script("bundle_meta")
    run = _mixed_run(tmp_path, {"greedy": 0.2, "vp": 0.8}, diagonal_gain=0.03)
    with pytest.raises(SystemExit, match=r"greedy gains \+3.0 points"):
        bm.bundle(run, tmp_path / "policies", member="vp")
    with pytest.raises(SystemExit, match="not a member"):
        bm.bundle(run, tmp_path / "policies", member="balanced")
    assert not (tmp_path / "policies" / "meta-2p.toml").exists()


def test_a_refusal_on_the_command_line_is_one_line_and_exit_status_2(
        tmp_path, experiment_script, capsys):
    bm = experiment_script("bundle_meta")
    run = _mixed_run(tmp_path, {"greedy": 0.2, "vp": 0.8})
    assert bm.main(["--member", "nobody", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not a member" in err
