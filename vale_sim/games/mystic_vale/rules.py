"""Rule options and the named interpretations the engines implement.

The rules are stated in ``docs/rules.md`` (with references to the rulebook's
sections); where the rulebook leaves a point open the project adopts a named
interpretation, listed in :data:`INTERPRETATIONS` (each is a section "I<n>" of
docs/rules.md).  Where a reasonable player group could read a point otherwise
it is an option of :class:`Rules`, so an analysis can vary it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vale_sim.limits import MAX_POOL

VP_POOL = {2: 23, 3: 28, 4: 33}            # RB: Setup VP Tokens
LEVEL1_DECK = {2: 12, 3: 15, 4: 18}        # RB: Setup The Commons
PREP_COUNTS = ("net", "gross")

# name -> (docs/rules.md section, what the engines do).  Kept in step with the
# headings of docs/rules.md section 4 (tests/test_standalone.py checks it).
INTERPRETATIONS = {
    "net-decay-showing": ("I1", "decay showing = decay - growth on field and on-deck cards "
                                "and from abilities; spoil at >= 4 in Planting and Prep only"),
    "prep-stops-on-net-decay": ("I2", "Prep stops at >= 3 decay showing net of growth "
                                      "(option prep_count='gross')"),
    "starting-field-is-a-prep": ("I3", "setup step 5 is a Prep with the same stopping rule"),
    "mana-tokens-start-spent": ("I4", "every mana token starts spent; a spoil turns it active"),
    "on-deck-counts-decay-and-growth-only": ("I5", "only decay and growth count on the on-deck "
                                                   "card; Ongoing abilities apply everywhere"),
    "vp-pool-and-last-round": ("I6", "VP past the pool come from the box; the round in which "
                                     "the pool empties is finished (option vp_pool)"),
    "commons-and-fertile-soil": ("I7", "level 1 deck dealt from all level 1 copies (option "
                                       "level1_deck_size); Fertile Soil 6 per position"),
    "buying": ("I8", "2 vales and 2 advancements per Harvest (3 with Stream of Vigor); an "
                     "advancement needs a free place when bought"),
    "ties-shared": ("I9", "after the rulebook's tie-break a tie is a shared win, 1/k each"),
    "use-windows-prep-to-prep": ("I10", "once-per-turn uses and Blooming Arbor's growth reset "
                                        "at the start of Prep"),
    "conclave-of-ents-timing": ("I11", "the rulebook's Conclave guardian lasts 'until the end "
                                       "of your turn' (Prep included); the engines reset it, "
                                       "and its use, at the start of Prep"),
    "fixed-harvest-order": ("I12", "Conclave, mana, spirits, VP, vales, advancements; the "
                                   "player's choices are the policy's"),
    "several-vales-of-one-kind": ("I13", "symbol and mana vales add up; once-per-turn vales "
                                         "give one use per window"),
    "no-rest-phase": ("I14", "a player who does not push passes"),
    "phase-play-cap": ("I15", "a Prep or a Planting ends after MAX_PHASE_PLAYS plays, so a "
                              "When Played discard cannot cycle cards for ever"),
    "optional-effects-declined": ("I16", "a 'may' ability is used as the policy decides; "
                                         "Deadwood Harvester / Mindful Owl decline after "
                                         "the policy's discard_field_plays plays of a phase"),
}

#: rules.md I15: the most cards one Prep plays, and the most pushes of one Planting.
#: Ten times a deck: a phase that ends by the rules ends far sooner.
MAX_PHASE_PLAYS = 200


@dataclass(frozen=True)
class Rules:
    """Rule options.  ``None`` means "the rulebook's value for this player count"."""
    # metadata: the bounds of the [rules] keys of a `vale-sim run` config (vale_sim.experiments);
    # "flag": the command-line option of play, simulate, tournament, advancements (vale_sim.cli)
    prep_count: str = field(default="net", metadata={  # net of growth, or gross (I2)
        "choices": PREP_COUNTS, "flag": {"help": " (default net)"}})
    vp_pool: int | None = field(default=None, metadata={   # 23/28/33 for 2/3/4 players
        "range": (1, MAX_POOL), "flag": {
            "metavar": "VP", "what": "of VP tokens",
            "help": ": VP tokens in the pool (default the rulebook's 23/28/33 for 2/3/4 players)"}})
    level1_deck_size: int | None = field(default=None, metadata={"range": (1, 1000)})  # 12/15/18
    max_rounds: int = field(default=100, metadata={"range": (1, 1000)})  # safety cap; capped: `truncated`

    def __post_init__(self):
        if self.prep_count not in PREP_COUNTS:
            raise ValueError(f"prep_count must be one of {PREP_COUNTS}, got {self.prep_count!r}")
        for name in ("vp_pool", "level1_deck_size"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ValueError(f"{name} must be a positive integer or None, got {v!r}")
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int) or self.max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive integer, got {self.max_rounds!r}")
        from vale_sim.limits import check_rule_numbers
        check_rule_numbers(self)            # the "range" of each field (docs/runs.md)

    def pool_for(self, players: int) -> int:
        return self.vp_pool if self.vp_pool is not None else VP_POOL[players]

    def level1_for(self, players: int) -> int:
        return self.level1_deck_size if self.level1_deck_size is not None else LEVEL1_DECK[players]

    def value_for(self, name: str, players: int):
        """Rule option ``name`` as played at ``players`` players: a ``None`` ("the
        rulebook's for the player count") resolved (``vale-sim balance --rules``)."""
        per_count = {"vp_pool": self.pool_for, "level1_deck_size": self.level1_for}
        v = getattr(self, name)
        return per_count[name](players) if v is None and name in per_count else v
