"""Mixed fields (vale_sim/mixture.py, docs/meta.md §6b): mixture files, draws that
follow the weights, the same games whatever the chunking, a pure mixture playing
its member's games, and one-line errors for bad files.  The toy game tests/pig.py
(reference engine only, no numba); the engines of both games: test_mixture_engines.py."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pig as pig_game
from vale_sim import mixture as MX
from vale_sim import runner
from vale_sim.cli import main


@pytest.fixture
def pig(monkeypatch):
    return pig_game.registered(monkeypatch)


def write(path, text):
    path.write_text(text)
    return str(path)


MIX = """kind = "mixture"
name = "room"
draw = "{draw}"
[[member]]
policy = "bold"
weight = {a}
[[member]]
policy = "cautious"
weight = {b}
[[member]]
policy = "hold7.toml"
weight = {c}
"""


@pytest.fixture
def room(tmp_path, pig):
    write(tmp_path / "hold7.toml", 'base = "cautious"\nname = "hold7"\nhold_at = 7\n')

    def make(a=0.2, b=0.3, c=0.5, draw="deal", name="room.toml"):
        return write(tmp_path / name, MIX.format(a=a, b=b, c=c, draw=draw))
    return make


def test_a_mixture_file_loads_with_its_members_and_normalised_weights(room, pig):
    m = pig.get_policy(room(a=2, b=3, c=5))
    assert isinstance(m, MX.Mixture) and m.name == "room" and m.draw == "deal"
    assert [p.name for p in m.members] == ["bold", "cautious", "hold7"]
    assert m.members[2].hold_at == 7               # relative to the mixture's folder
    assert m.weights == pytest.approx((0.2, 0.3, 0.5))
    assert pig.resolve_baseline(m, 2) is m
    assert pig.check_policies(pig.load_card_set("d6"), [m]) == [m]


def test_draws_follow_the_weights(room, pig):
    m = pig.get_policy(room(a=0.2, b=0.3, c=0.5))
    d = MX.draws(m, seed=3, games=range(6000))
    counts = np.bincount(d, minlength=3)
    assert stats.chisquare(counts, 6000 * np.array([0.2, 0.3, 0.5])).pvalue > 1e-3
    # a wrong weight is detected: the same draws are far from (0.5, 0.3, 0.2)
    assert stats.chisquare(counts, 6000 * np.array([0.5, 0.3, 0.2])).pvalue < 1e-6
    zero = pig.get_policy(room(a=0, b=1, c=1, name="zero.toml"))
    assert 0 not in set(MX.draws(zero, 3, range(2000)))        # weight 0: never drawn


def test_seat_draws_are_per_player_and_deal_draws_shared(room, pig):
    deal = pig.get_policy(room(draw="deal"))
    seat = pig.get_policy(room(draw="seat", name="seat.toml"))
    a = MX.assignments([deal, deal, deal], 1, range(400))
    assert (a == a[:, :1]).all()                                # one member per deal
    b = MX.assignments([seat, seat, seat], 1, range(400))
    assert (b != b[:, :1]).any(axis=1).mean() > 0.3             # seats differ
    for j in range(3):                                          # each seat follows the weights
        c = np.bincount(b[:, j], minlength=3)
        assert stats.chisquare(c, 400 * np.array([0.2, 0.3, 0.5])).pvalue > 1e-3


def test_a_draw_depends_on_the_game_index_only(room, pig):
    m = pig.get_policy(room())
    whole = MX.draws(m, 5, range(50))
    assert (np.concatenate([MX.draws(m, 5, range(0, 17)), MX.draws(m, 5, range(17, 50))])
            == whole).all()
    assert (MX.draws(m, 5, [33, 2]) == whole[[33, 2]]).all()
    assert (MX.draws(m, 6, range(50)) != whole).any()           # another seed, other draws


def test_the_runner_plays_the_drawn_members_whatever_the_chunking(room, pig):
    m = pig.get_policy(room())
    cfg = runner.RunConfig(card_set="d6", players=3, seed=4, games=60,
                           policies=("bold", m, m), engine="reference", game="pig")
    whole = runner.run(cfg, chunk_size=60, progress=False)
    for size in (1, 7, 25):
        pd.testing.assert_frame_equal(runner.run(cfg, chunk_size=size, progress=False), whole)
    assert set(whole["policy"]) == {"bold", "room"}             # the field is named
    cs = pig.load_card_set("d6")
    for i in (0, 13, 59):                                       # game i: its drawn line-up
        lineup = MX.lineup_for_game([pig.get_policy("bold"), m, m], 4, i)
        rec = pig.play_reference(cs, 3, 4, i, lineup, pig.rules_class())
        got = whole[whole["game"] == i]
        assert list(got["score"]) == [r.score for r in rec.results]
    # the draws matter: the members' hold thresholds give different games than any one
    drawn = {MX.draws(m, 4, [i])[0] for i in range(60)}
    assert drawn == {0, 1, 2}


def test_a_pure_mixture_plays_exactly_its_members_games(tmp_path, pig):
    pure = pig.get_policy(write(tmp_path / "pure.toml", 'kind = "mixture"\nname = "solo"\n'
                                '[[member]]\npolicy = "bold"\nweight = 1\n'
                                '[[member]]\npolicy = "cautious"\nweight = 0\n'))
    kw = dict(card_set="d6", players=2, seed=9, games=40, engine="reference", game="pig")
    mixed = runner.run(runner.RunConfig(policies=("cautious", pure), **kw), progress=False)
    plain = runner.run(runner.RunConfig(policies=("cautious", "bold"), **kw), progress=False)
    assert (mixed["policy"][mixed["player"] == 1] == "solo").all()
    pd.testing.assert_frame_equal(mixed.drop(columns="policy"), plain.drop(columns="policy"))


def test_a_tournament_takes_a_mixture_as_baseline(room, pig):
    from vale_sim.tournament import tournament
    t = tournament(["bold", "cautious"], players=2, games=40, seed=2, engine="reference",
                   game="pig", baseline=room())
    assert t.config["baseline"] == "room" and set(t.ranking["name"]) == {"room", "bold", "cautious"}
    assert t.frame["policy"].isin(["bold", "cautious", "room"]).all()


def test_a_focal_mixture_draws_apart_from_the_field_and_its_arms_pair(room, pig):
    from vale_sim.advancements import _arms, strength_run
    m = pig.get_policy(room())
    f = MX.as_focal(m)
    assert (MX.draws(f, 0, range(300)) != MX.draws(m, 0, range(300))).mean() > 0.3
    prefer, ban = _arms(pig, "hold-12", m)
    assert prefer.name == "room:prefer:hold-12" and [p.hold_at for p in prefer.members] == [12] * 3
    assert (MX.draws(prefer, 0, range(100)) == MX.draws(m, 0, range(100))).all()
    run = strength_run("d6", games=40, players=2, seed=1, baseline=m, engine="reference",
                       game="pig")
    pre, _ = run.arms["hold-12"]
    assert pre.shape == (2, 20) and run.got["hold-12"].mean() == 1.0   # prefer arm named


BAD = [
    ('kind = "mixture"\n', "needs [[member]] tables"),
    ('kind = "mixture"\n[[member]]\npolicy = "bold"\nweight = -1\n', "weight must be a number >= 0"),
    ('kind = "mixture"\n[[member]]\npolicy = "bold"\nweight = 0\n', "every weight is 0"),
    ('kind = "mixture"\n[[member]]\npolicy = "nobody"\nweight = 1\n', "member 1: unknown policy"),
    ('kind = "mixture"\n[[member]]\npolicy = "bold"\nweight = 1\nshare = 2\n',
     "unknown field 'share'"),
    ('kind = "mixture"\ndraw = "game"\n[[member]]\npolicy = "bold"\nweight = 1\n',
     "field 'draw' must be one of deal, seat"),
    ('kind = "mixture"\nweights = [1]\n', "unknown field 'weights'"),
    ('kind = "mixture"\n[[member]]\npolicy = "bad.toml"\nweight = 1\n', "cannot contain itself"),
    ('kind = "mixture"\n[[member]]\npolicy = "inner.toml"\nweight = 1\n', "is a mixture"),
]


@pytest.mark.parametrize("text,words", BAD)
def test_a_bad_mixture_file_is_one_line_and_exit_2(tmp_path, pig, capsys, text, words):
    write(tmp_path / "inner.toml", 'kind = "mixture"\n[[member]]\npolicy = "bold"\nweight = 1\n')
    bad = write(tmp_path / "bad.toml", text)
    with pytest.raises(MX.MixtureError, match=words.replace("[", r"\[").replace("]", r"\]")):
        pig.get_policy(bad)
    rc = main(["tournament", "--game", "pig", "--policies", "bold,cautious", "--baseline", bad,
               "--games", "4", "--engine", "reference"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "bad.toml" in err and words.split("'")[0] in err


def test_the_cli_plays_a_mixture_baseline(room, pig, capsys):
    rc = main(["tournament", "--game", "pig", "--policies", "bold,cautious",
               "--baseline", room(), "--games", "8", "--engine", "reference"])
    assert rc == 0 and "room" in capsys.readouterr().out


def test_mixture_objects_check_their_fields():
    with pytest.raises(MX.MixtureError, match="weights must be >= 0 and sum to 1"):
        MX.Mixture("m", (object(),), (0.5,))
    with pytest.raises(MX.MixtureError, match="a member cannot be a mixture"):
        inner = MX.mixture("i", [dataclasses.make_dataclass("P", ["name"], frozen=True)("x")], [1])
        MX.mixture("m", [inner], [1])
    with pytest.raises(MX.MixtureError, match="at least one member with a weight > 0"):
        MX.mixture("m", [], [])


def test_play_shows_the_drawn_member(room, pig, capsys):
    m = pig.get_policy(room())
    seen = set()
    for i in range(6):
        rc = main(["play", "--game", "pig", "--policy", "bold", "--policy", room(),
                   "--seed", "5", "--game-index", str(i)])
        out = capsys.readouterr().out
        drawn = m.members[MX.draws(m, 5, [i])[0]].name
        others = {p.name for p in m.members} - {drawn, "bold"}
        assert rc == 0 and f" {drawn} " in out and not any(f" {o} " in out for o in others)
        seen.add(drawn)
    assert len(seen) > 1


def test_meta_leaves_a_bundled_mixture_out_of_its_population(room, pig, monkeypatch):
    from vale_sim.metagame import default_population
    monkeypatch.setitem(pig_game.PRESETS, "room", pig.get_policy(room()))
    g = dataclasses.replace(pig, presets=pig.presets + ("room",))
    assert MX.is_mixture(g.resolve_baseline("room", 2))
    assert [p.name for p in default_population(g, 2)] == list(pig.presets)


def test_the_observational_run_refuses_a_mixture_in_one_line(tmp_path, capsys):
    mix = write(tmp_path / "mv.toml", 'kind = "mixture"\n[[member]]\npolicy = "greedy"\n'
                'weight = 1\n[[member]]\npolicy = "cautious"\nweight = 1\n')
    rc = main(["advancements", "--baseline", mix, "--games", "4", "--cards",
               "Model L1 Sprout E"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "--only strength" in err


def test_optimize_refuses_a_mixture_as_its_start(room, pig, capsys):
    rc = main(["optimize", "--game", "pig", "--start", room(), "--players", "2",
               "--budget", "20"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "mixed field" in err


def test_the_strategy_guide_refuses_a_mixture_in_one_line(tmp_path, capsys):
    mix = write(tmp_path / "mv.toml", 'kind = "mixture"\n[[member]]\npolicy = "greedy"\n'
                'weight = 1\n[[member]]\npolicy = "cautious"\nweight = 1\n')
    for opt in ("--policy", "--baseline"):
        rc = main(["strategy", opt, mix, "--players", "2", "--games", "2", "--deals", "2"])
        err = capsys.readouterr().err.strip()
        assert rc == 2 and len(err.splitlines()) == 1 and "not a mixed field" in err, err
