"""The skill ladder (vale_sim/skill_ladder.py, experiments/skill_ladder.py; docs/skill-ladder.md):
the matchup estimate of a policy against a copy of itself covers the fair share, a
pure mixture is the level it plays, the same seed gives the same ladder, added levels
take their place, the bundled files are complete (n, intervals, command) and the
report section renders from them, and a damaged ladder file is one line, exit 2."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from vale_sim import skill_ladder as sl

import rps_game

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def script(experiment_script):
    return experiment_script("skill_ladder")


def _cells(r) -> dict:
    return {(a, b): c for a, row in zip(r["levels"], r["matrix"]) for b, c in zip(r["levels"], row)}


# ---------------------------------------------------------------------------
# The estimates (the toy game: reference engine, a second a ladder)
# ---------------------------------------------------------------------------
def _twin():
    # throws rock like "rock" but draws other random numbers: other games, the same law
    return rps_game.RpsPolicy("rock-twin", 0, noise=3)


@pytest.mark.parametrize("players", [2, 3])
def test_a_policy_against_its_twin_covers_the_fair_share(rps, players):
    r = sl.ladder("rps", players, 300, 5, engine="reference", extra=[_twin()])
    m = _cells(r)
    fair = 1 / players
    for a, b in (("rock", "rock-twin"), ("rock-twin", "rock")):
        c = m[(a, b)]
        assert not c.get("exact")                   # real games, a real interval
        assert c["lo"] <= fair <= c["hi"], (a, b, c)
        if players > 2:          # at 2 the toy's two seatings of a deal split it exactly
            assert c["hi"] - c["lo"] > 0.01
        assert c["n"] == players * 300 and c["deals"] == 300
    # a level against itself: 1/P exactly
    assert m[("rock", "rock")]["exact"] and m[("rock", "rock")]["value"] == pytest.approx(fair)
    # and the ladder tells the levels apart: paper beats rock by the toy's edge
    assert m[("paper", "rock")]["lo"] > fair
    assert r["kinds"] == ["preset", "preset", "preset", "added"]


def test_the_same_seed_gives_the_same_ladder_and_another_seed_other_games(rps):
    a = sl.ladder("rps", 2, 200, 3, engine="reference")
    b = sl.ladder("rps", 2, 200, 3, engine="reference")
    c = sl.ladder("rps", 2, 200, 4, engine="reference")
    for d in (a, b, c):
        d.pop("seconds")
    assert a == b
    assert a["matrix"] != c["matrix"]


def test_a_pure_mixture_is_the_level_it_plays(rps, tmp_path):
    """The meta run's mixture all on one member: its row and column are that member's,
    and mixture vs member is exact (the same policy in every seat)."""
    meta = tmp_path / "meta"
    meta.mkdir()
    (meta / "br0.toml").write_text('base = "paper"\nname = "br0"\nthrow = 1\n')
    (meta / "mixture.json").write_text(json.dumps({
        "files": {"rock": "rock.toml", "br0": "br0.toml"},
        "mixture": {"rock": 0.0, "br0": 1.0}}))
    r = sl.ladder("rps", 2, 200, 1, meta_dir=meta, engine="reference")
    assert r["levels"][-2:] == ["br0", "meta mixture"]
    assert r["kinds"][-2:] == ["best response", "mixture"]
    m = _cells(r)
    for lv in r["levels"][:-2]:
        assert m[("meta mixture", lv)] == m[("br0", lv)]
        assert m[(lv, "meta mixture")] == m[(lv, "br0")]
    assert m[("meta mixture", "br0")]["exact"]
    assert r["first_player"][-1] == r["first_player"][-2]
    assert "random" in r["missing_kinds"] and "optimized" in r["missing_kinds"]


def test_the_level_kinds_are_extensible(rps, monkeypatch):
    """A provider inserted into LEVEL_KINDS gives levels of its kind at its place
    (here before the --level policies)."""
    kinds = list(sl.LEVEL_KINDS)
    at = [k for k, _ in kinds].index("added")
    kinds.insert(at, ("search", lambda g, P, cs, o: [("search-k2", rps_game.PRESETS["scissors"])]))
    monkeypatch.setattr(sl, "LEVEL_KINDS", kinds)
    lv, mix = sl.levels(rps_game.GAME, 2, extra=[_twin()])
    assert [(a, k) for a, _, k in lv] == [("rock", "preset"), ("paper", "preset"),
                                          ("scissors", "preset"), ("search-k2", "search"),
                                          ("rock-twin", "added")]
    assert mix is None
    # its ladder file passes the check and renders, with the new kind recorded
    r = sl.ladder("rps", 2, 50, 0, engine="reference")
    assert sl.check_ladder(r, "x")["kinds"][3] == "search"
    assert "search-k2" in sl.markdown(r) and len(sl.wide_frame(r)) == 4


def test_a_cell_is_the_deal_clustered_share_of_its_games(rps):
    """The cell of (paper, rock) at 3 players: the win share of one paper player over the
    3 seatings of each deal, with the interval clustered by deal, from the games
    themselves (tournament.focal_shares)."""
    import numpy as np
    from vale_sim import optimize as opt
    from vale_sim import stats
    from vale_sim.tournament import focal_shares
    r = sl.ladder("rps", 3, 150, 4, engine="reference")
    c = _cells(r)[("paper", "rock")]
    sh, _ = focal_shares(rps_game.Hands(), 3, opt.derived_seed(4, sl.LADDER_TAG), 150,
                         rps_game.PRESETS["paper"], rps_game.PRESETS["rock"], engine="reference",
                         game="rps")
    e = stats.cluster_rate(sh.ravel(), np.tile(np.arange(150), 3))
    assert (c["value"], c["lo"], c["hi"], c["n"], c["deals"]) == pytest.approx(
        (e.value, e.lo, e.hi, 450, 150))
    naive = stats.cluster_rate(sh.ravel())            # as if the 450 games were independent
    assert (naive.lo, naive.hi) != pytest.approx((c["lo"], c["hi"]))


def test_a_mixed_mixture_weights_its_members(rps, tmp_path):
    """A 0.25 / 0.75 mixture of rock and paper: as a column, the row's shares against
    each member weighted; as a row, the members' shares weighted."""
    meta = tmp_path / "meta"
    meta.mkdir()
    (meta / "mixture.json").write_text(json.dumps({
        "files": {"rock": "rock.toml", "paper": "paper.toml"},
        "mixture": {"rock": 0.25, "paper": 0.75}}))
    (meta / "rock.toml").write_text('base = "rock"\nname = "rock"\n')
    (meta / "paper.toml").write_text('base = "paper"\nname = "paper"\nthrow = 1\n')
    r = sl.ladder("rps", 3, 120, 6, meta_dir=meta, engine="reference")
    m = _cells(r)
    assert r["mixture"] == {"rock": 0.25, "paper": 0.75}
    for lv in ("rock", "paper", "scissors"):
        want = 0.25 * m[(lv, "rock")]["value"] + 0.75 * m[(lv, "paper")]["value"]
        assert m[(lv, "meta mixture")]["value"] == pytest.approx(want, abs=1e-12)
    want = 0.25 * m[("rock", "scissors")]["value"] + 0.75 * m[("paper", "scissors")]["value"]
    assert m[("meta mixture", "scissors")]["value"] == pytest.approx(want, abs=1e-12)
    assert not m[("meta mixture", "rock")].get("exact")
    assert m[("meta mixture", "meta mixture")]["exact"]


