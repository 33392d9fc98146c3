"""``vale-sim serve`` without a browser: the JSON API, the workspace and the runs in
worker processes (docs/workbench.md).  The browser tests are
tests/test_workbench_browser.py.

Runs here use the reference engine and a few games: they never compile numba in
this process (the worker processes do the work) and finish in seconds.
"""
from __future__ import annotations

import asyncio
import json
import os
import re
import time
import tomllib

import pytest
from starlette.testclient import TestClient      # a dependency of vale-sim: never skipped

from vale_sim.games import get_game
from vale_sim.workbench import app as app_mod
from vale_sim.workbench.app import TOKEN_HEADER, create_app
from vale_sim.workbench.runs import RunManager


# jobs for the run manager's own tests (a spawned worker imports this module)
def _boom(params, report):
    raise RuntimeError("boom")


def _sleep(params, report):
    report(0, 10, "sleeping")
    time.sleep(params.get("seconds", 60))
    return {"slept": True}


def _token(client) -> str:
    """The session token the server wrote into a freshly loaded page (what the page's
    JavaScript sends in X-Vale-Token)."""
    m = re.search(r'<meta name="vale-sim-token" content="([^"]*)"', client.get("/").text)
    return m.group(1) if m else "none"


@pytest.fixture
def client():
    """A page's client: every request carries the token of its page load."""
    app = create_app("mystic-vale", heartbeat=60)
    with TestClient(app) as c:
        c.headers[TOKEN_HEADER] = _token(c)
        yield c


def _ws(client, game="mystic-vale"):
    r = client.post("/api/workspaces", json={"game": game})
    assert r.status_code == 200
    return r.json()["id"], r.json()["table"]


def _number(table, card, field):
    for c in table["cards"]:
        if c["name"] == card and c["type"] != "starting":
            for n in c["numbers"]:
                if n["field"] == field:
                    return n
    raise KeyError((card, field))


def _wait(client, run_id, timeout=90):
    t0 = time.time()
    while time.time() - t0 < timeout:
        r = client.get(f"/api/runs/{run_id}").json()
        if r["status"] in ("done", "failed", "cancelled"):
            return r
        time.sleep(0.25)
    raise AssertionError(f"run {run_id} did not end in {timeout} s: {r}")


def _alive(pid) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:                                   # a zombie is not running
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def test_a_bad_cell_is_refused_with_one_line_naming_it_and_a_good_one_becomes_user(client):
    ws, table = _ws(client)
    card = next(c["name"] for c in table["cards"]
                if any(n["field"] == "cost" and n["editable"] for n in c["numbers"]))
    before = _number(table, card, "cost")
    r = client.post(f"/api/ws/{ws}/edit", json={"card": card, "field": "cost", "value": "999"})
    assert r.status_code == 400
    msg = r.json()["error"]
    assert "\n" not in msg and msg.startswith(f"{card}, cost:") and "999" in msg
    assert "outside" in msg                                   # why: the game's range check
    r = client.post(f"/api/ws/{ws}/edit", json={"card": card, "field": "cost", "value": "two"})
    assert r.status_code == 400 and "not a whole number" in r.json()["error"]
    assert _number(client.get(f"/api/ws/{ws}/cards").json(), card, "cost") == before
    new = before["value"] + 1
    r = client.post(f"/api/ws/{ws}/edit", json={"card": card, "field": "cost", "value": str(new)})
    assert r.status_code == 200
    n = _number(r.json()["table"], card, "cost")
    assert (n["value"], n["source"], n["loaded"]) == (new, "user", before["value"])
    # back to the loaded value: no edit, the loaded source again
    r = client.post(f"/api/ws/{ws}/edit", json={"card": card, "field": "cost",
                                                "value": str(before["value"])})
    assert _number(r.json()["table"], card, "cost") == before and not r.json()["table"]["edits"]


