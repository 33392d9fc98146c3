"""``vale-sim strategy``: the strategy guide of a policy (vale_sim/strategy.py,
docs/strategy.md)."""
from __future__ import annotations

import json
import sys


def add_parser(sub) -> None:
    p = sub.add_parser(
        "strategy", help="the strategy guide: when the strongest player pushes, what it buys "
                         "first, which of its decisions matter",
        description="Records the strong policy's decisions in reference-engine games against "
                    "itself (push or pass against the exact odds of going bad; first buys by "
                    "round and by mana), and measures what each kind of decision is worth: a "
                    "hybrid making that kind like --baseline plays P - 1 copies of the strong "
                    "policy on common deals, every seat of every deal (cost: 1/P minus its win "
                    "share, paired by deal).  docs/strategy.md.")
    from ..limits import count, seed
    from ..strong_field import field_help
    p.add_argument("--players", default="2", metavar="P[,P...]",
                   help="player counts, comma-separated (default 2)")
    p.add_argument("--policy", default=None, metavar="NAME|FILE",
                   help="the strong player: a policy name ({P} = the player count) or file "
                        f"(default {field_help()})")
    p.add_argument("--baseline", default="balanced", metavar="NAME|FILE",
                   help="whose decisions replace one kind at a time (default balanced, the "
                        "comparison)")
    p.add_argument("--set", default=None, help="card set (default: the game's default set)")
    p.add_argument("--games", type=count(0, "games"), default=100,
                   help="recorded reference-engine games per player count (default 100; 0: "
                        "the ablation only)")
    p.add_argument("--deals", type=count(2, "deals"), default=500,
                   help="common deals of each ablation row (default 500)")
    p.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    p.add_argument("--engine", default="auto", choices=("auto", "fast", "reference"),
                   help="engine of the ablation games (default auto: the fast one when there is)")
    p.add_argument("--out", default=None, metavar="FILE.json",
                   help="write the guide as JSON here (the report reads "
                        "vale_sim/games/<game>/data/strategy-guide.json)")
    p.add_argument("--json", action="store_true", help="print the guide as JSON")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def parse_players(text, g) -> tuple:
    from ..errors import UserError
    out = []
    for part in str(text).split(","):
        part = part.strip()
        if not part.isdigit() or int(part) not in g.players:
            raise UserError(f"--players: {part!r} is not a player count of {g.name} "
                            f"(use {', '.join(map(str, g.players))}, comma-separated)")
        out.append(int(part))
    return tuple(dict.fromkeys(out))


def run(args) -> int:
    from .. import strategy
    from ..errors import UserError
    from ..games import get_game
    from ..io import atomic_write, check_output
    from ..variants import resolve_engine
    from ..strong_field import field_of
    g = get_game(args.game)
    h = strategy.hooks(g)            # a game without a guide: one line
    args.policy = args.policy or field_of(g)      # the strongest bundled field by default
    players = parse_players(args.players, g)
    out = check_output(args.out, option="--out", force=args.force) if args.out else None
    try:
        cs = g.load_card_set(args.set if args.set is not None else g.default_card_set)
        from ..mixture import is_mixture
        for p in players:
            for opt_, spec in (("--policy", args.policy), ("--baseline", args.baseline)):
                if is_mixture(g.resolve_baseline(spec, p, cs)):
                    raise UserError(f"{opt_} {spec}: the strategy guide reads one policy's "
                                    f"decisions and its parameters, not a mixed field; give "
                                    f"one of its members")
    except g.user_errors as e:
        raise UserError(str(e).splitlines()[0]) from None
    engine = resolve_engine(args.engine, g.name)
    bar = None
    if sys.stderr.isatty():          # the games of every ablation row, then the recorded ones
        from tqdm import tqdm
        rows = len(h.DECISION_KINDS) + 1
        bar = tqdm(total=sum(rows * p * args.deals + args.games for p in players),
                   unit="game", dynamic_ncols=True, file=sys.stderr, desc="strategy",
                   leave=False)
    try:
        doc = strategy.guide(g, players, args.policy, args.baseline, args.games, args.deals,
                             args.seed, cs, engine=engine,
                             progress=bar.update if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    doc["command"] = command_line(args, g)
    text = json.dumps(doc, indent=1, sort_keys=False)
    # the guide is printed first, then written: a failed write (a full disk) is one
    # line and exit 2, and loses none of it
    if args.json:
        print(text)
    else:
        for p in doc["players"]:
            print(f"== {g.title}, {p} players: field {doc['players'][p]['strong']} ==")
            recorded = (strategy.push_sentences(doc, p) + strategy.buy_sentences(doc, p)
                        if args.games else [])
            for line in recorded + strategy.ablation_sentences(doc, p):
                print(line)
    if out is not None:
        sys.stdout.flush()
        atomic_write(out, text + "\n")
        if not args.json:
            print(f"wrote {out}")
    return 0


def command_line(args, g) -> str:
    """The command that makes this guide (its options in full)."""
    parts = ["vale-sim strategy", f"--game {g.name}", f"--players {args.players}",
             f"--policy {args.policy}", f"--baseline {args.baseline}",
             f"--games {args.games}", f"--deals {args.deals}", f"--seed {args.seed}",
             f"--engine {args.engine}"]
    if args.set is not None:
        parts.append(f"--set {args.set}")
    if args.out:
        parts.append(f"--out {args.out}")
    return " ".join(parts)
