"""``vale-sim market-growth --game mystic-lands``: vary the two VP points at which
level 2 slots replace level 1 slots; game length and the spread of strategies.
docs/mystic-lands-studies.md."""
from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("market-growth", help="Mystic Lands: market growth points "
                       "(--game mystic-lands)",
                       description="Play the manual's market growth (first player to 5 VP, then "
                                   "15 VP) and variants on the same deals, with a line-up of "
                                   "different policies played in every seating (24 for four "
                                   "policies: each deal once per order of the line-up): game "
                                   "length, Level 2 Advances bought "
                                   "and the spread of the policies' win rates.")
    p.add_argument("--first", default="3,10", help="first growth points besides 5 (default 3,10)")
    p.add_argument("--second", default="10,20", help="second growth points besides 15 (default 10,20)")
    p.add_argument("--no-never", action="store_true", help="leave out the market that never grows")
    p.add_argument("--lineup", default="balanced,greedy,spirit,vp",
                   help="one policy per player; every deal is played in every seating of the "
                        "line-up, so its order does not matter (default "
                        "balanced,greedy,spirit,vp: 4 players)")
    from .lands_common import add_common
    add_common(p, deals=40, seed=3)
    p.set_defaults(func=run)


def run(args) -> int:
    from vale_sim.games import get_game
    from vale_sim.games.mystic_lands.studies import lands
    from vale_sim.games.mystic_lands.studies.text import iv, policy_text, variant_text
    from vale_sim.games.mystic_lands.studies.plots import market_figure
    from .lands_common import check_common, finish, progress, values
    check_common(args)
    points = {"manual": (5, 15)}
    for v in values(args.first, "--first"):
        points[f"first={v}"] = (v, 15)
    for v in values(args.second, "--second"):
        points[f"second={v}"] = (5, v)
    if not args.no_never:
        points["never"] = (1000, 1000)
    lineup = [x.strip() for x in args.lineup.split(",") if x.strip()]
    g = get_game("mystic-lands")
    for pol in lineup:
        g.get_policy(pol)
    study = lands.market_growth_study(len(lineup), args.deals, args.seed, points, lineup,
                                      args.card_set, args.engine, args.workers, progress(args))
    sp = study.extra["spread"].set_index("variant")
    extra = [("level 2 bought", lambda r: iv(r, "level2")),
             ("all L2 bought %", lambda r: iv(r, "level2_sold_out", 100, d=0)),
             ("spread pp", lambda r: iv(sp.loc[r["variant"]].to_dict(), "spread", 100)),
             ("d spread pp", lambda r: iv(sp.loc[r["variant"]].to_dict(), "d_spread", 100,
                                         signed=True))]
    text = variant_text(study, extra) + "\n\n" + policy_text(study.extra["policies"])
    return finish(args, study, text, market_figure)
