"""The skill ladder: how much does good play matter? (issue 26; docs/skill-ladder.md)

A matchup matrix of policies of increasing strength on common deals, for one game
and player count, with the first player's win rate at each level.  Shared by every
game: it reaches a game only through the registry (:func:`vale_sim.games.get_game`)
and plays through :class:`vale_sim.optimize.GameObjective` (the fast engine when the
game has one) and :func:`vale_sim.tournament.play_frame`.

**Levels**, weakest first, one *kind* after the other (:data:`LEVEL_KINDS`; a kind
with nothing for a game is left out and the ladder says so):

* ``random`` -- the game's default policy buying at random (``explore_permille =
  1000``), when the game's policy has that field;
* ``preset`` -- the game's presets (``Game.presets``) in their listed order, except
  ``lookahead`` and the bundled fields named ``optimized-{N}p`` / ``meta-{N}p``,
  which have levels of their own;
* ``lookahead`` -- the preset of that name, when the game has it;
* ``optimized`` -- ``optimized-{P}p``, when the game bundles it;
* ``added`` -- any policies given by name or file (``extra``: e.g. a search player
  at several budgets), in the order given;
* ``best response`` -- the best responses ``br*`` of a ``vale-sim meta`` run
  (``meta_dir``), in the run's order;
* ``other count`` -- the bundled fields of the other player counts (``optimized-{N}p``,
  ``meta-{N}p`` for ``N != P``): strong policies the meta run at ``P`` may not have
  met, a check on its equilibrium;
* ``mixture`` -- that run's equilibrium mixture (``mixture.json``).

To add a kind of level for every game, insert ``(kind, provider)`` into
:data:`LEVEL_KINDS` at its place; ``provider(game, players, card_set, options)``
returns ``[(label, policy), ...]``.

**The matrix**: cell (row i, column j) is the win share of ONE player of level i
against ``P - 1`` players of level j, every seat of every deal (the ``P`` seat
rotations), on the same ``deals`` deals of one seed for every cell, with a 95%
interval clustered by deal (:func:`vale_sim.stats.cluster_rate`).  A level against
itself is exactly ``1/P`` (every seat of every deal holds the same policy) and is
marked ``exact``.  The mixture as a row: the weighted sum of its members' shares
(the expected share of a member drawn per deal); as a column: the row against a
field of one member drawn per deal.  The first player's win rate of a level: every
player of that level, the win share of the starting player (seat 1) over one game
per deal (``1/P`` = no seat advantage).

Files: :func:`bundled_path` (``<game package>/data/meta/skill-ladder-{game}-{P}p.json``),
checked by :func:`check_ladder` (a damaged file is one line naming it and the fix);
the report section's parts: :func:`section_parts`.
"""
from __future__ import annotations

import importlib
import json
import re
import time
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pandas as pd

from . import stats
from .errors import UserError
from .policy_files import policy_digest

#: The ``format`` field of a ladder file.
FORMAT = "vale-sim skill ladder"
#: SeedSequence([seed, 11]): the ladder's deals.
LADDER_TAG = 11
#: Presets that are bundled fields of another level (not listed as presets).
FIELD_NAME = re.compile(r"(optimized|meta)-\d+p")
#: The script that writes ladder files (its command is recorded in each).
SCRIPT = "experiments/skill_ladder.py"
FILE_NAME = "skill-ladder-{game}-{players}p.json"


# ---------------------------------------------------------------------------
# Levels
# ---------------------------------------------------------------------------
def _random(g, players, cs, opts):
    base = g.resolve_baseline(g.default_policy, players, cs)
    if "explore_permille" not in {f.name for f in fields(base)}:
        return []
    return [("random", replace(base, name="random", explore_permille=1000))]


def _presets(g, players, cs, opts):
    return [(name, g.resolve_baseline(name, players, cs)) for name in g.presets
            if name != "lookahead" and not FIELD_NAME.fullmatch(name)]


def _lookahead(g, players, cs, opts):
    return ([("lookahead", g.resolve_baseline("lookahead", players, cs))]
            if "lookahead" in g.presets else [])


def _optimized(g, players, cs, opts):
    try:
        return [(f"optimized-{players}p", g.resolve_baseline("optimized-{P}p", players, cs))]
    except ValueError:                   # the game bundles no optimised bot
        return []


def _added(g, players, cs, opts):
    out = []
    for spec in opts.get("extra") or ():
        try:
            pol = g.resolve_baseline(spec, players, cs)
        except ValueError as e:
            raise UserError(f"--level {spec}: {e}") from None
        label = (Path(spec).stem if isinstance(spec, str) and spec.endswith(".toml")
                 else spec if isinstance(spec, str) else getattr(pol, "name", str(spec)))
        out.append((label, pol))
    return out


def _meta_manifest(meta_dir) -> dict:
    from .io import read_manifest
    m = read_manifest(Path(meta_dir) / "mixture.json")
    if not m or not isinstance(m.get("files"), dict) or not isinstance(m.get("mixture"), dict):
        raise UserError(f"--meta {meta_dir}: no mixture.json of vale-sim meta in it (give the "
                        f"--out folder of a vale-sim meta run)")
    return m


def _best_responses(g, players, cs, opts):
    meta_dir = opts.get("meta_dir")
    if meta_dir is None:
        return []
    m = _meta_manifest(meta_dir)
    return [(name, g.get_policy(str(Path(meta_dir) / f))) for name, f in m["files"].items()
            if name.startswith("br")]


