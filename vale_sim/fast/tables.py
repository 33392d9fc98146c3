"""Card sets, policies and rule options as plain integer arrays (built once).

The kernels in ``engine`` only read these tables.  Layout (all ``int32``
unless said; -1 = empty / none)::

    Tables.adv      [n_adv, A_N]   one row per advancement kind (id = row)
                    cols A_LEVEL .. A_AMOUNT as named below, then derived
                    A_SPIRITS (a+f+s+w), A_SYMBOLS (Gaia's Chosen count),
                    A_PERG (ability is per-guardian), A_LIMIT (decay-limiting)
    Tables.vale     [n_vale, V_N]  one row per vale kind (id = row)
    Tables.start    [20, 3]        starting cards' slots (advancement ids)
    Tables.lvl_cards[3, L]         level 1/2/3 commons copies, kinds in id
                                   order each repeated `copies` times
    Tables.lvl_n    [3]            used length of each lvl_cards row
    Tables.vale_cards[2, M]        level 1/2 vale copies, same order
    Tables.vale_n   [2]
    Tables.fertile  [n_adv]        Fertile Soil copies per kind (0 if not fertile)
    Tables.opts     [O_N]          rule options (O_PLAYERS, O_POOL, ...)

    Policies.par    [P, P_N]       one row per player: integer parameters
    Policies.adv_score [P, n_adv]  the §6.4 score of each kind for that policy
    Policies.vale_score[P, n_vale] the §6.3 score of each vale
    Policies.rules  [P, R, RC_N]   buy rules in order: target type, target id,
                                   then the six conditions (ABSENT if not given)
    Policies.n_rules[P]

Ability codes are the indexes in ``cards.ADVANCEMENT_ABILITIES`` and
``cards.VALE_ABILITIES`` (named constants below).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..cards import (ADVANCEMENT_ABILITIES, VALE_ABILITIES, SPIRITS, SUPPLIES,
                     PER_GUARDIAN, DECAY_LIMITING, CardSet)
from ..policy import Policy, PolicyError, RULE_CONDITIONS
from ..rules import Rules

# -- advancement table columns ------------------------------------------------
(A_LEVEL, A_SUPPLY, A_COPIES, A_COST, A_POS, A_LONGWISE, A_MANA, A_ANIMAL,
 A_FOREST, A_SKY, A_WILD, A_GUARDIAN, A_DECAY, A_GROWTH, A_HVP, A_EVP,
 A_ABILITY, A_AMOUNT, A_SPIRITS, A_SYMBOLS, A_PERG, A_LIMIT, A_N) = range(23)
# -- vale table columns -------------------------------------------------------
(V_LEVEL, V_COPIES, V_COST_A, V_COST_F, V_COST_S, V_COST_W, V_END_VP,
 V_ABILITY, V_AMOUNT, V_SYMBOL, V_EXTRA_BUYS, V_UNIQUE, V_N) = range(13)
# -- supply codes (cards.SUPPLIES order) --------------------------------------
SUP_COMMONS, SUP_FERTILE, SUP_STARTER = range(3)
# -- spirit codes (cards.SPIRITS order) ---------------------------------------
SP_ANIMAL, SP_FOREST, SP_SKY, SP_WILD = range(4)

# -- advancement ability codes ------------------------------------------------
AB = {name: i for i, name in enumerate(ADVANCEMENT_ABILITIES)}
AB_NONE = AB["none"]
AB_HVP_PER_GUARDIAN = AB["harvest_vp_per_guardian"]
AB_HMANA_PER_GUARDIAN = AB["harvest_mana_per_guardian"]
AB_GROWTH_PER_GUARDIAN = AB["ongoing_growth_per_guardian"]
AB_ENDGAME_PER_SYMBOL = AB["endgame_vp_per_symbol"]
AB_HVP_PER_CARDS = AB["harvest_vp_per_cards"]
AB_HMANA_PER_OTHER = AB["harvest_mana_per_other_card"]
AB_HMANA_PENALTY = AB["harvest_mana_penalty"]
AB_WP_PEEK = AB["when_played_peek"]
AB_WP_SEARCH = AB["when_played_search_deck"]
AB_WP_DISCARD_FIELD = AB["when_played_discard_field"]
AB_DISCOUNT = AB["discount_same_card"]
AB_NO_DECAY = AB["ongoing_no_decay"]
AB_MAX_ONE_DECAY = AB["ongoing_max_one_decay"]
AB_PREVENT_SPOIL = AB["prevent_spoil"]
# -- vale ability codes -------------------------------------------------------
VAB = {name: i for i, name in enumerate(VALE_ABILITIES)}
VAB_NONE = VAB["none"]
VAB_HMANA = VAB["harvest_mana"]
VAB_HSPIRIT = VAB["harvest_spirit"]
VAB_ARBOR = VAB["spoil_save_growth"]
VAB_ALWAYS_GROWTH = VAB["always_growth"]
VAB_CONCLAVE = VAB["guardian_once_per_turn"]
VAB_SUNSTONE = VAB["spirit_to_wild"]

# -- rule options -------------------------------------------------------------
O_PLAYERS, O_POOL, O_L1SIZE, O_MAX_ROUNDS, O_PREP_GROSS, O_MAX_BUYS, O_N = range(7)

# -- policy parameters --------------------------------------------------------
(P_PUSH_RISK, P_MANA_TARGET, P_MIN_SCORE, P_VALE_MIN_SCORE, P_AVOID_DECAY_STACK,
 P_TOKEN_NEEDED, P_USE_SUNSTONE, P_EXPLORE, P_N) = range(9)
# -- buy rules ----------------------------------------------------------------
(RC_TARGET, RC_ID, RC_MANA_AT_LEAST, RC_MANA_AT_MOST, RC_ROUND_AT_LEAST,
 RC_ROUND_AT_MOST, RC_POOL_AT_MOST, RC_OWNED_AT_MOST, RC_N) = range(9)
RC_CONDITIONS = (RC_MANA_AT_LEAST, RC_MANA_AT_MOST, RC_ROUND_AT_LEAST,
                 RC_ROUND_AT_MOST, RC_POOL_AT_MOST, RC_OWNED_AT_MOST)
# rule target types
T_CARD_ADV, T_CARD_VALE, T_LEVEL, T_VALE_ABILITY, T_BEST_ADV, T_BEST_VALE = range(6)
ABSENT = -(2 ** 31)      # a condition the rule does not give

N_CARDS = 20             # sleeves per player
N_COMMONS = 9            # face-up commons slots (3 per level)
N_VALE_SLOTS = 8         # face-up vale slots (4 per level)

Tables = namedtuple("Tables", ["adv", "vale", "start", "lvl_cards", "lvl_n",
                               "vale_cards", "vale_n", "fertile", "opts"])
Policies = namedtuple("Policies", ["par", "adv_score", "vale_score", "rules", "n_rules"])


def card_tables(cs: CardSet, players: int, rules: Rules | None = None) -> Tables:
    """The card set and rule options as integer arrays (see module docstring)."""
    rules = rules or Rules()
    if not 1 <= players <= 4:
        raise ValueError(f"players must be 1..4, got {players}")
    na, nv = len(cs.advancements), len(cs.vales)
    adv = np.zeros((max(na, 1), A_N), dtype=np.int32)
    for i, a in enumerate(cs.advancements):
        row = adv[i]
        row[A_LEVEL], row[A_SUPPLY], row[A_COPIES] = a.level, SUPPLIES.index(a.supply), a.copies
        row[A_COST], row[A_POS], row[A_LONGWISE] = a.cost, a.position, int(a.longwise)
        row[A_MANA], row[A_ANIMAL], row[A_FOREST] = a.mana, a.animal, a.forest
        row[A_SKY], row[A_WILD], row[A_GUARDIAN] = a.sky, a.wild, a.guardian
        row[A_DECAY], row[A_GROWTH], row[A_HVP], row[A_EVP] = a.decay, a.growth, a.harvest_vp, a.end_vp
        if a.ability not in AB:
            raise ValueError(f"card set {cs.name!r}: advancement {a.name!r}: unknown ability {a.ability!r}")
        row[A_ABILITY], row[A_AMOUNT] = AB[a.ability], a.amount
        row[A_SPIRITS], row[A_SYMBOLS] = a.spirits, a.symbol_count
        row[A_PERG] = int(a.ability in PER_GUARDIAN)
        row[A_LIMIT] = int(a.ability in DECAY_LIMITING)
    vale = np.zeros((max(nv, 1), V_N), dtype=np.int32)
    for i, v in enumerate(cs.vales):
        row = vale[i]
        row[V_LEVEL], row[V_COPIES] = v.level, v.copies
        row[V_COST_A], row[V_COST_F], row[V_COST_S], row[V_COST_W] = v.cost
        row[V_END_VP] = v.end_vp
        if v.ability not in VAB:
            raise ValueError(f"card set {cs.name!r}: vale {v.name!r}: unknown ability {v.ability!r}")
        row[V_ABILITY], row[V_AMOUNT] = VAB[v.ability], v.amount
        row[V_SYMBOL] = SPIRITS.index(v.symbol) if v.symbol else -1
        row[V_EXTRA_BUYS], row[V_UNIQUE] = v.extra_buys, int(v.unique)
    deck = cs.starting_deck()
    if len(deck) != N_CARDS:
        raise ValueError(f"card set {cs.name!r}: starting cards make {len(deck)} cards, need {N_CARDS}")
    start = np.array(deck, dtype=np.int32).reshape(N_CARDS, 3)

    lvl = [[i for i in cs.commons(L) for _ in range(cs.advancements[i].copies)] for L in (1, 2, 3)]
    lvl_cards = np.full((3, max(1, max(len(x) for x in lvl))), -1, dtype=np.int32)
    for L, x in enumerate(lvl):
        lvl_cards[L, :len(x)] = x
    vl = [[i for i in cs.vales_of_level(L) for _ in range(cs.vales[i].copies)] for L in (1, 2)]
    vale_cards = np.full((2, max(1, max(len(x) for x in vl))), -1, dtype=np.int32)
    for L, x in enumerate(vl):
        vale_cards[L, :len(x)] = x
    fertile = np.zeros(max(na, 1), dtype=np.int32)
    for i in cs.fertile():
        fertile[i] = cs.advancements[i].copies

    opts = np.zeros(O_N, dtype=np.int64)
    opts[O_PLAYERS] = players
    try:
        opts[O_POOL] = rules.pool_for(players)
        opts[O_L1SIZE] = min(rules.level1_for(players), len(lvl[0]))
    except KeyError:
        raise ValueError(f"no default VP pool / level 1 deck size for {players} players: "
                         f"give Rules(vp_pool=..., level1_deck_size=...)") from None
    opts[O_MAX_ROUNDS] = rules.max_rounds
    opts[O_PREP_GROSS] = int(rules.prep_count == "gross")
    # Most advancements one Harvest can buy: 2 + every extra buy of every vale copy.
    opts[O_MAX_BUYS] = 2 + sum(v.extra_buys * v.copies for v in cs.vales)
    return Tables(adv, vale, start, lvl_cards, np.array([len(x) for x in lvl], np.int32),
                  vale_cards, np.array([len(x) for x in vl], np.int32), fertile, opts)


def _resolve_card(cs: CardSet, name: str, policy: Policy):
    names_a = [a.name for a in cs.advancements]
    names_v = [v.name for v in cs.vales]
    if name in names_a:
        return T_CARD_ADV, names_a.index(name)
    if name in names_v:
        return T_CARD_VALE, names_v.index(name)
    raise PolicyError(f"policy {policy.name!r}: buy rule names unknown card {name!r} "
                      f"(not an advancement or vale of card set {cs.name!r})")


def policy_tables(cs: CardSet, policies) -> Policies:
    """Policies (one per player) as arrays; rule card names resolved to ids."""
    P = len(policies)
    na, nv = max(1, len(cs.advancements)), max(1, len(cs.vales))
    max_rules = max([1] + [len(p.rules) for p in policies])
    par = np.zeros((P, P_N), dtype=np.int64)
    adv_score = np.zeros((P, na), dtype=np.int64)
    vale_score = np.zeros((P, nv), dtype=np.int64)
    rules = np.full((P, max_rules, RC_N), ABSENT, dtype=np.int64)
    n_rules = np.zeros(P, dtype=np.int64)
    for p, pol in enumerate(policies):
        par[p, P_PUSH_RISK] = pol.push_risk_permille
        par[p, P_MANA_TARGET] = pol.mana_target
        par[p, P_MIN_SCORE] = pol.min_score
        par[p, P_VALE_MIN_SCORE] = pol.vale_min_score
        par[p, P_AVOID_DECAY_STACK] = int(pol.avoid_decay_stack)
        par[p, P_TOKEN_NEEDED] = int(pol.token == "needed")
        par[p, P_USE_SUNSTONE] = int(pol.use_sunstone)
        par[p, P_EXPLORE] = pol.explore_permille
        for i, a in enumerate(cs.advancements):
            adv_score[p, i] = (pol.w_mana * a.mana + pol.w_spirit * a.spirits
                               + pol.w_harvest_vp * a.harvest_vp + pol.w_end_vp * a.end_vp
                               + pol.w_growth * a.growth - pol.w_decay * a.decay
                               + pol.w_guardian * a.guardian
                               + pol.w_ability * int(a.ability != "none") - pol.w_cost * a.cost)
        for i, v in enumerate(cs.vales):
            vale_score[p, i] = pol.w_vale_vp * v.end_vp + pol.w_vale_ability * int(v.ability != "none")
        n_rules[p] = len(pol.rules)
        for r, rule in enumerate(pol.rules):
            row = rules[p, r]
            if rule.target == "card":
                row[RC_TARGET], row[RC_ID] = _resolve_card(cs, rule.value, pol)
            elif rule.target == "level":
                row[RC_TARGET], row[RC_ID] = T_LEVEL, int(rule.value)
            elif rule.target == "vale_ability":
                if rule.value not in VAB:
                    raise PolicyError(f"policy {pol.name!r}: unknown vale ability {rule.value!r} "
                                      f"(known: {', '.join(VALE_ABILITIES)})")
                row[RC_TARGET], row[RC_ID] = T_VALE_ABILITY, VAB[rule.value]
            elif rule.target == "best":
                if rule.value not in ("advancement", "vale"):
                    raise PolicyError(f"policy {pol.name!r}: best must be 'advancement' or 'vale'")
                row[RC_TARGET] = T_BEST_ADV if rule.value == "advancement" else T_BEST_VALE
                row[RC_ID] = -1
            else:
                raise PolicyError(f"policy {pol.name!r}: unknown rule target {rule.target!r}")
            for col, cond in zip(RC_CONDITIONS, RULE_CONDITIONS):
                v = getattr(rule, cond)
                if v is not None:
                    row[col] = v
    return Policies(par, adv_score, vale_score, rules, n_rules)
