"""A population of policies and its equilibrium: the meta-game (docs/meta.md).

    r = meta(MetaConfig(players=2, iterations=4, budget=4000, seed=0))
    r.population        # the policies (the presets, the optimised bots, best responses)
    r.mixture           # the equilibrium weights over the population
    r.iterations        # one row per iteration: the best response's held-out gain

Design (docs/meta.md):

* **The payoff** ``M[i, j]`` is the win share (ties 1/k) of ONE player of policy
  ``i`` against ``P - 1`` players of policy ``j``, every seat of every deal
  (:func:`vale_sim.seating.seatings` of (focal, field, ...): the ``P``
  rotations), on ``matrix_deals`` common deals of :func:`matrix_seed`, the same
  for every pair.  ``M[i, i] = 1/P`` exactly.  The meta-game is the symmetric
  two-player game with payoff ``M``: a policy against a *homogeneous* field;
  "opponents drawn from the mixture" means one policy ``j ~ x`` per deal for
  all ``P - 1`` opponent seats, whose expected payoff is ``(M x)_i``.
* **Solving** (:func:`solve`): at 2 players ``M + M^T = 1`` (the same games seen
  from both sides), so ``A = M - 1/2`` is antisymmetric (zero-sum): the Nash
  mixture by linear programming (:func:`nash_zero_sum`, scipy ``linprog``).  At 3
  and 4 players ``M`` is not constant-sum: the mixture is the rest point reached
  by the replicator dynamics from the uniform mixture (:func:`replicator`: its
  time average over the second half of the run, refined to the exact symmetric
  equilibrium on that support when the refinement is one).  Every mixture comes
  with its *population regret* ``max_i (M x)_i - x^T M x`` (0 at a symmetric Nash
  equilibrium of the population).
* **Uncertainty** (:func:`bootstrap`): the matrix is recomputed on whole deals
  resampled with replacement and re-solved; per policy the 2.5 and 97.5
  percentiles of its weight.
* **The loop** (:func:`meta`, double oracle): solve the population's mixture;
  search a best response to it (:func:`vale_sim.optimize.search`, the CMA-ES of
  ``vale-sim exploit``, with :class:`MixtureObjective`: the candidate's expected
  win share against the mixture, ``sum_j x_j`` times its share against ``P - 1``
  copies of ``j``, on common deals); choose among incumbents as exploit does
  (:func:`vale_sim.exploit.selection_pool`); measure its gain over ``1/P`` on
  held-out deals with a deal-clustered interval.  Stop when that gain is below
  ``epsilon`` and its upper bound below ``epsilon_hi`` (converged), or after
  ``iterations`` best responses; otherwise add the best response and repeat.
* **Determinism**: every seed derives from the master seed and the iteration
  (:func:`vale_sim.optimize.derived_seed`), results never depend on the number of
  workers (one pair per task), and a checkpoint after every step (plus the
  search's own checkpoint) lets ``resume`` finish exactly as an uninterrupted run.
  Checkpoints are JSON data (:mod:`vale_sim.checkpoint`, never a pickle): the run's
  key, the pair shares and the iterations; the best responses are rebuilt from their
  start member and parameters, and the whole population is checked against the
  ``repr`` of every member it recorded.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from . import optimize as opt
from . import stats
from .games import DEFAULT_GAME, get_game
from .games.base import baseline_spec

HEADER = "vale-sim meta:"             # the first line (after "# ") of every policy file meta writes
# SeedSequence([seed, tag, ...]) tags of the meta loop (optimize: 0 search, 1 validation;
# exploit: 2 selection)
SEARCH_TAG, SELECT_TAG, VALIDATE_TAG, MATRIX_TAG, BOOT_TAG = 5, 6, 7, 8, 9


class MetaError(opt.SearchError):
    """A bad meta configuration (a user's mistake): one line."""


# ---------------------------------------------------------------------------
# Solvers
# ---------------------------------------------------------------------------
def nash_zero_sum(A) -> tuple[np.ndarray, float]:
    """A maximin mixture ``x`` of the row player of the zero-sum game ``A`` (row's
    payoff) and the game's value: ``max_x min_j (x^T A)_j`` by linear programming
    (scipy.optimize.linprog, HiGHS)."""
    from scipy.optimize import linprog
    A = np.asarray(A, float)
    k, m = A.shape
    c = np.zeros(k + 1)
    c[-1] = -1.0                                    # maximise v
    A_ub = np.hstack([-A.T, np.ones((m, 1))])      # v - (x^T A)_j <= 0
    A_eq = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(m), A_eq=A_eq, b_eq=[1.0],
                  bounds=[(0, None)] * k + [(None, None)], method="highs")
    if not res.success:                             # pragma: no cover (always feasible)
        raise RuntimeError(f"linprog failed: {res.message}")
    x = np.clip(res.x[:k], 0, None)
    return x / x.sum(), float(res.x[-1])


