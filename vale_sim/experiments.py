"""Study configs (``experiments/NAME.toml``) and running them into ``results/NAME/``.

A config names its ``study`` and its settings; every key is checked before
any game runs (an unknown key or a bad value raises :class:`ExperimentError`
naming the file and the key).  The studies are the registered records of
:mod:`vale_sim.study`: ``tournament`` for every game, the others those of the
game's ``Game.studies`` (each with its config schema, checks and runner; the
list: docs/runs.md).  ``[rules]`` takes the fields of the game's
``rules_class``.

Every run writes ``results/NAME/manifest.json``: the configuration (with
defaults filled in), the card set's name, hash and counts by source, seeds,
games, code version (package version and git commit), start time and run
time.  Games are played through :func:`vale_sim.runner.run` with ``out=`` a
directory under ``results/NAME/runs/`` and ``resume=True``, so re-running the
same configuration reuses every finished chunk.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import limits
from .cli import UserError
from .games import DEFAULT_GAME
from .inputs import InputFileError, did_you_mean, read_toml, parse_int
from .io import atomic_write
from .store import ChunkStore, card_set_info, code_version

RUNS_DIR = "runs"


def __getattr__(name):
    if name == "STUDIES":            # every study `vale-sim run` runs, over the registered games
        return study_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def study_names() -> tuple:
    """The ``study = ...`` values of every registered game's runnable studies."""
    from .study import all_studies
    return tuple(n for n, s in all_studies().items() if s.experiment)


class ExperimentError(UserError):
    """A config file problem: one line naming the file and the key."""


# ---------------------------------------------------------------------------
# Schema: key -> (checker, default).  A checker returns the cleaned value or
# raises ValueError with a short description of what is expected.
# ---------------------------------------------------------------------------
def _int(lo=None, hi=None):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError("must be a whole number")
        if lo is not None and v < lo or hi is not None and v > hi:
            raise ValueError(f"must be between {lo} and {hi}" if hi is not None else f"must be at least {lo}")
        return v
    return check


def _int_or_auto(lo=None, hi=None):
    """A whole number, or "auto" (the study sizes itself; None to the study)."""
    inner = _int(lo, hi)

    def check(v):
        if v == "auto":
            return None
        try:
            return inner(v)
        except ValueError as e:
            raise ValueError(f"{e} or \"auto\"") from None
    return check


def _float(lo, hi):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
            raise ValueError(f"must be a number between {lo} and {hi}")
        return float(v)
    return check


def _bool(v):
    if not isinstance(v, bool):
        raise ValueError("must be true or false")
    return v


def _str(v):
    if not isinstance(v, str) or not v:
        raise ValueError("must be a non-empty string")
    return v


def _choice(*options):
    def check(v):
        if v not in options:
            raise ValueError(f"must be one of {', '.join(map(repr, options))}")
        return v
    return check


def _list_of(item, least=1):
    def check(v):
        if not isinstance(v, list) or len(v) < least:
            raise ValueError(f"must be a list of at least {least} item{'s' if least > 1 else ''}")
        return [item(x) for x in v]
    return check


def _players_list(v):
    """A player count or a list of them -> sorted unique counts, each 2, 3 or 4."""
    if isinstance(v, int) and not isinstance(v, bool):
        v = [v]
    if not isinstance(v, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
        raise ValueError("must be a list of player counts, e.g. [2, 3, 4]")
    if not v or any(p not in (2, 3, 4) for p in v):
        raise ValueError(f"players must be among 2, 3, 4, got {v!r}")
    return sorted(set(v))


MAX_POOL = limits.MAX_POOL  # the largest VP pool size
MAX_GAMES = limits.MAX_COUNT    # games (deals, ...) per setting of any study: the one cap


def _count(lo, unit="games"):
    """A count key (games, deals): lo .. the cap of vale_sim.limits, the cost stated."""
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"must be a whole number of {unit}")
        problem = limits.count_problem(v, lo, unit)
        if problem:
            raise ValueError(problem)
        return v
    return check


