"""The ``slow`` / ``compiled`` markers of tests/conftest.py: the table names real
tests and registered markers, and the check that an unmarked test does not run a
numba kernel really fails such a test (docs/testing.md, "Markers and targets")."""
import ast
import sys
import types
from pathlib import Path

import pytest

import conftest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _registered() -> set[str]:
    import tomllib
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in cfg["addopts"]
    return {m.split(":")[0].strip() for m in cfg["markers"]}


def test_every_entry_names_a_test_module_or_function_and_a_registered_marker():
    registered = _registered()
    assert {"slow", "compiled"} <= registered
    for key, marks in conftest.MARKS.items():
        assert marks and set(marks) <= registered, key
        module, _, fn = key.partition("::")
        path = TESTS / module
        assert module.startswith("test_") and path.is_file(), f"MARKS names no module: {key}"
        if fn:
            names = {n.name for n in ast.walk(ast.parse(path.read_text()))
                     if isinstance(n, ast.FunctionDef)}
            assert fn in names, f"MARKS names no test: {key}"


def test_the_default_selection_keeps_every_test():
    """make test (and CI) runs everything: no marker expression in addopts."""
    import tomllib
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "-m" not in cfg["addopts"].split()
    make = (ROOT / "Makefile").read_text().splitlines()
    recipe = make[make.index("test: $(STAMP)") + 1]
    head = "$(BIN)/python -m pytest -q"
    assert recipe.strip().startswith(head)
    rest = recipe.strip()[len(head):].split()
    assert "-m" not in rest and "-k" not in rest and not any(w.endswith(".py") for w in rest)
    assert rest[:2] == ["-n", "2"]              # one process per core (pytest-xdist)


class _FakeItem:
    def __init__(self, compiled: bool):
        self.nodeid = "tests/test_fake.py::test_fake"
        self.stash = pytest.Stash()
        self._compiled = compiled

    def get_closest_marker(self, name):
        return object() if (name == "compiled" and self._compiled) else None


@pytest.mark.compiled
@pytest.mark.parametrize("compiled", [False, True])
def test_an_unmarked_test_that_runs_a_kernel_fails(compiled):
    """A kernel of a vale_sim module getting machine code during a test fails the test
    unless it is marked compiled; a test that runs no kernel passes either way."""
    from numba import njit
    probe = types.ModuleType("vale_sim._marker_probe")
    exec("def add_one(x):\n    return x + 1\n", probe.__dict__)
    probe.add_one = njit(probe.add_one)
    sys.modules[probe.__name__] = probe
    try:
        for runs_kernel in (False, True):
            item = _FakeItem(compiled)
            conftest.pytest_runtest_setup(item)
            call = conftest.pytest_runtest_call(item)
            next(call)
            if runs_kernel:
                assert probe.add_one(1) == 2
            if runs_kernel and not compiled:
                with pytest.raises(pytest.fail.Exception, match="not marked 'compiled'"):
                    call.send(None)
            else:
                with pytest.raises(StopIteration):
                    call.send(None)
    finally:
        sys.modules.pop(probe.__name__, None)
        conftest._DISPATCHERS.pop(probe.__name__, None)
