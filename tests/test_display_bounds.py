"""An interval that is not a point must not print as one (issue 24 §3: end-trigger
printed "100 [100, 100]" and "0 [0, 0]" while the JSON had proper bounds)."""
from vale_sim.games.mystic_lands.studies.text import iv
from vale_sim.games.mystic_lands.studies.verdicts import _iv


def test_a_narrow_interval_gets_the_digits_it_needs():
    assert iv({"x": 1.0, "x_lo": 0.998, "x_hi": 1.0}, "x", 100, 0) == "100.0 [99.8, 100.0]"
    assert iv({"x": 0.0, "x_lo": 0.0, "x_hi": 0.0019}, "x", 100, 0) == "0.0 [0.0, 0.2]"
    assert _iv(1.0, 0.998, 1.0, 100, 0, unit="%") == "100.0% (95% CI [99.8, 100.0])"


def test_ordinary_intervals_keep_their_digits():
    assert iv({"x": 0.52, "x_lo": 0.49, "x_hi": 0.55}, "x", 100, 0) == "52 [49, 55]"
    assert iv({"x": 0.0, "x_lo": 0.0, "x_hi": 0.0}, "x", 100, 0, signed=True) == "0 (no deal changed)"
