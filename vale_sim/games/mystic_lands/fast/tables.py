"""Mystic Lands card sets, rule options and policies as int64 tables (built once a batch).

The kernels of ``engine`` only read these.  ``T`` (card set + rules) and ``Q``
(policies) are 2-D int64 arrays with rows at the constant offsets below; -1 =
none.  Everything is an index of the vocabularies of ``cards`` (timings, kinds,
resources, aspects, positions), so the kernels compare integers only::

    T[ADV + a, A_*]        Advance a (Druid Advances first, file order): level, cost,
                           position, icons, end VP, its effects at A_EFF + 9 e
                           (E_* fields, Effect.code() order), derived masks
    T[VALE + v, V_*]       Vale v: rows at V_ROW + 6 r (R_*), track squares at
                           V_TRK + 5 i (Q_*), effects at V_EFF + 9 e
    T[SPACE + s, SP_*]     map space s: kind, links, map rewards per row, small rows
    T[BASE + b, B_*]       starting card kind b;  T[UID, u] = kind of card uid u
    T[LIST + l, i]         l = 0..2: Advance deck lists of levels 0..2 (one entry a
                           copy), l = 3, 4: Vale deck lists of levels 1, 2
    T[GROWTH, i]           Rules.market_growth_vp
    T[OPTS, O_*]           sizes and rule options

    (the kernels read both as one array, Q's rows from row QB: ``game_tables``)
    Q[p, P_*]              player p's policy scalars; its rules at rows
                           Q[p, P_RULE0] .. + Q[p, P_NRULES] - 1 (RL_* columns)
    Q[ASCORE + 4 st + p, a]   spec 6.4 Advance score of a for p's policy at stage st (a
                           scripted policy: st = 0; a value player: Q[p, P_STAGES]
                           stages, spec 6.14)
    Q[VROW + 4 st + p, MAX_ROWS v + r], Q[SROW + 4 st + p, MAX_ROWS s + r]   a value
                           player's spot values at stage st: the Vale v part of its row r,
                           the space s part of its row r (map reward, a small space's
                           row); a spot's value is the sum (value.policy_values)
    Q[NEVER_A + p, a], Q[NEVER_V + p, v], Q[NEVER_SP + p, s]   the never list
    Q[BUYCOST + p, a]      a's cost, or NEVER_COST if p never buys it
"""
from __future__ import annotations

import numpy as np

from .. import cards as C
from ..policy import RULE_CONDITIONS, Policy
from ..reference.game import advance_score
from ..rules import Rules

MAX_PLAYERS = 4
MAX_ADV = C.LIMITS["kinds"]
MAX_VALE = C.LIMITS["vale_kinds"]
MAX_SPACE = C.LIMITS["spaces"]
MAX_CARDS = C.LIMITS["deck"]
MAX_ROWS = C.LIMITS["rows"]
MAX_TRACK = C.LIMITS["track"]
MAX_EFF = C.LIMITS["effects"]
EF = 9                                        # fields of an effect

# vocabulary codes
TM = {t: i for i, t in enumerate(C.TIMINGS)}
KD = {k: i for i, k in enumerate(C.KINDS)}
T_PLAYED, T_NIGHT, T_DAY, T_DAYREP, T_DUSK = (TM[x] for x in
                                               ("played", "night", "day", "day_repeatable", "dusk"))
T_ACQUIRE, T_IMMEDIATE, T_NOD, T_ACTIVATION = (TM[x] for x in
                                               ("acquire", "immediate", "night_or_day", "activation"))
K_GAIN, K_GPAL, K_GPAC, K_CONVERT = (KD[x] for x in
                                     ("gain", "gain_per_aspect_land", "gain_per_aspect_card",
                                      "convert"))
K_PLAY_ONDECK, K_TO_ONDECK, K_SWAP_ONDECK, K_REFRESH = (KD[x] for x in
                                                        ("play_ondeck", "to_ondeck",
                                                         "swap_ondeck", "refresh"))
K_ENCH_DISC, K_REPLACE, K_REMOVE, K_SLEEVE_MARKET = (KD[x] for x in
                                                     ("enchant_discount", "replace_sleeve",
                                                      "remove_card", "sleeve_market"))
K_VP_PER_SUN, K_WITHER_LIMIT = KD["vp_per_sun_all"], KD["wither_limit"]
SP_START, SP_I, SP_II, SP_SMALL = range(4)     # cards.SPACE_KINDS order
MANA, SPIRIT, VP, RAIN = range(4)              # cards.RESOURCES order

