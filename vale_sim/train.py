"""vale-sim train: learn a value player by self-play (docs/value.md).

Fitted policy iteration with a linear value of positions (vale_sim.value):

1. play ``games`` self-play games on the fast engine: every seat the current player
   (at iteration 0 the game's ``start`` policy), buying at random with the chance
   ``explore`` per purchase so that every card is seen in every stage;
2. regress the outcome of every game (win share − fair share) on the positions the
   players reached (after each of their turns: their cards' features minus the others',
   per stage), benefits bounded >= 0 and decay <= 0 (bounded least squares, scipy);
3. the fitted weights make the next value player; it plays ``eval_deals`` deals against
   the best player so far (every seat of every deal, no exploration, deal-clustered
   interval); it becomes the best when it wins more than the fair share.

It stops after ``iterations`` iterations, or earlier after ``patience`` iterations in a
row without a better player.  Each iteration is written to the checkpoint (JSON, the
run's key checked on ``--resume``), so an interrupted run loses at most one iteration.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from . import value as vm
from .errors import UserError
from .games import DEFAULT_GAME

KIND = "vale-sim train"


@dataclass(frozen=True)
class TrainConfig:
    game: str = DEFAULT_GAME
    players: int = 2
    seed: int = 0
    games: int = 20_000            # self-play games per iteration
    iterations: int = 6
    patience: int = 2
    stages: int = 3
    explore: int = 150             # per mille, in the self-play games only
    eval_deals: int = 2_000
    start: str = "balanced"        # iteration 0's player
    base: str = "lookahead"        # the value player's push, token and sleeve fields
    card_set: str | None = None

    def key(self) -> str:
        import hashlib
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]


def _game(cfg: TrainConfig):
    from .games import get_game
    return get_game(cfg.game)


def value_module(g):
    """The game's value-player module (its features; ``training`` beside it plays the
    training games), or a UserError."""
    import importlib
    try:
        return importlib.import_module(f"{g.package}.value")
    except ModuleNotFoundError:
        raise UserError(f"train: {g.name} has no value player yet (docs/value.md)") from None


def value_base(g, base: str):
    """The fields of a value player that are not its weights: those of the policy
    ``base`` (a preset or e.g. meta-2p), buying from value 1, no cost weight, no lists,
    no exploration."""
    return replace(g.get_policy(base), min_score=1, vale_min_score=1, w_cost=0, never=(),
                   rules=(), explore_permille=0)


def make_policy(g, cfg: TrainConfig, weights: dict, name: str):
    """The value player of ``weights`` (float arrays [stage, feature]; ``controls``, the
    fit's per-stage weights of VP tokens, if given, become its ``value_vp`` where the
    game's policy has one: the value of a VP token, read by a push rule that values a
    Harvest's VP, engine-spec §6.1; at least 0)."""
    ctl = weights.get("controls")
    vp = () if ctl is None else tuple(max(0, v) for v in vm.scaled(ctl)[0])
    base = value_base(g, cfg.base)
    return replace(base, name=name, value_stages=cfg.stages,
                   value_adv=vm.scaled(weights["adv"]), value_vale=vm.scaled(weights["vale"]),
                   **vm.vp_field(type(base), vp))


def self_play(g, mod, cs, cfg: TrainConfig, pol, seed: int, progress=None):
    """(X, y, groups) of cfg.games self-play games of ``pol`` (exploring), in chunks."""
    from dataclasses import replace as rp
    import importlib
    training = importlib.import_module(f"{g.package}.training")   # plays games: the engine
    explorer = rp(pol, explore_permille=cfg.explore)
    chunk = max(200, 20_000 // (cfg.players * cfg.players))
    parts = []
    done = 0
    while done < cfg.games:
        n = min(chunk, cfg.games - done)
        parts.append(training.training_data(cs, cfg.players, [explorer] * cfg.players, seed,
                                            done, n, cfg.stages))
        done += n
        if progress is not None:
            progress(n)
    return tuple(np.concatenate(z) for z in zip(*parts))


def evaluate(g, cs, cfg: TrainConfig, new, old, seed: int) -> dict:
    """Win share of ``new`` against players - 1 copies of ``old`` on eval_deals deals,
    every seat (deal-clustered 95% interval)."""
    from . import optimize as opt
    from .exploit import _estimate_row
    obj = opt.GameObjective(cs, cfg.players, cfg.eval_deals, None, "fast", 1, None, g.name)
    try:
        (sh,) = obj.many_shares([(new, old)], seed, cfg.eval_deals, None)
    finally:
        obj.close()
    return _estimate_row(sh, cfg.players, 0.95, seed)


def _weights_json(w: dict) -> dict:
    return {"adv": np.asarray(w["adv"]).tolist(), "vale": np.asarray(w["vale"]).tolist()}


def train(cfg: TrainConfig, checkpoint: Path | None = None, resume: bool = False,
          progress=None, say=print) -> tuple[vm.ValueModel, list[dict]]:
    """Run the iterations; returns the best model and one record per iteration."""
    g = _game(cfg)
    mod = value_module(g)
    cs = g.load_card_set(cfg.card_set or g.default_card_set)
    log: list[dict] = []
    if resume and checkpoint is not None and checkpoint.exists():
        log = _read_checkpoint(checkpoint, cfg)
        say(f"resuming after iteration {len(log) - 1} ({checkpoint})")
    current = g.get_policy(cfg.start)
    best, stale = None, 0
    for rec in log:                                  # replay the decisions of the log
        cand = make_policy(g, cfg, dict(rec["weights"], controls=rec.get("controls")),
                           f"value-it{rec['iteration']}")
        if rec["accepted"]:
            best, stale = cand, 0
        else:
            stale += 1
        current = best if best is not None else cand
    for it in range(len(log), cfg.iterations):
        if stale >= cfg.patience:
            break
        seed = cfg.seed * 1000 + it
        X, y, groups = self_play(g, mod, cs, cfg, current, seed, progress)
        fit = vm.fit_weights(X, y, groups, mod.ADV_SPEC, mod.VALE_SPEC, cfg.stages, cfg.stages)
        cand = make_policy(g, cfg, fit, f"value-it{it}")
        rec = {"iteration": it, "seed": seed, "games": cfg.games, "rows": fit["n"],
               "r2": fit["r2"], "weights": _weights_json(fit),
               "controls": np.asarray(fit["controls"]).tolist()}
        if best is None:
            rec["accepted"] = True
            rec["against"] = None
        else:
            e = evaluate(g, cs, cfg, cand, best, seed + 500)
            rec["against"] = f"value-it{_best_it(log)}"
            rec["eval"] = e
            rec["accepted"] = bool(e["lo"] > 1.0 / cfg.players)
        say(_line(rec, cfg))
        log.append(rec)
        if rec["accepted"]:
            best, stale = cand, 0
        else:
            stale += 1
        current = best
        if checkpoint is not None:
            _write_checkpoint(checkpoint, cfg, log)
    if best is None:
        raise UserError("train: no iteration was run (raise --iterations)")
    return model_of(cfg, best), log


def _best_it(log: list[dict]) -> int:
    return [r["iteration"] for r in log if r["accepted"]][-1]


def _line(rec: dict, cfg: TrainConfig) -> str:
    s = (f"iteration {rec['iteration']}: {rec['games']} self-play games, {rec['rows']} "
         f"positions, R² {rec['r2']:.3f}")
    e = rec.get("eval")
    if e:
        s += (f"; against {rec['against']}: {100 * e['win_share']:.1f}% "
              f"[{100 * e['lo']:.1f}, {100 * e['hi']:.1f}] (fair {100 / cfg.players:.1f}%, "
              f"n = {e['n']}, {e['deals']} deals) -> "
              + ("better, kept" if rec["accepted"] else "not better"))
    return s


def model_of(cfg: TrainConfig, pol) -> vm.ValueModel:
    g = _game(cfg)
    mod = value_module(g)
    return vm.ValueModel(game=g.name, players=cfg.players, stages=cfg.stages,
                         adv_features=mod.ADV_SPEC.names, vale_features=mod.VALE_SPEC.names,
                         adv=pol.value_adv, vale=pol.value_vale, vp=getattr(pol, "value_vp", ()))


def _write_checkpoint(path: Path, cfg: TrainConfig, log: list[dict]) -> None:
    from .io import atomic_write
    doc = {"format": KIND + " checkpoint", "version": 1, "key": cfg.key(),
           "config": asdict(cfg), "log": log}
    atomic_write(path, json.dumps(doc, default=float) + "\n")


def _read_checkpoint(path: Path, cfg: TrainConfig) -> list[dict]:
    from .inputs import InputFileError, read_json
    try:
        doc = read_json(path, "checkpoint", 64 << 20)
    except InputFileError as e:
        raise UserError(f"{e} (delete it or run without --resume)") from None
    if not isinstance(doc, dict) or doc.get("format") != KIND + " checkpoint":
        raise UserError(f"{path}: not a vale-sim train checkpoint (give the one this "
                        "command wrote, or run without --resume)")
    if doc.get("key") != cfg.key():
        raise UserError(f"{path}: made by another train run (its settings differ); give the "
                        "same options as that run, or run without --resume")
    log = doc.get("log")
    if not isinstance(log, list) or not all(isinstance(r, dict) and "weights" in r
                                            for r in log):
        raise UserError(f"{path}: its log is damaged; run without --resume")
    return log
