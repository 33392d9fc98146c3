"""``vale-sim what-if``: change a card's number (or a rule) and see which verdicts move."""
from __future__ import annotations

import json
import sys

from ..whatif import DEFAULT_GAMES

from ..limits import count as _count, seed as _seed

# The shared count and seed types: bad values refused while parsing, exit 2.
GAMES_TYPE, SEED_TYPE = _count(2), _seed


def add_parser(sub) -> None:
    p = sub.add_parser(
        "what-if", help="edit a card's number or a rule: the paired change of every verdict",
        description="Play the original and the edited card set (and rules) on the same deals "
                    "with the same bots (by default the game's strongest bundled field, as in "
                    "`advancements`, `balance` and the report; the focal player at every "
                    "player index), and report the paired change, per deal, of every card's "
                    "value (by default the natural value: the field's own play minus never "
                    "buying X; --estimand prefer: the forced value, prefer X minus ban X), "
                    "with intervals, n and a multiplicity correction "
                    "across the cards (which cards moved); both sets' verdicts "
                    "(over/under/balanced/inconclusive) and which changed, said plainly, also "
                    "when the change is within noise; and the paired change of seat advantage, "
                    "game length, score margin and the game's bad-turn (spoil, wither) "
                    "rate.  Edited numbers get source 'user'.  See docs/what-if.md.")
    p.add_argument("--edit", action="append", default=[], metavar="CARD.FIELD=VALUE",
                   help="change one number of one card: VALUE a whole number, or +N / -N "
                        "relative to the current value (\"Feral Chieftain.cost=+1\"); repeat "
                        "for more edits")
    p.add_argument("--edits", default=None, metavar="FILE.toml",
                   help="edits from a file: [cards.\"NAME\"] tables of FIELD = VALUE and a "
                        "[rules] table of NAME = VALUE (docs/what-if.md)")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="change a rule option of the game (a field of its rules: e.g. "
                        "vp_pool=30, end_vp=+2, seat_mana=0,1,1,2); repeat for more")
    p.add_argument("--players", default="2", metavar="2,3,4",
                   help="player counts, comma-separated (default 2)")
    p.add_argument("--games", type=GAMES_TYPE, default=DEFAULT_GAMES,
                   help=f"games per card and arm (prefer, ban) and set: deals x players "
                        f"(default {DEFAULT_GAMES}; `advancements` uses 20000 for stable flags)")
    p.add_argument("--cards", default=None, metavar="A,B,...",
                   help="measure only these other cards (the edited cards always): fewer games")
    p.add_argument("--set", default=None, help="card set: a bundled name or a file "
                                               "(default: the game's)")
    from ..advancements import ESTIMANDS
    from ..strong_field import ESTIMAND, field_help
    p.add_argument("--baseline", default=None, metavar="NAME|FILE",
                   help="the bots: a preset, a bundled policy or a policy file; {P} stands for "
                        f"the player count (default {field_help()}; --baseline balanced: the "
                        "default bot, for comparison)")
    p.add_argument("--estimand", choices=sorted(ESTIMANDS), default=ESTIMAND,
                   help="what each card's value and verdict rest on: natural (the natural "
                        "value, the field's own play minus never buying the card) or prefer "
                        "(the forced value, prefer X minus ban X); default "
                        f"{ESTIMAND}, as in advancements, balance and the report "
                        "(docs/statistics.md 5.6)")
    p.add_argument("--seed", type=SEED_TYPE, default=0, help="master seed (default 0)")
    p.add_argument("--tolerance", type=float, default=5.0, metavar="PP",
                   help="verdict band, as in advancements (default 5)")
    p.add_argument("--margin", type=float, default=2.0, metavar="PP",
                   help="'balanced' margin, as in advancements (default 2)")
    p.add_argument("--correction", choices=("fdr_bh", "holm", "bonferroni"), default="fdr_bh",
                   help="multiplicity correction across the cards (and across the game-level "
                        "measures); default fdr_bh, as in advancements")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast (numba; falls back to reference) or reference (default fast)")
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="also save the strength changes as a forest figure")
    p.add_argument("--json", action="store_true", help="print the result as JSON "
                                                       "(rates and strengths as fractions)")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def _players(text: str, g) -> list[int]:
    from ..cli import UserError
    out = []
    for part in str(text).split(","):
        part = part.strip()
        if not part.isdigit() or int(part) not in g.players:
            raise UserError(f"--players: give counts from {', '.join(map(str, g.players))} "
                            f"separated by commas, got {text!r}")
        if int(part) not in out:
            out.append(int(part))
    return out


def run(args) -> int:
    from ..cli import UserError
    from ..games import get_game
    from ..io import check_outputs, check_workers
    from .. import whatif
    g = get_game(args.game)
    check_outputs((args.plot, "file", "--plot"), force=args.force)    # before any game
    check_workers(args.workers)
    players = _players(args.players, g)
    whatif.check_count(args.games, "--games", 2)
    if not 0 <= args.tolerance < 100:
        raise UserError(f"--tolerance must be from 0 to 100 percentage points, got {args.tolerance}")
    if not 0 < args.margin < 100:
        raise UserError(f"--margin must be above 0 and below 100 percentage points, got {args.margin}")
    edits = [whatif.parse_edit(e) for e in args.edit]
    rules = [whatif.parse_rule(r, g) for r in args.rule]
    if args.edits:
        fe, fr = whatif.read_edits_file(args.edits, g)
        edits += fe
        rules += fr
    cards = [c.strip() for c in args.cards.split(",") if c.strip()] if args.cards else None
    bar = _bar(args, g, edits, rules, players, cards)
    try:
        w = whatif.what_if(edits, rules, g.name, args.set, players, args.games, args.seed,
                           args.baseline, cards, None, args.engine, args.workers,
                           tolerance=args.tolerance / 100, margin=args.margin / 100,
                           correction=args.correction, progress=bar,
                           estimand=args.estimand)
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        print(json.dumps(w.to_json(), sort_keys=True, default=str))
    else:
        print(w.text())
    if args.plot:                     # the results are printed before the figure is written
        from ..io import save_figure
        from ..plots.whatif import plot_changes
        sys.stdout.flush()
        save_figure(plot_changes(w), args.plot, dpi=120, bbox_inches="tight")
    return 0


def _bar(args, g, edits, rules, players, cards):
    """A tqdm bar over the cards measured (two sets x player counts); None off a terminal."""
    if not sys.stderr.isatty() or args.json:
        return None
    from tqdm.auto import tqdm
    try:
        cs = g.load_card_set(args.set if args.set is not None else g.default_card_set)
        known = [c[0] for c in g.strength_cards(cs)]
        n = len(set(cards) | ({e.card for e in edits} & set(known))) if cards else len(known)
    except Exception:                  # what_if reports the problem itself
        return None
    return tqdm(total=2 * n * len(players), desc="what-if", unit="card", leave=False,
                file=sys.stderr)
