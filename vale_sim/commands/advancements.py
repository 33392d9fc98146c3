"""``vale-sim advancements``: what each card is worth -- strength verdicts and associations."""
from __future__ import annotations

import json
import sys
import warnings

DEFAULT_GAMES = 20000         # games per card and arm (see docs/statistics.md, "Flag stability")
DEFAULT_TOLERANCE = 5.0       # percentage points
DEFAULT_MARGIN = 2.0          # percentage points: "balanced" = shown within +/- this


def add_parser(sub) -> None:
    p = sub.add_parser(
        "advancements", help="strength of each advancement and vale, with over/under verdicts",
        description="Per advancement and vale card.  Strength: three focal arms play the same "
                    "deals (seats rotated) against baseline opponents -- prefer X (the baseline "
                    "buying X first whenever it can), ban X (the baseline never buying X) and "
                    "natural (the baseline); strength = win share(prefer) - win share(ban), "
                    "natural value = natural - ban, paired per-deal intervals.  A card is "
                    "flagged over/under when, after a multiplicity correction across the cards "
                    "tested, its strength lies beyond +/- --tolerance percentage points.  "
                    "Observational (a run of baseline players who buy at random --explore per "
                    "mille of the time): acquisition, win rate when acquired / not, lift -- "
                    "associations, not causes.  JSON rates are fractions.  See "
                    "docs/statistics.md.")
    from ..limits import count, seed
    p.add_argument("--games", type=count(1), default=DEFAULT_GAMES,
                   help=f"games per card and arm (prefer, ban) for the strength: deals x players "
                        f"(default {DEFAULT_GAMES}); and of the observational run")
    p.add_argument("--precision", type=float, default=None, metavar="PP",
                   help="instead of --games: a pilot run (--pilot-games per card, independent "
                        "seed) estimates the per-deal SD, then the games are fixed so that every "
                        "raw strength interval has half-width about PP percentage points")
    p.add_argument("--pilot-games", type=count(1), default=400, metavar="N",
                   help="games per card and arm of the --precision pilot (default 400)")
    p.add_argument("--observational-games", type=count(1), default=None, metavar="N",
                   help="games of the observational run (default: --games)")
    p.add_argument("--set", default="core", help="card set: core, starter or a file (default core)")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                   help="2, 3 or 4 (default 2)")
    p.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    p.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE, metavar="PP",
                   help="flag cards whose strength lies beyond +/- PP percentage points "
                        f"(default {DEFAULT_TOLERANCE:g})")
    p.add_argument("--margin", type=float, default=DEFAULT_MARGIN, metavar="PP",
                   help="a card is 'balanced' when its strength is shown within +/- PP "
                        "percentage points (two one-sided tests, the same correction); "
                        f"otherwise, unless flagged, 'inconclusive' (default {DEFAULT_MARGIN:g})")
    p.add_argument("--correction", choices=("fdr_bh", "holm", "bonferroni"), default="fdr_bh",
                   help="multiplicity correction across the cards tested (statsmodels "
                        "multipletests; default fdr_bh: Benjamini-Hochberg, with "
                        "false-coverage-rate adjusted intervals)")
    from ..strong_field import ESTIMAND, field_help
    p.add_argument("--estimand", choices=("natural", "prefer"), default=ESTIMAND,
                   help="what the flags and verdicts rest on: natural (natural value = the "
                        "baseline's own play - ban X: over when beyond the band, under when the "
                        "baseline gains nothing from it and forcing it costs; meant for a strong "
                        "field) or prefer (strength = prefer X - ban X, forcing the card: the "
                        f"forced value alone).  Default {ESTIMAND}, as in what-if, balance and "
                        "the report (docs/statistics.md 5.6)")
    p.add_argument("--compare", default=None, metavar="A,B",
                   help="paired interval for strength(A) - strength(B) on the same deals "
                        "(plays only these two cards)")
    p.add_argument("--baseline", default=None, metavar="NAME|FILE",
                   help="baseline policy (the field): a preset, a bundled policy (optimized-2p) "
                        "or a policy .toml file; {P} stands for --players (optimized-{P}p).  "
                        f"Default {field_help()}; --baseline balanced: the default bot, for "
                        "comparison")
    p.add_argument("--explore", type=int, default=300, metavar="PERMILLE",
                   help="random purchases per mille in the observational run (default 300)")
    p.add_argument("--cards", default=None, metavar="A,B,...", help="only these cards")
    p.add_argument("--only", choices=("observational", "strength"), default=None,
                   help="skip the other analysis")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast (numba; falls back to reference if unavailable) or reference "
                        "(default fast)")
    from ..cli import add_rule_options
    add_rule_options(p)                   # the games' rule options (rules_class fields)
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="also save a forest plot of the strengths")
    p.add_argument("--json", action="store_true",
                   help="print a list of records (card, level, strength, strength_ci, "
                        "strength_ci_adjusted, p_value, p_adjusted, natural_value, natural_ci, "
                        "per_pick_value, per_pick_ci, acquired, n_deals, deals_changed, flag, "
                        "lift, lift_ci, ..., field, estimand); with --compare an "
                        "object {cards, compare, field, estimand}")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def _check_margin(args) -> None:
    from ..cli import UserError
    if not 0 < args.margin <= args.tolerance:
        raise UserError(f"--margin must be above 0 and at most --tolerance ({args.tolerance:g} "
                        f"pp), got {args.margin:g}")


