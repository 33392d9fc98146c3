"""Rule numbers have bounds (issue 41, item 5): every rule number a user gives -- a
command-line flag, ``what-if --rule``, an edits file's or a study config's
``[rules]``, the workbench, the Python API -- goes through one check
(vale_sim.limits.check_rule_numbers, called by each game's ``Rules()``), before any
game: ``what-if --rule vp_pool=100000000000000000000`` played for 9.7 s and then
printed an OverflowError traceback; ``[rules] vp_pool = 1000000`` started playing.
The bounds are those of docs/runs.md, "Limits checked before anything runs"."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from vale_sim.cli import main
from vale_sim.games import get_game
from vale_sim.games.mystic_lands import rules as ml_rules
from vale_sim.games.mystic_vale import rules as mv_rules

REPO = Path(__file__).resolve().parents[1]
HUGE = 10**20


def bounds(game: str) -> dict:
    """field -> (lo, hi) of every bounded rule number of ``game``."""
    if game == "mystic-lands":
        return dict(ml_rules.RANGES)
    return {f.name: f.metadata["range"] for f in dataclasses.fields(mv_rules.Rules)
            if "range" in f.metadata}


def _with(game, name, x):
    """The game's default rules with rule number ``name`` set to ``x`` (each number of
    a tuple field, where the field is a tuple)."""
    R = get_game(game).rules_class
    d = getattr(R(), name)
    return {name: tuple(x for _ in d) if isinstance(d, tuple) else x}


def test_every_int_rule_number_has_a_bound():
    for game in ("mystic-vale", "mystic-lands"):
        R = get_game(game).rules_class
        numeric = {f.name for f in dataclasses.fields(R)
                   if not isinstance(getattr(R(), f.name), (bool, str))}
        assert numeric == set(bounds(game)), game


@pytest.mark.parametrize("game", ["mystic-vale", "mystic-lands"])
def test_each_bound_is_checked_by_rules_itself(game):
    R = get_game(game).rules_class
    for name, (lo, hi) in bounds(game).items():
        for bad in (hi + 1, HUGE) + ((lo - 1,) if lo > 0 else ()):
            with pytest.raises(ValueError, match=re.escape(name)) as e:
                R(**_with(game, name, bad))
            assert bad < lo or f"{hi:,}" in str(e.value), str(e.value)
            with pytest.raises(ValueError):
                dataclasses.replace(R(), **_with(game, name, bad))


@pytest.mark.parametrize("game", ["mystic-vale", "mystic-lands"])
def test_the_ends_of_each_range_are_rules(game):
    """Each bound itself is accepted (where the other rules allow the value alone)."""
    R = get_game(game).rules_class
    for name, (lo, hi) in bounds(game).items():
        for ok in (lo, hi):
            kw = _with(game, name, ok)
            if game == "mystic-lands" and name in ("market_dual", "market_l1",
                                                   "market_growth_vp"):
                continue        # tied to each other (market_dual <= market_l1, one VP per slot)
            R(**kw)


@pytest.mark.parametrize("argv, words", [
    (["what-if", "--rule", f"vp_pool={HUGE}", "--games", "2"], ["--rule", "vp_pool", "1,000"]),
    (["what-if", "--rule", "level1_deck_size=1001", "--games", "2"], ["level1_deck_size"]),
    (["what-if", "--game", "mystic-lands", "--rule", f"end_vp={HUGE}", "--games", "2"],
     ["end_vp", "1,000"]),
    (["what-if", "--game", "mystic-lands", "--rule", "seat_mana=0,1,1,1000", "--games", "2"],
     ["seat_mana"]),
    (["what-if", "--edits", "{edits}", "--games", "2"], ["edits.toml", "rules.vp_pool", "1,000"]),
    (["what-if", "--game", "mystic-lands", "--edits", "{ml_edits}", "--games", "2"],
     ["ml.toml", "rules.rain_supply"]),
    (["run", "{config}", "--check"], ["rules", "vp_pool"]),
    (["play", "--vp-pool", "1001"], ["--vp-pool"]),
])
def test_a_rule_number_out_of_bounds_is_one_line_before_any_game(argv, words, tmp_path,
                                                                    monkeypatch, capsys):
    """Not marked ``compiled``: a game played here would compile an engine and fail."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "edits.toml").write_text("[rules]\nvp_pool = 1000000\n")
    (tmp_path / "ml.toml").write_text("[rules]\nrain_supply = 1000000\n")
    src = (REPO / "experiments" / "pool_sizes.toml").read_text()
    (tmp_path / "config.toml").write_text(src + "\n[rules]\nvp_pool = 1000000\n"
                                          if "[rules]" not in src else src)
    argv = [a.format(edits="edits.toml", ml_edits="ml.toml", config="config.toml")
            for a in argv]
    rc = main(argv)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2 and len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]


def test_the_workbench_refuses_the_rule_before_any_run():
    from starlette.testclient import TestClient
    from vale_sim.workbench.app import create_app
    import re
    from vale_sim.workbench.app import TOKEN_HEADER
    with TestClient(create_app("mystic-vale", heartbeat=60)) as client:
        # the page's session token, which its JavaScript sends on every changing request
        page = client.get("/").text
        client.headers[TOKEN_HEADER] = re.search(
            r'<meta name="vale-sim-token" content="([^"]*)"', page).group(1)
        r = client.post("/api/workspaces", json={"game": "mystic-vale"})
        ws = r.json()["id"]
        r = client.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": {
            "edits": [], "rules": f"vp_pool={HUGE}", "games": 4, "engine": "reference",
            "cards": "all"}})
        assert r.status_code == 400, r.text
        assert "vp_pool" in r.json()["error"] and "1,000" in r.json()["error"]


def test_every_bound_is_documented():
    doc = (REPO / "docs" / "runs.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Limits checked before anything runs"):]
    for game in ("mystic-vale", "mystic-lands"):
        for name, (lo, hi) in bounds(game).items():
            assert re.search(rf"`{name}` {lo}\.\.{hi:,}".replace(",", ",?"), section), \
                (game, name)
