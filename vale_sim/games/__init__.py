"""The games vale-sim plays, each behind the :class:`~vale_sim.games.base.Game`
interface.  ``get_game(name)`` imports a game only when it is asked for."""
from __future__ import annotations

import importlib
import sys

from .base import Game, RESULT_COLUMNS

#: --game value -> the package holding its ``GAME``.
GAMES = {
    "mystic-vale": "vale_sim.games.mystic_vale",
    "mystic-lands": "vale_sim.games.mystic_lands",
}
DEFAULT_GAME = "mystic-vale"


def get_game(game: "str | Game" = DEFAULT_GAME) -> Game:
    """The Game called ``game`` (``mystic-vale`` or ``mystic-lands``); a Game passes through."""
    if isinstance(game, Game):
        return game
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}: use one of {', '.join(GAMES)}")
    module = sys.modules.get(GAMES[game])          # imported already: no import machinery
    try:
        if module is None:
            module = importlib.import_module(GAMES[game])
    except ModuleNotFoundError as e:
        if e.name is None or not GAMES[game].startswith(e.name):
            raise                                     # a missing dependency: a real error
        raise ValueError(f"{game} is not available in this version of vale-sim "
                         f"(no package {GAMES[game]}); use --game {DEFAULT_GAME}") from None
    g = getattr(module, "GAME", None)
    if not isinstance(g, Game):
        raise ValueError(f"{GAMES[game]} defines no GAME = Game(...); "
                         f"use --game {DEFAULT_GAME}")
    return g


__all__ = ["Game", "GAMES", "DEFAULT_GAME", "RESULT_COLUMNS", "get_game"]
