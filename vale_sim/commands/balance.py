"""``vale-sim balance``: the smallest integer card edits after which every card is shown
balanced (docs/balance.md)."""
from __future__ import annotations

import json
import sys

from ..limits import count as _count, seed as _seed

GAMES_TYPE, BUDGET_TYPE, SEED_TYPE = _count(2), _count(1), _seed


def add_parser(sub) -> None:
    from ..balance import DEFAULT_ESTIMAND, DEFAULT_GAMES, ESTIMANDS
    from ..strong_field import field_help
    p = sub.add_parser(
        "balance", help="propose integer card edits after which every card is shown "
                        "balanced, each confirmed on fresh deals (errata table, patched card "
                        "file)",
        description=f"Screen the cards under {field_help()}: the "
                    "natural value (the field's own play with the card on offer minus never "
                    "taking it) and the forced value (prefer X minus ban X); for each card "
                    "shown beyond the margin, race every value of its numbers within its "
                    "level's band (a value the field never buys is a candidate too), in "
                    "rounds that give the open decisions the games; then replay the proposed "
                    "set on a fresh seed the search never used and propose only the errata "
                    "it confirms (the card no longer beyond the margin, no other card pushed "
                    "beyond it).  Reports the detection limit, the values that also pass, "
                    "the unconfirmed candidates and what it did not do in grouped lines.  "
                    "Changed numbers get source 'balance'.  docs/balance.md.")
    p.add_argument("--set", default=None, help="card set: a bundled name or a file "
                                               "(default: the game's)")
    p.add_argument("--fields", default="cost,end_vp", metavar="cost,end_vp,...",
                   help="the numbers balance may change (default cost,end_vp; what-if's "
                        "editable numbers, docs/what-if.md)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--cards", default=None, metavar="A,B,...",
                   help="consider only these cards (default: every card a player buys)")
    g.add_argument("--flagged", action="store_true",
                   help="consider every card a player buys and edit those the screen flags "
                        "(the default; stated for clarity)")
    p.add_argument("--margin", type=float, default=2.0, metavar="PP",
                   help="'balanced' = shown within ±margin percentage points (default 2)")
    p.add_argument("--players", default=None, metavar="2,3,4",
                   help="player counts, comma-separated (default 2; with --draft 2,3,4)")
    p.add_argument("--baseline", default=None, metavar="NAME|FILE",
                   help=f"the bots (default {field_help()}; {{P}} the player count; "
                        f"e.g. balanced, the default bot, for comparison)")
    p.add_argument("--estimand", choices=ESTIMANDS, default=DEFAULT_ESTIMAND,
                   help="natural (default: verdicts and targets of the natural value with the "
                        "forced value as evidence of harm, docs/statistics.md 5.6) or prefer "
                        "(the forced value prefer X - ban X alone, the first design)")
    p.add_argument("--estimated-only", action="store_true",
                   help="edit only numbers whose source is not printed (source estimate or "
                        "balance); every printed number stays fixed.  With --out-cards the "
                        "refit numbers keep the source estimate, with a note how they were "
                        "fitted (docs/balance.md)")
    p.add_argument("--games", type=GAMES_TYPE, default=DEFAULT_GAMES,
                   help=f"games per card and arm in the screen; a race round plays 1/4, "
                        f"1/2, 1 and 2 times it per candidate (default {DEFAULT_GAMES})")
    p.add_argument("--confirm-games", type=GAMES_TYPE, default=None,
                   help="games per card and arm in the confirmation (default 2 x --games)")
    p.add_argument("--budget", type=BUDGET_TYPE, default=None, metavar="GAMES",
                   help="most games the search may play (the confirmation is not counted); "
                        "default no cap beyond the per-setting one")
    p.add_argument("--seed", type=SEED_TYPE, default=0, help="master seed (default 0)")
    p.add_argument("--tolerance", type=float, default=5.0, metavar="PP",
                   help="over/under band of the verdicts, as in advancements (default 5)")
    p.add_argument("--correction", choices=("holm", "bonferroni", "fdr_bh"), default="holm",
                   help="multiplicity correction across the cards (default holm: the "
                        "false-edit guarantee of docs/balance.md)")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast (numba; falls back to reference) or reference (default fast)")
    p.add_argument("--workers", type=_count(1, "workers"), default=1,
                   help="local worker processes (default 1)")
    from ..cli import add_scheduler_options
    add_scheduler_options(p)
    p.add_argument("--checkpoint", default=None, metavar="FILE.json",
                   help="keep every finished run here (one line appended after each)")
    p.add_argument("--resume", action="store_true",
                   help="reuse the runs of --checkpoint (same options)")
    p.add_argument("--out-cards", default=None, metavar="FILE.toml",
                   help="write the patched card file (changed numbers with source balance)")
    p.add_argument("--out-edits", default=None, metavar="FILE.toml",
                   help="write the proposed edits as an edits file (what-if --edits reads it)")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="save the convergence figure (written after the results are printed)")
    p.add_argument("--draft", action="store_true",
                   help="fill in the X's: a proposed value with its evidence for every open "
                        "number of the game's draft rulebook (a game with one; --players default "
                        "2,3,4 here, --games = deals per candidate and count)")
    p.add_argument("--numbers", default=None, metavar="A,B,...",
                   help="with --draft: only these open numbers (keys as printed)")
    p.add_argument("--rules", default=None, metavar="NAME",
                   help="search a rule number (e.g. vp_pool, end_vp) for --target's: its "
                        "values on common deals, the nearest the value played now that is "
                        "shown to meet every target at every count, confirmed on fresh deals "
                        "(docs/balance.md 'Rule numbers against targets'); --games = deals "
                        "per value and count, --baseline = the strong field")
    p.add_argument("--values", default=None, metavar="LO..HI[/STEP]|A,B,...",
                   help="with --rules: the values to try (default the value played now -6 .. "
                        "+6, step 2)")
    p.add_argument("--target", action="append", default=None,
                   metavar="skill-gradient=PP|first-seat=LO..HI",
                   help="with --rules (repeatable): skill-gradient=PP, the strong field's "
                        "edge over --weak's in percentage points (one strong player against "
                        "the others, every seat in turn), at least PP; first-seat=LO..HI, the "
                        "first seat's win rate in percent with everyone the strong field")
    p.add_argument("--weak", default=None, metavar="NAME|FILE",
                   help="with --rules: the weaker field of skill-gradient (default balanced)")
    p.add_argument("--one-seed", action="store_true",
                   help="with --draft: skip the second seed (by default the whole fill-in "
                        "runs again at a second seed and each number says whether the two "
                        "agree; this halves the games)")
    p.add_argument("--json", action="store_true", help="print the result as JSON (fractions)")
    from ..io import add_force_option
    add_force_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..cli import UserError, check_needs, scheduler_of
    from ..games import get_game
    from ..io import atomic_write, check_output, check_outputs, check_workers, save_figure
    from .what_if import _players
    from .. import balance as B
    g = get_game(args.game)
    check_outputs((args.plot, "file", "--plot"), (args.out_cards, "file", "--out-cards"),
                  (args.out_edits, "file", "--out-edits"), force=args.force)
    if args.checkpoint:               # --resume reads and checks it; else it is replaced
        check_output(args.checkpoint, "file", "--checkpoint", force=args.force,
                     ours=True if args.resume else None)
    check_workers(args.workers)
    if args.resume and not args.checkpoint:
        raise UserError("--resume needs --checkpoint FILE (the earlier run's)")
    if not 0 < args.margin < 100:
        raise UserError(f"--margin must be above 0 and below 100 percentage points, got {args.margin}")
    if not 0 <= args.tolerance < 100:
        raise UserError(f"--tolerance must be from 0 to 100 percentage points, got {args.tolerance}")
    scheduler = scheduler_of(args)
    if args.rules:
        return _run_rules(args, g)
    check_needs(args, *((o, False, "needs --rules (it searches a rule number for targets)")
                        for o in ("--values", "--target", "--weak")))
    if args.draft:
        return _run_draft(args, g, scheduler)
    check_needs(args, ("--numbers", False, "needs --draft (it picks open numbers of the "
                                           "draft rulebook to fill in)"),
                ("--one-seed", False, "needs --draft (the second seed of the fill-in)"))
    if args.checkpoint:
        from ..cli import keep_for_resume
        keep_for_resume(args, args.checkpoint, "the finished runs")
    players = _players(args.players or "2", g)
    fields = [f.strip() for f in args.fields.split(",") if f.strip()]
    cards = [c.strip() for c in args.cards.split(",") if c.strip()] if args.cards else None
    bar = None
    if sys.stderr.isatty() and not args.json:
        def bar(search, confirm):
            print(f"\rbalance: {search:,} search + {confirm:,} confirmation games",
                  end="", file=sys.stderr, flush=True)
    b = B.balance(g.name, args.set, fields, cards, args.margin / 100, players, args.baseline,
                  args.budget, args.games, args.confirm_games, args.seed, args.engine,
                  args.workers, tolerance=args.tolerance / 100, correction=args.correction,
                  checkpoint=args.checkpoint, resume=args.resume, progress=bar,
                  scheduler=scheduler, estimand=args.estimand,
                  estimated_only=args.estimated_only)
    if bar is not None:
        print(file=sys.stderr)
    patched = b.patched_toml() if args.out_cards else None      # its errors before any output
    print(json.dumps(b.to_json(), sort_keys=True, default=str) if args.json else b.text())
    sys.stdout.flush()
    if args.out_edits:
        atomic_write(args.out_edits, b.edits_toml())
    if patched is not None:
        atomic_write(args.out_cards, marked_toml(patched, "balance --out-cards: the card set "
                                                          "with the proposed edits"))
    if args.plot:
        save_figure(B.plot_convergence(b), args.plot, dpi=120, bbox_inches="tight")
    return 0


