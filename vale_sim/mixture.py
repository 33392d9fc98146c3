"""Mixed fields: a policy that is a weighted mixture of policies, drawn per deal
(docs/meta.md §6b, docs/policies.md "Mixtures").

A mixture file is a policy file with ``kind = "mixture"``::

    kind = "mixture"
    name = "meta-3p"            # default: the file's stem
    draw = "deal"               # or "seat" (default "deal")
    [[member]]
    policy = "br1.toml"         # a policy name or file (relative: to this file's folder)
    weight = 0.6
    [[member]]
    policy = "balanced"
    weight = 0.4

It loads (``Game.get_policy``, so ``--baseline FILE``, ``--policy FILE`` and bundled
names) as a :class:`Mixture`, which every run accepts wherever a policy goes.  Game
``i`` of a run of seed ``s`` plays the members drawn by :func:`draws`: the uniform
``u`` of ``SeedSequence([s, MIXTURE_TAG, i, crc32(key), stream])`` (``key``: its name) picks member
``k`` with ``cum[k-1] <= u < cum[k]`` (``cum``: the cumulative weights).  The draw
depends only on the run's seed, the game (deal) index, the mixture's name and its
stream, never on the workers, the chunking or the engine; the seatings of one deal
share a game index, so they share the draw.

* ``draw = "deal"``: one member per deal plays every seat the mixture holds (the
  meta-game's field, docs/meta.md §2: ``P - 1`` copies of one drawn policy).
* ``draw = "seat"``: the seat at player index ``j`` draws its own member (element
  ``j`` of the same sequence's state).

A mixture used as the **focal** player of a focal/field comparison
(:func:`vale_sim.tournament.focal_shares`, so the card-strength, what-if and
balance studies) draws from stream :data:`FOCAL_STREAM`, independent of the field's
(stream 0): a room where the focal player and the field each play a policy drawn
from the mixture.  Arms derived from a mixture (:func:`map_members`: prefer X,
ban X of every member) keep its draw key and stream, so the arms of one deal draw
the same member (paired by deal).

The results frame names the mixture in its ``policy`` column (not the member).
"""
from __future__ import annotations

import dataclasses
import math
import zlib
from dataclasses import dataclass
from pathlib import Path

from .errors import UserError

#: ``SeedSequence([seed, MIXTURE_TAG, game_index, crc32(key), stream])``: the draws.
MIXTURE_TAG = 0x6D6978
#: How the seats a mixture holds draw their members.
DRAWS = ("deal", "seat")
#: The stream of a mixture in the focal role (the field's is 0).
FOCAL_STREAM = 1
#: Fast engine: games between two runs of one line-up played (and dropped) rather
#: than starting another engine call (a call costs about as much as 50 games).
GAP_GAMES = 32
KIND = "mixture"
MAX_FILE_BYTES = 1_000_000          # as vale_sim.policy_files


class MixtureError(UserError, ValueError):
    """A bad mixture file or object (one line naming the file, the item and the fix): a
    UserError (the CLI prints it, exit 2) and a ValueError (as the games' policy errors)."""


@dataclass(frozen=True)
class Mixture:
    """A mixed field: ``members`` (policies of one game) with ``weights`` (> = 0,
    summing to 1), drawn per deal (``draw = "deal"``) or per seat (``"seat"``).
    ``stream``: which draw sequence (0 field, 1 focal: :func:`as_focal`)."""
    name: str
    members: tuple
    weights: tuple
    draw: str = "deal"
    stream: int = 0
    key: str | None = None      # what the draws hash (default: the name); arms keep it

    def __post_init__(self):
        if self.key is None:
            object.__setattr__(self, "key", self.name)
        where = f"mixture {self.name!r}"
        if not isinstance(self.name, str) or not self.name.strip():
            raise MixtureError(f"mixture name must be a non-empty string, got {self.name!r}")
        if not self.members or len(self.members) != len(self.weights):
            raise MixtureError(f"{where}: give one weight per member (at least one member)")
        if any(isinstance(m, Mixture) for m in self.members):
            raise MixtureError(f"{where}: a member cannot be a mixture (list its members)")
        if self.draw not in DRAWS:
            raise MixtureError(f"{where}: draw must be one of {', '.join(DRAWS)}, "
                               f"got {self.draw!r}")
        if abs(sum(self.weights) - 1) > 1e-9 or min(self.weights) < 0:
            raise MixtureError(f"{where}: weights must be >= 0 and sum to 1 "
                               f"(use mixture() to normalise)")

    @property
    def cumulative(self):
        import numpy as np
        c = np.cumsum(np.asarray(self.weights, float))
        c[-1] = 1.0
        return c


