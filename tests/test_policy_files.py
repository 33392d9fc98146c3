"""The shared policy-file parser (vale_sim/policy_files.py): both games' policy
modules read files through one PolicyBook, so they accept and refuse the same
things with the same one-line messages."""
from __future__ import annotations

from pathlib import Path

import pytest

from vale_sim import policy_files
from vale_sim.games.mystic_lands import policy as ml
from vale_sim.games.mystic_vale import policy as mv

GAMES = pytest.mark.parametrize("mod", [mv, ml], ids=["mystic-vale", "mystic-lands"])


def _write(tmp_path, text, name="bot.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@GAMES
def test_both_games_share_one_parser_and_one_error(mod):
    assert mod.PolicyError is policy_files.PolicyError
    assert isinstance(mod.BOOK, policy_files.PolicyBook)
    assert mod.load_policy.__func__ is policy_files.PolicyBook.load


@GAMES
@pytest.mark.parametrize("text, message", [
    ('base = ["balanced"]\n', "field 'base': unknown preset ['balanced']"),
    ('base = "nosuch"\n', "field 'base': unknown preset 'nosuch'"),
    ('bogus = 1\n', "unknown field 'bogus' (known: base, buy, "),
    ('buy = 3\n', "field 'buy' must be a list of [[buy]] tables"),
    ('buy = [1]\n', "buy rule 1: must be a table (write [[buy]])"),
    ('[[buy]]\ncard = "X"\nlevel = 1\n', "buy rule 1: give exactly one of card, level"),
    ('[[buy]]\ncard = "X"\nextra = 1\n', "buy rule 1: unknown field 'extra' (use card and when)"),
    ('[[buy]]\ncard = "X"\nwhen = 3\n', "buy rule 1: 'when' must be a table of conditions"),
    ('[[buy]]\ncard = "X"\nwhen = {nope = 1}\n', "buy rule 1: unknown condition 'nope'"),
    ('[[buy]]\ncard = "X"\nwhen = {mana_at_least = "3"}\n',
     "buy rule 1: condition 'mana_at_least' must be an integer"),
    ('[[buy]]\ncard = "X"\nwhen = {mana_at_least = 10000000}\n',
     "buy rule 1: condition mana_at_least must be between -1000000 and 1000000, got 10000000"),
    ('[[buy]]\ncard = 3\n', "buy rule 1: card must be a card name (a string)"),
    ('[[buy]]\nlevel = 9\n', "buy rule 1: level must be "),
    ('w_mana = "x"\n', "w_mana must be an integer, got 'x'"),
    ('w_mana = 10000001\n', "w_mana must be between -1000000 and 1000000, got 10000001"),
    ('never = "X"\n', "never must be a list of card names, got 'X'"),
])
def test_the_same_mistake_gets_the_same_one_line_message(tmp_path, mod, text, message):
    p = _write(tmp_path, text)
    with pytest.raises(mod.PolicyError) as e:
        mod.load_policy(p)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{p}: ") and message in msg, msg


@GAMES
def test_a_file_policy_is_named_by_its_file_and_a_preset_by_its_name(tmp_path, mod):
    p = _write(tmp_path, "w_mana = 5\n")
    pol = mod.get_policy(str(p))
    assert pol.name == "bot" and pol.w_mana == 5
    assert mod.policy_label(pol) == f"policy file {p}"
    assert mod.policy_label(mod.PRESETS["balanced"]) == "policy 'balanced'"


@GAMES
def test_one_path_gives_every_player_that_policy(tmp_path, mod):
    p = _write(tmp_path, "w_mana = 5\n")
    pols = mod.policies_for(3, p)            # a Path, not only a str
    assert len(pols) == 3 and all(x.w_mana == 5 for x in pols)
    with pytest.raises(mod.PolicyError, match="give 1 or 3 policies, got 2"):
        mod.policies_for(3, ["balanced", "cautious"])


@GAMES
def test_unknown_policy_lists_presets_and_bundled_bots(mod):
    with pytest.raises(mod.PolicyError) as e:
        mod.get_policy("nosuch")
    for name in mod.presets():
        assert name in str(e.value)
    assert set(mod.presets()) == set(mod.PRESETS) | set(mod.bundled_policy_files())


def test_mode_words_and_ranges_are_named_without_tuple_reprs():
    with pytest.raises(mv.PolicyError, match=r"push_rule must be one of risk, lookahead, value, got 'x'"):
        mv.Policy(push_rule="x")
    with pytest.raises(mv.PolicyError, match=r"push_risk_permille must be between 0 and 1000"):
        mv.Policy(push_risk_permille=1001)
    with pytest.raises(mv.PolicyError, match=r"mana_target must be >= 0, got -1"):
        mv.Policy(mana_target=-1)
    with pytest.raises(ml.PolicyError, match=r"rain must be one of needed, never, got 'x'"):
        ml.Policy(rain="x")
    with pytest.raises(ml.PolicyError, match=r"rest_risk_permille must be between 0 and 1000"):
        ml.Policy(rest_risk_permille=-1)