def marked_toml(text: str, what: str) -> str:
    """``text`` with vale-sim's header comment first (the mark that lets a later run
    replace the file, docs/runs.md), unless it already starts with one."""
    from ..io import MARK
    first = text.split("\n", 1)[0]
    if first.startswith("#") and "vale-sim" in first:
        return text
    return f"# {MARK} {what}\n{text}"


def _run_rules(args, g) -> int:
    """``balance --rules NAME --target ...``: vale_sim.rule_targets.search_rule."""
    import dataclasses
    from ..cli import UserError, check_needs, given
    from .. import rule_targets as RT
    from .what_if import _players
    why = "does not apply to --rules (it searches a rule number, not card numbers)"
    for opt in ("--cards", "--out-cards", "--estimated-only", "--out-edits", "--checkpoint",
                "--plot", "--draft", "--fields", "--flagged", "--estimand", "--budget",
                "--tolerance", "--correction", "--resume", "--numbers", "--one-seed"):
        check_needs(args, (opt, False, why))
    if not args.target:
        raise UserError("--rules needs at least one --target, e.g. --target first-seat=45..55 "
                        "or --target skill-gradient=5")
    targets = [RT.parse_target(t) for t in args.target]
    rules0 = g.rules_class()
    if not hasattr(rules0, args.rules):
        raise UserError(f"--rules {args.rules!r}: not a rule of {g.title} (its rules: "
                        f"{', '.join(f.name for f in dataclasses.fields(rules0))})")
    current = getattr(rules0, args.rules)
    players = _players(args.players or "2", g)
    if current is None and hasattr(rules0, "value_for"):   # None: the rulebook's per count
        current = rules0.value_for(args.rules, players[0])
    if not isinstance(current, int) or isinstance(current, bool):
        raise UserError(f"--rules {args.rules}: only whole-number rules can be searched "
                        f"(its value is {current!r})")
    values = RT.parse_values(args.values, current)
    deals = args.games if "games" in given(args) else 2000
    bar = None
    if sys.stderr.isatty() and not args.json:
        def bar(done, total):
            print(f"\rbalance --rules: {done}/{total} measurements", end="", file=sys.stderr,
                  flush=True)
    base = dataclasses.replace(rules0, **{args.rules: current})
    r = RT.search_rule(g.name, args.rules, values, targets, players, deals,
                       args.confirm_games, args.seed, args.baseline,
                       args.weak or RT.DEFAULT_WEAK, args.set, args.engine, args.workers,
                       base_rules=base, progress=bar)
    if bar is not None:
        print(file=sys.stderr)
    print(json.dumps(r.to_json(), sort_keys=True, default=str) if args.json else r.text())
    return 0


