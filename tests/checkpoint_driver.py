"""``vale-sim`` with the toy game ``hands`` registered (tests/test_checkpoints.py): the
biased rock-paper-scissors of tests/rps_game.py with the three searches that keep a
checkpoint (optimize, exploit, meta).  ``python tests/checkpoint_driver.py ARGS...``
runs ``vale_sim.cli.main(ARGS)``; the environment variable ``HANDS_GAME_DELAY`` (seconds)
makes every game that long, so that a test can interrupt a run in its middle (the
games and results do not change)."""
from __future__ import annotations

import dataclasses
import os
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rps_game  # noqa: E402
from vale_sim.study import EXPLOIT, META, OPTIMIZE  # noqa: E402

PACKAGE = "checkpoint_driver_hands"


def _play(*args, **kw):
    delay = float(os.environ.get("HANDS_GAME_DELAY") or 0)
    if delay:
        time.sleep(delay)
    return rps_game.play(*args, **kw)


HANDS = dataclasses.replace(rps_game.GAME, name="hands", package=PACKAGE, play_reference=_play,
                            studies=(OPTIMIZE, EXPLOIT, META))


def register(registry: dict, modules: dict) -> None:
    """``--game hands`` in ``registry`` (vale_sim.games.GAMES) and ``modules`` (sys.modules)."""
    mod = types.ModuleType(PACKAGE)
    mod.GAME = HANDS
    modules[PACKAGE] = mod
    registry["hands"] = PACKAGE


def _reference_exploit():
    """``exploit`` plays ``hands`` on its reference engine (the toy game has no fast one;
    ``vale-sim exploit`` has no --engine option)."""
    from vale_sim import exploit as ex
    run = ex.exploit

    def exploit(cfg, *a, **kw):
        return run(dataclasses.replace(cfg, engine="reference"), *a, **kw)
    ex.exploit = exploit


if __name__ == "__main__":
    from vale_sim import games
    register(games.GAMES, sys.modules)
    _reference_exploit()
    from vale_sim.cli import main
    sys.exit(main(sys.argv[1:]))
