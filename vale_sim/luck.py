"""Luck and skill: a skill-luck index and where the outcome's variance comes from
(issue 39 item 1; ``vale-sim luck``; docs/luck.md).

Shared by every game: it reaches a game only through the registry and plays through
:class:`vale_sim.optimize.GameObjective` / :func:`vale_sim.tournament.play_frame`.

**The design.**  A ladder of ``k`` levels (weakest first; :func:`default_levels`: random
buying where the game has it, the default bot, lookahead, the optimised bot, the meta
field, the strongest bundled field).  Every *line-up* ``(i, j)`` -- one player of level
``i`` against ``P - 1`` of level ``j``, ``i == j`` included -- is played on the same
``D`` deals, the focal player at each of the ``P`` player indexes (the rotations of
:func:`vale_sim.tournament.focal_shares`; for ``i == j`` one game per deal, each player
in turn the focal one).  ``Y[l, r, d]``: the focal player's win share (ties 1/k) in
line-up ``l`` at rotation ``r`` of deal ``d``.

**The variance split** (two-way ANOVA with replication, line-ups fixed, deals random,
method of moments; docs/luck.md §3):

* ``policies``: the variance of the line-up means (who plays whom decides);
* ``deal``: the variance of the deal means (some deals favour the focal seat whoever
  plays: in practice small, since the focal player rotates);
* ``interaction``: deal x line-up (a deal that suits one line-up and not another);
* ``position``: within a deal and line-up, across the rotations (which player slot --
  its own shuffles and its place in the turn order -- the focal player got).

**The skill-luck index** in the form of Silver (2025), ``S = (K - L) / (K + L)`` in
``[-1, +1]``, with the skill leverage ``K`` the standard deviation of the policy part
and the luck leverage ``L`` that of the three chance parts (deal + interaction +
position): ``-1`` when the policies change nothing (a coin toss), ``+1`` when chance
changes nothing (chess), ``0`` when both move the outcome equally.  ``skill_share``
``= K^2 / (K^2 + L^2)`` (the policy share of the variance, 0 to 1) is printed next to it.

Intervals: a percentile bootstrap over deals (every line-up and rotation of a resampled
deal goes with it: clustered by deal, the house rule of docs/statistics.md).

**By skill level**: the same split and index with the field fixed at each level ``j``
(the focal player any level, against ``P - 1`` of level ``j``).

**By source of randomness** (the deal's starting decks, the market draws, each player's
deck order): it needs games re-played with one source fixed and the others varied.  A
game's engines say whether they can (``Game.random_sources``); none bundled can today --
every random event of a game comes from one counter-based stream in a fixed,
interleaved order -- and the result says so (:data:`NO_SOURCE_SPLIT`) instead of a split.

    r = luck(game, players=2, deals=500)
    print(text(r)); r["skill_luck_index"], r["skill_luck_ci"], r["variance_shares"]
"""
from __future__ import annotations

import math
import time

import numpy as np

from .errors import UserError

#: SeedSequence([seed, LUCK_TAG]) gives the deals (as the skill ladder's tag 11).
LUCK_TAG = 39
DEFAULT_DEALS = 1000
DEFAULT_BOOTSTRAP = 400
FORMAT = "vale-sim luck"
#: The parts of the outcome's variance, in print order.
PARTS = ("policies", "deal", "interaction")
LUCK_PARTS = ("deal", "interaction")
#: The fine parts of :func:`components` (``part:`` keys) and their words.
FINE = {"l": "line-up", "r": "slot", "d": "deal", "rd": "deal x slot (the hand a deal gives "
        "a player slot)", "ld": "deal x line-up", "lr": "line-up x slot",
        "ldr": "the rest (how a hand plays out in one line-up)"}
PART_WORDS = {"policies": "the line-up (who plays whom: skill)",
              "deal": "the deal and the hand it gives each player slot, the same whatever "
                      "the line-up",
              "interaction": "deal x line-up: chance that plays out differently under "
                             "different line-ups"}
#: Why there is no split by source of randomness (a game without ``random_sources``).
NO_SOURCE_SPLIT = ("not available: the engines draw every random event of a game (the "
                   "starting decks, the market and vale decks, each player's reshuffles, the "
                   "first player, ties) from one counter-based stream in a fixed interleaved "
                   "order, so one source cannot be held fixed while the others vary; it needs "
                   "one stream per source in the engines (docs/luck.md §5)")


