"""Policy search: CMA-ES over the numeric parameters of a game's policy (any game with a
``Game.search_space``; ``game=`` names it, default the registry's default game).

    res = search(SearchConfig(players=2, budget=200_000, seed=0), GameObjective(None, 2))
    res.policy          # the final policy (the incumbent of the last generation)
    res.log             # every candidate evaluated: parameters, score, n, interval
    validate(res.policy, None, 2, deals=2000, seed=0)     # held-out check against each preset
    # (None: the game's default card set; SearchConfig(game=...) and GameObjective(game=...))

Design (docs/optimize.md):

* **The space** is built from ``dataclasses.fields`` of the game's policy class
  (``Game.search_space()``: the class, its module, ranges, exclusions): every integer
  field, every boolean and every categorical string field whose choices the
  policy module lists (any ``FIELD`` -> ``FIELD_MODES`` or ``FIELDS``, e.g.
  ``token`` -> ``TOKEN_MODES``) joins it, except the game's exclusions (its
  ``excluded``: the name, lists such as buy rules, fields meant for statistics
  only).  Each parameter is one CMA-ES coordinate in ``[0, 10]``, mapped linearly
  onto its search range (the game's ``ranges``, else ``0..1000`` for
  ``*_permille`` fields, else ``-10..10``, always inside the game's ``int_limit``).  Integers: clip, then round half to even
  (:func:`numpy.rint`).  Booleans: true iff the mapped value is >= 0.5 on
  ``[0, 1]``.  Categories: index ``min(floor(u * k), k - 1)`` on ``[0, 1]``.
  The rounded policy is what is evaluated and logged.
* **The objective** (:class:`GameObjective`): mean win share of the candidate
  against an opponent field (the presets plus the last ``hall`` generations'
  best candidates), one focal seat against ``players - 1`` copies of each
  opponent, seats rotated, on common deals: generation ``g`` plays deals
  ``0 .. deals-1`` of seed :func:`generation_seed` ``(seed, g)``, the same for
  every candidate of the generation (common random numbers).
* **Noise**: the incumbent (the rounded CMA-ES mean) is re-evaluated every
  generation on that generation's deals; this is the learning curve.  The
  final policy is validated (:func:`validate`) on seeds never used in the
  search, with deal-clustered intervals.
* **Determinism**: the CMA-ES sampler is reseeded from ``(seed, g)`` before each
  generation, results never depend on the number of workers, and a checkpoint
  after every generation (JSON data, :mod:`vale_sim.checkpoint`: the run's key and
  every generation's log; never a pickle) lets a resumed run finish exactly as an
  uninterrupted one: the CMA-ES state is rebuilt by replaying the logged generations
  (the same samples from the reseeded sampler, told the logged scores), each replayed
  candidate checked against the log.
"""
from __future__ import annotations

import math
import typing
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from . import stats
from .games import DEFAULT_GAME, get_game

SCALE = 10.0            # every CMA-ES coordinate lives in [0, SCALE]
SIGMA0 = 1.0            # default initial step size, in those coordinates (a tenth of the range)
VALIDATION_SEED_TAG = 1     # SeedSequence([seed, tag, ...]): 0 = search generations, 1 = validation


class SearchError(ValueError):
    """A bad search configuration (a user's mistake)."""


# ---------------------------------------------------------------------------
# The space
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str
    kind: str                    # "int", "bool" or "choice"
    lo: int = 0
    hi: int = 1
    choices: tuple = ()

    def decode(self, x: float):
        """A CMA-ES coordinate in [0, SCALE] -> the parameter's value (documented rounding)."""
        u = min(max(float(x) / SCALE, 0.0), 1.0)
        if self.kind == "int":
            v = self.lo + u * (self.hi - self.lo)
            return int(np.rint(min(max(v, self.lo), self.hi)))      # clip, round half to even
        if self.kind == "bool":
            return bool(u >= 0.5)
        return self.choices[min(int(math.floor(u * len(self.choices))), len(self.choices) - 1)]

    def encode(self, v) -> float:
        """The coordinate whose decoding is ``v`` (the middle of its cell)."""
        if self.kind == "int":
            v = min(max(int(v), self.lo), self.hi)
            return SCALE * ((v - self.lo) / (self.hi - self.lo) if self.hi > self.lo else 0.5)
        if self.kind == "bool":
            return SCALE * (0.75 if v else 0.25)
        k = len(self.choices)
        return SCALE * (self.choices.index(v) + 0.5) / k

    def describe(self) -> str:
        if self.kind == "int":
            return f"{self.name}: integer {self.lo}..{self.hi}"
        if self.kind == "bool":
            return f"{self.name}: false/true"
        return f"{self.name}: one of {', '.join(map(str, self.choices))}"


