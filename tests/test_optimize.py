"""vale_sim.optimize and `vale-sim optimize`: the space, a known optimum, reproducibility,
resume, workers, outputs and user errors (small budgets)."""
from __future__ import annotations

import csv
import json
from dataclasses import fields, replace

import numpy as np
import pytest

from vale_sim import optimize as opt
from vale_sim.games.mystic_vale import policy as policy_mod
from vale_sim.cli import main
from vale_sim.games.mystic_vale.policy import Policy, load_policy
from vale_sim.games.mystic_vale.spoil import best_rule
from vale_sim.games.mystic_vale.spoil.objective import SpoilObjective


# ---------------------------------------------------------------------------
# The space
# ---------------------------------------------------------------------------
def test_space_is_built_from_the_policy_fields():
    space = opt.policy_space()
    names = [p.name for p in space]
    # every int and bool field, and token, except the excluded ones, in field order
    expected = [f.name for f in fields(Policy)
                if f.name not in policy_mod.SEARCH_EXCLUDED
                and isinstance(getattr(Policy(), f.name), (int, bool, str))
                and (not isinstance(getattr(Policy(), f.name), str) or opt._choices_for(f.name))]
    assert names == expected
    assert "push_risk_permille" in names and "token" in names and "use_sunstone" in names
    assert "explore_permille" not in names and "name" not in names
    by = {p.name: p for p in space}
    assert by["token"].kind == "choice" and by["token"].choices == policy_mod.TOKEN_MODES
    assert by["avoid_decay_stack"].kind == "bool"
    assert (by["push_risk_permille"].lo, by["push_risk_permille"].hi) == (0, 1000)
    assert (by["w_mana"].lo, by["w_mana"].hi) == (-10, 10)
    for p in space:              # every decoded value passes the policy's own validation
        for x in np.linspace(-3, 13, 33):
            replace(Policy(), **{p.name: p.decode(x)})


def test_a_new_categorical_field_joins_through_its_choices_list(monkeypatch):
    monkeypatch.setattr(policy_mod, "PUSH_RULES", ("risk", "lookahead"), raising=False)
    assert opt._choices_for("push_rule") == ("risk", "lookahead")
    if any(f.name == "push_rule" for f in fields(Policy)):
        assert "push_rule" in [p.name for p in opt.policy_space()]


def test_encoding_round_trips_and_rounding_is_half_to_even():
    space = opt.policy_space()
    for pol in policy_mod.PRESETS.values():
        x = opt.encode(space, pol)
        assert opt.decode(space, x, pol, pol.name) == pol
    p = opt.Param("w", "int", 0, 10)
    assert p.decode(2.5) == 2 and p.decode(3.5) == 4          # x = value here (SCALE = 10)
    assert p.decode(-4.0) == 0 and p.decode(14.0) == 10       # clipped first
    c = opt.Param("token", "choice", choices=("a", "b"))
    assert [c.decode(x) for x in (0, 4.99, 5.0, 10)] == ["a", "a", "b", "b"]
    assert opt.Param("b", "bool").decode(4.99) is False and opt.Param("b", "bool").decode(5) is True


# ---------------------------------------------------------------------------
# A synthetic problem with a known optimum
# ---------------------------------------------------------------------------
SYN = dict(players=1, budget=200 * 8 * 40, only=("push_risk_permille", "mana_target"), sigma0=2.0,
           hall=0, opponents=("balanced",))
TOLERANCE = 0.02      # expected mana (of about 3.04)


def test_search_finds_the_best_push_rule_of_a_one_player_deck():
    obj = SpoilObjective("seedling", deals=200)
    best, t_best, target_best = obj.best_in_family()
    unrestricted = float(best_rule("seedling", horizon=6, card_set="core").value)
    assert best <= unrestricted + 1e-9                 # the family is inside best_rule's
    start = obj.exact_value(Policy().push_risk_permille, Policy().mana_target)
    assert start < best - TOLERANCE                    # the start is measurably worse
    res = opt.search(opt.SearchConfig(seed=0, **SYN), obj)
    got = obj.exact_value(res.policy.push_risk_permille, res.policy.mana_target)
    assert got >= best - TOLERANCE, (res.policy, got, best, t_best, target_best)
    assert res.policy.mana_target == target_best
    assert res.games <= SYN["budget"]
    # the simulated objective is unbiased: the incumbent's mean over generations is
    # close to the exact value of the rules evaluated
    d = [c["score"] - obj.exact_value(c["push_risk_permille"], c["mana_target"]) for c in res.curve]
    assert abs(np.mean(d)) < 0.15


