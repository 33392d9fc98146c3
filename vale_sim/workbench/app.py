"""The ``vale-sim serve`` application: a JSON API and one page (docs/workbench.md).

Starlette (an ASGI toolkit) served by uvicorn.  Every request returns at once:
a long computation is a run in a worker process (:mod:`.runs`), which the page
polls.  Every error is JSON ``{"error": one line}`` -- a user's mistake with
status 400, anything else 500 -- and the server goes on.

A tab has a workspace (its card set, :class:`.workspace.Workspace`), created by
the page and kept in the tab's ``sessionStorage``: two tabs never share a table
or a run.

Security (docs/workbench.md, "Security"): every page load gets its own session
token, written into the page; a request that changes something (POST, PUT,
PATCH, DELETE) must carry it in ``X-Vale-Token`` and, when it names an
``Origin``, come from the server's own origin (``Origin: null`` and other schemes,
hosts or ports are refused).  Workspaces are bounded per session and in all;
one with a live run is never dropped (429 instead).  Request bodies are counted
as they stream in and refused past their limit (413), with or without a
Content-Length.  Every number of a request is checked with the rules of
:mod:`vale_sim.limits` (400 naming the field).
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import secrets
import shutil
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..games import DEFAULT_GAME, GAMES, get_game
from ..limits import MAX_COUNT, count_problem, int_range, seed_problem
from .runs import FINAL, RunError, RunManager
from .workspace import MAX_UPLOAD_BYTES, WorkbenchError, Workspace, one_line

STATIC = Path(__file__).parent / "static"
MAX_WORKSPACES = 100           # card sets the server keeps in all
MAX_WORKSPACES_PER_SESSION = 12   # ... and per page load (its session token)
MAX_SESSIONS = 1_000           # session tokens kept (the least recently used goes)
MAX_GAMES = 200_000            # games per card and arm a page may ask for
MAX_JSON_BYTES = 1_000_000     # a JSON request body
MAX_UPLOAD_BODY = MAX_UPLOAD_BYTES + 65_536     # the file and its multipart wrapping
INSTANT_STATES = 2_000         # odds of a deck this small are computed in the request
TOKEN_HEADER = "X-Vale-Token"
TOKEN_MARK = "__VALE_SIM_TOKEN__"               # where index.html takes its token
CHANGING = ("POST", "PUT", "PATCH", "DELETE")


class Bad(Exception):
    """A request the page sent wrong: 400 with one line."""


class Refused(Exception):
    """A request refused with a status of its own (403, 413, 429) and one line."""

    def __init__(self, status: int, text: str):
        super().__init__(text)
        self.status = status


def _int(params: dict, key: str, default: int, lo: int, hi: int) -> int:
    """A bounded whole number of a request (not a count of work): ``lo .. hi``."""
    try:
        return int_range(lo, hi)(params.get(key, default))
    except argparse.ArgumentTypeError as e:
        raise Bad(f"{key}: {e}") from None


def _count(params: dict, key: str, default: int, least: int, cap: int,
           unit: str = "games") -> int:
    """A count of a request, by the rule of every count (vale_sim.limits)."""
    v = params.get(key, default)
    problem = count_problem(v, least, unit, cap)
    if problem:
        raise Bad(f"{key}: {problem}")
    return int(v)


def _seed(params: dict, key: str = "seed", default: int = 0) -> int:
    """A seed of a request: 0 .. 2**64 - 1, as every command's --seed."""
    v = params.get(key, default)
    problem = seed_problem(v)
    if problem:
        raise Bad(f"{key}: {problem}")
    return int(v)


def _players(params: dict, g) -> list[int]:
    raw = params.get("players", [2])
    raw = [raw] if isinstance(raw, (int, str)) else raw
    if not isinstance(raw, list):
        raise Bad(f"players: give counts from {', '.join(map(str, g.players))}")
    out = []
    for p in raw:
        try:
            p = int_range(min(g.players), max(g.players))(p)
        except argparse.ArgumentTypeError:
            raise Bad(f"players: give counts from {', '.join(map(str, g.players))}, "
                      f"got {str(p)[:40]!r}") from None
        if p not in g.players:
            raise Bad(f"players: {g.title} plays with {', '.join(map(str, g.players))}, got {p}")
        if p not in out:
            out.append(p)
    if not out:
        raise Bad("players: tick at least one player count")
    return out


