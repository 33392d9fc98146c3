"""The fast engine plays exactly the reference engine's games (engine-spec).

Compares whole GameRecords: every TurnRecord field and every PlayerResult,
and reports the first differing turn and field.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

import engine_diff
from vale_sim.games.mystic_vale.cards import StartingCard, load_card_set
from vale_sim.games.mystic_vale.policy import PRESETS, BuyRule, Policy
from vale_sim.games.mystic_vale.reference.game import play_reference
from vale_sim.games.mystic_vale.reference.player import Player
from vale_sim.games.mystic_vale.rules import Rules
from vale_sim.games.mystic_vale.synthetic import random_card_set
from vale_sim.games.mystic_vale.fast.api import play_game_fast

GAME_FIELDS = ("players", "starting_player", "rounds", "truncated", "vp_pool")


def first_difference(ref, fast) -> str | None:
    return engine_diff.first_difference(ref, fast, GAME_FIELDS)


def check(cs, players, seed, gi, policies, rules=None):
    ref = play_reference(cs, players, seed, gi, policies=policies, rules=rules)
    fast = play_game_fast(cs, players, seed, gi, policies=policies, rules=rules)
    diff = first_difference(ref, fast)
    assert diff is None, f"seed {seed} game {gi} players {players}: {diff}"


@pytest.fixture(scope="module")
def core():
    return load_card_set("core")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_core_presets(core, players, preset):
    for gi in range(4):
        check(core, players, 2024, gi, preset)


def test_core_mixed_policies_and_rules(core):
    pols = ["greedy", "cautious", "vp-rush", "mana-target"]
    for gi in range(6):
        check(core, 4, 7, gi, pols)
        check(core, 2, 2**64 - 1, gi, ["spirit-rush", "balanced"], Rules(prep_count="gross"))
        check(core, 3, 99, gi, "balanced", Rules(vp_pool=10, level1_deck_size=6, max_rounds=8))


def test_core_exploration(core):
    explorer = Policy(name="explorer", explore_permille=300)
    for gi in range(6):
        check(core, 2, 5, gi, [explorer, "balanced"])


def test_core_buy_rules(core):
    a = core.advancements
    l2 = next(x.name for x in a if x.level == 2 and x.supply == "commons")
    rules = (BuyRule("card", l2, round_at_least=3, owned_at_most=1),
             BuyRule("vale_ability", "harvest_mana", mana_at_least=1),
             BuyRule("card", core.vales[0].name, pool_at_most=20),
             BuyRule("level", "3", mana_at_least=6),
             BuyRule("best", "vale"),
             BuyRule("level", "1", round_at_most=5, mana_at_most=4),
             BuyRule("best", "advancement", round_at_least=4))
    ruled = Policy(name="ruled", rules=rules)
    for gi in range(6):
        check(core, 2, 11, gi, [ruled, "balanced"])
        check(core, 3, 12, gi, [ruled, ruled, "greedy"])


@pytest.mark.parametrize("set_seed", range(12))
def test_random_card_sets(set_seed):
    cs = random_card_set(set_seed)
    pols = sorted(PRESETS)
    for gi in range(3):
        players = 2 + (set_seed + gi) % 3
        chosen = [PRESETS[pols[(set_seed + gi + i) % len(pols)]] for i in range(players)]
        if gi == 2:
            chosen[0] = Policy(name="explorer", explore_permille=500, use_sunstone=True)
        check(cs, players, 1000 + set_seed, gi, chosen)


def tie_heavy_set(core):
    """core with a free level 1 Conclave of Ents (8 copies) and starting cards with
    two Deadwood Harvesters among equal-net Cursed Lands and six Grovetenders, so the
    random tie-breaks (§6.2 field discard, §4.4 step 2 Conclave save) come up often."""
    conclave = core.vales[core.vale_id("Conclave of Ents")]
    free = replace(conclave, level=1, copies=8, cost_animal=0, cost_forest=0, cost_sky=0,
                   cost_wild=0)
    starting = (StartingCard("Cursed Land", ("Cursed Land",), 7, "user"),
                StartingCard("Harvester", ("Cursed Land", "Deadwood Harvester"), 2, "user"),
                StartingCard("Grovetender", ("Grovetender",), 6, "user"),
                *(StartingCard(n, (n,), 1, "user") for n in
                  ("Fertile Soil (top)", "Fertile Soil (middle)", "Fertile Soil (bottom)")),
                StartingCard("Blank", (), 2, "user"))
    vales = (free,) + tuple(v for v in core.vales if v.level == 2 and v != conclave)
    return replace(core, name="core-ties", vales=vales, starting_cards=starting)


def test_random_tie_breaks(core, monkeypatch):
    """Both engines draw the same tie-breaks; the games do hit both kinds of tie."""
    ties = Counter()
    worst, savers = Player.worst, Player.conclave_savers

    def counting_worst(self, candidates, random_ties=False):
        nets = [self.net(c) for c in candidates]
        ties["discard"] += random_ties and max(nets, default=0) > 0 and nets.count(max(nets)) > 1
        return worst(self, candidates, random_ties)

    def counting_savers(self, amount):
        found = savers(self, amount)
        ties["conclave"] += len(found) > 1
        return found

    monkeypatch.setattr(Player, "worst", counting_worst)
    monkeypatch.setattr(Player, "conclave_savers", counting_savers)
    cs = tie_heavy_set(core)
    for gi in range(4):
        check(cs, 2, 3, gi, ["balanced", "greedy"])
        check(cs, 2, 3, gi, ["greedy", "greedy"])
    assert ties["discard"] >= 10 and ties["conclave"] >= 10, ties


# A policy the policy search once proposed (docs/optimize.md): with cards whose growth
# cancels their decay, Prep never reaches 3 decay showing while a When Played "discard a
# field card" sends a card back to the discard pile and the next reveal reshuffles it in:
# the same cards cycled for ever, in both engines.  rules.md I15 ends a Prep (and a
# Planting) after MAX_PHASE_PLAYS plays.
CYCLING_POLICY = """base = "balanced"
name = "cycling"
push_risk_permille = 17
w_mana = 1
w_spirit = 2
w_harvest_vp = -6
w_end_vp = -3
w_growth = 4
w_decay = 8
w_guardian = -1
w_ability = 10
w_cost = -6
min_score = -4
w_vale_vp = 6
w_vale_ability = 3
vale_min_score = -5
avoid_decay_stack = false
"""
CYCLING_GAME = dict(seed=1555537883283606233, game=9)
# The set the cycling game was found on: core before the refit of its estimates (on the
# refit core none of this seed's first 400 games reaches the cap with these policies).
CYCLING_SET = "core-unfitted"


def _play_cycling(tmp_path, engine: str) -> str:
    """Plays the game in a subprocess (a hang is a clean failure, not a stuck suite)."""
    import subprocess
    import sys
    f = tmp_path / "cycling.toml"
    f.write_text(CYCLING_POLICY)
    code = (
        "import json, sys\n"
        "from dataclasses import asdict\n"
        "from vale_sim.games.mystic_vale.cards import load_card_set\n"
        "from vale_sim.games.mystic_vale.policy import get_policy\n"
        "from vale_sim.games.mystic_vale.rules import Rules\n"
        f"from vale_sim.games.mystic_vale.{'fast.api import play_game_fast as play' if engine == 'fast' else 'reference.game import play_reference as play'}\n"
        f"pols = [get_policy('spirit-rush'), get_policy({str(f)!r})]\n"
        f"rec = play(load_card_set({CYCLING_SET!r}), 2, {CYCLING_GAME['seed']}, {CYCLING_GAME['game']}, pols, Rules())\n"
        "print(json.dumps([asdict(t) for t in rec.turns] + [asdict(r) for r in rec.results], default=str))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def test_a_cycling_prep_ends_the_same_way_in_both_engines(tmp_path):
    import json
    ref = json.loads(_play_cycling(tmp_path, "reference"))
    fast = json.loads(_play_cycling(tmp_path, "fast"))
    assert ref == fast
    turns = [t for t in ref if "decay_showing" in t]
    # The cap ended a Prep: below 3 decay showing, not spoiled, and not every card in the
    # field (otherwise there would be no on-deck card to play and Prep would end anyway).
    capped = [t for t in turns if t["decay_showing"] < 3 and not t["spoiled_in_prep"]
              and t["field_size"] < 20]
    assert capped, "no Prep ended on the cap"


def test_an_earlier_vale_rule_paid_with_sunstone_beats_a_later_rule_paid_directly(core):
    """Regression (engine-spec §6.5, §8): buy rules are tried in order, and each rule's
    matches are tried paid directly, then with Sunstone Aerie, before the next rule.

    Animal + forest and 3 mana, an active Sunstone Aerie (2 mana).  Rule 1 wants a
    harvest_spirit vale: Cascading Falls (2 animal) is affordable only by turning the
    forest wild.  Rule 2 ('best vale') could buy Azure Lake (animal + forest) directly.
    Rule 1 decides: Cascading Falls, with the Sunstone, 1 mana left.  (The fast engine
    used to try every rule directly first and bought Azure Lake.)"""
    import numpy as np
    from vale_sim.games.mystic_vale.fast import engine as E
    from vale_sim.games.mystic_vale.fast.state import new_state, views, PS_TURN
    from vale_sim.games.mystic_vale.fast.tables import card_tables, policy_tables
    from vale_sim.games.mystic_vale.reference.game import MysticValeGame
    from vale_sim.games.mystic_vale.reference.player import OwnedVale

    falls, azure, sun = (core.vale_id(n) for n in
                         ("Cascading Falls", "Azure Lake", "Sunstone Aerie"))
    assert core.vales[falls].ability == "harvest_spirit"
    assert core.vales[azure].ability != "harvest_spirit"
    pol = Policy(name="falls-first", use_sunstone=True,
                 rules=(BuyRule("vale_ability", "harvest_spirit"), BuyRule("best", "vale")))
    row = [azure, falls]                      # the direct buy comes first in slot order
    spirits = dict(animal=1, forest=1, sky=0, wild=0)

    g = MysticValeGame(core, 2, seed=3, policies=[pol, pol])
    pl = g.players[0]
    g.vale_row = row + [-1] * (len(g.vale_row) - len(row))
    pl.vales, pl.turn_number = [OwnedVale(sun, 1)], 2
    slot, left, paid = g.choose_vale(pl, pol, spirits, 3)
    assert (g.vale_row[slot], paid) == (falls, 2)
    assert left == dict(animal=0, forest=0, sky=0, wild=0)

    T = card_tables(core, 2, Rules())
    Q = policy_tables(core, [pol, pol])
    S = new_state(T)
    E.setup(T, S, Q, np.uint64(3), np.uint64(0))
    V = views(T, S)
    V.vslots[:] = -1
    V.vslots[:len(row)] = row
    V.vown[0, 0], V.vturn[0, 0], V.vown_n[0] = sun, 1, 1
    V.ps[0, PS_TURN] = 2
    V.spirits[:] = (1, 1, 0, 0)
    mana = E.buy_vales(T, S, Q, 0, 3, 2)
    assert mana == 1
    assert list(V.vown[0, :V.vown_n[0]]) == [sun, falls]
    assert list(V.spirits) == [0, 0, 0, 0]
