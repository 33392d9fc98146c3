"""The Mystic Vale report: the sections ``vale-sim report`` builds.

The rendering, the executive summary, the atomic build and the manifest are
the shared ones of :mod:`vale_sim.report` (the shell asks ``GAME.report``, this
module, for its settings and sections): the card set and where its numbers come
from, spoil odds, the strategy tournament, advancement values, pool sizes by
player count, seat advantage, "Robust to the bots?" and the run manifest.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from vale_sim.report import (Context, Section, SectionUnavailable, _bar, _need, _new_fig, _pct,
                             _store, section_exploitability, section_manifest,
                             settings_from_preset)
from vale_sim.skill_ladder import section_skill_ladder
from vale_sim.strategy import section_strategy
from vale_sim.strong_field import field_of, settle_field_of

#: The strongest bundled field of this game (``Game.strong_field``, ``{P}``: the player
#: count): the default of the headline verdicts and of "Robust to the bots?".
STRONG = field_of("mystic-vale")
from vale_sim.verdicts import agreement_note, near_boundary

#: Where ``vale-sim report`` writes (``--out``), and the config that rebuilds it.
DEFAULT_OUT = "results/report"
EXPERIMENT_FILE = "experiments/report.toml"
#: The report has a strong-baseline section ("Robust to the bots?"): ``--baseline``.
TAKES_BASELINE = True
#: The executive summary's topics of this game's verdicts, after the shared ones
#: (vale_sim.verdicts.TOPICS: the card strength).
TOPICS = (("seats", "Seat advantage"), ("pools", "VP pool sizes"),
          ("robust", "Robust to the bots?"), ("spoil", "Spoil odds of the starting deck"))
#: Units of this game's tables where a column name means something else there (the
#: shell's vale_sim.report.rendering.TABLE_UNITS; "" keeps the number).
TABLE_UNITS = {
    "pool_recommendation_seat_advantage": {
        **dict.fromkeys(("margin", "value", "value_lo", "value_hi", "goal", "rulebook_value",
                         "rulebook_value_lo", "rulebook_value_hi"), "pp"),
        **dict.fromkeys(("difference", "difference_lo", "difference_hi", "rulebook_difference",
                         "rulebook_difference_lo", "rulebook_difference_hi"), "+pp")},
}


@dataclass(frozen=True)
class ReportSettings:
    """How big each study of the report is.  Use :meth:`make` for the presets."""
    size: str = "full"
    engine: str = "fast"              # the engine actually used (after fallback)
    card_set: str = "core"
    seed: int = 1
    workers: int = 1
    spoil_decks: tuple | None = None  # None: the starter deck and every bundled crafted deck
    spoil_pushes: int = 6
    spoil_sim_games: int = 2000
    tournament_policies: tuple = ("balanced", "cautious", "greedy", "spirit-rush", "vp-rush",
                                  "mana-target", "lookahead")
    tournament_players: int = 2
    tournament_games: int = 10000     # per matchup: win-rate intervals about ±1 pp
    adv_players: int = 2
    adv_games: int = 20000            # strength: games per card and arm (prefer, ban)
    adv_observational_games: int = 80000
    adv_cards: tuple | None = None    # None: every buyable card
    adv_tolerance: float = 0.05       # verdict band (fraction); see docs/statistics.md
    adv_margin: float = 0.02          # "balanced" = shown within this (fraction), TOST
    adv_correction: str = "fdr_bh"    # multiplicity correction across the cards tested
    # Strength again at other player counts (it includes denial, so it is per count;
    # docs/report.md): the same cards, seed and verdict rules, fewer games.
    adv_other_players: tuple = (3, 4)
    adv_other_games: int = 4000       # strength at those counts: games per card and arm
    pool_players: tuple = (2, 3, 4)
    pool_grid: str = "15:45:2"
    pool_games: int = 16000
    # "Robust to the bots?": both studies again under this strong baseline, on the
    # same deals, seeds and sizes ({P} = the player count; docs/report.md).
    robust_baseline: str = STRONG
    # The headline card verdicts (natural estimand, docs/statistics.md §5.6): under the
    # strongest field, "settled" when they hold under the second one as well; the
    # default-baseline run above is their comparison column.  Same cards, seed, size.
    field: str = STRONG
    settle_field: str = settle_field_of("mystic-vale")
    fallback_note: str = ""           # why the sizes are small (no fast engine)

    # Per size: (fast engine sizes, reference engine sizes).  Full fast sizes
    # are ~2.5M games (~40 µs each for 2 players on one core: about 2-3 minutes
    # in all, with the spoil-odds simulation check); reference sizes are far
    # smaller because that engine is ~800x slower per game.
    PRESETS = {
        "full": ({}, dict(spoil_sim_games=2000, tournament_games=100,
                          tournament_policies=("balanced", "cautious", "greedy", "vp-rush"),
                          adv_games=40, adv_observational_games=300, adv_other_games=24,
                          pool_grid="17:41:6", pool_games=60)),
        "quick": (dict(spoil_sim_games=1000, tournament_games=1000,
                       tournament_policies=("balanced", "cautious", "greedy", "vp-rush"),
                       adv_games=200, adv_observational_games=2000, adv_other_games=200,
                       pool_grid="17:41:4", pool_games=400),
                  dict(spoil_sim_games=500, tournament_games=20,
                       tournament_policies=("balanced", "greedy", "cautious"),
                       adv_games=6, adv_observational_games=40, adv_other_games=8,
                       adv_cards=("Podlings", "Peacekeeper Druid", "Hulking Thornhide",
                                  "Blooming Arbor"),
                       pool_grid="20:30:10", pool_games=16)),
        "tiny": (dict(spoil_decks=("starter", "druid"), spoil_sim_games=200, spoil_pushes=4,
                      tournament_policies=("balanced", "greedy"), tournament_games=20,
                      adv_games=6, adv_observational_games=40, adv_other_games=8,
                      adv_cards=("Podlings", "Peacekeeper Druid", "Blooming Arbor"),
                      pool_players=(2, 3), pool_grid="25", pool_games=16),
                 dict(spoil_decks=("starter", "druid"), spoil_sim_games=100, spoil_pushes=4,
                      tournament_policies=("balanced", "greedy"), tournament_games=6,
                      adv_games=4, adv_observational_games=10, adv_other_games=8,
                      adv_cards=("Podlings", "Blooming Arbor"),
                      pool_players=(2, 3), pool_grid="25", pool_games=6)),
    }

    @classmethod
    def make(cls, size: str = "full", quick: bool = False, engine: str = "fast",
             **overrides) -> "ReportSettings":
        """Preset sizes for ``size`` ("full", "quick", "tiny"; ``quick=True`` means
        "quick"), for the fast engine when it is available, else small reference
        sizes (noted in the report).  ``overrides``: any field, e.g. pool_games=200;
        ``baseline=`` is ``robust_baseline``, the strong baseline of "Robust to the bots?".
        """
        from .pools import fast_engine_available
        if "baseline" in overrides:                 # the strong baseline, as on the command line
            overrides["robust_baseline"] = overrides.pop("baseline")
        return settings_from_preset(
            cls, size, quick, engine, overrides, fast_engine_available,
            "The fast (numba) engine is not available, so this report uses the reference "
            "engine with small sample sizes: intervals are wide.",
            ("spoil_decks", "tournament_policies", "pool_players", "adv_cards",
             "adv_other_players"))

    def check(self) -> None:
        for k in ("spoil_sim_games", "tournament_games", "adv_games", "adv_observational_games",
                  "adv_other_games", "pool_games", "spoil_pushes", "workers"):
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{k} must be a positive whole number, got {v!r}")
            from vale_sim.limits import MAX_COUNT, count_problem
            if k.endswith("games") and v > MAX_COUNT:      # the one cap (vale_sim.limits)
                raise ValueError(f"{k}: {count_problem(v)}")
        if len(self.tournament_policies) < 2:
            raise ValueError("tournament_policies needs at least 2 policies")
        if not 0 < self.adv_margin <= max(self.adv_tolerance, self.adv_margin) < 1:
            raise ValueError(f"adv_margin must be a fraction in (0, 1) (0.02 = 2 pp), "
                             f"got {self.adv_margin!r}")
        from .pools import parse_players, parse_pools
        parse_pools(self.pool_grid, parse_players(list(self.pool_players)))
        if not isinstance(self.adv_other_players, tuple) or not all(
                type(p) is int and p in (2, 3, 4) for p in self.adv_other_players):
            raise ValueError(f"adv_other_players must be a list of player counts among 2, 3 "
                             f"and 4 (or empty), got {self.adv_other_players!r}")
        from vale_sim.robustness import resolve_baseline
        for p in sorted(set(self.pool_players) | {self.adv_players}):
            resolve_baseline(self.robust_baseline, p)        # PolicyError names it
        for spec in (self.field, self.settle_field):
            resolve_baseline(spec, self.adv_players)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def other_players(self) -> tuple:
        """The player counts the strength is measured at besides ``adv_players``, sorted."""
        return tuple(sorted(set(self.adv_other_players) - {self.adv_players}))

    def games(self) -> dict:
        """Games per study for the manifest."""
        return {"spoil_simulated_turns_per_deck": self.spoil_sim_games,
                "tournament_per_matchup": self.tournament_games,
                "advancement_strength_per_card_and_arm": self.adv_games,
                "advancement_strength_other_players": list(self.other_players()),
                "advancement_strength_other_players_per_card_and_arm": self.adv_other_games,
                "advancement_observational": self.adv_observational_games,
                "advancement_verdict_fields_per_card_and_arm": self.adv_games,
                "pool_per_cell": self.pool_games,
                "robustness_strength_per_card_and_arm": self.adv_games,
                "robustness_pool_per_cell": self.pool_games}


def model_cards_sentence(cs) -> str:
    """How many of ``cs``'s advancements are model cards (stand-ins, not printed
    cards), and what they are; "" when it has none."""
    from .cards import MODEL_CARDS_WHY, is_model_card
    commons = [a for a in cs.advancements if a.supply == "commons"]
    model = [a for a in commons if is_model_card(a)]
    if not model:
        return ""
    return (f"**Model cards: {len(model)} of the {len(commons)} advancement kinds in the "
            f"commons ({sum(a.copies for a in model)} of their {sum(a.copies for a in commons)} "
            f"copies), named \"Model L<level> ...\", are stand-ins, not printed cards.**  "
            + MODEL_CARDS_WHY + "  Column "
            "`card_type` of the tables says which cards are `model` and which `printed`.")


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------
def section_card_set(ctx: Context) -> Section:
    """The card set and where its numbers come from: every number is counted by source."""
    from .cards import SOURCES, card_type, provenance_counts
    from .commands.cards import overrides
    cs = ctx.card_set()
    rows, numbers = [], []
    for kind, items in (("starting", cs.starting_cards), ("advancement", cs.advancements),
                        ("vale", cs.vales)):
        for c in items:
            if kind == "advancement" and c.supply != "commons":
                kind_c, group = c.supply, "starting deck"
            elif kind == "starting":
                kind_c, group = kind, "starting deck"
            else:
                kind_c, group = kind, f"{kind} level {c.level}"
            srcs = c.numbers()
            numbers += [{"kind": kind_c, "group": group, "source": src} for src in srcs.values()]
            if kind_c in ("starting", "starter"):
                continue                       # not buyable: counted, not listed
            n_est = list(srcs.values()).count("estimate")
            rows.append({"name": c.name, "kind": kind_c, "card_type": card_type(c),
                         "level": c.level, "copies": c.copies,
                         "cost": c.cost if kind == "advancement" else sum(c.cost),
                         "end_vp": c.end_vp, "harvest_vp": getattr(c, "harvest_vp", 0),
                         "ability": c.ability, "source": c.source,
                         "other_sources": overrides(c), "numbers": len(srcs),
                         "estimated_numbers": n_est, "estimate": n_est > 0})
    cards = pd.DataFrame(rows)
    nums = pd.DataFrame(numbers)
    counts = pd.crosstab(nums["kind"], nums["source"])
    counts = counts[[s for s in SOURCES if s in counts.columns]]
    counts["total"] = counts.sum(axis=1)
    counts = counts.reset_index()
    prov = provenance_counts(cs)
    total = sum(prov.values())
    est = prov["estimate"]
    n_est_cards = int(cards["estimate"].sum())
    fig, ax = _new_fig(6.5, 3.2)
    piv = pd.crosstab(nums["group"], nums["source"])
    piv = piv[[s for s in SOURCES if s in piv.columns]]
    bottom = np.zeros(len(piv))
    x = np.arange(len(piv))
    for src in piv.columns:
        ax.bar(x, piv[src], bottom=bottom, label=src)
        bottom += piv[src].to_numpy()
    ax.set_ylabel("numbers")
    # "advancement level 1" side by side overlaps: one word per line.
    ax.set_xticks(x, [g.replace(" level ", "\nlevel ").replace(" deck", "\ndeck")
                      for g in piv.index], fontsize=8)
    ax.set_title(f"{cs.name}: numbers by card group and source")
    ax.legend(fontsize=8)
    fig.tight_layout()
    caption = (f"{est} of {total} numbers ({_pct(est / total, 1)}) are estimates; "
               + ", ".join(f"{s}: {n}" for s, n in prov.items() if n)
               + f". {n_est_cards} of {len(cards)} buyable card kinds carry at least one "
               "estimated number.")
    starter_only = [a.name for a in cs.advancements if a.supply == "starter"]
    paras = [f"Card set **{cs.name}** (content hash `{cs.digest()}`): {len(cards)} buyable card "
             f"kinds — {int((cards.kind != 'vale').sum())} advancements "
             f"({int((cards.kind == 'advancement').sum())} commons and "
             f"{int((cards.kind == 'fertile').sum())} Fertile Soil) and "
             f"{int((cards.kind == 'vale').sum())} vales — and the 20-card starting deck; these "
             f"{len(cards)} are the cards every study of this report tests."
             + (f"  (`vale-sim cards` lists {len(cs.advancements)} advancement kinds, "
                f"{len(cs.advancements) + len(cs.vales)} card kinds with the vales: it also "
                f"lists {', '.join(starter_only)}, printed only on starting cards, which no one "
                f"buys.)" if starter_only else ""),
             model_cards_sentence(cs),
             f"Every number has its own source: **{est} of {total} numbers "
             f"({_pct(est / total, 1)}) are estimates**. `rulebook`: stated or fixed by the "
             "rulebook's text and examples; `review`: reviews and a fan implementation; "
             "`fan-list`: a public fan transcription of vale costs (unverified); `estimate`: "
             "set on the project's cost curve, not a printed value; `user`: entered by the user. "
             "A number counts once per card kind (level, copies, cost, position, symbols, VP, "
             "ability amounts; a vale's four cost symbols; a starting card's count); "
             "`vale_sim.games.mystic_vale.cards.provenance_counts` counts them, `vale-sim cards` lists them. "
             "Cards with an estimated number are flagged (column `estimate`); conclusions "
             "about such cards are conclusions about the estimate."]
    return Section("The card set and where its numbers come from", [p for p in paras if p],
                   {"card_sources": counts, "cards": cards},
                   [("card_sources", fig, caption)])


def section_spoil(ctx: Context) -> Section:
    """Spoil odds of the starter deck and crafted decks: exact, with a simulation check."""
    spoil = _need("vale_sim.games.mystic_vale.spoil", "spoil odds")
    from .spoil import spoil_row
    s = ctx.settings
    cs = ctx.card_set()
    rows, exact = [], {}
    decks = list(s.spoil_decks or spoil.bundled_decks())
    for d in decks:
        ex = spoil.spoil_odds(d, s.spoil_pushes, card_set=cs)
        sim = spoil.simulate_spoil_odds(d, s.spoil_pushes, s.spoil_sim_games, s.seed, card_set=cs)
        exact[d] = ex
        for k in range(1, s.spoil_pushes + 1):
            r = spoil_row(d, k, ex.p_spoil_within[k], sim.p_spoil_within[k],
                          sim.se["p_spoil_within"][k], s.spoil_sim_games)
            r["p_prep_spoil"] = ex.p_prep_spoil
            r["exp_mana_stop_here"] = ex.expected[k]["mana"]
            rows.append(r)
    table = pd.DataFrame(rows)
    ctx.results["spoil"] = (table, exact)
    fig, ax = _new_fig(7, 4)
    for d in decks:
        t = table[table.deck == d]
        line, = ax.plot(t["pushes"], 100 * t["p_spoil_exact"], "-", label=f"{d} (exact)")
        ax.errorbar(t["pushes"], 100 * t["p_spoil_sim"],
                    yerr=[100 * (t["p_spoil_sim"] - t["sim_lo"]),
                          100 * (t["sim_hi"] - t["p_spoil_sim"])],
                    fmt="o", ms=3, color=line.get_color(), capsize=2)
    ax.set_xlabel("pushes this turn")
    ax.set_ylabel("P(spoiled within k pushes), %")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Spoil odds: exact (lines) and simulated (points, 95% CI)")
    fig.tight_layout()
    agree = int(table["agrees"].sum())
    first = table[table.pushes == 1].set_index("deck")["p_spoil_exact"]
    safest, riskiest = first.idxmin(), first.idxmax()
    caption = (f"First push spoils {_pct(first[riskiest])} of the time with {riskiest} and "
               f"{_pct(first[safest])} with {safest}; the simulation's 95% interval contains the "
               f"exact value in {agree} of {len(table)} cells.")
    desc = []
    for d in decks:
        deck = spoil.as_deck(d, cs)
        desc.append({"deck": d, "cards": len(deck.cards), "contents": "; ".join(deck.describe())})
    paras = [f"Probability of having spoiled within k pushes from the start of Planting "
             f"(after Prep), computed exactly over deck compositions and checked by "
             f"{s.spoil_sim_games} simulated turns per deck (the fast engine's spoil simulation "
             f"where numba is installed, else the reference engine: the same turns, draw for "
             f"draw; Wilson 95% intervals).  Crafted decks are the bundled example decks.",
             "Starter deck: " + ", ".join(f"{k} push{'es' if k > 1 else ''} "
                                          f"{_pct(exact['starter'].p_spoil_within[k])}"
                                          for k in range(1, min(4, s.spoil_pushes) + 1))
             + "." if "starter" in exact else ""]
    return Section("Spoil odds: starter and crafted decks", [p for p in paras if p],
                   {"spoil_odds": table, "spoil_decks": pd.DataFrame(desc)},
                   [("spoil_odds", fig, caption)])


def section_tournament(ctx: Context) -> Section:
    """Preset policies against each other, seats rotated on common seeds."""
    tour = _need("vale_sim.tournament", "strategy tournament")
    s = ctx.settings
    t = tour.tournament(list(s.tournament_policies), players=s.tournament_players,
                        games=s.tournament_games, seed=s.seed, card_set=s.card_set,
                        engine=s.engine, play=_store(ctx).play_frame)
    ctx.results["tournament"] = t
    rk = t.ranking
    fig, ax = _new_fig(6.5, 0.45 * len(rk) + 1.5)
    y = np.arange(len(rk))[::-1]
    ax.errorbar(rk["elo"], y, xerr=[rk["elo"] - rk["elo_lo"], rk["elo_hi"] - rk["elo"]],
                fmt="o", capsize=3)
    ax.set_yticks(y, rk["name"])
    ax.axvline(0, color="grey", lw=1, ls="--")
    ax.set_xlabel("Bradley–Terry strength (Elo points, mean 0; 95% CI)")
    ax.set_title(f"Strategy ranking, {s.tournament_players} players")
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    top, bottom = rk.iloc[0], rk.iloc[-1]
    separated = top["elo_lo"] > rk.iloc[1]["elo_hi"] if len(rk) > 1 else False
    caption = (f"{top['name']} ranks first ({top['elo']:+.0f} Elo [{top['elo_lo']:+.0f}, "
               f"{top['elo_hi']:+.0f}]), {bottom['name']} last ({bottom['elo']:+.0f}); the leader's "
               f"interval {'clears' if separated else 'overlaps'} the runner-up's.")
    c = t.config
    paras = [f"{c['games_per_matchup']} games per matchup ({c['deals']} deals × "
             f"{c.get('seatings_per_deal', c['players'])} seatings: every order of the line-up, "
             f"so each policy sits in every seat and right after every other equally often), "
             f"mode {c['mode']}, engine {c['engine']}, seed {c['seed']}.  Win "
             f"rates count a shared win 1/k; every rate and mean has n (player-games) and a 95% "
             f"interval clustered by deal: every matchup and seating replays the same deals, "
             f"so the {c['deals']} deals, not the games, are the independent units.  Spoils per "
             f"turn = spoils / turns taken.  Ranking intervals: "
             f"cluster-robust sandwich over deals"
             f"{'' if c['players'] == 2 else ' (pairwise comparisons of each game, rank breaking)'}."]
    table = t.table[["matchup", "policy", "n", "n_deals", "win_rate", "win_lo", "win_hi",
                     "tie_rate", "tie_lo", "tie_hi", "mean_score", "mean_score_lo",
                     "mean_score_hi", "mean_rounds", "mean_rounds_lo", "mean_rounds_hi",
                     "spoils_per_turn", "spoils_per_turn_lo", "spoils_per_turn_hi"]]
    return Section("Strategy tournament", paras,
                   {"tournament_matchups": table, "tournament_ranking": rk},
                   [("tournament_ranking", fig, caption)])


def section_advancements(ctx: Context) -> Section:
    """Card strength per card with over/under verdicts (multiplicity-corrected), and the
    observational lift.  The frame is kept in ``ctx.results["advancements"]``."""
    adv = _need("vale_sim.advancements", "advancement values")
    from vale_sim.plots.advancements import plot_forest
    s = ctx.settings
    bar = _bar(ctx, total=None, desc="cards", unit="card")
    keep = {}

    def on_card(i, n, name):
        if bar is not None:
            bar.total = n
            bar.n = i
            bar.set_postfix_str(name[:24])
            bar.refresh()
    try:
        df = adv.advancement_report(s.card_set, games=s.adv_games, players=s.adv_players,
                                    seed=s.seed, tolerance=s.adv_tolerance,
                                    observational_games=s.adv_observational_games,
                                    cards=list(s.adv_cards) if s.adv_cards else None,
                                    engine=s.engine, on_card=on_card,
                                    correction=s.adv_correction,
                                    play=_store(ctx).play_frame, keep=keep,
                                    margin=s.adv_margin)
    finally:
        if bar is not None:
            bar.close()
    from .cards import card_type
    df.insert(df.columns.get_loc("kind") + 1, "card_type", [card_type(c) for c in df["card"]])
    ctx.results["advancements"] = df
    ctx.results["advancements_run"] = keep.get("run")
    by_count = {s.adv_players: df}
    for p in s.other_players():      # the same cards at the other player counts
        bar = _bar(ctx, total=None, desc=f"cards ({p} players)", unit="card")
        try:
            by_count[p] = adv.strength_table(
                s.card_set, games=s.adv_other_games, players=p, seed=s.seed,
                cards=list(df["card"]), engine=s.engine, tolerance=s.adv_tolerance,
                correction=s.adv_correction, on_card=on_card, play=_store(ctx).play_frame,
                margin=s.adv_margin)
        finally:
            if bar is not None:
                bar.close()
    per_players = strength_by_players(by_count)
    ctx.results["advancements_by_players"] = per_players
    cs = ctx.card_set()
    a = df.attrs
    df = df.copy()
    df.attrs.update(a)
    df["numbers"], df["estimated_numbers"] = zip(*(_estimated(cs, c) for c in df["card"]))
    tol = 100 * s.adv_tolerance
    from vale_sim.verdicts import CORRECTION_NAMES, strength_counts
    correction = CORRECTION_NAMES.get(a["correction"], a["correction"])
    flagged = df[df["flag"] != ""]
    same = df[df["deals_changed"] == 0]
    n_model = int((df["card_type"] == "model").sum())
    fig = plot_forest(df)
    caption = (f"{(df['flag'] == 'over').sum()} card(s) flagged over and "
               f"{(df['flag'] == 'under').sum()} under of {len(df)} tested (±{tol:g} pp, "
               f"{correction} at {100 * a['confidence']:g}%); strength with its raw "
               f"interval (thick) and adjusted interval (thin)"
               + (f"; grey italic names: the {n_model} model cards (stand-ins, not printed)."
                  if n_model else "."))
    paras = [f"**Strength** of a card X: three focal arms play the same deals "
             f"(common random numbers, the focal player rotated through the "
             f"{a['players']} seats) against {a['baseline']} opponents: “prefer X” (the "
             f"baseline buying X first whenever it can), “ban X” (the baseline never buying "
             f"X; opponents still may) and “natural” (the baseline).  Strength = win share "
             f"(prefer X) − win share (ban X): what pursuing X is worth against never having "
             f"it; natural value = natural − ban X: what X is worth as the bot uses it.  "
             f"Per deal the rotations are averaged; intervals are paired t intervals over "
             f"the deals.  Sample: {strength_counts(a['deals'], a['players'])}; the natural "
             f"arm's {a['deals'] * a['players']:,} games are shared by every card.  The n of "
             f"every interval is the deals, the independent units.",
             f"**Verdicts**: a card is flagged **over** (**under**) when the hypothesis "
             f"|strength| ≤ {tol:g} pp is rejected after a Benjamini–Hochberg correction "
             f"across the {a['cards_tested']} cards tested (false discovery rate "
             f"{100 * (1 - a['confidence']):g}%); the adjusted intervals, at the "
             f"false-coverage-rate level {100 * a['adjusted_confidence']:.2f}%, lie beyond the "
             f"band exactly for the flagged cards.  Sample size and tolerance make the flags "
             f"the same under seeds 0, 1 and 2 (docs/statistics.md, \"Flag stability\")."
             if a["correction"] == "fdr_bh" else
             f"**Verdicts**: flagged when |strength| ≤ {tol:g} pp is rejected after a "
             f"{correction} correction across the {a['cards_tested']} cards tested; "
             f"adjusted intervals at {100 * a['adjusted_confidence']:.2f}%.",
             f"Every card gets one of three verdicts: **over/under** (flagged: shown beyond "
             f"±{tol:g} pp), **balanced** (shown within ±{100 * s.adv_margin:g} pp by two "
             f"one-sided tests, the same {correction} correction across the cards) or "
             f"**inconclusive** (column games_needed: games per card and arm that would settle "
             f"it if the estimate is right).  The ±{tol:g} pp band is a choice that catches only "
             f"gross errors (a printing error of +1 VP, +1 mana or −1 cost moves a card by "
             f"1–2 pp), not a convention: no flag does not mean balanced.  "
             + _verdict_counts(df),
             f"Strength is measured at {a['players']} players and includes **denial**: banning "
             f"a card leaves every copy to the opponents, so the value is what the card is worth "
             f"to you *and* what it would be worth to them.  It is not comparable across player "
             f"counts (more opponents share the denial)"
             + (f"; it is measured again at {' and '.join(map(str, s.other_players()))} "
                f"players, with fewer games, below (\"By player count\")." if s.other_players()
                else f"; run `vale-sim advancements --players 3` (or 4) for another count.")]
    if n_model:
        paras.append(f"**Model cards**: {n_model} of the {len(df)} cards tested are model "
                     f"cards (column `card_type`: `model`; the others `printed`): stand-ins the "
                     f"project made up for the unknown printed cards, every number estimated "
                     f"(see the card-set section).  Their flags say how a stand-in plays, not "
                     f"how a printed card does, so they are listed apart.")
    if len(same):
        paras.append("Indistinguishable by design (no deal changed between prefer and ban): "
                     + ", ".join(same["card"]) + ".")
    paras.append(f"Observational lift ({a.get('observational_games', s.adv_observational_games)} "
                 f"games of exploring baseline players): {adv.ASSOCIATION_NOTE}")
    fcols = ["card", "kind", "card_type", "level", "numbers", "estimated_numbers", "flag",
             "verdict", "verdict_agreement", "margin", "strength", "strength_lo", "strength_hi",
             "strength_lo_adj", "strength_hi_adj", "p_adjusted", "natural_value", "natural_lo",
             "natural_hi", "per_pick_value", "per_pick_lo", "per_pick_hi", "n_deals",
             "deals_changed"]
    fcols = [c for c in fcols if c in df.columns]
    cols = [c for c in fcols + ["p_value", "p_equivalent", "p_equivalent_adjusted",
                                "games_needed", "natural_deals_changed", "acquired_rate",
                                "acquired_rate_lo", "acquired_rate_hi", "note", "lift",
                                "lift_lo", "lift_hi", "acquire_rate", "acquire_rate_lo",
                                "acquire_rate_hi"] if c in df.columns]
    tables = {"advancement_values": df[cols]}
    if len(by_count) > 1:
        tables["advancement_strength_by_players"] = per_players
        paras.append(players_sentence(per_players, {p: t.attrs for p, t in by_count.items()}))
    top, lists = {}, []
    # First: the verdicts a designer acts on -- printed cards and model cards apart.
    for what, table in (("printed", "advancement_flagged_printed"),
                        ("model", "advancement_flagged_model")):
        part = flagged[flagged["card_type"] == what]
        tested = int((df["card_type"] == what).sum())
        if not tested:
            continue
        label = "printed cards" if what == "printed" else "model cards (stand-ins, not printed)"
        if len(part):
            top[table] = part[fcols].reset_index(drop=True)
            lists.append(f"**Flagged {label}** ({len(part)} of {tested} tested, ±{tol:g} pp; "
                         f"table {table}): " + "; ".join(
                             f"{r.card} ({r.flag}; {r.estimated_numbers} of its {r.numbers} "
                             f"numbers estimated) {100 * r.strength:+.1f} pp, "
                             f"adjusted [{100 * r.strength_lo_adj:+.1f}, "
                             f"{100 * r.strength_hi_adj:+.1f}], n={r.n_deals:,} deals"
                             for r in part.itertuples()) + ".")
        else:
            lists.append(f"**No {label.split(' (')[0]} flagged** (0 of {tested} tested): every "
                         f"strength is consistent with ±{tol:g} pp after the correction.")
    paras[:0] = lists
    field_paras, field_top, field_tables = _field_verdicts(ctx, ctx.results["advancements"],
                                                           ctx.results["advancements_run"])
    paras[:0] = field_paras
    top = {**field_top, **top}
    tables.update(field_tables)
    return Section("Advancement values", paras, tables, [("advancement_values", fig, caption)],
                   top_tables=top)


def _field_verdicts(ctx: Context, base_df, base_run):
    """The headline card verdicts: the natural estimand (docs/statistics.md §5.6) under
    the strongest field (``settings.field``), settled when the verdict holds under
    ``settings.settle_field`` too, the default-baseline run as the comparison column,
    and the rationality check of the three fields next to their exploitability.
    Returns (paragraphs, top tables, tables); keeps ``ctx.results["field_verdicts"]``
    and the settling field's run for "Robust to the bots?" (``advancements_settle``)."""
    adv = _need("vale_sim.advancements", "advancement values")
    from vale_sim import strong_field as SF
    from vale_sim.robustness import resolve_baseline
    from vale_sim.verdicts import strength_counts
    from .cards import card_type
    s = ctx.settings
    if base_run is None:
        return [], {}, {}
    cards = list(base_run.arms)
    pols = {resolve_baseline(f, s.adv_players).name: resolve_baseline(f, s.adv_players)
            for f in (s.field, s.settle_field)}
    names = list(pols)
    if len(names) < 2:
        raise ValueError(f"field and settle_field must be two different policies, got "
                         f"{s.field!r} twice")
    frames, runs = {}, {}
    for name in names:
        bar = _bar(ctx, total=None, desc=f"cards ({name})", unit="card")

        def on_card(i, n, card):
            if bar is not None:
                bar.total, bar.n = n, i
                bar.set_postfix_str(card[:24])
                bar.refresh()
        keep = {}
        try:
            frames[name] = adv.strength_table(
                s.card_set, games=s.adv_games, players=s.adv_players, seed=s.seed,
                baseline=pols[name], cards=cards, engine=s.engine, tolerance=s.adv_tolerance,
                correction=s.adv_correction, on_card=on_card, play=_store(ctx).play_frame,
                keep=keep, margin=s.adv_margin, estimand="natural")
        finally:
            if bar is not None:
                bar.close()
        runs[name] = keep["run"]
    strong, second = names
    base_name = base_run.baseline.name
    base_nat = adv.strength_frame(base_run, base_df.attrs["confidence"], s.adv_tolerance,
                                  s.adv_correction, s.adv_margin, estimand="natural")
    st = adv.settle(frames[strong], frames[second], labels=(strong, second),
                    runs=(runs[strong], runs[second]))
    table = SF.verdict_table(frames[strong], st, {base_name: base_nat})
    table.insert(table.columns.get_loc("kind") + 1, "card_type",
                 [card_type(c) for c in table["card"]])
    ratio = SF.rationality_table({strong: frames[strong], second: frames[second],
                                  base_name: base_nat}, ctx.game, s.adv_players)
    ctx.results["field_verdicts"] = {"frame": frames[strong], "settlement": st,
                                     "table": table, "rationality": ratio,
                                     "comparison": (base_name, base_nat)}
    ctx.results["field_runs"] = {n: (frames[n], runs[n]) for n in names}
    a = frames[strong].attrs
    c = table["verdict"].value_counts()
    counts = ", ".join(f"{c.get(v, 0)} {v}" for v in ("over", "under", "balanced",
                                                        "inconclusive"))
    flagged = table[table["verdict"].isin(["over", "under"])]
    paras = [f"**Headline verdicts: under the strongest field, `{strong}`** (table "
             f"`card_verdicts_strong_field`; {strength_counts(a['deals'], a['players'])}, "
             f"seed {s.seed}).  A verdict here is a property of the card *when played well* "
             f"(docs/statistics.md §5.6): **over** when its natural value (win share of the "
             f"field's own play − the field never taking it) is shown beyond "
             f"±{100 * s.adv_tolerance:g} pp; **under** when the field is not shown to gain "
             f"anything from it (and gains less than {100 * s.adv_margin:g} pp) *and* taking "
             f"it whenever possible (the forced value, prefer − ban) is shown to cost more "
             f"than {100 * s.adv_tolerance:g} pp; **balanced** when the natural value is shown "
             f"within ±{100 * s.adv_margin:g} pp, the field does take it and forcing it costs "
             f"less than the band; else inconclusive.  Unlike “prefer X” alone this never "
             f"reads a strictly better printing lower when the field plays well.  Verdicts: "
             f"{counts}." + near_boundary(table) + f"  **Settled** = the same verdict under `{second}` as well (and not "
             f"inconclusive): " + st.sentence() + f"  The column `verdict ({base_name})` is "
             f"the same estimand under the default bot, for comparison.",
             ("Flagged under the strong field: " + "; ".join(
                 f"{r.card} ({r.verdict}, {'settled' if r.settled else 'not settled'}) "
                 f"natural {100 * r.natural_value:+.1f} pp [{100 * r.natural_lo:+.1f}, "
                 f"{100 * r.natural_hi:+.1f}], forced {100 * r.forced_value:+.1f} pp"
                 + agreement_note(getattr(r, "verdict_stable", None),
                                  getattr(r, "verdict_agreement", None))
                 for r in flagged.itertuples()) + ".") if len(flagged) else
             "No card is flagged over or under under the strong field.",
             SF.rationality_sentence(ratio)]
    top = ({"card_verdicts_flagged_strong_field": flagged.reset_index(drop=True)}
           if len(flagged) else {})
    top.update(field_rationality=ratio, card_verdicts_strong_field=table)
    tables = {"card_verdicts_settled": st.table}
    return paras, top, tables