@pytest.mark.parametrize("name,data,words", [
    ("broken.toml", b"name = \"x\"\n[[advancements]\nfoo", "not valid TOML"),
    ("cards.toml", b"[set]\nname = 3\n", "broken"),
    ("cards.txt", b"anything", "not a card file"),
    ("empty.csv", b"", "empty"),
])
def test_a_malformed_upload_is_one_line_and_the_table_stays(client, name, data, words):
    ws, table = _ws(client)
    r = client.post(f"/api/ws/{ws}/upload", files={"file": (name, data)})
    assert r.status_code == 400
    msg = r.json()["error"]
    assert "\n" not in msg and "Traceback" not in msg and name.split(".")[0] in msg
    if words != "broken":
        assert words in msg
    assert "/tmp" not in msg and "vale-sim-serve" not in msg     # the upload's name, not our path
    assert client.get(f"/api/ws/{ws}/cards").json()["digest"] == table["digest"]


def test_an_upload_of_a_good_file_loads_it(client, tmp_path):
    g = get_game("mystic-vale")
    text = g.bundled_card_sets()["core"].read_text().replace('name = "core"', 'name = "mine"', 1)
    ws, _ = _ws(client)
    r = client.post(f"/api/ws/{ws}/upload", files={"file": ("mine.toml", text.encode())})
    assert r.status_code == 200, r.json()
    assert r.json()["set"] == "mine.toml"


@pytest.mark.parametrize("game", ["mystic-vale", "mystic-lands"])
def test_the_downloaded_toml_loads_with_the_edits_and_their_sources(client, game, tmp_path):
    g = get_game(game)
    ws, table = _ws(client, game)
    picks = [(c["name"], n["field"], n["value"]) for c in table["cards"] for n in c["numbers"]
             if n["editable"] and n["field"] in ("cost", "copies")][:3]
    for card, f, v in picks:
        new = v + 1 if f == "cost" else max(1, v - 1) if v > 1 else v + 1
        r = client.post(f"/api/ws/{ws}/edit", json={"card": card, "field": f, "value": str(new)})
        assert r.status_code == 200, r.json()
    table = client.get(f"/api/ws/{ws}/cards").json()
    r = client.get(f"/api/ws/{ws}/download?format=toml")
    assert r.status_code == 200
    path = tmp_path / "edited.toml"
    path.write_bytes(r.content)
    cs = g.load_card_set(str(path))
    back = {(c["name"], f): v for c in g.describe_cards(cs, as_json=True)["cards"]
            if c["type"] != "starting" for f, v in c["numbers"].items()}
    for e in table["edits"]:
        assert back[(e["card"], e["field"])] == {"value": e["new"], "source": "user"}
    edits = tomllib.loads(client.get(f"/api/ws/{ws}/download?format=edits").text)
    assert {(c, f) for c, fs in edits["cards"].items() for f in fs} == \
        {(e["card"], e["field"]) for e in table["edits"]}


def test_a_small_what_if_runs_to_its_numbers_and_two_tabs_keep_their_own(client):
    a, ta = _ws(client)
    b, _ = _ws(client)
    card = next(c["name"] for c in ta["cards"]
                if any(n["field"] == "cost" and n["editable"] for n in c["numbers"]))
    cost = _number(ta, card, "cost")["value"]
    ids = {}
    for ws, new in ((a, cost + 2), (b, max(0, cost - 2))):
        r = client.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": {
            "edits": [{"card": card, "field": "cost", "new": new}], "games": 4,
            "engine": "reference", "players": [2]}})
        assert r.status_code == 200, r.json()
        ids[ws] = (r.json()["id"], new)
    assert ids[a][0] != ids[b][0]
    for ws, (rid, new) in ids.items():
        r = _wait(client, rid)
        assert r["status"] == "done", r
        res = r["result"]
        assert [e["new"] for e in res["edits"]] == [new]          # its own edit, not the other's
        row = res["players"][0]["cards"][0]
        assert row["card"] == card and row["edited_card"]
        assert row["n_deals"] == 2 and row["change_ci"][0] <= row["change"] <= row["change_ci"][1]


def test_cancel_ends_the_worker_and_a_killed_worker_is_one_line(client):
    ws, table = _ws(client)
    card = next(c["name"] for c in table["cards"]
                if any(n["field"] == "cost" and n["editable"] for n in c["numbers"]))
    params = {"edits": [{"card": card, "field": "cost", "new": 1}], "games": 100_000,
              "engine": "reference"}
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": params}).json()
    time.sleep(1.0)
    c = client.post(f"/api/runs/{r['id']}/cancel").json()
    assert c["status"] == "cancelled"
    assert not _alive(r["pid"])
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": params}).json()
    time.sleep(1.0)
    os.kill(r["pid"], 9)
    done = _wait(client, r["id"], timeout=20)
    assert done["status"] == "failed" and "killed" in done["error"] and "\n" not in done["error"]
    assert client.get(f"/api/ws/{ws}/cards").status_code == 200       # the server goes on