def regret(M, x) -> float:
    """``max_i (M x)_i - x^T M x``: what the best member of the population gains
    over the mixture against a field drawn from the mixture (>= 0)."""
    M, x = np.asarray(M, float), np.asarray(x, float)
    u = M @ x
    return float(max(u.max() - x @ u, 0.0))


def _support_equilibrium(M, support) -> np.ndarray | None:
    """The symmetric equilibrium with exactly this support, if it is one: ``(M x)_i = v``
    on the support, ``x >= 0``, no member outside gains more than 1e-9."""
    k = M.shape[0]
    s = list(support)
    n = len(s)
    lhs = np.zeros((n + 1, n + 1))
    lhs[:n, :n] = M[np.ix_(s, s)]
    lhs[:n, n] = -1.0
    lhs[n, :n] = 1.0
    rhs = np.zeros(n + 1)
    rhs[n] = 1.0
    try:
        sol = np.linalg.solve(lhs, rhs)
    except np.linalg.LinAlgError:
        return None
    if np.any(sol[:n] < -1e-9):
        return None
    x = np.zeros(k)
    x[s] = np.clip(sol[:n], 0, None)
    x /= x.sum()
    return x if regret(M, x) <= 1e-9 else None


def replicator(M, horizon: float = 4000.0, refine: bool = True) -> np.ndarray:
    """The replicator dynamics ``x_i' = x_i ((M x)_i - x^T M x)`` of the symmetric game
    ``M`` from the uniform mixture, payoffs rescaled to a range of 1, integrated to
    ``horizon`` (scipy solve_ivp, in log coordinates): the time average over the second
    half.  With ``refine``, the members above 1e-3 of it are taken as a support and
    the exact symmetric equilibrium on it replaces the average when it is one (the
    average converges to it only slowly in cyclic games such as rock-paper-scissors)."""
    from scipy.integrate import solve_ivp
    M = np.asarray(M, float)
    k = M.shape[0]
    if k == 1:
        return np.ones(1)
    span = M.max() - M.min()
    B = (M - M.min()) / span if span > 0 else np.zeros_like(M)

    def rhs(t, y):                                  # y = log x (stays positive)
        x = np.exp(y - y.max())
        x /= x.sum()
        u = B @ x
        return u - x @ u

    ts = np.linspace(horizon / 2, horizon, 801)
    sol = solve_ivp(rhs, (0.0, horizon), np.zeros(k), t_eval=ts, rtol=1e-8, atol=1e-10,
                    method="LSODA")
    xs = np.exp(sol.y - sol.y.max(axis=0))
    xs /= xs.sum(axis=0)
    avg = xs.mean(axis=1)
    if refine:
        eq = _support_equilibrium(M, np.flatnonzero(avg > 1e-3))
        if eq is not None:
            return eq
    return avg / avg.sum()


