"""The balance report: one command, one folder, readable offline.

    build_report("results/report", ReportSettings.make())          # `vale-sim report`
    build_report(tmp, ReportSettings.make(size="tiny"))           # tests

The report is a list of *section functions* (:data:`SECTIONS`).  Each takes
the shared :class:`Context` and returns a :class:`Section` — a title,
paragraphs, named tables (DataFrames) and figures ``(name, Figure,
caption)`` whose caption is a one-line reading computed from the numbers.
A section whose analysis module is not available raises
:class:`SectionUnavailable`; the report then shows that message in its place.

Output (built in a temporary folder, then moved into place, so a failed or
interrupted build never leaves a half-written report):

* ``index.html`` — self-contained (figures embedded as base64 PNG, no
  external assets);
* ``report.md`` with ``figures/*.png`` beside it;
* ``tables/*.csv`` — every table at full precision;
* ``manifest.json`` — settings, seeds, games, card-set hash and sources,
  code version, engine, timings.
"""
from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import html
import io
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

SIZES = ("full", "quick", "tiny")


class SectionUnavailable(RuntimeError):
    """A section cannot be built because a module it needs is not available."""


@dataclass
class Section:
    title: str
    paragraphs: list = field(default_factory=list)
    tables: dict = field(default_factory=dict)          # name -> DataFrame
    figures: list = field(default_factory=list)         # (name, Figure, caption)
    bullets: list = field(default_factory=list)         # (heading, [sentence, ...])
    top_tables: dict = field(default_factory=dict)      # shown open, before the paragraphs


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------
def settings_from_preset(cls, size: str, quick: bool, engine: str, overrides: dict,
                         fast_available, fallback_note: str, tuple_fields=()):
    """A report settings dataclass ``cls`` (a ``PRESETS`` dict: size -> (fast sizes,
    reference sizes); fields ``size``, ``engine``, ``fallback_note``) for ``size``
    (``quick=True`` means "quick"), with the fast sizes when ``engine`` is "fast" and
    ``fast_available()`` (asked only then) is true, else the reference sizes and
    ``fallback_note``.
    ``overrides``: any other field (lists in ``tuple_fields`` become tuples).  Raises
    ValueError naming a bad size, engine or field; calls the settings' ``check``."""
    if quick and size == "full":
        size = "quick"
    if size not in SIZES:
        raise ValueError(f"size must be one of {SIZES}, got {size!r}")
    if engine not in ("fast", "reference"):
        raise ValueError(f"engine must be 'fast' or 'reference', got {engine!r}")
    names = {f.name for f in dataclasses.fields(cls)} - {"size", "engine", "fallback_note"}
    for k in overrides:
        if k not in names:
            raise ValueError(f"unknown report size {k!r}; known: {', '.join(sorted(names))}")
    note = ""
    if engine == "fast" and not fast_available():
        engine, note = "reference", fallback_note
    fast_sizes, ref_sizes = cls.PRESETS[size]
    base = dict(fast_sizes if engine == "fast" else ref_sizes)
    base.update(overrides)
    for k in tuple_fields:
        if isinstance(base.get(k), list):
            base[k] = tuple(base[k])
    s = cls(size=size, engine=engine, fallback_note=note, **base)
    s.check()
    return s


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
    pool_players: tuple = (2, 3, 4)
    pool_grid: str = "15:45:2"
    pool_games: int = 16000
    # "Robust to the bots?": both studies again under this strong baseline, on the
    # same deals, seeds and sizes ({P} = the player count; docs/report.md).
    robust_baseline: str = "optimized-{P}p"
    fallback_note: str = ""           # why the sizes are small (no fast engine)

    # Per size: (fast engine sizes, reference engine sizes).  Full fast sizes
    # are ~2.5M games (~40 µs each for 2 players on one core: about 2-3 minutes
    # in all, with the spoil-odds simulation check); reference sizes are far
    # smaller because that engine is ~800x slower per game.
    PRESETS = {
        "full": ({}, dict(spoil_sim_games=2000, tournament_games=100,
                          tournament_policies=("balanced", "cautious", "greedy", "vp-rush"),
                          adv_games=40, adv_observational_games=300,
                          pool_grid="17:41:6", pool_games=60)),
        "quick": (dict(spoil_sim_games=1000, tournament_games=1000,
                       tournament_policies=("balanced", "cautious", "greedy", "vp-rush"),
                       adv_games=200, adv_observational_games=2000,
                       pool_grid="17:41:4", pool_games=400),
                  dict(spoil_sim_games=500, tournament_games=20,
                       tournament_policies=("balanced", "greedy", "cautious"),
                       adv_games=6, adv_observational_games=40,
                       adv_cards=("Podlings", "Peacekeeper Druid", "Hulking Thornhide",
                                  "Blooming Arbor"),
                       pool_grid="20:30:10", pool_games=16)),
        "tiny": (dict(spoil_decks=("starter", "druid"), spoil_sim_games=200, spoil_pushes=4,
                      tournament_policies=("balanced", "greedy"), tournament_games=20,
                      adv_games=6, adv_observational_games=40,
                      adv_cards=("Podlings", "Peacekeeper Druid", "Blooming Arbor"),
                      pool_players=(2, 3), pool_grid="25", pool_games=16),
                 dict(spoil_decks=("starter", "druid"), spoil_sim_games=100, spoil_pushes=4,
                      tournament_policies=("balanced", "greedy"), tournament_games=6,
                      adv_games=4, adv_observational_games=10,
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
        from vale_sim.games.mystic_vale.pools import fast_engine_available
        if "baseline" in overrides:                 # the strong baseline, as on the command line
            overrides["robust_baseline"] = overrides.pop("baseline")
        return settings_from_preset(
            cls, size, quick, engine, overrides, fast_engine_available,
            "The fast (numba) engine is not available, so this report uses the reference "
            "engine with small sample sizes: intervals are wide.",
            ("spoil_decks", "tournament_policies", "pool_players", "adv_cards"))

    def check(self) -> None:
        for k in ("spoil_sim_games", "tournament_games", "adv_games", "adv_observational_games",
                  "pool_games", "spoil_pushes", "workers"):
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{k} must be a positive whole number, got {v!r}")
            from .limits import MAX_COUNT, count_problem
            if k.endswith("games") and v > MAX_COUNT:      # the one cap (vale_sim.limits)
                raise ValueError(f"{k}: {count_problem(v)}")
        if len(self.tournament_policies) < 2:
            raise ValueError("tournament_policies needs at least 2 policies")
        if not 0 < self.adv_margin <= max(self.adv_tolerance, self.adv_margin) < 1:
            raise ValueError(f"adv_margin must be a fraction in (0, 1) (0.02 = 2 pp), "
                             f"got {self.adv_margin!r}")
        from vale_sim.games.mystic_vale.pools import parse_players, parse_pools
        parse_pools(self.pool_grid, parse_players(list(self.pool_players)))
        from .robustness import resolve_baseline
        for p in sorted(set(self.pool_players) | {self.adv_players}):
            resolve_baseline(self.robust_baseline, p)        # PolicyError names it

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass
class Context:
    """What section functions share: settings, the game store, earlier results."""
    settings: ReportSettings
    store: object = None                   # store.ChunkStore (cached runs) or None
    results: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    progress: bool = True
    game: str = "mystic-vale"              # the --game whose report this is

    def card_set(self):
        from .games import get_game
        return get_game(self.game).load_card_set(self.settings.card_set)


def _need(module: str, what: str):
    import importlib
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and module.endswith(e.name.split(".")[-1]):
            raise SectionUnavailable(f"the {what} section needs {module}, which is not built yet") from None
        raise


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------
def _pct(x, digits=1) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:.{digits}f}%"


def _new_fig(w=7, h=4):
    from matplotlib.figure import Figure
    fig = Figure(figsize=(w, h))
    return fig, fig.subplots()


def _store(ctx):
    from .store import ChunkStore
    if ctx.store is None:
        ctx.store = ChunkStore(None, progress=ctx.progress)
    return ctx.store


def model_cards_sentence(cs) -> str:
    """How many of ``cs``'s advancements are model cards (stand-ins, not printed
    cards), and what they are; "" when it has none."""
    from vale_sim.games.mystic_vale.cards import MODEL_CARDS_WHY, is_model_card
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
    from vale_sim.games.mystic_vale.cards import SOURCES, card_type, provenance_counts
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
    from vale_sim.games.mystic_vale.spoil import spoil_row
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
    from .plots.advancements import plot_forest
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
    from vale_sim.games.mystic_vale.cards import card_type
    df.insert(df.columns.get_loc("kind") + 1, "card_type", [card_type(c) for c in df["card"]])
    ctx.results["advancements"] = df
    ctx.results["advancements_run"] = keep.get("run")
    cs = ctx.card_set()
    a = df.attrs
    df = df.copy()
    df.attrs.update(a)
    df["numbers"], df["estimated_numbers"] = zip(*(_estimated(cs, c) for c in df["card"]))
    tol = 100 * s.adv_tolerance
    from .verdicts import CORRECTION_NAMES, strength_counts
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
             f"counts (more opponents share the denial); run `vale-sim advancements --players "
             f"3` (or 4) for another count."]
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
             "verdict", "margin", "strength", "strength_lo", "strength_hi",
             "strength_lo_adj", "strength_hi_adj", "p_adjusted", "natural_value", "natural_lo",
             "natural_hi", "n_deals", "deals_changed"]
    fcols = [c for c in fcols if c in df.columns]
    cols = [c for c in fcols + ["p_value", "p_equivalent", "p_equivalent_adjusted",
                                "games_needed", "natural_deals_changed", "acquired_rate",
                                "acquired_rate_lo", "acquired_rate_hi", "note", "lift",
                                "lift_lo", "lift_hi", "acquire_rate", "acquire_rate_lo",
                                "acquire_rate_hi"] if c in df.columns]
    tables = {"advancement_values": df[cols]}
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
    return Section("Advancement values", paras, tables, [("advancement_values", fig, caption)],
                   top_tables=top)


