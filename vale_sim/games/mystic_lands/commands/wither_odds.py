"""``vale-sim wither-odds``: if I Grow now, how likely am I to Wither? (docs/wither-odds.md)"""
from __future__ import annotations

from vale_sim.commands.odds import (add_method_options, add_output_options, check_common,
                                    distribution_lines, one_line, print_results, rule_text)

GAMES = ("mystic-lands",)


def add_parser(sub) -> None:
    p = sub.add_parser("wither-odds", help="Mystic Lands: wither odds and expected resources "
                                           "per play, exact or simulated",
                       description="P(Wither within k plays), the uncovered suns and the "
                                   "expected mana, spirit and VP if you Rest after k plays, "
                                   "for a Mystic Lands deck at the start of a Night.  Exact by "
                                   "default.")
    p.add_argument("--deck", default="starter",
                   help="bundled deck (starter, misty, rainy, sunny, willow, midgame) or a deck "
                        ".toml file (default starter)")
    p.add_argument("--grows", type=int, default=6,
                   help="K: plays to report, the forced first one included (default 6)")
    p.add_argument("--rain", type=int, default=0,
                   help="Rain tokens held at the start of the Night (default 0)")
    add_method_options(p, "estimate by playing the reference engine's Night instead",
                       "Nights to simulate (default 10000)")
    from vale_sim.limits import WITHER_MAX_STATES, count, seed
    p.add_argument("--seed", type=seed, default=0, help="master seed for --simulate (default 0)")
    p.add_argument("--policy", default="balanced",
                   help="preset or policy file giving the Rain mode and the Wither choice "
                        "(default balanced: Rain when needed, the best-weighted resource)")
    p.add_argument("--set", default=None,
                   help="card set for names in the deck (default: the deck file's, else "
                        "mystic-lands)")
    p.add_argument("--max-states", type=count(1, "states", cap=WITHER_MAX_STATES),
                   default=50_000,
                   help="stop an exact computation past this many positions (about 40 µs of CPU "
                        "each; the --rule search gets 10 times as many decision states) and "
                        f"say to use --simulate (default 50000, at most {WITHER_MAX_STATES:,}, "
                        "so that it fits in memory)")
    p.add_argument("--rule", metavar="GOAL", default=None,
                   help="also find the best Rest/Grow rule: mana, spirit, vp, value "
                        "(2 mana + 2 spirit + 3 VP) or RES>=N, e.g. mana>=5")
    add_output_options(p, "write P(Wither within k) (exact: also with 0, 1 and 2 Rain tokens) "
                          "and E[mana, spirit, VP] against k to a PNG")
    p.set_defaults(func=run)


def run(args) -> int:
    from vale_sim.cli import UserError
    from vale_sim.games.mystic_lands import wither as W
    from vale_sim.games.mystic_lands.cards import CardSetError
    from vale_sim.games.mystic_lands.policy import PolicyError, get_policy

    if args.game not in GAMES:
        raise UserError(f"--game {args.game!r} has no Withering: wither-odds takes only "
                        f"--game mystic-lands (for Mystic Vale use spoil-odds)")
    seed = check_common(args, "grows", W.MAX_PLAYS)
    if args.rain < 0:
        raise UserError(f"--rain must be 0 or more, got {args.rain}")
    goal = target = None
    if args.rule is not None:
        try:
            goal, target = W.parse_goal(args.rule)
        except ValueError as e:
            raise UserError(f"--rule: {e}") from None
    policy = one_line(PolicyError, get_policy, args.policy)
    deck = one_line((W.DeckError, CardSetError), W.load_deck, args.deck, args.set)
    limit = args.max_states or None
    errors = (W.TooManyStates, W.Unsupported, ValueError)
    if args.simulate:
        res = one_line(errors, W.simulate_wither_odds, deck, args.grows, args.rain, args.games,
                       seed, policy=policy, progress=True)
    else:
        res = one_line(errors, W.wither_odds, deck, args.grows, args.rain, policy=policy,
                       max_states=limit)
    rule = None
    if goal:
        rule = one_line(errors, W.best_rule, deck, goal, target, horizon=args.grows,
                        rain=args.rain, policy=policy, max_states=limit and 10 * limit)
    print_results(args, res, rule, deck, format_report, format_rule)
    if args.plot:                      # after the results: a full disk loses none of them
        others = []
        if not args.simulate:                 # the curve for 0, 1, 2 Rain tokens too
            try:
                others = [W.wither_odds(deck, args.grows, r, policy=policy, max_states=limit)
                          for r in range(3) if r != args.rain]
            except (W.TooManyStates, ValueError):
                others = []
        W.plot_report(res, args.plot, others)
    return 0


