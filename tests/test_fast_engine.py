"""Rules of the fast engine on hand-built situations, and whole-game invariants."""
from __future__ import annotations

import numpy as np
import pytest
import pandas as pd

from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.policy import PRESETS, Policy, BuyRule, PolicyError
from vale_sim.rng import GameRng
from vale_sim.games.mystic_vale.rules import Rules
from vale_sim.games.mystic_vale.fast import engine as E
from vale_sim.games.mystic_vale.fast.api import simulate, run_fast, play_game_fast
from vale_sim.games.mystic_vale.fast.state import (new_state, views, CC_DECAY, CC_GROWTH, PS_TURN, PS_CONC_USED,
                                 R_TOKENS, R_BOX, GO_POOL_LEFT, GO_TRUNC, GO_ROUNDS, GAME, G_RNG)
from vale_sim.games.mystic_vale.fast.tables import (card_tables, policy_tables, T_CARD_ADV, T_CARD_VALE, ABSENT,
                                  P_RULES, RC_TARGET, RC_ID, RC_MANA_AT_LEAST)


@pytest.fixture(scope="module")
def cs():
    return load_card_set("core")


class Game:
    """The kernels' arrays T, Q, S plus named views of S (V.slots[p, c, s], ...)."""

    def __init__(self, T, Q, S):
        self.T, self.Q, self.S, self.V = T, Q, S, views(T, S)

    def __getattr__(self, name):       # S.field, S.on_deck, ... as views
        return getattr(self.V, name)


@pytest.fixture()
def game(cs):
    """(cs, T, G, Q) after setup of a 2-player game, seed 1; the kernels take G.S."""
    T = card_tables(cs, 2, Rules())
    Q = policy_tables(cs, [PRESETS["balanced"]] * 2)
    S = new_state(T)
    E.setup(T, S, Q, np.uint64(1), np.uint64(0))
    return cs, T, Game(T, Q, S), Q


def kind(cs, pred):
    return next(i for i, a in enumerate(cs.advancements) if pred(a))


def set_card(T, S, p, c, slots):
    S.slots[p, c, :] = slots
    S.lwtop[p, c] = -1
    E.refresh_card(T, S.S, p, c)


def set_zones(S, p, field, on_deck, deck=(), discard=()):
    """Arrange player p's 20 cards: the rest go to the deck after `deck`."""
    used = set(field) | set(deck) | set(discard) | ({on_deck} if on_deck >= 0 else set())
    rest = [c for c in range(20) if c not in used]
    deck = list(deck) + rest
    S.field[p, :len(field)] = field
    S.field_n[p] = len(field)
    S.on_deck[p] = on_deck
    S.deck[p, :len(deck)] = deck
    S.dhead[p], S.dn[p] = 0, len(deck)
    S.disc[p, :len(discard)] = discard
    S.disc_n[p] = len(discard)
    E.recount_showing(S.S, p)          # the kernels keep the showing total as cards move


# -- spoiling (§4.4) -----------------------------------------------------------
def test_spoil_at_four_net_decay_and_growth_cancels(game):
    cs, T, S, Q = game
    cursed = cs.advancement_id("Cursed Land")
    for c in range(4):
        set_card(T, S, 0, c, [cursed, -1, -1])
    set_card(T, S, 0, 4, [-1, -1, -1])
    set_zones(S, 0, field=[0, 1, 2], on_deck=3)
    assert E.decay_showing(T, S.S, 0) == 4
    assert E.spoil_check(T, S.S, 0)
    grower = kind(cs, lambda a: a.growth > 0 and a.decay == 0 and a.ability == "none")
    set_card(T, S, 0, 4, [-1, -1, -1])
    S.slots[0, 4, cs.advancements[grower].position] = grower
    E.refresh_card(T, S.S, 0, 4)
    set_zones(S, 0, field=[0, 1, 2, 4], on_deck=3)
    g = cs.advancements[grower].growth
    assert E.decay_showing(T, S.S, 0) == 4 - g
    assert not E.spoil_check(T, S.S, 0)


def test_seedling_and_lifebringer(game):
    cs, T, S, Q = game
    cursed = cs.advancement_id("Cursed Land")
    heavy = kind(cs, lambda a: a.decay > 0 and a.position == 2 and a.ability == "none"
                 and a.supply == "commons")
    d = 1 + cs.advancements[heavy].decay
    set_card(T, S, 0, 0, [cursed, -1, heavy])
    assert S.cc[0, 0, CC_DECAY] == d >= 2
    set_card(T, S, 0, 0, [cursed, cs.advancement_id("Seedling"), heavy])
    assert S.cc[0, 0, CC_DECAY] == 1
    set_card(T, S, 0, 0, [cursed, cs.advancement_id("Lifebringer Seed"), heavy])
    assert S.cc[0, 0, CC_DECAY] == 0
    set_card(T, S, 0, 1, [cursed, cs.advancement_id("Seedling"), -1])
    assert S.cc[0, 1, CC_DECAY] == 1     # Seedling alone on a Cursed Land: no effect


