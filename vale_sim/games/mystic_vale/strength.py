"""Mystic Vale's side of the card-strength study (:mod:`vale_sim.advancements`):
the buyable cards, the per-card columns of its results frames, the policies of
the arms (prefer X, ban X) and the observational run with first rounds and
harvests.  ``GAME`` names these as its ``strength_*`` hooks."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from .cards import CardSet
from .policy import BuyRule, Policy, get_policy
from .rules import Rules


# ---------------------------------------------------------------------------
# Per-card columns of a run frame (the one place that knows their names)
# ---------------------------------------------------------------------------
def card_columns(frame: pd.DataFrame, cs: CardSet) -> dict[str, np.ndarray]:
    """Per-card arrays of a per-game/player frame, rows in frame order.

    Returns ``acquired`` (rows × advancements, copies bought), ``first_round``
    (round first bought; nan if never or not recorded), ``harvested`` (1/0,
    nan if not recorded) and ``vales`` (rows × vale kinds, copies bought).
    Understands the reference frame (``acquired_<id>``, ``first_round_<id>``
    with -1 for never, ``harvested_<id>``, ``vales_acquired_<id>``) and the
    fast engine's (``buy:<name>``, ``vale:<name>``, optionally
    ``first_round:<name>``, ``harvested:<name>``); ids not in the frame are 0
    (starting prints are never bought) or nan.
    """
    n, na, nv = len(frame), len(cs.advancements), len(cs.vales)
    acquired = np.zeros((n, na))
    first = np.full((n, na), np.nan)
    harvested = np.full((n, na), np.nan)
    vales = np.zeros((n, nv))
    cols = set(frame.columns)
    for k, a in enumerate(cs.advancements):
        for c in (f"acquired_{k}", f"buy:{a.name}"):
            if c in cols:
                acquired[:, k] = frame[c].to_numpy(float)
        for c in (f"first_round_{k}", f"first_round:{a.name}"):
            if c in cols:
                f = frame[c].to_numpy(float)
                first[:, k] = np.where(f > 0, f, np.nan)
        for c in (f"harvested_{k}", f"harvested:{a.name}"):
            if c in cols:
                harvested[:, k] = frame[c].to_numpy(float)
    for v, vale in enumerate(cs.vales):
        for c in (f"vales_acquired_{v}", f"vale:{vale.name}"):
            if c in cols:
                vales[:, v] = frame[c].to_numpy(float)
    return {"acquired": acquired, "first_round": first, "harvested": harvested, "vales": vales}


def analysed_cards(cs: CardSet) -> list[tuple[str, str, int, int]]:
    """(name, kind, level, id) of the cards a player can buy: commons and
    Fertile Soil advancements (level 0) and vales."""
    out = [(a.name, "advancement", a.level, k) for k, a in enumerate(cs.advancements)
           if a.supply != "starter"]
    out += [(v.name, "vale", v.level, k) for k, v in enumerate(cs.vales)]
    return out


def play_card_frame(cs: CardSet, players: int, seed: int, games: int, policies,
                    rules: Rules | None = None, engine: str = "fast",
                    chunk: int = 20_000) -> pd.DataFrame:
    """Like :func:`vale_sim.tournament.play_frame`, plus ``first_round:<name>``
    and ``harvested:<name>`` per advancement, which the runner's frame leaves
    out: from the fast engine's public API (``vale_sim.games.mystic_vale.fast.api.simulate``) or
    the reference engine's records.  One process (the observational run is a
    single run; the fast engine plays thousands of games a second)."""
    from vale_sim.runner import effective_engine
    from .records import results_frame
    from .policy import get_policy
    rules = rules or Rules()
    pols = [get_policy(p) for p in policies]
    pols = pols * players if len(pols) == 1 else pols
    kinds = [(k, a.name) for k, a in enumerate(cs.advancements) if a.supply != "starter"]
    parts = []
    if effective_engine(engine) == "fast":
        from .fast.api import frame as fast_frame, simulate
        for first in range(0, games, chunk):
            out = simulate(cs, players, seed, min(chunk, games - first), pols, rules,
                           first_game=first)
            df = fast_frame(out, cs, pols)
            extra = {f"first_round:{name}": out.first_round[:, :, k].ravel() for k, name in kinds}
            extra.update({f"harvested:{name}": out.harvested[:, :, k].ravel() for k, name in kinds})
            parts.append(pd.concat([df, pd.DataFrame(extra, index=df.index)], axis=1))
            if first == 0:                     # the whole frame is kept: check it fits
                from vale_sim.runner import check_memory
                check_memory(parts[0], min(chunk, games), games)
    else:
        from .reference.game import play_reference
        records = [play_reference(cs, players, seed, i, pols, rules) for i in range(games)]
        df = results_frame(records, cs)
        res = [r for g in records for r in g.results]
        extra = {f"first_round:{name}": [r.first_round.get(k, 0) for r in res] for k, name in kinds}
        extra.update({f"harvested:{name}": [int(k in r.harvested) for r in res] for k, name in kinds})
        parts.append(pd.concat([df, pd.DataFrame(extra, index=df.index)], axis=1))
    return pd.concat(parts, ignore_index=True)


def explore_policy(baseline="balanced", explore_permille: int = 300) -> Policy:
    """The baseline with random purchases mixed in (every card gets bought)."""
    base = get_policy(baseline)
    return replace(base, name=f"{base.name}+explore{explore_permille}",
                   explore_permille=explore_permille)


def control_policy(baseline="balanced") -> Policy:
    """The baseline written as buy rules: ``best advancement``, ``best vale``."""
    base = get_policy(baseline)
    return replace(base, name=f"{base.name}:control",
                   rules=(BuyRule("best", "advancement"), BuyRule("best", "vale")))


def prefer_policy(card: str, baseline="balanced") -> Policy:
    """"prefer X": the baseline with ``card`` (an advancement or a vale) first:
    buy it whenever it is buyable, else buy as the baseline does (its own buy
    rules, or ``best advancement``, ``best vale`` at its min scores).  A baseline that never buys
    ``card`` (its ``never`` list) drops it from that list here: forcing the card is
    the point of the arm."""
    base = get_policy(baseline)
    rest = base.rules or (BuyRule("best", "advancement"), BuyRule("best", "vale"))
    # without rules of its own, "else as the baseline does" keeps its min scores: the
    # arm forces X, not every other card the baseline would leave (engine-spec §6.5)
    return replace(base, name=f"{base.name}:prefer:{card}", rules=(BuyRule("card", card),) + rest,
                   never=tuple(c for c in base.never if c != card),
                   best_min_score=not base.rules)


def ban_policy(card: str, baseline="balanced") -> Policy:
    """"ban X": the baseline that never buys ``card`` (policy field ``never``)."""
    base = get_policy(baseline)
    never = base.never + ((card,) if card not in base.never else ())
    return replace(base, name=f"{base.name}:ban:{card}", never=never)




# ---------------------------------------------------------------------------
# The hooks of GAME (vale_sim.games.base: strength_*)
# ---------------------------------------------------------------------------
def strength_arms(card: str, baseline):
    """(prefer X, ban X) of the baseline."""
    return prefer_policy(card, baseline), ban_policy(card, baseline)


def strength_cards(cs) -> list:
    """(name, kind, level, id) of every buyable card (:func:`analysed_cards`)."""
    return analysed_cards(cs)


def strength_acquired(frame: pd.DataFrame, cs, card: str) -> np.ndarray:
    """Per row of ``frame``: the player acquired ``card`` (either engine's columns)."""
    cols = card_columns(frame, cs)
    for name, kind, _level, k in analysed_cards(cs):
        if name == card:
            return (cols["acquired"][:, k] if kind == "advancement" else cols["vales"][:, k]) > 0
    raise ValueError(f"unknown card {card!r}")


def strength_column(cs, card: str) -> str:
    """The results-frame column (either engine's) counting the copies of ``card`` a
    player bought: what :func:`strength_acquired` reads, for the studies' outcome
    arrays (``Outcomes.counts``)."""
    for name, kind, _level, k in analysed_cards(cs):
        if name == card:
            return (f"buy:{cs.advancements[k].name}" if kind == "advancement"
                    else f"vale:{cs.vales[k].name}")
    raise ValueError(f"unknown card {card!r}")


def card_observations(frame: pd.DataFrame, cs) -> dict:
    """Per buyable card: ``acquired`` (copies per row), ``first_round`` (nan: never or
    not recorded) and ``harvested`` (nan: not recorded) -- the observational study's
    inputs."""
    cols = card_columns(frame, cs)
    none = np.full(len(frame), np.nan)
    out = {}
    for name, kind, _level, k in analysed_cards(cs):
        adv = kind == "advancement"
        out[name] = {"acquired": cols["acquired"][:, k] if adv else cols["vales"][:, k],
                     "first_round": cols["first_round"][:, k] if adv else none,
                     "harvested": cols["harvested"][:, k] if adv else none}
    return out


def observation_frame(cs, players, seed, games, baseline, explore_permille, rules=None,
                      engine="fast"):
    """The observational run: exploring baseline players, with first rounds and harvests."""
    return play_card_frame(cs, players, seed, games,
                           [explore_policy(baseline, explore_permille)], rules, engine)