def _pp(v) -> str:
    return "-" if v != v else f"{100 * v:+.1f}"


def _ci(lo, hi) -> str:
    return "" if lo != lo else f"[{100 * lo:+.1f}, {100 * hi:+.1f}]"


def _pct(v, lo, hi, n) -> str:
    """'52.3 [49.2, 55.4] n=1000' (percent), '-' when there is nothing to show."""
    if v != v or not n:
        return f"- n={n}"
    if lo != lo:
        return f"{100 * v:.1f} [no interval] n={n}"
    return f"{100 * v:.1f} [{100 * lo:.1f}, {100 * hi:.1f}] n={n}"


def format_strength(df) -> str:
    from ..verdicts import near_boundary
    a = df.attrs
    tol = 100 * a.get("tolerance", 0)
    lines = [
        f"Field: {a.get('baseline')} at {a.get('players')} players; estimand "
        f"{a.get('estimand', 'prefer')} (the verdicts rest on the "
        + ("natural value" if a.get("estimand") == "natural" else "strength, the forced value")
        + ").",
        f"Strength: win share of the baseline ({a.get('baseline')}) preferring the card minus "
        f"the baseline that never buys it, {a.get('deals')} deals x {a.get('players')} rotations "
        f"per arm (seed {a.get('seed')}), against baseline opponents; natural = baseline minus "
        f"ban.  {100 * a.get('confidence', 0.95):g}% paired t intervals over deals; adjusted "
        f"intervals at {100 * a.get('adjusted_confidence', 0.95):.2f}% "
        f"({a.get('correction')} over {a.get('cards_tested')} cards).  Verdict: over/under when "
        f"the correction rejects |strength| <= {tol:g} pp (shown beyond the band); balanced when "
        f"it rejects |strength| >= {100 * a.get('margin', 0.02):g} pp (two one-sided tests: shown "
        f"within the margin); else inconclusive, with the games per card and arm that would "
        f"settle it (80% power if the estimate is right).  The band and the margin are choices, "
        f"not conventions: no flag is not 'balanced'.  Strength at {a.get('players')} players "
        f"includes denial (a card never bought is left to the opponents): not comparable "
        f"across player counts.  Natural win rate of the baseline: "
        f"{_pct(a.get('natural_win_rate', float('nan')), a.get('natural_win_rate_lo'), a.get('natural_win_rate_hi'), a.get('deals'))} (deals).  "
        f"'none chg': natural and ban never differed (indistinguishable by design; the "
        f"interval is the zero-count bound).  Per pick: the natural value divided by the "
        f"share of games in which the baseline bought the card, the effect of buying it on "
        f"the buyer (Fieller interval; '-' when it was never bought; docs/statistics.md 5.7).  "
        f"{_agreement_legend(a)}",
    ]
    if a.get("estimand") == "natural":
        r = a.get("rationality") or {}
        lines.append(
            f"Estimand natural: the verdicts rest on the natural value (baseline minus ban; "
            f"adjusted intervals at {100 * a.get('natural_adjusted_confidence', 0.95):.2f}%), "
            f"not on the strength column: over when the natural value is shown beyond "
            f"+/-{tol:g} pp; under when it is not shown above 0 (and below "
            f"{100 * a.get('margin', 0.02):g} pp) and the strength (forcing the card) is shown "
            f"below -{tol:g} pp; balanced when the natural value is shown within the margin, "
            f"some deal changed and forcing costs less than the band (docs/statistics.md "
            f"5.6).  Rationality check: {r.get('below_zero', 0)} of {r.get('cards_tested', 0)} "
            f"cards have a natural value significantly below 0 (one-sided, Holm), sum "
            f"{100 * r.get('sum', 0.0):+.1f} pp"
            + (f"; {r['never_bought']} never bought by the field (natural value 0 by "
               f"construction: the check cannot see them)" if r.get("never_bought") else "")
            + (": " + ", ".join(f"{c['card']} {100 * c['natural_value']:+.1f}"
                                for c in r.get("cards", [])) if r.get("below_zero") else "")
            + ".")
    if "pilot_games" in a:
        lines.append(f"Games set by --precision {100 * a['precision']:g} pp: pilot of "
                     f"{a['pilot_games']} games per card and arm on seed {a['pilot_seed']} "
                     f"(not reused), largest per-deal SD {a['pilot_sd_max']:.3f}.")
    lines.append("")
    lines.append(f"{'card':<24} {'lvl':>3} {'strength pp':>11} {'raw interval':>15} "
                 f"{'adjusted':>15} {'p adj':>6} {'natural pp':>10} {'interval':>15} "
                 f"{'per pick pp':>11} {'interval':>15} "
                 f"{'changed/deals':>13} {'got % (prefer)':>22} {'verdict':>13}")
    for _, r in df.iterrows():
        lvl = ("V" if r["kind"] == "vale" else "L") + str(r["level"])
        changed = f"{r['deals_changed']}/{r['n_deals']}"
        nat = "none chg" if r["natural_deals_changed"] == 0 else _pp(r["natural_value"])
        got = _pct(r["acquired_rate"], r["acquired_rate_lo"], r["acquired_rate_hi"], r["n_deals"])
        pick = (f"{_pp(r.get('per_pick_value', float('nan'))):>11} "
                f"{_ci(r.get('per_pick_lo', float('nan')), r.get('per_pick_hi', float('nan'))):>15}")
        if r["deals_changed"] == 0:
            lines.append(f"{r['card'][:24]:<24} {lvl:>3} {'':>11} {'':>15} {'':>15} {'':>6} "
                         f"{nat:>10} {_ci(r['natural_lo'], r['natural_hi']):>15} {pick} "
                         f"{changed:>13} {got:>22} {_verdict(r):>13}  "
                         f"strength: {r['note']}; |strength| <= {100 * r['strength_hi']:.2f} pp")
            continue
        lines.append(f"{r['card'][:24]:<24} {lvl:>3} {_pp(r['strength']):>11} "
                     f"{_ci(r['strength_lo'], r['strength_hi']):>15} "
                     f"{_ci(r['strength_lo_adj'], r['strength_hi_adj']):>15} "
                     f"{r['p_adjusted']:>6.3f} {nat:>10} "
                     f"{_ci(r['natural_lo'], r['natural_hi']):>15} {pick} {changed:>13} {got:>22} "
                     f"{_verdict(r):>13}{_needed(r)}")
    flagged = df[df["flag"] != ""]
    lines.append("")
    lines.append(f"Flagged: {len(flagged)} of {len(df)} cards"
                 + (": " + ", ".join(f"{c} ({f})" for c, f in zip(flagged['card'], flagged['flag']))
                    if len(flagged) else "."))
    if "verdict" in df:
        counts = df["verdict"].value_counts()
        lines.append(f"Verdicts at {a.get('players')} players (±{tol:g} pp band, "
                     f"±{100 * a.get('margin', 0.02):g} pp margin): " + ", ".join(
                         f"{counts.get(v, 0)} {v}" for v in ("over", "under", "balanced",
                                                             "inconclusive")) + "."
                     + near_boundary(df))
    return "\n".join(lines)


