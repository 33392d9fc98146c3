"""Compiled transitions of the exact spoil-odds calculator (:mod:`vale_sim.games.mystic_vale.spoil`).

A port of :class:`vale_sim.games.mystic_vale.spoil.SpoilModel`'s transitions — play and When
Played, reveal with reshuffle, spoil check (Druid, Conclave, Arbor), Prep —
over states held as rows of an int8 array.
The Python model is the readable specification; ``tests/test_spoil_fast.py``
checks that both visit the same states and give the same numbers.

A state row (T card types; offsets from ``O = 3T``)::

    [0, T)      deck counts per type         [T, 2T)  discard counts
    [2T, 3T)    field counts                 O+OD     on-deck type (-1 none)
    O+DRU       Druid used                   O+CON    Conclave used
    O+ARU       Arbors used                  O+ARG    Arbor growth gained
    O+TT, O+TI  Conclave's guardian: type (-1 none), 1 if on a field card
    O+FN        the field's net decay        O+TOP    known top card (-1; only
                                                       between play and reveal)

then zeros up to the row's width W, a multiple of 8 (rows are hashed and
compared 8 bytes at a time).  No field order is kept (SpoilModel.canon).

Stores never grow inside a kernel (they are compiled without numba's runtime,
see ``jit.py``): when one is full (or a hash table half full), ``push`` undoes
what it added, sets ``cnt[OVF]`` and returns; the caller grows the store and
calls again, and ``start_fresh`` and ``advance`` go on from where they stopped.
"""
from __future__ import annotations

import numpy as np

from vale_sim.kernels.jit import kernel

# row offsets after the three count vectors, and how many there are
OD, DRU, CON, ARU, ARG, TT, TI, FN, TOP = range(9)
ROW = 9
# counters in ``cnt``: states, just-played states, edges stored (the reveals' and
# the pushes' with several ways to play), overflow, Prep states
N_ST, N_R, N_RE, OVF, N_PREP = range(5)
# what ``cnt[OVF]`` says is full: 1 + N_ST states, 1 + N_R just-played states, the
# edge store, (half full) the hash table of the states or of the just-played states,
# or the scratch list of one push's merged outcomes
OVF_EDGES, OVF_ST_TABLE, OVF_R_TABLE, OVF_PUSH_OUT = 5, 6, 7, 8
# parameters in ``par``
P_T, P_W, P_GG, P_CONC, P_NARB, P_GROSS, P_PEN = range(7)
# type tables: rows of ``ty`` (TY_WP..TY_WP+2: the When Played kinds, 0 none)
TY_NET, TY_DEC, TY_DRUID, TY_GPG, TY_BONUS, TY_WP = range(6)
WP_DISCARD, WP_PEEK, WP_SEARCH = 1, 2, 3
SPOIL_AT = 4
PREP_UNTIL = 3
MAX_SHOW = 128
# layer_stats' histogram: index showing + HIST_OFF (rows hold int8, so |showing| < 512)
HIST_OFF = 512


@kernel(inline=True)
def _hash(row, W):
    """64-bit hash of a row (W a multiple of 8): each 8-byte word mixed once."""
    w = row.view(np.uint64)
    h = np.uint64(1469598103934665603)
    for i in range(W >> 3):
        h = (h ^ w[i]) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    return h


@kernel(inline=True)
def _copy(src, dst, W):
    """dst[:W] = src[:W], W a multiple of 8."""
    a = src.view(np.uint64)
    b = dst.view(np.uint64)
    for j in range(W >> 3):
        b[j] = a[j]


@kernel(inline=True)
def _slot(h, s):
    """The table slot of entry s with hash h: hash bits 32-63, then s + 1 (never 0;
    s < 2**32 - 1, far beyond any store memory allows)."""
    return ((h >> np.uint64(32)) << np.uint64(32)) | np.uint64(s + 1)


@kernel(inline=True)
def _find(rows, ht, row, W, h):
    """Id of ``row`` in the table, or -(slot + 1) of the free slot where it goes.

    A slot (uint64, see ``_slot``) holds the high 32 bits of the hash and id + 1,
    0 free (a table is np.zeros: pages are touched only when used): a probe reads
    the table only, the row store only when the hash bits agree."""
    mask = ht.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    tag = h >> np.uint64(32)
    while True:
        v = ht[i]
        if v == 0:
            return -1 - i
        if (v >> np.uint64(32)) == tag:
            s = np.int64(v & np.uint64(0xFFFFFFFF)) - 1
            a = rows[s].view(np.uint64)
            b = row.view(np.uint64)
            same = True
            for j in range(W >> 3):
                if a[j] != b[j]:
                    same = False
                    break
            if same:
                return s
        i = (i + 1) & mask


