"""Verdicts checked against strong play: rank correlation, flag changes, pool moves, --baseline."""
import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from vale_sim import robustness as R
from vale_sim.games.mystic_vale import pools
from vale_sim.cli import main


# ---------------------------------------------------------------------------
# Planted strength tables
# ---------------------------------------------------------------------------
def table(rows, baseline, tolerance=0.05):
    """A strength table as advancements.strength_table returns it: (card, strength, lo, hi, flag)."""
    df = pd.DataFrame([{"card": c, "kind": "advancement", "level": 1, "strength": s,
                        "strength_lo": lo, "strength_hi": hi,
                        "strength_se": (hi - lo) / (2 * 1.96), "flag": f, "n_deals": 5000}
                       for c, s, lo, hi, f in rows])
    df.attrs.update(baseline=baseline, tolerance=tolerance)
    return df


WEAK = [("Solid", 0.12, 0.10, 0.14, "over"),        # over under both bots
        ("Trap", 0.11, 0.09, 0.13, "over"),         # strong only under the weak bot
        ("Maybe", 0.09, 0.07, 0.11, "over"),        # inconclusive under the strong bot
        ("Flip", 0.08, 0.06, 0.10, "over"),         # over -> under
        ("Dud", -0.09, -0.11, -0.07, "under"),      # under under both
        ("Plain", 0.00, -0.01, 0.01, ""),           # never flagged
        ("Late", 0.03, -0.01, 0.07, "")]            # flagged only under the strong bot
STRONG = {"Solid": (0.10, 0.08, 0.12, "over"), "Trap": (0.00, -0.01, 0.01, ""),
          "Maybe": (0.05, 0.02, 0.08, ""), "Flip": (-0.08, -0.10, -0.06, "under"),
          "Dud": (-0.10, -0.12, -0.08, "under"), "Plain": (0.01, -0.01, 0.03, ""),
          "Late": (0.09, 0.07, 0.11, "over")}


def planted():
    a = table(WEAK, "weak-bot")
    b = table([(c,) + STRONG[c] for c, *_ in reversed(WEAK)], "strong-bot")  # other row order
    return a, b


def test_flag_changes_and_labels_on_planted_tables():
    a, b = planted()
    cmp = R.compare_strengths(a, b, resamples=400, seed=1)
    lab = dict(zip(cmp.table["card"], cmp.table["label"]))
    assert lab == {"Solid": "robust", "Dud": "robust", "Trap": "not robust", "Flip": "not robust",
                   "Maybe": "not shown robust", "Late": "not shown robust",
                   "Plain": "no flag under either"}
    # The rule is symmetric in the two bots: a flag only under the strong bot is checked too.
    back = R.compare_strengths(b, a, resamples=50)
    assert dict(zip(back.table["card"], back.table["label"])) == lab
    # Rows are matched by card, not by position.
    row = cmp.table.set_index("card").loc["Trap"]
    assert row["strength_a"] == 0.11 and row["strength_b"] == 0.0
    assert row["change"] == pytest.approx(-0.11)
    assert row["change_lo"] < -0.11 < row["change_hi"]
    # The point value is scipy's Spearman of the two strength columns.
    ta = a.set_index("card")["strength"]
    tb = b.set_index("card")["strength"].loc[ta.index]
    assert cmp.rho == pytest.approx(spearmanr(ta, tb).statistic)
    assert cmp.rho_lo <= cmp.rho <= cmp.rho_hi and -1 <= cmp.rho_lo and cmp.rho_hi <= 1
    assert "parametric" in cmp.method


