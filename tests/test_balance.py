"""vale-sim balance (docs/balance.md): planted errors are undone, other cards left alone,
the patched card file reloads with source 'balance', a resume replays nothing, bad input
is one line.  Every search here runs with the defaults: the strongest bundled field
(meta-{P}p) and the natural estimand; the planted cards and their partners were chosen
for it (docs/balance.md, "The planted tests")."""
from __future__ import annotations

import json

import pytest

from vale_sim import balance as B
from vale_sim.cli import main
from vale_sim.games import get_game


def _plant(tmp_path, game, plants):
    """A copy of the game's bundled card file with the planted errors; (path, printed)."""
    g = get_game(game)
    cs = g.load_card_set(g.default_card_set)
    edits, printed = [], {}
    for card, fld, delta in plants:
        _, old, _ = g.edit_card(cs, card, fld, 0, True)
        printed[card] = old
        edits.append({"card": card, "field": fld, "old": old, "new": old + delta})
    p = tmp_path / f"planted-{game}.toml"
    p.write_text(B.patch_card_file(cs.path, edits))
    return str(p), printed


def _planted(tmp_path, game, card, fld, delta):
    path, printed = _plant(tmp_path, game, [(card, fld, delta)])
    return get_game(game), path, printed[card]


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
    # Cleansing Rain printed cost 5 (an estimate), planted 3 (-2): under meta-2p its
    # natural value rises from about +1 to +5 pp (over); balance must propose +2 +- 1
    g, path, old = _planted(tmp_path, "mystic-vale", "Cleansing Rain", "cost", -2)
    b = B.balance("mystic-vale", path, ["cost", "end_vp"],
                  ["Cleansing Rain", "Model L3 Grove D"], games=2000, seed=0)
    by = {e["card"]: e for e in b.edits}
    assert "Model L3 Grove D" not in by          # the unplanted card: no false edit
    e = by["Cleansing Rain"]
    assert e["field"] == "cost" and e["old"] == old - 2 and abs(e["new"] - old) <= 1
    assert e["source"] == "balance"
    # confirmation on a seed the search never used; errata with intervals and n
    assert b.config["confirm_seed"] not in b.config["search_seeds"]
    r = b.errata.iloc[0]
    assert r["strength_before_lo"] <= r["strength_before"] <= r["strength_before_hi"]
    assert r["n_deals"] == 2000
    assert abs(r["strength_after"]) < abs(r["strength_before"])


def test_unplanted_cards_are_left_alone(tmp_path):
    """The false-edit guarantee: cards that are balanced under the field get no edit
    (Holm at 5% across the cards and both directions): on near-balanced cards of core
    under meta-2p (natural values +0.4, +0.9, +0.5 pp, forced -0.4 to 0 pp at 2,000
    games, seed 0), none is edited."""
    cards = ["Model L3 Grove D", "Azure Lake", "Heartwood Sanctuary"]
    b = B.balance("mystic-vale", None, ["cost", "end_vp"], cards, games=1000, seed=3)
    assert b.edits == [] and b.errata.empty
    assert b.config["targets"] == []
    assert set(b.confirm["card"]) == set(cards)


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


def test_k_planted_errors_in_core_each_undone_within_one(tmp_path):
    """Two planted errors in a copy of core among three cards: Ley Line Nexus made useless
    (end VP 2 -> 0: a vale with no ability and no VP, which meta-2p never takes; forcing
    it costs: under) and -2 cost on Feral Chieftain (over); every planted card gets an
    edit of the planted number in the right direction undoing it within +-1, the
    unplanted card none.  (World Tree, the same kind of vale, was the plant until the
    field took Deadwood Harvester into its never list on the refit core: it was then
    undone to 4, printed 2; Ley Line Nexus and Exodus Road are undone to 3.)"""
    plants = [("Ley Line Nexus", "end_vp", -2), ("Feral Chieftain", "cost", -2)]
    path, printed = _plant(tmp_path, "mystic-vale", plants)
    b = B.balance("mystic-vale", path, ["cost", "end_vp"],
                  ["Ley Line Nexus", "Feral Chieftain", "Model L3 Grove D"], games=2000, seed=0)
    assert b.config["target_kinds"] == {"Ley Line Nexus": "under", "Feral Chieftain": "over"}
    by = {e["card"]: e for e in b.edits}
    assert "Model L3 Grove D" not in by
    for card, fld, delta in plants:
        e = by[card]
        assert e["field"] == fld
        assert (e["new"] - e["old"]) * delta < 0           # the right direction
        assert abs(e["new"] - printed[card]) <= 1          # undoes the error within +-1


