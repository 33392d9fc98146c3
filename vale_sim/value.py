"""The value player's model: a learned value of positions, read by afterstate (docs/value.md).

A value player decides a purchase by comparing the positions each option leads to.  Its
value of a position is linear in features that describe what the player's cards *do*
(symbols, VP, decay and growth, guardians, abilities by kind: never a card's name, never
its cost) with weights that depend on the stage of the game (how much of the VP pool is
gone).  Between the position before a purchase and the position after it, only the
bought card's features change, so the value of buying card ``k`` at stage ``s`` is

    value(k, s) = sum_j  W[s, j] * f_j(k)

(integers: the weights are stored scaled, so both engines compare the same integers).
A card is bought when its value is at least the policy's ``min_score`` (1: any gain),
the highest value first, as the scripted players buy by score (engine-spec §6.4).

Monotone by design: the weights of benefits (mana, each spirit, Harvest VP, end VP,
growth) are fitted with the bound >= 0 and the weight of decay with <= 0, and cost is
no feature.  So a printing with more mana, spirit or VP, or less decay, has a value at
least as high in every stage, and a cheaper printing the same value at a lower price.

This module is game-neutral: a game gives its feature names and bounds
(``FeatureSpec``), the per-card feature rows and the training positions; the model file,
the stage of a game, the fit and the scaling live here.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import UserError

#: The most stages a model may have (the engines keep one score row per stage).
MAX_STAGES = 4
#: Value units per unit of win share: the model's weights are stored as integers
#: ``round(SCALE * w)``, so a card's value is in 1/SCALE of a win.
SCALE = 10_000
FORMAT = "vale-sim value model"
#: 2: an optional ``vp`` row (the value of a VP token per stage, read by the "value" push
#: rule, engine-spec §6.1).  Version 1 files (no ``vp``) are still read: their VP is 0.
VERSION = 2
READ_VERSIONS = (1, 2)
MAX_MODEL_BYTES = 1 << 20


class ValueModelError(UserError, ValueError):
    """A value model file that cannot be used (one line: the file, the item, the fix)."""


def stage_of(pool0: int, pool: int, stages: int) -> int:
    """The stage of a game whose VP pool started at ``pool0`` and holds ``pool`` now:
    ``stages * (pool0 - pool) // pool0``, at most ``stages - 1`` (integers, as the fast
    engine computes it)."""
    if stages <= 1 or pool0 <= 0:
        return 0
    return min(stages - 1, stages * (pool0 - pool) // pool0)


@dataclass(frozen=True)
class FeatureSpec:
    """The features of one kind of card (advancements or vales): names, and for each
    a bound on its weight: +1 (>= 0, a benefit), -1 (<= 0, a drawback), 0 (free)."""
    names: tuple[str, ...]
    signs: tuple[int, ...]

    def bounds(self, stages: int) -> tuple[np.ndarray, np.ndarray]:
        lo = np.array([0.0 if s > 0 else -np.inf for s in self.signs] * stages)
        hi = np.array([0.0 if s < 0 else np.inf for s in self.signs] * stages)
        return lo, hi


@dataclass(frozen=True)
class ValueModel:
    """A fitted model: per stage, integer weights of the advancement and vale features."""
    game: str
    players: int
    stages: int
    adv_features: tuple[str, ...]
    vale_features: tuple[str, ...]
    adv: tuple[tuple[int, ...], ...]        # [stage][feature], scaled by SCALE
    vale: tuple[tuple[int, ...], ...]
    command: str = ""
    vp: tuple[int, ...] = ()                # [stage] a VP token's value (scaled); () none
    notes: dict = field(default_factory=dict, compare=False, hash=False)

    def to_json(self) -> dict:
        doc = {"format": FORMAT, "version": VERSION, "game": self.game,
               "players": self.players, "stages": self.stages, "scale": SCALE,
               "adv_features": list(self.adv_features),
               "vale_features": list(self.vale_features),
               "adv": [list(r) for r in self.adv], "vale": [list(r) for r in self.vale]}
        if self.vp:
            doc["vp"] = list(self.vp)
        doc.update(command=self.command, notes=self.notes)
        return doc

    def save(self, path) -> None:
        from .io import atomic_write
        atomic_write(Path(path), json.dumps(self.to_json(), indent=1) + "\n")


def _int_rows(path, doc, key, stages, width, limit=10 ** 9):
    rows = doc.get(key)
    if (not isinstance(rows, list) or len(rows) != stages
            or not all(isinstance(r, list) and len(r) == width for r in rows)):
        raise ValueModelError(f"{path}: '{key}' must be {stages} rows of {width} integers "
                              "(one per stage; remake the file with vale-sim train)")
    for r in rows:
        for v in r:
            if isinstance(v, bool) or not isinstance(v, int) or abs(v) > limit:
                raise ValueModelError(f"{path}: '{key}' holds {v!r}: weights are integers "
                                      f"within ±{limit} (remake the file with vale-sim train)")
    return tuple(tuple(r) for r in rows)


def _vp_row(path, doc, stages) -> tuple[int, ...]:
    """The optional ``vp`` row (version 2): one integer >= 0 per stage, or ()."""
    if "vp" not in doc:
        return ()
    if doc.get("version", 1) < 2:
        raise ValueModelError(f"{path}: 'vp' needs version 2 (remake it with vale-sim train)")
    row = doc["vp"]
    if (not isinstance(row, list) or len(row) != stages
            or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 10 ** 9
                   for v in row)):
        raise ValueModelError(f"{path}: 'vp' must be {stages} integers >= 0 (a VP token's "
                              "value per stage; a VP is a benefit), got "
                              f"{row!r}; remake it with vale-sim train")
    return tuple(row)


def load_model(path, game: str, adv: FeatureSpec, vale: FeatureSpec) -> ValueModel:
    """Read and check a model file against the game's features."""
    from .inputs import InputFileError, read_json
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise ValueModelError(f"{path}: cannot read the value model ({e.strerror or e}); "
                              "give an existing file made by vale-sim train") from None
    if size > MAX_MODEL_BYTES:
        raise ValueModelError(f"{path}: {size} bytes is too large for a value model "
                              f"(at most {MAX_MODEL_BYTES}); give a file made by vale-sim train")
    try:
        doc = read_json(path, "value model", MAX_MODEL_BYTES)
    except InputFileError as e:
        raise ValueModelError(str(e)) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueModelError(f"{path}: not a value model (format must be {FORMAT!r}); "
                              "give a file made by vale-sim train")
    if doc.get("version") not in READ_VERSIONS:
        raise ValueModelError(f"{path}: value model version {doc.get('version')!r} is not "
                              f"one of {', '.join(map(str, READ_VERSIONS))}; remake it with "
                              "vale-sim train")
    if doc.get("game") != game:
        raise ValueModelError(f"{path}: a model of {doc.get('game')!r}, not {game!r}; "
                              "give a model trained for this game")
    if doc.get("scale") != SCALE:
        raise ValueModelError(f"{path}: scale {doc.get('scale')!r} is not {SCALE}; "
                              "remake it with vale-sim train")
    stages = doc.get("stages")
    if isinstance(stages, bool) or not isinstance(stages, int) or not 1 <= stages <= MAX_STAGES:
        raise ValueModelError(f"{path}: 'stages' must be an integer 1..{MAX_STAGES}")
    players = doc.get("players")
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 8:
        raise ValueModelError(f"{path}: 'players' must be a player count")
    for key, spec in (("adv_features", adv), ("vale_features", vale)):
        if doc.get(key) != list(spec.names):
            raise ValueModelError(f"{path}: '{key}' are not this version's features "
                                  f"({', '.join(spec.names)}); remake it with vale-sim train")
    m = ValueModel(game=game, players=players, stages=stages,
                   adv_features=adv.names, vale_features=vale.names,
                   adv=_int_rows(path, doc, "adv", stages, len(adv.names)),
                   vale=_int_rows(path, doc, "vale", stages, len(vale.names)),
                   command=str(doc.get("command", "")),
                   notes=doc.get("notes") if isinstance(doc.get("notes"), dict) else {},
                   vp=_vp_row(path, doc, stages))
    for key, spec, rows in (("adv", adv, m.adv), ("vale", vale, m.vale)):
        for s, r in enumerate(rows):
            for name, sign, w in zip(spec.names, spec.signs, r):
                if sign * w < 0:
                    raise ValueModelError(
                        f"{path}: '{key}' stage {s} weight of {name} is {w}: it must be "
                        f"{'>= 0' if sign > 0 else '<= 0'} (a value player never values a "
                        "benefit below nothing); remake it with vale-sim train")
    return m


