"""Mystic Vale behind the game interface (:class:`vale_sim.games.base.Game`).

Everything specific to Mystic Vale lives in this package: card sets
(``cards``, ``data/``), policies (``policy``, ``policies/``), rule options
(``rules``), records and the results frame (``records``), the readable reference engine
(``reference/``), the numba fast engine (``fast/``) and the Mystic Vale
studies: spoil odds (``spoil/``: the model, ``fast``, ``state``, ``bench``), pool sizes
(``pools``), their figures (``plots/``), golden games (``golden``) and
synthetic card sets (``synthetic``).  The shared layers reach it through
``GAME`` (``vale_sim.games.get_game("mystic-vale")``).

Importing this package imports neither numba nor pandas: the engines load on
first use.
"""
from __future__ import annotations

from . import cards as _cards
from . import policy as _policy
from . import records as _records
from .records import BASE_COLUMNS
from .rules import Rules
from ..base import SEATS_NOTE, Game
from vale_sim.study import (CARDS, EXPLOIT, GOLDEN, META, OPTIMIZE, REPORT, STRATEGY, TRAIN,
                             Study)

_S = __name__ + ".studies:"          # the config schemas, checks and runners of its studies


def _load_card_set(spec):
    """``cards.load_card_set``, looked up when called (one place to patch it)."""
    return _cards.load_card_set(spec)


def _bundled_card_sets() -> dict:
    return {name: _cards.DATA_DIR / f"{name}.toml" for name in _cards.bundled_sets()}


def _play_reference(cs, players, seed, game_index=0, policies=None, rules=None):
    from .reference.search import play_reference     # search players too (docs/search.md)
    return play_reference(cs, players, seed, game_index, policies, rules)


def _run_fast(cs, players, seed, n_games, policies=None, rules=None, first_game=0):
    """``Game.run_fast``: the results frame of games first_game.. from the fast engine
    (numba is imported on the first call only)."""
    from .fast.api import run_fast
    return run_fast(cs, players, seed, n_games, policies, rules, first_game=first_game)


def _run_outcomes(cs, players, seed, n_games, policies=None, rules=None, first_game=0):
    """``Game.run_outcomes``: the outcome arrays of those games (no frame)."""
    from .fast.api import run_outcomes
    return run_outcomes(cs, players, seed, n_games, policies, rules, first_game=first_game)


def _warm_up() -> None:
    from vale_sim.kernels.jit import cache_is_cold
    from .fast import api
    from .fast.engine import play_games
    if cache_is_cold(play_games):
        api.warm_up()


def _card_set_facts(cs) -> dict:
    """Card kinds by default source and numbers by source."""
    counts: dict = {}
    for item in list(cs.advancements) + list(cs.vales):
        counts[item.source] = counts.get(item.source, 0) + 1
    return {"sources": dict(sorted(counts.items())),
            "numbers_by_source": _cards.provenance_counts(cs)}


def _format_result(record) -> str:
    """``vale-sim play``'s final scores; seats as text counts them (record seat + 1)."""
    lines = [SEATS_NOTE, f"{'player':>6} {'seat':>4} {'policy':<12} {'tokens':>6} {'adv VP':>6} "
             f"{'vale VP':>7} {'total':>5} {'win':>5}"]
    for r in record.results:
        lines.append(f"{'P%d' % r.player:>6} {r.seat + 1:>4} {r.policy:<12} {r.tokens_vp:>6} "
                     f"{r.adv_vp:>6} {r.vale_vp:>7} {r.score:>5} {r.win_share:>5.2f}")
    lines.append(f"{record.rounds} rounds"
                 + (" (stopped at the round cap)" if record.truncated else ""))
    return "\n".join(lines)


def _turn_records(cs, players, seed, game_index, policies, rules, engine):
    """One game's turns for the per-turn curves: harvest VP, mana, cards crafted and
    whether the player spoiled (the fast engine's trace gives the same records)."""
    if engine == "fast":
        from .fast.api import play_game_fast as play
    else:
        from .reference.search import play_reference as play
    t = _records.turns_frame(play(cs, players, seed, game_index, policies, rules))
    t["crafted"] = t["bought"].map(len)
    t["spoil"] = (t["spoiled"] | t["spoiled_in_prep"]).astype(float)
    return t


def _lazy(module: str, name: str):
    """A hook whose module (``module``, relative to this package) is imported on first use."""
    def hook(*args, **kw):
        import importlib
        return getattr(importlib.import_module(module, __name__), name)(*args, **kw)
    hook.__name__ = name
    return hook


