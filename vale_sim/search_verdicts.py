"""Verdicts under search play (issue 28; docs/search.md, "Verdicts under search play").

The card verdicts of the report (natural estimand, docs/statistics.md §5.6) come from
games between table policies.  Here the same cards are measured again with *search
players* as the field (``search:k=..:rollout=..``: the baseline of every arm, so the
focal player and its opponents all search), next to the same cards under the reference
field (default the game's strongest bundled field, ``meta-{P}p``), on the same deals of one seed.  The search
player honours the arms' ban (``never``) and prefer (a leading ``card`` rule) in its own
options (vale_sim.search.committed_cards), so the arms mean what they mean for a table.

A flag under the reference field **holds** under search play when the search field's
verdict is the same flag; **does not hold** when the search field gives the opposite
flag or shows the card balanced; **not shown** when the search field is inconclusive at
its (small) n.  Cards flagged only under search play are **new under search**.

Search games are slow, so the study is precomputed by ``experiments/search_verdicts.py``
into ``<game package>/data/search-verdicts.json`` (one entry per study: the flagged
cards of the core set, the planted twins) and the report only reads it
(:func:`section_parts`).  Game-neutral: a game reaches it through the registry.
"""
from __future__ import annotations

import importlib
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import UserError
from .policy_files import policy_digest

FORMAT = "vale-sim search verdicts"
FILE_NAME = "search-verdicts.json"
SCRIPT = "experiments/search_verdicts.py"
HOLDS, NOT_HOLD, NOT_SHOWN, NEW, NONE = ("holds", "does not hold", "not shown",
                                          "new under search", "no flag")
FLAGS = ("over", "under")


def bundled_path(game) -> Path:
    from .games import get_game
    g = get_game(game)
    return Path(importlib.import_module(g.package).__file__).parent / "data" / FILE_NAME


def label(ref_verdict: str, search_verdict: str) -> str:
    """The rule of the module docstring."""
    if ref_verdict in FLAGS:
        if search_verdict == ref_verdict:
            return HOLDS
        if search_verdict in FLAGS or search_verdict == "balanced":
            return NOT_HOLD
        return NOT_SHOWN
    return NEW if search_verdict in FLAGS else NONE


def _rows(frame) -> dict:
    keep = ("kind", "level", "verdict", "flag", "natural_value", "natural_lo", "natural_hi",
            "natural_lo_adj", "natural_hi_adj", "strength", "strength_lo", "strength_hi",
            "n_deals", "natural_deals_changed", "natural_acquired_rate")
    out = {}
    for r in frame.to_dict("records"):
        out[r["card"]] = {k: (r[k].item() if hasattr(r[k], "item") else r[k]) for k in keep}
    return out


def measure(game, players: int, field: str, cards, deals: int, reference: str | None = None,
            reference_deals: int | None = None, seed: int = 0, card_set=None,
            engine: str = "fast", twins=(), expect=(), on_card=None) -> dict:
    """One study: ``cards`` under the search ``field`` on ``deals`` deals and under the
    ``reference`` field on ``reference_deals`` (default ``deals``) deals of ``seed``
    (deals ``0 .. n-1`` of both: the search field's deals are the reference's first),
    natural estimand, the report's tolerance, margin and correction (over the cards of
    the study).  ``twins``: pairs (a, b) whose natural values are compared, paired by
    deal; ``expect``: pairs (card, verdict) planted to read so."""
    from .advancements import (deals_changed, game_strength_run, paired_interval,
                               strength_frame)
    from .games import get_game
    from .robustness import baseline_label
    from .strong_field import field_of
    g = get_game(game)
    reference = reference or field_of(g)       # the game's strongest bundled field
    t0 = time.time()
    cs = g.load_card_set(card_set if card_set is not None else g.default_card_set)
    pol_f = g.resolve_baseline(field, players, cs)
    pol_r = g.resolve_baseline(reference, players, cs)
    runs, frames = {}, {}
    for who, pol, n in (("reference", pol_r, reference_deals or deals),
                        ("search", pol_f, deals)):
        run = game_strength_run(g.name, cs, games=n * players, players=players, seed=seed,
                                baseline=pol, cards=list(cards), engine=engine,
                                on_card=None if on_card is None else
                                (lambda i, m, c, who=who: on_card(who, i, m, c)))
        runs[who], frames[who] = run, strength_frame(run, estimand="natural")
    ref, srch = _rows(frames["reference"]), _rows(frames["search"])
    table = []
    for c in cards:
        a, b = ref[c], srch[c]
        table.append({"card": c, "kind": a["kind"], "level": a["level"],
                      "label": label(a["verdict"], b["verdict"]),
                      "reference": a, "search": b})
    pairs = []
    for a, b in twins:
        out = {"a": a, "b": b}
        for who, run in runs.items():
            d = run.natural_deals(a) - run.natural_deals(b)
            m, lo, hi = paired_interval(d, deals_changed(run.arms[a][1], run.arms[b][1]), 0.95)
            out[who] = {"value": m, "lo": lo, "hi": hi, "n_deals": int(d.size)}
        pairs.append(out)
    attrs = {w: {k: (v.item() if hasattr(v, "item") else v)
                 for k, v in f.attrs.items() if k != "rationality"} for w, f in frames.items()}
    return {"game": g.name, "players": players, "seed": seed, "card_set": cs.name,
            "card_set_digest": cs.digest(), "engine": engine,
            "field": baseline_label(field), "field_policy": pol_f.name, "field_digest": policy_digest(pol_f),
            "reference": baseline_label(reference), "reference_policy": pol_r.name,
            "reference_digest": policy_digest(pol_r),
            "deals": deals, "reference_deals": reference_deals or deals,
            "settings": attrs, "cards": table, "twins": pairs,
            "expect": [{"card": c, "verdict": v, "search": srch[c]["verdict"],
                        "reference": ref[c]["verdict"]} for c, v in expect],
            "seconds": round(time.time() - t0, 1)}


