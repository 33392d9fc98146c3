"""Study configs (``experiments/NAME.toml``) and running them into ``results/NAME/``.

A config names its ``study`` and its settings; every key is checked before
any game runs (an unknown key or a bad value raises :class:`ExperimentError`
naming the file and the key).  Studies:

=================== ===============================================================
``spoil_odds``      exact spoil odds of decks, with a reference-engine simulation check
``tournament``      policies against each other, seats rotated on common seeds
``advancement_value`` observational and paired values of every card, with flags
``pool_sizes``      VP pool size by player count (``vale_sim.games.mystic_vale.pools``)
``report``          the whole balance report (``vale_sim.report``; either game)
``seat_compensation`` Mystic Lands: seat win rates and compensation schedules (``vale_sim.studies``)
``end_trigger``     Mystic Lands: end VP, cube count and bonus
``market_growth``   Mystic Lands: market growth points, spread of strategies
``wither_rain``     Mystic Lands: Withers by policy, Rain supply, the value of Rain
``what_if``         either game: card or rule edits, the paired change of every verdict
                    (``vale_sim.whatif``; ``study = "what-if"`` is read as ``what_if``)
=================== ===============================================================

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
from .inputs import InputFileError, did_you_mean, read_toml, parse_int
from .io import atomic_write
from .store import ChunkStore, card_set_info, code_version

STUDIES = ("spoil_odds", "tournament", "advancement_value", "pool_sizes", "report",
           "seat_compensation", "end_trigger", "market_growth", "wither_rain", "what_if")
#: The settings studies of vale_sim.studies (Mystic Lands; Game.studies names them).
LANDS_STUDIES = ("seat_compensation", "end_trigger", "market_growth", "wither_rain")
RUNS_DIR = "runs"


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
    from vale_sim.games.mystic_vale.pools import parse_players
    if isinstance(v, int) and not isinstance(v, bool):
        v = [v]
    if not isinstance(v, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
        raise ValueError("must be a list of player counts, e.g. [2, 3, 4]")
    return parse_players(v)


MAX_POOL_SIZES = 200        # pool sizes in one pool_sizes study (docs/runs.md)
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


def pool_grid_size(v) -> int:
    """How many pool sizes ``v`` ("lo:hi:step" or a list) names, counted without
    building the list (a 100-million-point range is refused at once)."""
    if isinstance(v, list):
        return len(v)
    s = str(v).replace(" ", "")
    if ":" not in s:
        return len([x for x in s.split(",") if x])
    try:
        parts = [parse_int(x, negative=True) for x in s.split(":")]
    except ValueError:
        raise ValueError("must be \"lo:hi:step\" or a list of whole numbers") from None
    if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] < 1) or parts[1] < parts[0]:
        raise ValueError("must be \"lo:hi:step\" with lo <= hi and step >= 1")
    step = parts[2] if len(parts) == 3 else 1
    return (parts[1] - parts[0]) // step + 1


def _pools(v):
    from vale_sim.games.mystic_vale.pools import parse_pools
    if isinstance(v, list) and any(isinstance(x, bool) or not isinstance(x, int) for x in v):
        raise ValueError("must be \"lo:hi:step\" or a list of whole numbers")
    if not isinstance(v, (str, list)):
        raise ValueError("must be \"lo:hi:step\" or a list of whole numbers")
    n = pool_grid_size(v)
    if n > MAX_POOL_SIZES:
        raise ValueError(f"names {n} pool sizes, more than the limit of {MAX_POOL_SIZES}; "
                         f"use a larger step")
    sizes = parse_pools(v, include_rulebook=False)
    if max(sizes) > MAX_POOL:
        raise ValueError(f"pool sizes must be at most {MAX_POOL}")
    return v


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


#: The studies every game has; the others are Mystic Vale studies.
SHARED_STUDIES = ("tournament", "what_if")

COMMON = {
    "study": (_choice(*STUDIES), None),
    "game": (_game, None),            # default: the --game of `vale-sim run` (mystic-vale)
    "description": (_str, ""),
    "card_set": (_str, "core"),
    "seed": (_int(0, limits.MAX_SEED), 0),
    "engine": (_choice("fast", "reference"), "fast"),
    "workers": (_workers, 1),
    "rules": (dict, None),            # sub-table, checked by RULES
}
RULES = {
    "prep_count": (_choice("net", "gross"), "net"),
    "vp_pool": (_int(1, MAX_POOL), None),
    "level1_deck_size": (_int(1, 1000), None),
    "max_rounds": (_int(1, 1000), 100),
}
SCHEMAS = {
    "spoil_odds": {
        "decks": (_list_of(_str), ["starter", "druid", "grovetender", "thornhide"]),
        "pushes": (_int(1, 12), 6),
        "games": (_count(1), 10_000),          # simulation check per deck
    },
    "tournament": {
        "policies": (_list_of(_str, 2), ["balanced", "greedy", "cautious"]),
        "players": (_int(2, 4), 2),
        "games": (_count(2), 1000),
        "mode": (_choice("round-robin", "field"), None),
        "baseline": (_str, None),
    },
    "advancement_value": {
        "players": (_int(2, 4), 2),
        "games": (_count(2), 1000),
        "observational_games": (_count(2), None),
        "baseline": (_str, "balanced"),
        "tolerance": (_float(0.0, 1.0), 0.05),
        "explore_permille": (_int(0, 1000), 300),
        "cards": (_list_of(_str), None),
        "paired": (_bool, True),
    },
    "pool_sizes": {
        "players": (_players_list, [2, 3, 4]),
        "pools": (_pools, "15:45:2"),
        "games": (_count(2), 500),
        "policy": (_str, None),          # the old name of baseline
        "baseline": (_str, None),
        "target": (_choice("equal-length", "seat-advantage"), "equal-length"),
    },
    "report": {
        "quick": (_bool, False),
        "baseline": (_str, "optimized-{P}p"),    # the strong baseline of "Robust to the bots?"
        "sizes": (dict, None),           # sub-table: ReportSettings fields
        # a "What if" section when the config names edits (vale_sim.whatif, docs/what-if.md)
        "edits": (dict, None),
        "rule_edits": (dict, None),
        "what_if_players": (_players_list, [2]),
        "what_if_games": (_int(2, MAX_GAMES), None),     # None: 2000 (quick/tiny: 200)
        "what_if_cards": (_list_of(_str), None),
    },
    "seat_compensation": {
        "players": (_players_list, [2, 3, 4]),
        "deals": (_int_or_auto(2, MAX_GAMES), None),          # None ("auto"): seats.auto_deals
        "confirm_deals": (_int_or_auto(2, MAX_GAMES), None),  # None: as many as deals
        "grid": (_choice("ladder", "monotone"), "ladder"),
        "margin": (_float(0.0, 1.0), 0.03),
        "policy": (_str, "balanced"),
        "max_mana": (_int(0, 10), 2),
        "max_spirit": (_int(0, 10), 1),
    },
    "end_trigger": {
        "players": (_players_list, [2, 4]),
        "deals": (_count(2, "deals"), 150),
        "end_vp": (_list_of(_int(0, 1000), 0), [20, 30]),
        "end_cubes": (_list_of(_int(0, 1000), 0), [8, 12]),
        "end_bonus": (_list_of(_int(0, 1000), 0), [0, 10]),
        "policy": (_str, "balanced"),
    },
    "market_growth": {
        "deals": (_count(2, "deals"), 40),
        "first": (_list_of(_int(0, 10_000), 0), [3, 10]),
        "second": (_list_of(_int(0, 10_000), 0), [10, 20]),
        "never": (_bool, True),
        "lineup": (_list_of(_str, 2), ["balanced", "greedy", "spirit", "vp"]),
    },
    "wither_rain": {
        "deals": (_count(2, "deals"), 30),
        "supplies": (_list_of(_int(0, 10_000), 0), [0, 10, 40]),
        "lineup": (_list_of(_str, 2), ["balanced", "cautious", "greedy", "rain-dancer"]),
        "value_deals": (_count(0, "deals"), 150),
    },
    "what_if": {                       # vale_sim.whatif, docs/what-if.md
        "edits": (dict, None),         # [edits."CARD"] FIELD = VALUE ("+1", "-1" or 5)
        "rule_edits": (dict, None),    # [rule_edits] NAME = VALUE (the edited arm's rules)
        "players": (_players_list, [2]),
        "games": (_int(2, MAX_GAMES), 2000),
        "baseline": (_str, None),
        "cards": (_list_of(_str), None),
        "tolerance": (_float(0.0, 1.0), 0.05),
        "margin": (_float(0.0, 1.0), 0.02),
        "correction": (_choice("fdr_bh", "holm", "bonferroni"), "fdr_bh"),
    },
}


@dataclass
class Experiment:
    """A validated config: ``study``, ``name`` (the file stem) and all settings."""
    name: str
    study: str
    path: Path
    config: dict = field(default_factory=dict)
    game: str = "mystic-vale"

    def game_obj(self):
        from .games import get_game
        return get_game(self.game)

    def rules(self):
        return self.game_obj().rules_class(**(self.config.get("rules") or {}))


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
    ``vale-sim run``), else mystic-vale; ``config["game"]`` is kept only for a
    game other than mystic-vale (so Mystic Vale configs keep their keys).
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
    if study is None:
        raise _fail(path, "study", f"missing; use one of {', '.join(STUDIES)}")
    if study not in STUDIES:
        raise _fail(path, "study", f"unknown study {study!r}; use one of {', '.join(STUDIES)}")
    schema = {**COMMON, **SCHEMAS[study]}
    cfg = _check_table(path, raw, schema)
    from .games import DEFAULT_GAME, get_game
    name = cfg.pop("game") or game or DEFAULT_GAME
    try:
        g = get_game(name)
    except ValueError as e:
        raise _fail(path, "game", str(e)) from None
    if study in LANDS_STUDIES and study.replace("_", "-") not in g.studies:
        raise _fail(path, "study", f"{study} is a Mystic Lands study; add game = \"mystic-lands\"")
    if g.name != DEFAULT_GAME:
        cfg["game"] = g.name
        if study in LANDS_STUDIES and raw.get("rules"):
            raise _fail(path, "rules", "a settings study varies the rules itself; leave [rules] out")
        if study not in SHARED_STUDIES and study.replace("_", "-") not in g.studies:
            raise _fail(path, "study", f"{study} is a Mystic Vale study, not available for "
                                       f"{g.name}; use one of {', '.join(SHARED_STUDIES)}")
        if cfg["card_set"] == COMMON["card_set"][1] and "card_set" not in raw:
            cfg["card_set"] = g.default_card_set
        cfg["rules"] = dict(cfg["rules"] or {})       # checked by the game's rules_class
    else:
        cfg["rules"] = _check_table(path, cfg["rules"] or {}, RULES, "rules.")
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
    if exp.study == "report" and g.name != "mystic-vale":
        pol_keys = []          # the strong-baseline section is Mystic Vale's report only
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
    if exp.study == "pool_sizes" and c.get("baseline") and c.get("policy"):
        raise _fail(path, "baseline", "give baseline or its old name policy, not both")
    if exp.study == "tournament":
        if len(set(c["policies"])) != len(c["policies"]):
            raise _fail(path, "policies", "names must be distinct")
        if c["baseline"] and c["mode"] == "round-robin":
            raise _fail(path, "baseline", "the baseline is the opponent field of mode field; "
                                          "round-robin has none: drop baseline or mode")
        mode = c["mode"] or ("field" if c["baseline"] or c["players"] > 2 else "round-robin")
        if mode == "round-robin" and len(c["policies"]) < c["players"]:
            raise _fail(path, "policies", f"round-robin with {c['players']} players needs at least "
                                          f"{c['players']} policies")
    if exp.study == "spoil_odds":
        from vale_sim.games.mystic_vale.spoil import DeckError, load_deck
        for d in c["decks"]:
            try:
                load_deck(d, cs)
            except (DeckError, *CardSetError) as e:
                raise _fail(path, "decks", str(e)) from None
    if exp.study == "advancement_value" and c["cards"]:
        from .advancements import analysed_cards
        known = {n for n, *_ in analysed_cards(cs)}
        for n in c["cards"]:
            if n not in known:
                hint = did_you_mean(n, sorted(known))
                raise _fail(path, "cards", f"unknown card {n!r} (not a buyable card of set "
                                           f"{cs.name!r}){'; ' + hint if hint else ''}")
    if exp.study == "pool_sizes" and c["target"] == "equal-length" and 2 not in c["players"]:
        raise _fail(path, "target", "equal-length compares with the 2-player game: include 2 in players")
    if exp.study == "what_if" or (exp.study == "report" and (c["edits"] or c["rule_edits"])):
        _what_if_edits(exp, check=True)
    if exp.study == "report":
        try:
            _report_settings(exp)
        except (TypeError, ValueError) as e:
            raise _fail(path, "sizes", str(e)) from None
    for key in ("lineup",):
        for n in c.get(key) or []:
            try:
                check_policies(cs, [n])
            except PolicyError as e:
                raise _fail(path, key, str(e)) from None
    if exp.study in ("market_growth", "wither_rain") and len(c["lineup"]) not in g.players:
        raise _fail(path, "lineup", f"one policy per player: {len(c['lineup'])} is not a player "
                                    f"count of {g.name}")
    if exp.study in ("end_trigger", "wither_rain", "market_growth"):
        from .studies import lands
        opts = ({"end_vp": c["end_vp"], "end_cubes": c["end_cubes"], "end_bonus": c["end_bonus"]}
                if exp.study == "end_trigger" else {"rain_supply": c["supplies"]}
                if exp.study == "wither_rain" else {})
        try:
            lands._rules(lands.one_at_a_time(opts))
        except ValueError as e:
            raise _fail(path, exp.study, str(e)) from None


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
    c = exp.config
    if exp.game == "mystic-vale":
        from .report import ReportSettings
        return ReportSettings.make(quick=c["quick"], **kw,
                                   **{"robust_baseline": c["baseline"], **(c["sizes"] or {})})
    from .report import _game_report
    return _game_report(exp.game).LandsReportSettings.make(quick=c["quick"], **kw,
                                                            **(c["sizes"] or {}))


def estimated_games(exp: Experiment) -> int | None:
    """About how many games (or spoil-check turns) running ``exp`` plays; None for a
    report (see docs/report.md for its sizes).  Computed without playing."""
    from math import comb
    c = exp.config
    if exp.study == "spoil_odds":
        return len(c["decks"]) * c["games"]
    if exp.study == "tournament":
        n, k = len(c["policies"]), c["players"]
        mode = c["mode"] or ("round-robin" if k == 2 else "field")
        matchups = comb(n, k) if mode == "round-robin" else n
        return matchups * (-(-c["games"] // k) * k)
    if exp.study == "advancement_value":
        from .advancements import analysed_cards
        from vale_sim.games.mystic_vale.cards import load_card_set
        cards = c["cards"] or [x[0] for x in analysed_cards(load_card_set(c["card_set"]))]
        obs = c["observational_games"] or c["games"]
        return obs + (2 * len(cards) * c["games"] if c["paired"] else 0)
    if exp.study == "pool_sizes":
        from vale_sim.games.mystic_vale.pools import parse_pools
        grid = parse_pools(c["pools"], c["players"])
        return len(c["players"]) * len(grid) * c["games"]
    if exp.study == "what_if":
        from .whatif import games_played
        g = exp.game_obj()
        n = (len(set(c["cards"]) | set(c["edits"] or {})) if c["cards"]
             else len(g.strength_cards(g.load_card_set(c["card_set"]))))
        return games_played(n, c["players"], c["games"])
    return None


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


def _run_spoil(exp, out: Path, store, progress) -> dict:
    from vale_sim.games.mystic_vale.cards import load_card_set
    from vale_sim.games.mystic_vale.spoil import simulate_spoil_odds, spoil_odds, spoil_row
    c = exp.config
    cs = load_card_set(c["card_set"])
    rows, results = [], {}
    cache = out / RUNS_DIR / "spoil"
    cache.mkdir(parents=True, exist_ok=True)
    for d in c["decks"]:
        ex = spoil_odds(d, c["pushes"], rules=exp.rules(), card_set=cs)
        key = hashlib.sha256(json.dumps([d, c["pushes"], c["games"], c["seed"], c["rules"],
                                         cs.digest()], default=str).encode()).hexdigest()[:16]
        cached = cache / f"{Path(str(d)).stem}-{key}.json"
        if cached.exists():
            sim = json.loads(cached.read_text())
            store.reused += 1
        else:
            sim = simulate_spoil_odds(d, c["pushes"], c["games"], c["seed"], exp.rules(),
                                      card_set=cs).to_dict()
            atomic_write(cached, json.dumps(sim))
            store.played += 1
        results[str(d)] = {"exact": ex.to_dict(), "simulated": sim}
        for k in range(1, c["pushes"] + 1):
            rows.append(spoil_row(str(d), k, ex.p_spoil_within[k],
                                  sim["p_spoil_within"][str(k)],
                                  sim["standard_errors"]["p_spoil_within"][str(k)], c["games"]))
    import pandas as pd
    _write_csv(pd.DataFrame(rows), out / "spoil_odds.csv")
    atomic_write(out / "spoil_odds.json", json.dumps(results, indent=1))
    return {"decks": len(c["decks"])}


def _baseline(c: dict):
    """The config's baseline with {P} replaced by its player count (None stays None)."""
    from .robustness import baseline_spec
    return None if c.get("baseline") is None else baseline_spec(c["baseline"], c["players"])


