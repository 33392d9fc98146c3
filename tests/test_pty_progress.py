"""Every long command with its progress bar shown, under a real pseudo-terminal (issue 41).

``vale-sim meta`` crashed on every terminal (``bool()`` of a tqdm with no total, right
after the payoff matrix) while the suite, without a terminal, never drew a bar.  Here
each command that can show progress runs briefly (tiny counts) in a subprocess whose
stdin, stdout and stderr are the slave side of ``os.openpty()`` -- ``sys.stderr.isatty()``
is true, as in a user's shell -- and must exit 0, print no traceback and actually draw
its progress (a line redrawn in place with a carriage return).  The commands with
``--progress`` also run with stderr on a pipe and that option.  ``report --quick`` is
left out (2-3 minutes on the loaded CI machine); its bars are the same ``tqdm.auto``
helper as the settings studies' (``end-trigger``, ``seat-compensation``), run here.
"""
from __future__ import annotations

import errno
import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.compiled, pytest.mark.slow]      # subprocesses play the engines

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 600                        # seconds: a hung command fails the test, not the suite
ML = ["--game", "mystic-lands"]
TQDM = r"\[\d\d:\d\d"                # tqdm's elapsed time, e.g. "[00:01<00:02, 3.1game/s]"

# (id, argv, what the drawn progress must contain: a regular expression)
COMMANDS = [
    ("meta", ["meta", "--players", "2", "--population", "balanced,greedy", "--iterations", "1",
              "--budget", "60", "--deals", "2", "--matrix-deals", "2", "--validate-deals", "2",
              "--select-deals", "0", "--bootstrap", "0", "--popsize", "3"], TQDM),
    ("meta-ml", ["meta", *ML, "--players", "2", "--population", "balanced,rain-dancer",
                 "--iterations", "1", "--budget", "60", "--deals", "2", "--matrix-deals", "2",
                 "--validate-deals", "2", "--select-deals", "0", "--bootstrap", "0",
                 "--popsize", "3"], TQDM),
    ("optimize", ["optimize", "--players", "2", "--budget", "200", "--deals", "2",
                  "--popsize", "3", "--hall", "1", "--validate-deals", "2",
                  "--out", "o.toml"], TQDM),
    ("exploit", ["exploit", "--policy", "greedy", "--players", "2", "--budget", "60",
                 "--deals", "2", "--validate-deals", "2", "--select-deals", "0",
                 "--popsize", "3"], TQDM),
    ("simulate", ["simulate", "--games", "300"], TQDM),
    ("simulate-ml", ["simulate", *ML, "--games", "100"], TQDM),
    ("what-if", ["what-if", "--edit", "Podlings.cost=+1", "--cards", "Podlings",
                 "--games", "20"], TQDM),
    ("curve", ["curve", "--card", "Podlings", "--number", "cost", "--values", "1..3",
               "--games", "20"], TQDM),
    ("curve-ml", ["curve", *ML, "--card", "Meadow", "--number", "cost", "--values", "1..2",
                  "--games", "8"], TQDM),
    ("balance", ["balance", "--cards", "Podlings", "--fields", "cost", "--games", "20",
                 "--confirm-games", "20", "--budget", "200"], r"balance: [\d,]+ search"),
    ("advancements", ["advancements", "--cards", "Podlings", "--games", "20", "--only",
                      "strength"], r"\[\d/1\] Podlings"),
    ("strategy", ["strategy", "--games", "2", "--deals", "2"], TQDM),
    ("pools", ["pools", "--players", "2", "--pools", "23", "--games", "10"], TQDM),
    ("luck", ["luck", "--players", "2", "--deals", "40", "--bootstrap", "20"], TQDM),
    ("wither-odds", ["wither-odds", *ML, "--simulate", "--games", "300"], TQDM),
    ("seat-compensation", ["seat-compensation", *ML, "--players", "2", "--deals", "4"], TQDM),
    ("bench-spoil", ["bench", "--spoil", "--decks", "2"], TQDM),
    ("train", ["train", "--players", "2", "--games", "100", "--iterations", "1",
               "--eval-deals", "4", "--out", "v.json"], TQDM),
    ("end-trigger", ["end-trigger", *ML, "--players", "2", "--end-vp", "20", "--end-cubes", "",
                     "--end-bonus", "", "--deals", "2"], TQDM),
    # no progress bar (short, or one line per result): they must still run on a terminal
    ("tournament", ["tournament", "--policies", "balanced,greedy", "--games", "20"], None),
    ("spoil-odds-simulate", ["spoil-odds", "--simulate", "--games", "200"], None),
    ("bench", ["bench", "--games", "20", "--repeats", "1", "--reference-games", "2"], None),
    ("play-ml", ["play", *ML], None),
]
# --progress draws the bar when stderr is not a terminal (a pipe here)
WITH_PROGRESS_OPTION = ("meta", "optimize", "exploit", "train")


