"""The Mystic Lands search player (docs/search.md; issue 28).

* differential: the fast and the reference engine play the same game with search
  players, for the same seed and K (small K, games ending at 12 VP);
* information: a decision (the option and every option's rollout total) does not change
  when what no player sees -- every deck below its on-deck card, the Advance decks, the
  Vales of the face-down spaces, the game's future draws -- is permuted with the visible
  state fixed; it does change with the visible state;
* the policy names and files that make a search player, and their one-line errors.
"""
from __future__ import annotations

import numpy as np
import pytest

from vale_sim.games.mystic_lands import cards as C
from vale_sim.games.mystic_lands.policy import (PolicyError, SearchPolicy, get_policy,
                                                policies_for, rollout_policy)
from vale_sim.games.mystic_lands.rules import Rules

from engine_diff import first_difference

pytestmark = pytest.mark.compiled
CS = C.load_card_set(C.DEFAULT_SET)
SHORT = Rules(end_vp=12)


# ---------------------------------------------------------------------------
# Differential: both engines play the same search game
# ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("players,lineup,seed,game", [
    (2, ["search:k=2:rollout=meta-2p", "meta-2p"], 1, 0),
    (2, ["balanced", "search:k=3:rollout=balanced:opponents=greedy:halving=1"], 3, 1),
    (2, ["search:k=2:rollout=meta-2p:decide=vale+advancement", "vale-rush"], 5, 2),
    (3, ["search:k=2:rollout=balanced:halving=1", "meta-3p", "rain-dancer"], 11, 0),
])
def test_engines_play_the_same_search_game(players, lineup, seed, game):
    from vale_sim.games.mystic_lands.fast import api
    from vale_sim.games.mystic_lands.fast.api import play_game_fast
    from vale_sim.games.mystic_lands.reference.search import play_reference
    fast = play_game_fast(CS, players, seed, game, lineup, SHORT)
    assert api.LAST_STATS["decisions"] > 0
    ref = play_reference(CS, players, seed, game, lineup, SHORT, log=False)
    assert first_difference(ref, fast) is None
    # the search changed the game: the same seats with the rollout policy play otherwise
    plain = [rollout_policy(p) if isinstance(p, SearchPolicy) else p
             for p in policies_for(players, lineup)]
    assert first_difference(play_game_fast(CS, players, seed, game, plain, SHORT), fast) is not None


@pytest.mark.parametrize("players,lineup", [
    (2, ["meta-2p", "vale-rush"]), (3, ["meta-3p", "rain-dancer", "greedy"]),
    (4, ["meta-4p", "spirit", "vp", "cautious"])])
def test_the_search_game_loops_play_the_plain_game_without_searchers(players, lineup):
    """play_games_search with no search seat is engine.play_games, and SearchGame with
    no search player the reference game: their loops (the end after the turn of the
    player before the one who triggered it, the round cap) are the engines'."""
    from vale_sim.games.mystic_lands.fast import engine as E, search as F, state as L
    from vale_sim.games.mystic_lands.fast.tables import (MAX_SPACE, O_NADV, O_NVALE, OPTS,
                                                         game_tables)
    from vale_sim.games.mystic_lands.reference.game import MysticLandsGame
    from vale_sim.games.mystic_lands.reference.search import SearchGame
    P, n = players, 60
    for rules in (Rules(), Rules(max_rounds=6)):
        T = game_tables(CS, P, rules, policies_for(P, lineup))
        na, nv = int(T[OPTS, O_NADV]), int(T[OPTS, O_NVALE])

        def outputs(g):
            return (np.zeros((g, P, L.RS_N), np.int64), np.zeros((g, P)),
                    np.zeros((g, L.GO_N), np.int64), np.zeros((g, P, na), np.int64),
                    np.zeros((g, P, nv), np.int64), np.zeros((g, P, MAX_SPACE), np.int64))
        X = np.zeros((2, L.RC_N), np.int64)
        plain, search = outputs(n), outputs(n)
        E.play_games(T, L.new_state(T), X, np.uint64(5), np.uint64(0), n, 0, 1, *plain)
        F.play_games_search(T, L.new_state(T), L.new_state(T), np.stack([T] * P),
                            np.zeros((P, F.X_N), np.int64),
                            np.zeros((F.max_options(T), F.W_N), np.int64), X, np.uint64(5),
                            np.uint64(0), n, 0, 1, *search, *outputs(1),
                            np.zeros(1, np.int64))
        assert all(np.array_equal(a, b) for a, b in zip(plain, search))
        assert plain[2][:, 2].any() == (rules.max_rounds == 6)      # truncated games
        for g in range(3):
            a = MysticLandsGame(CS, P, 5, g, lineup, rules, log=True).play()
            b = SearchGame(CS, P, 5, g, lineup, rules, log=True).play()
            assert first_difference(a, b) is None and a.log == b.log


