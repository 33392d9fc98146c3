"""``vale-sim simulate``: many games, results to Parquet, win rates by seat and policy."""
from __future__ import annotations

import json
import re
import sys
import warnings


def add_parser(sub) -> None:
    p = sub.add_parser("simulate", help="play many games; per-game results to Parquet and a summary",
                       description="Play N games (game i depends only on the seed and i), write "
                                   "one row per game and player to a Parquet directory, and print "
                                   "win rates by seat and by policy with 95% Wilson intervals, "
                                   "mean scores, spoil rate and mean rounds.  See docs/runs.md.")
    from ..limits import count, seed
    p.add_argument("--games", type=count(1), default=1000, help="number of games (default 1000)")
    p.add_argument("--players", type=int, default=2, help="2, 3 or 4 (default 2)")
    p.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    p.add_argument("--policy", action="append", metavar="NAME|FILE",
                   help="policy preset or file; give once for all players or once per player")
    p.add_argument("--set", default=None,
                   help="card set: a bundled name or a file (default: the game's, core)")
    from ..cli import add_rule_options
    add_rule_options(p)                   # the games' rule options (rules_class fields)
    p.add_argument("--workers", type=int, default=1,
                   help="local worker processes, 1 to 4 x the cores (default 1)")
    p.add_argument("--chunk-size", type=count(1), default=None, help="games per chunk (default: automatic)")
    p.add_argument("--out", default=None, metavar="results/NAME.parquet",
                   help="output directory (default results/simulate-<key>.parquet)")
    p.add_argument("--resume", action="store_true",
                   help="reuse the finished chunks of an interrupted run of the same configuration")
    from ..cli import add_scheduler_options
    add_scheduler_options(p, what="run the chunks")
    p.add_argument("--summary-only", action="store_true",
                   help="keep only the summary (memory does not grow with N); writes no Parquet")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast (numba; falls back to reference if unavailable) or reference")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)


def _config(args):
    from ..cli import (UserError, check_players, command_game, game_rules, rule_options,
                       scheduler_of)
    from ..io import check_workers
    from ..runner import RunConfig
    g = command_game(args)
    check_players(g, args.players)
    if args.games < 0:
        raise UserError(f"--games must be >= 0, got {args.games}")
    check_workers(args.workers)
    scheduler_of(args)                  # its timeouts: in range, and only with --scheduler
    if args.chunk_size is not None and args.chunk_size < 1:
        raise UserError(f"--chunk-size must be >= 1, got {args.chunk_size}")
    if args.summary_only and (args.out or args.resume):
        raise UserError("--summary-only writes no results; drop --out/--resume")
    try:
        rules = game_rules(g, **rule_options(args))
        return RunConfig(card_set=args.set or g.default_card_set, players=args.players,
                         seed=args.seed, games=args.games,
                         policies=tuple(args.policy or (g.default_policy,)), rules=rules,
                         engine=args.engine, game=g.name)
    except ValueError as e:
        raise UserError(str(e)) from None


def _default_out(cfg) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", cfg.cards().name)
    return f"results/simulate-{name}-{cfg.players}p-s{cfg.seed}-{cfg.key()[:10]}.parquet"


