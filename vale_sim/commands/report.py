"""``vale-sim report``: the main job on the bundled defaults.

Until the full balance report exists, this plays a batch of games on the
bundled `core` set and prints a short summary table.
"""
from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="run the main job on the bundled defaults")
    p.add_argument("--quick", action="store_true", help="a smaller, faster run")
    p.add_argument("--games", type=int, default=None)
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=run)


def run(args) -> int:
    import pandas as pd
    from ..reference.game import play_game
    from ..records import results_frame, turns_frame
    n = args.games or (50 if args.quick else 300)
    games = [play_game("core", args.players, args.seed, i) for i in range(n)]
    res, turns = results_frame(games), turns_frame(games)
    by_seat = res.groupby("seat").agg(games=("score", "size"), win_rate=("win_share", "mean"),
                                      mean_score=("score", "mean"))
    print(f"{n} games, {args.players} players, core set, seed {args.seed} (reference engine)\n")
    print(by_seat.round(3).to_string())
    played = turns[~turns.skipped]
    print(f"\nspoil rate per turn: {played.spoiled.mean():.3f} (n = {len(played)} turns)")
    print(f"mean game length: {res.groupby('game').rounds.first().mean():.1f} rounds")
    return 0