def _records(df) -> list[dict]:
    """The JSON records of ``vale-sim advancements --json``: each names the field it was
    measured under (``field``: the policy, e.g. meta-2p) and, with a strength table, the
    estimand its verdict rests on."""
    from ..advancements import report_records
    a = df.attrs
    extra = {"field": a.get("baseline")}
    if "estimand" in a:
        extra["estimand"] = a["estimand"]
    return [{**r, **extra} for r in report_records(df)]
def _agreement_legend(a) -> str:
    """The header's sentence on the '?' marker ("" when the frame has no estimate)."""
    if not a.get("agreement_resamples"):
        return ""
    return (f"'?' after a verdict: near a label boundary -- an identical card, or a rerun "
            f"on fresh deals of this size, would read another verdict more than 1 time in "
            f"{1 / (1 - a.get('stable_agreement', 0.9)):.0f} (estimated from "
            f"{a['agreement_resamples']} redraws of these deals; JSON verdict_agreement; "
            f"docs/statistics.md 5.8).")


def _verdict(r) -> str:
    from ..verdicts import unstable
    v = r["verdict"] if "verdict" in r and isinstance(r["verdict"], str) else r["flag"]
    return v + ("?" if unstable(r.get("verdict_stable")) else "")


def _needed(r) -> str:
    """'  needs ~N games' for an inconclusive card (nan: the estimate lies between the
    margin and the band, so more games would show neither)."""
    if _verdict(r).rstrip("?") != "inconclusive" or "games_needed" not in r:
        return ""
    n = r["games_needed"]
    if n != n:
        return "  (estimate between margin and band: more games would show neither)"
    return f"  needs ~{int(n):,} games"


