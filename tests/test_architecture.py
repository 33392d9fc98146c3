"""The layout: games behind the Game interface, shared layers beside them
(docs/architecture.md).

The import rules are checked on the source (``ast``), every import statement,
lazy ones inside functions included; a toy second game (push-your-luck dice,
tests/pig.py) goes through the shared runner, summaries, tournament,
experiments and CLI.  What every game must provide is checked by
vale_sim/games/conformance.py, which tests/test_conformance.py runs over every
game.
"""
from __future__ import annotations

import ast
import hashlib
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pandas as pd
import pytest

import pig as pig_game
from pig import PIG
from vale_sim import games as games_mod
from vale_sim.cli import main
from vale_sim.games import RESULT_COLUMNS, Game, get_game

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "vale_sim"
MV = "vale_sim.games.mystic_vale"


# ---------------------------------------------------------------------------
# The import graph of vale_sim, from the source
# ---------------------------------------------------------------------------
def _modname(p: Path) -> str:
    parts = list(p.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_modname(p): p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts}


def _imports(name: str, path: Path) -> list[tuple[str, bool]]:
    """(imported vale_sim module, at module level?) for every import statement."""
    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: list[tuple[str, bool]] = []

    def visit(node, top: bool):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, ast.Import):
                out.extend((a.name, top) for a in ch.names)
            elif isinstance(ch, ast.ImportFrom):
                if ch.level:
                    base = pkg.split(".")
                    base = base[:len(base) - (ch.level - 1)]
                    mod = ".".join(base + ([ch.module] if ch.module else []))
                else:
                    mod = ch.module or ""
                for a in ch.names:
                    sub = f"{mod}.{a.name}"
                    out.append((sub if sub in MODULES else mod, top))
            else:
                visit(ch, top and not isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(ast.parse(path.read_text()), True)
    return [(m, top) for m, top in out if m == "vale_sim" or m.startswith("vale_sim.")]


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _is_game(mod: str) -> bool:
    parts = mod.split(".")
    return (len(parts) >= 3 and parts[:2] == ["vale_sim", "games"]
            and parts[2] not in ("base", "conformance"))


def _game_of(mod: str) -> str:
    return mod.split(".")[2]


def _under(mod: str, prefix: str) -> bool:
    return mod == prefix or mod.startswith(prefix + ".")


# What a game's engine side (cards, policies, rules, records, engines, golden games) may
# import from the shared side: the interface, the study record type, the random stream
# and the numba kernels (game-neutral), stats and io (helpers).
GAME_MAY_IMPORT = ("vale_sim.games.base", "vale_sim.study", "vale_sim.rng", "vale_sim.kernels",
                   "vale_sim.stats", "vale_sim.io", "vale_sim.errors", "vale_sim.inputs",
                   "vale_sim.limits", "vale_sim.policy_files", "vale_sim.odds", "vale_sim.card_data",
                   "vale_sim.search", "vale_sim.value")
# A game's studies -- their commands, report sections, figures and config runners -- live
# in its package (issue 25 §1) and use the shared analysis layers: these modules of a game.
GAME_STUDY_PARTS = ("studies", "report", "commands", "plots", "pools", "spoil", "strength")

# Shared modules that still hold a game's study (issue 25 §1, what is left): none.  A
# module listed here may import a game; the list stays honest: each must still need it.
NOT_YET_GAME_NEUTRAL: dict = {}
# Shared modules that still name a game in their text (code, docstrings, help): the
# ones above, and these.
NAMES_A_GAME_YET: dict = {}
# The shared core: never a game module, not even lazily.
CORE = ("vale_sim.runner", "vale_sim.store", "vale_sim.stats", "vale_sim.io", "vale_sim.cli",
        "vale_sim.errors", "vale_sim.rng", "vale_sim.limits", "vale_sim.kernels", "vale_sim.verdicts", "vale_sim.plots",
        "vale_sim.games.base", "vale_sim.commands.play", "vale_sim.commands.simulate",
        "vale_sim.commands.tournament", "vale_sim.commands.run", "vale_sim.report",
        "vale_sim.experiments", "vale_sim.study", "vale_sim.commands.report",
        "vale_sim.commands.bench", "vale_sim.search")
ANALYSIS_LAYERS = ("vale_sim.report", "vale_sim.experiments", "vale_sim.commands", "vale_sim.cli",
                   "vale_sim.tournament", "vale_sim.advancements", "vale_sim.optimize",
                   "vale_sim.store", "vale_sim.verdicts", "vale_sim.plots")
REGISTRY = "vale_sim.games"          # the registry: the one shared module that names the games
GAME_NAME = re.compile(r"mystic[ _-]?(vale|lands)", re.I)


def _is_game_study(mod: str) -> bool:
    parts = mod.split(".")
    return _is_game(mod) and len(parts) > 3 and parts[3] in GAME_STUDY_PARTS


def _holds_source(p: Path) -> bool:
    """A file, or a folder with anything in it but ``__pycache__`` folders: what git
    leaves of a moved package in an old checkout (its untracked byte code) is no module."""
    if p.is_file():
        return True
    return p.is_dir() and any(_holds_source(ch) for ch in p.iterdir() if ch.name != "__pycache__")


def test_a_folder_holding_only_byte_code_is_not_a_module(tmp_path):
    stale = tmp_path / "studies" / "__pycache__"
    stale.mkdir(parents=True)
    (stale / "lands.cpython-311.pyc").write_bytes(b"")
    assert not _holds_source(tmp_path / "studies") and not _holds_source(tmp_path / "nothing")
    (tmp_path / "studies" / "lands.py").write_text("")
    assert _holds_source(tmp_path / "studies") and _holds_source(tmp_path / "studies" / "lands.py")
    (tmp_path / "studies" / "lands.py").unlink()
    (tmp_path / "studies" / "sub" / "__pycache__").mkdir(parents=True)
    assert not _holds_source(tmp_path / "studies")
    (tmp_path / "studies" / "sub" / "x.toml").write_text("")
    assert _holds_source(tmp_path / "studies")


def test_the_layout_names_where_each_game_lives():
    games = {_game_of(m) for m in MODULES if _is_game(m)}
    assert "mystic_vale" in games
    for old in ("cards", "policy", "rules", "records", "reference", "fast", "spoil", "spoil_fast",
                "spoil_bench", "golden", "synthetic", "pools", "data", "policies", "studies"):
        # (a folder of an old checkout that holds only __pycache__ is no module)
        assert not _holds_source(PKG / old) and not (PKG / f"{old}.py").exists(), old
    for old in ("cards", "policy", "rules", "records", "reference", "fast", "spoil", "spoil/fast",
                "spoil/bench", "golden", "synthetic", "pools", "data", "policies", "report"):
        assert any((PKG / "games" / "mystic_vale" / n).exists() for n in (old, f"{old}.py")), old
    # the odds studies are packages on the shared vale_sim.odds (issue 25 section 3)
    for game, study in (("mystic_vale", "spoil"), ("mystic_lands", "wither")):
        assert (PKG / "games" / game / study / "__init__.py").is_file(), study
        assert not (PKG / "games" / game / f"{study}.py").exists(), study
    assert not list((PKG / "games" / "mystic_vale").glob("spoil_*.py"))
    for shared in ("runner", "tournament", "stats", "io", "rng", "cli", "experiments", "study",
                   "verdicts", "advancements", "optimize", "store"):
        assert (PKG / f"{shared}.py").is_file(), shared
    for part in ("__init__", "sections", "context", "rendering", "index", "manifest"):
        assert (PKG / "report" / f"{part}.py").is_file(), part
    assert (PKG / "games" / "mystic_lands" / "studies" / "report.py").is_file()
    assert (PKG / "kernels" / "jit.py").is_file() and (PKG / "kernels" / "rng.py").is_file()
    assert get_game("mystic-vale").package == MV


def test_a_game_package_imports_no_other_game_and_its_engines_no_analysis_layer():
    bad = []
    for mod, imps in GRAPH.items():
        if not _is_game(mod):
            continue
        own = ".".join(mod.split(".")[:3])
        for imp, _ in imps:
            if _under(imp, own):
                continue
            if _is_game(imp):
                bad.append(f"{mod} imports another game: {imp}")
            elif imp in ("vale_sim", "vale_sim.games"):
                continue                 # the package (its version) and the registry
            elif _is_game_study(mod) or any(_under(imp, ok) for ok in GAME_MAY_IMPORT):
                continue
            else:
                bad.append(f"{mod} imports the shared layer {imp}")
    assert not bad, "\n".join(bad)
    # in particular the engines never import the analysis layers over the games
    assert not [(m, i) for m, imps in GRAPH.items() if _is_game(m) and not _is_game_study(m)
                for i, _ in imps if any(_under(i, a) for a in ANALYSIS_LAYERS)]


def test_shared_layers_import_no_game():
    bad = []
    for mod, imps in GRAPH.items():
        if _is_game(mod):
            continue
        for imp, top in imps:
            if not _is_game(imp):
                continue
            if any(_under(mod, c) for c in CORE) or mod not in NOT_YET_GAME_NEUTRAL:
                bad.append(f"{mod} (shared) imports {imp}: ask the Game (vale_sim.games.get_game)")
    assert not bad, "\n".join(bad)
    # the list stays honest: each listed module really still imports a game
    for mod in NOT_YET_GAME_NEUTRAL:
        assert any(_is_game(i) for i, _ in GRAPH[mod]), f"{mod} no longer needs its exception"


def test_shared_modules_name_no_game():
    """No shared module names a game -- in code, strings, docstrings or comments --
    and so none branches on one (the registry alone excepted)."""
    bad, named = [], set()
    for mod, path in MODULES.items():
        if _is_game(mod) or mod == REGISTRY:
            continue
        hits = [i for i, line in enumerate(path.read_text().splitlines(), 1) if GAME_NAME.search(line)]
        if hits:
            named.add(mod)
            if mod not in NOT_YET_GAME_NEUTRAL and mod not in NAMES_A_GAME_YET:
                bad.append(f"{path.relative_to(ROOT)}:{hits[0]} names a game "
                           f"({len(hits)} line{'s' if len(hits) > 1 else ''})")
    assert not bad, "\n".join(bad)
    for mod in NAMES_A_GAME_YET:
        assert mod in named, f"{mod} no longer names a game: drop it from NAMES_A_GAME_YET"


def test_no_shared_module_branches_on_a_game_name():
    """``x == "<a registered game>"`` (or ``in (...)``) outside the registry: the check
    on the syntax, whatever the spelling of the name."""
    from vale_sim.games import GAMES
    names = set(GAMES) | {"pig"}
    bad = []
    for mod, path in MODULES.items():
        if _is_game(mod) or mod == REGISTRY or mod in NOT_YET_GAME_NEUTRAL:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                consts = [c for c in [node.left, *node.comparators] for c in
                          ([c] if not isinstance(c, (ast.Tuple, ast.List, ast.Set)) else c.elts)
                          if isinstance(c, ast.Constant)]
                if any(c.value in names for c in consts):
                    bad.append(f"{mod}:{node.lineno}")
    assert not bad, bad


def test_studies_are_registered_records():
    from vale_sim.study import SHARED, Study, studies_of
    for name in GAMES_UNDER_TEST:
        g = get_game(name)
        recs = studies_of(g)
        assert recs[:len(SHARED)] == SHARED
        assert all(isinstance(r, Study) for r in recs), name
        names = [r.name for r in recs]
        assert len(names) == len(set(names)), names
        for r in recs:                     # every hook a record names resolves
            for hook in ("parser", "schema", "check", "run", "estimate", "engine", "main"):
                ref = getattr(r, hook)
                if ref is None:
                    continue
                import importlib
                from vale_sim.study import resolve
                obj = importlib.import_module(ref) if hook == "parser" else resolve(ref)
                assert obj is not None, (name, r.name, hook)
        if g.report is not None:
            from vale_sim.report import game_report
            mod = game_report(g)
            for attr in ("Settings", "sections", "title", "verdicts", "estimated_share",
                         "settings_from_config", "settings_from_args", "DEFAULT_OUT",
                         "EXPERIMENT_FILE", "TAKES_BASELINE"):
                assert hasattr(mod, attr), (name, attr)


GAMES_UNDER_TEST = ("mystic-vale", "mystic-lands")


def test_there_are_no_import_cycles():
    adj = {m: {i for i, _ in imps if i in MODULES and i != m} for m, imps in GRAPH.items()}
    index, low, stack, on, cycles = {}, {}, [], set(), []
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def strong(v):                                     # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in adj[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in adj:
        if v not in index:
            strong(v)
    assert not cycles, cycles


def test_the_graph_sees_lazy_imports():
    # the checks above would be empty if the walker missed imports inside functions
    assert (f"{MV}.spoil.fast", False) in GRAPH[f"{MV}.spoil"]
    assert any(i == "vale_sim.report" and not top for i, top in GRAPH["vale_sim.experiments"])


def test_importing_vale_sim_or_a_game_imports_no_numba():
    # every game (the conformance suite also plays one without numba: check_no_numba_import)
    code = ("import sys, vale_sim\nfrom vale_sim.games import GAMES, get_game\n"
            "gs = [get_game(n) for n in GAMES]\ncs = vale_sim.load_card_set()\n"
            "print('numba' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_every_command_takes_game():
    from vale_sim.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert len(sub.choices) >= 12
    for name, p in sub.choices.items():
        opt = next((a for a in p._actions if "--game" in a.option_strings), None)
        assert opt is not None and opt.default == "mystic-vale", name


# ---------------------------------------------------------------------------
# A toy second game: push-your-luck dice ("pig", tests/pig.py)
# ---------------------------------------------------------------------------
@pytest.fixture
def pig(monkeypatch):
    """The toy game registered as --game pig (its module: tests/pig.py)."""
    return pig_game.registered(monkeypatch)


def test_the_runner_plays_a_second_game(pig, tmp_path):
    from vale_sim import runner
    cfg = runner.RunConfig(card_set="d6", players=2, seed=3, games=12, policies=("bold", "cautious"),
                           engine="reference", game="pig")
    df = runner.run(cfg, progress=False)
    assert list(df.columns[:len(RESULT_COLUMNS)]) == list(RESULT_COLUMNS)
    assert len(df) == 24 and df["busts"].sum() > 0
    assert df.groupby("game")["win_share"].sum().round(9).eq(1).all()
    # the same games whatever the chunking, and resumable from disk
    out = tmp_path / "pig.parquet"
    again = runner.run(cfg, chunk_size=5, out=out, progress=False)
    pd.testing.assert_frame_equal(df, again)
    assert json.loads((out / runner.MANIFEST).read_text())["game"] == "pig"
    resumed = runner.run(cfg, chunk_size=5, out=out, resume=True, progress=False)
    pd.testing.assert_frame_equal(df, resumed)
    # summaries use the game's event column
    table = runner.summarize(cfg, chunk_size=4, progress=False)
    assert {"busts_per_game", "busts_game_share"} <= set(table.columns)
    pd.testing.assert_frame_equal(table, runner.summarize_frame(df, "busts"))
    pd.testing.assert_frame_equal(table, runner.summarize_parts(out, cfg))


def test_the_game_is_part_of_the_key_only_when_it_is_not_mystic_vale(pig):
    from vale_sim import runner
    mv = runner.RunConfig(games=3, engine="reference")
    m = mv.manifest()
    assert "game" not in m
    old_fields = ("card_set.digest", "players", "seed", "policies", "rules", "engine",
                  "version.vale_sim")                  # the key of runs written before games
    blob = json.dumps({f: runner._get(m, f) for f in old_fields}, sort_keys=True, default=str)
    assert mv.key() == hashlib.sha256(blob.encode()).hexdigest()[:20] == m["key"]
    p = runner.RunConfig(card_set="d6", games=3, policies=("bold",), engine="reference", game="pig")
    assert p.manifest()["game"] == "pig"
    moved = dict(p.manifest(), game="other")
    assert runner.manifest_key(moved) != p.key()
    assert "game ('pig' vs 'other')" in runner.manifest_diff(p.manifest(), moved)


def test_the_tournament_plays_a_second_game(pig):
    from vale_sim.tournament import tournament
    t = tournament(["bold", "cautious"], players=2, games=16, seed=1, engine="reference", game="pig")
    assert t.config["game"] == "pig" and t.config["card_set"] == "d6"
    assert {"busts_per_turn", "busts_per_turn_lo", "busts_per_turn_hi"} <= set(t.table.columns)
    assert set(t.ranking["name"]) == {"bold", "cautious"}
    with pytest.raises(ValueError, match="players must be 2 or 3"):
        tournament(["bold", "cautious"], players=4, games=8, engine="reference", game="pig")


def test_an_experiment_of_a_second_game(pig, tmp_path):
    from vale_sim.experiments import ExperimentError, load_experiment, run_experiment
    f = tmp_path / "pig_tournament.toml"
    f.write_text('study = "tournament"\ngame = "pig"\npolicies = ["bold", "cautious"]\n'
                 'games = 8\nengine = "reference"\n')
    m = run_experiment(f, tmp_path / "results", progress=False)
    assert m["config"]["game"] == "pig" and m["card_set"]["name"] == "d6"
    assert (tmp_path / "results" / "pig_tournament" / "tournament_table.csv").is_file()
    g = tmp_path / "pig_pools.toml"
    g.write_text('study = "pool_sizes"\ngame = "pig"\n')
    with pytest.raises(ExperimentError, match="pool_sizes is a Mystic Vale study"):
        load_experiment(g)


def test_the_cli_plays_a_second_game(pig, capsys):
    assert main(["simulate", "--game", "pig", "--games", "4", "--summary-only", "--json",
                 "--engine", "reference", "--policy", "bold"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["game"] == "pig" and got["card_set"] == "d6"
    assert {"busts_per_game", "busts_per_game_lo"} <= set(got["by_seat"][0])
    assert main(["play", "--game", "pig", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "banks" in out and "rounds" in out.splitlines()[-1]
    assert main(["tournament", "--game", "pig", "--policies", "bold,cautious", "--games", "8",
                 "--engine", "reference"]) == 0
    assert "busts per turn" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["simulate", "--game", "pig", "--games", "4"], "no fast engine for pig yet; use --engine reference"),
    (["pools", "--game", "pig", "--games", "10"], "pools does not apply to pig: it is a Mystic Vale study; add --game mystic-vale"),
    (["spoil-odds", "--game", "pig", "--deck", "starter"], "spoil-odds does not apply to pig"),
    (["bench", "--game", "pig", "--spoil"], "bench --spoil does not apply to pig"),
    (["simulate", "--game", "pig", "--engine", "reference", "--prep-count", "gross"],
     "--prep-count is not a rule option of pig"),
    (["play", "--game", "pig", "--policy", "greedy"], "unknown policy 'greedy'"),
    (["play", "--game", "no-such-game"], "unknown game 'no-such-game'"),
])
def test_a_command_that_does_not_apply_is_one_line(pig, capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_game_not_built_yet_is_one_line(monkeypatch, capsys):
    monkeypatch.setitem(games_mod.GAMES, "mystic-lands", "vale_sim.games.not_built_yet")
    for argv in (["simulate", "--game", "mystic-lands", "--games", "2"], ["play", "--game", "mystic-lands"],
                 ["cards", "--game", "mystic-lands"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "mystic-lands is not available in this version" in err
        assert len(err.strip().splitlines()) == 1


def test_a_game_without_fast_engine_is_one_line_for_mystic_lands(monkeypatch, capsys):
    mod = types.ModuleType("tests_lands_game")
    mod.GAME = Game(**{**{f: getattr(PIG, f) for f in PIG.__dataclass_fields__}, "name": "mystic-lands"})
    monkeypatch.setitem(sys.modules, "tests_lands_game", mod)
    monkeypatch.setitem(games_mod.GAMES, "mystic-lands", "tests_lands_game")
    assert main(["simulate", "--game", "mystic-lands", "--games", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "vale-sim simulate: error: no fast engine for mystic-lands yet; use --engine reference"


def test_an_optimize_checkpoint_from_before_the_move_is_one_line(tmp_path):
    from vale_sim import optimize as opt
    ck = tmp_path / "old.checkpoint.pkl"
    ck.write_bytes(b"cvale_sim.policy\nPolicy\n.")          # pickled when policy.py was top-level
    cfg = opt.SearchConfig(seed=5, players=2, budget=400, popsize=4, hall=1,
                           opponents=("balanced", "greedy"))
    # an old pickle is refused unread (loading it could run code), whatever it holds
    with pytest.raises(opt.SearchError, match="old.checkpoint.pkl is a checkpoint in the old "
                                              "pickle format, which vale-sim no longer reads"):
        opt.search(cfg, opt.GameObjective("core", 2, deals=2), checkpoint=ck, resume=True)