def _verdict_counts(df) -> str:
    """"Verdicts: 2 over, 1 under, 30 balanced, 37 inconclusive." ("" without verdicts)."""
    if "verdict" not in df:
        return ""
    c = df["verdict"].value_counts()
    return ("Verdicts: " + ", ".join(f"{c.get(v, 0)} {v}" for v in
                                     ("over", "under", "balanced", "inconclusive")) + ".")


def _estimated(cs, card: str) -> tuple[int, int]:
    """(numbers, estimated numbers) of one card (docs/card-format.md, sources)."""
    from vale_sim.games.mystic_vale.cards import provenance_counts
    c = provenance_counts(cs, [card])
    return sum(c.values()), c.get("estimate", 0)


def _pool_summary(ctx: Context):
    if "pools" not in ctx.results:
        from vale_sim.games.mystic_vale import pools
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
    from vale_sim.games.mystic_vale import pools
    from vale_sim.games.mystic_vale.plots import pools as pplots
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
    baseline (``settings.robust_baseline``, default the bundled ``optimized-{P}p``) on the
    same deals and seeds, side by side with the default (balanced) baseline."""
    from . import robustness as R
    from vale_sim.games.mystic_vale import pools
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
             + "; the bundled optimised policies, docs/optimize.md), on the same deals, seeds "
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
        try:
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
        from vale_sim.games.mystic_vale.cards import card_type
        side = R.strength_side_by_side(cmp)
        side.insert(side.columns.get_loc("kind") + 1, "card_type",
                    [card_type(c) for c in side["card"]])
        top["robust_cards"] = side
        from .verdicts import strength_counts
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
    ctx.results["robustness"] = found
    return Section("Robust to the bots?", paras, tables, figs, top_tables=top)


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
    from vale_sim.games.mystic_vale.plots import pools as pplots
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


def section_manifest(ctx: Context) -> Section:
    """Everything needed to reproduce the report."""
    m = ctx.results["manifest"]
    rows = [{"item": k, "value": json.dumps(v, default=str) if isinstance(v, (dict, list, tuple))
             else str(v)} for k, v in m.items() if k != "settings"]
    settings = pd.DataFrame([{"setting": k, "value": str(v)} for k, v in m["settings"].items()])
    paras = [f"Built {m['created']} in {m['seconds']:.0f} s with vale-sim {m['code']['vale_sim']} "
             f"(git {m['code']['git'] or 'unknown'}), engine **{m['engine']}**, seed {m['seed']}, "
             f"report size {m['size']}.  Re-run with `vale-sim report"
             f"{'' if ctx.game == 'mystic-vale' else ' --game ' + ctx.game}"
             f"{' --quick' if m['size'] == 'quick' else ''}` or `vale-sim run "
             f"experiments/{'report' if ctx.game == 'mystic-vale' else ctx.game + '-report'}.toml`."]
    if ctx.settings.fallback_note:
        paras.append("**Note:** " + ctx.settings.fallback_note)
    return Section("Run manifest", paras, {"manifest": pd.DataFrame(rows),
                                           "settings": settings}, [])


def section_exploitability(ctx: Context) -> Section:
    """What a best response wins against each bundled policy: the precomputed table of
    experiments/exploit_table.py (vale_sim/report_exploit.py; plays no game)."""
    from .report_exploit import section_parts
    title, paras, tables = section_parts(ctx.game)
    return Section(title, paras, tables)


QUICK_NOTE = ("**This is a quick report**: small samples and wide intervals, for checking the "
              "pipeline, not for decisions.  Run `vale-sim report` (or `make report`) for the "
              "full sizes.")


def section_summary(ctx: Context) -> Section:
    """The executive summary: every verdict the other sections reached, one sentence each.

    Built after the other sections (it reads ``ctx.results``), shown first.
    """
    from . import verdicts as V
    r = ctx.results
    found = []
    share = None
    if ctx.game != "mystic-vale":         # another game's sections give its verdicts
        found, share = _game_report(ctx.game).verdicts(ctx), _game_report(ctx.game).estimated_share(ctx)
        r = {}
    if "advancements" in r:
        found += V.card_verdicts(r["advancements"])
    if "pools" in r:
        summary, recs = r["pools"]
        found += V.seat_verdicts(summary) + V.pool_verdicts(recs)
    if "robustness" in r:
        rb = r["robustness"]
        found += V.robust_verdicts(rb.get("cards"), rb.get("pools"), rb["strong"])
    if "spoil" in r:
        table, exact = r["spoil"]
        from vale_sim.games.mystic_vale.spoil import as_deck
        cs = ctx.card_set()
        deck = as_deck("starter", cs)
        names = {cs.advancements[k].name for c in deck.cards for k in c.slots if k >= 0}
        found += V.spoil_verdicts(table, exact, cards=tuple(sorted(names)))
    paras = []
    if ctx.settings.size != "full":
        paras.append(QUICK_NOTE)
    if ctx.game != "mystic-vale" and hasattr(_game_report(ctx.game), "summary_paragraphs"):
        paras += _game_report(ctx.game).summary_paragraphs(ctx)
    if ctx.game == "mystic-vale" and model_cards_sentence(ctx.card_set()):
        paras.append(model_cards_sentence(ctx.card_set())
                     + "  Their verdicts are listed apart from the printed cards' below.")
    paras.append("Each verdict is one sentence with its 95% interval and the number of games or "
                 "deals behind it; the sections below give the evidence and the full tables follow "
                 "each section (collapsed).  Every card number the verdict rests on is either "
                 "printed on the card (rulebook, or the draft manual), from reviews and fan lists, "
                 "or an estimate: the share of estimates is given per verdict.")
    if ctx.settings.fallback_note:
        paras.append("**Note:** " + ctx.settings.fallback_note)
    if not found:
        paras.append("No section produced a verdict.")
    return Section("Executive summary", paras,
                   bullets=V.summary_bullets(found, share or estimated_share(ctx)))


def estimated_share(ctx: Context):
    """``cards -> (estimated numbers, all numbers)`` over the named cards of the
    report's card set (``None``: every card)."""
    from vale_sim.games.mystic_vale.cards import provenance_counts
    cs = ctx.card_set()

    def share(cards):
        c = provenance_counts(cs, cards)
        return c.get("estimate", 0), sum(c.values())
    return share


