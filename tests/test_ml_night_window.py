"""Mystic Lands' night effects resolve in the window the rules allow
(docs/mystic-lands-rules.md §3.1, M22): "The only time you may not resolve a night
effect is between playing your on-deck card and revealing your new on-deck card."
A card's when-played effects resolve as it enters the Land, its night effects once
the next on-deck card is revealed, in both engines.

No card of the bundled set can tell the two windows apart, so the tests use a card
file of their own: the bundled set with one Druid Advance dealt to everyone whose
night effect (mana per Land card showing green) comes before its when-played effect
(spirit per Land card showing blue) in the file.  Both count aspects, and a player's
wild icons take the aspect of the first effect that counts one (M6): resolved in the
allowed window, the when-played effect comes first and the Wild Lands count blue."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import engine_diff
import test_ml_rules as R
from vale_sim.games.mystic_lands import cards as C
from vale_sim.games.mystic_lands.fast.api import play_game_fast
from vale_sim.games.mystic_lands.reference import cardmath as M
from vale_sim.games.mystic_lands.reference.game import MysticLandsGame, play_reference
from vale_sim.games.mystic_lands.rules import Rules

BUNDLED = Path(C.__file__).parent / "data" / "mystic-lands.toml"
TWILIGHT = '''[[druid]]
name = "Twilight Druid"
copies = 8
position = "top-fg"
blue = 1
effects = [
  { timing = "night", kind = "gain_per_aspect_land", resource = "mana", aspect = "green", amount = 1 },
  { timing = "played", kind = "gain_per_aspect_land", resource = "spirit", aspect = "blue", amount = 1 },
]

'''


@pytest.fixture(scope="module")
def twilight(tmp_path_factory):
    """The bundled set with every Druid Advance replaced by the Twilight Druid."""
    text = BUNDLED.read_text()
    first, rest = text.index("[[druid]]"), text.index("[[advance]]")
    path = tmp_path_factory.mktemp("night") / "twilight.toml"
    path.write_text(re.sub(r'(?m)^name = "mystic-lands"$', 'name = "twilight"',
                           text[:first]) + TWILIGHT + text[rest:])
    return C.load_card_set(path)


class Watched(MysticLandsGame):
    """The reference engine, noting each reveal and each simple effect resolved."""

    def reveal_ondeck(self, p):
        self.seen.append("reveal")
        super().reveal_ondeck(p)

    def simple_effect(self, p, u, e):
        self.seen.append(e.timing)
        super().simple_effect(p, u, e)


def twilight_night(cs, bases):
    """One Night of a player who always Grows, the deck in this order (the Druid card
    with the Twilight Druid), nothing in the Discard."""
    g = Watched(cs, 2, 1, 0, [R.ALWAYS] * 2, Rules())
    g.seen = []
    p = g.players[0]
    druid = cs.advance_id("Twilight Druid")
    p.cards = [M.Card(uid=k, base=R.BASE[b]) for k, b in enumerate(bases)]
    p.cards[bases.index("Druid")].slots[cs.advances[druid].position] = druid
    p.deck, p.discard, p.land = list(range(len(bases))), [], []
    before = (p.mana, p.spirit)
    rec = R.TurnRecord(round=1, player=0, turn=1)
    g._rec = rec
    g.night(p, rec)
    return g, rec, p.mana - before[0], p.spirit - before[1]


@pytest.mark.parametrize("after", [["Fertile Land"], []], ids=["a card to reveal", "out of cards"])
def test_night_effects_resolve_after_the_reveal(twilight, after):
    """Grow Wild Land, Wild Land, the Druid card: its when-played effect resolves at
    once and fixes the wild aspect to blue (spirit 3: the two Wild Lands and the Druid
    card), then the next card is revealed, then the night effect counts green (mana 0:
    the wild is blue).  Resolved before the reveal, in file order, it would fix green:
    mana 2, spirit 1.  With nothing left to reveal the night effect still resolves,
    after the failed reveal and before the Night ends."""
    g, rec, mana, spirit = twilight_night(twilight, ["Wild Land", "Wild Land", "Druid"] + after)
    assert rec.grows == 3 + len(after) and rec.out_of_cards and not rec.withered
    assert (mana, spirit) == (0, 3)
    k = g.seen.index("played")
    assert g.seen[k:k + 3] == ["played", "reveal", "night"], g.seen


@pytest.mark.compiled
def test_both_engines_play_the_same_games_with_night_effects(twilight):
    """Whole games on the Twilight set: the fast engine resolves the night effects in
    the same window (its games equal the reference engine's, which the test above
    pins), with 2 and 3 players."""
    pols = ["balanced", "greedy", "spirit"]
    for players in (2, 3):
        for gi in range(4):
            ref = play_reference(twilight, players, 11, gi, pols[:players], Rules(), log=False)
            fast = play_game_fast(twilight, players, 11, gi, pols[:players], Rules())
            assert engine_diff.first_difference(ref, fast) is None, (players, gi)
