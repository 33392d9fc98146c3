"""The reference engine: plain, readable Python following the rulebook.

Public API: :func:`vale_sim.reference.game.play_game`.
"""
