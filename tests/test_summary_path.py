"""The studies' summary path (outcome arrays straight from the kernels, no per-game
frame: vale_sim.games.base.Outcomes, runner.run_outcomes) gives the numbers of the
frame path, on random configurations of both games (issue 42, item 1).

Each property plays the same games both ways and asks for equality, bit for bit: the
arrays, the runner's integer summaries, the focal win shares of every study built on
``tournament.focal_shares``, the card-strength run (what-if, balance) and what-if's
game measures."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vale_sim import runner
from vale_sim.games import get_game
from vale_sim.games.base import Outcomes
from vale_sim.mixture import mixture

pytestmark = pytest.mark.compiled

GAMES = ("mystic-vale", "mystic-lands")


def _assert_same(a: Outcomes, b: Outcomes) -> None:
    assert a.first_game == b.first_game and a.policies == b.policies
    for k in ("share", "score", "seat", "event", "rounds", "truncated"):
        x, y = getattr(a, k), getattr(b, k)
        assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), k
    assert list(a.counts) == list(b.counts)
    for c in a.counts:
        assert np.array_equal(a.counts[c], b.counts[c]), c


@st.composite
def configs(draw, game):
    g = get_game(game)
    players = draw(st.sampled_from(tuple(g.players)))
    presets = [p for p in g.presets if not p.startswith(("value", "search"))] or list(g.presets)
    one = st.sampled_from(presets)
    pols = draw(st.lists(one, min_size=players, max_size=players))
    if draw(st.booleans()):                 # a mixed field in one seat
        members = draw(st.lists(one, min_size=2, max_size=3, unique=True))
        ws = draw(st.lists(st.integers(1, 4), min_size=len(members), max_size=len(members)))
        mix = mixture("room", [g.get_policy(m) for m in members], ws,
                      draw=draw(st.sampled_from(("deal", "seat"))))
        pols[draw(st.integers(0, players - 1))] = mix
    return dict(game=g.name, card_set=g.default_card_set, players=players,
                seed=draw(st.integers(0, 2**64 - 1)), policies=tuple(pols),
                first=draw(st.integers(0, 10**6)), n=draw(st.integers(1, 12)))


@pytest.mark.parametrize("game", GAMES)
def test_outcomes_and_summaries_equal_the_frame_path(game):
    @settings(max_examples=25)
    @given(configs(game))
    def check(c):
        cfg = runner.RunConfig(card_set=c["card_set"], players=c["players"], seed=c["seed"],
                               games=c["first"] + c["n"], policies=c["policies"],
                               game=c["game"]).resolved()
        g = cfg.game_obj()
        df = runner.run_chunk(cfg, c["first"], c["n"])
        o = runner.outcomes_chunk(cfg, c["first"], c["n"])
        _assert_same(o, Outcomes.from_frame(df, g.event_column, c["players"]))
        a = runner.chunk_summary(df, g.event_column)
        b = runner.outcomes_summary(o)
        pd.testing.assert_frame_equal(a, b)
        event = g.event_column
        ta = runner.summary_table(runner.add_summaries(None, a), event=event)
        tb = runner.summary_table(runner.add_summaries(None, b), event=event)
        pd.testing.assert_frame_equal(ta, tb)
    check()


def _framed(*a, **k):
    """play_frame behind a function of our own: no summary path, so the studies read
    its frames (the path before the outcome arrays)."""
    from vale_sim.tournament import play_frame
    return play_frame(*a, **k)


@pytest.mark.parametrize("game", GAMES)
def test_focal_shares_strength_runs_and_game_measures_equal_the_frame_path(game):
    from vale_sim.advancements import strength_run
    from vale_sim.tournament import focal_outcomes, focal_shares, outcomes_player, play_frame
    from vale_sim.whatif import _per_deal
    g = get_game(game)
    assert outcomes_player(_framed, game) is None and outcomes_player(None, game) is not None
    cs = g.load_card_set(g.default_card_set)
    cards = [c[0] for c in g.strength_cards(cs)]
    presets = [p for p in g.presets if not p.startswith(("value", "search"))]

    @settings(max_examples=8)
    @given(players=st.sampled_from(tuple(g.players)), seed=st.integers(0, 2**32),
           deals=st.integers(2, 6), base=st.sampled_from(presets),
           focal=st.sampled_from(presets), picked=st.lists(st.sampled_from(cards), min_size=1,
                                                             max_size=2, unique=True))
    def check(players, seed, deals, base, focal, picked):
        s0, f0 = focal_shares(cs, players, seed, deals, focal, base, game=game)
        s1, none = focal_shares(cs, players, seed, deals, focal, base, game=game, frames=False)
        s2, outs = focal_outcomes(cs, players, seed, deals, focal, base, game=game)
        assert none is None and np.array_equal(s0, s1) and np.array_equal(s0, s2)
        assert len(f0) == players * deals and len(outs) == players
        r0 = strength_run(cs, deals * players, players, seed, base, picked, play=_framed,
                          game=game)
        r1 = strength_run(cs, deals * players, players, seed, base, picked, game=game)
        assert np.array_equal(r0.natural, r1.natural) and list(r0.arms) == list(r1.arms)
        for name in r0.arms:
            for x, y in zip(r0.arms[name], r1.arms[name]):
                assert np.array_equal(x, y)
            assert np.array_equal(r0.got[name], r1.got[name])
            assert np.array_equal(r0.got_natural[name], r1.got_natural[name])
        nat = play_frame(cs, players, seed, deals, [base], game=game)
        nat_o = outcomes_player(None, game)(cs, players, seed, deals, [base])
        a, b = _per_deal(nat, players, g.event_column), _per_deal(nat_o, players, g.event_column)
        assert list(a) == list(b) and all(np.array_equal(a[m], b[m]) for m in a)
    check()


def test_a_store_keeps_a_runs_outcomes_and_reads_them_back(tmp_path):
    from vale_sim.store import ChunkStore
    g = get_game("mystic-vale")
    store = ChunkStore(tmp_path / "runs")
    a = store.play_outcomes("core", 2, 3, 5, ["balanced"])
    assert (store.played, store.reused) == (1, 0)
    b = store.play_outcomes("core", 2, 3, 5, ["balanced"])
    assert (store.played, store.reused) == (1, 1)
    _assert_same(a, b)
    cfg = runner.RunConfig(card_set="core", players=2, seed=3, games=5)
    _assert_same(a, Outcomes.from_frame(runner.run(cfg, progress=False), g.event_column, 2))


def test_a_run_in_this_process_is_one_chunk_and_its_memory_check_asks_nothing(monkeypatch):
    calls = []
    monkeypatch.setattr(runner, "available_memory", lambda: calls.append(1) or 10**12)
    chunks = []
    cfg = runner.RunConfig(card_set="core", players=2, seed=1, games=30)
    o = runner.run_outcomes(cfg, on_chunk=lambda f, n: chunks.append((f, n)))
    assert chunks == [(0, 30)] and o.n == 30 and calls == []


@pytest.mark.parametrize("game", GAMES)
def test_the_tables_kept_between_runs_are_never_written(game):
    """The fast engines keep their card and policy tables between runs (a study plays
    many short ones): after games with every preset, each kept table still equals
    one built afresh."""
    import importlib
    g = get_game(game)
    api = importlib.import_module(g.package + ".fast.api")
    tables = importlib.import_module(g.package + ".fast.tables")
    cs = g.load_card_set(g.default_card_set)
    presets = [p for p in g.presets if not p.startswith("search")]
    for p in presets:
        runner.run_outcomes(runner.RunConfig(card_set=cs, players=3, seed=4, games=6,
                                             policies=(p, presets[0], p), game=g.name))
    assert api._TABLES and api._CARD_TABLES
    for key, (kept_cs, t) in api._CARD_TABLES.items():
        assert np.array_equal(t, tables.card_tables(kept_cs, key[2], key[3]))
    for key, (kept_cs, t) in api._TABLES.items():
        if game == "mystic-vale":
            fresh = tables.policy_tables(kept_cs, list(key[2]))
        else:
            fresh = tables.game_tables(kept_cs, key[2], key[3], list(key[4]))
        assert np.array_equal(t, fresh), key[0]


def test_outcomes_from_a_pool_of_workers_equal_one_chunk_in_this_process():
    cfg = runner.RunConfig(card_set="core", players=2, seed=3, games=120)
    _assert_same(runner.run_outcomes(cfg), runner.run_outcomes(cfg, workers=2, chunk_size=25))
