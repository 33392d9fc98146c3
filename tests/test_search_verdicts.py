"""Verdicts under search play (vale_sim/search_verdicts.py, experiments/search_verdicts.py;
docs/search.md): the holds / does not hold / not shown rule, a tiny study with search
players as the field of every arm, the file check, the script's one-line errors and the
report part that reads the bundled file."""
from __future__ import annotations

import json

import pytest

from vale_sim import search_verdicts as SV

pytestmark = pytest.mark.compiled


@pytest.fixture(scope="module")
def script(experiment_script):
    return experiment_script("search_verdicts")


@pytest.mark.parametrize("ref,search,want", [
    ("over", "over", SV.HOLDS), ("under", "under", SV.HOLDS),
    ("over", "under", SV.NOT_HOLD), ("under", "balanced", SV.NOT_HOLD),
    ("over", "inconclusive", SV.NOT_SHOWN), ("balanced", "over", SV.NEW),
    ("inconclusive", "balanced", SV.NONE),
])
def test_the_rule(ref, search, want):
    assert SV.label(ref, search) == want


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, script):
    out = tmp_path_factory.mktemp("sv") / "sv.json"
    rc = script.main(["--game", "mystic-vale", "--name", "tiny", "--field",
                      "search:k=2:rollout=meta-{P}p", "--cards", "Stag,Model L2 Bloom I",
                      "--deals", "3", "--reference-deals", "12", "--seed", "2",
                      "--twin", "Stag=Model L2 Bloom I", "--expect", "Stag=under",
                      "--out", str(out)])
    assert rc == 0
    return out


def test_a_tiny_study_measures_both_fields_on_the_same_deals(tiny):
    doc = SV.read(tiny)
    st = doc["studies"]["tiny"]
    assert st["field_policy"] == "search:k=2:rollout=meta-2p"
    assert st["reference_policy"] == "meta-2p" and st["deals"] == 3
    assert [c["card"] for c in st["cards"]] == ["Stag", "Model L2 Bloom I"]
    for c in st["cards"]:
        assert c["search"]["n_deals"] == 3 and c["reference"]["n_deals"] == 12
        for who in ("search", "reference"):
            x = c[who]
            assert x["natural_lo"] <= x["natural_value"] <= x["natural_hi"]
        assert c["label"] == SV.label(c["reference"]["verdict"], c["search"]["verdict"])
    assert st["twins"][0]["search"]["n_deals"] == 3
    assert st["command"].startswith("experiments/search_verdicts.py --game mystic-vale")
    assert "'search:k=2:rollout=meta-{P}p'" in st["command"]
    assert SV.stale(st, "mystic-vale") == []


def test_the_report_part_reads_the_file_with_n_and_intervals(tiny, monkeypatch):
    monkeypatch.setattr(SV, "bundled_path", lambda game: tiny)
    paras, top, tables = SV.section_parts("mystic-vale")
    assert paras[0].startswith("**Verdicts under search play** — tiny (precomputed by")
    t = top["search_verdicts_tiny"]
    assert list(t["card"]) == ["Stag", "Model L2 Bloom I"]
    assert t["n (search:k=2:rollout=meta-2p)"].iloc[0] == "3 deals = 12 games"
    assert all("[" in x for x in t["natural value, pp (meta-2p)"])
    assert "Planted: `Stag` should read under" in paras[0]
    # a re-bundled field reads out of date
    doc = json.loads(tiny.read_text())
    doc["studies"]["tiny"]["reference_digest"] = "0" * 16
    other = tiny.with_name("other.json")
    other.write_text(json.dumps(doc))
    monkeypatch.setattr(SV, "bundled_path", lambda game: other)
    assert "**Out of date:** `meta-{P}p`" in SV.section_parts("mystic-vale")[0][0]


def test_missing_and_damaged_files_are_one_sentence(tmp_path, monkeypatch):
    monkeypatch.setattr(SV, "bundled_path", lambda game: tmp_path / "none.json")
    paras, top, _ = SV.section_parts("mystic-lands")
    assert len(paras) == 1 and "not measured for Mystic Lands" in paras[0] and not top
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "vale-sim search verdicts", "studies": {"x": {}}}')
    monkeypatch.setattr(SV, "bundled_path", lambda game: bad)
    paras, top, _ = SV.section_parts("mystic-vale")
    assert "not shown" in paras[0] and "no 'field' field" in paras[0] and not top


@pytest.mark.parametrize("argv,word", [
    (["--cards", "No Such Card"], "unknown card 'No Such Card'"),
    ([], "--cards"),
    (["--cards", "Stag", "--twin", "Stag"], "--twin 'Stag'"),
    (["--cards", "Stag", "--field", "search:k=0"], "k must be"),
])
def test_bad_input_is_one_line_and_writes_nothing(script, tmp_path, capsys, argv, word):
    out = tmp_path / "o.json"
    assert script.main(argv + ["--deals", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and word in err, err
    assert not out.exists()


def test_out_refuses_a_file_that_is_not_a_verdicts_file(script, tmp_path, capsys):
    out = tmp_path / "o.json"
    out.write_text("keep me")
    assert script.main(["--cards", "Stag", "--deals", "2", "--out", str(out)]) == 2
    assert "refusing to replace it" in capsys.readouterr().err
    assert out.read_text() == "keep me"


def test_the_bundled_file_if_any_is_complete():
    path = SV.bundled_path("mystic-vale")
    if not path.is_file():
        pytest.skip("no bundled search verdicts")
    doc = SV.read(path)
    for name, st in doc["studies"].items():
        assert st["command"].startswith(SV.SCRIPT)
        assert f"--deals {st['deals']}" in st["command"]
        for c in st["cards"]:
            assert c["search"]["n_deals"] == st["deals"]
            assert c["reference"]["n_deals"] == st["reference_deals"]
