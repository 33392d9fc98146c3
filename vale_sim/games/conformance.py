"""Conformance checks: what every game behind :class:`vale_sim.games.base.Game` must do.

In the style of pgx's ``api_test``: a library of checks that take a game and
raise :class:`ConformanceError` (an ``AssertionError``) naming the game, the
check and what is wrong.  ``tests/test_conformance.py`` runs them over every
registered game and the toy game of ``tests/pig.py``; someone writing a new game
runs them over theirs::

    from vale_sim.games import get_game
    from vale_sim.games.conformance import check_game
    check_game(get_game("my-game"))          # every check, a few games each

The checks (each small: a handful of games, so the suite stays fast):

* :func:`check_contract`: the fields of the interface (card sets, presets, rule
  options, players) are there and agree with each other.
* :func:`check_result_schema`: the results frame of reference games: the shared
  columns, then the game's; one row per game and player; seats; win shares.
* :func:`check_policies_round_trip`: every preset by name, as an object, checked
  against the card set, as the baseline and through pickle (how workers get it)
  is the same policy and plays the same game; the frame names it.
* :func:`check_engines_agree`: ``run_fast`` gives the reference engine's frame,
  for every player count, mixed presets and a batch that starts past game 0.
* :func:`check_golden` / :func:`check_golden_case`: the golden playthroughs
  (``Game.golden_module``): the reference engine reproduces each whole file,
  the fast engine its records; the files are exactly the cases and cover every
  player count.
* :func:`check_no_numba_import`: in a fresh interpreter, ``get_game`` and a
  reference game import no numba, and with numba made unimportable they still
  work and the runner falls back to the reference engine.
* :func:`check_one_line_errors`: a missing or malformed card set or policy
  file, an unknown policy and an unsupported player count are one-line errors,
  in Python and on the command line (exit status 2, one line on stderr).
* :func:`check_package_template`: a game package has the files and entry names
  of the template (docs/architecture.md, "One template for every game"; read
  from the source, nothing imported).  Not in :data:`CHECKS`: a one-file game
  such as the toy game has no package to check.

Golden files and engine agreement are checked here once for every game; tests
specific to one game (random card sets, rule options, fuzzing) stay in its own
test files.
"""
from __future__ import annotations

import contextlib
import dataclasses
import importlib
import io
import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from .base import RESULT_COLUMNS, Game, record_section


class ConformanceError(AssertionError):
    """A game does not keep the interface: the message names the game and the check."""


def _fail(g: Game, check: str, what: str):
    raise ConformanceError(f"{g.name}: {check}: {what}")


def _expect(cond, g: Game, check: str, what: str) -> None:
    if not cond:
        _fail(g, check, what)


def _one_line(g: Game, check: str, action: str, exc_types, call) -> str:
    """Run ``call``; it must raise one of ``exc_types`` whose text is one line."""
    try:
        call()
    except exc_types as e:
        text = str(e)
        _expect(text and "\n" not in text, g, check, f"{action}: the error is not one line: {text!r}")
        return text
    except Exception as e:                                     # noqa: BLE001 -- reported
        _fail(g, check, f"{action}: raised {type(e).__name__} (not a user error): {e}")
    _fail(g, check, f"{action}: raised nothing")


def _setup(g: Game, players: int | None = None, policies=None):
    cs = g.load_card_set(g.default_card_set)
    players = players or g.players[0]
    names = policies or [g.presets[(i + g.presets.index(g.default_policy)) % len(g.presets)]
                         for i in range(players)]
    pols = g.check_policies(cs, [g.get_policy(n) for n in names])
    return cs, players, pols


def _sorted(df):
    return df.sort_values(["game", "player"], kind="stable").reset_index(drop=True)


@contextlib.contextmanager
def registered(g: Game):
    """``g`` itself as ``--game <g.name>`` while the block runs (a module holding
    ``GAME = g`` in the registry): the command-line checks run the game given, even
    one not in the registry or a changed copy of a registered one."""
    import types
    from . import GAMES
    module = f"_vale_sim_conformance_{g.name.replace('-', '_')}"
    old, old_mod = GAMES.get(g.name), sys.modules.get(module)
    stand_in = types.ModuleType(module)
    stand_in.GAME = g
    sys.modules[module] = stand_in
    GAMES[g.name] = module
    try:
        yield g
    finally:
        if old is None:
            GAMES.pop(g.name, None)
        else:
            GAMES[g.name] = old
        if old_mod is None:
            sys.modules.pop(module, None)
        else:
            sys.modules[module] = old_mod


