"""``vale-sim advancements``: what each card is worth — associations and paired values."""
from __future__ import annotations

import json
import sys
import warnings


def add_parser(sub) -> None:
    p = sub.add_parser(
        "advancements", help="value of each advancement and vale: win-rate lift and paired value",
        description="Per advancement and vale card.  Observational (a run of baseline players "
                    "who buy at random --explore per mille of the time): games acquired, win rate "
                    "when acquired / not, the lift with a game-clustered interval, win rate when "
                    "harvested, mean round acquired -- associations, not causes.  Paired: the "
                    "baseline with a strong preference for the card against the baseline, on the "
                    "same seeds with seats rotated, minus the same with no preference; flagged "
                    "over/under when the interval lies wholly beyond +/- --tolerance percentage "
                    "points.  JSON rates are fractions.  See docs/statistics.md.")
    p.add_argument("--games", type=int, default=1000,
                   help="games per card for the paired values, and for the observational run "
                        "(default 1000)")
    p.add_argument("--observational-games", type=int, default=None, metavar="N",
                   help="games of the observational run (default: --games)")
    p.add_argument("--set", default="core", help="card set: core, starter or a file (default core)")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    p.add_argument("--tolerance", type=float, default=5.0, metavar="PP",
                   help="flag cards whose paired interval lies beyond +/- PP percentage points "
                        "(default 5)")
    p.add_argument("--baseline", default="balanced", metavar="NAME|FILE",
                   help="baseline policy (default balanced)")
    p.add_argument("--explore", type=int, default=300, metavar="PERMILLE",
                   help="random purchases per mille in the observational run (default 300)")
    p.add_argument("--cards", default=None, metavar="A,B,...", help="only these cards")
    p.add_argument("--only", choices=("observational", "paired"), default=None,
                   help="skip the other analysis")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast")
    p.add_argument("--prep-count", choices=("net", "gross"), default="net")
    p.add_argument("--vp-pool", type=int, default=None)
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="also save a forest plot of the paired values")
    p.add_argument("--json", action="store_true",
                   help="print a list of records (card, level, games_acquired, win_rate_acquired, "
                        "lift, lift_ci, paired_value, paired_ci, flag, ...)")
    p.set_defaults(func=run)


def _pct(v) -> str:
    return "   -" if v != v else f"{100 * v:+5.1f}"


def _ci(lo, hi) -> str:
    return "" if lo != lo else f"[{100 * lo:+5.1f}, {100 * hi:+5.1f}]"


def format_report(df, paired: bool, observational: bool) -> str:
    """Aligned text, one line per card (percentages / percentage points)."""
    a = df.attrs
    lines = []
    if paired:
        lines.append(f"Paired value: win rate of the baseline ({a.get('baseline')}) with a strong "
                     f"preference for the card minus without it, {a.get('games_per_card')} games per "
                     f"card on common seeds, seats rotated; 95% paired t interval; flag beyond "
                     f"+/-{100 * a.get('tolerance', 0):g} pp.")
    if observational:
        lines.append(f"Observational ({a.get('observational_games')} games of exploring players): "
                     + a.get("note", ""))
    lines.append("")
    head = f"{'card':<24} {'lvl':>5}"
    if paired:
        head += f" {'value pp':>8} {'95% interval':>16} {'got %':>5} {'flag':>5}"
    if observational:
        head += (f" {'acq n':>6} {'win|acq %':>9} {'win|not %':>9} {'lift pp':>7} "
                 f"{'95% interval':>16} {'win|harv %':>10} {'round':>5}")
    lines.append(head)
    for _, r in df.iterrows():
        lvl = ("V" if r["kind"] == "vale" else "L") + str(r["level"])
        s = f"{r['card'][:24]:<24} {lvl:>5}"
        if paired:
            s += (f" {_pct(r['paired_value']):>8} {_ci(r['paired_lo'], r['paired_hi']):>16} "
                  f"{100 * r['acquired_rate']:>5.0f} {r['flag']:>5}")
        if observational:
            s += (f" {r['games_acquired']:>6} {100 * r['win_rate_acquired']:>9.1f} "
                  f"{100 * r['win_rate_not_acquired']:>9.1f} {_pct(r['lift']):>7} "
                  f"{_ci(r['lift_lo'], r['lift_hi']):>16} "
                  f"{'-' if r['win_rate_harvested'] != r['win_rate_harvested'] else format(100 * r['win_rate_harvested'], '.1f'):>10} "
                  f"{r['mean_round_acquired']:>5.1f}")
        lines.append(s)
    return "\n".join(lines)


def run(args) -> int:
    from ..advancements import (advancement_report, check_cards, observational, paired_values,
                                report_records)
    from ..tournament import resolve_card_set
    from ..cli import UserError
    from ..rules import Rules
    from ..io import check_outputs, check_workers
    check_outputs((args.plot, "file", "--plot"))    # before any game is played
    if args.games < 1:
        raise UserError(f"--games must be >= 1, got {args.games}")
    check_workers(args.workers)
    if args.observational_games is not None and args.observational_games < 1:
        raise UserError(f"--observational-games must be >= 1, got {args.observational_games}")
    if args.tolerance < 0:
        raise UserError(f"--tolerance must be >= 0, got {args.tolerance}")
    if not 0 <= args.explore <= 1000:
        raise UserError(f"--explore must be in 0..1000, got {args.explore}")
    if args.plot and args.only == "observational":
        raise UserError("--plot draws the paired values: drop --only observational")
    cards = [c.strip() for c in args.cards.split(",") if c.strip()] if args.cards else None
    show = not args.json and sys.stderr.isatty()

    def progress(i, n, name):
        if show:
            print(f"\r[{i + 1}/{n}] {name[:40]:<40}", end="", file=sys.stderr, flush=True)

    try:
        rules = Rules(prep_count=args.prep_count, vp_pool=args.vp_pool)
        if cards is not None:                       # before any game is played
            check_cards(resolve_card_set(args.set, args.players), cards)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            if args.only == "observational":
                df = observational(args.set, args.observational_games or args.games, args.players,
                                   args.seed, args.baseline, args.explore, rules, args.engine,
                                   args.workers)
                if cards is not None:
                    df = df[df["card"].isin(cards)].reset_index(drop=True)
                df = df.sort_values("lift", ascending=False, ignore_index=True)
                df.attrs["observational_games"] = df.attrs.get("games")
            elif args.only == "paired":
                df = paired_values(args.set, args.games, args.players, args.seed, args.baseline,
                                   cards, rules, args.engine, args.workers,
                                   tolerance=args.tolerance / 100, on_card=progress)
            else:
                df = advancement_report(args.set, args.games, args.players, args.seed,
                                        args.baseline, args.tolerance / 100, args.explore,
                                        args.observational_games, cards, rules, args.engine,
                                        args.workers, paired=True, on_card=progress)
    except (ValueError, KeyError) as e:
        raise UserError(str(e).strip("'\"")) from None
    if show:
        print(file=sys.stderr)
    for msg in sorted({str(w.message) for w in caught}):
        print(f"vale-sim advancements: warning: {msg}", file=sys.stderr)
    paired = args.only != "observational"
    if args.plot:
        from ..plots.advancements import plot_forest
        plot_forest(df).savefig(args.plot, dpi=120, bbox_inches="tight")
    if args.json:
        print(json.dumps(report_records(df), sort_keys=True))
    else:
        print(format_report(df, paired, args.only != "paired"))
    return 0
