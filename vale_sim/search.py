"""A search player's decision procedure, game-neutral (docs/search.md).

At a decision with ``n`` legal options, the searching player plays the rest of the
game from the current state ``K`` times per option (each playout from a state whose
hidden parts were resampled) with a rollout policy, and takes the option with the
best summed win points.  This module holds what every game and both engines share:

* :func:`rollout_key`: the random stream of rollout ``i`` of decision ``d`` of a game
  (the same for every option of the decision: common random numbers);
* :func:`decide`: the schedule (K each, or successive halving) and the choice, ties
  to the lower option index -- the readable twin of ``vale_sim.kernels.search``;
* :class:`SearchSpec` and :func:`parse_spec`: ``search``, ``search:k=64``,
  ``search:k=16:rollout=balanced:halving=1`` as a policy name (colons: a line-up is a
  comma-separated list), or a policy file with ``kind = "search"``.

A game supplies the rest: its options, how to resample what a player cannot see,
and how to play a rollout (its engines).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from .policy_files import PolicyError
from .rng import GOLDEN, MASK, mix

SALT = 0x5EA2C4B1D0E5A11D
WIN_POINTS = 12                  # 12 / k is whole for k = 1..4 winners
DEFAULT_K = 64
MAX_K = 1 << 16


def rollout_key(key: int, decision: int, i: int) -> int:
    """The stream key of rollout ``i`` of decision ``decision`` of the game keyed ``key``."""
    k = mix(((key ^ SALT) + decision * GOLDEN) & MASK)
    return mix((k + (i + 1) * GOLDEN) & MASK)


def win_points(share: float) -> int:
    """A win share (1/k of a k-way shared win, or 0) as whole points."""
    return int(share * WIN_POINTS + 0.5)


def n_rounds(n: int, halving: bool) -> int:
    return max(1, math.ceil(math.log2(n))) if halving and n > 2 else 1


def round_target(k: int, rounds: int, j: int) -> int:
    return max(1, k >> (rounds - 1 - j))


def decide(n: int, k: int, halving: bool, value: Callable[[int, int], int]):
    """(best option, totals) of a decision with options 0..n-1; ``value(option, i)``
    plays rollout i of the option and returns the searching player's win points."""
    total = [0] * n
    alive = list(range(n))
    rounds = n_rounds(n, halving)
    done = 0
    for j in range(rounds):
        t = round_target(k, rounds, j)
        for o in alive:
            for i in range(done, t):
                total[o] += value(o, i)
        done = t
        if j < rounds - 1:
            keep = (len(alive) + 1) // 2
            ranked = sorted(alive, key=lambda o: (-total[o], o))[:keep]
            alive = sorted(ranked)
    best = min(alive, key=lambda o: (-total[o], o))
    return best, total


@dataclass(frozen=True)
class SearchSpec:
    """A search player's parameters: rollouts per option, the rollout policy (a name or
    file of the game's policies; ``None``: the game's default), the policy the
    rollouts give the opponents (``None``: the rollout policy) and successive halving."""
    k: int = DEFAULT_K
    rollout: str | None = None
    opponents: str | None = None
    halving: bool = False
    decides: tuple | None = None          # the kinds of decision searched (None: all)

    def label(self) -> str:
        parts = [f"k={self.k}"]
        if self.rollout:
            parts.append(f"rollout={self.rollout}")
        if self.opponents:
            parts.append(f"opponents={self.opponents}")
        if self.halving:
            parts.append("halving=1")
        if self.decides is not None:
            parts.append("decide=" + "+".join(self.decides))
        return "search:" + ":".join(parts)


def is_search_spec(spec) -> bool:
    return isinstance(spec, str) and (spec.strip() == "search" or spec.strip().startswith("search:"))


def parse_spec(text: str, default_rollout: str | None = None) -> SearchSpec:
    """``search`` or ``search:key=value:...`` (keys k, rollout, opponents, halving)."""
    text = text.strip()
    if text == "search":
        return SearchSpec(rollout=default_rollout)
    body = text[len("search:"):]
    fields: dict = {"rollout": default_rollout}
    for part in filter(None, (p.strip() for p in body.split(":"))):
        key, sep, val = part.partition("=")
        key, val = key.strip(), val.strip()
        if not sep or not val:
            raise PolicyError(f"policy {text!r}: {part!r} is not key=value; write e.g. "
                            "search:k=64:rollout=optimized-2p:halving=1")
        if key == "k":
            if not val.isdigit() or not 1 <= int(val) <= MAX_K:
                raise PolicyError(f"policy {text!r}: k must be a whole number 1..{MAX_K}, got {val!r}")
            fields["k"] = int(val)
        elif key in ("rollout", "opponents"):
            if is_search_spec(val):
                raise PolicyError(f"policy {text!r}: the {key} policy cannot itself be a search")
            fields[key] = val
        elif key == "halving":
            if val not in ("0", "1", "true", "false", "on", "off"):
                raise PolicyError(f"policy {text!r}: halving must be 0 or 1, got {val!r}")
            fields["halving"] = val in ("1", "true", "on")
        elif key == "decide":
            fields["decides"] = tuple(d.strip() for d in val.split("+") if d.strip())
        else:
            raise PolicyError(f"policy {text!r}: unknown key {key!r}; the keys are k, rollout, "
                            "opponents, halving, decide")
    return SearchSpec(**fields)