def _other_counts(g, players, cs, opts):
    out = []
    for base in ("optimized", "meta"):
        for n in g.players:
            if n != players:
                try:
                    out.append((f"{base}-{n}p", g.resolve_baseline(f"{base}-{n}p", players, cs)))
                except ValueError:       # not bundled for this game
                    pass
    return out


#: (kind, provider) weakest first; see the module docstring.
LEVEL_KINDS = [("random", _random), ("preset", _presets), ("lookahead", _lookahead),
               ("optimized", _optimized), ("added", _added),
               ("best response", _best_responses), ("other count", _other_counts)]
#: Why a game has no level of a kind (the report says so).
WHY_MISSING = {"random": "the game's policy has no random-buying field (explore_permille)",
               "lookahead": "the game has no lookahead preset",
               "optimized": "the game bundles no optimized-{P}p policy",
               "best response": "no vale-sim meta run was given (--meta)",
               "other count": "the game bundles no optimized-{{N}}p / meta-{{N}}p field for "
                              "another player count"}


def why_missing(kind: str, record: dict, players: int) -> str:
    """Why a ladder has no level of ``kind``: a meta run that was given but added no best
    response (its field is a member it started with) is not a missing run."""
    if kind == "best response" and record.get("meta"):
        return (f"the meta run ({record['meta']}) added no best response: its field is a "
                "member of the population it started with")
    return WHY_MISSING[kind].format(P=players)


#: Every kind a ladder file may name (the mixture is the last level, not a provider).
KINDS = tuple(k for k, _ in LEVEL_KINDS) + ("mixture",)


def levels(g, players: int, meta_dir=None, cs=None, extra=()) -> tuple[list, dict | None]:
    """``[(label, policy, kind)]`` weakest first and the meta mixture ``{member: (weight,
    policy)}`` (None without ``meta_dir``)."""
    opts = {"meta_dir": meta_dir, "extra": tuple(extra)}
    out = []
    for kind, provider in LEVEL_KINDS:
        out += [(label, pol, kind) for label, pol in provider(g, players, cs, opts)]
    mixture = None
    if meta_dir is not None:
        m = _meta_manifest(meta_dir)
        mixture = {name: (float(w), g.get_policy(str(Path(meta_dir) / m["files"][name])))
                   for name, w in m["mixture"].items() if w > 1e-9}
    return out, mixture


# ---------------------------------------------------------------------------
# The ladder
# ---------------------------------------------------------------------------
def _progress(total: int, show: bool):
    if not show:
        return None
    import sys
    from tqdm.auto import tqdm
    return tqdm(total=total, desc="skill ladder", unit="game", file=sys.stderr,
                mininterval=2.0)


#: A checkpoint is written at most this often (and when the run is interrupted).
CHECKPOINT_SECONDS = 15.0


def _checkpoint_key(game, players, deals, seed_l, engine, cs, pols) -> str:
    """What the matchups' games depend on: a checkpoint of other settings is not used."""
    import hashlib
    text = json.dumps([game, players, deals, seed_l, engine, cs.digest(),
                       [repr(p) for p in pols]])
    return hashlib.sha256(text.encode()).hexdigest()


def _load_checkpoint(path, key, players, deals) -> dict:
    """The matchups a checkpoint of the same settings holds ({} if none or other)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["key"]) != key:
                return {}
            out = {}
            for i, j in z["pairs"].reshape(-1, 2):
                a = z[f"s{i}_{j}"]
                if a.shape == (players, deals):
                    out[(int(i), int(j))] = a
            return out
    except (OSError, ValueError, KeyError, EOFError):
        return {}


def is_checkpoint(path) -> bool:
    """``path`` is a checkpoint of :func:`ladder` (of any settings)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return {"key", "pairs"} <= set(z.files)
    except (OSError, ValueError, EOFError):
        return False


def _save_checkpoint(path, key, sh) -> None:
    from .io import atomic_path
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            np.savez(f, key=np.array(key), pairs=np.array(sorted(sh), dtype=np.int64),
                     **{f"s{i}_{j}": np.asarray(v, float) for (i, j), v in sh.items()})


