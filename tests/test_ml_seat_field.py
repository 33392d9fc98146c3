"""The Mystic Lands seat verdicts under the strongest field (issue 26): every seat
``value-{P}p``, settled against the field before it (``meta-{P}p``), ``balanced``
as the comparison (vale_sim/games/mystic_lands/studies/report.py, docs/report.md)."""
from __future__ import annotations

import pandas as pd
import pytest

from vale_sim.games.mystic_lands.studies import report as R
from vale_sim.games.mystic_lands.studies.seats import seat_study
from vale_sim.report import build_report


def test_the_seat_study_plays_the_field_of_each_player_count():
    a = seat_study((2,), 4, 1, policy="meta-{P}p", engine="reference", progress=False,
                   confirm_deals=2)
    b = seat_study((2,), 4, 1, policy="balanced", engine="reference", progress=False,
                   confirm_deals=2)
    assert a.config["policy_by_players"] == {"2": "meta-2p"}
    assert b.config["policy_by_players"] == {"2": "balanced"}
    assert not a.seats["win_rate"].equals(b.seats["win_rate"])      # other players, other games
    with pytest.raises(ValueError, match="policy: .*nobody"):
        seat_study((2,), 3, 1, policy="nobody", engine="reference", progress=False)


def test_the_report_leads_with_the_strong_field_and_keeps_balanced_as_comparison(tmp_path):
    s = R.LandsReportSettings.make(size="tiny", engine="reference", seat_deals=2,
                                   seat_confirm_deals=2, end_deals=2)
    assert s.study_field == "value-{P}p"
    build_report(tmp_path / "r", s, progress=False, game="mystic-lands",
                 sections=[R.section_seats, R.section_end_trigger])
    md = (tmp_path / "r" / "report.md").read_text()
    summary = md[md.index("**Seat compensation**"):md.index("**End trigger**")]
    end = md[md.index("**End trigger**"):md.index("## 2.")]
    assert end.index("[value-2p] At 2 players the manual's end") < end.index(
        "[balanced (comparison)] At 2 players the manual's end")
    assert (tmp_path / "r" / "tables" / "end_trigger_balanced.csv").exists()
    strong = summary.index("[value-2p] At 2 players")
    comp = summary.index("[balanced (comparison)] At 2 players")
    assert strong < comp
    assert summary.count("ettled") >= 2            # every strong-field verdict marked
    # against the strongest field before it
    assert "under meta-2p" in summary
    top = pd.read_csv(tmp_path / "r" / "tables" / "seat_recommendations.csv")
    assert list(top["field"]) == ["value-2p"]
    for col in ("decision_balanced", "manual_verdict_balanced", "settle_field", "settled"):
        assert col in top.columns, col
    assert (tmp_path / "r" / "tables" / "seat_win_rates_balanced.csv").exists()


def test_seat_settle_specs():
    s = R.LandsReportSettings.make(size="tiny", engine="reference")
    assert R.seat_settle_specs(s) == {p: f"meta-{p}p" for p in s.seat_players}
    none = R.LandsReportSettings.make(size="tiny", engine="reference", seat_settle_field="none")
    assert R.seat_settle_specs(none) == {}
    fixed = R.LandsReportSettings.make(size="tiny", engine="reference",
                                       seat_settle_field="greedy")
    assert set(R.seat_settle_specs(fixed).values()) == {"greedy"}


def test_the_second_field_where_the_meta_run_has_no_earlier_best_response():
    # the co-refit's runs (docs/meta.md, "Mystic Lands: the refit set"): at every count
    # the equilibrium is the 2-player field's policy and no best response was added, so
    # there is no earlier best response; the population member that does best against
    # the mixture among the others is the field bundled before (meta-3p of the refit
    # set before the co-refit, a copy in the run's population)
    for players in (2, 3, 4):
        assert R.settle_field(players) is None
        assert R.strongest_other(players).endswith(f"{players}p/population/meta-3p.toml")