def strength_by_players(frames: dict) -> pd.DataFrame:
    """One row per card, the strength at each player count side by side: ``frames``
    maps a player count to its strength table (``vale_sim.advancements.strength_table``).
    Columns per count P: ``strength (Pp)``, ``lo (Pp)``, ``hi (Pp)`` (raw 95% interval),
    ``n_deals (Pp)`` and ``verdict (Pp)``; then ``verdicts_differ`` (any two verdicts
    differ) and ``contradicted`` (two differ and neither is inconclusive).  Ordered as the
    first count's table (by strength)."""
    from .cards import card_type
    counts = sorted(frames)
    first = frames[counts[0]]
    out = first[["card", "kind", "level"]].copy()
    out.insert(2, "card_type", [card_type(c) for c in out["card"]])
    for p in counts:
        t = frames[p].set_index("card")
        for col, src in (("strength", "strength"), ("lo", "strength_lo"),
                         ("hi", "strength_hi"), ("n_deals", "n_deals"), ("verdict", "verdict")):
            out[f"{col} ({p}p)"] = out["card"].map(t[src]).to_numpy()
    verdicts = out[[f"verdict ({p}p)" for p in counts]]
    out["verdicts_differ"] = verdicts.nunique(axis=1, dropna=False) > 1
    out["contradicted"] = verdicts.apply(
        lambda r: len({v for v in r if v != "inconclusive"}) > 1, axis=1).astype(bool)
    return out.reset_index(drop=True)