def _choices_for(name: str, module=None) -> tuple | None:
    """The choices of categorical field ``name``: ``NAME_MODES`` or ``NAMES`` in the
    policy module (default: the default game's, ``Game.search_space()["module"]``)."""
    module = game_space(DEFAULT_GAME).get("module") if module is None else module
    for attr in (f"{name.upper()}_MODES", f"{name.upper()}S"):
        v = getattr(module, attr, None)
        if isinstance(v, tuple) and v and all(isinstance(c, str) for c in v):
            return v
    return None


def game_space(game=DEFAULT_GAME) -> dict:
    """``Game.search_space()`` of ``game``; SearchError when the game has none."""
    g = get_game(game)
    if g.search_space is None:
        raise SearchError(f"{g.name} has no policy search space (Game.search_space); "
                          f"use --game {DEFAULT_GAME}")
    return g.search_space()


def policy_space(only=None, game=DEFAULT_GAME) -> list[Param]:
    """The searched parameters of ``game``'s policy, in field order (``only``: a
    subset by name)."""
    sp = game_space(game)
    cls, module = sp["policy"], sp.get("module")
    ranges, excluded = sp.get("ranges", {}), sp.get("excluded", ("name",))
    lim = sp.get("int_limit", 10**6)
    hints = typing.get_type_hints(cls)
    out = []
    for f in fields(cls):
        if f.name in excluded:
            continue
        t = hints.get(f.name)
        if t is bool:
            p = Param(f.name, "bool")
        elif t is int:
            if f.name in ranges:
                lo, hi = ranges[f.name]
            elif f.name.endswith("_permille"):
                lo, hi = 0, 1000
            else:
                lo, hi = -10, 10
            p = Param(f.name, "int", max(lo, -lim), min(hi, lim))
        elif t is str and _choices_for(f.name, module):
            p = Param(f.name, "choice", choices=_choices_for(f.name, module))
        else:
            continue                      # a field the search cannot encode stays as in --start
        out.append(p)
    if only is not None:
        names = {p.name for p in out}
        bad = [n for n in only if n not in names]
        if bad:
            raise SearchError(f"unknown search parameter {bad[0]!r} (known: {', '.join(sorted(names))})")
        out = [p for p in out if p.name in only]
    return out


def decode(space, x, base, name: str):
    return replace(base, name=name, **{p.name: p.decode(v) for p, v in zip(space, x)})


def encode(space, pol) -> list[float]:
    return [p.encode(getattr(pol, p.name)) for p in space]


def params_of(space, pol) -> dict:
    return {p.name: getattr(pol, p.name) for p in space}


# ---------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------
def derived_seed(*key: int) -> int:
    """A 63-bit seed from a tuple of non-negative integers (numpy SeedSequence)."""
    return int(np.random.SeedSequence(list(key)).generate_state(1, dtype=np.uint64)[0] >> 1)


def generation_seed(seed: int, generation: int) -> int:
    """The game seed of search generation ``generation`` (never a validation seed)."""
    return derived_seed(seed, 0, generation)


def validation_seed(seed: int) -> int:
    """The game seed of the held-out validation (a different SeedSequence key)."""
    return derived_seed(seed, VALIDATION_SEED_TAG)


