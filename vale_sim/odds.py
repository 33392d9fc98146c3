"""What the games' bad-turn odds studies share (the spoil odds, docs/spoil-odds.md,
and the wither odds, docs/wither-odds.md; each in its game's package).

Both answer "if I go on now, how likely is my turn to go bad, and what do I get
if I stop after k more cards?" for a deck, exactly (over card-type compositions)
and by simulation, and find the best go-on/stop rule.  Game-neutral here:

* deck files: a bundled name or a ``.toml`` path, read with one-line
  :class:`DeckError` messages (:func:`deck_path`, :func:`read_deck_file`,
  :func:`check_fields`, :func:`set_spec`, :func:`deck_name`, :func:`name_list`,
  :func:`positive_count`);
* the limit on an exact computation (:class:`TooManyStates`);
* simulation standard errors (:func:`rate_se`, :func:`mean_se`) and the JSON
  fields every result and best rule has (:class:`OddsResult`, :class:`StoppingRule`);
* the best-rule driver (:func:`best_stopping_rule`): backward induction over a
  game's states, the fixed "go on exactly k times" rules and the rule's table
  along the states it meets.

A game supplies its model (states, transitions, payoffs); the numbers it gets
back are the ones its own loops computed before (the same sums in the same
order).
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .inputs import InputFileError, read_toml
from .io import jsonable


class DeckError(ValueError):
    """A deck (bundled name or file) cannot be read.  The message is one line."""


class TooManyStates(RuntimeError):
    """The exact computation would visit more states than allowed (``max_states``)."""

    def __init__(self, deck: str, max_states: int):
        self.deck, self.max_states = deck, max_states
        super().__init__(f"deck {deck!r} needs more than {max_states:,} states for an exact "
                         f"answer: use --simulate, or raise --max-states")


# ---------------------------------------------------------------------------
# Deck files
# ---------------------------------------------------------------------------
def deck_path(spec, decks_dir: Path, names) -> Path:
    """The file of deck ``spec``: a bundled name (``decks_dir/NAME.toml``) or a path.
    ``names``: the bundled names, for the message when it is neither."""
    text = str(spec)
    path = Path(text)
    if not path.suffix and not path.exists() and (decks_dir / f"{text}.toml").is_file():
        path = decks_dir / f"{text}.toml"
    if not path.exists():
        raise DeckError(f"unknown deck {text!r}: use one of {', '.join(names)} "
                        f"or the path of a deck .toml file")
    return path


def read_deck_file(path: Path) -> dict:
    """The TOML of a deck file; a missing, unreadable or malformed one is a DeckError."""
    try:
        return read_toml(path, "deck file")
    except InputFileError as e:
        raise DeckError(str(e).splitlines()[0]) from None


def check_fields(data: dict, known, where) -> None:
    """DeckError naming the first key of ``data`` not in ``known``."""
    for k in data:
        if k not in known:
            raise DeckError(f"{where}: unknown field {k!r} (known: {', '.join(sorted(known))})")


def set_spec(data: dict, where, default, suffixes=(".toml",)):
    """The deck's card set: its ``set`` field (a file relative to the deck file's
    folder), else ``default``."""
    spec = data.get("set", default)
    if isinstance(spec, str) and isinstance(where, Path) and spec.endswith(tuple(suffixes)):
        spec = str(where.parent / spec)
    return spec


def deck_name(data: dict, where) -> str:
    """The deck's ``name`` field, else its file's stem."""
    name = data.get("name", Path(str(where)).stem)
    if not isinstance(name, str) or not name:
        raise DeckError(f"{where}: field 'name' must be a non-empty string")
    return name


def check_base(data: dict, where):
    """The ``base`` field: absent (None) or "starter"."""
    base = data.get("base")
    if base not in (None, "starter"):
        raise DeckError(f"{where}: field 'base': only \"starter\" is known, got {base!r}")
    return base


def card_entries(data: dict, where) -> list:
    """The ``[[cards]]`` tables (a list, possibly empty)."""
    raw = data.get("cards", [])
    if not isinstance(raw, list):
        raise DeckError(f"{where}: 'cards' must be a list of tables ([[cards]])")
    return raw


def name_list(where, v, what: str) -> list:
    """``v`` if it is a list of names (strings), else DeckError."""
    if not isinstance(v, list) or not all(isinstance(n, str) for n in v):
        raise DeckError(f"{where}: {what} must be a list of names")
    return v


def positive_count(where, entry: dict) -> int:
    """A card entry's ``count`` (default 1): a positive integer."""
    count = entry.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise DeckError(f"{where}: count must be a positive integer")
    return count


def vale_ids(cs, where, names) -> tuple:
    """The ids of the named Vales of card set ``cs`` (DeckError for an unknown name)."""
    out = []
    for v in name_list(where, names, "vales"):
        try:
            out.append(cs.vale_id(v))
        except KeyError as e:
            raise DeckError(f"{where}: vales: {e.args[0]}") from None
    return tuple(out)


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------
def rate_se(p: float, n: int) -> float:
    """The standard error sqrt(p(1-p)/n) of a rate over n trials."""
    return math.sqrt(p * (1 - p) / n)


def mean_se(s1: float, s2: float, n: int):
    """(mean, standard error s/sqrt(n)) from the sum and the sum of squares of n
    values (s the sample standard deviation); (None, None) for n = 0."""
    if not n:
        return None, None
    mean = s1 / n
    var = max(0.0, s2 / n - mean ** 2) * n / max(1, n - 1)
    return mean, math.sqrt(var / n)


