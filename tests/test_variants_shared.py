"""vale_sim.variants: rule variants played on common deals over the seatings of a
line-up, for any game (here the toy game of tests/pig.py); Mystic Lands' settings
studies use it with their game as the default (games/mystic_lands/studies/common.py)."""
from __future__ import annotations

import numpy as np
import pytest

import pig as pig_game
from vale_sim import variants as V


@pytest.fixture
def pig(monkeypatch):
    return pig_game.registered(monkeypatch)


def test_variants_of_another_game_share_their_deals(pig):
    rules = {"long": V.variant_rules({}, "pig"),
             "same": V.variant_rules({}, "pig"),
             "short": V.variant_rules({"target": 15}, "pig", where="variant short")}
    df = V.play_variants(rules, 2, 8, 3, ("bold", "cautious"), rotate=True,
                         engine="reference", game="pig", progress=False)
    assert set(df["variant"]) == set(rules) and df.groupby("variant")["rotation"].nunique().eq(2).all()
    assert (df["policy"].to_numpy() == np.array(["bold", "cautious"])[df["slot"].to_numpy()]).all()
    a, b = (df[df["variant"] == v].drop(columns="variant").reset_index(drop=True)
            for v in ("long", "same"))
    assert a.equals(b)                       # the same rules on the same deals: the same games
    rounds = {v: V.deal_means(g["rounds"], g["deal"]) for v, g in df.groupby("variant")}
    d = V.paired(rounds["short"], rounds["long"])
    assert d.n == 8 and d.hi < 0             # a lower target ends sooner, deal by deal
    e = V.mean_by_deal(df["score"], df["deal"])
    assert e.lo <= e.value <= e.hi


def test_the_games_default_policy_and_its_errors(pig):
    df = V.play_variants({"m": V.variant_rules({}, "pig")}, 3, 2, 1, engine="reference",
                         game="pig", progress=False)
    assert set(df["policy"]) == {pig.default_policy}
    with pytest.raises(V.VariantError, match="v: unknown rule option 'nope' of pig"):
        V.variant_rules({"nope": 1}, "pig", where="v")
    with pytest.raises(V.VariantError, match="players must be among 2, 3, got 2, 4"):
        V.parse_players("2,4", "pig")


def test_mystic_lands_studies_use_the_shared_error_and_defaults():
    from vale_sim.games.mystic_lands.studies import common as C
    assert C.StudyError is V.VariantError and C.paired is V.paired
    with pytest.raises(C.StudyError, match="players must be among 2, 3, 4"):
        C.parse_players("5")