# ---------------------------------------------------------------------------
# Objectives
# ---------------------------------------------------------------------------
class GameObjective:
    """Win share of each candidate against a field of opponents, seats rotated, on
    common deals.  ``evaluate(policies, gen_seed, field)`` -> ``(scores, clusters)``:
    ``scores[i, u]`` the win share (ties 1/k) of candidate ``i`` in unit ``u`` =
    (opponent, rotation, deal); ``clusters[u]`` the deal of unit ``u``."""
    bounds = (0.0, 1.0)

    def __init__(self, card_set=None, players: int = 2, deals: int = 8, rules=None,
                 engine: str = "fast", workers: int = 1, scheduler=None, game=DEFAULT_GAME):
        from .tournament import resolve_card_set
        g = get_game(game)
        self.game = g.name
        self.cs = resolve_card_set(g.default_card_set if card_set is None else card_set,
                                   players, g.name)
        self.players, self.deals = players, deals
        self.rules, self.engine = rules or g.rules_class(), engine
        self.workers, self.scheduler = workers, scheduler
        self._pool = None

    def games(self, n_candidates: int, n_field: int) -> int:
        return n_candidates * n_field * self.players * self.deals

    def key(self) -> dict:
        """What determines the results (checked when a search is resumed)."""
        k = {"objective": "games", "card_set": self.cs.digest(), "players": self.players,
             "deals": self.deals, "rules": repr(self.rules), "engine": self.engine}
        if self.game != DEFAULT_GAME:        # the default game's keys stay as before games existed
            k["game"] = self.game
        return k

    def focal_shares(self, focal, opponent, seed: int, deals: int) -> np.ndarray:
        """(rotations, deals): focal's win share at player index r in rotation r."""
        return _focal_shares(self.cs, self.players, self.rules, self.engine, self.scheduler,
                             focal, opponent, seed, deals, self.game)

    def many_shares(self, pairs, seed: int, deals: int, on_games=None) -> list:
        """:meth:`focal_shares` of each (focal, opponent) pair, in order.  With
        ``workers`` > 1 the pairs run in a process pool kept for the whole search
        (one pair per task: the results do not depend on the number of workers)."""
        if self.workers <= 1 or self.scheduler is not None or len(pairs) <= 1:
            out = []
            for f, o in pairs:
                out.append(self.focal_shares(f, o, seed, deals))
                if on_games:
                    on_games(self.players * deals)
            return out
        if self._pool is None:
            import multiprocessing as mp
            import os
            from concurrent.futures import ProcessPoolExecutor
            from .runner import _worker_init, fast_available, warm_up_fast_engine
            if self.engine == "fast" and fast_available(self.game):
                warm_up_fast_engine(self.game)   # compile once here; the workers load the cache
            self._pool = ProcessPoolExecutor(max_workers=self.workers,
                                             mp_context=mp.get_context("spawn"),
                                             initializer=_worker_init, initargs=(os.getpid(),))
        futs = [self._pool.submit(_focal_shares, self.cs, self.players, self.rules, self.engine,
                                  None, f, o, seed, deals, self.game) for f, o in pairs]
        out = []
        for fu in futs:
            out.append(fu.result())
            if on_games:
                on_games(self.players * deals)
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def evaluate(self, policies, seed: int, field, on_games=None):
        pairs = [(pol, opp) for pol in policies for opp in field]
        sh = self.many_shares(pairs, seed, self.deals, on_games)
        k = len(field)
        rows = [np.concatenate([a.ravel() for a in sh[i * k:(i + 1) * k]]) for i in range(len(policies))]
        clusters = np.tile(np.arange(self.deals), len(field) * self.players)
        return np.array(rows), clusters


