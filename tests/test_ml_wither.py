"""Wither odds (vale_sim/games/mystic_lands/wither.py, docs/wither-odds.md): the exact
calculator against every ordering the reference engine's Night can meet, scipy's
hypergeometric law, Fractions, simulation with standard errors, and the command line."""
from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace
from fractions import Fraction

import pytest
from scipy.stats import hypergeom

from vale_sim.cli import main
from vale_sim.games.mystic_lands import wither as W
from vale_sim.games.mystic_lands.cards import Effect, load_card_set
from vale_sim.games.mystic_lands.policy import Policy
from vale_sim.games.mystic_lands.rules import Rules

CS = load_card_set()


def small_deck(cards, name="small", vales=()):
    """cards: (land, advances, place) triples, no base."""
    return W.deck_from_dict({"name": name, "vales": list(vales), "cards": [
        {"land": land, "advances": list(adv), "place": place} for land, adv, place in cards]})


# small decks covering each mechanism; each has <= 6 deck cards and <= 3 in the Discard
SMALL = {
    # clouds, a reshuffle, running out of cards, a when-played Rain token
    "reshuffle": small_deck([("Arid Land", (), "deck"), ("Arid Land", (), "deck"),
                             ("Arid Land", ("Morning Mist",), "deck"),
                             ("Fertile Land", (), "deck"),
                             ("Arid Land", (), "discard"), ("Arid Land", (), "discard"),
                             ("Fertile Land", ("Rain Lily",), "discard")]),
    # Turtle Nesting Ground: two of them, ties in value between Arid/Fertile/Sacred Land
    "turtles": small_deck([("Arid Land", ("Turtle Nesting Ground",), "deck"),
                           ("Arid Land", ("Turtle Nesting Ground",), "deck"),
                           ("Sacred Land", (), "deck"), ("Fertile Land", (), "deck"),
                           ("Wild Land", (), "deck"), ("Arid Land", (), "deck"),
                           ("Fertile Land", ("Great Oak",), "discard"),
                           ("Arid Land", (), "discard")]),
    # wither_limit (Druid of Roots, Ancient Willow), Storm Caller's 2 Rain tokens after
    # the reshuffle, and Great Table's Night mana (a Vale night gain)
    "limits": small_deck([("Arid Land", ("Ancient Willow",), "deck"),
                          ("Arid Land", (), "deck"), ("Arid Land", (), "deck"),
                          ("Wild Land", ("Phoenix Roost",), "deck"),
                          ("Sacred Land", ("Sun Priestess",), "deck"),
                          ("Druid", ("Druid of Roots",), "discard"),
                          ("Arid Land", ("Storm Caller",), "discard"),
                          ("Fertile Land", ("Firefly Glade",), "discard")],
                         vales=("Great Table",)),
    # a known on-deck card (Sun Parrot) and a Turtle with only one other card kind
    "parrot": small_deck([("Fertile Land", ("Sun Parrot",), "on-deck"),
                          ("Arid Land", (), "deck"), ("Arid Land", (), "deck"),
                          ("Wild Land", ("Phoenix Roost",), "deck"),
                          ("Sacred Land", ("Turtle Nesting Ground",), "deck"),
                          ("Arid Land", (), "discard"), ("Fertile Land", (), "discard")]),
}


class FixedOrder:
    """An rng whose successive shuffles apply the given permutations."""

    def __init__(self, perms):
        self.perms = list(perms)

    def shuffle(self, lst):
        perm = self.perms.pop(0)
        lst[:] = [lst[i] for i in perm]


def enumerate_engine(deck, plays, rain, policy=None, rules=None):
    """The engine's exact answer: every ordering of the deck and of the Discard (each
    equally likely), played by the reference engine's Night; Fractions."""
    rules, pol = rules or Rules(), policy or Policy()
    nd = len([u for u in deck.deck if u != deck.on_deck])
    orders = list(itertools.product(itertools.permutations(range(nd)),
                                    itertools.permutations(range(len(deck.discard)))))
    w = Fraction(1, len(orders))
    pw = {k: Fraction(0) for k in range(1, plays + 1)}
    exp = {k: [Fraction(0)] * 3 for k in range(1, plays + 1)}
    suns = {k: {} for k in range(1, plays + 1)}
    can = {k: Fraction(0) for k in range(1, plays + 1)}
    for a, b in orders:
        out = W.play_night(deck, plays, rain, rules, pol, FixedOrder([a, b]))
        for k, (withered, c, s, got) in enumerate(out, 1):
            pw[k] += w * withered
            can[k] += w * c
            suns[k][s] = suns[k].get(s, 0) + w
            exp[k] = [x + w * y for x, y in zip(exp[k], got)]
    return pw, exp, suns, can


