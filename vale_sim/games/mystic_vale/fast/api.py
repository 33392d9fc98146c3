"""Public layer of the fast engine: GameRecords and DataFrames from the kernels.

    play_game_fast(cs, players, seed, game_index, policies, rules) -> GameRecord
    run_fast(cs, players, seed, n_games, policies, rules, first_game=0) -> DataFrame

Both give the same games as the reference engine (docs/engine-spec.md) for the
same (seed, game index, card set, policies, rules).
"""
from __future__ import annotations

from vale_sim.kernels.kept import KEPT, kept

from dataclasses import dataclass

import numpy as np

from ..cards import CardSet
from ..policy import DECISION_KINDS, Policy, SearchPolicy, policies_for
from ..records import GameRecord, PlayerResult, TurnRecord
from vale_sim.rng import check_seed
from ..rules import Rules
from . import engine
from vale_sim.kernels.jit import cache_is_cold
from .state import (new_state, trace_width, R_N, R_SCORE, R_TOKENS, R_ADV, R_VALE,
                    R_TIE, R_SEAT, R_SPOILS, R_HARVESTS, R_BOX, GO_N, GO_START,
                    GO_ROUNDS, GO_TRUNC, TR_FIXED_N, MAX_VALE_BUYS,
                    TR_ROUND, TR_PLAYER, TR_TURN, TR_SKIPPED, TR_PUSHES, TR_SPOILED,
                    TR_SPOILED_PREP, TR_DRUID, TR_ARBOR, TR_CONCLAVE, TR_MANA,
                    TR_ANIMAL, TR_FOREST, TR_SKY, TR_WILD, TR_VP, TR_VP_BOX,
                    TR_POOL_AFTER, TR_TOKEN_SPENT, TR_SUNSTONE, TR_N_BOUGHT,
                    TR_N_VALES, TR_FIELD, TR_DECK, TR_DISCARD, TR_DECAY)
from .tables import (card_tables, policy_tables, OPTS, O_MAX_BUYS, O_MAX_ROUNDS, O_N_ADV,
                     O_N_VALE)

MASK = (1 << 64) - 1


def warm_up() -> bool:
    """Compile (or load from numba's cache) the engine in this process by playing one
    game; True if it had to compile.  Runs started with worker processes call this
    first, so the workers load the cache instead of each compiling."""
    cold = cache_is_cold(engine.play_games)
    simulate("starter", 2, 0, 1)
    return cold


def _card_set(cs):
    if isinstance(cs, CardSet):
        return cs
    from ..cards import load_card_set
    return load_card_set(cs)


@dataclass
class FastGames:
    """Raw kernel outputs of a batch of games (index 0 = game first_game)."""
    seed: int
    first_game: int
    res: np.ndarray          # [n, P, R_N] int64
    share: np.ndarray        # [n, P] float64
    gout: np.ndarray         # [n, GO_N] int64
    acquired: np.ndarray     # [n, P, n_adv] copies bought (a view of a [n_adv, n, P] array)
    first_round: np.ndarray  # [n, P, n_adv] round first bought (0 never); 0 rows if not details
    harvested: np.ndarray    # [n, P, n_adv] 1 if in a field at a Harvest; same
    vales: np.ndarray        # [n, P, n_vale] vale copies bought (a view of [n_vale, n, P])
    trace: np.ndarray        # [rows, width] turn rows (empty unless traced)
    max_buys: int


