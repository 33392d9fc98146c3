"""The exact spoil-odds calculator on compiled transitions (``engine="compiled"``).

:class:`vale_sim.games.mystic_vale.spoil.SpoilModel` defines the model — card types, states,
transitions — in readable Python; :mod:`vale_sim.games.mystic_vale.fast.spoil_dp` runs the same
transitions in numba over int8 state rows (about 30-60x less time per state).  This
module holds the arrays, drives the kernels push by push, and sums what is asked
of each layer's states (decay showing, Harvest) as the layer is made.  The two engines
visit the same states and agree to rounding (tests/test_spoil_fast.py).

Stores are sized up front, generously: they are ``np.zeros`` (calloc), so memory
is touched only where used.  The hash tables start small and grow with their
contents (random probes would touch all of a large table).  A kernel that finds
a store full, or a table half full, undoes its last push and stops; the store
is grown fourfold (contents kept) and the kernel goes on from where it stopped.
"""
from __future__ import annotations

import functools

import numpy as np

from ..fast import spoil_dp as K
from .state import unsupported

# sizes to start from (entries; tables: slots); each grows fourfold when full
_START = {"states": 1 << 20, "reveal": 1 << 19, "edges": 1 << 22,
          "states table": 1 << 12, "reveal table": 1 << 12, "push outcomes": 1 << 16}
GROWTH = 4
_OVF_STORE = {1 + K.N_ST: "states", 1 + K.N_R: "reveal", K.OVF_EDGES: "edges",
              K.OVF_ST_TABLE: "states table",
              K.OVF_R_TABLE: "reveal table", K.OVF_PUSH_OUT: "push outcomes"}
WP_CODE = {"when_played_discard_field": K.WP_DISCARD, "when_played_peek": K.WP_PEEK,
           "when_played_search_deck": K.WP_SEARCH}


def _table(slots: int) -> np.ndarray:
    """An empty hash table (slots a power of two; 0 = free, spoil_dp._slot).  The
    kernels keep it at most half full (linear probing stays short)."""
    return np.zeros(slots, np.uint64)