def _strength(name):
    """A hook of the card-strength study (``strength.py``)."""
    return _lazy(".strength", name)


GAME = Game(
    name="mystic-vale",
    title="Mystic Vale",
    package=__name__,
    default_card_set="core",
    bundled_card_sets=_bundled_card_sets,
    load_card_set=_load_card_set,
    validate_playable=_cards.validate_playable,
    presets=tuple(_policy.PRESETS),
    default_policy=_policy.DEFAULT_POLICY,
    get_policy=_policy.get_policy,
    check_policies=_policy.check_policies,
    rules_class=Rules,
    play_reference=_play_reference,
    results_frame=_records.results_frame,
    run_fast=_run_fast,
    run_outcomes=_run_outcomes,
    bench_skeleton=__name__ + ".skeleton:play",
    event_column="spoils",
    players=(2, 3, 4),
    base_columns=BASE_COLUMNS,
    fast_module=__name__ + ".fast.api",
    warm_up=_warm_up,
    card_set_facts=_card_set_facts,
    format_result=_format_result,
    user_errors=(_cards.CardSetError, _policy.PolicyError),
    golden_module=__name__ + ".golden",
    turn_records=_turn_records,
    score_trace=_lazy(".shape", "score_trace"),
    turn_measures=(("vp", "vp_gained", True, None), ("mana", "mana", False, None),
                   ("crafted", "crafted", True, None),
                   ("spoiled_turn_share", "spoil", False, (0.0, 1.0))),
    describe_cards=_lazy(".commands.cards", "describe_cards"),
    format_log=_lazy(".commands.cards", "marked_log"),
    export_cards=_lazy(".commands.cards", "export_cards"),
    strength_arms=_strength("strength_arms"),
    strength_cards=_strength("strength_cards"),
    strength_acquired=_strength("strength_acquired"),
    strength_column=_strength("strength_column"),
    strength_observations=_strength("card_observations"),
    strength_observation_frame=_strength("observation_frame"),
    report=__name__ + ".report",
    studies=(
        CARDS,
        Study("pool_sizes", command="pools", parser=__name__ + ".commands.pools",
              schema=_S + "pool_sizes_schema", check=_S + "check_pool_sizes",
              run=_S + "run_pool_sizes", estimate=_S + "estimate_pool_sizes",
              engine=_S + "engine_used", doc="VP pool size by player count"),
        Study("spoil_odds", command="spoil-odds", parser=__name__ + ".commands.spoil_odds",
              schema=_S + "spoil_odds_schema", check=_S + "check_spoil_odds",
              run=_S + "run_spoil_odds", estimate=_S + "estimate_spoil_odds",
              engine=_S + "engine_used",
              doc="exact spoil odds of decks, with a reference-engine simulation check"),
        GOLDEN,
        Study("advancement_value", command="advancements", parser="vale_sim.commands.advancements",
              schema=_S + "advancement_value_schema", check=_S + "check_advancement_value",
              run=_S + "run_advancement_value", estimate=_S + "estimate_advancement_value",
              engine=_S + "engine_used",
              doc="observational and paired values of every card, with flags"),
        OPTIMIZE,
        EXPLOIT,
        META,
        TRAIN,
        STRATEGY,
        Study("report", command=REPORT.command, parser=REPORT.parser, schema=REPORT.schema,
              check=REPORT.check, run=REPORT.run, engine=_S + "engine_used", doc=REPORT.doc),
        Study("bench --spoil", command="bench --spoil", parser=__name__ + ".commands.bench",
              main=__name__ + ".commands.bench:run_spoil"),
        Study("bench --search", command="bench --search", parser=__name__ + ".commands.bench",
              main=__name__ + ".commands.bench:run_search"),
        Study("bench --profile", command="bench --profile", parser=__name__ + ".commands.bench",
              main=__name__ + ".commands.bench:run_profile"),
    ),
    search_space=_policy.search_space,
    edit_card=_cards.apply_edit,
    estimate_bounds=_cards.estimate_bounds,
    strategy=__name__ + ".strategy",
    workbench=__name__ + ".workbench",
    # the strongest bundled field: every "strongest bots" default reads it
    # (vale_sim.strong_field.field_of; docs/meta.md)
    strong_field="value-{P}p",
    # the strongest field before it: the second field that settles its verdicts
    settle_field="meta-{P}p",
)