def ladder(game: str, players: int, deals: int, seed: int, meta_dir=None, engine="fast",
           extra=(), progress: bool = False, workers: int = 1, checkpoint=None) -> dict:
    """The ladder of ``game`` at ``players`` players on ``deals`` deals of ``seed``
    (the file's content, :func:`check_ladder`'s format).  ``checkpoint``: a file that
    keeps the matchups played so far when the run is interrupted (and every
    :data:`CHECKPOINT_SECONDS`); a run with the same settings and policies starts from
    it and gives the same result.  The caller removes it when done."""
    from . import optimize as opt
    from .games import get_game
    from .tournament import play_frame
    g = get_game(game)
    t0 = time.time()
    obj = opt.GameObjective(None, players, deals, None, engine, workers, None, g.name)
    lv, mixture = levels(g, players, meta_dir, obj.cs, extra)
    pols = [p for _, p, _ in lv]
    # mixture members: the level that plays the same policy, else a policy of their own
    member_at, mix_w, allp = [], [], list(pols)
    for w, p in ([] if mixture is None else mixture.values()):
        same = [i for i, q in enumerate(pols) if q == p]
        if not same:
            allp.append(p)
        member_at.append(same[0] if same else len(allp) - 1)
        mix_w.append(w)
    mix_w = np.array(mix_w, float)
    if len(mix_w):
        mix_w = mix_w / mix_w.sum()
    seed_l = opt.derived_seed(seed, LADDER_TAG)
    n = len(allp)
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    own = sorted(set(range(len(pols))) | set(member_at))
    bar = _progress(len(pairs) * players * deals + len(own) * deals, progress)
    key = _checkpoint_key(g.name, players, deals, seed_l, engine, obj.cs, allp)
    sh = _load_checkpoint(checkpoint, key, players, deals) if checkpoint else {}
    if bar is not None and sh:
        bar.update(len(sh) * players * deals)
    todo = [p for p in pairs if p not in sh]
    step, saved = max(1, 2 * workers), time.time()
    try:
        for k in range(0, len(todo), step):
            chunk = todo[k:k + step]
            shares = obj.many_shares([(allp[i], allp[j]) for i, j in chunk], seed_l, deals,
                                     on_games=bar.update if bar is not None else None)
            sh.update(zip(chunk, shares))
            if checkpoint and time.time() - saved > CHECKPOINT_SECONDS:
                _save_checkpoint(checkpoint, key, sh)
                saved = time.time()
    finally:
        obj.close()
        if checkpoint and sh and len(sh) < len(pairs):     # interrupted: keep what was played
            _save_checkpoint(checkpoint, key, sh)
    fair = np.full((players, deals), 1.0 / players)

    def S(i, j):
        return fair if i == j else sh[(i, j)]
    k0 = len(pols)
    rows = list(range(k0)) + (["mixture"] if mixture else [])

    def members(r):
        return ([r], [1.0]) if r != "mixture" else (member_at, mix_w)

    clusters = np.tile(np.arange(deals), players)
    matrix = []
    for r in rows:
        line = []
        for c in rows:
            (ri, rw), (ci, cw) = members(r), members(c)
            v = sum(a * b * S(i, j) for i, a in zip(ri, rw) for j, b in zip(ci, cw))
            e = stats.cluster_rate(v.ravel(), clusters)
            if (ri, list(rw)) == (ci, list(cw)):
                # the same policy in every seat of every deal: 1/P exactly, no interval
                line.append({"value": 1.0 / players, "lo": 1.0 / players, "hi": 1.0 / players,
                             "n": e.n, "deals": e.clusters, "exact": True})
            else:
                line.append({"value": e.value, "lo": e.lo, "hi": e.hi, "n": e.n,
                             "deals": e.clusters})
        matrix.append(line)
    seat1 = {}
    for i in own:                           # every player of level i: the starting player's share
        df = play_frame(obj.cs, players, seed_l, deals, [allp[i]], None, engine, game=g.name)
        seat1[i] = df[df["seat"] == 0].sort_values("game")["win_share"].to_numpy(float)
        if bar is not None:
            bar.update(deals)
    if bar is not None:
        bar.close()
    first = []
    for r in rows:
        ri, rw = members(r)
        e = stats.cluster_rate(sum(w * seat1[i] for i, w in zip(ri, rw)), np.arange(deals))
        first.append({"value": e.value, "lo": e.lo, "hi": e.hi, "n": e.n})
    names = [lab for lab, _, _ in lv] + (["meta mixture"] if mixture else [])
    kinds = [k for _, _, k in lv] + (["mixture"] if mixture else [])
    missing = [k for k, _ in LEVEL_KINDS if k not in kinds and k != "added"
               and not (k == "best response" and meta_dir is None)]
    return {"format": FORMAT, "game": g.name, "players": players, "deals": deals,
            "seed": seed, "deal_seed": seed_l, "engine": engine, "card_set": obj.cs.name,
            "card_set_digest": obj.cs.digest(), "levels": names, "kinds": kinds,
            "missing_kinds": missing,
            "matrix": matrix, "first_player": first,
            "mixture": None if mixture is None else {k: w for k, (w, _) in mixture.items()},
            "meta": None if meta_dir is None else str(meta_dir),
            "seconds": round(time.time() - t0, 1)}


# ---------------------------------------------------------------------------
# Partial rows: a level played against chosen columns only (docs/skill-ladder.md §9)
# ---------------------------------------------------------------------------
def _meta_dir(doc):
    """The ladder's ``--meta`` folder as a path (relative paths: from the working
    directory, else from the repository root)."""
    m = doc.get("meta")
    if not m:
        return None
    path = Path(m)
    if not path.is_absolute() and not path.exists():
        path = Path(__file__).resolve().parent.parent / m
    return path


def column_policies(doc, g, cs, name: str) -> list:
    """``[(weight, policy)]`` that column ``name`` of ladder ``doc`` plays: the meta
    mixture's members (from the ladder's ``--meta`` folder), a best response of that run,
    or a policy by name (``{P}`` = the ladder's player count); UserError otherwise."""
    P = doc["players"]
    if name not in doc["levels"]:
        raise UserError(f"--against {name}: not a level of this ladder (its levels: "
                        f"{', '.join(doc['levels'])})")
    kind = _kinds(doc)[doc["levels"].index(name)]
    meta = _meta_dir(doc)
    if kind in ("mixture", "best response"):
        if meta is None:
            raise UserError(f"--against {name}: the ladder file names no --meta folder")
        m = _meta_manifest(meta)
        if kind == "best response":
            return [(1.0, g.get_policy(str(meta / m["files"][name])))]
        mix = [(float(w), g.get_policy(str(meta / m["files"][k])))
               for k, w in m["mixture"].items() if w > 1e-9]
        tot = sum(w for w, _ in mix)
        return [(w / tot, pol) for w, pol in mix]
    try:
        return [(1.0, g.resolve_baseline(name, P, cs))]
    except ValueError as e:
        raise UserError(f"--against {name}: {e} (a level added with --level FILE cannot be "
                        f"a column of a partial row)") from None


