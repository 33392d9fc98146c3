"""Planted errors in a copy of core under the defaults (the strongest field value-{P}p,
the natural estimand; docs/balance.md "The planted tests"): the same proposal within
±1 under three seeds (small, in the fast selection), a +3 end-VP error (slow), and the
planted set of issue 40 -- too expensive, too strong, never bought -- at two seeds (slow)."""
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


# The planted set of issue 40 (docs/balance.md, "The planted set"): a card made too
# expensive, one made too strong and a cheap card made so dear that the field almost
# never buys it, next to four near-balanced partners; experiments/balance_planted.py
# prints the full runs.
PLANTS = [("Model L1 Sprout B", "cost", +3),     # 4 -> 7: under (per forced pick)
          ("Model L2 Bloom D", "end_vp", +5),    # 0 -> 5: over (natural about +7 pp)
          ("Podlings", "cost", +6)]              # 2 -> 8: bought in ~1 deal of 1000
PARTNERS = ["Model L3 Grove D", "Woodland Warden", "Model L1 Sprout C", "Dawnsinger"]
TOLERANCE = 1                                    # the proposal within ±1 of the printed value


@pytest.mark.slow
def test_the_planted_set_is_undone_at_two_seeds_which_agree(tmp_path):
    """Each plant gets an edit of its number in the right direction, within ±1 of the
    printed value; the partners are left alone (at most one extra edit, confirmed);
    every proposal is confirmed; the two seeds give the same edits for >= 80 % of them.
    2000 games per card and arm in the screen, 4000 in the confirmation (about 300,000
    games per seed; 21-36 s per seed at load 4 on the 2-core machine, docs/balance.md)."""
    path, printed = _plant(tmp_path, PLANTS)
    got = []
    for seed in (0, 1):
        b = B.balance("mystic-vale", path, ["cost", "end_vp"],
                      [c for c, _, _ in PLANTS] + PARTNERS, games=2000, seed=seed)
        by = {e["card"]: e for e in b.edits}
        assert all(e["confirmed"] for e in b.edits)
        assert not {e["edit"] for e in b.unconfirmed} & {e["edit"] for e in b.edits}
        for card, fld, delta in PLANTS:
            e = by.get(card)
            assert e is not None, (seed, card, b.summary)
            assert e["field"] == fld and (e["new"] - e["old"]) * delta < 0, (seed, e)
            assert abs(e["new"] - printed[card]) <= TOLERANCE, (seed, e, printed[card])
        extra = [e for e in b.edits if e["card"] in PARTNERS]
        assert len(extra) <= 1, (seed, extra)
        got.append({(e["card"], e["field"], e["new"]) for e in b.edits})
    union = got[0] | got[1]
    assert len(got[0] & got[1]) >= 0.8 * len(union), got
