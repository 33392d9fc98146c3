"""``vale-sim spoil-odds``: if I push now, how likely am I to spoil? (docs/spoil-odds.md)"""
from __future__ import annotations

import contextlib
import re

from vale_sim.commands.odds import (add_method_options, add_output_options, check_common,
                                    distribution_lines, one_line, print_results, rule_text)


def add_parser(sub) -> None:
    p = sub.add_parser("spoil-odds", help="spoil odds and expected mana per push, exact or simulated",
                       description="P(spoil within k pushes), the decay showing and the expected "
                                   "Harvest if you stop after k pushes, for a deck at the start "
                                   "of a turn (after Prep).  Exact by default.")
    p.add_argument("--deck", default="starter",
                   help="bundled deck (starter, druid, grovetender, seedling, thornhide) or a "
                        "deck .toml file (default starter)")
    p.add_argument("--pushes", type=int, default=6, help="K: pushes to report (default 6)")
    add_method_options(p, "estimate by playing turns instead (the fast engine when it can take "
                          "the deck, else the reference engine: the same numbers)",
                       "games to simulate (default 10000)")
    from vale_sim.limits import SPOIL_MAX_STATES, count, seed
    p.add_argument("--max-states", type=count(1, "states", cap=SPOIL_MAX_STATES),
                   default=1_500_000,
                   help="stop an exact computation past this many distinct states (about "
                        "1-2 µs and 0.5 KB of memory each compiled; default 1500000, at most "
                        f"{SPOIL_MAX_STATES:,}, so that it fits in memory) and say to use "
                        "--simulate")
    p.add_argument("--engine", choices=("auto", "compiled", "python"), default="auto",
                   help="exact engine: compiled (numba; the default via auto) or the readable "
                        "Python model it is checked against (30-60x slower)")
    p.add_argument("--seed", type=seed, default=0, help="master seed for --simulate (default 0)")
    p.add_argument("--set", default=None,
                   help="card set for names in the deck (default: the deck file's, else core)")
    p.add_argument("--prep-count", choices=("net", "gross"), default="net",
                   help="Prep stops at 3 decay showing, net of growth or gross (default net)")
    p.add_argument("--rule", metavar="GOAL", default=None,
                   help="also find the best push/stop rule: 'mana' (max expected mana) or "
                        "a number M (max P(mana >= M))")
    add_output_options(p, "write P(spoil within k) and the mana/risk frontier to a PNG")
    p.set_defaults(func=run)


def run(args) -> int:
    from vale_sim.games.mystic_vale.cards import CardSetError
    from vale_sim.cli import UserError
    from vale_sim.games.mystic_vale.rules import Rules
    from vale_sim.games.mystic_vale import spoil

    seed = check_common(args, "pushes", 40)
    from vale_sim.cli import check_needs
    check_needs(args, ("--engine", not args.simulate or args.rule is not None,
                       "chooses the exact engine (or --rule's), not --simulate's"))
    goal = target = None
    if args.rule is not None:
        if args.rule == "mana":
            goal = "mana"
        elif re.fullmatch(r"[0-9]+", args.rule):       # ASCII digits (isdigit takes '²')
            goal, target = "reach", int(args.rule)
        else:
            raise UserError(f"--rule must be 'mana' or a whole number of mana, got {args.rule!r}")
    deck = one_line((spoil.DeckError, CardSetError), spoil.load_deck, args.deck, args.set)
    rules = Rules(prep_count=args.prep_count)
    limit = args.max_states or None
    try:
        with _without_compilation() as took:
            if args.simulate:
                res = spoil.simulate_spoil_odds(deck, args.pushes, args.games, seed, rules)
            else:
                res = spoil.spoil_odds(deck, args.pushes, rules=rules, max_states=limit,
                                       engine=args.engine)
        res.seconds = max(0.0, res.seconds - took())
        rule = None
        if goal:
            with _without_compilation() as took:
                rule = spoil.best_rule(deck, goal, target, horizon=args.pushes, rules=rules,
                                       max_states=limit, engine=args.engine)
            rule.seconds = max(0.0, rule.seconds - took())
    except (spoil.TooManyStates, ValueError) as e:
        raise UserError(str(e)) from None
    print_results(args, res, rule, deck, format_report, format_rule)
    if args.plot:                      # after the results: a full disk loses none of them
        from vale_sim.games.mystic_vale.plots.spoil import spoil_report_figure
        from vale_sim.io import save_figure
        save_figure(spoil_report_figure(res), args.plot, dpi=110)
    return 0


@contextlib.contextmanager
def _without_compilation():
    """Yield a function giving the seconds numba spent compiling inside the block
    (0 with a warm cache): the reported ``seconds`` leave the one-off compilation out.
    The compile notice itself comes from vale_sim.kernels.jit."""
    try:
        from vale_sim.kernels.jit import compile_seconds
    except ImportError:                        # no numba: nothing is compiled
        yield lambda: 0.0
        return
    start = compile_seconds()
    end = []
    try:
        yield lambda: (end[0] if end else compile_seconds()) - start
    finally:
        end.append(compile_seconds())


def format_report(res, deck) -> str:
    sim = res.method == "simulated"
    lines = [f"deck {res.deck}: " + "; ".join(deck.describe()),
             (f"simulated: {res.games} games, seed {res.seed} (± one standard error)" if sim
              else f"exact ({res.states} states, {res.seconds:.3f} s)"),
             f"P(spoil during Prep) = {float(res.p_prep_spoil):.4f}", "",
             f"{'pushes':>6} {'P(spoiled)':>11} {'E[mana]':>9} {'E[mana|ok]':>11} "
             f"{'E[spirits]':>10} {'E[VP]':>7} {'can push':>9}"]
    for k in range(res.pushes + 1):
        e, c = res.expected[k], res.expected_given_no_spoil[k]
        p = f"{float(res.p_spoil_within[k]):.4f}"
        m = f"{float(e['mana']):.3f}"
        if sim:
            p += f"±{res.se['p_spoil_within'][k]:.3f}"
            m += f"±{res.se['expected'][k]['mana']:.2f}"
        ok = "-" if c["mana"] is None else f"{float(c['mana']):.3f}"
        lines.append(f"{k:>6} {p:>11} {m:>9} {ok:>11} {float(e['spirits']):>10.3f} "
                     f"{float(e['vp']):>7.3f} {float(res.p_can_push[k]):>9.4f}")
    lines.append("")
    lines.append("decay showing after k pushes (spoiled turns keep the showing they spoiled at):")
    lines += distribution_lines(res.decay_showing_distribution, range(res.pushes + 1), "pushes")
    return "\n".join(lines)


def format_rule(rule) -> str:
    what = ("expected mana" if rule.goal == "mana" else f"P(mana >= {rule.target})")
    return rule_text(
        rule, f"best push/stop rule (max {what}, at most {rule.horizon} pushes)",
        rule.always_push, lambda k: f"push {k}",
        ("by state met (pushes made, decay showing, mana in the field): how often the",
         "rule pushes there, and its threshold on P(next push spoils)"),
        f"{'pushes':>6} {'showing':>7} {'mana':>5} {'P(here)':>8} {'pushes%':>8} "
        f"{'push if risk <=':>15} {'stop if risk >=':>15}",
        lambda r: (f"{r['pushes']:>6} {r['decay_showing']:>7} {r['mana']:>5.1f} "
                   f"{r['reach']:>8.3f} {100 * r['p_push']:>7.0f}%"),
        "push", "stop")
