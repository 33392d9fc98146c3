"""The wither-odds page of ``vale-sim serve`` (``Game.workbench``, docs/workbench.md).

The workbench is game-neutral; what it needs of the game's bad-turn odds is
here: the deck form (:func:`deck_form`), the bundled decks as editable data
(:func:`bundled_decks`) and the exact odds of a deck with the best Rest/Grow
rule (:func:`deck_odds`).  A deck is the dict of a deck file
(docs/wither-odds.md): ``base``, ``druid``, ``vales`` and ``cards`` (``{"land",
"advances", "count", "place"}`` each); the card set is the workbench's current
one.  Errors are the wither module's one-line DeckError / CardSetError.
"""
from __future__ import annotations

TITLE = "Wither odds"
WORDS = {"push": "play", "pushes": "plays", "bad": "wither"}
MAX_PUSHES = 12
MAX_STATES = 1_500_000


def deck_form(cs) -> dict:
    """How a deck is built: the fields of a card entry and of the deck."""
    from .wither import PLACES
    druids = [a.name for a in cs.advances if a.level == 0]
    return {
        "entry": [{"name": "land", "kind": "choice", "choices": [s.name for s in cs.starting]},
                  {"name": "advances", "kind": "names", "max": 4,
                   "choices": [a.name for a in cs.advances if a.level > 0]},
                  {"name": "count", "kind": "int", "min": 1, "default": 1},
                  {"name": "place", "kind": "choice", "choices": list(PLACES)}],
        "deck": [{"name": "base", "kind": "choice", "choices": ["starter", ""]},
                 {"name": "druid", "kind": "choice", "choices": [""] + druids},
                 {"name": "vales", "kind": "names", "choices": [v.name for v in cs.vales]}],
        "goals": [{"value": g, "label": f"most expected {g}"}
                  for g in ("mana", "spirit", "vp", "value")],
    }


def bundled_decks(cs) -> dict:
    """name -> deck dict of every bundled deck (its card set replaced by ``cs``)."""
    from vale_sim.odds import read_deck_file
    from .wither import DECKS_DIR, bundled_decks as names
    out = {}
    for n in names():
        d = read_deck_file(DECKS_DIR / f"{n}.toml")
        out[n] = {k: d[k] for k in ("base", "druid", "vales", "cards") if k in d}
    return out


def _clean(deck: dict) -> dict:
    d = {k: v for k, v in dict(deck).items() if k in ("base", "druid", "cards", "vales", "name")}
    for k in ("base", "druid"):
        if not d.get(k):
            d.pop(k, None)
    return d


def deck_odds(cs, deck: dict, pushes: int = 6, goal: str = "mana",
              max_states: int = MAX_STATES) -> dict:
    """The exact wither odds of ``deck`` after k = 1..plays plays and the best
    Rest/Grow rule for ``goal`` (mana, spirit, vp or value), as page tables."""
    from vale_sim.odds import DeckError
    from .wither import best_rule, deck_from_dict, parse_goal, wither_odds
    if isinstance(pushes, bool) or not isinstance(pushes, int) or not 1 <= pushes <= MAX_PUSHES:
        raise DeckError(f"plays: give a whole number from 1 to {MAX_PUSHES}, got {pushes!r}")
    d = deck_from_dict(_clean(deck), "deck", cs)
    res = wither_odds(d, pushes, max_states=max_states)
    g, target = parse_goal(goal)
    rule = best_rule(d, g, target, horizon=pushes, max_states=max_states)
    rows = []
    for k in range(1, pushes + 1):
        e = res.expected_given_no_wither[k]["mana"]
        rows.append([k, float(res.p_wither_within[k]), float(res.p_can_grow[k]),
                     float(res.expected[k]["mana"]), None if e is None else float(e)])
    rule_rows = [[r["plays"], r["suns"], r["rain"], r["reach"], r["p_grow"], r["grow_up_to"],
                  r["rest_from"]] for r in rule.summary(min_reach=0.001)]
    fixed = {int(k): float(v) for k, v in rule.fixed.items()}
    best_fixed = max(fixed, key=lambda k: fixed[k])
    what = f"expected {g}" if target is None else f"P({g} >= {target})"
    return {
        "deck": d.describe(), "method": res.method, "states": res.states,
        "columns": ["plays k", "P(Withered within k)", "P(can grow after k)",
                    "E[mana] resting after k", "E[mana | no wither]"],
        "rows": rows,
        "rule": {"goal": what, "value": float(rule.value), "best_fixed": best_fixed,
                 "best_fixed_value": fixed[best_fixed],
                 "text": f"The best Rest/Grow rule gives {what} = {float(rule.value):.3f}; "
                         f"the best fixed rule, play exactly {best_fixed} cards, gives "
                         f"{fixed[best_fixed]:.3f}.",
                 "columns": ["plays made", "suns showing", "rain held", "P(meet)", "P(grow)",
                             "grow if P(next withers) <=", "rest from"],
                 "rows": rule_rows},
        "note": "Exact over card-type compositions (docs/wither-odds.md); the first play of "
                "a Night is forced.",
    }