def _run_tournament(exp, out: Path, store, progress) -> dict:
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


def _run_advancements(exp, out: Path, store, progress) -> dict:
    from .advancements import advancement_report, report_records
    c = exp.config
    df = advancement_report(c["card_set"], games=c["games"], players=c["players"],
                            seed=c["seed"], baseline=_baseline(c), tolerance=c["tolerance"],
                            explore_permille=c["explore_permille"],
                            observational_games=c["observational_games"], cards=c["cards"],
                            rules=exp.rules(), engine=c["engine"], workers=c["workers"],
                            paired=c["paired"], play=store.play_frame)
    _write_csv(df, out / "advancement_values.csv")
    atomic_write(out / "advancement_values.json", json.dumps(report_records(df), indent=1))
    return {"cards": len(df), "flagged": int((df.get("flag", "") != "").sum()) if "flag" in df else 0}


def _run_pools(exp, out: Path, store, progress) -> dict:
    from vale_sim.games.mystic_vale import pools
    from vale_sim.games.mystic_vale.plots import pools as pplots
    c = exp.config
    players = c["players"]
    grid = pools.parse_pools(c["pools"], players)
    frame = pools.simulate_pools(c["card_set"], players, grid, games=c["games"], seed=c["seed"],
                                 baseline=c["baseline"] or c["policy"], engine=c["engine"],
                                 rules=exp.rules(),
                                 out=store, progress=progress,
                                 workers=c["workers"])
    summary = pools.summarize_pools(frame)
    recs = pools.recommend(summary, c["target"])
    _write_csv(pools.flat_table(summary), out / "pool_sizes.csv")
    _write_csv(pools.recommendations_frame(recs), out / "pool_recommendations.csv")
    atomic_write(out / "pool_sizes.json", json.dumps(pools.to_records(summary, recs), indent=1))
    for name, fig in (("pool_length", pplots.length_vs_pool(summary, recs)),
                      ("seat_advantage", pplots.seat_heatmap(summary))):
        _save_fig(fig, out / f"{name}.png", dpi=110, bbox_inches="tight")
    atomic_write(out / "recommendations.txt", "\n".join(r.sentence() for r in recs) + "\n")
    return {"cells": len(summary)}


