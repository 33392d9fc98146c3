"""``vale-sim train``: learn a value player by self-play (vale_sim.train; docs/value.md)."""
from __future__ import annotations

import sys
import time
from pathlib import Path


def add_parser(sub) -> None:
    from ..limits import count, seed
    from ..train import TrainConfig
    d = TrainConfig()
    p = sub.add_parser(
        "train", help="learn a value player by self-play (docs/value.md)",
        description="Fitted policy iteration on the fast engine: self-play games of the "
                    "current player (exploring), a bounded least-squares fit of the outcome on "
                    "the positions reached (what the cards do, by stage of the game; never a "
                    "card's name or cost), the new player against the best so far on held-out "
                    "deals; until it stops improving.  Writes OUT (the model, JSON), "
                    "OUT.policy.toml (a value player using it: --policy FILE) and "
                    "OUT.checkpoint.json (for --resume).")
    p.add_argument("--players", type=int, required=True, choices=(2, 3, 4),
                   help="2, 3 or 4: the player count the value player is trained for")
    p.add_argument("--set", default=None, help="card set: a bundled name or a file "
                                                "(default: the game's default set)")
    p.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    p.add_argument("--games", type=count(100), default=d.games,
                   help=f"self-play games per iteration (default {d.games})")
    p.add_argument("--iterations", type=count(1, "iterations", 100), default=d.iterations,
                   help=f"at most this many iterations (default {d.iterations})")
    p.add_argument("--patience", type=count(1, "iterations", 100), default=d.patience,
                   help="stop after this many iterations in a row without a better player "
                        f"(default {d.patience})")
    p.add_argument("--stages", type=count(1, "stages", 4), default=d.stages,
                   help=f"stages of the game with their own weights, 1-4 (default {d.stages})")
    p.add_argument("--explore", type=count(0, "per mille", 1000), default=d.explore,
                   help="chance per mille of a random purchase in the self-play games "
                        f"(default {d.explore})")
    p.add_argument("--eval-deals", type=count(1, "deals"), default=d.eval_deals,
                   help=f"held-out deals of each new player against the best (default {d.eval_deals})")
    p.add_argument("--start", default=None, metavar="NAME|FILE",
                   help="the policy of iteration 0's self-play (default: the game's "
                        "TRAIN_START, or its strongest bundled field; docs/value.md)")
    p.add_argument("--base", default=None, metavar="NAME",
                   help="the preset or policy (e.g. meta-2p) giving the value player's "
                        "fields that are not scores (push, tokens, sleeving; default: the "
                        "game's TRAIN_BASE, or its strongest bundled field); "
                        "written to the policy file as a preset and the fields that differ "
                        "from it")
    p.add_argument("--out", default=None, metavar="FILE.json",
                   help="the model file to write (default value-<P>p.json)")
    p.add_argument("--resume", action="store_true",
                   help="continue from OUT.checkpoint.json (same options)")
    p.add_argument("--progress", action="store_true",
                   help="show the progress bar even when stderr is not a terminal")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def _default(g, mod, name: str, fallback: str, players: int) -> str:
    """The game's default --start or --base (its value module's ``name``; None: the
    game's strongest bundled field), ``{P}`` standing for the player count."""
    v = getattr(mod, name, fallback)
    if v is None:
        from ..strong_field import field_of
        v = field_of(g)
    return v.replace("{P}", str(players))


def output_paths(out) -> dict:
    out = Path(out)
    stem = out.with_suffix("") if out.suffix == ".json" else out
    return {"model": out, "policy": Path(f"{stem}.policy.toml"),
            "checkpoint": Path(f"{stem}.checkpoint.json")}


#: Fields a value policy file never carries (vale_sim.value.policy_from_file, make_policy).
_NOT_WRITTEN = ("name", "rules", "never", "explore_permille", "min_score", "vale_min_score",
                "value_stages", "value_adv", "value_vale")


def base_fields(g, base: str) -> tuple[str, list[str]]:
    """(preset, field lines) that make a value policy file's fields those of ``base``: a
    preset of the game is itself; another policy (a bundled file, e.g. meta-2p) is the
    game's default preset and the fields where it differs from it."""
    import importlib
    from dataclasses import fields
    mod = importlib.import_module(f"{g.package}.policy")
    if base in mod.BOOK.presets:
        return base, []
    from ..train import value_base
    default = mod.BOOK.presets[mod.BOOK.default]
    pol = value_base(g, base)
    lines = []
    for f in fields(default):
        v = getattr(pol, f.name)
        if f.name in _NOT_WRITTEN or v == getattr(default, f.name):
            continue
        if isinstance(v, bool):
            lines.append(f"{f.name} = {str(v).lower()}")
        elif isinstance(v, str):
            lines.append(f'{f.name} = "{v}"')
        else:
            lines.append(f"{f.name} = {v}")
    return mod.BOOK.default, lines


