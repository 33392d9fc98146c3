"""Mystic Lands rule options: every "X" of the draft manual and every number a
designer may vary, with the manual's value (or our estimate) as the default.
``Rules()`` is the game of docs/mystic-lands-rules.md.

INTERPRETATIONS names every choice the draft leaves open; each key is a
section ``### M<n>. <title>`` of docs/mystic-lands-rules.md.
"""
from __future__ import annotations

from dataclasses import dataclass, fields


#: The bounds of every rule number (each number of a tuple), checked by Rules() itself
#: (vale_sim.limits.check_rule_numbers), so by every command, config, edits file, the
#: workbench and the API before any game: docs/runs.md, "Limits checked before anything
#: runs".  Wide enough for any design a study may try, small enough that a game stays
#: a game (a board of 10^20 cubes was an OverflowError after seconds of play).
RANGES = {
    "seat_mana": (0, 100), "seat_spirit": (0, 100), "cubes": (0, 100), "druid_deal": (1, 10),
    "wither_suns": (1, 100), "rain_supply": (0, 1000), "max_buys": (0, 20),
    "max_enchants": (0, 20), "market_l1": (0, 50), "market_l2": (0, 50), "market_dual": (0, 50),
    "market_growth_vp": (0, 1000), "end_vp": (0, 1000), "end_cubes": (0, 100),
    "end_bonus": (0, 1000), "max_rounds": (1, 1000),
}
MAX_SEATS = 8                          # entries of seat_mana / seat_spirit (4 are used)


@dataclass(frozen=True)
class Rules:
    # Setup (manual: seat resources by play order; 15 cubes each)
    seat_mana: tuple = (0, 1, 1, 2)
    seat_spirit: tuple = (0, 0, 1, 1)
    cubes: int = 15
    druid_deal: int = 2                # Druid Advances dealt to each player
    # Night
    wither_suns: int = 4               # uncovered suns that Wither
    ongoing_everywhere: bool = False   # ongoing wither_limit effects count wherever the card
    #                                    is (deck, Discard), not only in the Land (M17)
    rain_supply: int = 20              # "X Rain tokens" (estimate, M3)
    # Day / market
    max_buys: int = 2
    max_enchants: int = 2
    effect_enchants_count: bool = False  # an effect's enchantment (Sun Priestess) counts
    #                                      toward max_enchants; the normal enchantments leave
    #                                      her a slot when her spot scores as much (M18)
    market_l1: int = 6                 # level 1 slots, including the dual ones
    market_l2: int = 3
    market_dual: int = 2               # slots that turn level 2 (one per growth point)
    market_growth_vp: tuple = (5, 15)  # first player to have this VP in a Day phase
    # End
    end_vp: int = 25
    end_cubes: int = 10
    end_bonus: int = 5
    held_end_vp: bool = True           # held (unsleeved) Advances count their end VP (M9)
    max_rounds: int = 60               # safety cap: a game that reaches it is truncated

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(f.default, bool):        # an on/off option (M9, M17, M18)
                if not isinstance(v, bool):
                    raise ValueError(f"rules: {f.name} must be true or false, got {v!r}")
                continue
            if isinstance(v, bool):
                continue
            if isinstance(v, int) and v < 0:
                raise ValueError(f"rules: {f.name} must be >= 0, got {v}")
        if len(self.seat_mana) < 4 or len(self.seat_spirit) < 4:
            raise ValueError("rules: seat_mana and seat_spirit need 4 entries (one per seat)")
        if max(len(self.seat_mana), len(self.seat_spirit)) > MAX_SEATS:
            raise ValueError(f"rules: seat_mana and seat_spirit take at most {MAX_SEATS} "
                             f"entries (4 seats are played)")
        from vale_sim.limits import check_rule_numbers
        check_rule_numbers(self, RANGES)
        if self.market_dual > self.market_l1 or len(self.market_growth_vp) != self.market_dual:
            raise ValueError("rules: market_growth_vp needs one VP value per dual slot "
                             "(market_dual <= market_l1)")
        if self.wither_suns < 1 or self.max_rounds < 1 or self.druid_deal < 1:
            raise ValueError("rules: wither_suns, max_rounds and druid_deal must be at least 1")