def mixture(name: str, members, weights, draw: str = "deal") -> Mixture:
    """A :class:`Mixture`, the weights (numbers >= 0, not all 0) normalised to sum 1."""
    where = f"mixture {name!r}"
    w = list(weights)
    for x in w:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0:
            raise MixtureError(f"{where}: a weight must be a finite number >= 0, got {x!r}")
    total = float(sum(w))
    if not w or total <= 0:
        raise MixtureError(f"{where}: give at least one member with a weight > 0")
    return Mixture(name, tuple(members), tuple(float(x) / total for x in w), draw)


def is_mixture(pol) -> bool:
    return isinstance(pol, Mixture)


def as_focal(pol):
    """``pol`` in the focal role: a mixture draws from :data:`FOCAL_STREAM`."""
    return dataclasses.replace(pol, stream=FOCAL_STREAM) if is_mixture(pol) else pol


def map_members(pol, f):
    """``f(pol)`` for a policy; for a mixture, the mixture of ``f(member)`` with the same
    weights, draw, stream and draw key (so its draws are the original's).  Its name is
    the mixture's with what ``f`` appends to the first member's name (``meta-2p`` and
    ``br1`` -> ``br1+prefer X``: ``meta-2p+prefer X``), else the mixture's."""
    if not is_mixture(pol):
        return f(pol)
    members = tuple(f(m) for m in pol.members)
    first, new = pol.members[0].name, members[0].name
    name = pol.name + new[len(first):] if new.startswith(first) else pol.name
    return dataclasses.replace(pol, name=name, members=members)


def heaviest(pol):
    """A mixture's member of the largest weight (the first of equal ones); a policy itself."""
    if not is_mixture(pol):
        return pol
    return pol.members[max(range(len(pol.weights)), key=lambda i: (pol.weights[i], -i))]


def members_of(policies) -> list:
    """Every concrete policy of ``policies``: a mixture's members in its place."""
    out = []
    for p in policies:
        out.extend(p.members if is_mixture(p) else [p])
    return out


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------
def from_table(path, data: dict, get_policy) -> Mixture:
    """The mixture of a parsed mixture file (``data``: its TOML, ``kind = "mixture"``);
    ``get_policy`` resolves the members (a policy name, or a file relative to ``path``'s
    folder).  MixtureError (one line naming the file and the item) otherwise."""
    path = Path(path)
    known = {"kind", "name", "draw", "member"}
    for k in data:
        if k not in known:
            raise MixtureError(f"{path}: unknown field {k!r} of a mixture (known: "
                               f"{', '.join(sorted(known))})")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise MixtureError(f"{path}: field 'name' must be a non-empty string")
    draw = data.get("draw", "deal")
    if draw not in DRAWS:
        raise MixtureError(f"{path}: field 'draw' must be one of {', '.join(DRAWS)}, "
                           f"got {draw!r}")
    rows = data.get("member")
    if not isinstance(rows, list) or not rows:
        raise MixtureError(f"{path}: a mixture needs [[member]] tables, each with policy = "
                           f"\"NAME or FILE\" and weight = NUMBER")
    members, weights = [], []
    for i, r in enumerate(rows, 1):
        where = f"{path}: member {i}"
        if not isinstance(r, dict):
            raise MixtureError(f"{where}: must be a table (write [[member]])")
        extra = set(r) - {"policy", "weight"}
        if extra:
            raise MixtureError(f"{where}: unknown field {sorted(extra)[0]!r} (use policy "
                               f"and weight)")
        spec, w = r.get("policy"), r.get("weight")
        if not isinstance(spec, str) or not spec.strip():
            raise MixtureError(f"{where}: policy must be a policy name or file (a string)")
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) \
                or w < 0:
            raise MixtureError(f"{where}: weight must be a number >= 0, got {w!r}")
        if spec.endswith(".toml") and not Path(spec).is_absolute():
            spec = str(path.parent / spec)
        if spec.endswith(".toml") and Path(spec).resolve() == path.resolve():
            raise MixtureError(f"{where}: a mixture cannot contain itself")
        try:
            pol = get_policy(spec)
        except MixtureError:
            raise
        except ValueError as e:
            raise MixtureError(f"{where}: {e}") from None
        if is_mixture(pol):
            raise MixtureError(f"{where}: {spec} is a mixture; a member must be one policy "
                               f"(list its members here)")
        members.append(pol)
        weights.append(w)
    if sum(weights) <= 0:
        raise MixtureError(f"{path}: every weight is 0; give at least one member a weight > 0")
    return mixture(name, members, weights, draw)