def column_digest(members) -> str:
    return policy_digest(tuple((round(w, 9), repr(p)) for w, p in members))


def partial_row(doc, spec: str, against, deals: int, first_deals: int | None = None,
                engine: str | None = None, progress: bool = False, label=None) -> dict:
    """One level ``spec`` (a name or file; ``{P}`` = the player count) played as a row
    against the columns ``against`` of ladder ``doc`` only, on the first ``deals`` of
    the ladder's deals (the same deals as its matrix cells: ``deals`` <= the ladder's),
    and its first player's win rate on ``first_deals`` of them (default ``deals``; 0:
    none).  Cells as the matrix's: one player of the row against ``P - 1`` of the column,
    every seat of every deal, 95% interval clustered by deal."""
    from . import optimize as opt
    from .games import get_game
    from .robustness import baseline_label
    from .tournament import play_frame
    g = get_game(doc["game"])
    P, engine = doc["players"], engine or doc.get("engine", "fast")
    if deals > doc["deals"]:
        raise UserError(f"--deals {deals}: more than the ladder's {doc['deals']} deals (a "
                        f"partial row plays the first deals of the ladder's)")
    first_deals = deals if first_deals is None else first_deals
    if first_deals > doc["deals"]:
        raise UserError(f"--first-deals {first_deals}: more than the ladder's {doc['deals']}")
    t0 = time.time()
    obj = opt.GameObjective(doc.get("card_set"), P, deals, None, engine, 1, None, g.name)
    if doc.get("card_set_digest") not in (None, obj.cs.digest()):
        raise UserError(f"the ladder was played on card set {doc.get('card_set')!r} as it was "
                        f"then (digest {doc['card_set_digest']}); the set now differs (digest "
                        f"{obj.cs.digest()}): re-run the ladder before adding a row to it")
    try:
        pol = g.resolve_baseline(spec, P, obj.cs)
    except ValueError as e:
        raise UserError(f"--level {spec}: {e}") from None
    label = label or (Path(spec).stem if str(spec).endswith(".toml")
                      else baseline_label(spec).replace("{P}", str(P)))
    cols = [(c, column_policies(doc, g, obj.cs, c)) for c in against]
    seed_l = int(doc.get("deal_seed", opt.derived_seed(doc.get("seed", 0), LADDER_TAG)))
    games = sum(len(m) for _, m in cols) * P * deals + first_deals
    bar = _progress(games, progress)
    clusters = np.tile(np.arange(deals), P)
    cells = {}
    try:
        for name, members in cols:
            v = 0.0
            for w, q in members:
                v = v + w * obj.focal_shares(pol, q, seed_l, deals)
                if bar is not None:
                    bar.update(P * deals)
            e = stats.cluster_rate(np.asarray(v).ravel(), clusters)
            cells[name] = {"value": e.value, "lo": e.lo, "hi": e.hi, "n": e.n,
                           "deals": e.clusters, "digest": column_digest(members)}
        first = None
        if first_deals:
            df = play_frame(obj.cs, P, seed_l, first_deals, [pol], None, engine, game=g.name)
            s1 = df[df["seat"] == 0].sort_values("game")["win_share"].to_numpy(float)
            e = stats.cluster_rate(s1, np.arange(first_deals))
            first = {"value": e.value, "lo": e.lo, "hi": e.hi, "n": e.n}
            if bar is not None:
                bar.update(first_deals)
    finally:
        obj.close()
        if bar is not None:
            bar.close()
    return {"level": label, "spec": str(spec), "kind": "added", "digest": policy_digest(pol),
            "deals": deals, "first_deals": first_deals, "engine": engine, "cells": cells,
            "first_player": first, "seconds": round(time.time() - t0, 1)}


def add_partial(doc, row) -> dict:
    """``doc`` with ``row`` among its partial rows (a row of the same level replaced)."""
    rows = [r for r in doc.get("partial") or [] if r.get("level") != row["level"]]
    return dict(doc, partial=rows + [row])


def stale_partial(doc, row, g=None) -> list:
    """What of a partial row no longer plays what it measured: the row's policy or a
    column whose policies changed (a re-bundled field; rerun the row's command)."""
    from .games import get_game
    g = g or get_game(doc["game"])
    out = []
    try:
        if policy_digest(g.resolve_baseline(row["spec"], doc["players"])) != row.get("digest"):
            out.append(row["level"])
    except (ValueError, UserError):
        out.append(row["level"])
    for name, c in row["cells"].items():
        try:
            if column_digest(column_policies(doc, g, None, name)) != c.get("digest"):
                out.append(name)
        except (ValueError, UserError, OSError):
            out.append(name)
    return out


def _partial_problem(doc) -> str | None:
    rows = doc.get("partial")
    if rows is None:
        return None
    if not isinstance(rows, list):
        return "'partial' must be a list of rows"
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or not isinstance(r.get("level"), str) \
                or not isinstance(r.get("cells"), dict) or not isinstance(r.get("deals"), int):
            return f"partial[{i}] needs a level, its deals and its cells"
        cells = [(f"partial[{i}] vs {k}", c) for k, c in r["cells"].items()]
        if r.get("first_player") is not None:
            cells.append((f"partial[{i}] first player", r["first_player"]))
        for where, c in cells:
            problem = _cell_problem(where, c)
            if problem:
                return problem
    return None


