"""Runs at scale: many games, split into chunks, in one process or many.

A run is described by a :class:`RunConfig`.  Its games are split into
*chunks* of consecutive game indices; a chunk is a pure function of
``(config, first_game, n)`` (game ``i`` depends only on ``(seed, i)``,
docs/engine-spec.md §2), so the result never depends on the number of
workers, chunks or Dask nodes.  :func:`run` returns (and optionally writes)
one row per game and player; :func:`summarize` folds chunks into a
fixed-size summary as they finish.  The on-disk layout, manifest and resume
rules are described in docs/runs.md.
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import functools
import hashlib
import json
import math
import os
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from . import __version__
from .errors import UserError
from .games import DEFAULT_GAME, Game, get_game
from .games.base import Outcomes

ENGINES = ("fast", "reference")
MANIFEST = "_manifest.json"        # "_" prefix: pandas/pyarrow skip it when reading the directory
PART_PREFIX = "part-"
PART_DIGITS = 12                    # zero-padded first game: file order = game order
# "game" is written (and so part of the key) only when it is not the default game: the
# keys and manifests of its runs are those from before there were games.
KEY_FIELDS = ("card_set.digest", "players", "seed", "policies", "rules", "engine", "version.vale_sim",
              "game")
DEFAULT_CHUNK = {"fast": 20_000, "reference": 200}
MAX_TEXT_CELL = 4_200            # bytes: a text cell of a game row (a policy name or path) is taken to be no larger (check_memory)


def _user_error(msg: str) -> Exception:
    from .errors import UserError
    return UserError(msg)


def _game(game) -> Game:
    """``get_game(game)``; an unknown or missing game is a UserError."""
    try:
        return get_game(game)
    except ValueError as e:
        raise _user_error(str(e)) from None


# ---------------------------------------------------------------------------
# Engines
# ---------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def fast_available(game: "str | Game" = DEFAULT_GAME) -> bool:
    """True when ``game`` has a fast engine and it imports (numba installed)."""
    g = get_game(game)
    if g.fast_module is None:
        return g.has_fast_engine
    try:
        import importlib
        importlib.import_module(g.fast_module)
    except ImportError:
        return False
    return g.has_fast_engine


def fast_engine_ok(g: Game) -> bool:
    """fast_available(g): the one patch point the tests use."""
    return fast_available(g)


_fallback_warned: list = []      # warn once per process


def effective_engine(engine: str, game: "str | Game" = DEFAULT_GAME) -> str:
    """The engine a run will use: "fast" falls back to "reference" (with a warning)
    when numba is missing; a game without a fast engine is a UserError."""
    if engine not in ENGINES:
        raise _user_error(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    g = _game(game)
    if engine == "fast" and not g.has_fast_engine:
        raise _user_error(f"no fast engine for {g.name} yet; use --engine reference")
    if engine == "fast" and not fast_engine_ok(g):
        if not _fallback_warned:
            _fallback_warned.append(True)
            warnings.warn(f"the fast engine ({g.fast_module or g.package}) is not available; "
                          "using the reference engine", RuntimeWarning, stacklevel=3)
        return "reference"
    return engine


@functools.lru_cache(maxsize=None)
def git_commit() -> str | None:
    """The git commit of the source tree, or None outside a checkout."""
    try:
        out = subprocess.run(["git", "-C", str(Path(__file__).resolve().parent), "rev-parse", "HEAD"],
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's results, plus the number of games.

    ``card_set``: a bundled name, a file path or a loaded set of ``game``.
    ``policies``: 1 or ``players`` entries, each a preset name, a policy file
    path or a policy.  ``rules``: the game's ``rules_class`` (None: its
    defaults).  ``engine``: "fast" (the default; falls back to "reference" with
    a warning when the numba engine is not available) or "reference".
    ``game``: the --game name (:func:`vale_sim.games.get_game`).
    """
    card_set: "str | os.PathLike | object" = "core"
    players: int = 2
    seed: int = 0
    games: int = 1000
    policies: tuple = ("balanced",)
    rules: object = None
    engine: str = "fast"
    game: str = DEFAULT_GAME

    def __post_init__(self):
        g = _game(self.game)
        object.__setattr__(self, "game", g.name)
        if self.rules is None:
            object.__setattr__(self, "rules", g.rules_class())
        if isinstance(self.policies, (str, os.PathLike)) or dataclasses.is_dataclass(self.policies):
            object.__setattr__(self, "policies", (self.policies,))
        else:
            object.__setattr__(self, "policies", tuple(self.policies))
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise _user_error(f"players must be an integer, got {self.players!r}")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 0:
            raise _user_error(f"games must be a non-negative integer, got {self.games!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed < 2**64:
            raise _user_error(f"seed must be an integer in [0, 2**64), got {self.seed!r}")
        if len(self.policies) not in (1, self.players):
            raise _user_error(f"give 1 or {self.players} policies, got {len(self.policies)}")
        if not isinstance(self.rules, g.rules_class):
            raise _user_error(f"rules must be a {g.rules_class.__name__} of {g.name}, "
                              f"got {self.rules!r}")
        if self.engine not in ENGINES:
            raise _user_error(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")

    def game_obj(self) -> Game:
        """The :class:`~vale_sim.games.base.Game` this run plays."""
        return get_game(self.game)

    def cards(self):
        """The card set, loaded."""
        return self.game_obj().load_card_set(self.card_set)

    def policy_list(self) -> tuple:
        """One policy per player."""
        g = self.game_obj()
        pols = [g.get_policy(p) for p in self.policies]
        if len(pols) == 1:
            pols = pols * self.players
        if len(pols) != self.players:
            raise _user_error(f"give 1 or {self.players} policies, got {len(pols)}")
        return tuple(pols)

    def is_resolved(self) -> bool:
        """True for the :meth:`resolved` form: everything loaded, one policy per player."""
        loaded = lambda x: not isinstance(x, (str, os.PathLike))  # noqa: E731
        return (loaded(self.card_set) and all(map(loaded, self.policies))
                and len(self.policies) == self.players)

    def resolved(self) -> "RunConfig":
        """The same run with the card set and policies loaded and the engine chosen.

        Workers receive this form, so they never read files or fall back on
        their own.  Validates that the set is playable with ``players``.
        """
        g = self.game_obj()
        cs = self.cards()
        _validate_playable(g, cs, self.players)
        g.check_policies(cs, list(self.policy_list()))
        return dataclasses.replace(self, card_set=cs, policies=self.policy_list(),
                                   engine=effective_engine(self.engine, g))

    def _key_fields(self) -> dict:
        cs = self.cards()
        fields_ = {
            "card_set": {"name": cs.name, "digest": cs.digest()},
            "players": self.players,
            "seed": self.seed,
            "policies": [dataclasses.asdict(p) for p in self.policy_list()],
            "rules": dataclasses.asdict(self.rules),
            "engine": effective_engine(self.engine, self.game),
            "version": {"vale_sim": __version__, "git": git_commit()},
        }
        if self.game != DEFAULT_GAME:
            fields_["game"] = self.game
        return json.loads(json.dumps(fields_, default=str))   # as read back from the manifest

    def manifest(self) -> dict:
        """The run's description, written as ``_manifest.json`` next to its results."""
        m = self._key_fields()
        m["games"] = self.games
        m["created"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        m["key"] = manifest_key(m)
        return m

    def key(self) -> str:
        """A hash of everything that determines the results of game i (not the
        number of games, the chunking, the time or the git commit)."""
        return manifest_key(self._key_fields())


#: (game, id of a loaded card set, players) -> the set, for the last few sets found
#: playable: a study resolves many short runs of one set (the set is held, so its id
#: is not reused while it is here).
_PLAYABLE: dict = {}


def _validate_playable(g: Game, cs, players: int) -> None:
    key = (g.name, id(cs), players)
    if _PLAYABLE.get(key) is cs:
        return
    g.validate_playable(cs, players)
    if len(_PLAYABLE) >= 32:
        del _PLAYABLE[next(iter(_PLAYABLE))]
    _PLAYABLE[key] = cs


def _get(d: dict, dotted: str):
    for part in dotted.split("."):
        d = d.get(part) if isinstance(d, dict) else None
    return d


def manifest_key(manifest: dict) -> str:
    """The key of a manifest dict: sha256 of its KEY_FIELDS."""
    blob = json.dumps({f: _get(manifest, f) for f in KEY_FIELDS
                       if f != "game" or _get(manifest, f) is not None},   # a default-game run
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def manifest_diff(old: dict, new: dict) -> list[str]:
    """The KEY_FIELDS on which two manifests differ, as readable strings."""
    out = []
    for f in KEY_FIELDS:
        a, b = _get(old, f), _get(new, f)
        if a == b:
            continue
        if f == "policies" and isinstance(a, list) and isinstance(b, list):
            names = lambda ps: [p.get("name") for p in ps]  # noqa: E731
            detail = f"{names(a)} vs {names(b)}" if names(a) != names(b) else "parameters differ"
            out.append(f"policies ({detail})")
        elif f == "rules" and isinstance(a, dict) and isinstance(b, dict):
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            out.append("rules (" + ", ".join(f"{k}: {a.get(k)!r} vs {b.get(k)!r}" for k in keys) + ")")
        elif f == "card_set.digest":
            out.append(f"card set ({_get(old, 'card_set.name')} {a} vs {_get(new, 'card_set.name')} {b})")
        else:
            out.append(f"{f} ({a!r} vs {b!r})")
    return out


# ---------------------------------------------------------------------------
# One chunk
# ---------------------------------------------------------------------------
def run_chunk(cfg: RunConfig, first_game: int, n: int) -> pd.DataFrame:
    """Games ``first_game .. first_game+n-1`` of the run: one row per game and player,
    sorted by game then player.  A pure function of its arguments."""
    rc = cfg if cfg.is_resolved() else cfg.resolved()
    g = rc.game_obj()
    cs, pols = rc.card_set, list(rc.policies)
    from . import mixture
    if any(map(mixture.is_mixture, pols)):          # mixed fields: members drawn per game
        df = mixture.play_chunk(g, cs, rc.players, rc.seed, first_game, n, pols, rc.rules,
                                rc.engine == "fast" and fast_engine_ok(g))
    elif rc.engine == "fast" and fast_engine_ok(g):
        df = g.run_fast(cs, rc.players, rc.seed, n, pols, rc.rules, first_game=first_game)
    else:
        records = [g.play_reference(cs, rc.players, rc.seed, i, pols, rc.rules)
                   for i in range(first_game, first_game + n)]
        df = g.results_frame(records, cs)
    if not _in_game_order(df):
        df = df.sort_values(["game", "player"], kind="stable").reset_index(drop=True)
    df.attrs = {}
    return df


def outcomes_chunk(cfg: RunConfig, first_game: int, n: int) -> Outcomes:
    """:func:`run_chunk`'s games as :class:`~vale_sim.games.base.Outcomes` (arrays per
    game and player, no frame): the fast engine's ``Game.run_outcomes`` when the game
    has it, else the outcomes read from :func:`run_chunk`'s frame.  Equal to
    ``Outcomes.from_frame(run_chunk(cfg, first_game, n), ...)``; a pure function of
    its arguments."""
    rc = cfg if cfg.is_resolved() else cfg.resolved()
    g = rc.game_obj()
    cs, pols = rc.card_set, list(rc.policies)
    fast = rc.engine == "fast" and fast_engine_ok(g)
    from . import mixture
    if any(map(mixture.is_mixture, pols)):
        return _mixture_outcomes(g, cs, rc.players, rc.seed, first_game, n, pols, rc.rules,
                                     fast)
    if fast and g.run_outcomes is not None:
        return g.run_outcomes(cs, rc.players, rc.seed, n, pols, rc.rules, first_game=first_game)
    return Outcomes.from_frame(run_chunk(rc, first_game, n), g.event_column, rc.players,
                               first_game)


def _mixture_outcomes(g, cs, players: int, seed: int, first: int, n: int, policies, rules,
                      fast: bool) -> Outcomes:
    """:func:`vale_sim.mixture.play_chunk`'s games as outcomes: the same draws and
    segments, the arrays of each drawn line-up's games put back in game order,
    ``policies`` naming the mixtures."""
    from .mixture import GAP_GAMES, _segments, assignments
    games = list(range(first, first + n))
    a = assignments(policies, seed, games)
    groups: dict = {}
    for i, row in zip(games, map(tuple, a)):
        groups.setdefault(row, []).append(i)
    parts, where = [], []
    for row, idx in groups.items():
        concrete = [p.members[k] if k >= 0 else p for p, k in zip(policies, row)]
        want = np.asarray(idx, dtype=np.int64)
        if fast:
            for lo, hi in _segments(idx, GAP_GAMES):
                if g.run_outcomes is not None:
                    o = g.run_outcomes(cs, players, seed, hi - lo + 1, concrete, rules,
                                       first_game=lo)
                else:
                    o = Outcomes.from_frame(
                        g.run_fast(cs, players, seed, hi - lo + 1, concrete, rules, first_game=lo),
                        g.event_column, players, lo)
                mine = want[(want >= lo) & (want <= hi)]
                parts.append(o.take(mine - lo))
                where.append(mine)
        else:
            parts.append(Outcomes.from_frame(g.results_frame(
                [g.play_reference(cs, players, seed, i, concrete, rules) for i in idx], cs),
                g.event_column, players))
            where.append(want)
    out = Outcomes.concat(parts)
    out = out.take(np.argsort(np.concatenate(where), kind="stable"), first_game=first)
    out.policies = tuple(p.name for p in policies)
    return out


def _in_game_order(df: pd.DataFrame) -> bool:
    """True if the rows are sorted by game then player and the index is 0..n-1: the
    stable sort and reset of run_chunk would return the same frame (the fast engine's
    frames always are; sorting 10,000 rows costs more than this check)."""
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        return False
    g = df["game"].to_numpy()
    p = df["player"].to_numpy()
    return bool(np.all((g[1:] > g[:-1]) | ((g[1:] == g[:-1]) & (p[1:] >= p[:-1]))))


# ---------------------------------------------------------------------------
# Summaries: integer sums, so folding chunks is exact in any order
# ---------------------------------------------------------------------------
SUMMARY_INPUTS = ("game", "seat", "policy", "win_share", "score", "spoils", "rounds",
                  "truncated")   # "spoils": the game's event column (Game.event_column)
# Per group (a seat, or a policy): player-games, games (the clusters: players of
# one game are not independent) and Σ N_g² over games; per metric its sum, and
# over games Σ S_g² and Σ S_g·N_g (S_g: the group's total in game g, N_g: its
# player-games there), the sufficient statistics of a game-clustered interval
# (stats.cluster_ratio_sums).  score_sumsq sums squared player scores (the SD).
METRICS = ("wins12", "score_sum", "spoils", "spoiled_games", "rounds_sum")
SUM_COLUMNS = (("games", "clusters", "n_sq", "score_sumsq", "truncated")
               + tuple(f"{m}{x}" for m in METRICS for x in ("", "_sq", "_n")))
WIN_DENOM = 12     # win_share is 1/k, k <= 4: 12 * win_share is an integer


def summary_inputs(event: str = "spoils") -> tuple:
    """The columns :func:`chunk_summary` reads, for a game whose event column is ``event``."""
    return tuple(event if c == "spoils" else c for c in SUMMARY_INPUTS)


def event_names(event: str = "spoils") -> tuple[str, str]:
    """The summary's names for events per game and the share of player-games with
    one: ("spoils_per_game", "spoiled_game_share") for spoils, else
    ("<event>_per_game", "<event>_game_share")."""
    if event == "spoils":
        return "spoils_per_game", "spoiled_game_share"
    return f"{event}_per_game", f"{event}_game_share"


def chunk_summary(df: pd.DataFrame, event: str = "spoils") -> pd.DataFrame:
    """Integer sufficient statistics of a per-game/player frame, per seat and per policy.

    Index: (group, value) with group "seat" or "policy"; columns SUM_COLUMNS
    (``spoils``/``spoiled_games`` count the game's ``event`` column).
    """
    score = df["score"].astype("int64")
    t = pd.DataFrame({
        "games": 1,
        "wins12": (df["win_share"] * WIN_DENOM).round().astype("int64"),
        "score_sum": score,
        "score_sumsq": score ** 2,
        "spoils": df[event].astype("int64"),
        "spoiled_games": (df[event] > 0).astype("int64"),
        "rounds_sum": df["rounds"].astype("int64"),
        "truncated": df["truncated"].astype("int64"),
    }, index=df.index)
    parts = []
    for group, col in (("seat", "seat"), ("policy", "policy")):
        key = df[col].astype(str)
        per_game = t.groupby([key, df["game"]], sort=True).sum()       # one row a (value, game)
        n_g = per_game["games"]
        per_game["clusters"] = 1
        per_game["n_sq"] = n_g * n_g
        for m in METRICS:
            per_game[f"{m}_sq"] = per_game[m] * per_game[m]
            per_game[f"{m}_n"] = per_game[m] * n_g
        s = per_game.groupby(level=0, sort=True).sum()
        s.index = pd.MultiIndex.from_product([[group], s.index], names=["group", "value"])
        parts.append(s)
    return pd.concat(parts)[list(SUM_COLUMNS)].astype("int64")


def add_summaries(a: pd.DataFrame | None, b: pd.DataFrame) -> pd.DataFrame:
    """Sum two chunk summaries (rows missing in one count as zero)."""
    if a is None:
        return b
    out = a.add(b, fill_value=0).astype("int64")
    return out.sort_index(key=_group_order)


def _group_order(idx: pd.Index) -> pd.Index:
    if idx.name == "value":
        return pd.Index([(int(v) if str(v).isdigit() else math.inf, str(v)) for v in idx])
    return pd.Index([0 if g == "seat" else 1 for g in idx])


def summary_table(sums: pd.DataFrame, confidence: float = 0.95, event: str = "spoils") -> pd.DataFrame:
    """Readable statistics from summed SUM_COLUMNS, each with its interval.

    Per seat (numbered from 1, the starting player) and per policy: win rate,
    mean score (and its SD over players), spoils per game, the share of
    player-games with at least one spoil (``spoiled_game_share``) and mean
    game length in rounds.  Intervals are clustered by game (the players of one
    game are not independent; for a seat, one player a game, this is the
    ordinary t interval); ``n_games`` counts the games (clusters), ``games``
    the player-games.  Another game's ``event`` column is named as
    :func:`event_names` says.
    """
    from .stats import cluster_ratio_sums
    per_game, share = event_names(event)
    rows = []
    for (group, value), r in sums.iterrows():
        n, g = int(r["games"]), int(r["clusters"])

        def est(m, scale=1.0, bounds=None):
            e = cluster_ratio_sums(int(r[m]) / scale, n, int(r[f"{m}_sq"]) / scale ** 2,
                                   int(r[f"{m}_n"]) / scale, int(r["n_sq"]), g, n, confidence,
                                   bounds)
            return e.value, e.lo, e.hi
        s, ss = int(r["score_sum"]), int(r["score_sumsq"])
        var = (n * ss - s * s) / (n * (n - 1)) if n > 1 else math.nan
        row = {"group": group, "value": int(value) + 1 if group == "seat" else value,
               "games": n, "n_games": g, "wins": int(r["wins12"]) / WIN_DENOM}
        for name, m, scale, bounds in (("win_rate", "wins12", WIN_DENOM, (0.0, 1.0)),
                                       ("mean_score", "score_sum", 1.0, None),
                                       (per_game, "spoils", 1.0, None),
                                       (share, "spoiled_games", 1.0, (0.0, 1.0)),
                                       ("mean_rounds", "rounds_sum", 1.0, None)):
            v, lo, hi = est(m, scale, bounds)
            lo_name = "win_lo" if name == "win_rate" else f"{name}_lo"
            hi_name = "win_hi" if name == "win_rate" else f"{name}_hi"
            row.update({name: v, lo_name: lo, hi_name: hi})
            if name == "mean_score":
                row.update(var_score=var, sd_score=math.sqrt(var) if var == var else math.nan)
        row["truncated"] = int(r["truncated"])
        rows.append(row)
    return pd.DataFrame(rows).set_index(["group", "value"]) if rows else pd.DataFrame()


def outcomes_summary(o: Outcomes) -> pd.DataFrame:
    """:func:`chunk_summary` of the frame the outcomes ``o`` come from, computed from
    the arrays (equal, index and values: tests/test_summary_path.py).  Per seat each
    game has one player of each seat; per policy the players of a policy are the
    same player indices in every game."""
    n, P = o.share.shape
    if not n:
        return pd.DataFrame(columns=list(SUM_COLUMNS)).astype("int64")
    score = o.score.astype(np.int64)
    event = o.event.astype(np.int64)
    per_row = {
        "wins12": np.round(o.share * WIN_DENOM).astype(np.int64),
        "score_sum": score,
        "spoils": event,
        "spoiled_games": (event > 0).astype(np.int64),
        "rounds_sum": np.broadcast_to(o.rounds.astype(np.int64)[:, None], (n, P)),
    }
    trunc = np.broadcast_to(o.truncated.astype(np.int64)[:, None], (n, P))
    sq = score * score
    seat = o.seat.astype(np.int64)
    player_pol = np.array([str(p) for p in o.policies], dtype=object)
    parts = []
    for group, keys in (("seat", sorted({str(v) for v in np.unique(seat)})),
                        ("policy", sorted(set(player_pol.tolist())))):
        rows = []
        for v in keys:
            if group == "seat":
                m = seat == int(v)
            else:
                m = np.broadcast_to((player_pol == v)[None, :], (n, P))
            n_g = m.sum(axis=1)                        # player-games per game
            present = n_g > 0
            r = {"games": int(n_g.sum()), "clusters": int(present.sum()),
                 "n_sq": int((n_g * n_g).sum()), "score_sumsq": int(sq[m].sum()),
                 "truncated": int(trunc[m].sum())}
            for name, a in per_row.items():
                s_g = np.where(m, a, 0).sum(axis=1)
                r[name] = int(s_g.sum())
                r[f"{name}_sq"] = int((s_g * s_g).sum())
                r[f"{name}_n"] = int((s_g * n_g).sum())
            rows.append(r)
        idx = pd.MultiIndex.from_product([[group], pd.Index(keys).astype(str)],
                                         names=["group", "value"])
        parts.append(pd.DataFrame(rows, index=idx))
    return pd.concat(parts)[list(SUM_COLUMNS)].astype("int64")


def summarize_frame(df: pd.DataFrame, event: str = "spoils") -> pd.DataFrame:
    """:func:`summary_table` of a whole per-game/player frame."""
    return summary_table(add_summaries(None, chunk_summary(df, event)).sort_index(key=_group_order),
                         event=event)


def summary_chunk(cfg: RunConfig, first_game: int, n: int) -> pd.DataFrame:
    """The chunk's integer sums (computed where the games are played), from its
    outcome arrays: no per-game frame (:func:`outcomes_summary`)."""
    return outcomes_summary(outcomes_chunk(cfg, first_game, n))


# ---------------------------------------------------------------------------
# The output directory
# ---------------------------------------------------------------------------
def part_path(out: Path, first_game: int) -> Path:
    return out / f"{PART_PREFIX}{first_game:0{PART_DIGITS}d}.parquet"


def _write_atomic_bytes(path: Path, data: bytes) -> None:
    from .io import atomic_write
    atomic_write(path, data)


def write_part(out: Path, key: str, first_game: int, df: pd.DataFrame) -> Path:
    """Write one chunk as ``part-<first_game>.parquet``, atomically (tmp file, then rename).

    A failed write (full disk, read-only folder) raises UserError naming the
    file and leaves no partial part file behind."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from .io import atomic_path
    n = int(df["game"].nunique()) if len(df) else 0
    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta.update({b"vale_sim.key": key.encode(), b"vale_sim.first_game": str(first_game).encode(),
                 b"vale_sim.n_games": str(n).encode()})
    table = table.replace_schema_metadata(meta)
    path = part_path(out, first_game)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)
    return path


def _corrupt(path: Path, why: str) -> Exception:
    return _user_error(f"chunk file {path} is unreadable or incomplete ({why}); "
                       f"delete it and run the same command again with --resume to recompute it")


def read_part_info(path: Path) -> tuple[str, int, int]:
    """(key, first_game, n_games) of a part file, from its Parquet footer."""
    import pyarrow.parquet as pq
    try:
        meta = pq.read_schema(path).metadata or {}
    except Exception as e:  # pyarrow raises several kinds for a bad file
        raise _corrupt(path, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None
    try:
        return (meta[b"vale_sim.key"].decode(), int(meta[b"vale_sim.first_game"]),
                int(meta[b"vale_sim.n_games"]))
    except (KeyError, ValueError):
        raise _corrupt(path, "no vale-sim chunk metadata") from None


def read_part(path: Path, first_game: int, n: int, columns=None) -> pd.DataFrame:
    """Read a part file (only ``columns``, if given; "game" is always read) and check it
    holds games first_game .. first_game+n-1."""
    import pyarrow.parquet as pq
    cols = None if columns is None else list(dict.fromkeys(["game", *columns]))
    try:
        df = pq.read_table(path, columns=cols).to_pandas()
    except Exception as e:
        raise _corrupt(path, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None
    games = df["game"].unique() if "game" in df.columns else []
    if len(games) != n or (n and (games.min() != first_game or games.max() != first_game + n - 1)):
        raise _corrupt(path, f"expected games {first_game}..{first_game + n - 1}")
    return df


def _existing_parts(out: Path, key: str) -> dict[int, int]:
    """{first_game: n} of the finished chunks in ``out``; checks each belongs to ``key``."""
    parts = {}
    for p in sorted(out.glob(f"{PART_PREFIX}*.parquet")):
        k, first, n = read_part_info(p)
        if k != key:
            raise _user_error(f"chunk file {p} belongs to a different configuration "
                              f"(key {k}, manifest {key}); move it away or use another --out")
        if p.name != part_path(out, first).name:
            raise _corrupt(p, f"its metadata says it starts at game {first}")
        parts[first] = n
    end = 0
    for first in sorted(parts):
        if first < end:
            raise _corrupt(part_path(out, first), f"its games overlap an earlier chunk ending at game {end - 1}")
        end = first + parts[first]
    return parts


def _prepare_out(out: Path, cfg: RunConfig, resume: bool) -> dict[int, int]:
    """Check or create the output directory; return the finished chunks to reuse."""
    manifest = cfg.manifest()
    mpath = out / MANIFEST
    if out.exists() and not out.is_dir():
        raise _user_error(f"{out} exists and is not a run directory; choose another --out")
    if out.is_dir():
        for stale in out.glob(f".{PART_PREFIX}*.tmp"):
            stale.unlink(missing_ok=True)      # left by a killed process; never a finished chunk
    entries = [p for p in out.iterdir()] if out.is_dir() else []
    if entries and not mpath.exists():
        raise _user_error(f"{out} is not empty and has no {MANIFEST}; choose another --out")
    if mpath.exists():
        from .io import manifest_problem
        old, why = manifest_problem(mpath)
        if old is not None and not isinstance(old.get("key"), str):
            why = "it has no configuration key (not a run manifest, or edited)"
        if why is not None:
            raise _user_error(f"run manifest {mpath} is corrupt: {why}; without it the results "
                              f"in {out} cannot be checked or resumed: restore it, or move {out} "
                              f"away (or choose another --out) and run again")
        old_game = old.get("game") or DEFAULT_GAME          # default-game manifests name no game
        if old_game != cfg.game:                             # one short line, not the rules diff
            try:
                old_title = get_game(old_game).title
            except ValueError:
                old_title = str(old_game)
            raise _user_error(f"{out} holds {old_title} results, not "
                              f"{cfg.game_obj().title}; use another --out")
        if old.get("key") != manifest["key"] or manifest_key(old) != manifest["key"]:
            diff = manifest_diff(old, manifest) or ["key"]
            raise _user_error(f"{out} holds results of a different configuration "
                              f"(differs in: {'; '.join(diff)}); use another --out"
                              + ("" if resume else " or delete it"))
        parts = _existing_parts(out, manifest["key"])
        if not resume:
            done = sum(parts.values())
            raise _user_error(f"{out} already holds {done} of {old.get('games')} games of this "
                              f"configuration; use --resume to reuse them, or another --out")
        covered = max((f + n for f, n in parts.items()), default=0)
        if covered > cfg.games:
            raise _user_error(f"{out} already holds games up to {covered - 1}, more than the "
                              f"{cfg.games} asked for; use --games {covered} or more")
        manifest["created"] = old.get("created", manifest["created"])
        if old.get("games") != cfg.games:
            manifest["resized_from"] = old.get("games")
        _write_atomic_bytes(mpath, json.dumps(manifest, indent=2, sort_keys=True).encode())
        return parts
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        from .io import os_error_message
        raise _user_error(os_error_message(e, out)) from None
    _write_atomic_bytes(mpath, json.dumps(manifest, indent=2, sort_keys=True).encode())
    return {}


def plan_chunks(games: int, chunk_size: int, done: dict[int, int] | None = None) -> list[tuple[int, int]]:
    """(first_game, n) of the chunks still to run: the gaps between finished chunks,
    cut into pieces of at most ``chunk_size`` games (a list: :func:`iter_chunks`)."""
    return list(iter_chunks(games, chunk_size, done))


def iter_chunks(games: int, chunk_size: int, done: dict[int, int] | None = None):
    """:func:`plan_chunks` one chunk at a time: the runner never holds the plan, so
    its memory does not grow with the number of games (``--games 10**8
    --chunk-size 1`` would be 10^8 tuples, some 10 GB)."""
    covered = sorted((f, f + n) for f, n in (done or {}).items())
    g = 0
    for a, b in covered + [(games, games)]:
        while g < min(a, games):
            n = min(chunk_size, a - g)
            yield g, n
            g += n
        g = max(g, b)


def default_chunk_size(games: int, workers: int, engine: str, scheduler=None) -> int:
    """A chunk size giving each worker several chunks (for progress and balance).

    In this process (one worker, no scheduler) there is nothing to balance: a run
    is one chunk up to :data:`DEFAULT_CHUNK` games (a few tenths of a second of
    the fast engine), since each chunk has a fixed cost (its table, its memory
    check) that dominated the many small runs of the studies (issue: a 20-game
    run paid 365 us a game in four chunks, against the kernel's ~18)."""
    if workers <= 1 and scheduler is None:
        return max(1, min(DEFAULT_CHUNK[engine], games))
    return max(1, min(DEFAULT_CHUNK[engine], math.ceil(games / max(1, 4 * workers))))


# ---------------------------------------------------------------------------
# Executing chunks
# ---------------------------------------------------------------------------
def _execute(task: Callable, cfg: RunConfig, chunks, workers: int,
             scheduler, consume: Callable[[int, int, object], None],
             connect_timeout: float = 10.0, worker_timeout: float | None = None) -> None:
    """Run ``task(cfg, first, n)`` for every chunk of ``chunks`` (an iterable of
    (first, n), consumed lazily); call ``consume(first, n, result)`` in this
    process as each finishes (in any order).  At most a few chunks per worker are
    in flight, so memory does not grow with the number of chunks."""
    import itertools
    chunks = iter(chunks)
    head = next(chunks, None)
    if head is None:
        return
    chunks = itertools.chain([head], chunks)
    if isinstance(scheduler, Scheduler):        # a command's --scheduler with its timeouts
        connect_timeout, worker_timeout = scheduler.connect_timeout, scheduler.worker_timeout
        scheduler = scheduler.address
    if scheduler is not None:
        _execute_dask(task, cfg, chunks, scheduler, consume, connect_timeout,
                      DEFAULT_WORKER_TIMEOUT if worker_timeout is None else worker_timeout)
    elif workers <= 1:
        for first, n in chunks:
            consume(first, n, task(cfg, first, n))
    else:
        _execute_pool(task, cfg, chunks, workers, consume)


def _execute_pool(task, cfg, chunks, workers, consume) -> None:
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    todo = iter(chunks)
    if cfg.engine == "fast" and fast_engine_ok(cfg.game_obj()):
        # compile once here; spawned workers load the cache
        warm_up_fast_engine() if cfg.game == DEFAULT_GAME else warm_up_fast_engine(cfg.game)
    # spawn, not fork: a clean interpreter per worker (safe with numba and arrow threads).
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                               initializer=_worker_init, initargs=(os.getpid(),))
    running = {}
    try:
        with _terminate_on_sigterm():
            while True:
                while len(running) < 2 * workers:      # bounded: memory does not grow with N
                    nxt = next(todo, None)
                    if nxt is None:
                        break
                    first, n = nxt
                    running[pool.submit(task, cfg, first, n)] = (first, n)
                if not running:
                    break
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in sorted(finished, key=lambda f: running[f]):
                    first, n = running.pop(fut)
                    consume(first, n, fut.result())
    except BaseException:
        # Interrupted (or a chunk failed): drop the chunks in flight, stop the workers now.
        # Every chunk consumed so far is already stored (resume reuses it).
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def warm_up_fast_engine(game: "str | Game" = DEFAULT_GAME) -> None:
    """Compile ``game``'s fast engine here when numba's cache is cold, before workers
    start: spawned workers then load the cache instead of each compiling it."""
    g = get_game(game)
    if g.warm_up is not None:
        g.warm_up()


from .errors import Terminated  # noqa: E402  SIGTERM: like Ctrl-C, exit 143 (vale_sim.cli.main)


@contextlib.contextmanager
def _terminate_on_sigterm():
    """While a pool runs, SIGTERM raises :class:`Terminated` in the main thread, so the
    pool's workers are stopped instead of outliving their parent."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated()

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


PARENT_POLL_SECONDS = 0.5


def _worker_init(parent_pid: int) -> None:
    """In each worker: leave Ctrl-C to the parent, and exit when the parent dies.

    On Linux the kernel sends SIGKILL to the worker when its parent dies
    (``prctl(PR_SET_PDEATHSIG)``), even in the middle of a compiled kernel; on
    every system a daemon thread also polls ``os.getppid()`` and exits the
    worker once the parent is gone (re-parented)."""
    import signal
    import threading
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            PR_SET_PDEATHSIG = 1
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:          # the parent died before prctl took effect
        os._exit(1)

    def watch():
        import time
        while True:
            if os.getppid() != parent_pid:
                os._exit(1)
            time.sleep(PARENT_POLL_SECONDS)

    threading.Thread(target=watch, name="vale-sim-parent-watch", daemon=True).start()


DEFAULT_CONNECT_TIMEOUT = 10.0     # seconds to reach a Dask scheduler


DEFAULT_WORKER_TIMEOUT = 60.0      # seconds a Dask run waits while the scheduler has no workers


@dataclass(frozen=True)
class Scheduler:
    """A Dask scheduler with the timeouts the user chose (``--scheduler``,
    ``--connect-timeout``, ``--worker-timeout``: :func:`vale_sim.cli.scheduler_of`);
    passed as ``scheduler=`` through the studies to :func:`run`, which uses its
    timeouts.  ``address``: "tcp://host:8786" or a connected ``Client``."""
    address: object
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    worker_timeout: float = DEFAULT_WORKER_TIMEOUT

    def connect(self) -> "Scheduler":
        """The same, connected (``address`` a Client); close it with ``address.close()``."""
        if isinstance(self.address, str):
            return dataclasses.replace(self, address=connect_scheduler(self.address,
                                                                      self.connect_timeout))
        return self


def connect_scheduler(address, timeout: float = DEFAULT_CONNECT_TIMEOUT):
    """A ``dask.distributed.Client`` connected to ``address`` within ``timeout`` seconds;
    UserError (one line) for a malformed or unreachable address."""
    import logging
    from dask.distributed import Client
    if not isinstance(address, str) or not address.strip():
        raise _user_error(f"scheduler address must be like tcp://host:8786, got {address!r}")
    if not timeout or timeout <= 0:
        raise _user_error(f"connect timeout must be > 0 seconds, got {timeout!r}")
    _probe_scheduler(address, timeout)
    quiet = [logging.getLogger(n) for n in ("distributed", "distributed.client",
                                              "distributed.comm", "distributed.core")]
    levels = [lg.level for lg in quiet]
    for lg in quiet:
        lg.setLevel(logging.CRITICAL)
    try:
        return Client(address, timeout=timeout)
    except Exception as e:     # TimeoutError, OSError; garbage from a non-dask server
        _quiet_failed_clients()
        cause = str(e).splitlines()[0] if str(e) else type(e).__name__
        if isinstance(e, TimeoutError) or "Timed out" in cause:
            cause = f"no answer within {timeout:g} s"
        elif not isinstance(e, OSError):
            cause = f"the server did not answer like a Dask scheduler ({type(e).__name__})"
        raise _user_error(f"cannot connect to the Dask scheduler {address!r}: {cause}; check "
                          f"the address (e.g. tcp://host:8786) or raise --connect-timeout") from None
    finally:
        for lg, lv in zip(quiet, levels):
            lg.setLevel(lv)


def _quiet_failed_clients() -> None:
    """A dask Client whose connection failed still tries to close itself when it is
    garbage-collected and prints a traceback: silence only that."""
    old = sys.unraisablehook
    if getattr(old, "_vale_sim", False):
        return

    def hook(u):
        if "Client.__del__" in repr(getattr(u, "object", "")):
            return
        old(u)

    hook._vale_sim = True
    sys.unraisablehook = hook


def _probe_scheduler(address: str, timeout: float) -> None:
    """Parse a tcp/tls address and open a plain socket to it, so a malformed or
    unreachable address is reported before a dask Client exists (a Client that
    failed to connect prints tracebacks when it is garbage-collected)."""
    import errno
    import socket
    from distributed.comm.addressing import parse_address, parse_host_port
    hint = "; check the address (e.g. tcp://host:8786) or raise --connect-timeout"
    try:
        scheme, loc = parse_address(address)
        if scheme not in ("tcp", "tls"):
            return                                   # inproc/ucx...: left to dask
        host, port = parse_host_port(loc)
        if not port:
            raise ValueError("no port")
    except (ValueError, TypeError) as e:
        raise _user_error(f"cannot connect to the Dask scheduler {address!r}: malformed address "
                          f"({str(e).splitlines()[0] if str(e) else 'unparsable'}){hint}") from None
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as sock:
            # A dask server greets first (its handshake); a silent one would make
            # the Client wait forever, whatever its timeout says.
            sock.settimeout(timeout)
            if not sock.recv(1):
                raise ConnectionResetError(errno.ECONNRESET, "the server closed the connection")
    except (OSError, ValueError, OverflowError) as e:
        cause = (f"no answer within {timeout:g} s" if isinstance(e, TimeoutError)
                 else (getattr(e, "strerror", None) or str(e) or type(e).__name__))
        raise _user_error(f"cannot connect to the Dask scheduler {address!r}: {cause}{hint}") from None


DASK_POLL_SECONDS = 0.05           # how often the main thread looks for finished chunks
DASK_WORKER_CHECK_SECONDS = 1.0    # how often it asks the scheduler how many workers it has


class DaskRunStopped(UserError):
    """A Dask run stopped for a reason outside this process (one line, exit status 2);
    the chunks already finished are kept (``simulate --out`` says ``--resume``)."""


class NoDaskWorkers(DaskRunStopped):
    """The Dask scheduler had no workers for ``worker_timeout`` seconds, at the start
    or after every worker left mid-run."""


def _no_workers_error(address, waited: float, finished: int) -> NoDaskWorkers:
    what = ("has no workers" if not finished else
            f"lost all its workers after {finished} finished chunk{'s' if finished != 1 else ''}")
    return NoDaskWorkers(f"the Dask scheduler {address} {what} and none joined within "
                         f"{waited:g} s (--worker-timeout); start workers (dask worker "
                         f"{address}) or raise --worker-timeout")


class _DropCancellation:
    """A logging filter dropping the records of cancelled Dask calls (an interrupted
    ``sync()`` cancels its coroutine in the event-loop thread, and tornado/asyncio
    log the CancelledError with a traceback: noise before the one-line message),
    and the client's own report of a lost scheduler (the run says it in one line)."""

    def filter(self, record) -> bool:
        import asyncio
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt)):
            return False
        return not str(record.msg).startswith("Failed to reconnect to scheduler")


class _DropAllExit:
    """A logging filter dropping asyncio's "Task exception was never retrieved" for
    distributed's ``AllExit``: the client's internal signal to its gather tasks when it
    closes.  A gather left waiting by a run that stopped (every worker gone) is
    collected later, often as the process exits, after the run's one line and after
    :func:`_quiet_dask_cancellation` has ended: it printed a 6-line traceback there."""

    def filter(self, record) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return type(exc).__name__ != "AllExit"


_ALLEXIT_FILTER = _DropAllExit()


def _drop_allexit_for_good() -> None:
    """Install :class:`_DropAllExit` on the asyncio logger for the rest of the process
    (idempotent): the record it drops comes after any run has ended."""
    import logging
    lg = logging.getLogger("asyncio")
    if _ALLEXIT_FILTER not in lg.filters:
        lg.addFilter(_ALLEXIT_FILTER)


@contextlib.contextmanager
def _quiet_dask_cancellation():
    import logging
    _drop_allexit_for_good()
    flt = _DropCancellation()
    names = ("asyncio", "tornado.application", "tornado.general", "distributed",
             "distributed.client", "distributed.utils", "distributed.core")
    targets = [logging.getLogger(n) for n in names]
    handlers = {h for lg in targets for h in lg.handlers} | {logging.lastResort}
    handlers.discard(None)
    for t in [*targets, *handlers]:
        t.addFilter(flt)
    # distributed logs its connection events (INFO, some with a traceback) to stderr:
    # while a run waits on the cluster, only its errors; the run reports its outcome.
    # Dask's logging config gives some children their own level (distributed.client:
    # WARNING, which logged "Couldn't gather 1 keys, rescheduling" before the run's one
    # line when the scheduler went away): raise each to ERROR, not only the parent.
    quiet = [logging.getLogger(n) for n in
             ("distributed", "distributed.client", "distributed.scheduler",
              "distributed.worker", "distributed.core", "distributed.comm",
              "distributed.utils", "distributed.nanny")]
    levels = [lg.level for lg in quiet]
    for lg in quiet:
        lg.setLevel(max(lg.level, logging.ERROR))
    try:
        yield
    finally:
        for lg, lv in zip(quiet, levels):
            lg.setLevel(lv)
        for t in [*targets, *handlers]:
            t.removeFilter(flt)


def _dask_threads(client) -> int:
    """Threads of the workers the scheduler has now (0 if it cannot say)."""
    try:
        return int(sum(client.nthreads().values()))
    except Exception:                      # the scheduler is gone or slow: no workers
        return 0


class _NotYet(Exception):
    """A finished chunk's result could not be fetched in time: its data was on a
    worker that left and the scheduler is computing it again (or cannot, for want
    of workers).  The future stays in flight; the worker check decides."""


def _dask_result(fut, first: int, n: int, address, timeout: float | None = None):
    import asyncio
    import concurrent.futures
    from distributed import KilledWorker
    try:
        # never without a timeout: a future can report done and then lose its
        # result with the worker holding it; a bare result() then waits for a
        # recomputation that never comes if every worker has left
        return fut.result(timeout=DASK_WORKER_CHECK_SECONDS if timeout is None else timeout)
    except TimeoutError:                   # asyncio's and distributed's are this one
        raise _NotYet() from None
    except (asyncio.CancelledError, concurrent.futures.CancelledError) as e:
        why = str(e).splitlines()[0] if str(e) else "cancelled"
        raise DaskRunStopped(f"the Dask scheduler {address} dropped games {first}..{first + n - 1} "
                             f"({why.split('cancelled for reason: ')[-1].rstrip('.')}); check "
                             f"the scheduler, then run again") from None
    except KilledWorker:
        raise _user_error(f"games {first}..{first + n - 1}: the chunk killed the Dask workers "
                          f"that ran it (out of memory?); use a smaller --chunk-size or workers "
                          f"with more memory, then run again with --resume") from None


def _execute_dask(task, cfg, chunks, scheduler, consume,
                  connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                  worker_timeout: float = DEFAULT_WORKER_TIMEOUT) -> None:
    """The chunks on a Dask cluster: at most 2 per worker thread in flight (results
    are gathered and released one by one, so neither this process nor the cluster
    holds more than a few chunks); a scheduler with no workers for
    ``worker_timeout`` seconds (at the start or mid-run) stops the run with one line."""
    import time
    from dask.distributed import Client
    if not worker_timeout or worker_timeout <= 0:
        raise _user_error(f"worker timeout must be > 0 seconds, got {worker_timeout!r}")
    own = not isinstance(scheduler, Client)
    client = connect_scheduler(scheduler, connect_timeout) if own else scheduler
    address = scheduler if own else getattr(client.scheduler, "address", "?")
    key = cfg.key()
    todo = iter(chunks)
    running: dict = {}
    finished = 0
    with _quiet_dask_cancellation():
        try:
            threads = _dask_threads(client)
            checked = time.monotonic()
            idle_since = None if threads else checked
            while True:
                while len(running) < 2 * max(1, threads):
                    nxt = next(todo, None)
                    if nxt is None:
                        break
                    first, n = nxt
                    f = client.submit(task, cfg, first, n, pure=False,
                                      key=f"vale-sim-{task.__name__}-{key}-{first}-{n}-{os.getpid()}")
                    running[f] = (first, n)
                if not running:
                    break
                done = 0
                for fut in sorted((f for f in running if f.done()), key=running.get):
                    first, n = running[fut]
                    try:
                        result = _dask_result(fut, first, n, address)
                    except _NotYet:
                        continue
                    del running[fut]
                    fut.release()
                    consume(first, n, result)
                    finished += 1
                    done += 1
                now = time.monotonic()
                if now - checked >= DASK_WORKER_CHECK_SECONDS:
                    checked = now
                    threads = _dask_threads(client)
                    if not threads and idle_since is None:
                        idle_since = now
                if done or threads:
                    idle_since = None
                elif idle_since is not None and now - idle_since >= worker_timeout:
                    raise _no_workers_error(address, worker_timeout, finished)
                if not done:
                    time.sleep(DASK_POLL_SECONDS)
        except BaseException:
            with contextlib.suppress(Exception):
                client.cancel(list(running))
            raise
        finally:
            if own:
                with contextlib.suppress(Exception):
                    client.close(timeout=5)


class _NoBar:
    """The progress bar of a run that shows none (a tqdm costs a study's short runs
    more than their games)."""

    def update(self, n=1):
        pass

    def close(self):
        pass


def _progress_bar(total: int, initial: int, progress: bool):
    if not progress:
        return _NoBar()
    from tqdm import tqdm
    return tqdm(total=total, initial=initial, unit="game", unit_scale=True, dynamic_ncols=True,
                disable=not progress or not sys.stderr.isatty(), desc="games", smoothing=0.1)


def run(cfg: RunConfig, workers: int = 1, chunk_size: int | None = None, out=None,
        resume: bool = False, progress: bool = True, scheduler=None, *,
        on_chunk: Callable[[int, int], None] | None = None,
        collect: bool = True,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        worker_timeout: float | None = None) -> pd.DataFrame | None:
    """Play ``cfg.games`` games and return one row per game and player, in game order.

    ``workers`` > 1 uses a local process pool; ``scheduler`` (an address such as
    "tcp://host:8786", or a ``dask.distributed.Client``) runs the chunks on a
    Dask cluster instead.  With ``out`` (a directory, e.g. "results/NAME.parquet")
    each chunk is written as it finishes, next to ``_manifest.json``;
    ``resume=True`` reuses the finished chunks of the same configuration.
    ``on_chunk(first_game, n)`` is called after each chunk is stored.
    ``collect=False`` (with ``out``) returns None instead of reading every
    chunk back, so memory does not grow with the number of games: chunks are
    planned lazily, at most a few are in flight and each is written and dropped
    as it arrives.  ``worker_timeout``: seconds a Dask run waits while the
    scheduler has no workers (default 60) before it stops with one line.
    The result does not depend on ``workers``, ``chunk_size`` or ``scheduler``.
    """
    if not collect and out is None:
        raise ValueError("collect=False needs out=: the results would be lost")
    from .io import check_output, check_workers
    check_workers(workers, "workers")
    if out is not None:
        check_output(out, "dir")               # before any game is played
    rc = cfg.resolved()
    chunk_size = chunk_size or default_chunk_size(cfg.games, workers, rc.engine, scheduler)
    if chunk_size < 1:
        raise _user_error(f"chunk size must be at least 1, got {chunk_size}")
    outp = Path(out) if out is not None else None
    # the key names the stored chunks; a run held in memory needs none (computing it
    # digests the card set and the policies: a sixth of a short run's time)
    key = cfg.key() if outp is not None else None
    done = _prepare_out(outp, cfg, resume) if outp is not None else {}
    chunks = iter_chunks(cfg.games, chunk_size, done)
    frames: dict[int, pd.DataFrame] = {}
    measured = [not collect]          # the returned table is held in memory: check it fits

    bar = _progress_bar(cfg.games, sum(done.values()), progress)

    def consume(first, n, df):
        if not measured[0]:
            measured[0] = True
            check_memory(df, n, cfg.games)
        if outp is not None:
            write_part(outp, key, first, df)
        else:
            frames[first] = df
        bar.update(n)
        if on_chunk is not None:
            on_chunk(first, n)

    try:
        _execute(run_chunk, rc, chunks, workers, scheduler, consume, connect_timeout,
                 worker_timeout)
    finally:
        bar.close()
    if not collect:
        return None
    if outp is not None:
        parts = _existing_parts(outp, key)
        frames = {f: read_part(part_path(outp, f), f, n) for f, n in parts.items()}
    if not frames:
        return pd.DataFrame(columns=list(cfg.game_obj().base_columns))
    return pd.concat([frames[f] for f in sorted(frames)], ignore_index=True)


def run_outcomes(cfg: RunConfig, workers: int = 1, chunk_size: int | None = None,
                 progress: bool = False, scheduler=None, *,
                 on_chunk: Callable[[int, int], None] | None = None,
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                 worker_timeout: float | None = None) -> Outcomes:
    """:func:`run`'s games as :class:`~vale_sim.games.base.Outcomes`: the arrays the
    studies reduce (win shares, scores, seats, events, purchases per game and player),
    without the per-game/player frame, which only a user asking for game rows
    (``simulate``, ``--details``) needs.  Same chunks, workers and schedulers as
    :func:`run` (in this process, one chunk), the same games: equal to
    ``Outcomes.from_frame(run(cfg))``."""
    from .io import check_workers
    check_workers(workers, "workers")
    rc = cfg.resolved()
    chunk_size = chunk_size or default_chunk_size(cfg.games, workers, rc.engine, scheduler)
    if chunk_size < 1:
        raise _user_error(f"chunk size must be at least 1, got {chunk_size}")
    parts: dict[int, Outcomes] = {}
    measured = [False]
    bar = _progress_bar(cfg.games, 0, progress)

    def consume(first, n, o):
        if not measured[0]:
            measured[0] = True
            check_outcomes_memory(o, n, cfg.games)
        parts[first] = o
        bar.update(n)
        if on_chunk is not None:
            on_chunk(first, n)

    try:
        _execute(outcomes_chunk, rc, iter_chunks(cfg.games, chunk_size), workers, scheduler,
                 consume, connect_timeout, worker_timeout)
    finally:
        bar.close()
    if not parts:
        P = rc.players
        z = np.zeros((0, P), np.int64)
        return Outcomes(first_game=0, policies=tuple(p.name for p in rc.policies),
                        share=np.zeros((0, P)), score=z, seat=z, event=z,
                        rounds=np.zeros(0, np.int64), truncated=np.zeros(0, bool), counts={})
    return Outcomes.concat([parts[f] for f in sorted(parts)])


#: Below this many bytes, the outcomes of a run are not checked against the memory
#: available (asking the system costs more than a short run of games).
OUTCOMES_CHECK_BYTES = 64 * 2**20


def check_outcomes_memory(o: Outcomes, n: int, games: int) -> None:
    """:func:`check_memory` for outcome arrays: their size per game is known exactly
    (no frame to measure); the system is asked only for a run whose arrays would
    pass :data:`OUTCOMES_CHECK_BYTES`."""
    if not n:
        return
    per_game = o.nbytes() / n
    need = 2 * per_game * games
    if need <= OUTCOMES_CHECK_BYTES:
        return
    avail = available_memory()
    if avail is None or need <= avail:
        return
    fit = int(avail / (2 * per_game))
    raise _user_error(f"keeping the outcomes of {games:,} games in memory needs at least "
                      f"{_gb(need)} ({per_game / 1000:,.1f} KB a game), more than the "
                      f"{_gb(avail)} available; use fewer games (about {fit:,} fit per run)")


def available_memory() -> int | None:
    """Bytes of memory this machine has available now (None: unknown)."""
    try:
        import psutil
        return int(psutil.virtual_memory().available)
    except Exception:
        try:
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            return None


def _gb(b: float) -> str:
    return f"{b / 1e9:,.1f} GB" if b >= 1e8 else f"{b / 1e6:,.1f} MB"


def check_memory(df: pd.DataFrame, n: int, games: int) -> None:
    """A run that returns its per-game table holds all of it in memory (twice, while
    the chunks are concatenated).  From the first chunk's size, a UserError (one
    line) when that would not fit in the memory available, before the other
    chunks are played; a streamed run (``out=``, ``collect=False``) has no such
    bound (docs/runs.md)."""
    avail = available_memory()
    if not n or avail is None:
        return
    # The shallow size counts an object (text) cell as its 8-byte pointer (Arrow
    # strings are measured exactly); with each such cell taken as MAX_TEXT_CELL
    # bytes, this cheap bound is above the deep size.  Only a run that might not
    # fit pays the deep measurement (it walks every string: most of a small run's
    # time when it was done per chunk).
    shallow = df.memory_usage(index=True, deep=False)
    texts = sum(1 for c in df.columns if df[c].dtype == object)
    bound = (float(shallow.sum()) + texts * len(df) * MAX_TEXT_CELL) / n
    if 2 * bound * games <= avail:
        return
    per_game = float(df.memory_usage(index=True, deep=True).sum()) / n
    need = 2 * per_game * games
    if need <= avail:
        return
    fit = int(avail / (2 * per_game))
    raise _user_error(f"keeping the per-game results of {games:,} games in memory needs at least "
                      f"{_gb(need)} ({per_game / 1000:,.1f} KB a game, measured on the first "
                      f"chunk), more than the {_gb(avail)} available; use fewer games (about "
                      f"{fit:,} fit per run; only simulate --out streams any number to disk)")


def summarize_parts(out, cfg: RunConfig) -> pd.DataFrame:
    """The summary table of a written run, reading one chunk at a time (bounded memory)."""
    outp = Path(out)
    event = cfg.game_obj().event_column
    sums = None
    for first, n in sorted(_existing_parts(outp, cfg.key()).items()):
        df = read_part(part_path(outp, first), first, n, columns=summary_inputs(event))
        sums = add_summaries(sums, chunk_summary(df, event))
    if sums is None:
        return summary_table(pd.DataFrame(columns=list(SUM_COLUMNS)), event=event)
    return summary_table(sums.sort_index(key=_group_order), event=event)


def summarize(cfg: RunConfig, workers: int = 1, chunk_size: int | None = None,
              progress: bool = True, scheduler=None, *,
              on_chunk: Callable[[int, int], None] | None = None,
              connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
              worker_timeout: float | None = None) -> pd.DataFrame:
    """Play ``cfg.games`` games keeping only a fixed-size summary (see :func:`summary_table`).

    Each chunk is reduced to integer sums where it is played; the sums are
    folded in game-index order, so the summary equals
    ``summarize_frame(run(cfg))`` whatever the workers or chunking.
    """
    from .io import check_workers
    check_workers(workers, "workers")
    rc = cfg.resolved()
    chunk_size = chunk_size or default_chunk_size(cfg.games, workers, rc.engine, scheduler)
    if chunk_size < 1:
        raise _user_error(f"chunk size must be at least 1, got {chunk_size}")
    chunks = iter_chunks(cfg.games, chunk_size)
    # Chunks are consecutive from game 0: the next to fold is the one starting where
    # the folded ones end.  Only chunks finished early wait in ``pending``.
    pending: dict[int, tuple[int, pd.DataFrame]] = {}
    state = {"total": None, "next": 0}
    bar = _progress_bar(cfg.games, 0, progress)

    def consume(first, n, sums):
        pending[first] = (n, sums)
        while state["next"] in pending:
            m, s = pending.pop(state["next"])
            state["total"] = add_summaries(state["total"], s)
            state["next"] += m
        bar.update(n)
        if on_chunk is not None:
            on_chunk(first, n)

    try:
        _execute(summary_chunk, rc, chunks, workers, scheduler, consume, connect_timeout,
                 worker_timeout)
    finally:
        bar.close()
    event = cfg.game_obj().event_column
    if state["total"] is None:
        return summary_table(pd.DataFrame(columns=list(SUM_COLUMNS)), event=event)
    return summary_table(state["total"].sort_index(key=_group_order), event=event)


# ---------------------------------------------------------------------------
# Reading results back: column-selective and in batches (bounded memory)
# ---------------------------------------------------------------------------
def results_columns(path) -> list[str]:
    """The column names of a results directory (or Parquet file), without reading rows."""
    return list(_dataset(path).schema.names)


def _dataset(path):
    import pyarrow.dataset as ds
    p = Path(path)
    if not p.exists():
        raise _user_error(f"{p}: no such results directory or file")
    try:
        return ds.dataset(str(p), format="parquet", ignore_prefixes=[".", "_"])
    except Exception as e:  # pyarrow raises several kinds for a bad file
        raise _user_error(f"{p}: not readable as Parquet results "
                          f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})") from None


def read_results(path, columns=None, batch_size: int = 65_536):
    """Iterate a run's results as DataFrames of at most ``batch_size`` rows, in file
    (= game) order, reading only ``columns`` (default: all).

    A 2-million-game run read whole with ``pd.read_parquet`` peaks at several GB
    (docs/runs.md); reading a few columns a batch at a time keeps memory at a
    few MB per batch.  Fold each batch (e.g. :func:`chunk_summary` +
    :func:`add_summaries`) instead of concatenating them.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise _user_error(f"batch_size must be a whole number >= 1, got {batch_size!r}")
    dataset = _dataset(path)
    if columns is not None:
        columns = list(columns)
        missing = [c for c in columns if c not in dataset.schema.names]
        if missing:
            raise _user_error(f"{path}: no column {missing[0]!r} in these results "
                              f"(columns: {', '.join(dataset.schema.names[:20])}, ...)")
    for batch in dataset.to_batches(columns=columns, batch_size=batch_size, use_threads=False):
        if batch.num_rows:
            yield batch.to_pandas()


def load_results(path, columns=None, batch_size: int = 65_536) -> pd.DataFrame:
    """All rows of ``columns`` as one DataFrame (read batch by batch: only the
    requested columns are ever held)."""
    frames = list(read_results(path, columns, batch_size))
    if not frames:
        names = list(columns) if columns is not None else results_columns(path)
        return pd.DataFrame(columns=names)
    return pd.concat(frames, ignore_index=True)