# ---------------------------------------------------------------------------
# Levels
# ---------------------------------------------------------------------------
def default_levels(g, players: int, cs) -> list:
    """``[(label, policy)]`` weakest first: ``random`` (where the game's policy has a
    random-buying field), the game's default bot, ``lookahead``, ``optimized-{P}p``,
    ``meta-{P}p`` and the strongest bundled field (each where the game has it, once)."""
    from . import skill_ladder as SL
    from .strong_field import field_name
    out = list(SL._random(g, players, cs, {}))
    names = [g.default_policy]
    if "lookahead" in g.presets:
        names.append("lookahead")
    names += [f"optimized-{players}p", f"meta-{players}p", field_name(g.name, players)]
    for name in names:
        if name in [lab for lab, _ in out]:
            continue
        try:
            out.append((name, g.resolve_baseline(name, players, cs)))
        except ValueError:               # not bundled for this game
            continue
    return out


def named_levels(g, players: int, cs, specs) -> list:
    """``--level`` names or files (``random`` for random buying), in the order given."""
    from pathlib import Path
    from . import skill_ladder as SL
    out = []
    for spec in specs:
        if spec == "random":
            lv = SL._random(g, players, cs, {})
            if not lv:
                raise UserError(f"--level random: {g.name}'s policy has no random-buying "
                                f"field (explore_permille); give other levels")
            out += lv
            continue
        try:
            pol = g.resolve_baseline(spec, players, cs)
        except ValueError as e:
            raise UserError(f"--level {spec}: {e}") from None
        out.append((Path(spec).stem if spec.endswith(".toml") else
                    spec.replace("{P}", str(players)), pol))
    if len(out) < 2:
        raise UserError("--level: give at least two levels (or none for the default ladder)")
    return out


# ---------------------------------------------------------------------------
# The variance split (pure numpy: tested on toy data whose answer is known)
# ---------------------------------------------------------------------------
def components(Y) -> dict:
    """Method-of-moments variance components of ``Y[line-up, slot, deal]`` (a three-way
    crossed layout with one game per cell: line-ups and slots fixed, deals random; the
    slot is the same player position of the same deal in every line-up, so the hand a
    deal gives a slot is shared by every line-up).

    Fine parts (each clipped at 0): ``l`` line-up, ``r`` slot, ``d`` deal, ``lr``, ``ld``,
    ``rd`` (the deal x slot: the hand the deal gives the slot), ``ldr`` (the rest: how
    that hand plays out in this line-up).  Grouped (:data:`PARTS`): ``policies`` = l;
    ``deal`` = d + rd + r (the same whatever the line-up); ``interaction`` = ld + ldr + lr
    (chance that plays out differently under different line-ups).  ``total``: their sum;
    ``raw_total``: the variance of every observation about the grand mean (what the sum
    should match); ``raw_luck``: the mean within-line-up variance (what deal +
    interaction should match)."""
    Y = np.asarray(Y, float)
    L, R, D = Y.shape
    g = float(Y.mean())
    m_l, m_r, m_d = Y.mean(axis=(1, 2)), Y.mean(axis=(0, 2)), Y.mean(axis=(0, 1))
    m_lr, m_ld, m_rd = Y.mean(axis=2), Y.mean(axis=1), Y.mean(axis=0)
    e_lr = m_lr - m_l[:, None] - m_r[None, :] + g
    e_ld = m_ld - m_l[:, None] - m_d[None, :] + g
    e_rd = m_rd - m_r[:, None] - m_d[None, :] + g
    e = (Y - m_lr[:, :, None] - m_ld[:, None, :] - m_rd[None, :, :] + m_l[:, None, None]
         + m_r[None, :, None] + m_d[None, None, :] - g)

    def ms(ss, df):
        return ss / df if df > 0 else 0.0
    MS_l = ms(R * D * np.sum((m_l - g) ** 2), L - 1)
    MS_r = ms(L * D * np.sum((m_r - g) ** 2), R - 1)
    MS_d = ms(L * R * np.sum((m_d - g) ** 2), D - 1)
    MS_lr = ms(D * np.sum(e_lr ** 2), (L - 1) * (R - 1))
    MS_ld = ms(R * np.sum(e_ld ** 2), (L - 1) * (D - 1))
    MS_rd = ms(L * np.sum(e_rd ** 2), (R - 1) * (D - 1))
    MS_e = ms(np.sum(e ** 2), (L - 1) * (R - 1) * (D - 1))
    pos = lambda x: max(0.0, float(x))          # noqa: E731
    f = {"ldr": pos(MS_e),
         "ld": pos((MS_ld - MS_e) / R) if L > 1 else 0.0,
         "rd": pos((MS_rd - MS_e) / L) if R > 1 else 0.0,
         "d": pos((MS_d - MS_ld - MS_rd + MS_e) / (L * R)),
         "l": pos((L - 1) / L * (MS_l - MS_ld) / (R * D)) if L > 1 else 0.0,
         "r": pos((R - 1) / R * (MS_r - MS_rd) / (L * D)) if R > 1 else 0.0,
         "lr": pos((L - 1) * (R - 1) / (L * R) * (MS_lr - MS_e) / D) if L > 1 < R else 0.0}
    # the rest: what the other parts leave of the measured variance, so the parts add
    # up to it; its own mean square (``ms_rest``) is the check -- the layout's games are
    # not all independent (at 2 players line-up (i, j) and (j, i) are the same games
    # seen from both sides), which moves MS_e a few percent off (docs/luck.md §3)
    raw_total = float(np.mean((Y - g) ** 2))
    f["ldr"] = pos(raw_total - sum(v for x, v in f.items() if x != "ldr"))
    out = {"policies": f["l"], "deal": f["d"] + f["rd"] + f["r"],
           "interaction": f["ld"] + f["ldr"] + f["lr"]}
    out.update({f"part:{k}": v for k, v in f.items()})
    out["rest"] = f["ldr"]
    out["total"] = sum(out[p] for p in PARTS)
    out["raw_total"] = raw_total
    out["ms_rest"] = pos(MS_e)
    out["raw_luck"] = float(np.mean((Y - m_l[:, None, None]) ** 2))
    return out


