"""The skill ladder: how much does good play matter? (issue 26; docs/skill-ladder.md)

    PYTHONPATH=. .venv/bin/python experiments/skill_ladder.py --game mystic-vale --players 2 \\
        --meta vale_sim/games/mystic_vale/data/meta/2p --deals 2000 \\
        --out vale_sim/games/mystic_vale/data/meta/skill-ladder-mystic-vale-2p.json
    PYTHONPATH=. .venv/bin/python experiments/skill_ladder.py --show FILE.json

The levels, the matrix, the first player's win rate and the file format are those of
:mod:`vale_sim.skill_ladder` (weakest first: random -> presets -> lookahead ->
``optimized-{P}p`` -> ``--level`` policies -> the best responses of ``--meta`` -> its
mixture; a kind the game lacks is left out and recorded in ``missing_kinds``).  Every
cell on the same ``--deals`` deals of ``SeedSequence([--seed, 11])``: the same command
gives the same file.  Results: ``--out FILE.json`` (default
``results/meta/skill-ladder-{game}-{P}p.json``; an existing file is replaced only if it
is a ladder file) with the command that wrote it, and a Markdown table on stdout.
``--show FILE``: print a ladder file's table (a damaged file: one line, exit 2).
Interrupted (Ctrl-C), a run keeps the matchups it played in ``FILE.partial.npz`` next to
``--out``; the same command continues from them (other settings ignore it) and removes
it once the file is written.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vale_sim import limits                                     # noqa: E402
from vale_sim.errors import UserError                           # noqa: E402
from vale_sim.skill_ladder import (LADDER_TAG, is_checkpoint, ladder,  # noqa: E402,F401
                                   ladder_problem, markdown, read_ladder)

PROG = "skill_ladder.py"


def parser():
    ap = limits.Parser(prog=PROG, description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="mystic-vale")
    ap.add_argument("--players", type=limits.int_range(2, 4, "of players"), default=2)
    ap.add_argument("--deals", type=limits.count(1, "deals"), default=500,
                    help="common deals of every cell (each cell plays P x deals games)")
    ap.add_argument("--seed", type=limits.seed, default=0)
    ap.add_argument("--meta", default=None, help="a vale-sim meta --out folder: its best "
                    "responses and mixture are the top levels")
    ap.add_argument("--level", action="append", default=[], metavar="NAME|FILE",
                    help="a further level (a preset, bundled policy or policy file), placed "
                    "after the optimised bot and before the best responses; repeatable")
    ap.add_argument("--engine", default="fast", choices=("fast", "reference"))
    ap.add_argument("--workers", type=limits.count(1, "workers", cap=256), default=1)
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    ap.add_argument("--show", default=None, metavar="FILE",
                    help="print the table of a ladder file and stop")
    ap.add_argument("--add-to", default=None, metavar="FILE",
                    help="partial rows: play each --level against the --against columns of "
                    "this ladder file only, on its first --deals deals, and add them to it "
                    "(a row of the same level is replaced; the matrix is kept)")
    ap.add_argument("--against", action="append", default=[], metavar="LEVEL[,LEVEL...]",
                    help="with --add-to: the columns (levels of the file, e.g. optimized-{P}p, "
                    "'meta mixture'); repeatable or comma-separated")
    ap.add_argument("--first-deals", type=limits.count(0, "first-deals"), default=None,
                    help="with --add-to: deals of the first player's rate (every player of the "
                    "level; default --deals, 0: none)")
    return ap


def checkpoint_path(out: Path) -> Path:
    """Where an interrupted run keeps its matchups: next to ``--out``; the same command
    continues from it."""
    return out.with_name(out.stem + ".partial.npz")


def _check_out(out: Path) -> None:
    from vale_sim.io import check_output, read_manifest
    check_output(out, "file", "--out", ours=True)    # its own rule below: an earlier file of its kind
    if out.exists() and ladder_problem(read_manifest(out)):
        raise UserError(f"--out {out}: exists and is not a skill ladder file; refusing to "
                        f"replace it (choose another path)")
    partial = checkpoint_path(out)
    if partial.exists() and not is_checkpoint(partial):
        raise UserError(f"{partial}: exists and is not a skill ladder checkpoint; refusing to "
                        f"replace it (move it, or choose another --out)")


def add_rows(a, argv) -> int:
    """--add-to FILE: partial rows (docs/skill-ladder.md §9)."""
    from vale_sim.io import atomic_write
    from vale_sim.skill_ladder import add_partial, partial_row, partial_sentence
    path = Path(a.add_to)
    doc = read_ladder(path)
    if not a.level:
        raise UserError("--add-to: give the level(s) to add with --level NAME|FILE")
    P = doc["players"]
    against = [x.strip().replace("{P}", str(P)) for part in a.against for x in part.split(",")
               if x.strip()]
    if not against:
        raise UserError("--add-to: give the columns to play with --against LEVEL (e.g. "
                        "--against optimized-{P}p --against 'meta mixture')")
    from vale_sim.games import get_game
    g = get_game(doc["game"])
    command = "experiments/skill_ladder.py " + " ".join(
        _quote(x) for x in (argv if argv is not None else sys.argv[1:]))
    for spec in a.level:
        try:
            row = partial_row(doc, spec, against, a.deals, a.first_deals,
                              a.engine if a.engine_given else None, not a.no_progress)
        except g.user_errors as e:
            raise UserError(str(e).splitlines()[0] if str(e) else repr(e)) from None
        row["command"] = command
        doc = add_partial(doc, row)
        atomic_write(path, json.dumps(doc, indent=1, default=float))   # each row kept at once
        print(partial_sentence(doc, row))
    print(f"wrote {path}")
    return 0


def _quote(x: str) -> str:
    import shlex
    return shlex.quote(x)


def run(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    a = parser().parse_args(args)
    a.engine_given = any(x == "--engine" or x.startswith("--engine=") for x in args)
    if a.show:
        print(markdown(read_ladder(a.show)))
        return 0
    if a.add_to:
        return add_rows(a, args)
    if a.against or a.first_deals is not None:
        raise UserError("--against and --first-deals go with --add-to FILE (partial rows)")
    from vale_sim.games import get_game
    try:
        g = get_game(a.game)
    except ValueError as e:
        raise UserError(f"--game: {e}") from None
    if a.players not in g.players:
        raise UserError(f"--players must be one of {g.players} for {g.title} (got {a.players})")
    out = Path(a.out) if a.out else ROOT / "results" / "meta" / \
        f"skill-ladder-{g.name}-{a.players}p.json"
    if not a.out:
        out.parent.mkdir(parents=True, exist_ok=True)
    _check_out(out)
    partial = checkpoint_path(out)
    try:
        r = ladder(g.name, a.players, a.deals, a.seed, a.meta, a.engine, extra=a.level,
                   progress=not a.no_progress, workers=a.workers, checkpoint=partial)
    except g.user_errors as e:          # e.g. a policy file of --meta the game refuses
        raise UserError(str(e).splitlines()[0] if str(e) else repr(e)) from None
    r["command"] = "experiments/skill_ladder.py " + " ".join(
        argv if argv is not None else sys.argv[1:])
    if out.exists():                 # keep its partial rows (marked out of date if stale)
        from vale_sim.io import read_manifest
        old = read_manifest(out) or {}
        if old.get("partial") and old.get("deal_seed") == r["deal_seed"] \
                and old.get("deals", 0) >= max(x["deals"] for x in old["partial"]) \
                and r["deals"] >= max(x["deals"] for x in old["partial"]):
            r["partial"] = old["partial"]
    from vale_sim.io import atomic_write
    atomic_write(out, json.dumps(r, indent=1, default=float))
    partial.unlink(missing_ok=True)          # ours: the matchups are in the file now
    print(markdown(r))
    print(f"wrote {out}")
    return 0


def main(argv=None) -> int:
    try:
        return run(argv)
    except UserError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; the matchups played are kept next to --out "
              f"(*.partial.npz): run the same command to continue", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
