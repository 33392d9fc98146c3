"""vale_sim.metagame and `vale-sim meta`: the solvers on games with known equilibria
(rock-paper-scissors, a biased one, a dominated strategy, hawk-dove), the deal bootstrap,
the double-oracle loop on a toy game whose meta-game is known (tests/rps_game.py: biased
rock-paper-scissors), resume, and the command's outputs and one-line errors."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from vale_sim import metagame as mg
from vale_sim.cli import main

import rps_game


def _rps_matrix_2p(a, b, c):
    return np.array([[0, -a, b], [a, 0, -c], [-b, c, 0]], float)


# ---------------------------------------------------------------------------
# Solvers
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("solver", ["lp", "replicator"])
def test_rock_paper_scissors_is_uniform(solver):
    A = _rps_matrix_2p(1, 1, 1)
    x = mg.nash_zero_sum(A)[0] if solver == "lp" else mg.replicator(A)
    assert x == pytest.approx([1 / 3] * 3, abs=1e-6)


@pytest.mark.parametrize("solver", ["lp", "replicator"])
def test_biased_rock_paper_scissors_gives_the_analytic_mixture(solver):
    a, b, c = 0.1, 0.25, 0.4               # Nash proportional to (c, b, a)
    A = _rps_matrix_2p(a, b, c)
    x = mg.nash_zero_sum(A)[0] if solver == "lp" else mg.replicator(A + 0.5)
    assert x == pytest.approx(np.array([c, b, a]) / (a + b + c), abs=1e-6)
    assert mg.regret(A, x) < 1e-9
    # without the refinement the replicator's time average is near it too (it cycles)
    assert mg.replicator(A, refine=False) == pytest.approx(np.array([c, b, a]) / (a + b + c),
                                                           abs=0.02)


@pytest.mark.parametrize("solver", ["lp", "replicator"])
def test_a_dominated_strategy_gets_no_weight(solver):
    A = _rps_matrix_2p(1, 1, 1)
    A = np.vstack([np.hstack([A, np.full((3, 1), 0.3)]), [-0.3, -0.3, -0.3, 0]])
    x = mg.nash_zero_sum(A)[0] if solver == "lp" else mg.replicator(A)
    assert x[3] == pytest.approx(0, abs=1e-6)
    assert x[:3] == pytest.approx([1 / 3] * 3, abs=1e-6)


def test_hawk_dove_replicator_finds_the_mixed_equilibrium():
    V, C = 2.0, 6.0                        # hawk with probability V / C (not constant-sum)
    M = np.array([[(V - C) / 2, V], [0, V / 2]])
    assert mg.replicator(M) == pytest.approx([V / C, 1 - V / C], abs=1e-6)
    assert mg.replicator(M, refine=False) == pytest.approx([V / C, 1 - V / C], abs=1e-3)
    assert mg.regret(M, [1, 0]) > 0.5      # pure hawk is not an equilibrium


def test_solve_by_player_count():
    M = _rps_matrix_2p(0.2, 0.3, 0.4) + 0.5
    x2, m2 = mg.solve(M, 2)
    assert m2 == "nash-lp" and x2 == pytest.approx(np.array([0.4, 0.3, 0.2]) / 0.9, abs=1e-6)
    x3, m3 = mg.solve(M, 3)
    assert m3 == "replicator" and mg.regret(M, x3) < 1e-9


def test_the_bootstrap_resamples_whole_deals():
    rng = np.random.default_rng(1)
    d = 400
    base = _rps_matrix_2p(0.2, 0.3, 0.4) + 0.5
    per = base[:, :, None] + rng.normal(0, 0.2, (3, 3, d))
    per = (per - per.transpose(1, 0, 2) + 1) / 2           # constant-sum per deal
    a = mg.bootstrap(per, 2, 100, seed=3)
    b = mg.bootstrap(per, 2, 100, seed=3)
    assert a == b and a["reps"] == 100
    x = mg.solve(per.mean(axis=2), 2)[0]
    for w, lo, hi in zip(x, a["lo"], a["hi"]):
        assert lo <= w <= hi and hi - lo > 0.01
    # fewer deals: wider intervals
    c = mg.bootstrap(per[:, :, :50], 2, 100, seed=3)
    assert sum(h - lo for lo, h in zip(c["lo"], c["hi"])) > \
        sum(h - lo for lo, h in zip(a["lo"], a["hi"]))


# ---------------------------------------------------------------------------
# The loop on a game with a known meta-game
# ---------------------------------------------------------------------------
def _cfg(players, **kw):
    d = dict(players=players, game="rps", population=("rock",), iterations=4, budget=1500,
             deals=20, matrix_deals=400, validate_deals=500, select_deals=100, epsilon=0.03,
             bootstrap=30, engine="reference", sigma0=3.0)
    d.update(kw)
    return mg.MetaConfig(**d)


def _meta(cfg, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mg.meta(cfg, **kw)


def _by_throw(r):
    w = np.zeros(3)
    for p, x in zip(r.population, r.mixture):
        w[p.throw] += x
    return w


def test_meta_finds_the_2p_nash_mixture(rps):
    r = _meta(_cfg(2))
    assert r.converged and r.method == "nash-lp"
    assert all(it["chosen"] != "start" for it in r.iterations)   # a searched policy
    assert sorted({p.throw for p in r.population}) == [0, 1, 2]   # found paper, then scissors
    assert _by_throw(r) == pytest.approx(rps_game.NASH_2P, abs=0.05)
    first = r.iterations[0]["held_out"]             # paper against rock: gains A
    assert first["gain"] == pytest.approx(rps_game.A, abs=0.05) and first["gain_lo"] > 0
    last = r.iterations[-1]["held_out"]
    assert last["gain"] < 0.03 and last["gain_hi"] < 0.06
    assert last["mixture_value"] == pytest.approx(0.5, abs=1e-9)


def test_meta_finds_the_3p_equilibrium_of_the_homogeneous_field(rps):
    # one player of throw i against two of throw j: i wins both meetings (q^2), or one,
    # then a three-way tie in a third of the cases: M = q^2 + q (1 - q) / 3
    q = 0.5 + np.array(rps_game.Hands().edge)
    M = q ** 2 + q * (1 - q) / 3
    np.fill_diagonal(M, 1 / 3)
    want = mg.replicator(M)
    r = _meta(_cfg(3, matrix_deals=300))
    assert r.converged and r.method == "replicator"
    assert _by_throw(r) == pytest.approx(want, abs=0.04)
    # at 3 players the mixture's own share is not 1/3: the gain is measured against it
    assert r.iterations[-1]["held_out"]["mixture_value"] > 0.35


def test_an_interrupted_meta_resumes_to_the_same_result(rps, tmp_path):
    cfg = _cfg(2, matrix_deals=100, validate_deals=100, bootstrap=10)
    full = _meta(cfg)
    ck = tmp_path / "m.checkpoint.json"
    part = _meta(cfg, checkpoint=ck, max_iterations=1)
    assert len(part.iterations) == 1 < len(full.iterations)
    res = _meta(cfg, checkpoint=ck, resume=True)
    assert res.summary() == full.summary()
    with pytest.raises(mg.MetaError, match="different meta run"):
        _meta(_cfg(2, matrix_deals=100, validate_deals=100, bootstrap=10, seed=1),
              checkpoint=ck, resume=True)


def test_a_budget_too_small_for_one_generation_is_an_error(rps):
    with pytest.raises(mg.MetaError, match="--budget 10 is too small"):
        _meta(_cfg(2, budget=10, matrix_deals=10, validate_deals=10))


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------
def test_cli_writes_the_population_mixture_and_curve(rps, tmp_path, capsys):
    out = tmp_path / "meta2"
    args = ["meta", "--game", "rps", "--players", "2", "--population", "rock",
            "--iterations", "3", "--budget", "1500", "--matrix-deals", "200",
            "--validate-deals", "200", "--epsilon", "0.03", "--bootstrap", "10",
            "--sigma", "3", "--out", str(out)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(args) == 0
    text = capsys.readouterr().out
    assert "mixture" in text and "n = 400 player-games" in text
    mix = json.loads((out / "mixture.json").read_text())
    assert abs(sum(mix["mixture"].values()) - 1) < 1e-9
    for name, f in mix["files"].items():
        assert (out / f).read_text().startswith(f"# {mg.HEADER}")
        pol = rps.get_policy(rps_game.PRESETS["rock"]) if name == "rock" else None
        assert pol is None or pol.throw == 0
    assert (out / "exploitability.png").stat().st_size > 0
    # a second run without --resume is refused (the checkpoint exists); a folder of
    # someone else's files is never replaced
    assert main(args) == 2
    assert "add --resume" in capsys.readouterr().err
    other = tmp_path / "other"
    other.mkdir()
    (other / "mine.txt").write_text("x")
    assert main(args[:-1] + [str(other)]) == 2
    assert "refusing to replace" in capsys.readouterr().err
    assert (other / "mine.txt").read_text() == "x"


@pytest.mark.parametrize("extra, words", [
    (["--epsilon", "2"], "--epsilon must be"),
    (["--epsilon", "0.02", "--epsilon-hi", "0.01"], "--epsilon-hi (0.01) must be at least"),
    (["--resume"], "--resume needs --out"),
    (["--population", "rock,,paper"], "an empty name"),
    (["--population", "lizard"], "--population: unknown policy 'lizard'"),
    (["--matrix-deals", "1"], "--matrix-deals"),
    (["--players", "5"], "--players"),
])
def test_cli_user_errors_are_one_line(rps, capsys, extra, words):
    args = ["meta", "--game", "rps", "--players", "2", "--budget", "200", "--iterations", "0",
            "--matrix-deals", "10", "--bootstrap", "0"] + extra
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1, err


def test_meta_is_a_study_of_both_games():
    from vale_sim.games import get_game
    from vale_sim.study import find
    for game in ("mystic-vale", "mystic-lands"):
        assert find(get_game(game), "meta", command="meta") is not None


def test_workers_do_not_change_the_mixture_shares():
    """The mixture field's scores through a process pool equal one process's (a real game:
    the pool's processes do not see a game registered by a test)."""
    from vale_sim.games import get_game
    g = get_game("mystic-vale")
    support = [g.get_policy("balanced"), g.get_policy("greedy")]
    cands = [g.get_policy("cautious"), g.get_policy("vp-rush")]
    out = []
    for workers in (1, 2):
        obj = mg.MixtureObjective("core", 2, 3, workers=workers)
        obj.set_mixture(support, [0.25, 0.75])
        try:
            out.append(obj.mixture_shares(cands, 5, 3))
        finally:
            obj.close()
    for a, b in zip(*out):
        assert np.array_equal(a, b)
    # the weights matter: the score is the weighted sum of the two fields' shares
    obj = mg.MixtureObjective("core", 2, 3)
    obj.set_mixture(support, [1.0, 0.0])
    only_first = obj.mixture_shares(cands, 5, 3)
    assert not all(np.array_equal(a, b) for a, b in zip(only_first, out[0]))


def test_the_skill_ladder_on_the_toy_game(rps, tmp_path, experiment_script):
    """experiments/skill_ladder.py: the matrix of levels with the meta mixture last; at the
    equilibrium the mixture loses to no level (up to noise); no seat advantage in the toy."""
    sl = experiment_script("skill_ladder")
    out = tmp_path / "m"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["meta", "--game", "rps", "--players", "2", "--population", "rock",
                     "--iterations", "3", "--budget", "1500", "--matrix-deals", "300",
                     "--validate-deals", "200", "--epsilon", "0.03", "--bootstrap", "0",
                     "--sigma", "3", "--out", str(out)]) == 0
    r = sl.ladder("rps", 2, 400, 0, out, engine="reference")
    names = r["levels"]
    assert names[:3] == ["rock", "paper", "scissors"] and names[-1] == "meta mixture"
    m = {(a, b): c for a, row in zip(names, r["matrix"]) for b, c in zip(names, row)}
    assert m[("paper", "rock")]["value"] == pytest.approx(0.5 + rps_game.A, abs=0.05)
    assert m[("paper", "rock")]["n"] == 800 and m[("paper", "rock")]["deals"] == 400
    for b in names:
        assert m[("meta mixture", b)]["value"] > 0.5 - 0.05, b
    assert m[("meta mixture", "meta mixture")]["value"] == pytest.approx(0.5, abs=1e-9)
    assert m[("rock", "rock")]["exact"] and m[("rock", "rock")]["lo"] == 0.5
    for fp in r["first_player"]:
        assert fp["lo"] < 0.5 < fp["hi"]
    assert "first player wins" in sl.markdown(r)


def test_the_best_response_is_a_searched_policy_never_the_start(rps):
    """At the equilibrium every member ties the mixture; choosing the start (a member)
    would report a gain of exactly 0 with no width, a convergence the data never
    showed.  The best response is a searched incumbent with a real interval."""
    r = _meta(_cfg(2, population=("rock", "paper", "scissors"), iterations=1,
                   matrix_deals=300, validate_deals=200, bootstrap=0))
    it = r.iterations[0]
    assert it["chosen"] != "start" and "start" not in [c["candidate"] for c in it["choice"]]
    h = it["held_out"]
    assert h["gain_hi"] - h["gain_lo"] > 0.005
