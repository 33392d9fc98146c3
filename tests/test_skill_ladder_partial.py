"""Partial rows of the skill ladder (docs/skill-ladder.md §9): a level too slow for a
whole row (the search player) played against chosen columns only, on the first deals
of the same ladder, kept in the ladder file next to its matrix and shown by --show and
the report section.  The toy game (rps, reference engine) keeps it to seconds."""
from __future__ import annotations

import json

import pytest

from vale_sim import skill_ladder as sl


@pytest.fixture(scope="module")
def script(experiment_script):
    return experiment_script("skill_ladder")


def _meta(tmp_path):
    meta = tmp_path / "meta"
    meta.mkdir()
    (meta / "br0.toml").write_text('base = "paper"\nname = "br0"\nthrow = 1\n')
    (meta / "mixture.json").write_text(json.dumps({
        "files": {"rock": "rock.toml", "br0": "br0.toml"}, "mixture": {"rock": 0.0, "br0": 1.0}}))
    return meta


def _cell(r, a, b):
    return r["matrix"][r["levels"].index(a)][r["levels"].index(b)]


def test_a_partial_row_plays_the_first_deals_of_the_ladder(rps, tmp_path):
    """A row on the first 60 of a 120-deal ladder's deals is the cell a whole ladder of 60
    deals (the same seed) has for that level: the same deals, the same games."""
    meta = _meta(tmp_path)
    big = sl.ladder("rps", 3, 120, 4, meta_dir=meta, engine="reference")
    small = sl.ladder("rps", 3, 60, 4, meta_dir=meta, engine="reference", extra=["scissors"])
    row = sl.partial_row(big, "scissors", ["rock", "meta mixture", "br0"], 60, 40)
    assert row["deals"] == 60 and row["first_deals"] == 40
    for col in ("rock", "meta mixture", "br0"):
        want = _cell(small, "scissors", col)
        got = row["cells"][col]
        for k in ("value", "lo", "hi", "n", "deals"):
            assert got[k] == pytest.approx(want[k]), (col, k)
        assert got["n"] == 3 * 60
    # the pure mixture is its member; the first player's rate has its own n
    assert row["cells"]["meta mixture"]["value"] == row["cells"]["br0"]["value"]
    assert row["first_player"]["n"] == 40
    doc = sl.check_ladder(sl.add_partial(big, row), "x")
    assert doc["matrix"] == big["matrix"]                       # the matrix is kept
    again = sl.add_partial(doc, dict(row, deals=50))
    assert [r["deals"] for r in again["partial"]] == [50]      # one row per level


