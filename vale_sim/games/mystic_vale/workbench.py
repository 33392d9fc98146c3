"""The spoil-odds page of ``vale-sim serve`` (``Game.workbench``, docs/workbench.md).

The workbench is game-neutral; what it needs of a game's bad-turn odds is here:
the deck form (:func:`deck_form`), the bundled decks as editable data
(:func:`bundled_decks`) and the odds of a deck, exact, with the best push/stop
rule (:func:`deck_odds`).  A deck is the dict of a deck file (docs/spoil-odds.md):
``base`` ("starter" or absent), ``cards`` (``{"advancements": [...], "count": n}``
each) and ``vales``; the card set is the workbench's current one.  Errors are
the spoil module's one-line DeckError / CardSetError.
"""
from __future__ import annotations

#: What the page calls the odds, a push, and a bad turn.
TITLE = "Spoil odds"
WORDS = {"push": "push", "pushes": "pushes", "bad": "spoil"}
MAX_PUSHES = 12
MAX_STATES = 1_500_000           # the CLI's default limit of an exact computation


def deck_form(cs) -> dict:
    """How a deck is built: the fields of a card entry and of the deck."""
    buyable = [a.name for a in cs.advancements if a.supply != "starter"]
    printed = [a.name for a in cs.advancements if a.supply == "starter"]
    return {
        "entry": [{"name": "advancements", "kind": "names", "max": 3,
                   "choices": printed + buyable,
                   "help": "the advancements sleeved on the card (one per position)"},
                  {"name": "count", "kind": "int", "min": 1, "default": 1}],
        "deck": [{"name": "base", "kind": "choice", "choices": ["starter", ""],
                  "help": "\"starter\": the cards are crafted onto the starting deck"},
                 {"name": "vales", "kind": "names", "choices": [v.name for v in cs.vales]}],
        "goals": [{"value": "mana", "label": "most expected mana"}]
                 + [{"value": str(m), "label": f"best chance of at least {m} mana"}
                    for m in (4, 6, 8)],
    }


def bundled_decks(cs) -> dict:
    """name -> deck dict of every bundled deck (its card set replaced by ``cs``)."""
    from vale_sim.odds import read_deck_file
    from .spoil import DECKS_DIR, bundled_decks as names
    out = {}
    for n in names():
        if n == "starter":
            out[n] = {"base": "starter", "cards": [], "vales": []}
            continue
        d = read_deck_file(DECKS_DIR / f"{n}.toml")
        out[n] = {"base": d.get("base", ""), "cards": list(d.get("cards", [])),
                  "vales": list(d.get("vales", []))}
    return out


def _clean(deck: dict) -> dict:
    d = {k: v for k, v in dict(deck).items() if k in ("base", "cards", "vales", "name")}
    if not d.get("base"):
        d.pop("base", None)
    return d


def deck_odds(cs, deck: dict, pushes: int = 6, goal: str = "mana",
              max_states: int = MAX_STATES) -> dict:
    """The exact spoil odds of ``deck`` after k = 1..pushes pushes and the best
    push/stop rule for ``goal`` ("mana" or a number of mana), as page tables.
    ``max_states``: TooManyStates past that many states (at most the spoil module's
    AUTO_PYTHON_STATES: the readable Python model only, nothing compiled)."""
    from vale_sim.odds import DeckError
    from .spoil import best_rule, deck_from_dict, spoil_odds
    if isinstance(pushes, bool) or not isinstance(pushes, int) or not 1 <= pushes <= MAX_PUSHES:
        raise DeckError(f"pushes: give a whole number from 1 to {MAX_PUSHES}, got {pushes!r}")
    d = deck_from_dict(_clean(deck), "deck", cs)
    res = spoil_odds(d, pushes, max_states=max_states)
    g, target = ("mana", None) if goal == "mana" else ("reach", int(goal))
    rule = best_rule(d, g, target, horizon=pushes, max_states=max_states)
    rows = []
    for k in range(1, pushes + 1):
        e = res.expected_given_no_spoil[k]["mana"]
        rows.append([k, float(res.p_spoil_within[k]), float(res.p_can_push[k - 1]),
                     float(res.expected[k]["mana"]), None if e is None else float(e)])
    rule_rows = [[r["pushes"], r["decay_showing"], r["mana"], r["reach"], r["p_push"],
                  r["push_up_to"], r["stop_from"]] for r in rule.summary(min_reach=0.001)]
    what = "expected mana" if g == "mana" else f"P(mana >= {target})"
    fixed = {int(k): float(v) for k, v in rule.always_push.items()}
    best_fixed = max(fixed, key=lambda k: fixed[k])
    return {
        "deck": d.describe(), "method": res.method, "states": res.states,
        "p_prep_spoil": float(res.p_prep_spoil),
        "columns": ["pushes k", "P(spoiled within k)", "P(can push k-th)",
                    "E[mana] stopping after k (spoil = 0)", "E[mana | no spoil]"],
        "rows": rows,
        "rule": {"goal": what, "value": float(rule.value),
                 "best_fixed": best_fixed, "best_fixed_value": fixed[best_fixed],
                 "text": f"The best push/stop rule gives {what} = {float(rule.value):.3f}; "
                         f"the best fixed rule, always push {best_fixed} times, gives "
                         f"{fixed[best_fixed]:.3f}.",
                 "columns": ["pushes made", "decay showing", "mana in field", "P(meet)",
                             "P(push)", "push if P(next spoils) <=", "stop from"],
                 "rows": rule_rows},
        "note": "Exact over card-type compositions (docs/spoil-odds.md); the turn starts "
                "after Prep, and a spoiled turn gives 0 mana.",
    }