# ---------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------
def check_contract(g: Game) -> None:
    """The fields of the interface are there and agree with each other."""
    c = "contract"
    _expect(isinstance(g, Game), g, c, "not a vale_sim.games.base.Game")
    _expect(g.players and all(isinstance(p, int) and p >= 1 for p in g.players), g, c,
            f"players {g.players!r} is not a tuple of player counts")
    bundled = g.bundled_card_sets()
    _expect(g.default_card_set in bundled, g, c,
            f"default_card_set {g.default_card_set!r} is not among bundled_card_sets()")
    cs = g.load_card_set(g.default_card_set)
    _expect(cs.name == g.default_card_set, g, c, f"the default set loads as {cs.name!r}")
    _expect(isinstance(cs.digest(), str) and cs.digest() == g.load_card_set(cs).digest(), g, c,
            "digest() is not a string, or a loaded set passed to load_card_set changes it")
    _expect(g.default_policy in g.presets, g, c,
            f"default_policy {g.default_policy!r} is not a preset")
    _expect(dataclasses.is_dataclass(g.rules_class), g, c, "rules_class is not a dataclass")
    rules = g.rules_class()
    _expect(dataclasses.asdict(rules) == dataclasses.asdict(g.rules_class()), g, c,
            "rules_class() differs between two calls")
    json.dumps(dataclasses.asdict(rules), default=str)        # goes into run manifests
    _expect(all(isinstance(t, type) and issubclass(t, Exception) for t in g.user_errors), g, c,
            "user_errors holds something that is not an exception class")
    _expect(g.event_column not in RESULT_COLUMNS, g, c,
            f"event_column {g.event_column!r} is one of RESULT_COLUMNS")
    _expect(tuple(RESULT_COLUMNS) == tuple(c_ for c_ in g.base_columns if c_ in RESULT_COLUMNS),
            g, c, "base_columns has RESULT_COLUMNS out of order")
    for p in g.players:
        g.validate_playable(cs, p)
    # the strongest bundled field (Game.strong_field; default_policy without one): every
    # "strongest bots" default reads it, so it must be a policy at every player count
    _expect(g.strong_field is None or (isinstance(g.strong_field, str) and g.strong_field),
            g, c, f"strong_field {g.strong_field!r} is not a policy spec (or None)")
    field = g.strong_field or g.default_policy
    for p in g.players:
        try:
            g.resolve_baseline(field, p, cs)
        except Exception as e:                  # noqa: BLE001 -- said as the contract's
            _fail(g, c, f"strong_field {field!r} at {p} players: {str(e).splitlines()[0]}")


def check_result_schema(g: Game, games: int = 2) -> None:
    """The results frame of ``games`` reference games for each player count: every
    RESULT_COLUMNS and base_columns column (base_columns first, in order) and the event
    column; one row per game and player; seats 0..n-1; a k-way win shares 1/k; the
    record has turns, a readable log and a JSON-ready ``to_dict()``."""
    c = "result schema"
    for players in g.players:
        cs, players, pols = _setup(g, players)
        records = [g.play_reference(cs, players, 5, i, pols, g.rules_class()) for i in range(games)]
        for r in records:
            _expect(r.turns is not None and len(r.results) == players, g, c,
                    f"{players}p: a record needs .turns and one .results entry per player")
            _expect(r.log and all(isinstance(x, str) for x in r.log), g, c,
                    f"{players}p: the record's log is not a list of lines")
            json.dumps(r.to_dict(), default=str)
        df = g.results_frame(records, cs)
        cols = list(df.columns)
        missing = [x for x in (*RESULT_COLUMNS, *g.base_columns, g.event_column) if x not in cols]
        _expect(not missing, g, c, f"{players}p: the results frame lacks {missing}")
        _expect(cols[:len(g.base_columns)] == list(g.base_columns), g, c,
                f"{players}p: the frame does not start with base_columns: {cols[:len(g.base_columns)]}")
        _expect(len(df) == games * players, g, c, f"{players}p: {len(df)} rows for {games} games")
        _expect(not df.duplicated(["game", "player"]).any(), g, c,
                f"{players}p: a (game, player) pair has two rows")
        _expect(sorted(df["game"].unique().tolist()) == list(range(games)), g, c,
                f"{players}p: column game is not the game index")
        for gi, one in df.groupby("game"):
            _expect(sorted(one["seat"].tolist()) == list(range(players)), g, c,
                    f"{players}p game {gi}: seats {sorted(one['seat'])} are not 0..{players - 1}")
            won = one.loc[one["win_share"] > 0, "win_share"]
            _expect(len(won) >= 1 and all(abs(w - 1 / len(won)) < 1e-9 for w in won), g, c,
                    f"{players}p game {gi}: win shares {one['win_share'].tolist()} are not 1/k")
            _expect(one["rounds"].nunique() == 1 and one["truncated"].nunique() == 1, g, c,
                    f"{players}p game {gi}: rounds/truncated differ between players")
        _expect((df["policy"].tolist() == [pols[p].name for p in df["player"]]), g, c,
                f"{players}p: column policy does not name each player's policy")
    empty = g.results_frame([], cs)
    _expect(len(empty) == 0, g, c, "the frame of no records is not empty")


