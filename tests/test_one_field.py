"""One field everywhere (issue 36, item 7).

``advancements``, ``what-if``, ``balance``, ``report``, ``strategy`` and the workbench
default to the game's strongest bundled field (``Game.strong_field``: one line per game,
read through :func:`vale_sim.strong_field.field_of`) and to the same estimand
(:data:`vale_sim.strong_field.ESTIMAND`); ``balanced`` and the forced estimand
(``prefer``) stay explicit options; every output names the field it used.

Tiny sizes, the reference engine of Mystic Lands (a few games per arm)."""
from __future__ import annotations

import ast
import dataclasses
import inspect
import json
from argparse import Namespace
from pathlib import Path

import pytest

from vale_sim import strong_field as SF
from vale_sim.cli import build_parser, main
from vale_sim.games import get_game

GAMES = ("mystic-vale", "mystic-lands")
#: The strongest bundled field of each game (docs/value.md; Mystic Lands' value players
#: come with the next step of issue 36).
FIELD = {"mystic-vale": "value-{P}p", "mystic-lands": "value-{P}p"}
ROOT = Path(__file__).resolve().parents[1]


def test_each_game_has_one_strongest_field_and_it_plays_at_every_count():
    for name in GAMES:
        g = get_game(name)
        assert g.strong_field == SF.field_of(name) == SF.field_of(g) == FIELD[name]
        cs = g.load_card_set(g.default_card_set)
        for p in g.players:
            assert g.resolve_baseline(SF.field_of(g), p, cs).name == SF.field_name(g, p) \
                == FIELD[name].replace("{P}", str(p))
    assert SF.ESTIMAND == "natural"
    assert SF.field_label("meta-{P}p", 2) == "meta-2p"
    assert SF.field_label("meta-{P}p", [2, 3]) == "meta-{P}p: meta-2p, meta-3p"
    assert SF.field_label("balanced", [2, 3]) == "balanced"


def test_a_game_without_a_strong_field_uses_its_default_policy():
    g = dataclasses.replace(get_game("mystic-lands"), strong_field=None)
    assert SF.field_of(g) == g.default_policy


def test_no_module_spells_the_field_but_the_games():
    """The literal field (e.g. "value-{P}p") as a value lives only in the games' __init__
    (the one line to change); everything else reads Game.strong_field."""
    found = []
    for path in (ROOT / "vale_sim").rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                and n.body and isinstance(n.body[0], ast.Expr)}
        for n in ast.walk(tree):
            if (isinstance(n, ast.Constant) and n.value in set(FIELD.values())
                    and id(n) not in docs):
                found.append(f"{rel}:{n.lineno}")
    games = ("vale_sim/games/mystic_lands/__init__.py", "vale_sim/games/mystic_vale/__init__.py")
    assert len(found) == 2 and all(f.split(":")[0] in games for f in found), found


# --- the defaults: parsers, functions, settings --------------------------------------------
@pytest.mark.parametrize("argv, field_dest, estimand", [
    (["advancements"], "baseline", True),
    (["what-if"], "baseline", True),
    (["balance"], "baseline", True),
    (["curve", "--card", "Podlings", "--number", "cost"], "baseline", True),
    (["report"], "baseline", False),
    (["strategy"], "policy", False),
])
def test_each_command_defaults_to_the_strongest_field_and_the_estimand(argv, field_dest,
                                                                        estimand):
    """The parsers are built before --game is known: the field's default is None, which
    every command reads as field_of(its game); the help says so with the value."""
    args = build_parser().parse_args(argv)
    assert getattr(args, field_dest) is None
    if estimand:
        assert args.estimand == SF.ESTIMAND
    sub = next(a for a in build_parser()._subparsers._group_actions[0].choices.items()
               if a[0] == argv[0])[1]
    helps = " ".join(a.help or "" for a in sub._actions if field_dest in a.dest)
    assert SF.field_help() in helps and "value-{P}p" in helps


