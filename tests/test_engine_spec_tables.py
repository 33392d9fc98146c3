"""The table "Where each rule lives" of each engine spec (docs/engine-spec.md §9,
docs/mystic-lands-engine-spec.md §11): every function it names exists in its
engine, and each rule's tag is cited (``spec <tag>``) in the code of at least one
listed function of the reference engine and one of the fast engine -- one tag
scheme per game, used by both engines.
"""
from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
SPECS = {
    "mystic-vale": ("engine-spec.md", "## 9. Where each rule lives",
                    "vale_sim.games.mystic_vale.reference.game",
                    "vale_sim.games.mystic_vale.fast.engine"),
    "mystic-lands": ("mystic-lands-engine-spec.md", "## §11 Where each rule lives",
                     "vale_sim.games.mystic_lands.reference.game",
                     "vale_sim.games.mystic_lands.fast.engine"),
}


def table_rows(text: str, heading: str) -> list[tuple[str, list[str], list[str]]]:
    """(tag, reference names, fast names) of each row of the table under ``heading``."""
    assert heading in text, f"no section {heading!r}"
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("tag", "") or set(cells[0]) <= set("-"):
            continue
        names = [re.findall(r"`([\w.]+)`", c) for c in cells[2:]]
        rows.append((cells[0], names[0], names[1]))
    return rows


def resolve(module, dotted: str):
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part)              # AttributeError: the name does not exist
    return getattr(obj, "py_func", obj)       # a numba dispatcher: its Python function


def cites(fn, tag: str) -> bool:
    return re.search(r"\bspec\s+" + re.escape(tag) + r"(?!\.?\d)", inspect.getsource(fn),
                     re.IGNORECASE) is not None


CASES = [(game, row) for game, (doc, heading, _, _) in SPECS.items()
         for row in table_rows((DOCS / doc).read_text(), heading)]


def test_every_spec_has_a_table_with_rows():
    for game, (doc, heading, _, _) in SPECS.items():
        rows = table_rows((DOCS / doc).read_text(), heading)
        assert len(rows) >= 15, (game, len(rows))
        tags = [t for t, _, _ in rows]
        assert len(tags) == len(set(tags)), f"{doc}: a tag has two rows"
        assert all(r and f for _, r, f in rows), f"{doc}: a row names no function of an engine"


@pytest.mark.parametrize("game, row", CASES, ids=[f"{g}:{r[0]}" for g, r in CASES])
def test_every_name_exists_and_both_engines_cite_the_tag(game, row):
    _, _, ref_mod, fast_mod = SPECS[game]
    tag, ref_names, fast_names = row
    for mod_name, names in ((ref_mod, ref_names), (fast_mod, fast_names)):
        module = importlib.import_module(mod_name)
        fns = []
        for name in names:
            try:
                fns.append(resolve(module, name))
            except AttributeError:
                pytest.fail(f"{game} {tag}: {mod_name} has no {name}")
        assert any(cites(f, tag) for f in fns), (
            f"{game} {tag}: none of {names} in {mod_name} cites 'spec {tag}'")


def test_the_check_sees_a_missing_name_and_a_missing_tag():
    rows = table_rows("## T\n| tag | rule | ref | fast |\n|---|---|---|---|\n"
                      "| §9.9 | x | `MysticValeGame.nowhere` | `take_turn` |\n", "## T")
    assert rows == [("§9.9", ["MysticValeGame.nowhere"], ["take_turn"])]
    module = importlib.import_module(SPECS["mystic-vale"][2])
    with pytest.raises(AttributeError):
        resolve(module, "MysticValeGame.nowhere")
    fast = importlib.import_module(SPECS["mystic-vale"][3])
    assert not cites(resolve(fast, "take_turn"), "§9.9")
    assert not cites(resolve(fast, "take_turn"), "§4")        # §4.1 is not §4