def rules_from(options: dict | None = None, where: str = "rules") -> Rules:
    """Rules from a mapping of option -> value (e.g. a TOML table); an unknown option
    or a bad value is a one-line ValueError naming ``where`` and the fix."""
    names = [f.name for f in fields(Rules)]
    opts = dict(options or {})
    for k, v in opts.items():
        if k not in names:
            raise ValueError(f"{where}: unknown rule option {k!r} (known: {', '.join(names)})")
        default = getattr(Rules(), k)
        if isinstance(default, tuple):
            if not isinstance(v, (list, tuple)) or not all(
                    isinstance(x, int) and not isinstance(x, bool) for x in v):
                raise ValueError(f"{where}: {k} must be a list of integers, got {v!r}")
            opts[k] = tuple(v)
        elif isinstance(default, bool):
            if not isinstance(v, bool):
                raise ValueError(f"{where}: {k} must be true or false, got {v!r}")
        elif isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{where}: {k} must be an integer, got {v!r}")
    try:
        return Rules(**opts)
    except ValueError as e:
        raise ValueError(f"{where}: {str(e).removeprefix('rules: ')}") from None


#: key -> (name, summary).  Every name is a section of docs/mystic-lands-rules.md.
INTERPRETATIONS = {
    "night-order": ("M1", "Nights are played in turn order, each just before its own Day"),
    "first-grow": ("M2", "a Night always Grows at least once"),
    "rain-supply": ("M3", "Rain tokens come from a limited supply (20); an empty supply gives none"),
    "card-halves": ("M4", "icons sit in a half; a cloud covers suns behind it in its half"),
    "starting-symbols": ("M5", "which icons the five basic cards carry (estimates)"),
    "wild-aspect": ("M6", "a player's wild icons all take one aspect, fixed at first use each turn"),
    "wither-all-day": ("M7", "a Withered Day restricts every mana/spirit/VP gain of that Day phase"),
    "market-growth": ("M8", "the growth removes the Level 1 Advance its player values least"),
    "held-advances": ("M9", "held (unsleeved) Advances count their end VP"),
    "end-ties": ("M10", "ties at the end share the win"),
    "vale-map": ("M11", "the Gateway Vale layout is an estimate"),
    "activation": ("M12", "activation tracks: a cube moves right onto a square and resolves it"),
    "effect-limits": ("M13", "effects that gain Advances do not count toward the 2 buys"),
    "one-bonus": ("M14", "only the player who triggers the end gains the +5 VP"),
    "out-of-cards": ("M15", "with no cards left in deck and Discard the Night ends, no on-deck card"),
    "unknown-cards": ("M16", "card texts the manual does not print are estimates"),
    "ongoing-in-land": ("M17", "ongoing effects (wither_limit) count only for cards in the Land "
                               "and the on-deck card being grown (option ongoing_everywhere)"),
    "effect-enchant-limit": ("M18", "an enchantment by an effect (Sun Priestess) does not count "
                                    "toward the 2 per Day (option effect_enchants_count: it "
                                    "counts, and takes a slot when her spot scores as much as "
                                    "the policy's)"),
    "optional-effects": ("M19", "optional effects fire unless the policy declines them "
                                "(Hibiscus Dryad: dryad_min_value; Sun Parrot: parrot_min_value)"),
    "mana-carry-over": ("M20", "unspent mana is kept when no Advance was bought with mana"),
    "growth-in-day": ("M21", "both Market growths happen only in a Day phase: 15 VP reached "
                             "in a Night or Dusk grows the Market at that player's next Day"),
    "night-window": ("M22", "a card's night effects resolve right after the Reveal that follows "
                            "its Grow, never between playing it and the Reveal"),
}
