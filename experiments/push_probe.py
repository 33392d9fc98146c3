"""Probe a value player's push decisions with rollouts: at push decisions of self-play games,
the win share of pushing once (then playing the policy) minus that of passing (then the
policy), K rollouts each on common hidden draws (the search player's rollout, docs/search.md),
next to what the "value" push rule of engine-spec §6.1 sees.  Then the least-squares fit

    adv = c + s × (E − H0) / 10⁴ + κ' × net(c)

(adv: the rollouts' win-share gain of pushing; E: the rule's expectimax of the Harvest value
after a push without bonus or carry, H0: the Harvest value now, both in the model's units of
1/10⁴ of a win; net(c): the on-deck card's net decay) gives the value rule's calibration:
``push_bonus ≈ 10⁴ c / s`` and ``carry_decay_cost ≈ 10⁴ κ' / s`` (docs/value.md §5.1).

    python experiments/push_probe.py --policy value-2p-push --games 300 --k 64
    python experiments/push_probe.py --policy value-2p --games 300 --k 64   # the lookahead push

Prints JSON: the decisions probed, the fit, and the gain (win share per player and game,
two-fold cross-validated by game) of deciding by the sign of the fit instead of the policy.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.fast import engine as E
from vale_sim.games.mystic_vale.fast import search as SR
from vale_sim.games.mystic_vale.fast.state import (CC, CC_N, DECK, DHEAD, DISC, DISC_N, DN,
                                                   FIELD_N, G_GAME, G_NO_DETAILS, G_POOL,
                                                   G_RNG, G_ROUND, G_START, G_TRACING, GAME,
                                                   ON_DECK, PS_SKIP, PS_SPOILS, PS_TOKEN,
                                                   PS_TURN, PS_VALES_NEW, R_N, TR,
                                                   TR_N_BOUGHT, TR_N_VALES, new_state)
from vale_sim.games.mystic_vale.fast.tables import (O_MAX_ROUNDS, O_PLAYERS, OPTS,
                                                    P_DISCARD_PLAYS, card_tables,
                                                    policy_tables)
from vale_sim.games.mystic_vale.policy import get_policy
from vale_sim.kernels.search import WIN_POINTS, rollout_key

COLS = ("round", "player", "pushes", "n", "bad", "h0", "h1", "total", "d2", "pushed",
        "q_push", "q_pass", "stage", "token", "net_on_deck", "showing", "game")


@njit
def plain_terms(T, S, Q, p, n):
    """(H0, H1, total, d2, stage) of the value rule without bonus and carry."""
    mana, a, f, sk, w, vp, extra = E.harvest_totals(T, S, p)
    pool = S[GAME, G_POOL]
    st = E.stage_at(T, Q, p, pool - (vp if vp < pool else pool))
    tok = E.token_bonus(S, Q, p)
    lim = 2 + extra
    for i in range(E.VM_CLEAR):
        S[GAME, E.VMEMO + i] = E.VM_UNKNOWN
    E.list_adv_candidates(T, S, Q, p, st)
    S[GAME, E.VV_N] = -1
    h0 = E.harvest_value(T, S, Q, p, st, tok, lim, mana, a, f, sk, w, vp)
    c = S[p, ON_DECK]
    m1, a1, f1, sk1, w1, vp1, _x = E.field_totals(T, S, p, c, -1)
    h1 = E.harvest_value(T, S, Q, p, st, tok, lim, m1, a1, f1, sk1, w1, vp1)
    thr = 4 - E.decay_showing(T, S, p)
    lo = DECK + S[p, DHEAD] if S[p, DHEAD] < S[p, DN] else DISC
    if n > 1:
        n2 = n - 1
    elif S[p, DHEAD] < S[p, DN]:
        n2 = S[p, DISC_N]
    else:
        n2 = 0
    d2 = n2 if n2 > 0 else 1
    total = 0
    for j in range(n):
        r = S[p, lo + j]
        nr = E.net(S, p, r)
        if nr >= thr:
            continue
        m2, a2, f2, sk2, w2, vp2, _x = E.field_totals(T, S, p, c, r)
        h2 = E.harvest_value(T, S, Q, p, st, tok, lim, m2, a2, f2, sk2, w2, vp2)
        if n2 == 0:
            cont = h2
        elif n > 1:
            t = thr - nr
            cont = (E.pool_below(S, p, lo, n, t) - (1 if nr < t else 0)) * h2
        else:
            cont = E.pool_below(S, p, DISC, n2, thr - nr) * h2
        stop = d2 * h1
        total += cont if cont > stop else stop
    return h0, h1, total, d2, st


@njit
def probe_game(T, S, D, Q, W, RES, SH, seed, gi, K, out, m):
    """One self-play game of Q in every seat; each push decision probed into out[m:]."""
    P = T[OPTS, O_PLAYERS]
    E.setup(T, S, Q, seed, gi)
    S[GAME, G_GAME] = gi
    S[GAME, G_TRACING] = 0
    S[GAME, G_NO_DETAILS] = 1
    rnd = 0
    dec = 0
    while True:
        rnd += 1
        S[GAME, G_ROUND] = rnd
        for j in range(P):
            p = (S[GAME, G_START] + j) % P
            S[TR, TR_N_BOUGHT] = 0
            S[TR, TR_N_VALES] = 0
            S[p, PS_TURN] += 1
            if S[p, PS_VALES_NEW] != 0:
                S[p, PS_VALES_NEW] = 0
                E.vale_summary(T, S, p)
            if S[p, PS_SKIP] != 0:
                S[p, PS_SKIP] = 0
            else:
                pushes = 0
                spoiled = False
                while S[p, ON_DECK] >= 0 and pushes < 200:
                    SR.push_options(T, S, Q, p, W)       # W[0]: the policy's choice
                    dec += 1
                    thr = 4 - E.decay_showing(T, S, p)
                    bad = 0
                    if S[p, DHEAD] < S[p, DN]:
                        n = S[p, DN] - S[p, DHEAD]
                        for q in range(S[p, DHEAD], S[p, DN]):
                            if E.net(S, p, S[p, DECK + q]) >= thr:
                                bad += 1
                    else:
                        n = S[p, DISC_N]
                        for q in range(n):
                            if E.net(S, p, S[p, DISC + q]) >= thr:
                                bad += 1
                    if n > 0 and m < out.shape[0]:
                        h0, h1, total, d2, st = plain_terms(T, S, Q, p, n)
                        key = S[GAME, G_RNG:G_RNG + 2].view(np.uint64)[0]
                        q0 = 0
                        q1 = 0
                        for i in range(K):
                            k = rollout_key(key, np.uint64(dec), np.uint64(i))
                            q0 += SR.rollout(T, S, D, Q, W, RES, SH, p, rnd, SR.PH_PUSH, 0, 0,
                                             pushes, 0, k)
                            q1 += SR.rollout(T, S, D, Q, W, RES, SH, p, rnd, SR.PH_PUSH, 1, 0,
                                             pushes, 0, k)
                        d = W[0, SR.W_A]
                        row = out[m]
                        row[0], row[1], row[2], row[3], row[4] = rnd, p, pushes, n, bad
                        row[5], row[6], row[7], row[8], row[9] = h0, h1, total, d2, d
                        row[10] = q0 if d == 1 else q1
                        row[11] = q1 if d == 1 else q0
                        row[12], row[13] = st, S[p, PS_TOKEN]
                        row[14] = E.net(S, p, S[p, ON_DECK])
                        row[15] = 4 - thr
                        row[16] = gi
                        m += 1
                    if W[0, SR.W_A] == 0:
                        break
                    pushes += 1
                    E.play_on_deck(S, p, pushes <= Q[p, P_DISCARD_PLAYS])
                    if E.spoil_check(T, S, p):
                        spoiled = True
                        break
                if spoiled:
                    S[p, PS_TOKEN] = 1
                    S[p, PS_SPOILS] += 1
                else:
                    E.harvest(T, S, Q, p, rnd)
            E.discard_phase(T, S, p)
            E.prep(T, S, p, Q[p, P_DISCARD_PLAYS])
        if S[GAME, G_POOL] == 0 or rnd >= T[OPTS, O_MAX_ROUNDS]:
            break
    return m


def analyse(L: np.ndarray, K: int) -> dict:
    c = {name: L[:, i].astype(float) for i, name in enumerate(COLS)}
    adv = (c["q_push"] - c["q_pass"]) / (K * WIN_POINTS)
    e_minus_h0 = (c["total"] / (c["n"] * c["d2"]) - c["h0"]) / 1e4
    one = np.ones(len(adv))
    X = np.column_stack([one, e_minus_h0, c["net_on_deck"]])
    b, *_ = np.linalg.lstsq(X, adv, rcond=None)
    games = c["game"].astype(int)
    n_games = len(np.unique(games))
    gains = {}
    for name, cols in {"E-H0": [one, e_minus_h0],
                       "E-H0, net(on deck)": [one, e_minus_h0, c["net_on_deck"]]}.items():
        Xs = np.column_stack(cols)
        dn = np.zeros(len(adv))
        for f in (0, 1):
            tr, te = games % 2 != f, games % 2 == f
            bf, *_ = np.linalg.lstsq(Xs[tr], adv[tr], rcond=None)
            dn[te] = (Xs[te] @ bf) >= 0
        g = (dn - c["pushed"]) * adv
        per = len(adv) / n_games / 2           # decisions per player and game
        gains[name] = {"switched": float((dn != c["pushed"]).mean()),
                       "gain_per_player_game": float(g.mean() * per),
                       "se": float(g.std() / np.sqrt(len(g)) * per)}
    return {"decisions": int(len(adv)), "push_rate": float(c["pushed"].mean()),
            "mean_adv_when_pushing": float(adv[c["pushed"] == 1].mean()),
            "mean_adv_when_passing": float(adv[c["pushed"] == 0].mean()),
            "fit": {"intercept": float(b[0]), "slope": float(b[1]), "net_on_deck": float(b[2]),
                    "push_bonus": float(1e4 * b[0] / b[1]),
                    "carry_decay_cost": float(1e4 * b[2] / b[1])},
            "gain_of_deciding_by_the_fit": gains}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="value-2p-push")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--save", default=None, help="also save the decisions (.npy)")
    a = ap.parse_args(argv)
    cs = load_card_set("core")
    pol = get_policy(a.policy)
    T = card_tables(cs, 2)
    Q = policy_tables(cs, [pol, pol]).copy()      # rollout() writes nothing to Q
    S, D = new_state(T), new_state(T)
    W = np.zeros((SR.MAX_OPTIONS, SR.W_N), np.int64)
    RES, SH = np.zeros((2, R_N), np.int64), np.zeros(2, np.float64)
    out = np.zeros((a.games * 120, len(COLS)), np.int64)
    t, m = time.time(), 0
    for g in range(a.games):
        m = probe_game(T, S, D, Q, W, RES, SH, np.uint64(a.seed), np.uint64(g), a.k, out, m)
    if a.save:
        np.save(a.save, out[:m])
    res = {"policy": a.policy, "games": a.games, "k": a.k, "seed": a.seed,
           **analyse(out[:m], a.k), "seconds": round(time.time() - t, 1)}
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
