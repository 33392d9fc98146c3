"""The compiled spoil engine (vale_sim.games.mystic_vale.spoil.fast, vale_sim.games.mystic_vale.fast.spoil_dp) against
the readable Python model (vale_sim.games.mystic_vale.spoil.SpoilModel).

Both engines must visit the same states (``SpoilOdds.states`` equal) and give
the same numbers to rounding: random small decks from random card sets (every
ability kind can occur), the bundled and crafted 20-card decks, explicit
situations, stores grown from tiny sizes, ``max_states``, engine selection and
Fractions.
"""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import vale_sim.games.mystic_vale.spoil.fast as spoil_fast
from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.fast import spoil_dp as K
from vale_sim.games.mystic_vale.reference.symbols import Card
from vale_sim.games.mystic_vale.rules import Rules
from vale_sim.games.mystic_vale.spoil import (AUTO_PYTHON_STATES, QUANTITIES, Deck, Situation, SpoilModel,
                            TooManyStates, best_rule, bundled_decks, deck_from_dict, load_deck,
                            spoil_odds)
from vale_sim.games.mystic_vale.spoil.bench import crafted_deck
from vale_sim.games.mystic_vale.spoil.fast import CompiledModel, unsupported
from vale_sim.games.mystic_vale.synthetic import random_card_set

from test_spoil import BLANK, CL, card, deck_of, sleeve_randomly   # test_spoil's deck helpers

CORE = load_card_set("core")
TOL = 1e-12
crafted = crafted_deck       # vale_sim.games.mystic_vale.spoil.bench, as in tests/test_spoil.py


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------
def _close(a, b, what, scale=1.0):
    """Equal to rounding: TOL relative to max(1, |b|), times ``scale`` for quantities
    divided by a probability (rounding in 1 - P is amplified by 1 / (1 - P))."""
    assert a is not None and b is not None, f"{what}: {a!r} vs {b!r}"
    a, b = float(a), float(b)
    assert abs(a - b) <= TOL * max(1.0, abs(b)) * scale, f"{what}: {a!r} vs {b!r}"


def _close_or_none(a, b, what, alive_c, alive_p):
    """None (nothing is left to condition on) in both, or close values.  Both engines
    decide None from the turns not spoiled (none left), not from a rounded 1 - P."""
    if a is None or b is None:
        assert a is None and b is None, f"{what}: {a!r} vs {b!r}"
    else:
        _close(a, b, what, 1 / max(abs(float(alive_p)), 1e-300))


def assert_same(c, p, pushes):
    """Compiled result ``c`` and Python result ``p`` agree on every quantity."""
    assert c.states == p.states, "both engines must visit the same states"
    assert c.pushes == p.pushes == pushes
    ks = list(range(pushes + 1))
    for field in ("p_spoil_within", "p_can_push", "p_spoil_within_given_turn",
                  "decay_showing_distribution", "expected", "expected_given_no_spoil"):
        assert sorted(getattr(c, field)) == sorted(getattr(p, field)) == ks, field
    _close(c.p_prep_spoil, p.p_prep_spoil, "P(prep spoil)")
    for k in ks:
        _close(c.p_spoil_within[k], p.p_spoil_within[k], f"P(spoil within {k})")
        _close(c.p_can_push[k], p.p_can_push[k], f"P(can push after {k})")
        _close_or_none(c.p_spoil_within_given_turn[k], p.p_spoil_within_given_turn[k],
                       f"P(spoil within {k} | turn)", 1 - c.p_prep_spoil, 1 - p.p_prep_spoil)
        assert set(c.expected[k]) == set(p.expected[k]) == set(QUANTITIES)
        for q in QUANTITIES:
            _close(c.expected[k][q], p.expected[k][q], f"E[{q}] after {k}")
            _close_or_none(c.expected_given_no_spoil[k][q], p.expected_given_no_spoil[k][q],
                           f"E[{q} | no spoil] after {k}", 1 - c.p_spoil_within[k],
                           1 - p.p_spoil_within[k])
        dc, dp = c.decay_showing_distribution[k], p.decay_showing_distribution[k]
        assert sorted(dc) == sorted(dp), f"showings after {k}: {sorted(dc)} vs {sorted(dp)}"
        for s in dp:
            _close(dc[s], dp[s], f"P(showing {s} after {k})")
        assert abs(sum(dc.values()) - 1) <= 1e-9


