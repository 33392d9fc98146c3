"""Checks a strong field must pass before its card verdicts are trusted (issue 36 item 6;
docs/statistics.md §5.9): planted twins, strictly better printings, rationality.

Each check plays copies of the game's card set with planted cards under a field, with
the fast engine at the bundled deck sizes, and returns what it saw; the tests hold the
strongest bundled field to them, and ``experiments/field_checks.py`` runs the same
checks under any field (the old ``meta-{P}p`` fails them: docs/statistics.md §5.9).

What the checks plant is the game's: its ``value`` module lists the cards
(``FIELD_CHECK_PLANTED``, ``FIELD_CHECK_MONOTONE``) and says what a card doing nothing,
a card with +6 end VP and a strictly better printing are for its cards
(``field_check_useless``, ``field_check_gross``, ``field_check_better``: each takes a
card and returns the edited copy under a new name).

    seen = planted_run(GAME, "value-2p", games=4000, seed=0)
    bad = monotone_violations(*monotone_run(GAME, "value-2p", games=4000))
"""
from __future__ import annotations

from dataclasses import replace

from .advancements import deals_changed, paired_interval, strength_frame, strength_run
from .games import get_game


def _value_module(g):
    import importlib
    return importlib.import_module(f"{g.package}.value")


def _game_cards(g, what: str) -> tuple:
    """The game's planted bases (``PLANTED``: a level-1, level-2 and level-3 card, a vale
    and a Fertile Soil, say, where the game has them) or the cards whose better printings
    are checked (``MONOTONE``), from its ``value`` module; a ValueError when it lists none."""
    cards = getattr(_value_module(g), f"FIELD_CHECK_{what}", None)
    if not cards:
        raise ValueError(f"{g.name} lists no FIELD_CHECK_{what} cards (its value module)")
    return tuple(cards)


def _hook(g, what: str):
    """The game's card edit ``field_check_{what}`` (``useless``, ``gross``, ``better``)
    from its ``value`` module: what doing nothing, +6 end VP and a strictly better
    printing mean for its cards; a ValueError when it has none."""
    fn = getattr(_value_module(g), f"field_check_{what}", None)
    if fn is None:
        raise ValueError(f"{g.name} has no field_check_{what} (its value module)")
    return fn


#: Verdicts in rank order (a better printing must not rank lower).
VERDICT_RANK = {"under": 0, "inconclusive": 1, "balanced": 1, "undecided": 1, "over": 2}


def _kinds(cs):
    """The card set's tuples of named cards (its fields holding them), by field name."""
    from dataclasses import fields
    out = {}
    for f in fields(cs):
        v = getattr(cs, f.name)
        if isinstance(v, tuple) and v and all(hasattr(c, "name") for c in v):
            out[f.name] = v
    return out


def _card(cs, name):
    for items in _kinds(cs).values():
        for c in items:
            if c.name == name:
                return c
    raise KeyError(name)


def _with(cs, extra, suffix="planted"):
    """``cs`` with the cards ``extra`` added, each to the tuple of the set that holds
    cards of its type (advancements or advances, vales)."""
    kinds = _kinds(cs)
    add = {k: () for k in kinds}
    for c in extra:
        k = next((k for k, items in kinds.items() if type(items[0]) is type(c)), None)
        if k is None:
            raise TypeError(f"{cs.name} holds no {type(c).__name__} cards")
        add[k] += (c,)
    return replace(cs, name=f"{cs.name}+{suffix}",
                   **{k: kinds[k] + v for k, v in add.items() if v})


def useless(game: str, card):
    """The same card doing nothing at its cost (the game's ``field_check_useless``)."""
    return _hook(get_game(game), "useless")(card)


def gross(game: str, card):
    """The card with +6 end VP (the game's ``field_check_gross``)."""
    return _hook(get_game(game), "gross")(card)


def better_printings(game: str, card) -> dict:
    """Strictly better printings, label -> card (the game's ``field_check_better``):
    −1 cost, +1 end VP, +1 mana or what the game's cards have for them."""
    return _hook(get_game(game), "better")(card)


def difference(run, a: str, b: str, confidence: float = 0.95):
    """natural value(a) − natural value(b) per deal, paired: ``(mean, lo, hi)``."""
    d = run.natural_deals(a) - run.natural_deals(b)
    return paired_interval(d, deals_changed(run.arms[a][1], run.arms[b][1]), confidence)