def test_the_script_adds_rows_keeps_the_matrix_and_shows_them(rps, tmp_path, script, capsys):
    meta = _meta(tmp_path)
    out = tmp_path / "ladder.json"
    assert script.main(["--game", "rps", "--players", "2", "--deals", "80", "--seed", "1",
                        "--meta", str(meta), "--engine", "reference", "--out", str(out),
                        "--no-progress"]) == 0
    before = json.loads(out.read_text())
    assert script.main(["--add-to", str(out), "--level", "scissors", "--against",
                        "rock,meta mixture", "--deals", "30", "--first-deals", "20",
                        "--no-progress"]) == 0
    doc = sl.read_ladder(out)
    assert doc["matrix"] == before["matrix"] and doc["command"] == before["command"]
    [row] = doc["partial"]
    assert row["level"] == "scissors" and set(row["cells"]) == {"rock", "meta mixture"}
    assert row["command"].startswith("experiments/skill_ladder.py --add-to")
    assert "'rock,meta mixture'" in row["command"]              # quoted: runs as printed
    assert script.main(["--show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "One `scissors` player (a partial row" in shown and "n = 60 player-games" in shown
    # a whole-ladder run of the same seed keeps the rows
    assert script.main(["--game", "rps", "--players", "2", "--deals", "80", "--seed", "1",
                        "--meta", str(meta), "--engine", "reference", "--out", str(out),
                        "--no-progress"]) == 0
    assert sl.read_ladder(out)["partial"] == doc["partial"]


@pytest.mark.parametrize("argv,word", [
    (["--against", "lizard"], "--against lizard: not a level"),
    (["--deals", "500"], "--deals 500: more than the ladder's 40"),
    ([], "--against"),
])
def test_bad_partial_rows_are_one_line_and_leave_the_file(rps, tmp_path, script, capsys,
                                                          argv, word):
    out = tmp_path / "ladder.json"
    assert script.main(["--game", "rps", "--players", "2", "--deals", "40", "--engine",
                        "reference", "--out", str(out), "--no-progress"]) == 0
    text = out.read_text()
    capsys.readouterr()
    base = ["--add-to", str(out), "--level", "scissors", "--deals", "20", "--no-progress"]
    if argv[:1] != ["--against"] and argv:
        base += ["--against", "rock"]
    elif not argv:
        pass
    assert script.main(base + argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and word in err, err
    assert out.read_text() == text


def test_a_damaged_partial_row_is_named(rps, tmp_path):
    r = sl.ladder("rps", 2, 30, 0, engine="reference")
    row = sl.partial_row(r, "scissors", ["rock"], 20)
    bad = sl.add_partial(r, row)
    bad["partial"][0]["cells"]["rock"]["lo"] = 0.99
    with pytest.raises(Exception, match="partial\\[0\\] vs rock: the interval"):
        sl.check_ladder(bad, "f.json")
    bad["partial"][0]["cells"]["rock"] = {"value": 0.5, "lo": 0.4, "hi": 0.6}
    with pytest.raises(Exception, match="sample size n"):
        sl.check_ladder(bad, "f.json")


def test_the_report_section_shows_partial_rows_with_n_and_says_when_stale(
        rps, tmp_path, monkeypatch):
    from vale_sim.report import Context
    r = sl.ladder("rps", 2, 40, 0, engine="reference")
    row = sl.partial_row(r, "scissors", ["rock", "paper"], 25, 10)
    row["command"] = "experiments/skill_ladder.py --add-to X"
    doc = sl.add_partial(r, row)
    path = tmp_path / "skill-ladder-rps-2p.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setattr(sl, "bundled_path", lambda game, P: path if P == 2 else tmp_path / "no")
    sec = sl.section_skill_ladder(Context(settings=None, game="rps", progress=False))
    top = sec.top_tables["skill_ladder_2p_partial"]
    assert list(top["one player of"]) == ["scissors"]
    c = row["cells"]["rock"]
    assert top["vs rock"].iloc[0] == f"{sl.cell_text(c)} (n = {c['n']})" and c["n"] == 50
    assert top["first player wins"].iloc[0].endswith("(n = 10)")
    text = " ".join(sec.paragraphs)
    assert "**2 players, partial row:** One `scissors` player" in text
    assert "Out of date" not in text
    doc["partial"][0]["cells"]["rock"]["digest"] = "0" * 16       # the column changed since
    path.write_text(json.dumps(doc))
    sec = sl.section_skill_ladder(Context(settings=None, game="rps", progress=False))
    assert "**Out of date:** `rock`" in " ".join(sec.paragraphs)


def test_a_partial_row_refuses_a_ladder_played_on_another_version_of_its_set(rps):
    """The ladder records its card set's digest; a row added after the set changed
    would compare a level on the new set with columns played on the old one."""
    r = sl.ladder("rps", 2, 30, 0, engine="reference")
    assert r["card_set_digest"]
    sl.partial_row(r, "scissors", ["rock"], 20)            # the same set: fine
    stale = dict(r, card_set_digest="0" * 16)
    with pytest.raises(sl.UserError, match="re-run the ladder"):
        sl.partial_row(stale, "scissors", ["rock"], 20)
