"""Card sets, policies and rule options as two int64 arrays (built once).

The kernels in ``engine`` only read these tables.  Each is ONE 2-D int64 array
(a kernel call passes every array as nine machine words), rows at the
constant offsets below; -1 = empty / none::

    T[ADV + k, A_*]          advancement kind k (k < n_adv <= MAX_KINDS): columns
                             A_LEVEL .. A_AMOUNT as named below, then derived
                             A_SPIRITS (a+f+s+w), A_SYMBOLS (Gaia's Chosen count),
                             A_PERG (ability is per-guardian), A_LIMIT (decay-limiting)
    T[VALE + v, V_*]         vale kind v (v < n_vale <= MAX_VALE_KINDS)
    T[START + c, s]          starting card c's slot s (advancement id or -1)
    T[LVL_CARDS + l, i]      level l+1 commons copies, kinds in id order each
                             repeated `copies` times (i < T[OPTS, O_LVL_LEN + l])
    T[VALE_CARDS + l, i]     level l+1 vale copies, same (i < T[OPTS, O_VALE_LEN + l])
    T[FERTILE, k]            Fertile Soil copies of kind k (0 if not fertile)
    T[FERTILE_KINDS, j]      the Fertile Soil kinds in id order (j < T[OPTS, O_N_FERTILE])
    T[OPTS, O_*]             rule options and sizes (O_PLAYERS, O_POOL, ...)

    Q[p, P_*]                player p's integer parameters; Q[p, P_N_RULES] buy
                             rules at rows Q[p, P_RULES] .. + n_rules - 1
    Q[ADV_KEY + 4s + p, k]   the section 6.4 score of kind k for p's policy at stage s as a
                             sort key: KEY_MUL x (number of distinct scores of p's kinds at
                             that stage below it), so the order and the ties are the
                             scores'; Q[MIN_KEY + p, s] is the key of min_score the same way
                             (key >= it iff score >= min_score).  A scripted policy has one
                             stage (s = 0); a value player Q[p, P_STAGES] (section 6.7)
    Q[VALE_SCORE + 4s + p, v]  the section 6.3 score of vale v at stage s
    Q[NEVER_ADV + p, k]      1 if p's policy never buys advancement kind k
    Q[NEVER_VALE + p, v]     1 if p's policy never buys vale v
    Q[ADV_BUY_COST + p, k]   kind k's cost, or NEVER_COST if p never buys it (the
                             candidate filter of a Harvest reads one compact row)
    Q[ADV_SCORE + 4s + p, k] the section 6.4 score of kind k at stage s itself (the
                             "value" push rule of section 6.1 adds scores up)
    Q[VP_WEIGHT + p, s]      a VP token's value at stage s for the "value" push rule:
                             value_vp[s] of a value player (0 if its model has none),
                             w_harvest_vp of a scripted policy
    Q[rule row, RC_*]        a buy rule: target type, target id, then the six
                             conditions (ABSENT if not given)

Ability codes are the indexes in ``cards.ADVANCEMENT_ABILITIES`` and
``cards.VALE_ABILITIES`` (named constants below).
"""
from __future__ import annotations

import bisect

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

# -- rule options and sizes (row OPTS) -----------------------------------------
(O_PLAYERS, O_POOL, O_L1SIZE, O_MAX_ROUNDS, O_PREP_GROSS, O_MAX_BUYS, O_N_ADV,
 O_N_VALE, O_LVL_LEN, _L2, _L3, O_VALE_LEN, _V2, O_TRACE_W, O_N_FERTILE, O_MIN_VALE_COST,
 O_N) = range(17)

# -- policy parameters (row p of Q) ------------------------------------------
(P_PUSH_RISK, P_MANA_TARGET, _P_FREE, P_VALE_MIN_SCORE, P_AVOID_DECAY_STACK,
 P_TOKEN_NEEDED, P_USE_SUNSTONE, P_EXPLORE, P_N_RULES, P_RULES,
 P_LOOKAHEAD, P_CAUTION, P_W_MANA, P_W_SPIRIT, P_W_HVP, P_DISCARD_PLAYS, P_STAGES,
 P_BEST_MIN, P_VALUE_PUSH, P_MIN_SCORE, P_PUSH_BONUS, P_CARRY_DECAY, P_N) = range(23)
