"""Both engines reproduce the golden playthroughs in tests/golden/.

On a difference the assertion shows the first differing line; to accept an
intended change run `vale-sim golden --regenerate` and review `git diff tests/golden`.
"""
from __future__ import annotations

import pytest

from vale_sim.games.mystic_vale import golden


def first_difference(expected: list[str], actual: list[str]) -> str:
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e != a:
            return f"line {i + 1}:\n  golden: {e}\n  now:    {a}"
    return f"lengths differ: golden {len(expected)} lines, now {len(actual)}"


@pytest.mark.parametrize("case", golden.CASES, ids=lambda c: c.name)
def test_reference_engine_reproduces_golden(case):
    path = golden.GOLDEN_DIR / f"{case.name}.txt"
    expected = path.read_text().splitlines()
    actual = golden.render(case, golden.play_case(case, "reference")).splitlines()
    assert expected == actual, first_difference(expected, actual)


@pytest.mark.parametrize("case", golden.CASES, ids=lambda c: c.name)
def test_fast_engine_reproduces_golden(case):
    path = golden.GOLDEN_DIR / f"{case.name}.txt"
    expected = golden.record_section(path.read_text())
    actual = golden.record_lines(golden.play_case(case, "fast"))
    assert expected == actual, first_difference(expected, actual)
