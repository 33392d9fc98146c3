"""Card values: the paired value finds a planted card; observational statistics."""
import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from vale_sim.advancements import (card_columns, flag_for, lift_interval, observational,
                                   paired_values, prefer_policy, report_records)
from vale_sim.cards import Advancement, CardSet, Vale
from vale_sim.cli import main
from vale_sim.policy import Policy
from vale_sim.rules import Rules
from vale_sim.runner import fast_available
from vale_sim.synthetic import STARTER_ADVANCEMENTS, STARTING_CARDS

# All level-1 copies go into the level-1 deck, so the planted cards show up in every game.
RULES = Rules(level1_deck_size=100)
# A baseline blind to end-game VP: it scores Planted, Planted+, Planted- (and the filler)
# the same, so without a preference it buys them only by chance (commons order); a
# strong preference for one of them is then a pure test of what its VP is worth.
VP_BLIND = Policy(name="vp-blind", w_end_vp=0)


def twin_set() -> CardSet:
    """A flat set: identical fillers, plus "Planted" (mana 1, cost 2, 2 end VP) and its
    twins "Planted+" (4 end VP, strictly better) and "Planted-" (0 end VP, strictly
    worse).  Fillers have no end VP and vales are small, so games are close and a few
    VP decide them."""
    def adv(name, level, copies, cost, position=0, **kw):
        return Advancement(name=name, level=level, supply="commons", copies=copies, cost=cost,
                           position=position, source="estimate", **kw)
    planted = adv("Planted", 1, 4, 2, mana=1, end_vp=2)
    advs = STARTER_ADVANCEMENTS + (
        adv("Sprout", 1, 8, 2, position=1, mana=1),
        planted, replace(planted, name="Planted+", end_vp=4),
        replace(planted, name="Planted-", end_vp=0),
        adv("Bloom", 2, 18, 4, position=2, mana=2),
        adv("Grove", 3, 18, 7, position=1, mana=2, harvest_vp=1))
    vales = tuple(Vale(name=f"Vale {lv}{i}", level=lv, copies=1, cost_animal=0, cost_forest=0,
                       cost_sky=0, cost_wild=lv, end_vp=lv, source="estimate")
                  for lv in (1, 2) for i in range(4))
    return CardSet(name="twins", advancements=advs, vales=vales, starting_cards=STARTING_CARDS)


@pytest.fixture(scope="module")
def planted_values():
    # Sizes: 400 games per card (200 deals x 2 seats).  Measured on seeds 0 and 1:
    # Planted+ ≈ +31 pp, Planted ≈ +10 pp, Planted- ≈ -6..-8 pp, paired standard
    # errors ≈ 1.7-2.2 pp.  So Planted+ > Planted by ~10 SE, Planted+ > 0 by ~17 SE
    # and Planted- < 0 by ~3-3.5 SE.  ~6 s with the fast engine (about 55 s if only
    # the reference engine is available, at ~30 games/s).
    engine = "fast" if fast_available() else "reference"
    return paired_values(twin_set(), games=400, seed=0, baseline=VP_BLIND, rules=RULES,
                         cards=["Planted", "Planted+", "Planted-"], engine=engine,
                         tolerance=0.05).set_index("card")


def test_planted_better_twin_has_higher_positive_value(planted_values):
    v = planted_values
    assert v.loc["Planted+", "paired_value"] > v.loc["Planted", "paired_value"]
    assert v.loc["Planted+", "paired_value"] > 0
    assert v.loc["Planted+", "paired_lo"] > 0           # the interval says so too
    assert v.loc["Planted+", "flag"] == "over"          # +31 pp, far beyond ±5 pp


def test_planted_worse_twin_is_negative(planted_values):
    v = planted_values
    assert v.loc["Planted-", "paired_value"] < 0
    assert v.loc["Planted-", "paired_value"] < v.loc["Planted", "paired_value"]


def test_paired_table_shape(planted_values):
    v = planted_values
    assert (v["paired_n"] == 200).all()
    assert (v["paired_lo"] <= v["paired_value"]).all() and (v["paired_value"] <= v["paired_hi"]).all()
    assert (v["acquired_rate"] > 0.9).all()     # the preference does buy the card
    assert list(v.index) == list(v.sort_values("paired_value", ascending=False).index)


def test_prefer_policy_rules():
    p = prefer_policy("Planted+", VP_BLIND)
    assert p.rules[0].target == "card" and p.rules[0].value == "Planted+"
    assert [r.value for r in p.rules[1:]] == ["advancement", "vale"]
    assert p.w_end_vp == 0 and p.name != VP_BLIND.name


def test_flags():
    assert flag_for(0.06, 0.2, 0.05) == "over"
    assert flag_for(-0.2, -0.051, 0.05) == "under"
    assert flag_for(0.01, 0.2, 0.05) == ""
    assert flag_for(-0.2, -0.04, 0.05) == ""


