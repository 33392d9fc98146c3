"""The cost band guard (docs/balance.md, "Bounds"): an estimated cost is refit only
within the cost band of its card's level (Mystic Vale: its level decides its supply
deck), and a card the band leaves unbalanced is named with the band as the reason."""
from __future__ import annotations

import pytest

from vale_sim import balance as B
from vale_sim.games import get_game
from vale_sim.games.mystic_vale import cards as C

pytestmark = pytest.mark.compiled


def test_the_hook_gives_each_commons_cost_its_level_band():
    g = get_game("mystic-vale")
    cs = g.load_card_set("core")
    for a in cs.advancements:
        got = g.estimate_bounds(cs, a.name, "cost")
        if a.supply != "commons":
            assert got is None, a.name
        else:
            assert got[:2] == C.LEVEL_BANDS[a.level] and f"level {a.level}" in got[2]
        assert g.estimate_bounds(cs, a.name, "end_vp") is None
    assert get_game("mystic-lands").estimate_bounds is None


def test_an_over_card_at_its_band_top_is_not_priced_out_of_its_level():
    """Model L1 Sprout E (level 1, estimated cost 4, the top of the band 2..4; end VP 0)
    is over under meta-2p (natural value about +7 pp).  Without the band the refit made
    it cost 7, a level 2 price; with it no cost may rise and no end VP may fall, so the
    card is left unedited with the band as the reason."""
    b = B.balance("mystic-vale", None, ["cost", "end_vp"], ["Model L1 Sprout E"],
                  games=1000, seed=0, estimated_only=True)
    assert b.config["target_kinds"] == {"Model L1 Sprout E": "over"}
    assert not [e for e in b.edits if e["card"] == "Model L1 Sprout E" and e["new"] > 4]
    assert "the cost band 2..4 of level 1" in b.unbalanced["Model L1 Sprout E"]
