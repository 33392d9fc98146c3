"""Mystic Lands settings studies: the end trigger, market growth, wither and rain.

    e = end_trigger_study(players=(2, 4), deals=150)      # vary end_vp, end_cubes, end_bonus
    m = market_growth_study(deals=40)                      # vary market_growth_vp
    w = wither_rain_study(deals=30, value_deals=150)       # withers by policy, rain supply, Rain's value

Each study plays its variants (rule options changed one at a time from the
manual's game) on the same deals and reports, per variant and player count,
numbers with 95% intervals and ``n`` (deals; games or player-games where
that is the unit), and for every variant its paired difference from the
manual's game (deal by deal).  A line-up of different policies plays every deal
once per seating (vale_sim.seating: all 24 orders of four policies), and
intervals over the games of one deal are clustered by deal.  See docs/mystic-lands-studies.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import common as C
from vale_sim.games import get_game

MANUAL = "manual"


def one_at_a_time(options: dict, game: str = C.GAME) -> dict:
    """``{"end_vp": [20, 30], ...}`` -> ``{"manual": {}, "end_vp=20": {"end_vp": 20}, ...}``
    (values equal to the manual's are skipped: the manual's game is always first)."""
    base = get_game(game).rules_class()
    out = {MANUAL: {}}
    for k, values in options.items():
        for v in values:
            v = tuple(v) if isinstance(v, list) else v
            if getattr(base, k, object()) == v:
                continue
            text = "/".join(map(str, v)) if isinstance(v, tuple) else str(v)
            out[f"{k}={text}"] = {k: v}
    return out


def _rules(variants: dict, game: str = C.GAME) -> dict:
    return {lab: C.variant_rules(ch, game, where=f"variant {lab}") for lab, ch in variants.items()}


@dataclass
class SettingsStudy:
    name: str
    config: dict
    table: pd.DataFrame                      # per players and variant
    extra: dict = field(default_factory=dict)   # other tables (per policy ...)
    frame: pd.DataFrame | None = None

    def to_json(self) -> dict:
        return C.clean({"study": self.name, "config": self.config,
                        "table": C.records(self.table),
                        **{k: C.records(v) for k, v in self.extra.items()}})


# ---------------------------------------------------------------------------
# What every settings study reports per variant
# ---------------------------------------------------------------------------
def variant_table(frame: pd.DataFrame, players: int, rules: dict) -> pd.DataFrame:
    """Per variant: game length, what ends games, seat 1's win rate and the largest
    seat gap, the winner's score margin, the triggering player's win share, and
    game length / seat 1 / margin as paired differences from the manual's game."""
    games = C.per_game(frame, rules)
    fair = 1 / players
    rows = []
    ref = games[games["variant"] == MANUAL]
    ref_rounds = C.deal_means(ref["rounds"], ref["deal"])
    ref_margin = C.deal_means(ref["margin"], ref["deal"])
    fm = frame[frame["variant"] == MANUAL]
    ref_seat1 = C.deal_means(fm.loc[fm["seat"] == 0, "win_share"], fm.loc[fm["seat"] == 0, "deal"])
    for lab in rules:
        g = games[games["variant"] == lab]
        f = frame[frame["variant"] == lab]
        row = {"players": players, "variant": lab, "n_deals": int(g["deal"].nunique()),
               "n_games": len(g)}
        row.update(C.estimate_row("rounds", C.mean_by_deal(g["rounds"], g["deal"])))
        for kind in ("VP", "cubes", "both", "none"):
            row.update(C.estimate_row(f"ends_{kind}",
                                      C.rate_by_deal(g["trigger"] == kind, g["deal"])))
        s1 = f[f["seat"] == 0]
        row.update(C.estimate_row("seat1_win", C.rate_by_deal(s1["win_share"], s1["deal"])))
        gaps = [abs(f.loc[f["seat"] == s, "win_share"].mean() - fair) for s in range(players)]
        row["max_seat_gap"] = float(max(gaps))
        row.update(C.estimate_row("margin", C.mean_by_deal(g["margin"], g["deal"])))
        t = g[g["trigger_seat"] >= 0]
        row.update(C.estimate_row("trigger_win", C.rate_by_deal(t["trigger_win"], t["deal"])))
        row["fair"] = fair
        row["truncated"] = int(g["truncated"].sum())
        if lab != MANUAL:
            row.update(C.paired_row("d_rounds", C.paired(C.deal_means(g["rounds"], g["deal"]),
                                                         ref_rounds)))
            row.update(C.paired_row("d_seat1_win", C.paired(
                C.deal_means(s1["win_share"], s1["deal"]), ref_seat1, bound=1.0)))
            row.update(C.paired_row("d_margin", C.paired(C.deal_means(g["margin"], g["deal"]),
                                                         ref_margin)))
        rows.append(row)
    return pd.DataFrame(rows)