#: Reports of the other games: --game -> the module with their settings, sections,
#: verdicts, estimated_share and title.
GAME_REPORTS = {"mystic-lands": "vale_sim.studies.report"}


def _game_report(game: str):
    """The report module of ``game`` (ValueError, one line, when it has none)."""
    import importlib
    if game not in GAME_REPORTS:
        raise ValueError(f"no report for {game} yet (use tournament or simulate)")
    return importlib.import_module(GAME_REPORTS[game])


SECTIONS: list[Callable[[Context], Section]] = [
    section_card_set, section_spoil, section_tournament, section_advancements,
    section_pools, section_seats, section_robustness, section_exploitability, section_manifest,
]


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------
def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


#: Table columns shown in percent ("%": rates, shares) or percentage points ("pp":
#: differences of rates) in index.html and report.md; the CSVs keep fractions.
#: Regular expressions over the column names of every table ...
UNIT_PATTERNS = (
    ("%", r".*win_rate.*|win_(lo|hi)|tie_(rate|lo|hi)|p_spoil_(exact|sim)|sim_(lo|hi)"
          r"|p_prep_spoil|.*_vp_share(_lo|_hi)?|(overflow|truncated|acquired|acquire)_rate.*"
          r"|fair|ends_(VP|cubes|both|none)(_lo|_hi)?|seat1_win(_lo|_hi)?|trigger_win.*"
          r"|(withers|spoils)_per_turn.*|level2_sold_out.*|expected_(vs_mean|lo|hi)"),
    ("pp", r"(.*_)?max_seat_gap.*|(manual_|closest_|recommended_)?max_gap|spread(_lo|_hi)?"),
    ("+pp", r"strength(_lo|_hi|_lo_adj|_hi_adj)?|natural_(value|lo|hi)|lift(_lo|_hi)?"
            r"|(strength|lo|hi) \(.*\)|change.*|seat_advantage.*|gap(_lo90|_hi90)?"
            r"|d_seat1_win.*|d_spread(_lo|_hi)?|effect(_lo|_hi)?|advantage(_lo|_hi)?"),
)
#: ... and per table, where a name means something else there ("" keeps the number).
TABLE_UNITS = {
    "tournament_ranking": {"strength": ""},          # Bradley–Terry log-strength
    "pool_recommendation_seat_advantage": {
        **dict.fromkeys(("margin", "value", "value_lo", "value_hi", "goal", "rulebook_value",
                         "rulebook_value_lo", "rulebook_value_hi"), "pp"),
        **dict.fromkeys(("difference", "difference_lo", "difference_hi", "rulebook_difference",
                         "rulebook_difference_lo", "rulebook_difference_hi"), "+pp")},
    "seat_recommendations": {"margin": "pp"},
}

