"""The shape of a game (issue 39 item 2; docs/luck.md §6): is it close, or does the
leader run away?  Shared by every game: the per-turn VP come from the game's
``Game.score_trace`` hook (each game's fast-engine trace), nothing here names a game.

Per field and player count, every player the field, one game per deal, each with a 95%
interval (games are independent: one game per deal):

* ``lead_changes``: times the sole leader (most VP after a round) changes, per game;
* ``comeback_rate``: the share of games won by a player who was ``behind`` VP or more
  behind the leader after the middle round;
* ``margin``: the winner's final score minus the runner-up's (mean, sd, quartiles);
* ``first_player``: the starting player's win share;
* ``decided_round``: from a turn-by-turn win-probability model (a logistic regression on
  the state after each round, isotonic-calibrated, fitted on the first half of the games), the
  first round after which the eventual winner's probability exceeds 90%, as a share of
  the game's rounds, on the held-out half; with the model's calibration error there
  (``calibration_error``: the expected calibration error over 10 bins, target <= 0.02).

Whether a push decision changes the winner is not measured: the engines cannot replay a
game from a decision point with the other choice (docs/luck.md §6).

    s = shape(game, players=3, deals=1000); print(text(s))
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from . import stats
from .errors import UserError

SHAPE_TAG = 139
DEFAULT_DEALS = 2000
DEFAULT_BEHIND = 5


def rounds_table(turns: pd.DataFrame, players: int) -> pd.DataFrame:
    """VP of every player after every round (the last value of the round, carried on)."""
    t = turns.groupby(["game", "round", "player"], sort=True)["vp"].last().unstack("player")
    t = t.reindex(columns=range(players))
    t = t.groupby(level="game").ffill().fillna(0)
    return t


def measures(trace: dict, players: int, behind: float = DEFAULT_BEHIND) -> pd.DataFrame:
    """One row per game: lead changes, the winner, whether it came back from ``behind``
    VP or more at mid-game, the final margin, the first player's share, the rounds."""
    R = rounds_table(trace["turns"], players)
    fin = trace["final"].sort_values(["game", "player"])
    share = fin.pivot(index="game", columns="player", values="win_share")
    score = fin.pivot(index="game", columns="player", values="score")
    seat = fin.pivot(index="game", columns="player", values="seat")
    rows = []
    for gid, part in R.groupby(level="game", sort=True):
        v = part.to_numpy(float)                    # (rounds, P)
        top = v.max(axis=1, keepdims=True)
        sole = (v == top).sum(axis=1) == 1
        leaders = np.where(sole, v.argmax(axis=1), -1)
        seq = [x for x in leaders if x >= 0]
        changes = sum(1 for a, b in zip(seq, seq[1:]) if a != b)
        sh = share.loc[gid].to_numpy(float)
        win = int(sh.argmax()) if sh.max() == 1 else -1          # a shared win: no winner
        mid = v[(len(v) - 1) // 2]
        gap = float(mid.max() - mid[win]) if win >= 0 else math.nan
        sc = np.sort(score.loc[gid].to_numpy(float))[::-1]
        first = int(np.flatnonzero(seat.loc[gid].to_numpy() == 0)[0])
        rows.append({"game": gid, "rounds": len(v), "lead_changes": changes, "winner": win,
                     "mid_gap": gap, "comeback": float(gap >= behind) if win >= 0 else 0.0,
                     "margin": float(sc[0] - sc[1]), "first_share": float(sh[first])})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# The win-probability model
# ---------------------------------------------------------------------------
def features(trace: dict, players: int) -> pd.DataFrame:
    """One row per (game, round, player): the state after the round and whether the
    player won (1 / k for a k-way shared win: labelled won only with a sole win)."""
    R = rounds_table(trace["turns"], players)
    v = R.to_numpy(float)
    games = R.index.get_level_values("game").to_numpy()
    rnd = R.index.get_level_values("round").to_numpy(float)
    fin = trace["final"].sort_values(["game", "player"])
    share = fin.pivot(index="game", columns="player", values="win_share")
    seat = fin.pivot(index="game", columns="player", values="seat")
    n_rounds = pd.Series(rnd).groupby(games).transform("max").to_numpy()
    rows = []
    for p in range(players):
        own = v[:, p]
        others = np.delete(v, p, axis=1)
        rows.append(pd.DataFrame({
            "game": games, "round": rnd, "player": p, "n_rounds": n_rounds,
            "lead": own - others.max(axis=1), "vs_mean": own - others.mean(axis=1),
            "own": own, "rank": (others > own[:, None]).sum(axis=1),
            "seat": seat.loc[games, p].to_numpy(float),
            "won": (share.loc[games, p].to_numpy(float) == 1).astype(int)}))
    return pd.concat(rows, ignore_index=True)


FEATURES = ("lead", "vs_mean", "own", "rank", "seat", "round", "lead_x_round")


def _x(df):
    d = df.assign(lead_x_round=df["lead"] * df["round"])
    return d[list(FEATURES)].to_numpy(float)


def calibration_error(p, y, bins: int = 10) -> float:
    """Expected calibration error: the mean |predicted - observed| over equal-width bins,
    weighted by the bin's share of the predictions."""
    p, y = np.asarray(p, float), np.asarray(y, float)
    idx = np.minimum((p * bins).astype(int), bins - 1)
    err = 0.0
    for b in range(bins):
        m = idx == b
        if m.any():
            err += m.mean() * abs(p[m].mean() - y[m].mean())
    return float(err)


def isotonic(x, y):
    """Pool-adjacent-violators: the non-decreasing fit of ``y`` on sorted ``x``; returns
    (x knots, fitted values) for :func:`numpy.interp`."""
    o = np.argsort(x, kind="stable")
    xs, ys = np.asarray(x, float)[o], np.asarray(y, float)[o]
    vals, wts, ends = [], [], []
    for i, v in enumerate(ys):
        vals.append(v)
        wts.append(1.0)
        ends.append(i)
        while len(vals) > 1 and vals[-2] > vals[-1]:
            w = wts[-2] + wts[-1]
            vals[-2] = (vals[-2] * wts[-2] + vals[-1] * wts[-1]) / w
            wts[-2] = w
            ends[-2] = ends[-1]
            vals.pop(), wts.pop(), ends.pop()
    starts = [0] + [e + 1 for e in ends[:-1]]
    kx = np.array([(xs[a] + xs[b]) / 2 for a, b in zip(starts, ends)])
    return kx, np.array(vals)


def win_model(df: pd.DataFrame, train_games) -> tuple:
    """A logistic regression of ``won`` on the state (:data:`FEATURES`; statsmodels),
    fitted on two thirds of ``train_games``, then calibrated by an isotonic map fitted on
    the last third; returns (predict function, held-out rows with ``p``)."""
    import statsmodels.api as sm
    train = np.asarray(sorted(train_games))
    fit_g, cal_g = set(train[: 2 * len(train) // 3]), set(train[2 * len(train) // 3:])
    X = _x(df)
    mu, sd = X.mean(axis=0), X.std(axis=0) + 1e-9
    Z = (X - mu) / sd                  # at 2 players vs_mean is lead: one column of each
    keep = [j for j in range(Z.shape[1]) if X[:, j].std() > 0
            and not any(np.allclose(Z[:, j], Z[:, i]) for i in range(j))]

    def design(rows):
        return sm.add_constant(((_x(rows) - mu) / sd)[:, keep], has_constant="add")
    a = df["game"].isin(fit_g)
    glm = sm.GLM(df.loc[a, "won"].to_numpy(float), design(df[a]),
                 family=sm.families.Binomial()).fit()
    c = df["game"].isin(cal_g)
    kx, ky = isotonic(glm.predict(design(df[c])), df.loc[c, "won"].to_numpy(float))

    def predict(rows):
        return np.interp(glm.predict(design(rows)), kx, ky)
    test = df[~df["game"].isin(set(train))].copy()
    test["p"] = predict(test)
    return predict, test


def decided(test: pd.DataFrame, threshold: float = 0.9) -> pd.DataFrame:
    """Per held-out game with a sole winner: the first round after which the eventual
    winner's probability is above ``threshold`` (its share of the game's rounds; 1 if
    never before the end)."""
    w = test[test["won"] == 1]
    rows = []
    for gid, part in w.groupby("game", sort=True):
        part = part.sort_values("round")
        above = part["round"][part["p"] > threshold]
        n = float(part["n_rounds"].iloc[0])
        r = float(above.iloc[0]) if len(above) else n
        rows.append({"game": gid, "round": r, "share_of_game": r / n})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# The whole study
# ---------------------------------------------------------------------------
def _est(values, pct=False) -> dict:
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    e = stats.cluster_ratio(v, None, None)
    return {"value": e.value, "lo": e.lo, "hi": e.hi, "n": int(v.size)}


def summarise(m: pd.DataFrame, test=None, dec=None, players: int = 2) -> dict:
    q = np.quantile(m["margin"], [0.25, 0.5, 0.75]) if len(m) else [math.nan] * 3
    out = {"games": int(len(m)),
           "lead_changes": _est(m["lead_changes"]),
           "comeback_rate": _est(m["comeback"]),
           "margin": {**_est(m["margin"]), "sd": float(m["margin"].std()),
                      "q25": float(q[0]), "median": float(q[1]), "q75": float(q[2])},
           "first_player": {**_est(m["first_share"]), "fair": 1 / players},
           "rounds": _est(m["rounds"])}
    if test is not None:
        out["calibration_error"] = calibration_error(test["p"], test["won"])
        out["calibration_rows"] = int(len(test))
        out["held_out_games"] = int(test["game"].nunique())
        out["decided_round"] = _est(dec["round"])
        out["decided_share"] = _est(dec["share_of_game"])
    return out


def shape(game: str, players: int, deals: int = DEFAULT_DEALS, seed: int = 0, field=None,
          card_set=None, behind: float = DEFAULT_BEHIND, model: bool = True,
          trace=None) -> dict:
    """The shape of ``game`` at ``players`` players under ``field`` (default the strongest
    bundled field), every player the field, ``deals`` games.  ``trace``: for tests, a
    :func:`Game.score_trace`-like dict replacing the games."""
    from . import optimize as opt
    from .games import get_game
    from .strong_field import field_name
    from .tournament import resolve_card_set
    g = get_game(game)
    name = field or field_name(g.name, players)
    if trace is None:
        if g.score_trace is None:
            raise UserError(f"{g.name} has no per-turn scores (Game.score_trace)")
        cs = resolve_card_set(g.default_card_set if card_set is None else card_set,
                              players, g.name)
        pol = g.resolve_baseline(name, players, cs)
        trace = g.score_trace(cs, players, opt.derived_seed(seed, SHAPE_TAG), deals, [pol],
                              g.rules_class(), 0)
    m = measures(trace, players, behind)
    test = dec = None
    if model:
        df = features(trace, players)
        ids = np.array(sorted(df["game"].unique()))
        _, test = win_model(df, ids[: len(ids) // 2])
        dec = decided(test)
    out = summarise(m, test, dec, players)
    out.update({"game": g.name, "players": players, "field": name, "seed": seed,
                "behind": behind, "vp_meaning": trace.get("vp_meaning", "VP")})
    return out


def text(s: dict) -> str:
    def iv(d, pct=False, digits=2):
        f = (lambda x: f"{100 * x:.1f}") if pct else (lambda x: f"{x:.{digits}f}")
        return f"{f(d['value'])} [{f(d['lo'])}, {f(d['hi'])}]"
    lines = [f"{s['game']}, {s['players']} players, field {s['field']}: {s['games']} games "
             f"(one per deal, every player the field; VP after each round: {s['vp_meaning']}); "
             f"95% intervals.",
             f"  lead changes per game {iv(s['lead_changes'])}",
             f"  comeback rate (won from {s['behind']:g}+ VP behind at mid-game) "
             f"{iv(s['comeback_rate'], True)}%",
             f"  final margin (winner - runner-up) mean {iv(s['margin'], digits=1)} VP, sd "
             f"{s['margin']['sd']:.1f}, quartiles {s['margin']['q25']:g} / "
             f"{s['margin']['median']:g} / {s['margin']['q75']:g}",
             f"  first player wins {iv(s['first_player'], True)}% (fair "
             f"{100 * s['first_player']['fair']:.1f})"]
    if "calibration_error" in s:
        lines.append(f"  the eventual winner's win probability first exceeds 90% after round "
                     f"{iv(s['decided_round'], digits=1)} ({iv(s['decided_share'], True)}% of "
                     f"the game; n = {s['held_out_games']} held-out games); the model's "
                     f"calibration error there {s['calibration_error']:.3f} (target <= 0.02, "
                     f"{s['calibration_rows']} held-out rows)")
    return "\n".join(lines)