def solve(M, players: int) -> tuple[np.ndarray, str]:
    """The population's mixture and the method's name (module docstring)."""
    M = np.asarray(M, float)
    if players == 2:
        x, _ = nash_zero_sum(M - 0.5)
        return x, "nash-lp"
    return replicator(M), "replicator"


def bootstrap(per_deal, players: int, reps: int, seed: int,
              confidence: float = 0.95) -> dict:
    """Resample whole deals: ``per_deal`` (k, k, deals) holds ``M`` per deal (the mean
    over its seatings); ``reps`` matrices of deals drawn with replacement, each
    solved.  Per member: the mean weight and the percentile interval."""
    per_deal = np.asarray(per_deal, float)
    k, _, d = per_deal.shape
    if reps <= 0 or d < 2:
        return {"reps": 0, "lo": [None] * k, "hi": [None] * k, "mean": [None] * k}
    rng = np.random.default_rng(seed)
    out = np.empty((reps, k))
    for b in range(reps):
        idx = rng.integers(0, d, d)
        out[b] = solve(per_deal[:, :, idx].mean(axis=2), players)[0]
    a = (1 - confidence) / 2
    return {"reps": reps, "mean": out.mean(axis=0).tolist(),
            "lo": np.quantile(out, a, axis=0).tolist(),
            "hi": np.quantile(out, 1 - a, axis=0).tolist(), "seed": seed}


# ---------------------------------------------------------------------------
# The objective: a candidate against a field drawn from the mixture
# ---------------------------------------------------------------------------
class MixtureObjective(opt.GameObjective):
    """:class:`vale_sim.optimize.GameObjective` whose field is a mixture: the score of
    a candidate in unit (rotation, deal) is ``sum_j w_j`` times its win share there
    against ``P - 1`` copies of support member ``j`` (the expected win share against a
    field drawn from the mixture, on common deals).  The ``field`` the search passes
    is ignored; :meth:`set_mixture` sets the support and weights."""

    support: list = []
    weights: np.ndarray = np.ones(0)

    def set_mixture(self, support, weights) -> None:
        self.support, self.weights = list(support), np.asarray(weights, float)

    def games(self, n_candidates: int, n_field: int) -> int:
        return n_candidates * len(self.support) * self.players * self.deals

    def key(self) -> dict:
        k = super().key()
        k["mixture"] = [(repr(p), round(float(w), 12)) for p, w in zip(self.support,
                                                                         self.weights)]
        return k

    def mixture_shares(self, policies, seed: int, deals: int, on_games=None) -> list:
        """Per policy: (rotations, deals) expected win shares against the mixture."""
        pairs = [(c, s) for c in policies for s in self.support]
        sh = self.many_shares(pairs, seed, deals, on_games)
        k = len(self.support)
        return [sum(w * sh[i * k + j] for j, w in enumerate(self.weights))
                for i in range(len(policies))]

    def evaluate(self, policies, seed: int, field, on_games=None):
        rows = self.mixture_shares(policies, seed, self.deals, on_games)
        clusters = np.tile(np.arange(self.deals), self.players)
        return np.array([r.ravel() for r in rows]), clusters