def test_closing_the_page_stops_its_runs_and_only_its_own(client):
    a, table = _ws(client)
    b, _ = _ws(client)
    card = next(c["name"] for c in table["cards"]
                if any(n["field"] == "cost" and n["editable"] for n in c["numbers"]))
    params = {"edits": [{"card": card, "field": "cost", "new": 1}], "games": 100_000,
              "engine": "reference"}
    ra = client.post(f"/api/ws/{a}/runs", json={"kind": "what-if", "params": params}).json()
    rb = client.post(f"/api/ws/{b}/runs", json={"kind": "what-if", "params": params}).json()
    assert client.post(f"/api/ws/{a}/closed").json() == {"cancelled": 1}
    assert client.get(f"/api/runs/{ra['id']}").json()["status"] == "cancelled"
    assert client.get(f"/api/runs/{rb['id']}").json()["status"] == "running"
    client.post(f"/api/runs/{rb['id']}/cancel")


def test_a_failing_what_if_is_one_line_in_the_run(client):
    """A what-if whose edited set cannot be played fails in the worker with the
    game's line; a bad edit is refused before any process starts."""
    ws, table = _ws(client)
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": {
        "edits": [{"card": "No Such Card", "field": "cost", "new": 1}], "games": 4}})
    assert r.status_code == 400 and "No Such Card" in r.json()["error"]
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": {"edits": []}})
    assert r.status_code == 400 and "at least one edit" in r.json()["error"]
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "nonsense"})
    assert r.status_code == 400 and "\n" not in r.json()["error"]


def test_the_run_manager_reports_a_crash_and_stops_an_abandoned_run():
    m = RunManager(max_running=2, heartbeat=2.0)
    try:
        bad = m.start("boom", {}, job="test_workbench_api:_boom")
        t0 = time.time()
        while bad.status not in ("done", "failed", "cancelled") and time.time() - t0 < 30:
            time.sleep(0.1)
        assert bad.status == "failed" and bad.error == "the run failed: RuntimeError: boom"
        slow = m.start("sleep", {"seconds": 60}, job="test_workbench_api:_sleep")
        t0 = time.time()
        while slow.status not in ("done", "failed", "cancelled") and time.time() - t0 < 30:
            time.sleep(0.2)                       # nobody asks about it: the heartbeat runs out
        assert slow.status == "cancelled" and "has not asked" in slow.error
        assert not _alive(slow.pid)
        # at most max_running at once: the next is refused with one line
        x = m.start("sleep", {"seconds": 30}, job="test_workbench_api:_sleep")
        y = m.start("sleep", {"seconds": 30}, job="test_workbench_api:_sleep")
        with pytest.raises(ValueError, match="at most 2 at once"):
            m.start("sleep", {"seconds": 30}, job="test_workbench_api:_sleep")
        m.cancel(x.id), m.cancel(y.id)
    finally:
        m.shutdown()


@pytest.mark.parametrize("game", ["mystic-vale", "mystic-lands"])
def test_the_odds_of_a_usual_deck_come_at_once_from_the_game(client, game):
    from vale_sim.study import resolve
    ws, _ = _ws(client, game)
    d = client.get(f"/api/ws/{ws}/decks").json()
    assert d["available"]
    deck = d["decks"]["starter"]
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "odds", "params": {
        "deck": deck, "pushes": 3, "goal": "mana"}}).json()
    assert r["status"] == "done" and r["instant"]             # in the request: a small deck
    out = r["result"]
    assert [row[0] for row in out["rows"]] == [1, 2, 3]
    probs = [row[1] for row in out["rows"]]
    assert probs == sorted(probs) and all(0 <= p <= 1 for p in probs)   # P(bad within k) grows
    assert out["rule"]["value"] >= out["rule"]["best_fixed_value"] - 1e-12
    g = get_game(game)                                        # the game module's own numbers
    page = resolve(g.workbench)
    assert page.deck_odds(g.load_card_set(g.default_card_set), deck, 3, "mana")["rows"] == out["rows"]
    bad = dict(deck, cards=[{"nonsense": 1}])
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "odds", "params": {
        "deck": bad, "pushes": 3, "goal": "mana"}})
    assert r.status_code == 400 and "\n" not in r.json()["error"] and "card 1" in r.json()["error"]


