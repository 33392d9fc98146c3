"""A search player honours its policy's bans and commitments (docs/search.md, "Bans and
commitments"; issue 28's verdicts under search play).

The card-strength arms (vale_sim.advancements: ``Game.strength_arms``) make "ban X" by
adding X to the baseline's ``never`` list and "prefer X" by putting a ``card = X`` buy
rule first.  With a search player as the baseline the search's own options must obey
them too, in both engines: a banned card is never an option, and a step at which the
policy's own choice is a committed card (vale_sim.search.committed_cards) buys it
without searching.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vale_sim.games import get_game
from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.policy import BuyRule, get_policy
from vale_sim.games.mystic_vale.rules import Rules
from vale_sim.search import committed_cards

from engine_diff import first_difference

pytestmark = pytest.mark.compiled
CS = load_card_set("core")
G = get_game("mystic-vale")
SEARCH = "search:k=2:rollout=balanced"
BANNED = "Fertile Soil (top)"        # the strong players' most common first buy
PREFERRED = "Model L1 Sprout A"      # a cheap card the search rarely wants


def test_committed_cards_are_the_leading_unconditional_card_rules():
    pol = get_policy("balanced")
    assert committed_cards(pol) == ()
    prefer, ban = G.strength_arms(PREFERRED, get_policy(SEARCH))
    assert committed_cards(prefer) == (PREFERRED,)
    assert committed_cards(ban) == () and BANNED not in ban.never
    r = (BuyRule("card", "Stag"), BuyRule("card", "Podlings", mana_at_least=3),
         BuyRule("card", "Grovetender"))
    assert committed_cards(replace(pol, rules=r)) == ("Stag",)     # stops at a condition
    r = (BuyRule("best", "advancement"), BuyRule("card", "Stag"))
    assert committed_cards(replace(pol, rules=r)) == ()


def _acquired(df, kind_name):
    from vale_sim.games.mystic_vale.strength import strength_acquired
    return strength_acquired(df, CS, kind_name)


def test_a_banned_card_is_never_bought_by_the_search():
    from vale_sim.tournament import play_frame
    base = get_policy(SEARCH)
    _, ban = G.strength_arms(BANNED, base)
    games = 6
    plain = play_frame(CS, 2, 3, games, [base, "balanced"], engine="fast")
    banned = play_frame(CS, 2, 3, games, [ban, "balanced"], engine="fast")
    got_plain = _acquired(plain[plain.player == 0], BANNED)
    got_ban = _acquired(banned[banned.player == 0], BANNED)
    assert got_plain.sum() > 0            # control: the search buys it when it may
    assert got_ban.sum() == 0


class _Watch:
    """Every advancement step of the real game (not a rollout copy) of search seat 0:
    (was the preferred card an option, the kind bought or None)."""

    @staticmethod
    def game_class():
        from vale_sim.games.mystic_vale.reference.search import SearchGame
        steps = []

        class Watched(SearchGame):
            def pick_advancement(self, pl, policy, reserved, mana, n_bought):
                real = self.searching and self.replay is None and pl.index == 0
                if real:
                    opts = self.advancement_options(pl, policy, reserved, mana)
                    names = {self.cs.advancements[c.kind].name for c in opts if c is not None}
                out = super().pick_advancement(pl, policy, reserved, mana, n_bought)
                if real:
                    got = out[0]
                    steps.append((PREFERRED in names,
                                  None if got is None else self.cs.advancements[got.kind].name))
                return out
        return Watched, steps


def _watched(pol, seed, pool=6):
    from vale_sim.games.mystic_vale.policy import policies_for
    cls, steps = _Watch.game_class()
    cls(CS, 2, seed, 0, policies_for(2, [pol, "balanced"]), Rules(vp_pool=pool)).play()
    return steps


def test_a_committed_card_is_bought_whenever_it_can_be():
    base = get_policy(SEARCH)
    prefer, _ = G.strength_arms(PREFERRED, base)
    steps = [s for seed in (5,) for s in _watched(prefer, seed)]
    offered = [got for can, got in steps if can]
    assert offered and all(got == PREFERRED for got in offered)
    # control: the plain search is offered it and takes something else at least once
    plain = [got for seed in (5,) for can, got in _watched(base, seed) if can]
    assert plain and any(got != PREFERRED for got in plain)


@pytest.mark.parametrize("card,seed", [(PREFERRED, 4), (BANNED, 5), ("Azure Lake", 6)])
def test_engines_play_the_same_game_with_bans_and_commitments(card, seed):
    from vale_sim.games.mystic_vale.fast.api import play_game_fast
    from vale_sim.games.mystic_vale.reference.search import play_reference
    prefer, ban = G.strength_arms(card, get_policy(SEARCH))
    lineup = [prefer, ban]
    rules = Rules(vp_pool=6)
    fast = play_game_fast(CS, 2, seed, 0, lineup, rules)
    ref = play_reference(CS, 2, seed, 0, lineup, rules)
    assert first_difference(ref, fast) is None
    assert np.isfinite([r.win_share for r in fast.results]).all()


#: A card each game's strong players buy often (their first buys, docs/strategy.md), and
#: the rules of the games (Mystic Lands: short games, to keep the test cheap).
OFTEN = {"mystic-vale": ("Fertile Soil (top)", {}),
         "mystic-lands": ("Meadow", {"end_vp": 12})}   # Rain Lily before the refit (cost 3 -> 12)


def _acquired_by(g, frame, cs, card):
    """Per row: the player acquired ``card`` (``Game.strength_acquired``, else the
    results-frame column ``Game.strength_cards`` names: vale_sim.advancements)."""
    if g.strength_acquired is not None:
        return np.asarray(g.strength_acquired(frame, cs, card), bool)
    col = {name: key for name, _, _, key in g.strength_cards(cs)}[card]
    return frame[col].to_numpy(float) > 0


@pytest.mark.parametrize("game", sorted(OFTEN))
def test_every_games_search_player_honours_the_ban_arm(game):
    """Any game with a search player: its "ban X" arm (Game.strength_arms) never buys X,
    where the plain search does (skipped for a game without a search player yet)."""
    from vale_sim.tournament import play_frame
    g = get_game(game)
    try:
        base = g.resolve_baseline("search:k=2", 2)
    except ValueError:
        pytest.skip(f"{game} has no search player yet")
    cs = g.load_card_set(g.default_card_set)
    card, rules = OFTEN[game]
    rules = g.rules_class(**rules)
    _, ban = g.strength_arms(card, base)
    plain = play_frame(cs, 2, 3, 6, [base, g.default_policy], rules, engine="fast", game=g.name)
    banned = play_frame(cs, 2, 3, 6, [ban, g.default_policy], rules, engine="fast", game=g.name)
    assert _acquired_by(g, plain[plain.player == 0], cs, card).sum() > 0
    assert _acquired_by(g, banned[banned.player == 0], cs, card).sum() == 0