def spec_from_table(where: str, data: dict, default_rollout: str | None = None) -> SearchSpec:
    """A policy file's table with ``kind = "search"`` (keys name, k, rollout, opponents,
    halving) as a SearchSpec; PolicyError naming ``where`` and the key otherwise."""
    known = {"kind", "name", "k", "rollout", "opponents", "halving", "decide"}
    for key in data:
        if key not in known:
            raise PolicyError(f"{where}: unknown field {key!r} of a search policy (known: "
                            f"{', '.join(sorted(known))})")
    k = data.get("k", DEFAULT_K)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise PolicyError(f"{where}: field 'k' must be a whole number 1..{MAX_K}, got {k!r}")
    halving = data.get("halving", False)
    if not isinstance(halving, bool):
        raise PolicyError(f"{where}: field 'halving' must be true or false, got {halving!r}")
    out = {}
    for key in ("rollout", "opponents"):
        v = data.get(key)
        if v is not None and (not isinstance(v, str) or not v.strip() or is_search_spec(v)):
            raise PolicyError(f"{where}: field {key!r} must name a scripted policy, got {v!r}")
        out[key] = v
    decide = data.get("decide")
    if decide is not None and (not isinstance(decide, list)
                               or not all(isinstance(d, str) for d in decide)):
        raise PolicyError(f"{where}: field 'decide' must be a list of decision kinds, got "
                          f"{decide!r}")
    return SearchSpec(k=k, rollout=out["rollout"] or default_rollout, opponents=out["opponents"],
                      halving=halving, decides=None if decide is None else tuple(decide))


def committed_cards(policy) -> tuple:
    """The cards a search player buys whenever it can, without searching: those named by
    the ``card`` buy rules at the head of its policy's rule list, before any other rule,
    that have no conditions (the "prefer X" arm of a card-strength run puts X there,
    vale_sim.advancements).  A step at which the policy's own choice is one of them is
    not a decision; the cards of the policy's ``never`` list are never options
    (docs/search.md, "Bans and commitments")."""
    from dataclasses import fields as _fields
    out = []
    for rule in getattr(policy, "rules", ()) or ():
        if rule.target != "card" or any(getattr(rule, f.name) is not None
                                        for f in _fields(rule)[2:]):
            break
        out.append(rule.value)
    return tuple(out)

def install(book, policy_cls, search_cls, default_rollout: str, decision_kinds: tuple):
    """Teach a game's PolicyBook the search player: ``search...`` names (``book.named``)
    and policy files with ``kind = "search"`` (``book.kinds``).  ``search_cls`` is the
    game's SearchPolicy: its Policy's fields (the rollout policy's) and ``search_k``,
    ``search_halving``, ``search_opponents``, ``search_decides``.  Returns
    ``make(spec, name=None)``: a SearchSpec as a SearchPolicy of checked policies."""
    from dataclasses import fields
    from pathlib import Path
    get = book.get

    def make(spec: SearchSpec, name: str | None = None):
        base = get(spec.rollout or default_rollout)
        opp = get(spec.opponents) if spec.opponents else None
        if isinstance(base, search_cls) or isinstance(opp, search_cls):
            raise PolicyError(f"policy {spec.label()!r}: a rollout policy cannot be a search")
        decides = decision_kinds if spec.decides is None else spec.decides
        bad = [d for d in decides if d not in decision_kinds]
        if bad or not decides:
            raise PolicyError(f"policy {spec.label()!r}: decide must be some of "
                              f"{'+'.join(decision_kinds)}, got {bad[0] if bad else 'nothing'!r}")
        values = {f.name: getattr(base, f.name) for f in fields(policy_cls)}
        values["name"] = name or spec.label()
        return search_cls(**values, search_k=spec.k, search_halving=spec.halving,
                          search_opponents=opp,
                          search_decides=tuple(d for d in decision_kinds if d in decides))

    def named(spec):
        if is_search_spec(spec):
            return make(parse_spec(str(spec), default_rollout))
        return None

    def from_file(path, data):
        spec = spec_from_table(str(path), data, default_rollout)
        name = data.get("name", Path(path).stem)
        if not isinstance(name, str) or not name.strip():
            raise PolicyError(f"{path}: field 'name' must be a non-empty string")
        return make(spec, name)

    book.named = named
    book.kinds["search"] = from_file
    return make