def test_the_odds_of_a_large_deck_are_a_run_in_a_worker(client):
    from vale_sim.odds import TooManyStates
    from vale_sim.study import resolve
    from vale_sim.workbench.app import INSTANT_STATES
    g = get_game("mystic-lands")
    page = resolve(g.workbench)
    cs = g.load_card_set(g.default_card_set)
    deck = page.bundled_decks(cs)["willow"]
    with pytest.raises(TooManyStates):                        # too large for the request
        page.deck_odds(cs, deck, 6, "mana", INSTANT_STATES)
    ws, _ = _ws(client, g.name)
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "odds", "params": {
        "deck": deck, "pushes": 6, "goal": "mana"}}).json()
    assert r["status"] == "running" and r["pid"]
    res = _wait(client, r["id"])
    assert res["status"] == "done", res
    assert res["result"]["rows"] == page.deck_odds(cs, deck, 6, "mana")["rows"]


def test_serve_refuses_a_bad_port_and_a_taken_one_with_one_line(capsys):
    import socket
    from vale_sim.cli import main
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    try:
        assert main(["serve", "--port", str(s.getsockname()[1])]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--port" in err and "in use" in err
    finally:
        s.close()


def test_errata_applied_from_the_balance_page_carry_source_balance(client, tmp_path):
    """What the Balance page's "apply" sends: every edit at once with source balance
    (shown in the table and written into the downloaded TOML), or none when one is bad."""
    g = get_game("mystic-vale")
    ws, table = _ws(client)
    cards = [c["name"] for c in table["cards"]
             if any(n["field"] == "cost" and n["editable"] for n in c["numbers"])][:2]
    errata = [{"card": c, "field": "cost", "old": _number(table, c, "cost")["value"],
               "new": _number(table, c, "cost")["value"] + 1} for c in cards]
    bad = errata + [{"card": cards[0], "field": "cost", "new": 999}]
    r = client.post(f"/api/ws/{ws}/apply", json={"edits": bad, "source": "balance"})
    assert r.status_code == 400 and "999" in r.json()["error"]
    assert not client.get(f"/api/ws/{ws}/cards").json()["edits"]          # all or none
    r = client.post(f"/api/ws/{ws}/apply", json={"edits": errata, "source": "balance"})
    assert r.status_code == 200
    t = r.json()
    for e in errata:
        n = _number(t, e["card"], "cost")
        assert (n["value"], n["source"]) == (e["new"], "balance")
    path = tmp_path / "errata.toml"
    path.write_bytes(client.get(f"/api/ws/{ws}/download?format=toml").content)
    back = {(c["name"], f): v for c in g.describe_cards(g.load_card_set(str(path)),
                                                       as_json=True)["cards"]
            if c["type"] != "starting" for f, v in c["numbers"].items()}
    for e in errata:
        assert back[(e["card"], "cost")] == {"value": e["new"], "source": "balance"}


def test_a_what_if_with_a_rule_edit_plays_the_rule(client):
    ws, table = _ws(client)
    card = next(c["name"] for c in table["cards"]
                if any(n["field"] == "cost" and n["editable"] for n in c["numbers"]))
    edits = [{"card": card, "field": "cost", "new": _number(table, card, "cost")["value"] + 1}]
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": {
        "edits": edits, "rules": "vp_pool=nonsense", "games": 4, "engine": "reference"}})
    assert r.status_code == 400 and "vp_pool" in r.json()["error"]        # before any process
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": {
        "edits": [], "rules": "vp_pool=20", "games": 4, "engine": "reference"}})
    assert r.status_code == 400 and "every card" in r.json()["error"]
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": {
        "edits": edits, "rules": "max_rounds=60\nvp_pool=20", "games": 4,
        "engine": "reference"}}).json()
    res = _wait(client, r["id"])
    assert res["status"] == "done", res
    assert {(x["name"], x["new"]) for x in res["result"]["rules"]} == {("max_rounds", 60),
                                                                        ("vp_pool", 20)}


