"""Planted errors in a copy of core (docs/balance.md "Detection limit"): the same proposal
within ±1 under three seeds (small, in the fast selection), and a +3 end-VP error that
is found once the games are above the detection limit the docs state (slow)."""
from __future__ import annotations

import pytest

from vale_sim import balance as B
from vale_sim.games import get_game

pytestmark = pytest.mark.compiled


def _plant(tmp_path, plants):
    g = get_game("mystic-vale")
    cs = g.load_card_set(g.default_card_set)
    edits, printed = [], {}
    for card, fld, delta in plants:
        _, old, _ = g.edit_card(cs, card, fld, 0, True)
        printed[card] = old
        edits.append({"card": card, "field": fld, "old": old, "new": old + delta})
    p = tmp_path / "planted-core.toml"
    p.write_text(B.patch_card_file(cs.path, edits))
    return str(p), printed


def test_three_seeds_give_the_same_proposal_within_one_in_core(tmp_path):
    """A planted -2 cost on Feral Chieftain in a copy of core: under seeds 0, 1 and 2 the
    proposal is the same number, its values within ±1 of each other and of the printed
    cost, and Podlings is left alone each time.  1000 games per card and arm (38,000
    search games per seed).  (Calm Weather's -2 cost is too small an error for 1000
    games: under seed 1 the screen does not show it beyond the margin.)"""
    path, printed = _plant(tmp_path, [("Feral Chieftain", "cost", -2)])
    got = []
    for seed in (0, 1, 2):
        b = B.balance("mystic-vale", path, ["cost", "end_vp"], ["Feral Chieftain", "Podlings"],
                      games=1000, seed=seed)
        assert [(e["card"], e["field"]) for e in b.edits] == [("Feral Chieftain", "cost")], seed
        got.append(b.edits[0]["new"])
    assert max(got) - min(got) <= 1, got
    assert all(abs(v - printed["Feral Chieftain"]) <= 1 for v in got), (got, printed)


@pytest.mark.slow
def test_plus_three_end_vp_is_undone_above_the_detection_limit(tmp_path):
    """+3 end VP planted on Dawnsinger: at margin 1 pp and 6000 games per card and arm
    (above the detection limit) the screen finds it and the search, allowed end_vp,
    proposes the printed end VP within ±1; Podlings gets no edit."""
    path, printed = _plant(tmp_path, [("Dawnsinger", "end_vp", +3)])
    b = B.balance("mystic-vale", path, ["end_vp"], ["Dawnsinger", "Podlings"],
                  margin=0.01, games=6000, seed=0)
    by = {e["card"]: e for e in b.edits}
    assert "Dawnsinger" in b.config["targets"]
    assert "Podlings" not in by
    e = by["Dawnsinger"]
    assert e["new"] < e["old"] and abs(e["new"] - printed["Dawnsinger"]) <= 1, e
