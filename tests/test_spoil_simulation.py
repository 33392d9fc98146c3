"""``spoil-odds --simulate`` on the fast engine (vale_sim/games/mystic_vale/fast/spoil_sim.py):
the same draws and the same numbers as the reference engine, deck by deck (the
bundled decks, crafted decks with vales and when-played abilities, random card
sets), under both Prep rules; the command uses the fast engine.  (Moved from
tests/test_hardening.py.)
"""
import json

import pytest

from vale_sim.cli import main


def _padded(cs, names_per_card, vales=(), name="padded"):
    """A 20-card deck: the given cards, then Cursed Land and blank cards alternately."""
    from vale_sim.games.mystic_vale.reference.symbols import Card
    from vale_sim.games.mystic_vale.spoil import Deck, make_card
    cards = [make_card(cs, names) for names in names_per_card]
    while len(cards) < 20:
        cards.append(make_card(cs, ["Cursed Land"]) if len(cards) % 2 else Card([-1, -1, -1]))
    return Deck(cs, cards, tuple(cs.vale_id(v) for v in vales), name)


def _spoil_decks():
    import random as _random
    from vale_sim.games.mystic_vale.cards import load_card_set
    from vale_sim.games.mystic_vale.reference.symbols import Card
    from vale_sim.games.mystic_vale.spoil import Deck, bundled_decks, load_deck
    from vale_sim.games.mystic_vale.synthetic import random_card_set
    from test_spoil import sleeve_randomly                # test_spoil's deck helper
    core = load_card_set("core")
    decks = [load_deck(d) for d in bundled_decks()]
    decks += [
        _padded(core, [["Grovetender", "Dawnsinger", "Stag"], ["Cursed Land", "Hulking Thornhide"],
                       ["Cursed Land", "Model L1 Sprout A"]] * 3,
                vales=("Conclave of Ents", "Azure Lake"), name="conclave"),
        _padded(core, [["Cursed Land", "Hulking Thornhide"], ["Model L1 Sprout E"]] * 4,
                vales=("Blooming Arbor", "Ancient Liferoots"), name="arbor-liferoots"),
        _padded(core, [["Peacekeeper Druid"], ["Deadwood Harvester"], ["Cleansing Rain"],
                       ["Cursed Land", "Calm Weather"], ["Cursed Land", "Mindful Owl"]],
                name="druid-when-played"),
        _padded(core, [["Aurora", "Seedling", "Grassland"], ["Magic Seed"], ["Grassland"],
                       ["Feral Chieftain", "Stag"], ["Woodland Warden"]],
                vales=("Stream of Vigor", "Pool of Light", "Conclave of Ents"),
                name="harvest-abilities"),
    ]
    for seed in (3, 17):                                  # random sets: every ability kind
        cs = random_card_set(seed)
        r = _random.Random(seed)
        cards = [sleeve_randomly(cs, Card([-1, -1, -1]), r) for _ in range(20)]
        vales = tuple(r.sample(range(len(cs.vales)), min(3, len(cs.vales))))
        decks.append(Deck(cs, cards, vales, f"random-{seed}"))
    return decks


@pytest.mark.parametrize("prep", ["net", "gross"])
def test_fast_spoil_simulation_equals_the_reference(prep):
    from vale_sim.games.mystic_vale.rules import Rules
    from vale_sim.games.mystic_vale.spoil import simulate_spoil_odds
    rules = Rules(prep_count=prep)
    for deck in _spoil_decks():
        a = simulate_spoil_odds(deck, 7, 300, 5, rules, engine="fast").to_dict()
        b = simulate_spoil_odds(deck, 7, 300, 5, rules, engine="reference").to_dict()
        a.pop("seconds", None)
        b.pop("seconds", None)
        assert a == b, deck.name


def test_spoil_odds_simulate_command_uses_the_fast_engine(monkeypatch, capsys):
    from vale_sim.games.mystic_vale.reference import player

    def no_reference(*a, **k):
        raise AssertionError("the reference engine was used")
    monkeypatch.setattr(player, "Player", no_reference)
    assert main(["spoil-odds", "--deck", "thornhide", "--simulate", "--games", "2000",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "simulated" and out["games"] == 2000