# P_VALUE_PUSH: 1 if push_rule == "value" (engine-spec §6.1; P_CAUTION its caution)
# P_MIN_SCORE: min_score (the value rule counts the purchases the policy would make)
# P_PUSH_BONUS: push_bonus (the value rule: what a push is worth beyond its Harvest)
# P_CARRY_DECAY: carry_decay_cost (the value rule: a net decay on the card left on deck)
# P_BEST_MIN: 1 if `best` buy rules apply min_score / vale_min_score (engine-spec §6.5)
# P_STAGES: a value player's stages (its score rows, engine-spec §6.7), else 1
# P_LOOKAHEAD: 1 if push_rule == "lookahead" (engine-spec §6.1), else the risk rule
# -- buy rules ----------------------------------------------------------------
(RC_TARGET, RC_ID, RC_MANA_AT_LEAST, RC_MANA_AT_MOST, RC_ROUND_AT_LEAST,
 RC_ROUND_AT_MOST, RC_POOL_AT_MOST, RC_OWNED_AT_MOST, RC_N) = range(9)
RC_CONDITIONS = (RC_MANA_AT_LEAST, RC_MANA_AT_MOST, RC_ROUND_AT_LEAST,
                 RC_ROUND_AT_MOST, RC_POOL_AT_MOST, RC_OWNED_AT_MOST)
# rule target types
T_CARD_ADV, T_CARD_VALE, T_LEVEL, T_VALE_ABILITY, T_BEST_ADV, T_BEST_VALE = range(6)
ABSENT = -(2 ** 31)      # a condition the rule does not give
# -- trace row sizes (the columns are in ``state``) ------------------------------
TR_FIXED_N = 27         # = state.TR_FIXED_N (checked there)
MAX_VALE_BUYS = 2

N_CARDS = 20             # sleeves per player
N_COMMONS = 9            # face-up commons slots (3 per level)
N_VALE_SLOTS = 8         # face-up vale slots (4 per level)
MAX_PLAYERS = 4
MAX_KINDS = 128          # advancement kinds of a card set
MAX_VALE_KINDS = 64      # vale kinds of a card set
MAX_OWNED_VALES = 128    # vale copies of a card set (a player owns at most all)

# -- rows of T ------------------------------------------------------------------
ADV = 0
VALE = ADV + MAX_KINDS
START = VALE + MAX_VALE_KINDS
LVL_CARDS = START + N_CARDS          # 3 rows
VALE_CARDS = LVL_CARDS + 3           # 2 rows
FERTILE = VALE_CARDS + 2
FERTILE_KINDS = FERTILE + 1
OPTS = FERTILE_KINDS + 1
T_ROWS = OPTS + 1
# -- rows of Q ------------------------------------------------------------------
MAX_STAGES = 4                       # = vale_sim.value.MAX_STAGES (checked below)
ADV_KEY = MAX_PLAYERS                # + MAX_PLAYERS * stage + p
VALE_SCORE = ADV_KEY + MAX_PLAYERS * MAX_STAGES     # + MAX_PLAYERS * stage + p
MIN_KEY = VALE_SCORE + MAX_PLAYERS * MAX_STAGES     # Q[MIN_KEY + p, stage]
NEVER_ADV = MIN_KEY + MAX_PLAYERS
NEVER_VALE = NEVER_ADV + MAX_PLAYERS
ADV_BUY_COST = NEVER_VALE + MAX_PLAYERS
ADV_SCORE = ADV_BUY_COST + MAX_PLAYERS              # + MAX_PLAYERS * stage + p
VP_WEIGHT = ADV_SCORE + MAX_PLAYERS * MAX_STAGES    # Q[VP_WEIGHT + p, stage]
RULES = VP_WEIGHT + MAX_PLAYERS      # first rule row
NEVER_COST = 1 << 40                 # ADV_BUY_COST of a kind the policy never buys
KEY_MUL = 256                        # > the candidates of a Harvest (N_COMMONS + MAX_KINDS):
                                     # a candidate's key is ADV_KEY + KEY_MUL - 1 - its index


