"""Mystic Lands' part of the strategy guide (``Game.strategy``; vale_sim/strategy.py,
docs/strategy.md).

* :data:`DECISION_KINDS`: the kinds of decision a policy makes, each with the policy
  fields (and buy rules) that decide it; :func:`hybrid` swaps one kind for another
  policy's.
* :func:`observe_game`: one reference-engine game with every Grow-or-Rest decision of
  the Night recorded (suns showing, the cards the next reveal comes from, the exact
  chance it Withers, whether the player grew) and every Day's purchases.  The
  recording reads the players' state only: the game is the reference engine's game.
"""
from __future__ import annotations

from dataclasses import replace

from .policy import PolicyError

#: (kind, words, fields).  Buy rules go with what they buy: "level" -> Advance,
#: "vale" -> Vale, "card" -> what the named card is (an Advance, else a Vale spot).
DECISION_KINDS = (
    ("push", "when to Grow or Rest in the Night (and Rain tokens)",
     ("rest_risk_permille", "rain")),
    ("advancement", "which Advances to buy",
     ("w_mana", "w_spirit", "w_vp", "w_end_vp", "w_cloud", "w_sun", "w_rain", "w_aspect",
      "w_effect", "w_cost", "min_score")),
    ("vale", "which Vale spots to enchant",
     ("w_vale_vp", "w_vale_reward", "w_vale_effect", "w_vale_cost", "vale_min_score")),
)
EVENT = "grow"
RISKY = "show a sun"
SHOWING = "suns showing"


def _advance_names(cs) -> set:
    return {a.name for a in cs.advances if a.level}


def _rule_kind(cs, rule) -> str:
    if rule.target == "level":
        return "advancement"
    if rule.target == "vale":
        return "vale"
    return "advancement" if rule.value in _advance_names(cs) else "vale"


def hybrid(cs, strong, other, kind: str):
    """``strong`` with the decisions of ``kind`` taken from ``other``: its fields of that
    kind, its buy rules and never-list entries of that kind (a rule bot's rules come
    first and the best score decides when none applies, spec §6.4-§6.5, so a kind
    without rules falls back to the scores)."""
    fields = dict((k, f) for k, _, f in DECISION_KINDS)
    if kind not in fields:
        raise PolicyError(f"unknown decision kind {kind!r} (known: {', '.join(fields)})")
    changes = {f: getattr(other, f) for f in fields[kind]}
    if kind != "push":
        adv = _advance_names(cs)

        def nk(n):
            return "advancement" if n in adv else "vale"
        changes["rules"] = tuple(r for r in strong.rules if _rule_kind(cs, r) != kind) + tuple(
            r for r in other.rules if _rule_kind(cs, r) == kind)
        changes["never"] = tuple(n for n in strong.never if nk(n) != kind) + tuple(
            n for n in other.never if nk(n) == kind)
    return replace(strong, name=f"{strong.name}+{other.name}-{kind}", **changes)


def observe_game(cs, players: int, seed: int, game_index: int, policies, rules=None):
    """(decisions, buys, record) of one reference-engine game.

    A decision row per Grow-or-Rest choice (spec §6.1): ``player``, ``round``,
    ``turn``, ``pushes`` (cards grown before it this Night), ``showing`` (uncovered
    suns in the Land and on deck), ``mana`` (the Land's mana icons),
    ``pool`` (cards the next reveal comes from),
    ``bad`` (of them, cards that would make it Wither even after the Rain tokens
    the policy would place), ``decay_share`` (share of the pool showing a sun),
    ``risk`` (= bad / pool: the next reveal is uniform over the pool, so this is the
    exact chance that the Grow Withers at the reveal), ``pushed`` (grew).  A buy row
    per Day: ``mana`` (when buying starts, after enchanting), ``first`` (the first
    Advance bought, "" for none), ``vale`` (the first spot enchanted, "")."""
    from .policy import SearchPolicy, policies_for
    from .reference import cardmath as M
    from .reference.game import MysticLandsGame
    from .reference.search import SearchGame
    decisions: list[dict] = []
    buys: list[dict] = []
    root: list = []
    # a search player's game when one of the players searches (its decide_grow and
    # choose_buy are the search's; the copies its rollouts play are not recorded)
    base = (SearchGame if any(isinstance(p, SearchPolicy) for p in policies_for(players, policies))
            else MysticLandsGame)

    class Observed(base):
        """Records the game's own decisions (not those of copies a search would play)."""
        def decide_grow(self, p, suns):
            go = super().decide_grow(p, suns)
            pool = p.deck[1:] if len(p.deck) >= 2 else p.discard
            if pool and root and self is root[0]:
                limit = self.wither_limit(p, extra_card=p.deck[0])
                need = limit - suns + (p.rain if p.policy.rain == "needed" else 0)
                exposed = [M.exposed_suns(cs, p.cards[u]) for u in pool]
                bad = sum(1 for e in exposed if e >= need)
                decisions.append({"player": p.index, "round": self.round, "turn": p.turns,
                                  "showing": suns, "pool": len(pool),
                                  "mana": sum(M.resources(cs, p.cards[u])[0] for u in p.land),
                                  "bad": bad,
                                  "decay_share": sum(1 for e in exposed if e >= 1) / len(pool),
                                  "risk": bad / len(pool), "pushed": bool(go)})
            return go

        def buy(self, p, rec):
            mana = p.mana
            super().buy(p, rec)
            if root and self is root[0]:
                buys.append({"player": p.index, "round": self.round, "turn": p.turns,
                             "mana": mana,
                             "first": self.adv_name(rec.bought[0]) if rec.bought else "",
                             "vale": self.spot_name(rec.enchanted[0][0]) if rec.enchanted
                             else ""})

    game = Observed(cs, players, seed, game_index, policies, rules, log=False)
    root.append(game)
    rec = game.play()
    last, k = None, 0
    for row in decisions:
        key = (row["player"], row["turn"])
        k = k + 1 if key == last else 0
        row["pushes"], last = k, key
    return decisions, buys, rec