def _field_label(g, params: dict) -> str:
    """The field a run plays, as its outputs name it ("meta-2p")."""
    from ..strong_field import field_label, field_of
    return field_label(params.get("baseline") or field_of(g), params["players"])


def _field(params: dict, g, players: list[int], cs) -> dict:
    """The field and the estimand of a what-if or balance request: ``baseline`` (empty
    or absent: the game's strongest bundled field, :func:`vale_sim.strong_field.field_of`;
    else a preset or bundled policy name, e.g. ``balanced`` for comparison -- no file
    path) and ``estimand`` (absent: the natural estimand; ``prefer``: the forced
    value).  Checked against the set at every player count: 400 with one line."""
    from ..advancements import ESTIMANDS
    from ..strong_field import ESTIMAND, field_of
    spec = params.get("baseline") or None
    if spec is not None:
        if not isinstance(spec, str) or len(spec) > 200 or "/" in spec or "\\" in spec \
                or spec.endswith(".toml"):
            raise Bad(f"baseline: give a preset or a bundled policy name (e.g. "
                      f"{g.default_policy}), or leave it empty for the strongest bundled "
                      f"field {field_of(g)}")
    est = params.get("estimand") or ESTIMAND
    if est not in ESTIMANDS:
        raise Bad(f"estimand: use {' or '.join(sorted(ESTIMANDS))}, got {str(est)[:40]!r}")
    field = spec or field_of(g)
    for p in players:
        try:
            g.resolve_baseline(field, p, cs)
        except (ValueError, *g.user_errors) as e:
            raise Bad(f"baseline {field} at {p} players: {one_line(e)}") from None
    return {"baseline": spec, "estimand": est}