def _run_report(exp, out: Path, store, progress) -> dict:
    from .report import build_report
    c = exp.config
    settings = _report_settings(exp, seed=c["seed"], card_set=c["card_set"], engine=c["engine"],
                                workers=c["workers"])
    sections = None
    if c["edits"] or c["rule_edits"]:          # the report's own sections, then "What if"
        from . import report
        from .whatif import report_section_function
        sections = (list(report.SECTIONS) if exp.game == "mystic-vale"
                    else report._game_report(exp.game).sections())
        edits, rules = _what_if_edits(exp)
        sections.insert(len(sections) - 1, report_section_function(
            edits, rules, c["what_if_players"], c["what_if_games"], c["what_if_cards"]))
    rm = build_report(out, settings, sections=sections, store=store, keep=(RUNS_DIR,),
                      progress=progress, game=exp.game)
    return {"report": rm}


def _lands_engine(exp) -> str:
    """"fast" in a settings-study config: the fast engine when the game has one."""
    from .studies.common import resolve_engine
    return resolve_engine("auto" if exp.config["engine"] == "fast" else "reference", exp.game)


def _run_lands(exp, out: Path, store, progress) -> dict:
    """A settings study of vale_sim.studies: JSON, one CSV per table, the figure."""
    from .plots import lands as plots
    from .studies import lands, seats
    c = exp.config
    kw = dict(card_set=c["card_set"], engine=_lands_engine(exp), workers=c["workers"],
              progress=progress)
    if exp.study == "seat_compensation":
        st = seats.seat_study(c["players"], c["deals"], c["seed"], c["grid"], c["margin"],
                              policy=c["policy"], max_mana=c["max_mana"],
                              max_spirit=c["max_spirit"], confirm_deals=c["confirm_deals"], **kw)
        tables = {"seats": st.seats, "schedules": st.schedules, "effect": st.effect}
        fig, _ = plots.seat_figure(st)
        atomic_write(out / "recommendations.txt",
                     "\n".join(seats.sentence(r) for r in st.recommendations) + "\n")
    elif exp.study == "end_trigger":
        opts = {k: c[k] for k in ("end_vp", "end_cubes", "end_bonus")}
        st = lands.end_trigger_study(c["players"], c["deals"], c["seed"], opts, c["policy"], **kw)
        tables, fig = {"table": st.table}, plots.end_trigger_figure(st)[0]
    elif exp.study == "market_growth":
        points = {"manual": (5, 15), **{f"first={v}": (v, 15) for v in c["first"]},
                  **{f"second={v}": (5, v) for v in c["second"]}}
        if c["never"]:
            points["never"] = (1000, 1000)
        st = lands.market_growth_study(len(c["lineup"]), c["deals"], c["seed"], points,
                                       c["lineup"], **kw)
        tables, fig = {"table": st.table, **st.extra}, plots.market_figure(st)[0]
    else:
        st = lands.wither_rain_study(len(c["lineup"]), c["deals"], c["seed"], c["supplies"],
                                     c["lineup"], value_deals=c["value_deals"], **kw)
        tables, fig = {"table": st.table, **st.extra}, plots.wither_figure(st)[0]
    for name, df in tables.items():
        _write_csv(df, out / f"{exp.study}_{name}.csv")
    _save_fig(fig, out / f"{exp.study}.png", dpi=110, bbox_inches="tight")
    atomic_write(out / f"{exp.study}.json", json.dumps(st.to_json(), indent=1, default=str))
    return {"tables": sorted(tables)}


