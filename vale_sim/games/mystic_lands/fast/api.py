"""The Mystic Lands fast engine's public layer: records and frames from the kernels.

    play_game_fast(cs, players, seed, game_index, policies, rules) -> GameRecord
    run_fast(cs, players, seed, n_games, policies, rules, first_game=0) -> DataFrame

For the same (card set, players, seed, game index, policies, rules) both give
what the reference engine gives: ``play_game_fast`` the same ``turns`` and
``results`` (the readable ``log`` is empty), ``run_fast`` the frame of
``records.results_frame`` (docs/mystic-lands-engine-spec.md).
"""
from __future__ import annotations

from vale_sim.kernels.kept import KEPT, kept

from dataclasses import dataclass

import numpy as np

from ....rng import check_seed
from .. import cards as C
from ..policy import DECISION_KINDS, SearchPolicy, policies_for, rollout_policy
from ..records import OWN_COLUMNS, GameRecord, PlayerResult, TurnRecord
from ..rules import Rules
from . import engine as E
from . import state as L
from .tables import (MAX_CARDS, MAX_SPACE, O_LEN, O_MAX_BUYS, O_MAX_ROUNDS, O_NADV,
                     O_NVALE, O_PLAYERS, OPTS, QB, card_tables, game_tables, policy_tables)

MASK = (1 << 64) - 1


@dataclass
class FastGames:
    """Raw kernel outputs of a batch (index 0 = game first_game)."""
    seed: int
    first_game: int
    res: np.ndarray          # [n, P, RS_N]
    share: np.ndarray        # [n, P] float64
    gout: np.ndarray         # [n, GO_N]
    acquired: np.ndarray     # [n, P, n_adv]
    vales: np.ndarray        # [n, P, n_vale] 0/1
    spaces: np.ndarray       # [n, P, MAX_SPACE] 0/1
    trace: np.ndarray        # [turns, RC_N] (empty unless traced)
    events: np.ndarray       # [events, EV_W]


def _max_turns(T) -> int:
    P = int(T[OPTS, O_PLAYERS])
    return P * int(T[OPTS, O_MAX_ROUNDS]) + P


def simulate(cs, players: int, seed: int, n_games: int, policies=None,
             rules: Rules | None = None, first_game: int = 0, trace: bool = False) -> FastGames:
    cs = C.load_card_set(cs)
    seed = check_seed(seed)
    rules = rules or Rules()
    C.validate_playable(cs, players, rules)
    pols = policies_for(players, policies)
    T = _tables(cs, players, rules, pols)
    S = L.new_state(T)
    P = players
    na, nv = int(T[OPTS, O_NADV]), int(T[OPTS, O_NVALE])
    res, share, gout, acq, vales, spaces = _outputs(n_games, P, na, nv)
    if trace:          # X: turn records, then from row evb the events (turn, kind, x, y, z)
        evb = _max_turns(T)
        # bought <= max_buys a turn; sleeved <= 2 x bought + Market cards (Satyr Home);
        # enchanted <= a cube per space and player; removed <= the cards
        n_ev = (3 * int(T[OPTS, O_MAX_BUYS]) + 1) * evb + int(T[OPTS, O_LEN + 1]) \
            + int(T[OPTS, O_LEN + 2]) + P * (MAX_CARDS + MAX_SPACE) + 16
    else:
        evb, n_ev = 1, 1
    X = np.zeros((evb + n_ev, L.RC_N), np.int64)
    if any(isinstance(p, SearchPolicy) for p in pols):
        from . import search as F
        XS, TR = search_tables(cs, players, rules, pols)
        W = np.zeros((F.max_options(T), F.W_N), np.int64)
        stats = np.zeros(1, np.int64)
        F.play_games_search(
            T, S, L.new_state(T), TR, XS, W, X, np.uint64(seed), np.uint64(first_game & MASK),
            n_games, 1 if trace else 0, evb, res, share, gout, acq, vales, spaces,
            np.zeros((1, P, L.RS_N), np.int64), np.zeros((1, P), np.float64),
            np.zeros((1, L.GO_N), np.int64), np.zeros((1, P, na), np.int64),
            np.zeros((1, P, nv), np.int64), np.zeros((1, P, MAX_SPACE), np.int64), stats)
        LAST_STATS["decisions"] = int(stats[0])
    else:
        E.play_games(T, S, X, np.uint64(seed), np.uint64(first_game & MASK), n_games,
                     1 if trace else 0, evb, res, share, gout, acq, vales, spaces)
    TR = X[:int(S[L.G, L.G_TURNIDX])].copy() if trace else X[:0]
    EV = X[evb:evb + int(S[L.G, L.G_NEV]), :L.EV_W].copy() if trace else X[:0, :L.EV_W]
    return FastGames(seed, first_game, res, share, gout, acq, vales, spaces, TR, EV)