def read_kind(spec):
    """The parsed TOML of ``spec`` when it is a readable ``.toml`` file whose ``kind`` is
    "mixture", else None (the game's own loader then reads it and reports its errors)."""
    if not isinstance(spec, (str, Path)) or not str(spec).endswith(".toml"):
        return None
    p = Path(spec)
    if not p.is_file():
        return None
    from .inputs import read_policy_toml
    try:
        data = read_policy_toml(p, MixtureError, MAX_FILE_BYTES)
    except MixtureError:
        return None
    return data if data.get("kind") == KIND else None


def with_mixtures(get_policy):
    """``get_policy`` of a game, also taking mixtures: a :class:`Mixture` passes through,
    a mixture file loads (its members through ``get_policy``).  Idempotent."""
    if getattr(get_policy, "takes_mixtures", False):
        return get_policy

    def get(spec):
        if is_mixture(spec):
            return spec
        data = read_kind(spec)
        if data is not None:
            return from_table(spec, data, get)
        return get_policy(spec)
    get.takes_mixtures = True
    get.__wrapped__ = get_policy
    get.__doc__ = get_policy.__doc__
    return get


def checking_mixtures(check_policies):
    """``check_policies(cs, policies)`` of a game, checking a mixture's members.  Returns
    the policies as given (mixtures kept).  Idempotent."""
    if getattr(check_policies, "takes_mixtures", False):
        return check_policies

    def check(cs, policies):
        policies = list(policies)
        if any(is_mixture(p) for p in policies):
            check_policies(cs, members_of(policies))
            return policies
        return check_policies(cs, policies)
    check.takes_mixtures = True
    check.__wrapped__ = check_policies
    check.__doc__ = check_policies.__doc__
    return check


# ---------------------------------------------------------------------------
# Draws
# ---------------------------------------------------------------------------
def _states(mix: Mixture, seed: int, games, k: int):
    import numpy as np
    key = zlib.crc32(mix.key.encode())
    return np.array([np.random.SeedSequence([int(seed), MIXTURE_TAG, int(i), key, mix.stream])
                     .generate_state(k, dtype=np.uint64) for i in games], dtype=np.uint64
                    ).reshape(len(games), k)


