"""What a Mystic Lands game produces: the records a fast engine must reproduce
field by field (docs/mystic-lands-engine-spec.md §8), and the results frame."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class TurnRecord:
    round: int                 # 1-based
    player: int
    turn: int                  # the player's own turn number, 1-based
    grows: int = 0             # cards played in the Night (Grow and Overgrow)
    overgrows: int = 0         # of them, played with one uncovered sun short of Withering
    withered: bool = False
    out_of_cards: bool = False # the Night ended with no card left in deck and Discard
    rain_placed: int = 0       # Rain tokens placed on suns this Night
    chosen: str = ""           # resource chosen after Withering
    mana_gain: int = 0         # left-edge gain at the start of the Day (after Withering)
    spirit_gain: int = 0
    vp_gain: int = 0
    bought: tuple = ()         # Advance ids bought, in order
    enchanted: tuple = ()      # (space, row) enchanted, in order (Sun Priestess included)
    sleeved: tuple = ()        # (Advance id, card uid, position) in order
    removed: tuple = ()        # card uids removed from the game (Grasping Vines)
    growths: int = 0           # Market growths triggered by this player this turn
    triggered: bool = False    # this turn triggered the end
    mana: int = 0              # after Dusk
    spirit: int = 0
    vp: int = 0
    rain: int = 0              # Rain tokens held after Dusk
    held: int = 0              # Advances held (unsleeved) after Dusk
    cubes: int = 0             # cubes on the map after the Day
    deck_size: int = 0         # after Dusk (the on-deck card included)
    discard_size: int = 0


@dataclass
class PlayerResult:
    player: int
    seat: int                  # 0 = starting player
    policy: str
    score: int
    track_vp: int              # VP on the track, the end bonus included
    bonus_vp: int
    adv_vp: int                # end VP of the player's Advances (sleeved, and held if the rules say)
    vale_vp: int               # VP spots of the player's cubes
    effect_vp: int             # endgame effects (Sunlight Valley)
    win_share: float
    withers: int
    turns: int
    mana_total: int            # mana gained over the game
    spirit_total: int
    cubes: int
    triggered_end: bool
    acquired: dict = field(default_factory=dict)   # Advance id -> copies acquired
    vales: tuple = ()          # Vale ids enchanted (sorted)
    spaces: tuple = ()         # map space indexes enchanted (sorted)
    druid: int = -1            # the Druid Advance kept


@dataclass
class GameRecord:
    seed: int
    game_index: int
    players: int
    starting_player: int
    rounds: int
    truncated: bool
    layout: tuple = ()         # per map space: the Vale id dealt there (-1: none)
    turns: list = field(default_factory=list)
    results: list = field(default_factory=list)
    log: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


#: The frame's own columns after RESULT_COLUMNS (then buy:<Advance>, vale:<Vale>).
OWN_COLUMNS = ("withers", "mana_total", "spirit_total", "cubes", "triggered_end", "bonus_vp",
               "track_vp", "adv_vp", "vale_vp", "effect_vp", "turns", "players", "seed",
               "druid")


def results_frame(records, cs):
    """Per-game, per-player DataFrame: RESULT_COLUMNS, OWN_COLUMNS, then one
    ``buy:<Advance>`` count per level 1/2 Advance and ``vale:<Vale>`` (0/1) per Vale."""
    import pandas as pd
    from ...games.base import RESULT_COLUMNS
    if isinstance(records, GameRecord):
        records = [records]
    advs = [i for i, a in enumerate(cs.advances) if a.level]
    rows = []
    for g in records:
        for r in g.results:
            row = {"game": g.game_index, "player": r.player, "seat": r.seat, "policy": r.policy,
                   "score": r.score, "win_share": r.win_share, "rounds": g.rounds,
                   "truncated": g.truncated, "withers": r.withers, "mana_total": r.mana_total,
                   "spirit_total": r.spirit_total, "cubes": r.cubes,
                   "triggered_end": r.triggered_end, "bonus_vp": r.bonus_vp,
                   "track_vp": r.track_vp, "adv_vp": r.adv_vp, "vale_vp": r.vale_vp,
                   "effect_vp": r.effect_vp, "turns": r.turns, "players": g.players,
                   "seed": g.seed,
                   "druid": cs.advances[r.druid].name if r.druid >= 0 else ""}
            for i in advs:
                row[f"buy:{cs.advances[i].name}"] = r.acquired.get(i, 0)
            for v in range(len(cs.vales)):
                row[f"vale:{cs.vales[v].name}"] = int(v in r.vales)
            rows.append(row)
    cols = list(RESULT_COLUMNS) + list(OWN_COLUMNS) + [f"buy:{cs.advances[i].name}" for i in advs] \
        + [f"vale:{v.name}" for v in cs.vales]
    return pd.DataFrame(rows, columns=cols)
