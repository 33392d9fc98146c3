"""The strongest bundled field held to the checks of issue 36 item 6 (vale_sim.field_checks;
docs/statistics.md §5.9), at realistic sizes: 4,000 games per card and arm (2,000 deals,
every seat), the bundled deck sizes, the fast engine.

The same checks under the old field (``experiments/field_checks.py --field meta-2p``) fail:
docs/statistics.md §5.9 records both."""
from __future__ import annotations

import pytest

from vale_sim import field_checks as fc

pytestmark = [pytest.mark.compiled, pytest.mark.slow]

GAME = "mystic-vale"


@pytest.fixture(scope="module")
def field():
    return "value-2p"          # the strongest bundled 2-player field (docs/value.md)


def test_planted_twins(field):
    """On a level-1, level-2 and level-3 card, a vale and a Fertile Soil: the +6 end VP
    twin reads over (also where the card is rare: per pick), the useless printing
    reads under, the identical twin's paired difference covers 0, and no card's natural
    value is significantly below 0."""
    seen = fc.planted_run(GAME, field, 2, games=4000, seed=0)
    from vale_sim.games.mystic_vale.value import FIELD_CHECK_PLANTED
    assert [r["card"] for r in seen] == list(FIELD_CHECK_PLANTED)
    for r in seen:
        assert r["gross"] == "over", r
        assert r["useless"] == "under", r
        assert r["same_lo"] < 0 < r["same_hi"], r
        assert r["below_zero"] == 0, r


def test_better_printings_never_read_lower(field):
    """25 strictly better printings (−1 cost, +1 end VP, +1 mana) of 9 cards across the
    levels, a vale and a Fertile Soil: none reads lower than its original by natural
    value, per-pick value or verdict."""
    run, df, pairs = fc.monotone_run(GAME, field, 2, games=4000, seed=0)
    assert len(pairs) >= 24
    assert fc.monotone_violations(run, df, pairs) == []