def _run_draft(args, g, scheduler=None) -> int:
    """``balance --draft``: vale_sim.draft.fill_in (docs/balance.md "Filling in the X's")."""
    from ..cli import UserError, check_needs
    from ..io import atomic_write
    from .. import draft as D
    from .what_if import _players
    why = "does not apply to --draft (it proposes rule numbers and counts, not card edits)"
    for opt, bad in (("--cards", args.cards), ("--out-cards", args.out_cards),
                     ("--estimated-only", args.estimated_only),
                     ("--out-edits", args.out_edits), ("--checkpoint", args.checkpoint),
                     ("--plot", args.plot)):
        if bad:
            raise UserError(f"{opt} {why}; drop {opt}")
    # card edits' own settings, left at their defaults unless given
    check_needs(args, *((o, False, why) for o in ("--fields", "--flagged", "--estimand",
                                                  "--budget", "--tolerance", "--correction",
                                                  "--resume")))
    players = _players(args.players or ",".join(map(str, D.DEFAULT_PLAYERS)), g)
    keys = [k.strip() for k in args.numbers.split(",") if k.strip()] if args.numbers else None
    bar = None
    if sys.stderr.isatty() and not args.json:
        def bar(n):
            print(f"\rbalance --draft: {n:,} games", end="", file=sys.stderr, flush=True)
    d = D.fill_in(g.name, args.set, players, args.games, args.confirm_games, args.seed,
                  args.margin / 100, args.baseline, args.engine, args.workers, keys,
                  progress=bar, scheduler=scheduler, agreement=not args.one_seed)
    if bar is not None:
        print(file=sys.stderr)
    print(json.dumps(d.to_json(), sort_keys=True, default=str) if args.json else d.text())
    return 0