# ---------------------------------------------------------------------------
# The bundled files and the report section
# ---------------------------------------------------------------------------
GAMES = ["mystic-vale", "mystic-lands"]
INTERVAL = re.compile(r"^\d+\.\d \[\d+\.\d, \d+\.\d\]$|^\d+\.\d \(exact\)$")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_bundled_ladder_is_complete_and_reproducible_by_its_command(game, players):
    path = sl.bundled_path(game, players)
    r = sl.read_ladder(path)                       # passes the file check
    assert r["format"] == sl.FORMAT and r["game"] == game and r["players"] == players
    cmd = r["command"]
    assert cmd.startswith(sl.SCRIPT)
    for opt in (f"--game {game}", f"--players {players}", f"--deals {r['deals']}",
                f"--seed {r['seed']}", "--meta", f"--out {path.relative_to(ROOT)}"):
        assert opt in cmd, opt
    for row in r["matrix"]:
        for c in row:
            assert c["n"] == players * r["deals"] and c["deals"] == r["deals"]
            assert c["lo"] <= c["value"] <= c["hi"]
    assert all(fp["n"] == r["deals"] for fp in r["first_player"])
    assert r["kinds"][-1] == "mixture"
    # the meta run's best responses are levels exactly when the run added any (a run
    # that converged at once, e.g. Mystic Vale 3-4 players, has none)
    import json
    pop = json.loads((ROOT / r["meta"] / "meta.json").read_text())["population"]
    assert ("best response" in r["kinds"]) == any(n.startswith("br") for n in pop)
    # both orders of a pair at 2 players are one set of games: shares add to 1
    if players == 2:
        k = len(r["levels"])
        for i in range(k):
            for j in range(k):
                v = r["matrix"][i][j]["value"] + r["matrix"][j][i]["value"]
                assert v == pytest.approx(1, abs=1e-9), (r["levels"][i], r["levels"][j])


