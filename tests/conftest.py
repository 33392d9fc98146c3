"""Fixtures shared by the test modules."""
import pytest


@pytest.fixture
def no_games(monkeypatch):
    """Fail the test if any game is played (a check must come before the games)."""
    from vale_sim import runner

    def boom(*a, **k):
        raise AssertionError("a game was played")
    for name in ("run_chunk", "summary_chunk"):          # where every game is played
        monkeypatch.setattr(runner, name, boom)