def _cell_problem(where, c) -> str | None:
    if not isinstance(c, dict) or not all(_number(c.get(f)) for f in ("value", "lo", "hi")):
        return f"{where} needs numbers value, lo and hi"
    if not 0 <= c["lo"] <= c["value"] + 1e-9 <= c["hi"] + 2e-9 <= 1 + 3e-9:
        return (f"{where}: the interval [{c['lo']}, {c['hi']}] must hold the value "
                f"{c['value']} within [0, 1]")
    if not (isinstance(c.get("n"), int) and c["n"] >= 1):
        return f"{where} needs its sample size n (a whole number of at least 1)"
    return None


def partial_frame(doc) -> pd.DataFrame:
    """The partial rows as text cells: per row, a column per chosen opponent and the
    first player's rate, each with its n."""
    rows = []
    for r in doc.get("partial") or []:
        d = {"one player of": r["level"], "deals": r["deals"]}
        for b in doc["levels"]:
            c = r["cells"].get(b)
            d[f"vs {b}"] = "" if c is None else f"{cell_text(c)} (n = {c['n']})"
        fp = r.get("first_player")
        d["first player wins"] = "" if fp is None else f"{cell_text(fp)} (n = {fp['n']})"
        rows.append(d)
    df = pd.DataFrame(rows)
    return df.loc[:, (df != "").any(axis=0)] if len(df) else df


def partial_long_frame(doc) -> pd.DataFrame:
    rows = []
    for r in doc.get("partial") or []:
        for b, c in r["cells"].items():
            rows.append({"players": doc["players"], "row": r["level"], "column": b,
                         "win_rate": c["value"], "win_lo": c["lo"], "win_hi": c["hi"],
                         "n": c["n"], "deals": c.get("deals", r["deals"]),
                         "fair": 1 / doc["players"]})
        fp = r.get("first_player")
        if fp is not None:
            rows.append({"players": doc["players"], "row": r["level"], "column": "first player",
                         "win_rate": fp["value"], "win_lo": fp["lo"], "win_hi": fp["hi"],
                         "n": fp["n"], "deals": fp["n"], "fair": 1 / doc["players"]})
    return pd.DataFrame(rows)


def partial_sentence(doc, row, stale=()) -> str:
    P = doc["players"]
    opp = f"{P - 1} player{'s' if P > 2 else ''}"
    parts = [f"against {opp} of `{b}` {cell_text(c)}% (n = {c['n']} player-games, "
             f"{c.get('deals', row['deals'])} deals)" for b, c in row["cells"].items()]
    text = (f"One `{row['level']}` player (a partial row: played against these levels only, "
            f"on the first {row['deals']} of the ladder's deals; `{row.get('command', SCRIPT)}`) "
            f"wins " + "; ".join(parts) + f" (fair {_pct(1 / P)}%)")
    fp = row.get("first_player")
    if fp is not None:
        text += (f"; with every player a `{row['level']}`, the first player wins "
                 f"{cell_text(fp)}% (n = {fp['n']} games)")
    text += "."
    if stale:
        text += (f"  **Out of date:** {', '.join('`' + x + '`' for x in stale)} no longer "
                 f"play what this row measured (a re-bundled field); rerun its command.")
    return text


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------
def bundled_path(game, players: int) -> Path:
    """Where ``game``'s bundled ladder at ``players`` players lives."""
    from .games import get_game
    g = get_game(game)
    return (Path(importlib.import_module(g.package).__file__).parent / "data" / "meta"
            / FILE_NAME.format(game=g.name, players=int(players)))


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x)


def ladder_problem(doc) -> str | None:
    """What is wrong with a ladder file's content (None: nothing)."""
    if not isinstance(doc, dict):
        return "not a JSON object"
    for key in ("game", "players", "deals", "levels", "matrix", "first_player"):
        if key not in doc:
            return f"no {key!r} field"
    P, names = doc["players"], doc["levels"]
    if not (isinstance(P, int) and P >= 2):
        return f"'players' must be a whole number of at least 2, got {P!r}"
    if not (isinstance(doc["deals"], int) and doc["deals"] >= 1):
        return f"'deals' must be a whole number of at least 1, got {doc['deals']!r}"
    if not (isinstance(names, list) and names and all(isinstance(x, str) for x in names)):
        return "'levels' must be a non-empty list of names"
    k = len(names)
    kinds = doc.get("kinds")
    if kinds is not None and (not isinstance(kinds, list) or len(kinds) != k
                              or not all(isinstance(x, str) and x for x in kinds)):
        return f"'kinds' must name one kind per level ({k}; e.g. {', '.join(KINDS)})"
    m = doc["matrix"]
    if not (isinstance(m, list) and len(m) == k and all(isinstance(r, list) and len(r) == k
                                                        for r in m)):
        return f"'matrix' must be {k} rows of {k} cells (one per level)"
    fp = doc["first_player"]
    if not (isinstance(fp, list) and len(fp) == k):
        return f"'first_player' must have one entry per level ({k})"
    for where, c in ([(f"matrix[{i}][{j}]", c) for i, r in enumerate(m) for j, c in enumerate(r)]
                     + [(f"first_player[{i}]", c) for i, c in enumerate(fp)]):
        problem = _cell_problem(where, c)
        if problem:
            return problem
    return _partial_problem(doc)


def check_ladder(doc, path) -> dict:
    """``doc`` if it is a ladder file's content, else a UserError naming ``path``."""
    problem = ladder_problem(doc)
    if problem:
        raise UserError(f"{path}: not a skill ladder file ({problem}); regenerate it with "
                        f"{SCRIPT} (docs/skill-ladder.md)")
    return doc


