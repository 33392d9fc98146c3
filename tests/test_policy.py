"""Policy presets and policy files: parsed and validated, never evaluated as code."""
from __future__ import annotations

import pytest

from cli_checks import one_line_error
from vale_sim.cli import main
from vale_sim.games.mystic_vale.policy import (PRESETS, BuyRule, Policy, PolicyError, bundled_policy_files,
                             get_policy, load_policy)
from vale_sim.games.mystic_vale.reference.game import play_reference


def write(tmp_path, text, name="p.toml"):
    f = tmp_path / name
    f.write_text(text)
    return f


def test_bundled_policy_files_parse_and_play():
    files = bundled_policy_files()
    assert "warden-rush" in files
    pol = get_policy("warden-rush")
    assert pol.rules[0] == BuyRule("card", "Woodland Warden", mana_at_least=6)
    assert pol.push_risk_permille == 300
    rec = play_reference("core", 2, seed=1, policies=["warden-rush", "fertile-first"])
    assert rec.results[0].policy == "warden-rush"


def test_rules_change_what_is_bought(tmp_path):
    """A bot that only ever buys Fertile Soil (middle) buys nothing else."""
    f = write(tmp_path, 'name = "soil"\n[[buy]]\ncard = "Fertile Soil (middle)"\n')
    rec = play_reference("core", 2, seed=3, policies=[load_policy(f), "balanced"])
    bought = {k for t in rec.turns if t.player == 0 for k in t.bought}
    from vale_sim.games.mystic_vale.cards import load_card_set
    cs = load_card_set("core")
    assert bought == {cs.advancement_id("Fertile Soil (middle)")}
    assert all(not t.vales for t in rec.turns if t.player == 0)


@pytest.mark.parametrize("text,needle", [
    ('push_risk_permille = 2000', "push_risk_permille"),
    ('push_risk_permille = "high"', "push_risk_permille"),
    ('agression = 3', "unknown field 'agression'"),
    ('base = "nope"', "unknown preset 'nope'"),
    ('[[buy]]\ncard = "Stag"\nlevel = 2', "exactly one of"),
    ('[[buy]]\ncard = "Stag"\nwhen = { mana_over = 3 }', "unknown condition 'mana_over'"),
    ('[[buy]]\nbest = "advancement"\nwhen = { owned_at_most = 1 }', "owned_at_most"),
    ('[[buy]]\nlevel = 7', "level must be"),
    ('token = "always"', "token"),
    ('this is not toml', "not valid TOML"),
])
def test_bad_policy_files_name_the_problem(tmp_path, text, needle):
    f = write(tmp_path, text)
    with pytest.raises(PolicyError) as e:
        load_policy(f)
    assert needle in str(e.value) and str(f) in str(e.value)


def test_unknown_card_in_rule_is_reported(tmp_path, capsys):
    f = write(tmp_path, '[[buy]]\ncard = "Stagg"\n')
    assert main(["play", "--seed", "1", "--policy", str(f)]) == 2
    err = capsys.readouterr().err
    assert "Stagg" in err and len(err.strip().splitlines()) == 1


def test_unknown_preset_exit_status_2(capsys):
    assert main(["play", "--policy", "nonsense"]) == 2
    assert "unknown policy 'nonsense'" in capsys.readouterr().err


def test_presets_are_distinct_and_valid():
    assert {"cautious", "greedy", "spirit-rush", "vp-rush"} <= set(PRESETS)
    assert len({tuple(sorted(vars(p).items())) for p in PRESETS.values()}) == len(PRESETS)
    with pytest.raises(PolicyError):
        Policy(push_risk_permille=-1)


# Policy files: one validator for every path (moved from tests/test_hardening.py,
# issue 18 §3)
POLICY_COMMANDS = [
    lambda f: ["play", "--policy", f],
    lambda f: ["simulate", "--games", "2", "--summary-only", "--no-progress", "--policy", f],
    lambda f: ["tournament", "--policies", f"balanced,{f}", "--games", "2"],
]


def _policy_experiment(tmp_path, policy_file) -> list[str]:
    exp = tmp_path / "t.toml"
    exp.write_text(f'study = "tournament"\npolicies = ["balanced", "{policy_file}"]\ngames = 2\n')
    return ["run", "--check", str(exp)]


@pytest.mark.parametrize("content,expect", [
    (b"w_mana = 3\n# caf\xe9\n", "UTF-8"),
    (b"w_mana = 9223372036854775807\n", "w_mana"),
    (b'[[buy]]\nvale_ability = "spiritt_to_wild"\n', "spiritt_to_wild"),
    (b'[[buy]]\ncard = "No Such Card"\n', "No Such Card"),
    (b'[[buy]]\ncard = "Druid of the Vale"\nwhen = { mana_at_least = 99999999999 }\n',
     "mana_at_least"),
])
def test_bad_policy_file_same_one_line_everywhere(tmp_path, content, expect, no_games, capsys):
    f = tmp_path / "mine.toml"
    f.write_bytes(content)
    for argv in [make(str(f)) for make in POLICY_COMMANDS] + [_policy_experiment(tmp_path, f)]:
        rc = main(argv)
        one_line_error(capsys, rc, "mine.toml", expect)


def test_policy_integer_limits():
    with pytest.raises(PolicyError, match="w_mana"):
        Policy(w_mana=2**63 - 1)
    with pytest.raises(PolicyError, match="min_score"):
        Policy(min_score=-(10**6) - 1)
    assert Policy(w_mana=10**6, w_cost=-(10**6)).w_mana == 10**6


def test_policy_file_path_named_even_for_directory(tmp_path):
    d = tmp_path / "dir.toml"
    d.mkdir()
    with pytest.raises(PolicyError, match="dir.toml"):
        load_policy(d)
