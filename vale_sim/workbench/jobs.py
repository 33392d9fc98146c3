"""What a worker process of ``vale-sim serve`` runs (docs/workbench.md, "Runs").

Each job is ``job(params, report)``: ``params`` a plain dict (the card set
object included: it pickles), ``report(done, total, text)`` sends progress to the
server; the return value (JSON-ready) is the run's result.  The jobs call the
toolkit's public functions -- :func:`vale_sim.whatif.what_if`,
:func:`vale_sim.balance.balance`, :func:`vale_sim.curve.price_curve`,
:func:`vale_sim.report.build_report` and the
game's odds page (``Game.workbench``) -- with ``workers=1``: the run is one
process, which cancel ends.

:func:`worker_main` is the process's entry point (``spawn``): it runs the job,
sends ``("done", result)`` or ``("error", one line)`` and exits; it also exits
when the server process is gone.
"""
from __future__ import annotations

import os
import threading
import time


def _watch_parent(ppid: int) -> None:
    """End this process when the server that started it is gone (a killed server
    leaves no run behind)."""
    def loop():
        while True:
            time.sleep(1.0)
            if os.getppid() != ppid:
                os._exit(3)
    threading.Thread(target=loop, daemon=True).start()


def worker_main(job: str, params: dict, conn, ppid: int) -> None:
    """Run job ``job`` ("module:function" or a name in :data:`JOBS`) and send its
    outcome on ``conn`` (the sending end of a pipe)."""
    _watch_parent(ppid)
    from ..study import resolve
    from .workspace import one_line

    def report(done, total=None, text=""):
        conn.send(("progress", done, total, str(text)))

    try:
        fn = JOBS[job] if job in JOBS else resolve(job)
        result = fn(params, report)
    except BaseException as e:                  # noqa: BLE001 -- every failure is one line
        from ..errors import UserError
        if isinstance(e, (UserError, ValueError)):
            msg = one_line(e)
        else:
            msg = f"the run failed: {type(e).__name__}: {one_line(e)}"
        conn.send(("error", msg))
        return
    try:
        conn.send(("done", result))
    except Exception as e:                      # noqa: BLE001 -- e.g. a result that won't pickle
        conn.send(("error", f"the run's result could not be sent back: {one_line(e)}"))


class _Bar:
    """The tqdm-like object :func:`vale_sim.whatif.what_if` updates."""

    def __init__(self, report, total, text):
        self.report, self.total, self.n, self.text = report, total, 0, text
        report(0, total, text)

    def update(self, n=1):
        self.n += n
        self.report(min(self.n, self.total), self.total, self.text)

    def close(self):
        pass


def _warm(g, engine: str, report) -> None:
    """Compile (or load from numba's cache) the fast engine first, saying so: the
    first run on a machine takes 20-40 s more."""
    if engine == "fast" and g.warm_up is not None:
        report(0, None, "preparing the fast engine (it compiles once per machine, ~20-40 s)")
        try:
            g.warm_up()
        except Exception:                       # noqa: BLE001 -- the run falls back itself
            pass


def _store(params):
    """The tab's chunk store (``params["store"]``): games a cancelled or earlier run
    finished are read back, not played again (docs/runs.md, resume)."""
    if not params.get("store"):
        return None
    from ..store import ChunkStore
    return ChunkStore(params["store"])


def what_if_job(params: dict, report):
    from ..games import get_game
    from ..whatif import what_if
    g = get_game(params["game"])
    cs = params["card_set"]
    edits = list(params["edits"])
    players = list(params.get("players", [2]))
    cards = params.get("cards")
    if cards is None:
        n = len(g.strength_cards(cs))
    else:
        known = {c[0] for c in g.strength_cards(cs)}
        n = len(set(cards) | ({e.split(".")[0] for e in edits} & known))
    _warm(g, params.get("engine", "fast"), report)
    store = _store(params)
    bar = _Bar(report, max(1, 2 * n * len(players)), "cards measured")
    w = what_if(edits, params.get("rules", []), g.name, cs, players, params["games"],
                params.get("seed", 0), params.get("baseline"), cards, None,
                params.get("engine", "fast"), 1, progress=bar,
                play=store.play_frame if store else None, estimand=params.get("estimand"))
    out = w.to_json()
    out["text"] = w.text()
    out["chunks"] = {"reused": store.reused, "played": store.played} if store else None
    if params.get("figure"):                  # the project's what-if figure
        from ..io import save_figure
        from ..plots.whatif import plot_changes
        save_figure(plot_changes(w), params["figure"], dpi=90, bbox_inches="tight")
        out["figure"] = True
    return out