def test_a_request_naming_another_host_is_refused():
    """A loopback server answers only requests naming a loopback host (no DNS
    rebinding)."""
    app = create_app("mystic-vale", allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://127.0.0.1:8765") as c:
        assert c.get("/api/games").status_code == 200
        assert c.get("/api/games", headers={"Host": "evil.example"}).status_code == 400


OWN = "http://127.0.0.1:8765"
SERVE_ORIGINS = [f"http://{h}:8765" for h in ("127.0.0.1", "localhost", "[::1]")]


@pytest.mark.parametrize("origins", [None, SERVE_ORIGINS], ids=["host-header", "as-serve"])
@pytest.mark.parametrize("origin,token,allowed", [
    ("null", "right", False),                       # a sandboxed iframe, a data: page
    ("https://127.0.0.1:8765", "right", False),     # the right host, another scheme
    ("http://127.0.0.1:9999", "right", False),      # another port: another server's page
    ("http://evil.example", "right", False),
    ("http://127.0.0.1:8765.evil.example", "right", False),
    (None, None, False),                            # neither: not the workbench's page
    (None, "wrong", False),
    (OWN, None, False),
    (OWN, "wrong", False),
    (OWN, "other-server", False),                   # a token of another server
    (OWN, "right", True),                           # the page itself
    (None, "right", True),                          # a script that read the page
])
def test_a_changing_request_needs_the_servers_own_origin_and_a_token_of_its_page(
        origins, origin, token, allowed):
    """Only the workbench's own page may change anything: the Origin (when named) is
    exactly the server's scheme, host and port, and the request carries the session
    token written into a page this server served.  A refused request changes
    nothing: no workspace is made, no cell edited, no run started or cancelled."""
    app = create_app("mystic-vale", heartbeat=60, allowed_hosts=["127.0.0.1", "localhost"],
                     origins=origins)
    other = create_app("mystic-vale")
    with TestClient(app, base_url=OWN) as c, TestClient(other) as o:
        right = _token(c)
        c.headers[TOKEN_HEADER] = right
        ws, table = _ws(c)
        card = next(x["name"] for x in table["cards"]
                    if any(n["field"] == "cost" and n["editable"] for n in x["numbers"]))
        cost = _number(table, card, "cost")["value"]
        del c.headers[TOKEN_HEADER]
        headers = {}
        if origin is not None:
            headers["Origin"] = origin
        if token is not None:
            headers[TOKEN_HEADER] = {"right": right, "other-server": _token(o)}.get(token, token)
        wb = app.state.workbench
        n_ws = len(wb.workspaces)
        answers = [
            c.post("/api/workspaces", json={}, headers=headers),
            c.post(f"/api/ws/{ws}/edit", json={"card": card, "field": "cost",
                                               "value": str(cost + 1)}, headers=headers),
            c.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": {
                "edits": [{"card": card, "field": "cost", "new": 1}], "games": 4,
                "seed": "x"}}, headers=headers),             # refused either way: no process
            c.post(f"/api/ws/{ws}/reset", headers=headers),
        ]
        if allowed:
            assert [r.status_code for r in answers] == [200, 200, 400, 200]
            return
        for r in answers:
            assert r.status_code == 403, r.json()
            msg = r.json()["error"]
            assert msg.startswith("refused:") and "\n" not in msg
            if origin not in (None, OWN):
                assert origin in msg
            else:
                assert TOKEN_HEADER in msg and "reload the page" in msg
        assert len(wb.workspaces) == n_ws and not wb.runs.runs
        assert _number(c.get(f"/api/ws/{ws}/cards").json(), card, "cost")["value"] == cost


