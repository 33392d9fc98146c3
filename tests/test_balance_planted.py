"""Planted errors in a copy of core under the defaults (the strongest field meta-{P}p,
the natural estimand; docs/balance.md "The planted tests"): the same proposal within
±1 under three seeds (small, in the fast selection), and a +3 end-VP error (slow)."""
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
    """A planted -2 cost on Feral Chieftain in a copy of core (natural value about +1 ->
    +4.5 pp under meta-2p: over): under seeds 0, 1 and 2 the proposal is the same number,
    its values within ±1 of each other and of the printed cost, and Model L3 Grove D
    (near balanced) is left alone each time.  2000 games per card and arm in the search
    (76,000 games per seed), 2000 in the confirmation.  (At 1000 games the screen missed
    the error under seed 2: 500 deals are below its detection limit.)"""
    path, printed = _plant(tmp_path, [("Feral Chieftain", "cost", -2)])
    got = []
    for seed in (0, 1, 2):
        b = B.balance("mystic-vale", path, ["cost", "end_vp"],
                      ["Feral Chieftain", "Model L3 Grove D"], games=2000, confirm_games=2000,
                      seed=seed)
        assert [(e["card"], e["field"]) for e in b.edits] == [("Feral Chieftain", "cost")], seed
        got.append(b.edits[0]["new"])
    assert max(got) - min(got) <= 1, got
    assert all(abs(v - printed["Feral Chieftain"]) <= 1 for v in got), (got, printed)


@pytest.mark.slow
def test_plus_three_end_vp_is_undone_above_the_detection_limit(tmp_path):
    """+3 end VP planted on Feral Chieftain (natural value about +1 -> +4.5 pp under
    meta-2p): at the default margin and 4000 games per card and arm the screen finds it
    and the search, allowed end_vp, proposes the printed end VP within ±1; Model L3
    Grove D gets no edit.  (Dawnsinger, the card of the first design, hardly moves under
    meta-2p: +3 end VP left its natural value within ±1 pp.)"""
    path, printed = _plant(tmp_path, [("Feral Chieftain", "end_vp", +3)])
    b = B.balance("mystic-vale", path, ["end_vp"], ["Feral Chieftain", "Model L3 Grove D"],
                  games=4000, confirm_games=2000, seed=0)
    by = {e["card"]: e for e in b.edits}
    assert "Feral Chieftain" in b.config["targets"]
    assert "Model L3 Grove D" not in by
    e = by["Feral Chieftain"]
    assert e["new"] < e["old"] and abs(e["new"] - printed["Feral Chieftain"]) <= 1, e
