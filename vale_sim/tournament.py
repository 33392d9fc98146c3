"""Strategy tournaments: win rates with intervals, seat advantage, rankings.

    t = tournament(["balanced", "greedy", "cautious"], players=2, games=2000)
    t.table        # per matchup and policy: win rate, tie rate, score, length, spoils
    t.seats        # win rate by seat (1 = starting player)
    t.ranking      # Bradley–Terry strengths with intervals
    turn_curves(["balanced", "greedy"], games=40)   # VP, mana, crafting by round

Design (docs/statistics.md):

* **Matchups.**  ``mode="round-robin"`` (default for 2 players): every set of
  ``players`` distinct policies from the list meets (2 players: every pair).
  ``mode="field"`` (default for 3–4 players, and whenever a ``baseline`` is
  given): each policy other than the ``baseline`` (the opponent field) plays
  against ``players - 1`` copies of the baseline.
* **Balanced seatings with common random numbers.**  A matchup is played on
  ``deals = ceil(games / S)`` game indices, once per seating of its line-up,
  all with the same seed: the ``S`` seatings are every distinct ordering of
  the line-up (:func:`vale_sim.seating.seatings`; 2 players or a policy
  against copies of the field: the ``players`` rotations; 3 distinct policies:
  6; 4: 24), so each policy sits in every seat equally often **and right
  after every other policy equally often**, whatever order the policies were
  listed in.  Game ``i`` depends only on ``(seed, i)`` and the setup draws
  (commons, decks, starting player) come first, so every seating of deal ``i``
  has the same shuffles and the same starting player.  The frame's column
  ``rotation`` is the index of the seating in that (sorted) list.
* Every rate and mean comes with its sample size and a 95% interval
  (vale_sim.stats), clustered by deal: all matchups and seatings replay the
  same deals, so the deal, not the game, is the independent unit.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import stats
from .games import DEFAULT_GAME, get_game
from .seating import cyclic_rotations, seatings
from .seating import deals_for as seating_deals

MODES = ("round-robin", "field")
ENGINES = ("fast", "reference")


# ---------------------------------------------------------------------------
# Playing games: through vale_sim.runner
# ---------------------------------------------------------------------------
def play_frame(card_set, players: int, seed: int, games: int, policies, rules=None,
               engine: str = "fast", workers: int = 1, chunk_size: int | None = None,
               scheduler=None, game: str = DEFAULT_GAME) -> pd.DataFrame:
    """Games ``0 .. games-1`` with fixed ``policies`` (1 or one per player, in
    player order): one row per game and player, as :func:`vale_sim.runner.run`.

    Plays through :func:`vale_sim.runner.run` ("fast" falls back to
    "reference" with a warning; ``scheduler``: a Dask scheduler address).
    Results never depend on ``workers``.  ``game``: the --game name.
    """
    from .runner import RunConfig, run
    cfg = RunConfig(card_set=card_set, players=players, seed=seed, games=games,
                    policies=tuple(policies), rules=rules, engine=engine, game=get_game(game).name)
    return run(cfg, workers=workers, chunk_size=chunk_size, progress=False, scheduler=scheduler)


def play_outcomes(card_set, players: int, seed: int, games: int, policies, rules=None,
                  engine: str = "fast", workers: int = 1, chunk_size: int | None = None,
                  scheduler=None, game: str = DEFAULT_GAME):
    """:func:`play_frame`'s games as :class:`~vale_sim.games.base.Outcomes` (arrays per
    game and player; no frame): the studies' summary path
    (:func:`vale_sim.runner.run_outcomes`).  Same arguments, same games."""
    from .runner import RunConfig, run_outcomes
    cfg = RunConfig(card_set=card_set, players=players, seed=seed, games=games,
                    policies=tuple(policies), rules=rules, engine=engine, game=get_game(game).name)
    return run_outcomes(cfg, workers=workers, chunk_size=chunk_size, scheduler=scheduler)


def outcomes_player(play, game: str = DEFAULT_GAME):
    """The :func:`play_outcomes`-like function that plays what ``play`` (a
    :func:`play_frame`-like function, None: play_frame) plays, or None when there is
    none (a play function of the caller's own: its frames are read instead).

    Found for play_frame and a ``functools.partial`` of it, and for any play
    function (or the object of a bound method, e.g. a ChunkStore's) carrying a
    ``play_outcomes`` attribute."""
    import functools
    if play is None or play is play_frame:
        out = play_outcomes
    elif isinstance(play, functools.partial) and play.func is play_frame:
        out = functools.partial(play_outcomes, *play.args, **play.keywords)
    else:
        out = getattr(play, "play_outcomes", None)
        if out is None:
            out = getattr(getattr(play, "__self__", None), "play_outcomes", None)
        if out is None:
            return None
    return _player(out, game)


def _design(players: int) -> list:
    roles = ("focal",) + ("field",) * (players - 1)
    return sorted(seatings(roles), key=lambda s: s.index("focal"))


def focal_shares(card_set, players: int, seed: int, deals: int, focal, opponent, rules=None,
                 engine: str = "fast", workers: int = 1, play=None, game: str = DEFAULT_GAME,
                 *, frames: bool = True) -> tuple[np.ndarray, pd.DataFrame | None]:
    """One focal policy against ``players - 1`` copies of ``opponent`` on deals
    ``0 .. deals-1``, the focal player at player index ``r`` in rotation ``r``
    (so through every seat, on the same deals).  Returns its win shares,
    ``(rotations, deals)``, and its rows of the frames (column ``rotation``
    added).  ``play``: a :func:`play_frame`-like function (default play_frame).
    ``frames=False``: the rows are not wanted (None is returned for them), and the
    games are played through the summary path (:func:`focal_outcomes`) when
    ``play`` has one -- the same shares, without a frame per rotation.

    The seatings are :func:`vale_sim.seating.seatings` of the roles (focal,
    field, ..., field) -- the focal player at each player index once, which
    balances who follows whom (the field is one policy) -- ordered by the focal
    player's index, also when ``focal`` and ``opponent`` are the same policy."""
    if not frames and outcomes_player(play, game) is not None:
        return focal_outcomes(card_set, players, seed, deals, focal, opponent, rules, engine,
                              workers, play, game)[0], None
    from .mixture import as_focal
    play = _player(play, game)
    focal = as_focal(focal)     # a mixed focal player draws apart from a mixed field
    shares = np.zeros((players, deals))
    rows = []
    for r, seating in enumerate(_design(players)):
        rot = [focal if role == "focal" else opponent for role in seating]
        df = play(card_set, players, seed, deals, rot, rules, engine, workers)
        mine = df[df["player"] == r].sort_values("game", kind="stable")
        shares[r] = mine["win_share"].to_numpy(float)
        if frames:
            mine = mine.copy()
            mine.insert(0, "rotation", r)
            rows.append(mine)
    return shares, (pd.concat(rows, ignore_index=True) if frames else None)


def focal_outcomes(card_set, players: int, seed: int, deals: int, focal, opponent, rules=None,
                   engine: str = "fast", workers: int = 1, play=None,
                   game: str = DEFAULT_GAME) -> tuple[np.ndarray, list]:
    """:func:`focal_shares` through the summary path: the win shares ``(rotations,
    deals)`` and each rotation's :class:`~vale_sim.games.base.Outcomes` (every
    player's; the focal player is player index ``r`` in rotation ``r``).  ``play``:
    a :func:`play_frame`-like function whose summary path :func:`outcomes_player`
    finds; one that has none is played and its frames read (the same numbers)."""
    from .mixture import as_focal
    from .runner import Outcomes
    g = get_game(game)
    play_o = outcomes_player(play, game)
    if play_o is None:
        framed = _player(play, game)

        def play_o(cs, P, sd, n, pols, rl, en, wk):
            return Outcomes.from_frame(framed(cs, P, sd, n, pols, rl, en, wk),
                                       g.event_column, P)
    focal = as_focal(focal)     # a mixed focal player draws apart from a mixed field
    shares = np.zeros((players, deals))
    outs = []
    for r, seating in enumerate(_design(players)):
        rot = [focal if role == "focal" else opponent for role in seating]
        o = play_o(card_set, players, seed, deals, rot, rules, engine, workers)
        shares[r] = o.share[:, r]
        outs.append(o)
    return shares, outs


def _player(play, game):
    """``play`` (a :func:`play_frame`-like function; default play_frame) for ``game``:
    ``game=`` is passed on only for a game other than the default one, so play
    functions written before there were games keep working for it."""
    name = get_game(game).name
    play = play or play_frame
    if name == DEFAULT_GAME:
        return play
    import functools
    return functools.partial(play, game=name)


def resolve_card_set(card_set, players: int, game: str = DEFAULT_GAME):
    """The card set of ``game`` (a bundled name, a file or a loaded set), checked
    playable by ``players``."""
    g = get_game(game)
    cs = g.load_card_set(card_set)
    g.validate_playable(cs, players)
    return cs


def _check_players(players: int, game: str = DEFAULT_GAME) -> None:
    allowed = tuple(get_game(game).players)
    if players not in allowed:
        names = ", ".join(map(str, allowed[:-1])) + f" or {allowed[-1]}" if len(allowed) > 1 \
            else str(allowed[0])
        raise ValueError(f"players must be {names}, got {players!r}")


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")


# ---------------------------------------------------------------------------
# Matchups and rotations
# ---------------------------------------------------------------------------
def matchups(policies, players: int, mode: str, baseline=None) -> list[tuple[str, ...]]:
    """The line-ups (policy names) a tournament plays; each is seated by
    :func:`vale_sim.seating.seatings`, which does not depend on their order."""
    names = list(policies)
    if mode == "round-robin":
        if len(names) < players:
            raise ValueError(f"round-robin with {players} players needs at least {players} "
                             f"policies, got {len(names)}")
        return [tuple(c) for c in itertools.combinations(names, players)]
    if mode == "field":
        base = baseline if baseline is not None else names[0]
        focal = [n for n in names if n != base]
        if not focal:
            raise ValueError("field mode needs at least one policy besides the baseline")
        return [(n,) + (base,) * (players - 1) for n in focal]
    raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")


def lineup_plan(policies, players: int, mode: str | None = None, baseline=None, get_policy=None):
    """What a tournament plays: ``(names, by_name, mode, baseline)``.

    ``baseline`` (a preset name, bundled policy, policy file or Policy) is the
    **opponent field**: each listed policy other than it plays against
    ``players - 1`` copies of it (mode "field"; with 2 players, every policy
    head to head against the baseline).  Giving a baseline therefore implies
    ``mode="field"``; with ``mode="round-robin"`` it is an error (every group
    of listed policies meets, there is no field).  The baseline need not be
    listed; it is played and ranked all the same.  Without a baseline the mode
    defaults to round-robin for 2 players and to field for 3–4, the field being
    the first listed policy.  ``get_policy``: the game's (default the default game's).
    """
    get_policy = get_policy or get_game(DEFAULT_GAME).get_policy
    pols = [get_policy(p) for p in policies]
    names = [p.name for p in pols]
    if len(set(names)) != len(names):
        raise ValueError(f"policy names must be distinct, got {names}")
    by_name = dict(zip(names, pols))
    if mode is not None and mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if baseline is not None:
        if mode == "round-robin":
            raise ValueError("a baseline is the opponent field of mode field; round-robin plays "
                             "every group of the listed policies: drop the baseline or the mode")
        bp = get_policy(baseline)
        if bp.name in by_name and by_name[bp.name] != bp:
            raise ValueError(f"the baseline {bp.name!r} and a listed policy share a name but "
                             f"differ: rename one")
        by_name.setdefault(bp.name, bp)
        baseline = bp.name
        mode = "field"
    mode = mode or ("round-robin" if players == 2 else "field")
    if mode == "field" and baseline is None:
        baseline = names[0]
    return names, by_name, mode, baseline


def rotations(lineup: tuple) -> list[tuple]:
    """The cyclic rotations of a line-up: policy at player index ``(j + r) % n``.
    Not the tournament's design at 3-4 distinct policies (it fixes who follows
    whom: :mod:`vale_sim.seating`); kept for comparison."""
    return cyclic_rotations(lineup)


def deals_for(games: int, players: int) -> int:
    """Game indices per rotation of one focal player against copies of a field
    (``players`` seatings): ``games`` rounded up to a multiple of ``players``.
    A line-up of other policies: :func:`vale_sim.seating.deals_for` with the
    number of its seatings."""
    return max(1, math.ceil(games / players))


def design_size(lineups) -> int:
    """Seatings per deal of a tournament's line-ups (the largest; every line-up of
    one mode has the same number)."""
    return max(len(seatings(lu)) for lu in lineups)


# ---------------------------------------------------------------------------
# The tournament
# ---------------------------------------------------------------------------
@dataclass
class Tournament:
    """Results of :func:`tournament`.  ``frame``: one row per game and player
    (plus ``matchup`` and ``rotation``); the other tables are derived from it."""
    frame: pd.DataFrame
    table: pd.DataFrame
    seats: pd.DataFrame
    ranking: pd.DataFrame
    config: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """Plain-JSON form (lists of records; rates are fractions in [0, 1])."""
        def recs(df):
            return json_records(df)
        return {"config": self.config, "table": recs(self.table), "seats": recs(self.seats),
                "ranking": recs(self.ranking)}


def json_records(df: pd.DataFrame) -> list[dict]:
    """DataFrame -> list of dicts with JSON-safe values (nan -> None)."""
    out = []
    for rec in df.to_dict(orient="records"):
        clean = {}
        for k, v in rec.items():
            if isinstance(v, (np.integer,)):
                v = int(v)
            elif isinstance(v, (np.floating, float)):
                v = None if not np.isfinite(v) else float(v)
            elif isinstance(v, np.bool_):
                v = bool(v)
            elif isinstance(v, tuple):
                v = list(v)
            clean[k] = v
        out.append(clean)
    return out


def tournament(policies, players: int = 2, games: int = 1000, seed: int = 0,
               card_set=None, engine: str = "fast", rules=None,
               mode: str | None = None, baseline=None, workers: int = 1,
               confidence: float = 0.95, play=None, cluster: bool = True,
               game: str = DEFAULT_GAME) -> Tournament:
    """Play every matchup in every seating on common seeds; summarise.

    ``policies``: preset names, policy files or Policy objects (names must be
    distinct).  ``games``: games per matchup, rounded up to a multiple of the
    seatings per deal ``S`` (:func:`vale_sim.seating.seatings`: 2 players or
    mode "field": ``players``; round robin at 3 players 6, at 4 players 24):
    ``deals = ceil(games / S)``, each played once per seating.  ``mode``: "round-robin" or "field"
    (default: round-robin for 2 players, field for 3–4).  ``baseline``: the
    opponent field (implies mode "field", also with 2 players; see
    :func:`lineup_plan`); default in field mode the first listed policy.  ``cluster``: intervals clustered
    by deal (default; ``False`` only to show what ignoring the shared deals
    does — the intervals then under-cover).  ``game``: the --game name
    (``card_set`` None: the game's default set; ``rules`` None: its defaults).
    """
    g = get_game(game)
    _check_players(players, g)
    _check_engine(engine)
    names, by_name, mode, baseline = lineup_plan(policies, players, mode, baseline,
                                                 get_policy=g.get_policy)
    cs = resolve_card_set(g.default_card_set if card_set is None else card_set, players, g)
    rules = rules or g.rules_class()
    lineups = matchups(names, players, mode, baseline)
    per_deal = design_size(lineups)
    deals = seating_deals(games, per_deal)
    play = _player(play, g)
    frames = []
    for m, lineup in enumerate(lineups):
        for r, rot in enumerate(seatings(lineup)):
            df = play(cs, players, seed, deals, [by_name[n] for n in rot], rules, engine, workers)
            df.insert(0, "rotation", r)
            df.insert(0, "matchup", " vs ".join(_lineup_label(lineup)))
            frames.append(df)
    frame = pd.concat(frames, ignore_index=True)
    if baseline is not None and baseline not in names:
        names = names + [baseline]          # the opponent field is ranked too
    config = {"policies": names, "players": players, "games_per_matchup": deals * per_deal,
              "deals": deals, "seatings_per_deal": per_deal, "seed": seed, "card_set": cs.name,
              "engine": engine,
              "mode": mode, "baseline": baseline if mode == "field" else None,
              "confidence": confidence, "clustered_by_deal": cluster}
    if g.name != DEFAULT_GAME:
        config["game"] = g.name
    return Tournament(frame=frame, table=matchup_table(frame, confidence, cluster, g.event_column),
                      seats=seat_table(frame, confidence, cluster),
                      ranking=ranking(frame, names, players, confidence, cluster=cluster),
                      config=config)


def _lineup_label(lineup) -> list[str]:
    """("a", "b", "b", "b") -> ["a", "3×b"]."""
    out = []
    for name, grp in itertools.groupby(lineup):
        k = len(list(grp))
        out.append(name if k == 1 else f"{k}×{name}")
    return out


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------
def _game_keys(frame: pd.DataFrame) -> list[str]:
    return [c for c in ("matchup", "rotation", "game") if c in frame.columns]


def _deals(g: pd.DataFrame, cluster: bool):
    """Cluster labels of a frame's rows: the deal (game index) when ``cluster``, else None."""
    return g["game"].to_numpy() if cluster else None


def _est_cols(prefix: str, e: stats.Estimate) -> dict:
    return {prefix: e.value, f"{prefix}_lo": e.lo, f"{prefix}_hi": e.hi}


def matchup_table(frame: pd.DataFrame, confidence: float = 0.95, cluster: bool = True,
                  event: str = "spoils") -> pd.DataFrame:
    """Per matchup and policy: win rate (shared wins count 1/k), tie rate (the
    policy's games that ended in a shared win), mean score, mean game length
    (rounds), spoils per turn — every one with n and an interval.

    Intervals are clustered by deal (``cluster=True``, the default): the seat
    rotations of a matchup replay the same deal (same shuffles, same
    starting player), so a policy's results on one deal are not independent.
    :func:`vale_sim.stats.cluster_ratio` (sandwich, t with deals − 1 df).
    ``cluster=False`` treats every player-game as independent (for
    comparison only: it is wrong when rotations are correlated).
    ``spoils_per_turn``: spoils per turn taken (a player takes one turn per
    round), ratio Σspoils / Σrounds (another game: ``<event>_per_turn`` of its
    event column ``event``).  ``n``: player-games; ``n_deals``: deals
    (the clusters).  ``deal_design_effect``: clustered variance of the win
    rate over the variance of ``n`` independent games (nan at 0 or 1); below 1
    the seat luck of a deal cancels between its rotations.
    """
    f = frame.copy()
    f["shared"] = ((f["win_share"] > 0) & (f["win_share"] < 1)).astype(float)
    if "matchup" not in f.columns:
        f["matchup"] = "all"
    rows = []
    for (mu, pol), g in f.groupby(["matchup", "policy"], sort=False):
        n = len(g)
        cl = _deals(g, cluster)
        win = stats.cluster_rate(g["win_share"].to_numpy(float), cl, confidence)
        tie = stats.cluster_rate(g["shared"].to_numpy(float), cl, confidence)
        score = stats.cluster_ratio(g["score"].to_numpy(float), None, cl, confidence)
        rounds = stats.cluster_ratio(g["rounds"].to_numpy(float), None, cl, confidence)
        spoils = stats.cluster_ratio(g[event].to_numpy(float), g["rounds"].to_numpy(float), cl,
                                     confidence, bounds=(0.0, math.inf))
        indep_var = win.value * (1 - win.value) / n
        deff = (win.se ** 2 / indep_var if cluster and indep_var > 0 and np.isfinite(win.se)
                else math.nan)
        rows.append({
            "matchup": mu, "policy": pol, "n": n, "n_deals": int(g["game"].nunique()),
            "wins": float(g["win_share"].sum()),
            "win_rate": win.value, "win_lo": win.lo, "win_hi": win.hi,
            "tie_rate": tie.value, "tie_lo": tie.lo, "tie_hi": tie.hi,
            **_est_cols("mean_score", score),
            "sd_score": float(g["score"].std(ddof=1)) if n > 1 else math.nan,
            **_est_cols("mean_rounds", rounds),
            **_est_cols(f"{event}_per_turn", spoils),
            "truncated": int(g["truncated"].sum()), "deal_design_effect": deff,
        })
    out = pd.DataFrame(rows)
    out.attrs.update(confidence=confidence, clustered=cluster)
    return out


def seat_table(frame: pd.DataFrame, confidence: float = 0.95, cluster: bool = True) -> pd.DataFrame:
    """Win rate and mean score by seat, **seat 1 = the starting player**, over
    all games (``policy`` = "all") and per policy, with n and intervals.

    Every matchup and seat rotation of a tournament replays deals
    ``0 .. deals-1`` with the same seed, so the games of one deal share its
    luck: intervals are clustered by deal (``cluster=True``; sandwich, t with
    deals − 1 df).  ``cluster=False`` treats player-games as independent
    (under-covers; kept only to show it).  ``advantage``: win rate minus the
    fair share ``1/players``, same interval shifted.  ``n``: player-games in
    the seat; ``n_deals``: the clusters; ``design_effect``: the clustered
    variance of the win rate over the variance of ``n`` independent
    player-games (how many times more games the pooled table needs than the
    independent-games formula says).
    """
    players = int(frame.groupby(_game_keys(frame)).size().iloc[0]) if len(frame) else 0
    rows = []
    groups = [("all", frame)] + list(frame.groupby("policy", sort=False))
    for pol, g in groups:
        for seat, s in g.groupby("seat", sort=True):
            cl = _deals(s, cluster)
            w = stats.cluster_rate(s["win_share"].to_numpy(float), cl, confidence)
            sc = stats.cluster_ratio(s["score"].to_numpy(float), None, cl, confidence)
            fair = 1 / players if players else math.nan
            ind = stats.cluster_rate(s["win_share"].to_numpy(float), None, confidence)
            deff = (w.se ** 2 / ind.se ** 2 if cluster and ind.se > 0 and np.isfinite(w.se)
                    else math.nan)
            rows.append({"policy": pol, "seat": int(seat) + 1, "n": w.n,
                         "n_deals": int(s["game"].nunique()), "design_effect": deff,
                         "win_rate": w.value, "win_lo": w.lo, "win_hi": w.hi,
                         "advantage": w.value - fair, "advantage_lo": w.lo - fair,
                         "advantage_hi": w.hi - fair, **_est_cols("mean_score", sc)})
    out = pd.DataFrame(rows)
    out.attrs.update(confidence=confidence, clustered=cluster)
    return out


def game_comparisons(frame: pd.DataFrame, names, strata: bool = False):
    """Per game, pairwise results between different policies: ``(games, k, k)``.

    ``out[g, i, j]`` is 1 if policy ``i`` finished ahead of ``j`` in game
    ``g`` (higher score, then tie-break — the game's own winner rule; a game
    without a ``tiebreak`` column compares scores only), 1/2 each when level.  Players with the same policy are not compared.  With
    several players of one policy, each of them is compared.  With
    ``strata=True`` also returns each game's matchup label (for a stratified
    bootstrap) and its deal (game index, for clustering): ``(out, labels, deals)``.
    """
    idx = {n: i for i, n in enumerate(names)}
    keys = _game_keys(frame)
    f = frame.sort_values(keys + ["player"], kind="stable")
    players = int(f.groupby(keys, sort=False).size().iloc[0])
    g = len(f) // players
    pol = f["policy"].map(idx).to_numpy().reshape(g, players)
    tiebreak = f["tiebreak"].to_numpy(np.int64) if "tiebreak" in f.columns else 0  # a game's own column
    key = (f["score"].to_numpy(np.int64) * 1000 + tiebreak).reshape(g, players)
    out = np.zeros((g, len(names), len(names)))
    rows = np.arange(g)
    for p, q in itertools.combinations(range(players), 2):
        differ = pol[:, p] != pol[:, q]
        res = np.where(key[:, p] > key[:, q], 1.0, np.where(key[:, p] < key[:, q], 0.0, 0.5))
        r = rows[differ]
        np.add.at(out, (r, pol[differ, p], pol[differ, q]), res[differ])
        np.add.at(out, (r, pol[differ, q], pol[differ, p]), 1 - res[differ])
    if strata:
        labels = (f["matchup"].to_numpy()[::players] if "matchup" in f.columns
                  else np.zeros(g, dtype=object))
        return out, labels, f["game"].to_numpy()[::players]
    return out


def ranking_method(players: int, cluster: bool = True) -> str:
    """The :func:`vale_sim.stats.bradley_terry` method of :func:`ranking`: the
    deal-clustered sandwich at every player count; unclustered (for comparison):
    Fisher information at 2 players, a bootstrap of games within matchups at 3–4."""
    if cluster:
        return "sandwich"
    return "fisher" if players == 2 else "bootstrap"


def ranking(frame: pd.DataFrame, names, players: int, confidence: float = 0.95,
            n_boot: int = 500, seed: int = 0, cluster: bool = True) -> pd.DataFrame:
    """Bradley–Terry strengths of the policies, with intervals.

    Every matchup and rotation replays the same deals, so games of one deal
    are correlated; with ``cluster=True`` (default) the intervals treat the
    deal as the independent unit:

    * 2 players: each game is one comparison; cluster-robust (sandwich)
      covariance over deals (``method="sandwich"``).
    * 3–4 players: each game is broken into pairwise comparisons (rank
      breaking); the same cluster-robust sandwich over deals: the fit is the
      maximum of a composite (pairwise) likelihood, for which the sandwich is
      the right covariance (Godambe information) whatever the dependence
      within a game or a deal.  (The percentile bootstrap over deals used
      before covered 92–93 % at 40 deals: docs/statistics.md §3.)

    ``cluster=False`` (for comparison only): Fisher information (2 players)
    or a bootstrap of single games within matchups (3–4 players) — both
    assume independent games and under-cover.
    """
    per_game, strata, deals = game_comparisons(frame, names, strata=True)
    present = per_game.sum(axis=(0, 2)) + per_game.sum(axis=(0, 1)) > 0
    if present.sum() < 2:
        return pd.DataFrame(columns=["name", "strength", "lo", "hi", "se", "elo", "elo_lo",
                                     "elo_hi", "comparisons", "expected_vs_mean",
                                     "expected_lo", "expected_hi"])
    per_game = per_game[:, present][:, :, present]
    kept = [n for n, p in zip(names, present) if p]
    method = ranking_method(players, cluster)
    return stats.bradley_terry(per_game, names=kept, confidence=confidence, method=method,
                               n_boot=n_boot, seed=seed, strata=strata,
                               clusters=deals if cluster else None)


# ---------------------------------------------------------------------------
# Coverage of the intervals (tests/test_coverage.py, docs/statistics.md §2.1)
# ---------------------------------------------------------------------------
def coverage_study(policies, players: int = 2, deals: int = 60, reps: int = 150, seed: int = 1,
                   truth_deals: int = 10_000, truth_seed: int = 10_000, mode: str | None = None,
                   card_set=None, n_boot: int = 200, confidence: float = 0.95,
                   game: str = DEFAULT_GAME) -> pd.DataFrame:
    """How often the seat and ranking intervals cover the truth, clustered by deal or not.

    Plays one tournament of ``deals × reps`` deals and cuts it into ``reps``
    independent replications of ``deals`` deals each (replication ``b`` holds
    deals ``b·deals .. (b+1)·deals − 1``, with all their matchups and
    rotations: exactly a tournament of ``deals`` deals, on other shuffles).
    The truth is the estimate of a separate reference tournament of
    ``truth_deals`` deals on ``truth_seed``.  Use policies whose truth the
    reference run pins down: e.g. ``balanced`` and copies of it that differ
    only in name (they play identical games, so every game against a third
    policy is replayed once per copy on the same deal) and one other policy.

    Returns one row per quantity (the seat-1 win rate over all games, and
    each policy's Bradley–Terry strength) with ``truth``, ``coverage`` of the
    deal-clustered intervals, ``coverage_unclustered`` (``cluster=False``) and
    ``reps``.
    """
    g = get_game(game)
    pols = [g.get_policy(p) for p in policies]
    names = [p.name for p in pols]
    kw = dict(players=players, mode=mode, confidence=confidence, game=g.name,
              card_set=g.default_card_set if card_set is None else card_set)
    ref = tournament(pols, games=players * truth_deals, seed=truth_seed, **kw)
    truth = {"seat 1 win rate": float(ref.seats.query("policy == 'all' and seat == 1")["win_rate"].iloc[0])}
    truth |= {f"strength {r.name}": float(r.strength) for r in ref.ranking.itertuples()}
    t = tournament(pols, games=players * deals * reps, seed=seed, **kw)
    hits = {True: [], False: []}
    for _, part in t.frame.groupby(t.frame["game"].to_numpy() // deals, sort=True):
        for cl in (True, False):
            st = seat_table(part, confidence, cluster=cl).query("policy == 'all' and seat == 1").iloc[0]
            rk = ranking(part, names, players, confidence, n_boot=n_boot, cluster=cl).set_index("name")
            row = {"seat 1 win rate": st.win_lo <= truth["seat 1 win rate"] <= st.win_hi}
            for n in names:
                if n in rk.index:
                    row[f"strength {n}"] = rk.loc[n, "lo"] <= truth[f"strength {n}"] <= rk.loc[n, "hi"]
            hits[cl].append(row)
    cov, unc = pd.DataFrame(hits[True]).mean(), pd.DataFrame(hits[False]).mean()
    out = pd.DataFrame({"quantity": list(truth), "truth": list(truth.values()),
                        "coverage": [cov.get(k, math.nan) for k in truth],
                        "coverage_unclustered": [unc.get(k, math.nan) for k in truth],
                        "reps": len(hits[True]), "deals": deals, "players": players})
    out.attrs.update(policies=names, confidence=confidence)
    return out


# ---------------------------------------------------------------------------
# Per-turn curves (reference-engine turn records on a subsample)
# ---------------------------------------------------------------------------
def turn_curves(policies, players: int = 2, games: int = 40, seed: int = 0, card_set=None,
                rules=None, mode: str | None = None, baseline=None,
                engine: str = "fast", confidence: float = 0.95,
                game: str = DEFAULT_GAME) -> pd.DataFrame:
    """The game's per-turn measures by round, per policy, with intervals.

    Plays the tournament's matchups and seatings on ``ceil(games / S)`` deals
    (``S`` seatings per deal, as :func:`tournament`) and reads each game's turn
    records through the game's hooks: ``Game.turn_records(cs, players, seed,
    game_index, policies, rules, engine)`` (one row per turn: ``player``, ``round``
    and the measures) and ``Game.turn_measures`` ((name, column, cumulative,
    bounds), ...), e.g. vp (cumulative harvest VP taken), mana (mana counted at this
    turn's Harvest), crafted (cumulative cards bought), spoiled_turn_share (share of
    that round's turns in which the player had a bad turn).
    Columns: policy, round, n (turns averaged), n_deals, each measure with
    ``_lo``/``_hi``: a 95 % interval clustered by deal (the turns of one game, and
    the games of one deal, are not independent).  Late rounds average only the
    games still running.
    """
    from .runner import effective_engine
    g = get_game(game)
    if g.turn_records is None or g.turn_measures is None:
        raise ValueError(f"{g.name} has no turn records for per-turn curves "
                         f"(Game.turn_records); use tournament")
    _check_players(players, g.name)
    _check_engine(engine)
    engine = effective_engine(engine, g)
    names, by_name, mode, baseline = lineup_plan(policies, players, mode, baseline,
                                                 get_policy=g.get_policy)
    cs = resolve_card_set(g.default_card_set if card_set is None else card_set, players, g.name)
    rules = rules or g.rules_class()
    frames = []
    serial = 0
    lineups = matchups(names, players, mode, baseline)
    deals = seating_deals(games, design_size(lineups))
    for lineup in lineups:
        for rot in seatings(lineup):
            for i in range(deals):
                t = g.turn_records(cs, players, seed, i, [by_name[n] for n in rot], rules, engine)
                t["policy"] = [rot[p] for p in t["player"]]
                t["game"] = serial
                t["deal"] = i
                serial += 1
                frames.append(t)
    t = pd.concat(frames, ignore_index=True).sort_values(["game", "player", "round"])
    grp = t.groupby(["game", "player"], sort=False)
    cols, bounds = {}, {}
    for name, col, cumulative, bound in g.turn_measures:
        if cumulative:
            t[f"{col}_cum"] = grp[col].cumsum()
            col = f"{col}_cum"
        cols[name], bounds[name] = col, bound
    rows = []
    for (pol, rnd), part in t.groupby(["policy", "round"], sort=True):
        row = {"policy": pol, "round": rnd, "n": len(part), "n_deals": int(part["deal"].nunique())}
        for name, col in cols.items():
            e = stats.cluster_ratio(part[col].to_numpy(float), None, part["deal"].to_numpy(),
                                    confidence, bounds=bounds[name])
            row.update({name: e.value, f"{name}_lo": e.lo, f"{name}_hi": e.hi})
        rows.append(row)
    return pd.DataFrame(rows)