def test_every_page_load_has_its_own_token_and_the_page_sends_it():
    """The page carries a fresh token; its JavaScript sends it on every changing request
    (the keepalive request of a closed page too); the page may not be framed."""
    app = create_app("mystic-vale")
    with TestClient(app) as c:
        r = c.get("/")
        assert r.headers["cache-control"] == "no-store" and r.headers["x-frame-options"] == "DENY"
        tokens = {_token(c) for _ in range(3)}
        assert len(tokens) == 3 and all(len(t) >= 32 for t in tokens)
        for t in tokens:                     # each works
            assert c.post("/api/workspaces", json={}, headers={TOKEN_HEADER: t}).status_code == 200
    js = (app_mod.STATIC / "app.js").read_text()
    assert js.count('"X-Vale-Token"') == 2 and "sendBeacon" not in js   # a beacon cannot send it


def _live_what_if(c, ws, table):
    card = next(x["name"] for x in table["cards"]
                if any(n["field"] == "cost" and n["editable"] for n in x["numbers"]))
    r = c.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": {
        "edits": [{"card": card, "field": "cost", "new": 1}], "games": 100_000,
        "engine": "reference"}})
    assert r.status_code == 200, r.json()
    return r.json()["id"]


def test_a_workspace_flood_never_drops_a_workspace_with_a_live_run(client, monkeypatch):
    """Workspaces are bounded per page (its token) and in all.  A flood of new ones
    drops the least recently used idle ones, never one with a run going (before: the
    101st deleted a live workspace and cancelled its runs); when every one it could
    drop has a live run, the request is refused (429) with one line."""
    monkeypatch.setattr(app_mod, "MAX_WORKSPACES_PER_SESSION", 3)
    monkeypatch.setattr(app_mod, "MAX_WORKSPACES", 5)
    wb = client.app.state.workbench
    live, table = _ws(client)
    run = _live_what_if(client, live, table)
    try:
        mine = [_ws(client)[0] for _ in range(5)]         # this page's flood
        assert client.get(f"/api/ws/{live}/cards").status_code == 200
        assert client.get(f"/api/runs/{run}").json()["status"] == "running"
        assert client.get(f"/api/ws/{mine[-1]}/cards").status_code == 200
        assert client.get(f"/api/ws/{mine[0]}/cards").status_code == 404     # an idle one went
        assert len([w for w in wb.workspaces if wb.ws_session[w] == wb.ws_session[live]]) == 3
        other = {TOKEN_HEADER: _token(client)}           # other pages' flood: the bound in all
        for _ in range(6):
            assert client.post("/api/workspaces", json={}, headers=other).status_code == 200
            assert len(wb.workspaces) <= 5
        assert client.get(f"/api/ws/{live}/cards").status_code == 200
        assert client.get(f"/api/runs/{run}").json()["status"] == "running"
        # this page: two new card sets, each with a run -- nothing of it can go
        (second, t2), (third, t3) = _ws(client), _ws(client)
        assert {w for w in wb.workspaces if wb.ws_session[w] == wb.ws_session[live]} == \
            {live, second, third}
        monkeypatch.setattr(wb.runs, "max_running", 3)
        run2, run3 = _live_what_if(client, second, t2), _live_what_if(client, third, t3)
        r = client.post("/api/workspaces", json={})
        assert r.status_code == 429
        msg = r.json()["error"]
        assert "\n" not in msg and "at most 3" in msg and "run" in msg
        for w, rid in ((live, run), (second, run2), (third, run3)):
            assert client.get(f"/api/ws/{w}/cards").status_code == 200
            assert client.get(f"/api/runs/{rid}").json()["status"] == "running"
        client.post(f"/api/runs/{run3}/cancel")          # a run ends: room again
        assert client.post("/api/workspaces", json={}).status_code == 200
        assert client.get(f"/api/ws/{live}/cards").status_code == 200
        client.post(f"/api/runs/{run2}/cancel")
    finally:
        client.post(f"/api/runs/{run}/cancel")


def test_the_server_wide_bound_refuses_when_every_workspace_has_a_live_run(monkeypatch):
    monkeypatch.setattr(app_mod, "MAX_WORKSPACES", 2)
    app = create_app("mystic-vale", heartbeat=60)
    with TestClient(app) as c:
        pages = [{TOKEN_HEADER: _token(c)} for _ in range(3)]
        runs = []
        try:
            for h in pages[:2]:
                r = c.post("/api/workspaces", json={}, headers=h).json()
                c.headers.update(h)
                runs.append((r["id"], _live_what_if(c, r["id"], r["table"])))
            r = c.post("/api/workspaces", json={}, headers=pages[2])
            assert r.status_code == 429 and "at most 2" in r.json()["error"]
            for ws, rid in runs:
                assert c.get(f"/api/ws/{ws}/cards").status_code == 200
                assert c.get(f"/api/runs/{rid}").json()["status"] == "running"
        finally:
            for _, rid in runs:
                c.post(f"/api/runs/{rid}/cancel")