def test_function_and_settings_defaults_read_the_one_field():
    from vale_sim import balance as B, experiments as E, search_verdicts, strategy, whatif
    from vale_sim.games.mystic_lands.studies.report import LandsReportSettings
    from vale_sim.games.mystic_vale import report as MVR
    from vale_sim.games.mystic_vale.studies import advancement_value_schema
    for fn, name in ((whatif.what_if, "baseline"), (B.balance, "baseline"),
                     (strategy.guide, "policy"), (search_verdicts.measure, "reference")):
        assert inspect.signature(fn).parameters[name].default is None, fn
    assert inspect.signature(whatif.what_if).parameters["estimand"].default is None
    assert inspect.signature(B.balance).parameters["estimand"].default == SF.ESTIMAND
    mv, ml = SF.field_of("mystic-vale"), SF.field_of("mystic-lands")
    s = MVR.ReportSettings()
    assert s.field == s.robust_baseline == mv
    args = Namespace(quick=True, engine="reference", seed=1, baseline=None)
    cs = get_game("mystic-vale").load_card_set("core")
    assert MVR.settings_from_args(args, "core", cs).robust_baseline == mv
    assert MVR.settings_from_config({"quick": True, "baseline": None, "sizes": None},
                                    engine="reference").robust_baseline == mv
    t = LandsReportSettings()
    assert t.study_field == t.strength_field == ml
    # the configs of `vale-sim run`: None is the game's field and the natural estimand
    assert E.report_schema()["baseline"][1] is None
    assert E.what_if_schema()["baseline"][1] is None and E.what_if_schema()["estimand"][1] is None
    assert advancement_value_schema()["baseline"][1] is None


def test_switching_the_field_is_one_line_per_game(monkeypatch, capsys):
    """Replace Mystic Lands' strong_field (what the one line says) with a preset: the
    commands' and the workbench's defaults follow it."""
    import vale_sim.games.mystic_lands as ML
    from vale_sim import strategy, whatif
    monkeypatch.setattr(ML, "GAME", dataclasses.replace(ML.GAME, strong_field="greedy"))
    assert SF.field_of("mystic-lands") == "greedy"
    w = whatif.what_if(["Rain Lily.cost=-1"], game="mystic-lands", games=2, cards=["Meadow"],
                       engine="reference")
    assert (w.config["baseline"], w.config["field"], w.config["estimand"]) == \
        ("greedy", "greedy", "natural")
    seen = []

    def fake_guide(game, players, policy, baseline, *a, **k):
        seen.append((policy, baseline))
        raise SystemExit(0)
    monkeypatch.setattr(strategy, "guide", fake_guide)
    with pytest.raises(SystemExit):
        main(["strategy", "--game", "mystic-lands"])
    assert seen == [("greedy", "balanced")]
    from starlette.testclient import TestClient
    from vale_sim.workbench.app import create_app
    with TestClient(create_app("mystic-lands", heartbeat=60)) as c:
        games = {x["name"]: x for x in c.get("/api/games").json()["games"]}
    assert games["mystic-lands"]["field"] == "greedy"
    assert games["mystic-vale"]["field"] == FIELD["mystic-vale"]


# --- every output names the field --------------------------------------------------------
ML_EDIT = ["what-if", "--game", "mystic-lands", "--edit", "Rain Lily.cost=-1", "--games", "2",
           "--cards", "Meadow", "--engine", "reference"]


