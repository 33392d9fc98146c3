"""Mystic Vale behind the game interface (:class:`vale_sim.games.base.Game`).

Everything specific to Mystic Vale lives in this package: card sets
(``cards``, ``data/``), policies (``policy``, ``policies/``), rule options
(``rules``), records and the results frame (``records``), the readable reference engine
(``reference/``), the numba fast engine (``fast/``) and the Mystic Vale
studies: spoil odds (``spoil``, ``spoil_fast``, ``spoil_bench``), pool sizes
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


def _bundled_card_sets() -> dict:
    return {name: _cards.DATA_DIR / f"{name}.toml" for name in _cards.bundled_sets()}


def _play_reference(cs, players, seed, game_index=0, policies=None, rules=None):
    from .reference.game import play_reference
    return play_reference(cs, players, seed, game_index, policies, rules)


def _run_fast(cs, players, seed, n_games, policies=None, rules=None, first_game=0):
    """``Game.run_fast``: the results frame of games first_game.. from the fast engine
    (numba is imported on the first call only)."""
    from .fast.api import run_fast
    return run_fast(cs, players, seed, n_games, policies, rules, first_game=first_game)


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


def _strength_arms(card: str, baseline):
    """Card strength through the game interface (vale_sim.advancements.game_strength_run,
    used by what-if): the same arms as vale_sim.advancements.prefer_policy / ban_policy --
    "prefer X" = the baseline with a first buy rule ``card = X`` (then its own buy rules,
    or ``best advancement``, ``best vale``); "ban X" = the baseline with X in ``never``."""
    from dataclasses import replace
    base = _policy.get_policy(baseline)
    rest = base.rules or (_policy.BuyRule("best", "advancement"), _policy.BuyRule("best", "vale"))
    prefer = replace(base, name=f"{base.name}:prefer:{card}",
                     rules=(_policy.BuyRule("card", card),) + tuple(rest))
    ban = replace(base, name=f"{base.name}:ban:{card}",
                  never=tuple(base.never) + (() if card in base.never else (card,)))
    return prefer, ban


def _strength_cards(cs) -> list:
    """(name, kind, level, results-frame column) of every buyable card: commons and
    Fertile Soil advancements, and vales (as vale_sim.advancements.analysed_cards)."""
    return ([(a.name, "advancement", a.level, f"buy:{a.name}") for a in cs.advancements
             if a.supply != "starter"]
            + [(v.name, "vale", v.level, f"vale:{v.name}") for v in cs.vales])


GAME = Game(
    name="mystic-vale",
    title="Mystic Vale",
    package=__name__,
    default_card_set="core",
    bundled_card_sets=_bundled_card_sets,
    load_card_set=_cards.load_card_set,
    validate_playable=_cards.validate_playable,
    presets=tuple(_policy.PRESETS),
    default_policy=_policy.DEFAULT_POLICY,
    get_policy=_policy.get_policy,
    check_policies=_policy.check_policies,
    rules_class=Rules,
    play_reference=_play_reference,
    results_frame=_records.results_frame,
    run_fast=_run_fast,
    event_column="spoils",
    players=(2, 3, 4),
    base_columns=BASE_COLUMNS,
    fast_module=__name__ + ".fast.api",
    warm_up=_warm_up,
    card_set_facts=_card_set_facts,
    format_result=_format_result,
    user_errors=(_cards.CardSetError, _policy.PolicyError),
    golden_module=__name__ + ".golden",
    studies=("cards", "pools", "spoil-odds", "golden", "advancements", "optimize", "exploit", "meta", "report",
             "bench --spoil", "bench --profile"),
    search_space=_policy.search_space,
    strength_arms=_strength_arms,
    strength_cards=_strength_cards,
    edit_card=_cards.apply_edit,
)
