"""Fixtures shared by the test modules, and the Hypothesis profiles.

Hypothesis profiles (docs/testing.md):

* ``ci`` (the default, what ``make test`` and ``.ci/run`` use): derandomized --
  every run draws the same examples (seeded from each test function), no
  example database, a fixed budget of ``CI_EXAMPLES`` examples for tests that
  do not pin their own ``max_examples``.  CI passes or fails by the code, not by
  luck.
* ``explore``: a fresh random search each run, failing examples saved to and
  replayed from ``.hypothesis/``, ``HYPOTHESIS_MAX_EXAMPLES`` examples (default
  ``EXPLORE_EXAMPLES``) for tests that do not pin theirs.  Chosen by
  ``HYPOTHESIS_PROFILE=explore`` or ``--hypothesis-profile=explore``; a
  ``--hypothesis-seed`` (ignored by a derandomized profile) selects it too.
"""
import os

import pytest
from hypothesis import HealthCheck, settings

CI_EXAMPLES = 60
EXPLORE_EXAMPLES = 1000
_COMMON = dict(deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])

settings.register_profile("ci", derandomize=True, database=None, max_examples=CI_EXAMPLES,
                          **_COMMON)
settings.register_profile(
    "explore", derandomize=False,
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", EXPLORE_EXAMPLES)), **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    """A seed asks for a random search: the derandomized ci profile would ignore it."""
    chose = os.environ.get("HYPOTHESIS_PROFILE") or config.getoption("--hypothesis-profile")
    if config.getoption("--hypothesis-seed") is not None and not chose:
        settings.load_profile("explore")


def pytest_report_header(config):
    return f"hypothesis profile {settings.get_current_profile_name()!r} (tests/conftest.py)"


@pytest.fixture
def no_games(monkeypatch):
    """Fail the test if any game is played (a check must come before the games)."""
    from vale_sim import runner

    def boom(*a, **k):
        raise AssertionError("a game was played")
    for name in ("run_chunk", "summary_chunk"):          # where every game is played
        monkeypatch.setattr(runner, name, boom)


@pytest.fixture
def no_analyses(monkeypatch, no_games):
    """Also fail if an analysis starts (a check must come before it)."""
    def boom(*a, **k):
        raise AssertionError("an analysis started")
    from vale_sim import advancements, tournament
    from vale_sim.games.mystic_vale import pools
    monkeypatch.setattr(pools, "simulate_pools", boom)
    monkeypatch.setattr(tournament, "tournament", boom)
    monkeypatch.setattr(advancements, "advancement_report", boom)
