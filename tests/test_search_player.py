"""The search player (docs/search.md; issue 28).

* the shared decision procedure: the schedule of rollouts (K each, successive halving),
  the choice and its ties; the numba twin (vale_sim.kernels.search) agrees with the
  Python one (vale_sim.search);
* differential: the fast and the reference engine play the same game with search
  players, for the same seed and K (small K, small VP pool);
* information: a decision (the option and every option's rollout total) does not change
  when what no player sees -- every deck's order, the supply decks, the game's future
  draws -- is permuted with the visible state fixed; it does change with the visible state;
* the policy names and files that make a search player, and their one-line errors.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from vale_sim import search as S_
from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.policy import (PolicyError, SearchPolicy, get_policy,
                                               policies_for)
from vale_sim.games.mystic_vale.rules import Rules

from engine_diff import first_difference

pytestmark = pytest.mark.compiled
CS = load_card_set("core")


# ---------------------------------------------------------------------------
# The decision procedure
# ---------------------------------------------------------------------------
def _calls(n, k, halving, value_of):
    calls = {}

    def value(o, i):
        calls.setdefault(o, []).append(i)
        return value_of(o, i)
    best, total = S_.decide(n, k, halving, value)
    return best, total, calls


def test_decide_gives_every_option_k_rollouts_without_halving():
    best, total, calls = _calls(4, 5, False, lambda o, i: 12 if (o == 2 and i % 2) else 0)
    assert {o: c for o, c in calls.items()} == {o: list(range(5)) for o in range(4)}
    assert best == 2 and total == [0, 0, 24, 0]


def test_decide_halves_and_breaks_ties_to_the_lower_index():
    # 5 options, K = 8: 3 rounds, rollouts 0-1 for all, 2-3 for the best 3, 4-7 for the best 2
    value = {0: 0, 1: 6, 2: 6, 3: 12, 4: 3}
    best, total, calls = _calls(5, 8, True, lambda o, i: value[o])
    assert [len(calls[o]) for o in range(5)] == [2, 8, 4, 8, 2]
    assert calls[1] == list(range(8)) and calls[2] == [0, 1, 2, 3]
    assert best == 3
    # all equal: the first option (the rollout policy's own choice) wins
    assert S_.decide(3, 4, False, lambda o, i: 12)[0] == 0
    assert S_.decide(3, 4, True, lambda o, i: 12)[0] == 0


def test_kernel_schedule_matches_the_python_one():
    from vale_sim.kernels import search as K_
    rnd = random.Random(5)
    for _ in range(200):
        n = rnd.randint(1, 12)
        total = np.array([rnd.randint(0, 5) for _ in range(n)], np.int64)
        alive = np.arange(n, dtype=np.int64)
        m = K_.keep_best(total, alive, n)
        keep = sorted(sorted(range(n), key=lambda o: (-total[o], o))[:(n + 1) // 2])
        assert list(alive[:m]) == keep
        assert K_.best_alive(total, np.arange(n, dtype=np.int64), n) == min(
            range(n), key=lambda o: (-total[o], o))
        for hv in (0, 1):
            r = K_.n_rounds(n, hv)
            assert r == S_.n_rounds(n, bool(hv))
            for k in (1, 3, 64):
                assert [K_.round_target(k, r, j) for j in range(r)] == [
                    S_.round_target(k, r, j) for j in range(r)]
    for key, d, i in [(0, 0, 0), (2 ** 64 - 1, 17, 63), (123456789, 2 ** 20, 5)]:
        assert int(K_.rollout_key(np.uint64(key), d, i)) == S_.rollout_key(key, d, i)


# ---------------------------------------------------------------------------
# Differential: both engines play the same search game
# ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("players,lineup,pool,seed,game", [
    (2, ["search:k=2:rollout=optimized-2p", "optimized-2p"], 8, 7, 0),
    (2, ["balanced", "search:k=3:rollout=balanced:opponents=greedy:halving=1"], 6, 3, 1),
    (2, ["search:k=3:rollout=optimized-2p:decide=vale+advancement", "vp-rush"], 7, 5, 2),
    (3, ["search:k=2:rollout=balanced:halving=1", "optimized-3p", "vp-rush"], 6, 11, 0),
])
def test_engines_play_the_same_search_game(players, lineup, pool, seed, game):
    from vale_sim.games.mystic_vale.fast import api
    from vale_sim.games.mystic_vale.fast.api import play_game_fast
    from vale_sim.games.mystic_vale.reference.search import play_reference
    rules = Rules(vp_pool=pool)
    fast = play_game_fast(CS, players, seed, game, lineup, rules)
    assert api.LAST_STATS["decisions"] > 0
    ref = play_reference(CS, players, seed, game, lineup, rules)
    assert first_difference(ref, fast) is None
    # the search changed the game: the same seats with the rollout policy play otherwise
    plain = [p.name if not isinstance(p, SearchPolicy) else _rollout_name(p)
             for p in policies_for(players, lineup)]
    assert first_difference(play_game_fast(CS, players, seed, game, plain, rules), fast) is not None


@pytest.mark.parametrize("rules,end", [
    (Rules(vp_pool=6), "The VP pool ran out: the game ends after round {r}."),
    (Rules(vp_pool=30, max_rounds=3), "Stopped at the max_rounds cap (3).")])
def test_a_search_game_logs_its_rounds_and_its_end(rules, end):
    """The reference engine's log of a search game has MysticValeGame.play's lines: a
    header for every round of the record, in order, and the end or the round cap after
    the last turn (issue 41: a search game printed none); without a search player
    SearchGame logs the plain game line for line."""
    from vale_sim.games.mystic_vale.reference.game import MysticValeGame
    from vale_sim.games.mystic_vale.reference.search import SearchGame, play_reference
    rec = play_reference(CS, 2, 1, 0, ["search:k=1:rollout=balanced", "balanced"], rules)
    heads = [line for line in rec.log if line.startswith("--- Round ")]
    assert [h.split(" (pool")[0] for h in heads] == \
        [f"--- Round {r}" for r in range(1, rec.rounds + 1)]
    assert rec.log[-4] == end.format(r=rec.rounds)     # then 2 score lines, the winner
    assert rec.truncated == (rules.max_rounds == 3)
    for g in range(2):
        a = MysticValeGame(CS, 2, 5, g, ["balanced", "vp-rush"], rules).play()
        b = SearchGame(CS, 2, 5, g, ["balanced", "vp-rush"], rules).play()
        assert first_difference(a, b) is None and a.log == b.log


def _rollout_name(pol):
    from vale_sim.games.mystic_vale.fast.api import rollout_policy
    return rollout_policy(pol)


# ---------------------------------------------------------------------------
# Information: what no player sees does not move a decision
# ---------------------------------------------------------------------------
def _mid_game(players, seed, game, turns, search_seat):
    """Tables and a state after `turns` turns of plain play, the search seat next."""
    from vale_sim.games.mystic_vale.fast import api, engine as E, search as F
    from vale_sim.games.mystic_vale.fast.state import GAME, G_START, new_state
    from vale_sim.games.mystic_vale.fast.tables import card_tables, policy_tables
    pols = policies_for(players, ["optimized-2p"] * players)
    pols[search_seat] = get_policy("search:k=6:rollout=optimized-2p:halving=1")
    T = card_tables(CS, players, Rules())
    Q = policy_tables(CS, pols)
    X, QR = api.search_tables(CS, pols)
    S = new_state(T)
    E.setup(T, S, Q, np.uint64(seed), np.uint64(game))
    start = int(S[GAME, G_START])
    t = 0
    rnd = 1
    while True:                                        # plain turns until the search seat's
        for j in range(players):
            p = (start + j) % players
            if t >= turns and p == search_seat:
                return T, S, Q, QR, X, rnd
            E.take_turn(T, S, Q, p, rnd)
            t += 1
        rnd += 1


def _decision(T, S, Q, QR, X, p, rnd, phase):
    """(option, totals) of the first decision of `phase` of p's turn from a copy of S."""
    from vale_sim.games.mystic_vale.fast import engine as E, search as F
    from vale_sim.games.mystic_vale.fast.state import new_state, R_N
    S = S.copy()
    D = new_state(T)
    W = np.zeros((F.MAX_OPTIONS, F.W_N), np.int64)
    RES, SH = np.zeros((len(X), R_N), np.int64), np.zeros(len(X), np.float64)
    Qr = QR[p]
    k, hv = int(X[p, F.X_K]), int(X[p, F.X_HALVING])
    if phase == F.PH_PUSH:
        n = F.push_options(T, S, Q, p, W)
        o = F.decide(T, S, D, Qr, W, RES, SH, p, rnd, phase, n, k, hv, 0, 0, 0, 5)
    else:
        mana, extra = E.harvest_gain(T, S, Q, p, rnd)
        n = F.adv_options(T, S, Qr, X, p, W, mana, rnd)
        if n < 2:
            return None
        o = F.decide(T, S, D, Qr, W, RES, SH, p, rnd, phase, n, k, hv, mana, 0, 2 + extra, 5)
    return int(o), W[:n, :F.W_E + 1].tolist(), W[:n, F.W_TOTAL].tolist()


