"""The first difference between two engines' GameRecords, for the engine-comparison tests
of both games (tests/test_differential*.py, tests/test_lookahead.py, tests/test_ml_fast.py).

Works on any game's records: the game-level fields named, then every field of every
TurnRecord and every PlayerResult (dataclasses), lists and tuples compared as tuples."""
from __future__ import annotations

from dataclasses import fields


def _plain(v):
    return tuple(_plain(x) for x in v) if isinstance(v, (list, tuple)) else v


def first_difference(ref, fast, game_fields=("starting_player", "rounds", "truncated")
                     ) -> str | None:
    """'turn i (round r, player p): field f: reference x != fast y', or None if equal."""
    for key in game_fields:
        a, b = _plain(getattr(ref, key)), _plain(getattr(fast, key))
        if a != b:
            return f"game {key}: reference {a!r} != fast {b!r}"
    for i, (x, y) in enumerate(zip(ref.turns, fast.turns)):
        for f in fields(x):
            a, b = _plain(getattr(x, f.name)), _plain(getattr(y, f.name))
            if a != b:
                return (f"turn {i} (round {x.round}, player {x.player}): field {f.name}: "
                        f"reference {a!r} != fast {b!r}")
    if len(ref.turns) != len(fast.turns):
        return f"number of turns: reference {len(ref.turns)} != fast {len(fast.turns)}"
    if len(ref.results) != len(fast.results):
        return f"number of results: reference {len(ref.results)} != fast {len(fast.results)}"
    for x, y in zip(ref.results, fast.results):
        for f in fields(x):
            a, b = _plain(getattr(x, f.name)), _plain(getattr(y, f.name))
            if a != b:
                return (f"result of player {x.player}: field {f.name}: "
                        f"reference {a!r} != fast {b!r}")
    return None
