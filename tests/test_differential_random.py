"""Two engines, one game: random card sets x random policies x random rule options.

Hypothesis builds valid inputs directly (no filtering): card sets from
`random_card_set`, policies with random weights, push rules (risk, lookahead, value),
token modes, exploration and buy-rule lists using every target and condition, and random
rule options.  The fast and reference engines must produce identical records;
a failure names the first differing turn and field.
"""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from engine_diff import first_difference

from vale_sim.games.mystic_vale.cards import VALE_ABILITIES, load_card_set
from vale_sim.games.mystic_vale.fast.api import play_game_fast
from vale_sim.games.mystic_vale.policy import RULE_CONDITIONS, BuyRule, Policy
from vale_sim.games.mystic_vale.reference.game import play_reference
from vale_sim.games.mystic_vale.rules import Rules
from vale_sim.games.mystic_vale.synthetic import random_card_set


@st.composite
def card_sets(draw):
    if draw(st.booleans()):
        return load_card_set("core")
    return random_card_set(draw(st.integers(0, 10**6)))


@st.composite
def buy_rules(draw, cs):
    target = draw(st.sampled_from(["card", "level", "vale_ability", "best"]))
    if target == "card":
        names = [a.name for a in cs.advancements if a.supply != "starter"] + [v.name for v in cs.vales]
        value = draw(st.sampled_from(names))
    elif target == "level":
        value = str(draw(st.integers(1, 3)))
    elif target == "vale_ability":
        value = draw(st.sampled_from(VALE_ABILITIES))
    else:
        value = draw(st.sampled_from(["advancement", "vale"]))
    conds = {}
    for c in RULE_CONDITIONS:
        if c == "owned_at_most" and target != "card":
            continue
        if draw(st.integers(0, 3)) == 0:
            conds[c] = draw(st.integers(0, 12))
    return BuyRule(target, value, **conds)


@st.composite
def policies(draw, cs):
    w = st.integers(-2, 6)
    rules = ()
    if draw(st.integers(0, 2)) == 0:
        rules = tuple(draw(st.lists(buy_rules(cs), min_size=1, max_size=5)))
    never = ()
    if draw(st.integers(0, 2)) == 0:       # a ban list: advancements and vales
        names = [a.name for a in cs.advancements if a.supply != "starter"] + [v.name for v in cs.vales]
        never = tuple(draw(st.lists(st.sampled_from(names), min_size=1, max_size=6, unique=True)))
    value = {}
    if draw(st.integers(0, 2)) == 0:       # a value player (engine-spec §6.7): staged weights
        from vale_sim.games.mystic_vale.value import ADV_SPEC, VALE_SPEC
        k = draw(st.integers(1, 4))

        def rows(spec):
            return tuple(tuple(draw(st.integers(0, 40) if sg > 0 else st.integers(-40, 0)
                                    if sg < 0 else st.integers(-40, 40))
                               for sg in spec.signs) for _ in range(k))
        value = {"value_stages": k, "value_adv": rows(ADV_SPEC), "value_vale": rows(VALE_SPEC)}
        if draw(st.booleans()):            # a VP token's value (the "value" push rule)
            value["value_vp"] = tuple(draw(st.integers(0, 60)) for _ in range(k))
    return Policy(
        **value,
        name=f"p{draw(st.integers(0, 999))}",
        push_risk_permille=draw(st.sampled_from([0, 100, 250, 400, 700, 1000])),
        push_rule=draw(st.sampled_from(["risk", "lookahead", "value"])),
        lookahead_caution_permille=draw(st.sampled_from([0, 250, 400, 1000, 3000, 10**6])),
        push_bonus=draw(st.sampled_from([0, 0, 3, -2, 100, 10**6])),
        carry_decay_cost=draw(st.sampled_from([0, 0, 2, -1, 400, 10**6])),
        mana_target=draw(st.sampled_from([0, 0, 4, 7])),
        w_mana=draw(w), w_spirit=draw(w), w_harvest_vp=draw(w), w_end_vp=draw(w),
        w_growth=draw(w), w_decay=draw(w), w_guardian=draw(w), w_ability=draw(w),
        w_cost=draw(st.integers(0, 2)), min_score=draw(st.integers(-3, 6)),
        w_vale_vp=draw(w), w_vale_ability=draw(w), vale_min_score=draw(st.integers(-2, 4)),
        avoid_decay_stack=draw(st.booleans()), token=draw(st.sampled_from(["needed", "never"])),
        use_sunstone=draw(st.booleans()),
        explore_permille=draw(st.sampled_from([0, 0, 100, 500, 1000])),
        discard_field_plays=draw(st.sampled_from([200, 200, 0, 1, 3, 8, 20])),   # I16
        rules=rules, never=never, best_min_score=draw(st.booleans()))