@kernel(inline=True)
def _intern(rows, hv, ht, cnt, ci, row, W):
    """Id of ``row``, adding it if new; -1 (and cnt[OVF] set) if the store is full
    or its table would be more than half full."""
    h = _hash(row, W)
    r = _find(rows, ht, row, W, h)
    if r >= 0:
        return r
    n = cnt[ci]
    if n >= rows.shape[0]:
        cnt[OVF] = 1 + ci
        return -1
    if 2 * (n + 1) > ht.shape[0]:
        cnt[OVF] = OVF_ST_TABLE if ci == N_ST else OVF_R_TABLE
        return -1
    _copy(row, rows[n], W)
    hv[n] = h
    ht[-1 - r] = _slot(h, n)
    cnt[ci] = n + 1
    return n


@kernel
def _unintern(hv, ht, cnt, ci, n0):
    """Remove the entries added since the count was n0 (newest first: with linear
    probing, emptying the newest entry's slot leaves every older probe path whole)."""
    mask = ht.shape[0] - 1
    for s in range(cnt[ci] - 1, n0 - 1, -1):
        i = np.int64(hv[s] & np.uint64(mask))
        while ht[i] != _slot(hv[s], s):
            i = (i + 1) & mask
        ht[i] = 0
    cnt[ci] = n0


@kernel
def rehash(hv, n, ht):
    """Fill an empty (larger) table with entries 0..n-1."""
    mask = ht.shape[0] - 1
    for s in range(n):
        i = np.int64(hv[s] & np.uint64(mask))
        while ht[i] != 0:
            i = (i + 1) & mask
        ht[i] = _slot(hv[s], s)


@kernel(inline=True)
def showing(row, par, ty):
    """Decay showing (engine-spec §1), as SpoilModel.showing."""
    O = 3 * par[P_T]
    v = np.int64(row[O + FN]) - par[P_GG] - np.int64(row[O + ARG])
    od = row[O + OD]
    if od >= 0:
        v += ty[TY_NET, od]
    tt = row[O + TT]
    if tt >= 0:
        v -= ty[TY_BONUS, tt]
    return v


@kernel
def gross(row, par, ty):
    T = par[P_T]
    v = 0
    for t in range(T):
        v += np.int64(row[2 * T + t]) * ty[TY_DEC, t]
    od = row[3 * T + OD]
    if od >= 0:
        v += ty[TY_DEC, od]
    return v


@kernel(inline=True)
def _reshuffle_if_empty(row, T):
    nd = 0
    nx = 0
    for t in range(T):
        nd += row[t]
        nx += row[T + t]
    if nd == 0 and nx > 0:
        for t in range(T):
            row[t] = row[T + t]
            row[T + t] = 0
        row[3 * T + TOP] = -1


@kernel(inline=True)
def _deck_size(row, T):
    n = 0
    for t in range(T):
        n += row[t]
    return n


@kernel(inline=True)
def _reveal_weight(row, t, n, O):
    """Probability that a reveal from ``row`` (deck of n cards) shows type t: the known
    top card (Calm Weather left it) for sure, else count(t) / n."""
    top = row[O + TOP]
    if top >= 0:
        return 1.0 if t == top else 0.0
    return row[t] / n


@kernel(inline=True)
def _draw(src, dst, t, n, W, O):
    """The probability that a reveal from ``src`` (deck of n cards) shows type t
    (``_reveal_weight``); if not 0, dst = src with that card taken from the deck
    as the on-deck card."""
    q = _reveal_weight(src, t, n, O)
    if q == 0.0:
        return q
    _copy(src, dst, W)
    dst[t] -= 1
    dst[O + OD] = t
    dst[O + TOP] = -1
    return q


# -- When Played (§4.2, §7); SpoilModel._when_played_* --------------------------
@kernel(inline=True)
def _candidate(src, t, g, guard, pt, pg, T, ty):
    """(count, net decay) of the field cards of type t that hold Conclave's guardian
    (g = 1) or not (g = 0) and that a Deadwood/Owl may discard: net decay > 0 and
    not the card just played (type pt, pg = 1 if it holds the guardian)."""
    n = np.int64(src[2 * T + t])
    nt = ty[TY_NET, t]
    if n == 0 or nt <= 0:
        return 0, 0
    if g == 0:
        return n - (1 if t == guard else 0) - (1 if (t == pt and pg == 0) else 0), nt
    if t != guard or (t == pt and pg == 1):
        return 0, 0
    return 1, nt - ty[TY_BONUS, t]