def simulate(cs, players: int, seed: int, n_games: int, policies=None,
             rules: Rules | None = None, first_game: int = 0,
             trace: bool = False, details: bool = True) -> FastGames:
    """Run the kernel on games first_game .. first_game+n_games-1; raw arrays.

    ``details=False``: first_round and harvested are left empty (0 games), which
    the DataFrame of :func:`run_fast` does not use -- a faster run."""
    cs = _card_set(cs)
    seed = check_seed(seed)
    rules = rules or Rules()
    pols = policies_for(players, policies)
    T, Q = _tables(cs, players, rules, pols)
    S = new_state(T)
    P = players
    na, nv = max(1, int(T[OPTS, O_N_ADV])), max(1, int(T[OPTS, O_N_VALE]))
    res = np.zeros((n_games, P, R_N), np.int64)
    share = np.zeros((n_games, P), np.float64)
    gout = np.zeros((n_games, GO_N), np.int64)
    # kind-major: the kernel writes acq[k, g, p]; a kind's column of the DataFrame
    # (game then player) is then one contiguous row
    acq = np.zeros((na, n_games, P), np.int64)
    nd = n_games if details else 0
    first = np.zeros((nd, P, na), np.int64)
    harv = np.zeros((nd, P, na), np.int64)
    vacq = np.zeros((nv, n_games, P), np.int64)
    mb = int(T[OPTS, O_MAX_BUYS])
    rows = n_games * P * int(T[OPTS, O_MAX_ROUNDS]) if trace else 0
    tr = np.zeros((rows, trace_width(mb)), np.int64)
    if any(isinstance(p, SearchPolicy) for p in pols):
        from . import search
        D = new_state(T)
        X, QR = search_tables(cs, pols)
        W = np.zeros((search.MAX_OPTIONS, search.W_N), np.int64)
        stats = np.zeros(1, np.int64)
        used = search.play_games_search(
            T, S, D, Q, QR, X, W, np.zeros((P, R_N), np.int64), np.zeros(P, np.float64),
            np.uint64(seed), np.uint64(first_game & MASK), n_games, res, share, gout, acq,
            first, harv, vacq, tr, stats)
        LAST_STATS["decisions"] = int(stats[0])
    else:
        used = engine.play_games(T, S, Q, np.uint64(seed), np.uint64(first_game & MASK),
                                 n_games, res, share, gout, acq, first, harv, vacq, tr)
    return FastGames(seed, first_game, res, share, gout, acq.transpose(1, 2, 0), first, harv,
                     vacq.transpose(1, 2, 0), tr[:used], mb)


#: The last few card and policy tables built (a study plays many short runs of one
#: card set and a few policies): (cs, players, rules, policies) -> (T, Q).  The
#: scripted kernels only read them (left writeable: numba would compile the kernels
#: again for read-only arrays); a search player's kernels write Q, so theirs are never
#: kept.  The card set is held, so its id is not reused while it is here.
_TABLES: dict = {}
_CARD_TABLES: dict = {}          # the card part, apart: the line-ups do not push it out


def _tables(cs, players, rules, pols):
    """(T, Q): T kept per (card set, players, rules), Q per line-up of policies."""
    T = _kept(("T", id(cs), players, rules), cs, lambda: card_tables(cs, players, rules),
              _CARD_TABLES)
    if any(isinstance(p, SearchPolicy) for p in pols):
        return T, policy_tables(cs, pols)
    return T, _kept(("Q", id(cs), tuple(pols)), cs, lambda: policy_tables(cs, pols))


def _kept(key, cs, build, store=_TABLES):
    return kept(store, key, cs, build)


#: What the last search run counted (``decisions``: search decisions made); bench reads it.
LAST_STATS: dict = {}


def search_tables(cs, pols):
    """X[P, X_N + n_adv + n_vale] (which seats search, K, halving, the kinds decided, the
    committed cards: vale_sim.search.committed_cards) and QR[P, rows, cols]: for each search
    seat p, the policies its rollouts give every seat (p: its rollout policy, the
    others its model of the opponents) -- docs/search.md."""
    from vale_sim.search import committed_cards
    from . import search
    from .tables import T_CARD_ADV, _resolve_card
    P = len(pols)
    na, nv = len(cs.advancements), len(cs.vales)        # T[OPTS, O_N_ADV], O_N_VALE
    X = np.zeros((P, search.X_N + na + nv + 1), np.int64)
    tabs = []
    for p, pol in enumerate(pols):
        if isinstance(pol, SearchPolicy):
            for name in committed_cards(pol):        # bought whenever the policy would
                tt, i = _resolve_card(cs, name, pol)
                X[p, search.X_COMMIT + (i if tt == T_CARD_ADV else na + i)] = 1
            X[p, search.X_ON] = 1
            X[p, search.X_K] = pol.search_k
            X[p, search.X_HALVING] = int(pol.search_halving)
            X[p, search.X_DECIDES] = sum(1 << i for i, kind in enumerate(DECISION_KINDS)
                                         if kind in pol.search_decides)
            base = rollout_policy(pol)
            opp = pol.search_opponents or base
            tabs.append(policy_tables(cs, [base if q == p else opp for q in range(P)]))
        else:
            tabs.append(None)
    shape = max((t.shape for t in tabs if t is not None))
    rows = max(t.shape[0] for t in tabs if t is not None)
    QR = np.zeros((P, rows, shape[1]), np.int64)
    for p, t in enumerate(tabs):
        if t is not None:
            QR[p, :t.shape[0]] = t
    return X, QR