def policy_table(frame: pd.DataFrame, players: int, variants) -> pd.DataFrame:
    """Per variant and policy (a line-up in every seating): win rate, withers per turn and
    per player-game, score; intervals clustered by deal."""
    rows = []
    for lab in variants:
        f = frame[frame["variant"] == lab]
        for pol, x in f.groupby("policy", sort=False):
            row = {"players": players, "variant": lab, "policy": pol,
                   "n_player_games": len(x), "n_deals": int(x["deal"].nunique())}
            row.update(C.estimate_row("win_rate", C.rate_by_deal(x["win_share"], x["deal"])))
            wt = C.ratio_by_deal(x["withers"], x["turns"], x["deal"])
            row.update(C.estimate_row("withers_per_turn", wt))
            row.update(C.estimate_row("withers_per_game", C.mean_by_deal(x["withers"], x["deal"])))
            row.update(C.estimate_row("score", C.mean_by_deal(x["score"], x["deal"])))
            rows.append(row)
    return pd.DataFrame(rows)


def spread_table(frame: pd.DataFrame, players: int, variants, reps: int = 1000,
                 seed: int = 0) -> pd.DataFrame:
    """Per variant: the spread of strategies -- the standard deviation of the
    line-up's policy win rates (0: every strategy equally good) -- with a
    bootstrap interval over whole deals, and its paired difference from the
    manual's game (the same resampled deals for both)."""
    pols = list(dict.fromkeys(frame["policy"]))
    deals = np.sort(frame["deal"].unique())
    w = {}
    for lab in variants:
        f = frame[frame["variant"] == lab]
        m = f.pivot_table(index="policy", columns="deal", values="win_share", aggfunc="mean")
        w[lab] = m.reindex(index=pols, columns=deals).to_numpy(float)
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(deals.size, np.full(deals.size, 1 / deals.size), size=reps) / deals.size

    def sd(mat, wts):
        return np.std(mat @ wts.T, axis=0)              # per resample, SD across policies

    rows = []
    ref_b = sd(w[MANUAL], weights)
    for lab in variants:
        point = float(np.std(w[lab].mean(axis=1)))
        b = sd(w[lab], weights)
        row = {"players": players, "variant": lab, "policies": len(pols), "n_deals": deals.size,
               "spread": point, "spread_lo": float(np.quantile(b, 0.025)),
               "spread_hi": float(np.quantile(b, 0.975))}
        if lab != MANUAL:
            d = b - ref_b
            row.update({"d_spread": point - float(np.std(w[MANUAL].mean(axis=1))),
                        "d_spread_lo": float(np.quantile(d, 0.025)),
                        "d_spread_hi": float(np.quantile(d, 0.975))})
        rows.append(row)
    return pd.DataFrame(rows)


def _seatings_per_deal(lineup) -> int:
    """Games per deal and variant of a line-up played in every seating (vale_sim.seating)."""
    from vale_sim.seating import seatings
    return len(seatings(C.lineup_roles(lineup)))


def _config(**kw) -> dict:
    kw["card_set"] = str(kw["card_set"]) if kw.get("card_set") is not None else None
    return kw


# ---------------------------------------------------------------------------
# End trigger
# ---------------------------------------------------------------------------
END_OPTIONS = {"end_vp": [20, 30], "end_cubes": [8, 12], "end_bonus": [0, 10]}


def end_trigger_study(players=(2, 4), deals: int = 150, seed: int = 2, options=None,
                      policy: str = "balanced", card_set=None, engine: str = "auto",
                      workers: int = 1, progress: bool = True, keep_frame: bool = False
                      ) -> SettingsStudy:
    """Vary the VP threshold, the cube count and the +bonus one at a time.
    ``options``: option -> list of values (default :data:`END_OPTIONS`).  ``policy``: every
    seat's (``{P}``: the player count, e.g. ``meta-{P}p``)."""
    from vale_sim.games import get_game
    from vale_sim.games.base import baseline_label, baseline_spec
    players = C.check_players(players)
    C.check_count("deals", deals, 2)
    try:
        pols = {k: get_game(C.GAME).resolve_baseline(baseline_spec(policy, k), k)
                for k in players}
    except ValueError as e:
        raise C.StudyError(f"policy: {e}") from None
    variants = one_at_a_time(options or END_OPTIONS)
    rules = _rules(variants)
    tables, frames = [], []
    for k in players:
        df = C.play_variants(rules, k, deals, seed, (pols[k],), card_set=card_set, engine=engine,
                             workers=workers, progress=progress, desc=f"end trigger, {k} players")
        tables.append(variant_table(df, k, rules))
        if keep_frame:
            frames.append(df)
    cfg = _config(players=list(players), deals=deals, seed=seed, policy=baseline_label(policy),
                  policy_by_players={str(k): pols[k].name for k in players},
                  engine=C.resolve_engine(engine), variants=variants, card_set=card_set)
    return SettingsStudy("end-trigger", cfg, pd.concat(tables, ignore_index=True),
                         frame=pd.concat(frames, ignore_index=True) if keep_frame else None)