# effect fields (Effect.code() order)
E_TIMING, E_KIND, E_AMOUNT, E_RES, E_ASP, E_NEED, E_PAY, E_COST, E_PER = range(EF)
# Advance columns
(A_LEVEL, A_COST, A_POS, A_SUN, A_CLOUD, A_RAIN, A_MANA, A_SPIRIT, A_VP, A_BLUE, A_GREEN,
 A_RED, A_YELLOW, A_WILD, A_ENDVP, A_NEFF, A_TMASK, A_KMASK, A_WLIM, A_ASPMASK) = range(20)
A_EFF = 20
# Vale columns
V_LEVEL, V_COST, V_NROWS, V_NTRACK, V_NEFF, V_NONACT = range(6)
R_VP, R_MANA, R_SPIRIT, R_GVP, R_RAIN, R_ACT = range(6)         # row fields
RF = 6
Q_MANA, Q_SPIRIT, Q_VP, Q_RAIN, Q_EFFECT = range(5)            # track square fields
QF = 5
V_ROW = 6
V_TRK = V_ROW + RF * MAX_ROWS
V_EFF = V_TRK + QF * MAX_TRACK
V_FLAGS = V_EFF + EF * MAX_EFF                 # VF_* bits: what the Vale does when
VF_NIGHT_GAIN, VF_DAY_GAIN, VF_REFRESH, VF_CONVERT, VF_NOD = 1, 2, 4, 8, 16
# Space columns
SP_KIND, SP_NLINKS, SP_COST, SP_NROWS = range(4)
SP_LINK = 4
SP_RW = SP_LINK + MAX_SPACE                    # map reward of row r: SP_RW + 4 r + resource
SP_ROW = SP_RW + 4 * MAX_ROWS                  # small space rows: SP_ROW + 6 r + R_*
SP_ADJ = SP_ROW + RF * MAX_ROWS                # bit j: linked to space j
# Basic card columns
B_SUN, B_RAIN, B_MANA, B_SPIRIT, B_VP, B_ASPMASK, B_SUNHALF, B_RAINHALF, B_DRUID = range(9)

# T rows
ADV = 0
VALE = ADV + MAX_ADV
SPACE = VALE + MAX_VALE
BASE = SPACE + MAX_SPACE
UID = BASE + MAX_CARDS
LIST = UID + 1                                  # 5 rows
GROWTH = LIST + 5
OPTS = GROWTH + 1
T_ROWS = OPTS + 1
(O_PLAYERS, O_NADV, O_NVALE, O_NSPACE, O_MAPSTART, O_NCARDS, O_DRUID_BASE, O_WITHER,
 O_RAIN_SUPPLY, O_MAX_BUYS, O_MAX_ENCH, O_ML1, O_ML2, O_NGROWTH, O_END_VP, O_END_CUBES,
 O_END_BONUS, O_HELD_END, O_MAX_ROUNDS, O_CUBES, O_DRUID_DEAL, O_LEN, O_SEAT_MANA,
 O_SEAT_SPIRIT, O_HELD_CAP, O_ONGOING_ALL, O_EFFECT_ENCH,
 O_N) = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
         17, 18, 19, 20, 21, 26, 30, 34, 35, 36, 37)

# Q: policy scalars
(P_PERMILLE, P_RAIN_NEEDED, P_WCHOICE, P_WMANA, P_WSPIRIT, P_WVP, P_MINSCORE, P_WVVP,
 P_WVREW, P_WVEFF, P_WVCOST, P_VMIN, P_CONVERT, P_CONVMANA, P_REMOVE, P_RULE0,
 P_NRULES, P_DRYAD_MIN, P_PARROT_MIN, P_STAGES, P_EXPLORE) = range(21)
