"""What the experiments and the report both keep: the chunk store that caches
runner outputs (:class:`ChunkStore`) and the provenance written into their
manifests (:func:`card_set_info`, :func:`code_version`).  Its own module so
that ``experiments`` (which builds reports) and ``report`` (which runs
through a store) do not import each other."""
from __future__ import annotations

from pathlib import Path


def card_set_info(cs, game=None) -> dict:
    """Name, content hash and path of a card set, then what ``game`` adds
    (:attr:`~vale_sim.games.base.Game.card_set_facts`), ``game`` default the
    registry's default game."""
    from .games import DEFAULT_GAME, get_game
    g = get_game(game if game is not None else DEFAULT_GAME)
    info = {"name": cs.name, "digest": cs.digest(), "path": str(getattr(cs, "path", None))}
    if g.card_set_facts is not None:
        info.update(g.card_set_facts(cs))
    return info


def code_version() -> dict:
    from . import __version__
    try:
        from .runner import git_commit
        commit = git_commit()
    except ImportError:
        commit = None
    return {"vale_sim": __version__, "git": commit}


class ChunkStore:
    """Where a study keeps its runner outputs: ``root/<config key>-<games>/``
    (``root=None``: nothing is kept, games are just played).

    ``play_frame`` has the signature of :func:`vale_sim.tournament.play_frame`
    and passes ``out=`` and ``resume=True`` to the runner, so finished chunks
    are reused.  ``reused`` / ``played`` count chunks.
    """

    def __init__(self, root: Path | None, progress: bool = False):
        self.root = Path(root) if root is not None else None
        self.progress = progress
        self.reused = 0
        self.played = 0
        self.games = 0

    def out_for(self, cfg) -> Path:
        return self.root / f"{cfg.key()}-{cfg.games}"

    def run(self, cfg, workers: int = 1):
        """``runner.run(cfg)``, with ``out=`` and ``resume=True`` when the store has a root."""
        from . import runner
        self.games += cfg.games
        if self.root is None:                   # no cache: just play
            return runner.run(cfg, workers=workers, progress=self.progress)
        out = self.out_for(cfg)
        before = len(list(out.glob(f"{runner.PART_PREFIX}*.parquet"))) if out.is_dir() else 0
        df = runner.run(cfg, workers=workers, out=out, resume=True, progress=self.progress)
        after = len(list(out.glob(f"{runner.PART_PREFIX}*.parquet")))
        self.reused += before
        self.played += after - before
        return df

    def play_frame(self, card_set, players, seed, games, policies, rules=None, engine="fast",
                   workers=1, game=None):
        from .games import DEFAULT_GAME, get_game
        from .runner import RunConfig
        g = get_game(game if game is not None else DEFAULT_GAME)
        cfg = RunConfig(card_set=card_set, players=players, seed=seed, games=games,
                        policies=tuple(policies), rules=rules or g.rules_class(), engine=engine,
                        game=g.name)
        return self.run(cfg, workers)
