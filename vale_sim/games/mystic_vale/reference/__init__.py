"""The reference engine: plain, readable Python following the rulebook.

Public API: :func:`vale_sim.games.mystic_vale.reference.game.play_game`.
"""
