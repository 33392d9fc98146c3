"""Helpers shared by the tests of user mistakes and write failures (tests/test_write_failures.py,
tests/test_workers.py, tests/test_policy.py, tests/test_experiments.py,
tests/test_runner_bounded.py): a mistake ends as ONE line on stderr, exit status 2,
and no temporary file is left behind."""
from __future__ import annotations

from pathlib import Path


def one_line_error(capsys, rc, *names):
    """rc is 2 and stderr is one line, no traceback, naming each of ``names``."""
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for n in names:
        assert str(n) in lines[0], lines[0]
    return lines[0]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(".tmp"))
