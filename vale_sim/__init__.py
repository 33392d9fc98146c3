"""vale-sim: Monte Carlo balance and strategy toolkit for deck-building card games.
Each game lives in ``vale_sim/games/<game>/`` behind :class:`vale_sim.games.Game`
(the registry: ``vale_sim.games.GAMES``); the analysis layers beside them are
shared (docs/architecture.md).

Quick start::

    import vale_sim
    cs = vale_sim.load_card_set("core")
    game = vale_sim.play_game(cs, players=3, seed=5)      # reference engine
    game.turns_frame()                                     # per-turn DataFrame
    game.results_frame()                                   # final scores

``load_card_set``, ``play_game`` and ``rules`` take ``game=`` (default: the
registry's default game); ``Policy``, ``PRESETS`` and ``Rules`` are the default
game's (kept for old notebooks; new code asks the Game: ``get_game().rules_class``).
"""
__version__ = "0.1.0"

__all__ = ["load_card_set", "play_game", "rules", "get_game", "Policy", "Rules", "PRESETS",
           "__version__"]


def get_game(game=None):
    """The :class:`~vale_sim.games.Game` called ``game``."""
    from .games import DEFAULT_GAME, get_game as _get
    return _get(DEFAULT_GAME if game is None else game)


def load_card_set(spec=None, game=None):
    """A card set of ``game``: a bundled name (default: the game's), a file or a loaded set."""
    g = get_game(game)
    return g.load_card_set(g.default_card_set if spec is None else spec)


def play_game(cs=None, players: int = 2, seed: int = 0, game_index: int = 0, policies=None,
              rules=None, game=None):
    """Game ``game_index`` of master seed ``seed`` with the reference engine of ``game``."""
    g = get_game(game)
    cs = load_card_set(cs, g)
    pols = [g.get_policy(p) for p in ([policies] if isinstance(policies, str) or
                                      (policies is not None and not isinstance(policies, (list, tuple)))
                                      else (policies or [g.default_policy]))]
    from .mixture import lineup_for_game          # a mixed field: its drawn members
    pols = lineup_for_game(pols * players if len(pols) == 1 else pols, seed, game_index)
    return g.play_reference(cs, players, seed, game_index, pols, rules or g.rules_class())


def rules(game=None, **options):
    """The rule options of ``game`` (its ``rules_class``; no options: the manual's game)."""
    return get_game(game).rules_class(**options)


def __getattr__(name):
    # Lazy: `import vale_sim` stays cheap (no numba/pandas import).
    if name in ("Policy", "PRESETS"):
        return getattr(importlib_module(get_game().package + ".policy"), name)
    if name == "Rules":
        return get_game().rules_class
    raise AttributeError(f"module 'vale_sim' has no attribute {name!r}")


def importlib_module(name):
    import importlib
    return importlib.import_module(name)
