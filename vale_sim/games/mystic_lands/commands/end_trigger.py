"""``vale-sim end-trigger --game mystic-lands``: vary the VP threshold, the cube
count and the end bonus one at a time; game length, what ends games, seat
advantage, score margin, whether the trigger wins.  docs/mystic-lands-studies.md."""
from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("end-trigger", help="Mystic Lands: end VP, cube count and bonus "
                       "(--game mystic-lands)",
                       description="Play the manual's end trigger (25 VP or 10 cubes, +5 VP) and "
                                   "variants changing one number at a time, on the same deals.")
    p.add_argument("--players", default="2,4", help="player counts (default 2,4)")
    p.add_argument("--end-vp", default="20,30", help="VP thresholds besides 25 (default 20,30)")
    p.add_argument("--end-cubes", default="8,12", help="cube counts besides 10 (default 8,12)")
    p.add_argument("--end-bonus", default="0,10", help="end bonuses besides 5 (default 0,10)")
    p.add_argument("--policy", default="balanced", help="the policy of every seat (default balanced)")
    from .lands_common import add_common
    add_common(p, deals=150, seed=2)
    p.set_defaults(func=run)


def run(args) -> int:
    from vale_sim.games import get_game
    from vale_sim.games.mystic_lands.studies import common, lands
    from vale_sim.games.mystic_lands.studies.text import variant_text
    from vale_sim.games.mystic_lands.studies.plots import end_trigger_figure
    from .lands_common import check_common, finish, progress, values
    check_common(args)
    players = common.parse_players(args.players)
    opts = {"end_vp": values(args.end_vp, "--end-vp"),
            "end_cubes": values(args.end_cubes, "--end-cubes"),
            "end_bonus": values(args.end_bonus, "--end-bonus")}
    lands._rules(lands.one_at_a_time(opts))           # bad values: one line before any game
    from vale_sim.games.base import baseline_spec
    for k in players:                    # {P}: the player count (meta-{P}p)
        get_game("mystic-lands").get_policy(baseline_spec(args.policy, k))
    study = lands.end_trigger_study(players, args.deals, args.seed, opts, args.policy,
                                    args.card_set, args.engine, args.workers, progress(args))
    return finish(args, study, variant_text(study), end_trigger_figure)
