"""``vale-sim play``: one game, as a readable turn-by-turn log or as JSON."""
from __future__ import annotations

import json


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play one game and print it turn by turn",
                       description="Play one game with the reference engine and print a "
                                   "turn-by-turn log (pushes, spoils, purchases, VP) and the "
                                   "final scores.")
    p.add_argument("--players", type=int, default=2, help="2, 3 or 4 (default 2)")
    from ..limits import game_index, seed
    p.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    p.add_argument("--game-index", type=game_index, default=0,
                   help="game index within the seed (default 0)")
    p.add_argument("--policy", action="append", metavar="NAME|FILE",
                   help="policy preset or file; give once for all players or once per player")
    p.add_argument("--set", default=None,
                   help="card set: a bundled name or a file (default: the game's, core)")
    from ..cli import add_rule_options
    add_rule_options(p)                   # the games' rule options (rules_class fields)
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="set a rule option of the game, as `what-if --rule` and a study's "
                        "rule_edits do: any field of its rules, a disputed reading "
                        "too (e.g. ongoing_everywhere=true, effect_enchants_count=true, "
                        "held_end_vp=false); repeat for more")
    p.add_argument("--json", action="store_true", help="print the game record as JSON")
    p.set_defaults(func=run)


def policy_list(g, players: int, policies) -> list:
    """One policy of game ``g`` per player from ``--policy`` values (none: the
    game's default policy; one: for every player)."""
    from ..cli import UserError
    pols = [g.get_policy(p) for p in (policies or [g.default_policy])]
    if len(pols) == 1:
        pols = pols * players
    if len(pols) != players:
        raise UserError(f"give 1 or {players} policies, got {len(pols)}")
    return pols


def format_result(record) -> str:
    """The final scores of any game's record (RESULT_COLUMNS of its results); the
    seat as text counts it (the record's seat + 1: seat 1 starts)."""
    from ..games.base import SEATS_NOTE
    lines = [SEATS_NOTE, f"{'player':>6} {'seat':>4} {'policy':<12} {'score':>5} {'win':>5}"]
    for r in record.results:
        lines.append(f"{'P%d' % r.player:>6} {r.seat + 1:>4} {r.policy:<12} {r.score:>5} "
                     f"{r.win_share:>5.2f}")
    lines.append(f"{record.rounds} rounds" + (" (stopped at the round cap)" if record.truncated else ""))
    return "\n".join(lines)


def _toml(v) -> str:
    """A rule value as the user writes it (true/false, 1,2,3)."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, tuple):
        return ",".join(map(str, v))
    return str(v)


def run(args) -> int:
    from ..cli import UserError, check_players, command_game, game_rules, rule_options
    g = command_game(args)
    check_players(g, args.players)
    cs = g.load_card_set(args.set or g.default_card_set)
    g.validate_playable(cs, args.players)
    pols = g.check_policies(cs, policy_list(g, args.players, args.policy))  # as simulate checks
    rules = game_rules(g, **rule_options(args))
    from ..whatif import apply_rule_edits, parse_rule       # the parser of what-if and run
    rules, changed = apply_rule_edits(g, rules, [parse_rule(r, g) for r in args.rule])
    from ..mixture import lineup_for_game          # a mixed field plays its drawn member
    pols = lineup_for_game(pols, args.seed, args.game_index)
    try:
        record = g.play_reference(cs, args.players, args.seed, args.game_index, pols, rules)
    except ValueError as e:
        raise UserError(str(e)) from None
    if args.json:
        print(json.dumps(record.to_dict(), sort_keys=True))
        return 0
    for name, old, new in changed:
        print(f"Rule {name}: {_toml(old)} -> {_toml(new)}")
    print("\n".join(g.format_log(record, cs) if g.format_log else record.log))
    print()
    print((g.format_result or format_result)(record))
    return 0