def players_sentence(table: pd.DataFrame, attrs: dict) -> str:
    """The section's sentence on :func:`strength_by_players`: the sizes at each count,
    the cards whose verdicts differ between counts (contradicted first, with their
    verdicts) and why the numbers are not comparable across counts.  ``attrs``:
    player count -> the attrs of its strength table."""
    from vale_sim.verdicts import CORRECTION_NAMES, _n
    counts = sorted(attrs)
    corr = attrs[counts[0]]["correction"]
    sizes = "; ".join(f"{p} players: {_n(attrs[p]['deals'] * p)} games per card and arm = "
                      f"{_n(attrs[p]['deals'])} deals" for p in counts)
    head = (f"**By player count** (table `advancement_strength_by_players`: every card's "
            f"strength, raw 95% interval, n (deals) and verdict at "
            f"{', '.join(map(str, counts[:-1]))} and {counts[-1]} players side by side; "
            f"{sizes}; the same seed, baseline, band, margin and {CORRECTION_NAMES.get(corr, corr)}"
            f" correction within each count): ")
    differ = table[table["verdicts_differ"]]
    if not len(differ):
        body = f"the verdicts are the same at every count for all {len(table)} cards.  "
    else:
        con = differ[differ["contradicted"]]
        rest = differ[~differ["contradicted"]]

        def said(r):
            return ", ".join(f"{p}p {r[f'verdict ({p}p)']}" for p in counts)
        body = f"the verdicts differ for {len(differ)} of the {len(table)} cards.  "
        if len(con):
            body += ("Shown differently at different counts: " + "; ".join(
                f"{r['card']} ({said(r)})" for _, r in con.iterrows()) + ".  ")
        if len(rest):
            body += ("Settled at one count and inconclusive at another (fewer deals at "
                     "some counts, or a strength between the margin and the band): "
                     + ", ".join(rest["card"]) + ".  ")
    return (head + body + "These numbers are **not comparable across player counts**: the "
            "strength includes denial, and a banned card's copies go to 1, 2 or 3 opponents "
            "as the count grows, while a fair win share falls from 1/2 to 1/4; read each "
            "count on its own.")


