"""The game-neutral part of the two odds studies (vale_sim/odds.py,
vale_sim/commands/odds.py): one deck-file reader with one-line errors, one
exact-computation limit, one best-rule driver, one set of CLI checks."""
from __future__ import annotations

from fractions import Fraction

import pytest

from vale_sim import odds
from vale_sim.cli import main
from vale_sim.games.mystic_lands import wither as W
from vale_sim.games.mystic_vale import spoil as S

ML = ["--game", "mystic-lands"]


def test_both_studies_raise_the_shared_errors():
    assert S.DeckError is W.DeckError is odds.DeckError
    assert S.TooManyStates is W.TooManyStates is odds.TooManyStates


@pytest.mark.parametrize("load", [S.load_deck, W.load_deck], ids=["spoil", "wither"])
@pytest.mark.parametrize("text, message", [
    ("bogus = 1\n", "unknown field 'bogus' (known: base, cards, description, "),
    ("name = 3\n", "field 'name' must be a non-empty string"),
    ('base = "other"\n', "field 'base': only \"starter\" is known, got 'other'"),
    ("cards = 3\n", "'cards' must be a list of tables ([[cards]])"),
    ('base = "starter"\nvales = "x"\n', "vales must be a list of names"),
    ("name = [\n", "not valid TOML"),
])
def test_the_same_deck_file_mistake_gets_the_same_one_line_message(tmp_path, load, text,
                                                                   message):
    p = tmp_path / "d.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(odds.DeckError) as e:
        load(str(p))
    assert str(e.value).startswith(str(p)) and message in str(e.value)
    assert "\n" not in str(e.value)


def test_an_unknown_deck_lists_the_bundled_ones():
    with pytest.raises(odds.DeckError, match="use one of starter, druid, .* or the path"):
        S.load_deck("nosuch")
    with pytest.raises(odds.DeckError, match="use one of midgame, misty, .* or the path"):
        W.load_deck("nosuch")


def test_best_stopping_rule_on_a_toy_push_your_luck():
    """Each step ends the turn (worth 0) with probability 1/3, else adds 1 to the
    score kept by stopping.  By hand: V(2, 1) = max(2, 2/3 * 3) = 2 (a tie stops),
    V(1, 2) = max(1, 2/3 * 2) = 4/3, V(0, 3) = 2/3 * 4/3 = 8/9; "go on k times"
    gives k (2/3)^k."""
    third = Fraction(1, 3)
    best, fixed, rows = odds.best_stopping_rule(
        {0: Fraction(1)}, 3, Fraction(0), stop_value=lambda k: Fraction(k),
        steps=lambda k: [(third, True, None), (1 - third, False, k + 1)],
        can_go=lambda k: True, end_value=lambda k: Fraction(0), row_key=lambda k: (k,))
    assert best == Fraction(8, 9)
    assert fixed == {0: 0, 1: Fraction(2, 3), 2: Fraction(8, 9), 3: Fraction(8, 9)}
    assert dict(rows) == {(0, 0, 1 / 3, "go"): 1, (1, 1, 1 / 3, "go"): Fraction(2, 3),
                          (2, 2, 1 / 3, "stop"): Fraction(4, 9)}


def test_a_forced_first_step_counts_from_one():
    third = Fraction(1, 3)
    best, fixed, rows = odds.best_stopping_rule(
        {0: Fraction(1)}, 2, Fraction(0), stop_value=lambda k: Fraction(k),
        steps=lambda k: [(third, True, None), (1 - third, False, k + 1)],
        can_go=lambda k: True, end_value=lambda k: Fraction(0), row_key=lambda k: (k,),
        first_forced=True)
    # forced to 1 (2/3), then V(1, 1) = max(1, 2/3 * 2) = 4/3: best = 2/3 * 4/3
    assert best == Fraction(8, 9) and set(fixed) == {1, 2}
    assert fixed[1] == Fraction(2, 3) and fixed[2] == Fraction(8, 9)
    assert min(k for k, *_ in rows) == 1


def test_mean_se_matches_the_sample_formula():
    xs = [1.0, 2.0, 4.0]
    mean, se = odds.mean_se(sum(xs), sum(x * x for x in xs), len(xs))
    assert mean == pytest.approx(7 / 3)
    var = sum((x - 7 / 3) ** 2 for x in xs) / 2
    assert se == pytest.approx((var / 3) ** 0.5)
    assert odds.mean_se(0.0, 0.0, 0) == (None, None)


@pytest.mark.parametrize("argv", [["spoil-odds"], ["wither-odds", *ML]],
                         ids=["spoil", "wither"])
@pytest.mark.parametrize("value", ["-3", "0", "100000001"])
def test_max_states_outside_its_cap_is_refused_in_one_line(capsys, argv, value):
    # 0 used to mean "no limit": a count a user gives that could exhaust memory
    assert main([*argv, "--max-states", value]) == 2
    err = capsys.readouterr().err
    assert "--max-states" in err and len(err.strip().splitlines()) == 1