def test_peacekeeper_druid_discards_on_deck(game):
    cs, T, S, Q = game
    cursed = cs.advancement_id("Cursed Land")
    druid = cs.advancement_id("Peacekeeper Druid")
    for c in range(4):
        set_card(T, S, 0, c, [cursed, -1, -1])
    set_card(T, S, 0, 5, [-1, -1, druid])
    set_card(T, S, 0, 6, [-1, -1, -1])
    set_zones(S, 0, field=[0, 1, 2, 5], on_deck=3, deck=[6])
    assert not E.spoil_check(T, S.S, 0)
    assert S.on_deck[0] == 6 and S.disc[0, S.disc_n[0] - 1] == 3
    # used once per window: a second spoil is not saved
    set_zones(S, 0, field=[0, 1, 2, 5], on_deck=3, deck=[6])
    assert E.spoil_check(T, S.S, 0)


# -- random tie-breaks (§6.2, §4.4 step 2) --------------------------------------
def restart_stream(S, seed):
    """Restart the game's random stream as GameRng(seed); return the draws made so far."""
    E.game_rng_init(S.S, np.uint64(seed), np.uint64(0))
    return lambda: int(S.S[GAME, G_RNG + 1])


def test_deadwood_harvester_draws_among_tied_field_cards(game):
    cs, T, S, Q = game
    cursed, harvester = cs.advancement_id("Cursed Land"), cs.advancement_id("Deadwood Harvester")
    set_card(T, S, 0, 0, [cursed, -1, -1])
    set_card(T, S, 0, 1, [-1, -1, -1])
    set_card(T, S, 0, 2, [cursed, -1, -1])
    set_card(T, S, 0, 3, [-1, -1, harvester])
    picked = set()
    for seed in range(16):
        set_zones(S, 0, field=[0, 1, 2], on_deck=3)
        draws = restart_stream(S, seed)
        E.play_on_deck(S.S, 0, True)
        gone = [0, 2][GameRng(seed).randbelow(2)]            # tied cards in field order
        assert draws() == 1 and S.disc_n[0] == 1 and S.disc[0, 0] == gone
        assert list(S.field[0, :S.field_n[0]]) == [c for c in (0, 1, 2, 3) if c != gone]
        picked.add(gone)
    assert picked == {0, 2}
    # no tie: the net-2 card goes, without a draw
    set_card(T, S, 0, 1, [cursed, -1, cs.advancement_id("Stag")])
    set_zones(S, 0, field=[0, 1, 2], on_deck=3)
    draws = restart_stream(S, 0)
    E.play_on_deck(S.S, 0, True)
    assert draws() == 0 and S.disc_n[0] == 1 and S.disc[0, 0] == 1


def test_conclave_draws_among_the_cards_that_save(game):
    cs, T, S, Q = game
    cursed, grove = cs.advancement_id("Cursed Land"), cs.advancement_id("Grovetender")
    set_card(T, S, 0, 0, [grove, -1, -1])
    for c in range(1, 5):
        set_card(T, S, 0, c, [cursed, -1, -1])
    set_card(T, S, 0, 5, [grove, -1, -1])
    S.vown[0, 0], S.vturn[0, 0], S.vown_n[0] = cs.vale_id("Conclave of Ents"), 1, 1
    S.ps[0, PS_TURN] = 2

    def saved_by(field, on_deck, seed):
        E.clear_temp_guardians(S.S, 0)
        S.S[0, PS_CONC_USED] = 0
        set_zones(S, 0, field=field, on_deck=on_deck)
        assert E.decay_showing(T, S.S, 0) == 4
        draws = restart_stream(S, seed)
        assert not E.spoil_check(T, S.S, 0)
        assert E.decay_showing(T, S.S, 0) == 3
        (c,) = np.flatnonzero(S.temp[0])
        return int(c), draws()

    picked = set()
    for seed in range(16):
        c, n = saved_by([0, 1, 2, 3, 4], 5, seed)          # savers: field card 0, on-deck 5
        assert n == 1 and c == [0, 5][GameRng(seed).randbelow(2)]
        picked.add(c)
    assert picked == {0, 5}
    assert saved_by([1, 0, 2, 3], 4, 0) == (0, 0)          # a single saver: no draw