# ---------------------------------------------------------------------------
# The loop
# ---------------------------------------------------------------------------
@dataclass
class MetaConfig:
    players: int = 2
    game: str = DEFAULT_GAME
    card_set: object = None
    population: tuple | None = None     # None: the presets and optimized-{P}p (if bundled)
    iterations: int = 6                 # best responses at most
    budget: int = 4000                  # search games per best response
    deals: int = 20                     # deals per search generation
    matrix_deals: int = 200             # common deals of the payoff matrix
    validate_deals: int = 500           # held-out deals of each best response's gain
    select_deals: int = 100             # deals of the choice among incumbents (0: the last)
    select: int = 4
    epsilon: float = 0.01               # converged: gain < epsilon ...
    epsilon_hi: float | None = None     # ... and its upper bound < epsilon_hi (None: 2 epsilon)
    bootstrap: int = 200                # deal resamples of the final mixture
    seed: int = 0
    popsize: int | None = None
    sigma0: float = opt.SIGMA0
    only: tuple | None = None
    confidence: float = 0.95
    engine: str = "fast"

    @property
    def eps_hi(self) -> float:
        return 2 * self.epsilon if self.epsilon_hi is None else self.epsilon_hi

    def check(self) -> None:
        for name, least in (("iterations", 0), ("budget", 1), ("deals", 1),
                            ("matrix_deals", 2), ("validate_deals", 2), ("select", 0),
                            ("select_deals", 0), ("bootstrap", 0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < least:
                raise MetaError(f"--{name.replace('_', '-')} must be a whole number >= "
                                f"{least}, got {v!r}")
        if self.select_deals == 1:
            raise MetaError("--select-deals must be 0 (take the last incumbent) or at least 2")
        if not 0 < self.epsilon < 1 or not self.epsilon <= self.eps_hi < 1:
            raise MetaError(f"--epsilon must be in (0, 1) and --epsilon-hi in [epsilon, 1), "
                            f"got {self.epsilon} and {self.eps_hi}")
        from .limits import seed_problem
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) \
                or seed_problem(self.seed):
            raise MetaError(f"--seed {seed_problem(self.seed)}")

    def key(self) -> dict:
        d = {k: v for k, v in vars(self).items()}
        d["population"] = None if self.population is None else [repr(p) for p in
                                                                  self.population]
        d["card_set"] = repr(self.card_set)
        return d


@dataclass
class MetaState:
    """What a checkpoint holds."""
    config: dict
    population: list
    shares: dict = field(default_factory=dict)     # (i, j) -> (rotations, deals)
    iterations: list = field(default_factory=list)
    games: int = 0
    done: bool = False


@dataclass
class MetaResult:
    game: str
    players: int
    card_set: str
    population: list
    mixture: np.ndarray
    method: str
    matrix: np.ndarray
    regret: float
    uncertainty: dict
    iterations: list
    converged: bool
    pending: object                 # the last best response when it was not added (else None)
    config: dict
    games: int
    cs: object = None

    def summary(self) -> dict:
        return {"game": self.game, "players": self.players, "card_set": self.card_set,
                "population": [p.name for p in self.population],
                "mixture": {p.name: float(w) for p, w in zip(self.population, self.mixture)},
                "mixture_interval": {p.name: [lo, hi] for p, lo, hi in
                                     zip(self.population, self.uncertainty["lo"],
                                         self.uncertainty["hi"])},
                "bootstrap_reps": self.uncertainty["reps"], "method": self.method,
                "matrix": np.asarray(self.matrix).tolist(),
                "population_regret": self.regret, "converged": self.converged,
                "exploitability": self.iterations[-1]["held_out"] if self.iterations else None,
                "iterations": self.iterations, "games": self.games,
                "pending_best_response": None if self.pending is None else self.pending.name,
                "config": self.config}


def matrix_seed(seed: int) -> int:
    return opt.derived_seed(seed, MATRIX_TAG)


def default_population(g, players: int, cs=None) -> list:
    """The presets, then ``optimized-{P}p`` when the game bundles it; a bundled mixed
    field (vale_sim.mixture) is no pure strategy of the population and is left out."""
    from .mixture import is_mixture
    pols = [p for p in (g.resolve_baseline(name, players, cs) for name in g.presets)
            if not is_mixture(p)]
    try:
        pols.append(g.resolve_baseline("optimized-{P}p", players, cs))
    except ValueError:
        pass
    out, seen = [], set()
    for p in pols:
        if p.name not in seen:
            seen.add(p.name)
            out.append(p)
    return out


def _matrix(state: MetaState, players: int):
    """``M`` and the per-deal matrices (k, k, deals) from the stored pair shares."""
    k = len(state.population)
    d = next(iter(state.shares.values())).shape[1] if state.shares else 1
    per = np.full((k, k, d), 1.0 / players)
    for (i, j), sh in state.shares.items():
        per[i, j] = sh.mean(axis=0)
        if players == 2:
            per[j, i] = 1.0 - per[i, j]
    return per.mean(axis=2), per


def _fill_matrix(state: MetaState, obj: MixtureObjective, cfg: MetaConfig, on=None) -> None:
    """Play the pairs of the population not yet in ``state.shares``."""
    k = len(state.population)
    need = [(i, j) for i in range(k) for j in range(k) if i != j
            and (i, j) not in state.shares and (cfg.players > 2 or i < j)]
    if not need:
        return
    pop = state.population
    sh = obj.many_shares([(pop[i], pop[j]) for i, j in need], matrix_seed(cfg.seed),
                         cfg.matrix_deals, on)
    for key, s in zip(need, sh):
        state.shares[key] = s
    state.games += len(need) * cfg.players * cfg.matrix_deals


CHECKPOINT_KIND = "meta"


def _save(path, state) -> None:
    """The loop's state as data (:mod:`vale_sim.checkpoint`): the population's members
    by ``repr`` (checked on resume), the pair shares, the iterations without their
    policy objects (rebuilt by :func:`_load`)."""
    if path is None:
        return
    from . import checkpoint as ckpt
    ckpt.write(path, CHECKPOINT_KIND, state.config, {
        "population": [repr(p) for p in state.population],
        "shares": [[i, j, np.asarray(s).tolist()] for (i, j), s in state.shares.items()],
        "iterations": [{k: v for k, v in it.items() if k != "policy"}
                       for it in state.iterations],
        "games": state.games, "done": state.done})


def _load(path, cfg: MetaConfig, initial: list) -> MetaState:
    """The checkpoint's state, the run's initial population ``initial`` (resolved
    again from the options) grown by the best responses its iterations added: each is
    its start member with the iteration's parameters, named ``br{k}``.  Every check of
    :func:`vale_sim.checkpoint.read`, then that the rebuilt population is the one the
    checkpoint recorded (a changed policy file is refused).  MetaError: one line."""
    from . import checkpoint as ckpt
    try:
        data = ckpt.read(path, CHECKPOINT_KIND, cfg.key(), "meta run")
        try:
            names, shares, iters = data["population"], data["shares"], data["iterations"]
            games, done = data["games"], data["done"]
            if not (isinstance(names, list) and isinstance(shares, list)
                    and isinstance(iters, list) and all(isinstance(it, dict) for it in iters)
                    and isinstance(games, int) and games >= 0 and isinstance(done, bool)):
                raise ValueError("fields of the wrong type")
            pop = list(initial)
            for it in iters:
                by_name = {p.name: p for p in pop}
                br = replace(by_name[it["start"]], name=it["best_response"], **it["params"])
                it["policy"] = br
                if not it["converged"]:
                    pop.append(br)
            k = len(pop)
            table = {}
            for i, j, s in shares:
                a = np.asarray(s, dtype=float)
                if not (0 <= i < k and 0 <= j < k and i != j and a.shape == (cfg.players,
                                                                            cfg.matrix_deals)):
                    raise ValueError(f"pair ({i}, {j}) does not fit the population")
                table[(i, j)] = a
        except (KeyError, TypeError, ValueError) as e:
            raise ckpt.malformed(path, str(e)) from None
        if [repr(p) for p in pop] != names:
            raise ckpt.CheckpointError(
                f"{path}: the population rebuilt from the options differs from the one the "
                f"checkpoint recorded (a policy or card file changed since?); restore it, or "
                f"drop --resume")
    except ckpt.CheckpointError as e:
        raise MetaError(str(e)) from None
    return MetaState(config=cfg.key(), population=pop, shares=table, iterations=iters,
                     games=games, done=done)


def gain_row(br_shares: np.ndarray, member_shares, weights, players: int,
             confidence: float, seed: int) -> dict:
    """The best response's gain over the mixture, on the same deals: its expected win
    share against the field drawn from the mixture (``br_shares``: rotations x deals)
    minus the mixture's own, ``sum_i x_i`` times member ``i``'s share against that field
    (``x^T M x``; exactly 1/2 at 2 players, not 1/P at 3-4 players, where a
    homogeneous field is not constant-sum), with a 95% interval clustered by deal."""
    value = sum(w * m for w, m in zip(weights, member_shares))
    deals = br_shares.shape[1]
    clusters = np.tile(np.arange(deals), br_shares.shape[0])
    e = stats.cluster_ratio((br_shares - value).ravel(), None, clusters, confidence,
                            bounds=(-1.0, 1.0))
    w = stats.cluster_rate(br_shares.ravel(), clusters, confidence)
    v = stats.cluster_rate(np.asarray(value).ravel(), clusters, confidence)
    return {"win_share": w.value, "lo": w.lo, "hi": w.hi, "mixture_value": v.value,
            "mixture_value_lo": v.lo, "mixture_value_hi": v.hi,
            "gain": e.value, "gain_lo": e.lo, "gain_hi": e.hi, "n": e.n, "deals": e.clusters,
            "games": int(br_shares.size), "fair_share": 1.0 / players, "seed": seed,
            "confidence": confidence}


def meta(cfg: MetaConfig, workers: int = 1, scheduler=None, progress=None,
         checkpoint=None, resume: bool = False, rules=None,
         max_iterations: int | None = None) -> MetaResult:
    """Run (or resume) the double-oracle loop of the module docstring.
    ``max_iterations`` stops early after that many iterations in this call (tests;
    the checkpoint resumes the rest)."""
    from .exploit import selection_pool
    cfg.check()
    g = get_game(cfg.game)
    if g.search_space is None:
        raise MetaError(f"meta needs a policy search space, which {g.name} has none of")
    obj = MixtureObjective(cfg.card_set, cfg.players, cfg.deals, rules, cfg.engine, workers,
                           scheduler, g.name)
    on = progress.update if progress is not None else None
    ck = Path(checkpoint) if checkpoint else None
    pending = None
    try:
        if resume and ck is not None:
            from .checkpoint import CheckpointError, check_no_legacy
            try:
                check_no_legacy(ck)
            except CheckpointError as e:
                raise MetaError(str(e)) from None
        if cfg.population is None:
            pop = default_population(g, cfg.players, obj.cs)
        else:
            try:
                pop = [g.resolve_baseline(s, cfg.players, obj.cs) for s in cfg.population]
            except ValueError as e:              # the game's one-line policy error
                raise MetaError(f"--population: {e}") from None
            from .mixture import is_mixture
            for s_, p in zip(cfg.population, pop):
                if is_mixture(p):
                    raise MetaError(f"--population: {s_} is a mixed field; a member of "
                                    f"the population is one policy (list the mixture's "
                                    f"members instead)")
        names = [p.name for p in pop]
        if len(set(names)) != len(names):
            raise MetaError(f"--population: every policy needs its own name, got "
                            f"{', '.join(names)}")
        if resume and ck is not None and ck.exists():
            state = _load(ck, cfg, pop)
            if progress is not None and state.games:
                progress.update(state.games)
        else:
            state = MetaState(config=cfg.key(), population=pop)
        done_here = 0
        while not state.done:
            _fill_matrix(state, obj, cfg, on)
            _save(ck, state)
            k = len(state.iterations)
            if k >= cfg.iterations:
                state.done = True
                break
            if max_iterations is not None and done_here >= max_iterations:
                break
            M, _ = _matrix(state, cfg.players)
            x, method = solve(M, cfg.players)
            supp = [i for i in range(len(x)) if x[i] > 1e-9]
            obj.set_mixture([state.population[i] for i in supp], x[supp])
            start = state.population[max(supp, key=lambda i: (x[i], -i))]
            sseed = opt.derived_seed(cfg.seed, SEARCH_TAG, k)
            scfg = opt.SearchConfig(players=cfg.players, start=start, budget=cfg.budget,
                                    seed=sseed, hall=0, popsize=cfg.popsize, only=cfg.only,
                                    opponents=(start,), confidence=cfg.confidence,
                                    sigma0=cfg.sigma0, game=g.name)
            sck = None if ck is None else ck.with_name(f"{ck.stem}.search{k}.json")
            res = opt.search(scfg, obj, checkpoint=sck, resume=resume, progress=progress)
            if res.generations == 0:
                import math
                pop = cfg.popsize or 4 + int(3 * math.log(len(res.space)))
                need = obj.games(pop + 1, 1)
                raise MetaError(f"--budget {cfg.budget} is too small for one search generation "
                                f"against a mixture of {len(supp)} (up to {need} games: "
                                f"{pop + 1} candidates x {len(supp)} x {cfg.players} seats x "
                                f"{cfg.deals} deals); raise --budget or lower --deals")
            choice = []
            if cfg.select_deals:
                # the start is a member of the mixture: choosing it would measure a gain of
                # exactly 0 with no width (the same games); the best response is the best
                # searched incumbent, so its interval is a real measurement
                pool = selection_pool(res, start, cfg.select)
                pool = pool[1:] if len(pool) > 1 else pool
                sel = opt.derived_seed(cfg.seed, SELECT_TAG, k)
                shares = obj.mixture_shares([p for _, p in pool], sel, cfg.select_deals, on)
                for (label, pol), sh in zip(pool, shares):
                    choice.append({"candidate": label, "win_share": float(sh.mean())})
                best = max(range(len(pool)), key=lambda i: (choice[i]["win_share"], -i))
                chosen, label = pool[best][1], pool[best][0]
            else:
                chosen, label = res.policy, "last incumbent"
            br = replace(chosen, name=f"br{k}")
            vseed = opt.derived_seed(cfg.seed, VALIDATE_TAG, k)
            members = [state.population[i] for i in supp]
            vsh = obj.mixture_shares([br] + members, vseed, cfg.validate_deals, on)
            held = gain_row(vsh[0], vsh[1:], x[supp], cfg.players, cfg.confidence, vseed)
            state.games += res.games + (len(choice) * cfg.select_deals + (1 + len(supp))
                                        * cfg.validate_deals) * cfg.players * len(supp)
            converged = held["gain"] < cfg.epsilon and held["gain_hi"] < cfg.eps_hi
            state.iterations.append({
                "iteration": k, "population": len(state.population), "method": method,
                "mixture": {state.population[i].name: float(x[i]) for i in supp},
                "population_regret": regret(M, x), "start": start.name,
                "best_response": br.name, "chosen": label, "choice": choice,
                "search_games": res.games, "generations": res.generations,
                "held_out": held, "converged": bool(converged),
                "params": opt.params_of(res.space, br), "policy": br})
            if converged:
                state.done = True
            else:
                state.population.append(br)
            done_here += 1
            _save(ck, state)
        M, per = _matrix(state, cfg.players)
        x, method = solve(M, cfg.players)
        last = state.iterations[-1] if state.iterations else None
        converged = bool(last and last["converged"])
        if last is not None and not converged and state.done:
            # the last best response was added after its check: report the mixture it was
            # measured against (the population without it) and keep it aside
            pending = state.population[-1]
            pop = state.population[:-1]
            M, per = M[:-1, :-1], per[:-1, :-1]
            x, method = solve(M, cfg.players)
        else:
            pop = state.population
        unc = bootstrap(per, cfg.players, cfg.bootstrap,
                        opt.derived_seed(cfg.seed, BOOT_TAG), cfg.confidence)
    finally:
        obj.close()
    iters = [{k: v for k, v in it.items() if k != "policy"} for it in state.iterations]
    return MetaResult(game=g.name, players=cfg.players, card_set=obj.cs.name, population=pop,
                      mixture=x, method=method, matrix=M, regret=regret(M, x),
                      uncertainty=unc, iterations=iters, converged=converged, pending=pending,
                      config={**cfg.key(), "matrix_seed": matrix_seed(cfg.seed),
                              "card_set_digest": obj.cs.digest(), "done": state.done},
                      games=state.games, cs=obj.cs)


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------
def format_result(r: MetaResult) -> list[str]:
    pct = lambda v: "—" if v is None else f"{100 * v:.1f}"                 # noqa: E731
    sgn = lambda v: f"{100 * v:+.1f}"                                        # noqa: E731
    c = r.config
    lines = [f"meta: {r.game}, set {r.card_set}, {r.players} players, seed {c['seed']}; "
             f"population {len(r.population)}, {len(r.iterations)} best responses, "
             f"{r.games} games; mixture by {r.method} on {c['matrix_deals']} common deals "
             f"(seed {c['matrix_seed']})"]
    lines.append(f"mixture (95% percentile intervals over {r.uncertainty['reps']} deal "
                 f"resamples):")
    for p, w, lo, hi in zip(r.population, r.mixture, r.uncertainty["lo"], r.uncertainty["hi"]):
        lines.append(f"  {p.name:<24} {pct(w):>5}% [{pct(lo)}, {pct(hi)}]")
    lines.append(f"population regret of the mixture (best member's gain over it): "
                 f"{sgn(r.regret)} points")
    lines.append(f"exploitability by iteration (best response vs the mixture, held-out deals, "
                 "its win share minus the mixture's own on the same deals, 95% interval clustered by "
                 "deal):")
    for it in r.iterations:
        h = it["held_out"]
        lines.append(f"  {it['iteration']}: population {it['population']}, best response "
                     f"{pct(h['win_share'])}%, mixture {pct(h['mixture_value'])}%, gain "
                     f"{sgn(h['gain'])} [{sgn(h['gain_lo'])}, {sgn(h['gain_hi'])}] points "
                     f"(n = {h['n']} player-games, {h['deals']} deals)"
                     + (" converged" if it["converged"] else ""))
    eps, hi = c["epsilon"], c["epsilon_hi"] if c["epsilon_hi"] is not None else 2 * c["epsilon"]
    lines.append(("converged: the best response gains less than "
                  f"{100 * eps:g} points (upper bound under {100 * hi:g})") if r.converged else
                 f"not converged within {c['iterations']} best responses (budget)"
                 + ("" if r.pending is None or not r.iterations else
                    f": the last one, {r.pending.name}, gains "
                    f"{sgn(r.iterations[-1]['held_out']['gain'])} "
                    f"[{sgn(r.iterations[-1]['held_out']['gain_lo'])}, "
                    f"{sgn(r.iterations[-1]['held_out']['gain_hi'])}] points against the "
                    f"reported mixture, not below {100 * eps:g} with an upper bound under "
                    f"{100 * hi:g}"))
    return lines


def plot_curve(r: MetaResult, path) -> Path:
    """The exploitability curve: gain (points) of each iteration's best response."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from .io import save_figure
    fig, ax = plt.subplots(figsize=(6, 3.5))
    it = [i["iteration"] for i in r.iterations]
    g = np.array([100 * i["held_out"]["gain"] for i in r.iterations])
    lo = np.array([100 * i["held_out"]["gain_lo"] for i in r.iterations])
    hi = np.array([100 * i["held_out"]["gain_hi"] for i in r.iterations])
    ax.errorbar(it, g, yerr=[g - lo, hi - g], marker="o", capsize=3)
    ax.axhline(100 * r.config["epsilon"], ls="--", c="grey", label="epsilon")
    ax.axhline(0, c="black", lw=0.5)
    ax.set_xlabel("iteration (best responses added)")
    ax.set_ylabel("best response gain, points")
    ax.set_title(f"{r.game}, {r.players} players: exploitability of the mixture")
    ax.legend()
    out = save_figure(fig, path)
    plt.close(fig)
    return out
