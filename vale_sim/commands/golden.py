"""``vale-sim golden [--game GAME] [--regenerate]``: check or regenerate a game's golden
playthroughs (``Game.golden_module``: its ``CASES``, ``GOLDEN_DIR``, ``render``,
``play_case`` and ``regenerate``; vale_sim.games.conformance replays them with both
engines in the tests)."""
from __future__ import annotations

import importlib


def add_parser(sub) -> None:
    p = sub.add_parser("golden", help="check or regenerate the golden playthroughs (tests/golden)",
                       description="Replay every golden case of the game with the reference "
                                   "engine and compare with its file (exit 1 if any differs); "
                                   "--regenerate rewrites the files (review them with git diff).")
    p.add_argument("--regenerate", action="store_true",
                   help="replay every case with the reference engine and rewrite the files")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..cli import UserError, command_game
    g = command_game(args)
    if g.golden_module is None:
        raise UserError(f"golden is not available for {g.name} (it has no golden "
                        "playthroughs); drop --game or choose another game")
    golden = importlib.import_module(g.golden_module)
    if args.regenerate:
        for path in golden.regenerate():
            print(f"wrote {path}")
        return 0
    bad = 0
    for case in golden.CASES:
        path = golden.GOLDEN_DIR / f"{case.name}.txt"
        now = golden.render(case, golden.play_case(case))
        same = path.exists() and _golden_text(path) == now
        bad += not same
        print(f"{'ok  ' if same else 'DIFF'} {case.name}")
    if bad:
        print(f"{bad} case(s) differ: inspect with `git diff` after "
              f"`vale-sim golden --game {g.name} --regenerate`")
    return 1 if bad else 0


def _golden_text(path) -> str:
    """The text of golden file ``path``: a folder, a special file or bytes that are not
    UTF-8 are one line (exit 2) naming it, not a traceback."""
    from ..cli import UserError
    from ..inputs import InputFileError, read_text
    try:
        return read_text(path, "golden file")
    except InputFileError as e:
        raise UserError(f"{e}; or rewrite it with --regenerate (then review git diff)") from None