# P_STAGES: a value player's stages (spec 6.14), else 0; P_EXPLORE: explore_permille
CONV_BOUGHT, CONV_ALWAYS, CONV_NEVER = range(3)     # policy.CONVERT_MODES order
# rule rows
RL_TARGET, RL_ADV, RL_VALE, RL_LEVEL = range(4)
RL_COND = 4                                     # RULE_CONDITIONS order, ABSENT if not given
RL_SMALL = RL_COND + len(RULE_CONDITIONS)       # + s: 1 if small space s has the rule's name
RULE_CARD, RULE_LEVEL, RULE_VALE = range(3)
ABSENT = -(1 << 62)
MAX_STAGES = 4                       # = vale_sim.value.MAX_STAGES (checked below)
ASCORE = MAX_PLAYERS                 # + MAX_PLAYERS * stage + p
VROW = ASCORE + MAX_PLAYERS * MAX_STAGES
SROW = VROW + MAX_PLAYERS * MAX_STAGES
NEVER_A = SROW + MAX_PLAYERS * MAX_STAGES
NEVER_V = NEVER_A + MAX_PLAYERS
NEVER_SP = NEVER_V + MAX_PLAYERS
BUYCOST = NEVER_SP + MAX_PLAYERS
NEVER_COST = 1 << 40
Q_RULES = BUYCOST + MAX_PLAYERS
Q_WIDTH = max(MAX_ADV, RL_SMALL + MAX_SPACE, P_EXPLORE + 1)
#: the kernels get ONE table: T's rows, then Q's from row QB (a call passes each array
#: as nine machine words: fewer arrays, cheaper calls)
QB = T_ROWS


class UnsupportedError(ValueError):
    """The fast engine cannot replay this card set or rule set exactly (one line)."""


def _mask(icons) -> int:
    m = 0
    for i, asp in enumerate(C.ASPECTS):
        if icons.aspect(asp) > 0:
            m |= 1 << i
    if icons.wild > 0:
        m |= 16
    return m


def check_supported(cs: C.CardSet) -> None:
    """Refuse (one line) what the reference engine itself cannot play to an end."""
    where = cs.path or cs.name
    for a in cs.advances:
        for e in a.effects:
            if e.kind == "sleeve_market" and e.need not in (1, 2):
                raise UnsupportedError(f"{where}: advance {a.name!r}: sleeve_market need "
                                       f"{e.need} is not a Market level (use 1 or 2)")
            if e.kind == "convert" and e.cost == 0 and e.timing == "day_repeatable":
                raise UnsupportedError(f"{where}: advance {a.name!r}: a repeatable convert "
                                       "with cost 0 never ends (give it cost >= 1)")
    for v in cs.vales:
        for e in v.effects:
            if e.kind == "sleeve_market" and e.need not in (1, 2):
                raise UnsupportedError(f"{where}: vale {v.name!r}: sleeve_market need "
                                       f"{e.need} is not a Market level (use 1 or 2)")


def held_cap(rules: Rules) -> int:
    """Advances a player can hold at most: every buy of the game unsleeved."""
    return rules.max_buys * rules.max_rounds + 1