def test_sentences_never_overclaim():
    a, b = planted()
    cmp = R.compare_strengths(a, b, resamples=200)
    text = " ".join(cmp.sentences())
    # 6 cards are flagged under some bot; 2 keep their flag.
    assert "2 of 6 flags are robust to the bots" in text
    assert "Solid (over)" in text and "Dud (under)" in text
    assert "these change (flag under weak-bot → under strong-bot):" in text
    assert "Trap (over → no flag: not robust)" in text
    assert "Maybe (over → no flag: not shown robust)" in text
    assert "Late (no flag → over: not shown robust)" in text
    assert "Flip (over → under: not robust)" in text
    assert "wrong" not in text.replace("does not make it wrong", "")
    assert re.search(r"ρ = [-\d.]+ \(95% CI \[[-\d.]+, [-\d.]+\]", text)
    # Nothing flagged anywhere: said so, no count of robust flags.
    quiet = R.compare_strengths(table([("x", 0.0, -0.01, 0.01, ""), ("y", 0.01, 0, 0.02, "")], "a"),
                                table([("x", 0.0, -0.01, 0.01, ""), ("y", 0.02, 0, 0.04, "")], "b"))
    assert "No card is flagged under either baseline" in quiet.flag_sentence()


def test_rank_correlation_known_answers():
    rows = [(f"c{i}", s, s - 0.01, s + 0.01, "") for i, s in enumerate([0.03, 0.01, -0.02, 0.0])]
    same = R.compare_strengths(table(rows, "a"), table(rows, "b"), resamples=100)
    assert same.rho == pytest.approx(1.0)
    flipped = [(c, -s, -s - 0.01, -s + 0.01, "") for c, s, *_ in rows]
    rev = R.compare_strengths(table(rows, "a"), table(flipped, "b"), resamples=100)
    assert rev.rho == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="same cards"):
        R.compare_strengths(table(rows, "a"), table(rows[:3], "b"))


class FakeRun:
    """What compare_strengths reads of a StrengthRun: per-deal strengths, seed, deals, players."""

    def __init__(self, per_deal: dict, seed=0, players=2):
        self.per_deal = per_deal
        self.seed, self.players = seed, players
        self.deals = len(next(iter(per_deal.values())))

    def strength_deals(self, card):
        return self.per_deal[card]


def runs_and_tables(true_a, true_b, noise, deals, seed=0, shared=0.0):
    rng = np.random.default_rng(seed)
    common = rng.standard_normal((len(true_a), deals))        # deal luck both bots share
    pa, pb, ta, tb = {}, {}, [], []
    for k, (c, ma) in enumerate(true_a.items()):
        da = ma + noise * (shared * common[k] + rng.standard_normal(deals))
        db = true_b[c] + noise * (shared * common[k] + rng.standard_normal(deals))
        pa[c], pb[c] = da, db
        for d, t in ((da, ta), (db, tb)):
            se = d.std(ddof=1) / np.sqrt(deals)
            t.append((c, d.mean(), d.mean() - 1.96 * se, d.mean() + 1.96 * se, ""))
    return (FakeRun(pa, seed), FakeRun(pb, seed)), table(ta, "a"), table(tb, "b")


def test_deal_bootstrap_interval_and_paired_change():
    true = {f"c{i}": 0.02 * i for i in range(8)}
    (ra, rb), a, b = runs_and_tables(true, true, noise=0.3, deals=400, shared=1.0)
    cmp = R.compare_strengths(a, b, runs=(ra, rb), resamples=500, seed=2)
    assert "bootstrap over deals" in cmp.method and cmp.n_deals == 400
    assert cmp.rho == pytest.approx(spearmanr(a["strength"], b["strength"]).statistic)
    assert cmp.rho_lo < cmp.rho <= cmp.rho_hi <= 1
    # Less noise, narrower interval; identical per-deal results give exactly 1.
    (ra2, rb2), a2, b2 = runs_and_tables(true, true, noise=0.05, deals=400, shared=1.0)
    tight = R.compare_strengths(a2, b2, runs=(ra2, rb2), resamples=500, seed=2)
    assert tight.rho_hi - tight.rho_lo < cmp.rho_hi - cmp.rho_lo
    twin = R.compare_strengths(a, a, runs=(ra, ra), resamples=200)
    assert (twin.rho, twin.rho_lo, twin.rho_hi) == (1.0, 1.0, 1.0)
    # The change is paired by deal: a constant shift has a zero-width interval.
    shifted = FakeRun({c: d + 0.02 for c, d in ra.per_deal.items()})
    tb = a.assign(strength=a["strength"] + 0.02)
    ch = R.compare_strengths(a, tb, runs=(ra, shifted), resamples=50).table
    assert np.allclose(ch["change"], 0.02) and np.allclose(ch["change_lo"], 0.02)
    assert np.allclose(ch["change_hi"], 0.02)
    # Runs on different deals are refused.
    with pytest.raises(ValueError, match="same deals"):
        R.compare_strengths(a, b, runs=(ra, FakeRun(rb.per_deal, seed=9)))