def _verdict_counts(df) -> str:
    """"Verdicts: 2 over, 1 under, 30 balanced, 37 inconclusive." ("" without verdicts)."""
    if "verdict" not in df:
        return ""
    c = df["verdict"].value_counts()
    return ("Verdicts: " + ", ".join(f"{c.get(v, 0)} {v}" for v in
                                     ("over", "under", "balanced", "inconclusive")) + "."
            + near_boundary(df))


def _estimated(cs, card: str) -> tuple[int, int]:
    """(numbers, estimated numbers) of one card (docs/card-format.md, sources)."""
    from .cards import provenance_counts
    c = provenance_counts(cs, [card])
    return sum(c.values()), c.get("estimate", 0)


def _pool_summary(ctx: Context):
    if "pools" not in ctx.results:
        from . import pools
        s = ctx.settings
        players = list(s.pool_players)
        grid = pools.parse_pools(s.pool_grid, players)
        frame = pools.simulate_pools(s.card_set, players, grid, games=s.pool_games, seed=s.seed,
                                     engine=s.engine, out=_store(ctx), progress=ctx.progress)
        summary = pools.summarize_pools(frame)
        recs = {t: pools.recommend(summary, t, frame=frame) for t in pools.TARGETS
                if t != "equal-length" or 2 in players}
        ctx.results["pools"] = (summary, recs)
    return ctx.results["pools"]


