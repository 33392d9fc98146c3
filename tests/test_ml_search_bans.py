"""The Mystic Lands search player honours its policy's bans and commitments, in both
engines (docs/search.md, "Bans and commitments"; Mystic Vale's: test_search_bans.py).

The card-strength arms (``Game.strength_arms``) make "ban X" by adding X to the
baseline's ``never`` list and "prefer X" by putting a ``card = X`` buy rule first.  A
search player's own options obey them: a banned Advance or Vale is never an option of
a buy step or an enchantment step, and a step at which the policy's own choice is a
committed card (vale_sim.search.committed_cards) takes it without searching.  Tiny
games (K = 2, ending at a few VP) keep these cheap.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from vale_sim.games import get_game
from vale_sim.games.mystic_lands import cards as C
from vale_sim.games.mystic_lands.policy import get_policy, policies_for
from vale_sim.games.mystic_lands.rules import Rules
from vale_sim.search import committed_cards

from engine_diff import first_difference

pytestmark = pytest.mark.compiled
CS = C.load_card_set(C.DEFAULT_SET)
G = get_game("mystic-lands")
SEARCH = "search:k=2:rollout=balanced"
ADVANCE = "Honey Bees"            # offered to the plain search, seed SEED, not always taken
VALE = "Elder Grove"              # likewise.  (Seed 2 and Fox Den until the co-refit, which
#                                   made Fox Den dearer: at seed 2 the plain search is then
#                                   offered one Vale; seed 0 and Sunlight Valley until the
#                                   first refit.)
TAKEN_VALE = "Sunlight Valley"    # a Vale the plain search does enchant (Sky Temple until
#                                   the co-refit doubled its cost)
SHORT = Rules(end_vp=8)
SEED = 12                         # 6 until the search stopped reading its opponents' hidden
#                                   Druid Advances (issue 41.9): at seed 6 the plain search
#                                   then took every Honey Bees and Elder Grove it was offered


def _arms(base, cards):
    """The prefer arm and the ban arm of every card of ``cards`` at once."""
    prefer, ban = base, base
    for card in cards:
        prefer = G.strength_arms(card, prefer)[0]
        ban = G.strength_arms(card, ban)[1]
    return prefer, ban


def test_the_arms_commit_and_ban_their_cards():
    prefer, ban = _arms(get_policy(SEARCH), (ADVANCE, VALE))
    assert committed_cards(prefer) == (VALE, ADVANCE)
    assert not {ADVANCE, VALE} & set(prefer.never)
    assert committed_cards(ban) == () and {ADVANCE, VALE} <= set(ban.never)


@functools.lru_cache(maxsize=None)
def _watched(pol, seed=SEED):
    """Every buy step and enchantment step of search seat 0's real game (not a rollout
    copy): (kind, the names among its options, the name taken or None, whether it
    searched)."""
    from vale_sim.games.mystic_lands.reference.search import SearchGame
    steps = []

    class Watched(SearchGame):
        def real(self, p):
            return self.searching and self.replay is None and p.index == 0

        def choose_buy(self, p):
            names = set()
            if self.real(p):
                names = {self.adv_name(self.market[o[0]][o[1]])
                         for o in self.buy_options(p) if o is not None}
            d = self.decisions
            out = super().choose_buy(p)
            if self.real(p):
                steps.append(("buy", names, None if out is None
                              else self.adv_name(self.market[out[0]][out[1]]),
                              self.decisions > d))
            return out

        def pick_enchant(self, p):
            names = set()
            if self.real(p):
                names = {self.spot_name(o[0]) for o in self.enchant_options(p) if o is not None}
            d = self.decisions
            out = super().pick_enchant(p)
            if self.real(p):
                steps.append(("vale", names, None if out is None else self.spot_name(out[0]),
                              self.decisions > d))
            return out

    Watched(CS, 2, seed, 0, policies_for(2, [pol, "balanced"]), SHORT, log=False).play()
    return tuple(steps)


@pytest.mark.slow
@pytest.mark.parametrize("card,kind", [(ADVANCE, "buy"), (VALE, "vale")])
def test_a_committed_card_is_taken_whenever_it_can_be(card, kind):
    """Every step of the prefer arm at which the card is an option takes it, the
    policy's own choice there, without searching (no search decision is made); the
    plain search, offered it at such steps, searches and takes something else at least
    once (the control)."""
    base = get_policy(SEARCH)
    prefer, _ = _arms(base, (ADVANCE, VALE))
    offered = [(got, searched) for k, names, got, searched in _watched(prefer)
               if k == kind and card in names]
    assert offered and all(got == card and not searched for got, searched in offered)
    plain = [(got, searched) for k, names, got, searched in _watched(base)
             if k == kind and card in names]
    assert plain and all(searched for _, searched in plain)
    assert any(got != card for got, _ in plain)


@pytest.mark.slow
@pytest.mark.parametrize("card,kind", [(ADVANCE, "buy"), (VALE, "vale")])
def test_a_banned_card_is_never_an_option_of_the_search(card, kind):
    """The ban arm's search steps never offer (so never take) its card; the plain
    search offers it (the control)."""
    base = get_policy(SEARCH)
    _, ban = _arms(base, (ADVANCE, VALE))
    assert not any(card in names or got == card
                   for k, names, got, _ in _watched(ban) if k == kind)
    assert any(card in names for k, names, _, _ in _watched(base) if k == kind)


def test_a_banned_vale_is_never_enchanted_by_the_fast_search():
    from vale_sim.games.mystic_lands.fast.api import run_fast
    base = get_policy(SEARCH)
    _, ban = G.strength_arms(TAKEN_VALE, base)
    col = f"vale:{TAKEN_VALE}"
    plain = run_fast(CS, 2, 3, 4, [base, "balanced"], SHORT)
    banned = run_fast(CS, 2, 3, 4, [ban, "balanced"], SHORT)
    assert plain.loc[plain.player == 0, col].sum() > 0          # control
    assert banned.loc[banned.player == 0, col].sum() == 0


@pytest.mark.slow
@pytest.mark.parametrize("one,other,seed", [(ADVANCE, "Rain Lily", 4), (VALE, TAKEN_VALE, 6)])
def test_engines_play_the_same_game_with_bans_and_commitments(one, other, seed):
    """Two search players: one prefers ``one`` and bans ``other``, the other the reverse."""
    from vale_sim.games.mystic_lands.fast.api import play_game_fast
    from vale_sim.games.mystic_lands.reference.search import play_reference
    base = get_policy(SEARCH)
    lineup = [G.strength_arms(other, G.strength_arms(one, base)[0])[1],
              G.strength_arms(one, G.strength_arms(other, base)[0])[1]]
    assert [committed_cards(p) for p in lineup] == [(one,), (other,)]
    fast = play_game_fast(CS, 2, seed, 0, lineup, SHORT)
    ref = play_reference(CS, 2, seed, 0, lineup, SHORT, log=False)
    assert first_difference(ref, fast) is None
    assert np.isfinite([r.win_share for r in fast.results]).all()
