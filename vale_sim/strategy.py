"""The strategy guide (docs/strategy.md): what the strongest player does, measured.

Game-neutral: a game gives it, through ``Game.strategy`` (the module of its part),

* ``DECISION_KINDS``: ``((kind, words, fields), ...)``, the kinds of decision a
  policy makes ("push": go on or stop in the bad-turn phase; "advancement" and
  "vale": what to buy) and the policy fields deciding each;
* ``hybrid(cs, strong, other, kind)``: ``strong`` with ``other``'s decisions of
  ``kind`` (a policy object);
* ``observe_game(cs, players, seed, game_index, policies, rules)``: one reference
  game's ``(decisions, buys, record)``: a row per go-on decision (``player``,
  ``round``, ``turn``, ``pushes``, ``showing``, ``pool``, ``bad``, ``decay_share``,
  ``risk``: the exact chance that going on turns the turn bad, ``pushed``) and a row
  per buying phase (``mana``, ``first``: the first advancement bought or "",
  ``vale``: the first vale or "");
* ``EVENT``, ``SHOWING`` and ``RISKY``: the go-on decision's and the counter's names
  in words, and what the risky cards (``decay_share``) do.

What it measures, for any policy (a name, ``{P}`` standing for the player count, a
file or a policy object, so a stronger player plugs in by name):

1. :func:`push_table`: how often the player goes on, by what is showing and by the
   exact odds of going bad, with intervals clustered by game;
2. :func:`buy_table`: what it buys first, by round and by mana;
3. :func:`ablation`: the win share lost when one kind of its decisions is made by
   another policy (``balanced``): a hybrid plays against ``P - 1`` copies of the
   strong policy, every seat of every deal (:func:`vale_sim.tournament.focal_shares`),
   and the cost is ``1/P`` (the strong policy's own share against itself, exact
   under these seatings) minus the hybrid's, paired by deal
   (:func:`vale_sim.variants.paired`).

:func:`guide` runs all three into one JSON-ready dict; the games' reports render a
bundled one (``data/strategy-guide.json``, written by ``vale-sim strategy``) with
:func:`section_parts`.
"""
from __future__ import annotations

import importlib
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from . import stats
from .errors import UserError
from .games import get_game
from .games.base import baseline_label, baseline_spec
from .policy_files import policy_digest

GUIDE_NAME = "strategy-guide.json"
#: The ablation with the search player as the strongest player (docs/strategy.md).
SEARCH_GUIDE_NAME = "strategy-guide-search.json"
#: Risk bands of the push table (upper edges; the first band is "no risk").
RISK_EDGES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)
ROUND_BINS = ((1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 99))
MANA_BINS = ((0, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 999))
TOP = 3            # first buys named per bin
MANA_CAP = 6       # field mana of the push table: 0, 1, ..., 6+
MIN_SENTENCE_N = 30   # a push band gets a sentence from this many decisions (all are tabled)


def hooks(game):
    """The module of ``game``'s strategy-guide part; UserError when it has none."""
    g = get_game(game)
    ref = getattr(g, "strategy", None)
    if not ref:
        raise UserError(f"{g.name} has no strategy guide (its Game sets no strategy hook)")
    return importlib.import_module(ref)


def kinds(game) -> list[str]:
    return [k for k, _, _ in hooks(game).DECISION_KINDS]


