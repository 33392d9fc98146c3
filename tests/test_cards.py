"""Card sets as data: bundled sets, validation errors, CSV round trip, `vale-sim cards`."""
from __future__ import annotations

import dataclasses
import json
import textwrap

import pytest

from vale_sim.games.mystic_vale import cards as C
from vale_sim.games.mystic_vale.cards import (CardSetError, card_set_to_csv, load_card_set,
                            validate_playable)
from vale_sim.cli import main

CORE = load_card_set("core")


def adv(cs, name):
    return cs.advancements[cs.advancement_id(name)]


def vale(cs, name):
    return cs.vales[cs.vale_id(name)]


# ---------------------------------------------------------------- bundled sets
def test_core_counts():
    assert [CORE.copies("advancement", lv) for lv in (1, 2, 3)] == [33, 30, 33]
    assert sum(CORE.advancements[i].copies for i in CORE.fertile()) == 18
    assert [CORE.copies("vale", lv) for lv in (1, 2)] == [18, 18]
    counts = {s.name: s.count for s in CORE.starting_cards}
    assert sum(counts.values()) == 20
    assert counts["Cursed Land"] == 9 and counts["Blank"] == 8
    assert sum(n for k, n in counts.items() if k.startswith("Fertile Soil")) == 3
    for players in (2, 3, 4):
        validate_playable(CORE, players)


def test_starting_deck_order_and_content():
    for name in ("starter", "core"):
        cs = load_card_set(name)
        deck = cs.starting_deck()
        assert len(deck) == 20
        cl = cs.advancement_id("Cursed Land")
        assert deck[:9] == [(cl, -1, -1)] * 9
        fs = [cs.advancement_id(f"Fertile Soil ({p})") for p in C.POSITIONS]
        assert deck[9:12] == [(fs[0], -1, -1), (-1, fs[1], -1), (-1, -1, fs[2])]
        assert deck[12:] == [(-1, -1, -1)] * 8
        a = adv(cs, "Cursed Land")
        assert (a.decay, a.mana, a.position, a.supply) == (1, 1, 0, "starter")
        # 1 decay and no spirits: rulebook; 1 mana: reviews; the top position: nowhere found
        assert [a.source_of(f) for f in ("decay", "sky", "mana", "position")] == [
            "rulebook", "rulebook", "review", "estimate"]
        for i in fs:
            f = cs.advancements[i]
            assert (f.cost, f.mana, f.copies, f.supply, f.level) == (2, 1, 6, "fertile", 0)
            # cost 2: rulebook; 1 mana, one print per position, 6 of each: a fan implementation
            assert [f.source_of(k) for k in ("cost", "mana", "position", "copies")] == [
                "rulebook", "review", "review", "review"]
        starting = {s.name: s.source_of("count") for s in cs.starting_cards}
        assert starting == {"Cursed Land": "rulebook", "Fertile Soil (top)": "review",
                            "Fertile Soil (middle)": "review",
                            "Fertile Soil (bottom)": "review", "Blank": "rulebook"}


def test_starter_has_no_commons_or_vales():
    st = load_card_set("starter")
    assert not st.vales and all(a.supply != "commons" for a in st.advancements)
    with pytest.raises(CardSetError):
        validate_playable(st, 2)


def test_bundled_load_is_cached():
    assert load_card_set("core") is load_card_set("core")
    assert load_card_set(CORE) is CORE
    assert CORE.path.endswith("core.toml")


RULEBOOK_FACTS = {
    # name: {field: value}  (symbols not listed and printed by the rulebook examples are 0)
    "Stag": dict(guardian=2, animal=1, decay=1, mana=0, forest=0, sky=0, wild=0, growth=0,
                 position=2, ability="none"),
    "Dawnsinger": dict(guardian=1, sky=1, mana=0, animal=0, forest=0, wild=0, decay=0,
                       growth=0, ability="harvest_mana_per_guardian", amount=1, position=1),
    "Gaia's Chosen": dict(guardian=0, mana=0, animal=0, forest=0, sky=0, wild=0, decay=0,
                          growth=0, end_vp=2, ability="endgame_vp_per_symbol", amount=1,
                          position=0),
    "Lifebringer Seed": dict(position=1, ability="ongoing_no_decay", guardian=0, mana=0,
                             animal=0, forest=0, sky=0, wild=0, decay=0, growth=0),
    "Feral Chieftain": dict(guardian=1, ability="harvest_vp_per_guardian", amount=1, position=0),
    "Woodland Warden": dict(guardian=1, ability="harvest_vp_per_guardian", amount=2, position=1),
    "Grovetender": dict(guardian=0, ability="ongoing_growth_per_guardian", amount=1, position=0),
    "Seedling": dict(position=1, ability="ongoing_max_one_decay"),
    "Hulking Thornhide": dict(position=2, decay=1),
    "Magic Seed": dict(ability="harvest_mana_per_other_card", amount=1),
    "Aurora": dict(ability="harvest_vp_per_cards", amount=2),
    "Podlings": dict(cost=2),
    "Earthchant Chorus": dict(ability="discount_same_card", amount=2),
    "Grassland": dict(ability="harvest_mana_penalty", amount=1),
    "Peacekeeper Druid": dict(ability="prevent_spoil"),
    "Calm Weather": dict(ability="when_played_peek"),
    "Cleansing Rain": dict(ability="when_played_search_deck"),
    "Deadwood Harvester": dict(ability="when_played_discard_field"),
    "Mindful Owl": dict(ability="when_played_discard_field"),
}


