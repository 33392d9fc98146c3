"""``vale-sim tournament``: policies against each other, seats rotated on common seeds."""
from __future__ import annotations

import json
import sys
import warnings


def add_parser(sub) -> None:
    p = sub.add_parser(
        "tournament", help="policies against each other: win rates with intervals, seat advantage, ranking",
        description="Play every matchup of the given policies with seats rotated on the same seeds "
                    "(each deal is played once per rotation, so every policy sits in every seat "
                    "equally often).  2 players: every pair head to head.  3-4 players: each policy "
                    "against copies of a baseline (--mode field, the default) or every group of "
                    "distinct policies (--mode round-robin).  Prints win rate (shared wins count "
                    "1/k), tie rate, mean score, game length and spoils per turn with n and 95%% "
                    "intervals, win rate by seat, and a Bradley-Terry ranking.  See "
                    "docs/statistics.md.")
    p.add_argument("--policies", required=True, metavar="A,B,...",
                   help="comma-separated presets or policy files")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--games", type=int, default=2600,
                   help="games per matchup, rounded up to a multiple of --players (default 2600: ±2 pp at 50%%)")
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    p.add_argument("--set", default="core", help="card set: core, starter or a file (default core)")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast")
    p.add_argument("--mode", choices=("round-robin", "field"), default=None,
                   help="default: round-robin for 2 players, field for 3-4")
    p.add_argument("--baseline", default=None, metavar="NAME|FILE",
                   help="the field policy in --mode field (default: the first of --policies)")
    p.add_argument("--prep-count", choices=("net", "gross"), default="net")
    p.add_argument("--vp-pool", type=int, default=None)
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="also save win rates, seats and ranking as a figure")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run)


def _pct(r, lo, hi) -> str:
    return f"{100 * r:5.1f} [{100 * lo:5.1f}, {100 * hi:5.1f}]"


def format_tournament(t) -> str:
    """The three tables as aligned text (percentages)."""
    c = t.config
    lines = [f"{c['games_per_matchup']} games per matchup ({c['deals']} deals x {c['players']} seat "
             f"rotations), {c['players']} players, set {c['card_set']}, seed {c['seed']}, "
             f"engine {c['engine']}, mode {c['mode']}"
             + (f" (baseline {c['baseline']})" if c.get("baseline") else ""),
             "Rates in %, [95% interval]; win = shared wins count 1/k; spoils per turn.", ""]
    head = (f"{'matchup':<28} {'policy':<14} {'n':>6} {'win %':>20} {'tie %':>20} "
            f"{'score':>6} {'rounds':>6} {'spoils/turn %':>20}")
    lines.append(head)
    for _, r in t.table.iterrows():
        lines.append(f"{r['matchup'][:28]:<28} {r['policy'][:14]:<14} {r['n']:>6} "
                     f"{_pct(r['win_rate'], r['win_lo'], r['win_hi']):>20} "
                     f"{_pct(r['tie_rate'], r['tie_lo'], r['tie_hi']):>20} "
                     f"{r['mean_score']:>6.1f} {r['mean_rounds']:>6.1f} "
                     f"{_pct(r['spoil_rate'], r['spoil_lo'], r['spoil_hi']):>20}")
    lines += ["", "Seat advantage (seat 0 = starting player), all games:",
              f"{'seat':>4} {'n':>7} {'win %':>20} {'score':>6}"]
    for _, r in t.seats[t.seats["policy"] == "all"].iterrows():
        lines.append(f"{r['seat']:>4} {r['n']:>7} {_pct(r['win_rate'], r['win_lo'], r['win_hi']):>20} "
                     f"{r['mean_score']:>6.1f}")
    lines += ["", "Bradley-Terry ranking (Elo scale, mean 0; 95% interval):",
              f"{'policy':<20} {'Elo':>6} {'interval':>17} {'P(beat avg) %':>13}"]
    for _, r in t.ranking.iterrows():
        lines.append(f"{r['name'][:20]:<20} {r['elo']:>6.0f} [{r['elo_lo']:>6.0f}, {r['elo_hi']:>6.0f}] "
                     f"{100 * r['expected_vs_mean']:>13.1f}")
    return "\n".join(lines)


def run(args) -> int:
    from ..cli import UserError
    from ..rules import Rules
    from ..tournament import tournament
    from ..io import check_outputs, check_workers
    check_outputs((args.plot, "file", "--plot"))    # before any game is played
    names = [s.strip() for s in args.policies.split(",") if s.strip()]
    if not names:
        raise UserError("--policies: give at least one policy")
    if args.games < 1:
        raise UserError(f"--games must be >= 1, got {args.games}")
    check_workers(args.workers)
    try:
        rules = Rules(prep_count=args.prep_count, vp_pool=args.vp_pool)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            t = tournament(names, players=args.players, games=args.games, seed=args.seed,
                           card_set=args.set, engine=args.engine, rules=rules, mode=args.mode,
                           baseline=args.baseline, workers=args.workers)
    except ValueError as e:
        raise UserError(str(e)) from None
    for msg in sorted({str(w.message) for w in caught}):
        print(f"vale-sim tournament: warning: {msg}", file=sys.stderr)
    if args.plot:
        from ..plots.tournament import plot_tournament
        plot_tournament(t).savefig(args.plot, dpi=120, bbox_inches="tight")
    if args.json:
        print(json.dumps(t.to_json(), sort_keys=True))
    else:
        print(format_tournament(t))
    return 0
