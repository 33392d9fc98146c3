"""The settings studies of Mystic Lands under ``vale-sim run``: config schemas,
checks and the runner (the records are ``GAME.studies``, vale_sim/study.py).
Each writes JSON, one CSV per table and its figure."""
from __future__ import annotations

import json
from pathlib import Path


def seat_compensation_schema() -> dict:
    from vale_sim.experiments import MAX_GAMES, _choice, _float, _int, _int_or_auto, _players_list, _str
    return {
        "players": (_players_list, [2, 3, 4]),
        "deals": (_int_or_auto(2, MAX_GAMES), None),          # None ("auto"): seats.auto_deals
        "confirm_deals": (_int_or_auto(2, MAX_GAMES), None),  # None: as many as deals
        "grid": (_choice("ladder", "monotone"), "ladder"),
        "margin": (_float(0.0, 1.0), 0.03),
        "policy": (_str, "balanced"),
        "max_mana": (_int(0, 10), 2),
        "max_spirit": (_int(0, 10), 1),
    }


def end_trigger_schema() -> dict:
    from vale_sim.experiments import _count, _int, _list_of, _players_list, _str
    return {
        "players": (_players_list, [2, 4]),
        "deals": (_count(2, "deals"), 150),
        "end_vp": (_list_of(_int(0, 1000), 0), [20, 30]),
        "end_cubes": (_list_of(_int(0, 1000), 0), [8, 12]),
        "end_bonus": (_list_of(_int(0, 1000), 0), [0, 10]),
        "policy": (_str, "balanced"),
    }


def market_growth_schema() -> dict:
    from vale_sim.experiments import _bool, _count, _int, _list_of, _str
    return {
        "deals": (_count(2, "deals"), 40),
        "first": (_list_of(_int(0, 10_000), 0), [3, 10]),
        "second": (_list_of(_int(0, 10_000), 0), [10, 20]),
        "never": (_bool, True),
        "lineup": (_list_of(_str, 2), ["balanced", "greedy", "spirit", "vp"]),
    }


def wither_rain_schema() -> dict:
    from vale_sim.experiments import _count, _int, _list_of, _str
    return {
        "deals": (_count(2, "deals"), 30),
        "supplies": (_list_of(_int(0, 10_000), 0), [0, 10, 40]),
        "lineup": (_list_of(_str, 2), ["balanced", "cautious", "greedy", "rain-dancer"]),
        "value_deals": (_count(0, "deals"), 150),
    }


def check(exp, cs) -> None:
    """A line-up of one policy per player; the rule values the study will vary."""
    from vale_sim.experiments import _fail
    c, g = exp.config, exp.game_obj()
    if exp.study in ("market_growth", "wither_rain") and len(c["lineup"]) not in g.players:
        raise _fail(exp.path, "lineup", f"one policy per player: {len(c['lineup'])} is not a "
                                        f"player count of {g.name}")
    if exp.study in ("end_trigger", "wither_rain", "market_growth"):
        from . import lands
        opts = ({"end_vp": c["end_vp"], "end_cubes": c["end_cubes"], "end_bonus": c["end_bonus"]}
                if exp.study == "end_trigger" else {"rain_supply": c["supplies"]}
                if exp.study == "wither_rain" else {})
        try:
            lands._rules(lands.one_at_a_time(opts))
        except ValueError as e:
            raise _fail(exp.path, exp.study, str(e)) from None


def engine_used(exp) -> str:
    """"fast" in a settings-study config: the fast engine when the game has one."""
    from .common import resolve_engine
    return resolve_engine("auto" if exp.config["engine"] == "fast" else "reference", exp.game)


def run(exp, out: Path, store, progress) -> dict:
    """A settings study: JSON, one CSV per table, the figure."""
    from vale_sim.experiments import _save_fig, _write_csv
    from vale_sim.io import atomic_write
    from . import lands, seats
    from . import plots
    c = exp.config
    kw = dict(card_set=c["card_set"], engine=engine_used(exp), workers=c["workers"],
              progress=progress)
    if exp.study == "seat_compensation":
        st = seats.seat_study(c["players"], c["deals"], c["seed"], c["grid"], c["margin"],
                              policy=c["policy"], max_mana=c["max_mana"],
                              max_spirit=c["max_spirit"], confirm_deals=c["confirm_deals"], **kw)
        tables = {"seats": st.seats, "schedules": st.schedules, "effect": st.effect}
        fig, _ = plots.seat_figure(st)
        atomic_write(out / "recommendations.txt",
                     "\n".join(seats.sentence(r) for r in st.recommendations) + "\n")
    elif exp.study == "end_trigger":
        opts = {k: c[k] for k in ("end_vp", "end_cubes", "end_bonus")}
        st = lands.end_trigger_study(c["players"], c["deals"], c["seed"], opts, c["policy"], **kw)
        tables, fig = {"table": st.table}, plots.end_trigger_figure(st)[0]
    elif exp.study == "market_growth":
        points = {"manual": (5, 15), **{f"first={v}": (v, 15) for v in c["first"]},
                  **{f"second={v}": (5, v) for v in c["second"]}}
        if c["never"]:
            points["never"] = (1000, 1000)
        st = lands.market_growth_study(len(c["lineup"]), c["deals"], c["seed"], points,
                                       c["lineup"], **kw)
        tables, fig = {"table": st.table, **st.extra}, plots.market_figure(st)[0]
    else:
        st = lands.wither_rain_study(len(c["lineup"]), c["deals"], c["seed"], c["supplies"],
                                     c["lineup"], value_deals=c["value_deals"], **kw)
        tables, fig = {"table": st.table, **st.extra}, plots.wither_figure(st)[0]
    for name, df in tables.items():
        _write_csv(df, out / f"{exp.study}_{name}.csv")
    _save_fig(fig, out / f"{exp.study}.png", dpi=110, bbox_inches="tight")
    atomic_write(out / f"{exp.study}.json", json.dumps(st.to_json(), indent=1, default=str))
    return {"tables": sorted(tables)}