def _env(tmp_path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100", LINES="30", TERM="xterm")
    env.pop("CI", None)                  # nothing of the command depends on it
    return env


def run_in_pty(argv, cwd) -> tuple[int, str]:
    """``python -m vale_sim ARGV`` with stdin, stdout and stderr on a pseudo-terminal
    (100 columns; output post-processing off, so a newline is not turned into "\\r\\n");
    (exit status, everything it wrote)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    proc = subprocess.Popen([sys.executable, "-m", "vale_sim", *argv], stdin=slave,
                            stdout=slave, stderr=slave, cwd=cwd, env=_env(cwd),
                            start_new_session=True)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + TIMEOUT
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError as e:             # EIO: every slave descriptor is closed
                if e.errno != errno.EIO:
                    raise
                break
            if not data:
                break
            chunks.append(data)
        else:
            proc.kill()
            pytest.fail(f"{' '.join(argv)} did not finish within {TIMEOUT} s under a terminal")
        rc = proc.wait(timeout=60)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return rc, b"".join(chunks).decode("utf-8", "replace")


def _drawn(out: str, marker: str) -> bool:
    """A progress line redrawn in place (a carriage return not ending a line) that
    shows ``marker``."""
    return any(re.search(marker, part) for part in re.split(r"\r(?!\n)", out)[1:])


@pytest.mark.parametrize("argv, marker", [c[1:] for c in COMMANDS],
                         ids=[c[0] for c in COMMANDS])
def test_a_long_command_draws_its_progress_under_a_terminal(argv, marker, tmp_path):
    rc, out = run_in_pty(argv, tmp_path)
    tail = out[-3000:]
    assert "Traceback" not in out, tail
    assert rc == 0, tail
    if marker is not None:
        assert _drawn(out, marker), f"no progress drawn under a terminal:\n{tail}"


@pytest.mark.parametrize("argv, marker", [c[1:] for c in COMMANDS
                                          if c[0] in WITH_PROGRESS_OPTION],
                         ids=[c[0] for c in COMMANDS if c[0] in WITH_PROGRESS_OPTION])
def test_progress_on_a_pipe(argv, marker, tmp_path):
    r = subprocess.run([sys.executable, "-m", "vale_sim", *argv, "--progress"], cwd=tmp_path,
                       env=_env(tmp_path), capture_output=True, timeout=TIMEOUT,
                       stdin=subprocess.DEVNULL)      # bytes: text mode would read "\r" as "\n"
    err = r.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err[-3000:]
    assert r.returncode == 0, err[-3000:]
    assert _drawn(err, marker), err[-3000:]


def test_bench_spoil_says_what_it_does_off_a_terminal(tmp_path):
    """bench --spoil showed nothing for a minute and a half after its first line: off a
    terminal it now names each stage as it starts (on one, a bar per stage: above)."""
    r = subprocess.run([sys.executable, "-m", "vale_sim", "bench", "--spoil", "--decks", "2"],
                       cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True,
                       timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-3000:]
    for stage in ("playing games (2)", "played decks, compiled (4)",
                  "crafted decks, compiled (2)"):
        assert f"bench --spoil: {stage}" in r.stderr, r.stderr