@kernel
def _discard_field(src, p, buf, bp, c, pt, pg, par, ty, W):
    """Deadwood/Owl (SpoilModel._when_played_discard_field): discard a field card
    with the most net decay (> 0), uniformly at random among ties, never the card
    just played.  Branches of ``src`` appended to buf from c; returns the new end."""
    T = par[P_T]
    O = 3 * T
    guard = np.int64(src[O + TT]) if src[O + TI] == 1 else -1
    m = 0                               # the most net decay, and how many cards have it
    ties = 0
    for t in range(T):
        for g in range(2):
            k, e = _candidate(src, t, g, guard, pt, pg, T, ty)
            if k > 0 and e > m:
                m = e
                ties = k
            elif k > 0 and e == m and m > 0:
                ties += k
    if m == 0:
        _copy(src, buf[c], W)
        bp[c] = p
        return c + 1
    for t in range(T):
        for g in range(2):
            k, e = _candidate(src, t, g, guard, pt, pg, T, ty)
            if k <= 0 or e != m:
                continue
            r = buf[c]
            _copy(src, r, W)
            r[2 * T + t] -= 1
            r[O + FN] -= ty[TY_NET, t]
            r[T + t] += 1
            if g == 1:                  # the guardian left with the card
                r[O + TT] = -1
                r[O + TI] = 0
            bp[c] = p * (k / ties)
            c += 1
    return c


@kernel
def _peek(src, p, buf, bp, c, par, ty, W):
    """Calm Weather: branches of ``src`` (consumed) appended to buf from c; new end."""
    T = par[P_T]
    O = 3 * T
    _reshuffle_if_empty(src, T)
    n = _deck_size(src, T)
    if n == 0:
        _copy(src, buf[c], W)
        bp[c] = p
        return c + 1
    for t in range(T):
        q = _reveal_weight(src, t, n, O)
        if q == 0.0:
            continue
        r = buf[c]
        _copy(src, r, W)
        if ty[TY_NET, t] > 0:
            r[t] -= 1
            r[T + t] += 1
            r[O + TOP] = -1
        else:
            r[O + TOP] = t
        bp[c] = p * q
        c += 1
    return c


@kernel
def _search(src, p, buf, bp, c, par, ty, W):
    """Cleansing Rain: discard the deck card with most net decay (> 0), then shuffle.
    Branches of ``src`` (consumed) appended to buf from c; returns the new end."""
    T = par[P_T]
    O = 3 * T
    _reshuffle_if_empty(src, T)
    m = 0
    for t in range(T):
        if src[t] > 0 and ty[TY_NET, t] > m:
            m = ty[TY_NET, t]
    if m == 0:
        _copy(src, buf[c], W)
        buf[c, O + TOP] = -1
        bp[c] = p
        return c + 1
    top = src[O + TOP]
    top_tied = top >= 0 and ty[TY_NET, top] == m
    tot = 0
    for t in range(T):
        if ty[TY_NET, t] == m:
            tot += src[t]
    for t in range(T):
        ct = src[t]
        if ty[TY_NET, t] != m or ct == 0:
            continue
        if top_tied:
            if t != top:
                continue
            q = 1.0
        else:
            q = ct / tot
        r = buf[c]
        _copy(src, r, W)
        r[t] -= 1
        r[T + t] += 1
        r[O + TOP] = -1
        bp[c] = p * q
        c += 1
    return c


@kernel
def _play(row, buf, bp, par, ty, W):
    """Move the on-deck card into the field and resolve its When Played into buf.

    Returns (first, end): the resulting states are buf[first:end], weights bp.
    """
    T = par[P_T]
    O = 3 * T
    r = buf[0]
    _copy(row, r, W)
    t = np.int64(r[O + OD])
    r[O + OD] = -1
    r[2 * T + t] += 1
    r[O + FN] += ty[TY_NET, t]
    has_temp = 1 if (r[O + TT] >= 0 and r[O + TI] == 0) else 0
    if has_temp:
        r[O + TT] = t
        r[O + TI] = 1
    bp[0] = 1.0
    a = 0
    b = 1
    for j in range(3):
        kind = ty[TY_WP + j, t]
        if kind == 0:
            continue
        c = b
        for i in range(a, b):
            if kind == WP_DISCARD:
                c = _discard_field(buf[i], bp[i], buf, bp, c, t, has_temp, par, ty, W)
            elif kind == WP_PEEK:
                c = _peek(buf[i], bp[i], buf, bp, c, par, ty, W)
            else:
                c = _search(buf[i], bp[i], buf, bp, c, par, ty, W)
        a = b
        b = c
    return a, b


