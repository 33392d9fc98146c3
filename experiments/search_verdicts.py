"""Verdicts under search play (issue 28; docs/search.md, "Verdicts under search play").

    PYTHONPATH=. .venv/bin/python experiments/search_verdicts.py --game mystic-vale \\
        --name "flagged cards" --field 'search:k=16:rollout=meta-{P}p' --deals 120 \\
        --reference-deals 10000 --seed 1 --cards 'Stag,Model L2 Bloom I' \\
        --out vale_sim/games/mystic_vale/data/search-verdicts.json

The card strength (natural estimand, docs/statistics.md §5.6) of ``--cards`` with the
search field ``--field`` as the baseline of every arm (the focal player and its
opponents all search) on ``--deals`` deals, next to the same cards under ``--reference``
(default the bundled ``meta-{P}p``) on ``--reference-deals`` deals of the same seed, and
whether each reference flag holds under search play (vale_sim.search_verdicts).  The
study is stored under ``--name`` in ``--out`` (other studies of the file kept; one of
the same name replaced) with the command that made it; the report reads the bundled
file and plays nothing.  ``--card-set FILE`` plays another set (e.g. the planted twins
of experiments/cards/core-planted.toml); ``--expect CARD=VERDICT`` records what a
planted card should read, ``--twin A=B`` compares two cards' natural values, paired by
deal.  ``--show FILE`` prints a file's sentences.
"""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vale_sim import limits                                     # noqa: E402
from vale_sim.errors import UserError                           # noqa: E402

PROG = "search_verdicts.py"


def parser():
    ap = limits.Parser(prog=PROG, description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="mystic-vale")
    ap.add_argument("--players", type=limits.int_range(2, 4, "of players"), default=2)
    ap.add_argument("--name", default="flagged cards", help="the study's name in --out")
    ap.add_argument("--field", default="search:k=16:rollout=meta-{P}p",
                    help="the search field ({P} = the player count)")
    ap.add_argument("--reference", default="meta-{P}p", help="the reference field")
    ap.add_argument("--cards", default=None, help="comma-separated card names")
    ap.add_argument("--card-set", default=None, help="card set name or file")
    ap.add_argument("--deals", type=limits.count(2, "deals"), default=100,
                    help="deals of each arm under the search field (x P seats)")
    ap.add_argument("--reference-deals", type=limits.count(2, "reference-deals"), default=None,
                    help="deals of each arm under the reference field (default --deals)")
    ap.add_argument("--seed", type=limits.seed, default=0)
    ap.add_argument("--engine", default="fast", choices=("fast", "reference"))
    ap.add_argument("--expect", action="append", default=[], metavar="CARD=VERDICT")
    ap.add_argument("--twin", action="append", default=[], metavar="A=B")
    ap.add_argument("--out", default=None, help="the file (default results/search-verdicts-"
                    "{game}.json)")
    ap.add_argument("--show", default=None, metavar="FILE", help="print a file and stop")
    return ap


def _pairs(items, what):
    out = []
    for x in items:
        a, sep, b = x.partition("=")
        if not sep or not a.strip() or not b.strip():
            raise UserError(f"--{what} {x!r}: write NAME=VALUE")
        out.append((a.strip(), b.strip()))
    return out


def run(argv=None) -> int:
    from vale_sim import search_verdicts as SV
    args = list(sys.argv[1:] if argv is None else argv)
    a = parser().parse_args(args)
    if a.show:
        doc = SV.read(a.show)
        for name, st in doc["studies"].items():
            print(f"== {name} ==")
            for s in SV.sentences(st, st["game"]):
                print(s)
        return 0
    from vale_sim.games import get_game
    from vale_sim.io import atomic_write, check_output
    try:
        g = get_game(a.game)
    except ValueError as e:
        raise UserError(f"--game: {e}") from None
    if a.players not in g.players:
        raise UserError(f"--players must be one of {g.players} for {g.title} (got {a.players})")
    if not a.cards:
        raise UserError("--cards: give the cards to measure, comma-separated")
    cards = [c.strip() for c in a.cards.split(",") if c.strip()]
    expect = _pairs(a.expect, "expect")
    twins = _pairs(a.twin, "twin")
    out = Path(a.out) if a.out else ROOT / "results" / f"search-verdicts-{g.name}.json"
    check_output(out, "file", "--out", ours=True)    # its own rule below: an earlier file of its kind
    old = None
    if out.exists():
        try:
            old = SV.read(out)
        except UserError:
            raise UserError(f"--out {out}: exists and is not a search-verdicts file; "
                            f"refusing to replace it (choose another path)") from None
    try:
        cs = g.load_card_set(a.card_set if a.card_set is not None else g.default_card_set)
        from vale_sim.advancements import check_cards
        check_cards(cs, cards + [c for c, _ in expect] + [x for p in twins for x in p], g.name)
        g.resolve_baseline(a.field, a.players, cs)
        g.resolve_baseline(a.reference, a.players, cs)
        study = SV.measure(g.name, a.players, a.field, cards, a.deals, a.reference,
                           a.reference_deals, a.seed, cs, a.engine, twins, expect,
                           on_card=lambda who, i, m, c: c and print(
                               f"  {who}: card {i + 1}/{m} {c}", file=sys.stderr, flush=True))
    except (ValueError, *g.user_errors) as e:
        raise UserError(str(e).splitlines()[0] if str(e) else repr(e)) from None
    study["command"] = "experiments/search_verdicts.py " + " ".join(shlex.quote(x) for x in args)
    doc = SV.with_study(old, a.name, study)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, json.dumps(doc, indent=1, default=float) + "\n")
    for s in SV.sentences(study, g.name):
        print(s)
    print(f"wrote {out}")
    return 0


def main(argv=None) -> int:
    try:
        return run(argv)
    except UserError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