def card_values(weights, feats: np.ndarray) -> np.ndarray:
    """[stage, card] integer values: ``weights`` [stage][feature] times ``feats``
    [card, feature] (integers)."""
    W = np.asarray(weights, dtype=np.int64).reshape(len(weights), -1)
    F = np.asarray(feats, dtype=np.int64).reshape(-1, W.shape[1])
    return W @ F.T


# ---------------------------------------------------------------------------
# Fitting (vale-sim train)
# ---------------------------------------------------------------------------
def relative_positions(gain: np.ndarray, game: np.ndarray, player: np.ndarray, players: int,
                       start: np.ndarray | None = None) -> np.ndarray:
    """Each row's position relative to the table, from per-row gains (training rows).

    ``gain`` [row, feature] is what the acting player ``player[row]`` gained at that row
    (rows in play order, games contiguous, ``game[row]`` a game index); ``start``
    [game, player, feature] what each player holds before the game's first row (default
    nothing).  Returns [row, feature]: the acting player's holdings so far (its start plus
    its gains up to and including the row) minus the mean of the other players'."""
    n, d = gain.shape
    G = np.zeros((n, players, d))
    G[np.arange(n), player] = gain
    C = np.cumsum(G, axis=0)
    starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
    C -= np.repeat(C[starts] - G[starts], np.diff(np.r_[starts, n]), axis=0)
    if start is not None:
        C += start[game]
    mine = C[np.arange(n), player]
    return mine - (C.sum(axis=1) - mine) / max(1, players - 1)


