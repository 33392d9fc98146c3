"""vale-sim balance (docs/balance.md): planted errors are undone, other cards left alone,
the patched card file reloads with source 'balance', a resume replays nothing, bad input
is one line."""
from __future__ import annotations

import json

import pytest

from vale_sim import balance as B
from vale_sim.cli import main
from vale_sim.games import get_game


def _planted(tmp_path, game, card, fld, delta):
    g = get_game(game)
    cs = g.load_card_set(g.default_card_set)
    _, old, _ = g.edit_card(cs, card, fld, 0, True)
    p = tmp_path / f"planted-{game}.toml"
    p.write_text(B.patch_card_file(cs.path, [{"card": card, "field": fld, "old": old,
                                              "new": old + delta}]))
    return g, str(p), old


def test_patched_file_reloads_with_the_numbers_and_source_balance(tmp_path):
    for game, card, fld in (("mystic-vale", "Calm Weather", "cost"),
                            ("mystic-vale", "Stag", "end_vp"),
                            ("mystic-lands", None, "cost")):
        g = get_game(game)
        cs = g.load_card_set(g.default_card_set)
        card = card or next(n for n, *_ in g.strength_cards(cs))
        g2, path, old = _planted(tmp_path, game, card, fld, +1)
        cs2 = g2.load_card_set(path)
        _, now, _ = g2.edit_card(cs2, card, fld, 0, True)
        assert now == old + 1
        expect, _, _ = g.edit_card(cs, card, fld, old + 1, False)
        # the same numbers as the in-memory edit; only the source differs (user vs balance)
        text = open(path).read()
        assert '"balance"' in text and f"# balance: printed {old}" in text
        assert len(cs2.vales) == len(cs.vales)
        c2 = next(c for c in (getattr(cs2, "advancements", None) or cs2.advances) + cs2.vales
                  if c.name == card)
        assert dict(c2.sources).get(fld) == "balance"


def test_planted_cost_error_is_undone_and_the_other_card_left_alone(tmp_path):
    # Calm Weather printed cost 3, planted 1 (-2): balance must propose +2 +- 1 on it
    g, path, old = _planted(tmp_path, "mystic-vale", "Calm Weather", "cost", -2)
    b = B.balance("mystic-vale", path, ["cost", "end_vp"], ["Calm Weather", "Podlings"],
                  games=2000, seed=0)
    by = {e["card"]: e for e in b.edits}
    assert "Podlings" not in by                  # the unplanted card: no false edit
    e = by["Calm Weather"]
    assert e["field"] == "cost" and e["old"] == old - 2 and abs(e["new"] - old) <= 1
    assert e["source"] == "balance"
    # confirmation on a seed the search never used; errata with intervals and n
    assert b.config["confirm_seed"] not in b.config["search_seeds"]
    r = b.errata.iloc[0]
    assert r["strength_before_lo"] <= r["strength_before"] <= r["strength_before_hi"]
    assert r["n_deals"] == 2000
    assert abs(r["strength_after"]) < abs(r["strength_before"])


def test_unplanted_cards_are_left_alone(tmp_path):
    """The false-edit guarantee: cards whose true strength is within the margin get no
    edit (Holm at 5% across the cards): on near-balanced cards, none is edited."""
    b = B.balance("mystic-vale", None, ["cost"], ["Podlings", "Calm Weather"], games=1000,
                  seed=3)
    assert b.edits == [] and b.errata.empty
    assert set(b.confirm["card"]) == {"Podlings", "Calm Weather"}


def test_checkpoint_resume_replays_nothing(tmp_path, capsys):
    ck = tmp_path / "bal.json"
    args = ["balance", "--cards", "Podlings", "--games", "200", "--checkpoint", str(ck),
            "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args + ["--resume"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["games_played"]["search"] == 0 and again["games_played"]["confirmation"] == 0
    assert again["games_played"]["replayed_from_checkpoint"] > 0
    assert again["confirmation"] == first["confirmation"]


@pytest.mark.parametrize("argv, message", [
    (["balance", "--fields", "colour"], "--fields: 'colour'"),
    (["balance", "--cards", "Stagg"], "--cards: unknown card 'Stagg'"),
    (["balance", "--games", "1"], "--games"),
    (["balance", "--budget", "x"], "--budget"),
    (["balance", "--margin", "0"], "--margin"),
    (["balance", "--resume"], "--resume needs --checkpoint"),
])
def test_bad_input_is_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
