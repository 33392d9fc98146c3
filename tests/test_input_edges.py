"""Rough edges of input parsing and CLI text (issue 23): byte-order marks, names
equal up to case and spaces, numbers int() takes but the docs do not, folders
and special files given as files, --players / --game / policy card names,
help text, and how text numbers seats."""
from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import pytest

from vale_sim.cli import build_parser, main
from vale_sim.games.mystic_lands import cards as ml_cards
from vale_sim.games.mystic_lands import policy as ml_policy
from vale_sim.games.mystic_lands import wither as ml_wither
from vale_sim.games.mystic_vale import cards as mv_cards
from vale_sim.games.mystic_vale import policy as mv_policy
from vale_sim.games.mystic_vale import spoil as mv_spoil

BOM = "\ufeff".encode("utf-8")
MV_CORE = Path(mv_cards.__file__).parent / "data" / "core.toml"
ML_SET = Path(ml_cards.__file__).parent / "data" / "mystic-lands.toml"
ML_MAP = Path(ml_cards.__file__).parent / "data" / "maps" / "gateway-vale.toml"
MV_DECK = Path(mv_cards.__file__).parent / "data" / "decks" / "thornhide.toml"
ML_DECK = Path(ml_cards.__file__).parent / "decks" / "sunny.toml"
REPO = Path(__file__).resolve().parents[1]


def with_bom(src: Path, dst: Path) -> Path:
    dst.write_bytes(BOM + src.read_bytes())
    return dst


