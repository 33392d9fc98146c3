"""The games vale-sim plays, each behind the :class:`~vale_sim.games.base.Game`
interface.  ``get_game(name)`` imports a game only when it is asked for."""
from __future__ import annotations

import importlib

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
    return importlib.import_module(GAMES[game]).GAME


__all__ = ["Game", "GAMES", "DEFAULT_GAME", "RESULT_COLUMNS", "get_game"]