def test_a_card_strong_only_under_the_weak_bot_is_not_robust():
    """Per-deal planted case: 'Crutch' is worth +10 pp to the weak bot and nothing to the
    strong one (e.g. it covers a weakness the strong bot does not have)."""
    from vale_sim.advancements import flag_for
    true_a = {"Crutch": 0.10, "Solid": 0.10, "Meh": 0.0, "Low": -0.01}
    true_b = {"Crutch": 0.0, "Solid": 0.10, "Meh": 0.0, "Low": -0.01}
    (ra, rb), a, b = runs_and_tables(true_a, true_b, noise=0.25, deals=6000, seed=3)
    for t in (a, b):
        t["flag"] = [flag_for(lo, hi, 0.05) for lo, hi in zip(t["strength_lo"], t["strength_hi"])]
    cmp = R.compare_strengths(a, b, runs=(ra, rb), resamples=300, seed=3)
    lab = dict(zip(cmp.table["card"], cmp.table["label"]))
    assert lab["Crutch"] == "not robust" and lab["Solid"] == "robust"
    assert "1 of 2 flags are robust to the bots: Solid (over)" in cmp.flag_sentence()
    row = cmp.table.set_index("card").loc["Crutch"]
    assert row["change_hi"] < -0.05                       # the drop is measured, not guessed


# ---------------------------------------------------------------------------
# Pools
# ---------------------------------------------------------------------------
def pool_frame(rounds_of, players=(2, 3, 4), grid=(23, 26, 28, 30, 33, 34), games=60):
    rows = []
    for p in players:
        for v in grid:
            for g in range(games):
                for s in range(p):
                    rows.append(dict(players=p, pool=v, game=g, player=s, seat=s, policy="x",
                                     score=10 + s, tokens_vp=v // p, adv_vp=10, vale_vp=0,
                                     win_share=1.0 if s == g % p else 0.0,
                                     rounds=rounds_of(p, v) + (g % 3) - 1, truncated=False))
    return pd.DataFrame(rows)


def test_pool_moves_on_planted_studies():
    rb = pools.RULEBOOK_POOLS
    weak = pool_frame(lambda p, v: 20 - 0.5 * (v - rb[p]))
    # Under the strong bot the 3-player game reaches the goal at pool 34 instead of 28.
    strong = pool_frame(lambda p, v: 20 - 0.5 * (v - (34 if p == 3 else rb[p])))
    recs = [{"equal-length": pools.recommend(pools.summarize_pools(f), "equal-length")}
            for f in (weak, strong)]
    pc = R.compare_pools(recs[0], recs[1], "weak", lambda p: f"strong-{p}p")
    t = pc.table.set_index("players")
    assert t.loc[2, "label"] == "(the goal)"
    assert t.loc[3, "range_a"] == "28" and t.loc[3, "range_b"] == "34"
    assert t.loc[3, "rulebook_a"] == "equivalent" and t.loc[3, "rulebook_b"] == "shown different"
    assert t.loc[3, "label"] == "not robust" and t.loc[3, "closest_shift"] == 6
    assert t.loc[4, "label"] == "robust" and t.loc[4, "shared"] == "33"
    assert t.loc[3, "baseline_b"] == "strong-3p"
    text = " ".join(pc.sentences())
    assert "3 players, equal length: equivalent pools 28 under weak, 34 under strong-3p" in text
    assert "n = 60 games per pool): not robust" in text
    assert pc.counts() == {"robust": 1, "not robust": 1, "not shown robust": 0}
    s = R.summary_sentence(None, pc, "strong-{P}p")
    assert "not robust: 3p length" in s and "robust: 4p length" in s and "n = 60" in s


