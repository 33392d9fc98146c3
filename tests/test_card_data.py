"""The shared card-data reader (vale_sim/card_data.py): both games' card-set
readers report mistakes through one FieldReader and one error format."""
from __future__ import annotations

import pickle

import pytest

from vale_sim import card_data as CD
from vale_sim.games.mystic_lands import cards as ML
from vale_sim.games.mystic_vale import cards as MV


@pytest.mark.parametrize("mod", [MV, ML], ids=["mystic-vale", "mystic-lands"])
def test_both_games_errors_are_card_file_errors(mod):
    assert issubclass(mod.CardSetError, CD.CardFileError)
    assert issubclass(mod.PlayerCountError, mod.CardSetError)
    e = mod.CardSetError("f.toml", "X", "level", "bad", "fix it")
    assert (e.file, e.item, e.field, e.problem, e.fix) == ("f.toml", "X", "level", "bad", "fix it")
    assert str(e).endswith(", field 'level': bad (fix it)")


def test_each_game_names_its_items_its_way():
    assert str(MV.CardSetError("f", "Stag", None, "p")) == "f: card 'Stag': p"
    assert str(ML.CardSetError("f", "advance 'Stag'", None, "p")) == "f: advance 'Stag': p"
    assert str(MV.CardSetError("f", None, "x", "p")) == str(ML.CardSetError("f", None, "x", "p"))


@pytest.mark.parametrize("mod, tail", [(MV, ""), (ML, ": Mystic Lands plays 2-4")],
                         ids=["mystic-vale", "mystic-lands"])
def test_player_count_errors_pickle_with_their_message(mod, tail):
    e = mod.PlayerCountError(5)
    assert str(e) == f"players must be 2, 3 or 4 (got 5){tail}" and e.field == "players"
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is mod.PlayerCountError and str(back) == str(e)


def test_the_field_reader_refuses_unknown_fields_and_wrong_types():
    with pytest.raises(ML.CardSetError, match="field 'levl': unknown field .did you mean 'level'"):
        CD.FieldReader("f.toml", "advance 'A'", {"levl": 1}, ("name", "level"),
                       error=ML.CardSetError)
    r = CD.FieldReader("f.toml", "x", {"n": True, "s": ""}, ("n", "s"), error=ML.CardSetError)
    with pytest.raises(ML.CardSetError, match="'n': must be an integer, got True"):
        r.int("n")
    with pytest.raises(ML.CardSetError, match="'s': must be a non-empty string"):
        r.str("s")


def test_the_spec_check_names_type_and_required_field():
    ctx = CD.FieldReader("f.toml", "Stag", error=MV.CardSetError)
    spec = {"name": ("str", True), "level": ("int", True), "cost": ("cost", False)}
    words = {"str": "text", "int": "a whole number", "cost": "a table"}
    assert ctx.typed({"name": "Stag", "level": 1}, spec, "a card", words) == {"name": "Stag",
                                                                             "level": 1}
    with pytest.raises(MV.CardSetError, match="card 'Stag', field 'level': wrong type"):
        ctx.typed({"name": "Stag", "level": True}, spec, "a card", words)
    with pytest.raises(MV.CardSetError, match="missing required field 'level'"):
        ctx.typed({"name": "Stag"}, spec, "a card", words)
    with pytest.raises(MV.CardSetError, match="field 'cost': wrong type: expected a table"):
        ctx.typed({"name": "Stag", "level": 1, "cost": 3}, spec, "a card", words)


@pytest.mark.parametrize("mod", [MV, ML], ids=["mystic-vale", "mystic-lands"])
def test_a_malformed_toml_file_is_one_line(tmp_path, mod):
    p = tmp_path / "bad.toml"
    p.write_text("x = [\n", encoding="utf-8")
    with pytest.raises(mod.CardSetError) as e:
        mod.load_card_set(str(p))
    assert "not valid TOML" in str(e.value) and "\n" not in str(e.value)
