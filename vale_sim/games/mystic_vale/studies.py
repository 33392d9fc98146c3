"""Mystic Vale's studies under ``vale-sim run``: their config schemas, checks,
runners and game counts (the records are ``GAME.studies``, vale_sim/study.py).

``spoil_odds`` (exact odds with a simulation check), ``advancement_value``
(card strengths) and ``pool_sizes`` (VP pool size by player count).  The config
checkers are the shared ones of :mod:`vale_sim.experiments`.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

MAX_POOL_SIZES = 200        # pool sizes in one pool_sizes study (docs/runs.md)


def pool_grid_size(v) -> int:
    """How many pool sizes ``v`` ("lo:hi:step" or a list) names, counted without
    building the list (a 100-million-point range is refused at once)."""
    from vale_sim.inputs import parse_int
    if isinstance(v, list):
        return len(v)
    s = str(v).replace(" ", "")
    if ":" not in s:
        return len([x for x in s.split(",") if x])
    try:
        parts = [parse_int(x, negative=True) for x in s.split(":")]
    except ValueError:
        raise ValueError("must be \"lo:hi:step\" or a list of whole numbers") from None
    if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] < 1) or parts[1] < parts[0]:
        raise ValueError("must be \"lo:hi:step\" with lo <= hi and step >= 1")
    step = parts[2] if len(parts) == 3 else 1
    return (parts[1] - parts[0]) // step + 1


def _pools(v):
    from vale_sim.limits import MAX_POOL
    from .pools import parse_pools
    if isinstance(v, list) and any(isinstance(x, bool) or not isinstance(x, int) for x in v):
        raise ValueError("must be \"lo:hi:step\" or a list of whole numbers")
    if not isinstance(v, (str, list)):
        raise ValueError("must be \"lo:hi:step\" or a list of whole numbers")
    n = pool_grid_size(v)
    if n > MAX_POOL_SIZES:
        raise ValueError(f"names {n} pool sizes, more than the limit of {MAX_POOL_SIZES}; "
                         f"use a larger step")
    sizes = parse_pools(v, include_rulebook=False)
    if max(sizes) > MAX_POOL:
        raise ValueError(f"pool sizes must be at most {MAX_POOL}")
    return v


# ---------------------------------------------------------------------------
# Schemas: key -> (checker, default)
# ---------------------------------------------------------------------------
def spoil_odds_schema() -> dict:
    from vale_sim.experiments import _count, _int, _list_of, _str
    return {
        "decks": (_list_of(_str), ["starter", "druid", "grovetender", "thornhide"]),
        "pushes": (_int(1, 12), 6),
        "games": (_count(1), 10_000),          # simulation check per deck
    }


def advancement_value_schema() -> dict:
    from vale_sim.experiments import _bool, _choice, _count, _float, _int, _list_of, _str
    return {
        "players": (_int(2, 4), 2),
        "games": (_count(2), 1000),
        "observational_games": (_count(2), None),
        "baseline": (_str, None),        # None: the game's strongest bundled field
        "estimand": (_choice("natural", "prefer"), None),     # None: natural
        "tolerance": (_float(0.0, 1.0), 0.05),
        "explore_permille": (_int(0, 1000), 300),
        "cards": (_list_of(_str), None),
        "paired": (_bool, True),
    }


def pool_sizes_schema() -> dict:
    from vale_sim.experiments import _choice, _count, _players_list, _str
    return {
        "players": (_players_list, [2, 3, 4]),
        "pools": (_pools, "15:45:2"),
        "games": (_count(2), 500),
        "policy": (_str, None),          # the old name of baseline
        "baseline": (_str, None),
        "target": (_choice("equal-length", "seat-advantage"), "equal-length"),
    }


# ---------------------------------------------------------------------------
# Checks that need the card set
# ---------------------------------------------------------------------------
def check_spoil_odds(exp, cs) -> None:
    from vale_sim.experiments import _fail
    from .cards import CardSetError
    from .spoil import DeckError, load_deck
    for d in exp.config["decks"]:
        try:
            load_deck(d, cs)
        except (DeckError, CardSetError) as e:
            raise _fail(exp.path, "decks", str(e)) from None


def check_advancement_value(exp, cs) -> None:
    from vale_sim.advancements import analysed_cards
    from vale_sim.experiments import _fail
    from vale_sim.inputs import did_you_mean
    if not exp.config["cards"]:
        return
    known = {n for n, *_ in analysed_cards(cs, exp.game)}
    for n in exp.config["cards"]:
        if n not in known:
            hint = did_you_mean(n, sorted(known))
            raise _fail(exp.path, "cards", f"unknown card {n!r} (not a buyable card of set "
                                           f"{cs.name!r}){'; ' + hint if hint else ''}")


def check_pool_sizes(exp, cs) -> None:
    from vale_sim.experiments import _fail
    c = exp.config
    if c.get("baseline") and c.get("policy"):
        raise _fail(exp.path, "baseline", "give baseline or its old name policy, not both")
    if c["target"] == "equal-length" and 2 not in c["players"]:
        raise _fail(exp.path, "target", "equal-length compares with the 2-player game: include 2 in players")


# ---------------------------------------------------------------------------
# Game counts (without playing)
# ---------------------------------------------------------------------------
def estimate_spoil_odds(exp):
    return len(exp.config["decks"]) * exp.config["games"]


def estimate_advancement_value(exp):
    from vale_sim.advancements import analysed_cards
    from .cards import load_card_set
    c = exp.config
    cards = c["cards"] or [x[0] for x in analysed_cards(load_card_set(c["card_set"]), exp.game)]
    obs = c["observational_games"] or c["games"]
    return obs + (2 * len(cards) * c["games"] if c["paired"] else 0)


def estimate_pool_sizes(exp):
    from .pools import parse_pools
    c = exp.config
    grid = parse_pools(c["pools"], c["players"])
    return len(c["players"]) * len(grid) * c["games"]


# ---------------------------------------------------------------------------
# Runners: into results/NAME/, games through the chunk store
# ---------------------------------------------------------------------------
def run_spoil_odds(exp, out: Path, store, progress) -> dict:
    from vale_sim.experiments import RUNS_DIR, _write_csv
    from vale_sim.io import atomic_write
    from .cards import load_card_set
    from .spoil import simulate_spoil_odds, spoil_odds, spoil_row
    c = exp.config
    cs = load_card_set(c["card_set"])
    rows, results = [], {}
    cache = out / RUNS_DIR / "spoil"
    cache.mkdir(parents=True, exist_ok=True)
    for d in c["decks"]:
        ex = spoil_odds(d, c["pushes"], rules=exp.rules(), card_set=cs)
        key = hashlib.sha256(json.dumps([d, c["pushes"], c["games"], c["seed"], c["rules"],
                                         cs.digest()], default=str).encode()).hexdigest()[:16]
        cached = cache / f"{Path(str(d)).stem}-{key}.json"
        if cached.exists():
            sim = json.loads(cached.read_text())
            store.reused += 1
        else:
            sim = simulate_spoil_odds(d, c["pushes"], c["games"], c["seed"], exp.rules(),
                                      card_set=cs).to_dict()
            atomic_write(cached, json.dumps(sim))
            store.played += 1
        results[str(d)] = {"exact": ex.to_dict(), "simulated": sim}
        for k in range(1, c["pushes"] + 1):
            rows.append(spoil_row(str(d), k, ex.p_spoil_within[k],
                                  sim["p_spoil_within"][str(k)],
                                  sim["standard_errors"]["p_spoil_within"][str(k)], c["games"]))
    import pandas as pd
    _write_csv(pd.DataFrame(rows), out / "spoil_odds.csv")
    atomic_write(out / "spoil_odds.json", json.dumps(results, indent=1))
    return {"decks": len(c["decks"])}


def run_advancement_value(exp, out: Path, store, progress) -> dict:
    from vale_sim.advancements import advancement_report, report_records
    from vale_sim.experiments import _baseline, _write_csv
    from vale_sim.games.base import baseline_spec
    from vale_sim.io import atomic_write
    from vale_sim.strong_field import ESTIMAND, field_of
    c = exp.config
    # the game's strongest bundled field and the natural estimand unless the config says
    baseline = _baseline(c) or baseline_spec(field_of(exp.game), c["players"])
    df = advancement_report(c["card_set"], games=c["games"], players=c["players"],
                            seed=c["seed"], baseline=baseline, tolerance=c["tolerance"],
                            estimand=c.get("estimand") or ESTIMAND,
                            explore_permille=c["explore_permille"],
                            observational_games=c["observational_games"], cards=c["cards"],
                            rules=exp.rules(), engine=c["engine"], workers=c["workers"],
                            paired=c["paired"], play=store.play_frame)
    _write_csv(df, out / "advancement_values.csv")
    atomic_write(out / "advancement_values.json", json.dumps(report_records(df), indent=1))
    return {"cards": len(df), "field": df.attrs.get("baseline"),
            "estimand": df.attrs.get("estimand"),
            "flagged": int((df.get("flag", "") != "").sum()) if "flag" in df else 0}


def run_pool_sizes(exp, out: Path, store, progress) -> dict:
    from vale_sim.experiments import _save_fig, _write_csv
    from vale_sim.io import atomic_write
    from . import pools
    from .plots import pools as pplots
    c = exp.config
    players = c["players"]
    grid = pools.parse_pools(c["pools"], players)
    frame = pools.simulate_pools(c["card_set"], players, grid, games=c["games"], seed=c["seed"],
                                 baseline=c["baseline"] or c["policy"], engine=c["engine"],
                                 rules=exp.rules(),
                                 out=store, progress=progress,
                                 workers=c["workers"])
    summary = pools.summarize_pools(frame)
    recs = pools.recommend(summary, c["target"])
    _write_csv(pools.flat_table(summary), out / "pool_sizes.csv")
    _write_csv(pools.recommendations_frame(recs), out / "pool_recommendations.csv")
    atomic_write(out / "pool_sizes.json", json.dumps(pools.to_records(summary, recs), indent=1))
    for name, fig in (("pool_length", pplots.length_vs_pool(summary, recs)),
                      ("seat_advantage", pplots.seat_heatmap(summary))):
        _save_fig(fig, out / f"{name}.png", dpi=110, bbox_inches="tight")
    atomic_write(out / "recommendations.txt", "\n".join(r.sentence() for r in recs) + "\n")
    return {"cells": len(summary)}


def engine_used(exp) -> str:
    """The engine a Mystic Vale study uses: "fast" when numba works, else the reference."""
    from .pools import resolve_engine
    return resolve_engine("auto") if exp.config["engine"] == "fast" else "reference"