def test_a_search_run_gives_the_games_frame():
    """run_fast with a search player: the results frame of the game (the same columns
    as a plain run), one win share per game."""
    from vale_sim.games.mystic_lands.fast import api
    df = api.run_fast(CS, 2, 4, 3, ["search:k=2:rollout=meta-2p", "meta-2p"], SHORT)
    assert list(df["policy"].unique()) == ["search:k=2:rollout=meta-2p", "meta-2p"]
    assert df.groupby("game")["win_share"].sum().round(6).eq(1).all()
    assert api.LAST_STATS["decisions"] > 0
    plain = api.run_fast(CS, 2, 4, 3, ["meta-2p", "meta-2p"], SHORT)
    assert list(df.columns) == list(plain.columns)


# ---------------------------------------------------------------------------
# Information: what no player sees does not move a decision
# ---------------------------------------------------------------------------
def _tables(players, seat):
    from vale_sim.games.mystic_lands.fast import api
    from vale_sim.games.mystic_lands.fast.tables import game_tables
    pols = policies_for(players, ["meta-2p"] * players)
    pols[seat] = get_policy("search:k=6:rollout=meta-2p:halving=1")
    T = game_tables(CS, players, Rules(), pols)
    XS, TR = api.search_tables(CS, players, Rules(), pols)
    return T, XS, TR


def _state_at(players, seed, game, turns, seat, phase):
    from vale_sim.games.mystic_lands.fast import engine as E, search as F
    from vale_sim.games.mystic_lands.fast import state as L
    from vale_sim.rng import game_key
    T, XS, TR = _tables(players, seat)
    S = L.new_state(T)
    X = np.zeros((8, L.RC_N), np.int64)
    E.base_cards(T, S)
    # the game's stream (kernels.rng.rng_init), set here: that kernel is shared with
    # Mystic Vale's engine, whose module a later unmarked test may import
    S[L.RNG, 0:2].view(np.uint64)[:] = (game_key(seed, game), 0)
    E.setup(T, S)
    k = 0
    while True:                                   # plain turns until the search seat's
        S[L.G, L.G_ROUND] = k // players + 1
        i = (S[L.G, L.G_START] + k) % players
        if k >= turns and i == seat:
            break
        E.turn(T, S, X, i)
        k += 1
    W = np.zeros((F.max_options(T), F.W_N), np.int64)
    p = seat
    E.turn_begin(S, p)
    E.night_begin(T, S, p)
    while E.night_grow(T, S, p, 1) == 1:
        if phase == F.PH_PUSH:
            return T, TR, S, X, W, F.grow_options(T, S, p, W)
        F.grow_options(T, S, p, W)
        if W[0, F.W_A] == 0:
            E.night_rest(T, S, p)
            break
    if phase == F.PH_PUSH:
        return None
    E.day_gains(T, S, X, p)
    if phase == F.PH_VALE:
        n = F.enchant_options(T, S, p, W)
        return (T, TR, S, X, W, n) if n > 1 else None
    E.enchant_steps(T, S, X, p)
    E.day_tracks(T, S, X, p)
    n = F.buy_options(T, S, p, W)
    return (T, TR, S, X, W, n) if n > 1 else None


def _decision(T, TR, S, X, W, n, p, phase):
    """(option, options, totals) of the decision from a copy of S."""
    from vale_sim.games.mystic_lands.fast import search as F
    from vale_sim.games.mystic_lands.fast import state as L
    from vale_sim.games.mystic_lands.fast.tables import MAX_SPACE, O_NADV, O_NVALE, OPTS
    S = S.copy()
    W = W.copy()
    D = L.new_state(T)
    P = len(TR)
    na, nv = int(T[OPTS, O_NADV]), int(T[OPTS, O_NVALE])
    o = F.decide(T, S, D, TR[p], W, X, np.zeros((1, P, L.RS_N), np.int64),
                 np.zeros((1, P), np.float64), np.zeros((1, L.GO_N), np.int64),
                 np.zeros((1, P, na), np.int64), np.zeros((1, P, nv), np.int64),
                 np.zeros((1, P, MAX_SPACE), np.int64), p, phase, n, 6, 1, 5)
    return int(o), W[:n, :F.W_C + 1].tolist(), W[:n, F.W_TOTAL].tolist()


def _hidden_druids(T, S, seat):
    """The opponents of `seat` whose Druid card it never saw (engine.druid_hidden)."""
    from vale_sim.games.mystic_lands.fast import engine as E
    from vale_sim.games.mystic_lands.fast.tables import O_PLAYERS, OPTS
    return [q for q in range(int(T[OPTS, O_PLAYERS])) if q != seat and E.druid_hidden(T, S, q)]