def check_policies_round_trip(g: Game) -> None:
    """Every preset: by name, as the object (passes through), checked against the card
    set, as the baseline (``{P}`` templates included) and through pickle is the same
    policy, and the game it plays is the same."""
    c = "policies round trip"
    cs = g.load_card_set(g.default_card_set)
    players = g.players[0]
    for name in g.presets:
        pol = g.get_policy(name)
        _expect(dataclasses.is_dataclass(pol) and pol.name == name, g, c,
                f"get_policy({name!r}) is not a dataclass named {name!r}")
        _expect(g.get_policy(pol) == pol, g, c, f"get_policy(policy {name!r}) changes it")
        _expect(g.check_policies(cs, [pol] * players) == [pol] * players, g, c,
                f"check_policies changes {name!r}")
        _expect(g.resolve_baseline(name, players, cs) == pol, g, c,
                f"resolve_baseline({name!r}) is another policy")
        back = pickle.loads(pickle.dumps(pol))
        _expect(back == pol and hash(back) == hash(pol), g, c,
                f"{name!r} is not the same policy after pickling (how worker processes get it)")
    # the same game from names, objects and unpickled objects
    _, players, pols = _setup(g, players)
    a = g.play_reference(cs, players, 9, 1, pols, g.rules_class())
    b = g.play_reference(cs, players, 9, 1, pickle.loads(pickle.dumps(pols)), g.rules_class())
    _expect(a.to_dict() == b.to_dict(), g, c, "pickled policies play another game")


def check_engines_agree(g: Game, games: int = 3) -> None:
    """``run_fast`` gives the reference engine's frame (columns in the same order, the
    same values and dtypes) for every player count, with mixed presets, and for a batch that
    starts at game ``games`` (a chunk past the first).  No fast engine: nothing to do."""
    if g.run_fast is None:
        return
    import pandas as pd
    c = "engines agree"
    for players in g.players:
        cs, players, pols = _setup(g, players)
        rules = g.rules_class()
        for first in (0, games):
            recs = [g.play_reference(cs, players, 11, i, pols, rules)
                    for i in range(first, first + games)]
            ref = _sorted(g.results_frame(recs, cs))
            fast = _sorted(g.run_fast(cs, players, 11, games, pols, rules, first_game=first))
            _expect(list(fast.columns) == list(ref.columns), g, c,
                    f"{players}p: the fast frame's columns differ: "
                    f"{sorted(set(fast.columns) ^ set(ref.columns)) or 'their order'}")
            try:
                pd.testing.assert_frame_equal(fast, ref)
            except AssertionError as e:
                _fail(g, c, f"{players}p games {first}..{first + games - 1}: the frames differ: "
                      + " ".join(str(e).split())[:400])


def golden_module(g: Game):
    """The game's golden module (``Game.golden_module``), imported."""
    if g.golden_module is None:
        _fail(g, "golden", "no golden games: give Game(golden_module=...) "
                           "(vale_sim/games/base.py, 'golden_module')")
    return importlib.import_module(g.golden_module)


def golden_cases(g: Game) -> tuple:
    return tuple(golden_module(g).CASES)


def _first_difference(expected: list[str], actual: list[str]) -> str:
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e != a:
            return f"line {i + 1}:\n  golden: {e}\n  now:    {a}"
    return f"lengths differ: golden {len(expected)} lines, now {len(actual)}"


def check_golden_files(g: Game) -> None:
    """The golden folder holds exactly one file per case, and the cases play every
    player count of the game."""
    m = golden_module(g)
    c = "golden"
    names = sorted(f"{case.name}.txt" for case in m.CASES)
    files = sorted(p.name for p in Path(m.GOLDEN_DIR).glob("*.txt"))
    _expect(files == names, g, c, f"{m.GOLDEN_DIR} holds {files}, the cases are {names}")
    _expect({case.players for case in m.CASES} >= set(g.players), g, c,
            f"the golden cases play {sorted({case.players for case in m.CASES})} players, "
            f"the game {sorted(g.players)}")


