"""The Mystic Lands value player (docs/value.md; mystic-lands-engine-spec §6.14): its
features, its model and policy files, the stage rule, the training data, monotonicity
by design on every card and spot, both engines, and vale-sim train."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from vale_sim import value as vm
from vale_sim.games import get_game
from vale_sim.games.mystic_lands import cards as C
from vale_sim.games.mystic_lands.policy import (VALUE_FIELDS, Policy, PolicyError,
                                                bundled_policy_files, get_policy, load_policy)
from vale_sim.games.mystic_lands.rules import Rules
from vale_sim.games.mystic_lands.value import (ADV_SPEC, VALE_SPEC, adv_features,
                                               feature_tables, game_stage, spot_features,
                                               vale_row_features)

G = get_game("mystic-lands")
GAME = "mystic-lands"


@pytest.fixture(scope="module")
def cs():
    return G.load_card_set(G.default_card_set)


def _model(stages=2, **kw):
    adv = tuple(tuple(10 * (j + 1) * s if sg >= 0 else -10 for j, sg in
                      enumerate(ADV_SPEC.signs)) for s in range(1, stages + 1))
    vale = tuple(tuple(5 if sg >= 0 else -5 for sg in VALE_SPEC.signs) for _ in range(stages))
    return vm.ValueModel(game=GAME, players=2, stages=stages, adv_features=ADV_SPEC.names,
                         vale_features=VALE_SPEC.names, adv=adv, vale=vale,
                         command="vale-sim train --game mystic-lands --players 2", **kw)


def _load(path):
    return vm.load_model(path, GAME, ADV_SPEC, VALE_SPEC)


def _value_policies():
    """The bundled value players (policies/value-{P}p.toml)."""
    out = {}
    for name, path in bundled_policy_files().items():
        pol = load_policy(path)
        if pol.value_stages:
            out[name] = pol
    return out


# -- features ----------------------------------------------------------------------
def test_features_say_what_a_card_does_never_its_name_or_cost(cs):
    assert not any("cost" in n or "name" in n for n in ADV_SPEC.names + VALE_SPEC.names)
    assert ADV_SPEC.signs[ADV_SPEC.names.index("sun")] == -1
    assert all(ADV_SPEC.signs[ADV_SPEC.names.index(n)] == 1 for n in
               ("mana", "spirit", "vp", "end_vp", "cloud", "rain", "gain:vp",
                "effect:wither_limit"))
    oak = cs.advances[cs.advance_id("Great Oak")]            # 2 mana, 1 spirit, 1 end VP
    f = dict(zip(ADV_SPEC.names, adv_features(oak)))
    assert (f["mana"], f["spirit"], f["end_vp"], f["sun"]) == (2, 1, 1, 0)
    assert adv_features(replace(oak, cost=oak.cost + 9, name="Other")) == adv_features(oak)
    caller = cs.advances[cs.advance_id("Storm Caller")]      # played: gain 2 rain
    assert dict(zip(ADV_SPEC.names, adv_features(caller)))["gain:rain"] == 2
    # a spot: the row's and the map's rewards add; an activation effect only on the track
    vines = cs.vales[cs.vale_id("Grasping Vines")]
    f0 = dict(zip(VALE_SPEC.names, vale_row_features(vines, 0)))
    assert f0["end_vp"] == 2 and f0["activation"] == 1 and f0["track_mana"] == 1
    assert f0["effect:remove_card"] == 1
    table = cs.vales[cs.vale_id("Great Table")]
    f2 = dict(zip(VALE_SPEC.names, vale_row_features(table, 2)))
    assert f2["mana"] == 1 and f2["gain:mana"] == 1 and f2["activation"] == 0
    layout = [-1] * len(cs.map.spaces)
    s = next(i for i, sp in enumerate(cs.map.spaces) if sp.id == "I-1")   # map: 1 spirit, row 0
    layout[s] = cs.vale_id("Spirit Cave")
    f = dict(zip(VALE_SPEC.names, spot_features(cs, layout, s, 0)))
    assert (f["end_vp"], f["spirit"]) == (3, 1)
    fa, fv, fs = feature_tables(cs)
    assert fa.shape == (len(cs.advances), len(ADV_SPEC.names))
    assert fv.shape[2] == fs.shape[2] == len(VALE_SPEC.names)


def test_stage_is_the_leaders_progress_toward_the_end():
    r = Rules()                                   # end_vp 25, end_cubes 10: 250
    assert game_stage(r, [0, 0], [0, 0], 3) == 0
    assert game_stage(r, [8, 0], [0, 0], 3) == 0          # 80 * 3 // 250
    assert game_stage(r, [9, 0], [0, 0], 3) == 1          # 90
    assert game_stage(r, [0, 2], [4, 0], 3) == 1          # cubes 4 * 25 = 100
    assert game_stage(r, [17, 0], [0, 0], 3) == 2
    assert game_stage(r, [40, 0], [12, 0], 3) == 2        # past the trigger: the last
    assert game_stage(r, [17, 0], [0, 0], 1) == 0
    assert game_stage(replace(r, end_cubes=0), [17, 0], [0, 0], 3) == 0


# -- files ---------------------------------------------------------------------------
def test_model_round_trip(tmp_path):
    m = _model()
    m.save(tmp_path / "m.json")
    back = _load(tmp_path / "m.json")
    assert back.adv == m.adv and back.vale == m.vale and back.game == GAME


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.update(game="mystic-vale"), "not 'mystic-lands'"),
    (lambda d: d.update(stages=5), "'stages'"),
    (lambda d: d["vale"].pop(), "'vale' must be 2 rows"),
    (lambda d: d["adv"][1].__setitem__(0, -3), "weight of mana is -3"),
    (lambda d: d["adv"][0].__setitem__(ADV_SPEC.names.index("sun"), 4), "weight of sun"),
    (lambda d: d["vale"][0].__setitem__(0, -1), "weight of end_vp"),
    (lambda d: d.update(vale_features=["end_vp"]), "not this version's features"),
])
def test_bad_model_files_are_one_line(tmp_path, edit, words):
    doc = _model().to_json()
    edit(doc)
    p = tmp_path / "m.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(vm.ValueModelError) as e:
        _load(p)
    assert words in str(e.value) and str(p) in str(e.value) and "\n" not in str(e.value)


def test_a_mystic_vale_model_is_refused(tmp_path):
    from vale_sim.games.mystic_vale.value import ADV_SPEC as MA, VALE_SPEC as MV
    m = vm.ValueModel(game="mystic-vale", players=2, stages=1, adv_features=MA.names,
                      vale_features=MV.names, adv=((0,) * len(MA.names),),
                      vale=((0,) * len(MV.names),))
    m.save(tmp_path / "m.json")
    f = tmp_path / "v.toml"
    f.write_text('kind = "value"\nmodel = "m.json"\n')
    with pytest.raises(vm.ValueModelError, match="not 'mystic-lands'"):
        load_policy(f)


def test_value_policy_file(tmp_path):
    _model().save(tmp_path / "m.json")
    f = tmp_path / "v.toml"
    f.write_text('kind = "value"\nmodel = "m.json"\nbase = "cautious"\nmin_score = 1\n'
                 'wither_choice = "vp"\n')
    pol = load_policy(f)
    assert pol.value_stages == 2 and pol.value_adv == _model().adv and pol.name == "v"
    assert pol.rest_risk_permille == 0 and pol.wither_choice == "vp" and pol.min_score == 1
    for text, err, words in [
            ('kind = "value"\nmodel = "missing.json"\n', vm.ValueModelError, "missing.json"),
            ('kind = "value"\nmodel = "m.json"\nnever = ["Meadow"]\n', PolicyError,
             "unknown field 'never'"),
            ('kind = "value"\nmodel = "m.json"\nbase = "lookahead"\n', PolicyError,
             "unknown preset 'lookahead'"),
            ('kind = "value"\n', PolicyError, "field 'model'")]:
        f.write_text(text)
        with pytest.raises(err, match=words):
            load_policy(f)


def test_policy_weights_are_checked():
    with pytest.raises(PolicyError, match="value_adv given without value_stages"):
        Policy(value_adv=((1,),))
    with pytest.raises(PolicyError, match="must be 1 rows"):
        Policy(value_stages=1, value_adv=(), value_vale=())
    row = [0] * len(ADV_SPEC.names)
    row[ADV_SPEC.names.index("sun")] = 3
    with pytest.raises(PolicyError, match="sun is 3"):
        Policy(value_stages=1, value_adv=(tuple(row),),
               value_vale=((0,) * len(VALE_SPEC.names),))
    with pytest.raises(PolicyError, match="explore_permille"):
        Policy(explore_permille=1001)


# -- monotone by design --------------------------------------------------------------
_ADV_BETTER = ("mana", "spirit", "vp", "cloud", "rain", "blue", "green", "red", "yellow",
               "wild")
_ROW_BETTER = ("vp", "mana", "spirit", "gain_vp", "rain")


def _better_printings(a):
    """+1 of each benefit of an Advance (icons, end VP, each gain effect) and -1 sun."""
    out = [replace(a, icons=replace(a.icons, **{f: getattr(a.icons, f) + 1}))
           for f in _ADV_BETTER]
    out.append(replace(a, end_vp=a.end_vp + 1))
    if a.icons.sun > 0:
        out.append(replace(a, icons=replace(a.icons, sun=a.icons.sun - 1)))
    for i, e in enumerate(a.effects):
        if e.kind in ("gain", "gain_per_aspect_land", "gain_per_aspect_card",
                      "wither_limit", "vp_per_sun_all"):
            eff = list(a.effects)
            eff[i] = replace(e, amount=e.amount + 1)
            out.append(replace(a, effects=tuple(eff)))
    for r in C.RESOURCES:                          # a new gain effect
        out.append(replace(a, effects=a.effects + (C.Effect("day", "gain", 1, r),)))
    return out


def _check_monotone(cs, adv_w, vale_w) -> int:
    W = np.array(adv_w)
    V = np.array(vale_w)
    checked = 0
    for a in cs.advances:
        base = W @ np.array(adv_features(a))
        for b in _better_printings(a):
            assert (W @ np.array(adv_features(b)) >= base).all(), (a.name, b)
            checked += 1
        cheaper = replace(a, cost=max(0, a.cost - 1))
        assert (W @ np.array(adv_features(cheaper)) == base).all()
    for v in cs.vales:
        for r, row in enumerate(v.rows):
            base = V @ np.array(vale_row_features(v, r))
            for f in _ROW_BETTER:
                rows = list(v.rows)
                rows[r] = replace(row, **{f: getattr(row, f) + 1})
                assert (V @ np.array(vale_row_features(replace(v, rows=tuple(rows)), r))
                        >= base).all(), (v.name, r, f)
                checked += 1
            assert (V @ np.array(vale_row_features(replace(v, cost=v.cost + 3), r))
                    == base).all()
    return checked


def test_monotone_by_design_on_every_card_and_spot(cs):
    """A printing with +1 of a benefit (mana, spirit, VP, end VP, cloud, rain, an aspect,
    a gain) or one sun less is valued at least as high at every stage, by every bundled
    value player and by random weights within the bounds; the cost is no input."""
    pols = _value_policies()
    assert {"value-2p", "value-3p", "value-4p"} <= set(pols)
    checked = 0
    for pol in pols.values():
        checked += _check_monotone(cs, pol.value_adv, pol.value_vale)
    rng = np.random.default_rng(3)

    def weights(spec):
        return [[int(rng.integers(0, 50)) if s > 0 else -int(rng.integers(0, 50)) if s < 0
                 else int(rng.integers(-50, 50)) for s in spec.signs] for _ in range(3)]
    for _ in range(5):
        checked += _check_monotone(cs, weights(ADV_SPEC), weights(VALE_SPEC))
    assert checked >= 8 * 29 * 14


def test_bundled_value_players_are_the_trained_ones_tuned_by_a_meta_run(cs):
    """value-{P}p: the model of data/value (made by the command it records, trained with
    meta-{P}p's other fields as its --base) and the other fields of the equilibrium member
    of a meta run whose population held that trained player (the file records the run;
    docs/meta.md "Mystic Lands: value players in the population")."""
    pols = _value_policies()
    assert sorted(pols) == ["value-2p", "value-3p", "value-4p"]
    for name, pol in pols.items():
        P = int(name[len("value-")])
        path = bundled_policy_files()[name]
        m = _load(path.parent / "../data/value" / f"value-{P}p.json")
        assert (m.players, m.adv, m.vale) == (P, pol.value_adv, pol.value_vale)
        assert m.command.startswith(f"vale-sim train --game mystic-lands --players {P} ")
        assert f"--base meta-{P}p" in m.command
        text = path.read_text()
        assert (f"# Run: vale-sim meta --game mystic-lands --players {P} --population "
                f"value-{P}p,meta-{P}p,balanced ") in text
        assert pol.never == () and pol.rules == () and pol.explore_permille == 0


# -- the engines (numba) -----------------------------------------------------------------
@pytest.mark.compiled
def test_training_data_counts_what_each_player_acquired(cs):
    """The last position of each game's last player holds its Druid Advance and acquired
    Advances' features minus the other's: compared with the engine's acquisition counts
    and its Druid Advances; its outcome is its win share - 1/2."""
    from vale_sim.games.mystic_lands.fast import state as L
    from vale_sim.games.mystic_lands.fast.api import simulate, snapshots
    from vale_sim.games.mystic_lands.training import training_data
    pols = [get_policy("balanced"), replace(get_policy("balanced"), explore_permille=300)]
    X, y, groups = training_data(cs, 2, pols, 5, 7, 40, stages=1)
    out = simulate(cs, 2, 5, 40, policies=pols, first_game=7)
    sn = snapshots(cs, 2, 5, 40, policies=pols, first_game=7)
    assert (sn.acquired == out.acquired).all()
    fa, _, _ = feature_tables(cs)
    da = fa.shape[1]
    assert X.shape[1] == len(ADV_SPEC.names) + len(VALE_SPEC.names) + 1
    for g in range(40):
        rows = np.flatnonzero(groups == g + 7)
        mine = out.acquired[g] @ fa + fa[out.res[g, :, L.RS_DRUID]]
        p = int(sn.snap[sn.snap[:, L.SN_GAME] == g][-1, L.SN_PLAYER])
        assert np.allclose(X[rows[-1], :da], mine[p] - mine[1 - p]), g
        assert y[rows[-1]] == pytest.approx(out.share[g, p] - 0.5)
        # the VP control is the VP difference at the end
        assert X[rows[-1], -1] == out.res[g, p, L.RS_TRACK] - out.res[g, 1 - p, L.RS_TRACK]


@pytest.mark.compiled
@pytest.mark.parametrize("players", [2, 3, 4])
def test_engines_play_the_same_value_game(cs, players):
    """The bundled value player of each count, against itself and meta, and exploring:
    game for game."""
    from engine_diff import first_difference
    from vale_sim.games.mystic_lands.fast.api import play_game_fast
    v = get_policy(f"value-{players}p")
    assert v.value_stages > 0
    meta = get_policy(f"meta-{players}p")
    for seed in range(3):
        pols = {0: [v] * players, 1: [v] + [meta] * (players - 1),
                2: [replace(v, explore_permille=200)] * players}[seed]
        ref = G.play_reference(cs, players, seed, 0, pols, log=False)
        diff = first_difference(ref, play_game_fast(cs, players, seed, 0, pols))
        assert diff is None, diff


@pytest.mark.compiled
@pytest.mark.slow
def test_train_command(tmp_path, capsys):
    """A tiny vale-sim train run: the model (with its command), a policy file that loads
    and plays, the checkpoint; a second run needs --resume."""
    from vale_sim.cli import main
    from vale_sim.games.mystic_lands.fast.api import run_fast
    out = tmp_path / "v.json"
    argv = ["train", "--game", "mystic-lands", "--players", "2", "--games", "100",
            "--iterations", "2", "--eval-deals", "10", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "iteration 0: 100 self-play games" in text and "iteration 1" in text
    m = _load(out)
    assert m.command.startswith("vale-sim train") and m.notes["iterations"] == 2
    pol = load_policy(tmp_path / "v.policy.toml")
    # --start and --base: the game's strongest field, value-2p; its fields that are not
    # scores
    assert pol.value_stages == 3 and pol.value_adv == m.adv
    assert pol.rest_risk_permille == get_policy("value-2p").rest_risk_permille == 677
    df = run_fast(G.load_card_set(G.default_card_set), 2, 1, 4, [pol, "meta-2p"])
    assert len(df) == 8
    assert (tmp_path / "v.checkpoint.json").exists()
    assert main(argv) != 0
    assert "--resume" in capsys.readouterr().err


@pytest.mark.parametrize("base", ["meta-3p", "cautious"])
def test_the_written_policy_file_is_the_trained_player(tmp_path, base):
    """vale-sim train's policy file gives the player it trained, field for field, also
    when --base is a policy file (meta-3p): a preset and the fields that differ."""
    from dataclasses import fields
    from vale_sim import train as tr
    from vale_sim.commands.train import base_fields, policy_text
    cfg = tr.TrainConfig(game=GAME, players=3, stages=2, base=base)
    w = {"adv": [[0.01 * s for s in ADV_SPEC.signs]] * 2,
         "vale": [[0.02 * s for s in VALE_SPEC.signs]] * 2}
    trained = tr.make_policy(G, cfg, w, "x")
    tr.model_of(cfg, trained).save(tmp_path / "x.json")
    preset, extra = base_fields(G, base)
    assert preset == ("balanced" if base == "meta-3p" else base) and bool(extra) == (base != preset)
    (tmp_path / "x.policy.toml").write_text(policy_text(
        tmp_path / "x.json", tmp_path / "x.policy.toml", None, preset, "h", extra))
    loaded = load_policy(tmp_path / "x.policy.toml")
    assert [f.name for f in fields(Policy)
            if getattr(trained, f.name) != getattr(loaded, f.name)] == []