def format_observational(df) -> str:
    a = df.attrs
    lines = [(f"Field: {a['baseline']} at {a.get('players')} players (exploring).  "
              if a.get("baseline") else "")
             + f"Observational ({a.get('observational_games')} games of exploring players; "
             f"95% intervals, game-clustered for acquisition, lift and round): "
             + a.get("note", ""), ""]
    lines.append(f"{'card':<24} {'lvl':>3} {'got % of player-games':>28} {'win | acquired %':>26} "
                 f"{'win | not acquired %':>26} {'lift pp':>7} {'interval':>15} "
                 f"{'win | harvested %':>26} {'first round':>22}")
    for _, r in df.iterrows():
        lvl = ("V" if r["kind"] == "vale" else "L") + str(r["level"])
        rnd = ("-" if r["mean_round_acquired"] != r["mean_round_acquired"] else
               f"{r['mean_round_acquired']:.1f} [{r['mean_round_acquired_lo']:.1f}, "
               f"{r['mean_round_acquired_hi']:.1f}] n={r['n_round']}")
        harv = ("-" if r["games_harvested"] != r["games_harvested"] else
                _pct(r["win_rate_harvested"], r["win_rate_harvested_lo"],
                     r["win_rate_harvested_hi"], int(r["games_harvested"])))
        lines.append(
            f"{r['card'][:24]:<24} {lvl:>3} "
            f"{_pct(r['acquire_rate'], r['acquire_rate_lo'], r['acquire_rate_hi'], r['player_games']):>28} "
            f"{_pct(r['win_rate_acquired'], r['win_rate_acquired_lo'], r['win_rate_acquired_hi'], r['games_acquired']):>26} "
            f"{_pct(r['win_rate_not_acquired'], r['win_rate_not_acquired_lo'], r['win_rate_not_acquired_hi'], r['games_not_acquired']):>26} "
            f"{_pp(r['lift']):>7} {_ci(r['lift_lo'], r['lift_hi']):>15} {harv:>26} {rnd:>22}")
    return "\n".join(lines)


def format_compare(c: dict) -> str:
    if c["deals_changed"] == 0:
        return (f"strength({c['a']}) - strength({c['b']}): {c['note']} over {c['n_deals']} "
                f"deals; |difference| <= {100 * c['difference_ci'][1]:.2f} pp")
    return (f"strength({c['a']}) - strength({c['b']}) = {_pp(c['difference'])} pp "
            f"{_ci(*c['difference_ci'])} ({100 * c['confidence']:g}% paired t interval, "
            f"n={c['n_deals']} deals, {c['deals_changed']} changed); strength({c['a']}) "
            f"{_pp(c['strength_a'])} pp, strength({c['b']}) {_pp(c['strength_b'])} pp")