def planted_run(game: str, field: str, players: int = 2, games: int = 4000, seed: int = 0,
                bases=None) -> list[dict]:
    """Per base card, two strength runs: its gross twin (+6 end VP) alone in the set
    (planted together, gross twins would stand in for each other when one is banned,
    and each would read as worth little), then its useless twin and its identical twin.
    Returns per base the gross and useless verdicts and values and the identical twin's
    paired difference (99%: one check of many)."""
    g = get_game(game)
    cs = g.load_card_set(g.default_card_set)
    out = []
    for b in bases or _game_cards(g, "PLANTED"):
        o = _card(cs, b)
        gross = _hook(g, "gross")(o)
        run1 = strength_run(_with(cs, [gross]), games=games, players=players, seed=seed,
                            baseline=field, cards=[gross.name], engine="fast", game=g.name)
        df1 = strength_frame(run1, estimand="natural").set_index("card")
        blank = _hook(g, "useless")(o)
        run2 = strength_run(_with(cs, [blank, replace(o, name=f"{b} same")]), games=games,
                            players=players, seed=seed, baseline=field,
                            cards=[b, blank.name, f"{b} same"], engine="fast", game=g.name)
        df2 = strength_frame(run2, estimand="natural").set_index("card")
        m, lo, hi = difference(run2, f"{b} same", b, 0.99)
        gr, us = df1.loc[gross.name], df2.loc[blank.name]
        out.append({"card": b, "gross": gr["verdict"],
                    "gross_natural": float(gr["natural_value"]),
                    "gross_per_pick": float(gr["per_pick_value"]),
                    "gross_per_pick_lo": float(gr["per_pick_lo"]),
                    "gross_per_pick_hi": float(gr["per_pick_hi"]),
                    "gross_acquired": float(gr["natural_acquired_rate"]),
                    "gross_forced": float(gr["strength"]),
                    "useless": us["verdict"], "useless_natural": float(us["natural_value"]),
                    "useless_forced": float(us["strength"]),
                    "useless_acquired": float(us["natural_acquired_rate"]),
                    "same_diff": m, "same_lo": lo, "same_hi": hi,
                    "below_zero": (df1.attrs.get("rationality") or {}).get("below_zero", 0)
                    + (df2.attrs.get("rationality") or {}).get("below_zero", 0),
                    "below_zero_cards": [c for d in (df1, df2)
                                         for c in (d.attrs.get("rationality") or {})
                                         .get("cards", [])]})
    return out


def monotone_run(game: str, field: str, players: int = 2, games: int = 4000, seed: int = 0,
                 cards=None):
    """One strength run of the originals and their better printings: (run, frame, pairs)."""
    g = get_game(game)
    cs = g.load_card_set(g.default_card_set)
    extra, names, pairs = [], [], []
    for c in cards or _game_cards(g, "MONOTONE"):
        names.append(c)
        for v in _hook(g, "better")(_card(cs, c)).values():
            extra.append(v)
            names.append(v.name)
            pairs.append((v.name, c))
    run = strength_run(_with(cs, extra, "better"), games=games, players=players, seed=seed,
                       baseline=field, cards=names, engine="fast", game=g.name)
    return run, strength_frame(run, estimand="natural").set_index("card"), pairs


def monotone_pairs(run, df, pairs, confidence: float = 0.95) -> list[dict]:
    """Every pair (better, original): the paired natural-value difference at the
    Bonferroni level over the pairs and the two measures, both per-pick values with their
    intervals, both verdicts, and whether it reads lower (``lower``)."""
    level = 1 - (1 - confidence) / (2 * len(pairs))
    out = []
    for better, orig in pairs:
        m, lo, hi = difference(run, better, orig, level)
        pp_b, pp_o = df.loc[better], df.loc[orig]
        lower_pick = bool(pp_b["per_pick_hi"] < pp_o["per_pick_lo"])   # disjoint intervals
        rank = VERDICT_RANK[pp_b["verdict"]] < VERDICT_RANK[pp_o["verdict"]]
        out.append({"better": better, "original": orig, "natural_diff": m, "lo": lo,
                    "hi": hi, "per_pick_lower": lower_pick, "verdict_lower": rank,
                    "verdicts": (pp_b["verdict"], pp_o["verdict"]),
                    "per_pick": (float(pp_b["per_pick_value"]), float(pp_o["per_pick_value"])),
                    "acquired": (float(pp_b["natural_acquired_rate"]),
                                 float(pp_o["natural_acquired_rate"])),
                    "lower": bool(hi < 0 or lower_pick or rank)})
    return out


_VIOLATION_KEYS = ("better", "original", "natural_diff", "lo", "hi", "per_pick_lower",
                   "verdict_lower", "verdicts")


def monotone_violations(run, df, pairs, confidence: float = 0.95) -> list[dict]:
    """The pairs (better, original) shown lower by natural value or by per-pick value
    (paired intervals, Bonferroni over the pairs and the two measures), or whose verdict
    ranks lower."""
    return [{k: r[k] for k in _VIOLATION_KEYS}
            for r in monotone_pairs(run, df, pairs, confidence) if r["lower"]]