def _workers(v):
    from .io import check_workers, max_workers
    try:
        return check_workers(v, "workers")
    except UserError:
        raise ValueError(f"must be a whole number from 1 to {max_workers()} "
                         f"(4 x the cores of this machine)") from None


def _game(v):
    from .games import GAMES
    if v not in GAMES:
        raise ValueError(f"unknown game; use one of {', '.join(GAMES)}")
    return v


COMMON = {
    "study": (_str, None),            # checked against the registered studies
    "game": (_game, None),            # default: the --game of `vale-sim run`
    "description": (_str, ""),
    "card_set": (_str, "core"),
    "seed": (_int(0, limits.MAX_SEED), 0),
    "engine": (_choice("fast", "reference"), "fast"),
    "workers": (_workers, 1),
    "rules": (dict, None),            # sub-table, checked by rules_schema(game)
}
def rules_schema(g) -> dict:
    """``[rules]``: one key per field of the game's ``rules_class``
    (``dataclasses.fields``), default its default.  A field's metadata may bound it:
    ``{"choices": (...)}`` or ``{"range": (lo, hi)}``; every value is then checked by
    the class itself (``exp.rules()``)."""
    import dataclasses
    out = {}
    for f in dataclasses.fields(g.rules_class):
        meta = f.metadata or {}
        if "choices" in meta:
            check = _choice(*meta["choices"])
        elif "range" in meta:
            check = _int(*meta["range"])
        else:
            def check(v):
                return v
        default = f.default if f.default is not dataclasses.MISSING else None
        out[f.name] = (check, default)
    return out


def tournament_schema() -> dict:
    return {
        "policies": (_list_of(_str, 2), ["balanced", "greedy", "cautious"]),
        "players": (_int(2, 4), 2),
        "games": (_count(2), 1000),
        "mode": (_choice("round-robin", "field"), None),
        "baseline": (_str, None),
    }


def report_schema() -> dict:
    return {
        "quick": (_bool, False),
        # the strong field of "Robust to the bots?" (None: the game's strongest bundled
        # field, vale_sim.strong_field.field_of)
        "baseline": (_str, None),
        "sizes": (dict, None),           # sub-table: the game's report settings fields
        # a "What if" section when the config names edits (vale_sim.whatif, docs/what-if.md)
        "edits": (dict, None),
        "rule_edits": (dict, None),
        "what_if_players": (_players_list, [2]),
        "what_if_games": (_int(2, MAX_GAMES), None),     # None: 2000 (quick/tiny: 200)
        "what_if_cards": (_list_of(_str), None),
    }


def what_if_schema() -> dict:
    return {                           # vale_sim.whatif, docs/what-if.md
        "edits": (dict, None),         # [edits."CARD"] FIELD = VALUE ("+1", "-1" or 5)
        "rule_edits": (dict, None),    # [rule_edits] NAME = VALUE (the edited arm's rules)
        "players": (_players_list, [2]),
        "games": (_int(2, MAX_GAMES), 2000),
        "baseline": (_str, None),      # None: the game's strongest bundled field
        "estimand": (_choice("natural", "prefer"), None),     # None: natural
        "cards": (_list_of(_str), None),
        "tolerance": (_float(0.0, 1.0), 0.05),
        "margin": (_float(0.0, 1.0), 0.02),
        "correction": (_choice("fdr_bh", "holm", "bonferroni"), "fdr_bh"),
    }


@dataclass
class Experiment:
    """A validated config: ``study``, ``name`` (the file stem) and all settings."""
    name: str
    study: str
    path: Path
    config: dict = field(default_factory=dict)
    game: str = DEFAULT_GAME

    def game_obj(self):
        from .games import get_game
        return get_game(self.game)

    def rules(self):
        return self.game_obj().rules_class(**(self.config.get("rules") or {}))

    def record(self):
        """The registered :class:`~vale_sim.study.Study` this config runs."""
        from .study import find
        return find(self.game_obj(), self.study)