@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("rain", [0, 1])
def test_exact_equals_the_engine_over_every_ordering(name, rain):
    deck = SMALL[name]
    plays = 9
    res = W.wither_odds(deck, plays, rain, exact=True)
    pw, exp, suns, can = enumerate_engine(deck, plays, rain)
    for k in range(1, plays + 1):
        assert res.p_wither_within[k] == pw[k]
        assert res.p_can_grow[k] == can[k]
        assert [res.expected[k][q] for q in W.QUANTITIES] == exp[k], (name, k)
        assert {s: p for s, p in res.suns_distribution[k].items() if p} == suns[k]
    # what the decks are there for
    assert res.p_wither_within[plays] > 0 or rain
    if name == "reshuffle":
        assert res.p_out_of_cards[plays] > 0


def test_turtle_ties_follow_the_engine_with_a_fixed_wither_choice():
    pol = Policy(name="spirit-choice", wither_choice="spirit")
    deck = SMALL["turtles"]
    res = W.wither_odds(deck, 7, 0, policy=pol, exact=True)
    pw, exp, _, _ = enumerate_engine(deck, 7, 0, policy=pol)
    for k in range(1, 8):
        assert res.p_wither_within[k] == pw[k]
        assert [res.expected[k][q] for q in W.QUANTITIES] == exp[k]


@pytest.mark.parametrize("rain", [0, 1, 2])
def test_starter_deck_is_hypergeometric(rain):
    """8 of the 14 starting cards show one sun, no clouds: the Night Withers by play k iff
    the first k + 1 cards (Land and on-deck card) hold 4 + rain suns (tokens placed when
    needed)."""
    res = W.wither_odds("starter", 13, rain, exact=True)
    for k in range(1, 14):
        n = k + 1
        hand = sum(Fraction(math.comb(8, j) * math.comb(6, n - j), math.comb(14, n))
                   for j in range(4 + rain, min(8, n) + 1))
        assert res.p_wither_within[k] == hand
        assert float(hand) == pytest.approx(hypergeom.sf(3 + rain, 14, 8, n), abs=1e-12)


def test_floats_equal_fractions():
    for name in ("willow", "rainy", "midgame"):
        a = W.wither_odds(name, 7, 1)
        b = W.wither_odds(name, 7, 1, exact=True)
        assert a.states == b.states
        for k in range(1, 8):
            assert a.p_wither_within[k] == pytest.approx(float(b.p_wither_within[k]), abs=1e-12)
            for q in W.QUANTITIES:
                assert a.expected[k][q] == pytest.approx(float(b.expected[k][q]), abs=1e-9)


@pytest.mark.parametrize("name,rain", [("starter", 1), ("misty", 0), ("rainy", 0),
                                       ("willow", 0), ("midgame", 0), ("sunny", 2)])
def test_simulation_agrees_within_4_standard_errors(name, rain):
    plays, games = 10, 1500
    ex = W.wither_odds(name, plays, rain)
    sim = W.simulate_wither_odds(name, plays, rain, games=games, seed=7)
    assert sim.games == games
    for k in range(1, plays + 1):
        p = ex.p_wither_within[k]
        se = math.sqrt(max(p * (1 - p), 1e-4) / games)
        assert abs(sim.p_wither_within[k] - p) < 4 * se, (k, p, sim.p_wither_within[k])
        for q in W.QUANTITIES:
            se = max(sim.se["expected"][k][q], 1e-3)
            assert abs(sim.expected[k][q] - ex.expected[k][q]) < 4 * se, (k, q)
    if name == "midgame":                       # the reshuffle after 9 plays Withers often
        assert ex.p_wither_within[10] > 0.3 > ex.p_wither_within[9]


def test_simulation_is_reproducible_and_uses_the_game_stream():
    a = W.simulate_wither_odds("starter", 6, 0, games=50, seed=3)
    b = W.simulate_wither_odds("starter", 6, 0, games=50, seed=3)
    c = W.simulate_wither_odds("starter", 6, 0, games=50, seed=4)
    assert a.to_dict() == b.to_dict()
    assert a.to_dict() != c.to_dict()