def run_game(args) -> int:
    """``advancements --game G`` for a game without observational card statistics
    (``Game.strength_observations``): the strength (three arms on common deals,
    multiplicity-corrected flags) through the game's hooks (``Game.strength_arms``,
    ``strength_cards``; vale_sim.advancements.strength_run).  The observational run,
    --compare, --precision and the rule flags need the full study."""
    from ..advancements import game_strength_run, strength_frame
    from ..cli import UserError
    from ..games import get_game
    from ..io import check_outputs, check_workers
    from ..runner import fast_available
    g = get_game(args.game)
    check_outputs((args.plot, "file", "--plot"), force=args.force)
    check_workers(args.workers)
    from ..cli import rule_options
    for opt, bad in (("--compare", args.compare is not None), ("--precision", args.precision is not None),
                     ("--only observational", args.only == "observational"),
                     *((f"--{k.replace('_', '-')}", True) for k in rule_options(args))):
        if bad:
            raise UserError(f"{opt} is not available for {g.name} (it has the strength "
                            f"table only); drop it")
    if args.games < 2:
        raise UserError(f"--games must be >= 2, got {args.games}")
    if args.tolerance < 0:
        raise UserError(f"--tolerance must be >= 0, got {args.tolerance}")
    _check_margin(args)
    engine = args.engine
    if engine == "fast" and not fast_available(g.name):
        print(f"vale-sim advancements: note: no fast engine for {g.name} yet; using the "
              f"reference engine", file=sys.stderr)
        engine = "reference"
    cards = [c.strip() for c in args.cards.split(",") if c.strip()] if args.cards else None
    card_set = g.default_card_set if args.set == "core" else args.set
    from ..strong_field import field_of
    spec = args.baseline or field_of(g)               # the strongest bundled field
    try:                                              # {P}: --players; checked before any game
        args.baseline = g.resolve_baseline(spec, args.players)
    except g.user_errors as e:
        raise UserError(f"--baseline {spec}: {str(e).splitlines()[0]}") from None
    show = sys.stderr.isatty() and not args.json

    def progress(i, n, name):
        if show:
            print(f"\r[{i}/{n}] {name[:40]:<40}", end="", file=sys.stderr, flush=True)
    run = game_strength_run(g.name, card_set, args.games, args.players, args.seed,
                            args.baseline, cards, None, engine, args.workers, on_card=progress)
    if show:
        print(file=sys.stderr)
    df = strength_frame(run, tolerance=args.tolerance / 100, correction=args.correction,
                        margin=args.margin / 100, estimand=args.estimand)
    if args.json:
        print(json.dumps(_records(df), sort_keys=True))
    else:
        print(format_strength(df))
    _save_plot(args, df)
    return 0


def _save_plot(args, df) -> None:
    """``--plot``: the forest figure, written (atomically) after the results are printed,
    so a full disk loses none of them."""
    if args.plot:
        from ..io import save_figure
        from ..plots.advancements import plot_forest
        sys.stdout.flush()
        save_figure(plot_forest(df), args.plot, dpi=120, bbox_inches="tight")