# -- vales (§6.3) --------------------------------------------------------------
def test_pay_rulebook_example():
    # spirits: forest, forest, sky, animal, animal, wild  = a2 f2 s1 w1
    ok, a, f, s, w = E.pay(2, 2, 1, 1, 1, 1, 1, 1)      # Feral Grove: W+F+S+A
    assert ok and (a, f, s, w) == (0, 1, 0, 1)
    ok, a, f, s, w = E.pay(a, f, s, w, 0, 1, 1, 0)       # Ley Line Nexus: S+F
    assert ok and (a, f, s, w) == (0, 0, 0, 0)
    assert not E.pay(1, 0, 0, 0, 0, 1, 1, 0)[0]


def test_buy_both_vales_of_the_rulebook_example(game):
    cs, T, S, Q = game
    feral, ley = cs.vale_id("Feral Grove"), cs.vale_id("Ley Line Nexus")
    S.vslots[:] = -1
    S.vslots[0], S.vslots[4] = ley, feral
    S.spirits[:] = (2, 2, 1, 1)
    S.ps[0, PS_TURN] = 3
    mana = E.buy_vales(T, S.S, Q, 0, 5, 3)
    assert mana == 5
    owned = sorted(S.vown[0, :S.vown_n[0]])
    assert owned == sorted([feral, ley])
    assert list(S.spirits) == [0, 0, 0, 0]


def test_sunstone_turns_a_spirit_wild(game):
    cs, T, S, Q = game
    ley, sun = cs.vale_id("Ley Line Nexus"), cs.vale_id("Sunstone Aerie")
    S.vslots[:] = -1
    S.vslots[0] = ley
    S.vown[0, 0], S.vturn[0, 0], S.vown_n[0] = sun, 1, 1
    S.ps[0, PS_TURN] = 2
    S.spirits[:] = (1, 1, 0, 0)                            # animal + forest, Nexus wants sky + forest
    mana = E.buy_vales(T, S.S, Q, 0, 3, 2)
    assert mana == 1 and S.vown_n[0] == 2 and S.vown[0, 1] == ley


# -- advancements (§6.4) -------------------------------------------------------
def test_earthchant_discount(game):
    cs, T, S, Q = game
    chorus = cs.advancement_id("Earthchant Chorus")         # middle
    set_card(T, S, 0, 0, [-1, chorus, -1])
    set_card(T, S, 0, 1, [-1, -1, -1])
    set_zones(S, 0, field=[1, 0], on_deck=2)
    k = kind(cs, lambda a: a.position == 0 and a.cost >= 3 and a.supply == "commons")
    card, cost, ch = E.placement(T, S.S, Q, 0, k)
    assert card == 0 and ch == 1 and cost == cs.advancements[k].cost - 2
    k2 = kind(cs, lambda a: a.position == 1 and a.supply == "commons")
    card, cost, ch = E.placement(T, S.S, Q, 0, k2)      # middle taken on the Chorus card
    assert card == 1 and ch == 0


# -- policy tables ---------------------------------------------------------------
def test_policy_tables_resolve_names(cs):
    pol = Policy(name="r", rules=(BuyRule("card", "Seedling", owned_at_most=1),
                                  BuyRule("card", "Feral Grove")))
    Q = policy_tables(cs, [pol])
    r0 = Q[0, P_RULES]
    assert Q[r0, RC_TARGET] == T_CARD_ADV and Q[r0, RC_ID] == cs.advancement_id("Seedling")
    assert Q[r0 + 1, RC_TARGET] == T_CARD_VALE and Q[r0 + 1, RC_ID] == cs.vale_id("Feral Grove")
    assert Q[r0 + 1, RC_MANA_AT_LEAST] == ABSENT
    with pytest.raises(PolicyError, match="Nonexistent"):
        policy_tables(cs, [Policy(name="bad", rules=(BuyRule("card", "Nonexistent"),))])


# -- whole games -----------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_games_finish_and_keep_invariants(cs, players):
    T = card_tables(cs, players, Rules())
    Q = policy_tables(cs, [PRESETS[n] for n in sorted(PRESETS)][:players])
    S = Game(T, Q, new_state(T))
    for gi in range(30):
        E.play_one(T, S.S, Q, np.uint64(3), np.uint64(gi), np.zeros((0, S.tr.shape[0]), np.int64))
        assert S.gs[E.G_POOL] == 0 or S.gs[E.G_TRUNC] == 1
        for p in range(players):
            zones = (list(S.deck[p, S.dhead[p]:S.dn[p]]) + list(S.field[p, :S.field_n[p]])
                     + list(S.disc[p, :S.disc_n[p]]) + ([S.on_deck[p]] if S.on_deck[p] >= 0 else []))
            assert sorted(zones) == list(range(20))
            assert (S.slots[p] >= -1).all()


