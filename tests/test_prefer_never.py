"""The "prefer X" arm of card strength forces X even when the baseline's ``never``
list holds it (a field that learned never to buy a harmful card must still be
measured forcing it: otherwise prefer X = ban X and "under" can never be shown)."""
from dataclasses import replace

import pytest

from vale_sim.games import get_game

CASES = [("mystic-vale", "Grovetender"), ("mystic-lands", None)]


@pytest.mark.parametrize("game,card", CASES)
def test_prefer_drops_the_card_from_never_and_ban_adds_it(game, card):
    g = get_game(game)
    base = g.get_policy(g.default_policy)
    if card is None:                       # any buyable card of the game's default set
        card = g.strength_cards(g.load_card_set(g.default_card_set))[0][0]
    other = "Some Other Card"
    field = replace(base, name="pruned", never=(card, other))
    prefer, ban = g.strength_arms(card, field)
    assert card not in prefer.never and other in prefer.never
    assert (prefer.rules[0].target, prefer.rules[0].value) == ("card", card)
    assert card in ban.never and other in ban.never
    # without a never list the arms are as before
    prefer0, ban0 = g.strength_arms(card, base)
    assert prefer0.never == base.never and ban0.never == tuple(base.never) + (card,)
