"""vale-sim: Monte Carlo balance and strategy toolkit for Mystic Vale.

Quick start::

    import vale_sim
    cs = vale_sim.load_card_set("core")
    game = vale_sim.play_game(cs, players=3, seed=5)      # reference engine
    game.turns_frame()                                     # per-turn DataFrame
    game.results_frame()                                   # final scores
"""
__version__ = "0.1.0"

__all__ = ["load_card_set", "play_game", "Policy", "Rules", "PRESETS", "__version__"]


def __getattr__(name):
    # Lazy: `import vale_sim` stays cheap (no numba/pandas import).
    if name == "load_card_set":
        from vale_sim.games.mystic_vale.cards import load_card_set
        return load_card_set
    if name == "play_game":
        from vale_sim.games.mystic_vale.reference.game import play_game
        return play_game
    if name in ("Policy", "PRESETS"):
        from vale_sim.games.mystic_vale import policy
        return getattr(policy, name)
    if name == "Rules":
        from vale_sim.games.mystic_vale.rules import Rules
        return Rules
    raise AttributeError(f"module 'vale_sim' has no attribute {name!r}")