def test_inconclusive_pool_verdict_is_not_shown_robust():
    rb = pools.RULEBOOK_POOLS
    weak = pool_frame(lambda p, v: 20 - 0.5 * (v - rb[p]), players=(2, 3))
    # 0.4 rounds off at 3 players: neither inside nor outside ±0.5 with 60 games
    strong = pool_frame(lambda p, v: 20 - 0.5 * (v - rb[p]) + (0.4 if p == 3 else 0),
                        players=(2, 3))
    recs = [{"equal-length": pools.recommend(pools.summarize_pools(f), "equal-length")}
            for f in (weak, strong)]
    t = R.compare_pools(recs[0], recs[1], "weak", "strong").table.set_index("players")
    assert t.loc[3, "rulebook_b"] == "inconclusive"
    assert t.loc[3, "label"] == "not shown robust"


# ---------------------------------------------------------------------------
# --baseline on every command
# ---------------------------------------------------------------------------
def test_baseline_spec_and_resolution(tmp_path):
    assert R.baseline_spec("optimized-{P}p", 3) == "optimized-3p"
    assert R.resolve_baseline("optimized-{P}p", 4).name == "optimized-4p"
    assert R.resolve_baseline("greedy", 2).name == "greedy"
    f = tmp_path / "mine.toml"
    f.write_text('base = "balanced"\npush_risk_permille = 100\n')
    assert R.resolve_baseline(str(f), 2).push_risk_permille == 100
    from vale_sim.games.mystic_vale.policy import PolicyError
    for bad in ("nope", "", "optimized-{P}p-x"):
        with pytest.raises(PolicyError):
            R.resolve_baseline(bad, 2)