def card_tables(cs: C.CardSet, players: int, rules: Rules) -> np.ndarray:
    check_supported(cs)
    lists = [cs.deck_list(0), cs.deck_list(1), cs.deck_list(2),
             cs.vale_deck_list(1), cs.vale_deck_list(2)]
    width = max(V_FLAGS + 1, SP_ADJ + 1, O_N, MAX_CARDS,
                max(len(x) for x in lists), len(rules.market_growth_vp), 1)
    T = np.full((T_ROWS, width), -1, np.int64)
    for a, adv in enumerate(cs.advances):
        ic = adv.icons
        row = T[ADV + a]
        row[:A_EFF] = 0
        row[A_LEVEL], row[A_COST], row[A_POS] = adv.level, adv.cost, adv.position
        row[A_SUN], row[A_CLOUD], row[A_RAIN] = ic.sun, ic.cloud, ic.rain
        row[A_MANA], row[A_SPIRIT], row[A_VP] = ic.mana, ic.spirit, ic.vp
        row[A_BLUE], row[A_GREEN], row[A_RED], row[A_YELLOW] = ic.blue, ic.green, ic.red, ic.yellow
        row[A_WILD], row[A_ENDVP], row[A_NEFF] = ic.wild, adv.end_vp, len(adv.effects)
        row[A_ASPMASK] = _mask(ic)
        for e_i, e in enumerate(adv.effects):
            code = e.code()
            row[A_EFF + EF * e_i:A_EFF + EF * (e_i + 1)] = code
            row[A_TMASK] |= 1 << code[0]
            row[A_KMASK] |= 1 << code[1]
            if e.kind == "wither_limit":
                row[A_WLIM] += e.amount
    for v, vale in enumerate(cs.vales):
        row = T[VALE + v]
        row[:V_FLAGS + 1] = 0
        row[V_LEVEL], row[V_COST], row[V_NROWS] = vale.level, vale.cost, len(vale.rows)
        row[V_NTRACK], row[V_NEFF] = len(vale.track), len(vale.effects)
        row[V_NONACT] = int(any(e.timing != "activation" for e in vale.effects))
        for r, rw in enumerate(vale.rows):
            row[V_ROW + RF * r:V_ROW + RF * (r + 1)] = (rw.vp, rw.mana, rw.spirit, rw.gain_vp,
                                                        rw.rain, int(rw.activation))
        for i, sq in enumerate(vale.track):
            row[V_TRK + QF * i:V_TRK + QF * (i + 1)] = (sq.mana, sq.spirit, sq.vp, sq.rain,
                                                        int(sq.effect))
        for e_i, e in enumerate(vale.effects):
            row[V_EFF + EF * e_i:V_EFF + EF * (e_i + 1)] = e.code()
            day_nod = e.timing in ("day", "night_or_day")
            row[V_FLAGS] |= ((VF_NIGHT_GAIN if e.kind == "gain" and e.timing in
                              ("night", "night_or_day") else 0)
                             | (VF_DAY_GAIN if e.kind == "gain" and day_nod else 0)
                             | (VF_REFRESH if e.kind == "refresh" and day_nod else 0)
                             | (VF_CONVERT if e.kind == "convert" and day_nod else 0)
                             | (VF_NOD if e.timing == "night_or_day" else 0))
    for s, sp in enumerate(cs.map.spaces):
        row = T[SPACE + s]
        row[:SP_ADJ + 1] = 0
        row[SP_ADJ] = sum(1 << j for j in sp.links)
        row[SP_KIND] = C.SPACE_KINDS.index(sp.kind)
        row[SP_NLINKS] = len(sp.links)
        row[SP_LINK:SP_LINK + len(sp.links)] = sp.links
        row[SP_COST], row[SP_NROWS] = sp.cost, len(sp.rows)
        for r in range(MAX_ROWS):
            row[SP_RW + 4 * r:SP_RW + 4 * r + 4] = sp.reward(r)
        for r, rw in enumerate(sp.rows):
            row[SP_ROW + RF * r:SP_ROW + RF * (r + 1)] = (rw.vp, rw.mana, rw.spirit, rw.gain_vp,
                                                          rw.rain, int(rw.activation))
    druid_base = -1
    for b, st in enumerate(cs.starting):
        ic = st.icons
        T[BASE + b, :B_DRUID + 1] = (ic.sun, ic.rain, ic.mana, ic.spirit, ic.vp, _mask(ic),
                                     st.sun_half, st.rain_half, int(st.druid))
        if st.druid:
            druid_base = b
    deck = cs.starting_deck()
    T[UID, :len(deck)] = deck
    for l, lst in enumerate(lists):
        T[LIST + l, :len(lst)] = lst
    T[GROWTH, :len(rules.market_growth_vp)] = rules.market_growth_vp
    o = T[OPTS]
    o[O_PLAYERS], o[O_NADV], o[O_NVALE] = players, len(cs.advances), len(cs.vales)
    o[O_NSPACE], o[O_MAPSTART], o[O_NCARDS] = len(cs.map.spaces), cs.map.start, len(deck)
    o[O_DRUID_BASE], o[O_WITHER], o[O_RAIN_SUPPLY] = druid_base, rules.wither_suns, rules.rain_supply
    o[O_MAX_BUYS], o[O_MAX_ENCH] = rules.max_buys, rules.max_enchants
    o[O_ML1], o[O_ML2], o[O_NGROWTH] = rules.market_l1, rules.market_l2, len(rules.market_growth_vp)
    o[O_END_VP], o[O_END_CUBES], o[O_END_BONUS] = rules.end_vp, rules.end_cubes, rules.end_bonus
    o[O_HELD_END], o[O_MAX_ROUNDS], o[O_CUBES] = int(rules.held_end_vp), rules.max_rounds, rules.cubes
    o[O_DRUID_DEAL] = rules.druid_deal
    o[O_LEN:O_LEN + 5] = [len(x) for x in lists]
    o[O_SEAT_MANA:O_SEAT_MANA + 4] = rules.seat_mana[:4]
    o[O_SEAT_SPIRIT:O_SEAT_SPIRIT + 4] = rules.seat_spirit[:4]
    o[O_HELD_CAP] = held_cap(rules)
    o[O_ONGOING_ALL], o[O_EFFECT_ENCH] = int(rules.ongoing_everywhere), int(rules.effect_enchants_count)
    return T