def policy_text(model_path: Path, policy_path: Path, pol, base: str, header: str,
                fields=()) -> str:
    """A ``kind = "value"`` policy file for the model (its path relative to the file);
    ``fields``: lines of fields after the base's (base_fields)."""
    import os
    rel = os.path.relpath(model_path.resolve(), policy_path.resolve().parent)
    from ..io import MARK
    lines = [f"# {MARK}", *(f"# {x}" for x in header.splitlines()),
             'kind = "value"', f'model = "{rel}"', f'base = "{base}"',
             f'name = "{policy_path.name.removesuffix(".policy.toml")}"',
             "min_score = 1", "vale_min_score = 1", *fields]
    return "\n".join(lines) + "\n"


def run(args) -> int:
    from dataclasses import replace
    from ..cli import UserError, check_players, keep_for_resume
    from ..games import get_game
    from ..io import atomic_write, check_output
    from .. import train as tr
    t0 = time.time()
    g = get_game(args.game)
    check_players(g, args.players)
    mod = tr.value_module(g)                         # a UserError if the game has none
    d = tr.TrainConfig()
    args.start = args.start or _default(g, mod, "TRAIN_START", d.start, args.players)
    args.base = args.base or _default(g, mod, "TRAIN_BASE", d.base, args.players)
    if args.base not in g.presets:
        raise UserError(f"--base {args.base!r}: give a preset of {g.name} "
                        f"({', '.join(g.presets)})")
    g.get_policy(args.start)                          # a bad --start: one line, before any game
    out = Path(args.out or f"value-{args.players}p.json")
    if out.suffix != ".json":
        raise UserError(f"--out {out}: give a .json file name (the model)")
    paths = output_paths(out)
    for kind, path in paths.items():
        check_output(path, "file", "--out", force=args.force,
                     ours=True if kind == "checkpoint" else None)
    ck = paths["checkpoint"]
    if ck.exists() and not args.resume:
        raise UserError(f"{ck} exists (an earlier train run): add --resume to continue it, "
                        "or delete it")
    keep_for_resume(args, ck, "the finished iterations")
    cfg = tr.TrainConfig(game=g.name, players=args.players, seed=args.seed, games=args.games,
                         iterations=args.iterations, patience=args.patience,
                         stages=args.stages, explore=args.explore, eval_deals=args.eval_deals,
                         start=args.start, base=args.base, card_set=args.set)
    bar = None
    if args.progress or sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=args.games * args.iterations, unit="game", unit_scale=True,
                   dynamic_ncols=True, file=sys.stderr, desc="train")
    try:
        model, log = tr.train(cfg, checkpoint=ck, resume=args.resume,
                              progress=bar.update if bar is not None else None,
                              say=(bar.write if bar is not None else print))
    finally:
        if bar is not None:
            bar.close()
    argv = getattr(args, "_argv", None) or []
    cmd = "vale-sim train " + " ".join(argv[1:] if argv[:1] == ["train"] else argv)
    best = [r for r in log if r["accepted"]][-1]
    model = replace(model, command=cmd.strip(),
                    notes={"iterations": len(log), "best_iteration": best["iteration"],
                           "seed": args.seed, "games_per_iteration": args.games,
                           "card_set": cfg.card_set or g.default_card_set,
                           "log": [{k: r[k] for k in ("iteration", "rows", "r2", "accepted")}
                                   | ({"eval": r["eval"]} if r.get("eval") else {})
                                   for r in log],
                           "seconds": round(time.time() - t0, 1)})
    header = (f"vale-sim train: a value player of {g.name}, {args.players} players "
              f"(docs/value.md).\nRun: {model.command}")
    model.save(paths["model"])
    preset, extra = base_fields(g, args.base)
    atomic_write(paths["policy"], policy_text(paths["model"], paths["policy"],
                                              None, preset, header, extra))
    print(f"best: iteration {best['iteration']} of {len(log)}; wrote {paths['model']} and "
          f"{paths['policy']} (use with --policy {paths['policy']})")
    return 0