def run(args) -> int:
    from pathlib import Path
    from ..cli import UserError
    from ..runner import (MANIFEST, DaskRunStopped, effective_engine, run as run_games, summarize,
                          summarize_parts)
    cfg = _config(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        engine = effective_engine(cfg.engine, cfg.game)
    for w in caught:
        print(f"vale-sim simulate: warning: {w.message}", file=sys.stderr)
    progress = not args.no_progress and not args.json
    out = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)    # the fallback was reported above
        if args.summary_only:
            table = summarize(cfg, workers=args.workers, chunk_size=args.chunk_size,
                              progress=progress, scheduler=args.scheduler,
                              connect_timeout=args.connect_timeout,
                              worker_timeout=args.worker_timeout)
        else:
            out = args.out or _default_out(cfg)
            from ..io import check_output
            check_output(out, "dir", "--out")          # before any game is played
            # A default path is derived from the configuration's key: reusing it is safe.
            resume = args.resume or (args.out is None and (Path(out) / MANIFEST).exists())
            try:
                run_games(cfg, workers=args.workers, chunk_size=args.chunk_size, out=out,
                          resume=resume, progress=progress, scheduler=args.scheduler,
                          collect=False, connect_timeout=args.connect_timeout,
                          worker_timeout=args.worker_timeout)
            except DaskRunStopped as e:
                raise UserError(f"{e}; the finished chunks are kept in {out}: run the same "
                                f"command with --resume to finish") from None
            except KeyboardInterrupt:
                print(f"vale-sim simulate: finished chunks are kept in {out}; "
                      f"run the same command with --resume to finish", file=sys.stderr)
                raise
            table = summarize_parts(out, cfg)
    if args.json:
        print(json.dumps(_json_summary(cfg, engine, out, table), sort_keys=True))
        return 0
    cs = cfg.cards()
    names = [p.name for p in cfg.policy_list()]
    pols = names[0] if len(set(names)) == 1 else ", ".join(names)
    print(f"{cfg.games} games, {cfg.players} players, set {cs.name}, seed {cfg.seed}, "
          f"policies {pols}, engine {engine}")
    if out:
        print(f"per-game results: {out}")
    print(format_table(table, cfg.game_obj().event_column))
    return 0


def _json_summary(cfg, engine, out, table) -> dict:
    from ..games import DEFAULT_GAME
    from ..io import jsonable
    groups = {"seat": [], "policy": []}
    if len(table):
        for (group, value), r in table.to_dict("index").items():
            row = jsonable(r)
            row[group] = int(value) if group == "seat" else value      # seat 1 = first
            groups[group].append(row)
    out = {"games": cfg.games, "players": cfg.players, "seed": cfg.seed,
           "card_set": cfg.cards().name, "engine": engine, "key": cfg.key(), "out": out,
           "by_seat": groups["seat"], "by_policy": groups["policy"]}
    if cfg.game != DEFAULT_GAME:               # as in run manifests: the default game names none
        out["game"] = cfg.game
    return out


def format_table(table, event: str = "spoils") -> str:
    """The summary as aligned text: one line per seat (1 = the starting player), then
    per policy; every rate and mean with its 95% interval, clustered by game.
    ``event``: the game's event column (e.g. spoils)."""
    from ..runner import event_names
    per, share = event_names(event)
    def iv(v, lo, hi, fmt):
        return f"{v:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"
    head = (f"{'':<18} {'games':>8} {'win rate [95% CI]':>23} {'score [95% CI]':>23} "
            f"{'sd':>5} {event + '/game [95% CI]':>20} {'any ' + event.rstrip('s') + ' [95% CI]':>23} "
            f"{'rounds [95% CI]':>20}")
    lines = [head]
    if not len(table):
        return head + "\n(no games)"
    for (group, value), r in table.iterrows():
        label = (f"seat {value}" + (" (first)" if str(value) == "1" else "")
                 if group == "seat" else f"policy {value}")
        lines.append(
            f"{label:<18} {int(r['games']):>8} "
            f"{iv(r['win_rate'], r['win_lo'], r['win_hi'], '.3f'):>23} "
            f"{iv(r['mean_score'], r['mean_score_lo'], r['mean_score_hi'], '.2f'):>23} "
            f"{r['sd_score']:>5.2f} "
            f"{iv(r[per], r[per + '_lo'], r[per + '_hi'], '.2f'):>20} "
            f"{iv(r[share], r[share + '_lo'], r[share + '_hi'], '.3f'):>23} "
            f"{iv(r['mean_rounds'], r['mean_rounds_lo'], r['mean_rounds_hi'], '.1f'):>20}")
    lines.append("games = player-games; intervals clustered by game (players of one game are "
                 "not independent).")
    return "\n".join(lines)
