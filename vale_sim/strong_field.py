"""Card verdicts under strong play (issue 26; docs/statistics.md §5.6): the tables and
sentences the reports build from strength frames of the "natural" estimand
(:func:`vale_sim.advancements.strength_frame` with ``estimand="natural"``) under the
strongest field, a second strong field (for "settled") and a comparison field.

Shared by both games' reports: it names no game; the exploitability of a field comes
from the game's bundled exploit table (:mod:`vale_sim.report_exploit`).

    table = verdict_table(strong_df, settlement, {"balanced": balanced_df})
    rows = rationality_table({"meta-2p": strong_df, ...}, game, players)
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: The estimand of every card verdict by default -- ``advancements``, ``what-if``,
#: ``balance``, the report and the workbench: the natural value (the field's own play
#: minus never taking the card, with the forced value prefer X - ban X as evidence of
#: harm; docs/statistics.md §5.6).  ``"prefer"`` (the forced value alone) stays an
#: explicit option of each.
ESTIMAND = "natural"


def field_of(game=None) -> str:
    """The strongest bundled field of ``game`` (a name or a Game; default the default
    game): its ``Game.strong_field``, a spec in which ``{P}`` stands for the player
    count (``"meta-{P}p"``), or the game's default policy when it bundles none.

    The one source of truth: every default that means "the strongest bots"
    (``advancements``, ``what-if``, ``balance``, ``report``, ``strategy``, the
    workbench) reads this, so switching the field is one line per game
    (``strong_field=`` in ``vale_sim/games/<game>/__init__.py``)."""
    from .games import DEFAULT_GAME, get_game
    g = get_game(game if game is not None else DEFAULT_GAME)
    return g.strong_field or g.default_policy


def settle_field_of(game=None) -> str | None:
    """The second strong field of ``game`` (``Game.settle_field``, a ``{P}`` spec): the
    strongest field before its strongest, which decides whether a verdict under the
    strongest is settled (the reports); None when the game names none."""
    from .games import DEFAULT_GAME, get_game
    return get_game(game if game is not None else DEFAULT_GAME).settle_field


def field_name(game, players: int) -> str:
    """The strongest bundled field of ``game`` at ``players`` players ("meta-2p")."""
    from .games.base import baseline_spec
    return baseline_spec(field_of(game), players)


def field_label(spec, players) -> str:
    """How an output names the field it used: the policy at one player count
    ("meta-2p"), or the spec with each count's policy ("meta-{P}p: meta-2p, meta-3p")."""
    from .games.base import baseline_label, baseline_spec
    counts = [players] if isinstance(players, int) else list(players)
    if not isinstance(spec, str) or "{P}" not in spec:
        return baseline_label(spec)
    names = [baseline_spec(spec, p) for p in counts]
    return names[0] if len(names) == 1 else f"{spec}: {', '.join(names)}"


def field_help() -> str:
    """How a command's help says its default field: "the game's strongest bundled
    field, meta-{P}p" (every registered game's, when they differ)."""
    from .games import GAMES, get_game
    specs = {}
    for name in GAMES:
        try:
            specs[name] = field_of(get_game(name))
        except ValueError:                 # a game not available in this version
            continue
    if len(set(specs.values())) == 1:
        return f"the game's strongest bundled field, {next(iter(specs.values()))}"
    return ("the game's strongest bundled field ("
            + "; ".join(f"{k}: {v}" for k, v in specs.items()) + ")")


def unpin_edited(policy, cards):
    """``policy`` with ``cards`` out of its ``never`` list (unchanged when none is in it).

    A field's ``never`` entries are by card name and were found for the printed cards
    (docs/meta.md §6c): a field pruned of a harmful card must not keep ignoring that
    card once its numbers are edited, or every what-if or balance edit of it would read
    as "the field never takes it".  So an edited card is played by the field's weights:
    by what-if in the original set and the edited one alike (one policy for both arms
    keeps the comparison paired), by balance in every run in which the card is edited
    (its verdicts are read within a run).  A policy without a ``never`` list (a
    mixture) is returned unchanged."""
    never = tuple(getattr(policy, "never", ()) or ())
    keep = tuple(c for c in never if c not in set(cards))
    if keep == never:
        return policy
    from dataclasses import replace
    return replace(policy, never=keep)


def exploitability(game, target: str, players: int) -> dict | None:
    """The bundled exploit table's row for ``target`` at ``players`` players:
    ``{"gain", "gain_lo", "gain_hi", "n", "deals"}`` (fractions), None when absent."""
    from .report_exploit import load_table
    doc = load_table(game)
    if doc is None:
        return None
    for r in doc["rows"]:
        if r.get("target") == target and r.get("players") == players:
            h = r["held_out"]
            return {"gain": h["gain"], "gain_lo": h["gain_lo"], "gain_hi": h["gain_hi"],
                    "n": h["n"], "deals": h["deals"]}
    return None