def _redeal_druids(T, S, rng, seat):
    """Each hidden Druid Advance of seat's opponents replaced by another one seat has not
    seen (not dealt to it at setup, not a seen opponent's), on the Druid card and as
    PM_DRUID; at least one changes when the pool allows."""
    from vale_sim.games.mystic_lands.fast import engine as E
    from vale_sim.games.mystic_lands.fast import state as L
    from vale_sim.games.mystic_lands.fast.tables import (A_POS, ADV, LIST, O_DRUID_BASE,
                                                         O_DRUID_DEAL, O_LEN, O_NCARDS,
                                                         O_PLAYERS, OPTS, UID)
    hidden = _hidden_druids(T, S, seat)
    if not hidden:
        return
    pool = [int(a) for a in T[LIST, :T[OPTS, O_LEN]]]
    deal = int(T[OPTS, O_DRUID_DEAL])
    k = int(S[seat, L.PM_SEAT])                   # the Druid hands: row DK, seat order
    for a in S[L.DK, deal * k:deal * (k + 1)]:
        pool.remove(int(a))
    for q in range(int(T[OPTS, O_PLAYERS])):
        if q != seat and q not in hidden:
            pool.remove(int(S[q, L.PM_DRUID]))
    old = [int(S[q, L.PM_DRUID]) for q in hidden]
    new = [int(a) for a in rng.permutation(pool)[:len(hidden)]]
    if new == old and len(set(pool)) > 1:
        new = [next(a for a in pool if a != old[0])] + new[1:]
    for q, a in zip(hidden, new):
        for u in range(int(T[OPTS, O_NCARDS])):
            if T[UID, u] == T[OPTS, O_DRUID_BASE]:
                S[q, L.CARD + L.CW * u + T[ADV + S[q, L.PM_DRUID], A_POS]] = -1
                S[q, L.CARD + L.CW * u + T[ADV + a, A_POS]] = a
                E.refresh_card(T, S, q, u)
        S[q, L.PM_DRUID] = a


def _permute_hidden(T, S, rng, seat):
    """Every deck below its on-deck card, the Advance decks, the Vales of the face-down
    spaces (with those left out of the game), the game's future draws, and the Druid
    Advances of seat's opponents whose Druid card it never saw."""
    from vale_sim.games.mystic_lands.fast import engine as E, search as F
    from vale_sim.games.mystic_lands.fast import state as L
    from vale_sim.games.mystic_lands.fast.tables import (LIST, O_LEN, O_NSPACE, O_PLAYERS,
                                                         OPTS, SP_I, SP_II, SP_KIND, SPACE)
    S = S.copy()
    for p in range(int(T[OPTS, O_PLAYERS])):
        seg = S[p, L.DECK + S[p, L.DHEAD] + 1:L.DECK + S[p, L.DN]]
        seg[:] = rng.permutation(seg)
    for lv in (1, 2):
        seg = S[L.DK + lv, S[L.G, L.G_AH + lv]:S[L.G, L.G_AN + lv]]
        seg[:] = rng.permutation(seg)
    shown = int(F.revealed_spaces(T, S))
    for lv, kind in ((0, SP_I), (1, SP_II)):
        pool = list(T[LIST + 3 + lv, :T[OPTS, O_LEN + 3 + lv]])
        hidden = []
        for s in range(int(T[OPTS, O_NSPACE])):
            if T[SPACE + s, SP_KIND] == kind:
                if (shown >> s) & 1:
                    pool.remove(S[L.G, L.G_LAYOUT + s])
                else:
                    hidden.append(s)
        pool = rng.permutation(pool)
        for j, s in enumerate(hidden):
            S[L.G, L.G_LAYOUT + s] = pool[j]
    E.spot_rows(T, S)
    S[L.RNG, 1] += int(rng.integers(1, 1000))          # the game's own future draws
    _redeal_druids(T, S, rng, seat)
    return S


# (2, 4, 3, 9, 1) was (2, 4, 3, 11, 1) until the set's estimates were refit: in the refit
# set that turn's Night is lost in every rollout with or without the control's +10 VP.
# The last three: an opponent's Druid card was never seen (issue 41.9).
@pytest.mark.parametrize("players,seed,game,turns,seat,druid_hidden", [
    (2, 1, 0, 6, 0, False), (2, 4, 3, 9, 1, False), (3, 2, 1, 9, 2, False),
    (2, 1, 0, 2, 0, True), (2, 5, 0, 3, 1, True), (3, 2, 0, 1, 0, True)])
