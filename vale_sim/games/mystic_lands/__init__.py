"""Mystic Lands behind the game interface (:class:`vale_sim.games.base.Game`).

The package follows the template of docs/architecture.md ("One template for
every game"): card sets (``cards``, ``data/``), policies (``policy``,
``policies/``), rule options (``rules``), records and the results frame
(``records``), the readable reference engine (``reference/``), the numba fast
engine (``fast/``), golden games (``golden``) and the Mystic Lands studies
(``wither/``).  Text for the CLI: ``render_play(record)`` (the ``play``
command's lines) and ``cards.describe(cs)`` (``cards``).

Importing this package imports neither numba nor pandas: the engines load on
first use, so without numba the reference engine still plays.
"""
from __future__ import annotations

from ..base import SEATS_NOTE, Game
from vale_sim.study import (CARDS, EXPLOIT, GOLDEN, META, OPTIMIZE, REPORT, STRATEGY, TRAIN,
                             Study)
from . import cards, policy, records, rules
from .cards import bundled_card_sets, describe, load_card_set, validate_playable
from .policy import DEFAULT_POLICY, check_policies, get_policy, presets
from .records import results_frame
from .reference.search import play_reference      # search players too (docs/search.md)
from .rules import Rules


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
    """Compile (or load from numba's cache) the kernels in this process."""
    from .fast.api import warm_up
    warm_up()


def describe_cards(cs, as_json: bool = False):
    """What ``vale-sim cards --game mystic-lands`` prints: readable lines, or
    (``as_json``) every card with each number's value and source."""
    if not as_json:
        return cards.describe(cs)
    counts = cards.provenance_counts(cs)
    total = sum(counts.values())
    out = []
    for kind, items in (("starting", cs.starting), ("advance", cs.advances), ("vale", cs.vales)):
        for c in items:
            out.append({"type": kind, "name": c.name, "source": c.source,
                        "numbers": {f: {"value": _number(c, f), "source": src}
                                    for f, src in c.numbers().items()}})
    return {"game": "mystic-lands", "card_set": cs.name, "digest": cs.digest(),
            "map": cs.map.name, "numbers": total, "numbers_by_source": counts,
            "estimated_numbers": counts.get("estimate", 0),
            "estimated_share": counts.get("estimate", 0) / total if total else 0.0,
            "cards": out}


def _number(card, f):
    """The value of number ``f`` of a card (icons live in ``card.icons``)."""
    if hasattr(card, f):
        return _jsonable(getattr(card, f))
    return _jsonable(getattr(card.icons, f))


def _jsonable(v):
    import dataclasses
    if dataclasses.is_dataclass(v):
        return dataclasses.asdict(v)
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    return v


def format_result(record) -> str:
    """The score table under ``vale-sim play --game mystic-lands``'s log."""
    return "\n".join(render_play(record)[len(record.log) + 1:])


def render_play(record, cs=None, as_json: bool = False):
    """What ``vale-sim play --game mystic-lands`` prints: the turn-by-turn log and
    a score table (a list of lines), or the record as a JSON-ready dict (``as_json``)."""
    if as_json:
        return record.to_dict()
    lines = list(record.log) + ["", SEATS_NOTE,
                                f"{'player':>6} {'seat':>4} {'policy':<12} {'track':>5} "
                                f"{'bonus':>5} {'adv VP':>6} {'vale VP':>7} {'effects':>7} "
                                f"{'total':>5} {'withers':>7} {'win':>5}"]
    for r in record.results:         # seats as text counts them: the record's seat + 1
        lines.append(f"{'P%d' % r.player:>6} {r.seat + 1:>4} {r.policy:<12} {r.track_vp:>5} "
                     f"{r.bonus_vp:>5} {r.adv_vp:>6} {r.vale_vp:>7} {r.effect_vp:>7} "
                     f"{r.score:>5} {r.withers:>7} {r.win_share:>5.2f}")
    lines.append(f"{record.rounds} rounds" + (" (stopped at the round cap)" if record.truncated
                                              else ""))
    return lines


def _shape_trace(*args, **kw):
    """``Game.score_trace``: the VP track after every turn (shape.py, imported on use)."""
    from .shape import score_trace
    return score_trace(*args, **kw)