def format_report(res, deck) -> str:
    from vale_sim.stats import wilson_interval
    sim = res.method == "simulated"
    z = 1.959963984540054
    pw, cw = (24, 24) if sim else (11, 8)

    def rate(p):
        if not sim:
            return f"{float(p):.4f}"
        lo, hi = wilson_interval(round(float(p) * res.games), res.games)
        return f"{float(p):.4f} [{lo:.4f}, {hi:.4f}]"
    lines = [f"deck {res.deck}: " + "; ".join(deck.describe()),
             f"start of a Night with {res.rain} Rain token(s); Grow k times, then Rest",
             (f"simulated: n = {res.games} Nights, seed {res.seed}; rates with their 95% Wilson "
              f"interval, means ± the half-width of their 95% interval (1.96 standard errors)"
              if sim
              else f"exact ({res.states} positions, {res.seconds:.3f} s)"), "",
             f"{'plays':>5} {'P(Withered)':>{pw}} {'E[mana]':>13} {'E[spirit]':>13} "
             f"{'E[VP]':>13} {'E[mana|ok]':>13} {'E[spirit|ok]':>13} {'E[VP|ok]':>13} "
             f"{'can grow':>{cw}}"]

    def fmt(x, se=None, digits=3):
        if x is None:
            return "-"
        text = f"{float(x):.{digits}f}"
        if sim and se is not None:
            text += f"±{z * se:.{digits}f}"
        return text

    for k in range(1, res.plays + 1):
        e, c = res.expected[k], res.expected_given_no_wither[k]
        se_e = res.se.get("expected", {}).get(k, {})
        se_c = res.se.get("expected_given_no_wither", {}).get(k, {})
        p = rate(res.p_wither_within[k])
        cols = [fmt(e[q], se_e.get(q)) for q in ("mana", "spirit", "vp")]
        cols += [fmt(c[q], se_c.get(q)) for q in ("mana", "spirit", "vp")]
        lines.append(f"{k:>5} {p:>{pw}} " + " ".join(f"{x:>13}" for x in cols)
                     + f" {rate(res.p_can_grow[k]):>{cw}}")
    if any(float(v) > 0 for v in res.p_out_of_cards.values()):
        lines.append("P(out of cards by play k): " + ", ".join(
            f"{k}: {rate(v)}" for k, v in res.p_out_of_cards.items()))
    if res.sunlight_valley_vp:
        lines.append(f"Sunlight Valley: {res.sunlight_valley_vp} end VP from this deck's suns "
                     f"(it does not change the Night)")
    lines.append("")
    lines.append("uncovered suns (Land + on-deck card - Rain placed) after k plays; a Withered "
                 "Night keeps its count" + (f" (n = {res.games}; each share within ± "
                                            f"{z * 0.5 / res.games ** 0.5:.3f} at 95%):"
                                            if sim else ":"))
    lines += distribution_lines(res.suns_distribution, range(1, res.plays + 1), "plays")
    return "\n".join(lines)


def format_rule(rule) -> str:
    what = (f"P({rule.goal} >= {rule.target})" if rule.target is not None else
            "E[2 mana + 2 spirit + 3 VP]" if rule.goal == "value" else f"E[{rule.goal}]")
    return rule_text(
        rule, f"best Rest/Grow rule (max {what}, at most {rule.horizon} plays, exact)",
        rule.fixed, lambda k: f"{k} plays",
        ("by state met (plays made, uncovered suns, Rain tokens held): how often the rule",
         "Grows there, and its threshold on P(next play Withers)"),
        f"{'plays':>5} {'suns':>4} {'rain':>4} {'P(here)':>8} {'grows%':>7} "
        f"{'grow if risk <=':>15} {'rest if risk >=':>15}",
        lambda r: (f"{r['plays']:>5} {r['suns']:>4} {r['rain']:>4} "
                   f"{r['reach']:>8.3f} {100 * r['p_grow']:>6.0f}%"),
        "grow", "rest")