def test_sunlight_valley_does_not_change_the_night():
    base = W.load_deck("misty")
    sv = replace(base, vales=(CS.vale_id("Sunlight Valley"),), name="misty-sv")
    a, b = W.wither_odds(base, 8, 1), W.wither_odds(sv, 8, 1)
    assert a.p_wither_within == b.p_wither_within and a.expected == b.expected
    suns = sum(1 for c in base.cards if W.profile(CS, c).suns)
    assert b.sunlight_valley_vp == suns // 3 and a.sunlight_valley_vp == 0


def test_rain_never_mode_ignores_tokens():
    never = Policy(name="no-rain", rain="never")
    a = W.wither_odds("starter", 8, 3, policy=never)
    b = W.wither_odds("starter", 8, 0)
    assert a.p_wither_within == b.p_wither_within


def test_best_rule_beats_every_fixed_rule():
    ex = W.wither_odds("willow", 5, 1)
    for goal, target in (("mana", None), ("value", None), ("mana", 4)):
        r = W.best_rule("willow", goal, target, horizon=5, rain=1)
        assert r.value >= max(r.fixed.values()) - 1e-12
        if goal == "mana" and target is None:
            for k in range(1, 6):
                assert r.fixed[k] == pytest.approx(ex.expected[k]["mana"], abs=1e-9)
        reach = sum(row["reach"] for row in r.table if row["plays"] == 1)
        assert reach == pytest.approx(1 - ex.p_wither_within[1], abs=1e-12)
    # sunny Withers at the 4th sun for sure: the best rule for mana Rests in time
    s = W.best_rule("sunny", "mana", horizon=8)
    assert s.value > s.fixed[8]
    assert W.parse_goal("vp>=2") == ("vp", 2)
    with pytest.raises(ValueError):
        W.parse_goal("gold")


def test_unsupported_and_too_many_states():
    adv = CS.advances[CS.advance_id("Rain Lily")]
    odd = replace(adv, effects=(Effect("played", "gain_per_aspect_land", 1, "rain",
                                       aspect="blue"),))
    cs = replace(CS, advances=tuple(odd if a is adv else a for a in CS.advances))
    deck = replace(W.load_deck("rainy"), cs=cs)
    with pytest.raises(W.Unsupported, match="simulate"):
        W.wither_odds(deck, 4)
    with pytest.raises(W.TooManyStates, match="--simulate"):
        W.wither_odds("willow", 8, max_states=500)


def test_played_decks_answer():
    """Decks at the end of reference games (their Discard, on-deck card and Vales)."""
    from vale_sim.games.mystic_lands.reference.game import MysticLandsGame
    g = MysticLandsGame(CS, 2, 5, 0, log=False)
    g.play()
    for p in g.players:
        deck = W.deck_of_player(g, p)
        assert len(deck.cards) == len(p.deck) + len(p.discard) + len(p.land)
        res = W.wither_odds(deck, 6, 1, max_states=200_000)
        assert 0 <= res.p_wither_within[1] <= res.p_wither_within[6] <= 1


@pytest.mark.parametrize("text,msg", [
    ('base = "starter"\n[[cards]]\nland = "Arid Land"\ncount = 9\n', "no Arid Land left"),
    ('[[cards]]\nland = "Desert"\n', "unknown land"),
    ('color = 1\n', "unknown field"),
    ('[[cards]]\nland = "Arid Land"\nadvances = ["Morning Mist", "Sun Parrot"]\n',
     "both need the top-fg position"),
    ('[[cards]]\nland = "Arid Land"\nplace = "on-deck"\ncount = 2\n', "at most one"),
    ('[[cards]]\nland = "Arid Land"\nadvances = ["Morning Mistt"]\n', "Morning Mist"),
    ('druid = "Druid of Roots"\n', "needs base"),
    ('name = 3\nbase = "starter"\n', "non-empty string"),
])
def test_deck_file_errors_are_one_line(tmp_path, capsys, text, msg):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(W.DeckError, match=msg):
        W.load_deck(f)
    assert main(["wither-odds", "--game", "mystic-lands", "--deck", str(f)]) == 2
    err = capsys.readouterr().err
    assert msg.split()[0] in err and len(err.strip().splitlines()) == 1