def rollout_policy(pol, policy_cls):
    """The scripted policy (of class ``policy_cls``) a search player's own fields are."""
    from dataclasses import fields
    return policy_cls(**{f.name: getattr(pol, f.name) for f in fields(policy_cls)})


def add_bench_options(p) -> None:
    """``vale-sim bench --search``'s options (each game that has a search player names
    a ``bench --search`` study; the options are added once, whichever game asks first)."""
    if any("--search" in a.option_strings for a in p._actions):
        return
    p.add_argument("--search", action="store_true",
                   help="benchmark the search player instead (docs/search.md): decisions/s "
                        "and games/s of 2-player games of search (rollout policy "
                        "--search-rollout) against that policy, at each K of --search-k, "
                        "--games games each (default 4), one core")
    p.add_argument("--search-k", default="16,64,256", metavar="K,K,...",
                   help="with --search: the rollouts per option to time (default 16,64,256)")
    p.add_argument("--search-rollout", default=None, metavar="POLICY",
                   help="with --search: the rollout policy, also the opponent (default: the "
                        "game's strongest bundled 2-player policy, docs/search.md)")


def bench_ks(text: str) -> list:
    """--search-k as whole numbers 1..MAX_K, or UserError."""
    from .errors import UserError
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        ks = []
    if not ks or any(not 1 <= k <= MAX_K for k in ks):
        raise UserError(f"--search-k: give whole numbers 1..{MAX_K} separated by commas, got "
                        f"{text!r} (e.g. --search-k 16,64,256)")
    return ks


def time_search_games(k: int, games: int, play, last_stats) -> dict:
    """The row of ``bench --search`` for K = ``k``: ``play(n, first_game)`` (a game's
    fast-engine run of ``n`` 2-player games of its search player against the rollout
    policy, returning arrays with ``share``) timed on one core after a warm-up game
    (compiling or loading the cache); ``last_stats()`` gives its decision count."""
    import time

    import numba
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        play(1, 10 ** 6)                                                  # warm-up
        t0 = time.perf_counter()
        out = play(games, 0)
        dt = time.perf_counter() - t0
    finally:
        numba.set_num_threads(threads)
    dec = last_stats()["decisions"]
    return {"k": k, "games": games, "seconds": round(dt, 3),
            "seconds_per_game": round(dt / games, 4), "games_per_s": round(games / dt, 3),
            "decisions": dec, "decisions_per_game": round(dec / games, 1),
            "decisions_per_s": round(dec / dt, 1), "search_win_share": float(out.share[:, 0].mean())}


def run_bench(args, default_rollout: str, workload: str, speed, get_policy) -> int:
    """``vale-sim bench --search`` of a game: ``speed(k, games, seed, rollout)`` (the
    game's timing of 2-player games of search:k=K:rollout=P against P) at each K, printed
    as a table or (``--json``) one object.  ``workload`` names the card set;
    ``get_policy`` is the game's (it checks --search-rollout)."""
    import json

    from .errors import UserError
    games = 4 if args.games is None else args.games
    ks = bench_ks(args.search_k)
    rollout = args.search_rollout or default_rollout
    try:
        get_policy(rollout)
    except ValueError as e:
        raise UserError(f"--search-rollout: {e}") from None
    rows = [speed(k, games, args.seed, rollout) for k in ks]
    if args.json:
        print(json.dumps({"rollout": rollout, "players": 2, "runs": rows}))
        return 0
    print(f"search player: 2-player games, {workload}, search:k=K:rollout={rollout} "
          f"against {rollout}, seed {args.seed}, one core, after a warm-up game")
    print(f"{'K':>5} {'games':>5} {'s/game':>8} {'games/s':>8} {'decisions/game':>15} "
          f"{'decisions/s':>12}")
    for r in rows:
        print(f"{r['k']:>5} {r['games']:>5} {r['seconds_per_game']:>8.3f} {r['games_per_s']:>8.2f} "
              f"{r['decisions_per_game']:>15.1f} {r['decisions_per_s']:>12.1f}")
    print("(wall-clock time of this machine; the search's win share in these few games is "
          "not a measurement: docs/search.md)")
    return 0