#: How to read the tables (said once, at the top of the report).
TABLE_LEGEND = ("How to read the tables: columns marked (%) are rates in percent and (pp) "
                "differences of rates in percentage points (the CSVs in tables/ keep the "
                "fractions, at full precision); other numbers are shown to 3 decimals.  "
                "– : not applicable, not computed or not set (empty in the CSV); yes / no: true / "
                "false; ∞: no finite number (e.g. no sample size would do).  Long tables are "
                "collapsed: click a table's title to open it; wide tables scroll sideways.")


def _unit(table: str, column: str) -> str:
    import re
    col = str(column)
    own = TABLE_UNITS.get(table, {})
    if col in own:
        return own[col]
    for unit, pat in UNIT_PATTERNS:
        if re.fullmatch(pat, col):
            return unit
    return ""


def _cell(x, unit: str = "", whole: bool = False) -> str:
    """One value as the documents show it (see :data:`TABLE_LEGEND`); ``whole``: a
    column of whole numbers stored as floats (shown without decimals)."""
    if x is None or (isinstance(x, float) and np.isnan(x)) or x is pd.NA or x is pd.NaT:
        return "–"
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, str) and x in _WORDS:       # a value already written as text
        return _WORDS[x]
    if isinstance(x, (float, np.floating)):
        if np.isinf(x):
            return "∞" if x > 0 else "−∞"
        if unit == "%":
            return f"{100 * x:.1f}"
        if unit == "pp":
            return f"{100 * x:.1f}"
        if unit == "+pp":
            return f"{100 * x:+.1f}"
        return f"{x:.0f}" if whole else f"{x:.3f}"
    return str(x)