def section_pools(ctx: Context) -> Section:
    """VP pool sizes by player count: length, score make-up, overflow; recommendations."""
    from . import pools
    from .plots import pools as pplots
    s = ctx.settings
    summary, recs = _pool_summary(ctx)
    eq = recs.get("equal-length", [])
    fig = pplots.length_vs_pool(summary, eq)
    paras = [f"{s.pool_games} games per (player count, pool size), every cell on the same seeds "
             f"(common random numbers), default policy for every seat.  Pools {s.pool_grid} plus "
             f"the rulebook's 23/28/33.  Box VP = max(0, Σ harvest VP tokens − pool)."]
    for target, rs in recs.items():
        if not rs:
            continue
        goal = (f"game length equivalent to the 2-player rulebook game within ±{rs[0].margin:.2g} "
                f"rounds (two one-sided tests: the 90% interval of the difference inside the margin)"
                if target == "equal-length"
                else f"no seat advantage: the largest |seat win rate − 1/players| over seats below "
                     f"{100 * rs[0].margin:.1f} pp (upper end of its 95% interval)")
        paras.append(f"**Target: {goal}.** " + " ".join(r.sentence() for r in rs))
    rb = summary[summary.rulebook]

    def iv(m, ci, k=1.0, d=1, unit=""):
        return f"{k * m:.{d}f}{unit} [{k * ci[0]:.{d}f}, {k * ci[1]:.{d}f}]"
    paras.append("At the rulebook pools (95% intervals): " + "; ".join(
        f"{r.players}p/{r.pool} (n={r.n_games} games): {iv(r.mean_rounds, r.mean_rounds_ci)} rounds, "
        f"{iv(r.token_vp_share, r.token_vp_share_ci, 100, unit='%')} of points from harvest "
        f"tokens, winner margin {iv(r.mean_margin, r.mean_margin_ci)}, box used in "
        f"{iv(r.overflow_rate, r.overflow_rate_ci, 100, 0, '%')} of games"
        for r in rb.itertuples()) + ".")
    rec_tables = {f"pool_recommendation_{t.replace('-', '_')}": pools.recommendations_frame(rs)
                  for t, rs in recs.items()}
    return Section("Pool sizes by player count", paras,
                   {"pool_sizes": pools.flat_table(summary, digits=4), **rec_tables},
                   [("pool_length", fig, pplots.length_reading(summary, eq))])


def section_robustness(ctx: Context) -> Section:
    """Robust to the bots?  Card strengths and the pool study again under the strong
    baseline (``settings.robust_baseline``, default the game's strongest bundled field) on the
    same deals and seeds, side by side with the default (balanced) baseline."""
    from vale_sim import robustness as R
    from . import pools
    s = ctx.settings
    strong = {p: R.resolve_baseline(s.robust_baseline, p).name
              for p in sorted(set(s.pool_players) | {s.adv_players})}
    label = R.baseline_label(s.robust_baseline)
    names = sorted(set(strong.values()))
    shown = label if names == [label] else f"{label}: {', '.join(names)}"
    paras = [f"Every verdict above comes from games between bots.  A card can look strong only "
             f"because the default bot ({R.DEFAULT_BASELINE}) misplays the rest of the set, and a "
             f"pool size tuned for it may not suit better play.  So both studies are played "
             f"again with a strong baseline, **{label}** ("
             + ", ".join(f"{p} players: {n}" for p, n in strong.items())
             + "; by default the bundled meta-game fields, docs/meta.md), on the same deals, seeds "
             "and sizes, and compared side by side.  Rules (docs/statistics.md §9): a card's "
             "flag is **robust** when it is the same under both bots; **not robust** when it is "
             "flagged under one and, under the other, flagged the opposite way or measured "
             "inside the band (95% interval within ±tolerance); **not shown robust** when it is "
             "flagged under one and inconclusive under the other (not significant there, which "
             "does not make it wrong)."]
    top, tables, figs = {}, {}, []
    found = {"strong": shown}
    adv_df = ctx.results.get("advancements")
    run_a = ctx.results.get("advancements_run")
    if adv_df is not None and run_a is not None:
        adv = _need("vale_sim.advancements", "advancement values")
        bar = _bar(ctx, total=None, desc=f"cards ({strong[s.adv_players]})", unit="card")

        def on_card(i, n, name):
            if bar is not None:
                bar.total = n
                bar.n = i
                bar.set_postfix_str(name[:24])
                bar.refresh()
        keep = {}
        done = ctx.results.get("field_runs", {}).get(strong[s.adv_players])
        try:
            if (done is not None and done[1].baseline.name == strong[s.adv_players]
                    and done[1].deals == run_a.deals and list(done[1].arms) == list(run_a.arms)):
                # the advancement section played this field already (its settling field)
                keep["run"] = done[1]
                tb = adv.strength_frame(done[1], run_a_conf(adv_df), s.adv_tolerance,
                                        s.adv_correction, s.adv_margin)
            else:
                tb = adv.strength_table(s.card_set, games=s.adv_games, players=s.adv_players,
                                        seed=s.seed, baseline=strong[s.adv_players],
                                        cards=list(run_a.arms), engine=s.engine,
                                        tolerance=s.adv_tolerance, correction=s.adv_correction,
                                        on_card=on_card, play=_store(ctx).play_frame, keep=keep,
                                        margin=s.adv_margin)
        finally:
            if bar is not None:
                bar.close()
        cmp = R.compare_strengths(adv_df, tb, runs=(run_a, keep["run"]), seed=s.seed,
                                  labels=(run_a.baseline.name, strong[s.adv_players]))
        found["cards"] = cmp
        ctx.results["advancements_strong"] = tb
        from .cards import card_type
        side = R.strength_side_by_side(cmp)
        side.insert(side.columns.get_loc("kind") + 1, "card_type",
                    [card_type(c) for c in side["card"]])
        top["robust_cards"] = side
        from vale_sim.verdicts import strength_counts
        paras.append("**Card strengths** ("
                     f"{strength_counts(cmp.n_deals, s.adv_players)}, under each baseline, "
                     f"seed {s.seed}): " + " ".join(cmp.sentences()))
        paras.append("The rank correlation's interval is a bootstrap over deals: each "
                     "resample draws deals with replacement and applies them to every card "
                     "under both baselines at once, as the shared deals correlate them; it is "
                     "the hull of the percentile and the bias-corrected (BCa) interval, "
                     "because noise pulls a rank correlation towards 0 and neither interval "
                     "alone covers in every regime (docs/statistics.md §9).  "
                     "`change` = strength under the strong baseline − under the default, with a "
                     "paired t interval over the same deals.")
        figs.append(("robust_cards", _robust_figure(cmp), _robust_caption(cmp)))
    else:
        paras.append("Card strengths: the advancement section did not run in this report, so "
                     "there is nothing to compare.")
    summary_a, recs_a = _pool_summary(ctx)
    players = list(s.pool_players)
    grid = pools.parse_pools(s.pool_grid, players)
    frame = pools.simulate_pools(s.card_set, players, grid, games=s.pool_games, seed=s.seed,
                                 engine=s.engine, out=_store(ctx), progress=ctx.progress,
                                 baseline=s.robust_baseline)
    summary_b = pools.summarize_pools(frame)
    recs_b = {t: pools.recommend(summary_b, t, frame=frame) for t in recs_a}
    ctx.results["pools_strong"] = (summary_b, recs_b)
    if s.settle_field and R.baseline_label(s.settle_field) != label:
        # the same pool study under the second strong field: settled seat and pool verdicts
        frame_c = pools.simulate_pools(s.card_set, players, grid, games=s.pool_games,
                                       seed=s.seed, engine=s.engine, out=_store(ctx),
                                       progress=ctx.progress, baseline=s.settle_field)
        summary_c = pools.summarize_pools(frame_c)
        ctx.results["pools_settle"] = (summary_c, {t: pools.recommend(summary_c, t,
                                                                      frame=frame_c)
                                                   for t in recs_a})
        tables["pool_sizes_settle"] = pools.flat_table(summary_c, digits=4)
    pc = R.compare_pools(recs_a, recs_b, baseline_a=R.DEFAULT_BASELINE,
                         baseline_b=lambda p: strong[p])
    found["pools"] = pc
    if len(pc.table):
        top["robust_pools"] = pc.table[list(R.POOL_SHOWN)]
        tables["robust_pools_all"] = pc.table
        paras.append(f"**Pool sizes** ({s.pool_games:,} games per (player count, pool) under "
                     f"each baseline, the same seeds; a pool's verdict is the equivalence test "
                     f"of the pool section): " + " ".join(pc.sentences()))
    tables["pool_sizes_strong"] = pools.flat_table(summary_b, digits=4)
    # the card verdicts again with search players as the field (bundled; plays no game)
    from vale_sim import search_verdicts
    sv_paras, sv_top, sv_tables = search_verdicts.section_parts(ctx.game)
    paras += sv_paras
    top.update(sv_top)
    tables.update(sv_tables)
    ctx.results["robustness"] = found
    return Section("Robust to the bots?", paras, tables, figs, top_tables=top)