class CompiledModel:
    """Arrays of one SpoilModel for the kernels; ``run(pushes)`` explores it."""

    def __init__(self, model, max_states: int | None = None):
        why = unsupported(model)
        if why is not None:
            raise ValueError(f"the compiled spoil engine cannot take this deck: {why}")
        self.model, self.max_states = model, max_states
        m = model
        T = m.T
        # rows are padded to whole 8-byte words (hashed and compared a word at a time)
        self.T, self.W = T, -(-(3 * T + K.ROW) // 8) * 8
        self.O = 3 * T
        par = np.zeros(7, np.int64)
        par[K.P_T], par[K.P_W] = T, self.W
        par[K.P_GG], par[K.P_CONC], par[K.P_NARB] = m.global_growth, m.conclave, len(m.arbors)
        par[K.P_GROSS] = int(m.rules.prep_count == "gross")
        par[K.P_PEN] = int(bool(m.penalty))
        ty = np.zeros((K.TY_WP + 3, T), np.int64)
        for t in range(T):
            ty[K.TY_NET, t], ty[K.TY_DEC, t] = m.net[t], m.dec[t]
            ty[K.TY_DRUID, t], ty[K.TY_GPG, t] = int(m.druid[t]), int(m.gpg[t])
            ty[K.TY_BONUS, t] = m.bonus[t]
            for j, kind in enumerate(m.wp[t]):
                ty[K.TY_WP + j, t] = WP_CODE[kind]
        self.par, self.ty = par, ty
        self.arbors = np.array(list(m.arbors) or [0], np.int64)
        self.sizes = dict(_START)
        # scratch: the When Played stages of one play (each ability branches at most
        # T + 1 ways: a discard picks a type, or the guardian's card); the outcomes
        # of one reveal (a reveal, the Druid's reveal, the Conclave's choice) and of
        # one push (over its ways to play)
        stages = 1
        for w in m.wp:
            size, total = 1, 1
            for _ in w:
                size *= T + 1
                total += size
            stages = max(stages, total)
        self.buf = np.zeros((stages + 1, self.W), np.int8)
        self.bp = np.zeros(stages + 1)
        self.wk = np.zeros((5, self.W), np.int8)
        mr = (T * T + T + 2) * (T + 2)
        mp = min((stages + 1) * mr, self.sizes["push outcomes"])
        self.sc = (np.zeros(mr), np.zeros(mr, np.int16), np.zeros(mr, np.int64),
                   np.zeros(mp), np.zeros(mp, np.int16), np.zeros(mp, np.int64))
        if max_states is not None:
            self.sizes["states"] = max(1, min(self.sizes["states"], max_states))

    # -- stores -----------------------------------------------------------------------
    def _alloc(self):
        s, W = self.sizes, self.W
        ns, nr = s["states"], s["reveal"]
        self.rows = np.zeros((ns, W), np.int8)
        self.hv = np.zeros(ns, np.uint64)
        self.ht = _table(s["states table"])
        self.cnt = np.zeros(8, np.int64)
        self.rv = (np.zeros((nr, W), np.int8), np.zeros(nr, np.uint64),
                   _table(s["reveal table"]), np.zeros(nr, np.int64),
                   np.zeros(nr, np.int64), np.zeros(s["edges"]), np.zeros(s["edges"], np.int16),
                   np.zeros(s["edges"], np.int64))
        self.ed = (np.zeros(ns, np.int64), np.zeros(ns, np.int64))    # edges in rv[5:]
        self.prep_flag = np.zeros(ns, np.int8)
        for name in self._WORK:                     # a new run starts from clean arrays
            setattr(self, name, None)
        self._scratch()

    # per-state work arrays: probabilities, state ids
    _WORK = {"acc": np.float64, "mark": np.int64, "acc2": np.float64, "mark2": np.int64,
             "f_ids": np.int64, "f_p": np.float64, "out_ids": np.int64, "out_p": np.float64}

    @property
    def st(self):
        """The states store as the kernels take it."""
        return self.rows, self.hv, self.ht, self.cnt

    def _scratch(self):
        """Per-state work arrays, sized to the states store, contents kept (a resumed
        ``start_fresh`` or ``advance`` goes on with them)."""
        ns = self.sizes["states"]
        for name, dtype in self._WORK.items():
            old, new = getattr(self, name), np.zeros(ns, dtype)
            if old is not None:
                new[:len(old)] = old
            setattr(self, name, new)

    def _grow(self) -> None:
        """Grow the store a kernel found full, keeping its contents."""
        which = _OVF_STORE[int(self.cnt[K.OVF])]
        self.cnt[K.OVF] = 0
        if which in ("states table", "reveal table"):    # rehashed into a larger table
            self.sizes[which] *= GROWTH
            table = _table(self.sizes[which])
            if which == "states table":
                K.rehash(self.hv, int(self.cnt[K.N_ST]), table)
                self.ht = table
            else:
                K.rehash(self.rv[1], int(self.cnt[K.N_R]), table)
                self.rv = self.rv[:2] + (table,) + self.rv[3:]
        elif which == "push outcomes":              # scratch: the push runs again
            self.sizes[which] = n = GROWTH * len(self.sc[3])
            self.sc = self.sc[:3] + (np.zeros(n), np.zeros(n, np.int16), np.zeros(n, np.int64))
        elif which == "states":
            old = self.sizes["states"]
            if self.max_states is not None:
                if old >= self.max_states:
                    from .state import TooManyStates
                    raise TooManyStates(self.model.deck.name, self.max_states)
                new = min(GROWTH * old, self.max_states)
            else:
                new = GROWTH * old
            self._grow_store("states", new)
            self._scratch()
        else:
            self._grow_store(which, GROWTH * self.sizes[which])

    def _grow_store(self, which: str, new: int) -> None:
        self.sizes[which] = new

        def bigger(a):
            b = np.zeros((new,) + a.shape[1:], a.dtype)     # calloc: pages touched on use
            b[:len(a)] = a
            return b
        if which == "states":
            self.rows, self.hv = bigger(self.rows), bigger(self.hv)
            self.ed = tuple(bigger(a) for a in self.ed)
            self.prep_flag = bigger(self.prep_flag)
        elif which == "reveal":
            rrows, rhv, rht, r_start, r_len, *rest = self.rv
            self.rv = (bigger(rrows), bigger(rhv), rht, bigger(r_start), bigger(r_len), *rest)
        else:
            self.rv = self.rv[:5] + tuple(bigger(a) for a in self.rv[5:])

    # -- rows ------------------------------------------------------------------------
    def row_of(self, key) -> np.ndarray:
        """The row of a SpoilModel key (the situation's start)."""
        T, O = self.T, self.O
        deck, disc, fld, od, du, cu, au, ag, temp, fn = key
        r = np.zeros(self.W, np.int8)
        r[:T], r[T:2 * T], r[2 * T:O] = deck, disc, fld
        r[O + K.OD], r[O + K.DRU], r[O + K.CON] = od, du, cu
        r[O + K.ARU], r[O + K.ARG], r[O + K.FN], r[O + K.TOP] = au, ag, fn, -1
        r[O + K.TT], r[O + K.TI] = (-1, 0) if temp is None else (temp[0], int(temp[1]))
        return r

    # -- exploration -------------------------------------------------------------------
    def _call(self, fn, args):
        """Call a kernel, growing the store it finds full until it completes."""
        while True:
            n = fn(*args())
            if n >= 0:
                return n
            if n == -2:
                from .state import PrepLoop
                raise PrepLoop(self.model.deck.name)
            self._grow()

    def run(self, pushes: int, summarize: bool = False):
        """Prep (or the situation), then ``pushes`` pushes from every state.

        Sets ``layers`` [(ids, p)] for k = 0..pushes, or with ``summarize`` only
        ``layer_sums[k]`` (``layer_stats`` of each, taken as the layer is made;
        the unused one of the two is None), ``prep_spoil`` (probability
        by showing), ``spoil_step[k]`` (probability of spoiling at push k, by
        showing) and the state and edge arrays.
        """
        self._alloc()
        m, T, O = self.model, self.T, self.O

        def common():
            return (self.par, self.ty, self.arbors, self.st, self.rv, self.ed, self.buf,
                    self.bp, self.wk, self.sc)
        if m.situation is not None:
            m.start()                              # checks the situation (no Prep)
            (key,) = m.keys
            row = self.row_of(key)
            sid = self._call(K.intern_row, lambda: (row, self.par, self.st))
            ids, p = np.array([sid], np.int64), np.ones(1)
            self.prep_spoil = np.zeros(K.MAX_SHOW)
        else:
            fresh = np.zeros(self.W, np.int8)
            fresh[O + K.OD] = fresh[O + K.TT] = fresh[O + K.TOP] = -1
            fresh[:T] = [len(mem) for mem in m.members]
            self.wk[0] = fresh
            self.prep_spoil = np.zeros(K.MAX_SHOW)
            io = np.zeros(6, np.int64)              # where a resumed Prep goes on

            def start_args():
                lay = (self.acc, self.mark, self.acc2, self.mark2, self.f_ids, self.f_p,
                       self.out_ids, self.out_p)
                return common() + (lay, self.prep_spoil, self.prep_flag, io)
            n = self._call(K.start_fresh, start_args)
            ids, p = self.out_ids[:n].copy(), self.out_p[:n].copy()
        self.layers, self.layer_sums = (None, []) if summarize else ([], None)

        def keep(ids, p):
            if summarize:
                self.layer_sums.append(self.layer_stats(ids, p))
            else:
                self.layers.append((ids, p))
        keep(ids, p)
        self.spoil_step = [np.zeros(K.MAX_SHOW)]
        for _ in range(pushes):
            sp = np.zeros(K.MAX_SHOW)
            io = np.zeros(2, np.int64)              # where a resumed advance goes on

            def adv_args(ids=ids, p=p, sp=sp, io=io):
                return (len(ids), ids, p, io) + common() + (self.acc, self.mark, self.out_ids,
                                                             self.out_p, sp)
            n = self._call(K.advance, adv_args)
            ids, p = self.out_ids[:n].copy(), self.out_p[:n].copy()   # next advance: out_*
            keep(ids, p)
            self.spoil_step.append(sp)
        self.state_rows = self.rows[:int(self.cnt[K.N_ST])]
        self._values, self._mana_final = None, False
        return self

    @property
    def states(self) -> int:
        """Work counted as SpoilModel counts it: states pushed, just-played states
        revealed from, states pushed during Prep."""
        return (int((self.ed[1][:int(self.cnt[K.N_ST])] > 0).sum()) + int(self.cnt[K.N_R])
                + int(self.cnt[K.N_PREP]))

    # -- what the states show ------------------------------------------------------------
    @functools.cached_property
    def _harvest_args(self):
        """The kernels' Harvest tables: (means, aur, tmana, tvp, vale)."""
        m, T = self.model, self.T
        means = np.array([[float(x) for x in m.mean[q]] for q in
                          ("mana", "magic", "pen", "vp", "animal", "forest", "sky", "wild")])
        ncards = len(m.deck.cards)
        aur = np.array([[float(m.aurora(t, k)) for k in range(ncards + 1)] for t in range(T)])
        vale = np.array([m.vale_mana] + [m.vale_spirit[s] for s in
                                         ("animal", "forest", "sky", "wild")], float)
        return means, aur, np.array(m.tmana, float), np.array(m.tvp, float), vale

    @functools.cached_property
    def _penalty_tables(self):
        """(low, base) for the lowest possible mana (spoil_dp._lowest): low[t, c,
        field size] the sum of type t's c smallest member values, base[temp] the
        vale mana + the guardian's (base[-1]: no guardian)."""
        m, T = self.model, self.T
        n = len(m.deck.cards)
        low = np.zeros((T, n + 1, n + 1))
        for t in range(T):
            for size in range(n + 1):
                vals = sorted(a + g * (size - 1) - pen for a, g, pen in m._mana_members[t])
                low[t, 1:len(vals) + 1, size] = np.cumsum(vals)
        base = m.vale_mana + np.append(np.asarray(m.tmana, float), 0.0)
        return low, base

    def values(self) -> np.ndarray:
        """Per state (kernel ``state_values``): the columns V_* of spoil_dp."""
        if getattr(self, "_values", None) is None:
            n = len(self.state_rows)
            out = np.zeros((n, 11))
            K.state_values(self.state_rows, n, self.par, self.ty, *self._harvest_args, out)
            self._values = out
        return self._values

    def showing(self) -> np.ndarray:
        return self.values()[:, K.V_SHOW].astype(np.int64)

    def on_deck(self) -> np.ndarray:
        return self.values()[:, K.V_OD].astype(np.int64)

    def final_values(self) -> np.ndarray:
        """values() with column V_MANA the Harvest mana (Grassland's penalty applied)."""
        v = self.values()
        if self.model.penalty and not self._mana_final:
            v[:, K.V_MANA] = self._penalty_mana(v[:, K.V_MANA] - v[:, K.V_PEN], v)
        self._mana_final = True
        return v

    def layer_stats(self, ids, p):
        """(expected QUANTITIES, P(on-deck card), {showing: p}, total probability) of
        the distribution ``p`` over states ``ids``, from the rows (kernel
        ``layer_stats``; Grassland's "not below 0" applied exactly)."""
        hist, out = np.zeros(2 * K.HIST_OFF), np.zeros(8)
        fix = np.zeros(len(ids) if self.model.penalty else 1, np.int64)
        low, base = self._penalty_tables if self.model.penalty else (np.zeros((1, 1, 1)),
                                                                      np.zeros(1))
        nfix = K.layer_stats(ids, p, len(ids), self.rows, self.par, self.ty,
                             *self._harvest_args, low, base, hist, out, fix)
        if nfix < 0:
            raise AssertionError("a state's decay showing is beyond the histogram")
        if nfix:
            sel = ids[fix[:nfix]]
            v = np.zeros((nfix, 11))
            K.state_values(self.rows[sel], nfix, self.par, self.ty, *self._harvest_args, v)
            lin = v[:, K.V_MANA] - v[:, K.V_PEN]
            out[0] += p[fix[:nfix]] @ (self._exact_mana(self.rows[sel], v) - lin)
        shows = {int(i) - K.HIST_OFF: float(hist[i]) for i in np.flatnonzero(hist)}
        return out[:7], out[7], shows, float(p.sum())

    def harvest(self) -> dict:
        """Expected Harvest per state (SpoilModel.harvest)."""
        v = self.final_values()
        mana = v[:, K.V_MANA]
        out = {"mana": mana, "vp": v[:, K.V_VP]}
        for sp, col in (("animal", K.V_ANIMAL), ("forest", K.V_FOREST), ("sky", K.V_SKY),
                        ("wild", K.V_WILD)):
            out[sp] = v[:, col]
        out["spirits"] = out["animal"] + out["forest"] + out["sky"] + out["wild"]
        return out

    def _penalty_mana(self, mana, v):
        """E[max(0, mana - penalties)] (Grassland's "not below 0", as SpoilModel).

        ``mana``: the linear expectation net of penalties.  Where even the field's
        lowest possible mana (each type's c smallest member values) is >= 0,
        that is the answer; the other fields get SpoilModel's exact distribution."""
        lowest = np.zeros(len(mana))
        K.lowest_mana(self.state_rows, len(mana), self.par, *self._penalty_tables, v, lowest)
        out = mana.copy()
        neg = np.flatnonzero(lowest < 0)
        if len(neg):
            out[neg] = self._exact_mana(self.state_rows[neg], v[neg])
        return out

    def _exact_mana(self, rows, v):
        """SpoilModel's exact E[max(0, mana - penalties)] of the fields of ``rows``
        (``v``: their state_values), once per distinct field and guardian."""
        T = self.T
        fld = rows[:, 2 * T:3 * T].astype(np.int64)
        keys = np.concatenate([fld, v[:, K.V_TEMP].astype(np.int64)[:, None]], 1)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        vals = np.array([float(self.model._mana_with_penalty(self._field_state(u),
                                                              int(u[:T].sum())))
                         for u in uniq])
        return vals[inv.ravel()]

    def _field_state(self, u):
        """A SpoilModel state with field counts u[:T] and the guardian's card u[T]."""
        from .state import _S
        s = _S()
        s.field = [int(x) for x in u[:self.T]]
        s.temp = None if u[self.T] < 0 else (int(u[self.T]), True)
        return s

    def edges(self):
        """(owner, p, showing, to) of every computed push edge (to = -1: spoiled)."""
        n = int(self.cnt[K.N_ST])
        e_start, e_len = self.ed
        e_p, e_sh, e_to = self.rv[5:]
        lens = e_len[:n]
        owner = np.repeat(np.arange(n), lens)
        idx = (np.repeat(e_start[:n], lens) + np.arange(lens.sum())
               - np.repeat(np.cumsum(lens) - lens, lens))
        return owner, e_p[idx], e_sh[idx].astype(np.int64), e_to[idx]

    def pushed(self) -> np.ndarray:
        return self.ed[1][:int(self.cnt[K.N_ST])] > 0
