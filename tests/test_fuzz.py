"""Fuzz: mutated card, policy and experiment files never give a traceback.

Hypothesis takes a valid file, mutates it (a value's type or range, a missing or
unknown key, the encoding, the size) and runs commands on it in-process through
``vale_sim.cli.main``.  Every command must either succeed (exit 0) or fail the
way a user mistake fails: exit status 2 and exactly one line on stderr.  Game
counts are tiny and the number of examples bounded, so this runs in CI.
"""
import random
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vale_sim.cli import main

PKG = Path(__file__).resolve().parents[1] / "vale_sim" / "games" / "mystic_vale"
import os
SCALE = int(os.environ.get("VALE_SIM_FUZZ_SCALE", "1"))     # more examples when hunting bugs
SETTINGS = dict(deadline=None, derandomize=SCALE == 1, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


# ---------------------------------------------------------------------------
# A small TOML writer for the shapes these files use
# ---------------------------------------------------------------------------
def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if v == v and abs(v) != float("inf") else ("nan" if v != v else
                                                                  ("inf" if v > 0 else "-inf"))
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else _value(k)


def dumps(data: dict) -> str:
    lines, tables = [], []
    for k, v in data.items():
        if isinstance(v, dict):
            tables.append(f"[{_key(k)}]\n" + "".join(f"{_key(a)} = {_value(b)}\n"
                                                     for a, b in v.items()))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                tables.append(f"[[{_key(k)}]]\n" + "".join(f"{_key(a)} = {_value(b)}\n"
                                                           for a, b in item.items()))
        else:
            lines.append(f"{_key(k)} = {_value(v)}")
    return "\n".join(lines) + "\n\n" + "\n".join(tables)


# ---------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------
EDGE_INTS = [0, -1, 1, 2, 3, 7, 1000, 10**6, 10**6 + 1, -(10**6) - 1, 2**31, 2**63 - 1,
             -(2**63)]
values = st.one_of(
    st.sampled_from(EDGE_INTS),
    st.integers(min_value=-50, max_value=200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(["", "balanced", "none", "Woodland Warden", "spirit_to_wild", "2",
                     "advancement", "x" * 300]),
    st.lists(st.integers(min_value=-3, max_value=50), max_size=4),
    st.just({}),
)


def _paths(data, prefix=()):
    """Every (path, value) of a parsed TOML document, down to scalars."""
    for k, v in (data.items() if isinstance(data, dict) else enumerate(data)):
        p = prefix + (k,)
        yield p
        if isinstance(v, (dict, list)) and v:
            yield from _paths(v, p)


def _get(data, path):
    for k in path:
        data = data[k]
    return data


@st.composite
def mutated(draw, text: str):
    """A mutated copy of the TOML document ``text``, as bytes."""
    data = tomllib.loads(text)
    kind = draw(st.sampled_from(["value", "value", "value", "delete", "add", "bytes", "size"]))
    if kind in ("value", "delete"):
        paths = list(_paths(data))
        path = draw(st.sampled_from(paths))
        parent = _get(data, path[:-1])
        if kind == "delete":
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(values)
        return dumps(data).encode()
    if kind == "add":
        key = draw(st.sampled_from(["gamez", "w_manna", "unknown", "study", "name", "base"]))
        data[key] = draw(values)
        return dumps(data).encode()
    raw = text.encode()
    if kind == "bytes":
        how = draw(st.sampled_from(["latin1", "utf16", "ff", "nul", "truncate", "empty"]))
        at = draw(st.integers(min_value=0, max_value=len(raw)))
        return {"latin1": raw[:at] + "é".encode("latin-1") + raw[at:],
                "utf16": text.encode("utf-16"),
                "ff": raw[:at] + b"\xff\xfe" + raw[at:],
                "nul": raw[:at] + b"\x00" + raw[at:],
                "truncate": raw[:at],
                "empty": b""}[how]
    times = draw(st.sampled_from([2, 3, 50]))
    return raw * times


OUTCOMES: dict = {}


def assert_clean(capsys, argv):
    rc = main(argv)
    OUTCOMES[(argv[0], rc)] = OUTCOMES.get((argv[0], rc), 0) + 1
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip() and "warning:" not in ln]
    assert "Traceback" not in err, (argv, err)
    assert rc in (0, 2), (argv, rc, err)
    if rc == 2:
        assert len(lines) == 1, (argv, err)


# ---------------------------------------------------------------------------
# The three kinds of file
# ---------------------------------------------------------------------------
POLICY = (PKG / "policies" / "warden-rush.toml").read_text()


@settings(max_examples=80 * SCALE, **SETTINGS)
@given(blob=mutated(POLICY))
def test_fuzz_policy_files(tmp_path, capsys, blob):
    f = tmp_path / "fuzzed.toml"
    f.write_bytes(blob)
    assert_clean(capsys, ["simulate", "--games", "2", "--summary-only", "--no-progress",
                          "--policy", str(f)])
    assert_clean(capsys, ["play", "--players", "2", "--policy", str(f), "--json"])


EXPERIMENTS = {
    "tournament": 'study = "tournament"\npolicies = ["balanced", "greedy"]\ngames = 4\n'
                  'players = 2\nworkers = 1\n[rules]\nmax_rounds = 60\n',
    "pool_sizes": 'study = "pool_sizes"\nplayers = [2, 3]\npools = "20:30:5"\ngames = 4\n'
                  'target = "equal-length"\n',
    "advancement_value": 'study = "advancement_value"\ngames = 4\ntolerance = 0.05\n'
                         'explore_permille = 300\ncards = ["Woodland Warden"]\n',
    "spoil_odds": 'study = "spoil_odds"\ndecks = ["starter"]\npushes = 3\ngames = 10\n',
}


@settings(max_examples=100 * SCALE, **SETTINGS)
@given(name=st.sampled_from(sorted(EXPERIMENTS)), data=st.data())
def test_fuzz_experiment_files(tmp_path, capsys, name, data):
    blob = data.draw(mutated(EXPERIMENTS[name]))
    f = tmp_path / f"{name}.toml"
    f.write_bytes(blob)
    assert_clean(capsys, ["run", "--check", str(f)])


CARDS = (PKG / "data" / "core.toml").read_text()


@settings(max_examples=60 * SCALE, **SETTINGS)
@given(blob=mutated(CARDS))
def test_fuzz_card_files(tmp_path, capsys, blob):
    f = tmp_path / "fuzzed.toml"
    f.write_bytes(blob)
    assert_clean(capsys, ["cards", "--set", str(f)])
    assert_clean(capsys, ["simulate", "--games", "2", "--summary-only", "--no-progress",
                          "--set", str(f)])


def test_the_writer_round_trips_the_base_files():
    for text in [POLICY, CARDS, *EXPERIMENTS.values()]:
        assert tomllib.loads(dumps(tomllib.loads(text))) == tomllib.loads(text)
