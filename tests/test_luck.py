"""``vale-sim luck`` (issue 39 item 1): the skill-luck index and the variance split.

Toy games whose answer is known by construction (``play=`` replaces the game's levels
and engines, as ``measure=`` does for rule_targets): one where the deal alone decides
(the index reads -1, the deal's share 100%), a coin toss per game (-1), one decided by
skill alone (+1), and one where skill and luck move the outcome equally (0)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cli_checks import one_line_error
from vale_sim import luck as LK
from vale_sim.cli import main

GAME = "mystic-vale"


def toy(kind, k=4, players=3, deals=300, seed=1):
    """(labels, play_pair, play_self) of a toy ladder of ``k`` levels."""
    rng = np.random.default_rng(seed)
    hand = rng.random((players, deals)) < 1 / players        # the deal decides: slot r's hand

    def pair(pairs):
        out = []
        for i, j in pairs:
            if kind == "deal":
                out.append(hand.astype(float))
            elif kind == "coin":
                out.append((rng.random((players, deals)) < 1 / players).astype(float))
            elif kind == "skill":
                out.append(np.full((players, deals), 1.0 if i > j else 0.0))
            else:                                   # "even": skill and luck equal in size
                out.append(0.1 * (i - j) + 0.1 * np.sqrt(2 / 3 * (k * k - 1) / 6)
                           * rng.standard_normal((players, deals)))
        return out

    def self_play(i):
        return np.full((players, deals), 1 / players)
    return [f"level{i}" for i in range(k)], pair, self_play


def run(kind, **kw):
    players = kw.pop("players", 3)
    return LK.luck(GAME, players, kw.pop("deals", 300), play=toy(kind, players=players, **kw),
                   reps=200)


def test_the_deal_alone_reads_minus_one_and_its_share_is_all():
    r = run("deal")
    assert r["skill_luck_index"] == pytest.approx(-1, abs=0.02)
    assert r["skill_luck_ci"][0] <= -0.99
    assert r["variance_shares"]["deal"]["value"] == pytest.approx(1, abs=1e-6)
    assert r["adds_up"]["ok"]


def test_a_coin_toss_reads_minus_one_and_the_parts_add_up():
    r = run("coin")
    assert r["skill_luck_index"] < -0.9 and r["skill_luck_ci"][0] <= -0.99
    assert r["variance_shares"]["policies"]["hi"] < 0.01
    assert r["adds_up"]["ok"]                       # the rest's own estimate covers it


def test_skill_alone_reads_plus_one():
    r = run("skill")
    assert r["skill_luck_index"] == pytest.approx(1) and r["skill_luck_ci"] == [1.0, 1.0]
    assert r["variance_shares"]["policies"]["value"] == pytest.approx(1)
    # against the weakest or strongest field every focal level wins or loses always: no
    # variance, no index; in between, +1
    mid = r["by_level"][1:-1]
    assert all(b["skill_luck_index"] == pytest.approx(1) for b in mid)


def test_skill_and_luck_of_equal_size_read_zero():
    """Line-up effects 0.1 (i - j) over the k(k-1) cross line-ups (variance 0.01 (k^2 - 1)
    / 6 x 2/3 ... chosen so the noise has the same variance): the index's interval
    covers 0."""
    k = 4
    ij = np.array([(i - j) for i in range(k) for j in range(k) if i != j], float)
    pol = float(np.mean((0.1 * ij - np.mean(0.1 * ij)) ** 2))
    labels, pair, s = toy("even", k=k, deals=400)

    def pair_eq(pairs):                                # the noise's variance equals pol
        rng = np.random.default_rng(5)
        return [0.1 * (i - j) + np.sqrt(pol) * rng.standard_normal((3, 400)) for i, j in pairs]
    r = LK.luck(GAME, 3, 400, play=(labels, pair_eq, s), reps=200)
    lo, hi = r["skill_luck_ci"]
    assert lo <= 0 <= hi and abs(r["skill_luck_index"]) < 0.05
    assert r["skill_share"]["value"] == pytest.approx(0.5, abs=0.03)


def test_components_match_statsmodels_anova():
    """The sums of squares behind the components are those of a three-way ANOVA."""
    sm = pytest.importorskip("statsmodels.formula.api")
    from statsmodels.stats.anova import anova_lm
    import pandas as pd
    rng = np.random.default_rng(3)
    L, R, D = 4, 3, 12
    Y = (rng.normal(size=(L, 1, 1)) + rng.normal(size=(1, 1, D)) + rng.normal(size=(1, R, D))
         + rng.normal(size=(L, R, D)))
    df = pd.DataFrame([(l, r, d, Y[l, r, d]) for l in range(L) for r in range(R)
                       for d in range(D)], columns=["l", "r", "d", "y"])
    fit = sm.ols("y ~ C(l) + C(r) + C(d) + C(l):C(r) + C(l):C(d) + C(r):C(d)", df).fit()
    a = anova_lm(fit, typ=1)
    ms_e = a.loc["Residual", "mean_sq"]
    ms_ld = a.loc["C(l):C(d)", "mean_sq"]
    c = LK.components(Y)
    assert c["ms_rest"] == pytest.approx(ms_e)
    assert c["part:ld"] == pytest.approx(max(0.0, (ms_ld - ms_e) / R))
    ms_l = a.loc["C(l)", "mean_sq"]
    assert c["policies"] == pytest.approx(max(0.0, (L - 1) / L * (ms_l - ms_ld) / (R * D)))
    assert c["total"] == pytest.approx(c["raw_total"])


def test_bad_input_is_one_line(capsys):
    one_line_error(capsys, main(["luck", "--players", "2", "--deals", "1"]), "--deals")
    one_line_error(capsys, main(["luck", "--players", "2", "--level", "nobody", "--level",
                                 "balanced"]), "--level", "nobody")
    one_line_error(capsys, main(["luck", "--players", "2", "--level", "balanced"]), "--level")
    one_line_error(capsys, main(["luck", "--players", "2", "--bootstrap", "3"]), "--bootstrap")


@pytest.mark.compiled
def test_a_small_run_of_each_game_gives_the_json_the_issue_asks_for(capsys, tmp_path):
    for game in ("mystic-vale", "mystic-lands"):
        out = tmp_path / f"{game}.json"
        assert main(["luck", "--game", game, "--players", "3", "--deals", "30", "--bootstrap",
                     "40", "--json", "--out", str(out)]) == 0
        r = json.loads(capsys.readouterr().out)
        assert -1 <= r["skill_luck_index"] <= 1
        lo, hi = r["skill_luck_ci"]
        assert lo <= r["skill_luck_index"] <= hi
        assert set(r["variance_shares"]) == {"policies", "deal", "interaction"}
        assert sum(v["value"] for v in r["variance_shares"].values()) == pytest.approx(1)
        assert all(v["lo"] <= v["value"] <= v["hi"] for v in r["variance_shares"].values())
        assert r["source_split"]["available"] is False and "stream" in r["source_split"]["why"]
        assert json.loads(out.read_text())["written_by"] == "vale-sim luck"
    # an existing file vale-sim did not write is refused before any game
    other = tmp_path / "mine.json"
    other.write_text("{}")
    one_line_error(capsys, main(["luck", "--players", "2", "--out", str(other)]), "mine.json")