#: The last few game tables built (a study plays many short runs of one card set and a
#: few policies): (cs, players, rules, policies) -> T.  The scripted kernels only read
#: it; a search player's are never kept.  The card set is held, so its id is not reused
#: while it is here.
_TABLES: dict = {}
_CARD_TABLES: dict = {}          # the card part, apart: the line-ups do not push it out


def _tables(cs, players, rules, pols):
    """``tables.game_tables``: the card part kept per (card set, players, rules), the
    whole per line-up of policies."""
    if any(isinstance(p, SearchPolicy) for p in pols):
        return game_tables(cs, players, rules, pols)
    T = _kept(("T", id(cs), players, rules), cs, lambda: card_tables(cs, players, rules),
              _CARD_TABLES)

    def whole():
        Q = policy_tables(cs, pols)          # as game_tables composes them
        out = np.full((T.shape[0] + Q.shape[0], max(T.shape[1], Q.shape[1])), -1, np.int64)
        out[:T.shape[0], :T.shape[1]] = T
        out[QB:, :Q.shape[1]] = Q
        return out
    return _kept(("TQ", id(cs), players, rules, tuple(pols)), cs, whole)


def _outputs(n_games: int, P: int, na: int, nv: int) -> tuple:
    """The per-game outputs ``play_games`` fills: results, win shares, game outcomes,
    Advances acquired, Vales and spaces enchanted."""
    return (np.zeros((n_games, P, L.RS_N), np.int64), np.zeros((n_games, P), np.float64),
            np.zeros((n_games, L.GO_N), np.int64), np.zeros((n_games, P, na), np.int64),
            np.zeros((n_games, P, nv), np.int64), np.zeros((n_games, P, MAX_SPACE), np.int64))


def _kept(key, cs, build, store=_TABLES):
    return kept(store, key, cs, build)


_ROWS: dict = {}


def _count_rows(cs):
    """({"buy:<name>": advance}, {"vale:<name>": vale}) of :func:`frame`'s count columns."""
    hit = _ROWS.get(id(cs))
    if hit is not None and hit[0] is cs:
        return hit[1], hit[2]
    adv = {f"buy:{a.name}": i for i, a in enumerate(cs.advances) if a.level}
    vale = {f"vale:{v.name}": i for i, v in enumerate(cs.vales)}
    if len(_ROWS) >= KEPT:
        del _ROWS[next(iter(_ROWS))]
    _ROWS[id(cs)] = (cs, adv, vale)
    return adv, vale


@dataclass
class Snapshots:
    """The positions of a batch of games after every turn (value-player training,
    ``training.training_data``): ``snap`` one row per turn (state.SN_*; game within the
    batch), and per game its Vale layout, each player's Druid Advance and win share;
    ``space_kind[s]`` 1 for a Vale space (I or II), else 0."""
    snap: np.ndarray         # [turns, SN_ACQ + n_adv + cubes]
    layout: np.ndarray       # [n, MAX_SPACE]
    druid: np.ndarray        # [n, P]
    share: np.ndarray        # [n, P]
    space_kind: np.ndarray   # [n_spaces]
    acquired: np.ndarray     # [n, P, n_adv]