def both(deck, pushes, **kw):
    c = spoil_odds(deck, pushes, engine="compiled", **kw)
    p = spoil_odds(deck, pushes, engine="python", **kw)
    assert c.method == p.method == "exact"
    assert all(isinstance(v, float) for v in c.p_spoil_within.values())
    assert_same(c, p, pushes)
    return c, p


def _signature(r):
    """Everything of a result but its run time (results of one engine must be identical)."""
    d = r.to_dict()
    d.pop("seconds", None)
    return d, r.states


# ---------------------------------------------------------------------------
# 1. Random small decks from random card sets
# ---------------------------------------------------------------------------
def random_deck(set_seed: int, seed: int, n: int, cursed: float) -> Deck:
    """n cards from ``random_card_set(set_seed)``, 0-3 of its vales (every ability kind
    can occur).  A card starts as a Cursed Land (decay 1) with probability ``cursed``,
    so Prep ends early enough for pushes to reveal, reshuffle and spoil; then 0-3
    random advancements where their position is free."""
    cs = random_card_set(set_seed)
    r = random.Random(seed)
    cl = next(i for i, a in enumerate(cs.advancements) if a.name == "Cursed Land")
    cards = []
    for _ in range(n):
        c = Card([-1, -1, -1])
        if r.random() < cursed:
            c.slots[cs.advancements[cl].position] = cl
        cards.append(sleeve_randomly(cs, c, r))
    vales = tuple(r.sample(range(len(cs.vales)), r.randint(0, 3)))
    return Deck(cs, cards, vales, f"random({set_seed}, {seed}, {n}, {cursed})")


def deck_args(min_cards=3):
    """Arguments of random_deck (a failing example then prints as four numbers)."""
    return st.tuples(st.integers(0, 10_000), st.integers(0, 10_000),
                     st.integers(min_cards, 8), st.sampled_from([0.4, 0.6, 0.8]))


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(deck_args(), st.sampled_from(["net", "gross"]), st.integers(0, 6))
def test_compiled_equals_python_on_random_small_decks(args, prep, pushes):
    both(random_deck(*args), pushes, rules=Rules(prep_count=prep))


def test_grassland_floor_in_both_engines():
    """Grassland's "not below 0" where it binds: the compiled layer sums correct the
    linear mana of those states exactly, as the per-state values do and as the
    Python model (checked against the engine in test_spoil) does."""
    from test_spoil import SMALL_DECKS
    deck = SMALL_DECKS["grassland-below-zero"]
    both(deck, 6)
    cm = CompiledModel(SpoilModel(deck)).run(6)
    v = cm.values()
    linear = v[:, K.V_MANA] - v[:, K.V_PEN]
    final = cm.final_values()[:, K.V_MANA]
    assert (final > linear).any() and (final >= 0).all()
    for ids, p in cm.layers:
        sums = cm.layer_stats(ids, p)[0]
        assert sums[0] == pytest.approx(p @ final[ids], abs=1e-14)
    assert any(p @ final[ids] > p @ linear[ids] + 1e-3 for ids, p in cm.layers)


# ---------------------------------------------------------------------------
# 2. 20-card decks
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(bundled_decks()))
@pytest.mark.parametrize("prep", ["net", "gross"])
def test_compiled_equals_python_on_bundled_decks(name, prep):
    both(name, 6, rules=Rules(prep_count=prep))


def _crafted_starter(cards, vales):
    return deck_from_dict({"base": "starter", "vales": list(vales),
                           "cards": [{"advancements": list(c)} for c in cards]}, "crafted")


