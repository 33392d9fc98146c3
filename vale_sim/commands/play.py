"""``vale-sim play``: one game, as a readable turn-by-turn log or as JSON."""
from __future__ import annotations

import json


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play one game and print it turn by turn",
                       description="Play one game with the reference engine and print a "
                                   "turn-by-turn log (pushes, spoils, purchases, VP) and the "
                                   "final scores.")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    p.add_argument("--game", type=int, default=0, help="game index within the seed (default 0)")
    p.add_argument("--policy", action="append", metavar="NAME|FILE",
                   help="policy preset or file; give once for all players or once per player")
    p.add_argument("--set", default="core", help="card set: core, starter or a file (default core)")
    p.add_argument("--prep-count", choices=("net", "gross"), default="net")
    p.add_argument("--vp-pool", type=int, default=None)
    p.add_argument("--json", action="store_true", help="print the game record as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from vale_sim.games.mystic_vale.cards import load_card_set, validate_playable
    from ..cli import UserError
    from vale_sim.games.mystic_vale.reference.game import play_game
    from vale_sim.games.mystic_vale.rules import Rules
    from vale_sim.games.mystic_vale.policy import check_policies, policies_for
    cs = load_card_set(args.set)
    validate_playable(cs, args.players)
    check_policies(cs, policies_for(args.players, args.policy))   # the same check as simulate
    try:
        rules = Rules(prep_count=args.prep_count, vp_pool=args.vp_pool)
        record = play_game(cs, args.players, args.seed, args.game, args.policy, rules)
    except ValueError as e:
        raise UserError(str(e)) from None
    if args.json:
        print(json.dumps(record.to_dict(), sort_keys=True))
        return 0
    print("\n".join(record.log))
    print()
    print(f"{'player':>6} {'seat':>4} {'policy':<12} {'tokens':>6} {'adv VP':>6} "
          f"{'vale VP':>7} {'total':>5} {'win':>5}")
    for r in record.results:
        print(f"{'P%d' % r.player:>6} {r.seat:>4} {r.policy:<12} {r.tokens_vp:>6} {r.adv_vp:>6} "
              f"{r.vale_vp:>7} {r.score:>5} {r.win_share:>5.2f}")
    print(f"{record.rounds} rounds" + (" (stopped at the round cap)" if record.truncated else ""))
    return 0