def test_cli_json_exact_and_simulated(capsys):
    assert main(["wither-odds", "--game", "mystic-lands", "--deck", "starter", "--grows", "5", "--rain", "1",
                 "--json", "--rule", "mana>=3"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["method"] == "exact" and set(d["p_wither_within"]) == {"1", "2", "3", "4", "5"}
    assert d["p_wither_within"]["5"] == pytest.approx(hypergeom.sf(4, 14, 8, 6))
    assert 0 <= d["best_rule"]["value"] <= 1
    assert main(["wither-odds", "--game", "mystic-lands", "--deck", "misty", "--simulate", "--games", "40", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["games"] == 40 and "standard_errors" in d


def test_cli_text_and_plot(tmp_path, capsys):
    out = tmp_path / "w.png"
    assert main(["wither-odds", "--game", "mystic-lands", "--deck", "midgame", "--grows", "10", "--plot", str(out)]) == 0
    text = capsys.readouterr().out
    assert "P(Withered)" in text and "Sunlight Valley" in text
    assert out.read_bytes()[:4] == b"\x89PNG"
    assert main(["wither-odds", "--game", "mystic-lands", "--deck", "starter", "--simulate", "--games", "30"]) == 0
    out = capsys.readouterr().out
    assert "n = 30 Nights" in out and "Wilson" in out and "±" in out


@pytest.mark.parametrize("argv,msg", [
    (["--game", "mystic-vale"], "add --game mystic-lands"),
    (["--grows", "0"], "--grows"),
    (["--rain", "-1"], "--rain"),
    (["--rain", "99"], "rain must be between"),
    (["--simulate", "--games", "0"], "--games"),
    (["--rule", "gold"], "--rule"),
    (["--policy", "nobody"], "unknown policy"),
    (["--deck", "willow", "--grows", "9", "--max-states", "100"], "--simulate"),
])
def test_cli_errors_exit_2_in_one_line(capsys, argv, msg):
    assert main(["wither-odds", "--game", "mystic-lands"] + argv) == 2
    err = capsys.readouterr().err
    assert msg in err and len(err.strip().splitlines()) == 1


def test_cli_plot_path_checked_before_computing(tmp_path, capsys, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("computed before checking --plot")
    monkeypatch.setattr(W, "wither_odds", boom)
    bad = tmp_path / "missing" / "w.png"
    assert main(["wither-odds", "--game", "mystic-lands", "--plot", str(bad)]) == 2
    assert "--plot" in capsys.readouterr().err and not bad.parent.exists()


def random_deck(seed):
    """A random small deck from the bundled set: 5 deck cards and 0-2 in the Discard,
    each a random land with random Advances (legal positions, no sun on a card already
    showing one), at least two Turtle Nesting Grounds among them."""
    import random
    from vale_sim.games.mystic_lands.reference import cardmath as M
    rng = random.Random(seed)
    lands = [s.name for s in CS.starting]
    advs = [a for a in range(len(CS.advances)) if CS.advances[a].level > 0]
    turtle = CS.advance_id("Turtle Nesting Ground")
    entries = []
    n_disc = rng.randint(0, 2)
    for i in range(5 + n_disc):
        card = M.Card(uid=i, base=rng.randrange(len(lands)))
        picks = [turtle] if i < 2 or rng.random() < 0.2 else []
        picks += rng.sample(advs, rng.randint(0, 2))
        names = []
        for a in picks:
            if M.can_sleeve(CS, card, a):
                card.slots[CS.advances[a].position] = a
                names.append(CS.advances[a].name)
        entries.append((lands[card.base], tuple(names), "discard" if i >= 5 else "deck"))
    rng.shuffle(entries)
    return small_deck(entries, name=f"random {seed}")


def check_random_turtle_deck(seed, plays=7):
    """random_deck(seed) over every ordering, with 0-2 Rain tokens and a Wither choice
    by seed; docs/wither-odds.md runs it for seeds 0-149:
    ``python -c "import sys; sys.path.insert(0, 'tests'); import test_ml_wither as T;
    [T.check_random_turtle_deck(s) for s in range(150)]"``."""
    deck = random_deck(seed)
    rain = seed % 3
    pol = Policy(name="choice", wither_choice=("best", "mana", "spirit", "vp")[seed % 4])
    res = W.wither_odds(deck, plays, rain, exact=True, policy=pol)
    pw, exp, suns, can = enumerate_engine(deck, plays, rain, policy=pol)
    for k in range(1, plays + 1):
        assert res.p_wither_within[k] == pw[k], (seed, k)
        assert res.p_can_grow[k] == can[k], (seed, k)
        assert [res.expected[k][q] for q in W.QUANTITIES] == exp[k], (deck.describe(), k)
        assert {s: p for s, p in res.suns_distribution[k].items() if p} == suns[k]


@pytest.mark.parametrize("seed", range(6))
def test_random_turtle_decks_equal_the_engine(seed):
    """Random Turtle decks (ties, several Turtles, Turtles swapped out) over every ordering:
    the order summary gives the engine's swaps exactly."""
    check_random_turtle_deck(seed)