def snapshots(cs, players: int, seed: int, n_games: int, policies=None,
              rules: Rules | None = None, first_game: int = 0) -> Snapshots:
    """Games first_game .. + n_games - 1 played by the fast engine (scripted or value
    players; not search players), with every player's position after each turn."""
    cs = C.load_card_set(cs)
    seed = check_seed(seed)
    rules = rules or Rules()
    C.validate_playable(cs, players, rules)
    pols = policies_for(players, policies)
    if any(isinstance(p, SearchPolicy) for p in pols):
        raise ValueError("snapshots: search players are not supported")
    T = game_tables(cs, players, rules, pols)
    S = L.new_state(T)
    P = players
    na, nv = int(T[OPTS, O_NADV]), int(T[OPTS, O_NVALE])
    res, share, gout, acq, vales, spaces = _outputs(n_games, P, na, nv)
    X = np.zeros((n_games * _max_turns(T), L.SN_ACQ + na + rules.cubes), np.int64)
    rows = E.play_games(T, S, X, np.uint64(seed), np.uint64(first_game & MASK), n_games, 2, 0,
                        res, share, gout, acq, vales, spaces)
    kind = np.array([int(sp.kind in ("I", "II")) for sp in cs.map.spaces], np.int64)
    return Snapshots(X[:rows].copy(), gout[:, L.GO_LAYOUT:], res[:, :, L.RS_DRUID], share,
                     kind, acq)


#: What the last search run counted (``decisions``: search decisions made); bench reads it.
LAST_STATS: dict = {}


def search_tables(cs, players: int, rules, pols):
    """XS[P, X_N] (which seats search, K, halving, the kinds searched, how many of its
    policy's first buy rules are commitments: vale_sim.search.committed_cards) and
    TR[P, rows, cols]: for each search seat p the tables its rollouts play with (the
    policies they give every seat: p its rollout policy, the others its model of the
    opponents; docs/search.md), padded to one shape."""
    from vale_sim.search import committed_cards
    from . import search as F
    P = len(pols)
    XS = np.zeros((P, F.X_N), np.int64)
    tabs = []
    for p, pol in enumerate(pols):
        if isinstance(pol, SearchPolicy):
            XS[p, F.X_ON] = 1
            XS[p, F.X_K] = pol.search_k
            XS[p, F.X_HALVING] = int(pol.search_halving)
            XS[p, F.X_COMMITS] = len(committed_cards(pol))
            XS[p, F.X_DECIDES] = sum(1 << i for i, kind in enumerate(DECISION_KINDS)
                                     if kind in pol.search_decides)
            base = rollout_policy(pol)
            opp = pol.search_opponents or base
            tabs.append(game_tables(cs, players, rules, [base if q == p else opp
                                                         for q in range(P)]))
        else:
            tabs.append(None)
    rows = max(t.shape[0] for t in tabs if t is not None)
    cols = max(t.shape[1] for t in tabs if t is not None)
    TR = np.full((P, rows, cols), -1, np.int64)
    for p, t in enumerate(tabs):
        if t is not None:
            TR[p, :t.shape[0], :t.shape[1]] = t
    return XS, TR


