"""Mystic Vale's part of the strategy guide (``Game.strategy``; vale_sim/strategy.py,
docs/strategy.md).

* :data:`DECISION_KINDS`: the kinds of decision a policy makes, each with the policy
  fields (and buy rules) that decide it; :func:`hybrid` swaps one kind for another
  policy's.
* :func:`observe_game`: one reference-engine game with every push decision recorded
  (the situation the player saw, the exact chance that the next reveal spoils from
  the spoil-odds model, whether it pushed) and every Harvest's purchases.  The
  recording reads the players' state only: the game played is the reference
  engine's game, draw for draw.
"""
from __future__ import annotations

from dataclasses import replace

from .policy import PolicyError

#: (kind, words, fields).  The buy rules of a policy file go with the kind they buy
#: (the reference engine's ``rule_kind``: "level" -> advancement, "vale_ability" ->
#: vale, "best" -> its value, "card" -> what the named card is).
DECISION_KINDS = (
    ("push", "when to push or pass in Planting",
     ("push_risk_permille", "mana_target", "push_rule", "lookahead_caution_permille")),
    ("advancement", "which advancements to buy",
     ("w_mana", "w_spirit", "w_harvest_vp", "w_end_vp", "w_growth", "w_decay", "w_guardian",
      "w_ability", "w_cost", "min_score")),
    ("vale", "which vales to buy",
     ("w_vale_vp", "w_vale_ability", "vale_min_score", "use_sunstone")),
)
EVENT = "push"          # the go-on decision's name in the guide's words
RISKY = "carry decay"
SHOWING = "decay showing"


def _rule_kind(cs, rule) -> str:
    if rule.target == "level":
        return "advancement"
    if rule.target == "vale_ability":
        return "vale"
    if rule.target == "best":
        return rule.value
    return "advancement" if rule.value in {a.name for a in cs.advancements} else "vale"


def _never_kind(cs, name) -> str:
    return "advancement" if name in {a.name for a in cs.advancements} else "vale"


def hybrid(cs, strong, other, kind: str):
    """``strong`` with the decisions of ``kind`` taken from ``other``: its fields of that
    kind, its buy rules and never-list entries of that kind.  A buy kind left without
    rules while the policy keeps rules of the other kind would buy nothing of it (the
    engines read a rule list as complete, engine-spec §6.5): refused (PolicyError)."""
    fields = dict((k, f) for k, _, f in DECISION_KINDS)
    if kind not in fields:
        raise PolicyError(f"unknown decision kind {kind!r} (known: {', '.join(fields)})")
    changes = {f: getattr(other, f) for f in fields[kind]}
    if kind != "push":
        rules = tuple(r for r in strong.rules if _rule_kind(cs, r) != kind) + tuple(
            r for r in other.rules if _rule_kind(cs, r) == kind)
        if rules and not any(_rule_kind(cs, r) == kind for r in rules):
            raise PolicyError(f"policy {strong.name!r}: taking {other.name!r}'s {kind} buys "
                              f"leaves no {kind} buy rule next to its other rules (it would "
                              f"buy no {kind}); give {other.name!r} a 'best' {kind} rule")
        changes["rules"] = rules
        changes["never"] = tuple(n for n in strong.never if _never_kind(cs, n) != kind) + tuple(
            n for n in other.never if _never_kind(cs, n) == kind)
    return replace(strong, name=f"{strong.name}+{other.name}-{kind}", **changes)


def _exact_risk(pl, cs, rules) -> float:
    """The chance that one push from this situation spoils (the spoil-odds model,
    docs/spoil-odds.md: When Played abilities, Druid, Conclave and Arbor included)."""
    from . import spoil
    sit = spoil.Situation(list(pl.field), pl.on_deck, list(pl.deck), list(pl.discard),
                          pl.druid_used, pl.conclave_used, 0, pl.arbor_growth)
    deck = spoil.Deck(cs, pl.cards, tuple(v.vale_id for v in pl.active_vales()))
    try:
        return float(spoil.spoil_odds(deck, 1, sit, rules).p_spoil_within[1])
    except (spoil.TooManyStates, spoil.PrepLoop, ValueError):
        return float("nan")