def stage_blocks(x: np.ndarray, stage: np.ndarray, widths, stages: int) -> np.ndarray:
    """The design matrix of :func:`fit_weights`: ``x`` [row, feature] cut into groups of
    ``widths`` columns (e.g. advancement features, vale features, one control), each group
    spread over ``stages`` blocks of which only the row's ``stage`` is filled: the columns
    group 0 stage 0, group 0 stage 1, ..., group 1 stage 0, ..."""
    n = len(x)
    X = np.zeros((n, sum(widths) * stages))
    col, off = 0, 0
    for w in widths:
        for s in range(stages):
            m = stage == s
            X[m, col + s * w:col + (s + 1) * w] = x[m, off:off + w]
        col += w * stages
        off += w
    return X


def fit_weights(X: np.ndarray, y: np.ndarray, groups: np.ndarray, spec_adv: FeatureSpec,
                spec_vale: FeatureSpec, stages: int, n_controls: int,
                ridge: float = 1e-3) -> dict:
    """Bounded least squares of outcomes on position features (regression on outcomes).

    ``X`` columns: stage-blocks of advancement features, stage-blocks of vale features,
    then ``n_controls`` free columns (e.g. VP banked, per stage); ``y`` the outcome
    (win share minus the fair share).  The benefit weights are bounded >= 0, decay's
    <= 0 (FeatureSpec signs).  A small ridge keeps features no card has at 0.  Returns
    the weights (floats) and the fit's R^2 and n."""
    from scipy.optimize import lsq_linear
    lo_a, hi_a = spec_adv.bounds(stages)
    lo_v, hi_v = spec_vale.bounds(stages)
    lo = np.concatenate([lo_a, lo_v, np.full(n_controls, -np.inf)])
    hi = np.concatenate([hi_a, hi_v, np.full(n_controls, np.inf)])
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    Xs = X / sd                                   # standardized: one ridge for all columns
    k = X.shape[1]
    # min ||Xs w - y||² + ridge n ||w||², solved on k rows: with G = XsᵀXs + ridge n I =
    # L Lᵀ (positive definite by the ridge) it is ||Lᵀ w - L⁻¹ Xsᵀ y||² + a constant, so
    # the bounded solver works on a k x k system, not on every position
    from scipy.linalg import solve_triangular
    L = np.linalg.cholesky(Xs.T @ Xs + ridge * len(y) * np.eye(k))
    r = lsq_linear(L.T, solve_triangular(L, Xs.T @ y, lower=True), bounds=(lo, hi),
                   method="bvls" if k <= 400 else "trf")
    w = r.x / sd
    resid = y - X @ w
    r2 = 1.0 - float(resid.var()) / float(y.var()) if y.var() > 0 else 0.0
    na, nv = len(spec_adv.names) * stages, len(spec_vale.names) * stages
    return {"adv": w[:na].reshape(stages, -1), "vale": w[na:na + nv].reshape(stages, -1),
            "controls": w[na + nv:], "r2": r2, "n": int(len(y)),
            "groups": int(len(np.unique(groups)))}


