"""What both spoil-odds engines need: the Python model's state (``_S``), the
compiled engine's limits (``unsupported``) and the errors both raise
(``PrepLoop``, ``TooManyStates``).  Kept apart so that
:mod:`vale_sim.games.mystic_vale.spoil` (the Python model, which loads :mod:`.fast` on demand) and
:mod:`.fast` (the compiled engine) do not import each other."""
from __future__ import annotations

from vale_sim.odds import TooManyStates  # noqa: F401  (the shared limit; state.X)


class _S:
    """A mutable state during a transition; ``key()`` is its hashable form.

    deck/disc/field: counts per type; od: on-deck type (-1 none); top: the type
    of the deck's top card if known (Calm Weather left it), only inside a push;
    temp: (type, in_field) of the card holding Conclave's guardian; fn: the
    field's net decay (the sum over ``field``, kept as a running total).  No
    order is kept: every choice the engine makes among field cards is by type
    or uniformly random among ties (engine-spec §6.2, §4.4).
    """
    __slots__ = ("deck", "disc", "field", "od", "druid_used", "conclave_used",
                 "arbors_used", "arbor_growth", "temp", "top", "fn")

    def copy(self) -> "_S":
        s = _S()
        s.deck, s.disc, s.field = list(self.deck), list(self.disc), list(self.field)
        s.od, s.druid_used, s.conclave_used = self.od, self.druid_used, self.conclave_used
        s.arbors_used, s.arbor_growth, s.temp = self.arbors_used, self.arbor_growth, self.temp
        s.top, s.fn = self.top, self.fn
        return s

    @staticmethod
    def of(key) -> "_S":
        s = _S()
        (deck, disc, fld, s.od, s.druid_used, s.conclave_used, s.arbors_used,
         s.arbor_growth, s.temp, s.fn) = key
        s.deck, s.disc, s.field, s.top = list(deck), list(disc), list(fld), -1
        return s


def unsupported(model: "SpoilModel") -> str | None:
    """Why the compiled engine (vale_sim.games.mystic_vale.spoil.fast) cannot hold this model's states
    in its int8 rows (None if it can)."""
    n = len(model.deck.cards)
    if model.T > 63:
        return f"{model.T} card types (at most 63)"
    if n > 120:
        return f"{n} cards (at most 120)"
    spread = sum(abs(model.net[t]) * len(model.members[t]) for t in range(model.T))
    if spread + sum(model.arbors) + abs(model.global_growth) > 120:
        return "decay/growth totals beyond the int8 range"
    if any(len(w) > 3 for w in model.wp):
        return "a card with more than three When Played abilities"
    return None


class PrepLoop(ValueError):
    """Prep can come back to a state it has been in, so it has no bound on its length.

    Deadwood Harvester / Mindful Owl cards with net decay > 0 can discard each
    other and return through reshuffles while growth keeps the showing under 3:
    the exact answer would be an infinite sum (and where the loop has no way
    out, the engine's Prep never ends either)."""

    def __init__(self, deck: str):
        self.deck = deck
        super().__init__(f"deck {deck!r}: Prep can return to a state it has been in "
                         f"(Deadwood/Owl cards discarding each other while growth keeps the "
                         f"showing under 3), so its length has no bound; the exact "
                         f"calculator cannot sum it")