def check_golden_case(g: Game, case) -> None:
    """The reference engine reproduces the whole file of ``case`` (log and records), the
    fast engine (if any) its record lines.  To accept an intended change, regenerate
    (the command is on the file's first line) and review the diff."""
    m = golden_module(g)
    path = Path(m.GOLDEN_DIR) / f"{case.name}.txt"
    text = path.read_text()
    actual = m.render(case, m.play_case(case, "reference")).splitlines()
    if text.splitlines() != actual:
        _fail(g, f"golden {case.name} (reference)", _first_difference(text.splitlines(), actual))
    if g.run_fast is not None:
        expected = record_section(text)
        fast = m.record_lines(m.play_case(case, "fast"))
        if expected != fast:
            _fail(g, f"golden {case.name} (fast)", _first_difference(expected, fast))


def check_golden(g: Game) -> None:
    check_golden_files(g)
    for case in golden_cases(g):
        check_golden_case(g, case)


_NO_NUMBA = r"""
import importlib, json, sys, warnings
if {block}:
    sys.modules["numba"] = None                 # `import numba` raises ImportError
from vale_sim import games
package, name = {package!r}, {name!r}
games.GAMES.setdefault(name, package)
g = games.get_game(name)
cs = g.load_card_set(g.default_card_set)
players = g.players[0]
pols = g.check_policies(cs, [g.get_policy(g.default_policy)] * players)
rec = g.play_reference(cs, players, 1, 0, pols, g.rules_class())
out = {{"numba": "numba" in sys.modules and sys.modules["numba"] is not None,
        "turns": len(rec.turns)}}
if {block}:
    frame = g.results_frame([rec], cs)
    from vale_sim import runner
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["engine"] = runner.effective_engine("fast", g) if g.run_fast is not None else "reference"
    out["rows"] = len(frame)
print(json.dumps(out))
"""


def check_no_numba_import(g: Game, timeout: float = 300) -> None:
    """In a fresh interpreter: ``get_game`` and one reference game import no numba; with
    numba made unimportable they still work, the results frame too, and the runner's
    ``effective_engine("fast")`` falls back to "reference"."""
    c = "no-numba import"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    for block in (True, False):
        code = _NO_NUMBA.format(block=block, package=g.package, name=g.name)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=timeout, env=env)
        how = "numba unimportable" if block else "numba installed"
        _expect(r.returncode == 0, g, c, f"{how}: the reference engine failed: "
                + (r.stderr.strip().splitlines() or ["(no output)"])[-1])
        got = json.loads(r.stdout.strip().splitlines()[-1])
        _expect(not got["numba"], g, c, f"{how}: get_game or the reference engine imported numba")
        _expect(got["turns"] > 0, g, c, f"{how}: the reference game has no turns")
        if block:
            _expect(got["engine"] == "reference", g, c,
                    f"without numba the runner would use the {got['engine']} engine")


def _cli(argv) -> tuple[int, str]:
    from vale_sim.cli import main
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            status = main(argv)
        except SystemExit as e:                          # argparse
            status = e.code
        except Exception:                                # noqa: BLE001 -- a traceback: reported
            import traceback
            return 1, err.getvalue() + traceback.format_exc()
    return status, err.getvalue()


def check_one_line_errors(g: Game, cli: bool = True) -> None:
    """A user's mistake is one line: an unknown card set or policy, a malformed card set
    or policy file (the message names the file), an unsupported player count; with
    ``cli``, ``vale-sim play --game <g>`` with each exits 2 with one line on stderr."""
    c = "one-line errors"
    errors = tuple(g.user_errors) + (ValueError,)
    cs = g.load_card_set(g.default_card_set)
    too_many = max(g.players) + 1
    with tempfile.TemporaryDirectory() as tmp:
        bad = Path(tmp) / "broken.toml"
        bad.write_text("this is = = not toml [\n")
        _one_line(g, c, "an unknown card set", errors,
                  lambda: g.load_card_set("no-such-card-set-anywhere"))
        text = _one_line(g, c, "a malformed card set file", errors, lambda: g.load_card_set(str(bad)))
        _expect(bad.name in text, g, c, f"the card set error does not name the file: {text!r}")
        _one_line(g, c, "an unknown policy", errors, lambda: g.get_policy("no-such-policy-anywhere"))
        text = _one_line(g, c, "a malformed policy file", errors, lambda: g.get_policy(str(bad)))
        _expect(bad.name in text, g, c, f"the policy error does not name the file: {text!r}")
        _one_line(g, c, f"{too_many} players", errors, lambda: g.validate_playable(cs, too_many))
        if not cli:
            return
        with registered(g):
            for what, argv in (
                    ("an unknown policy", ["--policy", "no-such-policy-anywhere"]),
                    ("a malformed card set file", ["--set", str(bad)]),
                    ("a malformed policy file", ["--policy", str(bad)]),
                    (f"{too_many} players", ["--players", str(too_many)])):
                status, err = _cli(["play", "--game", g.name, *argv])
                lines = err.strip().splitlines()
                _expect(status == 2 and len(lines) == 1, g, c,
                        f"vale-sim play with {what}: exit {status}, stderr {err!r} "
                        "(want exit 2 and one line)")