def _run_what_if(exp, out: Path, store, progress) -> dict:
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
                       correction=c["correction"], play=store.play_frame)
    for name in ("cards", "game"):
        _write_csv(pd.concat([getattr(pc, name).assign(players=pc.players) for pc in w.counts],
                             ignore_index=True), out / f"what_if_{name}.csv")
    atomic_write(out / "what_if.json", json.dumps(w.to_json(), indent=1, default=str))
    atomic_write(out / "what_if.txt", w.text() + "\n")
    _save_fig(plot_changes(w), out / "what_if.png", dpi=110, bbox_inches="tight")
    return {"verdicts_changed": {pc.players: int(pc.cards["verdict_changed"].sum())
                                 for pc in w.counts}}


RUNNERS = {"spoil_odds": _run_spoil, "tournament": _run_tournament,
           "advancement_value": _run_advancements, "pool_sizes": _run_pools,
           "report": _run_report, "what_if": _run_what_if,
           **{k: _run_lands for k in LANDS_STUDIES}}


def is_run_folder(path) -> bool:
    """``path`` holds an earlier ``vale-sim run``: its ``manifest.json`` names a study
    and a key (:func:`manifest`), or it is a report (:func:`vale_sim.report.is_report_folder`)."""
    from .io import read_manifest
    from .report import is_report_folder
    m = read_manifest(Path(path) / "manifest.json")
    return (m is not None and m.get("study") in STUDIES and "key" in m) or is_report_folder(path)


def run_experiment(path, results="results", progress: bool = True, game: str | None = None) -> dict:
    """Validate ``path``, run its study into ``results/NAME/``, write ``manifest.json``.

    Returns the manifest.  Re-running the same config reuses finished chunks
    (``manifest["chunks"]`` says how many were reused and how many played).
    ``game``: the game of a config without a ``game`` key (default mystic-vale).
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
    if exp.game == "mystic-vale":
        from vale_sim.games.mystic_vale.pools import resolve_engine
        engine_used = resolve_engine("auto") if exp.config["engine"] == "fast" else "reference"
    elif exp.study in LANDS_STUDIES or exp.study == "report":
        engine_used = _lands_engine(exp)
    else:
        from .runner import effective_engine
        engine_used = effective_engine(exp.config["engine"], exp.game)
    m = manifest(exp, engine_used=engine_used)
    store = ChunkStore(out / RUNS_DIR, progress=progress)
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    info = RUNNERS[exp.study](exp, out, store, progress)
    m.update(started=started.isoformat(timespec="seconds"),
             seconds=round(time.perf_counter() - t0, 2),
             chunks={"reused": store.reused, "played": store.played}, outputs=info)
    atomic_write(out / "manifest.json", json.dumps(m, indent=2, default=str))
    return m