def read_ladder(path) -> dict:
    """The checked content of ladder file ``path`` (UserError, one line, otherwise)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such skill ladder file; write one with {SCRIPT}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: cannot read it ({e.__class__.__name__}: "
                        f"{getattr(e, 'strerror', None) or e})") from None
    from .inputs import InputFileError, parse_json
    try:
        doc = parse_json(text, path)
    except InputFileError as e:
        raise UserError(f"{path}: not a skill ladder file ({e.problem}); regenerate it "
                        f"with {SCRIPT} (docs/skill-ladder.md)") from None
    return check_ladder(doc, path)


# ---------------------------------------------------------------------------
# Tables, text, figure
# ---------------------------------------------------------------------------
def _pct(v) -> str:
    return f"{100 * v:.1f}"


def cell_text(c) -> str:
    return f"{_pct(c['value'])} (exact)" if c.get("exact") else \
        f"{_pct(c['value'])} [{_pct(c['lo'])}, {_pct(c['hi'])}]"


def _kinds(r) -> list:
    return r.get("kinds") or ["level"] * len(r["levels"])


def markdown(r) -> str:
    """The ladder as a Markdown table with a line saying what it is."""
    head = "| row vs field | " + " | ".join(r["levels"]) + " | first player wins |"
    lines = [head, "|" + "---|" * (len(r["levels"]) + 2)]
    for name, line, fp in zip(r["levels"], r["matrix"], r["first_player"]):
        lines.append(f"| {name} | " + " | ".join(cell_text(c) for c in line)
                     + f" | {cell_text(fp)} |")
    lines.append("\n" + caption(r))
    for row in r.get("partial") or []:
        lines.append("\n" + partial_sentence(r, row))
    return "\n".join(lines)


def caption(r) -> str:
    P = r["players"]
    n = max(c["n"] for row in r["matrix"] for c in row)
    return (f"{r['game']}, {P} players, set {r.get('card_set', '?')}: win share % of one row "
            f"player against {P - 1} of the column (fair {_pct(1 / P)}), 95% intervals "
            f"clustered by deal, n = {n} player-games per cell on {r['deals']} common deals "
            f"(seed {r.get('seed')}); first player: {r['deals']} games of the row level against "
            f"itself, one per deal.")


def long_frame(r) -> pd.DataFrame:
    """One row per cell: row, column, the win rate with its interval, n, deals, fair."""
    kinds = _kinds(r)
    rows = []
    for a, ka, line in zip(r["levels"], kinds, r["matrix"]):
        for b, kb, c in zip(r["levels"], kinds, line):
            rows.append({"players": r["players"], "row": a, "row_kind": ka, "column": b,
                         "column_kind": kb, "win_rate": c["value"], "win_lo": c["lo"],
                         "win_hi": c["hi"], "n": c["n"], "deals": c.get("deals", r["deals"]),
                         "exact": bool(c.get("exact", False)), "fair": 1 / r["players"]})
    return pd.DataFrame(rows)


def wide_frame(r) -> pd.DataFrame:
    """The matrix as text cells ("52.1 [49.1, 55.2]"), a column per opposing level."""
    rows = []
    for a, line, fp in zip(r["levels"], r["matrix"], r["first_player"]):
        d = {"one player of": a}
        d.update({f"vs {b}": cell_text(c) for b, c in zip(r["levels"], line)})
        d["first player wins"] = cell_text(fp)
        rows.append(d)
    return pd.DataFrame(rows)


def exploit_rows(game) -> dict:
    """``{(players, target): row}`` of the game's bundled exploitability table."""
    from .report_exploit import load_table, table_frame
    doc = load_table(game)
    if doc is None or not doc["rows"]:
        return {}
    return {(int(x.players), x.target): x for x in table_frame(doc).itertuples()}


def _exploit_target(r, i) -> str:
    """The bundled policy name a level stands for in the exploitability table."""
    kind = _kinds(r)[i]
    if kind == "mixture":
        return f"meta-{r['players']}p"
    return r["levels"][i]


def level_frame(r, exploit=None) -> pd.DataFrame:
    """Per level: its kind, the first player's win rate with its interval, the level's
    mean share against every other level, and what a best response wins against it
    (the bundled exploitability table, where it has the level)."""
    exploit = exploit or {}
    P, rows = r["players"], []
    m = r["matrix"]
    for i, (name, kind, fp) in enumerate(zip(r["levels"], _kinds(r), r["first_player"])):
        others = [m[i][j]["value"] for j in range(len(m)) if j != i]
        x = exploit.get((P, _exploit_target(r, i)))
        rows.append({"players": P, "level": name, "kind": kind,
                     "seat1_win": fp["value"], "seat1_win_lo": fp["lo"],
                     "seat1_win_hi": fp["hi"], "n_first": fp["n"], "fair": 1 / P,
                     "mean_win_rate_vs_others": float(np.mean(others)) if others else np.nan,
                     "br_target": None if x is None else x.target,
                     "br_win_rate": np.nan if x is None else x.win_share,
                     "br_win_rate_lo": np.nan if x is None else x.win_lo,
                     "br_win_rate_hi": np.nan if x is None else x.win_hi,
                     "br_n": None if x is None else int(x.n)})
        j = best_in_ladder(r, i)
        c = None if j is None else m[j][i]
        rows[-1].update({"ladder_br": None if j is None else r["levels"][j],
                         "ladder_br_win_rate": np.nan if c is None else c["value"],
                         "ladder_br_win_rate_lo": np.nan if c is None else c["lo"],
                         "ladder_br_win_rate_hi": np.nan if c is None else c["hi"]})
    df = pd.DataFrame(rows)
    df["br_n"] = df["br_n"].astype("Int64")
    return df


