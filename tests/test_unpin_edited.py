"""What-if (and balance) play an edited card by the field's weights: a field's
``never`` entries are by name and were found for the printed card (docs/meta.md §6c)."""
from dataclasses import replace

from vale_sim.games import get_game
from vale_sim.strong_field import unpin_edited


def test_edited_cards_leave_the_never_list_and_nothing_else_changes():
    g = get_game("mystic-vale")
    pol = replace(g.get_policy("balanced"), never=("Grovetender", "Seedling"))
    out = unpin_edited(pol, {"Grovetender", "Stag"})
    assert out.never == ("Seedling",)
    assert replace(out, never=pol.never) == pol
    assert unpin_edited(pol, {"Stag"}) is pol           # nothing to unpin: the same object


def test_what_if_plays_an_edited_never_listed_card(monkeypatch):
    # the baseline handed to the strength runs no longer carries the edited card
    import vale_sim.whatif as W
    seen = []

    def fake_run(game, cs, games, p, seed, base, names, *a, **k):
        seen.append(base)
        raise RuntimeError("stop")
    import vale_sim.advancements as A
    monkeypatch.setattr(A, "game_strength_run", fake_run)
    g = get_game("mystic-vale")
    pol = replace(g.get_policy("balanced"), name="pruned", never=("Grovetender", "Seedling"))
    try:
        W.what_if(edits=["Grovetender.cost=5"], baseline=pol, games=20, players=(2,))
    except RuntimeError:
        pass
    assert seen and all("Grovetender" not in b.never and "Seedling" in b.never for b in seen)


def test_balance_plays_an_edited_never_listed_card_by_the_weights(monkeypatch):
    import vale_sim.advancements as A
    from vale_sim.balance import balance
    seen = []

    def fake_run(game, cs, games, p, seed, base, names, *a, **k):
        seen.append((cs.digest(), base.never))
        raise RuntimeError("stop")
    monkeypatch.setattr(A, "game_strength_run", fake_run)
    g = get_game("mystic-vale")
    pol = replace(g.get_policy("balanced"), name="pruned", never=("Grovetender", "Seedling"))
    try:                                  # the screen: no edit, the field as given
        balance(cards=["Grovetender"], baseline=pol, games=20, players=(2,))
    except RuntimeError:
        pass
    assert seen and seen[0][1] == ("Grovetender", "Seedling")
    # an edited run: the edited card leaves the never list, the other entry stays
    from vale_sim.balance import _Runs
    seen.clear()
    cs0 = g.load_card_set("core")
    runs = _Runs(g, cs0, {2: pol}, None, "fast", 1, None, None, {}, False, None, None)
    try:
        runs.strength((("Grovetender", "cost", 5),), ["Grovetender"], 2, 0, 20)
    except RuntimeError:
        pass
    assert seen and seen[0][1] == ("Seedling",) and seen[0][0] != cs0.digest()