_WORDS = {"None": "–", "nan": "–", "NaN": "–", "True": "yes", "False": "no"}


def _display(df: pd.DataFrame, max_rows: int = 80, name: str = "") -> pd.DataFrame:
    """The first ``max_rows`` rows as text: rates in % and differences in pp (the
    column header says which), missing values "–", booleans yes/no."""
    d = df.head(max_rows).copy()
    cols = {}
    for c in d.columns:
        numeric = pd.api.types.is_float_dtype(d[c])
        unit = _unit(name, c) if numeric else ""
        finite = d[c][np.isfinite(d[c])] if numeric else None
        whole = bool(numeric and len(finite) and (finite == finite.round()).all()
                     and not unit and finite.abs().max() >= 10)
        d[c] = [_cell(x, unit, whole) for x in d[c]]
        cols[c] = f"{c} ({unit.lstrip('+')})" if unit else c
    return d.rename(columns=cols)


def _md_table(df: pd.DataFrame, name: str = "") -> str:
    d = _display(df, name=name)
    esc = lambda x: str(x).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = ["| " + " | ".join(esc(c) for c in d.columns) + " |",
             "|" + "|".join("---" for _ in d.columns) + "|"]
    lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in d.itertuples(index=False)]
    if len(df) > len(d):
        lines.append(f"\n*First {len(d)} of {len(df)} rows; the CSV has all.*")
    return "\n".join(lines)