class Workbench:
    """The server's state: the session tokens of the pages, the workspaces of the
    tabs and the runs."""

    def __init__(self, game: str = DEFAULT_GAME, heartbeat: float = 90.0, max_running: int = 2):
        self.default_game = get_game(game).name
        self.tmpdir = Path(tempfile.mkdtemp(prefix="vale-sim-serve-"))
        # workspaces in the order last used (the least recently used first)
        self.workspaces: OrderedDict[str, Workspace] = OrderedDict()
        self.ws_session: dict[str, str] = {}        # workspace id -> its session's key
        self.sessions: OrderedDict[str, str] = OrderedDict()   # key -> token, last used last
        self.lock = threading.Lock()
        self.runs = RunManager(max_running=max_running, heartbeat=heartbeat)
        self.reports: dict[str, Path] = {}

    def close(self):
        self.runs.shutdown()
        shutil.rmtree(self.tmpdir, ignore_errors=True)      # only what this server wrote

    # -- sessions (one per page load) -------------------------------------------
    @staticmethod
    def _key(token: str) -> str:
        return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()

    def new_session(self) -> str:
        """A new page's token.  At most MAX_SESSIONS are kept: the least recently
        used goes (its page is told to reload on its next change)."""
        token = secrets.token_urlsafe(32)
        with self.lock:
            while len(self.sessions) >= MAX_SESSIONS:
                self.sessions.popitem(last=False)
            self.sessions[self._key(token)] = token
        return token

    def session(self, token: str | None) -> str:
        """The key of the session whose token this is (compared in constant time),
        else Refused (403)."""
        if not token:
            raise Refused(403, f"refused: no {TOKEN_HEADER} header (only the workbench's own "
                               f"page may change things); reload the page")
        key = self._key(token)
        with self.lock:
            known = self.sessions.get(key)
            if known is None or not secrets.compare_digest(known.encode(), token.encode()):
                raise Refused(403, f"refused: the {TOKEN_HEADER} is not one this server gave "
                                   f"(restarted?); reload the page")
            self.sessions.move_to_end(key)
        return key

    # -- workspaces ---------------------------------------------------------------
    def live(self, ws_id: str) -> bool:
        """Whether a run of this workspace is queued or running."""
        return any(r.owner == ws_id and r.status not in FINAL
                   for r in list(self.runs.runs.values()))

    def _drop_idle(self, ids, why: str) -> None:
        """Drop the least recently used workspace of ``ids`` that has no live run,
        else Refused (429).  Called with the lock held."""
        for ws_id in ids:
            if not self.live(ws_id):
                self.workspaces.pop(ws_id, None)
                self.ws_session.pop(ws_id, None)
                return
        raise Refused(429, f"refused: {why}, each with a run going; wait for a run to end "
                           f"or cancel one, then try again")

    def new_workspace(self, game, session: str = "") -> Workspace:
        name = game or self.default_game
        if not isinstance(name, str) or name not in GAMES:
            raise Bad(f"game: unknown game {str(name)[:40]!r}; use one of {', '.join(GAMES)}")
        ws = Workspace(name, self.tmpdir)
        with self.lock:
            mine = [w for w in self.workspaces if self.ws_session.get(w) == session]
            if len(mine) >= MAX_WORKSPACES_PER_SESSION:      # this page's oldest idle one
                self._drop_idle(mine, f"this page has {len(mine)} card sets (at most "
                                      f"{MAX_WORKSPACES_PER_SESSION})")
            elif len(self.workspaces) >= MAX_WORKSPACES:     # the oldest idle one
                self._drop_idle(list(self.workspaces), f"the server holds "
                                f"{len(self.workspaces)} card sets (at most {MAX_WORKSPACES})")
            self.workspaces[ws.id] = ws
            self.ws_session[ws.id] = session
        return ws

    def ws(self, ws_id: str) -> Workspace:
        with self.lock:
            ws = self.workspaces.get(ws_id)
            if ws is not None:
                self.workspaces.move_to_end(ws_id)
        if ws is None:
            raise LookupError("this page's card set is gone (the server was restarted?); "
                              "reload the page")
        return ws