def run_a_conf(df) -> float:
    return float(df.attrs.get("confidence", 0.95))


def _robust_figure(cmp):
    fig, ax = _new_fig(6, 5)
    t = cmp.table
    colours = {"robust": "tab:green", "not robust": "tab:red", "not shown robust": "tab:orange",
               "no flag under either": "grey"}
    for lab, g in t.groupby("label", sort=False):
        x, y = 100 * g["strength_a"], 100 * g["strength_b"]
        ax.errorbar(x, y, xerr=[x - 100 * g["strength_a_lo"], 100 * g["strength_a_hi"] - x],
                    yerr=[y - 100 * g["strength_b_lo"], 100 * g["strength_b_hi"] - y],
                    fmt="o", ms=3.5, lw=0.6, capsize=0, color=colours.get(lab, "black"),
                    label=f"{lab} ({len(g)})")
    lim = [100 * min(t["strength_a_lo"].min(), t["strength_b_lo"].min()),
           100 * max(t["strength_a_hi"].max(), t["strength_b_hi"].max())]
    if all(np.isfinite(lim)):
        ax.plot(lim, lim, color="grey", lw=0.8, ls="--")
    tol = 100 * cmp.tolerance
    for v in (-tol, tol):
        ax.axvline(v, color="grey", lw=0.5, ls=":")
        ax.axhline(v, color="grey", lw=0.5, ls=":")
    ax.set_xlabel(f"strength under {cmp.baseline_a} (pp, 95% CI)")
    ax.set_ylabel(f"strength under {cmp.baseline_b} (pp, 95% CI)")
    ax.set_title("Card strength under the default and the strong bot")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def _robust_caption(cmp) -> str:
    c = cmp.counts()
    flagged = len(cmp.flagged)
    rho = (f"ρ = {cmp.rho:.2f} [{cmp.rho_lo:.2f}, {cmp.rho_hi:.2f}]" if np.isfinite(cmp.rho_lo)
           else (f"ρ = {cmp.rho:.2f}" if np.isfinite(cmp.rho) else "ρ n/a"))
    return (f"Spearman {rho} over {cmp.n_cards} cards; {c['robust']} of {flagged} flags robust, "
            f"{c['not robust']} not robust, {c['not shown robust']} not shown robust "
            f"(dotted: the ±{100 * cmp.tolerance:g} pp band; dashed: equal strength).")


def section_seats(ctx: Context) -> Section:
    """Seat advantage: by pool size (heat map) and in the tournament."""
    from .plots import pools as pplots
    summary, _ = _pool_summary(ctx)
    fig = pplots.seat_heatmap(summary)
    rows = []
    for r in summary[summary.rulebook].itertuples():
        for seat, (w, ci) in enumerate(zip(r.seat_win_rates, r.seat_win_rates_ci)):
            rows.append({"players": r.players, "pool": r.pool, "seat": seat + 1, "n": r.n_games,
                         "win_rate": w, "win_lo": ci[0], "win_hi": ci[1], "fair": 1 / r.players})
    tables = {"seats_rulebook_pools": pd.DataFrame(rows)}
    paras = ["Seat 1 is the starting player, everywhere in this report.  Pool study: one game "
             "per deal and cell, so the games of a cell are independent; Wilson 95% intervals "
             "(conservative for shared wins, which count 1/k).  Fair share = 1/players."]
    t = ctx.results.get("tournament")
    if t is not None:
        all_seats = t.seats[t.seats.policy == "all"].copy()
        tables["seats_tournament"] = all_seats
        if len(all_seats):
            r0 = all_seats[all_seats.seat == 1].iloc[0]
            paras.append(f"In the strategy tournament ({t.config['players']} players, mixed "
                         f"policies, seats rotated) the starting player (seat 1) won "
                         f"{_pct(r0.win_rate)} [{_pct(r0.win_lo)}, {_pct(r0.win_hi)}] of "
                         f"{int(r0.n)} player-games on {int(r0.n_deals)} deals; the interval is "
                         f"clustered by deal, since every matchup and rotation replays the same "
                         f"deals (the player-games are not independent).")
    return Section("Seat advantage", paras, tables,
                   [("seat_advantage", fig, pplots.seat_reading(summary))])


def estimated_share(ctx: Context):
    """``cards -> (estimated numbers, all numbers)`` over the named cards of the
    report's card set (``None``: every card)."""
    from .cards import provenance_counts
    cs = ctx.card_set()

    def share(cards):
        c = provenance_counts(cs, cards)
        return c.get("estimate", 0), sum(c.values())
    return share


# ---------------------------------------------------------------------------
# The first screen (vale_sim.report.first_screen): figures of what the sections found
# ---------------------------------------------------------------------------
def first_screen(ctx) -> list:
    """The report's first screen, from ``ctx.results`` (no game is played): the card
    verdicts, the seat advantage and the game length per player count at the rulebook
    pools, and the spoil odds; a panel whose section did not run is left out."""
    from vale_sim.report.first_screen import forest_panel
    r, out = ctx.results, []
    if "field_verdicts" in r:                 # the headline verdicts: under the strong field
        fv = r["field_verdicts"]
        out.append(forest_panel(fv["frame"], link="Advancement values", field=fv["settlement"].labels[0]))
    elif "advancements" in r:
        out.append(forest_panel(r["advancements"], link="Advancement values"))
    if "pools" in r:
        summary, _ = r["pools"]
        out += [_seat_panel(summary), _length_panel(summary)]
    if "spoil" in r:
        out.append(_spoil_panel(*r["spoil"]))
    return out


