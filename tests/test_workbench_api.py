"""``vale-sim serve`` without a browser: the JSON API, the workspace and the runs in
worker processes (docs/workbench.md).  The browser tests are
tests/test_workbench_browser.py.

Runs here use the reference engine and a few games: they never compile numba in
this process (the worker processes do the work) and finish in seconds.
"""
from __future__ import annotations

import os
import time
import tomllib

import pytest
from starlette.testclient import TestClient      # a dependency of vale-sim: never skipped

from vale_sim.games import get_game
from vale_sim.workbench.app import create_app
from vale_sim.workbench.runs import RunManager


# jobs for the run manager's own tests (a spawned worker imports this module)
def _boom(params, report):
    raise RuntimeError("boom")


def _sleep(params, report):
    report(0, 10, "sleeping")
    time.sleep(params.get("seconds", 60))
    return {"slept": True}


@pytest.fixture
def client():
    app = create_app("mystic-vale", heartbeat=60)
    with TestClient(app) as c:
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


def test_a_page_of_another_site_and_another_host_name_are_refused():
    """A web page elsewhere cannot drive the workbench: a POST from another origin
    is refused, and a loopback server answers only requests naming a loopback host
    (no DNS rebinding)."""
    app = create_app("mystic-vale", allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://127.0.0.1:8765") as c:
        assert c.get("/api/games").status_code == 200
        r = c.post("/api/workspaces", json={}, headers={"Origin": "http://evil.example"})
        assert r.status_code == 403 and "evil.example" in r.json()["error"]
        r = c.post("/api/workspaces", json={}, headers={"Origin": "http://127.0.0.1:8765"})
        assert r.status_code == 200
        assert c.get("/api/games", headers={"Host": "evil.example"}).status_code == 400


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