#: The package template (docs/architecture.md): file -> names it defines or imports.
#: "{Title}" is the game's title without spaces ("Some Game" -> SomeGameGame).
TEMPLATE = {
    "__init__.py": ("GAME",),
    "cards.py": ("load_card_set", "validate_playable", "CardSetError"),
    "policy.py": ("Policy", "PRESETS", "DEFAULT_POLICY", "get_policy", "check_policies",
                  "policies_for", "load_policy", "PolicyError"),
    "rules.py": ("Rules",),
    "records.py": ("GameRecord", "TurnRecord", "PlayerResult", "results_frame"),
    "golden.py": ("CASES", "GOLDEN_DIR", "play_case", "render", "record_lines", "regenerate"),
    "reference/__init__.py": ("play_reference", "{Title}Game"),
    "reference/game.py": ("play_reference", "{Title}Game"),
}
#: ...and of a game with a fast engine.
FAST_TEMPLATE = {
    "fast/__init__.py": (),
    "fast/api.py": ("run_fast", "play_game_fast", "simulate", "warm_up"),
    "fast/engine.py": ("play_games",),
    "fast/state.py": ("new_state",),
    "fast/tables.py": ("card_tables", "policy_tables"),
    "fast/profile.py": (),
}


def _top_level_names(path: Path) -> set:
    import ast
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def check_package_template(g: Game) -> None:
    """The files and entry names of the package template, read from the source; the
    reference engine's class is ``<Title>Game`` (not ``Game``, the interface's name),
    ``Game.golden_module`` is the package's ``golden`` and ``fast_module`` its
    ``fast.api``."""
    import importlib.util
    c = "package template"
    spec = importlib.util.find_spec(g.package)
    _expect(spec is not None and spec.submodule_search_locations, g, c,
            f"{g.package} is not a package")
    root = Path(list(spec.submodule_search_locations)[0])
    title = "".join(g.title.split())
    wanted = dict(TEMPLATE, **(FAST_TEMPLATE if g.run_fast is not None else {}))
    for rel, names in wanted.items():
        path = root / rel
        _expect(path.is_file(), g, c, f"{g.package} has no {rel}")
        have = _top_level_names(path)
        missing = [n.format(Title=title) for n in names if n.format(Title=title) not in have]
        _expect(not missing, g, c, f"{rel} does not define {missing}")
    import ast
    classes = {n.name for n in ast.parse((root / "reference" / "game.py").read_text()).body
               if isinstance(n, ast.ClassDef)}
    _expect("Game" not in classes, g, c,
            f"reference/game.py defines a class Game (the interface's name): call it {title}Game")
    _expect(g.golden_module == g.package + ".golden", g, c,
            f"golden_module is {g.golden_module!r}, not {g.package}.golden")
    if g.run_fast is not None:
        _expect(g.fast_module == g.package + ".fast.api", g, c,
                f"fast_module is {g.fast_module!r}, not {g.package}.fast.api")


#: Every check, in the order check_game runs them (golden: check_golden).
CHECKS = (check_contract, check_result_schema, check_policies_round_trip, check_engines_agree,
          check_golden, check_no_numba_import, check_one_line_errors)


def check_game(g: Game) -> None:
    """Every check of this module over ``g``; the first failure raises ConformanceError."""
    for check in CHECKS:
        check(g)


__all__ = ["ConformanceError", "CHECKS", "check_game", "check_contract", "check_result_schema",
           "check_policies_round_trip", "check_engines_agree", "check_golden",
           "check_golden_files", "check_golden_case", "golden_cases", "golden_module",
           "check_no_numba_import", "check_one_line_errors", "check_package_template",
           "TEMPLATE", "FAST_TEMPLATE", "registered"]