def _seat_panel(summary):
    """Every seat's win rate minus 1/players at each player count's rulebook pool."""
    from vale_sim.report.first_screen import Panel, new_panel_figure, points_panel
    from vale_sim.verdicts import _ci_pp
    rb = summary[summary.rulebook].sort_values("players")
    fig, ax = new_panel_figure()
    seats = max(int(p) for p in rb["players"])
    groups = []
    for seat in range(seats):
        xs, v, lo, hi = [], [], [], []
        for row in rb.itertuples():
            if seat < row.players:
                fair = 1 / row.players
                xs.append(row.players)
                v.append(100 * (row.seat_win_rates[seat] - fair))
                lo.append(100 * (row.seat_win_rates_ci[seat][0] - fair))
                hi.append(100 * (row.seat_win_rates_ci[seat][1] - fair))
        groups.append((f"seat {seat + 1}" + (" (starts)" if seat == 0 else ""), xs, v, lo, hi))
    points_panel(ax, groups)
    ax.axhline(0, color="grey", lw=1, ls="--")
    ticks = [int(p) for p in rb["players"]]
    ax.set_xticks(ticks, [f"{p} players\n(pool {q})" for p, q in
                                         zip(rb["players"], rb["pool"])], fontsize=7)
    ax.set_xlim(min(ticks) - 0.6, max(ticks) + 0.6)
    ax.set_ylabel("win rate − fair share (pp)", fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_title("Seat advantage at the rulebook pools", fontsize=8)
    ax.legend(fontsize=6, ncol=2)
    ax.grid(alpha=0.25, axis="y")
    fig.tight_layout()
    def gap(row):
        f = 1 / row.players
        lo, hi = row.seat_win_rates_ci[0]
        return f"{100 * (row.seat_win_rates[0] - f):+.1f} pp {_ci_pp(lo - f, hi - f)}"
    reading = "seat 1 (the starting player) against the fair share: " + ", ".join(
        f"{gap(row)} at {row.players}p" for row in rb.itertuples()) + "."
    n = " / ".join(f"{int(row.n_games):,}" for row in rb.itertuples()) + \
        f" games at {' / '.join(str(p) for p in rb['players'])} players"
    return Panel("first_seats", "Seat advantage", fig, reading, n,
                 "Wilson 95% intervals (one game per deal)", "Seat advantage")


def _length_panel(summary):
    """Mean game length against the VP pool, per player count (stars: rulebook pools)."""
    from vale_sim.report.first_screen import Panel, new_panel_figure
    from .plots.pools import COLORS
    from .pools import RULEBOOK_POOLS
    fig, ax = new_panel_figure()
    rb = []
    for p, part in summary.groupby("players", sort=True):
        part = part.sort_values("pool")
        c = COLORS.get(int(p))
        lo = np.array([v[0] for v in part["mean_rounds_ci"]], float)
        hi = np.array([v[1] for v in part["mean_rounds_ci"]], float)
        m = part["mean_rounds"].to_numpy(float)
        ax.errorbar(part["pool"], m, yerr=[m - lo, hi - m], fmt="-o", ms=2.5, capsize=2, color=c,
                    lw=1, label=f"{p} players")
        row = part[part.pool == RULEBOOK_POOLS.get(int(p))]
        if len(row):
            ax.plot(row["pool"], row["mean_rounds"], "*", ms=11, color=c, mec="black", zorder=5)
            r0 = row.iloc[0]
            rb.append(f"{p}p/{int(r0.pool)} VP {r0.mean_rounds:.1f} rounds "
                      f"[{r0.mean_rounds_ci[0]:.1f}, {r0.mean_rounds_ci[1]:.1f}]")
    ax.set_xlabel("VP pool", fontsize=7)
    ax.set_ylabel("game length (rounds)", fontsize=7)
    ax.tick_params(labelsize=7)
    ax.set_title("Game length by pool (★ rulebook pool)", fontsize=8)
    ax.legend(fontsize=6)
    ax.grid(alpha=0.25)
    fig.tight_layout()
    reading = "at the rulebook pools " + ", ".join(rb) + "." if rb else "no rulebook pool played."
    n = f"{int(summary['n_games'].min()):,} games per pool and player count"
    return Panel("first_length", "Game length", fig, reading, n, "95% CI of the mean",
                 "Pool sizes by player count")


def _spoil_panel(table, exact):
    """The spoil odds of each deck (exact lines) with the simulation's intervals."""
    from vale_sim.report.first_screen import Panel, new_panel_figure
    fig, ax = new_panel_figure()
    decks = list(dict.fromkeys(table["deck"]))
    for d in decks:
        t = table[table.deck == d]
        line, = ax.plot(t["pushes"], 100 * t["p_spoil_exact"], "-", lw=1.2 + 0.8 * (d == "starter"),
                        label=d)
        ax.errorbar(t["pushes"], 100 * t["p_spoil_sim"],
                    yerr=[100 * (t["p_spoil_sim"] - t["sim_lo"]),
                          100 * (t["sim_hi"] - t["p_spoil_sim"])],
                    fmt="o", ms=2, color=line.get_color(), capsize=1.5, lw=0.8)
    ax.set_xlabel("pushes this turn", fontsize=7)
    ax.set_ylabel("P(spoiled within k pushes), %", fontsize=7)
    ax.set_xticks(sorted(table["pushes"].unique()))
    ax.set_ylim(0, 100)
    ax.tick_params(labelsize=7)
    ax.set_title("Spoil odds: exact (lines), simulated (points)", fontsize=8)
    ax.legend(fontsize=6, ncol=2)
    ax.grid(alpha=0.25)
    fig.tight_layout()
    deck = "starter" if "starter" in exact else decks[0]
    t = table[table.deck == deck].set_index("pushes")
    ks = [k for k in (1, 2, 3) if k in t.index]
    k0 = ks[0]
    reading = (f"the {deck} deck spoils " + ", ".join(
        f"{_pct(t.loc[k, 'p_spoil_exact'])} within {k} push{'es' if k > 1 else ''}" for k in ks)
        + f" (exact; simulated within {k0}: {_pct(t.loc[k0, 'p_spoil_sim'])} "
          f"[{_pct(t.loc[k0, 'sim_lo'])}, {_pct(t.loc[k0, 'sim_hi'])}]); the simulation's "
          f"interval holds the exact value in {int(table['agrees'].sum())} of {len(table)} cells.")
    n = f"{int(table['sim_n'].min()):,} simulated turns per deck"
    return Panel("first_spoil", "Spoil odds", fig, reading, n,
                 "Wilson 95% (simulation); lines exact", "Spoil odds: starter and crafted decks")


# ---------------------------------------------------------------------------
# Proposed errata: the bundled result of ``vale-sim balance`` on core at 2 players
# (data/balance/core-2p.json, made by ERRATA_COMMAND; docs/balance.md).  The report
# reads it; it never runs balance.  Verdicts on printed numbers are kept apart from
# verdicts on the project's estimates (the card data's sources).
# ---------------------------------------------------------------------------
ERRATA_BUNDLED = Path(__file__).with_name("data") / "balance" / "core-2p.json"
ERRATA_COMMAND = ("vale-sim balance --game mystic-vale --set core --players 2 --json "
                  "> vale_sim/games/mystic_vale/data/balance/core-2p.json")
#: The refit of core's estimated numbers (docs/balance.md, "The fitted sets"): its
#: result, made from core-unfitted; its patched card file is core itself.
FITTED_BUNDLED = ERRATA_BUNDLED.with_name("core-2p-estimated.json")
#: The set core was refit from (every estimate on the cost curve); the refit is core.
UNFITTED_CARDS = ERRATA_BUNDLED.parents[1] / "core-unfitted.toml"
PRINTED_SOURCES = ("rulebook", "review", "fan-list")      # sources that are a printed card's number


def load_bundled_errata(path=ERRATA_BUNDLED) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise SectionUnavailable(f"the bundled balance result {path} cannot be read ({e})")


def _errata_pp(x) -> str:
    return "-" if x != x else f"{100 * x:+.1f}"


def _errata_iv(lo, hi) -> str:
    return "[no interval]" if lo != lo else f"[{100 * lo:+.1f}, {100 * hi:+.1f}]"


def errata_number_source(cs, card: str, fld: str) -> str:
    """The source of ``card.fld`` in the card data (``estimate``, ``rulebook``, ...)."""
    c = next((a for a in list(cs.advancements) + list(cs.vales) if a.name == card), None)
    return "?" if c is None else c.numbers().get(fld, "?")


def _errata_card_type(cs, card: str) -> str:
    from .cards import card_type
    c = next((a for a in list(cs.advancements) + list(cs.vales) if a.name == card), None)
    return "?" if c is None else card_type(c)


def errata_card_kind(cs, card: str) -> str:
    """``printed`` when the card's cost and end VP are printed numbers (its verdict is a
    verdict on the printed card), ``estimated`` when either is the project's estimate,
    ``model`` for a stand-in card (every number the project's)."""
    from .cards import is_model_card
    c = next((a for a in list(cs.advancements) + list(cs.vales) if a.name == card), None)
    if c is None:
        return "?"
    if is_model_card(c):
        return "model"
    n = c.numbers()
    return ("printed" if all(n.get(f) in PRINTED_SOURCES for f in ("cost", "end_vp") if f in n)
            else "estimated")


def errata_table(res: dict, cs) -> pd.DataFrame:
    """One row per proposed number and count: the forced value (``strength_*``: prefer X
    − ban X) and, for a result of the natural estimand, the natural value
    (``natural_*``), before → after with the adjusted intervals."""
    rows = []
    nat = res.get("estimand", "prefer") == "natural"
    for r in res["errata"]:
        row = {"card": r["card"], "card_type": _errata_card_type(cs, r["card"]),
               "card_numbers": errata_card_kind(cs, r["card"]),
               "field": r["field"], "source_of_number": errata_number_source(cs, r["card"], r["field"]),
               "printed": r["printed"], "proposed": r["proposed"], "players": r["players"]}
        for w in ("before", "after"):
            if nat:
                row.update({f"natural_{w}": r[f"natural_{w}"], f"natural_{w}_lo": r[f"natural_{w}_lo"],
                            f"natural_{w}_hi": r[f"natural_{w}_hi"]})
            row.update({f"strength_{w}": r[f"strength_{w}"], f"strength_{w}_lo": r[f"strength_{w}_lo"],
                        f"strength_{w}_hi": r[f"strength_{w}_hi"]})
        row.update(verdict_after=r["verdict_after"], n_deals=r["n_deals"])
        rows.append(row)
    return pd.DataFrame(rows)


def _errata_values(r, nat: bool) -> str:
    """``natural a [lo, hi] → b [lo, hi] pp, forced ...`` of one errata row."""
    def pair(q):
        return (f"{_errata_pp(getattr(r, f'{q}_before'))} "
                f"{_errata_iv(getattr(r, f'{q}_before_lo'), getattr(r, f'{q}_before_hi'))} → "
                f"{_errata_pp(getattr(r, f'{q}_after'))} "
                f"{_errata_iv(getattr(r, f'{q}_after_lo'), getattr(r, f'{q}_after_hi'))} pp")
    return (f"natural value {pair('natural')}, forced {pair('strength')}" if nat
            else f"strength {pair('strength')}")


def section_errata(ctx) -> Section:
    """Proposed errata: the bundled ``balance`` result on core, 2 players (and, when
    bundled, the refit of core's estimated numbers, docs/balance.md)."""
    from vale_sim.balance import plot_convergence
    res = load_bundled_errata()
    cs = ctx.card_set()
    if res.get("card_set") != cs.name or res.get("digest") != cs.digest():
        return Section("Proposed errata", [
            f"The bundled balance result is for card set {res.get('card_set')!r} as it was "
            f"when it was made (digest {str(res.get('digest'))[:12]}); this report's set "
            f"{cs.name!r} differs (digest {cs.digest()[:12]}), so its errata are not shown.  "
            f"Run `{ERRATA_COMMAND.split(' >')[0]}` with `--set` for this set."])
    nat = res.get("estimand", "prefer") == "natural"
    et = errata_table(res, cs)
    conf = pd.DataFrame(res["confirmation"])
    conf.insert(1, "card_type", [_errata_card_type(cs, c) for c in conf["card"]])
    conf["card_numbers"] = [errata_card_kind(cs, c) for c in conf["card"]]
    g = res["games_played"]
    what = ("the natural value (the field's own play with the card on offer minus never "
            "taking it) within ±{m:g} pp, with forcing it (prefer X − ban X, the forced "
            "value) not shown to cost more than the ±{t:g} pp band and the field taking it "
            "(the natural estimand, docs/statistics.md §5.6)" if nat else
            "strength (prefer X − ban X) within ±{m:g} pp").format(
                m=100 * res["margin"], t=100 * res["tolerance"])
    paras = [
        f"What should the flagged cards cost?  `vale-sim balance` (docs/balance.md) searched "
        f"the fewest, smallest integer edits of {', '.join(res['fields'])} after which every "
        f"card a player buys is shown balanced — {what} — at "
        f"{', '.join(map(str, res['players']))} players under the `{res['baseline']}` field, "
        f"and replayed the proposal on a fresh seed ({res['confirm_seed']}) the search never "
        f"used: {g['search']:,} search and {g['confirmation']:,} confirmation games, "
        f"{res['confirm_games']:,} games per card and arm in the confirmation, "
        f"{res['correction']} across the {len(res['cards'])} cards.  This is a **precomputed "
        f"bundled result**, made by `{ERRATA_COMMAND}` (seed {res['seed']}); the report "
        f"reads it and plays no game for it.",
        f"{len(res['targets'])} cards were shown over or under in the first screen and "
        f"could be edited; {len(res['edits'])} edits are proposed.  The errata table gives, "
        f"per edit, the card, the field, printed → proposed, and "
        + ("the natural and the forced value" if nat else "the strength")
        + " before → after on the confirmation deals with the adjusted intervals and n "
          "(deals).",
    ]
    if len(et):
        est = int((et["source_of_number"] == "estimate").sum())
        paras.append(
            f"**{est} of the {len(et)} proposed numbers are the project's estimates** "
            f"(source `estimate` in the card data; for those, \"printed\" is the estimate "
            f"played now), {len(et) - est} "
            f"{'is a printed number' if len(et) - est == 1 else 'are printed numbers'}.  "
            f"A proposed estimate is a "
            f"refit of a guess, not an erratum of the game; the verdicts below are kept apart "
            f"by where each card's cost and end VP come from.")
    fit = _fitted_paragraph(cs, res.get("baseline_digest"))
    if fit:
        paras.append(fit)
    bullets = []
    for kind, head in (("printed", "Verdicts on printed numbers (cost and end VP printed)"),
                       ("estimated", "Verdicts on estimated numbers (printed card, its cost or "
                                     "end VP the project's estimate)"),
                       ("model", "Verdicts on model cards (stand-ins: every number the "
                                 "project's)")):
        ed = et[et["card_numbers"] == kind] if len(et) else et
        sub = conf[conf["card_numbers"] == kind]
        shown = sub[sub["verdict_before"].isin(["over", "under"])]
        items = [f"{r.card}: {r.field} {r.printed} → {r.proposed} ({r.source_of_number}); "
                 f"{_errata_values(r, nat)}, {r.verdict_after} after, n = {r.n_deals} deals"
                 for r in ed.itertuples()]
        items.append(f"{len(sub)} cards of this kind; before the edits "
                     f"{len(shown)} over/under in the confirmation"
                     + (f" ({', '.join(shown['card'])})" if len(shown) else "")
                     + f"; after: {int(sub['verdict_after'].isin(['over', 'under']).sum())} "
                       f"over/under, {int((sub['verdict_after'] == 'balanced').sum())} balanced, "
                       f"{int((sub['verdict_after'] == 'inconclusive').sum())} inconclusive.")
        bullets.append((head, items))
    unb = res.get("unbalanced", {})
    reasons = [f"{c}: {why}" for c, why in unb.items()
               if not why.startswith("not edited (not shown beyond")]
    quiet = sum(1 for why in unb.values() if why.startswith("not edited (not shown beyond"))
    if reasons or quiet:
        bullets.append(("Not balanced with the allowed fields", reasons + (
            [f"{quiet} more cards were not edited (not shown beyond the margin in the screen) "
             f"and are not shown balanced either: more games would decide."] if quiet else [])))
    fig = plot_convergence(res)
    show = {f"{w}_{t}{e}": (f"{'natural_value' if w == 'natural' else w} ({t})" if not e
                            else f"{'natural_' if w == 'natural' else ''}{e[1:]} ({t})")
            for t in ("before", "after") for w in ("strength", "natural")
            for e in ("", "_lo", "_hi")}
    et = et.rename(columns=show)                   # shown in pp (report/rendering.py)
    tables = {"errata": et, "errata_confirmation": conf.rename(columns=show)}
    return Section("Proposed errata", paras, tables,
                   [("errata_convergence", fig,
                     f"Per card the search handled ({len(res['targets'])}), its distance from "
                     f"balanced (the largest over the player counts: "
                     + ("|natural value|, or how far forcing it falls below the band"
                        if nat else "|strength|")
                     + f") at each step of the search (screen, race candidates) and in the "
                       f"confirmation, against the games played so far "
                       f"({g['search'] + g['confirmation']:,} in all); dashed: the margin "
                       f"±{100 * res['margin']:g} pp.")],
                   bullets, top_tables={"errata": et})


def _fitted_paragraph(cs, field_digest=None) -> str | None:
    """One paragraph on the bundled refit of core's estimated numbers (its result next
    to core-2p.json: made from ``core-unfitted``, its patched file is ``core``), None
    when it is not bundled or its patched set is not the report's."""
    from vale_sim.balance import bundled_refit
    fit = bundled_refit(FITTED_BUNDLED, cs)
    if fit is None:
        return None
    conf = pd.DataFrame(fit["confirmation"])
    counts = {w: conf[f"verdict_{w}"].value_counts() for w in ("before", "after")}

    def c(w):
        return ", ".join(f"{int(counts[w].get(v, 0))} {v}" for v in
                         ("over", "under", "balanced", "inconclusive"))
    ed = "; ".join(f"{e['card']} {e['field']} {e['old']} → {e['new']}" for e in fit["edits"])
    return (f"**The estimated numbers are refit.**  The set this report plays, "
            f"`{cs.name}`, is `{fit['card_set']}` (every estimate on the cost curve, bundled "
            f"as `vale_sim/games/mystic_vale/data/{UNFITTED_CARDS.name}`) with its estimated "
            f"numbers refit by `{fit.get('command', 'vale-sim balance --estimated-only')}`, "
            f"which edits only numbers whose source is `estimate`, holds every printed number "
            f"fixed and keeps each cost in its level's band (docs/balance.md, \"The fitted "
            f"sets\").  {len(fit['edits'])} numbers changed ({ed or 'none'}); over the "
            f"{len(fit['cards'])} cards on its confirmation deals: {c('before')} before, "
            f"{c('after')} after"
            + ("" if field_digest in (None, fit.get("baseline_digest")) else
               f" (measured under an earlier version of the field: policy digest "
               f"{', '.join(fit.get('baseline_digest', {}).values())}; the errata's is "
               f"{', '.join(field_digest.values())}, docs/meta.md §6d)")
            + ".  So the errata above are proposed on the refit set: what is still over or "
              "under is a verdict on printed numbers or on numbers the search could not fix "
              "within their bounds.")


SECTIONS: list[Callable[[Context], Section]] = [
    section_card_set, section_spoil, section_tournament, section_advancements,
    section_pools, section_seats, section_robustness, section_errata, section_skill_ladder,
    section_exploitability, section_strategy, section_manifest,
]


Settings = ReportSettings


def sections() -> list:
    return list(SECTIONS)


def title(settings) -> str:
    t = f"Mystic Vale balance report — {settings.card_set}"
    if settings.size != "full":
        t += f" ({settings.size.upper()} report: small samples)"
    return t


def verdicts(ctx) -> list:
    """The executive summary's verdicts from what the sections found."""
    from vale_sim import verdicts as V
    r = ctx.results
    found = []
    found += V.headline_card_verdicts(r)
    if "pools_strong" in r and "robustness" in r:
        # the headline seat and pool verdicts: every seat played by the strong field
        # (settings.robust_baseline, default the game's strongest bundled field); balanced
        # as the comparison
        from vale_sim.robustness import resolve_baseline

        def strong(p):
            return f"{resolve_baseline(ctx.settings.robust_baseline, p).name} in every seat"
        summary, recs = r["pools_strong"]
        seats, pools_v = (V.seat_verdicts(summary, field=strong),
                          V.pool_verdicts(recs, field=strong))
        if "pools_settle" in r:       # settled: the same reading under the second field
            summary_c, recs_c = r["pools_settle"]

            def second(p):
                return resolve_baseline(ctx.settings.settle_field, p).name
            seats = V.mark_settled(seats, V.seat_readings(summary),
                                   V.seat_readings(summary_c), second)
            pools_v = V.mark_settled(pools_v, V.pool_readings(recs), V.pool_readings(recs_c),
                                     second)
        found += seats + pools_v
        if "pools" in r:
            summary, recs = r["pools"]
            found += (V.seat_verdicts(summary, field=f"{V.COMPARISON_FIELD} (comparison)")
                      + V.pool_verdicts(recs, field=f"{V.COMPARISON_FIELD} (comparison)"))
    elif "pools" in r:
        summary, recs = r["pools"]
        found += V.seat_verdicts(summary) + V.pool_verdicts(recs)
    if "robustness" in r:
        rb = r["robustness"]
        found += V.robust_verdicts(rb.get("cards"), rb.get("pools"), rb["strong"])
    if "spoil" in r:
        table, exact = r["spoil"]
        from .spoil import as_deck
        cs = ctx.card_set()
        deck = as_deck("starter", cs)
        names = {cs.advancements[k].name for c in deck.cards for k in c.slots if k >= 0}
        found += V.spoil_verdicts(table, exact, cards=tuple(sorted(names)))
    return found


def summary_paragraphs(ctx) -> list:
    sentence = model_cards_sentence(ctx.card_set())
    return ([sentence + "  Their verdicts are listed apart from the printed cards' below."]
            if sentence else [])


def settings_from_config(c: dict, **kw):
    """The settings of a ``report`` config of ``vale-sim run``."""
    strong = {} if c.get("baseline") is None else {"robust_baseline": c["baseline"]}
    return ReportSettings.make(quick=c["quick"], **kw, **{**strong, **(c["sizes"] or {})})


def settings_from_args(args, card_set: str, cs):
    """The settings of ``vale-sim report``; ``--baseline`` is checked against the set
    (its buy rules name cards of it): a UserError naming it."""
    from vale_sim.errors import UserError
    from vale_sim.robustness import resolve_baseline
    from .policy import PolicyError
    baseline = getattr(args, "baseline", None) or STRONG      # the strongest bundled field
    try:
        settings = ReportSettings.make(quick=args.quick, engine=args.engine, seed=args.seed,
                                       card_set=card_set, robust_baseline=baseline)
        for p in sorted(set(settings.pool_players) | {settings.adv_players}):
            resolve_baseline(baseline, p, cs)
    except PolicyError as e:      # the only policy the report takes is --baseline
        raise UserError(f"--baseline {baseline}: {e}") from None
    return settings