def _focal_shares(cs, players, rules, engine, scheduler, focal, opponent, seed, deals,
                  game=DEFAULT_GAME):
    """tournament.focal_shares' win shares (a module-level function: process pools pickle it)."""
    from functools import partial
    from .tournament import focal_shares, play_frame
    return focal_shares(cs, players, seed, deals, focal, opponent, rules, engine, 1,
                        partial(play_frame, scheduler=scheduler), game=game, frames=False)[0]


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------
@dataclass
class SearchConfig:
    players: int = 2
    start: object = None             # a policy spec of the game; None: its default policy
    budget: int = 100_000           # games (the search stops before a generation would exceed it)
    seed: int = 0
    hall: int = 3                    # hall-of-fame members in the field (the latest)
    popsize: int | None = None       # CMA-ES population (None: the cma default 4 + 3 ln n)
    only: tuple | None = None        # search only these parameters (None: the whole space)
    opponents: tuple | None = None   # None: every preset
    confidence: float = 0.95
    sigma0: float = SIGMA0           # CMA-ES initial step size in [0, SCALE] coordinates
    game: str = DEFAULT_GAME         # whose policies are searched (Game.search_space)

    def __post_init__(self):
        # resolved here, so that a checkpoint's key (vars) names the policy as it always did
        if self.start is None:
            self.start = get_game(self.game).default_policy

    def check(self) -> None:
        if isinstance(self.budget, bool) or not isinstance(self.budget, int) or self.budget < 1:
            raise SearchError(f"--budget must be a positive number of games, got {self.budget!r}")
        from .limits import seed_problem
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or seed_problem(self.seed):
            raise SearchError(f"--seed {seed_problem(self.seed)}")
        if not 0 < self.sigma0 <= SCALE:
            raise SearchError(f"--sigma must be in (0, {SCALE:g}], got {self.sigma0}")
        if self.hall < 0:
            raise SearchError(f"hall must be >= 0, got {self.hall}")
        if self.popsize is not None and self.popsize < 2:
            raise SearchError(f"popsize must be >= 2, got {self.popsize}")
        from .limits import MAX_POPSIZE
        if self.popsize is not None and self.popsize > MAX_POPSIZE:
            raise SearchError(f"popsize must be at most {MAX_POPSIZE:,}, got {self.popsize}")


@dataclass
class SearchState:
    """Everything a checkpoint holds."""
    config: dict
    es: object
    generation: int = 0
    games: int = 0
    hall: list = field(default_factory=list)       # the game's policies, best of each generation
    log: list = field(default_factory=list)        # one dict per candidate evaluation
    curve: list = field(default_factory=list)      # one dict per generation (the incumbent)
    done: bool = False


@dataclass
class SearchResult:
    policy: object                  # a policy of the searched game
    log: list
    curve: list
    games: int
    generations: int
    space: list


def _estimate(scores, clusters, bounds, confidence):
    e = stats.cluster_ratio(scores, None, clusters, confidence, bounds=bounds)
    return e


class Normal:
    """CMA-ES's source of N(0, 1) numbers (cma's ``randn`` option): a picklable
    generator reseeded from ``(seed, generation)`` before each generation, so a
    generation's samples depend on nothing else (not numpy's global state, not
    whether the run was resumed from a checkpoint)."""

    def __init__(self):
        self.rng = np.random.default_rng(0)

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, *shape):
        return self.rng.standard_normal(shape)


def _new_state(cfg: SearchConfig, space, start, objective) -> SearchState:
    import cma
    x0 = encode(space, start)
    opts = {"bounds": [0.0, SCALE], "verbose": -9, "randn": Normal()}
    if cfg.popsize:
        opts["popsize"] = cfg.popsize
    es = cma.CMAEvolutionStrategy(x0, cfg.sigma0, opts)
    return SearchState(config=_config_key(cfg, objective), es=es)


def _config_key(cfg: SearchConfig, objective) -> dict:
    d = dict(vars(cfg))
    if d.get("game") == DEFAULT_GAME:    # the default game's checkpoints keep their key
        del d["game"]
    d["objective"] = objective.key()
    d["only"] = list(cfg.only) if cfg.only else None
    d["opponents"] = list(cfg.opponents) if cfg.opponents else None
    return d