# ---------------------------------------------------------------------------
# Market growth
# ---------------------------------------------------------------------------
GROWTH_VARIANTS = {MANUAL: (5, 15), "first=3": (3, 15), "first=10": (10, 15),
                   "second=10": (5, 10), "second=20": (5, 20), "never": (1000, 1000)}
LINEUP = ("balanced", "greedy", "spirit", "vp")


def growth_variants(points=None) -> dict:
    """Label -> {"market_growth_vp": (first, second)}; ``points``: label -> (first, second)
    (default :data:`GROWTH_VARIANTS`; the manual's (5, 15) is always first)."""
    pts = dict(points or GROWTH_VARIANTS)
    base = tuple(get_game(C.GAME).rules_class().market_growth_vp)
    out = {MANUAL: {}}
    for lab, p in pts.items():
        p = tuple(p)
        if p == base:
            continue
        out[lab] = {"market_growth_vp": p}
    return out


def market_growth_study(players: int = 4, deals: int = 40, seed: int = 3, points=None,
                        lineup=LINEUP, card_set=None, engine: str = "auto", workers: int = 1,
                        progress: bool = True, keep_frame: bool = False) -> SettingsStudy:
    """Vary the VP at which the two dual slots turn level 2; a line-up of different
    policies, every deal played in every seating (24 for four policies), measures
    the spread of strategies (their win rates)."""
    (players,) = C.check_players([players])
    C.check_count("deals", deals, 2)
    lineup = tuple(lineup)
    if len(lineup) != players:
        raise C.StudyError(f"lineup needs {players} policies (one per player), got {len(lineup)}")
    variants = growth_variants(points)
    rules = _rules(variants)
    df = C.play_variants(rules, players, deals, seed, lineup, rotate=True, card_set=card_set,
                         engine=engine, workers=workers, progress=progress,
                         desc=f"market growth, {players} players")
    table = variant_table(df, players, rules)
    g = get_game(C.GAME)
    cs = g.load_card_set(card_set if card_set is not None else g.default_card_set)
    level2 = [a for a in cs.advances if getattr(a, "level", 0) == 2]
    l2 = [c for c in (f"buy:{a.name}" for a in level2) if c in df.columns]
    df["level2_bought"] = df[l2].sum(axis=1) if l2 else 0
    supply = sum(int(getattr(a, "copies", 1)) for a in level2)   # the whole Level 2 supply
    for i, lab in enumerate(rules):
        x = df[df["variant"] == lab]
        e = C.mean_by_deal(x["level2_bought"], x["deal"])
        # a game is (seating, game): did its players buy every Level 2 copy?
        g = x.groupby(["rotation", "game"]).agg(bought=("level2_bought", "sum"),
                                                deal=("deal", "first"))
        out = C.rate_by_deal((g["bought"] >= supply).astype(float), g["deal"])
        table.loc[table["variant"] == lab,
                  ["level2", "level2_lo", "level2_hi", "level2_supply", "level2_sold_out",
                   "level2_sold_out_lo", "level2_sold_out_hi"]] = \
            [e.value, e.lo, e.hi, supply, out.value, out.lo, out.hi]
    extra = {"policies": policy_table(df, players, rules),
             "spread": spread_table(df, players, rules, seed=seed)}
    cfg = _config(players=players, deals=deals, seed=seed, lineup=list(lineup),
                  seatings_per_deal=_seatings_per_deal(lineup),
                  engine=C.resolve_engine(engine),
                  variants={k: v.get("market_growth_vp", (5, 15)) for k, v in variants.items()},
                  card_set=card_set)
    return SettingsStudy("market-growth", cfg, table, extra, df if keep_frame else None)


# ---------------------------------------------------------------------------
# Wither and rain
# ---------------------------------------------------------------------------
RAIN_SUPPLIES = (0, 10, 40)
WITHER_LINEUP = ("balanced", "cautious", "greedy", "rain-dancer")


def no_rain(policy: str = "balanced"):
    """``policy`` that never places Rain tokens (field ``rain = "never"``)."""
    import dataclasses
    base = get_game(C.GAME).get_policy(policy)
    return dataclasses.replace(base, name=f"{base.name}:no-rain", rain="never")