@pytest.mark.parametrize("game", GAMES)
def test_the_report_section_renders_the_bundled_ladders_with_n_and_intervals(game, tmp_path):
    from vale_sim.report import Context, render
    sec = sl.section_skill_ladder(Context(settings=None, game=game, progress=False))
    assert sec.title.startswith("How much does skill matter?")
    assert [k for k in sec.top_tables if not k.endswith("_partial")] == [
        f"skill_ladder_{P}p{x}" for P in (2, 3, 4) for x in ("", "_by_level")]
    assert [f[0] for f in sec.figures] == [f"skill_ladder_{P}p" for P in (2, 3, 4)]
    for P in (2, 3, 4):
        r = sl.read_ladder(sl.bundled_path(game, P))
        wide = sec.top_tables[f"skill_ladder_{P}p"]
        assert list(wide["one player of"]) == r["levels"]
        for col in wide.columns[1:]:
            assert all(INTERVAL.match(x) for x in wide[col]), col
        # a cell of the table is the file's number
        c = r["matrix"][-1][0]
        assert wide.iloc[-1, 1] == sl.cell_text(c)
        cells = sec.tables[f"skill_ladder_{P}p_cells"]
        assert len(cells) == len(r["levels"]) ** 2 and (cells.n == P * r["deals"]).all()
        lv = sec.tables[f"skill_ladder_{P}p_levels"]
        assert list(lv.seat1_win) == [fp["value"] for fp in r["first_player"]]
        by = sec.top_tables[f"skill_ladder_{P}p_by_level"]
        assert list(by.level) == r["levels"]
        assert list(by.iloc[:, 2]) == [sl.cell_text(fp) for fp in r["first_player"]]
        assert f"n = {r['deals']}" in by.columns[2] and f"n = {P * r['deals']}" in by.columns[5]
        text = " ".join(sec.paragraphs)
        assert f"**{P} players** (`{r['command']}`" in text
        assert f"n = {P * r['deals']} player-games per cell" in sl.caption(r)
    render([sec], tmp_path, "t")
    md = (tmp_path / "report.md").read_text()
    assert "How much does skill matter?" in md and "first player wins" in md
    assert (tmp_path / "figures" / "skill_ladder_3p.png").stat().st_size > 5000
    # the exploitability of the mixture at 2 players, from the bundled exploit table
    x = sl.exploit_rows(game)[(2, "meta-2p")]
    assert (f"a best response (`vale-sim exploit`) beats `meta-2p` {100 * x.win_share:.1f}% "
            f"[{100 * x.win_lo:.1f}, {100 * x.win_hi:.1f}]") in " ".join(sec.paragraphs)


