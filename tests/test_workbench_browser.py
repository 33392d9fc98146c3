"""``vale-sim serve`` driven in a real browser: headless Chromium (Debian's
``chromium`` package) through Playwright (docs/workbench.md, "Tests").

Marked ``browser``.  A developer without Chromium (or Playwright) skips them; CI
(the ``CI`` environment variable set, as .ci/run does) never does: there a missing
browser fails the tests.  Nothing downloads a browser: Playwright is pointed at
/usr/bin/chromium (``VALE_SIM_CHROMIUM`` to use another).

The server is the real command (``vale-sim serve --port 0``) in a subprocess; runs
use the reference engine and a few games.  ``VALE_SIM_SCREENSHOT=PATH`` also saves
the README's screenshot there (docs/workbench.png is made so).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("VALE_SIM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if not Path(CHROMIUM).is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


_WHY = _missing()
if _WHY and os.environ.get("CI"):
    # CI never skips these: a missing browser is a failure there
    pytestmark = pytest.mark.browser
else:
    pytestmark = [pytest.mark.browser, pytest.mark.skipif(_WHY is not None, reason=str(_WHY))]


@pytest.fixture(scope="module")
def server():
    """The real ``vale-sim serve`` on a free port (default host), and its address."""
    if _WHY:
        pytest.fail(f"browser tests cannot run in CI: {_WHY}")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-m", "vale_sim.cli", "serve", "--port", "0", "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         cwd=ROOT)
    line = p.stdout.readline()
    m = re.search(r"http://[^ ]+/", line)
    if not m:
        p.kill()
        raise AssertionError(f"serve printed no address: {line!r} {p.stderr.read()!r}")
    yield {"url": m.group(0), "proc": p}
    p.terminate()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    pg = ctx.new_page()
    errors, outside = [], []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("request", lambda r: None if r.url.startswith((server["url"], "data:"))
          else outside.append(r.url))
    pg.goto(server["url"])
    pg.wait_for_selector("#cards-table tbody tr")
    yield pg
    ctx.close()
    assert not errors, errors
    assert not outside, f"the page asked for something not on the server: {outside}"  # no CDN


def _get(server, path):
    with urllib.request.urlopen(server["url"] + path.lstrip("/"), timeout=10) as r:
        return json.loads(r.read())


def _a_cost(page):
    """The first card whose cost the table lets you edit, and its input."""
    inp = page.locator('#cards-table input[data-field="cost"]').first
    return inp.get_attribute("data-card"), inp


def _alive(pid) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def test_a_bad_cost_shows_the_validation_message_and_a_good_one_becomes_user(page):
    shot = os.environ.get("VALE_SIM_SCREENSHOT")
    # a card players buy (level above 0), shown alone when the README's picture is taken
    card = page.evaluate("""() => [...document.querySelectorAll('#cards-table tr')].find(tr =>
        tr.querySelector('input[data-field="cost"]') && [...tr.querySelectorAll('.n')].some(n =>
        n.dataset.field === 'level' && n.querySelector('.v, input') &&
        Number((n.querySelector('.v') || n.querySelector('input')).textContent ||
               n.querySelector('input').value) > 0)).dataset.card""")
    if shot:
        page.fill("#card-filter", card.split()[0])
    inp = page.locator(f'#cards-table tr[data-card="{card}"] input[data-field="cost"]')
    inp.fill("999")
    inp.press("Enter")
    msg = page.locator("#cards-message")
    msg.wait_for(state="visible")
    text = msg.inner_text()
    assert text.startswith(f"{card}, cost:") and "999" in text and "outside" in text
    assert inp.get_attribute("aria-invalid") == "true"
    if shot:                                  # the README's picture: a refused value, in place
        page.screenshot(path=shot, clip={"x": 0, "y": 0, "width": 1280, "height": 500})
    inp.fill("1")
    inp.press("Enter")
    page.wait_for_function("document.querySelector('#cards-message').hidden")
    cell = page.locator(f'#cards-table tr[data-card="{card}"] .n[data-field="cost"]').first
    assert cell.locator(".src").inner_text() == "user"
    assert f"{card}.cost" in page.inner_text("#edits-summary")
    assert "→ 1 (user)" in page.inner_text("#edits-summary")


def test_a_small_what_if_runs_to_completion_and_its_number_is_on_the_page(page, server):
    card, inp = _a_cost(page)
    old = int(inp.input_value())
    inp.fill(str(old + 2))
    inp.press("Enter")
    page.wait_for_selector(f'#cards-table tr[data-card="{card}"] .n.edited')
    page.click('nav button[data-tab="whatif"]')
    page.click("#wi-from-table")
    assert page.locator("#wi-edits tbody tr").count() == 1
    # the defaults: the game's strongest bundled field and the natural estimand, as the CLI
    assert page.input_value("#wi-baseline") == "" and page.input_value("#wi-estimand") == "natural"
    from vale_sim.strong_field import field_of
    assert field_of("mystic-vale") in page.locator("#wi-baseline option").first.text_content()
    page.fill("#wi-games", "4")
    page.select_option("#wi-engine", "reference")
    page.click("#wi-run")
    page.wait_for_selector('#wi-result[data-status="done"] table.wi-cards', timeout=120_000)
    assert "field value-2p, estimand natural" in page.inner_text("#wi-result .wi-what")
    cell = page.locator(f'#wi-result tr[data-card="{card}"] td.change').first
    shown = float(cell.get_attribute("data-value"))
    text = cell.inner_text()
    run = _get(server, f"/api/runs/{page.get_attribute('#wi-result', 'data-run')}")
    row = next(r for r in run["result"]["players"][0]["cards"] if r["card"] == card)
    assert shown == row["change"]
    assert text == (f"{100 * shown:+.1f}" if shown else "0.0")
    # the other two estimands, as the run computed them: per pick and bought, forced
    row_el = page.locator(f'#wi-result tr[data-card="{card}"]').first
    bought = row_el.locator("td.acquired").inner_text()
    assert bought.startswith(f"{100 * row['acquired_original']:.1f} ["), bought
    assert "→" in row_el.locator("td.per-pick").inner_text()
    assert row_el.locator("td.forced").inner_text().startswith(
        f"{100 * row['strength_original']:+.1f}" if row["strength_original"] else "0.0")
    assert page.locator('#wi-progress').evaluate("e => e.value === e.max")
    img = page.locator("#wi-result img.figure")               # the project's what-if figure
    img.wait_for()
    page.wait_for_function("document.querySelector('#wi-result img.figure').complete")
    assert img.evaluate("e => e.naturalWidth") > 100


def test_cancel_stops_the_run(page, server):
    card, inp = _a_cost(page)
    inp.fill(str(int(inp.input_value()) + 1))
    inp.press("Enter")
    page.wait_for_selector(f'#cards-table tr[data-card="{card}"] .n.edited')
    page.click('nav button[data-tab="whatif"]')
    page.click("#wi-from-table")
    page.fill("#wi-games", "200000")
    page.select_option("#wi-engine", "reference")
    page.click("#wi-run")
    page.wait_for_selector('#wi-result[data-status="running"]', state="attached")
    run_id = page.get_attribute("#wi-result", "data-run")
    pid = _get(server, f"/api/runs/{run_id}")["pid"]
    page.click("#wi-cancel")
    page.wait_for_selector('#wi-result[data-status="cancelled"]', state="attached")
    assert "cancelled" in page.inner_text("#wi-message")
    assert page.is_enabled("#wi-run") and page.is_disabled("#wi-cancel")
    assert _get(server, f"/api/runs/{run_id}")["status"] == "cancelled"
    t0 = time.time()
    while _alive(pid) and time.time() - t0 < 5:
        time.sleep(0.1)
    assert not _alive(pid)


def test_closing_the_page_stops_its_run(browser, server):
    ctx = browser.new_context()
    pg = ctx.new_page()
    pg.goto(server["url"])
    pg.wait_for_selector("#cards-table tbody tr")
    card, inp = _a_cost(pg)
    inp.fill(str(int(inp.input_value()) + 1))
    inp.press("Enter")
    pg.wait_for_selector(f'#cards-table tr[data-card="{card}"] .n.edited')
    pg.click('nav button[data-tab="whatif"]')
    pg.click("#wi-from-table")
    pg.fill("#wi-games", "200000")
    pg.select_option("#wi-engine", "reference")
    pg.click("#wi-run")
    pg.wait_for_selector('#wi-result[data-status="running"]', state="attached")
    run_id = pg.get_attribute("#wi-result", "data-run")
    pg.close(run_before_unload=True)
    ctx.close()
    t0 = time.time()
    while _get(server, f"/api/runs/{run_id}")["status"] == "running" and time.time() - t0 < 20:
        time.sleep(0.2)
    r = _get(server, f"/api/runs/{run_id}")
    assert r["status"] == "cancelled" and "closed" in r["error"]


def test_a_page_of_another_origin_cannot_change_the_workbench(page, browser, server):
    """A sandboxed iframe (Origin: null) and a page of another local server (another
    port) post to the workbench: both are refused (403) and the table keeps its edit,
    while the workbench's own page (which sends its token) changes it."""
    import http.server
    import threading
    card, inp = _a_cost(page)
    inp.fill(str(int(inp.input_value()) + 1))
    inp.press("Enter")
    page.wait_for_selector(f'#cards-table tr[data-card="{card}"] .n.edited')
    ws = page.evaluate("sessionStorage.getItem('vale-ws')")
    url = server["url"] + f"api/ws/{ws}/reset"
    attack = (f"<script>fetch('{url}', {{method: 'POST', mode: 'no-cors', "
              f"headers: {{'Content-Type': 'text/plain'}}, body: '{{}}'}})"
              f".then(() => console.log('attack answered'))</script>")

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(attack.encode())

        def log_message(self, *a):
            pass
    evil_server = http.server.HTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil_server.serve_forever, daemon=True).start()
    ctx = browser.new_context()
    try:
        for how in ("sandboxed iframe", "another port"):
            evil = ctx.new_page()
            console = []                  # the iframe's request is not among the page's
            evil.on("console", lambda m: console.append(m.text))
            if how == "sandboxed iframe":
                evil.set_content('<iframe sandbox="allow-scripts" srcdoc="'
                                 + attack.replace('"', "&quot;") + '"></iframe>')
            else:
                evil.goto(f"http://127.0.0.1:{evil_server.server_address[1]}/")
            t0 = time.time()
            while "attack answered" not in console and time.time() - t0 < 15:
                evil.wait_for_timeout(100)
            assert "attack answered" in console, (how, console)      # it reached the server
            assert any("status of 403" in m for m in console), (how, console)
            assert _get(server, f"/api/ws/{ws}/cards")["edits"], how     # the edit is still there
            evil.close()
    finally:
        ctx.close()
        evil_server.shutdown()
    page.click("#reset-edits")                          # the page itself may
    page.wait_for_function("!document.querySelector('#cards-table .n.edited')")
    assert not _get(server, f"/api/ws/{ws}/cards")["edits"]