# -- spoil check (§4.4) ------------------------------------------------------------
@kernel(inline=True)
def _saves(t, sh, ty):
    """Conclave's guardian on a card of type t would bring decay showing below 4."""
    return ty[TY_GPG, t] != 0 and sh - ty[TY_BONUS, t] < SPOIL_AT


@kernel(inline=True)
def _guardian_on(row, w, t, ti, q, par, ty, rows, hv, ht, cnt, o_p, o_sh, o_to, m):
    """One Conclave branch: ``row`` with the guardian on a card of type t (ti = 1 in
    the field, 0 on deck), built in ``w``, added to the outcomes with probability q."""
    O = 3 * par[P_T]
    W = par[P_W]
    _copy(row, w, W)
    w[O + CON] = 1
    w[O + TT] = t
    w[O + TI] = ti
    w[O + TOP] = -1
    to = _intern(rows, hv, ht, cnt, N_ST, w, W)
    if to < 0:
        return m
    return _record(q, showing(w, par, ty), to, o_p, o_sh, o_to, m)


@kernel
def _conclave(row, sh, p, par, ty, w, rows, hv, ht, cnt, o_p, o_sh, o_to, m):
    """SpoilModel._conclave: the guardian on a Grovetender card that saves, uniformly
    at random among them (field cards, the on-deck card), each branch added to the
    outcomes (row ``w`` is scratch).  Returns (saved, outcome count)."""
    T = par[P_T]
    O = 3 * T
    if par[P_CONC] == 0 or row[O + CON] != 0:
        return False, m
    od = np.int64(row[O + OD])
    n = 1 if (od >= 0 and _saves(od, sh, ty)) else 0
    for t in range(T):
        if _saves(t, sh, ty):
            n += np.int64(row[2 * T + t])
    if n == 0:
        return False, m
    for t in range(T):
        k = np.int64(row[2 * T + t])
        if k > 0 and _saves(t, sh, ty):
            m = _guardian_on(row, w, t, 1, p * (k / n), par, ty, rows, hv, ht, cnt,
                             o_p, o_sh, o_to, m)
            if cnt[OVF]:
                return True, m
    if od >= 0 and _saves(od, sh, ty):
        m = _guardian_on(row, w, od, 0, p / n, par, ty, rows, hv, ht, cnt, o_p, o_sh, o_to, m)
    return True, m


@kernel
def _arbor(row, sh, par, arbors):
    O = 3 * par[P_T]
    used = np.int64(row[O + ARU])
    if used >= par[P_NARB]:
        return False
    a = arbors[used]
    if sh - a >= SPOIL_AT:
        return False
    row[O + ARU] = used + 1
    row[O + ARG] += a
    return True


@kernel(inline=True)
def _record(p, sh, to, o_p, o_sh, o_to, m):
    """Add an outcome, merging equal ones; returns the new count."""
    for i in range(m):
        if o_to[i] == to and o_sh[i] == sh:
            o_p[i] += p
            return m
    o_p[m] = p
    o_sh[m] = sh
    o_to[m] = to
    return m + 1


@kernel
def _finish(row, p, par, ty, arbors, cw, rows, hv, ht, cnt, o_p, o_sh, o_to, m):
    """After the (Druid's) reveal: saved by Conclave (``cw``: scratch row) or Arbor,
    spoiled, or a new state."""
    W = par[P_W]
    O = 3 * par[P_T]
    sh = showing(row, par, ty)
    if sh >= SPOIL_AT:
        saved, m = _conclave(row, sh, p, par, ty, cw, rows, hv, ht, cnt, o_p, o_sh, o_to, m)
        if saved:
            return m
        if not _arbor(row, sh, par, arbors):
            return _record(p, sh, -1, o_p, o_sh, o_to, m)
        sh = showing(row, par, ty)
    row[O + TOP] = -1
    to = _intern(rows, hv, ht, cnt, N_ST, row, W)
    return _record(p, sh, to, o_p, o_sh, o_to, m)