# -- observational ---------------------------------------------------------------------
def _hand_frame(cs):
    """4 two-player games; Planted+ (id 5) bought by the winner in games 0-2, by the
    loser in game 3; game 3 a shared win."""
    k = cs.advancement_id("Planted+")
    rows = []
    for g, (acq0, acq1, s0, s1) in enumerate([(1, 0, 1, 0), (0, 1, 0, 1), (1, 0, 1, 0),
                                               (1, 0, 0.5, 0.5)]):
        for p, (acq, s) in enumerate(((acq0, s0), (acq1, s1))):
            rows.append({"game": g, "player": p, "win_share": s, f"acquired_{k}": acq,
                         f"first_round_{k}": 3 if acq else -1, f"harvested_{k}": bool(acq)})
    return pd.DataFrame(rows)


def test_observational_counts_on_a_hand_made_frame():
    cs = twin_set()
    obs = observational(cs, frame=_hand_frame(cs)).set_index("card")
    r = obs.loc["Planted+"]
    assert r["games_acquired"] == 4 and r["games_not_acquired"] == 4
    assert r["win_rate_acquired"] == pytest.approx(3.5 / 4)
    assert r["win_rate_not_acquired"] == pytest.approx(0.5 / 4)
    assert r["lift"] == pytest.approx(3.0 / 4)
    assert r["lift_lo"] < r["lift"] < r["lift_hi"]
    assert r["win_rate_harvested"] == pytest.approx(3.5 / 4)
    assert r["mean_round_acquired"] == 3
    assert obs.loc["Planted", "games_acquired"] == 0
    assert "not causes" in obs.attrs["note"]


def test_card_columns_reads_both_frame_formats():
    cs = twin_set()
    k = cs.advancement_id("Planted")
    ref = pd.DataFrame({f"acquired_{k}": [2, 0], f"first_round_{k}": [4, -1],
                        f"harvested_{k}": [True, False], "vales_acquired_1": [1, 0]})
    fast = pd.DataFrame({"buy:Planted": [2, 0], "vale:Vale 11": [1, 0],
                         "first_round:Planted": [4, 0], "harvested:Planted": [1, 0]})
    a, b = card_columns(ref, cs), card_columns(fast, cs)
    assert (a["acquired"] == b["acquired"]).all() and (a["vales"] == b["vales"]).all()
    for c in (a, b):
        assert c["first_round"][0, k] == 4 and np.isnan(c["first_round"][1, k])
        assert c["harvested"][:, k].tolist() == [1, 0]
    bare = card_columns(pd.DataFrame({"buy:Planted": [1]}), cs)
    assert np.isnan(bare["harvested"]).all() and np.isnan(bare["first_round"]).all()


def test_lift_interval_is_at_least_as_wide_as_newcombe():
    from vale_sim import stats
    s1, n1 = np.array([1, 0, 1, 1.0]), np.ones(4)
    s0, n0 = 1 - s1, np.ones(4)
    d, lo, hi = lift_interval(s1, n1, s0, n0)
    _, nlo, nhi = stats.two_proportion_diff(3, 4, 1, 4)
    assert lo <= nlo and hi >= nhi and d == pytest.approx(0.5)


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_observational_run_small(engine):
    obs = observational("core", games=6, engine=engine, explore_permille=300)
    assert len(obs) == len([a for a in obs["card"]])
    assert ((obs["win_rate_acquired"].dropna() >= 0) & (obs["win_rate_acquired"].dropna() <= 1)).all()
    assert obs["games_acquired"].sum() > 0
    assert obs["games_harvested"].notna().any()       # harvests and rounds are recorded
    assert obs["mean_round_acquired"].notna().any()


def test_report_records_fold_intervals():
    df = pd.DataFrame({"card": ["x"], "kind": ["advancement"], "level": [1],
                       "paired_value": [0.1], "paired_lo": [0.0], "paired_hi": [0.2],
                       "lift": [0.3], "lift_lo": [0.1], "lift_hi": [np.nan], "flag": [""]})
    rec = report_records(df)[0]
    assert rec["paired_ci"] == [0.0, 0.2] and rec["lift_ci"] == [0.1, None]
    assert "paired_lo" not in rec and "lift_hi" not in rec


def test_cli_json(capsys):
    rc = main(["advancements", "--games", "4", "--cards", "Podlings,Stag", "--engine",
               "reference", "--json"])
    assert rc == 0
    recs = json.loads(capsys.readouterr().out)
    assert [r["card"] for r in recs] and {r["card"] for r in recs} == {"Podlings", "Stag"}
    for key in ("card", "level", "games_acquired", "win_rate_acquired", "lift", "lift_ci",
                "paired_value", "paired_ci", "flag"):
        assert all(key in r for r in recs), key
    assert main(["advancements", "--games", "2", "--cards", "No Such Card"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_cli_only_paired(capsys):
    assert main(["advancements", "--games", "2", "--only", "paired", "--cards", "Stag",
                 "--engine", "reference", "--json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert rec["card"] == "Stag" and "paired_ci" in rec and "lift" not in rec