def _permute_hidden(T, S, rng, seat):
    """Every deck order, the supply decks' unseen parts and the game's future draws; and
    which of an opponent's cards are in its deck and which it discarded face down
    (Calm Weather, Cleansing Rain: PS_UNSEEN), the seat's own excepted."""
    from vale_sim.games.mystic_vale.fast.state import (GAME, ADECK, VDECK, DECK, DHEAD, DN,
                                                       AHEAD, VHEAD, VN, G_RNG, DISC, DISC_N,
                                                       PS_UNSEEN)
    from vale_sim.games.mystic_vale.fast.tables import OPTS, O_PLAYERS, O_LVL_LEN
    S = S.copy()
    for p in range(int(T[OPTS, O_PLAYERS])):
        seg = S[p, DECK + S[p, DHEAD]:DECK + S[p, DN]]
        at = [DISC + i for i in range(S[p, DISC_N]) if (S[p, PS_UNSEEN] >> S[p, DISC + i]) & 1]
        if p == seat or not at:
            seg[:] = rng.permutation(seg)
            continue
        pool = rng.permutation(list(seg) + [S[p, x] for x in at])
        seg[:] = pool[:len(seg)]
        S[p, at] = pool[len(seg):]
        S[p, PS_UNSEEN] = sum(1 << int(c) for c in pool[len(seg):])
    for lv in range(3):
        seg = S[ADECK + lv, S[GAME, AHEAD + lv]:T[OPTS, O_LVL_LEN + lv]]
        seg[:] = rng.permutation(seg)
    for lv in range(2):
        seg = S[VDECK + lv, S[GAME, VHEAD + lv]:S[GAME, VN + lv]]
        seg[:] = rng.permutation(seg)
    S[GAME, G_RNG + 1] += int(rng.integers(1, 1000))       # the game's own future draws
    return S