def rationality_table(frames: dict, game, players: int) -> pd.DataFrame:
    """One row per field (``frames``: field name -> strength frame): the cards tested,
    the count of cards whose natural value is significantly below 0 (Holm) and their
    sum (a fraction), the names, and the field's exploitability from the bundled
    exploit table (nan when the table has no row for it)."""
    rows = []
    for name, df in frames.items():
        r = df.attrs.get("rationality") or {}
        ex = exploitability(game, name, players) or {}
        w = df.loc[df["natural_value"].idxmin()] if len(df) else None
        rows.append({"field": name, "players": players, "cards_tested": r.get("cards_tested"),
                     "lowest_card": None if w is None else w["card"],
                     "lowest_natural_value": math.nan if w is None else float(w["natural_value"]),
                     "lowest_natural_lo": math.nan if w is None else float(w["natural_lo"]),
                     "lowest_natural_hi": math.nan if w is None else float(w["natural_hi"]),
                     "n_deals": int(df["n_deals"].max()) if len(df) else 0,
                     "below_zero": r.get("below_zero"), "below_zero_sum": r.get("sum"),
                     "never_bought": r.get("never_bought"),
                     "below_zero_cards": ", ".join(
                         f"{c['card']} {100 * c['natural_value']:+.1f}" for c in
                         r.get("cards", [])),
                     "exploitability": ex.get("gain", math.nan),
                     "exploitability_lo": ex.get("gain_lo", math.nan),
                     "exploitability_hi": ex.get("gain_hi", math.nan)})
    return pd.DataFrame(rows)


def rationality_sentence(table: pd.DataFrame) -> str:
    """One sentence over :func:`rationality_table`'s rows."""
    parts = []
    for r in table.itertuples():
        ex = ("no exploit-table row" if not np.isfinite(r.exploitability) else
              f"a best response gains {100 * r.exploitability:+.1f} points "
              f"[{100 * r.exploitability_lo:+.1f}, {100 * r.exploitability_hi:+.1f}]")
        parts.append(f"`{r.field}`: {r.below_zero} of {r.cards_tested} cards significantly "
                     f"below 0, sum {100 * (r.below_zero_sum or 0):+.1f} pp"
                     + (f" ({r.below_zero_cards})" if r.below_zero else "")
                     + (f"; {r.never_bought} never bought (natural value 0 by construction: "
                        f"the check cannot see them)"
                        if getattr(r, "never_bought", None) else "") + f"; {ex}")
    return ("**Rationality check of each field**: a player who plays well is never hurt "
            "by one more option, so no card's natural value (natural − ban X) should be "
            "significantly below 0 under a strong field; each card that is (one-sided "
            "paired t over the deals, Holm across the cards) is a mistake the field makes, "
            "not a property of the card.  Count and sum, next to the field's "
            "exploitability (bundled exploit table, docs/exploit.md): " + "; ".join(parts)
            + ".")


def verdict_table(strong: pd.DataFrame, settlement, comparisons: dict | None = None
                  ) -> pd.DataFrame:
    """The headline card table: per card (order of ``strong``) its verdict under the
    strong field, ``settled`` (:func:`vale_sim.advancements.settle`), the natural
    value with its raw and adjusted interval, the forced value, how often the field
    takes it, how often a rerun would read the same verdict (``verdict_agreement``,
    ``verdict_stable``: docs/statistics.md §5.8), the verdict under the settling field,
    and per comparison field (name -> natural-estimand frame of the same cards) its
    verdict and natural value."""
    cols = ["card", "kind", "level", "verdict", "verdict_agreement", "verdict_stable",
            "natural_value", "natural_lo", "natural_hi",
            "natural_lo_adj", "natural_hi_adj", "per_pick_value", "per_pick_lo", "per_pick_hi",
            "forced_per_pick", "forced_per_pick_lo", "forced_per_pick_hi",
            "strength", "strength_lo", "strength_hi", "natural_acquired_rate", "n_deals"]
    t = strong[[c for c in cols if c in strong.columns]].copy()
    st = settlement.table.set_index("card")
    b = settlement.labels[1]
    t.insert(t.columns.get_loc("verdict") + 1, "settled",
             t["card"].map(st["settled"]).astype(bool).to_numpy())
    t[f"verdict ({b})"] = t["card"].map(st["verdict_b"]).to_numpy()
    t[f"natural_value ({b})"] = t["card"].map(st["value_b"]).to_numpy(float)
    for name, df in (comparisons or {}).items():
        c = df.set_index("card")
        t[f"verdict ({name})"] = t["card"].map(c["verdict"]).to_numpy()
        t[f"natural_value ({name})"] = t["card"].map(c["natural_value"]).to_numpy(float)
    return t.rename(columns={"strength": "forced_value", "strength_lo": "forced_lo",
                             "strength_hi": "forced_hi"}).reset_index(drop=True)