# ---------------------------------------------------------------------------
# The file
# ---------------------------------------------------------------------------
def problem(doc) -> str | None:
    """What is wrong with a search-verdicts file's content (None: nothing)."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return f"not a JSON object with format {FORMAT!r}"
    if not isinstance(doc.get("studies"), dict):
        return "no 'studies' object"
    for name, st in doc["studies"].items():
        for key in ("field", "reference", "deals", "reference_deals", "cards", "players"):
            if key not in st:
                return f"study {name!r}: no {key!r} field"
        for c in st["cards"]:
            for who in ("reference", "search"):
                x = c.get(who) or {}
                if not all(isinstance(x.get(k), (int, float)) for k in
                           ("natural_value", "natural_lo", "natural_hi", "n_deals")):
                    return f"study {name!r}, card {c.get('card')!r}: {who} needs its natural " \
                           f"value, interval and n_deals"
    return None


def read(path) -> dict:
    try:
        from .inputs import parse_json
        doc = parse_json(Path(path).read_text(encoding="utf-8"), path)
    except FileNotFoundError:
        raise UserError(f"{path}: no such file; write it with {SCRIPT}") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise UserError(f"{path}: not a search-verdicts file ({e.__class__.__name__}); "
                        f"regenerate it with {SCRIPT}") from None
    p = problem(doc)
    if p:
        raise UserError(f"{path}: not a search-verdicts file ({p}); regenerate it with {SCRIPT}")
    return doc


def with_study(doc, name: str, study: dict) -> dict:
    doc = dict(doc or {"format": FORMAT, "studies": {}})
    doc["studies"] = dict(doc.get("studies") or {}, **{name: study})
    return doc


def stale(study, game) -> list[str]:
    """The fields of a study that no longer resolve to the policy it measured."""
    from .games import get_game
    g = get_game(game)
    out = []
    for key in ("field", "reference"):
        try:
            if policy_digest(g.resolve_baseline(study[key], study["players"])) != study.get(
                    f"{key}_digest"):
                out.append(study[key])
        except ValueError:
            out.append(study[key])
    return out


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------
def _pp(x) -> str:
    return f"{100 * x:+.1f}"


def _iv(x) -> str:
    return f"{_pp(x['natural_value'])} [{_pp(x['natural_lo'])}, {_pp(x['natural_hi'])}]"


def _forced(x) -> str:
    return f"{_pp(x['strength'])} [{_pp(x['strength_lo'])}, {_pp(x['strength_hi'])}]"


def frame(study) -> pd.DataFrame:
    """One row per card: the verdict, natural value and forced value (prefer − ban; pp,
    95% CI, n deals) under each field, and whether the reference flag holds under search
    play."""
    rf, sf, P = study["reference_policy"], study["field_policy"], study["players"]
    rows = []
    for c in study["cards"]:
        a, b = c["reference"], c["search"]
        rows.append({"card": c["card"], "kind": c["kind"], "level": c["level"],
                     f"verdict ({rf})": a["verdict"],
                     f"natural value, pp ({rf})": _iv(a),
                     f"forced value, pp ({rf})": _forced(a),
                     f"n ({rf})": f"{a['n_deals']} deals = {2 * P * a['n_deals']} games",
                     f"verdict ({sf})": b["verdict"],
                     f"natural value, pp ({sf})": _iv(b),
                     f"forced value, pp ({sf})": _forced(b),
                     f"n ({sf})": f"{b['n_deals']} deals = {2 * P * b['n_deals']} games",
                     "flag under search play": c["label"]})
    return pd.DataFrame(rows)


def long_frame(study) -> pd.DataFrame:
    rows = []
    for c in study["cards"]:
        for who in ("reference", "search"):
            x = c[who]
            rows.append({"card": c["card"], "field": study[f"{'field' if who == 'search' else 'reference'}_policy"],
                         "role": who, **{k: x[k] for k in x}, "label": c["label"]})
    return pd.DataFrame(rows)


def sentences(study, game=None) -> list[str]:
    rf, sf, P = study["reference_policy"], study["field_policy"], study["players"]
    t = study["cards"]
    flagged = [c for c in t if c["reference"]["verdict"] in FLAGS]
    by = {lab: [c for c in flagged if c["label"] == lab] for lab in (HOLDS, NOT_HOLD, NOT_SHOWN)}

    def names(cs, who="reference"):
        return ", ".join(f"{c['card']} ({c[who]['verdict']}; {_iv(c['search'])} pp)"
                         for c in cs)
    out = [f"{len(t)} cards at {P} players, natural value (win share of the field's own play − "
           f"the field never taking it, 95% CI paired by deal, Benjamini–Hochberg over the "
           f"study's cards): under `{rf}` on {study['reference_deals']:,} deals, under the search "
           f"field `{sf}` (every player of every arm searches) on {study['deals']:,} deals "
           f"(= {2 * P * study['deals']:,} games per card: prefer and ban, each deal with the "
           f"focal player in each seat), seed {study['seed']}."]
    if flagged:
        verb = {HOLDS: "hold", NOT_HOLD: "do not hold", NOT_SHOWN: "are not shown (inconclusive)"}
        s = (f"Of the {len(flagged)} cards flagged under `{rf}` (flag; natural value under "
             f"search play), under search play ")
        s += "; ".join(f"{len(v)} {verb[lab]}" + (f": {names(v)}" if v else "")
                       for lab, v in by.items())
        out.append(s + ".")
        out.append(f"Which bots the flags hold for: `{rf}` (the field they were found "
                   f"under); for the search players `{sf}` {len(by[HOLDS])} of "
                   f"{len(flagged)} are confirmed and {len(by[NOT_HOLD])} contradicted"
                   + (f", the other {len(by[NOT_SHOWN])} neither at n = {study['deals']} deals"
                      if by[NOT_SHOWN] else "") + ".")
    new = [c for c in t if c["label"] == NEW]
    if new:
        out.append("Flagged under search play only: " + names(new, "search") + ".")
    for e in study.get("expect") or []:
        ok = e["search"] == e["verdict"]
        out.append(f"Planted: `{e['card']}` should read {e['verdict']}; under search play it "
                   f"reads {e['search']} ({'as planted' if ok else 'NOT as planted'}; under "
                   f"`{rf}`: {e['reference']}).")
    for p in study.get("twins") or []:
        s, r = p["search"], p["reference"]
        out.append(f"Twins: natural value of `{p['a']}` − `{p['b']}` under search play "
                   f"{_pp(s['value'])} pp [{_pp(s['lo'])}, {_pp(s['hi'])}] (n = {s['n_deals']} "
                   f"deals), under `{rf}` {_pp(r['value'])} pp [{_pp(r['lo'])}, {_pp(r['hi'])}] "
                   f"(n = {r['n_deals']}); identical cards should differ by 0.")
    if game is not None:
        gone = stale(study, game)
        if gone:
            out.append(f"**Out of date:** {', '.join('`' + x + '`' for x in gone)} no longer "
                       f"play(s) what this study measured (a re-bundled field); rerun "
                       f"`{study.get('command', SCRIPT)}`.")
    return out


def section_parts(game) -> tuple[list, dict, dict]:
    """(paragraphs, top tables, tables) of the "verdicts under search play" part of the
    report's robustness section, from the bundled file (plays no game)."""
    from .games import get_game
    g = get_game(game)
    path = bundled_path(g.name)
    head = "**Verdicts under search play**"
    if not path.is_file():
        return ([f"{head}: not measured for {g.title} ({FILE_NAME} is not bundled); run "
                 f"`{SCRIPT} --game {g.name} ...` (docs/search.md, \"Verdicts under search "
                 f"play\") once the game has a search player."], {}, {})
    try:
        doc = read(path)
    except UserError as e:
        return [f"{head}: not shown. {e}"], {}, {}
    paras, top, tables = [], {}, {}
    for name, st in doc["studies"].items():
        paras.append(f"{head} — {name} (precomputed by `{st.get('command', SCRIPT)}`, not "
                     f"recomputed by this report): " + " ".join(sentences(st, g.name)))
        key = "search_verdicts_" + "".join(ch if ch.isalnum() else "_" for ch in name)
        top[key] = frame(st)
        tables[key + "_long"] = long_frame(st)
    return paras, top, tables