def test_a_malformed_upload_shows_a_one_line_error(page, tmp_path):
    bad = tmp_path / "my-cards.toml"
    bad.write_text('[set]\nname = "mine"\n[[advancements]\nname = "X"\n')
    before = page.inner_text("#set-label")
    page.set_input_files("#upload-file", str(bad))
    page.click("#upload-btn")
    msg = page.locator("#cards-message")
    msg.wait_for(state="visible")
    text = msg.inner_text()
    assert "\n" not in text.strip() and text.startswith("my-cards.toml:")
    assert "Traceback" not in text and "not valid TOML" in text
    assert page.inner_text("#set-label") == before          # the table is still the old set


def test_nothing_listens_on_a_non_loopback_address_by_default(server):
    """The server started without --host: every socket it listens on is bound to
    127.0.0.1 (read from /proc), and its port does not answer on this machine's
    other addresses."""
    pid = server["proc"].pid
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            t = os.readlink(fd)
        except OSError:
            continue
        if t.startswith("socket:["):
            inodes.add(t[8:-1])
    listening = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:                 # LISTEN, one of its sockets
                listening.append((table, f[1]))
    assert listening, "the server listens on nothing"
    port = int(server["url"].rsplit(":", 1)[1].strip("/"))
    for table, local in listening:
        addr, p = local.split(":")
        assert int(p, 16) == port
        assert table == "tcp" and addr == "0100007F", f"listens on {local} ({table})"
    for a in _own_addresses():
        if a.startswith("127."):
            continue
        with socket.socket() as s:                 # this machine's own address: no traffic out
            s.settimeout(1)
            assert s.connect_ex((a, port)) != 0, f"port {port} answers on {a}"


