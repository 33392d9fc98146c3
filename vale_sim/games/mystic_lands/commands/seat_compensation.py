"""``vale-sim seat-compensation --game mystic-lands``: win rate per seat with and
without the manual's starting resources, and a search over small compensation
schedules (TOST per seat, Holm over schedules).  docs/mystic-lands-studies.md."""
from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("seat-compensation", help="Mystic Lands: seat win rates and the fairest "
                       "starting-resource schedule (--game mystic-lands)",
                       description="Play every compensation schedule of a grid on the same deals "
                                   "(everyone the same policy) and test, per seat, that its win "
                                   "rate lies within a margin of a fair share (two one-sided "
                                   "tests; Holm over schedules); then confirm the manual's "
                                   "schedule and the best other one on fresh deals.  Keeps the "
                                   "manual's when it is confirmed fair; recommends a change only "
                                   "when the manual's is shown unfair and the other is confirmed "
                                   "fair; otherwise says how many deals would settle it.")
    p.add_argument("--players", default="2,3,4", help="player counts (default 2,3,4)")
    p.add_argument("--grid", default="ladder", choices=("ladder", "monotone"),
                   help="ladder (default): none, the manual's and a few neighbours; monotone: "
                        "every schedule with mana and spirit non-decreasing by seat")
    from vale_sim.limits import count, int_range
    p.add_argument("--max-mana", type=int_range(0, 10, "of mana"), default=2, help="largest mana per seat (default 2)")
    p.add_argument("--max-spirit", type=int_range(0, 10, "of spirit"), default=1, help="largest spirit per seat (default 1)")
    p.add_argument("--margin", type=float, default=3.0,
                   help="equivalence margin in percentage points of win rate (default 3)")
    p.add_argument("--policy", default="balanced",
                   help="the policy of every seat (default balanced); {P} stands for the "
                        "player count: meta-{P}p, the strongest bundled field")
    p.add_argument("--confirm-deals", type=count(2, "deals"), default=None, metavar="N",
                   help="fresh deals of the confirmation stage per schedule (default: sized "
                        "from the selection stage so that the manual's schedule is shown fair or "
                        "unfair with 80%% power if its selection gaps are right, between --deals "
                        "and 100,000)")
    from .lands_common import add_common
    add_common(p, deals=None, seed=1,
               deals_help="deals per schedule of the selection stage (default: sized so that a "
                          "schedule within half the margin is confirmed with 80%% power, about "
                          "8,700 / 7,700 / 6,500 deals at 2 / 3 / 4 players for ±3 pp)")
    p.set_defaults(func=run)


def run(args) -> int:
    from vale_sim.errors import UserError
    from vale_sim.games import get_game
    from vale_sim.games.mystic_lands.studies import common, seats
    from vale_sim.games.mystic_lands.studies.text import seat_text
    from vale_sim.games.mystic_lands.studies.plots import seat_figure
    from .lands_common import check_common, finish, progress
    check_common(args)
    if args.confirm_deals is not None and args.confirm_deals < 2:
        raise UserError(f"--confirm-deals must be at least 2, got {args.confirm_deals}")
    if not 0 < args.margin < 100:
        raise UserError(f"--margin must be between 0 and 100 percentage points, got {args.margin}")
    players = common.parse_players(args.players)
    from vale_sim.games.base import baseline_spec
    for k in players:                    # {P}: the player count (meta-{P}p)
        get_game("mystic-lands").get_policy(baseline_spec(args.policy, k))
    study = seats.seat_study(players, args.deals, args.seed, args.grid, args.margin / 100,
                             policy=args.policy, card_set=args.card_set, engine=args.engine,
                             workers=args.workers, max_mana=args.max_mana,
                             max_spirit=args.max_spirit, progress=progress(args),
                             confirm_deals=args.confirm_deals)
    return finish(args, study, seat_text(study), seat_figure)