@pytest.mark.parametrize("name", sorted(RULEBOOK_FACTS))
def test_rulebook_advancements(name):
    a = adv(CORE, name)
    for field_, want in RULEBOOK_FACTS[name].items():
        assert getattr(a, field_) == want, (name, field_)
    assert a.supply == "commons" and a.level in (1, 2, 3)
    assert a.source == "estimate" and "rulebook" in a.note and "estimated" in a.note


def test_grassland_has_compensating_symbols():
    assert adv(CORE, "Grassland").spirits + adv(CORE, "Grassland").mana >= 2


def test_gaia_rulebook_examples():
    # RB Gaia's Chosen: with Stag and Dawnsinger 6 VP, with Stag and Lifebringer Seed 4 VP.
    for others, want in ((("Stag", "Dawnsinger"), 6), (("Stag", "Lifebringer Seed"), 4)):
        assert sum(adv(CORE, n).symbol_count for n in others) == want
    # The three cards fit on one sleeve.
    assert {adv(CORE, n).position for n in ("Gaia's Chosen", "Stag", "Dawnsinger")} == {0, 1, 2}


FAN_COSTS = {  # (animal, forest, sky, wild)
    "Azure Lake": (1, 1, 0, 0), "Blooming Arbor": (0, 1, 1, 0), "Cascading Falls": (2, 0, 0, 0),
    "Ley Line Nexus": (0, 1, 1, 0), "Radiant Pinnacle": (0, 0, 2, 0),
    "Sunstone Aerie": (1, 0, 1, 0), "Talonthorn Den": (0, 2, 0, 0), "Exodus Road": (1, 0, 1, 0),
    "World Tree": (1, 1, 0, 0), "Ancient Liferoots": (0, 3, 1, 0),
    "Conclave of Ents": (1, 1, 1, 1), "Feral Grove": (1, 1, 1, 1), "Pool of Light": (1, 0, 2, 0),
    "Stream of Vigor": (2, 1, 0, 0), "Blessed Savanna": (4, 0, 0, 0),
    "Fungal Forest": (0, 1, 2, 0), "Heartwood Sanctuary": (1, 2, 0, 0),
    "Shimmering Brook": (0, 0, 4, 0), "Skyhaven": (2, 0, 1, 0), "Verdant Valley": (3, 1, 1, 0),
    "Webwood Canopy": (0, 4, 0, 0), "Wellspring Glade": (2, 2, 2, 0),
}
VALE_ABILITY = {
    "Azure Lake": ("harvest_mana", 1, ""), "Stream of Vigor": ("harvest_mana", 2, ""),
    "Cascading Falls": ("harvest_spirit", 1, "sky"),
    "Radiant Pinnacle": ("harvest_spirit", 1, "forest"),
    "Talonthorn Den": ("harvest_spirit", 1, "animal"),
    "Pool of Light": ("harvest_spirit", 1, "wild"),
    "Blooming Arbor": ("spoil_save_growth", 1, ""), "Ancient Liferoots": ("always_growth", 1, ""),
    "Conclave of Ents": ("guardian_once_per_turn", 1, ""),
    "Sunstone Aerie": ("spirit_to_wild", 2, ""),
}


@pytest.mark.parametrize("name", sorted(FAN_COSTS))
def test_vales(name):
    v = vale(CORE, name)
    assert v.cost == FAN_COSTS[name]
    assert v.source == "fan-list" and "estimate" in v.note
    kind, amount, symbol = VALE_ABILITY.get(name, ("none", 0, ""))
    assert (v.ability, v.amount, v.symbol) == (kind, amount, symbol)
    assert v.extra_buys == (1 if name == "Stream of Vigor" else 0)
    assert v.unique == (name == "Ancient Liferoots")
    assert v.end_vp == C.vale_curve_vp(v)


def test_vale_levels():
    assert {v.name for v in CORE.vales if v.level == 1} == {
        "Azure Lake", "Blooming Arbor", "Cascading Falls", "Ley Line Nexus", "Radiant Pinnacle",
        "Sunstone Aerie", "Talonthorn Den", "Exodus Road", "World Tree"}


def test_model_cards_are_named_as_model_cards():
    named = set(RULEBOOK_FACTS)
    for a in CORE.advancements:
        if a.supply != "commons" or a.name in named:
            continue
        assert a.name.startswith(f"Model L{a.level} "), a.name
        assert a.source == "estimate" and "not a printed card" in a.note
        assert not a.longwise


def _refit():
    """The bundled refit of core's estimates (docs/balance.md, "The fitted sets")."""
    from importlib.resources import files
    return json.loads(files("vale_sim.games.mystic_vale").joinpath(
        "data/balance/core-2p-estimated.json").read_text())


