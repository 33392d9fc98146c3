"""What a game produces: the records both engines must agree on.

The differential tests compare :class:`TurnRecord` lists and
:class:`PlayerResult` lists field by field.  :func:`results_frame` is the game's
per-game/player frame (``Game.results_frame``: the fast engine's columns, so both
engines give identical frames); :func:`turns_frame` and :func:`scores_frame` are
the readable frames of a record (``GameRecord.turns_frame()``, ``.results_frame()``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, asdict, fields


@dataclass
class TurnRecord:
    round: int                 # 1-based round number
    player: int                # player index (seat in setup order)
    turn: int                  # the player's own turn number, 1-based
    skipped: bool = False      # no Planting/Harvest: spoiled during the previous Prep
    pushes: int = 0
    spoiled: bool = False      # spoiled in Planting
    spoiled_in_prep: bool = False
    druid_used: bool = False   # Peacekeeper Druid used this turn (Planting or the closing Prep)
    arbor_used: bool = False
    conclave_used: bool = False
    mana: int = 0              # mana counted in Harvest (before the token)
    animal: int = 0
    forest: int = 0
    sky: int = 0
    wild: int = 0
    vp_gained: int = 0         # harvest VP taken (pool + box)
    vp_from_box: int = 0
    pool_after: int = 0
    token_spent: bool = False
    sunstone_used: bool = False
    bought: tuple = ()         # advancement ids, in buying order
    sleeved: tuple = ()        # (card id, slot) for each bought advancement
    vales: tuple = ()          # vale ids bought
    field_size: int = 0        # after Prep: the next turn's starting field
    deck_size: int = 0
    discard_size: int = 0
    decay_showing: int = 0     # after Prep


@dataclass
class PlayerResult:
    player: int
    seat: int                  # 0 = starting player, 1 = next, ...
    policy: str
    tokens_vp: int
    adv_vp: int
    vale_vp: int
    score: int
    tiebreak: int              # level 3 advancements + level 2 vales
    win_share: float           # 1/k for a k-way shared win, else 0
    spoils: int                # Planting + Prep spoils
    harvests: int
    acquired: dict = field(default_factory=dict)        # advancement id -> copies bought
    first_round: dict = field(default_factory=dict)     # advancement id -> round first bought
    harvested: tuple = ()      # advancement ids in a field at a Harvest at least once (sorted)
    vales_acquired: tuple = () # vale ids bought (sorted)


@dataclass
class GameRecord:
    seed: int
    game_index: int
    players: int
    starting_player: int
    rounds: int
    truncated: bool
    vp_pool: int
    turns: list = field(default_factory=list)
    results: list = field(default_factory=list)
    log: list = field(default_factory=list)   # readable events (reference engine only)

    def to_dict(self) -> dict:
        return asdict(self)

    def turns_frame(self):
        """One row per turn: pushes, spoils, mana, spirits, purchases, VP."""
        return turns_frame(self)

    def results_frame(self):
        """One row per player: score parts, seat, win share (:func:`scores_frame`)."""
        return scores_frame(self)


def turns_frame(records):
    """Per-turn DataFrame of one or more GameRecords."""
    import pandas as pd
    rows = []
    for g in ([records] if isinstance(records, GameRecord) else records):
        for t in g.turns:
            d = asdict(t)
            d["game"] = g.game_index
            rows.append(d)
    cols = ["game"] + [f.name for f in fields(TurnRecord)]
    return pd.DataFrame(rows, columns=cols)


def scores_frame(records):
    """Per-game, per-player DataFrame of one or more GameRecords: every PlayerResult
    field and the game's seed, players, rounds, truncated and vp_pool."""
    import pandas as pd
    rows = []
    for g in ([records] if isinstance(records, GameRecord) else records):
        for r in g.results:
            d = asdict(r)
            d.update(game=g.game_index, seed=g.seed, players=g.players, rounds=g.rounds,
                     truncated=g.truncated, vp_pool=g.vp_pool)
            rows.append(d)
    return pd.DataFrame(rows)


# Columns of the per-game/player frame that come first, in this order; the
# per-card columns follow (engine-specific names, passed through untouched).
# (Game.base_columns: an empty run's frame has just these.)
BASE_COLUMNS = ("game", "player", "seat", "policy", "score", "tokens_vp", "adv_vp", "vale_vp",
                "tiebreak", "win_share", "spoils", "harvests", "vp_from_box", "rounds",
                "truncated", "starting_player")


def results_frame(records, cs):
    """The per-game/player frame of reference GameRecords, with the fast engine's
    columns: BASE_COLUMNS, then ``buy:<advancement>``
    (copies bought, starter kinds left out) and ``vale:<vale>`` (copies bought).
    ``Game.results_frame``; the fast engine's ``run_fast`` gives the same frame."""
    import pandas as pd
    rows = []
    for g in records:
        box = {}
        for t in g.turns:
            box[t.player] = box.get(t.player, 0) + t.vp_from_box
        for r in g.results:
            row = {"game": g.game_index, "player": r.player, "seat": r.seat, "policy": r.policy,
                   "score": r.score, "tokens_vp": r.tokens_vp, "adv_vp": r.adv_vp,
                   "vale_vp": r.vale_vp, "tiebreak": r.tiebreak, "win_share": r.win_share,
                   "spoils": r.spoils, "harvests": r.harvests, "vp_from_box": box.get(r.player, 0),
                   "rounds": g.rounds, "truncated": g.truncated,
                   "starting_player": g.starting_player}
            for k, a in enumerate(cs.advancements):
                if a.supply != "starter":
                    row[f"buy:{a.name}"] = r.acquired.get(k, 0)
            for v, vale in enumerate(cs.vales):
                row[f"vale:{vale.name}"] = r.vales_acquired.count(v)
            rows.append(row)
    return pd.DataFrame(rows)