def card_tables(cs: CardSet, players: int, rules: Rules | None = None) -> np.ndarray:
    """The card set and rule options as one int64 array T (see module docstring)."""
    rules = rules or Rules()
    if not 1 <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be 1..{MAX_PLAYERS}, got {players}")
    na, nv = len(cs.advancements), len(cs.vales)
    n_owned = sum(v.copies for v in cs.vales)
    if na > MAX_KINDS or nv > MAX_VALE_KINDS or n_owned > MAX_OWNED_VALES:
        raise ValueError(f"card set {cs.name!r}: the fast engine takes at most {MAX_KINDS} "
                         f"advancement kinds, {MAX_VALE_KINDS} vale kinds and "
                         f"{MAX_OWNED_VALES} vale copies")
    lvl = [[i for i in cs.commons(L) for _ in range(cs.advancements[i].copies)] for L in (1, 2, 3)]
    vl = [[i for i in cs.vales_of_level(L) for _ in range(cs.vales[i].copies)] for L in (1, 2)]
    width = max(A_N, V_N, MAX_KINDS, O_N, max(len(x) for x in lvl), max(len(x) for x in vl))
    T = np.full((T_ROWS, width), -1, dtype=np.int64)
    T[ADV:VALE, :A_N] = 0
    T[VALE:START, :V_N] = 0
    for i, a in enumerate(cs.advancements):
        row = T[ADV + i]
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
    for i, v in enumerate(cs.vales):
        row = T[VALE + i]
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
    T[START:START + N_CARDS, :3] = np.array(deck, dtype=np.int64).reshape(N_CARDS, 3)
    for L, x in enumerate(lvl):
        T[LVL_CARDS + L, :len(x)] = x
    for L, x in enumerate(vl):
        T[VALE_CARDS + L, :len(x)] = x
    T[FERTILE] = 0
    for j, i in enumerate(cs.fertile()):
        T[FERTILE, i] = cs.advancements[i].copies
        T[FERTILE_KINDS, j] = i

    opts = T[OPTS]
    opts[:] = 0
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
    opts[O_N_ADV], opts[O_N_VALE] = na, nv
    for L in range(3):
        opts[O_LVL_LEN + L] = len(lvl[L])
    for L in range(2):
        opts[O_VALE_LEN + L] = len(vl[L])
    opts[O_TRACE_W] = TR_FIXED_N + 3 * opts[O_MAX_BUYS] + MAX_VALE_BUYS
    opts[O_N_FERTILE] = len(cs.fertile())
    # Fewer spirits than this pay no vale, even with one turned wild (§6.3).
    opts[O_MIN_VALE_COST] = min((sum(v.cost) for v in cs.vales), default=1 << 40)
    T.setflags(write=False)
    return T


def _resolve_card(cs: CardSet, name: str, policy: Policy, what: str = "buy rule names"):
    names_a = [a.name for a in cs.advancements]
    names_v = [v.name for v in cs.vales]
    if name in names_a:
        return T_CARD_ADV, names_a.index(name)
    if name in names_v:
        return T_CARD_VALE, names_v.index(name)
    raise PolicyError(f"policy {policy.name!r}: {what} unknown card {name!r} "
                      f"(not an advancement or vale of card set {cs.name!r})")


def stage_scores(cs: CardSet, pol: Policy) -> tuple[list, list]:
    """([stage][kind] advancement scores, [stage][vale] vale scores) of a policy: one
    stage for a scripted policy (engine-spec §6.3, §6.4), a value player's per stage
    (§6.7).  The reference engine scores with the same numbers."""
    from ..value import policy_values
    vals = policy_values(cs, pol)
    if vals is not None:
        return [list(map(int, r)) for r in vals[0]], [list(map(int, r)) for r in vals[1]]
    adv = [pol.w_mana * a.mana + pol.w_spirit * a.spirits
           + pol.w_harvest_vp * a.harvest_vp + pol.w_end_vp * a.end_vp
           + pol.w_growth * a.growth - pol.w_decay * a.decay
           + pol.w_guardian * a.guardian
           + pol.w_ability * int(a.ability != "none") - pol.w_cost * a.cost
           for a in cs.advancements]
    vale = [pol.w_vale_vp * v.end_vp + pol.w_vale_ability * int(v.ability != "none")
            for v in cs.vales]
    return [adv], [vale]


#: The rows of Q that depend on the card set and one policy only, for the last few
#: (card set, policy) pairs: a study plays many short runs of the same few policies.
#: The card set is held, so its id is not reused while it is here.
_PLAYER_ROWS: dict = {}
_PLAYER_ROWS_KEPT = 64