# the last three: an opponent has a card it discarded face down (issue 41.9)
@pytest.mark.parametrize("players,seed,game,turns,seat,unseen", [
    (2, 1, 0, 6, 0, False), (2, 4, 3, 11, 1, False), (3, 2, 1, 9, 2, False),
    (2, 7, 0, 17, 0, True), (2, 3, 0, 20, 1, True), (3, 5, 0, 11, 2, True)])
def test_decisions_ignore_hidden_information(players, seed, game, turns, seat, unseen):
    from vale_sim.games.mystic_vale.fast import search as F
    from vale_sim.games.mystic_vale.fast.state import PS_UNSEEN
    T, S, Q, QR, X, rnd = _mid_game(players, seed, game, turns, seat)
    assert any(S[q, PS_UNSEEN] for q in range(players) if q != seat) == unseen
    rng = np.random.default_rng(seed)
    for phase in (F.PH_PUSH, F.PH_ADV):
        base = _decision(T, S, Q, QR, X, seat, rnd, phase)
        if base is None:
            continue
        for _ in range(3):
            S2 = _permute_hidden(T, S, rng, seat)
            assert _decision(T, S2, Q, QR, X, seat, rnd, phase) == base
    # the control: a change of what the player sees (its VP tokens) is seen
    from vale_sim.games.mystic_vale.fast.state import PS_VP
    base = _decision(T, S, Q, QR, X, seat, rnd, F.PH_PUSH)
    S2 = S.copy()
    S2[seat, PS_VP] += 10
    assert _decision(T, S2, Q, QR, X, seat, rnd, F.PH_PUSH)[2] != base[2]


# ---------------------------------------------------------------------------
# Naming a search player
# ---------------------------------------------------------------------------
def test_search_names_and_files(tmp_path):
    pol = get_policy("search:k=8:rollout=greedy:halving=1")
    assert isinstance(pol, SearchPolicy)
    assert (pol.search_k, pol.search_halving, pol.search_opponents) == (8, True, None)
    assert pol.push_risk_permille == get_policy("greedy").push_risk_permille
    assert pol.name == "search:k=8:rollout=greedy:halving=1"
    default = get_policy("search")
    assert default.search_k == S_.DEFAULT_K and default.w_mana == get_policy("balanced").w_mana
    f = tmp_path / "deep.toml"
    f.write_text('kind = "search"\nk = 16\nrollout = "optimized-2p"\nopponents = "balanced"\n')
    pol = get_policy(str(f))
    assert (pol.name, pol.search_k, pol.search_opponents.name) == ("deep", 16, "balanced")
    assert policies_for(2, ["search:k=4", "balanced"])[0].search_k == 4
    assert default.search_decides == ("push", "vale", "advancement")
    pol = get_policy("search:k=4:decide=advancement+push")
    assert pol.search_decides == ("push", "advancement")
    assert pol.name == "search:k=4:rollout=balanced:decide=advancement+push"


@pytest.mark.parametrize("spec,words", [
    ("search:k=0", "k must be a whole number"), ("search:k=x", "k must be a whole number"),
    ("search:depth=3", "unknown key 'depth'"), ("search:k", "is not key=value"),
    ("search:rollout=search", "cannot itself be a search"),
    ("search:rollout=nosuch", "unknown policy 'nosuch'"),
    ("search:decide=buy", "decide must be some of push+vale+advancement, got 'buy'")])
def test_bad_search_names_are_one_line(spec, words):
    with pytest.raises(PolicyError) as e:
        get_policy(spec)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_bad_search_files_are_one_line(tmp_path):
    for body, words in [('kind = "search"\nk = -1\n', "field 'k'"),
                        ('kind = "search"\nwidth = 3\n', "unknown field 'width'"),
                        ('kind = "tree"\n', "unknown kind 'tree'")]:
        f = tmp_path / "bad.toml"
        f.write_text(body)
        with pytest.raises(PolicyError) as e:
            get_policy(str(f))
        assert words in str(e.value) and str(f) in str(e.value) and "\n" not in str(e.value)