def summary_frame(lf: pd.DataFrame, P: int, deals: int) -> pd.DataFrame:
    """:func:`level_frame` as text cells with their intervals: per level, the first
    player's win rate and the two best responses (exploit's and the ladder's)."""
    def iv(v, lo, hi):
        return "–" if not np.isfinite(v) else f"{_pct(v)} [{_pct(lo)}, {_pct(hi)}]"
    rows = []
    for x in lf.itertuples():
        rows.append({
            "level": x.level, "kind": x.kind,
            f"first player wins, % (n = {deals}; fair {_pct(1 / P)})":
                iv(x.seat1_win, x.seat1_win_lo, x.seat1_win_hi),
            "a best response (vale-sim exploit) wins, %":
                iv(x.br_win_rate, x.br_win_rate_lo, x.br_win_rate_hi)
                + ("" if pd.isna(x.br_n) else f" (n = {int(x.br_n)})"),
            "strongest answer in the ladder": x.ladder_br or "–",
            f"it wins, % (n = {P * deals})":
                iv(x.ladder_br_win_rate, x.ladder_br_win_rate_lo, x.ladder_br_win_rate_hi)})
    return pd.DataFrame(rows)


def best_in_ladder(r, i):
    """The level that wins most as one player against ``P - 1`` of level ``i`` (the best
    response *within the ladder*: a lower bound on how exploitable level ``i`` is, up to
    the choice of the largest of several noisy cells); None if there is no other."""
    m = r["matrix"]
    others = [j for j in range(len(m)) if j != i and not m[j][i].get("exact")]
    return max(others, key=lambda j: m[j][i]["value"]) if others else None


def figure(r):
    """A heatmap of the matrix: the win share % of one row player against the column's
    field, coloured around the fair share; lines between kinds of level."""
    from matplotlib.colors import TwoSlopeNorm
    from vale_sim.report import _new_fig
    k, P = len(r["levels"]), r["players"]
    vals = np.array([[c["value"] for c in row] for row in r["matrix"]])
    fig, ax = _new_fig(1.2 + 0.55 * k, 0.9 + 0.45 * k)
    im = ax.imshow(100 * vals, cmap="RdBu_r", aspect="auto",
                   norm=TwoSlopeNorm(vcenter=100 / P, vmin=0, vmax=100))
    for i in range(k):
        for j in range(k):
            v = 100 * vals[i, j]
            ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=7,
                    color="white" if abs(v - 100 / P) > 30 else "black")
    labels = r["levels"]
    ax.set_xticks(range(k), labels, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(k), labels, fontsize=7)
    kinds = _kinds(r)
    for i in range(1, k):
        if kinds[i] != kinds[i - 1]:
            ax.axhline(i - 0.5, color="k", lw=0.6)
            ax.axvline(i - 0.5, color="k", lw=0.6)
    ax.set_xlabel(f"against {P - 1} player{'s' if P > 2 else ''} of")
    ax.set_ylabel("one player of")
    ax.set_title(f"{P} players: win share % (fair {100 / P:.0f})", fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8)
    return fig


def strength_order(r) -> list:
    """Level indexes by their mean win share against the other levels, strongest first
    (cells of a level against itself, or against the same policy, left out)."""
    m, k = r["matrix"], len(r["levels"])

    def mean_vs(i):
        v = [m[i][j]["value"] for j in range(k) if j != i and not m[i][j].get("exact")]
        return float(np.mean(v)) if v else 1.0 / r["players"]
    return sorted(range(k), key=lambda i: (-mean_vs(i), i))


def mixture_beaten_by(r) -> list:
    """Levels that beat the meta mixture significantly: one of them against ``P - 1``
    mixture players wins more than the fair share (the lower bound above ``1/P``),
    most first."""
    kinds = _kinds(r)
    if "mixture" not in kinds:
        return []
    mi = kinds.index("mixture")
    m, fair = r["matrix"], 1.0 / r["players"]
    out = [j for j in range(len(m)) if j != mi and not m[j][mi].get("exact")
           and m[j][mi]["lo"] > fair]
    return sorted(out, key=lambda j: -m[j][mi]["value"])


def reading(r, default=None) -> str:
    """Sentences computed from the numbers: the strongest level against the weakest,
    against ``default`` (the game's default policy) and against its closest rival; the
    spread of the first player's rate; whether a level beats the meta mixture."""
    m, names, P = r["matrix"], r["levels"], r["players"]
    k = len(names)
    if k < 2:
        return f"{P} players: one level only."
    order = strength_order(r)
    top, weak = order[0], order[-1]
    mean = np.mean([m[top][j]["value"] for j in range(k) if j != top
                    and not m[top][j].get("exact")])
    opp = f"{P - 1} player{'s' if P > 2 else ''}"
    out = [f"the strongest level is `{names[top]}` (mean win share {_pct(mean)}% against "
           f"the others; fair {_pct(1 / P)}%): one `{names[top]}` player against {opp} of "
           f"`{names[weak]}` (the weakest) wins {cell_text(m[top][weak])}%"]
    if default in names and names.index(default) not in (top, weak):
        d = names.index(default)
        out.append(f"against {opp} of `{default}` {cell_text(m[top][d])}%")
    rivals = [j for j in range(k) if j != top and not m[top][j].get("exact")]
    if rivals:
        c = min(rivals, key=lambda j: m[top][j]["value"])
        out.append(f"against its closest rival `{names[c]}` {cell_text(m[top][c])}%")
    fp = [c["value"] for c in r["first_player"]]
    text = (", ".join(out) + f".  The first player wins {_pct(min(fp))}-{_pct(max(fp))}% "
            f"across the levels (n = {r['first_player'][0]['n']} games each, fair "
            f"{_pct(1 / P)}%).")
    beaten = mixture_beaten_by(r)
    if beaten:
        mi = _kinds(r).index("mixture")
        j = beaten[0]
        text += (f"  **The meta mixture is not an equilibrium of this ladder**: one `{names[j]}` "
                 f"player against {opp} of the mixture wins {cell_text(m[j][mi])}%"
                 + (f" ({len(beaten)} levels beat it significantly: "
                    f"{', '.join('`' + names[x] + '`' for x in beaten)})" if len(beaten) > 1
                    else "") + ".")
    return text