def _own_addresses() -> set:
    """The IPv4 addresses of this machine's network interfaces."""
    import fcntl
    import struct
    out = set()
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                raw = fcntl.ioctl(s.fileno(), 0x8915,            # SIOCGIFADDR
                                  struct.pack("256s", name[:15].encode()))
            except OSError:
                continue
            out.add(socket.inet_ntoa(raw[20:24]))
    return out


def test_two_tabs_keep_their_own_table_and_run(browser, server):
    """Two tabs (one browser, so one cookie jar) each edit the same cost to another
    value and run at the same time: each tab's table and result show its own edit."""
    ctx = browser.new_context()
    tabs = [ctx.new_page(), ctx.new_page()]
    try:
        for pg in tabs:
            pg.goto(server["url"])
            pg.wait_for_selector("#cards-table tbody tr")
        card, _ = _a_cost(tabs[0])
        old = int(tabs[0].locator(f'#cards-table tr[data-card="{card}"] input[data-field="cost"]')
                  .input_value())
        values = [old + 1, old + 3]
        for pg, v in zip(tabs, values):
            inp = pg.locator(f'#cards-table tr[data-card="{card}"] input[data-field="cost"]')
            inp.fill(str(v))
            inp.press("Enter")
            pg.wait_for_selector(f'#cards-table tr[data-card="{card}"] .n.edited')
        for pg, v in zip(tabs, values):             # each table kept its own value
            assert pg.locator(f'#cards-table tr[data-card="{card}"] input[data-field="cost"]') \
                .input_value() == str(v)
        for pg in tabs:
            pg.click('nav button[data-tab="whatif"]')
            pg.click("#wi-from-table")
            pg.fill("#wi-games", "4")
            pg.select_option("#wi-engine", "reference")
            pg.click("#wi-run")
        ids = []
        for pg, v in zip(tabs, values):
            pg.wait_for_selector('#wi-result[data-status="done"] .wi-what', timeout=120_000)
            assert f"{card}.cost {old} → {v}?" in pg.inner_text("#wi-result .wi-what")
            ids.append(pg.get_attribute("#wi-result", "data-run"))
        assert ids[0] != ids[1]
    finally:
        ctx.close()