def _asgi_post(app, path, headers, chunks):
    """POST ``chunks`` (an iterator, pulled only as the server reads) straight to the
    ASGI app: the status, the JSON answer and how many bytes the server pulled."""
    pulled = [0]
    it = iter(chunks)

    async def receive():
        try:
            chunk = next(it)
        except StopIteration:
            return {"type": "http.request", "body": b"", "more_body": False}
        pulled[0] += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": True}
    out = {"body": b""}

    async def send(message):
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "client": ("127.0.0.1", 5000),
             "server": ("127.0.0.1", 8765),
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    asyncio.run(app(scope, receive, send))
    return out["status"], json.loads(out["body"]), pulled[0]


CHUNK = 64 * 1024


def _multipart(name, data_chunks, boundary="vale"):
    yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
           f"filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode()
    yield from data_chunks
    yield f"\r\n--{boundary}--\r\n".encode()


def test_a_body_without_a_length_is_refused_once_it_passes_the_limit(client):
    """A chunked upload (no Content-Length) is counted as it streams in and refused
    (413) as soon as it passes the limit: the server reads about 2 MB of a 64 MB body,
    not all of it (before: the whole body was read, then refused).  The same for a
    JSON request; with a Content-Length over the limit nothing is read."""
    from vale_sim.workbench.workspace import MAX_UPLOAD_BYTES
    ws, table = _ws(client)
    app = client.app
    h = {TOKEN_HEADER: client.headers[TOKEN_HEADER],
         "content-type": "multipart/form-data; boundary=vale"}
    total = 64 * 2**20
    flood = (b"#" * CHUNK for _ in range(total // CHUNK))
    status, answer, pulled = _asgi_post(app, f"/api/ws/{ws}/upload", h,
                                        _multipart("big.toml", flood))
    assert status == 413
    assert "\n" not in answer["error"] and f"{MAX_UPLOAD_BYTES:,}" in answer["error"]
    assert pulled <= app_mod.MAX_UPLOAD_BODY + CHUNK < total // 16
    status, _, pulled = _asgi_post(app, f"/api/ws/{ws}/upload",
                                   dict(h, **{"content-length": str(50 * 2**20)}),
                                   _multipart("big.toml", (b"#" * CHUNK for _ in range(800))))
    assert status == 413 and pulled == 0                # refused before reading anything
    jh = {TOKEN_HEADER: client.headers[TOKEN_HEADER], "content-type": "application/json"}
    status, answer, pulled = _asgi_post(app, f"/api/ws/{ws}/edit", jh,
                                        (b" " * CHUNK for _ in range(total // CHUNK)))
    assert status == 413 and pulled <= app_mod.MAX_JSON_BYTES + CHUNK
    assert client.get(f"/api/ws/{ws}/cards").json()["digest"] == table["digest"]
    # a good file without a length still loads
    g = get_game("mystic-vale")
    text = g.bundled_card_sets()["core"].read_bytes().replace(b'name = "core"', b'name = "m"', 1)
    parts = [text[i:i + 4096] for i in range(0, len(text), 4096)]
    status, answer, _ = _asgi_post(app, f"/api/ws/{ws}/upload", h, _multipart("m.toml", parts))
    assert status == 200 and answer["set"] == "m.toml", answer


BAD_NUMBERS = ["²", "--5", "1e5", "9" * 5000, 2**64, -1, 1.5, True, None, [3], "Infinity"]


@pytest.mark.parametrize("kind,field", [
    ("what-if", "seed"), ("what-if", "games"), ("what-if", "players"),
    ("balance", "seed"), ("balance", "games"), ("balance", "budget"), ("balance", "margin_pp"),
    ("balance", "players"), ("report", "seed"), ("odds", "pushes"),
])
def test_a_bad_number_in_a_run_request_is_400_naming_the_field(client, kind, field):
    """Every number of a run request goes through the rules of vale_sim.limits: a bad
    one is 400 with one line naming the field (before: "²", "--5" or a 5,000-digit
    seed, and a player count of Infinity, were a 500) and no process starts."""
    ws, table = _ws(client)
    card = next(x["name"] for x in table["cards"]
                if any(n["field"] == "cost" and n["editable"] for n in x["numbers"]))
    base = {"what-if": {"edits": [{"card": card, "field": "cost", "new": 1}]},
            "odds": {"deck": client.get(f"/api/ws/{ws}/decks").json()["decks"]["starter"]}}
    for v in BAD_NUMBERS + (["inf"] if field == "players" else []):
        params = dict(base.get(kind, {}), **{field: [v] if field == "players" else v})
        text = json.dumps({"kind": kind, "params": params})
        if v == "Infinity":                              # JSON's non-standard number
            text = text.replace('"Infinity"', "Infinity")
        r = client.post(f"/api/ws/{ws}/runs", content=text,
                        headers={"content-type": "application/json"})
        assert r.status_code == 400, (field, v, r.json())
        msg = r.json()["error"]
        assert msg.startswith(f"{field}:") and "\n" not in msg, msg
        assert len(msg) < 300
    assert not client.app.state.workbench.runs.runs


@pytest.mark.parametrize("path,body", [
    ("/api/workspaces", {"game": 5}), ("/api/workspaces", {"game": ["x"]}),
    ("/api/ws/{ws}/load", {"set": []}), ("/api/ws/{ws}/edit", {"card": {}, "value": [1]}),
    ("/api/ws/{ws}/edit", {"card": "x", "field": "cost", "value": "9" * 5000}),
    ("/api/ws/{ws}/apply", {"edits": [{"card": 1}]}), ("/api/ws/{ws}/apply", {"edits": "x"}),
    ("/api/ws/{ws}/runs", {"kind": "what-if", "params": {"edits": [{}]}}),
    ("/api/ws/{ws}/runs", {"kind": "what-if", "params": {"edits": [{"card": "x"}],
                                                         "rules": [1]}}),
    ("/api/ws/{ws}/runs", {"kind": "balance", "params": {"fields": [1, 2]}}),
    ("/api/ws/{ws}/runs", {"kind": "odds", "params": {"deck": {"cards": [{"x": []}]}}}),
    ("/api/ws/{ws}/runs", {"kind": "odds", "params": {"deck": {"cards": "x"}}}),
    ("/api/ws/{ws}/runs", {"kind": "report", "params": "x"}),
    ("/api/ws/{ws}/runs", "[" * 100_000 + "]" * 100_000),      # nested past the recursion limit
    ("/api/ws/{ws}/runs", "not json"), ("/api/ws/{ws}/runs", [1, 2]),
])
def test_a_malformed_request_is_one_line_never_a_500(client, path, body):
    ws, _ = _ws(client)
    text = body if isinstance(body, str) else json.dumps(body)
    r = client.post(path.format(ws=ws), content=text, headers={"content-type": "application/json"})
    assert r.status_code in (400, 404), (r.status_code, r.json())
    assert "\n" not in r.json()["error"] and "Traceback" not in r.json()["error"]
    assert not client.app.state.workbench.runs.runs


def test_a_run_again_reads_the_games_it_finished_back(client):
    """The tab's chunk store: the same what-if again plays nothing new and gives the
    same numbers (a cancelled run's finished chunks are kept the same way)."""
    ws, table = _ws(client)
    card = next(c["name"] for c in table["cards"]
                if any(n["field"] == "cost" and n["editable"] for n in c["numbers"]))
    params = {"edits": [{"card": card, "field": "cost",
                         "new": _number(table, card, "cost")["value"] + 1}],
              "games": 4, "engine": "reference"}
    out = []
    for _ in range(2):
        r = client.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": params}).json()
        res = _wait(client, r["id"])
        assert res["status"] == "done", res
        out.append(res["result"])
    first = out[0]["chunks"]
    assert first["played"] > 0
    assert out[1]["chunks"] == {"reused": first["played"] + first["reused"], "played": 0}
    assert out[1]["players"] == out[0]["players"]