@kernel
def _spoil_check(row, p, wk, par, ty, arbors, rows, hv, ht, cnt, o_p, o_sh, o_to, m):
    """SpoilModel.spoil_check of ``row`` (modified), outcomes merged into o_*."""
    T = par[P_T]
    O = 3 * T
    W = par[P_W]
    sh = showing(row, par, ty)
    if sh < SPOIL_AT:
        return _finish(row, p, par, ty, arbors, wk[4], rows, hv, ht, cnt, o_p, o_sh, o_to, m)
    druid = False
    if row[O + DRU] == 0:
        for t in range(T):
            if row[2 * T + t] > 0 and ty[TY_DRUID, t]:
                druid = True
                break
    if not druid:
        return _finish(row, p, par, ty, arbors, wk[4], rows, hv, ht, cnt, o_p, o_sh, o_to, m)
    row[O + DRU] = 1
    od = np.int64(row[O + OD])
    if od >= 0:
        row[T + od] += 1
        row[O + OD] = -1
    _reshuffle_if_empty(row, T)
    n = _deck_size(row, T)
    if n == 0:
        row[O + OD] = -1
        return _finish(row, p, par, ty, arbors, wk[4], rows, hv, ht, cnt, o_p, o_sh, o_to, m)
    for t in range(T):
        w = wk[3]
        q = _draw(row, w, t, n, W, O)
        if q == 0.0:
            continue
        m = _finish(w, p * q, par, ty, arbors, wk[4], rows, hv, ht, cnt, o_p, o_sh, o_to, m)
        if cnt[OVF]:
            return m
    return m


@kernel
def _reveal_check(src, wk, par, ty, arbors, rows, hv, ht, cnt, o_p, o_sh, o_to):
    """Reveal (with reshuffle) and spoil check from a just-played state: outcome count."""
    T = par[P_T]
    O = 3 * T
    W = par[P_W]
    work = wk[1]
    _copy(src, work, W)
    _reshuffle_if_empty(work, T)
    n = _deck_size(work, T)
    m = 0
    if n == 0:
        work[O + OD] = -1
        return _spoil_check(work, 1.0, wk, par, ty, arbors, rows, hv, ht, cnt,
                            o_p, o_sh, o_to, m)
    for t in range(T):
        w = wk[2]
        q = _draw(work, w, t, n, W, O)
        if q == 0.0:
            continue
        m = _spoil_check(w, q, wk, par, ty, arbors, rows, hv, ht, cnt, o_p, o_sh, o_to, m)
        if cnt[OVF]:
            return m
    return m


@kernel(inline=True)
def _put(src_p, src_sh, src_to, i, dst_p, dst_sh, dst_to, j, n):
    """Copy n outcomes (probability, showing, next state) from src[i:] to dst[j:]."""
    for k in range(n):
        dst_p[j + k] = src_p[i + k]
        dst_sh[j + k] = src_sh[i + k]
        dst_to[j + k] = src_to[i + k]