def rain_value(players: int = 2, deals: int = 150, seed: int = 4, policy: str = "balanced",
               card_set=None, engine: str = "auto", workers: int = 1, progress: bool = True
               ) -> pd.DataFrame:
    """The value of using Rain tokens: a focal player who never places them against
    one who does (``policy``), each against ``players - 1`` copies of ``policy``,
    rotated through every seat on the same deals.  Per deal, the focal
    win share, score and withers; the table gives the paired differences."""
    rules = {MANUAL: get_game(C.GAME).rules_class()}
    arms = {}
    for arm, focal in (("uses rain", policy), ("never rains", no_rain(policy))):
        lineup = (focal,) + (policy,) * (players - 1)
        df = C.play_variants(rules, players, deals, seed, lineup, rotate=True, card_set=card_set,
                             engine=engine, workers=workers, progress=progress,
                             desc=f"rain value ({arm})",
                             roles=("focal",) + ("field",) * (players - 1))
        arms[arm] = df[df["slot"] == 0]
    rows = []
    fair = 1 / players
    for col, what in (("win_share", "win share"), ("score", "score"), ("withers", "withers")):
        a = C.deal_means(arms["never rains"][col], arms["never rains"]["deal"])
        b = C.deal_means(arms["uses rain"][col], arms["uses rain"]["deal"])
        d = C.paired(a, b, bound=1.0 if col == "win_share" else None)
        if col == "win_share":
            ea = C.rate_by_deal(arms["never rains"][col], arms["never rains"]["deal"])
            eb = C.rate_by_deal(arms["uses rain"][col], arms["uses rain"]["deal"])
        else:
            ea = C.mean_by_deal(arms["never rains"][col], arms["never rains"]["deal"])
            eb = C.mean_by_deal(arms["uses rain"][col], arms["uses rain"]["deal"])
        rows.append({"players": players, "measure": what, "n_deals": d.n,
                     "n_player_games": len(arms["uses rain"]),
                     "uses_rain": eb.value, "uses_rain_lo": eb.lo, "uses_rain_hi": eb.hi,
                     "never_rains": ea.value, "never_rains_lo": ea.lo, "never_rains_hi": ea.hi,
                     **C.paired_row("difference", d), "fair": fair if col == "win_share" else None})
    return pd.DataFrame(rows)


def wither_rain_study(players: int = 4, deals: int = 30, seed: int = 5, supplies=RAIN_SUPPLIES,
                      lineup=WITHER_LINEUP, value_players: int = 2, value_deals: int = 150,
                      card_set=None, engine: str = "auto", workers: int = 1,
                      progress: bool = True, keep_frame: bool = False) -> SettingsStudy:
    """How often players Wither, by policy; how the Rain supply (an "X" of the
    manual; 20 is our estimate) changes play; the value of using Rain tokens."""
    (players,) = C.check_players([players])
    C.check_players([value_players])
    C.check_count("deals", deals, 2)
    lineup = tuple(lineup)
    if len(lineup) != players:
        raise C.StudyError(f"lineup needs {players} policies (one per player), got {len(lineup)}")
    for s in supplies:
        C.check_count("rain supply", s, 0)
    variants = one_at_a_time({"rain_supply": list(supplies)})
    rules = _rules(variants)
    df = C.play_variants(rules, players, deals, seed, lineup, rotate=True, card_set=card_set,
                         engine=engine, workers=workers, progress=progress,
                         desc=f"wither and rain, {players} players")
    table = variant_table(df, players, rules)
    pol = policy_table(df, players, rules)
    # paired change of withers per player-game against the manual's supply
    ref = df[df["variant"] == MANUAL]
    for lab in rules:
        x = df[df["variant"] == lab]
        e = C.ratio_by_deal(x["withers"], x["turns"], x["deal"])
        table.loc[table["variant"] == lab, ["withers_per_turn", "withers_per_turn_lo",
                                           "withers_per_turn_hi"]] = [e.value, e.lo, e.hi]
        if lab != MANUAL:
            d = C.paired(C.deal_means(x["withers"], x["deal"]),
                         C.deal_means(ref["withers"], ref["deal"]))
            table.loc[table["variant"] == lab, ["d_withers", "d_withers_lo", "d_withers_hi"]] = \
                [d.mean, d.lo, d.hi]
    extra = {"policies": pol}
    if value_deals:
        C.check_count("value_deals", value_deals, 2)
        extra["rain_value"] = rain_value(value_players, value_deals, seed, card_set=card_set,
                                         engine=engine, workers=workers, progress=progress)
    cfg = _config(players=players, deals=deals, seed=seed, lineup=list(lineup),
                  seatings_per_deal=_seatings_per_deal(lineup),
                  engine=C.resolve_engine(engine),
                  supplies=[get_game(C.GAME).rules_class().rain_supply] + list(supplies),
                  value_players=value_players, value_deals=value_deals, card_set=card_set)
    return SettingsStudy("wither-rain", cfg, table, extra, df if keep_frame else None)
