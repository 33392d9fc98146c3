"""The per-game/player results frame of Mystic Vale (``Game.results_frame``): the
reference engine's records in the fast engine's columns, so both engines give
identical frames."""
from __future__ import annotations

from .cards import CardSet

# Columns of the per-game/player frame that come first, in this order; the
# per-card columns follow (engine-specific names, passed through untouched).
BASE_COLUMNS = ("game", "player", "seat", "policy", "score", "tokens_vp", "adv_vp", "vale_vp",
                "tiebreak", "win_share", "spoils", "harvests", "rounds", "truncated")


def results_frame(records, cs: CardSet):
    """The per-game/player frame of reference GameRecords, with the fast engine's
    columns: BASE_COLUMNS, vp_from_box, starting_player, then ``buy:<advancement>``
    (copies bought, starter kinds left out) and ``vale:<vale>`` (copies bought)."""
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