def section_parts(game) -> tuple[str, list, dict, list, dict]:
    """(title, paragraphs, tables, figures, top tables) of the report's skill-ladder
    section of ``game``, from the bundled ladder files (plays no game)."""
    from .games import get_game
    g = get_game(game)
    title = "How much does skill matter? The skill ladder"
    exploit = exploit_rows(g.name)
    paras = [f"Precomputed by `{SCRIPT}` (the command of each player count below; not "
             f"recomputed by this report).  Each cell: the win share of **one** player of the "
             f"row's level against P - 1 players of the column's level, every seat of every "
             f"deal, on the same deals for every cell; 95% intervals clustered by deal, one "
             f"interval per cell (no correction across cells).  A level against itself is "
             f"1/P exactly.  Levels weakest first: random buying → presets → lookahead → "
             f"the optimised bot → best responses of the meta run → its equilibrium mixture "
             f"(the bundled `meta-{{P}}p` field).  \"First player wins\": every player of the "
             f"row's level, the starting player's win share (fair 1/P).  The exploitability "
             f"columns: what a best response found by `vale-sim exploit` wins against the "
             f"level (the bundled table of the next section), where that table has it.  "
             f"**Partial rows** (e.g. the search player, too slow for a whole row): a level "
             f"played against chosen columns only, on the first deals of the same ladder "
             f"(fewer, each cell with its own n; table `skill_ladder_{{P}}p_partial`).  "
             f"docs/skill-ladder.md."]
    tables, figures, top, missing = {}, [], {}, []
    for P in g.players:
        path = bundled_path(g.name, P)
        if not path.is_file():
            missing.append(P)
            continue
        try:
            r = read_ladder(path)
        except UserError as e:
            paras.append(f"**{P} players: not shown.** {e}")
            continue
        absent = [k for k in r.get("missing_kinds") or [] if k in WHY_MISSING]
        note = "".join(f"  No {k} level: {why_missing(k, r, P)}." for k in absent)
        paras.append(f"**{P} players** (`{r.get('command', SCRIPT)}`; {r['deals']} common "
                     f"deals, seed {r.get('seed')}): " + reading(r, g.default_policy) + note)
        for row in r.get("partial") or []:
            paras.append(f"**{P} players, partial row:** "
                         + partial_sentence(r, row, stale_partial(r, row, g)))
        if r.get("partial"):
            top[f"skill_ladder_{P}p_partial"] = partial_frame(r)
            tables[f"skill_ladder_{P}p_partial_cells"] = partial_long_frame(r)
        top[f"skill_ladder_{P}p"] = wide_frame(r)
        tables[f"skill_ladder_{P}p_cells"] = long_frame(r)
        lf = level_frame(r, exploit)
        tables[f"skill_ladder_{P}p_levels"] = lf
        top[f"skill_ladder_{P}p_by_level"] = summary_frame(lf, P, r["deals"])
        figures.append((f"skill_ladder_{P}p", figure(r), caption(r)))
        for row in lf[lf.kind.isin(["optimized", "mixture"])].itertuples():
            name = row.br_target if isinstance(row.br_target, str) else row.level
            text = f"At {P} players"
            if isinstance(row.br_target, str):
                text += (f" a best response (`vale-sim exploit`) beats `{row.br_target}` "
                         f"{_pct(row.br_win_rate)}% [{_pct(row.br_win_rate_lo)}, "
                         f"{_pct(row.br_win_rate_hi)}] (fair {_pct(1 / P)}%, n = "
                         f"{int(row.br_n)} player-games on held-out deals); within the ladder")
            if isinstance(row.ladder_br, str):
                text += (f" the strongest answer to `{name}` is one `{row.ladder_br}` player: "
                         f"{_pct(row.ladder_br_win_rate)}% [{_pct(row.ladder_br_win_rate_lo)}, "
                         f"{_pct(row.ladder_br_win_rate_hi)}] against {P - 1} `{name}` "
                         f"(n = {P * r['deals']} player-games).")
                paras.append(text)
    if missing:
        paras.append(f"No bundled ladder at {', '.join(map(str, missing))} players "
                     f"({FILE_NAME.format(game=g.name, players='P')} missing): run `{SCRIPT} "
                     f"--game {g.name} --players P` (docs/skill-ladder.md).")
    return title, paras, tables, figures, top


def section_skill_ladder(ctx):
    """The report section "How much does skill matter?": the bundled ladders of the
    report's game at every player count it plays (plays no game)."""
    from vale_sim.report import Section, _log
    title, paras, tables, figures, top = section_parts(ctx.game)
    for p in paras:
        if p.startswith("**") and "not shown" in p[:40]:
            _log(ctx, "  " + p.replace("**", ""))
    return Section(title, paras, tables, figures, top_tables=top)