def uniforms(mix: Mixture, seed: int, games, k: int = 1):
    """``(len(games), k)`` uniforms in [0, 1) of ``mix``'s draw sequence for games ``games``."""
    import numpy as np
    games = list(games)
    if not games:
        return np.zeros((0, k))
    return (_states(mix, seed, games, k) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def draws(mix: Mixture, seed: int, games, players: int = 1):
    """The member index per game (``draw = "deal"``: shape ``(n,)``) or per game and
    player index (``"seat"``: ``(n, players)``) of games ``games`` of seed ``seed``."""
    games = list(games)
    if mix.draw == "deal":
        u = uniforms(mix, seed, games, 1)[:, 0]
    else:
        u = uniforms(mix, seed, games, players)
    import numpy as np
    idx = np.searchsorted(mix.cumulative, u, side="right")
    return np.minimum(idx, len(mix.members) - 1)


def assignments(policies, seed: int, games):
    """``(n, P)`` member index of each player in each game (-1: not a mixture)."""
    import numpy as np
    games = list(games)
    P = len(policies)
    out = np.full((len(games), P), -1, dtype=np.int64)
    done = {}
    for j, p in enumerate(policies):
        if not is_mixture(p):
            continue
        if p not in done:
            done[p] = draws(p, seed, games, P)
        d = done[p]
        out[:, j] = d if d.ndim == 1 else d[:, j]
    return out


def lineup_for_game(policies, seed: int, game_index: int) -> list:
    """The concrete policies of game ``game_index``: each mixture replaced by its draw."""
    a = assignments(policies, seed, [game_index])[0]
    return [p.members[a[j]] if a[j] >= 0 else p for j, p in enumerate(policies)]


def _segments(idx: list, gap: int) -> list[tuple[int, int]]:
    """Runs ``(first, last)`` covering the sorted game indices ``idx``, joining runs whose
    gap is at most ``gap`` games."""
    out = []
    for i in idx:
        if out and i - out[-1][1] - 1 <= gap:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def play_chunk(g, cs, players: int, seed: int, first: int, n: int, policies, rules,
               fast: bool):
    """Games ``first .. first+n-1`` with mixtures among ``policies`` (concrete members
    drawn per game by :func:`assignments`): the frame the engines give for the drawn
    line-ups, in game then player order, the ``policy`` column naming the mixture."""
    import numpy as np
    import pandas as pd
    games = list(range(first, first + n))
    a = assignments(policies, seed, games)
    groups: dict = {}
    for i, row in zip(games, map(tuple, a)):
        groups.setdefault(row, []).append(i)
    frames = []
    for row, idx in groups.items():
        concrete = [p.members[k] if k >= 0 else p for p, k in zip(policies, row)]
        if fast:
            want = np.asarray(idx)
            for lo, hi in _segments(idx, GAP_GAMES):
                df = g.run_fast(cs, players, seed, hi - lo + 1, concrete, rules, first_game=lo)
                frames.append(df[np.isin(df["game"].to_numpy(), want)])
        else:
            frames.append(g.results_frame(
                [g.play_reference(cs, players, seed, i, concrete, rules) for i in idx], cs))
    df = pd.concat(frames, ignore_index=True)
    df = df.sort_values(["game", "player"], kind="stable").reset_index(drop=True)
    names = np.array([p.name for p in policies], dtype=object)
    mixed = np.array([is_mixture(p) for p in policies])
    player = df["player"].to_numpy()
    col = df["policy"].astype(object).to_numpy()
    df["policy"] = np.where(mixed[player], names[player], col)
    return df


def file_text(name: str, members, draw: str = "deal", header: str = "") -> str:
    """A mixture file (``kind = "mixture"``) of ``members``: ``(policy name or file,
    weight)`` pairs (a relative file: relative to the mixture file's folder); ``header``
    becomes ``#`` comment lines at the top."""
    import json
    if draw not in DRAWS:
        raise MixtureError(f"mixture {name!r}: draw must be one of {', '.join(DRAWS)}")
    lines = [f"# {ln}" if ln else "#" for ln in header.splitlines()]
    lines += [f"kind = {json.dumps(KIND)}", f"name = {json.dumps(name)}",
              f"draw = {json.dumps(draw)}"]
    for spec, w in members:
        lines += ["", "[[member]]", f"policy = {json.dumps(str(spec))}", f"weight = {float(w)!r}"]
    return "\n".join(lines) + "\n"
