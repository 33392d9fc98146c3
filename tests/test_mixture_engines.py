"""Mixed fields in both games' engines (vale_sim/mixture.py): the fast and the reference
engine play the same games with a mixture, and the games do not depend on the
workers count or the chunking."""
from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from vale_sim import mixture as MX
from vale_sim import runner
from vale_sim.games import get_game

pytestmark = pytest.mark.compiled

MIX = """kind = "mixture"
name = "room"
draw = "{draw}"
[[member]]
policy = "greedy"
weight = 0.4
[[member]]
policy = "cautious"
weight = 0.6
"""


@pytest.mark.parametrize("game", ["mystic-vale", "mystic-lands"])
@pytest.mark.parametrize("draw", ["deal", "seat"])
def test_fast_and_reference_engines_play_the_same_mixed_games(tmp_path, game, draw):
    path = tmp_path / "room.toml"
    path.write_text(MIX.format(draw=draw))
    g = get_game(game)
    m = g.get_policy(str(path))
    cfg = runner.RunConfig(card_set=g.default_card_set, players=3, seed=7, games=12,
                           policies=("balanced", m, m), game=game)
    fast = runner.run(cfg, chunk_size=12, progress=False)
    ref = runner.run(dataclasses.replace(cfg, engine="reference"), progress=False)
    pd.testing.assert_frame_equal(fast, ref, check_dtype=False)
    assert set(fast["policy"]) == {"balanced", "room"}
    pd.testing.assert_frame_equal(runner.run(cfg, chunk_size=5, progress=False), fast)


def test_the_same_games_for_any_workers_count(tmp_path):
    path = tmp_path / "room.toml"
    path.write_text(MIX.format(draw="deal"))
    g = get_game("mystic-lands")
    cfg = runner.RunConfig(card_set=g.default_card_set, players=2, seed=3, games=80,
                           policies=("balanced", str(path)), game=g.name)
    one = runner.run(cfg, workers=1, chunk_size=80, progress=False)
    two = runner.run(cfg, workers=2, chunk_size=9, progress=False)
    pd.testing.assert_frame_equal(one, two)
    m = g.get_policy(str(path))
    plain = runner.run(dataclasses.replace(cfg, policies=("balanced", "cautious")),
                       progress=False)
    picked = MX.draws(m, 3, range(80)) == 1             # the games that drew cautious
    rows = one["game"].isin([i for i in range(80) if picked[i]])
    pd.testing.assert_frame_equal(one[rows].drop(columns="policy").reset_index(drop=True),
                                  plain[rows].drop(columns="policy").reset_index(drop=True))


def test_what_if_and_balance_take_a_mixed_baseline(tmp_path, capsys):
    from vale_sim.cli import main
    path = tmp_path / "room.toml"
    path.write_text(MIX.format(draw="deal"))
    common = ["--game", "mystic-lands", "--players", "2", "--baseline", str(path)]
    assert main(["what-if", "--edit", "Rain Lily.cost=1", "--games", "8", "--cards",
                 "Rain Lily", "--json"] + common) == 0
    assert '"baseline"' in capsys.readouterr().out
    assert main(["balance", "--cards", "Rain Lily", "--games", "8", "--confirm-games", "8",
                 "--budget", "200"] + common) == 0
    assert "Rain Lily" in capsys.readouterr().out