def test_a_failing_run_and_a_killed_worker_are_one_line_in_the_page(page, server):
    page.click('nav button[data-tab="balance"]')
    page.fill("#bal-fields", "nonsense")               # the balancer refuses it, in the worker
    page.select_option("#bal-engine", "reference")     # (fast would compile numba first)
    page.click("#bal-run")
    page.wait_for_selector('#bal-result[data-status="failed"]', state="attached", timeout=60_000)
    text = page.inner_text("#bal-message")
    assert "nonsense" in text and "\n" not in text.strip() and "Traceback" not in text
    # a worker killed under a what-if: the page says so, and the server goes on
    card, inp = _a_cost(page)
    page.click('nav button[data-tab="cards"]')
    inp.fill(str(int(inp.input_value()) + 1))
    inp.press("Enter")
    page.wait_for_selector(f'#cards-table tr[data-card="{card}"] .n.edited')
    page.click('nav button[data-tab="whatif"]')
    page.click("#wi-from-table")
    page.fill("#wi-games", "200000")
    page.select_option("#wi-engine", "reference")
    page.click("#wi-run")
    page.wait_for_selector('#wi-result[data-status="running"]', state="attached")
    os.kill(_get(server, f"/api/runs/{page.get_attribute('#wi-result', 'data-run')}")["pid"], 9)
    page.wait_for_selector('#wi-result[data-status="failed"]', state="attached", timeout=30_000)
    text = page.inner_text("#wi-message")
    assert "worker process was killed" in text and "\n" not in text.strip()
    assert server["proc"].poll() is None                 # the server is still up
    assert page.is_enabled("#wi-run")


def test_the_edited_set_downloads_as_toml_that_loads(page, tmp_path):
    from vale_sim.games import get_game
    card, inp = _a_cost(page)
    inp.fill(str(int(inp.input_value()) + 1))
    inp.press("Enter")
    page.wait_for_selector(f'#cards-table tr[data-card="{card}"] .n.edited')
    with page.expect_download() as d:
        page.click('#downloads a[data-format="toml"]')
    path = tmp_path / d.value.suggested_filename
    d.value.save_as(path)
    assert path.name.endswith("-edited.toml")
    g = get_game("mystic-vale")
    cs = g.load_card_set(str(path))
    got = {(c["name"], f): v for c in g.describe_cards(cs, as_json=True)["cards"]
           if c["type"] != "starting" for f, v in c["numbers"].items()}
    assert got[(card, "cost")] == {"value": int(inp.input_value()), "source": "user"}


def test_a_cards_row_opens_its_price_curve(page, server):
    """The "price curve" button of a card's row: the Curve tab with that card and its cost,
    run at once; the figure and one row per value come back (issue 40, item 1)."""
    page.click('nav button[data-tab="curve"]')
    page.fill("#cv-games", "4")
    page.select_option("#cv-engine", "reference")
    page.click('nav button[data-tab="cards"]')
    assert page.locator('#cards-table tr[data-type="starting"] button.curve-open').count() == 0
    page.click('#cards-table tr[data-card="Podlings"] button.curve-open')
    assert page.locator("#tab-curve").is_visible()
    assert page.input_value("#cv-card") == "Podlings" and page.input_value("#cv-number") == "cost"
    page.wait_for_selector('#cv-result[data-status="done"] table.cv-rows', timeout=180_000)
    assert "Price curve of Podlings.cost (printed 2)" in page.inner_text("#cv-result .cv-what")
    assert "field value-2p" in page.inner_text("#cv-result .cv-what")
    run = _get(server, f"/api/runs/{page.get_attribute('#cv-result', 'data-run')}")["result"]
    shown = page.locator("#cv-result table.cv-rows tbody tr")
    assert shown.count() == len(run["rows"]) == len(run["values"])
    assert page.locator("#cv-result .cv-summary").first.inner_text() == run["summary"][0]
    page.wait_for_function("document.querySelector('#cv-result img.figure') && "
                           "document.querySelector('#cv-result img.figure').complete")
    assert page.locator("#cv-result img.figure").evaluate("e => e.naturalWidth") > 100
