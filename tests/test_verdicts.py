"""The executive summary's sentences: each verdict carries its interval and n."""
import re
from types import SimpleNamespace

import pandas as pd

from vale_sim import verdicts as V


def _strength_frame(rows, tolerance=0.05):
    df = pd.DataFrame(rows, columns=["card", "kind", "level", "strength", "strength_lo",
                                     "strength_hi", "strength_lo_adj", "strength_hi_adj",
                                     "n_deals", "flag"])
    df.attrs.update(tolerance=tolerance, correction="holm", baseline="balanced")
    return df


def test_card_verdicts_name_flagged_cards_with_interval_and_n():
    df = _strength_frame([
        ("Big", "advancement", 2, 0.12, 0.09, 0.15, 0.08, 0.16, 4000, "over"),
        ("Meh", "advancement", 1, 0.01, -0.01, 0.03, -0.02, 0.04, 4000, ""),
        ("Weak", "vale", 1, -0.08, -0.10, -0.06, -0.11, -0.055, 4000, "under"),
    ])
    vs = V.card_verdicts(df)
    head, *named = [v.sentence for v in vs]
    assert "Of 3 cards tested" in head and "1 is flagged over and 1 under" in head
    assert "±5 pp" in head and "Holm" in head and "n = 4,000 deals each" in head
    assert "strongest is Big, +12.0 pp (95% CI [+9.0, +15.0])" in head
    assert "weakest Weak, -8.0 pp" in head
    assert [v.cards for v in vs[1:]] == [("Big",), ("Weak",)]     # largest |effect| first
    assert "+12.0 pp" in named[0] and "[+9.0, +15.0]" in named[0] and "[+8.0, +16.0]" in named[0]
    assert "n = 4,000 deals" in named[0] and "over-powered" in named[0]
    assert "under-powered" in named[1] and "Meh" not in " ".join(named)


def test_card_verdicts_say_when_nothing_is_flagged_and_cap_the_list():
    none = _strength_frame([("A", "advancement", 1, 0.0, -0.01, 0.01, -0.02, 0.02, 500, "")])
    vs = V.card_verdicts(none)
    assert len(vs) == 1 and "No card" in vs[0].sentence
    many = _strength_frame([(f"C{i}", "advancement", 1, 0.1 + i / 100, 0.08, 0.2, 0.07, 0.3,
                             500, "over") for i in range(12)])
    vs = V.card_verdicts(many, max_named=3)
    assert len(vs) == 1 + 3 + 1
    assert vs[-1].sentence.startswith("Also flagged:") and len(vs[-1].cards) == 9


def test_seat_verdicts_read_the_interval_against_the_fair_share():
    summary = pd.DataFrame([
        dict(players=2, pool=23, rulebook=True, n_games=1000, seat_win_rates=[0.56, 0.44],
             seat_win_rates_ci=[(0.53, 0.59), (0.41, 0.47)]),
        dict(players=4, pool=33, rulebook=True, n_games=800, seat_win_rates=[0.26, 0.25, 0.25, 0.24],
             seat_win_rates_ci=[(0.23, 0.29)] * 4),
        dict(players=4, pool=35, rulebook=False, n_games=800, seat_win_rates=[0.1] * 4,
             seat_win_rates_ci=[(0.05, 0.15)] * 4),
    ])
    vs = V.seat_verdicts(summary)
    assert len(vs) == 2                                   # rulebook pools only
    assert "56.0%" in vs[0].sentence and "[53.0, 59.0]" in vs[0].sentence
    assert "n = 1,000" in vs[0].sentence and "an advantage" in vs[0].sentence
    assert "no detectable advantage" in vs[1].sentence and "25.0%" in vs[1].sentence


