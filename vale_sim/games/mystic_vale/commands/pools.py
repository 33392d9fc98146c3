"""``vale-sim pools``: VP pool size by player count (game length, seat advantage)."""
from __future__ import annotations

import json
import sys


def add_parser(sub) -> None:
    p = sub.add_parser("pools", help="VP pool sizes by player count: length, seat advantage, score make-up",
                       description="Play the same games (common random numbers) at every VP pool "
                                   "size and player count; recommend a pool size per player count. "
                                   "The rulebook pools 23/28/33 are always included.")
    p.add_argument("--players", default="2,3,4", help="player counts, e.g. 2,3,4 (default)")
    p.add_argument("--pools", default="15:45:2", help="pool sizes lo:hi:step or a comma list (default 15:45:2)")
    from vale_sim.limits import count, seed
    p.add_argument("--games", type=count(2), required=True, help="games per (player count, pool size)")
    p.add_argument("--seed", type=seed, default=1, help="master seed (default 1)")
    p.add_argument("--set", dest="card_set", default="core", help="card set name or file (default core)")
    p.add_argument("--baseline", "--policy", dest="baseline", default=None, metavar="NAME|FILE",
                   help="the policy of every seat: a preset, a bundled policy (optimized-2p) or a "
                        "policy .toml file; {P} stands for the player count, e.g. "
                        "optimized-{P}p (default: balanced; --policy is the old name)")
    p.add_argument("--engine", default="auto", choices=("auto", "fast", "reference"),
                   help="auto (default): fast when numba is available, else reference")
    p.add_argument("--target", default="equal-length", choices=("equal-length", "seat-advantage"),
                   help="what the recommended pool size should achieve (default: equal expected "
                        "game length across player counts, matching the 2-player rulebook game)")
    p.add_argument("--margin", type=float, default=None, metavar="M",
                   help="equivalence margin: a pool meets the target when the 90%% interval of "
                        "its difference lies inside ±M rounds (equal-length, default 0.5), or when "
                        "its largest seat gap is below M percentage points (seat-advantage, "
                        "default 3)")
    p.add_argument("--workers", type=int, default=1, help="local worker processes, 1 to 4 x the cores (default 1)")
    p.add_argument("--json", action="store_true", help="one JSON record per (players, pool)")
    p.add_argument("--plot", metavar="DIR", default=None, help="also write the two figures (PNG) to DIR")
    from vale_sim.io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from vale_sim.cli import UserError
    from vale_sim.games.mystic_vale import pools
    from vale_sim.io import check_outputs, check_workers
    check_outputs((args.plot, "dir", "--plot"))      # before any game is played
    if args.plot:
        from pathlib import Path
        from vale_sim.io import check_replaceable_file
        for name in PLOT_NAMES:
            check_replaceable_file(Path(args.plot) / f"{name}.png", "--plot", args.force)
    check_workers(args.workers)
    try:
        players = pools.parse_players(args.players)
        grid = pools.parse_pools(args.pools, players)
    except ValueError as e:
        raise UserError(str(e)) from None
    if args.games < 2:
        raise UserError(f"--games must be at least 2, got {args.games}")
    margin = None
    if args.margin is not None:
        if not (args.margin > 0 and args.margin < float("inf")):
            raise UserError(f"--margin must be a positive number, got {args.margin}")
        margin = args.margin if args.target == "equal-length" else args.margin / 100
    if args.seed < 0:
        raise UserError(f"--seed must be non-negative, got {args.seed}")
    baseline = args.baseline
    if baseline is not None:
        from vale_sim.games.mystic_vale.cards import load_card_set
        from vale_sim.robustness import resolve_baseline
        cs = load_card_set(args.card_set)            # CardSetError -> exit 2
        # PolicyError -> one line, exit 2, before any game runs
        names = {p: resolve_baseline(baseline, p, cs).name for p in players}
        baseline_text = ", ".join(f"{p}p: {n}" for p, n in names.items())
    else:
        baseline_text = "balanced"
    frame = pools.simulate_pools(args.card_set, players, grid, games=args.games, seed=args.seed,
                                 engine=args.engine, baseline=baseline,
                                 progress=not args.json and sys.stderr.isatty(),
                                 workers=args.workers)
    summary = pools.summarize_pools(frame)
    recs = []
    if 2 in players and pools.RULEBOOK_POOLS[2] in grid or args.target == "seat-advantage":
        recs = pools.recommend(summary, args.target, margin=margin, frame=frame)
    if args.json:
        records = pools.to_records(summary, recs)
        for r in records:
            r.update(seed=args.seed, engine=pools.resolve_engine(args.engine),
                     baseline=pools.baseline_name(baseline, r["players"]))
        json.dump(records, sys.stdout, indent=1)
        print()
        _save_plots(args.plot, summary, recs)
        return 0
    print(f"{args.games} games per cell, seed {args.seed}, card set {args.card_set}, "
          f"engine {pools.resolve_engine(args.engine)}, baseline {baseline_text}; "
          f"95% intervals\n")
    print(pools.format_table(summary))
    if recs:
        goal = ("equal expected game length (the 2-player rulebook game)"
                if args.target == "equal-length" else "smallest seat advantage (largest seat gap)")
        marg = recs[0].margin
        test = (f"equivalent = the 90% interval of the length difference (paired by game) lies "
                f"within ±{marg:.2f} rounds (two one-sided tests); shown different = its 95% "
                f"interval lies wholly outside; else inconclusive"
                if args.target == "equal-length" else
                f"equivalent = the largest seat gap's 95% interval lies below {100 * marg:.1f} pp; "
                f"shown different = it lies wholly above; else inconclusive")
        print(f"\nRecommended pool sizes — target: {goal}; {test}")
        for r in recs:
            print("  " + r.sentence())
        print()
        cols = ["players", "unit", "margin", "equivalent_pools", "closest_pool", "n_games", "value",
                "value_lo", "value_hi", "rulebook_pool", "rulebook_difference",
                "rulebook_difference_lo", "rulebook_difference_hi", "rulebook_verdict"]
        print(pools.recommendations_frame(recs)[cols].to_string(index=False))
    _save_plots(args.plot, summary, recs)
    return 0


PLOT_NAMES = ("pool_length", "seat_advantage")     # the figures of --plot DIR


def _save_plots(folder, summary, recs) -> None:
    """``--plot DIR``: the two figures, written (atomically) after the results are
    printed, so a full disk loses none of them."""
    if not folder:
        return
    from pathlib import Path
    from vale_sim.io import os_error_message, save_figure
    from vale_sim.errors import UserError
    from vale_sim.games.mystic_vale.plots import pools as pplots
    sys.stdout.flush()
    d = Path(folder)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(os_error_message(e, d)) from None
    for name, fig in zip(PLOT_NAMES, (pplots.length_vs_pool(summary, recs),
                                      pplots.seat_heatmap(summary))):
        save_figure(fig, d / f"{name}.png", dpi=110, bbox_inches="tight")
