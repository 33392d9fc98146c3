"""``vale-sim tournament``: policies against each other in every seating, on common seeds."""
from __future__ import annotations

import json
import sys
import warnings


def add_parser(sub) -> None:
    p = sub.add_parser(
        "tournament", help="policies against each other: win rates with intervals, seat advantage, ranking",
        description="Play every matchup of the given policies in every seating on the same seeds "
                    "(each deal is played once per distinct order of the line-up -- 2 or --players "
                    "orders for a policy against copies of another, 6 or 24 for 3 or 4 different "
                    "policies -- so every policy sits in every seat, and right after every other "
                    "policy, equally often, whatever order --policies lists them in).  "
                    "2 players: every pair head to head.  3-4 players: each policy "
                    "against copies of a baseline (--mode field, the default) or every group of "
                    "distinct policies (--mode round-robin).  --baseline X: every policy against "
                    "copies of X (the opponent field), at any player count.  Prints win rate (shared wins count "
                    "1/k), tie rate, mean score, game length and spoils per turn with n and 95%% "
                    "intervals clustered by deal, win rate by seat (seat 1 = starting player), "
                    "and a Bradley-Terry ranking.  See "
                    "docs/statistics.md.")
    p.add_argument("--policies", required=True, metavar="A,B,...",
                   help="comma-separated presets or policy files")
    p.add_argument("--players", type=int, default=2, help="2, 3 or 4 (default 2)")
    from ..limits import count, seed
    p.add_argument("--games", type=count(1), default=2600,
                   help="games per matchup, rounded up to a whole number of deals, each played "
                        "once per seating (--players seatings in field mode and at 2 players, "
                        "6 or 24 in "
                        "a 3- or 4-player round robin); default 2600: ±2 pp at 50%%")
    p.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    p.add_argument("--set", default=None,
                   help="card set: a bundled name or a file (default: the game's, core)")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast (numba; falls back to reference if unavailable) or reference "
                        "(default fast)")
    p.add_argument("--mode", choices=("round-robin", "field"), default=None,
                   help="default: field when --baseline is given, else round-robin for 2 "
                        "players and field for 3-4")
    p.add_argument("--baseline", default=None, metavar="NAME|FILE",
                   help="the opponent field: every other policy plays against players-1 copies "
                        "of it (implies --mode field, also with 2 players; need not be listed "
                        "in --policies).  A preset, a bundled policy (optimized-2p) or a policy "
                        ".toml file; {P} stands for --players (optimized-{P}p).  Default in "
                        "field mode: the first of --policies")
    from ..cli import add_rule_options
    add_rule_options(p)                   # the games' rule options (rules_class fields)
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="also save win rates, seats and ranking as a figure")
    p.add_argument("--no-cluster", dest="cluster", action="store_false",
                   help="treat games as independent instead of clustering intervals by deal "
                        "(for comparison only: those intervals under-cover, docs/statistics.md §2.1)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def _pct(r, lo, hi) -> str:
    return f"{100 * r:5.1f} [{100 * lo:5.1f}, {100 * hi:5.1f}]"


def _num(r, lo, hi, digits: int = 1) -> str:
    return f"{r:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def format_tournament(t) -> str:
    """The three tables as aligned text (percentages), every rate and mean with n and interval."""
    c = t.config
    ev = next((col[:-len("_per_turn")] for col in t.table.columns if col.endswith("_per_turn")),
              "spoils")                       # the game's event column (e.g. spoils)
    clus = ("intervals clustered by deal (every matchup and seating replays the same deals)"
            if c.get("clustered_by_deal", True) else "intervals NOT clustered (independent games assumed)")
    per = c.get("seatings_per_deal", c["players"])
    lines = [f"{c['games_per_matchup']} games per matchup ({c['deals']} deals x {per} seatings: "
             f"every order of the line-up), {c['players']} players, set {c['card_set']}, "
             f"seed {c['seed']}, "
             f"engine {c['engine']}, mode {c['mode']}"
             + (f" (baseline {c['baseline']})" if c.get("baseline") else ""),
             f"Value [95% interval]; {clus}; win = shared wins count 1/k; n = player-games.", ""]
    head = (f"{'matchup':<28} {'policy':<14} {'n':>6} {'deals':>5} {'win %':>19} {'tie %':>19} "
            f"{'mean score':>18} {'rounds':>18} {ev + ' per turn %':>19}")
    lines.append(head)
    for _, r in t.table.iterrows():
        lines.append(f"{r['matchup'][:28]:<28} {r['policy'][:14]:<14} {r['n']:>6} {r['n_deals']:>5} "
                     f"{_pct(r['win_rate'], r['win_lo'], r['win_hi']):>19} "
                     f"{_pct(r['tie_rate'], r['tie_lo'], r['tie_hi']):>19} "
                     f"{_num(r['mean_score'], r['mean_score_lo'], r['mean_score_hi']):>18} "
                     f"{_num(r['mean_rounds'], r['mean_rounds_lo'], r['mean_rounds_hi']):>18} "
                     f"{_pct(r[ev + '_per_turn'], r[ev + '_per_turn_lo'], r[ev + '_per_turn_hi']):>19}")
    lines += ["", "Seat advantage (seat 1 = starting player), all games:",
              f"{'seat':>4} {'n':>7} {'deals':>5} {'win %':>19} {'vs fair share, pp':>22} {'mean score':>18}"]
    for _, r in t.seats[t.seats["policy"] == "all"].iterrows():
        adv = (f"{100 * r['advantage']:+5.1f} [{100 * r['advantage_lo']:+5.1f}, "
               f"{100 * r['advantage_hi']:+5.1f}]")
        lines.append(f"{r['seat']:>4} {r['n']:>7} {r['n_deals']:>5} "
                     f"{_pct(r['win_rate'], r['win_lo'], r['win_hi']):>19} {adv:>22} "
                     f"{_num(r['mean_score'], r['mean_score_lo'], r['mean_score_hi']):>18}")
    method = t.ranking.attrs.get("method", "")
    lines += ["", f"Bradley-Terry ranking (Elo scale, mean 0; 95% interval, {method}; "
                  f"n = pairwise comparisons):",
              f"{'policy':<20} {'n':>7} {'Elo':>6} {'interval':>17} {'P(beat avg) %':>20}"]
    for _, r in t.ranking.iterrows():
        lines.append(f"{r['name'][:20]:<20} {int(r['comparisons']):>7} {r['elo']:>6.0f} "
                     f"[{r['elo_lo']:>6.0f}, {r['elo_hi']:>6.0f}] "
                     f"{_pct(r['expected_vs_mean'], r['expected_lo'], r['expected_hi']):>20}")
    return "\n".join(lines)


def run(args) -> int:
    from ..cli import UserError, check_players, command_game, game_rules, rule_options
    from ..tournament import tournament
    g = command_game(args)
    check_players(g, args.players)
    from ..io import check_outputs, check_workers
    check_outputs((args.plot, "file", "--plot"), force=args.force)    # before any game
    names = [s.strip() for s in args.policies.split(",") if s.strip()]
    if not names:
        raise UserError("--policies: give at least one policy")
    if args.games < 1:
        raise UserError(f"--games must be >= 1, got {args.games}")
    check_workers(args.workers)
    baseline = args.baseline
    if baseline is not None:
        from ..robustness import baseline_spec
        if not baseline.strip():
            raise UserError("--baseline: empty name; give a preset, a bundled policy or a "
                            "policy .toml file")
        if args.mode == "round-robin":
            raise UserError("--baseline sets the opponent field of --mode field; round-robin "
                            "plays every group of --policies: drop --baseline or --mode")
        baseline = baseline_spec(baseline, args.players)
    try:
        rules = game_rules(g, **rule_options(args))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            t = tournament(names, players=args.players, games=args.games, seed=args.seed,
                           card_set=args.set, engine=args.engine, rules=rules, mode=args.mode,
                           baseline=baseline, workers=args.workers, cluster=args.cluster,
                           game=g.name)
    except ValueError as e:
        raise UserError(str(e)) from None
    for msg in sorted({str(w.message) for w in caught}):
        print(f"vale-sim tournament: warning: {msg}", file=sys.stderr)
    if args.json:
        print(json.dumps(t.to_json(), sort_keys=True))
    else:
        print(format_tournament(t))
    if args.plot:                      # after the results: a full disk loses none of them
        from ..io import save_figure
        from ..plots.tournament import plot_tournament
        sys.stdout.flush()
        save_figure(plot_tournament(t), args.plot, dpi=120, bbox_inches="tight")
    return 0