def one_line_error(capsys, argv) -> str:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert rc == 2, (out, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# --- 1. a UTF-8 byte-order mark is accepted by every TOML reader --------------------
def test_a_byte_order_mark_is_accepted_by_every_toml_reader(tmp_path):
    cs = mv_cards.load_card_set(with_bom(MV_CORE, tmp_path / "core.toml"))
    assert cs.digest() == mv_cards.load_card_set("core").digest()
    lands = ml_cards.load_card_set(with_bom(ML_SET, tmp_path / "lands.toml"))
    assert lands.digest() == ml_cards.load_card_set().digest()
    vmap = ml_cards.load_map(with_bom(ML_MAP, tmp_path / "map.toml"))
    assert vmap.spaces == ml_cards.load_map("gateway-vale").spaces
    pol = tmp_path / "pol.toml"
    pol.write_bytes(BOM + b'w_mana = 7\n[[buy]]\ncard = "Podlings"\n')
    assert mv_policy.load_policy(pol).w_mana == 7
    mlpol = tmp_path / "mlpol.toml"
    mlpol.write_bytes(BOM + b'w_mana = 7\nnever = ["Meadow"]\n')
    assert ml_policy.load_policy(mlpol).never == ("Meadow",)
    deck = mv_spoil.load_deck(with_bom(MV_DECK, tmp_path / "deck.toml"))
    assert len(deck.cards) == len(mv_spoil.load_deck("thornhide").cards)
    wdeck = ml_wither.load_deck(with_bom(ML_DECK, tmp_path / "wdeck.toml"))
    assert len(wdeck.cards) == len(ml_wither.load_deck("sunny").cards)
    from vale_sim.experiments import load_experiment
    exp = load_experiment(with_bom(REPO / "experiments" / "tournament.toml", tmp_path / "t.toml"))
    assert exp.study == "tournament"


def test_every_toml_reader_goes_through_the_one_helper():
    """No module reads TOML itself (so none forgets the byte-order mark again)."""
    pkg = REPO / "vale_sim"
    readers = sorted(str(p.relative_to(pkg)) for p in pkg.rglob("*.py")
                     if "tomllib" in p.read_text(encoding="utf-8"))
    assert readers == ["inputs.py"]


# --- 2. names equal up to case or spaces are duplicates ---------------------------
def _mv_set_with(tmp_path, name2: str, suffix=".toml") -> Path:
    text = MV_CORE.read_text(encoding="utf-8")
    # a second advancement "Podlings" spelled differently: Stag renamed
    assert 'name = "Stag"' in text
    p = tmp_path / f"set{suffix}"
    p.write_text(text.replace('name = "Stag"', f'name = "{name2}"', 1), encoding="utf-8")
    return p


@pytest.mark.parametrize("spelling", ["podlings", "PODLINGS", "Podlings ", " Podlings"])
def test_mystic_vale_toml_names_equal_up_to_case_or_spaces_are_duplicates(tmp_path, spelling):
    p = _mv_set_with(tmp_path, spelling)
    with pytest.raises(mv_cards.CardSetError, match="duplicate name") as e:
        mv_cards.load_card_set(p)
    msg = str(e.value)
    assert str(p) in msg and "Podlings" in msg and "(give every" in msg
    assert len(msg.splitlines()) == 1
    if spelling.strip() != "Podlings":
        assert repr(spelling) in msg          # both spellings named


def test_mystic_vale_csv_names_equal_up_to_case_are_duplicates(tmp_path):
    csv = tmp_path / "set.csv"
    mv_cards.card_set_to_csv(mv_cards.load_card_set("core"), csv)
    text = csv.read_text(encoding="utf-8")
    assert ",Stag," in text
    csv.write_text(text.replace(",Stag,", ",PODLINGS,", 1), encoding="utf-8")
    with pytest.raises(mv_cards.CardSetError, match="duplicate name.*'Podlings'"):
        mv_cards.load_card_set(csv)


def test_mystic_vale_toml_name_spaces_are_dropped_as_in_csv(tmp_path):
    p = _mv_set_with(tmp_path, "  Stag ")
    cs = mv_cards.load_card_set(p)
    assert "Stag" in {a.name for a in cs.advancements}
    assert cs.digest() == mv_cards.load_card_set("core").digest()


@pytest.mark.parametrize("spelling", ["meadow", "Meadow "])
def test_mystic_lands_names_equal_up_to_case_or_spaces_are_duplicates(tmp_path, spelling):
    text = ML_SET.read_text(encoding="utf-8").replace('name = "Firefly Glade"',
                                                      f'name = "{spelling}"', 1)
    p = tmp_path / "lands.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ml_cards.CardSetError, match="duplicate name") as e:
        ml_cards.load_card_set(p)
    assert str(p) in str(e.value) and "Meadow" in str(e.value)


# --- 3. numbers: ASCII digits only --------------------------------------------------
@pytest.mark.parametrize("cell", ["1_0", "\uff11\uff10", "\u0661\u0660", "+3", "-0", "1.0", "3 4"])
def test_csv_numbers_take_ascii_digits_only(tmp_path, cell):
    csv = tmp_path / "set.csv"
    mv_cards.card_set_to_csv(mv_cards.load_card_set("core"), csv)
    lines = csv.read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    col = header.index("copies")
    i = next(k for k, ln in enumerate(lines) if ln.startswith("advancement,Stag,"))
    cells = lines[i].split(",")
    cells[col] = f'"{cell}"'
    lines[i] = ",".join(cells)
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(mv_cards.CardSetError, match="copies.*expected a whole number") as e:
        mv_cards.load_card_set(csv)
    assert "Stag" in str(e.value)


def test_csv_plain_and_negative_numbers_still_read(tmp_path):
    csv = tmp_path / "set.csv"
    mv_cards.card_set_to_csv(mv_cards.load_card_set("core"), csv)
    assert mv_cards.load_card_set(csv).digest() == mv_cards.load_card_set("core").digest()
    text = csv.read_text(encoding="utf-8")
    lines = text.splitlines()
    col = lines[0].split(",").index("copies")
    i = next(k for k, ln in enumerate(lines) if ln.startswith("advancement,Stag,"))
    cells = lines[i].split(",")
    cells[col] = "-2"
    lines[i] = ",".join(cells)
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(mv_cards.CardSetError, match="copies is less than 1"):
        mv_cards.load_card_set(csv)


def test_parse_int_is_strict():
    from vale_sim.inputs import parse_int
    assert parse_int("12") == 12 and parse_int(" 7 ") == 7 and parse_int("-3", negative=True) == -3
    for bad in ("1_0", "\uff11", "\u0661", "+3", "-0", "", "\u00b2", "0x1"):
        with pytest.raises(ValueError):
            parse_int(bad, negative=True)
    with pytest.raises(ValueError):
        parse_int("-3")


def test_number_lists_take_ascii_digits_only():
    from vale_sim.games.mystic_vale.pools import parse_pools
    from vale_sim.games.mystic_lands.studies.common import StudyError, parse_players
    from vale_sim.games.mystic_vale.studies import pool_grid_size
    assert parse_pools("20:24:2", include_rulebook=False) == [20, 22, 24]
    for bad in ("2_0:24", "\uff12\uff10,22", "+20,22"):
        with pytest.raises(ValueError):
            parse_pools(bad, include_rulebook=False)
        with pytest.raises(ValueError):
            pool_grid_size(bad.replace(",", ":"))
    assert parse_players("2,3") == (2, 3)
    with pytest.raises(StudyError):
        parse_players("\uff12,3")
    from vale_sim.games.mystic_vale.pools import parse_players as pool_players
    assert pool_players("2,3") == [2, 3]
    with pytest.raises(ValueError):
        pool_players("\uff12,3")
    from vale_sim.games.mystic_lands.commands.lands_common import values
    from vale_sim.errors import UserError
    assert values("20,30", "--end-vp") == [20, 30]
    for bad in ("2_0,30", "+20", "\u0662\u0660"):
        with pytest.raises(UserError, match="--end-vp"):
            values(bad, "--end-vp")


def test_superscript_digits_are_a_one_line_error_not_a_traceback(capsys):
    with pytest.raises(ValueError, match="goal must be"):
        ml_wither.parse_goal("mana>=\u00b2")
    line = one_line_error(capsys, ["spoil-odds", "--rule", "\u00b2"])
    assert "--rule" in line


# --- 4. folders, special files, --players, --game, policy card names --------------------
FOLDER_CASES = [
    (["play", "--set", "{folder}"], "is a folder"),
    (["play", "--set", "{folder_toml}"], "is a folder"),
    (["play", "--set", "/dev/null"], "is not a regular file"),
    (["play", "--policy", "{folder_toml}"], "is a folder"),
    (["play", "--policy", "/dev/null"], "is not a regular file"),
    (["play", "--game", "mystic-lands", "--set", "/dev/null"], "is not a regular file"),
    (["play", "--game", "mystic-lands", "--set", "{folder}"], "is a folder"),
    (["play", "--game", "mystic-lands", "--policy", "/dev/null"], "is not a regular file"),
    (["play", "--game", "mystic-lands", "--policy", "{folder_toml}"], "is a folder"),
    (["spoil-odds", "--deck", "{folder}"], "is a folder"),
    (["spoil-odds", "--deck", "/dev/null"], "is not a regular file"),
    (["wither-odds", "--game", "mystic-lands", "--deck", "{folder}"], "is a folder"),
    (["wither-odds", "--game", "mystic-lands", "--deck", "/dev/null"], "is not a regular file"),
    (["run", "{folder}"], "is a folder"),
    (["run", "/dev/null"], "is not a regular file"),
]


@pytest.mark.parametrize("argv, words", FOLDER_CASES)
def test_a_folder_or_special_file_is_named_as_such(capsys, tmp_path, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder.toml").mkdir()
    argv = [a.format(folder="folder", folder_toml="folder.toml") for a in argv]
    line = one_line_error(capsys, argv)
    assert words in line and "not found" not in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "folder.toml"]


@pytest.mark.parametrize("game, players", [("mystic-vale", 1), ("mystic-vale", 5),
                                           ("mystic-lands", 1), ("mystic-lands", 5)])
def test_players_out_of_range_names_the_option_not_the_card_file(capsys, game, players):
    for cmd in (["play"], ["simulate", "--games", "2", "--summary-only", "--no-progress"]):
        line = one_line_error(capsys, cmd + ["--game", game, "--players", str(players)])
        assert f"--players must be 2, 3 or 4" in line and f"(got {players})" in line
        assert ".toml" not in line and f"{players} players" not in line


@pytest.mark.parametrize("game", ["", " "])
def test_an_empty_game_is_refused_with_the_games(capsys, game):
    line = one_line_error(capsys, ["play", "--game", game])
    assert "--game" in line and "mystic-vale" in line and "mystic-lands" in line


@pytest.mark.parametrize("game, text, item, wanted", [
    ("mystic-vale", 'never = ["Podling"]\n', "never", "Podlings"),
    ("mystic-vale", '[[buy]]\ncard = "Podling"\n', "buy rule 1", "Podlings"),
    ("mystic-vale", '[[buy]]\ncard = "podlings"\n', "buy rule 1", "Podlings"),
    ("mystic-lands", 'never = ["Medow"]\n', "never", "Meadow"),
    ("mystic-lands", '[[buy]]\ncard = "meadow"\n', "buy rule 1", "Meadow"),
])
def test_policy_card_names_give_the_file_the_item_and_a_close_match(capsys, tmp_path, game, text,
                                                                     item, wanted):
    f = tmp_path / "mine.toml"
    f.write_text(text, encoding="utf-8")
    line = one_line_error(capsys, ["play", "--game", game, "--policy", str(f)])
    assert str(f) in line and item in line and f"did you mean {wanted!r}?" in line


def test_mystic_vale_check_policies_refuses_an_unknown_never_before_any_game(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('never = ["Stagg"]\n', encoding="utf-8")
    cs = mv_cards.load_card_set("core")
    with pytest.raises(mv_policy.PolicyError, match=r"never names unknown card 'Stagg'.*"
                                                    r"did you mean 'Stag'\?") as e:
        mv_policy.check_policies(cs, [str(f)])
    assert str(f) in str(e.value)


# --- 5. help text ---------------------------------------------------------------------------
RST = re.compile(r"``|:[a-z]+:`")


def _parsers(parser, path=()):
    yield path, parser
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                yield from _parsers(sub, path + (name,))


def test_every_option_of_every_command_has_plain_help():
    bad = []
    for path, p in _parsers(build_parser()):
        for text in (p.description, p.epilog):
            if text and RST.search(text):
                bad.append(f"{' '.join(path) or 'vale-sim'}: description has RST: {text[:60]!r}")
        for a in p._actions:
            if isinstance(a, argparse._HelpAction):
                continue
            if isinstance(a, argparse._SubParsersAction):
                for c in a._choices_actions:
                    if not (c.help or "").strip() or RST.search(c.help):
                        bad.append(f"command {c.dest}: help {c.help!r}")
                continue
            name = "/".join(a.option_strings) or a.dest
            if a.help is argparse.SUPPRESS:
                continue
            if not (a.help or "").strip():
                bad.append(f"{' '.join(path)} {name}: no help")
            elif RST.search(a.help):
                bad.append(f"{' '.join(path)} {name}: RST in help {a.help!r}")
    assert not bad, "\n".join(bad)


def test_top_level_help_shows_no_rst(capsys):
    assert main(["--help"]) == 0         # cli.main turns argparse's exit into a status
    out = capsys.readouterr().out
    assert "``" not in out and "The vale-sim command line" in out


def test_plain_text_strips_literals_and_roles():
    from vale_sim.cli import plain_text
    assert plain_text("The ``vale-sim`` tool, :func:`vale_sim.io.check` and "
                      ":class:`~vale_sim.games.Game`") == \
        "The vale-sim tool, vale_sim.io.check and vale_sim.games.Game"


# --- 6. seat numbering: text counts from 1 (seat 1 starts), data from 0 -----------------------
def _table(out: str) -> list[list[str]]:
    lines = out.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.split()[:2] == ["player", "seat"])
    assert "seat 1 = the starting player" in lines[i - 1]
    rows = []
    for ln in lines[i + 1:]:
        if not ln.startswith(" ") or ln.endswith("rounds"):
            break
        rows.append(ln.split())
    return rows


@pytest.mark.parametrize("game", ["mystic-vale", "mystic-lands"])
def test_play_text_counts_seats_from_one_like_the_log(capsys, game):
    assert main(["play", "--game", game, "--players", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    setup = next(ln for ln in out.splitlines() if ln.startswith("Setup:"))
    rows = _table(out)
    assert sorted(r[1] for r in rows) == ["1", "2", "3"]
    starter = next(r[0] for r in rows if r[1] == "1")
    # the log says who starts and which seat each player has: the same seats
    assert re.search(rf"\b{starter}\b starts|starting player {starter}\b", setup), setup
    for player, seat in ((r[0], r[1]) for r in rows):
        assert re.search(rf"{player} \(seat {seat}\b", out), (player, seat)
    # the record (JSON, Parquet) keeps seat 0 = the starting player
    assert main(["play", "--game", game, "--players", "3", "--seed", "1", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    seats = {f"P{r['player']}": r["seat"] for r in rec["results"]}
    assert seats[starter] == 0 and sorted(seats.values()) == [0, 1, 2]


def test_the_seat_convention_is_documented():
    text = (REPO / "docs" / "runs.md").read_text(encoding="utf-8")
    assert "## Seat numbering" in text
    section = text.split("## Seat numbering", 1)[1].split("\n## ", 1)[0]
    assert "seat 1" in section and "0" in section and "starting player" in section


@pytest.mark.parametrize("cards_mod", [mv_cards, ml_cards])
def test_validate_playable_blames_the_count_not_the_card_file(cards_mod):
    import pickle
    cs = cards_mod.load_card_set() if cards_mod is ml_cards else cards_mod.load_card_set("core")
    with pytest.raises(cards_mod.CardSetError) as e:
        cards_mod.validate_playable(cs, 1)
    assert str(e.value).startswith("players must be 2, 3 or 4 (got 1)")
    assert ".toml" not in str(e.value)
    assert str(pickle.loads(pickle.dumps(e.value))) == str(e.value)


# --- 6. nesting deep enough to exhaust Python's stack (issue 41, item 6) ----------------
# 200 KB each: tomllib and json recurse once per level (a 3,000-line RecursionError
# traceback, exit 1); a dotted table header parses into a dict as deep, which the
# readers then walked recursively.
DEEP = {"arrays": "a = " + "[" * 100_000 + "]" * 100_000 + "\n",
        "inline tables": "a = " + "{b = " * 100_000 + "1" + "}" * 100_000 + "\n",
        "dotted table": "[" + ".".join(["a"] * 100_000) + "]\nx = 1\n"}
DEEP_ARGV = [
    ["what-if", "--edits", "{f}", "--games", "2"],
    ["exploit", "--policy", "{f}", "--players", "2"],
    ["report", "--baseline", "{f}", "--quick", "--quiet", "--out", "out"],
    ["play", "--set", "{f}"],
    ["play", "--policy", "{f}"],
    ["play", "--game", "mystic-lands", "--set", "{f}"],
    ["play", "--game", "mystic-lands", "--policy", "{f}"],
    ["spoil-odds", "--deck", "{f}"],
    ["wither-odds", "--game", "mystic-lands", "--deck", "{f}"],
    ["run", "{f}", "--check"],
]


@pytest.mark.parametrize("shape", sorted(DEEP))
@pytest.mark.parametrize("argv", DEEP_ARGV, ids=lambda a: " ".join(a[:2]))
def test_a_deeply_nested_file_is_one_line_naming_it(capsys, tmp_path, monkeypatch, argv, shape):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deep.toml").write_text(DEEP[shape])
    line = one_line_error(capsys, [a.format(f="deep.toml") for a in argv])
    assert "deep.toml" in line and "nested more than" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep.toml"]


def test_deep_json_is_one_line_too(tmp_path):
    from vale_sim.errors import UserError
    from vale_sim.inputs import InputFileError, MAX_DEPTH, parse_json, read_json
    from vale_sim.skill_ladder import read_ladder
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputFileError, match="nested more than"):
        read_json(p)
    with pytest.raises(UserError, match="nested more than"):
        read_ladder(p)
    assert parse_json("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None     # the limit itself reads
    with pytest.raises(InputFileError):
        parse_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
