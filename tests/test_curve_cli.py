"""``vale-sim curve``: every mistake is one line naming the item and the fix, exit status 2,
no traceback, nothing written -- refused while the inputs are read, before any game (this
module plays none: it is not marked ``compiled``).  The curves themselves:
tests/test_curve.py."""
from __future__ import annotations

import pytest

from cli_checks import one_line_error
from vale_sim import curve as C
from vale_sim.cli import main

MV = ["curve", "--card", "Podlings", "--number", "cost"]
ML = ["curve", "--game", "mystic-lands", "--card", "Meadow", "--number", "cost"]


@pytest.mark.parametrize("argv, words", [
    (["curve", "--card", "Podlingz", "--number", "cost"], ["--card", "Podlingz", "Podlings"]),
    (["curve", "--card", "Nothing", "--number", "cost"], ["--card", "Nothing", "cards"]),
    (["curve", "--card", "Podlings", "--number", "costs"], ["--number costs", "editable",
                                                            "end_vp"]),
    (ML[:5] + ["--number", "forest"], ["--number forest", "editable", "cost"]),
    (MV + ["--values", "6..2"], ["--values", "6 is above 2", "2..6"]),
    (MV + ["--values", "1..x"], ["--values", "not whole numbers", "LO..HI"]),
    (MV + ["--values", "0..1000"], ["--values", "1,001 values", "at most"]),
    (MV + ["--values=-2..1"], ["--values", "never below 0"]),
    (MV + ["--values", "30..31"], ["--values", "Podlings.cost = 31", "0..30"]),
    (MV + ["--games", "10000000", "--players", "2,3,4"], ["--games", "cap", "fewer"]),
    (MV + ["--players", "5"], ["--players", "2, 3, 4"]),
    (MV + ["--baseline", "no-such-field"], ["--baseline no-such-field"]),
    (MV + ["--set", "missing.toml"], ["missing.toml"]),
    (MV + ["--out", "figure.txt"], ["--out figure.txt", ".png"]),
    (MV + ["--out", "no-such-folder/fig.png"], ["--out", "no-such-folder", "does not exist"]),
    (MV + ["--resume"], ["--resume", "--checkpoint"]),
    (MV + ["--checkpoint", "ck.json", "--resume"], ["--resume", "ck.json", "no checkpoint"]),
    (MV + ["--margin", "0"], ["--margin"]),
    (MV + ["--estimand", "forced"], ["--estimand"]),
    (["curve", "--number", "cost"], ["--card"]),
])
def test_a_mistake_is_one_line_exit_2_and_nothing_is_written(argv, words, tmp_path,
                                                              monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    try:
        rc = main(argv)
    except SystemExit as e:                  # (argparse's own: never here, main returns)
        rc = e.code
    one_line_error(capsys, rc, *words)
    assert list(tmp_path.iterdir()) == []


def test_a_users_checkpoint_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "ck.json"
    mine.write_text('{"my": "notes"}\n')
    one_line_error(capsys, main(MV + ["--checkpoint", "ck.json"]), "refusing to replace",
                   "ck.json")
    assert mine.read_text() == '{"my": "notes"}\n'
    one_line_error(capsys, main(MV + ["--checkpoint", "ck.json", "--resume"]), "ck.json",
                   "not a curve checkpoint")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.json"]


def test_an_unwritable_out_is_refused_before_any_game(tmp_path, monkeypatch, capsys):
    """/proc takes no new file, not even from root (a read-only folder would not stop root)."""
    monkeypatch.chdir(tmp_path)
    one_line_error(capsys, main(MV + ["--out", "/proc/vale-sim-curve.png"]),
                   "/proc/vale-sim-curve.png")
    assert list(tmp_path.iterdir()) == []


def test_values_and_defaults():
    assert C.parse_values("2..5") == [2, 3, 4, 5]
    assert C.parse_values("5, 2,2") == [2, 5]
    assert C.parse_values(range(1, 3)) == [1, 2]
    assert C.default_values("cost", 2) == [0, 1, 2, 3, 4, 5]          # clipped at 0
    assert C.default_values("cost", 8) == list(range(5, 12))
    assert C.default_values("cost_forest", 4) == list(range(1, 8))
    assert C.default_values("end_vp", 1) == [0, 1, 2, 3, 4]
    assert C.default_values("mana", 3) == list(range(1, 7))
    assert C.ranges_text([1, 2, 3, 5, 7, 8]) == "1..3, 5, 7..8"
    # the defaults keep only the values the game allows (Podlings' copies: 1 ..)
    pl = C.plan("Podlings", "copies", game="mystic-vale")
    assert pl["values"][0] == 1 and pl["printed"] == 2
    # the whole curve is counted against the cap: values x counts x 3 arms x games
    assert C.games_played("Podlings", "cost", "1..2", (2, 3), "mystic-vale", games=600) == \
        2 * 3 * (300 * 2 + 200 * 3)


def test_the_default_field_is_the_one_field():
    from vale_sim.strong_field import field_of
    for game in ("mystic-vale", "mystic-lands"):
        pl = C.plan("Meadow" if game == "mystic-lands" else "Podlings", "cost", game=game,
                    players=(2, 3))
        assert pl["baseline"] == field_of(game)
        assert [pl["bases"][p].name for p in (2, 3)] == \
            [field_of(game).replace("{P}", str(p)) for p in (2, 3)]


def test_findings_and_sentences_of_a_card_never_bought_at_its_printed_value():
    """Built by hand (no game): bought from value 2 down, balanced at 1 -- the sentence
    says both, with the acquisition share and n."""
    import pandas as pd
    rows = []
    for v, acq, verdict in ((0, 0.4, "over"), (1, 0.3, "balanced"), (2, 0.1, "inconclusive"),
                            (3, 0.0, "under"), (4, 0.0, "under")):
        rows.append({"players": 2, "value": v, "acquired": acq, "acquired_lo": acq / 2,
                     "acquired_hi": acq + 0.01, "verdict": verdict})
    f = C._findings(rows, 3, 500)
    assert f["never_bought_at_printed"] and f["bought_from"] == 2 and \
        f["balanced_nearest"] == 1
    df = pd.DataFrame(rows)
    df.attrs.update(config={"card": "X", "number": "cost", "printed": 3, "players": [2],
                            "values": [0, 1, 2, 3, 4]},
                    balanced=[1], balanced_by_players={"2": [1]}, findings={"2": f})
    text = " ".join(C.summary_lines(df))
    assert "Balanced range of X.cost: 1" in text and "printed 3, outside it" in text
    assert ("never buys X at its printed cost 3 (0 of 500 deals); it starts to be bought at 2 "
            "(acquired in 10.0% [5.0, 11.0] of the focal player's games, n=500 deals); it "
            "becomes balanced at 1") in text
    df.attrs.update(balanced=[], balanced_by_players={"2": []},
                    findings={"2": C._findings([dict(r, verdict="under") for r in rows], 3,
                                               500)})
    text = " ".join(C.summary_lines(df))
    assert "No value of X.cost from 0 to 4 is balanced" in text
    assert "no value asked is balanced" in text