@kernel
def push(sid, par, ty, arbors, st, rv, ed, buf, bp, wk, sc):
    """Planting push from state ``sid``: fills its edges (SpoilModel.push), memoised.

    st = (rows, hv, ht, cnt); rv = reveal memo (rrows, rhv, rht, r_start, r_len,
    re_p, re_sh, re_to: the edge store); ed = (e_start, e_len): the state's edges
    are re_*[e_start:e_start + e_len], the reveal's own when there is one way to
    play, else its merged outcomes appended to the store;
    sc = scratch outcome lists (ro_p, ro_sh, ro_to, po_p, po_sh, po_to).
    """
    rows, hv, ht, cnt = st
    rrows, rhv, rht, r_start, r_len, re_p, re_sh, re_to = rv
    e_start, e_len = ed
    ro_p, ro_sh, ro_to, po_p, po_sh, po_to = sc
    if e_len[sid] > 0:               # pushed (a push has at least one outcome)
        return
    W = par[P_W]
    n_st0 = cnt[N_ST]
    n_r0 = cnt[N_R]
    n_re0 = cnt[N_RE]
    a, b = _play(rows[sid], buf, bp, par, ty, W)
    m = 0
    rid = -1
    for i in range(a, b):
        pr = buf[i]
        n0 = cnt[N_R]
        rid = _intern(rrows, rhv, rht, cnt, N_R, pr, W)
        if rid < 0:
            break
        if cnt[N_R] > n0:                         # a new just-played state
            k = _reveal_check(pr, wk, par, ty, arbors, rows, hv, ht, cnt,
                              ro_p, ro_sh, ro_to)
            if cnt[OVF]:
                break
            e0 = cnt[N_RE]
            if e0 + k > re_p.shape[0]:
                cnt[OVF] = OVF_EDGES
                break
            _put(ro_p, ro_sh, ro_to, 0, re_p, re_sh, re_to, e0, k)
            r_start[rid] = e0
            r_len[rid] = k
            cnt[N_RE] = e0 + k
        if b - a > 1:
            for j in range(r_start[rid], r_start[rid] + r_len[rid]):
                if m == po_p.shape[0]:
                    cnt[OVF] = OVF_PUSH_OUT
                    break
                m = _record(bp[i] * re_p[j], re_sh[j], re_to[j], po_p, po_sh, po_to, m)
            if cnt[OVF]:
                break
    e0 = cnt[N_RE]
    if cnt[OVF] == 0 and b - a > 1 and e0 + m > re_p.shape[0]:
        cnt[OVF] = OVF_EDGES
    if cnt[OVF]:              # a store is full: undo this push, the caller grows it
        _unintern(hv, ht, cnt, N_ST, n_st0)
        _unintern(rhv, rht, cnt, N_R, n_r0)
        cnt[N_RE] = n_re0
        return
    if b - a == 1:                      # one way to play: the reveal's outcomes as they are
        e_start[sid] = r_start[rid]
        e_len[sid] = r_len[rid]
    else:
        _put(po_p, po_sh, po_to, 0, re_p, re_sh, re_to, e0, m)
        cnt[N_RE] = e0 + m
        e_start[sid] = e0
        e_len[sid] = m


# -- the starting distribution: Prep on a fresh deck (§3, §4.6) ---------------------
@kernel(inline=True)
def _drain(acc, mark, n, out_ids, out_p):
    """out_ids/out_p[:n] = the n states listed in mark and their sums in acc, which
    is left zero for the next use."""
    for i in range(n):
        out_ids[i] = mark[i]
        out_p[i] = acc[mark[i]]
        acc[mark[i]] = 0.0


@kernel(inline=True)
def _add(acc, mark, nm, sid, p):
    """acc[sid] += p, listing sid in mark the first time (a 0.0 from underflow is not
    added: it would be listed again and again)."""
    if p == 0.0:
        return nm
    if acc[sid] == 0.0:
        mark[nm] = sid
        nm += 1
    acc[sid] += p
    return nm


@kernel
def start_fresh(par, ty, arbors, st, rv, ed, buf, bp, wk, sc, lay, prep_sp, prep_flag, io):
    """Reveal the first card of a fresh deck (row wk[0]), then Prep until done.

    lay = (acc_done, mark_done, acc_f, mark_f, f_ids, f_p, out_ids, out_p): on
    return out_ids/out_p[:n] hold the states at the start of Planting; prep_sp
    [showing] the probability of spoiling during Prep.  Returns n (-1: a store is
    full; -2: Prep came back to a state, see vale_sim.games.mystic_vale.spoil.PrepLoop).

    Resumable: io = (first reveal done, frontier size, position in it, next
    frontier size, done states, Prep steps), zeros to start.  When a store is
    full it returns -1 with io set so that, the store grown (lay kept), a call
    goes on from there.
    """
    rows, hv, ht, cnt = st
    e_start, e_len = ed
    e_p, e_sh, e_to = rv[5], rv[6], rv[7]
    acc_d, mark_d, acc_f, mark_f, f_ids, f_p, out_ids, out_p = lay
    T = par[P_T]
    O = 3 * T
    W = par[P_W]
    if io[0] == 0:
        nf = 0
        s0 = wk[0]
        n = _deck_size(s0, T)
        for t in range(T):
            w = wk[1]
            q = _draw(s0, w, t, n, W, O)
            if q == 0.0:
                continue
            sid = _intern(rows, hv, ht, cnt, N_ST, w, W)
            if sid < 0:                    # the first reveal runs again from the start
                for i in range(nf):
                    acc_f[mark_f[i]] = 0.0
                return -1
            nf = _add(acc_f, mark_f, nf, sid, q)
        io[0] = 1
        io[1] = 0
        io[2] = 0
        io[3] = nf
        io[4] = 0
        io[5] = 0
    k = io[1]
    i = io[2]
    nf = io[3]
    nd = io[4]
    steps = io[5]
    while True:
        if i >= k:                         # this frontier done: move to the next
            if nf == 0:
                break
            steps += 1
            if steps > cnt[N_ST] + 1:      # a Prep path came back to a state: PrepLoop
                return -2
            _drain(acc_f, mark_f, nf, f_ids, f_p)
            k = nf
            nf = 0
            i = 0
        sid = f_ids[i]
        p = f_p[i]
        if e_len[sid] == 0:                # not pushed yet (the call costs, even memoised)
            push(sid, par, ty, arbors, st, rv, ed, buf, bp, wk, sc)
        if cnt[OVF]:
            io[1] = k
            io[2] = i
            io[3] = nf
            io[4] = nd
            io[5] = steps
            return -1
        if prep_flag[sid] == 0:
            prep_flag[sid] = 1
            cnt[N_PREP] += 1
        for j in range(e_start[sid], e_start[sid] + e_len[sid]):
            q = p * e_p[j]
            to = e_to[j]
            if to < 0:
                prep_sp[e_sh[j]] += q
                continue
            shown = gross(rows[to], par, ty) if par[P_GROSS] else e_sh[j]
            if shown >= PREP_UNTIL or rows[to, O + OD] < 0:
                nd = _add(acc_d, mark_d, nd, to, q)
            else:
                nf = _add(acc_f, mark_f, nf, to, q)
        i += 1
    _drain(acc_d, mark_d, nd, out_ids, out_p)
    return nd