def test_both_reports_list_the_section():
    from vale_sim.games import get_game
    from vale_sim.report import game_report
    for game in GAMES:
        names = [f.__name__ for f in game_report(get_game(game)).sections()]
        assert "section_skill_ladder" in names
        assert names.index("section_skill_ladder") < names.index("section_exploitability")


def test_the_exploitability_of_a_level_comes_from_the_bundled_table():
    r = sl.read_ladder(sl.bundled_path("mystic-vale", 2))
    ex = sl.exploit_rows("mystic-vale")
    lf = sl.level_frame(r, ex).set_index("level")
    row = ex[(2, "optimized-2p")]
    assert lf.loc["optimized-2p", "br_win_rate"] == row.win_share
    assert lf.loc["meta mixture", "br_target"] == "meta-2p"


# ---------------------------------------------------------------------------
# Damaged files and bad options: one line, exit 2, nothing written
# ---------------------------------------------------------------------------
def _good():
    return json.loads(sl.bundled_path("mystic-vale", 2).read_text())


def _break(doc, how):
    if how == "not json":
        return "{not json"
    if how == "no matrix":
        doc.pop("matrix")
    elif how == "lo above value":
        doc["matrix"][0][1]["lo"] = doc["matrix"][0][1]["value"] + 0.1
    elif how == "no n":
        doc["first_player"][2].pop("n")
    elif how == "ragged":
        doc["matrix"][3] = doc["matrix"][3][:-1]
    elif how == "a list":
        doc = [doc]
    elif how == "kinds short":
        doc["kinds"] = doc["kinds"][:-1]
    return json.dumps(doc)


@pytest.mark.parametrize("how", ["not json", "no matrix", "lo above value", "no n", "ragged",
                                 "a list", "kinds short"])
