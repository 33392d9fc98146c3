"""vale-sim: Monte Carlo balance and strategy toolkit for Mystic Vale."""
__version__ = "0.1.0"