def _strength_arms(card: str, baseline):
    """Card strength (vale_sim.advancements): "prefer X" = the baseline with a first
    buy rule ``card = X`` (and X out of its ``never`` list, if there); "ban X" = the
    baseline with X in ``never``."""
    from dataclasses import replace
    base = get_policy(baseline)
    prefer = replace(base, name=f"{base.name}:prefer:{card}",
                     rules=(policy.BuyRule("card", card),) + tuple(base.rules),
                     never=tuple(c for c in base.never if c != card))
    ban = replace(base, name=f"{base.name}:ban:{card}",
                  never=tuple(base.never) + (() if card in base.never else (card,)))
    return prefer, ban


def _strength_cards(cs) -> list:
    """(name, kind, level, results-frame column) of every level 1/2 Advance and Vale."""
    return ([(a.name, "advance", a.level, f"buy:{a.name}") for a in cs.advances if a.level]
            + [(v.name, "vale", v.level, f"vale:{v.name}") for v in cs.vales])


def _open_numbers(cs):
    """The draft manual's open numbers (draft.py; ``vale-sim balance --draft``)."""
    from .draft import open_numbers
    return open_numbers(cs)


GAME = Game(
    name="mystic-lands",
    title="Mystic Lands",
    package=__name__,
    default_card_set=cards.DEFAULT_SET,
    bundled_card_sets=bundled_card_sets,
    load_card_set=load_card_set,
    validate_playable=validate_playable,
    presets=presets(),
    default_policy=DEFAULT_POLICY,
    get_policy=get_policy,
    check_policies=check_policies,
    rules_class=Rules,
    play_reference=play_reference,
    results_frame=results_frame,
    run_fast=_run_fast,
    run_outcomes=_run_outcomes,
    fast_module=__name__ + ".fast.api",
    warm_up=_warm_up,
    event_column="withers",
    players=(2, 3, 4),
    format_result=format_result,
    user_errors=(cards.CardSetError, policy.PolicyError, ValueError),
    describe_cards=describe_cards,
    golden_module=__name__ + ".golden",
    score_trace=_shape_trace,
    # the settings studies of studies/ (docs/mystic-lands-studies.md), the report,
    # card strengths, the card listing and the wither odds
    studies=tuple(Study(n, command=n.replace("_", "-"), parser=f"{__name__}.commands.{n}",
                        schema=f"{__name__}.studies.experiments:{n}_schema",
                        check=f"{__name__}.studies.experiments:check",
                        run=f"{__name__}.studies.experiments:run",
                        engine=f"{__name__}.studies.experiments:engine_used", varies_rules=True)
                  for n in ("seat_compensation", "end_trigger", "market_growth", "wither_rain"))
    + (Study("report", command=REPORT.command, parser=REPORT.parser, schema=REPORT.schema,
             check=REPORT.check, run=REPORT.run,
             engine=f"{__name__}.studies.experiments:engine_used", doc=REPORT.doc),
       Study("advancement_value", command="advancements", parser="vale_sim.commands.advancements"),
       CARDS,
       Study("wither_odds", command="wither-odds", parser=f"{__name__}.commands.wither_odds"),
       OPTIMIZE, EXPLOIT, META, TRAIN, STRATEGY, GOLDEN,
       Study("bench --search", command="bench --search", parser=__name__ + ".commands.bench",
             main=__name__ + ".commands.bench:run_search")),
    report=__name__ + ".studies.report",
    card_set_facts=lambda cs: {"sources": cards.provenance_counts(cs)},
    strength_arms=_strength_arms,
    strength_cards=_strength_cards,
    search_space=policy.search_space,
    edit_card=cards.apply_edit,
    strategy=__name__ + ".strategy",
    workbench=__name__ + ".workbench",
    open_numbers=_open_numbers,
    # the strongest bundled field: every "strongest bots" default reads it
    # (vale_sim.strong_field.field_of; docs/meta.md "Mystic Lands: value players in the
    # population": the value players, their scalar fields tuned by a meta run)
    strong_field="value-{P}p",
    # the strongest field before it: the second field that settles its verdicts
    settle_field="meta-{P}p",
)

__all__ = ["GAME", "render_play", "describe", "cards", "policy", "records", "rules"]
