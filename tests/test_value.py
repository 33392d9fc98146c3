"""The value player (docs/value.md): its model file, its policy file, the training data,
the training loop and its checkpoint, both engines, and monotonicity by design."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from vale_sim import value as vm
from vale_sim.games import get_game
from vale_sim.games.mystic_vale.policy import Policy, PolicyError, get_policy, load_policy
from vale_sim.games.mystic_vale.value import ADV_SPEC, VALE_SPEC, adv_features, feature_table

G = get_game("mystic-vale")


@pytest.fixture(scope="module")
def cs():
    return G.load_card_set(G.default_card_set)


def _model(stages=2, adv=None, vale=None, **kw):
    adv = adv or tuple(tuple(10 * (j + 1) * s if sg >= 0 else -10 for j, sg in
                             enumerate(ADV_SPEC.signs)) for s in range(1, stages + 1))
    vale = vale or tuple(tuple(5 if sg >= 0 else -5 for sg in VALE_SPEC.signs)
                         for _ in range(stages))
    return vm.ValueModel(game="mystic-vale", players=2, stages=stages,
                         adv_features=ADV_SPEC.names, vale_features=VALE_SPEC.names,
                         adv=adv, vale=vale, command="vale-sim train --players 2", **kw)


def _load(path):
    return vm.load_model(path, "mystic-vale", ADV_SPEC, VALE_SPEC)


def test_stage_of_matches_the_rule():
    assert [vm.stage_of(40, p, 3) for p in (40, 27, 26, 14, 13, 1, 0)] == [0, 0, 1, 1, 2, 2, 2]
    assert vm.stage_of(40, 0, 1) == 0 and vm.stage_of(0, 0, 3) == 0


def test_model_round_trip(tmp_path):
    m = _model()
    m.save(tmp_path / "m.json")
    back = _load(tmp_path / "m.json")
    assert back.adv == m.adv and back.vale == m.vale and back.stages == 2


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.update(format="x"), "not a value model"),
    (lambda d: d.update(game="mystic-lands"), "not 'mystic-vale'"),
    (lambda d: d.update(version=99), "version"),
    (lambda d: d.update(stages=9), "'stages'"),
    (lambda d: d["adv"].pop(), "'adv' must be 2 rows"),
    (lambda d: d["adv"][0].__setitem__(0, "x"), "integers"),
    (lambda d: d["adv"][1].__setitem__(0, -3), "weight of mana is -3"),
    (lambda d: d["adv"][0].__setitem__(ADV_SPEC.names.index("decay"), 4), "weight of decay"),
    (lambda d: d.update(adv_features=["mana"]), "not this version's features"),
])
def test_bad_model_files_are_one_line(tmp_path, edit, words):
    doc = _model().to_json()
    edit(doc)
    p = tmp_path / "m.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(vm.ValueModelError) as e:
        _load(p)
    assert words in str(e.value) and str(p) in str(e.value) and "\n" not in str(e.value)


def test_unreadable_model_files(tmp_path):
    with pytest.raises(vm.ValueModelError, match="cannot read"):
        _load(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(vm.ValueModelError, match="not valid JSON"):
        _load(tmp_path / "bad.json")


def test_value_policy_file(tmp_path):
    _model().save(tmp_path / "m.json")
    f = tmp_path / "v.toml"
    f.write_text('kind = "value"\nmodel = "m.json"\nbase = "lookahead"\nmin_score = 1\n')
    pol = load_policy(f)
    assert pol.value_stages == 2 and pol.value_adv == _model().adv and pol.name == "v"
    assert pol.push_rule == "lookahead" and pol.min_score == 1
    f.write_text('kind = "value"\nmodel = "missing.json"\n')
    with pytest.raises(vm.ValueModelError, match="missing.json"):
        load_policy(f)
    f.write_text('kind = "value"\nmodel = "m.json"\nnever = ["Stag"]\n')
    with pytest.raises(PolicyError, match="unknown field 'never'"):
        load_policy(f)
    f.write_text('kind = "value"\n')
    with pytest.raises(PolicyError, match="field 'model'"):
        load_policy(f)


def test_policy_weights_are_checked():
    with pytest.raises(PolicyError, match="value_adv given without value_stages"):
        Policy(value_adv=((1,),))
    with pytest.raises(PolicyError, match="must be 1 rows"):
        Policy(value_stages=1, value_adv=(), value_vale=())
    row = [0] * len(ADV_SPEC.names)
    row[0] = -1
    with pytest.raises(PolicyError, match="mana is -1"):
        Policy(value_stages=1, value_adv=(tuple(row),),
               value_vale=((0,) * len(VALE_SPEC.names),))


@pytest.mark.compiled
def test_training_data_counts_what_each_player_bought(cs):
    """The last position of each player in each game holds its bought cards' features
    minus the other's: compared with the engine's own acquisition counts."""
    from vale_sim.games.mystic_vale.fast.api import simulate
    from vale_sim.games.mystic_vale.training import training_data
    pols = [get_policy("balanced"), replace(get_policy("balanced"), explore_permille=300)]
    X, y, groups = training_data(cs, 2, pols, 5, 0, 60, stages=1)
    out = simulate(cs, 2, 5, 60, policies=pols, details=False)
    fa, fv = feature_table(cs)
    da = fa.shape[1]
    for g in range(60):
        rows = np.flatnonzero(groups == g)
        mine = out.acquired[g] @ fa                            # [player, feature]
        # the last row of the game is the last turn; its player p's position
        last = rows[-1]
        tr = simulate(cs, 2, 5, 1, policies=pols, first_game=g, trace=True).trace
        p = int(tr[-1, 2])
        assert np.allclose(X[last, :da], mine[p] - mine[1 - p]), g
        assert y[last] == pytest.approx(out.share[g, p] - 0.5)


def test_monotone_by_design_on_every_card(cs):
    """A printing with +1 mana, +1 of a spirit, +1 VP, +1 growth or -1 decay is valued at
    least as high at every stage, by the bundled value players; the cost is no input."""
    from vale_sim.games.mystic_vale.policy import bundled_policy_files
    fields = ("mana", "animal", "forest", "sky", "wild", "harvest_vp", "end_vp", "growth")
    checked, players = 0, 0
    for name, path in bundled_policy_files().items():
        pol = load_policy(path)
        if not pol.value_stages:
            continue
        players += 1
        for a in cs.advancements:
            base = np.array(pol.value_adv) @ np.array(adv_features(a))
            better = [replace(a, **{f: getattr(a, f) + 1}) for f in fields]
            if a.decay > 0:
                better.append(replace(a, decay=a.decay - 1))
            for b in better:
                assert (np.array(pol.value_adv) @ np.array(adv_features(b)) >= base).all()
                checked += 1
            cheaper = replace(a, cost=max(0, a.cost - 1))
            assert (np.array(pol.value_adv) @ np.array(adv_features(cheaper)) == base).all()
    assert players >= 1
    assert checked == players * sum(8 + (a.decay > 0) for a in cs.advancements)


@pytest.mark.compiled
@pytest.mark.parametrize("players", [2, 3, 4])
def test_engines_play_the_same_value_game(cs, players):
    """The bundled value player of each count, against itself and meta: game for game."""
    from engine_diff import first_difference
    from vale_sim.games.mystic_vale.fast.api import play_game_fast
    from vale_sim.games.mystic_vale.reference.game import play_reference
    v = get_policy(f"value-{players}p")
    assert v.value_stages > 0
    for seed in range(3):
        pols = [v] * players if seed != 1 else [v] + [get_policy(f"meta-{players}p")] * (players - 1)
        diff = first_difference(play_reference(cs, players, seed, 0, pols),
                                play_game_fast(cs, players, seed, 0, pols))
        assert diff is None, diff


@pytest.mark.compiled
def test_train_resume_equals_an_uninterrupted_run(tmp_path):
    """Interrupted during iteration 1, then resumed: the same iterations, the same model."""
    from vale_sim.train import TrainConfig, train
    cfg = TrainConfig(games=200, iterations=2, patience=2, eval_deals=40, seed=4)
    whole, log_whole = train(cfg, say=lambda s: None)
    ck = tmp_path / "ck.json"
    calls = []

    def stop(n):
        calls.append(n)
        if len(calls) == 2:                      # in iteration 1's self-play
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(cfg, checkpoint=ck, progress=stop, say=lambda s: None)
    assert len(json.loads(ck.read_text())["log"]) == 1
    resumed, log = train(cfg, checkpoint=ck, resume=True, say=lambda s: None)
    assert resumed.adv == whole.adv and resumed.vale == whole.vale
    assert [r["accepted"] for r in log] == [r["accepted"] for r in log_whole]
    other = TrainConfig(games=200, iterations=2, patience=2, eval_deals=40, seed=5)
    from vale_sim.errors import UserError
    with pytest.raises(UserError, match="made by another train run"):
        train(other, checkpoint=ck, resume=True, say=lambda s: None)


@pytest.mark.compiled
def test_train_command(tmp_path, monkeypatch, capsys):
    from vale_sim.cli import main
    monkeypatch.chdir(tmp_path)
    args = ["train", "--players", "2", "--games", "200", "--iterations", "1",
            "--eval-deals", "20", "--out", "m.json"]
    assert main(args) == 0
    doc = json.loads((tmp_path / "m.json").read_text())
    assert doc["command"].startswith("vale-sim train") and "--games 200" in doc["command"]
    pol = load_policy(tmp_path / "m.policy.toml")
    assert pol.value_stages == 3 and pol.value_adv == tuple(map(tuple, doc["adv"]))
    capsys.readouterr()
    assert main(args) == 2                       # the checkpoint of the earlier run
    assert "add --resume" in capsys.readouterr().err
    (tmp_path / "mine.json").write_text("{}")
    assert main(args[:-1] + ["mine.json"]) == 2
    err = capsys.readouterr().err
    assert "refusing to replace" in err and err.count("\n") == 1
    assert (tmp_path / "mine.json").read_text() == "{}"
    assert main(args[:-2] + ["--base", "nope", "--out", "n.json"]) == 2
    assert "--base 'nope'" in capsys.readouterr().err


@pytest.mark.compiled
def test_bench_times_a_field_next_to_meta(capsys):
    """`vale-sim bench --policy FIELD` (issue 36 item 8): games/s of the field and of
    meta-2p, the ratio; refuses options it would ignore."""
    from vale_sim.cli import main
    assert main(["bench", "--policy", "value-2p", "--games", "60", "--repeats", "1",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in doc["policies"]] == ["meta-2p", "value-2p"]
    assert doc["policies"][0]["ratio"] == 1.0 and doc["policies"][1]["fast_games_per_s"] > 0
    assert main(["bench", "--policy", "value-2p", "--workers", "2"]) == 2
    assert "drop --workers" in capsys.readouterr().err
    assert main(["bench", "--policy", "nope"]) == 2


def test_relative_positions_and_stage_blocks_by_hand():
    # two games of 2 players: rows in play order, gains of the acting player
    gain = np.array([[1., 0.], [0., 2.], [3., 0.], [5., 5.], [1., 1.]])
    game = np.array([0, 0, 0, 1, 1])
    player = np.array([0, 1, 0, 1, 0])
    x = vm.relative_positions(gain, game, player, 2)
    # game 0: p0 holds 1 | p1 holds 2 vs p0's 1 | p0 holds 4 vs p1's 2; game 1 starts anew
    assert x.tolist() == [[1, 0], [-1, 2], [4, -2], [5, 5], [-4, -4]]
    start = np.array([[[10., 0.], [0., 0.]], [[0., 0.], [0., 7.]]])     # [game, player, f]
    xs = vm.relative_positions(gain, game, player, 2, start=start)
    assert xs.tolist() == [[11, 0], [-11, 2], [14, -2], [5, 12], [-4, -11]]
    X = vm.stage_blocks(x, np.array([0, 1, 1, 0, 1]), (1, 1), 2)
    # columns: group 0 stage 0, group 0 stage 1, group 1 stage 0, group 1 stage 1
    assert X.tolist() == [[1, 0, 0, 0], [0, -1, 0, 2], [0, 4, 0, -2], [5, 0, 5, 0],
                          [0, -4, 0, -4]]
