"""The strategy guide's ablation with the search player as the strongest player
(docs/strategy.md, "With the search player"; issue 28): the hybrid of kind X of a search
player stops searching X *and* takes `balanced`'s fields of X, so X is made like
`balanced`'s; `vale-sim strategy --policy search:... --games 0` runs the ablation only,
and the report shows a bundled search ablation next to the guide."""
from __future__ import annotations

import json
from dataclasses import fields

import pytest

from vale_sim import strategy
from vale_sim.cli import main
from vale_sim.games import get_game

pytestmark = pytest.mark.compiled
G = get_game("mystic-vale")
CS = G.load_card_set("core")


def _kinds():
    return {k: f for k, _, f in strategy.hooks(G).DECISION_KINDS}


@pytest.mark.parametrize("kind", ["push", "advancement", "vale"])
def test_a_search_hybrid_stops_searching_its_kind_and_takes_the_other_fields(kind):
    strong = G.resolve_baseline("search:k=4:rollout=meta-{P}p", 2, CS)
    other = G.resolve_baseline("balanced", 2, CS)
    h = strategy.hybrid_of(strategy.hooks(G), CS, strong, other, kind)
    assert type(h) is type(strong)
    assert h.search_decides == tuple(k for k in strong.search_decides if k != kind)
    for f in _kinds()[kind]:
        assert getattr(h, f) == getattr(other, f), f
    for k2, fs in _kinds().items():
        if k2 != kind:
            for f in fs:
                assert getattr(h, f) == getattr(strong, f), f
    assert (h.search_k, h.search_halving, h.search_opponents) == (
        strong.search_k, strong.search_halving, strong.search_opponents)


def test_a_table_hybrid_is_the_games_hybrid():
    strong = G.resolve_baseline("meta-{P}p", 2, CS)
    other = G.resolve_baseline("balanced", 2, CS)
    for kind in _kinds():
        assert strategy.hybrid_of(strategy.hooks(G), CS, strong, other, kind) == \
            strategy.hooks(G).hybrid(CS, strong, other, kind)


def test_the_strategy_command_runs_the_search_ablation_only(tmp_path, capsys):
    out = tmp_path / "g.json"
    rc = main(["strategy", "--game", "mystic-vale", "--players", "2", "--policy",
               "search:k=2:rollout=meta-{P}p", "--games", "0", "--deals", "3", "--out",
               str(out)])
    assert rc == 0
    doc = json.loads(out.read_text())
    r = doc["players"]["2"]
    assert r["strong"] == "search:k=2:rollout=meta-2p" and r["decisions"] == 0
    rows = {x["kind"]: x for x in r["ablation"]}
    assert set(rows) == {"push", "advancement", "vale", "all"}
    for x in rows.values():
        assert x["n"] == 6 and x["deals"] == 3 and x["cost_lo"] <= x["cost"] <= x["cost_hi"]
    assert rows["push"]["policy"].startswith("search:k=2:rollout=meta-2p+balanced-push")
    assert "--games 0" in doc["command"]
    text = capsys.readouterr().out
    assert "Playing when to push or pass in Planting like `balanced` costs" in text


def test_the_section_shows_a_bundled_search_ablation(tmp_path, monkeypatch):
    doc = {"game": "mystic-vale", "policy": "search:k=2:rollout=meta-{P}p",
           "baseline": "balanced", "settings": {"deals": 3, "games": 0, "seed": 0,
                                                "engine": "fast", "players": [2]},
           "command": "vale-sim strategy --games 0 ...",
           "players": {"2": {"strong": "search:k=2:rollout=meta-2p", "other": "balanced",
                             "strong_digest": strategy.policy_digest(G.resolve_baseline(
                                 "search:k=2:rollout=meta-{P}p", 2)),
                             "other_digest": strategy.policy_digest(G.resolve_baseline(
                                 "balanced", 2)),
                             "ablation": [{"kind": "push", "decisions": "when to push",
                                           "policy": "x", "unchanged": False,
                                           "win_share": 0.3, "cost": 0.2, "cost_lo": 0.1,
                                           "cost_hi": 0.3, "n": 6, "deals": 3}]}}}
    path = tmp_path / strategy.SEARCH_GUIDE_NAME
    path.write_text(json.dumps(doc))
    (tmp_path / "strategy-guide-search-k64.json").write_text(json.dumps(doc))
    monkeypatch.setattr(strategy, "search_guide_path", lambda game: path)
    title, paras, tables, figs, bullets = strategy.section_parts("mystic-vale")
    assert any("With the search player as the strongest player" in p for p in paras)
    assert not any("Out of date:** at 2 players `search" in p for p in paras)
    found = [b for b in bullets if "search player" in b[0]]
    assert len(found) == 2                           # both bundled files, in name order
    head, lines = found[0]
    assert head.endswith("`search:k=2:rollout=meta-2p`")
    assert lines[0] == ("Playing when to push like `balanced` costs +20.0 [+10.0, +30.0] "
                        "points of win share (n = 6 player-games on 3 deals).")
    assert tables["strategy_ablation_search_2p"]["win_cost"].tolist() == [0.2]
    assert tables["strategy_ablation_search_k64_2p"]["win_cost"].tolist() == [0.2]
