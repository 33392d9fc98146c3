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

Markers (docs/testing.md, "Markers and targets"): ``compiled`` and ``slow``, given
by ``MARKS`` below or by a module's own ``pytestmark`` / a test's decorator.  A
module in neither is fast and numba-free by default, and two checks keep that
true: a test not marked ``compiled`` that makes a vale_sim numba kernel compile
(or load from the numba cache) fails, and unmarked tests slower than
``SLOW_WARN_SECONDS`` are listed at the end of the run.
"""
import os
import sys

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
    """A seed asks for a random search: the derandomized ci profile would ignore it.
    Also registers the ``browser`` marker (tests/test_workbench_browser.py)."""
    config.addinivalue_line(
        "markers", "browser: drives vale-sim serve in headless Chromium (Playwright); skipped "
                   "without Chromium unless CI is set, where it never skips (docs/workbench.md)")
    chose = os.environ.get("HYPOTHESIS_PROFILE") or config.getoption("--hypothesis-profile")
    if config.getoption("--hypothesis-seed") is not None and not chose:
        settings.load_profile("explore")


# ---------------------------------------------------------------------------
# Markers: which tests need the numba fast engines, which are slow
# ---------------------------------------------------------------------------
# ``compiled``: needs the numba fast engines (Mystic Vale's game and spoil engines,
# Mystic Lands' engine), which compile on first use (~20-40 s each with a cold
# cache).  ``slow``: more than about 5 s (setup + call) on the project's 2-core
# machine -- judged relative to the rest of the suite, measured under load with
# ``pytest --durations=0`` (docs/testing.md).  ``make test`` runs everything;
# ``make test-fast`` runs ``-m "not slow"``.
#
# Keys: a test module's file name (every test of it) or "file::test function"
# (every parametrization of that function).  Unlisted: fast and numba-free, unless
# the module's ``pytestmark`` or the test's decorator says otherwise.
C = ("compiled",)
MARKS: dict[str, tuple[str, ...]] = {
    # compiled: modules one of whose tests ran a vale_sim kernel (found by the check
    # below, each module run alone with -m 'not compiled'); the whole module is marked.
    "test_advancements.py": C, "test_card_verdicts.py": C, "test_conformance.py": C,
    "test_differential.py": C, "test_differential_random.py": C,
    "test_disputed_rules.py": C, "test_experiments.py": C, "test_fast_engine.py": C,
    "test_fast_profile_names.py": C, "test_fast_rng.py": C, "test_fuzz.py": C,
    "test_lookahead.py": C, "test_ml_fast.py": C, "test_ml_planted.py": C,
    "test_ml_studies.py": C, "test_optimize.py": C, "test_out_folder_safety.py": C,
    "test_pools.py": C, "test_pools_paired.py": C, "test_reading_results.py": C,
    "test_report.py": C, "test_report_content.py": C, "test_robustness.py": C,
    "test_runner.py": C, "test_runner_bounded.py": C, "test_seating_balance.py": C,
    "test_spoil.py": C, "test_spoil_fast.py": C, "test_spoil_simulation.py": C,
    "test_tournament.py": C, "test_write_failures.py": C,
    "test_exploit.py": C, "test_what_if.py": C, "test_balance.py": C, "test_meta.py": C,
    "test_mixture_engines.py": C,
    "test_balance_strong.py::test_estimated_only_holds_printed_numbers_and_the_refit_keeps_source_estimate": C,
    "test_balance_strong.py::test_the_first_design_stays_available": C,
    "test_balance_strong.py::test_edits_go_the_right_way_and_never_below_the_cheapest_card": C,
    # compiled by hand: their engines run in subprocesses the check cannot see
    "test_notebooks.py": C,
    "test_workers.py::test_workers_exit_when_simulate_parent_dies": C,
    # slow (seconds measured on the loaded 2-core machine, cold numba cache, when
    # they were classified: docs/testing.md "Suite time")
    "test_notebooks.py::test_notebook_runs": ("slow",),                    # 95 s, 5 notebooks
    "test_coverage.py": ("compiled", "slow"),                              # 23 s, one fixture
    "test_spoil.py::test_exact_equals_engine_on_random_decks": ("slow",),  # 41 s
    "test_spoil.py::test_exact_equals_exhaustive_engine": ("slow",),       # 14 s, 4 decks
    "test_ml_studies.py::test_the_mystic_lands_report_and_the_index": ("slow",),        # 35 s
    "test_bt_coverage.py::test_real_3_player_tournament_intervals_cover": ("compiled", "slow"),  # 14 s
    "test_optimize.py::test_workers_do_not_change_the_answer": ("slow",),               # 12 s
    "test_optimize.py::test_resume_equals_an_uninterrupted_run": ("slow",),             # 9 s
    "test_optimize.py::test_a_dask_scheduler_does_not_change_the_answer": ("slow",),    # 7 s
    "test_optimize.py::test_cli_outputs_and_policy_round_trip": ("slow",),              # 5 s
    "test_ml_planted.py::test_planted_big_compensation_lifts_its_seat_and_is_not_recommended":
        ("slow",),                                                                      # 8 s
    "test_ml_planted.py::test_market_growth_says_when_the_level2_supply_is_bought_out":
        ("slow",),                                                                      # 8 s
    "test_ml_planted.py::test_no_rain_supply_means_more_withers_per_turn": ("slow",),   # 7 s
    "test_seat_confirmation.py::"
    "test_a_change_needs_the_manual_shown_unfair_and_the_other_confirmed_fair": ("slow",),  # 6 s
    "test_fuzz.py::test_fuzz_policy_files": ("slow",),                                  # 6 s
    "test_advancements.py::test_flag_stability_scaled_down": ("slow",),                 # 6 s
    "test_runner_bounded.py::test_every_worker_leaving_mid_run_is_one_line": ("slow",), # 6 s
    "test_pools_paired.py::test_paired_se_matches_the_spread_over_replications": ("slow",),  # 5 s
    "test_workbench_api.py::test_a_small_what_if_runs_to_its_numbers_and_two_tabs_keep_their_own":
        ("slow",),                                                                      # 15 s
    "test_workbench_browser.py::test_a_small_what_if_runs_to_completion_and_its_number_is_on_the_page":
        ("slow",),                                                                      # 6 s
    "test_workbench_browser.py::test_two_tabs_keep_their_own_table_and_run": ("slow",),  # 28 s
    "test_workbench_browser.py::test_a_cards_row_opens_its_price_curve": ("slow",),      # 12 s
    "test_workbench_curve.py::test_a_cards_row_has_its_curve_and_the_run_draws_it": ("slow",),  # 11 s
    "test_workbench_api.py::test_a_what_if_with_a_rule_edit_plays_the_rule": ("slow",),  # 19 s
    "test_workbench_api.py::test_a_workspace_flood_never_drops_a_workspace_with_a_live_run":
        ("slow",),                                                                      # 6 s
    "test_workbench_browser.py::test_a_page_of_another_origin_cannot_change_the_workbench":
        ("slow",),                                                                      # 10-16 s
}
SLOW_WARN_SECONDS = 15.0


def _marks_for(item) -> tuple[str, ...]:
    name = item.path.name
    fn = getattr(item, "originalname", None) or item.name.split("[")[0]
    return MARKS.get(name, ()) + MARKS.get(f"{name}::{fn}", ())


def pytest_collection_modifyitems(config, items):
    for item in items:
        for mark in _marks_for(item):
            item.add_marker(mark)


_DISPATCHERS: dict = {}              # module name -> its module-level numba dispatchers
_OVERLOADS = pytest.StashKey[int]()


def kernel_overloads() -> int:
    """How many machine-code versions the module-level numba kernels of vale_sim's
    modules hold in this process (compiled or loaded from the cache)."""
    if "numba" not in sys.modules:
        return 0
    from numba.core.dispatcher import Dispatcher
    n = 0
    for name, mod in list(sys.modules.items()):
        if not name.startswith("vale_sim") or mod is None:
            continue
        found = _DISPATCHERS.get(name)
        if found is None:
            found = _DISPATCHERS[name] = [v for v in list(vars(mod).values())
                                          if isinstance(v, Dispatcher)]
        n += sum(len(d.overloads) for d in found)
    return n


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.stash[_OVERLOADS] = kernel_overloads()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    before = item.stash.get(_OVERLOADS, None)
    if before is not None and item.get_closest_marker("compiled") is None \
            and kernel_overloads() > before:
        pytest.fail(f"{item.nodeid} ran a numba kernel of vale_sim for the first time in "
                    "this process but is not marked 'compiled': add it to MARKS in "
                    "tests/conftest.py (or give it pytestmark = pytest.mark.compiled)",
                    pytrace=False)
    return result


_UNMARKED_SLOW: list = []                      # (seconds, node id)


def pytest_runtest_logreport(report):
    if report.when == "call" and report.duration > SLOW_WARN_SECONDS \
            and "slow" not in report.keywords:
        _UNMARKED_SLOW.append((report.duration, report.nodeid))


def pytest_terminal_summary(terminalreporter):
    if _UNMARKED_SLOW:
        terminalreporter.write_sep("-", f"not marked slow, over {SLOW_WARN_SECONDS:.0f} s")
        for d, nodeid in sorted(_UNMARKED_SLOW, reverse=True):
            terminalreporter.write_line(f"{d:7.1f} s  {nodeid}")


def pytest_report_header(config):
    return f"hypothesis profile {settings.get_current_profile_name()!r} (tests/conftest.py)"


@pytest.fixture(autouse=True)
def no_open_figures():
    """Fail a test that leaves a matplotlib figure open (pyplot keeps every figure it
    made until it is closed: the package closes each one it saves, ``vale_sim.io.
    save_figure``, and makes report-only figures outside pyplot).  The figures are
    closed, so one leak does not fail the tests after it."""
    plt = sys.modules.get("matplotlib.pyplot")
    before = set(plt.get_fignums()) if plt is not None else set()
    yield
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    left = sorted(set(plt.get_fignums()) - before)
    if left:
        labels = [plt.figure(n).get_label() or f"figure {n}" for n in left]
        for n in left:
            plt.close(n)
        pytest.fail(f"{len(left)} matplotlib figure(s) left open ({', '.join(labels)}): close "
                    "each figure after saving it (vale_sim.io.save_figure closes it; in a "
                    "test, plt.close(fig))", pytrace=False)


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


@pytest.fixture
def rps(monkeypatch):
    """The toy rock-paper-scissors game (tests/rps_game.py) registered as ``--game rps``."""
    import rps_game
    from vale_sim import games as games_mod
    monkeypatch.setitem(sys.modules, "rps_game", rps_game)
    monkeypatch.setitem(games_mod.GAMES, "rps", "rps_game")
    return rps_game.GAME


@pytest.fixture(scope="session")
def experiment_script():
    """``load(name)``: a fresh module of ``experiments/<name>.py`` (the scripts are not a
    package)."""
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent / "experiments"

    def load(name: str):
        spec = importlib.util.spec_from_file_location(f"{name}_script", root / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    return load