def _game_class(players: int, policies):
    """The reference engine's game class for these players: the search player's game
    when one of them searches and the engine has one (reference/search.py), else the
    plain game."""
    from .reference.game import MysticValeGame
    try:
        from .policy import SearchPolicy, policies_for
        from .reference.search import SearchGame
    except ImportError:
        return MysticValeGame
    if any(isinstance(p, SearchPolicy) for p in policies_for(players, policies)):
        return SearchGame
    return MysticValeGame


def observe_game(cs, players: int, seed: int, game_index: int, policies, rules=None):
    """(decisions, buys, record) of one reference-engine game: lists of dicts and the
    game's record.

    A decision row per push decision where a push is possible (an on-deck
    card and cards left to reveal): ``player``, ``round``, ``turn``, ``pushes`` (before
    this one), ``showing`` (decay showing), ``mana`` (mana symbols in the field),
    ``pool`` (cards the next reveal comes from), ``bad`` (of them, cards that would
    spoil: the push rule's count), ``decay_share`` (share of the pool with net decay
    >= 1), ``risk`` (the exact chance the push spoils), ``pushed``.  A buy row per
    Harvest: ``player``, ``round``, ``turn``, ``mana`` (harvested, before the token),
    ``first`` (the first advancement bought, "" for none), ``vale`` (the first vale
    bought, "").

    The decision recorded is the game's final one: where the engine decides pushes
    in the game (``wants_push(pl, policy, pushes)``, which a search player
    overrides) the recording overrides it in a subclass and records only the game
    itself, not the copies a search plays out; else it wraps each player's rule."""
    from .rules import Rules
    rules = rules or Rules()
    base = _game_class(players, policies)
    decisions: list[dict] = []
    spoil_at = 4                                   # RB: Spoiling (engine-spec §1)
    root: list = []

    def situation(game, pl):
        pool = pl.deck if pl.deck else pl.discard
        if pl.on_deck < 0 or not pool:
            return None
        s = pl.decay_showing()
        return {"player": pl.index, "round": game.round, "turn": pl.turn_number,
                "showing": s, "mana": pl.field_mana_symbols(), "pool": len(pool),
                "bad": sum(1 for c in pool if pl.net(c) >= spoil_at - s),
                "decay_share": sum(1 for c in pool if pl.net(c) >= 1) / len(pool),
                "risk": _exact_risk(pl, cs, rules)}

    def note(row, go):
        if row is not None:
            row["pushed"] = bool(go)
            decisions.append(row)
        return go

    if hasattr(base, "wants_push"):
        class Observed(base):
            def wants_push(self, pl, policy, pushes):
                row = situation(self, pl) if root and self is root[0] else None
                return note(row, super().wants_push(pl, policy, pushes))
        game = Observed(cs, players, seed, game_index, policies, rules)
        root.append(game)
    else:
        game = base(cs, players, seed, game_index, policies, rules)
        for pl in game.players:
            def watch(pl, decide=pl.wants_push):
                pl.wants_push = lambda policy: note(situation(game, pl), decide(policy))
            watch(pl)
    rec = game.play()
    # pushes before each decision: its place in the turn's sequence
    last, k = None, 0
    for row in decisions:
        key = (row["player"], row["turn"])
        k = k + 1 if key == last else 0
        row["pushes"], last = k, key
    buys = []
    for t in rec.turns:
        if t.skipped or t.spoiled:
            continue
        buys.append({"player": t.player, "round": t.round, "turn": t.turn, "mana": t.mana,
                     "first": cs.advancements[t.bought[0]].name if t.bought else "",
                     "vale": cs.vales[t.vales[0]].name if t.vales else ""})
    return decisions, buys, rec