def _player_rows(cs: CardSet, pol) -> tuple:
    """(advancement keys per stage, advancement scores per stage, the min-score key per
    stage, vale scores per stage, never-advancement flags, never-vale flags, buy costs)
    of ``pol`` in ``cs``: what :func:`policy_tables` writes in its player's rows
    (engine-spec §6.3, §6.4, §6.7)."""
    try:
        key = (id(cs), pol)
        hit = _PLAYER_ROWS.get(key)
    except TypeError:                  # an unhashable policy: computed every time
        key, hit = None, None
    if hit is not None and hit[0] is cs:
        return hit[1]
    adv_scores, vale_scores = stage_scores(cs, pol)
    keys, raw, mins = [], [], []
    for scores in adv_scores:
        distinct = sorted(set(scores))
        keys.append(np.array([KEY_MUL * bisect.bisect_left(distinct, sc) for sc in scores],
                             dtype=np.int64))
        raw.append(np.array(scores, dtype=np.int64))
        mins.append(KEY_MUL * bisect.bisect_left(distinct, pol.min_score))
    vales = [np.array(scores, dtype=np.int64) for scores in vale_scores]
    never_adv = np.zeros(len(cs.advancements), np.int64)
    never_vale = np.zeros(len(cs.vales), np.int64)
    for name in pol.never:
        tt, i = _resolve_card(cs, name, pol, "never names")
        (never_adv if tt == T_CARD_ADV else never_vale)[i] = 1
    buy_cost = np.array([NEVER_COST if never_adv[i] else a.cost
                         for i, a in enumerate(cs.advancements)], dtype=np.int64)
    out = (keys, raw, mins, vales, never_adv, never_vale, buy_cost)
    if key is not None:
        if len(_PLAYER_ROWS) >= _PLAYER_ROWS_KEPT:
            del _PLAYER_ROWS[next(iter(_PLAYER_ROWS))]
        _PLAYER_ROWS[key] = (cs, out)
    return out


def policy_tables(cs: CardSet, policies) -> np.ndarray:
    """Policies (one per player) as one int64 array Q; rule card names resolved to ids."""
    from ..value import vp_weight
    P = len(policies)
    if P > MAX_PLAYERS:
        raise ValueError(f"at most {MAX_PLAYERS} policies, got {P}")
    na, nv = max(1, len(cs.advancements)), max(1, len(cs.vales))
    n_rules = sum(len(p.rules) for p in policies)
    Q = np.zeros((RULES + n_rules, max(P_N, RC_N, na, nv, MAX_STAGES)), dtype=np.int64)
    row_at = RULES
    for p, pol in enumerate(policies):
        par = Q[p]
        par[P_PUSH_RISK] = pol.push_risk_permille
        par[P_MANA_TARGET] = pol.mana_target
        par[P_VALE_MIN_SCORE] = pol.vale_min_score
        par[P_AVOID_DECAY_STACK] = int(pol.avoid_decay_stack)
        par[P_TOKEN_NEEDED] = int(pol.token == "needed")
        par[P_USE_SUNSTONE] = int(pol.use_sunstone)
        par[P_EXPLORE] = pol.explore_permille
        par[P_N_RULES] = len(pol.rules)
        par[P_RULES] = row_at
        par[P_LOOKAHEAD] = int(pol.push_rule == "lookahead")
        par[P_CAUTION] = pol.lookahead_caution_permille
        par[P_W_MANA], par[P_W_SPIRIT], par[P_W_HVP] = pol.w_mana, pol.w_spirit, pol.w_harvest_vp
        par[P_DISCARD_PLAYS] = pol.discard_field_plays
        par[P_BEST_MIN] = int(pol.best_min_score)
        par[P_VALUE_PUSH] = int(pol.push_rule == "value")
        par[P_MIN_SCORE] = pol.min_score
        par[P_PUSH_BONUS] = pol.push_bonus
        par[P_CARRY_DECAY] = pol.carry_decay_cost
        keys, scores, mins, vales, never_adv, never_vale, buy_cost = _player_rows(cs, pol)
        par[P_STAGES] = len(keys)
        for st in range(len(keys)):
            Q[VP_WEIGHT + p, st] = vp_weight(pol, st)         # ..value.vp_weight
        for st, k in enumerate(keys):
            Q[ADV_KEY + MAX_PLAYERS * st + p, :len(k)] = k
            Q[ADV_SCORE + MAX_PLAYERS * st + p, :len(k)] = scores[st]
            Q[MIN_KEY + p, st] = mins[st]
        for st, v in enumerate(vales):
            Q[VALE_SCORE + MAX_PLAYERS * st + p, :len(v)] = v
        Q[NEVER_ADV + p, :len(never_adv)] = never_adv
        Q[NEVER_VALE + p, :len(never_vale)] = never_vale
        Q[ADV_BUY_COST + p, :len(buy_cost)] = buy_cost
        for rule in pol.rules:
            row = Q[row_at]
            row_at += 1
            row[:] = ABSENT
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
    Q.setflags(write=False)
    return Q


def _check_stages():
    from vale_sim.value import MAX_STAGES as M
    assert M == MAX_STAGES, "fast/tables.MAX_STAGES must equal vale_sim.value.MAX_STAGES"


_check_stages()