def test_decisions_ignore_hidden_information(players, seed, game, turns, seat,
                                             druid_hidden):
    from vale_sim.games.mystic_lands.fast import search as F
    from vale_sim.games.mystic_lands.fast import state as L
    rng = np.random.default_rng(seed)
    seen = 0
    for phase in (F.PH_PUSH, F.PH_VALE, F.PH_ADV):
        at = _state_at(players, seed, game, turns, seat, phase)
        if at is None:
            continue
        T, TR, S, X, W, n = at
        assert bool(_hidden_druids(T, S, seat)) == druid_hidden
        base = _decision(T, TR, S, X, W, n, seat, phase)
        seen += 1
        for _ in range(2):
            S2 = _permute_hidden(T, S, rng, seat)
            assert _decision(T, TR, S2, X, W, n, seat, phase) == base
        # the control: a change of what the player sees (its VP) is seen
        S2 = S.copy()
        S2[seat, L.PM_VP] += 10
        assert _decision(T, TR, S2, X, W, n, seat, phase)[2] != base[2]
    assert seen >= 2


# ---------------------------------------------------------------------------
# Naming a search player
# ---------------------------------------------------------------------------
def test_search_names_and_files(tmp_path):
    pol = get_policy("search:k=8:rollout=greedy:halving=1")
    assert isinstance(pol, SearchPolicy)
    assert (pol.search_k, pol.search_halving, pol.search_opponents) == (8, True, None)
    assert pol.rest_risk_permille == get_policy("greedy").rest_risk_permille
    assert pol.name == "search:k=8:rollout=greedy:halving=1"
    default = get_policy("search")
    assert default.search_k == 64 and default.w_mana == get_policy("balanced").w_mana
    assert default.search_decides == ("push", "vale", "advancement")
    meta = get_policy("search:k=4:rollout=meta-2p:decide=advancement+push")
    assert meta.rules == get_policy("meta-2p").rules
    assert meta.search_decides == ("push", "advancement")
    f = tmp_path / "deep.toml"
    f.write_text('kind = "search"\nk = 16\nrollout = "meta-2p"\nopponents = "balanced"\n')
    pol = get_policy(str(f))
    assert (pol.name, pol.search_k, pol.search_opponents.name) == ("deep", 16, "balanced")
    assert policies_for(2, ["search:k=4", "balanced"])[0].search_k == 4


@pytest.mark.parametrize("spec,words", [
    ("search:k=0", "k must be a whole number"), ("search:depth=3", "unknown key 'depth'"),
    ("search:rollout=search", "cannot itself be a search"),
    ("search:rollout=optimized-2p", "unknown policy 'optimized-2p'"),
    ("search:decide=buy", "decide must be some of push+vale+advancement, got 'buy'")])
def test_bad_search_names_are_one_line(spec, words):
    with pytest.raises(PolicyError) as e:
        get_policy(spec)
    assert words in str(e.value) and "\n" not in str(e.value)


# ---------------------------------------------------------------------------
# vale-sim bench --search
# ---------------------------------------------------------------------------
def test_bench_search_reports_decisions_and_games_per_second(capsys):
    import json

    from vale_sim.cli import main
    assert main(["bench", "--game", "mystic-lands", "--search", "--search-k", "1,2",
                 "--games", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rollout"] == "meta-2p" and [r["k"] for r in out["runs"]] == [1, 2]
    for r in out["runs"]:
        assert r["games"] == 1 and r["decisions"] > 0
        assert r["games_per_s"] > 0 and r["decisions_per_s"] > 0


@pytest.mark.parametrize("argv,words", [
    (["--search-k", "0"], "--search-k: give whole numbers"),
    (["--search-rollout", "optimized-2p"], "--search-rollout: unknown policy 'optimized-2p'")])
def test_bench_search_bad_input_is_one_line(capsys, argv, words):
    from vale_sim.cli import main
    assert main(["bench", "--game", "mystic-lands", "--search"] + argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_the_strategy_guide_observes_the_search_players_game():
    """strategy.observe_game with a search player records the search's own game (the
    search game of both engines), not its rollout policy's."""
    from vale_sim.games.mystic_lands.fast.api import play_game_fast
    from vale_sim.games.mystic_lands.strategy import observe_game
    TINY = Rules(end_vp=6)
    lineup = ["search:k=1:rollout=meta-2p:decide=push", "meta-2p"]
    decisions, buys, rec = observe_game(CS, 2, 0, 0, lineup, TINY)
    assert first_difference(rec, play_game_fast(CS, 2, 0, 0, lineup, TINY)) is None
    assert any(d["player"] == 0 for d in decisions)
    plain = [rollout_policy(get_policy(lineup[0])), "meta-2p"]
    assert first_difference(observe_game(CS, 2, 0, 0, plain, TINY)[2], rec) is not None