def index_of(c: dict) -> tuple[float, float, float, float]:
    """(S, skill_share, K, L) of a :func:`components` dict: ``S = (K - L) / (K + L)``."""
    K = math.sqrt(c["policies"])
    Lk = math.sqrt(sum(c[p] for p in LUCK_PARTS))
    if K + Lk == 0:
        return math.nan, math.nan, K, Lk
    return (K - Lk) / (K + Lk), K * K / (K * K + Lk * Lk), K, Lk


def _summary(c: dict) -> dict:
    S, share, K, Lk = index_of(c)
    out = {"index": S, "skill_share": share, "K": K, "L": Lk}
    tot = c["total"]
    for p in list(PARTS) + [f"part:{x}" for x in FINE]:
        out[f"share:{p}"] = c[p] / tot if tot > 0 else math.nan
    for k in ("total", "raw_total", "raw_luck", "ms_rest", "rest"):
        out[k] = c[k]
    out["luck_sum"] = sum(c[p] for p in LUCK_PARTS)
    return out


def bootstrap(Y, reps: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> list:
    """:func:`_summary` of ``reps`` resamples of the deals (with replacement)."""
    Y = np.asarray(Y, float)
    D = Y.shape[2]
    rng = np.random.default_rng([int(seed) % 2**63, LUCK_TAG])
    return [_summary(components(Y[:, :, rng.integers(0, D, D)])) for _ in range(reps)]


def _iv(point: float, boots: list, key: str, confidence: float = 0.95) -> dict:
    vals = np.array([b[key] for b in boots], float)
    vals = vals[np.isfinite(vals)]
    a = (1 - confidence) / 2
    lo, hi = (np.quantile(vals, [a, 1 - a]) if vals.size else (math.nan, math.nan))
    return {"value": point, "lo": float(lo), "hi": float(hi)}


def _inside(x: float, iv: dict) -> bool:
    tol = 1e-9 * max(1.0, abs(x))
    return iv["lo"] - tol <= x <= iv["hi"] + tol


def split(Y, reps: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> dict:
    """The index, the variance shares and the additivity check of ``Y`` with 95%
    deal-bootstrap intervals."""
    Y = np.asarray(Y, float)
    c = components(Y)
    s = _summary(c)
    boots = bootstrap(Y, reps, seed)
    shares = {p: {**_iv(s[f"share:{p}"], boots, f"share:{p}"), "variance": c[p],
                  "words": PART_WORDS[p]} for p in PARTS}
    fine = {x: {**_iv(s[f"share:part:{x}"], boots, f"share:part:{x}"),
                "variance": c[f"part:{x}"], "words": FINE[x]} for x in FINE}
    luck_sum = _iv(s["luck_sum"], boots, "luck_sum")
    raw_luck = _iv(s["raw_luck"], boots, "raw_luck")
    total = _iv(s["total"], boots, "total")
    raw_total = _iv(s["raw_total"], boots, "raw_total")
    return {"skill_luck_index": s["index"], "skill_luck_ci": [_iv(s["index"], boots, "index")["lo"],
                                                              _iv(s["index"], boots, "index")["hi"]],
            "skill_share": _iv(s["skill_share"], boots, "skill_share"),
            "K": _iv(s["K"], boots, "K"), "L": _iv(s["L"], boots, "L"),
            "variance_shares": shares, "fine_shares": fine,
            "adds_up": {"sum_of_parts": total, "measured_total": raw_total,
                        "luck_parts": luck_sum, "measured_luck": raw_luck,
                        "rest_as_remainder": _iv(s["rest"], boots, "rest"),
                        "rest_own_estimate": _iv(s["ms_rest"], boots, "ms_rest"),
                        "ok": bool(_inside(s["rest"], _iv(s["ms_rest"], boots, "ms_rest")))},
            "n": int(Y.size), "deals": int(Y.shape[2]), "lineups": int(Y.shape[0]),
            "rotations": int(Y.shape[1]), "bootstrap": int(reps)}


def analyse(S4, labels, reps: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> dict:
    """The whole result from ``S4[i, j, r, d]`` (one player of level ``i`` against
    ``P - 1`` of level ``j``, rotation ``r``, deal ``d``): the split over every line-up,
    then with the field fixed at each level (``by_level``)."""
    S4 = np.asarray(S4, float)
    k, _, R, D = S4.shape
    cross = [(i, j) for i in range(k) for j in range(k) if i != j]
    out = split(np.stack([S4[i, j] for i, j in cross]), reps, seed)
    out["by_level"] = []
    for j, lab in enumerate(labels):
        sj = split(np.stack([S4[i, j] for i in range(k) if i != j]), reps, seed + 1 + j)
        out["by_level"].append({"field": lab, "skill_luck_index": sj["skill_luck_index"],
                                "skill_luck_ci": sj["skill_luck_ci"],
                                "skill_share": sj["skill_share"],
                                "variance_shares": sj["variance_shares"], "n": sj["n"]})
    means = S4.mean(axis=(2, 3))
    out["matrix"] = [[float(x) for x in row] for row in means]
    return out


# ---------------------------------------------------------------------------
# Playing the ladder
# ---------------------------------------------------------------------------
def play_ladder(play_pair, play_self, k: int, players: int, deals: int, bar=None):
    """``S4[i, j, r, d]`` from ``play_pair(pairs) -> [(P, D) shares]`` (one player of
    level i against P - 1 of level j, the focal player at index r) and ``play_self(i) ->
    (P, D)`` (every player level i: player r's share)."""
    S4 = np.zeros((k, k, players, deals))
    pairs = [(i, j) for i in range(k) for j in range(k) if i != j]
    step = 4
    for a in range(0, len(pairs), step):
        chunk = pairs[a:a + step]
        for (i, j), sh in zip(chunk, play_pair(chunk)):
            S4[i, j] = sh
            if bar is not None:
                bar.update(players * deals)
    for i in range(k):
        S4[i, i] = 1.0 / players       # not played: the split uses the cross line-ups only
    return S4


def _progress(total: int, show: bool):
    if not show:
        return None
    import sys
    from tqdm.auto import tqdm
    return tqdm(total=total, desc="luck", unit="game", file=sys.stderr, mininterval=1.0,
                leave=False)


def luck(game: str, players: int, deals: int = DEFAULT_DEALS, seed: int = 0, levels=None,
         card_set=None, engine: str = "fast", workers: int = 1, progress: bool = False,
         reps: int = DEFAULT_BOOTSTRAP, play=None) -> dict:
    """The luck result of ``game`` at ``players`` players (module docstring).

    ``levels``: ``--level`` specs (default :func:`default_levels`).  ``play``: for tests,
    ``(labels, play_pair, play_self)`` replacing the game's levels and engines."""
    from . import optimize as opt
    from .games import get_game
    from .tournament import play_frame
    g = get_game(game)
    if players not in g.players:
        raise UserError(f"--players: {g.name} is played by {', '.join(map(str, g.players))} "
                        f"players, got {players}")
    if deals < 2:
        raise UserError(f"--deals must be at least 2, got {deals}")
    t0 = time.time()
    seed_l = opt.derived_seed(seed, LUCK_TAG)
    obj = None
    if play is None:
        obj = opt.GameObjective(card_set, players, deals, None, engine, workers, None, g.name)
        lv = named_levels(g, players, obj.cs, levels) if levels else \
            default_levels(g, players, obj.cs)
        labels, pols = [a for a, _ in lv], [b for _, b in lv]

        def play_pair(pairs):
            return obj.many_shares([(pols[i], pols[j]) for i, j in pairs], seed_l, deals)

        def play_self(i):
            df = play_frame(obj.cs, players, seed_l, deals, [pols[i]], obj.rules, engine,
                            game=g.name).sort_values(["game", "player"])
            return df["win_share"].to_numpy(float).reshape(deals, players).T
        card_name = obj.cs.name
    else:
        labels, play_pair, play_self = play
        card_name = None
    k = len(labels)
    bar = _progress(k * (k - 1) * players * deals, progress)
    try:
        S4 = play_ladder(play_pair, play_self, k, players, deals, bar)
    finally:
        if bar is not None:
            bar.close()
        if obj is not None:
            obj.close()
    out = analyse(S4, labels, reps, seed)
    src = getattr(g, "random_sources", None)
    out.update({"format": FORMAT, "game": g.name, "players": players, "seed": seed,
                "deal_seed": seed_l, "engine": engine, "card_set": card_name,
                "levels": labels,
                "source_split": {"available": False, "why": NO_SOURCE_SPLIT} if not src
                else {"available": False, "why": "not implemented for this game's streams"},
                "seconds": round(time.time() - t0, 1)})
    return out


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------
def _pct(x) -> str:
    return f"{100 * x:.1f}"


def _ivt(d, pct=True) -> str:
    f = _pct if pct else (lambda x: f"{x:+.2f}")
    return f"{f(d['value'])} [{f(d['lo'])}, {f(d['hi'])}]"


def text(r: dict) -> str:
    """The result as the lines ``vale-sim luck`` prints."""
    P, D = r["players"], r["deals"]
    lo, hi = r["skill_luck_ci"]
    lines = [f"{r['game']}, {P} players, set {r.get('card_set') or '-'}: {len(r['levels'])} "
             f"levels ({', '.join(r['levels'])}), every line-up (one player of a level against "
             f"{P - 1} of a level) on the same {D} deals, the focal player at each of the {P} "
             f"player slots: n = {r['n']} player-games; 95% intervals: bootstrap over deals "
             f"({r['bootstrap']} resamples).",
             f"Skill-luck index (Silver 2025 form, -1 pure luck .. +1 pure skill): "
             f"{r['skill_luck_index']:+.2f} [{lo:+.2f}, {hi:+.2f}]; skill share of the "
             f"variance {_ivt(r['skill_share'])}%.",
             f"Variance shares, % (n = {r['n']}):"]
    for p in PARTS:
        s = r["variance_shares"][p]
        lines.append(f"  {p:<12} {_ivt(s):<20} {s['words']}")
    lines.append("  fine parts: " + "; ".join(f"{FINE[x].split(' (')[0]} {_ivt(v)}"
                                             for x, v in r["fine_shares"].items()))
    a = r["adds_up"]
    rr, ro = a["rest_as_remainder"], a["rest_own_estimate"]
    lines.append(f"  check: the rest as what the other parts leave of the measured variance "
                 f"{a['measured_total']['value']:.4f} is {rr['value']:.4f}; its own mean "
                 f"square {ro['value']:.4f} [{ro['lo']:.4f}, {ro['hi']:.4f}]: "
                 + ("they agree (the parts add up within the interval)." if a["ok"] else
                    f"they differ by {100 * (ro['value'] / rr['value'] - 1):+.1f}% (the "
                    f"layout's games are not all independent; docs/luck.md §3): the shares "
                    f"take the rest as the remainder."))
    lines.append(f"By skill of the field (the focal player any level, against {P - 1} of "
                 f"the level; n = {r['by_level'][0]['n']} each):")
    for b in r["by_level"]:
        sh = b["variance_shares"]
        lines.append(f"  vs {b['field']:<14} index {b['skill_luck_index']:+.2f} "
                     f"[{b['skill_luck_ci'][0]:+.2f}, {b['skill_luck_ci'][1]:+.2f}]; "
                     + ", ".join(f"{p} {_ivt(sh[p])}" for p in PARTS))
    ss = r["source_split"]
    lines.append("By source of randomness: " + (ss["why"] if not ss["available"] else "see JSON"))
    if "seconds" in r:
        lines.append(f"({r['seconds']} s)")
    return "\n".join(lines)