@dataclass(kw_only=True)
class OddsResult:
    """What every odds result has besides its game's own fields: the deck, the method
    ("exact" or "simulated"), the states and seconds of an exact answer, the games,
    seed and standard errors (``se``, keyed as the estimates) of a simulated one."""
    deck: str
    method: str
    states: int = 0
    seconds: float = 0.0
    games: int = 0
    seed: int | None = None
    se: dict = field(default_factory=dict)

    def method_fields(self) -> dict:
        """The JSON fields the method adds."""
        if self.method == "exact":
            return {"states": self.states, "seconds": round(self.seconds, 4)}
        return {"games": self.games, "seed": self.seed, "standard_errors": jsonable(self.se)}


@dataclass(kw_only=True)
class StoppingRule:
    """The best go-on/stop rule for a goal (:func:`best_stopping_rule`): its value,
    its table of states met (``table``), and the states and seconds it took.  Each
    game adds the values of the fixed rules under its own name."""
    goal: str
    target: int | None
    horizon: int
    value: float
    table: list
    states: int
    seconds: float

    def _dict(self, fixed_name: str, fixed: dict) -> dict:
        return {"goal": self.goal, "target": self.target, "horizon": self.horizon,
                "value": float(self.value), fixed_name: by_k(fixed),
                "states": self.states, "seconds": round(self.seconds, 4),
                "summary": self.summary()}


def by_k(values: dict, f=float, keep=lambda k: True) -> dict:
    """``{str(k): f(v)}`` of a per-k mapping (JSON keys are strings)."""
    return {str(k): f(v) for k, v in values.items() if keep(k)}


# ---------------------------------------------------------------------------
# The best go-on/stop rule
# ---------------------------------------------------------------------------
def best_stopping_rule(start: dict, horizon: int, zero, stop_value, steps, can_go, end_value,
                       row_key, words=("go", "stop"), memo=None, first_forced=False):
    """Backward induction for the rule "go on (play one more card) or stop" that
    maximises the expected ``stop_value``, over at most ``horizon`` more cards.

    ``start``: {state: probability}.  ``steps(state)``: the outcomes of going on,
    a list of (probability, ended, next state); an ended turn (spoiled, Withered)
    is worth ``end_value(next state)``.  ``can_go(state)``: whether going on is
    possible there.  Ties stop.  ``first_forced``: the first card is always played
    (e.g. the first play of a Night), so k counts from 1.

    Returns ``(value, fixed, rows)``: the optimal rule's value from ``start``;
    ``fixed[k]``, the value of "go on exactly k times (while possible)"; and
    ``rows``, {(k, *row_key(state), P(next card ends the turn), decision word):
    P(the rule meets that state)} over the states the rule meets."""
    memo = {} if memo is None else memo
    go_word, stop_word = words

    def go_value(key, h):
        return sum((q * (end_value(k2) if ended else value(k2, h - 1))
                    for q, ended, k2 in steps(key)), zero)

    def value(key, h):
        mk = (key, h)
        v = memo.get(mk)
        if v is None:
            v = stop_value(key)
            if h > 0 and can_go(key):
                v = max(v, go_value(key, h))
            memo[mk] = v
        return v

    first = go_value if first_forced else value
    best = sum((p * first(k, horizon) for k, p in start.items()), zero)
    # the fixed "go on k times" rules, for comparison
    fixed = {}
    dist, ended_mass = dict(start), defaultdict(lambda: zero)
    for k in range(1 if first_forced else 0, horizon + 1):
        if k:
            nxt: dict = defaultdict(lambda: zero)
            for key, p in dist.items():
                if not can_go(key):
                    nxt[key] += p
                    continue
                for q, ended, k2 in steps(key):
                    (ended_mass if ended else nxt)[k2] += p * q
            dist = dict(nxt)
        fixed[k] = sum((p * v for v, p in
                        [(stop_value(key), p) for key, p in dist.items()]
                        + [(end_value(key), p) for key, p in ended_mass.items()]), zero)
    # the rule along the states it meets
    rows: dict = defaultdict(lambda: zero)
    frontier = dict(start)
    if first_forced:
        frontier = defaultdict(lambda: zero)
        for key, p in start.items():
            for q, ended, k2 in steps(key):
                if not ended:
                    frontier[k2] += p * q
    for k in range(1 if first_forced else 0, horizon + 1):
        nxt = defaultdict(lambda: zero)
        h = horizon - k
        for key, p in frontier.items():
            goes = h > 0 and can_go(key) and go_value(key, h) > stop_value(key)
            risk = (sum((q for q, ended, _ in steps(key) if ended), zero)
                    if can_go(key) else zero)
            rows[(k, *row_key(key), float(risk), go_word if goes else stop_word)] += p
            if goes:
                for q, ended, k2 in steps(key):
                    if not ended:
                        nxt[k2] += p * q
        frontier = nxt
    return best, fixed, rows


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------
def plot_risk_curves(results, ax, ks_of, p_of, err_of, label_of, xlabel: str, ylabel: str,
                     title: str, legend: dict | None = None):
    """P(the turn went bad within k cards) against k, one line per result:
    ``ks_of(res)`` the k values, ``p_of(res, k)`` the probability, ``err_of(res,
    ks)`` the error bars (None for an exact result), ``label_of(res)`` the legend
    label.  A new 6 x 4 figure when ``ax`` is None; returns the axes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    for res in results:
        ks = ks_of(res)
        ps = [float(p_of(res, k)) for k in ks]
        err = err_of(res, ks)
        if err:
            ax.errorbar(ks, ps, yerr=err, marker="o", capsize=3, label=label_of(res))
        else:
            ax.plot(ks, ps, marker="o", label=label_of(res))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(**(legend or {}))
    return ax