def rollout_policy(pol: SearchPolicy) -> Policy:
    """The scripted policy a search player's own fields are (its rollout policy)."""
    from dataclasses import fields
    return Policy(**{f.name: getattr(pol, f.name) for f in fields(Policy)})


def _turn_record(row, mb) -> TurnRecord:
    nb = int(row[TR_N_BOUGHT])
    nvl = int(row[TR_N_VALES])
    b0 = TR_FIXED_N
    vl0 = len(row) - MAX_VALE_BUYS
    return TurnRecord(
        round=int(row[TR_ROUND]), player=int(row[TR_PLAYER]), turn=int(row[TR_TURN]),
        skipped=bool(row[TR_SKIPPED]), pushes=int(row[TR_PUSHES]),
        spoiled=bool(row[TR_SPOILED]), spoiled_in_prep=bool(row[TR_SPOILED_PREP]),
        druid_used=bool(row[TR_DRUID]), arbor_used=bool(row[TR_ARBOR]),
        conclave_used=bool(row[TR_CONCLAVE]), mana=int(row[TR_MANA]),
        animal=int(row[TR_ANIMAL]), forest=int(row[TR_FOREST]), sky=int(row[TR_SKY]),
        wild=int(row[TR_WILD]), vp_gained=int(row[TR_VP]), vp_from_box=int(row[TR_VP_BOX]),
        pool_after=int(row[TR_POOL_AFTER]), token_spent=bool(row[TR_TOKEN_SPENT]),
        sunstone_used=bool(row[TR_SUNSTONE]),
        bought=tuple(int(x) for x in row[b0:b0 + nb]),
        sleeved=tuple((int(row[b0 + mb + i]), int(row[b0 + 2 * mb + i])) for i in range(nb)),
        vales=tuple(int(x) for x in row[vl0:vl0 + nvl]),
        field_size=int(row[TR_FIELD]), deck_size=int(row[TR_DECK]),
        discard_size=int(row[TR_DISCARD]), decay_showing=int(row[TR_DECAY]))


def play_game_fast(cs, players: int, seed: int, game_index: int = 0, policies=None,
                   rules: Rules | None = None) -> GameRecord:
    """One game as a GameRecord (same dataclasses as the reference engine)."""
    cs = _card_set(cs)
    rules = rules or Rules()
    pols = policies_for(players, policies)
    out = simulate(cs, players, seed, 1, pols, rules, first_game=game_index, trace=True)
    turns = [_turn_record(row, out.max_buys) for row in out.trace]
    results = []
    for p in range(players):
        r = out.res[0, p]
        acq = {int(k): int(out.acquired[0, p, k]) for k in np.flatnonzero(out.acquired[0, p])}
        first = {int(k): int(out.first_round[0, p, k]) for k in np.flatnonzero(out.first_round[0, p])}
        vales = []
        for v in np.flatnonzero(out.vales[0, p]):
            vales += [int(v)] * int(out.vales[0, p, v])
        results.append(PlayerResult(
            player=p, seat=int(r[R_SEAT]), policy=pols[p].name, tokens_vp=int(r[R_TOKENS]),
            adv_vp=int(r[R_ADV]), vale_vp=int(r[R_VALE]), score=int(r[R_SCORE]),
            tiebreak=int(r[R_TIE]), win_share=float(out.share[0, p]),
            spoils=int(r[R_SPOILS]), harvests=int(r[R_HARVESTS]), acquired=acq,
            first_round=first,
            harvested=tuple(int(k) for k in np.flatnonzero(out.harvested[0, p])),
            vales_acquired=tuple(vales)))
    g = out.gout[0]
    return GameRecord(seed=out.seed, game_index=game_index, players=players,
                      starting_player=int(g[GO_START]), rounds=int(g[GO_ROUNDS]),
                      truncated=bool(g[GO_TRUNC]), vp_pool=rules.pool_for(players)
                      if rules.vp_pool is not None or players in (2, 3, 4) else 0,
                      turns=turns, results=results)