def _turn_records(out: FastGames) -> list[TurnRecord]:
    tuples = [{"bought": [], "enchanted": [], "sleeved": [], "removed": []}
              for _ in range(len(out.trace))]
    for t, kind, x, y, z in out.events.tolist():
        if kind == L.EV_BOUGHT:
            tuples[t]["bought"].append(x)
        elif kind == L.EV_ENCHANTED:
            tuples[t]["enchanted"].append((x, y))
        elif kind == L.EV_SLEEVED:
            tuples[t]["sleeved"].append((x, y, z))
        else:
            tuples[t]["removed"].append(x)
    turns = []
    for row, tu in zip(out.trace.tolist(), tuples):
        turns.append(TurnRecord(
            round=row[L.RC_ROUND], player=row[L.RC_PLAYER], turn=row[L.RC_TURN],
            grows=row[L.RC_GROWS], overgrows=row[L.RC_OVERGROWS],
            withered=bool(row[L.RC_WITHERED]), out_of_cards=bool(row[L.RC_OOC]),
            rain_placed=row[L.RC_RAIN_PLACED],
            chosen=C.RESOURCES[row[L.RC_CHOSEN]] if row[L.RC_CHOSEN] >= 0 else "",
            mana_gain=row[L.RC_MGAIN], spirit_gain=row[L.RC_SGAIN], vp_gain=row[L.RC_VGAIN],
            bought=tuple(tu["bought"]), enchanted=tuple(tu["enchanted"]),
            sleeved=tuple(tu["sleeved"]), removed=tuple(tu["removed"]),
            growths=row[L.RC_GROWTHS], triggered=bool(row[L.RC_TRIGGERED]),
            mana=row[L.RC_MANA], spirit=row[L.RC_SPIRIT], vp=row[L.RC_VP],
            rain=row[L.RC_RAIN], held=row[L.RC_HELD], cubes=row[L.RC_CUBES],
            deck_size=row[L.RC_DECK], discard_size=row[L.RC_DISC]))
    return turns


def play_game_fast(cs, players: int, seed: int, game_index: int = 0, policies=None,
                   rules: Rules | None = None) -> GameRecord:
    """One game as a GameRecord (the reference engine's dataclasses; no log)."""
    cs = C.load_card_set(cs)
    pols = policies_for(players, policies)
    out = simulate(cs, players, seed, 1, pols, rules, first_game=game_index, trace=True)
    nsp = len(cs.map.spaces)
    results = []
    for p in range(players):
        r = out.res[0, p].tolist()
        acq = {int(k): int(out.acquired[0, p, k]) for k in np.flatnonzero(out.acquired[0, p])}
        results.append(PlayerResult(
            player=p, seat=r[L.RS_SEAT], policy=pols[p].name, score=r[L.RS_SCORE],
            track_vp=r[L.RS_TRACK], bonus_vp=r[L.RS_BONUS], adv_vp=r[L.RS_ADV],
            vale_vp=r[L.RS_VALE], effect_vp=r[L.RS_EFF], win_share=float(out.share[0, p]),
            withers=r[L.RS_WITHERS], turns=r[L.RS_TURNS], mana_total=r[L.RS_MTOT],
            spirit_total=r[L.RS_STOT], cubes=r[L.RS_CUBES], triggered_end=bool(r[L.RS_TRIG]),
            acquired=acq,
            vales=tuple(int(v) for v in np.flatnonzero(out.vales[0, p])),
            spaces=tuple(int(s) for s in np.flatnonzero(out.spaces[0, p, :nsp])),
            druid=r[L.RS_DRUID]))
    g = out.gout[0].tolist()
    return GameRecord(seed=out.seed, game_index=game_index, players=players,
                      starting_player=g[L.GO_START], rounds=g[L.GO_ROUNDS],
                      truncated=bool(g[L.GO_TRUNC]),
                      layout=tuple(g[L.GO_LAYOUT:L.GO_LAYOUT + nsp]),
                      turns=_turn_records(out), results=results)


