"""The price curve in the workbench (``vale-sim serve``): a card's row opens it, the run is
``vale_sim.curve.price_curve`` in a worker process, its figure is served, and a bad request
is one line (400) before any process.  Runs use the reference engine and a few games, in
worker processes: nothing compiles here.  In a browser: tests/test_workbench_browser.py."""
from __future__ import annotations

import re
import time

import pytest
from starlette.testclient import TestClient

from vale_sim.workbench.app import TOKEN_HEADER, create_app


@pytest.fixture
def client():
    with TestClient(create_app("mystic-vale", heartbeat=60)) as c:
        m = re.search(r'<meta name="vale-sim-token" content="([^"]*)"', c.get("/").text)
        c.headers[TOKEN_HEADER] = m.group(1)
        yield c


def _wait(client, run_id, timeout=120):
    t0 = time.time()
    while time.time() - t0 < timeout:
        r = client.get(f"/api/runs/{run_id}").json()
        if r["status"] in ("done", "failed", "cancelled"):
            return r
        time.sleep(0.25)
    raise AssertionError(f"run {run_id} did not end in {timeout} s")


def test_a_cards_row_has_its_curve_and_the_run_draws_it(client):
    r = client.post("/api/workspaces", json={"game": "mystic-vale"}).json()
    ws, table = r["id"], r["table"]
    rows = {c["name"]: c for c in table["cards"]}
    assert rows["Podlings"]["curve"] is True
    assert not any(c["curve"] for c in table["cards"] if c["type"] == "starting")
    # the curve of the table as it is now: an edit of another card is in it
    assert client.post(f"/api/ws/{ws}/edit", json={"card": "Stag", "field": "cost",
                                                   "value": "5"}).status_code == 200
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "curve", "params": {
        "card": "Podlings", "number": "cost", "values": "1..2", "games": 4,
        "engine": "reference"}})
    assert r.status_code == 200, r.json()
    note = r.json()["note"]
    assert note["values"] == [1, 2] and note["field"] == "value-2p"
    done = _wait(client, r.json()["id"])
    assert done["status"] == "done", done
    res = done["result"]
    assert (res["card"], res["number"], res["printed"], res["field"]) == \
        ("Podlings", "cost", 2, "value-2p")
    edited = client.get(f"/api/ws/{ws}/cards").json()
    assert edited["edits"] and res["digest"] == edited["digest"] != table["digest"]
    assert [(x["players"], x["value"]) for x in res["rows"]] == [(2, 1), (2, 2)]
    for x in res["rows"]:
        assert x["n_deals"] == 2 and x["verdict"] in ("over", "under", "balanced",
                                                      "inconclusive")
        assert x["natural_ci"][0] <= x["natural_value"] <= x["natural_ci"][1]
    assert res["summary"] and "Price curve of Podlings.cost" in res["text"]
    fig = client.get(f"/reports/{done['id']}/curve.png")
    assert fig.status_code == 200 and fig.content[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("params, words", [
    ({"card": "Podlingz", "number": "cost"}, ["card 'Podlingz'", "Podlings"]),
    ({"card": "Podlings", "number": "costs"}, ["number costs", "editable"]),
    ({"card": "Podlings", "number": "cost", "values": "9..3"}, ["values", "9 is above 3"]),
    ({"card": "Podlings", "number": "cost", "games": 10**9}, ["games"]),
    ({"card": "Podlings", "number": "cost", "baseline": "../x.toml"}, ["baseline:"]),
    ({"number": "cost"}, ["card: pick a card"]),
])
def test_a_bad_curve_request_is_one_line_before_any_process(client, params, words):
    ws = client.post("/api/workspaces", json={"game": "mystic-vale"}).json()["id"]
    r = client.post(f"/api/ws/{ws}/runs", json={"kind": "curve", "params": params})
    assert r.status_code == 400, r.json()
    err = r.json()["error"]
    assert "\n" not in err and all(w in err for w in words), err