def search(cfg: SearchConfig, objective, checkpoint=None, resume: bool = False,
           progress=None, max_generations: int | None = None) -> SearchResult:
    """Run (or, with ``resume`` and an existing ``checkpoint``, continue) the search.

    ``progress``: a tqdm-like object (``update(n)``) or None.  ``max_generations``
    stops early (the checkpoint then resumes the rest; for tests and interruptions).
    """
    cfg.check()
    g = get_game(cfg.game)
    if getattr(objective, "game", g.name) != g.name:
        raise SearchError(f"the objective plays {objective.game}, the search is of {g.name}")
    space = policy_space(cfg.only, g.name)
    if not space:
        raise SearchError("nothing to search: the space is empty")
    start = g.get_policy(cfg.start)
    from .mixture import heaviest, is_mixture
    if is_mixture(start):
        raise SearchError(f"--start {start.name}: a mixed field is no single policy to search "
                          f"from; start from one of its members (e.g. {heaviest(start).name})")
    # a categorical field whose value in the start is not among the searched choices (a
    # push rule the search leaves out, e.g. "value") is not searched: it stays as in
    # the start, like a field the search cannot encode
    space = [p for p in space if p.kind != "choice" or getattr(start, p.name) in p.choices]
    opponents = [g.get_policy(o) for o in (cfg.opponents or tuple(g.presets))]
    state = _new_state(cfg, space, start, objective)
    ck = Path(checkpoint) if checkpoint else None
    if resume and ck is not None:
        from . import checkpoint as ckpt
        try:
            ckpt.check_no_legacy(ck)
            if ck.exists():
                _replay(state, ckpt.read(ck, CHECKPOINT_KIND, state.config, "search"), ck,
                        cfg, space, start)
        except ckpt.CheckpointError as e:
            raise SearchError(str(e)) from None
    if progress is not None and state.games:
        progress.update(state.games)
    es = state.es
    n_field_max = len(opponents) + cfg.hall
    while not state.done:
        if max_generations is not None and state.generation >= max_generations:
            break
        g = state.generation
        field_ = opponents + state.hall[-cfg.hall:] if cfg.hall else list(opponents)
        field_ = field_[:n_field_max]
        xs, cands, inc = _ask(es, cfg.seed, g, space, start)
        # identical candidates are played once (same policy, same deals: same result)
        uniq: dict = {}
        for c in [inc] + cands:
            uniq.setdefault(tuple(sorted(params_of(space, c).items())), c)
        need = objective.games(len(uniq), len(field_))
        if state.games + need > cfg.budget:
            state.done = True
            break
        seed_g = generation_seed(cfg.seed, g)
        keys = list(uniq)
        scores, clusters = objective.evaluate([uniq[k] for k in keys], seed_g, field_,
                                              on_games=progress.update if progress is not None else None)
        by_key = dict(zip(keys, scores))
        state.games += need
        fit = []
        for i, c in enumerate([inc] + cands):
            s = by_key[tuple(sorted(params_of(space, c).items()))]
            e = _estimate(s, clusters, objective.bounds, cfg.confidence)
            row = {"generation": g, "candidate": "incumbent" if i == 0 else i - 1,
                   "seed": seed_g, "score": e.value, "lo": e.lo, "hi": e.hi, "n": e.n,
                   "deals": e.clusters, "field": len(field_), **params_of(space, c)}
            state.log.append(row)
            if i:
                fit.append(-e.value)
            else:
                # also against the presets alone: the field's hall of fame changes, the presets do not
                m = len(s) * len(opponents) // len(field_)
                ep = _estimate(s[:m], clusters[:m], objective.bounds, cfg.confidence)
                state.curve.append({"generation": g, "score": e.value, "lo": e.lo, "hi": e.hi,
                                    "n": e.n, "deals": e.clusters,
                                    "score_presets": ep.value, "presets_lo": ep.lo,
                                    "presets_hi": ep.hi, "presets_n": ep.n, "games": state.games,
                                    **params_of(space, c)})
        _tell(state, xs, fit, cands, g)
        state.generation += 1
        if ck is not None:
            _save_checkpoint(ck, state)
    # the final policy: the incumbent of the last generation (the rounded mean that
    # generation sampled around, scored on its fresh deals), or the start
    final = replace(start, name="optimized",
                    **({p.name: state.curve[-1][p.name] for p in space} if state.curve else {}))
    if ck is not None:
        _save_checkpoint(ck, state)
    return SearchResult(policy=final, log=state.log, curve=state.curve, games=state.games,
                        generations=state.generation, space=space)


def _ask(es, seed: int, g: int, space, start):
    """Generation ``g``'s samples (the sampler reseeded from ``(seed, g)``), their
    policies and the incumbent (the rounded mean): what :func:`search` plays and
    :func:`_replay` checks against the log."""
    import warnings
    es.opts["randn"].reseed(derived_seed(seed, 3, g))     # the samples of generation g
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        xs = es.ask()
    cands = [decode(space, x, start, f"g{g}c{i}") for i, x in enumerate(xs)]
    return xs, cands, decode(space, _mean(es), start, f"g{g}-mean")