def bad_policy_file(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('base = "balanced"\n[[buy]]\ncard = "No Such Card"\n')
    return str(f)


@pytest.mark.parametrize("argv", [
    ["advancements", "--games", "4", "--cards", "Podlings", "--only", "strength"],
    ["pools", "--games", "4", "--players", "2", "--pools", "23"],
    ["tournament", "--policies", "balanced,greedy", "--games", "4"],
    ["report", "--quiet"],
])
def test_baseline_errors_are_one_line(argv, tmp_path, capsys):
    out = tmp_path / "out"
    extra = ["--out", str(out)] if argv[0] == "report" else []
    for value, needle in (("nope", "unknown policy 'nope'"),
                          (str(tmp_path / "missing.toml"), "no such policy file"),
                          ("optimized-{P}q", "unknown policy 'optimized-")):
        assert main(argv + extra + ["--baseline", value]) == 2, value
        cap = capsys.readouterr()
        assert needle in cap.err and len(cap.err.strip().splitlines()) == 1, cap.err
        assert "Traceback" not in cap.err and cap.out == ""
    if argv[0] != "tournament":           # buy rules are checked against the card set up front
        assert main(argv + extra + ["--baseline", bad_policy_file(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert "No Such Card" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()                # nothing written


def test_baseline_template_on_pools_and_advancements(capsys):
    assert main(["pools", "--games", "4", "--players", "3", "--pools", "28", "--json",
                 "--baseline", "optimized-{P}p"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert {r["baseline"] for r in recs} == {"optimized-3p"}
    assert main(["pools", "--games", "4", "--players", "2", "--pools", "23", "--json",
                 "--policy", "greedy"]) == 0                      # the old name still works
    assert {r["baseline"] for r in json.loads(capsys.readouterr().out)} == {"greedy"}
    assert main(["advancements", "--games", "4", "--cards", "Podlings", "--only", "strength",
                 "--baseline", "optimized-{P}p"]) == 0
    assert "baseline (optimized-2p)" in capsys.readouterr().out


def test_tournament_baseline_is_the_opponent_field(capsys):
    from vale_sim.tournament import tournament
    t = tournament(["balanced", "cautious"], players=2, games=8, baseline="greedy")
    assert t.config["mode"] == "field" and t.config["baseline"] == "greedy"
    assert set(t.table["matchup"]) == {"balanced vs greedy", "cautious vs greedy"}
    assert "greedy" in set(t.ranking["name"])           # ranked although not listed
    with pytest.raises(ValueError, match="round-robin"):
        tournament(["balanced", "cautious"], players=2, games=8, baseline="greedy",
                   mode="round-robin")
    assert main(["tournament", "--policies", "balanced,cautious", "--games", "6", "--players",
                 "3", "--baseline", "optimized-{P}p", "--json"]) == 0
    cfg = json.loads(capsys.readouterr().out)["config"]
    assert cfg["baseline"] == "optimized-3p" and cfg["mode"] == "field"
    assert main(["tournament", "--policies", "balanced,cautious", "--games", "4", "--mode",
                 "round-robin", "--baseline", "greedy"]) == 2
    err = capsys.readouterr().err
    assert "--baseline" in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------------
# The report section
# ---------------------------------------------------------------------------
def test_report_section_in_a_tiny_report(tmp_path):
    from vale_sim import report
    from vale_sim.games.mystic_vale import report as mv_report
    from vale_sim.report import build_report
    from vale_sim.games.mystic_vale.report import ReportSettings
    s = ReportSettings.make(size="tiny", baseline="optimized-{P}p")
    build_report(tmp_path / "r", s, progress=False,
                 sections=[mv_report.section_advancements, mv_report.section_pools,
                           mv_report.section_robustness])
    html = (tmp_path / "r" / "index.html").read_text()
    md = (tmp_path / "r" / "report.md").read_text()
    for doc in (html, md):
        assert "Robust to the bots?" in doc
        assert "optimized-2p" in doc and "optimized-3p" in doc
        assert "Spearman rank correlation" in doc
    # The side-by-side tables are open, before the section's text.
    assert '<details id="tbl-robust_cards" open>' in html
    assert '<details id="tbl-robust_pools" open>' in html
    sec = html[html.index("Robust to the bots?</h2>"):]
    assert sec.index("tbl-robust_cards") < sec.index("Every verdict above comes from games")
    cards = pd.read_csv(tmp_path / "r" / "tables" / "robust_cards.csv")
    assert set(cards["card"]) == set(s.adv_cards)
    assert set(cards["label"]) <= set(R.LABELS)
    assert {"flag (balanced)", "flag (optimized-2p)", "change (optimized-2p − balanced)"} <= set(
        cards.columns)
    pl = pd.read_csv(tmp_path / "r" / "tables" / "robust_pools.csv")
    assert set(pl["players"]) == {2, 3}
    # the bundled verdicts under search play (docs/search.md), read, not played
    assert "**Verdicts under search play** — flagged cards" in md
    sv = pd.read_csv(tmp_path / "r" / "tables" / "search_verdicts_flagged_cards.csv")
    from vale_sim import search_verdicts as SV
    bundled = SV.read(SV.bundled_path("mystic-vale"))["studies"]["flagged cards"]["cards"]
    assert len(sv) == len(bundled) > 0 and sv.filter(like="n (search").iloc[0, 0].endswith("games")
    # One bullet in the executive summary, with its n.
    summary = html[:html.index('<section id="s2">')]
    head = summary.index("<h3>Robust to the bots?</h3>")
    items = re.findall(r"<li>(.*?)</li>", summary[head:].split("</ul>")[0])
    assert len(items) == 1 and re.search(r"\bn = [\d,]+", items[0]) and "CI" in items[0]
    with pytest.raises(ValueError, match="unknown policy"):
        ReportSettings.make(size="tiny", robust_baseline="nope")


def test_study_configs_take_a_baseline(tmp_path, capsys):
    ok = tmp_path / "pools.toml"
    ok.write_text('study = "pool_sizes"\nplayers = [2, 3]\npools = "23,28"\ngames = 4\n'
                  'baseline = "optimized-{P}p"\n')
    assert main(["run", "--check", str(ok)]) == 0
    capsys.readouterr()
    for text, key in (('study = "report"\nbaseline = "nope"\n', "baseline"),
                      ('study = "pool_sizes"\nbaseline = "greedy"\npolicy = "greedy"\n', "baseline"),
                      ('study = "tournament"\npolicies = ["balanced", "greedy"]\n'
                       'mode = "round-robin"\nbaseline = "cautious"\n', "baseline")):
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        assert main(["run", "--check", str(bad)]) == 2
        err = capsys.readouterr().err
        assert f"{bad}: {key}:" in err and len(err.strip().splitlines()) == 1, err


def test_bca_interval_matches_scipy():
    """The hand-rolled BCa (multinomial resamples, closed-form jackknife) against
    scipy.stats.bootstrap(method="BCa") resampling the deals itself."""
    from scipy.stats import bootstrap
    true = {f"c{i}": 0.005 * i for i in range(12)}     # 12 cards: a fine grid of rho values
    (ra, rb), a, b = runs_and_tables(true, {c: v * (i % 3) for i, (c, v) in
                                            enumerate(true.items())}, noise=0.3, deals=80, seed=6)
    cards = list(true)
    da, db = R._per_deal(ra, cards), R._per_deal(rb, cards)
    point = spearmanr(da.mean(1), db.mean(1)).statistic
    mine = R.bca_interval(R.deal_bootstrap(da, db, 4000, seed=1), point,
                          R.deal_jackknife(da, db))

    def stat(idx):
        idx = idx.astype(int)
        return spearmanr(da[:, idx].mean(1), db[:, idx].mean(1)).statistic
    ref = bootstrap((np.arange(da.shape[1]),), stat, n_resamples=4000, method="BCa",
                    vectorized=False, random_state=2).confidence_interval
    assert mine[0] == pytest.approx(ref.low, abs=0.04)     # Monte Carlo error of the tails
    assert mine[1] == pytest.approx(ref.high, abs=0.04)
    # Here noise pulls the resampled values towards 0: the plain percentile interval
    # even contains 0, the bias-corrected one does not; the reported one is their hull.
    boot = R.deal_bootstrap(da, db, 4000, seed=1)
    pct = np.quantile(boot, [0.025, 0.975])
    assert pct[1] > 0 > mine[1]
    hull = R.rho_interval(boot, point, R.deal_jackknife(da, db))
    assert hull == (min(pct[0], mine[0]), max(pct[1], mine[1]))
    # The jackknife is the leave-one-deal-out statistic.
    jk = R.deal_jackknife(da, db)
    assert jk[7] == pytest.approx(stat(np.delete(np.arange(da.shape[1]), 7)))


def test_every_game_resolves_its_own_baselines():
    """Game.resolve_baseline: the game's presets and files, {P} for the player count, and
    an empty name refused with the names to use (not "cannot read '.'")."""
    from vale_sim.games import get_game
    ml = get_game("mystic-lands")
    assert ml.resolve_baseline("vale-rush", 3).name == "vale-rush"
    assert R.resolve_baseline("greedy", 2, game="mystic-lands") is ml.get_policy("greedy")
    with pytest.raises(ValueError, match="unknown policy 'optimized-2p'"):
        ml.resolve_baseline("optimized-{P}p", 2)        # Mystic Vale's, not Mystic Lands'
    for g in (get_game("mystic-vale"), ml):
        for empty in ("", "  ", None):
            with pytest.raises(ValueError, match="no policy named: give one of balanced"):
                g.resolve_baseline(empty, 2)


@pytest.mark.parametrize("game", ["mystic-vale", "mystic-lands"])
def test_an_empty_policy_name_is_one_line(game, capsys):
    from vale_sim.cli import main
    assert main(["simulate", "--game", game, "--games", "1", "--policy", ""]) == 2
    err = capsys.readouterr().err
    assert "no policy named" in err and len(err.strip().splitlines()) == 1