PLANTED = "Rain Lily"   # the Mystic Lands plant: -3 cost (docstring below)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_same_proposal_under_three_seeds_in_mystic_lands(tmp_path, seed):
    """A planted -3 cost on Rain Lily in a copy of mystic-lands (12 -> 9: meta-2p buys
    the cheaper card more and gains by it: over): under each of three seeds the proposal
    is its cost back within +-1 (12, the printed cost, under seeds 0, 1, 2), and Spirit
    Cave is left alone.  Chosen for the co-refit set and its field (docs/balance.md, "The
    fitted sets"), from a screen of -3 cost and +3 end VP on the cards the field buys
    most: Morning Mist -3 cost comes back to 8 (printed 7), Sequoia Forest -3 cost to 11
    (printed 10), Storm Caller -3 cost is not flagged; Sequoia Forest +3 end VP (the plant
    before the co-refit) is now undone by a cost edit (10 -> 14), not its end VP.
    (Before: Sequoia Forest +3 end VP under the fields re-bundled on the refit set, Rain
    Lily -3 cost under the fields converged before the refit, and +3 cost on Ancient
    Willow before the refit itself.)"""
    path, printed = _plant(tmp_path, "mystic-lands", [(PLANTED, "cost", -3)])
    b = B.balance("mystic-lands", path, ["cost", "end_vp"], [PLANTED, "Spirit Cave"],
                  games=1000, seed=seed)
    assert [(e["card"], e["field"]) for e in b.edits] == [(PLANTED, "cost")]
    assert abs(b.edits[0]["new"] - printed[PLANTED]) <= 1


def test_the_command_writes_errata_patched_file_edits_and_plot(tmp_path, capsys):
    path, printed = _plant(tmp_path, "mystic-lands", [(PLANTED, "cost", -3)])
    out, ed, fig = tmp_path / "balanced.toml", tmp_path / "edits.toml", tmp_path / "conv.png"
    assert main(["balance", "--game", "mystic-lands", "--set", path, "--cards",
                 f"{PLANTED},Spirit Cave", "--games", "1000", "--out-cards", str(out),
                 "--out-edits", str(ed), "--plot", str(fig)]) == 0
    text = capsys.readouterr().out
    assert "Errata" in text and PLANTED in text and "n deals" in text
    assert "natural value" in text and "field value-2p" in text    # the field it used
    g = get_game("mystic-lands")
    cs = g.load_card_set(str(out))
    card = next(a for a in cs.advances if a.name == PLANTED)
    assert abs(card.cost - printed[PLANTED]) <= 1
    assert dict(card.sources)["cost"] == "balance"
    from vale_sim.whatif import read_edits_file
    edits, rules = read_edits_file(ed, g)
    assert [(e.card, e.field, e.value, e.relative) for e in edits] == [
        (PLANTED, "cost", card.cost, False)] and rules == []
    assert fig.stat().st_size > 0


def test_an_output_in_a_missing_folder_is_one_line_before_any_game(tmp_path, capsys):
    assert main(["balance", "--out-cards", str(tmp_path / "no" / "x.toml")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--out-cards" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "no").exists()


def test_the_budget_stops_the_search_and_says_so(tmp_path):
    path, _ = _plant(tmp_path, "mystic-lands", [(PLANTED, "cost", -3)])
    # 1000 games per card and arm at 2 players: the screen of 2 cards is 500 x 2 x 5 = 5000
    b = B.balance("mystic-lands", path, ["cost"], [PLANTED, "Spirit Cave"],
                  games=1000, budget=5000)
    assert b.edits == [] and b.games["search"] == 5000
    assert PLANTED in b.config["targets"]
    assert "budget" in b.unbalanced[PLANTED]