def test_what_if_names_its_field_and_estimand_and_keeps_the_comparison(capsys):
    assert main(ML_EDIT) == 0
    out = capsys.readouterr().out
    assert "field value-2p (every player), estimand natural" in out
    assert "natural value, pp:" in out
    assert main(ML_EDIT + ["--players", "2,3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["baseline"], d["field"], d["estimand"]) == \
        ("value-{P}p", "value-{P}p: value-2p, value-3p", "natural")
    r = d["players"][0]["cards"][0]
    for k in ("natural_original", "natural_original_ci", "natural_edited", "natural_edited_ci",
              "strength_original", "strength_edited", "change", "verdict_original"):
        assert k in r, k
    # balanced and the forced estimand: explicit options
    assert main(ML_EDIT + ["--baseline", "balanced", "--estimand", "prefer", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["baseline"], d["field"], d["estimand"]) == ("balanced", "balanced", "prefer")
    assert main(ML_EDIT + ["--baseline", "balanced", "--estimand", "prefer"]) == 0
    assert "field balanced (every player), estimand prefer" in capsys.readouterr().out


@pytest.mark.parametrize("extra, words", [
    (["--estimand", "forced"], "--estimand"),
    (["--baseline", "no-such-field"], "no-such-field"),
])
def test_a_bad_field_or_estimand_is_one_line_exit_2(extra, words, capsys):
    try:
        rc = main(ML_EDIT + extra)
    except SystemExit as e:              # argparse's choices
        rc = e.code
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and words in err[0] and "Traceback" not in err[0]


def test_advancements_names_its_field(capsys):
    base = ["advancements", "--game", "mystic-lands", "--games", "2", "--cards", "Meadow",
            "--engine", "reference"]
    assert main(base) == 0
    out = capsys.readouterr().out
    assert out.startswith("Field: value-2p at 2 players; estimand natural")
    assert main(base + ["--json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert (rec["field"], rec["estimand"]) == ("value-2p", "natural")
    assert main(base + ["--baseline", "balanced", "--estimand", "prefer", "--json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert (rec["field"], rec["estimand"]) == ("balanced", "prefer")
    assert main(base + ["--baseline", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].count("--baseline nope") == 1


def test_the_strategy_guide_names_its_field(monkeypatch, capsys):
    from vale_sim import strategy
    doc = {"players": {2: {"strong": "meta-2p"}}}
    monkeypatch.setattr(strategy, "guide", lambda *a, **k: dict(doc))
    monkeypatch.setattr(strategy, "ablation_sentences", lambda d, p: [])
    assert main(["strategy", "--game", "mystic-lands", "--games", "0"]) == 0
    assert "== Mystic Lands, 2 players: field meta-2p ==" in capsys.readouterr().out


def test_the_workbench_defaults_to_the_field_and_names_it():
    import time
    from starlette.testclient import TestClient
    from vale_sim.workbench.app import TOKEN_HEADER, create_app
    import re
    with TestClient(create_app("mystic-lands", heartbeat=60)) as c:
        m = re.search(r'<meta name="vale-sim-token" content="([^"]*)"', c.get("/").text)
        c.headers[TOKEN_HEADER] = m.group(1)
        games = {x["name"]: x for x in c.get("/api/games").json()["games"]}
        assert games["mystic-lands"]["field"] == SF.field_of("mystic-lands")
        assert games["mystic-lands"]["estimand"] == SF.ESTIMAND
        ws = c.post("/api/workspaces", json={"game": "mystic-lands"}).json()["id"]
        edit = {"edits": [{"card": "Rain Lily", "field": "cost", "new": 1}], "games": 2,
                "engine": "reference"}
        for params, want in ((edit, ("value-2p", "natural")),
                             (dict(edit, baseline="balanced", estimand="prefer"),
                              ("balanced", "prefer"))):
            r = c.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": params})
            assert r.status_code == 200, r.json()
            assert (r.json()["note"]["field"], r.json()["note"]["estimand"]) == want
            rid = r.json()["id"]
            t0 = time.time()
            while (v := c.get(f"/api/runs/{rid}").json())["status"] == "running":
                assert time.time() - t0 < 120
                time.sleep(0.2)
            assert v["status"] == "done", v
            res = v["result"]
            assert (res["field"], res["estimand"]) == want
            assert f"field {want[0]} (every player), estimand {want[1]}" in res["text"]
        for bad, word in (({"estimand": "forced"}, "estimand:"),
                          ({"baseline": "../x.toml"}, "baseline:"),
                          ({"baseline": "nope"}, "baseline nope at 2 players")):
            r = c.post(f"/api/ws/{ws}/runs", json={"kind": "what-if", "params": dict(edit, **bad)})
            assert r.status_code == 400 and word in r.json()["error"], r.json()
            assert "\n" not in r.json()["error"]
            r = c.post(f"/api/ws/{ws}/runs", json={"kind": "balance", "params": bad})
            assert r.status_code == 400 and word in r.json()["error"], r.json()


def test_the_workbench_report_is_the_command_s_report(monkeypatch, tmp_path):
    """The Report tab builds `vale-sim report`'s report: the strongest field as its strong
    baseline (it was optimized-{P}p), and its result names the field."""
    import vale_sim.report as R
    from vale_sim.workbench import jobs
    built = []
    monkeypatch.setattr(R, "build_report", lambda out, settings, **kw: built.append(settings)
                        or {"seconds": 0, "engine": "reference", "size": "quick"})
    g = get_game("mystic-vale")
    res = jobs.report_job({"game": g.name, "card_file": str(g.bundled_card_sets()["core"]),
                           "out": str(tmp_path / "r"), "engine": "reference"},
                          lambda *a: None)
    assert built[0].robust_baseline == built[0].field == SF.field_of(g)
    assert (res["field"], res["estimand"]) == (SF.field_of(g), SF.ESTIMAND)