@kernel
def advance(n_in, in_ids, in_p, io, par, ty, arbors, st, rv, ed, buf, bp, wk, sc,
            acc, mark, out_ids, out_p, spoil_sh):
    """One push from every state of a distribution (no on-deck card: it stays).

    Adds the probability of spoiling to spoil_sh[showing]; returns the size of
    the next distribution in out_ids/out_p.  Resumable: io = (first state to
    push, states listed in mark so far); when a store is full it returns -1 with
    io set so that, the store grown (acc and mark kept), a call goes on from there.
    """
    rows, hv, ht, cnt = st
    e_start, e_len = ed
    e_p, e_sh, e_to = rv[5], rv[6], rv[7]
    O = 3 * par[P_T]
    nm = io[1]
    for i in range(io[0], n_in):
        sid = in_ids[i]
        p = in_p[i]
        if rows[sid, O + OD] < 0:
            nm = _add(acc, mark, nm, sid, p)
            continue
        if e_len[sid] == 0:
            push(sid, par, ty, arbors, st, rv, ed, buf, bp, wk, sc)
        if cnt[OVF]:
            io[0] = i
            io[1] = nm
            return -1
        for j in range(e_start[sid], e_start[sid] + e_len[sid]):
            q = p * e_p[j]
            if e_to[j] < 0:
                spoil_sh[e_sh[j]] += q
            else:
                nm = _add(acc, mark, nm, e_to[j], q)
    _drain(acc, mark, nm, out_ids, out_p)
    return nm


@kernel
def intern_row(row, par, st):
    """Intern one state (a situation's start); -1 if the store is full."""
    rows, hv, ht, cnt = st
    return _intern(rows, hv, ht, cnt, N_ST, row, par[P_W])


# -- what each state shows and harvests (SpoilModel.showing / .harvest) ----------------
# columns of ``values``: what a state's Harvest expects, linear in its field
V_MANA, V_PEN, V_VP, V_ANIMAL, V_FOREST, V_SKY, V_WILD, V_SHOW, V_OD, V_NF, V_TEMP = range(11)
# rows of ``means``: per-type means of the Harvest attributes
M_MANA, M_MAGIC, M_PEN, M_VP, M_ANIMAL, M_FOREST, M_SKY, M_WILD = range(8)