def _md_inline(text: str) -> str:
    """**bold** and `code` to HTML (the only markup paragraphs use)."""
    import re
    t = html.escape(text)
    t = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", t)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", t)


CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:12px;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#f3f3f3}figure{margin:1em 0}figcaption{font-style:italic;color:#444}
.tbl{overflow-x:auto;max-width:100%}code{background:#f3f3f3;padding:0 3px}
nav li{margin:2px 0}details{margin:.3em 0}summary{cursor:pointer;font-weight:600}
.legend{font-size:13px;color:#444;border-left:3px solid #ccc;padding-left:.6em}
td.nw{white-space:nowrap}"""


def _fig_png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return buf.getvalue()


#: A table shown open (a section's top table) with more rows than this is
#: collapsed all the same: its title says so.
OPEN_MAX_ROWS = 20


def _table_html(name: str, df: pd.DataFrame, out: Path, shown: bool) -> str:
    """Write ``tables/<name>.csv``; the table as a ``<details>`` block, open when
    ``shown`` and at most :data:`OPEN_MAX_ROWS` rows long; it scrolls sideways
    when wider than the page."""
    fn = f"{_slug(name)}.csv"
    df.to_csv(out / "tables" / fn, index=False)
    more = f"<p><i>First 80 of {len(df)} rows; the CSV has all.</i></p>" if len(df) > 80 else ""
    long = shown and len(df) > OPEN_MAX_ROWS
    note = "; collapsed, click to open" if long else ""
    return (f'<details id="tbl-{_slug(name)}"{" open" if shown and not long else ""}><summary>'
            f'Table: {html.escape(name)} <small>({len(df)} rows{note}, tables/{fn})</small>'
            '</summary><div class="tbl">'
            + _nowrap(_display(df, name=name).to_html(index=False, border=0, escape=True))
            + f"</div>{more}</details>")


def _nowrap(table_html: str) -> str:
    """Short cells (a card name, a schedule such as ``- / 1m1s``) kept on one line:
    class ``nw``; long ones (notes, JSON) still wrap."""
    import re
    return re.sub(r"<td>([^<]{1,32})</td>", r'<td class="nw">\1</td>', table_html)


def _table_md(name: str, df: pd.DataFrame, where: str = "", shown: bool = False) -> str:
    """The table in Markdown; a shown table longer than :data:`OPEN_MAX_ROWS` rows
    inside ``<details>`` (collapsed where the Markdown viewer supports it)."""
    fn = f"{_slug(name)}.csv"
    head = f"**Table: {name}** ({where}{len(df)} rows, [tables/{fn}](tables/{fn}))"
    if shown and len(df) > OPEN_MAX_ROWS:
        return (f"<details><summary>Table: {html.escape(name)} ({len(df)} rows; collapsed, "
                f"tables/{fn})</summary>\n\n{head}\n\n{_md_table(df, name)}\n\n</details>")
    return head + "\n\n" + _md_table(df, name)


def render(sections: list[Section], out: Path, title: str) -> None:
    """Write index.html, report.md, figures/*.png and tables/*.csv into ``out``.

    Order: each section's ``top_tables`` (open), paragraphs, verdicts
    (``bullets``) and figures; its full tables come last, collapsed in the
    HTML and gathered in an appendix of the Markdown.
    """
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    md = [f"# {title}", ""]
    appendix = []
    body = [f"<h1>{html.escape(title)}</h1>", "<nav><ol>"]
    body += [f'<li><a href="#s{i}">{html.escape(s.title)}</a></li>' for i, s in enumerate(sections, 1)]
    body.append("</ol></nav>")
    body.append(f'<p class="legend">{_md_inline(TABLE_LEGEND)}</p>')
    md += [f"{i}. [{s.title}](#s{i})" for i, s in enumerate(sections, 1)]
    md += [f"{len(sections) + 1}. [Appendix: full tables](#tables)", "", f"*{TABLE_LEGEND}*", ""]
    for i, s in enumerate(sections, 1):
        body.append(f'<section id="s{i}"><h2>{i}. {html.escape(s.title)}</h2>')
        md += [f'<a id="s{i}"></a>', f"## {i}. {s.title}", ""]
        for name, df in s.top_tables.items():
            body.append(_table_html(name, df, out, shown=True))
            md += [_table_md(name, df, shown=True), ""]
        for p in s.paragraphs:
            body.append(f"<p>{_md_inline(p)}</p>")
            md += [p, ""]
        for heading, lines in s.bullets:
            body.append(f"<h3>{html.escape(heading)}</h3><ul>"
                        + "".join(f"<li>{_md_inline(x)}</li>" for x in lines) + "</ul>")
            md += [f"**{heading}**", ""] + [f"- {x}" for x in lines] + [""]
        for name, fig, caption in s.figures:
            png = _fig_png(fig)
            fn = f"{_slug(name)}.png"
            (out / "figures" / fn).write_bytes(png)
            b64 = base64.b64encode(png).decode()
            body.append(f'<figure id="fig-{_slug(name)}"><img alt="{html.escape(name)}" '
                        f'src="data:image/png;base64,{b64}" style="max-width:100%">'
                        f"<figcaption>{html.escape(caption)}</figcaption></figure>")
            md += [f"![{name}](figures/{fn})", "", f"*{caption}*", ""]
        for name, df in s.tables.items():
            body.append(_table_html(name, df, out, shown=False))
            appendix += [_table_md(name, df, f"section {i}; "), ""]
        body.append("</section>")
    md += ['<a id="tables"></a>', f"## {len(sections) + 1}. Appendix: full tables", ""] + appendix
    doc = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
           f"<style>{CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n")
    (out / "index.html").write_text(doc, encoding="utf-8")
    (out / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------
def _bar(ctx, total, desc, unit="game"):
    if not ctx.progress:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit=unit, leave=False, file=sys.stderr,
                disable=not sys.stderr.isatty())


def _log(ctx, msg: str) -> None:
    if ctx.progress:
        print(msg, file=sys.stderr, flush=True)


def _manifest(ctx: Context, started, seconds: float) -> dict:
    from .store import card_set_info, code_version
    s = ctx.settings
    return {"created": started.isoformat(timespec="seconds"), "seconds": round(seconds, 1),
            "size": s.size, "engine": s.engine, "seed": s.seed, "code": code_version(),
            "card_set": card_set_info(ctx.card_set(), ctx.game), "python": sys.version.split()[0],
            "section_seconds": {k: round(v, 1) for k, v in ctx.timings.items()},
            "games": s.games() if hasattr(s, "games") else {
                "spoil_simulated_turns_per_deck": s.spoil_sim_games,
                "tournament_per_matchup": s.tournament_games,
                "advancement_strength_per_card_and_arm": s.adv_games,
                "advancement_observational": s.adv_observational_games,
                "pool_per_cell": s.pool_games,
                "robustness_strength_per_card_and_arm": s.adv_games,
                "robustness_pool_per_cell": s.pool_games},
            "robust_baseline": getattr(s, "robust_baseline", None),
            "game": ctx.game, "settings": s.to_dict()}


REPORT_MANIFEST = "manifest.json"
#: What build_report writes into its folder (anything else there is not replaced).
REPORT_ENTRIES = frozenset({"index.html", "report.md", REPORT_MANIFEST, "figures", "tables"})
INDEX_TITLE = "<title>vale-sim reports</title>"


def is_report_folder(path) -> bool:
    """``path`` holds a vale-sim report: its ``manifest.json`` is a report's (size,
    settings and code version), or a ``vale-sim run`` manifest of a report study."""
    from .io import read_manifest
    m = read_manifest(Path(path) / REPORT_MANIFEST)
    if m is None:
        return False
    return ({"size", "settings", "code"} <= m.keys()
            or (m.get("study") == "report" and "key" in m))


def write_index(folder="results") -> Path:
    """Write ``folder/index.html``: one link per report folder in ``folder`` (a
    sub-folder with ``index.html`` and ``manifest.json``), with its game, size,
    engine, date and seconds, read from the manifest.  Atomic; no games."""
    from .errors import UserError
    from .io import atomic_write, check_output
    from .games import get_game
    root = Path(folder)
    page = root / "index.html"
    check_output(page, "file", "--index")
    if page.is_file():                  # only an earlier index is replaced, never another page
        try:
            ours = INDEX_TITLE in page.read_text(encoding="utf-8", errors="replace")
        except OSError:
            ours = False
        if not ours:
            raise UserError(f"refusing to replace --index {page}: it is not an index written by "
                            f"vale-sim (a report's own page?); give the folder that holds the "
                            f"report folders")
    rows = []
    for d in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        mf, page = d / "manifest.json", d / "index.html"
        if not (mf.is_file() and page.is_file()):
            continue
        try:
            m = json.loads(mf.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(m, dict) or "size" not in m:
            continue
        game = m.get("game", "mystic-vale")
        try:
            title = get_game(game).title
        except ValueError:
            title = game
        rows.append(f'<li><a href="{html.escape(d.name)}/index.html">{html.escape(title)}</a> '
                    f'— {html.escape(d.name)}/: size {html.escape(str(m.get("size")))}, engine '
                    f'{html.escape(str(m.get("engine")))}, built {html.escape(str(m.get("created")))}'
                    f' in {m.get("seconds", "?")} s (<a href="{html.escape(d.name)}/report.md">'
                    f'Markdown</a>, tables as CSV in {html.escape(d.name)}/tables/)</li>')
    body = ("<h1>vale-sim balance reports</h1><p>One report per game, each self-contained "
            "(figures embedded); every rate has its n and a 95% interval, every estimated "
            "number is marked.  Rebuild with <code>make report</code>.</p><ul>"
            + ("".join(rows) or "<li>No report built yet: run <code>make report</code>.</li>")
            + "</ul>")
    doc = (f"<!DOCTYPE html><html><head><meta charset='utf-8'>{INDEX_TITLE}"
           f"<style>{CSS}</style></head><body>{body}</body></html>\n")
    return atomic_write(root / "index.html", doc)


def build_report(out="results/report", settings: ReportSettings | None = None, *,
                 sections=None, progress: bool = True, store=None, keep=(),
                 game: str = "mystic-vale") -> dict:
    """Build the report into ``out`` (replaced as a whole when complete).

    ``sections``: section functions (default :data:`SECTIONS`).  ``store``: a
    :class:`vale_sim.store.ChunkStore` to cache games (re-use chunks).
    ``keep``: names inside an existing ``out`` carried over into the new one
    (e.g. a chunk cache).  Returns the manifest.  ``game``: whose report --
    Mystic Vale's sections (:data:`SECTIONS`) or another game's
    (:data:`GAME_REPORTS`: its settings class, sections, verdicts and title);
    a game without a report raises ValueError.
    """
    from .games import DEFAULT_GAME, get_game
    g = get_game(game)
    if g.name != DEFAULT_GAME:
        mod = _game_report(g.name)
        settings = settings or mod.LandsReportSettings.make()
        sections = sections or mod.sections()
        title = mod._title(settings)
    else:
        settings = settings or ReportSettings.make()
        title = f"Mystic Vale balance report — {settings.card_set}"
        if settings.size != "full":
            title += f" ({settings.size.upper()} report: small samples)"
    from .errors import UserError
    from .io import check_replaceable, os_error_message, replace_folder
    out = Path(out)
    # Before any game: an --out holding anything but an earlier report is refused.
    check_replaceable(out, is_report_folder, "vale-sim report", keep=keep,
                      allowed=REPORT_ENTRIES)
    ctx = Context(settings, store=store, progress=progress, game=g.name)
    sections = list(sections or SECTIONS)
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    built = []
    with replace_folder(out, keep=keep) as tmp:
        _log(ctx, f"vale-sim report: size {settings.size}, engine {settings.engine}, "
                  f"{len(sections)} sections -> {out}/")
        if settings.fallback_note:
            _log(ctx, "  note: " + settings.fallback_note)
        for i, fn in enumerate(sections, 1):
            name = fn.__name__.removeprefix("section_")
            if fn is section_manifest:
                ctx.results["manifest"] = _manifest(ctx, started, time.perf_counter() - t0)
            _log(ctx, f"[{i}/{len(sections)}] {name} ...")
            ts = time.perf_counter()
            try:
                sec = fn(ctx)
            except SectionUnavailable as e:
                _log(ctx, f"  unavailable: {e}")
                sec = Section(f"{name.replace('_', ' ').capitalize()} (not available)",
                              [f"This section could not be built: {e}."])
            ctx.timings[name] = time.perf_counter() - ts
            _log(ctx, f"[{i}/{len(sections)}] {name} done in {ctx.timings[name]:.1f} s")
            built.append(sec)
        manifest = _manifest(ctx, started, time.perf_counter() - t0)
        try:
            render([section_summary(ctx)] + built, tmp, title)
            (tmp / REPORT_MANIFEST).write_text(json.dumps(manifest, indent=2, default=str))
        except OSError as e:              # e.g. a full disk: one line naming --out, nothing half-written
            raise UserError(os_error_message(e, out)) from None
    _log(ctx, f"report written to {out}/index.html and {out}/report.md "
              f"in {time.perf_counter() - t0:.0f} s")
    return manifest