def frame(out: FastGames, cs: CardSet, policies: list[Policy]):
    """Per-game, per-player DataFrame of a FastGames batch."""
    import pandas as pd
    n, P = out.share.shape
    # the policy names as the frame's string type (pandas 3: str, 2: object), repeated
    # by a take: converting n * P Python strings costs more than the rest of the frame
    names = pd.Series(np.array([p.name for p in policies], dtype=object)).array
    cols = {
        "game": np.repeat(np.arange(n, dtype=np.int64) + out.first_game, P),
        "player": np.tile(np.arange(P), n),
        "seat": out.res[:, :, R_SEAT].ravel(),
        "policy": names.take(np.tile(np.arange(P), n)),
        "score": out.res[:, :, R_SCORE].ravel(),
        "tokens_vp": out.res[:, :, R_TOKENS].ravel(),
        "adv_vp": out.res[:, :, R_ADV].ravel(),
        "vale_vp": out.res[:, :, R_VALE].ravel(),
        "tiebreak": out.res[:, :, R_TIE].ravel(),
        "win_share": out.share.ravel(),
        "spoils": out.res[:, :, R_SPOILS].ravel(),
        "harvests": out.res[:, :, R_HARVESTS].ravel(),
        "vp_from_box": out.res[:, :, R_BOX].ravel(),
        "rounds": np.repeat(out.gout[:, GO_ROUNDS], P),
        "truncated": np.repeat(out.gout[:, GO_TRUNC].astype(bool), P),
        "starting_player": np.repeat(out.gout[:, GO_START], P),
    }
    # acquired and vales are views of kind-major arrays: a kind's counts, game then
    # player, are one contiguous row (ravel makes no copy); pandas copies each into its
    # block once
    for k, a in enumerate(cs.advancements):
        if a.supply != "starter":
            cols[f"buy:{a.name}"] = out.acquired[:, :, k].ravel()
    for v, vale in enumerate(cs.vales):
        cols[f"vale:{vale.name}"] = out.vales[:, :, v].ravel()
    df = pd.DataFrame(cols)
    df.attrs["seed"] = out.seed
    return df


def outcomes(out: FastGames, cs: CardSet, policies: list[Policy]):
    """The :class:`~vale_sim.games.base.Outcomes` of a FastGames batch: the arrays
    of :func:`frame`'s columns the studies reduce, without the frame (views of the
    kernel's arrays: no copy)."""
    from vale_sim.games.base import CountColumns, Outcomes
    adv, vale = _count_rows(cs)
    # acquired and vales are [n, P, kinds] views of kind-major arrays: .T[k] is kind k
    counts = CountColumns(((adv, out.acquired.transpose(2, 0, 1)),
                           (vale, out.vales.transpose(2, 0, 1))))
    return Outcomes(first_game=out.first_game, policies=tuple(p.name for p in policies),
                    share=out.share, score=out.res[:, :, R_SCORE], seat=out.res[:, :, R_SEAT],
                    event=out.res[:, :, R_SPOILS], rounds=out.gout[:, GO_ROUNDS],
                    truncated=out.gout[:, GO_TRUNC].astype(bool), counts=counts)


_ROWS: dict = {}


def _count_rows(cs):
    """({"buy:<name>": kind}, {"vale:<name>": kind}) of :func:`frame`'s count columns."""
    hit = _ROWS.get(id(cs))
    if hit is not None and hit[0] is cs:
        return hit[1], hit[2]
    adv = {f"buy:{a.name}": k for k, a in enumerate(cs.advancements) if a.supply != "starter"}
    vale = {f"vale:{v.name}": k for k, v in enumerate(cs.vales)}
    if len(_ROWS) >= KEPT:
        del _ROWS[next(iter(_ROWS))]
    _ROWS[id(cs)] = (cs, adv, vale)
    return adv, vale


def run_outcomes(cs, players: int, seed: int, n_games: int, policies=None,
                 rules: Rules | None = None, first_game: int = 0):
    """The games of :func:`run_fast` as outcome arrays (``Game.run_outcomes``)."""
    cs = _card_set(cs)
    pols = policies_for(players, policies)
    out = simulate(cs, players, seed, n_games, pols, rules, first_game=first_game,
                   details=False)
    return outcomes(out, cs, pols)


def run_fast(cs, players: int, seed: int, n_games: int, policies=None,
              rules: Rules | None = None, first_game: int = 0):
    """n_games games as a DataFrame, one row per game and player.

    Columns: game, player, seat, policy, score, tokens_vp, adv_vp, vale_vp,
    tiebreak, win_share, spoils, harvests, vp_from_box, rounds, truncated,
    starting_player, then ``buy:<advancement>`` and ``vale:<vale>`` purchase
    counts.  ``df.attrs["seed"]`` records the seed.
    """
    cs = _card_set(cs)
    pols = policies_for(players, policies)
    out = simulate(cs, players, seed, n_games, pols, rules, first_game=first_game,
                   details=False)
    return frame(out, cs, pols)
