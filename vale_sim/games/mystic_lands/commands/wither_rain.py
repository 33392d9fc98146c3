"""``vale-sim wither-rain --game mystic-lands``: how often players Wither, by
policy; how the Rain supply changes play; the value of using Rain tokens.
docs/mystic-lands-studies.md."""
from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("wither-rain", help="Mystic Lands: Withers by policy, Rain supply, the "
                       "value of Rain (--game mystic-lands)",
                       description="A line-up of policies, every deal in every seating (24 "
                                   "for four policies), under the estimated Rain "
                                   "supply (20) and variants, on the same deals; and a focal "
                                   "player who never places Rain against one who does.")
    p.add_argument("--supplies", default="0,10,40", help="Rain supplies besides 20 (default 0,10,40)")
    p.add_argument("--lineup", default="balanced,cautious,greedy,rain-dancer",
                   help="one policy per player, every deal in every seating of the line-up, so its "
                        "order does not matter (default balanced,cautious,greedy,"
                        "rain-dancer: 4 players)")
    from vale_sim.limits import count
    p.add_argument("--value-deals", type=count(0, "deals"), default=150,
                   help="deals for the value of Rain (2 players; 0 leaves it out; default 150)")
    from .lands_common import add_common
    add_common(p, deals=30, seed=5)
    p.set_defaults(func=run)


def run(args) -> int:
    from vale_sim.errors import UserError
    from vale_sim.games import get_game
    from vale_sim.games.mystic_lands.studies import lands
    from vale_sim.games.mystic_lands.studies.text import iv, policy_text, table, variant_text
    from vale_sim.games.mystic_lands.studies.plots import wither_figure
    from .lands_common import check_common, finish, progress, values
    check_common(args)
    if args.value_deals < 0 or args.value_deals == 1:
        raise UserError(f"--value-deals must be 0 or at least 2, got {args.value_deals}")
    supplies = values(args.supplies, "--supplies")
    lands._rules(lands.one_at_a_time({"rain_supply": supplies}))
    lineup = [x.strip() for x in args.lineup.split(",") if x.strip()]
    g = get_game("mystic-lands")
    for pol in lineup:
        g.get_policy(pol)
    study = lands.wither_rain_study(len(lineup), args.deals, args.seed, supplies, lineup,
                                    value_deals=args.value_deals, card_set=args.card_set,
                                    engine=args.engine, workers=args.workers,
                                    progress=progress(args))
    extra = [("withers/turn %", lambda r: iv(r, "withers_per_turn", 100)),
             ("d withers/game", lambda r: iv(r, "d_withers", signed=True, d=2))]
    text = variant_text(study, extra) + "\n\n" + policy_text(study.extra["policies"])
    if "rain_value" in study.extra:
        text += ("\n\nValue of using Rain (focal never places Rain minus focal places it, paired "
                 "by deal, 2 players):\n" + table(study.extra["rain_value"], [
                     ("measure", lambda r: r["measure"]), ("deals", lambda r: r["n_deals"]),
                     ("uses rain", lambda r: iv(r, "uses_rain", d=2)),
                     ("never rains", lambda r: iv(r, "never_rains", d=2)),
                     ("difference", lambda r: iv(r, "difference", signed=True, d=2))]))
    return finish(args, study, text, wither_figure)
