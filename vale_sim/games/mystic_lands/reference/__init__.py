"""The readable Mystic Lands reference engine (docs/mystic-lands-engine-spec.md)."""
from .game import MysticLandsGame, play_reference

__all__ = ["MysticLandsGame", "play_reference"]
