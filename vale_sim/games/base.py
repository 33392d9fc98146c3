"""The game interface: what a game gives the shared layers.

vale-sim plays more than one game on the same toolkit.  Everything specific
to one game (its card sets, engines, policies, rule options and the columns
its records carry) lives in ``vale_sim/games/<game>/`` and is reached only
through one :class:`Game` object, ``vale_sim.games.<game>.GAME``.  The
shared layers (runner and chunked runs, resume, Dask, stats, tournament,
experiments, report) take any game through it and never import a game's
modules directly.

Contract (every game keeps it; :mod:`vale_sim.games.conformance` checks it, and
``tests/test_conformance.py`` runs those checks over every registered game and
the toy game of ``tests/pig.py``):

* Card sets: ``load_card_set(spec)`` takes a bundled name, a file path or an
  already loaded set and returns an object with ``.name`` and ``.digest()``
  (a hash of everything that changes play).  A malformed file raises
  ``ValueError`` (a subclass is fine) whose text is ONE line naming the
  file, the item and the fix.  ``validate_playable(cs, players)`` raises the
  same kind of error when the set cannot be played by ``players``.
* Policies: ``get_policy(spec)`` takes a preset name, a TOML file or a policy
  object and returns a frozen dataclass with ``.name``;
  ``check_policies(cs, policies)`` validates them against a card set and
  returns the list.  Errors: one-line ``ValueError``.  The Game wraps both so
  that a mixed field (:class:`vale_sim.mixture.Mixture`, a ``kind = "mixture"``
  file) is accepted too; the engines only ever see its drawn members.
* Rule options: ``rules_class`` is a frozen dataclass whose every field has a
  default (``rules_class()`` is the manual's game); ``dataclasses.asdict``
  of it goes into run manifests.
* Engines: ``play_reference(cs, players, seed, game_index, policies, rules)``
  plays game ``game_index`` of master seed ``seed`` with the readable
  reference engine and returns a record with ``.turns``, ``.results``,
  ``.log`` (readable lines) and ``.to_dict()``.  ``results_frame(records, cs)``
  turns such records into the per-game, per-player frame.  ``run_fast(cs,
  players, seed, n_games, policies, rules, first_game)`` returns the same
  frame from the fast engine for games ``first_game ..
  first_game+n_games-1``, or is ``None`` when the game has no fast engine.
  For the same arguments both engines give identical frames.
* Outcome arrays (optional, the studies' summary path): ``run_outcomes(cs, players,
  seed, n_games, policies, rules, first_game)`` returns the :class:`Outcomes` of
  the same games from the fast engine without building the frame (per game and
  player: win share, score, seat, the event count, the purchase-count columns;
  per game: rounds, truncated), equal to ``Outcomes.from_frame`` of ``run_fast``'s
  frame.  ``None``: the runner builds the frame and reads it (slower).
* The per-game/player frame has at least :data:`RESULT_COLUMNS` (``seat`` 0 is
  the starting player; ``win_share`` is 1/k for a k-way shared win, else 0),
  then the game's own columns; ``event_column`` names the game's per-player
  count of bad turns (e.g. ``spoils`` or ``withers``),
  which the summaries report.

Optional hooks (every one has a default, so a game may leave them out):

* ``base_columns``: the columns a results frame starts with (an empty run
  returns a frame of just these); default :data:`RESULT_COLUMNS`.
* ``fast_module``: the module holding the fast engine (imported to check that
  numba works; ``None``: ``run_fast`` is all there is).  ``warm_up()``
  compiles the fast engine in this process (before worker processes start).
* ``card_set_facts(cs) -> dict``: what run manifests record about a card set
  besides its name, digest and path.
* ``format_log(record, cs) -> [line, ...]``: the log ``vale-sim play`` prints
  (default ``record.log``).
* ``format_result(record) -> str``: the final-scores table ``vale-sim play``
  prints after the log (default: a table of RESULT_COLUMNS).
* ``user_errors``: the exception classes the CLI prints as one line (exit 2);
  default ``(ValueError,)`` (the contract above).
* ``studies``: the game's studies, :class:`vale_sim.study.Study` records (name,
  command line, config schema, checks, runner); the CLI and ``vale-sim run``
  take them from here, and for every other game they exit with a one-line error.
* ``report``: the module of the game's report (``"pkg.module"``): ``Settings``
  (``.make(size=, quick=, engine=, seed=, card_set=, ...)``), ``sections()``,
  ``title(settings)``, ``settings_from_config(config, **kw)``, ``DEFAULT_OUT``,
  ``TAKES_BASELINE``; the shared shell :mod:`vale_sim.report` renders it.
* ``golden_module``: the module of the game's golden playthroughs (``CASES``, each
  with ``.name`` and ``.players``; ``GOLDEN_DIR``; ``play_case(case, engine)``;
  ``render(case, record) -> str``, the whole file; ``record_lines(record)``, the
  engine-independent lines after ``## record``), replayed by
  :func:`vale_sim.games.conformance.check_golden`.  ``None``: no golden games (the
  conformance suite asks for them).
* ``strength_arms(card, baseline) -> (prefer, ban)`` and
  ``strength_cards(cs) -> [(name, kind, level, key), ...]``: the card-strength
  estimand of :mod:`vale_sim.advancements`: the baseline policy buying ``card``
  first whenever it can / never buying it, and the cards a player can acquire
  (``key``: the results-frame column counting them, unless
  ``strength_acquired(frame, cs, card) -> bool per row`` says it).  ``None``: no
  card-strength study.  ``strength_column(cs, card) -> column``: the frame column counting
  ``card`` (the key of :attr:`Outcomes.counts`), for a game whose ``strength_acquired``
  reads the frame; without it the summary path reads ``strength_acquired``'s frames.
  ``strength_observations(frame, cs) -> {card: {"acquired",
  "first_round", "harvested": array per row}}`` and
  ``strength_observation_frame(cs, players, seed, games, baseline, explore_permille,
  rules, engine)`` (the run they read): the observational statistics.
* ``turn_records(cs, players, seed, game_index, policies, rules, engine)`` (a
  DataFrame, a row per turn with ``player``, ``round`` and the measures) and
  ``turn_measures`` (``((name, column, cumulative, bounds), ...)``): the per-turn curves of
  :func:`vale_sim.tournament.turn_curves`.
* ``score_trace(cs, players, seed, n_games, policies, rules, first_game)``: each player's
  VP after every turn of a batch of games and the final results (the shape of a game,
  :mod:`vale_sim.shape`); ``None``: no shape measures.
* ``search_space() -> dict``: what ``vale-sim optimize`` and ``exploit`` may vary
  in a policy (:func:`vale_sim.optimize.policy_space`): ``policy`` (the policy
  dataclass), ``module`` (where categorical fields find their choices,
  ``FIELD_MODES`` or ``FIELDS``), ``ranges`` (integer field -> (lo, hi)),
  ``excluded`` (fields never searched) and ``int_limit``.  ``None``: no search.
* ``edit_card(cs, card, field, value, relative) -> (new_set, old, new)``: the card
  set with one number of one card changed (``vale-sim what-if --edit``,
  :mod:`vale_sim.whatif`); the number's source becomes ``user``; a bad edit is the
  game's one-line card-set error.  ``None``: no card edits (rule edits still work).
* ``strategy``: the module of the game's part of the strategy guide
  (:mod:`vale_sim.strategy`: ``DECISION_KINDS``, ``hybrid``, ``observe_game``,
  ``EVENT``, ``SHOWING``).  ``None``: no guide.
* ``workbench``: the module (``"pkg.module"``) of the game's bad-turn odds page of
  ``vale-sim serve`` (:mod:`vale_sim.workbench`, docs/workbench.md): ``TITLE``,
  ``WORDS``, ``MAX_PUSHES``, ``deck_form(cs)``, ``bundled_decks(cs)`` and
  ``deck_odds(cs, deck, pushes, goal, max_states) -> dict`` (``vale_sim.odds.TooManyStates``
  past ``max_states``).  ``None``: the page says the game
  has none.
* ``open_numbers(cs) -> [vale_sim.draft.OpenNumber, ...]``: the open numbers of a draft
  rulebook (``vale-sim balance --draft``).  ``None``: the rules are final.
* ``strong_field``: the game's **strongest bundled field**, a policy spec in which
  ``{P}`` stands for the player count (e.g. ``"meta-{P}p"``).  Every default that
  means "the strongest bots" reads it, through :func:`vale_sim.strong_field.field_of`:
  ``advancements``, ``what-if``, ``balance``, ``report``, ``strategy`` and the
  workbench (docs/statistics.md §5.6, "One field everywhere").  Switching the field
  is this one line per game.  ``None``: the game bundles no strong field, and those
  defaults use ``default_policy``.
* ``settle_field``: the second strong field (a spec as ``strong_field``): the strongest
  field before the strongest, which decides whether a verdict under the strongest is
  *settled* (the reports; :func:`vale_sim.strong_field.settle_field_of`).
* ``bench_skeleton``: ``"module:function"`` of the game's **skeleton game**, a numba
  function ``play(n_games, seed)`` doing only the irreducible work of a 2-player game of
  its default set (returns a checksum); ``vale-sim bench`` times it in the same process
  as the fast engine, interleaved, and prints the ratio (docs/speed.md).  ``None``: no
  skeleton, bench prints the engine's figures alone.
* ``estimate_bounds(cs, card, field) -> (lo, hi, why) | None``: the range the game's
  own estimates keep a number of ``card`` in (e.g. a cost in the cost band of the
  card's level) and a phrase saying so, so ``vale-sim balance`` refits an *estimated*
  number only within it (docs/balance.md, "Bounds"); ``None`` (hook or result): no
  such range.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Callable

#: Columns every game's per-game/player results frame has.
RESULT_COLUMNS = ("game", "player", "seat", "policy", "score", "win_share", "rounds", "truncated")
#: The line above every final-scores table of ``vale-sim play`` (docs/runs.md, "Seat
#: numbering"): text counts seats from 1 (seat 1 starts); records, frames and Parquet
#: from 0 (``seat`` 0 starts).
SEATS_NOTE = ("P0, P1, ... are the players in --policy order; seats count from 1 "
              "(seat 1 = the starting player)")


def baseline_spec(spec, players: int):
    """``spec`` with ``{P}`` replaced by ``players`` ("optimized-{P}p" -> "optimized-3p");
    anything but a string (a policy object) is returned as it is."""
    if isinstance(spec, str):
        return spec.replace("{P}", str(int(players)))
    return spec


def baseline_label(spec) -> str:
    """How a baseline spec reads in text: a policy's name, else the spec (a template
    stays a template)."""
    return spec if isinstance(spec, str) else getattr(spec, "name", str(spec))


@dataclass(frozen=True)
class Game:
    name: str                                   # "some-game": the --game value
    title: str                                  # "Some Game"
    package: str                                # "vale_sim.games.some_game"
    default_card_set: str                       # a bundled set name
    bundled_card_sets: Callable[[], dict]       # name -> Path
    load_card_set: Callable[[Any], Any]
    validate_playable: Callable[[Any, int], None]
    presets: tuple                              # policy preset names
    default_policy: str
    get_policy: Callable[[Any], Any]
    check_policies: Callable[[Any, list], list]
    rules_class: type
    play_reference: Callable[..., Any]
    results_frame: Callable[[list, Any], Any]
    run_fast: Callable[..., Any] | None = None
    event_column: str = "spoils"
    # the fast engine's outcome arrays of games first_game.. (no frame): Outcomes
    run_outcomes: Callable[..., Any] | None = None
    players: tuple = (2, 3, 4)
    # optional hooks (module docstring)
    base_columns: tuple = RESULT_COLUMNS
    fast_module: str | None = None
    warm_up: Callable[[], Any] | None = None
    card_set_facts: Callable[[Any], dict] | None = None
    format_result: Callable[[Any], str] | None = None
    format_log: Callable[[Any, Any], list] | None = None      # play's log lines: (record, cs)
    user_errors: tuple = (ValueError,)
    studies: tuple = ()                         # vale_sim.study.Study records
    report: str | None = None                   # the module of the game's report sections
    # ``vale-sim cards`` for a game that lists "cards" in studies: its text lines,
    # or (as_json=True) every number with its value and source.
    describe_cards: Callable[..., Any] | None = None
    export_cards: Callable[[Any, Any], None] | None = None    # ``cards --csv``: (cs, path)
    strength_arms: Callable[[str, Any], tuple] | None = None
    strength_cards: Callable[[Any], list] | None = None
    strength_acquired: Callable[[Any, Any, str], Any] | None = None
    # the results-frame column counting a card: (cs, card) -> column (the outcome arrays'
    # Outcomes.counts key); None: strength_cards' key, unless strength_acquired is given
    strength_column: Callable[[Any, str], str] | None = None
    strength_observations: Callable[[Any, Any], dict] | None = None
    strength_observation_frame: Callable[..., Any] | None = None
    # per-turn curves (vale_sim.tournament.turn_curves): one game's turn rows and
    # the measures to average by round: ((name, column, cumulative, bounds), ...)
    turn_records: Callable[..., Any] | None = None
    turn_measures: tuple | None = None
    # the shape of a game (vale_sim.shape): score_trace(cs, players, seed, n_games,
    # policies, rules, first_game) -> {"turns": game/round/player/vp after each turn,
    # "final": game/player/seat/score/win_share, "vp_meaning": str}
    score_trace: Callable[..., Any] | None = None
    golden_module: str | None = None
    search_space: Callable[[], dict] | None = None
    edit_card: Callable[..., tuple] | None = None
    # the game's part of the strategy guide (vale_sim/strategy.py): a module path
    strategy: str | None = None
    workbench: str | None = None                # the module of the odds page of `serve`
    open_numbers: Callable[[Any], list] | None = None
    estimate_bounds: Callable[..., Any] | None = None
    # the strongest bundled field ({P}: the player count); None: default_policy
    strong_field: str | None = None
    settle_field: str | None = None
    # "module:function" of the skeleton game bench times the fast engine against
    bench_skeleton: str | None = None

    def __post_init__(self):
        # every game takes mixed fields (vale_sim.mixture, docs/meta.md §6b): a mixture
        # file or object wherever a policy goes; its members are the game's policies
        from vale_sim import mixture
        object.__setattr__(self, "get_policy", mixture.with_mixtures(self.get_policy))
        object.__setattr__(self, "check_policies", mixture.checking_mixtures(self.check_policies))

    def resolve_baseline(self, spec, players: int, card_set=None):
        """The baseline policy for ``players`` players: a preset or bundled policy
        name, a policy .toml file or a policy object; ``{P}`` in a name stands for
        the player count (``optimized-{P}p``).  With ``card_set`` its buy rules are
        checked against the set.  Raises the game's policy error (a ValueError)
        naming the spec and the fix."""
        pol = self.get_policy(baseline_spec(spec, players))
        if card_set is not None:
            self.check_policies(card_set, [pol])
        return pol

    @property
    def has_fast_engine(self) -> bool:
        return self.run_fast is not None


# ---------------------------------------------------------------------------
# Outcome arrays: what the studies reduce, without a per-game/player frame
# ---------------------------------------------------------------------------
#: A results-frame column holding a purchase count has this in its name
#: (``buy:<card>``, ``vale:<card>``): :attr:`Outcomes.counts` keeps those columns.
COUNT_MARK = ":"


class CountColumns(Mapping):
    """The purchase-count columns of :class:`Outcomes` as a read-only mapping, column
    name -> ``[n, P]`` array, over the kernels' kind-major arrays without copying or
    slicing them up front: ``blocks`` are ``(rows, array)`` pairs, ``rows`` a dict
    column -> row of ``array`` (``[kinds, n, P]``), shared by every run of a card
    set."""

    __slots__ = ("_blocks",)

    def __init__(self, blocks):
        self._blocks = tuple(blocks)

    def __getitem__(self, name):
        for rows, a in self._blocks:
            r = rows.get(name)
            if r is not None:
                return a[r]
        raise KeyError(name)

    def __contains__(self, name):
        return any(name in rows for rows, _ in self._blocks)

    def __iter__(self):
        for rows, _ in self._blocks:
            yield from rows

    def __len__(self):
        return sum(len(rows) for rows, _ in self._blocks)


@dataclass
class Outcomes:
    """The results of games ``first_game .. first_game+n-1`` as arrays, in game order:
    what the studies reduce (win shares, scores, purchases per deal and seat) without
    the per-game/player frame (one row per game and player) that building costs
    more than a short run's games.

    ``share``, ``score``, ``seat``, ``event`` (the game's ``event_column``) and each
    ``counts[column]`` (the frame's purchase-count columns, :data:`COUNT_MARK`) are
    ``[n, P]`` arrays indexed by game then player index, ``rounds`` and ``truncated``
    ``[n]``; ``policies`` the frame's ``policy`` value of each player index (a mixed
    field's name, not its drawn member).  :meth:`from_frame` reads the same from a
    frame: for the same games both are equal (tests/test_summary_path.py).
    """
    first_game: int
    policies: tuple
    share: Any
    score: Any
    seat: Any
    event: Any
    rounds: Any
    truncated: Any
    counts: Mapping

    @property
    def n(self) -> int:
        return int(self.share.shape[0])

    @property
    def players(self) -> int:
        return int(self.share.shape[1])

    def nbytes(self) -> int:
        """Bytes of the arrays (the runner's memory check), the count columns taken as
        8 bytes a cell (what the engines give) without visiting them."""
        arrays = (self.share, self.score, self.seat, self.event, self.rounds, self.truncated)
        return int(sum(a.nbytes for a in arrays)) + 8 * len(self.counts) * self.share.size

    @classmethod
    def from_frame(cls, df, event: str, players: int, first_game: int | None = None
                   ) -> "Outcomes":
        """The outcomes of a per-game/player frame with every game's ``players`` rows
        (sorted by game, then player, here)."""
        import numpy as np
        if not _in_order(df):
            df = df.sort_values(["game", "player"], kind="stable")
        n = len(df) // players

        def grid(col, dtype):
            return df[col].to_numpy(dtype).reshape(n, players)
        first = first_game if first_game is not None else (
            int(df["game"].iloc[0]) if len(df) else 0)
        pol = df["policy"].astype(object).to_numpy()[:players] if n else ()
        return cls(first_game=first, policies=tuple(str(p) for p in pol),
                   share=grid("win_share", np.float64), score=grid("score", np.int64),
                   seat=grid("seat", np.int64), event=grid(event, np.int64),
                   rounds=df["rounds"].to_numpy(np.int64)[::players].copy(),
                   truncated=df["truncated"].to_numpy(bool)[::players].copy(),
                   counts={c: grid(c, np.int64) for c in df.columns if COUNT_MARK in str(c)})

    @classmethod
    def concat(cls, parts: list) -> "Outcomes":
        """Consecutive outcomes (each part's games follow the previous part's) as one."""
        import numpy as np
        if len(parts) == 1:
            return parts[0]
        cat = lambda xs: np.concatenate(xs, axis=0)  # noqa: E731
        return cls(first_game=parts[0].first_game, policies=parts[0].policies,
                   share=cat([p.share for p in parts]), score=cat([p.score for p in parts]),
                   seat=cat([p.seat for p in parts]), event=cat([p.event for p in parts]),
                   rounds=cat([p.rounds for p in parts]),
                   truncated=cat([p.truncated for p in parts]),
                   counts={c: cat([p.counts[c] for p in parts]) for c in parts[0].counts})

    def take(self, games, first_game: int | None = None) -> "Outcomes":
        """The games at positions ``games`` (an index array), in that order."""
        return Outcomes(first_game=self.first_game if first_game is None else first_game,
                        policies=self.policies, share=self.share[games],
                        score=self.score[games], seat=self.seat[games],
                        event=self.event[games], rounds=self.rounds[games],
                        truncated=self.truncated[games],
                        counts={c: a[games] for c, a in self.counts.items()})


def _in_order(df) -> bool:
    """Rows sorted by game then player (the frames of both engines are)."""
    import numpy as np
    if not len(df):
        return True
    g = df["game"].to_numpy()
    p = df["player"].to_numpy()
    return bool(np.all((g[1:] > g[:-1]) | ((g[1:] == g[:-1]) & (p[1:] >= p[:-1]))))


# ---------------------------------------------------------------------------
# Golden playthrough files: the format every game's golden module shares
# (vale_sim/games/<game>/golden.py).
# A golden file is a header, the reference engine's "## log", then "## record": the
# game's own first line, "## turns" (a field=value line per TurnRecord) and
# "## results" (one per PlayerResult).  The record part is engine-independent: the
# fast engine's records must reproduce it line for line.
# ---------------------------------------------------------------------------
def format_value(v) -> str:
    """How a record field reads in a golden file (booleans as 0/1, floats to 4 places)."""
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, tuple):
        return ",".join(":".join(map(str, x)) if isinstance(x, tuple) else str(x) for x in v)
    if isinstance(v, dict):
        return ",".join(f"{k}:{x}" for k, x in v.items())
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def turns_and_results(rec) -> list[str]:
    """``## turns``, a line per turn record, ``## results``, a line per player result."""
    lines = ["## turns"]
    for t in rec.turns:
        lines.append(" ".join(f"{f.name}={format_value(getattr(t, f.name))}" for f in fields(t)))
    lines.append("## results")
    for r in rec.results:
        lines.append(" ".join(f"{f.name}={format_value(getattr(r, f.name))}" for f in fields(r)))
    return lines


def record_section(text: str) -> list[str]:
    """The lines after ``## record`` of a golden file."""
    lines = text.splitlines()
    return lines[lines.index("## record") + 1:]


def write_cases(directory: Path, cases, render, play_case) -> list[Path]:
    """Regenerate: ``render(case, play_case(case))`` to ``directory/<case.name>.txt``
    for every case, each file written whole or not at all."""
    from vale_sim.io import atomic_write
    directory.mkdir(parents=True, exist_ok=True)
    return [atomic_write(directory / f"{case.name}.txt", render(case, play_case(case)))
            for case in cases]


@dataclass(frozen=True)
class OpenNumber:
    """One open number of a draft rulebook (``Game.open_numbers``; ``vale-sim balance --draft``, vale_sim/draft.py).  ``apply(cs, rules,
    value) -> (cs, rules)`` plays ``value``; ``show(value)`` is its text; ``distance(a,
    b)`` the size of a change (fewest changed numbers, then the smallest change)."""
    key: str
    label: str
    manual: str
    source: str                    # "estimate" (the manual prints X) or "manual"
    criterion: str                 # "enough" or "seats"
    current: Any
    candidates: tuple
    apply: Callable
    show: Callable = str
    distance: Callable = lambda a, b: abs(a - b)
    note: str = ""