@kernel(inline=True)
def _field_harvest(r, T, means, aur, tmana, tvp):
    """What the field of state row ``r`` harvests, linear in its cards (vales not
    added): (mana without penalties, penalties, VP, animal, forest, sky, wild,
    field size, the field card's type holding Conclave's guardian or -1)."""
    O = 3 * T
    nf = 0
    for t in range(T):
        nf += r[2 * T + t]
    mana = 0.0
    pen = 0.0
    vp = 0.0
    sp0 = 0.0
    sp1 = 0.0
    sp2 = 0.0
    sp3 = 0.0
    for t in range(T):
        c = np.float64(r[2 * T + t])
        if c == 0.0:
            continue
        mana += c * (means[M_MANA, t] + means[M_MAGIC, t] * (nf - 1))
        pen += c * means[M_PEN, t]
        vp += c * (means[M_VP, t] + aur[t, nf])
        sp0 += c * means[M_ANIMAL, t]
        sp1 += c * means[M_FOREST, t]
        sp2 += c * means[M_SKY, t]
        sp3 += c * means[M_WILD, t]
    tt = np.int64(r[O + TT])
    temp = -1
    if tt >= 0 and r[O + TI] == 1:
        mana += tmana[tt]
        vp += tvp[tt]
        temp = tt
    return mana, pen, vp, sp0, sp1, sp2, sp3, np.int64(nf), temp


@kernel
def state_values(rows, n, par, ty, means, aur, tmana, tvp, vale, out):
    """Per state: mana (without penalties), penalties, VP, each spirit, decay showing,
    on-deck type, field size and the field card holding Conclave's guardian (-1).
    ``vale`` = (mana, animal, forest, sky, wild) from vales; aur[t, field size]."""
    T = par[P_T]
    O = 3 * T
    for s in range(n):
        r = rows[s]
        mana, pen, vp, sp0, sp1, sp2, sp3, nf, temp = _field_harvest(r, T, means, aur,
                                                                     tmana, tvp)
        out[s, V_MANA] = mana + vale[0]
        out[s, V_PEN] = pen
        out[s, V_VP] = vp
        out[s, V_ANIMAL] = sp0 + vale[1]
        out[s, V_FOREST] = sp1 + vale[2]
        out[s, V_SKY] = sp2 + vale[3]
        out[s, V_WILD] = sp3 + vale[4]
        out[s, V_SHOW] = showing(r, par, ty)
        out[s, V_OD] = r[O + OD]
        out[s, V_NF] = nf
        out[s, V_TEMP] = temp


@kernel(inline=True)
def _lowest(r, T, nf, temp, low, base):
    """The field's lowest possible Harvest mana net of penalties: base[temp] (vale
    mana, + the guardian's; base[-1]: none) plus, per type, the sum of its c
    smallest member values at this field size (low[t, c, field size])."""
    x = base[temp]
    for t in range(T):
        c = np.int64(r[2 * T + t])
        if c:
            x += low[t, c, nf]
    return x


@kernel
def lowest_mana(rows, n, par, low, base, values, out):
    """Per state: ``_lowest`` (field size and guardian from ``values``)."""
    T = par[P_T]
    for s in range(n):
        out[s] = _lowest(rows[s], T, np.int64(values[s, V_NF]), np.int64(values[s, V_TEMP]),
                         low, base)


@kernel
def layer_stats(ids, p, n, rows, par, ty, means, aur, tmana, tvp, vale, low, base,
                hist, out, fix):
    """Sums over a distribution (states ids[:n], probabilities p), from the rows:
    out = E[mana, animal, forest, sky, wild, spirits, VP] (spoiled turns 0),
    P(an on-deck card); hist[showing + HIST_OFF] += probability.

    Mana is the linear expectation net of penalties.  With Grassland
    (``par[P_PEN]``), a state whose lowest possible mana (``lowest_mana``: low,
    base) is below 0 needs the exact E[max(0, .)]: its index i is listed in
    fix.  Returns how many are listed, or -1 if a showing falls outside hist."""
    T = par[P_T]
    O = 3 * T
    for j in range(8):
        out[j] = 0.0
    nfix = 0
    for i in range(n):
        r = rows[ids[i]]
        q = p[i]
        mana, pen, vp, sp0, sp1, sp2, sp3, nf, temp = _field_harvest(r, T, means, aur,
                                                                     tmana, tvp)
        sp0 += vale[1]
        sp1 += vale[2]
        sp2 += vale[3]
        sp3 += vale[4]
        out[0] += q * (mana + vale[0] - pen)
        out[1] += q * sp0
        out[2] += q * sp1
        out[3] += q * sp2
        out[4] += q * sp3
        out[5] += q * (sp0 + sp1 + sp2 + sp3)
        out[6] += q * vp
        if r[O + OD] >= 0:
            out[7] += q
        h = showing(r, par, ty) + HIST_OFF
        if h < 0 or h >= hist.shape[0]:
            return -1
        hist[h] += q
        if par[P_PEN]:
            if _lowest(r, T, nf, temp, low, base) < 0:
                fix[nfix] = i
                nfix += 1
    return nfix