def test_same_seed_same_policy_and_log():
    obj = SpoilObjective("seedling", deals=50)
    cfg = dict(SYN, budget=50 * 8 * 10)
    a = opt.search(opt.SearchConfig(seed=3, **cfg), obj)
    b = opt.search(opt.SearchConfig(seed=3, **cfg), SpoilObjective("seedling", deals=50))
    c = opt.search(opt.SearchConfig(seed=4, **cfg), obj)
    assert a.policy == b.policy and a.log == b.log
    assert a.log != c.log


# ---------------------------------------------------------------------------
# The game objective: resume, workers
# ---------------------------------------------------------------------------
TINY = dict(players=2, budget=400, popsize=4, hall=1, opponents=("balanced", "greedy"))


def test_resume_equals_an_uninterrupted_run(tmp_path):
    cfg = opt.SearchConfig(seed=5, **TINY)
    full = opt.search(cfg, opt.GameObjective("core", 2, deals=2))
    assert full.generations >= 3
    ck = tmp_path / "s.checkpoint.json"
    part = opt.search(cfg, opt.GameObjective("core", 2, deals=2), checkpoint=ck, max_generations=2)
    assert part.generations == 2 and ck.exists()
    np.random.seed(12345)            # the global state must not matter
    resumed = opt.search(cfg, opt.GameObjective("core", 2, deals=2), checkpoint=ck, resume=True)
    assert resumed.policy == full.policy
    assert resumed.log == full.log and resumed.curve == full.curve
    assert resumed.games == full.games
    # the hall of fame enters the field: 2 presets + 1 from generation 1 on
    assert [r["field"] for r in full.log if r["candidate"] == "incumbent"][:2] == [2, 3]
    # a checkpoint of another search is refused
    with pytest.raises(opt.SearchError, match="different search"):
        opt.search(replace(cfg, seed=6), opt.GameObjective("core", 2, deals=2), checkpoint=ck,
                   resume=True)


def test_workers_do_not_change_the_answer():
    cfg = opt.SearchConfig(seed=7, **dict(TINY, budget=250))
    one = opt.search(cfg, opt.GameObjective("core", 2, deals=2, workers=1))
    obj2 = opt.GameObjective("core", 2, deals=2, workers=2)
    try:
        two = opt.search(cfg, obj2)
    finally:
        obj2.close()
    assert one.policy == two.policy and one.log == two.log


def test_a_dask_scheduler_does_not_change_the_answer():
    """--scheduler: the candidates' games on a Dask cluster (a local one, bound to
    loopback) give the same search as one process."""
    distributed = pytest.importorskip("dask.distributed")
    cfg = opt.SearchConfig(seed=7, **dict(TINY, budget=120))
    one = opt.search(cfg, opt.GameObjective("core", 2, deals=2, workers=1))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        obj = opt.GameObjective("core", 2, deals=2, scheduler=cluster.scheduler_address)
        try:
            remote = opt.search(cfg, obj)
        finally:
            obj.close()
    assert one.policy == remote.policy and one.log == remote.log