def scaled(w: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """Float weights as the model's integers (``round(SCALE * w)``)."""
    return tuple(tuple(int(round(SCALE * float(x))) for x in row) for row in np.atleast_2d(w))


def vp_field(policy_cls, vp) -> dict:
    """``{"value_vp": vp}`` for a game whose policy has that field (a push rule that
    values a Harvest's VP reads it, engine-spec §6.1), else nothing."""
    from dataclasses import fields
    return {"value_vp": tuple(vp)} if any(f.name == "value_vp" for f in fields(policy_cls)) else {}


def check_policy_weights(pol, adv: FeatureSpec, vale: FeatureSpec, error) -> None:
    """Check a policy's ``value_stages``/``value_adv``/``value_vale``/``value_vp`` (lists
    made tuples): 0 stages and no weights (a scripted player), or 1..MAX_STAGES rows of
    integers, one per feature, with the signs of the features' bounds, and ``value_vp``
    () or one integer >= 0 per stage.  ``error``: the exception class
    (the game's PolicyError)."""
    from .policy_files import INT_LIMIT
    where = f"policy {pol.name!r}"
    k = pol.value_stages
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_STAGES:
        raise error(f"{where}: value_stages must be an integer 0..{MAX_STAGES}, got {k!r}")
    vp = getattr(pol, "value_vp", ())
    if isinstance(vp, list):
        vp = tuple(vp)
        object.__setattr__(pol, "value_vp", vp)
    if vp != ():
        if k == 0:
            raise error(f"{where}: value_vp given without value_stages")
        if (not isinstance(vp, tuple) or len(vp) != k
                or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= INT_LIMIT
                       for v in vp)):
            raise error(f"{where}: value_vp must be {k} integers 0..{INT_LIMIT} (a VP token's "
                        f"value per stage), got {vp!r}")
    for key, spec in (("value_adv", adv), ("value_vale", vale)):
        rows = getattr(pol, key)
        if isinstance(rows, list):
            rows = tuple(tuple(r) if isinstance(r, list) else r for r in rows)
            object.__setattr__(pol, key, rows)
        if k == 0:
            if rows:
                raise error(f"{where}: {key} given without value_stages")
            continue
        if (not isinstance(rows, tuple) or len(rows) != k
                or not all(isinstance(r, tuple) and len(r) == len(spec.names) for r in rows)):
            raise error(f"{where}: {key} must be {k} rows of {len(spec.names)} integers "
                        f"({', '.join(spec.names)})")
        for s, r in enumerate(rows):
            for name, sign, w in zip(spec.names, spec.signs, r):
                if isinstance(w, bool) or not isinstance(w, int) or abs(w) > INT_LIMIT:
                    raise error(f"{where}: {key} stage {s} {name} must be an integer within "
                                f"±{INT_LIMIT}, got {w!r}")
                if sign * w < 0:
                    raise error(f"{where}: {key} stage {s} {name} is {w}: it must be "
                                f"{'>= 0' if sign > 0 else '<= 0'} (more of a benefit never "
                                "lowers a card's value)")


def policy_from_file(path, data: dict, book, spec_adv: FeatureSpec, spec_vale: FeatureSpec,
                     game: str):
    """A ``kind = "value"`` policy file: ``model`` (a model file, relative to the policy
    file), ``base`` (a preset for the fields the model does not give: push, tokens) and
    scalar fields to override.  The model's weights become the policy's."""
    from dataclasses import fields, replace
    from .policy_files import PolicyError
    data = dict(data)
    data.pop("kind")
    model = data.pop("model", None)
    if not isinstance(model, str) or not model:
        raise PolicyError(f"{path}: field 'model' must name a value model file "
                          "(made by vale-sim train), relative to this file")
    mp = Path(model) if Path(model).is_absolute() else Path(path).parent / model
    m = load_model(mp, game, spec_adv, spec_vale)
    base_name = data.pop("base", book.default)
    if not isinstance(base_name, str) or base_name not in book.presets:
        raise PolicyError(f"{path}: field 'base': unknown preset {base_name!r} "
                          f"(use one of {', '.join(book.presets)})")
    known = {f.name for f in fields(book.policy_cls)} - {
        "rules", "never", "value_stages", "value_adv", "value_vale", "value_vp"}
    for k in data:
        if k not in known:
            raise PolicyError(f"{path}: unknown field {k!r} of a value player (known: kind, "
                              f"model, base, {', '.join(sorted(known))})")
    data.setdefault("name", Path(path).stem)
    try:
        return replace(book.presets[base_name], value_stages=m.stages, value_adv=m.adv,
                       value_vale=m.vale, **vp_field(book.policy_cls, m.vp), **data)
    except (TypeError, PolicyError) as e:
        raise PolicyError(f"{path}: {e}") from None
