"""Invariants of the reference engine, checked after every turn (hypothesis)."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.policy import PRESETS, Policy
from vale_sim.games.mystic_vale.reference import symbols as sym
from vale_sim.games.mystic_vale.reference.game import MysticValeGame
from vale_sim.games.mystic_vale.rules import Rules
from vale_sim.games.mystic_vale.synthetic import random_card_set


class CheckedGame(MysticValeGame):
    """A Game that checks the invariants after every turn."""

    def take_turn(self, pl):
        super().take_turn(pl)
        self.checks += 1
        for p in self.players:
            zones = p.deck + p.field + p.discard + ([p.on_deck] if p.on_deck >= 0 else [])
            assert sorted(zones) == list(range(20)), "a player must always own exactly 20 cards"
        taken = sum(p.tokens_vp for p in self.players)
        assert taken == (self.rules.pool_for(self.n) - self.pool) + self.box_vp
        assert self.pool >= 0 and self.box_vp >= 0
        rec = self.record.turns[-1]
        assert rec.mana >= 0 and min(rec.animal, rec.forest, rec.sky, rec.wild) >= 0
        assert len(rec.bought) <= 2 + sum(self.cs.vales[v.vale_id].extra_buys
                                          for v in pl.active_vales())
        assert len(rec.vales) <= 2
        for c in pl.cards:
            assert sum(1 for k in c.slots if k >= 0) <= 3


policies = st.sampled_from(sorted(PRESETS)).map(PRESETS.get)
explore = st.builds(lambda p, e: Policy(**{**p.__dict__, "explore_permille": e}),
                    policies, st.integers(0, 1000))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), players=st.sampled_from([2, 3, 4]),
       pols=st.lists(st.one_of(policies, explore), min_size=4, max_size=4),
       set_seed=st.one_of(st.none(), st.integers(0, 10_000)),
       prep=st.sampled_from(["net", "gross"]))
def test_invariants_hold_after_every_turn(seed, players, pols, set_seed, prep):
    cs = load_card_set("core") if set_seed is None else random_card_set(set_seed)
    g = CheckedGame.__new__(CheckedGame)
    g.checks = 0
    MysticValeGame.__init__(g, cs, players, seed, 0, pols[:players], Rules(prep_count=prep, max_rounds=60))
    rec = g.play()
    assert g.checks == rec.rounds * players          # every player took every round's turn
    assert rec.truncated or g.pool == 0              # games end when the pool runs out
    for r, p in zip(rec.results, g.players):         # three-part scoring adds up
        assert r.score == r.tokens_vp + r.adv_vp + r.vale_vp
        assert r.adv_vp == sum(sym.endgame_vp(cs, c) for c in p.cards)
    assert abs(sum(r.win_share for r in rec.results) - 1.0) < 1e-9