async def read_body(request: Request, limit: int, too_large: str = "") -> bytes:
    """The request's body, counted as it streams in: Refused (413, ``too_large``) as
    soon as it passes ``limit`` bytes -- with a Content-Length over the limit before
    reading anything, without one (chunked) before reading the rest."""
    too_large = too_large or f"the request is larger than the limit of {limit:,} bytes"
    size = request.headers.get("content-length")
    if size is not None:
        if not size.strip().isascii() or not size.strip().isdigit():
            raise Bad(f"the request's Content-Length {size[:40]!r} is not a number of bytes")
        if int(size) > limit:
            raise Refused(413, too_large)
    chunks, n = [], 0
    async for chunk in request.stream():
        n += len(chunk)
        if n > limit:
            raise Refused(413, too_large)
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(game: str = DEFAULT_GAME, heartbeat: float = 90.0, max_running: int = 2,
               allowed_hosts=None, origins=None) -> Starlette:
    """The application.  ``allowed_hosts``: the host names a request may name (its
    ``Host``; e.g. 127.0.0.1 and localhost for a loopback server, so that a web
    page elsewhere cannot reach it through DNS rebinding); None: any.  ``origins``:
    the server's own origins (``http://127.0.0.1:8765``, ...), the only ones a
    changing request may come from; None: the request's own scheme and ``Host``."""
    wb = Workbench(game, heartbeat, max_running)
    own = None if origins is None else frozenset(origins)

    def check_change(request: Request) -> str:
        """A changing request comes from the workbench's own page: its Origin (when
        it names one) is the server's own, and it carries its page's token.  The
        session's key, else Refused (403)."""
        origin = request.headers.get("origin")
        if origin is not None:
            mine = own if own is not None else \
                {f"{request.url.scheme}://{request.headers.get('host', '')}"}
            if origin not in mine:
                raise Refused(403, f"refused: a page of {origin[:80]!r} may not change the "
                                   f"workbench (only its own page, "
                                   f"{sorted(mine)[0] if mine else 'this server'})")
        site = request.headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            raise Refused(403, f"refused: a {site} page may not change the workbench")
        return wb.session(request.headers.get(TOKEN_HEADER))

    def endpoint(fn):
        async def wrapped(request: Request):
            try:
                if request.method in CHANGING:
                    request.state.session = check_change(request)
                return await fn(request)
            except Refused as e:
                return JSONResponse({"error": one_line(e)}, status_code=e.status)
            except (Bad, WorkbenchError, RunError) as e:
                return JSONResponse({"error": one_line(e)}, status_code=400)
            except LookupError as e:
                return JSONResponse({"error": one_line(e) if not isinstance(e, KeyError)
                                     else "no such run (finished long ago, or the server was "
                                          "restarted)"}, status_code=404)
            except Exception as e:                          # noqa: BLE001 -- never a traceback
                print(f"vale-sim serve: {request.url.path}: {type(e).__name__}: {one_line(e)}",
                      file=sys.stderr)
                return JSONResponse({"error": f"the server could not do that: "
                                              f"{type(e).__name__}: {one_line(e)}"},
                                    status_code=500)
        return wrapped

    async def body(request: Request) -> dict:
        raw = await read_body(request, MAX_JSON_BYTES)
        try:
            data = json.loads(raw) if raw.strip() else {}
        except Exception:                                   # noqa: BLE001 -- also too deep
            raise Bad("the request is not JSON") from None
        if not isinstance(data, dict):
            raise Bad("the request is not a JSON object")
        return data

    page = (STATIC / "index.html").read_text(encoding="utf-8")

    async def index(request):
        """The page, with a new session token of its own (only a page of this origin
        can read it)."""
        html = page.replace(TOKEN_MARK, wb.new_session())
        return Response(html, media_type="text/html", headers={
            "Cache-Control": "no-store", "X-Frame-Options": "DENY",
            "Content-Security-Policy": "frame-ancestors 'none'"})

    async def games(request):
        out = []
        for n in GAMES:
            try:
                g = get_game(n)
            except ValueError:
                continue
            from ..strong_field import ESTIMAND, field_of
            out.append({"name": g.name, "title": g.title, "players": list(g.players),
                        "default_policy": g.default_policy, "field": field_of(g),
                        "estimand": ESTIMAND})
        return JSONResponse({"games": out, "default": wb.default_game})

    async def new_ws(request):
        data = await body(request)
        ws = wb.new_workspace(data.get("game"), request.state.session)
        return JSONResponse({"id": ws.id, "table": ws.table()})

    async def cards(request):
        ws = wb.ws(request.path_params["ws"])
        return JSONResponse(ws.table())

    async def load(request):
        ws = wb.ws(request.path_params["ws"])
        data = await body(request)
        ws.load_bundled(str(data.get("set", "")))
        return JSONResponse(ws.table())

    async def upload(request):
        ws = wb.ws(request.path_params["ws"])
        raw = await read_body(request, MAX_UPLOAD_BODY, f"the file is larger than the limit of "
                              f"{MAX_UPLOAD_BYTES:,} bytes (give a card set file)")

        async def replay():                                # the counted body, to the parser
            return {"type": "http.request", "body": raw, "more_body": False}
        try:
            form = await Request(request.scope, replay).form(max_files=1, max_fields=5)
        except Exception as e:                              # noqa: BLE001 -- a malformed body
            raise Bad(f"the upload could not be read ({one_line(e)}); choose the file again") from None
        f = form.get("file")
        if f is None or not hasattr(f, "read"):
            raise Bad("no file in the upload; choose a .toml or .csv card set")
        data = await f.read()
        ws.load_upload(getattr(f, "filename", "upload"), data)
        return JSONResponse(ws.table())

    async def edit(request):
        ws = wb.ws(request.path_params["ws"])
        data = await body(request)
        change = ws.edit(data.get("card", ""), data.get("field", ""), data.get("value", ""))
        return JSONResponse({"change": change, "table": ws.table()})

    async def apply(request):
        ws = wb.ws(request.path_params["ws"])
        data = await body(request)
        edits = data.get("edits")
        if not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
            raise Bad("edits: give a list of {card, field, new}")
        source = data.get("source", "balance")
        if source not in ("user", "balance"):
            raise Bad(f"source: use user or balance, got {source!r}")
        ws.apply(edits, source=source)
        return JSONResponse(ws.table())

    async def reset(request):
        ws = wb.ws(request.path_params["ws"])
        ws.reset()
        return JSONResponse(ws.table())

    async def download(request):
        ws = wb.ws(request.path_params["ws"])
        fmt = request.query_params.get("format", "toml")
        if fmt == "toml":
            data, kind, ext = ws.toml_text().encode(), "application/toml", "toml"
        elif fmt == "csv":
            data, kind, ext = ws.csv_bytes(), "text/csv", "csv"
        elif fmt == "edits":
            data, kind, ext = ws.edits_toml().encode(), "application/toml", "edits.toml"
        else:
            raise Bad(f"format: use toml, csv or edits, got {fmt!r}")
        name = f"{ws.stem()}.{ext}"
        return Response(data, media_type=kind,
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def decks(request):
        ws = wb.ws(request.path_params["ws"])
        g = ws.game
        if g.workbench is None:
            return JSONResponse({"available": False,
                                 "why": f"{g.title} has no bad-turn odds in the workbench"})
        from ..study import resolve
        page = resolve(g.workbench)
        return JSONResponse({"available": True, "title": page.TITLE, "words": page.WORDS,
                             "max_pushes": page.MAX_PUSHES, "form": page.deck_form(ws.current),
                             "decks": page.bundled_decks(ws.current)})

    def _start(ws, kind, params, note, on_done=None):
        with wb.lock:                   # not while the workspace is being dropped
            if ws.id not in wb.workspaces:
                raise LookupError("this page's card set is gone; reload the page")
            run = wb.runs.start(kind, params, owner=ws.id, note=note, on_done=on_done)
        return JSONResponse(run.view())

    async def start_run(request):
        ws = wb.ws(request.path_params["ws"])
        data = await body(request)
        kind = data.get("kind")
        p = data.get("params") or {}
        if not isinstance(p, dict):
            raise Bad("params: give an object")
        g = ws.game
        engine = p.get("engine", "fast")
        if engine not in ("fast", "reference"):
            raise Bad(f"engine: use fast or reference, got {engine!r}")
        seed = _seed(p)
        if kind == "what-if":
            edits = p.get("edits", [])
            if not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
                raise Bad("edits: give a list of {card, field, new}")
            texts = [f"{e.get('card')}.{e.get('field')}={e.get('new')}" for e in edits]
            rules = p.get("rules", [])
            if isinstance(rules, str):
                rules = [r.strip() for r in rules.splitlines() if r.strip()]
            if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
                raise Bad("rules: give NAME=VALUE lines")
            if not texts and not rules:
                raise Bad("what-if: add at least one edit (change a number in the Cards table, "
                          "or add one here) or a rule NAME=VALUE")
            only = p.get("cards", "edited")
            if only != "all" and not texts:
                raise Bad("rule edits change every card: choose Measure: every card")
            cards = None if only == "all" else [e["card"] for e in edits]
            out = Path(tempfile.mkdtemp(prefix="what-if-", dir=wb.tmpdir))
            params = {"game": g.name, "card_set": ws.base, "edits": texts,
                      "players": _players(p, g), "games": _count(p, "games", 200, 2, MAX_GAMES),
                      "seed": seed, "engine": engine, "cards": cards,
                      "figure": str(out / "what-if.png")}
            params.update(_field(p, g, params["players"], ws.base))
            from ..whatif import (WhatIfError, apply_card_edits, apply_rule_edits, parse_edit,
                                  parse_rule)
            try:                               # a bad edit is refused now, before a process
                apply_card_edits(g, ws.base, [parse_edit(t) for t in texts])
                apply_rule_edits(g, g.rules_class(), [parse_rule(r, g, "rule") for r in rules],
                                 "rule")
            except (WhatIfError, *g.user_errors) as e:
                raise Bad(one_line(e)) from None
            params["rules"] = rules
            params["store"] = str(wb.tmpdir / "chunks" / ws.id)
            def done(run, out=out):
                wb.reports[run.id] = out
            return _start(ws, kind, params, {"edits": texts, "rules": rules,
                                             "players": params["players"],
                                             "games": params["games"],
                                             "field": _field_label(g, params),
                                             "estimand": params["estimand"]}, on_done=done)
        if kind == "balance":
            fields = p.get("fields", ["cost", "end_vp"])
            if isinstance(fields, str):
                fields = [f.strip() for f in fields.split(",") if f.strip()]
            cards = p.get("cards") or None
            if isinstance(cards, str):
                cards = [c.strip() for c in cards.split(",") if c.strip()] or None
            for key, v in (("fields", fields), ("cards", cards or [])):
                if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                    raise Bad(f"{key}: give names separated by commas")
            games = _count(p, "games", 200, 2, MAX_GAMES)
            params = {"game": g.name, "card_set": ws.current, "fields": fields, "cards": cards,
                      "margin": _int(p, "margin_pp", 2, 1, 50) / 100,
                      "players": _players(p, g), "games": games,
                      "confirm_games": 2 * games,
                      "budget": _count(p, "budget", 0, 0, MAX_COUNT) or None,
                      "seed": seed, "engine": engine,
                      "store": str(wb.tmpdir / "chunks" / ws.id)}
            params.update(_field(p, g, params["players"], ws.current))
            return _start(ws, kind, params, {"fields": fields, "games": games,
                                             "digest": ws.current.digest(),
                                             "field": _field_label(g, params),
                                             "estimand": params["estimand"]})
        if kind == "curve":
            # a card's price curve (vale_sim.curve) on the table as it is now; small
            # defaults (400 games per value and arm): a first look, the CLI for the full size
            from ..curve import CurveError, plan
            card, number = p.get("card"), p.get("number") or "cost"
            if not isinstance(card, str) or not card or not isinstance(number, str):
                raise Bad("card: pick a card (the curve button of its row in the Cards table)")
            values = p.get("values") or None
            if values is not None and not isinstance(values, str):
                raise Bad("values: write LO..HI, e.g. 2..6, or leave it empty")
            params = {"game": g.name, "card_set": ws.current, "card": card, "number": number,
                      "values": values, "players": _players(p, g),
                      "games": _count(p, "games", 400, 2, MAX_GAMES), "seed": seed,
                      "engine": engine}
            params.update(_field(p, g, params["players"], ws.current))
            try:                               # every check of the CLI, before a process
                pl = plan(card, number, values, params["players"], g.name, ws.current,
                          params["games"], seed, params["baseline"], params["estimand"])
            except (CurveError, *g.user_errors) as e:
                raise Bad(one_line(e).removeprefix("--")) from None
            out = Path(tempfile.mkdtemp(prefix="curve-", dir=wb.tmpdir))
            params.update(runs=len(pl["values"]) * len(pl["players"]),
                          figure=str(out / "curve.png"),
                          store=str(wb.tmpdir / "chunks" / ws.id))

            def done(run, out=out):
                wb.reports[run.id] = out
            return _start(ws, kind, params, {"card": card, "number": number,
                                             "values": pl["values"],
                                             "players": params["players"],
                                             "games": params["games"],
                                             "field": _field_label(g, params),
                                             "estimand": params["estimand"]}, on_done=done)
        if kind == "report":
            out = Path(tempfile.mkdtemp(prefix="report-", dir=wb.tmpdir))
            src = out.parent / (out.name + "-cards")
            src.mkdir()
            if ws.edits:
                try:
                    text = ws.toml_text()
                    card_file = src / f"{ws.stem()}.toml"
                    card_file.write_text(text, encoding="utf-8")
                except WorkbenchError:
                    card_file = src / f"{ws.stem()}.csv"
                    card_file.write_bytes(ws.csv_bytes())
            else:
                card_file = Path(ws.path)
            params = {"game": g.name, "card_file": str(card_file), "out": str(out / "report"),
                      "quick": bool(p.get("quick", True)), "engine": engine,
                      "seed": _seed(p, "seed", 1)}

            def done(run, out=out):
                wb.reports[run.id] = out / "report"
            return _start(ws, kind, params, {"set": ws.current.name,
                                             "quick": params["quick"]}, on_done=done)
        if kind == "odds":
            deck = p.get("deck")
            if not isinstance(deck, dict):
                raise Bad("deck: build a deck first")
            params = {"game": g.name, "card_set": ws.current, "deck": deck,
                      "pushes": _int(p, "pushes", 6, 1, 12), "goal": str(p.get("goal", "mana"))}
            if g.workbench is None:
                raise Bad(f"{g.title} has no odds page")
            from ..odds import TooManyStates
            from ..study import resolve
            page = resolve(g.workbench)
            try:                # a usual deck: at once, in a thread (the readable model only)
                res = await run_in_threadpool(page.deck_odds, ws.current, deck, params["pushes"],
                                              params["goal"], INSTANT_STATES)
                return JSONResponse({"status": "done", "result": res, "instant": True})
            except TooManyStates:
                pass            # a large deck: a run in a worker process
            except (ValueError, *g.user_errors) as e:
                raise Bad(one_line(e)) from None
            return _start(ws, kind, params, {"pushes": params["pushes"]})
        raise Bad(f"kind: use what-if, balance, curve, report or odds, got {kind!r}")

    async def run_status(request):
        run = wb.runs.get(request.path_params["run"])
        return JSONResponse(run.view())

    async def run_cancel(request):
        run = wb.runs.cancel(request.path_params["run"], "cancelled")
        return JSONResponse(run.view(with_result=False))

    async def closed(request):
        """The page was closed (a keepalive fetch on pagehide): its runs stop."""
        ws_id = request.path_params["ws"]
        n = wb.runs.cancel_owner(ws_id, "stopped: its page was closed")
        return JSONResponse({"cancelled": n})

    async def report_file(request):
        run_id = request.path_params["run"]
        root = wb.reports.get(run_id)
        if root is None:
            raise LookupError("no report of that run (not finished, or the server restarted)")
        rel = request.path_params.get("path") or "index.html"
        p = (root / rel).resolve()
        if root.resolve() not in p.parents and p != root.resolve() or not p.is_file():
            raise LookupError(f"no file {rel!r} in that report")
        return FileResponse(p)

    routes = [
        Route("/", index),
        Route("/api/games", endpoint(games)),
        Route("/api/workspaces", endpoint(new_ws), methods=["POST"]),
        Route("/api/ws/{ws}/cards", endpoint(cards)),
        Route("/api/ws/{ws}/load", endpoint(load), methods=["POST"]),
        Route("/api/ws/{ws}/upload", endpoint(upload), methods=["POST"]),
        Route("/api/ws/{ws}/edit", endpoint(edit), methods=["POST"]),
        Route("/api/ws/{ws}/apply", endpoint(apply), methods=["POST"]),
        Route("/api/ws/{ws}/reset", endpoint(reset), methods=["POST"]),
        Route("/api/ws/{ws}/download", endpoint(download)),
        Route("/api/ws/{ws}/decks", endpoint(decks)),
        Route("/api/ws/{ws}/runs", endpoint(start_run), methods=["POST"]),
        Route("/api/ws/{ws}/closed", endpoint(closed), methods=["POST"]),
        Route("/api/runs/{run}", endpoint(run_status)),
        Route("/api/runs/{run}/cancel", endpoint(run_cancel), methods=["POST"]),
        Route("/reports/{run}/{path:path}", endpoint(report_file)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(app):
        try:
            yield
        finally:
            wb.close()
    middleware = []
    if allowed_hosts is not None:
        from starlette.middleware import Middleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    app.state.workbench = wb
    return app
