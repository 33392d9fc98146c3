"""A small stand-alone command line for Mystic Lands, until ``vale-sim --game``
reaches every command:

    python -m vale_sim.games.mystic_lands play --players 4 --seed 1 [--json]
    python -m vale_sim.games.mystic_lands cards [--set FILE]

A user's mistake prints one line and exits with status 2.
"""
from __future__ import annotations

import argparse
import json
import sys

from . import GAME, render_play
from .cards import describe


def build_parser() -> argparse.ArgumentParser:
    from ...limits import Parser        # one-line errors, exit status 2
    ap = Parser(prog="python -m vale_sim.games.mystic_lands",
                                 description="Mystic Lands: play one game or list a card set.")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser("play", help="play one game and print it turn by turn")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    from ...limits import game_index, seed
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--game", type=game_index, default=0, help="game index within the seed")
    p.add_argument("--policy", action="append", metavar="NAME|FILE",
                   help="policy preset or file; once for all players or once per player")
    p.add_argument("--set", default=GAME.default_card_set, help="card set name or file")
    p.add_argument("--json", action="store_true", help="print the game record as JSON")
    c = sub.add_parser("cards", help="list a card set and its map")
    c.add_argument("--set", default=GAME.default_card_set, help="card set name or file")
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if not args.command:
        ap.print_help()
        return 2
    try:
        cs = GAME.load_card_set(args.set)
        if args.command == "cards":
            print("\n".join(describe(cs)))
            return 0
        GAME.validate_playable(cs, args.players)
        from .policy import policies_for
        pols = GAME.check_policies(cs, policies_for(args.players, args.policy))
        record = GAME.play_reference(cs, args.players, args.seed, args.game, pols)
    except ValueError as e:
        print(f"mystic-lands {args.command}: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(render_play(record, cs, as_json=True), sort_keys=True))
    else:
        print("\n".join(render_play(record, cs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
