"""What the toy games of the tests share: the record and results frame of a game
with one row per player, policies as frozen dataclasses with presets (and the
policy files vale-sim optimize, exploit and meta write), a card set of one
name, and registering a game for one test.  Each toy game keeps only its own
rules, engine and hooks: tests/pig.py (push-your-luck dice), tests/rps_game.py
(biased rock-paper-scissors) and the dice duel of tests/test_exploit.py.

    GAME = toy_game(name="dice", title="Dice duel", package="tests_dice_game",
                    card_set=Dice(), presets=PRESETS, default_policy="max",
                    policy_class=DicePolicy, rules_class=DiceRules, play=play,
                    players=(2, 3), search_space=space)
    def test_x(monkeypatch): register(monkeypatch, GAME)
"""
from __future__ import annotations

import dataclasses
import sys
import types
from dataclasses import dataclass, field

import pandas as pd

from vale_sim.games import Game


@dataclass
class ToyRecord:
    """A game's record: its index, one result per player (:func:`seat_results`),
    readable log lines, turns, rounds and whether the round cap cut it short."""
    game_index: int
    results: list
    log: list = field(default_factory=list)
    turns: list = field(default_factory=list)
    rounds: int = 1
    truncated: bool = False

    def to_dict(self) -> dict:
        return {"game": self.game_index, "rounds": self.rounds, "truncated": self.truncated,
                "results": [vars(r) for r in self.results]}


def seat_results(policies, start: int, scores, win_shares, busts=None) -> list:
    """One result per player: its seat counted from the starting player ``start``,
    its policy's name, score, win share and bad turns (``busts``, default 0)."""
    n = len(policies)
    busts = busts if busts is not None else [0] * n
    return [types.SimpleNamespace(player=p, seat=(p - start) % n, policy=policies[p].name,
                                  score=scores[p], busts=busts[p], win_share=win_shares[p])
            for p in range(n)]


def shared_wins(scores) -> list:
    """Win shares: the players with the highest score share the win equally."""
    best = max(scores)
    k = sum(s == best for s in scores)
    return [1.0 / k if s == best else 0.0 for s in scores]


def toy_frame(records, cs) -> pd.DataFrame:
    """The per-game, per-player results frame (``Game.results_frame``) of ToyRecords."""
    return pd.DataFrame([{"game": g.game_index, "player": r.player, "seat": r.seat,
                          "policy": r.policy, "score": r.score, "win_share": r.win_share,
                          "rounds": g.rounds, "truncated": g.truncated, "busts": r.busts}
                         for g in records for r in g.results])


def policy_getter(presets: dict, policy_class, default: str):
    """``get_policy(spec)`` of a toy game: a policy passes through, a preset name gives
    the preset (looked up in ``presets`` when called: a test may patch it), a ``.toml``
    file the policy its ``base`` (default ``default``) gives with the file's fields
    over it; anything else (or a file that does not parse) is a one-line ValueError."""
    names = [f.name for f in dataclasses.fields(policy_class)]

    def get_policy(spec):
        if isinstance(spec, policy_class):
            return spec
        if spec in presets:
            return presets[spec]
        if isinstance(spec, str) and spec.endswith(".toml"):
            import tomllib
            try:
                with open(spec, "rb") as f:
                    data = tomllib.load(f)
            except (OSError, tomllib.TOMLDecodeError) as e:
                raise ValueError(f"{spec}: not a readable policy file ({e})") from None
            base = get_policy(data.get("base", default))
            return dataclasses.replace(base, **{k: data[k] for k in names if k in data})
        raise ValueError(f"unknown policy {spec!r}: use one of {', '.join(presets)}")
    return get_policy


def _words(counts) -> str:
    counts = [str(c) for c in counts]
    return counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + " or " + counts[-1]


def toy_game(*, name: str, title: str, package: str, card_set, presets: dict,
             default_policy: str, rules_class, play, players: tuple, policy_class=None,
             get_policy=None, **hooks) -> Game:
    """A :class:`~vale_sim.games.base.Game` of one card set (``card_set``, with
    ``.name``), reference engine only (``play``: ``play_reference``), results as
    :func:`toy_frame` of ToyRecords, bad turns in column ``busts``; policies from
    ``get_policy`` (default :func:`policy_getter` of ``presets`` and ``policy_class``).
    ``hooks``: any other field of Game (``search_space``, ``studies``, ...)."""
    get_policy = get_policy or policy_getter(presets, policy_class, default_policy)

    def load_card_set(spec):
        if isinstance(spec, type(card_set)):
            return spec
        if spec == card_set.name:
            return card_set
        raise ValueError(f"{spec}: unknown card set; use {card_set.name}")

    def validate_playable(cs, n):
        if n not in players:
            raise ValueError(f"{cs.name}: {n} players is not supported (use {_words(players)} "
                             f"players)")

    return Game(name=name, title=title, package=package, default_card_set=card_set.name,
                bundled_card_sets=lambda: {card_set.name: None}, load_card_set=load_card_set,
                validate_playable=validate_playable, presets=tuple(presets),
                default_policy=default_policy, get_policy=get_policy,
                check_policies=lambda cs, pols: [get_policy(p) for p in pols],
                rules_class=rules_class, play_reference=play, results_frame=toy_frame,
                run_fast=None, event_column="busts", players=tuple(players), **hooks)


def register(monkeypatch, game: Game, module=None) -> Game:
    """Register ``game`` as ``--game <name>`` for one test (the registry and
    sys.modules, undone after): ``module`` is its package (default a module holding
    just ``GAME``)."""
    from vale_sim import games as games_mod
    if module is None:
        module = types.ModuleType(game.package)
        module.GAME = game
    monkeypatch.setitem(sys.modules, game.package, module)
    monkeypatch.setitem(games_mod.GAMES, game.name, game.package)
    return game