def test_a_damaged_ladder_file_is_one_line_and_exit_2(script, tmp_path, capsys, how):
    bad = tmp_path / "ladder.json"
    bad.write_text(_break(_good(), how))
    assert script.main(["--show", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(bad) in err and "skill_ladder.py" in err
    assert "Traceback" not in err


def test_the_report_shows_a_damaged_file_in_place_of_its_ladder(tmp_path, monkeypatch):
    bad = tmp_path / "skill-ladder-mystic-vale-3p.json"
    bad.write_text(_break(_good(), "no matrix"))
    real = sl.bundled_path
    monkeypatch.setattr(sl, "bundled_path", lambda g, P: bad if P == 3 else real(g, P))
    title, paras, tables, figs, top = sl.section_parts("mystic-vale")
    assert {k for k in top if not k.endswith("_partial")} == {
        "skill_ladder_2p", "skill_ladder_2p_by_level", "skill_ladder_4p",
        "skill_ladder_4p_by_level"}
    assert "skill_ladder_3p_partial" not in top
    assert any(p.startswith("**3 players: not shown.**") and str(bad) in p for p in paras)


def test_out_refuses_a_file_that_is_not_a_ladder_and_leaves_it(script, tmp_path, capsys):
    other = tmp_path / "notes.json"
    other.write_text('{"mine": 1}')
    assert script.main(["--game", "mystic-vale", "--deals", "1", "--out", str(other)]) == 2
    assert other.read_text() == '{"mine": 1}'
    assert "not a skill ladder file" in capsys.readouterr().err


@pytest.mark.parametrize("argv, word", [(["--deals", "0"], "--deals"),
                                        (["--players", "5"], "--players"),
                                        (["--seed", "-1"], "--seed"),
                                        (["--game", "chess"], "--game")])
def test_bad_options_are_one_line(script, capsys, argv, word):
    try:
        rc = script.main(argv + ["--out", "/nonexistent-folder/x.json"])
    except SystemExit as e:                       # argparse's own exit
        rc = e.code
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and word in err


# ---------------------------------------------------------------------------
# Interrupted runs keep what they played
# ---------------------------------------------------------------------------
def test_an_interrupted_ladder_continues_from_its_checkpoint(rps, tmp_path, monkeypatch):
    from vale_sim import optimize as opt
    fresh = sl.ladder("rps", 3, 60, 2, engine="reference", extra=[_twin()])
    real, calls, stop = opt.GameObjective.many_shares, [], [True]

    def breaks(self, pairs, *a, **k):
        calls.append(len(pairs))
        if len(calls) == 4 and stop[0]:
            stop[0] = False
            raise KeyboardInterrupt
        return real(self, pairs, *a, **k)
    ck = tmp_path / "l.partial.npz"
    monkeypatch.setattr(opt.GameObjective, "many_shares", breaks)
    with pytest.raises(KeyboardInterrupt):
        sl.ladder("rps", 3, 60, 2, engine="reference", extra=[_twin()], checkpoint=ck)
    assert sl.is_checkpoint(ck)
    kept = sl._load_checkpoint(ck, sl._checkpoint_key(
        "rps", 3, 60, fresh["deal_seed"], "reference", rps_game.Hands(),
        [p for _, p, _ in sl.levels(rps_game.GAME, 3, extra=[_twin()])[0]]), 3, 60)
    assert len(kept) == sum(calls[:3])                # the three chunks played before the stop
    calls.clear()
    again = sl.ladder("rps", 3, 60, 2, engine="reference", extra=[_twin()], checkpoint=ck)
    assert sum(calls) == 12 - len(kept)               # 4 levels: 12 matchups in all
    for d in (fresh, again):
        d.pop("seconds")
    assert again == fresh
    # another seed does not use it
    calls.clear()
    sl.ladder("rps", 3, 60, 9, engine="reference", extra=[_twin()], checkpoint=ck)
    assert sum(calls) == 12


def test_the_script_refuses_a_checkpoint_path_it_did_not_write(script, tmp_path, capsys):
    out = tmp_path / "l.json"
    mine = tmp_path / "l.partial.npz"
    mine.write_text("my notes")
    assert script.main(["--game", "mystic-vale", "--deals", "1", "--out", str(out)]) == 2
    assert mine.read_text() == "my notes" and not out.exists()
    assert "not a skill ladder checkpoint" in capsys.readouterr().err


def test_the_bundled_ladders_ship_in_a_wheel():
    """pyproject's package-data holds a pattern that matches every bundled ladder file
    (the report reads them from the installed package)."""
    import fnmatch
    import tomllib
    pats = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["vale_sim"]
    for game in GAMES:
        for P in (2, 3, 4):
            rel = sl.bundled_path(game, P).relative_to(ROOT / "vale_sim").as_posix()
            assert any(fnmatch.fnmatchcase(rel, p) and rel.count("/") == p.count("/")
                       for p in pats), rel


def test_a_meta_run_that_added_no_best_response_is_not_called_missing():
    from vale_sim.skill_ladder import WHY_MISSING, why_missing
    assert why_missing("best response", {}, 2) == WHY_MISSING["best response"]
    given = why_missing("best response", {"meta": "data/meta/{2}p"}, 2)
    assert given.startswith("the meta run (data/meta/{2}p) added no best response")
    assert why_missing("lookahead", {"meta": "x"}, 3) == WHY_MISSING["lookahead"]
    assert "optimized-{N}p" in why_missing("other count", {}, 3)     # {{N}}: a literal {N}