def test_spoil_verdict_is_exact_and_checked_by_simulation():
    table = pd.DataFrame([dict(deck="starter", pushes=k, p_spoil_sim=0.1 * k, sim_lo=0.1 * k - 0.02,
                               sim_hi=0.1 * k + 0.02, sim_n=2000, agrees=True) for k in (1, 2, 3, 4)])
    exact = {"starter": SimpleNamespace(p_spoil_within={1: 0.101, 2: 0.205, 3: 0.299, 4: 0.4})}
    (v,) = V.spoil_verdicts(table, exact)
    assert "10.1% within 1 push," in v.sentence and "29.9% within 3 pushes" in v.sentence
    assert "exact" in v.sentence and "agrees" in v.sentence and "n = 2,000 turns" in v.sentence
    assert re.search(r"95% CI \[28\.0, 32\.0\]", v.sentence)
    assert V.spoil_verdicts(table, {}) == []


def test_summary_adds_the_share_of_estimated_numbers_once_per_heading():
    vs = [V.Verdict("spoil", "S."), V.Verdict("cards", "C.", ("A",)), V.Verdict("seats", "T.")]
    seen = []

    def share(cards):
        seen.append(cards)
        return (3, 12) if cards == ("A",) else (40, 200)
    from vale_sim.games.mystic_vale import report as mv_report    # its topics (seats, spoil)
    out = V.summary_bullets(vs, share, V.topics(mv_report))
    assert [h for h, *_ in out] == ["Cards flagged over and under", "Seat advantage",
                                    "Spoil odds of the starting deck"]
    assert out[0][1:] == (["C."], "Card numbers behind this verdict: 3 of 12, 25%, are estimates.")
    assert "40 of 200, 20%" in out[1][2] and out[1][1] == ["T."]
    assert ("A",) in seen and None in seen


def _rec(**kw):
    """A pools.Recommendation with placeholder values for the fields a test does not set."""
    from dataclasses import fields
    from vale_sim.games.mystic_vale.pools import Recommendation
    nan, pair = float("nan"), (float("nan"), float("nan"))
    base = {f.name: (pair if "_ci" in f.name else nan) for f in fields(Recommendation)
            if f.name != "tested_pools"}
    base.update(equivalent_pools=[], pool_range=None, pool=0, n_games=0, rulebook_pool=0,
                rulebook_p_tost=nan, rulebook_equivalent=False)
    base.update(kw)
    return Recommendation(**base)


def test_pool_verdicts_state_the_equivalence_range_and_the_rulebook_difference():
    rec = _rec(players=3, target="equal-length", margin=0.5, pool_range=(27, 31),
               equivalent_pools=[27, 28, 29, 31], tested_pools=[25, 27, 28, 29, 30, 31, 33],
               goal=19.4, rulebook_pool=28, rulebook_difference=-0.18,
               rulebook_difference_ci=(-0.27, -0.10), rulebook_equivalent=True, n_games=3000,
               rulebook_verdict="equivalent")
    none = _rec(players=4, target="seat-advantage", margin=0.02, pool_range=None,
                rulebook_pool=33, rulebook_value=0.031, rulebook_value_ci=(0.02, 0.045),
                rulebook_equivalent=False, n_games=800, rulebook_verdict="inconclusive")
    two = _rec(**{**rec.to_dict(), "players": 2})
    a, b = (v.sentence for v in V.pool_verdicts({"equal-length": [two, rec],
                                                 "seat-advantage": [none]}))
    # 30 was played inside the range and is not equivalent: it is named, not hidden.
    assert "VP pools 27–31 (except 30) give" in a and "±0.5 rounds" in a and "-0.18 rounds" in a
    assert "90% CI [-0.27, -0.10]" in a and "n = 3,000" in a and a.endswith("equivalent.")
    assert "no pool of the grid" in b and "3.1 pp" in b and "[2.0, 4.5]" in b
    assert b.endswith(": inconclusive.") and "not shown equivalent" not in b
    assert _rec(pool_range=(27, 31), equivalent_pools=[27, 29, 31],
                tested_pools=[27, 29, 31]).range_text() == "27–31"