def run(args) -> int:
    from ..games import DEFAULT_GAME, get_game
    g = get_game(getattr(args, "game", None) or DEFAULT_GAME)
    from ..cli import check_needs
    observe = "applies to the observational run, which --only strength and --compare skip"
    observed = args.only != "strength" and args.compare is None
    check_needs(args, ("--pilot-games", args.precision is not None,
                       "needs --precision (its pilot run chooses the games)"),
                ("--explore", observed, observe),
                ("--observational-games", observed, observe))
    if g.strength_observations is None:            # the strength table only
        return run_game(args)
    from ..strong_field import field_of
    args.baseline = args.baseline or field_of(g)      # the strongest bundled field
    from ..advancements import (advancement_report, check_cards, compare_strength,
                                observational, strength_frame, strength_run,
                                strength_table)
    from ..tournament import resolve_card_set
    from ..cli import UserError
    from ..cli import game_rules, rule_options
    from ..io import check_outputs, check_workers
    check_outputs((args.plot, "file", "--plot"), force=args.force)    # before any game
    for name in ("games", "pilot_games"):
        if getattr(args, name) < 1:
            raise UserError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    check_workers(args.workers)
    if args.observational_games is not None and args.observational_games < 1:
        raise UserError(f"--observational-games must be >= 1, got {args.observational_games}")
    if args.tolerance < 0:
        raise UserError(f"--tolerance must be >= 0, got {args.tolerance}")
    _check_margin(args)
    if args.precision is not None and args.precision <= 0:
        raise UserError(f"--precision must be > 0 percentage points, got {args.precision}")
    if not 0 <= args.explore <= 1000:
        raise UserError(f"--explore must be in 0..1000, got {args.explore}")
    if args.plot and args.only == "observational":
        raise UserError("--plot draws the strengths: drop --only observational")
    cards = [c.strip() for c in args.cards.split(",") if c.strip()] if args.cards else None
    compare = None
    if args.compare is not None:
        compare = [c.strip() for c in args.compare.split(",") if c.strip()]
        if len(compare) != 2 or compare[0] == compare[1]:
            raise UserError(f"--compare takes two different card names A,B, got {args.compare!r}")
        if args.only == "observational":
            raise UserError("--compare compares strengths: drop --only observational")
    show = sys.stderr.isatty()

    def progress(i, n, name):
        if show:
            print(f"\r[{i}/{n}] {name[:40]:<40}", end="", file=sys.stderr, flush=True)

    precision = None if args.precision is None else args.precision / 100
    tol = args.tolerance / 100
    comp = None
    try:
        rules = game_rules(g, **rule_options(args))
        cs = resolve_card_set(args.set, args.players)
        from ..robustness import resolve_baseline
        args.baseline = resolve_baseline(args.baseline, args.players, cs)   # before any game
        if cards is not None:                       # before any game is played
            check_cards(cs, cards)
        if compare is not None:
            check_cards(cs, compare)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            if compare is not None:
                games = args.games
                info = {}
                if precision is not None:
                    from ..advancements import pilot_games
                    games, info = pilot_games(cs, precision, args.pilot_games, args.players,
                                              args.seed, args.baseline, compare, rules,
                                              args.engine, args.workers)
                srun = strength_run(cs, games, args.players, args.seed, args.baseline, compare,
                                    rules, args.engine, args.workers, on_card=progress)
                df = strength_frame(srun, tolerance=tol, correction=args.correction,
                                    margin=args.margin / 100, estimand=args.estimand)
                df.attrs.update(info)
                comp = compare_strength(cs, compare[0], compare[1], run=srun)
            elif args.only == "observational":
                df = observational(cs, args.observational_games or args.games, args.players,
                                   args.seed, args.baseline, args.explore, rules, args.engine,
                                   args.workers)
                if cards is not None:
                    df = df[df["card"].isin(cards)].reset_index(drop=True)
                df = df.sort_values("lift", ascending=False, ignore_index=True)
                df.attrs["observational_games"] = df.attrs.get("games")
            elif args.only == "strength":
                df = strength_table(cs, args.games, args.players, args.seed, args.baseline,
                                    cards, rules, args.engine, args.workers, tolerance=tol,
                                    correction=args.correction, precision=precision,
                                    pilot=args.pilot_games, on_card=progress,
                                    margin=args.margin / 100, estimand=args.estimand)
            else:
                df = advancement_report(cs, args.games, args.players, args.seed,
                                        args.baseline, tol, args.explore,
                                        args.observational_games, cards, rules, args.engine,
                                        args.workers, paired=True, on_card=progress,
                                        correction=args.correction, precision=precision,
                                        pilot=args.pilot_games, margin=args.margin / 100, estimand=args.estimand)
    except (ValueError, KeyError) as e:
        raise UserError(str(e).strip("'\"")) from None
    if show:
        print(file=sys.stderr)
    for msg in sorted({str(w.message) for w in caught}):
        print(f"vale-sim advancements: warning: {msg}", file=sys.stderr)
    strength = args.only != "observational"
    if args.json:
        recs = _records(df)
        if comp is not None:
            print(json.dumps({"cards": recs, "compare": comp, "field": df.attrs.get("baseline"),
                              "estimand": df.attrs.get("estimand")}, sort_keys=True))
        else:
            print(json.dumps(recs, sort_keys=True))
        _save_plot(args, df)
        return 0
    parts = []
    if strength:
        parts.append(format_strength(df))
    if comp is not None:
        parts.append(format_compare(comp))
    elif args.only != "strength":
        parts.append(format_observational(df))
    print("\n\n".join(parts))
    _save_plot(args, df)
    return 0