def _fail(path, key, problem) -> ExperimentError:
    return ExperimentError(f"{path}: {key}: {problem}")


def _check_table(path, raw: dict, schema: dict, prefix: str = "") -> dict:
    out = {}
    for k in raw:
        if k not in schema:
            import difflib
            close = difflib.get_close_matches(k, list(schema), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _fail(path, f"{prefix}{k}", f"unknown key{hint}; known keys: {', '.join(schema)}")
    for k, (check, default) in schema.items():
        if k not in raw:
            out[k] = default
            continue
        v = raw[k]
        if check is dict:
            if not isinstance(v, dict):
                raise _fail(path, f"{prefix}{k}", "must be a table ([" + k + "])")
            out[k] = v
            continue
        try:
            out[k] = check(v)
        except ValueError as e:
            raise _fail(path, f"{prefix}{k}", f"{e} (got {v!r})") from None
    return out


def load_experiment(path, game: str | None = None) -> Experiment:
    """Read and validate ``path``; also load the card set, policies and decks it names.

    The game is the file's ``game`` key, else ``game`` (the --game of
    ``vale-sim run``), else the default game; ``config["game"]`` is kept only for
    another game (so the default game's configs keep their keys).
    Raises :class:`ExperimentError` (a :class:`~vale_sim.cli.UserError`) naming
    the file and the key of the first problem.  No game is played.
    """
    path = Path(path)
    try:
        raw = read_toml(path, "experiment file", 1_000_000)
    except InputFileError as e:
        if e.problem == "no such file":
            raise ExperimentError(f"{path}: no such experiment file (see experiments/*.toml)") from None
        raise ExperimentError(str(e)) from None
    if raw.get("study") == "what-if":
        raw["study"] = "what_if"
    study = raw.get("study")
    names = study_names()
    if study is None:
        raise _fail(path, "study", f"missing; use one of {', '.join(names)}")
    if study not in names:
        raise _fail(path, "study", f"unknown study {study!r}; use one of {', '.join(names)}")
    from .games import DEFAULT_GAME, get_game
    from .study import find, owners, studies_of
    name = _check_table(path, {k: raw[k] for k in ("game",) if k in raw},
                        {"game": COMMON["game"]})["game"]
    try:
        g = get_game(name or game or DEFAULT_GAME)
    except ValueError as e:
        raise _fail(path, "game", str(e)) from None
    rec = find(g, study)
    if rec is None or not rec.experiment:
        have = [o for o in owners(study) if find(o, study).experiment]
        own = [s.name for s in studies_of(g) if s.experiment]
        raise _fail(path, "study", f"{study} is a {have[0].title} study, not available for "
                                   f"{g.name}; add game = \"{have[0].name}\" or use one of "
                                   f"{', '.join(own)}")
    schema = {**COMMON, **rec.call("schema")}
    cfg = _check_table(path, raw, schema)
    cfg.pop("game")
    if g.name != DEFAULT_GAME:
        cfg["game"] = g.name
        if cfg["card_set"] == COMMON["card_set"][1] and "card_set" not in raw:
            cfg["card_set"] = g.default_card_set
    if rec.varies_rules and raw.get("rules"):
        raise _fail(path, "rules", "a settings study varies the rules itself; leave [rules] out")
    cfg["rules"] = _check_table(path, cfg["rules"] or {}, rules_schema(g), "rules.")
    exp = Experiment(name=path.stem, study=study, path=path, config=cfg, game=g.name)
    _check_semantics(exp)
    return exp


def _check_semantics(exp: Experiment) -> None:
    """Values that are well-typed but name things that must exist."""
    g = exp.game_obj()
    CardSetError = PolicyError = tuple(g.user_errors)     # the one-line errors of the game
    load_card_set, validate_playable, check_policies = (g.load_card_set, g.validate_playable,
                                                        g.check_policies)
    c, path = exp.config, exp.path
    try:
        exp.rules()
    except (TypeError, ValueError) as e:
        raise _fail(path, "rules", str(e)) from None
    try:
        cs = load_card_set(c["card_set"])
    except CardSetError as e:
        raise _fail(path, "card_set", str(e)) from None
    players = c.get("players")
    for p in ([players] if isinstance(players, int) else players or []):
        try:
            validate_playable(cs, p)
        except CardSetError as e:
            raise _fail(path, "card_set", str(e)) from None
    counts = [players] if isinstance(players, int) else list(players or [2, 3, 4])
    if exp.study == "report":
        counts = [2, 3, 4]
    pol_keys = [("policies", c.get("policies") or []), ("baseline", [c.get("baseline")]),
                ("policy", [c.get("policy")])]
    if exp.study == "report" and not _report_module(g).TAKES_BASELINE:
        pol_keys = []          # this game's report has no strong-baseline section
    for key, names in pol_keys:
        for n in names:
            if n is None:
                continue
            try:
                if key == "policies":
                    check_policies(cs, [n])
                else:                       # a baseline may name {P}, the player count
                    for p in counts:
                        g.resolve_baseline(n, p, cs)
            except PolicyError as e:
                raise _fail(path, key, str(e)) from None
    for key in ("lineup",):
        for n in c.get(key) or []:
            try:
                check_policies(cs, [n])
            except PolicyError as e:
                raise _fail(path, key, str(e)) from None
    rec = exp.record()
    if rec.check is not None:
        rec.call("check", exp, cs)


def check_tournament(exp, cs) -> None:
    c, path = exp.config, exp.path
    if len(set(c["policies"])) != len(c["policies"]):
        raise _fail(path, "policies", "names must be distinct")
    if c["baseline"] and c["mode"] == "round-robin":
        raise _fail(path, "baseline", "the baseline is the opponent field of mode field; "
                                      "round-robin has none: drop baseline or mode")
    mode = c["mode"] or ("field" if c["baseline"] or c["players"] > 2 else "round-robin")
    if mode == "round-robin" and len(c["policies"]) < c["players"]:
        raise _fail(path, "policies", f"round-robin with {c['players']} players needs at least "
                                      f"{c['players']} policies")


def check_what_if(exp, cs) -> None:
    _what_if_edits(exp, check=True)


def estimate_what_if(exp) -> int:
    from .whatif import games_played
    c, g = exp.config, exp.game_obj()
    n = (len(set(c["cards"]) | set(c["edits"] or {})) if c["cards"]
         else len(g.strength_cards(g.load_card_set(c["card_set"]))))
    return games_played(n, c["players"], c["games"])


def check_report(exp, cs) -> None:
    if exp.config["edits"] or exp.config["rule_edits"]:
        _what_if_edits(exp, check=True)
    try:
        _report_settings(exp)
    except (TypeError, ValueError) as e:
        raise _fail(exp.path, "sizes", str(e)) from None


def _report_module(g):
    """The game's report (``Game.report``: its settings, sections and title)."""
    from .study import resolve
    return resolve(g.report)


def _what_if_edits(exp: Experiment, check: bool = False):
    """The card and rule edits of a ``what_if`` config (``check``: also apply them to
    the card set and the rules, so a bad one fails before any game); an
    ExperimentError naming the file and the key."""
    from . import whatif
    c, path, g = exp.config, exp.path, exp.game_obj()
    edits, rules = [], []
    try:
        for card, fields_ in (c["edits"] or {}).items():
            if not isinstance(fields_, dict):
                raise whatif.WhatIfError(f"write a table [edits.\"{card}\"] of FIELD = VALUE")
            for f, v in fields_.items():
                value, rel = whatif.parse_value(v, f"{card}.{f}")
                edits.append(whatif.Edit(card, f, value, rel))
        for k, v in (c["rule_edits"] or {}).items():
            rules.append(whatif.parse_rule(k, g, "rule_edits.", v))
        if not edits and not rules:
            raise whatif.WhatIfError("give [edits.\"CARD\"] FIELD = VALUE or [rule_edits]")
        if check:
            cs = g.load_card_set(c["card_set"])
            whatif.apply_card_edits(g, cs, edits)
            whatif.apply_rule_edits(g, exp.rules(), rules, "rule_edits")
            known = {n for n, *_ in g.strength_cards(cs)}
            key = "cards" if exp.study == "what_if" else "what_if_cards"
            for n in c[key] or []:
                if n not in known:
                    hint = did_you_mean(n, sorted(known))
                    raise _fail(path, key, f"unknown card {n!r}" + (f"; {hint}" if hint else ""))
    except (whatif.WhatIfError, *g.user_errors) as e:
        raise _fail(path, "edits", str(e)) from None
    return edits, rules


def _report_settings(exp: Experiment, **kw):
    """The report settings of a ``report`` config, for its game."""
    return _report_module(exp.game_obj()).settings_from_config(exp.config, **kw)


def estimated_games(exp: Experiment) -> int | None:
    """About how many games (or spoil-check turns) running ``exp`` plays; None for a
    report (see docs/report.md for its sizes).  Computed without playing."""
    rec = exp.record()
    return None if rec.estimate is None else rec.call("estimate", exp)


def estimate_tournament(exp: Experiment) -> int:
    from math import comb
    c = exp.config
    n, k = len(c["policies"]), c["players"]
    mode = c["mode"] or ("round-robin" if k == 2 else "field")
    matchups = comb(n, k) if mode == "round-robin" else n
    return matchups * (-(-c["games"] // k) * k)


# ---------------------------------------------------------------------------
# Manifest
# ---------------------------------------------------------------------------
def manifest(exp: Experiment, engine_used: str | None = None) -> dict:
    """The run's description (without timing; :func:`run_experiment` adds it)."""
    g = exp.game_obj()
    c = exp.config
    m = {"name": exp.name, "study": exp.study, "config_file": str(exp.path),
         "config": c, "card_set": card_set_info(g.load_card_set(c["card_set"]), g),
         "seed": c["seed"], "games": c.get("games"), "code": code_version(),
         "engine": engine_used or c["engine"]}
    blob = json.dumps({k: m[k] for k in ("study", "config", "card_set", "code")},
                      sort_keys=True, default=str)
    m["key"] = hashlib.sha256(blob.encode()).hexdigest()[:20]
    return m


# ---------------------------------------------------------------------------
# Running: every game goes through runner.run(out=..., resume=True)
# ---------------------------------------------------------------------------
def _write_csv(df, path: Path) -> None:
    from .io import atomic_path
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)


def _save_fig(fig, path: Path, **kw) -> None:
    from .io import save_figure
    save_figure(fig, path, **kw)


def _baseline(c: dict):
    """The config's baseline with {P} replaced by its player count (None stays None)."""
    from .robustness import baseline_spec
    return None if c.get("baseline") is None else baseline_spec(c["baseline"], c["players"])


def run_tournament(exp, out: Path, store, progress) -> dict:
    from .tournament import tournament
    c = exp.config
    t = tournament(c["policies"], players=c["players"], games=c["games"], seed=c["seed"],
                   card_set=c["card_set"], engine=c["engine"], rules=exp.rules(),
                   mode=c["mode"], baseline=_baseline(c), workers=c["workers"],
                   play=store.play_frame, game=exp.game)
    for name in ("table", "seats", "ranking"):
        _write_csv(getattr(t, name), out / f"tournament_{name}.csv")
    atomic_write(out / "tournament.json", json.dumps(t.to_json(), indent=1, default=str))
    return {"games_per_matchup": t.config["games_per_matchup"]}


def run_report(exp, out: Path, store, progress) -> dict:
    from .report import build_report
    c = exp.config
    settings = _report_settings(exp, seed=c["seed"], card_set=c["card_set"], engine=c["engine"],
                                workers=c["workers"])
    sections = None
    if c["edits"] or c["rule_edits"]:          # the report's own sections, then "What if"
        from . import report
        from .whatif import report_section_function
        sections = report.game_report(exp.game).sections()
        edits, rules = _what_if_edits(exp)
        sections.insert(len(sections) - 1, report_section_function(
            edits, rules, c["what_if_players"], c["what_if_games"], c["what_if_cards"]))
    rm = build_report(out, settings, sections=sections, store=store, keep=(RUNS_DIR,),
                      progress=progress, game=exp.game)
    return {"report": rm}


def run_what_if(exp, out: Path, store, progress) -> dict:
    """A what-if config: what_if.json, what_if.txt, the two tables as CSV, the figure
    (the results are written before the figure)."""
    from . import whatif
    from .plots.whatif import plot_changes
    import pandas as pd
    c = exp.config
    edits, rules = _what_if_edits(exp)
    w = whatif.what_if(edits, rules, exp.game, c["card_set"], c["players"], c["games"],
                       c["seed"], c["baseline"], c["cards"], exp.rules(), c["engine"],
                       c["workers"], tolerance=c["tolerance"], margin=c["margin"],
                       correction=c["correction"], play=store.play_frame,
                       estimand=c["estimand"])
    for name in ("cards", "game"):
        _write_csv(pd.concat([getattr(pc, name).assign(players=pc.players) for pc in w.counts],
                             ignore_index=True), out / f"what_if_{name}.csv")
    atomic_write(out / "what_if.json", json.dumps(w.to_json(), indent=1, default=str))
    atomic_write(out / "what_if.txt", w.text() + "\n")
    _save_fig(plot_changes(w), out / "what_if.png", dpi=110, bbox_inches="tight")
    return {"verdicts_changed": {pc.players: int(pc.cards["verdict_changed"].sum())
                                 for pc in w.counts}}


def _engine_used(exp) -> str:
    """The engine a study of the shared layers uses: the runner's choice."""
    from .runner import effective_engine
    return effective_engine(exp.config["engine"], exp.game)


def is_run_folder(path) -> bool:
    """``path`` holds an earlier ``vale-sim run``: its ``manifest.json`` names a study
    and a key (:func:`manifest`), or it is a report (:func:`vale_sim.report.is_report_folder`)."""
    from .io import read_manifest
    from .report import is_report_folder
    m = read_manifest(Path(path) / "manifest.json")
    return (m is not None and m.get("study") in study_names() and "key" in m) or is_report_folder(path)


def run_experiment(path, results="results", progress: bool = True, game: str | None = None) -> dict:
    """Validate ``path``, run its study into ``results/NAME/``, write ``manifest.json``.

    Returns the manifest.  Re-running the same config reuses finished chunks
    (``manifest["chunks"]`` says how many were reused and how many played).
    ``game``: the game of a config without a ``game`` key (default: the default game).
    """
    from .io import check_output, check_replaceable, os_error_message
    exp = load_experiment(path, game)
    out = Path(results) / exp.name
    check_output(out, "dir", "--results")          # before any game is played
    # results/NAME/ is written over: refused unless it is new, empty (but for the
    # chunk cache runs/) or an earlier run's (docs/runs.md, "Output paths and write failures")
    check_replaceable(out, is_run_folder, "vale-sim run", option="--results", keep=(RUNS_DIR,))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ExperimentError(os_error_message(e, out)) from None
    rec = exp.record()
    engine_used = rec.call("engine", exp) if rec.engine is not None else _engine_used(exp)
    m = manifest(exp, engine_used=engine_used)
    store = ChunkStore(out / RUNS_DIR, progress=progress)
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    info = rec.call("run", exp, out, store, progress)
    m.update(started=started.isoformat(timespec="seconds"),
             seconds=round(time.perf_counter() - t0, 2),
             chunks={"reused": store.reused, "played": store.played}, outputs=info)
    atomic_write(out / "manifest.json", json.dumps(m, indent=2, default=str))
    return m
