"""balance --draft plays the strong field by default, like balance (issue 27: balance
"under the strongest field"); --baseline still overrides it."""
from __future__ import annotations

import pytest

from vale_sim import draft as D
from vale_sim.strong_field import field_of
from vale_sim.cli import main
from vale_sim.games import get_game

pytestmark = pytest.mark.compiled


class _Stop(Exception):
    pass


def _first_policies(**kw):
    """The bots the draft's first game is played with (no game is played)."""
    seen = []

    def play(cs, p, s, n, policies, *a, **k):
        seen.append(policies)
        raise _Stop
    with pytest.raises(_Stop):
        D.fill_in("mystic-lands", players=(2,), deals=2, keys=["end_cubes"], play=play, **kw)
    return seen[0]


def test_the_default_bots_are_the_strong_field():
    g = get_game("mystic-lands")
    cs = g.load_card_set(g.default_card_set)
    assert field_of(g) == "value-{P}p"
    strong = g.resolve_baseline("value-2p", 2, cs)
    assert _first_policies() == [strong]
    assert strong != g.resolve_baseline(g.default_policy, 2, cs)


def test_baseline_overrides_and_is_recorded():
    g = get_game("mystic-lands")
    cs = g.load_card_set(g.default_card_set)
    assert _first_policies(baseline="balanced") == [g.resolve_baseline("balanced", 2, cs)]
    d = D.fill_in("mystic-lands", players=(2,), deals=2, keys=["end_cubes"])
    assert d.to_json()["baseline"] == field_of(g)
    assert d.to_json()["field"] == "value-2p" and "field value-2p" in d.text()
    assert set(d.to_json()["baseline_digest"]) == {"2"}
    assert d.to_json()["digest"] == cs.digest()          # the card set it was measured on


def test_an_unknown_baseline_is_one_line(capsys):
    assert main(["balance", "--game", "mystic-lands", "--draft", "--players", "2",
                 "--baseline", "no-such-bots", "--games", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--baseline no-such-bots" in err and len(err.splitlines()) == 1


def test_the_report_section_refuses_a_result_of_another_version_of_the_set(tmp_path,
                                                                          monkeypatch):
    """The draft result records the digest of the set it was measured on: the report's
    section does not present it for a set of the same name with other numbers."""
    import json
    from vale_sim.games.mystic_lands.studies import fill_in
    g = get_game("mystic-lands")
    cs = g.load_card_set(g.default_card_set)
    res = json.loads(fill_in.BUNDLED.read_text())
    stale = tmp_path / "draft.json"
    stale.write_text(json.dumps({**res, "digest": "0000000000000000"}))
    monkeypatch.setattr(fill_in, "BUNDLED", stale)

    class Ctx:
        def card_set(self):
            return cs
    s = fill_in.section_fill_in(Ctx())
    assert "0000000000000000" in s.paragraphs[0] and not s.tables