def test_vp_taken_is_pool_drawn_plus_box(cs):
    out = simulate(cs, 2, 9, 300, ["greedy", "vp-rush"])
    taken = out.res[:, :, R_TOKENS].sum(axis=1)
    box = out.res[:, :, R_BOX].sum(axis=1)
    assert (taken == (23 - out.gout[:, GO_POOL_LEFT]) + box).all()
    assert (out.gout[:, GO_TRUNC] == 0).all()
    assert np.allclose(out.share.sum(axis=1), 1.0)


def test_max_rounds_truncation(cs):
    out = simulate(cs, 2, 9, 20, None, Rules(max_rounds=3))
    assert (out.gout[:, GO_ROUNDS] == 3).all() and (out.gout[:, GO_TRUNC] == 1).all()


def test_run_games_frame_and_chunk_independence(cs):
    df = run_fast(cs, 2, 42, 20, "balanced")
    assert len(df) == 40 and {"score", "win_share", "seat", "buy:Seedling"} <= set(df.columns)
    tail = run_fast(cs, 2, 42, 5, "balanced", first_game=15)
    a = df[df.game >= 15].reset_index(drop=True)
    assert (a[["score", "tokens_vp", "seat"]].values == tail[["score", "tokens_vp", "seat"]].values).all()
    g = play_game_fast(cs, 2, 42, 17, "balanced")
    assert [r.score for r in g.results] == list(df[df.game == 17].score)


# -- speed-ups that must not change anything ---------------------------------------
def test_details_false_same_games_without_per_kind_details(cs):
    """run_fast' simulate(details=False) plays the same games; only first_round and
    harvested (not in its DataFrame) are left out."""
    full = simulate(cs, 3, 11, 40, ["greedy", "balanced", "vp-rush"])
    lean = simulate(cs, 3, 11, 40, ["greedy", "balanced", "vp-rush"], details=False)
    for name in ("res", "share", "gout", "acquired", "vales"):
        assert np.array_equal(getattr(full, name), getattr(lean, name)), name
    assert lean.first_round.shape[0] == 0 and lean.harvested.shape[0] == 0
    assert full.first_round.any() and full.harvested.any()


def test_buy_cost_row_is_cost_or_never(cs):
    from vale_sim.games.mystic_vale.fast.tables import ADV_BUY_COST, NEVER_COST
    seedling = cs.advancement_id("Seedling")
    Q = policy_tables(cs, [PRESETS["balanced"], Policy(name="n", never=("Seedling",))])
    for k, a in enumerate(cs.advancements):
        assert Q[ADV_BUY_COST, k] == a.cost
        assert Q[ADV_BUY_COST + 1, k] == (NEVER_COST if k == seedling else a.cost)


def test_never_bought_kind_is_never_bought(cs):
    seedling = cs.advancement_id("Seedling")
    out = simulate(cs, 2, 5, 200, ["balanced", Policy(name="n", never=("Seedling",))])
    assert out.acquired[:, 1, seedling].sum() == 0 and out.acquired[:, 0, seedling].sum() > 0


def test_profile_kernel_names_and_missing_perf(monkeypatch, capsys):
    from vale_sim.cli import main
    from vale_sim.kernels import profile
    assert profile.short_name("_ZN8vale_sim4fast6engine10play_gamesB2v5B38xyz") == "play_games"
    assert profile.short_name("_ZN8vale_sim4fast3rng7shuffleB3v13B36c8") == "rng.shuffle"
    monkeypatch.setattr(profile.shutil, "which", lambda name: None)
    assert main(["bench", "--profile", "--games", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "perf is not installed" in err[0]


def test_frame_equals_the_frame_of_the_games_records(cs):
    """run_fast' DataFrame (kind-major purchase arrays, policy column by a take) is,
    column for column and dtype for dtype, the frame records.results_frame builds from
    the same games' GameRecords."""
    from vale_sim.games.mystic_vale.records import results_frame as reference_frame
    pols = ["greedy", "balanced", "vp-rush"]
    df = run_fast(cs, 3, 5, 8, pols, first_game=3)
    recs = [play_game_fast(cs, 3, 5, g, pols) for g in range(3, 11)]
    want = reference_frame(recs, cs)
    df.attrs = {}
    pd.testing.assert_frame_equal(df, want, check_exact=True)
    assert df[[c for c in df.columns if c.startswith("buy:")]].to_numpy().sum() > 0