# Measured (K = 6): random-set seeds 1, 2, 9 take 8-25 k states (0.1-0.4 s in Python);
# core seeds 1, 6, 10 (When Played cards allowed) 5-12 k states.
CRAFTED = {
    **{f"random-set-{s}": (lambda s=s: crafted(random_card_set(s), random.Random(s), 30, 3))
       for s in (1, 2, 9)},
    **{f"core-{s}": (lambda s=s: crafted(CORE, random.Random(s), 30, 3)) for s in (1, 6, 10)},
    # several When Played cards, Liferoots and a Druid (tests/test_spoil.py ADVERSARIAL)
    "owl-on-cl-deadwood-druid-liferoots": lambda: _crafted_starter(
        [CL + ("Mindful Owl",), ("Deadwood Harvester",), ("Peacekeeper Druid",),
         CL + ("Hulking Thornhide",)], ["Ancient Liferoots"]),
    "calm-owl-on-cl-rain-druid-liferoots-arbor": lambda: _crafted_starter(
        [CL + ("Calm Weather",), CL + ("Mindful Owl",), ("Cleansing Rain",),
         ("Peacekeeper Druid",)], ["Ancient Liferoots", "Blooming Arbor"]),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_compiled_equals_python_on_crafted_decks(name):
    deck = CRAFTED[name]()
    assert len(deck.cards) == 20
    c, _ = both(deck, 6)
    assert c.states > 4000          # big enough for the stores to matter


def test_gross_prep_on_a_crafted_deck():
    deck = CRAFTED["random-set-9"]()
    c, _ = both(deck, 6, rules=Rules(prep_count="gross"))
    net = spoil_odds(deck, 6, engine="compiled")
    assert c.decay_showing_distribution[0] != net.decay_showing_distribution[0]


# ---------------------------------------------------------------------------
# 3. Explicit situations
# ---------------------------------------------------------------------------
DRUID_DECK = deck_of(card("Peacekeeper Druid"), card(*CL), card(*CL), card(*CL), card(*CL),
                     card(*CL), BLANK, BLANK)
SIT_DECK = deck_of(card("Peacekeeper Druid"), card(*CL), card(*CL), card(*CL), card(*CL),
                   card("Cursed Land", "Calm Weather"), BLANK, card("Fertile Soil (top)"))
ARBOR_DECK = deck_of(card(*CL), card(*CL), card("Cursed Land", "Hulking Thornhide"),
                     card("Model L1 Sprout E"), card(*CL), BLANK,
                     vales=("Blooming Arbor", "Ancient Liferoots"))
CONCLAVE_DECK = deck_of(card("Grovetender", "Dawnsinger", "Stag"),
                        card("Cursed Land", "Hulking Thornhide"), card(*CL),
                        card(*CL), card("Cursed Land", "Model L1 Sprout A"), BLANK,
                        vales=("Conclave of Ents", "Azure Lake"))
WP_DECK = deck_of(card("Cursed Land", "Calm Weather"), card("Deadwood Harvester"),
                  card("Cleansing Rain"), card("Cursed Land", "Stag"),
                  card("Cursed Land", "Mindful Owl"), card(*CL), BLANK)

SITUATIONS = {
    # tests/test_spoil.py: the Druid counted by hand, and a situation with a discard
    "druid-by-hand": (DRUID_DECK, Situation(field=[0, 1, 2], on_deck=3, deck=[4, 5, 6, 7])),
    "druid-used": (DRUID_DECK, Situation(field=[0, 1, 2], on_deck=3, deck=[4, 5, 6, 7],
                                         druid_used=True)),
    "with-discard": (SIT_DECK, Situation(field=[0, 1, 6], on_deck=2, deck=[3, 5, 7],
                                         discard=[4])),
    "with-discard-druid-used": (SIT_DECK, Situation(field=[1, 6], on_deck=0, deck=[3, 5],
                                                    discard=[2, 4, 7], druid_used=True)),
    "empty-deck-reshuffles": (SIT_DECK, Situation(field=[6, 7], on_deck=1, deck=[],
                                                  discard=[0, 2, 3, 4, 5])),
    "no-on-deck": (SIT_DECK, Situation(field=[0, 1, 6, 7, 2], on_deck=-1, deck=[],
                                       discard=[3, 4, 5])),
    "arbor": (ARBOR_DECK, Situation(field=[0, 5], on_deck=1, deck=[2, 3, 4])),
    "arbor-used": (ARBOR_DECK, Situation(field=[0, 5], on_deck=1, deck=[2, 3, 4],
                                         arbors_used=1, arbor_growth=1)),
    "conclave": (CONCLAVE_DECK, Situation(field=[2, 5], on_deck=0, deck=[1, 3, 4])),
    "conclave-used": (CONCLAVE_DECK, Situation(field=[2, 5], on_deck=0, deck=[1, 3, 4],
                                               conclave_used=True)),
    "when-played": (WP_DECK, Situation(field=[6, 3], on_deck=0, deck=[1, 2, 4, 5])),
    "when-played-discard": (WP_DECK, Situation(field=[1], on_deck=2, deck=[0, 5],
                                               discard=[3, 4, 6])),
}


@pytest.mark.parametrize("name", sorted(SITUATIONS))
def test_compiled_equals_python_in_explicit_situations(name):
    deck, sit = SITUATIONS[name]
    for prep in ("net", "gross"):
        c, _ = both(deck, 6, situation=sit, rules=Rules(prep_count=prep))
        assert c.p_prep_spoil == 0 and c.p_spoil_within[0] == 0


def test_situation_by_hand_in_both_engines():
    """tests/test_spoil.py's Druid count: P(spoil within k) = 0, 1/6, 1/2, 1, 1."""
    deck, sit = SITUATIONS["druid-by-hand"]
    for engine in ("compiled", "python"):
        r = spoil_odds(deck, 4, situation=sit, engine=engine)
        expect = [0, 1 / 6, 1 / 2, 1, 1]
        assert [r.p_spoil_within[k] for k in range(5)] == pytest.approx(expect, abs=1e-14)
        assert r.p_can_push[2] > 0 and r.p_can_push[3] == r.p_can_push[4] == 0


@st.composite
def situation_args(draw):
    """random_deck arguments (5-8 cards) and a random split of its cards into the four
    zones, with random once-per-turn flags."""
    args = draw(deck_args(min_cards=5))
    n = args[2]
    idx = draw(st.permutations(range(n)))
    n_field = draw(st.integers(0, n - 1))
    has_od = draw(st.integers(0, 5)) < 5              # mostly an on-deck card to push
    n_deck = draw(st.integers(0, n - n_field - has_od))
    field = list(idx[:n_field])
    od = idx[n_field] if has_od else -1
    rest = list(idx[n_field + has_od:])
    sit = Situation(field=field, on_deck=od, deck=rest[:n_deck], discard=rest[n_deck:],
                    druid_used=draw(st.booleans()), conclave_used=draw(st.booleans()),
                    arbors_used=draw(st.integers(0, 1)), arbor_growth=draw(st.integers(0, 1)))
    return args, sit


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(situation_args(), st.sampled_from(["net", "gross"]), st.integers(1, 6))
def test_compiled_equals_python_in_random_situations(ds, prep, pushes):
    args, sit = ds
    deck = random_deck(*args)
    rules = Rules(prep_count=prep)
    try:
        p = spoil_odds(deck, pushes, situation=sit, rules=rules, engine="python")
    except ValueError as e:                      # already 4+ showing: both refuse
        assert "would have spoiled" in str(e)
        with pytest.raises(ValueError, match="would have spoiled"):
            spoil_odds(deck, pushes, situation=sit, rules=rules, engine="compiled")
        return
    c = spoil_odds(deck, pushes, situation=sit, rules=rules, engine="compiled")
    assert_same(c, p, pushes)


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_no_spoil_expectation_is_none_when_every_turn_spoils(engine):
    """Fractions: every turn has spoiled by push 3 (Druid by hand) or 6 (When Played
    with a discard): nothing is left to condition on, in both engines."""
    for name, k in (("druid-by-hand", 3), ("when-played-discard", 6), ("when-played", 6)):
        deck, sit = SITUATIONS[name]
        x = spoil_odds(deck, 6, situation=sit, exact=True)
        assert x.p_spoil_within[k] == 1 and x.expected_given_no_spoil[k]["mana"] is None
        r = spoil_odds(deck, 6, situation=sit, engine=engine)
        assert r.p_can_push[k] == 0
        assert all(v is None for v in r.expected_given_no_spoil[k].values()), (name, k)


# ---------------------------------------------------------------------------
# 4. Growing the stores
# ---------------------------------------------------------------------------
TINY = {"states": 4, "reveal": 2, "edges": 8, "states table": 4, "reveal table": 4,
        "push outcomes": 1}
# grown on every deck (a push's merged outcomes only where a card plays several ways)
ALWAYS_GROWN = ("states", "reveal", "edges", "states table", "reveal table")


@pytest.fixture
def record_models(monkeypatch):
    """Every CompiledModel run, and which store each growth was for."""
    runs, grown = [], []
    run, grow = CompiledModel.run, CompiledModel._grow

    def recording_run(self, pushes, **kw):
        runs.append(self)
        return run(self, pushes, **kw)

    def recording_grow(self):
        grown.append(spoil_fast._OVF_STORE[int(self.cnt[K.OVF])])
        return grow(self)
    monkeypatch.setattr(CompiledModel, "run", recording_run)
    monkeypatch.setattr(CompiledModel, "_grow", recording_grow)
    return runs, grown


@pytest.mark.parametrize("deck, kw", [
    ("druid", {}),
    ("grovetender", {"rules": Rules(prep_count="gross")}),
    (CRAFTED["core-6"], {}),
    (SITUATIONS["when-played-discard"][0], {"situation": SITUATIONS["when-played-discard"][1]}),
], ids=["druid", "grovetender-gross", "core-6", "situation"])
def test_stores_grow_from_tiny_sizes(deck, kw, monkeypatch, record_models):
    runs, grown = record_models
    if not isinstance(deck, str):
        deck = deck if isinstance(deck, Deck) else deck()
    plain = spoil_odds(deck, 6, engine="compiled", **kw)
    assert len(runs) == 1
    py = spoil_odds(deck, 6, engine="python", **kw)

    grown.clear()
    monkeypatch.setattr(spoil_fast, "_START", dict(TINY))
    tiny = spoil_odds(deck, 6, engine="compiled", **kw)
    cm = runs[-1]
    assert _signature(tiny) == _signature(plain)
    assert_same(tiny, py, 6)
    for store in ALWAYS_GROWN:
        assert cm.sizes[store] > TINY[store], store
    # several growths of the states, each by GROWTH, and the rows all kept
    assert grown.count("states") >= 2
    assert cm.sizes["states"] == TINY["states"] * spoil_fast.GROWTH ** grown.count("states")
    assert len(cm.state_rows) <= cm.sizes["states"]


def test_each_store_grows_on_its_own(monkeypatch, record_models):
    """Plenty of room for states, none for the rest: reveal and edges each
    overflow and grow by themselves (without the states growing)."""
    runs, grown = record_models
    deck = CRAFTED["core-6"]()
    plain = spoil_odds(deck, 6, engine="compiled")
    grown.clear()
    start = {"states": 1 << 16, "reveal": 2, "edges": 8,
             "states table": 1 << 17, "reveal table": 1 << 17, "push outcomes": 1 << 16}
    monkeypatch.setattr(spoil_fast, "_START", dict(start))
    r = spoil_odds(deck, 6, engine="compiled")
    assert _signature(r) == _signature(plain)
    assert "states" not in grown
    assert {"reveal", "edges"} <= set(grown)
    cm = runs[-1]
    for store in ("reveal", "edges"):
        assert cm.sizes[store] == start[store] * spoil_fast.GROWTH ** grown.count(store)
    assert cm.sizes["states"] == start["states"]


def test_hash_tables_grow_with_their_contents(monkeypatch, record_models):
    """Tables start small and grow (rehashed) when half full, stores untouched:
    same states, same numbers."""
    runs, grown = record_models
    deck = CRAFTED["core-6"]()
    plain = spoil_odds(deck, 6, engine="compiled")
    grown.clear()
    start = dict(spoil_fast._START, **{"states table": 2, "reveal table": 2})
    monkeypatch.setattr(spoil_fast, "_START", start)
    r = spoil_odds(deck, 6, engine="compiled")
    assert _signature(r) == _signature(plain)
    assert set(grown) == {"states table", "reveal table"}
    cm = runs[-1]
    for table, count in (("states table", len(cm.state_rows)), ("reveal table", cm.cnt[K.N_R])):
        assert cm.sizes[table] == 2 * spoil_fast.GROWTH ** grown.count(table)
        assert 2 * count <= cm.sizes[table] <= 2 * spoil_fast.GROWTH * count


def test_push_outcomes_grow(monkeypatch, record_models):
    """Cards with When Played abilities play several ways: a push merges their
    outcomes in a scratch list, which grows from one entry (the push runs again):
    same states, same numbers."""
    runs, grown = record_models
    deck, sit = SITUATIONS["when-played"]
    plain = spoil_odds(deck, 6, situation=sit, engine="compiled")
    grown.clear()
    monkeypatch.setattr(spoil_fast, "_START", dict(spoil_fast._START, **{"push outcomes": 1}))
    r = spoil_odds(deck, 6, situation=sit, engine="compiled")
    assert _signature(r) == _signature(plain)
    assert set(grown) == {"push outcomes"}
    assert runs[-1].sizes["push outcomes"] == spoil_fast.GROWTH ** grown.count("push outcomes")


# ---------------------------------------------------------------------------
# 5. max_states
# ---------------------------------------------------------------------------
def _rows_needed(deck, pushes, **kw):
    model = SpoilModel(load_deck(deck) if isinstance(deck, str) else deck, **kw)
    return int(CompiledModel(model).run(pushes).cnt[K.N_ST])


@pytest.mark.parametrize("deck", ["starter", "druid"])
def test_max_states_stops_the_compiled_engine(deck):
    full = spoil_odds(deck, 6, engine="compiled")
    with pytest.raises(TooManyStates) as e:
        spoil_odds(deck, 6, engine="compiled", max_states=5)
    assert e.value.max_states == 5
    # a limit large enough: the same answer as without one
    big = spoil_odds(deck, 6, engine="compiled", max_states=10 * full.states)
    assert _signature(big) == _signature(full)
    # the limit counts distinct states as the Python model does: both stop at the same place
    n = _rows_needed(deck, 6)
    assert 5 < n < full.states
    for engine in ("compiled", "python"):
        at = spoil_odds(deck, 6, engine=engine, max_states=n)
        assert at.states == full.states
        with pytest.raises(TooManyStates):
            spoil_odds(deck, 6, engine=engine, max_states=n - 1)
    assert _signature(spoil_odds(deck, 6, engine="compiled", max_states=n)) == _signature(full)


def test_max_states_with_the_auto_engine():
    """auto tries Python within AUTO_PYTHON_STATES, then the compiled engine with the
    caller's limit: the limit holds in both."""
    deck = CRAFTED["core-6"]()
    n = _rows_needed(deck, 6)
    assert n > AUTO_PYTHON_STATES
    full = spoil_odds(deck, 6, engine="compiled")
    assert _signature(spoil_odds(deck, 6, max_states=n)) == _signature(full)
    for limit in (n - 1, AUTO_PYTHON_STATES, 10):
        with pytest.raises(TooManyStates):
            spoil_odds(deck, 6, max_states=limit)


def test_max_states_while_growing(monkeypatch):
    """From tiny stores the states grow up to the limit, not past it."""
    monkeypatch.setattr(spoil_fast, "_START", dict(TINY))
    full = spoil_odds("druid", 6, engine="compiled")
    n = _rows_needed("druid", 6)
    assert _signature(spoil_odds("druid", 6, engine="compiled", max_states=n)) == _signature(full)
    with pytest.raises(TooManyStates):
        spoil_odds("druid", 6, engine="compiled", max_states=n - 1)
    with pytest.raises(TooManyStates):
        spoil_odds("druid", 6, engine="compiled", max_states=50)


def test_max_states_in_a_situation():
    deck, sit = SITUATIONS["when-played-discard"]
    full = spoil_odds(deck, 6, situation=sit, engine="compiled")
    n = _rows_needed(deck, 6, situation=sit)
    assert n > 2
    with pytest.raises(TooManyStates):
        spoil_odds(deck, 6, situation=sit, engine="compiled", max_states=n - 1)
    with pytest.raises(TooManyStates):
        spoil_odds(deck, 6, situation=sit, engine="python", max_states=n - 1)
    at = spoil_odds(deck, 6, situation=sit, engine="compiled", max_states=n)
    assert _signature(at) == _signature(full)


# ---------------------------------------------------------------------------
# 6. Engine choice and errors
# ---------------------------------------------------------------------------
def test_unknown_engine_names_the_choices():
    with pytest.raises(ValueError, match="auto, compiled, python") as e:
        spoil_odds("starter", 3, engine="nope")
    assert "'nope'" in str(e.value)


def test_exact_needs_the_python_engine():
    with pytest.raises(ValueError, match="exact=True"):
        spoil_odds("starter", 3, exact=True, engine="compiled")


def test_auto_engine(record_models):
    """auto: the compiled engine for decks beyond AUTO_PYTHON_STATES distinct states
    (smaller ones may answer in Python), the Python model for Fractions; the same
    answer either way."""
    runs, _ = record_models
    big = CRAFTED["core-6"]()
    assert _rows_needed(big, 6) > AUTO_PYTHON_STATES
    runs.clear()
    a = spoil_odds(big, 6)
    assert len(runs) == 1                          # auto: compiled
    assert _signature(a) == _signature(spoil_odds(big, 6, engine="compiled"))
    n = len(runs)
    x = spoil_odds("druid", 6, exact=True)
    assert len(runs) == n                          # exact: the Python model
    assert isinstance(x.p_spoil_within[3], Fraction)
    small = spoil_odds("druid", 6)
    assert isinstance(small.p_spoil_within[3], float)
    assert x.states == small.states
    assert_same(small, x, 6)
    assert_same(spoil_odds("druid", 6, engine="compiled"), x, 6)


def test_unsupported_deck_falls_back_to_python(record_models):
    runs, _ = record_models
    deck = deck_of(*([card(*CL)] * 4 + [BLANK] * 117))
    assert len(deck.cards) == 121
    assert "121 cards" in unsupported(SpoilModel(deck))
    assert unsupported(SpoilModel(load_deck("druid"))) is None
    with pytest.raises(ValueError, match="121 cards"):
        spoil_odds(deck, 2, engine="compiled")
    a = spoil_odds(deck, 2)
    assert runs == []                              # auto went to the Python model
    assert _signature(a) == _signature(spoil_odds(deck, 2, engine="python"))


# ---------------------------------------------------------------------------
# 7. Fractions
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["starter", "thornhide"])
def test_compiled_equals_fractions(name):
    c = spoil_odds(name, 6, engine="compiled")
    x = spoil_odds(name, 6, exact=True)
    assert isinstance(x.p_spoil_within[1], Fraction)
    for k in range(7):
        assert abs(c.p_spoil_within[k] - x.p_spoil_within[k]) <= 1e-14, k
        for q in QUANTITIES:
            assert abs(c.expected[k][q] - x.expected[k][q]) <= 1e-13, (k, q)
    if name == "starter":
        assert c.p_spoil_within[1] == pytest.approx(0.45, abs=1e-15)     # 9/20
        assert c.expected[0]["mana"] == pytest.approx(2.9, abs=1e-15)    # 29/10


# ---------------------------------------------------------------------------
# 8. The best push/stop rule on both engines
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["druid", "grovetender", "thornhide"])
@pytest.mark.parametrize("goal, target", [("mana", None), ("reach", 5)])
def test_best_rule_is_the_same_on_both_engines(name, goal, target):
    c = best_rule(name, goal, target, horizon=5, engine="compiled")
    p = best_rule(name, goal, target, horizon=5, engine="python")
    _close(c.value, p.value, "value")
    assert sorted(c.always_push) == sorted(p.always_push)
    for k in p.always_push:
        _close(c.always_push[k], p.always_push[k], f"push {k}")
    sc, sp = c.summary(), p.summary()
    assert [(r["pushes"], r["decay_showing"], r["mana"]) for r in sc] == \
           [(r["pushes"], r["decay_showing"], r["mana"]) for r in sp]
    for a, b in zip(sc, sp):
        _close(a["reach"], b["reach"], "reach")
        _close(a["p_push"], b["p_push"], "p_push")