@st.composite
def games(draw):
    cs = draw(card_sets())
    players = draw(st.sampled_from([2, 3, 4]))
    pols = [draw(policies(cs)) for _ in range(players)]
    rules = Rules(prep_count=draw(st.sampled_from(["net", "gross"])),
                  vp_pool=draw(st.one_of(st.none(), st.integers(5, 40))),
                  level1_deck_size=draw(st.one_of(st.none(), st.integers(3, 18))),
                  max_rounds=draw(st.sampled_from([8, 30, 60])))
    seed = draw(st.integers(0, 2**64 - 1))
    game_index = draw(st.integers(0, 2**20))
    return cs, players, seed, game_index, pols, rules


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])   # budget: the profile
@given(games())
def test_fast_equals_reference_on_random_inputs(game):
    """Examples: 60 in CI (derandomized), more with HYPOTHESIS_PROFILE=explore (tests/conftest.py)."""
    cs, players, seed, game_index, pols, rules = game
    ref = play_reference(cs, players, seed, game_index, pols, rules)
    fast = play_game_fast(cs, players, seed, game_index, pols, rules)
    diff = first_difference(ref, fast)
    assert diff is None, diff


def test_owned_at_most_counts_bought_copies_only():
    """Regression: printed Fertile Soil on starting cards is not 'owned' (spec §8)."""
    cs = load_card_set("core")
    pol = Policy(name="soil-once", rules=(
        BuyRule("card", "Fertile Soil (middle)", owned_at_most=0), BuyRule("best", "advancement")))
    for seed in range(4):
        ref = play_reference(cs, 2, seed, 0, [pol, "balanced"])
        fast = play_game_fast(cs, 2, seed, 0, [pol, "balanced"])
        assert first_difference(ref, fast) is None, first_difference(ref, fast)


def test_never_bans_a_card_in_both_engines():
    """A banned card is never bought -- not by a buy rule naming it, nor by exploration --
    and both engines agree game for game; without the ban the same policy does buy it."""
    cs = load_card_set("core")
    adv = "Woodland Warden"
    vale = next(v.name for v in cs.vales if v.level == 1)
    rules = (BuyRule("card", adv), BuyRule("card", vale), BuyRule("best", "advancement"),
             BuyRule("best", "vale"))
    banned = Policy(name="ban", rules=rules, never=(adv, vale), explore_permille=400)
    free = Policy(name="free", rules=rules, explore_permille=400)
    k, v = cs.advancement_id(adv), cs.vale_id(vale)
    bought = {"ban": 0, "free": 0}
    for gi in range(12):
        for pol in (banned, free):
            ref = play_reference(cs, 2, 11, gi, [pol, pol])
            fast = play_game_fast(cs, 2, 11, gi, [pol, pol])
            assert first_difference(ref, fast) is None, first_difference(ref, fast)
            bought[pol.name] += sum(r.acquired.get(k, 0) + r.vales_acquired.count(v)
                                    for r in ref.results)
    assert bought["ban"] == 0
    assert bought["free"] > 0


def test_never_names_unknown_card():
    import pytest
    from vale_sim.games.mystic_vale.policy import PolicyError
    pol = Policy(name="typo", never=("Woodland Wardn",))
    with pytest.raises(PolicyError, match="never names unknown card 'Woodland Wardn'"):
        play_game_fast(load_card_set("core"), 2, 0, 0, [pol, pol])
    with pytest.raises(ValueError, match="never names unknown card"):
        play_reference(load_card_set("core"), 2, 0, 0, [pol, pol])


def test_policy_file_never_list(tmp_path):
    import pytest
    from vale_sim.games.mystic_vale.policy import PolicyError, load_policy
    f = tmp_path / "no-warden.toml"
    f.write_text('never = ["Woodland Warden", "Skyhaven"]\n')
    pol = load_policy(f)
    assert pol.never == ("Woodland Warden", "Skyhaven") and pol.rules == ()
    bad = tmp_path / "bad.toml"
    bad.write_text('never = "Woodland Warden"\n')
    with pytest.raises(PolicyError, match="bad.toml.*never must be a list of card names"):
        load_policy(bad)


def test_owned_at_most_only_on_card_rules():
    """The reference engine read owned_at_most only on a 'card' rule, the fast engine per
    candidate on any rule: a BuyRule built in Python (a policy file already refuses it) with
    owned_at_most on another target is refused, so the engines cannot disagree on it."""
    import pytest
    from vale_sim.games.mystic_vale.policy import PolicyError
    for target, value in (("best", "vale"), ("best", "advancement"), ("level", "1"),
                          ("vale_ability", "harvest_spirit")):
        with pytest.raises(PolicyError, match="owned_at_most applies only to a 'card' rule"):
            BuyRule(target, value, owned_at_most=0)
    assert BuyRule("card", "Seedling", owned_at_most=0).owned_at_most == 0
