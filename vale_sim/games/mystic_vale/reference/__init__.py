"""The readable Mystic Vale reference engine (docs/engine-spec.md)."""
from .game import MysticValeGame, play_reference

__all__ = ["MysticValeGame", "play_reference"]