def policy_tables(cs: C.CardSet, pols: list[Policy]) -> np.ndarray:
    from ..value import policy_values
    n_rules = sum(len(p.rules) for p in pols)
    Q = np.zeros((Q_RULES + n_rules, max(Q_WIDTH, MAX_ROWS * len(cs.vales),
                                         MAX_ROWS * len(cs.map.spaces))), np.int64)
    adv_id = {a.name: i for i, a in enumerate(cs.advances)}
    vale_id = {v.name: i for i, v in enumerate(cs.vales)}
    row0 = Q_RULES
    for p, pol in enumerate(pols):
        q = Q[p]
        q[P_PERMILLE] = pol.rest_risk_permille
        q[P_RAIN_NEEDED] = int(pol.rain == "needed")
        q[P_WCHOICE] = -1 if pol.wither_choice == "best" else C.RESOURCES.index(pol.wither_choice)
        q[P_WMANA], q[P_WSPIRIT], q[P_WVP] = pol.w_mana, pol.w_spirit, pol.w_vp
        q[P_MINSCORE] = pol.min_score
        q[P_WVVP], q[P_WVREW], q[P_WVEFF] = pol.w_vale_vp, pol.w_vale_reward, pol.w_vale_effect
        q[P_WVCOST], q[P_VMIN] = pol.w_vale_cost, pol.vale_min_score
        q[P_CONVERT] = ("bought", "always", "never").index(pol.convert)
        q[P_CONVMANA], q[P_REMOVE] = pol.convert_mana, pol.remove_below
        q[P_RULE0], q[P_NRULES] = row0, len(pol.rules)
        q[P_DRYAD_MIN], q[P_PARROT_MIN] = pol.dryad_min_value, pol.parrot_min_value
        q[P_EXPLORE] = pol.explore_permille
        vals = policy_values(cs, pol)
        if vals is None:
            for a in range(len(cs.advances)):
                Q[ASCORE + p, a] = advance_score(cs, pol, a)
        else:                                   # spec 6.14: a value player's values
            q[P_STAGES] = pol.value_stages
            q[P_WVCOST] = 0                     # the value is the whole spot score
            va, vv, vs = vals
            for st in range(pol.value_stages):
                Q[ASCORE + MAX_PLAYERS * st + p, :va.shape[1]] = va[st]
                for v in range(len(cs.vales)):
                    for r in range(MAX_ROWS):
                        Q[VROW + MAX_PLAYERS * st + p, MAX_ROWS * v + r] = vv[st, v, r]
                for s_ in range(len(cs.map.spaces)):
                    for r in range(MAX_ROWS):
                        Q[SROW + MAX_PLAYERS * st + p, MAX_ROWS * s_ + r] = vs[st, s_, r]
        for a, adv in enumerate(cs.advances):
            Q[NEVER_A + p, a] = int(adv.name in pol.never)
            Q[BUYCOST + p, a] = NEVER_COST if adv.name in pol.never else adv.cost
        for v, vale in enumerate(cs.vales):
            Q[NEVER_V + p, v] = int(vale.name in pol.never)
        for s, sp in enumerate(cs.map.spaces):
            Q[NEVER_SP + p, s] = int(sp.kind == "small" and sp.name in pol.never)
        for rule in pol.rules:
            r = Q[row0]
            r[RL_TARGET] = {"card": RULE_CARD, "level": RULE_LEVEL}.get(rule.target, RULE_VALE)
            r[RL_ADV] = adv_id.get(rule.value, -1) if rule.target == "card" else -1
            r[RL_VALE] = vale_id.get(rule.value, -1) if rule.target == "card" else -1
            r[RL_LEVEL] = int(rule.value) if rule.target == "level" else -1
            for c_i, c in enumerate(RULE_CONDITIONS):
                v = getattr(rule, c)
                r[RL_COND + c_i] = ABSENT if v is None else v
            for s, sp in enumerate(cs.map.spaces):
                r[RL_SMALL + s] = int(rule.target == "card" and sp.kind == "small"
                                      and sp.name == rule.value)
            row0 += 1
    return Q


def game_tables(cs: C.CardSet, players: int, rules: Rules, pols: list[Policy]) -> np.ndarray:
    """T and Q as one array: Q[x, y] is row QB + x of it."""
    T = card_tables(cs, players, rules)
    Q = policy_tables(cs, pols)
    out = np.full((T.shape[0] + Q.shape[0], max(T.shape[1], Q.shape[1])), -1, np.int64)
    out[:T.shape[0], :T.shape[1]] = T
    out[QB:, :Q.shape[1]] = Q
    return out


def _check_stages():
    from vale_sim.value import MAX_STAGES as M
    assert M == MAX_STAGES, "fast/tables.MAX_STAGES must equal vale_sim.value.MAX_STAGES"


_check_stages()