def test_validation_uses_held_out_seeds():
    gen = {opt.generation_seed(0, g) for g in range(1000)}
    assert opt.validation_seed(0) not in gen
    rows = opt.validate(policy_mod.PRESETS["greedy"], "core", 2, deals=6, seed=0,
                        opponents=("balanced", "greedy"))
    assert [r["opponent"] for r in rows] == ["balanced", "greedy"]
    for r in rows:
        assert r["n"] == 12 and r["deals"] == 6 and r["lo"] <= r["win_share"] <= r["hi"]
    assert rows[1]["win_share"] == pytest.approx(0.5)     # a policy against itself, rotated


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------
def test_cli_outputs_and_policy_round_trip(tmp_path, capsys):
    out = tmp_path / "best.toml"
    rc = main(["optimize", "--players", "2", "--budget", "600", "--deals", "2", "--popsize", "3",
               "--hall", "1", "--validate-deals", "3", "--seed", "2", "--out", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "Held-out validation" in text and "n" in text
    pol = load_policy(out)
    man = json.loads((tmp_path / "best.manifest.json").read_text())
    space = opt.policy_space()
    assert opt.params_of(space, pol) == man["policy"]
    assert man["seed"] == 2 and man["budget"] == 600 and man["card_set"]["digest"]
    assert "vale_sim" in man["code"]
    assert len(man["validation"]["rows"]) == len(policy_mod.PRESETS)
    rows = list(csv.DictReader(open(tmp_path / "best.log.csv")))
    log = json.loads((tmp_path / "best.log.json").read_text())
    assert len(rows) == len(log["candidates"]) > 0
    assert {"score", "lo", "hi", "n", "push_risk_permille", "token"} <= set(rows[0])
    assert (tmp_path / "best.curve.png").stat().st_size > 1000
    for c in log["curve"]:     # the incumbent against the presets alone is a subset of its games
        assert c["presets_n"] == 2 * 2 * len(policy_mod.PRESETS) and c["n"] >= c["presets_n"]
        assert c["presets_lo"] <= c["score_presets"] <= c["presets_hi"]
    st = json.loads((tmp_path / "best.checkpoint.json").read_text())   # data, never a pickle
    assert st["format"] == "vale-sim checkpoint" and st["kind"] == "search"
    assert st["state"]["generation"] == man["generations"] == len(log["curve"])
    # the policy file works with --policy
    assert main(["tournament", "--policies", f"{out},balanced", "--games", "2"]) == 0


@pytest.mark.parametrize("argv, words", [
    (["--budget", "0"], "--budget"),
    (["--out", "x.txt"], ".toml"),
    (["--start", "nosuch"], "nosuch"),
    (["--deals", "0"], "--deals"),
    (["--workers", "0"], "--workers"),
    (["--set", "no/such/set.toml"], "set.toml"),
    (["--sigma", "0"], "--sigma"),
    (["--scheduler", "nonsense"], "scheduler"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, argv, words):
    out = tmp_path / "o.toml"
    rc = main(["optimize", "--players", "2", "--budget", "100", "--out", str(out)] + argv)
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and words in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_existing_checkpoint_needs_resume(tmp_path, capsys):
    out = tmp_path / "o.toml"
    (tmp_path / "o.checkpoint.json").write_bytes(b"junk")
    assert main(["optimize", "--players", "2", "--out", str(out)]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["optimize", "--players", "2", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "checkpoint" in err
    assert not out.exists()


def test_bundled_optimized_policies_load_inside_the_space():
    from vale_sim.games.mystic_vale.policy import bundled_policy_files, get_policy
    names = [n for n in bundled_policy_files() if n.startswith("optimized-")]
    assert "optimized-2p" in names
    for n in names:
        pol = get_policy(n)
        assert pol.name == n
        for p in opt.policy_space():
            v = getattr(pol, p.name)
            assert p.decode(p.encode(v)) == v          # a point of the searched space


def test_progress_bar_only_when_asked_or_on_a_terminal(tmp_path, capsys):
    argv = ["optimize", "--players", "2", "--budget", "150", "--deals", "1", "--popsize", "3",
            "--hall", "0", "--validate-deals", "1"]
    assert main(argv + ["--out", str(tmp_path / "a.toml")]) == 0
    assert "optimize" not in capsys.readouterr().err          # stderr is not a terminal here
    assert main(argv + ["--out", str(tmp_path / "b.toml"), "--progress"]) == 0
    err = capsys.readouterr().err
    assert "optimize" in err and "game" in err
    assert load_policy(tmp_path / "a.toml") == replace(load_policy(tmp_path / "b.toml"), name="a")
