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
    are reused.  ``play_outcomes`` (the studies' summary path,
    :func:`vale_sim.tournament.play_outcomes`) keeps each finished run's outcome
    arrays as one file, ``root/<config key>-<games>.outcomes.npz``, read back when
    the same run is asked again.  ``reused`` / ``played`` count chunks (a run of
    outcomes counts as one).
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

    def play_outcomes(self, card_set, players, seed, games, policies, rules=None,
                      engine="fast", workers=1, game=None):
        """:meth:`play_frame`'s games as outcome arrays (no frame), kept per run."""
        from . import runner
        from .games import DEFAULT_GAME, get_game
        g = get_game(game if game is not None else DEFAULT_GAME)
        cfg = runner.RunConfig(card_set=card_set, players=players, seed=seed, games=games,
                               policies=tuple(policies), rules=rules or g.rules_class(),
                               engine=engine, game=g.name)
        self.games += cfg.games
        if self.root is None:
            return runner.run_outcomes(cfg, workers=workers, progress=self.progress)
        path = self.root / f"{cfg.key()}-{cfg.games}{OUTCOMES_SUFFIX}"
        if path.is_file():
            kept = read_outcomes(path)
            if kept is not None and kept.n == cfg.games:
                self.reused += 1
                return kept
        o = runner.run_outcomes(cfg, workers=workers, progress=self.progress)
        write_outcomes(path, o)
        self.played += 1
        return o


OUTCOMES_SUFFIX = ".outcomes.npz"


def write_outcomes(path: Path, o) -> Path:
    """Outcome arrays as an uncompressed ``.npz``, written atomically (no pickles)."""
    import io

    import numpy as np

    from .io import atomic_write
    arrays = {"first_game": np.array(o.first_game, np.int64),
              "policies": np.array(list(o.policies), dtype=str),
              "share": o.share, "score": o.score, "seat": o.seat, "event": o.event,
              "rounds": o.rounds, "truncated": o.truncated,
              "count_names": np.array(list(o.counts), dtype=str)}
    for i, a in enumerate(o.counts.values()):
        arrays[f"count_{i}"] = a
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, buf.getvalue())


def read_outcomes(path: Path):
    """The outcomes :func:`write_outcomes` wrote, or None if the file is unreadable."""
    import numpy as np

    from .games.base import Outcomes
    try:
        with np.load(path, allow_pickle=False) as z:
            names = [str(c) for c in z["count_names"]]
            return Outcomes(first_game=int(z["first_game"]),
                            policies=tuple(str(p) for p in z["policies"]),
                            share=z["share"], score=z["score"], seat=z["seat"],
                            event=z["event"], rounds=z["rounds"], truncated=z["truncated"],
                            counts={c: z[f"count_{i}"] for i, c in enumerate(names)})
    except (OSError, ValueError, KeyError):
        return None
