"""Mystic Lands behind the game interface (vale_sim/games/base.py).

Components as data (``cards``), rule options (``rules``), policies
(``policy``), records and the results frame (``records``), the reference
engine (``reference``).  Text for the CLI: ``render_play(record)`` (the
``play`` command's lines) and ``cards.describe(cs)`` (``cards``).
"""
from __future__ import annotations

from ..base import Game
from . import cards, policy, records, rules
from .cards import bundled_card_sets, describe, load_card_set, validate_playable
from .policy import DEFAULT_POLICY, check_policies, get_policy, presets
from .records import results_frame
from .reference import play_reference
from .rules import Rules


def render_play(record, cs=None, as_json: bool = False):
    """What ``vale-sim play --game mystic-lands`` prints: the log lines, or the
    record as a JSON-ready dict (``as_json``)."""
    if as_json:
        return record.to_dict()
    return list(record.log)


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
    run_fast=None,
    event_column="withers",
    players=(2, 3, 4),
)

__all__ = ["GAME", "render_play", "describe", "cards", "policy", "records", "rules"]