def test_estimated_commons_follow_the_cost_curve():
    """Before the refit (core-unfitted) every estimated commons card's cost is within
    tolerance of the curve; in core so is every card the refit did not edit.  In both,
    every commons card's level is the band its cost falls in (the refit keeps costs in
    their band)."""
    fitted = {e["card"] for e in _refit()["edits"]}
    for cs, skip in ((load_card_set("core-unfitted"), set()), (CORE, fitted)):
        for a in cs.advancements:
            if a.supply != "commons":
                continue
            assert C.level_for_cost(a.cost) == a.level, (cs.name, a.name, a.cost, a.level)
            if a.source != "estimate" or a.name in skip:
                continue
            assert abs(a.cost - C.curve_cost(a)) <= C.CURVE_TOLERANCE, (a.name, a.cost,
                                                                        C.curve_cost(a))
        for f in cs.fertile():                  # Fertile Soil sits on the curve too
            assert C.curve_cost(cs.advancements[f]) == 2


def test_core_is_core_unfitted_with_exactly_the_bundled_refit():
    """core = core-unfitted with the refit's edits: every edited number keeps the source
    estimate and its line says how it was fitted; nothing else differs."""
    from vale_sim.games import get_game
    g = get_game("mystic-vale")
    fit = _refit()
    before = load_card_set("core-unfitted")
    assert fit["card_set"] == "core-unfitted" and fit["digest"] == before.digest()
    assert fit["fitted_set"] == "core" and fit["fitted_digest"] == CORE.digest()
    assert fit["estimated_only"] and fit["edits"]
    cs = before
    for e in fit["edits"]:
        assert e["number_source"] == "estimate"
        cs, old, new = g.edit_card(cs, e["card"], e["field"], e["new"], False)
        assert old == e["old"]
    strip = lambda s: [dataclasses.replace(a, sources=()) for a in s.advancements]  # noqa: E731
    assert strip(cs) == strip(CORE) and cs.vales == CORE.vales
    text = open(CORE.path).read()
    for e in fit["edits"]:
        a = next(a for a in CORE.advancements if a.name == e["card"])
        assert dict(a.sources).get(e["field"], a.source) == "estimate"
        assert f"{e['field']} = {e['new']}  # estimate, fitted (vale-sim balance " \
               f"--estimated-only" in text


def test_harvest_vp_mostly_at_levels_2_and_3():
    hvp = {lv: sum(a.copies for i in CORE.commons(lv) for a in [CORE.advancements[i]]
                   if a.harvest_vp or a.ability == "harvest_vp_per_guardian") for lv in (1, 2, 3)}
    assert hvp[1] < hvp[2] and hvp[1] < hvp[3]
    assert all(CORE.advancements[i].end_vp == 0 or CORE.advancements[i].name == "Stag"
               for i in CORE.commons(1))


def test_unknown_name_suggests_close_matches():
    with pytest.raises(KeyError, match="Stag"):
        CORE.advancement_id("Stagg")
    with pytest.raises(KeyError, match="Azure Lake"):
        CORE.vale_id("Azure Lak")


# ---------------------------------------------------------------- validation
STARTING = textwrap.dedent('''
    [[starting_cards]]
    name = "Cursed Land"
    advancements = ["Cursed Land"]
    count = 12
    source = "rulebook"

    [[starting_cards]]
    name = "Blank"
    count = 8
    source = "rulebook"

    [[advancements]]
    name = "Cursed Land"
    level = 0
    supply = "starter"
    cost = 0
    position = "top"
    decay = 1
    mana = 1
    source = "rulebook"
''')

GOOD_ADV = '''
[[advancements]]
name = "Widget"
level = 1
cost = 3
position = "middle"
mana = 1
source = "user"
'''
GOOD_VALE = '''
[[vales]]
name = "Puddle"
level = 1
cost = {animal = 1, sky = 1}
end_vp = 1
source = "user"
'''


