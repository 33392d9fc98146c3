"""``vale-sim golden``: check or regenerate the golden playthroughs."""
from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("golden", help="check or regenerate the golden playthroughs (tests/golden)")
    p.add_argument("--regenerate", action="store_true",
                   help="replay every case with the reference engine and rewrite the files")
    p.set_defaults(func=run)


def run(args) -> int:
    from vale_sim.games.mystic_vale import golden
    if args.regenerate:
        for path in golden.regenerate():
            print(f"wrote {path}")
        return 0
    bad = 0
    for case in golden.CASES:
        path = golden.GOLDEN_DIR / f"{case.name}.txt"
        now = golden.render(case, golden.play_case(case))
        same = path.exists() and path.read_text() == now
        bad += not same
        print(f"{'ok  ' if same else 'DIFF'} {case.name}")
    if bad:
        print(f"{bad} case(s) differ: inspect with `git diff` after `vale-sim golden --regenerate`")
    return 1 if bad else 0