def frame(out: FastGames, cs, policies):
    """The per-game/player frame of ``records.results_frame``, column for column."""
    import pandas as pd
    from ...base import RESULT_COLUMNS
    n, P = out.share.shape
    res = out.res.reshape(n * P, L.RS_N)
    seed_dtype = np.int64 if out.seed < 2 ** 63 else np.uint64
    # the string columns by a take of the few names in the frame's string type:
    # converting n * P Python strings costs more than the rest of the frame
    druid_names = pd.Series(np.array([a.name for a in cs.advances] + [""], dtype=object)).array
    pol_names = pd.Series(np.array([p.name for p in policies], dtype=object)).array
    cols = {
        "game": np.repeat(np.arange(n, dtype=np.int64) + out.first_game, P),
        "player": np.tile(np.arange(P, dtype=np.int64), n),
        "seat": res[:, L.RS_SEAT],
        "policy": pol_names.take(np.tile(np.arange(P), n)),
        "score": res[:, L.RS_SCORE],
        "win_share": out.share.ravel(),
        "rounds": np.repeat(out.gout[:, L.GO_ROUNDS], P),
        "truncated": np.repeat(out.gout[:, L.GO_TRUNC].astype(bool), P),
        "withers": res[:, L.RS_WITHERS],
        "mana_total": res[:, L.RS_MTOT],
        "spirit_total": res[:, L.RS_STOT],
        "cubes": res[:, L.RS_CUBES],
        "triggered_end": res[:, L.RS_TRIG].astype(bool),
        "bonus_vp": res[:, L.RS_BONUS],
        "track_vp": res[:, L.RS_TRACK],
        "adv_vp": res[:, L.RS_ADV],
        "vale_vp": res[:, L.RS_VALE],
        "effect_vp": res[:, L.RS_EFF],
        "turns": res[:, L.RS_TURNS],
        "players": np.full(n * P, P, np.int64),
        "seed": np.full(n * P, out.seed, seed_dtype),
        "druid": druid_names.take(res[:, L.RS_DRUID]),
    }
    acq = out.acquired.reshape(n * P, out.acquired.shape[2])
    for i, a in enumerate(cs.advances):
        if a.level:
            cols[f"buy:{a.name}"] = acq[:, i]
    vs = out.vales.reshape(n * P, out.vales.shape[2])
    for v, vale in enumerate(cs.vales):
        cols[f"vale:{vale.name}"] = vs[:, v]
    order = list(RESULT_COLUMNS) + list(OWN_COLUMNS)
    order += [c for c in cols if c not in order]
    return pd.DataFrame({c: cols[c] for c in order})


def outcomes(out: FastGames, cs, policies):
    """The :class:`~vale_sim.games.base.Outcomes` of a batch: the arrays of
    :func:`frame`'s columns the studies reduce, without the frame."""
    from vale_sim.games.base import CountColumns, Outcomes
    adv, vale = _count_rows(cs)
    counts = CountColumns(((adv, out.acquired.transpose(2, 0, 1)),
                           (vale, out.vales.transpose(2, 0, 1))))
    return Outcomes(first_game=out.first_game, policies=tuple(p.name for p in policies),
                    share=out.share, score=out.res[:, :, L.RS_SCORE],
                    seat=out.res[:, :, L.RS_SEAT], event=out.res[:, :, L.RS_WITHERS],
                    rounds=out.gout[:, L.GO_ROUNDS],
                    truncated=out.gout[:, L.GO_TRUNC].astype(bool), counts=counts)


def run_outcomes(cs, players: int, seed: int, n_games: int, policies=None,
                 rules: Rules | None = None, first_game: int = 0):
    """The games of :func:`run_fast` as outcome arrays (``Game.run_outcomes``)."""
    cs = C.load_card_set(cs)
    pols = policies_for(players, policies)
    out = simulate(cs, players, seed, n_games, pols, rules, first_game=first_game)
    return outcomes(out, cs, pols)


def run_fast(cs, players: int, seed: int, n_games: int, policies=None,
             rules: Rules | None = None, first_game: int = 0):
    """Games first_game .. first_game+n_games-1 as the results frame (Game.run_fast)."""
    cs = C.load_card_set(cs)
    pols = policies_for(players, policies)
    if n_games == 0:
        from ..records import results_frame
        return results_frame([], cs)
    out = simulate(cs, players, seed, n_games, pols, rules, first_game=first_game)
    return frame(out, cs, pols)


def warm_up() -> None:
    """Compile (or load from the cache) the kernels in this process: one game."""
    run_fast(C.DEFAULT_SET, 2, 0, 1)
