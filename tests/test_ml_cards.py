"""Mystic Lands components as data: the bundled set, the map, the curves and
one-line errors naming file, item and fix."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from vale_sim.games.mystic_lands import cards as C

DATA = Path(C.__file__).parent / "data"
SET_TEXT = (DATA / "mystic-lands.toml").read_text()


@pytest.fixture(scope="module")
def cs():
    return C.load_card_set()


def test_starting_deck_is_the_manuals(cs):
    counts = {s.name: s.count for s in cs.starting}
    assert counts == {"Arid Land": 8, "Fertile Land": 2, "Wild Land": 2, "Sacred Land": 1,
                      "Druid": 1}
    assert all(s.source_of("count") == "manual" for s in cs.starting)
    assert len(cs.starting_deck()) == 14
    assert [s.name for s in cs.starting if s.druid] == ["Druid"]


def test_named_cards_are_in_the_set(cs):
    for name in ("Ent Guardian", "Sequoia Forest", "Hibiscus Dryad", "Mangrove Forest",
                 "Sun Parrot", "Sun Priestess", "Turtle Nesting Ground"):
        assert cs.advances[cs.advance_id(name)].effects, name
    for name in ("Grasping Vines", "Great Table", "Satyr Home", "Sunlight Valley", "Spirit Cave"):
        cs.vale_id(name)
    cave = cs.vales[cs.vale_id("Spirit Cave")]
    assert cave.cost == 5 and cave.source_of("cost") == "manual"
    assert cs.vales[cs.vale_id("Great Table")].effects[0].timing == "night_or_day"


def test_estimated_costs_follow_the_curves():
    """In the pre-refit set.  The bundled set is its refit: it differs from it only in the
    numbers the refit edited (tests/test_ml_refit.py), which are off the curves."""
    cs = C.load_card_set("mystic-lands-unfitted")
    for a in cs.advances:
        if a.level and a.source_of("cost") == "estimate":
            assert a.cost == C.advance_curve_cost(a.icons, a.end_vp, a.effects), a.name
    for v in cs.vales:
        if v.source_of("cost") == "estimate":
            assert v.cost == C.vale_curve_cost(v.level, v.rows, v.effects), v.name


def test_effects_are_integer_codes(cs):
    for a in cs.advances:
        for e in a.effects:
            code = e.code()
            assert all(isinstance(x, int) for x in code)
            assert C.KINDS[code[1]] == e.kind and C.TIMINGS[code[0]] == e.timing


def test_gateway_vale_map(cs):
    m = cs.map
    assert m.name == "Gateway Vale" and m.spaces[m.start].kind == "start"
    assert len(m.of_kind("I")) == 4 and len(m.of_kind("II")) == 3 and len(m.of_kind("small")) == 2
    for i, s in enumerate(m.spaces):               # links are symmetric
        assert all(i in m.spaces[j].links for j in s.links)


def test_digest_and_describe(cs):
    assert cs.digest() == C.load_card_set(DATA / "mystic-lands.toml").digest()
    text = "\n".join(C.describe(cs))
    assert "Sun Parrot" in text and "Gateway Vale" in text
    counts = C.provenance_counts(cs)
    assert f"manual {counts['manual']}" in text and counts["manual"] >= 6


def test_provenance_numbers_in_the_cards_doc(cs):
    """docs/mystic-lands-components.md quotes what `describe` prints."""
    counts = C.provenance_counts(cs)
    doc = " ".join((Path(__file__).parents[1] / "docs" / "mystic-lands-components.md").read_text().split())
    assert ", ".join(f"{s} {n}" for s, n in counts.items()) in doc


def write(tmp_path, text, name="set.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def load_error(tmp_path, text) -> str:
    with pytest.raises(C.CardSetError) as e:
        C.load_card_set(write(tmp_path, text))
    msg = str(e.value)
    assert "\n" not in msg and "set.toml" in msg
    return msg


@pytest.mark.parametrize("old,new,expect", [
    ('position = "top-fg"\ncloud = 1', 'position = "top-front"\ncloud = 1', "'position'"),
    ('copies = 4\nposition = "top-fg"\ncloud = 1', 'copies = 4\nposition = "top-fg"\nclowd = 1',
     "did you mean 'cloud'"),
    ('timing = "dusk", kind = "to_ondeck"', 'timing = "day", kind = "to_ondeck"',
     "to_ondeck cannot have timing 'day'"),
    ('name = "Meadow"', 'name = "Morning Mist"', "duplicate name"),
    ('count = 8', 'count = "eight"', "must be an integer"),
    ('druid = true', 'druid = false', "exactly one Druid card"),
    ('map = "gateway-vale"', 'map = "nowhere"', "unknown map"),
    ('cost = 5\nrows', 'cost = 5\nrowz', "unknown field"),
    ('kind = "refresh" }]\ntext = "Day: refresh one of your Activation cubes (it may share squares with opponents\' cubes)."\n\n[[advance]]\nname = "Sun',
     'kind = "refresh", amount = 2 }]\ntext = "x"\n\n[[advance]]\nname = "Sun',
     "refresh takes no amount"),
    ('kind = "convert", pay = "mana", cost = 3, resource = "vp"',
     'kind = "convert", pay = "mana", cost = 0, resource = "vp"', "repeats for ever"),
])
def test_one_line_errors(tmp_path, old, new, expect):
    assert old in SET_TEXT, old
    msg = load_error(tmp_path, SET_TEXT.replace(old, new, 1))
    assert expect in msg


def test_map_errors(tmp_path):
    base = (DATA / "maps" / "gateway-vale.toml").read_text()
    cases = [(base.replace('links = ["I-2", "I-3"]', 'links = ["I-2", "I-9"]'), "unknown space 'I-9'"),
             (base.replace('links = ["II-3", "shrine"]', 'links = ["II-3"]'),
              "space 'shrine', field 'links': not connected to the start"),
             (base.replace('kind = "start"', 'kind = "I"'), "0 starting spaces"),
             (base.replace('id = "I-3"\nkind = "I"', 'id = "I-3"\nkind = "I"\ncost = 2'),
              "only small spaces have cost")]
    for text, expect in cases:
        p = write(tmp_path, text, "map.toml")
        with pytest.raises(C.CardSetError) as e:
            C.load_map(p)
        assert expect in str(e.value) and "map.toml" in str(e.value) and "\n" not in str(e.value)


def test_validate_playable(cs, tmp_path):
    for n in (2, 3, 4):
        C.validate_playable(cs, n)
    few = re.sub(r'\[\[druid\]\]\nname = "Druid of (Tides|Stones|Blossoms|Skies)".*?(?=\n\[\[)',
                 "", SET_TEXT, flags=re.S)
    small = C.load_card_set(write(tmp_path, few))
    C.validate_playable(small, 2)
    with pytest.raises(C.CardSetError, match="cannot deal 2 to each of 4 players"):
        C.validate_playable(small, 4)
    with pytest.raises(C.CardSetError, match="plays 2-4"):
        C.validate_playable(cs, 5)


def test_unknown_names_suggest(cs):
    with pytest.raises(KeyError, match="did you mean 'Sun Parrot'"):
        cs.advance_id("Sun Parot")