# ---------------------------------------------------------------------------
# Observing games
# ---------------------------------------------------------------------------
def observe(game, cs, players: int, seed: int, games: int, policy, rules=None,
            progress=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Games ``0 .. games-1`` of ``seed`` with every player playing ``policy`` (the
    reference engine, recorded): (decisions, buys) frames with a ``game`` column."""
    h = hooks(game)
    dec, buys = [], []
    for gi in range(games):
        d, b, _ = h.observe_game(cs, players, seed, gi, [policy] * players, rules)
        for row in d:
            row["game"] = gi
        for row in b:
            row["game"] = gi
        dec.extend(d)
        buys.extend(b)
        if progress is not None:
            progress(1)
    dcols = ["game", "player", "round", "turn", "pushes", "showing", "mana", "pool", "bad",
             "decay_share", "risk", "pushed"]
    bcols = ["game", "player", "round", "turn", "mana", "first", "vale"]
    return pd.DataFrame(dec, columns=dcols), pd.DataFrame(buys, columns=bcols)


def _band(risk: float) -> str:
    if risk != risk:
        return "unknown"
    if risk <= 0:
        return "0%"
    for lo, hi in zip(RISK_EDGES[:-1], RISK_EDGES[1:]):
        if risk <= hi:
            return f"{100 * lo:.0f}-{100 * hi:.0f}%"
    return f"{100 * RISK_EDGES[-2]:.0f}-100%"


def _rate(values, clusters) -> stats.Estimate:
    return stats.cluster_rate(np.asarray(values, float), np.asarray(clusters))


def mana_band(mana: pd.Series) -> pd.Series:
    """The field-mana label of each decision: "0", "1", ..., "6+"."""
    return mana.clip(upper=MANA_CAP).map(lambda m: f"{m}+" if m >= MANA_CAP else str(m))


def below_mana_stop(decisions: pd.DataFrame) -> pd.DataFrame:
    """The decisions taken with a field mana at which the player goes on at least half
    the time: a player that also stops on mana (a mana target) is read there, where
    the odds, not the mana, decide."""
    t = push_table(decisions, "mana")
    if not len(t):
        return decisions
    go = set(t.loc[t["push_rate"] >= 0.5, "mana_band"])
    return decisions[mana_band(decisions["mana"]).isin(go)]


def push_table(decisions: pd.DataFrame, by: str = "risk") -> pd.DataFrame:
    """Push rate by ``by``: "risk" (bands of the exact odds that going on turns bad),
    "showing" (the counter showing) or "both".  A row per group: ``n`` decisions,
    ``games``, ``push_rate`` with its 95% interval clustered by game, the mean exact
    risk, the mean share of risky cards in the pool (``decay_share``) and the mean
    pool size."""
    d = decisions.copy()
    d["band"] = d["risk"].map(_band)
    keys = {"risk": ["band"], "showing": ["showing"], "both": ["showing", "band"],
            "mana": ["mana_band"], "mana_risk": ["mana_band", "band"]}[by]
    d["mana_band"] = mana_band(d["mana"])
    order = {b: i for i, b in enumerate(["0%"] + [_band(e) for e in RISK_EDGES[1:]]
                                        + ["unknown"])}
    rows = []
    for key, g in d.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        e = _rate(g["pushed"], g["game"])
        row = dict(zip(keys, key))
        row.update(n=len(g), games=int(g["game"].nunique()), push_rate=e.value,
                   push_lo=e.lo, push_hi=e.hi, mean_risk=float(g["risk"].mean()),
                   decay_share=float(g["decay_share"].mean()), pool=float(g["pool"].mean()))
        rows.append(row)
    out = pd.DataFrame(rows)
    if not len(out):
        return out
    sort = [k if k != "band" else "_b" for k in keys]
    if "mana_band" in keys:
        out["mana_band"] = out["mana_band"].astype(str)
        sort = [k if k != "mana_band" else "_m" for k in sort]
        out["_m"] = out["mana_band"].str.rstrip("+").astype(int)
    if "band" in keys:
        out["_b"] = out["band"].map(order)
    out = out.sort_values(sort).drop(columns=[c for c in ("_b", "_m") if c in out]).reset_index(drop=True)
    return out


def threshold(table: pd.DataFrame) -> "dict | None":
    """Where the player stops going on: the first risk band (in order, "no risk"
    included) whose push rate is below one half, and the band before it: {"stops":
    band, "goes": band or None}; None when it goes on at least half the time in
    every band seen."""
    if not len(table) or "band" not in table:
        return None
    t = table[table["band"] != "unknown"].reset_index(drop=True)
    low = t.index[t["push_rate"] < 0.5]
    if not len(low):
        return None
    i = int(low[0])
    return {"stops": str(t["band"].iloc[i]), "goes": str(t["band"].iloc[i - 1]) if i else None}


def _bin_label(lo, hi, top) -> str:
    return f"{lo}+" if hi >= top else f"{lo}-{hi}"


def buy_table(buys: pd.DataFrame, by: str = "round", column: str = "first",
              top: int = TOP) -> pd.DataFrame:
    """What is bought first (``column``: "first" advancement or "vale"), by ``by``
    ("round" or "mana") bins: a row per bin and choice among its ``top`` most common
    (and "nothing"), with its share of the bin's buying phases, the 95% interval
    clustered by game, ``n`` phases and ``games``."""
    bins = ROUND_BINS if by == "round" else MANA_BINS
    rows = []
    for lo, hi in bins:
        g = buys[(buys[by] >= lo) & (buys[by] <= hi)]
        if not len(g):
            continue
        counts = g[column].replace("", "nothing").value_counts()
        names = [n for n in counts.index[:top]]
        if "nothing" not in names and "nothing" in counts.index:
            names.append("nothing")
        for name in names:
            hit = (g[column].replace("", "nothing") == name)
            e = _rate(hit, g["game"])
            rows.append({by: _bin_label(lo, hi, bins[-1][1]), "choice": name, "n": len(g),
                         "games": int(g["game"].nunique()), "share": e.value, "lo": e.lo,
                         "hi": e.hi, "mean_mana": float(g["mana"].mean())})
    return pd.DataFrame(rows, columns=[by, "choice", "n", "games", "share", "lo", "hi",
                                       "mean_mana"])


# ---------------------------------------------------------------------------
# Which decisions matter: the ablation
# ---------------------------------------------------------------------------
def _same_play(a, b) -> bool:
    """Whether two policies differ in nothing but their names."""
    import dataclasses
    return dataclasses.replace(a, name="x") == dataclasses.replace(b, name="x")


def cost_estimate(shares: np.ndarray, players: int) -> dict:
    """The win share a focal policy gives up against the strong field: ``shares``
    (seatings, deals) of the focal player; cost = 1/P - its share, paired by deal
    (:func:`vale_sim.variants.paired`, bounded when no deal moved), its interval
    clipped to what a share in [0, 1] allows: [1/P - 1, 1/P]."""
    from .variants import paired
    shares = np.asarray(shares, float)
    deals = shares.shape[1]
    mine = pd.Series(shares.mean(axis=0), index=range(deals))
    fair = pd.Series(np.full(deals, 1.0 / players), index=range(deals))
    d = paired(fair, mine, bound=1.0)
    lo, hi = max(d.lo, 1.0 / players - 1.0), min(d.hi, 1.0 / players)   # shares lie in [0, 1]
    return {"win_share": float(mine.mean()), "cost": d.mean, "cost_lo": lo, "cost_hi": hi,
            "n": int(shares.size), "deals": deals, "interval": d.method}


def searched_kinds(pol):
    """The kinds of decision a search player decides by rollouts (its ``search_decides``,
    docs/search.md), or None for a table policy."""
    kinds = getattr(pol, "search_decides", None)
    return None if kinds is None else tuple(kinds)


def hybrid_of(h, cs, strong, other, kind: str):
    """The game's hybrid (``strong`` with ``other``'s fields of ``kind``); for a search
    player also without ``kind`` among the decisions it searches, so that kind is made
    by the swapped fields (its policy's own choice) and not by rollouts."""
    import dataclasses
    pol = h.hybrid(cs, strong, other, kind)
    kinds = searched_kinds(strong)
    if kinds is not None:
        pol = dataclasses.replace(pol, search_decides=tuple(k for k in kinds if k != kind))
    return pol


def ablation(game, cs, players: int, strong, other, deals: int, seed: int, rules=None,
             engine: str = "fast", which=None, progress=None) -> pd.DataFrame:
    """A row per decision kind (``which``: default all, then "all": ``other`` itself):
    the hybrid's win share against ``P - 1`` copies of ``strong`` on deals
    ``0 .. deals-1`` of ``seed``, every seat of every deal, and the share it costs.
    A search player's hybrid of kind X also stops searching X (:func:`hybrid_of`)."""
    from .tournament import focal_shares
    g = get_game(game)
    h = hooks(g)
    words = {k: w for k, w, _ in h.DECISION_KINDS}
    rows = []
    for kind in list(which or words) + ["all"]:
        pol = other if kind == "all" else hybrid_of(h, cs, strong, other, kind)
        shares, _ = focal_shares(cs, players, seed, deals, pol, strong, rules, engine,
                                 game=g.name, frames=False)
        row = {"kind": kind, "decisions": words.get(kind, f"every decision ({other.name})"),
               "policy": pol.name, "unchanged": _same_play(pol, strong)}
        row.update(cost_estimate(shares, players))
        rows.append(row)
        if progress is not None:
            progress(players * deals)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# The whole guide
# ---------------------------------------------------------------------------
def guide(game, players=(2,), policy: str | None = None, baseline: str = "balanced",
          games: int = 100, deals: int = 500, seed: int = 0, card_set=None, rules=None,
          engine: str = "fast", progress=None) -> dict:
    """The strategy guide of ``policy`` (the strong player; default the game's strongest
    bundled field, :func:`vale_sim.strong_field.field_of`) against ``baseline`` at each
    player count: push tables, first buys, the ablation.  JSON-ready."""
    from .io import jsonable
    from .strong_field import field_of
    g = get_game(game)
    policy = policy or field_of(g)
    h = hooks(g)
    cs = g.load_card_set(card_set if card_set is not None else g.default_card_set)
    out = {"game": g.name, "card_set": cs.name, "card_set_digest": cs.digest(),
           "policy": baseline_label(policy), "baseline": baseline_label(baseline),
           "event": h.EVENT, "showing": h.SHOWING, "risky": h.RISKY,
           "kinds": [{"kind": k, "decisions": w, "fields": list(f)}
                     for k, w, f in h.DECISION_KINDS],
           "settings": {"games": games, "deals": deals, "seed": seed, "engine": engine,
                        "players": list(players)},
           "players": {}}
    for p in players:
        g.validate_playable(cs, p)
        strong = g.resolve_baseline(policy, p, cs)
        other = g.resolve_baseline(baseline, p, cs)
        from .mixture import is_mixture
        for opt_, pol in (("--policy", strong), ("--baseline", other)):
            if is_mixture(pol):
                from .errors import UserError
                raise UserError(f"{opt_} {pol.name}: the strategy guide reads one policy's "
                                f"decisions and its parameters, not a mixed field; give one of "
                                f"its members")
        ab = ablation(g, cs, p, strong, other, deals, seed, rules, engine, progress=progress)
        if not games:                 # the ablation only (e.g. a search player: slow games)
            out["players"][str(p)] = {
                "strong": strong.name, "other": other.name,
                "strong_digest": policy_digest(strong), "other_digest": policy_digest(other),
                "decisions": 0, "buy_phases": 0, "ablation": ab.to_dict("records")}
            continue
        dec, buys = observe(g, cs, p, seed, games, strong, rules, progress)
        risk = push_table(dec, "risk")
        below = below_mana_stop(dec)
        risk_below = push_table(below, "risk")
        out["players"][str(p)] = {
            "strong": strong.name, "other": other.name,
            "strong_digest": policy_digest(strong), "other_digest": policy_digest(other),
            "decisions": len(dec), "buy_phases": len(buys),
            "overall_push": _est(_rate(dec["pushed"], dec["game"])) if len(dec) else None,
            "push_by_risk": risk.to_dict("records"),
            "push_by_showing": push_table(dec, "showing").to_dict("records"),
            "push_by_both": push_table(dec, "both").to_dict("records"),
            "push_by_mana": push_table(dec, "mana").to_dict("records"),
            "push_by_mana_risk": push_table(dec, "mana_risk").to_dict("records"),
            "push_by_risk_below_mana_stop": risk_below.to_dict("records"),
            "below_mana_stop": len(below),
            "threshold": threshold(risk_below),
            "first_by_round": buy_table(buys, "round").to_dict("records"),
            "first_by_mana": buy_table(buys, "mana").to_dict("records"),
            "vale_by_round": buy_table(buys, "round", "vale").to_dict("records"),
            "ablation": ab.to_dict("records")}
    return jsonable(out)


def stale_players(doc: dict, game) -> list[str]:
    """The player counts of a guide whose strong or baseline policy is no longer what
    its spec resolves to (rerun the guide's command)."""
    g = get_game(game)
    out = []
    for p, r in doc["players"].items():
        try:
            now = (policy_digest(g.resolve_baseline(doc["policy"], int(p))),
                   policy_digest(g.resolve_baseline(doc["baseline"], int(p))))
        except ValueError:
            out.append(p)
            continue
        if now != (r.get("strong_digest"), r.get("other_digest")):
            out.append(p)
    return out


def _est(e: stats.Estimate) -> dict:
    return {"value": e.value, "lo": e.lo, "hi": e.hi, "n": e.n, "clusters": e.clusters}


# ---------------------------------------------------------------------------
# The report section (a bundled guide; plays no game)
# ---------------------------------------------------------------------------
def guide_path(game) -> Path:
    g = get_game(game)
    return Path(importlib.import_module(g.package).__file__).parent / "data" / GUIDE_NAME


def search_guide_path(game) -> Path:
    """The bundled ablation of the strongest player, the search player
    (``vale-sim strategy --policy search:... --games 0``)."""
    return guide_path(game).with_name(SEARCH_GUIDE_NAME)


def search_guide_paths(game) -> list[Path]:
    """Every bundled search ablation: ``strategy-guide-search.json`` and its variants
    ``strategy-guide-search-<tag>.json`` (e.g. ``-k64``, another budget), in name order."""
    first = search_guide_path(game)
    return sorted(first.parent.glob(first.stem + "*.json"))


def load_guide(game, path=None) -> dict | None:
    try:
        doc = json.loads(Path(path or guide_path(game)).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("players"), dict) else None


def _pct(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def _iv(v, lo, hi, signed=False) -> str:
    if v is None:
        return "n/a"
    f = "{:+.1f}" if signed else "{:.1f}"
    lo_s = "n/a" if lo is None else f.format(100 * lo)
    hi_s = "n/a" if hi is None else f.format(100 * hi)
    return f"{f.format(100 * v)}{'' if signed else '%'} [{lo_s}, {hi_s}]"


def push_sentences(doc: dict, p: str) -> list[str]:
    r = doc["players"][p]
    ev, show = doc["event"], doc["showing"]
    out = []
    if r.get("overall_push"):
        o = r["overall_push"]
        out.append(f"At {p} players `{r['strong']}` chose to {ev} in "
                   f"{_iv(o['value'], o['lo'], o['hi'])} of its {o['n']} decisions "
                   f"({o['clusters']} games).")
    rows = [x for x in r["push_by_risk"] if x["band"] != "unknown"]
    few = [x for x in rows if x["n"] < MIN_SENTENCE_N]
    for row in rows:
        if row["n"] < MIN_SENTENCE_N:
            continue
        out.append(f"When the exact chance that one more {ev} goes bad is {row['band']} "
                   f"(mean {_pct(row['mean_risk'])}; {_pct(row['decay_share'])} of the cards "
                   f"left {doc.get('risky', 'are risky')}), it goes on {_iv(row['push_rate'], row['push_lo'], row['push_hi'])}"
                   f" of the time (n = {row['n']} decisions, {row['games']} games).")
    th = r.get("threshold") if isinstance(r.get("threshold"), dict) else None
    below = r.get("push_by_risk_below_mana_stop")
    if below and r.get("below_mana_stop", 0) < r.get("decisions", 0):
        out.append(f"Read where the mana in the field does not stop it ({r['below_mana_stop']} "
                   f"of the {r['decisions']} decisions): "
                   + "; ".join(f"at {x['band']} it goes on "
                               f"{_iv(x['push_rate'], x['push_lo'], x['push_hi'])} (n = {x['n']})"
                               for x in below if x["band"] != "unknown"
                               and x["n"] >= MIN_SENTENCE_N) + ".")
    seen = [x["band"] for x in rows if x["band"] != "unknown"]
    if few:
        out.append(f"(Bands with fewer than {MIN_SENTENCE_N} decisions are in the table only: "
                   + ", ".join(f"{x['band']} n = {x['n']}" for x in few) + ".)")
    if th and th.get("goes") == "0%":
        out.append(f"Rule of thumb: it goes on only when the next card cannot go bad, and "
                   f"stops at any risk.")
    elif th and th.get("goes"):
        out.append(f"Rule of thumb: it goes on at odds of {th['goes']} and mostly stops from "
                   f"{th['stops']} on.")
    elif th:
        out.append(f"Rule of thumb: it hardly ever goes on when there is any risk at all "
                   f"(below one half already at {th['stops']}).")
    elif seen:
        out.append(f"Rule of thumb: it goes on at least half the time whatever the odds "
                   f"(up to {seen[-1]}).")
    mana = r.get("push_by_mana") or []
    stop = [x for x in mana if x["push_rate"] < 0.5]
    go = [x for x in mana if x["push_rate"] >= 0.5]
    if stop and go:
        x = stop[0]
        out.append(f"It also stops on mana: with {x['mana_band']} mana in the field it goes on "
                   f"{_iv(x['push_rate'], x['push_lo'], x['push_hi'])} of the time (n = "
                   f"{x['n']}), with {go[-1]['mana_band']} "
                   f"{_iv(go[-1]['push_rate'], go[-1]['push_lo'], go[-1]['push_hi'])} (n = "
                   f"{go[-1]['n']}).")
    return out


def ablation_sentences(doc: dict, p: str) -> list[str]:
    r = doc["players"][p]
    rows = sorted([x for x in r["ablation"] if x["kind"] != "all"], key=lambda x: -x["cost"])
    out = []
    for x in rows:
        out.append(f"Playing {x['decisions']} like `{r['other']}` costs "
                   f"{_iv(x['cost'], x['cost_lo'], x['cost_hi'], signed=True)} points of win "
                   f"share (n = {x['n']} player-games on {x['deals']} deals"
                   + ("; the same play: nothing changes" if x["unchanged"] else "") + ").")
    whole = [x for x in r["ablation"] if x["kind"] == "all"]
    if whole:
        x = whole[0]
        out.append(f"All of them at once (`{r['other']}` itself) costs "
                   f"{_iv(x['cost'], x['cost_lo'], x['cost_hi'], signed=True)} points "
                   f"(n = {x['n']}).")
    return out


def buy_sentences(doc: dict, p: str, column="first_by_round", by="round") -> list[str]:
    r = doc["players"][p]
    t = pd.DataFrame(r[column])
    out = []
    if not len(t):
        return out
    for b, g in t.groupby(by, sort=False):
        g = g.sort_values("share", ascending=False)
        top = g.iloc[0]
        label = f"With {b} mana" if by == "mana" else f"{by.capitalize()} {b}"
        out.append(f"{label}: first buy {top['choice']} "
                   f"{_iv(top['share'], top['lo'], top['hi'])} of {top['n']} buying phases"
                   + "".join(f"; {x.choice} {_iv(x.share, x.lo, x.hi)}"
                             for x in g.iloc[1:].itertuples()) + ".")
    return out


def push_figure(doc: dict):
    """Push rate against the exact odds of going bad, a line per player count (a figure
    outside pyplot, as the report's own: nothing to close)."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=(6.5, 4))
    ax = fig.subplots()
    for p, r in doc["players"].items():
        below = pd.DataFrame(r.get("push_by_risk_below_mana_stop") or [])
        every = pd.DataFrame(r["push_by_risk"])
        line = None
        for t, fmt, what in ((below, "o-", "below its mana stop"), (every, "x:", "all")):
            if not len(t):
                continue
            t = t[(t["band"] != "unknown") & t["push_lo"].notna()]
            kw = {"color": line[0].get_color()} if line is not None else {}
            line = ax.errorbar(100 * t["mean_risk"], 100 * t["push_rate"],
                               yerr=[100 * (t["push_rate"] - t["push_lo"]),
                                     100 * (t["push_hi"] - t["push_rate"])],
                               fmt=fmt, capsize=3, alpha=1.0 if what != "all" else 0.5,
                               label=f"{p} players ({r['strong']}), {what}", **kw)
    ax.set_xlabel(f"exact chance that one more {doc['event']} goes bad, % (band mean)")
    ax.set_ylabel(f"share of decisions to {doc['event']}, %")
    ax.set_ylim(-2, 102)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title(f"When does `{doc['policy']}` {doc['event']}? (95% CI, clustered by game)")
    fig.tight_layout()
    return fig


def ablation_figure(doc: dict):
    from matplotlib.figure import Figure
    items = [(p, x) for p, r in doc["players"].items() for x in r["ablation"]]
    fig = Figure(figsize=(6.5, 0.4 * len(items) + 1.5))
    ax = fig.subplots()
    y = np.arange(len(items))[::-1]
    c = np.array([x["cost"] for _, x in items]) * 100
    lo = np.array([x["cost_lo"] for _, x in items]) * 100
    hi = np.array([x["cost_hi"] for _, x in items]) * 100
    ax.errorbar(c, y, xerr=[c - lo, hi - c], fmt="o", capsize=3)
    ax.set_yticks(y, [f"{p}p: {x['kind']}" for p, x in items])
    ax.axvline(0, color="grey", lw=1, ls="--")
    ax.set_xlabel(f"win share lost when playing that decision like `{doc['baseline']}`, "
                  f"points (95% CI)")
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig


def section_parts(game, path=None):
    """(title, paragraphs, tables, figures) of the report's "Strategy guide" section,
    from the bundled guide of ``game`` (plays no game)."""
    title = "Strategy guide"
    doc = load_guide(game, path)
    where = path or guide_path(game)
    if doc is None or not doc["players"]:
        return (title, [f"No bundled strategy guide for {get_game(game).name} "
                        f"({Path(where).name} is missing); run `vale-sim strategy --game "
                        f"{get_game(game).name} --out {where}` (docs/strategy.md)."], {}, [], [])
    st = doc["settings"]
    from .strong_field import field_of
    who = (f"the strongest bundled player, `{doc['policy']}` (the game's strongest bundled "
           f"field, docs/meta.md),"
           if str(doc["policy"]) == field_of(game) else f"`{doc['policy']}`")
    paras = [f"How {who} plays, measured (precomputed by `{doc.get('command', 'vale-sim strategy')}`,"
             f" not recomputed by this report; seed {st['seed']}, card set {doc['card_set']}).  "
             f"Its decisions are recorded in {st['games']} reference-engine games of it against "
             f"itself per player count; every rate has n and a 95% interval clustered by game.  "
             f"The ablation plays a hybrid (one kind of decision made like `{doc['baseline']}`) "
             f"against P - 1 copies of `{doc['policy']}` on {st['deals']} common deals, every "
             f"seat of every deal ({st['engine']} engine): its cost is the fair share 1/P "
             f"minus its win share, paired by deal, 95% interval.  docs/strategy.md."]
    stale = stale_players(doc, game)
    if stale:
        paras.append(f"**Out of date:** at {', '.join(stale)} players `{doc['policy']}` or "
                     f"`{doc['baseline']}` is no longer the policy this guide measured (a "
                     f"re-bundled field); rerun `{doc.get('command', 'vale-sim strategy')}`.")
    tables, bullets = {}, []
    for p in doc["players"]:
        bullets.append((f"{p} players: when to {doc['event']}", push_sentences(doc, p)))
        bullets.append((f"{p} players: what to buy first, by round", buy_sentences(doc, p)))
        bullets.append((f"{p} players: what to buy first, by mana",
                        buy_sentences(doc, p, "first_by_mana", "mana")))
        bullets.append((f"{p} players: which decisions matter", ablation_sentences(doc, p)))
        r = doc["players"][p]
        tables[f"strategy_push_{p}p"] = pd.DataFrame(r["push_by_both"])
        tables[f"strategy_push_below_mana_stop_{p}p"] = pd.DataFrame(
            r.get("push_by_risk_below_mana_stop") or [])
        tables[f"strategy_push_mana_{p}p"] = pd.DataFrame(r.get("push_by_mana") or [])
        buys = {"share": "first_share", "lo": "first_lo", "hi": "first_hi"}
        tables[f"strategy_first_round_{p}p"] = pd.DataFrame(r["first_by_round"]).rename(columns=buys)
        tables[f"strategy_first_mana_{p}p"] = pd.DataFrame(r["first_by_mana"]).rename(columns=buys)
        tables[f"strategy_vale_round_{p}p"] = pd.DataFrame(r["vale_by_round"]).rename(columns=buys)
        tables[f"strategy_ablation_{p}p"] = pd.DataFrame(r["ablation"]).rename(columns={
            "win_share": "hybrid_share", "cost": "win_cost", "cost_lo": "win_cost_lo",
            "cost_hi": "win_cost_hi"})
    for spath in (search_guide_paths(game) if path is None else []):
        sdoc = load_guide(game, spath)
        if sdoc is None:
            continue
        tag = spath.stem[len(Path(SEARCH_GUIDE_NAME).stem):].strip("-").replace("-", "_")
        tag = f"_{tag}" if tag else ""
        sst = sdoc["settings"]
        paras.append(
            f"**With the search player as the strongest player** (`{sdoc['policy']}`, "
            f"docs/search.md; precomputed by `{sdoc.get('command', 'vale-sim strategy')}`, not "
            f"recomputed by this report): the same ablation, the hybrid of a kind also no "
            f"longer searching that kind (its policy fields of the kind are "
            f"`{sdoc['baseline']}`'s), against P - 1 search players on {sst['deals']} common "
            f"deals, every seat of every deal; 95% intervals paired by deal.")
        stale_s = stale_players(sdoc, game)
        if stale_s:
            paras.append(f"**Out of date:** at {', '.join(stale_s)} players `{sdoc['policy']}` "
                         f"is no longer the policy this ablation measured; rerun "
                         f"`{sdoc.get('command', 'vale-sim strategy')}`.")
        for p in sdoc["players"]:
            bullets.append((f"{p} players: which decisions matter to the search player "
                            f"`{sdoc['players'][p]['strong']}`", ablation_sentences(sdoc, p)))
            tables[f"strategy_ablation_search{tag}_{p}p"] = pd.DataFrame(
                sdoc["players"][p]["ablation"]).rename(columns={
                    "win_share": "hybrid_share", "cost": "win_cost", "cost_lo": "win_cost_lo",
                    "cost_hi": "win_cost_hi"})
    figs = [("strategy_push", push_figure(doc),
             f"Share of decisions to {doc['event']} against the exact odds that it goes bad: "
             f"solid where the mana in the field does not stop it, dotted all decisions "
             f"(95% CI clustered by game)."),
            ("strategy_ablation", ablation_figure(doc),
             f"Win share lost by making one kind of decision like `{doc['baseline']}` against "
             f"a field of `{doc['policy']}` (95% CI paired by deal).")]
    return title, paras, tables, figs, bullets


def section_strategy(ctx):
    """The report's "Strategy guide" section of ``ctx.game`` (a bundled guide)."""
    from .report.sections import Section
    title, paras, tables, figs, bullets = section_parts(ctx.game)
    return Section(title, paras, tables, figs, bullets)