def curve_job(params: dict, report):
    """The price curve of one card (:func:`vale_sim.curve.price_curve`) on the tab's table,
    with its figure (``params["figure"]``)."""
    from ..curve import curve_json, curve_text, price_curve
    from ..games import get_game
    g = get_game(params["game"])
    _warm(g, params.get("engine", "fast"), report)
    bar = _Bar(report, max(1, params["runs"]), "values played")
    store = _store(params)
    df = price_curve(params["card"], params["number"], params.get("values"),
                     params.get("players", [2]), g.name, params["card_set"], params["games"],
                     params.get("seed", 0), params.get("baseline"), None,
                     params.get("engine", "fast"), 1, progress=bar,
                     play=store.play_frame if store else None, estimand=params.get("estimand"),
                     command="workbench: Curve tab")
    out = curve_json(df)
    out["text"] = curve_text(df)
    out["chunks"] = {"reused": store.reused, "played": store.played} if store else None
    if params.get("figure"):
        from ..io import save_figure
        from ..plots.curve import plot_curve
        save_figure(plot_curve(df), params["figure"], dpi=90, bbox_inches="tight")
        out["figure"] = True
    return out


def balance_job(params: dict, report):
    from ..balance import balance
    from ..games import get_game
    g = get_game(params["game"])
    _warm(g, params.get("engine", "fast"), report)
    report(0, None, "screening the cards")

    def progress(search, confirm):
        report(search + confirm, params.get("budget"),
               f"{search:,} search and {confirm:,} confirmation games played")
    store = _store(params)
    b = balance(g.name, params["card_set"], params.get("fields", ("cost", "end_vp")),
                params.get("cards"), params.get("margin", 0.02), params.get("players", [2]),
                params.get("baseline"), params.get("budget"), params["games"],
                params.get("confirm_games"), params.get("seed", 0), params.get("engine", "fast"),
                1, progress=progress, play=store.play_frame if store else None,
                **({"estimand": params["estimand"]} if params.get("estimand") else {}))
    out = b.to_json()
    out["text"] = b.text()
    out["chunks"] = {"reused": store.reused, "played": store.played} if store else None
    return out


def report_job(params: dict, report):
    import argparse
    from ..games import get_game
    from ..report import build_report, game_report
    g = get_game(params["game"])
    mod = game_report(g)
    path = params["card_file"]
    cs = g.load_card_set(path)
    # baseline None: the game's strongest bundled field, as `vale-sim report`
    args = argparse.Namespace(quick=params.get("quick", True), engine=params.get("engine", "fast"),
                              seed=params.get("seed", 1), baseline=None,
                              card_set=path)
    settings = mod.settings_from_args(args, path, cs)
    report(0, None, "building the report")
    m = build_report(params["out"], settings, progress=False, game=g.name)
    from ..strong_field import ESTIMAND, field_of
    return {"out": str(params["out"]), "seconds": m.get("seconds"), "engine": m.get("engine"),
            "size": m.get("size"), "field": field_of(g), "estimand": ESTIMAND}


def odds_job(params: dict, report):
    from ..games import get_game
    from ..study import resolve
    g = get_game(params["game"])
    if g.workbench is None:
        raise ValueError(f"{g.title} has no odds page")
    page = resolve(g.workbench)
    report(0, None, "computing")
    return page.deck_odds(params["card_set"], params["deck"], params["pushes"], params["goal"])


JOBS = {"what-if": what_if_job, "balance": balance_job, "report": report_job, "odds": odds_job,
        "curve": curve_job}