def _tell(state, xs, fit, cands, g: int) -> None:
    """CMA-ES told generation ``g``'s scores (``fit``: lower is better); its best
    candidate joins the hall of fame."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state.es.tell(xs, fit)
    state.hall.append(replace(cands[int(np.argmin(fit))], name=f"hall-g{g}"))


def _mean(es):
    """The CMA-ES mean in the bounded ("phenotype") coordinates: with cma's bound
    transform the internal mean may lie outside [0, SCALE]."""
    return es.gp.pheno(es.mean, into_bounds=es.boundary_handler.repair)


CHECKPOINT_KIND = "search"     # optimize, exploit and meta's best-response searches


def _save_checkpoint(path: Path, state: SearchState) -> None:
    """The state as data (:mod:`vale_sim.checkpoint`): the counters and the log and
    curve; the CMA-ES state and the hall of fame are rebuilt from them (:func:`_replay`)."""
    from . import checkpoint as ckpt
    ckpt.write(path, CHECKPOINT_KIND, state.config,
               {"generation": state.generation, "games": state.games, "done": state.done,
                "log": state.log, "curve": state.curve})


def _replay(state: SearchState, data: dict, path, cfg: SearchConfig, space, start) -> None:
    """Bring the fresh ``state`` to the checkpoint's: replay its generations through
    ``state.es`` (the sampler reseeded as in :func:`search`, each generation told the
    logged scores), checking every replayed candidate against the log, and rebuild the
    hall of fame.  A checkpoint that does not fit is one line (CheckpointError)."""
    from . import checkpoint as ckpt
    try:
        gens, games, done = data["generation"], data["games"], data["done"]
        log, curve = data["log"], data["curve"]
        if not (isinstance(gens, int) and isinstance(games, int) and isinstance(done, bool)
                and isinstance(log, list) and isinstance(curve, list)
                and all(isinstance(r, dict) for r in log + curve)
                and 0 <= gens == len(curve) and 0 <= games <= cfg.budget):
            raise ValueError("counters, log and curve do not fit")
        i = 0
        for g in range(gens):
            xs, cands, inc = _ask(state.es, cfg.seed, g, space, start)
            rows = log[i:i + 1 + len(cands)]
            i += len(rows)
            if len(rows) != 1 + len(cands) or any(
                    r.get("generation") != g or r.get("candidate") != ("incumbent" if k == 0 else k - 1)
                    or {p.name: r.get(p.name) for p in space} != params_of(space, c)
                    for k, (r, c) in enumerate(zip(rows, [inc] + cands))):
                raise ValueError(f"generation {g} does not replay to its logged candidates")
            _tell(state, xs, [-float(r["score"]) for r in rows[1:]], cands, g)
        if i != len(log):
            raise ValueError("the log has rows after its last generation")
    except (KeyError, TypeError, ValueError) as e:
        raise ckpt.malformed(path, str(e)) from None
    state.generation, state.games, state.done = gens, games, done
    state.log, state.curve = log, curve


# ---------------------------------------------------------------------------
# Validation on held-out seeds
# ---------------------------------------------------------------------------
def validate(pol, card_set, players: int, deals: int, seed: int, opponents=None,
             rules=None, engine: str = "fast", workers: int = 1, scheduler=None,
             confidence: float = 0.95, on_games=None, game=DEFAULT_GAME) -> list[dict]:
    """The policy against each preset (``players - 1`` copies), seats rotated, on
    ``deals`` deals of :func:`validation_seed` (never a search seed): win share with
    a deal-clustered interval, n player-games, and the fair share ``1/players``."""
    obj = GameObjective(card_set, players, deals, rules, engine, workers, scheduler, game)
    g = get_game(game)
    vseed = validation_seed(seed)
    opps = [g.get_policy(name) for name in (opponents or tuple(g.presets))]
    try:
        shares = obj.many_shares([(pol, o) for o in opps], vseed, deals, on_games)
    finally:
        obj.close()
    rows = []
    clusters = np.tile(np.arange(deals), players)
    for opp, sh in zip(opps, shares):
        e = stats.cluster_rate(sh.ravel(), clusters, confidence)
        fair = 1.0 / players
        rows.append({"opponent": opp.name, "win_share": e.value, "lo": e.lo, "hi": e.hi,
                     "n": e.n, "deals": e.clusters, "fair_share": fair, "seed": vseed,
                     "beats": bool(e.lo > fair)})
    return rows