def write(tmp_path, text, name="bad.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_small_valid_file(tmp_path):
    cs = load_card_set(write(tmp_path, "[set]\nname = \"mini\"\n" + STARTING + GOOD_ADV + GOOD_VALE,
                             "ok.toml"))
    assert cs.name == "mini" and cs.path.endswith("ok.toml")
    w = adv(cs, "Widget")
    assert (w.copies, w.position, w.amount, w.supply) == (1, 1, 0, "commons")
    v = vale(cs, "Puddle")
    assert v.cost == (1, 0, 1, 0)
    # amount defaults per ability
    cs2 = load_card_set(write(tmp_path, STARTING + GOOD_ADV.replace(
        'source = "user"', 'ability = "harvest_vp_per_cards"\nsource = "user"'), "ok2.toml"))
    assert adv(cs2, "Widget").amount == C.DEFAULT_AMOUNT["harvest_vp_per_cards"]


BAD_CASES = [
    # (id, text, card, field, words in message)
    ("unknown ability", STARTING + GOOD_ADV.replace('mana = 1', 'ability = "fly"'),
     "Widget", "ability", "unknown ability"),
    ("vale ability on advancement", STARTING + GOOD_ADV.replace('mana = 1', 'ability = "harvest_mana"'),
     "Widget", "ability", "vale ability"),
    ("advancement ability on vale", STARTING + GOOD_VALE.replace('end_vp = 1', 'ability = "prevent_spoil"'),
     "Puddle", "ability", "advancement ability"),
    ("bad position", STARTING + GOOD_ADV.replace('"middle"', '"left"'), "Widget", "position",
     "unknown position"),
    ("negative cost", STARTING + GOOD_ADV.replace("cost = 3", "cost = -1"), "Widget", "cost",
     "negative"),
    ("negative symbol", STARTING + GOOD_ADV.replace("mana = 1", "decay = -2"), "Widget", "decay",
     "negative"),
    ("negative vale cost", STARTING + GOOD_VALE.replace("animal = 1", "animal = -1"), "Puddle",
     "cost", "negative"),
    ("duplicate advancement", STARTING + GOOD_ADV + GOOD_ADV, "Widget", "name", "duplicate"),
    ("duplicate vale", STARTING + GOOD_VALE + GOOD_VALE, "Puddle", "name", "duplicate"),
    ("duplicate across", STARTING + GOOD_ADV + GOOD_VALE.replace("Puddle", "Widget"), "Widget",
     "name", "duplicate"),
    ("missing cost", STARTING + GOOD_ADV.replace("cost = 3\n", ""), "Widget", "cost", "missing"),
    ("missing position", STARTING + GOOD_ADV.replace('position = "middle"\n', ""), "Widget",
     "position", "missing"),
    ("missing source", STARTING + GOOD_ADV.replace('source = "user"\n', ""), "Widget", "source",
     "missing"),
    ("missing level", STARTING + GOOD_ADV.replace("level = 1\n", ""), "Widget", "level", "missing"),
    ("missing name", STARTING + GOOD_ADV.replace('name = "Widget"\n', ""), "advancements #2",
     "name", "missing"),
    ("missing vale cost", STARTING + GOOD_VALE.replace("cost = {animal = 1, sky = 1}\n", ""),
     "Puddle", "cost", "missing"),
    ("cost as text", STARTING + GOOD_ADV.replace("cost = 3", 'cost = "two"'), "Widget", "cost",
     "wrong type"),
    ("bool as int", STARTING + GOOD_ADV.replace("mana = 1", "mana = true"), "Widget", "mana",
     "wrong type"),
    ("int as bool", STARTING + GOOD_ADV.replace("mana = 1", "longwise = 1"), "Widget", "longwise",
     "wrong type"),
    ("bad source", STARTING + GOOD_ADV.replace('"user"', '"boardgamegeek"'), "Widget", "source",
     "unknown source"),
    ("unknown field", STARTING + GOOD_ADV.replace("cost = 3", "cost = 3\ncots = 3"), "Widget",
     "cots", "unknown field"),
    ("harvest_spirit without symbol",
     STARTING + GOOD_VALE.replace("end_vp = 1", 'ability = "harvest_spirit"'), "Puddle", "symbol",
     "symbol"),
    ("harvest_spirit bad symbol",
     STARTING + GOOD_VALE.replace("end_vp = 1", 'ability = "harvest_spirit"\nsymbol = "fire"'),
     "Puddle", "symbol", "symbol"),
    ("copies zero", STARTING + GOOD_ADV.replace("level = 1", "level = 1\ncopies = 0"), "Widget",
     "copies", "copies"),
    ("bad level", STARTING + GOOD_ADV.replace("level = 1", "level = 4"), "Widget", "level",
     "bad level"),
    ("bad vale level", STARTING + GOOD_VALE.replace("level = 1", "level = 3"), "Puddle", "level",
     "bad level"),
    ("fertile level", STARTING + GOOD_ADV.replace("level = 1", 'level = 1\nsupply = "fertile"'),
     "Widget", "level", "bad level"),
    ("unknown supply", STARTING + GOOD_ADV.replace("level = 1", 'level = 1\nsupply = "shop"'),
     "Widget", "supply", "unknown supply"),
    ("impossible deck", STARTING.replace("count = 12", "count = 11") + GOOD_ADV, None,
     "starting_cards", "impossible deck"),
    ("unknown starting advancement",
     STARTING.replace('advancements = ["Cursed Land"]', 'advancements = ["Cursed Lands"]'),
     "Cursed Land", "advancements", "unknown advancement"),
    ("two on one position",
     STARTING.replace('advancements = ["Cursed Land"]', 'advancements = ["Cursed Land", "Widget"]')
     + GOOD_ADV.replace('"middle"', '"top"'), "Cursed Land", "advancements", "top position"),
]


@pytest.mark.parametrize("text,card,field_,words", [c[1:] for c in BAD_CASES],
                         ids=[c[0] for c in BAD_CASES])
def test_validation_errors(tmp_path, text, card, field_, words):
    p = write(tmp_path, text)
    with pytest.raises(CardSetError) as ei:
        load_card_set(p)
    e = ei.value
    msg = str(e)
    assert "\n" not in msg
    assert str(p) in msg and e.file == str(p)
    assert e.card == card
    if card is not None:
        assert repr(card) in msg
    assert e.field == field_ and repr(field_) in msg
    assert words in msg
    assert "(" in msg          # a fix is given


def test_invalid_toml_and_missing_file(tmp_path):
    p = write(tmp_path, "[[advancements]]\nname = \"x\nlevel = 1\n")
    with pytest.raises(CardSetError, match="not valid TOML.*line"):
        load_card_set(p)
    with pytest.raises(CardSetError, match="file not found"):
        load_card_set(tmp_path / "nope.toml")
    with pytest.raises(CardSetError, match="did you mean 'core'"):
        load_card_set("cor")


def test_validate_playable(tmp_path):
    small = dataclasses.replace(CORE, vales=tuple(v for v in CORE.vales if v.level == 2))
    with pytest.raises(CardSetError, match="level 1 vale"):
        validate_playable(small, 2)
    few = dataclasses.replace(CORE, advancements=tuple(
        a for a in CORE.advancements if a.level != 1 or a.name in ("Podlings", "Stag")))
    with pytest.raises(CardSetError, match="level 1 advancement"):
        validate_playable(few, 2)
    no3 = dataclasses.replace(CORE, advancements=tuple(a for a in CORE.advancements if a.level != 3))
    with pytest.raises(CardSetError, match="level 3"):
        validate_playable(no3, 4)


# ---------------------------------------------------------------- CSV
def content(cs):
    return (cs.name, cs.description, cs.advancements, cs.vales, cs.starting_cards)


def test_csv_round_trip(tmp_path):
    out = tmp_path / "core.csv"
    card_set_to_csv(CORE, out)
    back = load_card_set(out)
    assert content(back) == content(CORE)
    assert back.digest() == CORE.digest()
    assert back.path == str(out)


def test_csv_empty_cells_are_defaults(tmp_path):
    out = tmp_path / "mini.csv"
    card_set_to_csv(load_card_set("starter"), out)
    rows = out.read_text().splitlines()
    rows.append("advancement,Widget,1,,,3,middle" + "," * (len(C.CSV_COLUMNS) - 7) + "user")
    out.write_text("\n".join(rows) + "\n")
    w = adv(load_card_set(out), "Widget")
    assert (w.copies, w.mana, w.ability, w.source, w.supply) == (1, 0, "none", "user", "commons")


@pytest.mark.parametrize("edit,field_,words", [
    (lambda r: r.replace(",middle,", ",sideways,"), "position", "unknown position"),
    (lambda r: r.replace("advancement,Widget,1,,,3,", "advancement,Widget,1,,,two,"), "cost", "wrong type"),
    (lambda r: r + ",extra,cells", None, "malformed row"),
    (lambda r: r.replace("advancement,", "advancment,", 1), "type", "unknown card type"),
])
def test_csv_errors_name_row(tmp_path, edit, field_, words):
    out = tmp_path / "bad.csv"
    card_set_to_csv(load_card_set("starter"), out)
    rows = out.read_text().splitlines()
    rows.append(edit("advancement,Widget,1,,,3,middle" + "," * (len(C.CSV_COLUMNS) - 7) + "user"))
    out.write_text("\n".join(rows) + "\n")
    with pytest.raises(CardSetError) as ei:
        load_card_set(out)
    msg = str(ei.value)
    assert f"row {len(rows)}" in msg and str(out) in msg and words in msg
    if field_:
        assert repr(field_) in msg and "Widget" in msg


def test_csv_unknown_column(tmp_path):
    out = tmp_path / "bad.csv"
    out.write_text("type,name,cots\n")
    with pytest.raises(CardSetError, match="'cots'.*did you mean 'cost'"):
        load_card_set(out)


# ---------------------------------------------------------------- command
def test_cards_command(capsys, tmp_path):
    assert main(["cards", "--set", "core"]) == 0
    out = capsys.readouterr().out
    for word in ("Stag", "Azure Lake", "Model L3", "estimate", "fan-list", "rulebook",
                 "not printed"):
        assert word in out
    csv_out = tmp_path / "out.csv"
    assert main(["cards", "--set", "starter", "--csv", str(csv_out)]) == 0
    assert content(load_card_set(csv_out)) == content(load_card_set("starter"))


def test_cards_command_bad_file(capsys, tmp_path):
    p = write(tmp_path, STARTING + GOOD_ADV.replace("cost = 3", 'cost = "two"'))
    assert main(["cards", "--set", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert str(p) in err and "'Widget'" in err and "'cost'" in err


def test_doc_examples_load(tmp_path):
    """The TOML and CSV examples in docs/card-format.md are valid card sets."""
    import pathlib
    import re
    doc = (pathlib.Path(__file__).parents[1] / "docs" / "card-format.md").read_text()
    for lang in ("toml", "csv"):
        block = re.search(rf"```{lang}\n(.*?)```", doc, re.S).group(1)
        cs = load_card_set(write(tmp_path, block, f"example.{lang}"))
        assert sum(s.count for s in cs.starting_cards) == 20


# ---------------------------------------------------------------- provenance per number
# The numbers the rulebook's text or examples fix (RB: Card Clarifications,
# Example Buying Vale Cards / Advancements); everything else on these cards is not rulebook.
SYMBOLS8 = ("mana", "animal", "forest", "sky", "wild", "guardian", "decay", "growth")
RULEBOOK_NUMBERS = {
    "Stag": set(SYMBOLS8),                       # Gaia's Chosen examples
    "Dawnsinger": set(SYMBOLS8) | {"amount"},
    "Lifebringer Seed": set(SYMBOLS8),
    "Gaia's Chosen": set(SYMBOLS8) | {"end_vp", "amount"},
    "Feral Chieftain": {"guardian", "amount"},   # with Stag: 3 VP -> exactly 1 guardian
    "Woodland Warden": {"guardian", "amount"},   # with Stag: 6 VP -> exactly 1 guardian
    "Seedling": {"decay"},                       # on a Cursed Land alone it does nothing
    "Grovetender": {"guardian", "growth", "amount"},  # with Stag: 2 growth -> none printed
    "Hulking Thornhide": {"decay"},
    "Podlings": {"cost"},
    "Grassland": {"amount"}, "Earthchant Chorus": {"amount"}, "Aurora": {"amount"},
    "Magic Seed": {"amount"},
}


@pytest.mark.parametrize("name", sorted(RULEBOOK_NUMBERS))
def test_rulebook_numbers_are_labelled_rulebook_and_nothing_else(name):
    a = adv(CORE, name)
    rb = {f for f, src in a.numbers().items() if src == "rulebook"}
    assert rb == RULEBOOK_NUMBERS[name]
    assert {src for f, src in a.numbers().items() if f not in rb} == {"estimate"}


def test_vale_numbers():
    for v in CORE.vales:
        n = v.numbers()
        # every vale's end VP and copy count is an estimate; its level comes from the fan list
        assert (n["end_vp"], n["copies"], n["level"]) == ("estimate", "estimate", "fan-list"), v.name
        costs = {n[f] for f in ("cost_animal", "cost_forest", "cost_sky", "cost_wild")}
        # the buying example fixes Feral Grove's and Ley Line Nexus's costs
        want = "rulebook" if v.name in ("Feral Grove", "Ley Line Nexus") else "fan-list"
        assert costs == {want}, v.name
        # the rulebook's clarifications give every known ability's number
        if v.ability != "none":
            assert n["amount"] == "rulebook", v.name
        assert ("extra_buys" in n) == (v.ability == "harvest_mana")
        if "extra_buys" in n:
            assert n["extra_buys"] == "rulebook", v.name


def test_provenance_counts():
    counts = C.provenance_counts(CORE)
    assert list(counts) == list(C.SOURCES)
    every = [c for c in CORE.starting_cards + CORE.advancements + CORE.vales]
    assert sum(counts.values()) == sum(len(c.numbers()) for c in every)
    assert counts["estimate"] == sum(list(c.numbers().values()).count("estimate") for c in every)
    # Ley Line Nexus: 4 cost numbers (rulebook), level (fan list), copies and end VP (estimates)
    assert C.provenance_counts(CORE, ["Ley Line Nexus"]) == {
        "rulebook": 4, "review": 0, "fan-list": 1, "estimate": 2, "user": 0, "balance": 0}
    # a name selects the advancement and the starting card of that name
    cl = C.provenance_counts(CORE, "Cursed Land")
    assert sum(cl.values()) == 14 + 1 and cl["estimate"] == 1 and cl["review"] == 5
    # a model card: all 14 numbers estimated
    assert C.provenance_counts(CORE, ["Model L1 Sprout A"])["estimate"] == 14
    with pytest.raises(KeyError, match="Stag"):
        C.provenance_counts(CORE, ["Stagg"])


SOURCED_VALE = GOOD_VALE.replace(
    'source = "user"',
    'sources = {cost = "rulebook", cost_sky = "review", end_vp = "estimate", level = "user"}\n'
    'source = "user"')


def test_sources_in_toml(tmp_path):
    cs = load_card_set(write(tmp_path, STARTING + GOOD_ADV.replace(
        'source = "user"', 'sources = {mana = "review", position = "estimate"}\nsource = "user"')
        + SOURCED_VALE, "ok.toml"))
    w = adv(cs, "Widget")
    assert (w.source_of("mana"), w.source_of("position"), w.source_of("cost")) == (
        "review", "estimate", "user")
    v = vale(cs, "Puddle")
    # "cost" names the four cost numbers; cost_sky given with it wins; an override
    # equal to the card's source is dropped
    assert v.sources == (("cost_animal", "rulebook"), ("cost_forest", "rulebook"),
                         ("cost_sky", "review"), ("cost_wild", "rulebook"),
                         ("end_vp", "estimate"))
    assert C.provenance_counts(cs, ["Puddle"]) == {
        "rulebook": 3, "review": 1, "fan-list": 0, "estimate": 1, "user": 2, "balance": 0}


@pytest.mark.parametrize("text,words", [
    (GOOD_ADV.replace('source = "user"', 'sources = {man = "review"}\nsource = "user"'),
     "unknown field 'man' in sources.*did you mean 'mana'"),
    (GOOD_ADV.replace('source = "user"', 'sources = {mana = "reviews"}\nsource = "user"'),
     "unknown source 'reviews'.*did you mean 'review'"),
    (GOOD_ADV.replace('source = "user"', 'sources = "review"\nsource = "user"'),
     "'sources': wrong type"),
    (GOOD_VALE.replace('source = "user"', 'sources = {position = "review"}\nsource = "user"'),
     "unknown field 'position' in sources"),
])
def test_sources_errors(tmp_path, text, words):
    p = write(tmp_path, STARTING + text)
    with pytest.raises(CardSetError, match=words) as ei:
        load_card_set(p)
    assert str(p) in str(ei.value) and "'sources'" in str(ei.value)


def test_sources_in_csv(tmp_path):
    out = tmp_path / "mini.csv"
    card_set_to_csv(load_card_set("starter"), out)
    header = out.read_text().splitlines()[0].split(",")
    assert "sources" in header
    rows = out.read_text().splitlines()
    cells = dict.fromkeys(header, "")
    cells.update(type="advancement", name="Widget", level="1", cost="3", position="middle",
                 source="user", sources="mana=review; cost=estimate")
    rows.append(",".join(cells[h] for h in header))
    out.write_text("\n".join(rows) + "\n")
    w = adv(load_card_set(out), "Widget")
    assert w.sources == (("cost", "estimate"), ("mana", "review"))
    cells["sources"] = "mana review"
    out.write_text("\n".join(rows[:-1] + [",".join(cells[h] for h in header)]) + "\n")
    with pytest.raises(CardSetError, match="row .*'sources': malformed sources"):
        load_card_set(out)


def test_cards_command_counts_estimated_numbers(capsys, tmp_path):
    assert main(["cards", "--set", "core"]) == 0
    out = capsys.readouterr().out
    counts = C.provenance_counts(CORE)
    total = sum(counts.values())
    assert f"Estimated numbers: {counts['estimate']} of {total}" in out
    assert f"review {counts['review']}" in out
    # per-number sources in the table: Ley Line Nexus's row names its rulebook cost
    row = next(line for line in out.splitlines() if line.startswith("Ley Line Nexus"))
    assert row.endswith("fan-list  rulebook: cost; estimate: copies end_vp")

    csv_out = tmp_path / "core.csv"
    assert main(["cards", "--set", "core", "--json", "--csv", str(csv_out)]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["numbers_by_source"] == counts and j["numbers"] == total
    assert j["estimated_numbers"] == counts["estimate"]
    stag = next(c for c in j["cards"] if c["name"] == "Stag")
    assert stag["numbers"]["guardian"] == {"value": 2, "source": "rulebook"}
    assert stag["numbers"]["cost"] == {"value": 3, "source": "estimate"}
    assert stag["numbers"]["position"] == {"value": "bottom", "source": "estimate"}
    back = load_card_set(csv_out)
    assert C.provenance_counts(back) == counts and content(back) == content(CORE)


# ---------------------------------------------------------------- size limits
BIG = 2 ** 63 - 1
LIMIT_CASES = [
    # (id, text, card, field, limit)
    ("copies 1e9", GOOD_ADV.replace("cost = 3", "cost = 3\ncopies = 1000000000"), "Widget",
     "copies", 50),
    ("copies 2^63-1", GOOD_ADV.replace("cost = 3", f"cost = 3\ncopies = {BIG}"), "Widget",
     "copies", 50),
    ("cost", GOOD_ADV.replace("cost = 3", "cost = 1000000"), "Widget", "cost", 30),
    ("symbol", GOOD_ADV.replace("mana = 1", f"mana = {BIG}"), "Widget", "mana", 20),
    ("amount", GOOD_ADV.replace("mana = 1", 'ability = "harvest_mana_per_other_card"\n'
                                f"amount = {BIG}"), "Widget", "amount", 10),
    ("vale copies", GOOD_VALE.replace("end_vp = 1", "copies = 1000000000"), "Puddle",
     "copies", 50),
    ("vale cost", GOOD_VALE.replace("animal = 1", f"animal = {BIG}"), "Puddle", "cost", 10),
    ("vale end VP", GOOD_VALE.replace("end_vp = 1", "end_vp = 1000000000"), "Puddle",
     "end_vp", 20),
    ("extra buys", GOOD_VALE.replace("end_vp = 1", 'ability = "harvest_mana"\n'
                                     "extra_buys = 1000000000"), "Puddle", "extra_buys", 3),
]


@pytest.mark.parametrize("text,card,field_,limit", [c[1:] for c in LIMIT_CASES],
                         ids=[c[0] for c in LIMIT_CASES])
def test_size_limits(tmp_path, text, card, field_, limit):
    p = write(tmp_path, STARTING + text)
    with pytest.raises(CardSetError) as ei:
        load_card_set(p)
    e = ei.value
    assert (e.file, e.card, e.field) == (str(p), card, field_)
    assert f"above the limit {limit}" in str(e) and "\n" not in str(e)


def test_starting_count_limit(tmp_path):
    p = write(tmp_path, STARTING.replace("count = 12", f"count = {BIG}"))
    with pytest.raises(CardSetError, match="'count': count is 9.22e\\+18, above the limit 20"):
        load_card_set(p)


def many(text, n, name="Widget"):
    return "".join(text.replace(f'"{name}"', f'"{name} {i}"') for i in range(n))


@pytest.mark.parametrize("text,field_,words", [
    (many(GOOD_ADV, 128), "advancements", "129 advancement kinds, above the limit 128"),
    (many(GOOD_ADV.replace("cost = 3", "cost = 3\ncopies = 50"), 5), "advancements",
     "250 level 1 commons copies, above the limit 200"),
    (many(GOOD_VALE.replace("end_vp = 1", "copies = 50"), 3, "Puddle"), "vales",
     "150 vale copies, above the limit 128"),
])
def test_set_size_limits(tmp_path, text, field_, words):
    p = write(tmp_path, STARTING + text)
    with pytest.raises(CardSetError, match=words) as ei:
        load_card_set(p)
    assert ei.value.field == field_ and ei.value.file == str(p)


def test_limits_match_the_fast_engine():
    from vale_sim.games.mystic_vale.fast import tables
    assert C.LIMITS["advancement_kinds"] == tables.MAX_KINDS
    assert C.LIMITS["vale_kinds"] == tables.MAX_VALE_KINDS
    assert C.LIMITS["vale_copies"] == tables.MAX_OWNED_VALES
    # the bundled sets and the synthetic sets of the property tests are within the limits
    from vale_sim.games.mystic_vale.synthetic import random_card_set
    for cs in (CORE, random_card_set(1)):
        assert max(a.copies for a in cs.advancements) <= C.LIMITS["copies"]


def test_csv_size_limit(tmp_path):
    out = tmp_path / "big.csv"
    card_set_to_csv(load_card_set("starter"), out)
    rows = out.read_text().splitlines()
    header = rows[0].split(",")
    cells = dict.fromkeys(header, "")
    cells.update(type="advancement", name="Widget", level="1", cost="3", position="middle",
                 source="user", copies=str(10 ** 9))
    rows.append(",".join(cells[h] for h in header))
    out.write_text("\n".join(rows) + "\n")
    with pytest.raises(CardSetError, match=f"row {len(rows)}: card 'Widget', field 'copies': "
                                           "copies is 1e\\+09, above the limit 50"):
        load_card_set(out)


HUGE_CORE = [  # (what to replace in core.toml, field)
    ('name = "Stag"\nlevel = 1\ncopies = 2', "copies"),
    ('name = "Azure Lake"\nlevel = 1\ncopies = 2', "copies"),
]


@pytest.mark.parametrize("command", [
    ["play", "--players", "2"],
    ["simulate", "--games", "2", "--no-progress"],
    ["cards"],
])
@pytest.mark.parametrize("value", [10 ** 9, BIG])
def test_huge_copies_fail_fast_in_every_command(tmp_path, capsys, command, value):
    """1e9 copies used to hang `play` and make `simulate` ask for 1.6 TiB; 2**63-1 filled
    the memory. Now the load fails: one line naming the file, the card, the field and
    the limit, exit status 2, nothing written."""
    core = (C.DATA_DIR / "core.toml").read_text()
    for old, _ in HUGE_CORE:
        assert old in core
    text = core.replace(HUGE_CORE[0][0], HUGE_CORE[0][0].replace("copies = 2",
                                                                  f"copies = {value}"))
    p = write(tmp_path, text, "huge.toml")
    out_dir = tmp_path / "out.parquet"
    extra = ["--out", str(out_dir)] if command[0] == "simulate" else []
    assert main(command + ["--set", str(p)] + extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert str(p) in err[0] and "'Stag'" in err[0] and "'copies'" in err[0]
    assert "above the limit 50" in err[0]
    assert not out_dir.exists()


@pytest.mark.parametrize("count", [201, 10 ** 9, BIG])
def test_deck_file_size_limit(tmp_path, capsys, count):
    """A spoil-odds deck file without a base: count 1e9 used to build 1e9 cards."""
    p = write(tmp_path, f'set = "core"\n[[cards]]\nadvancements = ["Stag"]\ncount = 3\n'
                        f'[[cards]]\nadvancements = ["Cursed Land"]\ncount = {count}\n',
              "deck.toml")
    assert main(["spoil-odds", "--deck", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(p) in err[0] and "card 2" in err[0]
    assert f"limit of {C.LIMITS['deck_cards']} cards" in err[0]


def test_report_counts_estimated_numbers():
    """The report's card-set section counts numbers, not cards, by source."""
    from vale_sim import report
    from vale_sim.games.mystic_vale import report as mv_report
    sec = mv_report.section_card_set(report.Context(settings=mv_report.ReportSettings.make(size="tiny")))
    counts = C.provenance_counts(CORE)
    total = sum(counts.values())
    table = sec.tables["card_sources"]
    assert int(table["total"].sum()) == total
    assert {s: int(table[s].sum()) for s in counts if s in table} == {
        s: n for s, n in counts.items() if n}
    assert f"{counts['estimate']} of {total} numbers" in " ".join(sec.paragraphs)
    cards = sec.tables["cards"].set_index("name")
    assert cards.loc["Ley Line Nexus", "estimated_numbers"] == 2
    assert not cards.loc["Fertile Soil (top)", "estimate"]
