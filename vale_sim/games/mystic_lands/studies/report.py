"""The Mystic Lands report: the sections ``vale-sim report --game mystic-lands`` builds.

The rendering, the executive summary, the atomic build and the manifest are
the shared ones of :mod:`vale_sim.report` (``build_report(game="mystic-lands")``);
this module gives the settings (:class:`LandsReportSettings`, sizes per
engine) and the sections, each a function of the report's ``Context``:

1. the draft manual's numbers (rule options and card numbers by source),
2. seat compensation, 3. end trigger, 4. market growth, 5. wither and rain,
6. the run manifest.

The verdicts of the executive summary come from :mod:`vale_sim.verdicts`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from . import common as C
from vale_sim.rng import offset_seed
from vale_sim.strong_field import field_of

GAME = "mystic-lands"
#: The strongest bundled field of this game (``Game.strong_field``, ``{P}``: the player
#: count): every seat of the seat and end-trigger studies, and the headline card verdicts.
STRONG = field_of(GAME)


@dataclass(frozen=True)
class LandsReportSettings:
    """How big each Mystic Lands study of the report is (deals per variant)."""
    size: str = "full"
    engine: str = "fast"              # the engine actually used
    card_set: str = "mystic-lands"
    seed: int = 1
    workers: int = 1
    seat_players: tuple = (2, 3, 4)
    seat_deals: int | None = None     # None: sized by seats.auto_deals (selection stage)
    seat_confirm_deals: int | None = None   # None: sized from the selection (seats.confirm_size)
    seat_grid: str = "ladder"
    seat_margin: float = 0.03
    # The seat and end-trigger verdicts (issue 26): every seat the strongest field
    # ({P}: the player count); seat verdicts settled when they hold under the second
    # field too (None: second_field, meta-{P}p, the strongest field before; "none": no
    # settle run); balanced, the old field, is the comparison.
    study_field: str = STRONG
    seat_settle_field: str | None = None
    end_players: tuple = (2, 4)
    end_deals: int = 2000
    growth_deals: int = 600
    wither_deals: int = 400
    rain_value_deals: int = 3000
    strength_players: int = 2
    strength_deals: int = 1000        # per card and arm (prefer X, ban X), x players rotations
    strength_cards: tuple | None = None   # None: every level 1/2 Advance and Vale
    strength_tolerance: float = 0.05
    strength_correction: str = "fdr_bh"
    # The headline card verdicts (natural estimand, docs/statistics.md §5.6): under the
    # strongest field, settled when they hold under the strongest field before it too
    # (None: meta-{P}p, second_field; for a meta field, the best response added before
    # its member, data/meta/{P}p);
    # balanced, the old baseline, is the comparison column.
    strength_field: str = STRONG
    strength_settle_field: str | None = None
    fallback_note: str = ""

    # (fast engine sizes, reference engine sizes).  The reference engine plays
    # a Mystic Lands game in about 30 ms: the reference "full" sizes (~7,000
    # games) take about 100 s of CPU (the four studies measured 78 s), less than
    # the Mystic Vale report that `make report` runs beside it.  The fast sizes are ~20x
    # larger, for when the numba engine lands (GAME.run_fast).
    PRESETS = {
        "full": ({}, dict(seat_deals=200, seat_confirm_deals=200, end_deals=100, growth_deals=24, wither_deals=20,
                          rain_value_deals=100, strength_deals=10)),
        "quick": (dict(seat_deals=400, seat_confirm_deals=400, end_deals=200, growth_deals=60, wither_deals=40,
                       rain_value_deals=300, strength_deals=100),
                  dict(seat_deals=40, seat_confirm_deals=40, end_deals=30, growth_deals=6, wither_deals=6,
                       rain_value_deals=30, strength_deals=3)),
        "tiny": (dict(seat_players=(2,), seat_deals=10, seat_confirm_deals=10, end_players=(2,), end_deals=8,
                      growth_deals=2, wither_deals=2, rain_value_deals=6, strength_deals=4,
                      strength_cards=("Rain Lily", "Spirit Cave")),
                 dict(seat_players=(2,), seat_deals=6, seat_confirm_deals=6, end_players=(2,), end_deals=6,
                      growth_deals=2, wither_deals=2, rain_value_deals=4, strength_deals=2,
                      strength_cards=("Rain Lily", "Spirit Cave"))),
    }

    @classmethod
    def make(cls, size: str = "full", quick: bool = False, engine: str = "fast",
             **overrides) -> "LandsReportSettings":
        """Preset sizes for ``size`` for the fast engine when the game has one, else the
        smaller reference sizes (said in the report).  ``overrides``: any size field."""
        from vale_sim.report import settings_from_preset
        if overrides.get("card_set", "") in (None, "core"):
            overrides.pop("card_set")              # the game's own set
        return settings_from_preset(
            cls, size, quick, engine, overrides, lambda: C.resolve_engine("auto") == "fast",
            "Mystic Lands has no fast (numba) engine in this version, so this report plays "
            "the reference engine (about 30 ms a game) with small samples: intervals are "
            "wide and most equivalence tests cannot pass at these n.  The same command uses "
            "the fast engine, with sizes about 20 times larger, as soon as the game has one.",
            ("seat_players", "end_players", "strength_cards"))

    def check(self) -> None:
        for k in ("seat_deals", "end_deals", "growth_deals", "wither_deals", "workers",
                  "strength_deals"):
            if k == "seat_deals" and self.seat_deals is None:
                continue                   # automatic size
            C.check_count(k, getattr(self, k), 2 if k != "workers" else 1)
        if self.seat_confirm_deals is not None:
            C.check_count("seat_confirm_deals", self.seat_confirm_deals, 2)
        C.check_count("rain_value_deals", self.rain_value_deals, 0)
        C.check_players(self.seat_players)
        C.check_players(self.end_players)
        C.check_players([self.strength_players])
        if self.strength_correction not in ("fdr_bh", "holm", "bonferroni"):
            raise ValueError(f"strength_correction must be fdr_bh, holm or bonferroni, "
                             f"got {self.strength_correction!r}")
        if not 0 < self.seat_margin < 1:
            raise ValueError(f"seat_margin must be a fraction (0.03 = 3 pp), got {self.seat_margin}")

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def games(self) -> dict:
        """Deals per study for the manifest."""
        return {"seat_deals_per_schedule": self.seat_deals or "auto",
                "seat_confirm_deals_per_schedule": self.seat_confirm_deals or "auto",
                "end_trigger_deals_per_variant": self.end_deals,
                "market_growth_deals_per_variant_and_seating": self.growth_deals,
                "wither_rain_deals_per_variant_and_seating": self.wither_deals,
                "rain_value_deals_per_arm_and_rotation": self.rain_value_deals,
                "strength_deals_per_card_arm_and_rotation": self.strength_deals}


def _title(settings) -> str:
    t = "Mystic Lands balance report — draft manual"
    if settings.size != "full":
        t += f" ({settings.size.upper()} report: small samples)"
    return t


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------
#: Rule option -> where its default comes from (docs/mystic-lands-rules.md).
RULE_SOURCES = {
    "seat_mana": "manual", "seat_spirit": "manual", "cubes": "manual",
    "end_vp": "manual", "end_cubes": "manual", "end_bonus": "manual",
    "market_growth_vp": "manual", "rain_supply": "estimate (the manual says X; M3)",
    "held_end_vp": "interpretation (M9)", "max_rounds": "simulation cap (not a rule)",
    "ongoing_everywhere": "interpretation (M17)", "effect_enchants_count": "interpretation (M18)",
}


def _common(ctx) -> dict:
    s = ctx.settings
    return dict(card_set=s.card_set, engine=s.engine, workers=s.workers, progress=ctx.progress)


def section_rules(ctx):
    """The draft manual's numbers: rule options by source, card numbers by source."""
    from vale_sim.games import get_game
    from vale_sim.report import Section
    g = get_game(GAME)
    rules = g.rules_class()
    rows = [{"option": f.name, "value": str(getattr(rules, f.name)),
             "source": RULE_SOURCES.get(f.name, "see docs/mystic-lands-rules.md")}
            for f in dataclasses.fields(rules)]
    cs = ctx.card_set()
    src = (g.card_set_facts(cs) if g.card_set_facts else {}).get("sources", {})
    total = sum(src.values())
    est = src.get("estimate", 0)
    paras = [f"Card set **{cs.name}** (digest {cs.digest()}): {total} numbers, of which "
             f"**{est} ({100 * est / max(total, 1):.0f}%) are estimates** -- the draft manual "
             f"prints only a few cards, so every verdict below rests mostly on estimated "
             f"cards (docs/mystic-lands-components.md).  Rule options marked *estimate* are "
             f"\"X\" counts of the manual; the studies vary the ones a designer must fix."]
    if ctx.settings.fallback_note:
        paras.append("**Engine:** " + ctx.settings.fallback_note)
    tables = {"rule_options": pd.DataFrame(rows),
              "card_numbers_by_source": pd.DataFrame([{"source": k, "numbers": v}
                                                      for k, v in src.items()])}
    return Section("The draft manual's numbers", paras, top_tables=tables)


def schedule_words(schedule) -> str:
    """A compensation schedule in words: ``"seat 1: nothing, seat 2: 1 mana + 1 spirit"``."""
    def one(m, sp):
        parts = [f"{m} mana"] * bool(m) + [f"{sp} spirit"] * bool(sp)
        return " + ".join(parts) or "nothing"
    return ", ".join(f"seat {i}: {one(m, sp)}" for i, (m, sp) in enumerate(schedule, 1))


def schedule_legend(players=(2, 3, 4)) -> str:
    """How to read a seat compensation schedule such as ``- / 1m1s``, with the
    manual's schedule of each player count in words."""
    from .seats import label, manual
    return ("**Seat compensation notation.**  A schedule such as `- / 1m1s` lists what each "
            "seat starts with, seat 1 (the starting player) first, seats separated by `/`: "
            "`-` nothing, `1m` 1 mana, `1s` 1 spirit, `1m1s` 1 mana + 1 spirit, `2m1s` 2 mana "
            "+ 1 spirit.  So `- / 1m1s` reads \"seat 1: nothing, seat 2: 1 mana + 1 spirit\".  "
            "The manual's: " + "; ".join(f"{k} players `{label(manual(k))}` "
                                         f"({schedule_words(manual(k))})" for k in players) + ".")


def summary_paragraphs(ctx) -> list:
    """What the executive summary must explain before the verdicts."""
    out = []
    if "seats" in ctx.results:
        out.append(schedule_legend(ctx.results["seats"].config["players"]))
    return out


#: The comparison field of the seat verdicts (the old field of every seat).
SEAT_COMPARISON = "balanced"


def seat_settle_specs(settings) -> dict:
    """Player count -> the second field of the seat verdicts (``seat_settle_field``, a
    ``{P}`` template, or the meta run's previous best response); counts without one are
    left out; ``"none"``: no settle run."""
    f = settings.seat_settle_field
    if f is not None and str(f).lower() == "none":
        return {}
    out = {k: (f if f is not None else second_field(k)) for k in settings.seat_players}
    return {k: v for k, v in out.items() if v is not None}


def strongest_other(players: int) -> str | None:
    """The policy file of the bundled meta run's population member that does best against
    its equilibrium mixture (``(M x)_i`` of its matrix), the mixture's own members left
    out: the second field where the run has no earlier best response; None without a run."""
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "data" / "meta" / f"{players}p"
    try:
        doc = json.loads((root / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pop, M = doc["population"], doc["matrix"]
    x = [doc["mixture"].get(n, 0.0) for n in pop]
    pay = {n: sum(m * w for m, w in zip(row, x)) for n, row in zip(pop, M)}
    rest = [n for n, w in zip(pop, x) if w <= 1e-9]
    if not rest:
        return None
    best = max(rest, key=lambda n: (pay[n], -pop.index(n)))
    return str(root / doc["files"][best])


def second_field(players: int) -> str | None:
    """The second field that settles the strong-field verdicts (seats and cards): the
    strongest field before the strongest, ``Game.settle_field``
    (:func:`vale_sim.strong_field.settle_field_of`), when the strongest is another; else the bundled meta run's previous
    best response, else (a run that kept its field and added none) the population member
    doing best against its mixture; None without a run."""
    from vale_sim.games.base import baseline_spec
    from vale_sim.strong_field import settle_field_of
    second = settle_field_of(GAME)
    if second and baseline_spec(STRONG, players) != baseline_spec(second, players):
        return baseline_spec(second, players)
    return settle_field(players) or strongest_other(players)


def _field_names(study) -> str:
    by = study.config.get("policy_by_players") or {}
    return ", ".join(f"`{v}`" for v in by.values()) or f"`{study.config['policy']}`"


def section_seats(ctx):
    from .plots import seat_figure
    from vale_sim.report import Section
    from .seats import sentence, seat_study
    s = ctx.settings
    kw = dict(confirm_deals=s.seat_confirm_deals, **_common(ctx))
    args = (s.seat_deals, s.seed, s.seat_grid, s.seat_margin)
    study = seat_study(s.seat_players, *args, policy=s.study_field, **kw)
    comp = seat_study(s.seat_players, *args, policy=SEAT_COMPARISON, **kw)
    specs = seat_settle_specs(s)
    settle = (seat_study(tuple(specs), *args, policy=specs, **kw) if specs else None)
    ctx.results["seats"] = study
    ctx.results["seats_comparison"] = comp
    if settle is not None:
        ctx.results["seats_settle"] = settle
    fig, cap = seat_figure(study)
    c = study.config
    sizes = ", ".join(f"{k} players {v['deals']:,} + {v['confirm_deals']:,}"
                      for k, v in c["deals_by_players"].items())
    paras = [f"**Every seat plays the strongest field**, {_field_names(study)} (`{s.study_field}`: "
             f"the bundled meta-game field of each player count, docs/meta.md); engine "
             f"{c['engine']}, seed {c['seed']}.  The same study with every seat `{SEAT_COMPARISON}` "
             f"(the field of earlier reports) is the comparison: tables `*_balanced` and the "
             f"`*_balanced` columns of the recommendations"
             + (f"; a third run with every seat the second field ({_field_names(settle)}: the "
                f"best response the meta run added before its field's member, else the "
                f"population member doing best against the field) decides whether "
                f"each verdict is **settled** (the same reading under both fields; table "
                f"`seat_schedules_settle`)" if settle is not None else "") + ".",
             schedule_legend(c["players"]),
             f"Grid `{c['grid']}`: none, the manual's, and the manual's with one "
             f"mana less or more at every later seat, without spirit, with spirit at every later "
             f"seat (`vale-sim seat-compensation --grid monotone` searches every monotone schedule "
             f"with mana 0-2 and spirit 0-1).",
             f"Fair within ±{100 * c['margin']:.0f} pp: for every seat, two one-sided t tests "
             f"that its win rate lies within the margin of 1/players (TOST, 5% level); a schedule "
             f"is fair when every seat passes (intersection-union test), shown unfair when some "
             f"seat's gap is shown beyond the margin, else inconclusive — not shown fair is not "
             f"unfair.  Two stages on separate deals (selection + confirmation deals per "
             f"schedule: {sizes}): every schedule plays the selection deals (common random "
             f"numbers; Holm over the schedules) and the best one other than the manual's is "
             f"selected; the manual's and that one then play fresh deals, and only these "
             f"confirmation deals decide (Holm over the two) and give the gaps quoted.  Picking "
             f"the smallest of many estimated gaps picks gaps that are too small (the winner's "
             f"curse); fresh deals remove that bias.  The manual's schedule is kept whenever it "
             f"is confirmed fair; a change is recommended only when the manual's is shown unfair "
             f"and the other is confirmed fair.  How often this verdict reproduces across seeds: "
             f"docs/mystic-lands-studies.md §2."]
    top = seat_recommendations(study, comp, settle)
    tables = {"seat_win_rates": study.seats, "seat_schedules": study.schedules,
              "seat_compensation_effect": study.effect,
              "seat_win_rates_balanced": comp.seats, "seat_schedules_balanced": comp.schedules,
              "seat_compensation_effect_balanced": comp.effect}
    if settle is not None:
        tables["seat_schedules_settle"] = settle.schedules
    return Section("Seat compensation", paras, tables,
                   [("seat_compensation", fig, cap)],
                   bullets=[("Recommendations", [sentence(r) for r in study.recommendations]),
                            (f"Recommendations with every seat `{SEAT_COMPARISON}` (comparison)",
                             [sentence(r) for r in comp.recommendations])],
                   top_tables={"seat_recommendations": top})


def seat_recommendations(study, comp, settle=None) -> pd.DataFrame:
    """A row per player count: the strong field's recommendation, then the comparison
    field's decision, verdict and largest gap (``*_balanced``) and, with ``settle``, the
    second field's and whether the manual's verdict is settled."""
    from .verdicts import manual_reading
    by_c = {r["players"]: r for r in comp.recommendations}
    by_s = {r["players"]: r for r in settle.recommendations} if settle is not None else {}
    rows = []
    for r in study.recommendations:
        k = r["players"]
        row = {"field": study.config["policy_by_players"][str(k)], **r}
        c = by_c.get(k)
        if c is not None:
            row.update(decision_balanced=c["decision"], manual_verdict_balanced=c["manual_verdict"],
                       manual_max_gap_balanced=c["manual_max_gap"],
                       recommended_balanced=c["recommended"])
        t = by_s.get(k)
        if t is not None:
            row.update(settle_field=settle.config["policy_by_players"][str(k)],
                       manual_verdict_settle=t["manual_verdict"],
                       settled=manual_reading(r) == manual_reading(t)
                       and manual_reading(r) != "inconclusive")
        rows.append(row)
    return pd.DataFrame(rows)


def section_end_trigger(ctx):
    from .plots import end_trigger_figure
    from vale_sim.report import Section
    from .lands import end_trigger_study
    s = ctx.settings
    seed = offset_seed(s.seed, 1)
    study = end_trigger_study(s.end_players, s.end_deals, seed, policy=s.study_field,
                              **_common(ctx))
    comp = end_trigger_study(s.end_players, s.end_deals, seed, policy=SEAT_COMPARISON,
                             **_common(ctx))
    ctx.results["end_trigger"] = study
    ctx.results["end_trigger_comparison"] = comp
    fig, cap = end_trigger_figure(study)
    paras = [f"The manual ends the game when a player has 25 VP or 10 cubes on the map (+5 VP "
             f"to that player; everyone else plays one more turn).  Each variant changes one of "
             f"the three numbers; all variants play the same {study.config['deals']} deals per "
             f"player count (every seat the strongest field, {_field_names(study)}, engine "
             f"{study.config['engine']}; the same with every seat `{SEAT_COMPARISON}` is the "
             f"comparison, tables `end_trigger_balanced` and the summary's \"(comparison)\" "
             f"sentences).  `d_` "
             f"columns: paired differences from the manual's game, deal by deal.  What ended "
             f"a game is reconstructed from the final scores: the triggering player's cubes "
             f"(unchanged after the trigger) and track VP without the bonus (which may include "
             f"VP gained in the same Dusk, so a few cube endings may read as `both`).  "
             f"`trigger_win`: the triggering player's win share (fair: 1/players); `margin`: the "
             f"winner's score minus the runner-up's."]
    cols = ["players", "variant", "n_deals", "rounds", "rounds_lo", "rounds_hi", "d_rounds",
            "d_rounds_lo", "d_rounds_hi", "ends_VP", "ends_cubes", "ends_both", "seat1_win",
            "seat1_win_lo", "seat1_win_hi", "trigger_win", "trigger_win_lo", "trigger_win_hi",
            "margin", "margin_lo", "margin_hi"]
    t = study.table
    return Section("End trigger", paras, {"end_trigger": t, "end_trigger_balanced": comp.table},
                   [("end_trigger", fig, cap)],
                   top_tables={"end_trigger_summary": t[[c for c in cols if c in t.columns]]})


def section_market(ctx):
    from .plots import market_figure
    from vale_sim.report import Section
    from .lands import market_growth_study
    s = ctx.settings
    study = market_growth_study(4, s.growth_deals, offset_seed(s.seed, 2), **_common(ctx))
    ctx.results["market"] = study
    fig, cap = market_figure(study)
    c = study.config
    paras = [f"The two dual market slots turn level 2 when a player first has 5 VP, then 15 VP "
             f"(in a Day).  Variants move one point (or never grow); four different policies "
             f"({', '.join(c['lineup'])}) play each of {c['deals']} deals once in every seating "
             f"({c['seatings_per_deal']}: each policy in every seat and right after every other "
             f"equally often), so per variant {c['seatings_per_deal'] * c['deals']} games.  "
             f"The *spread of strategies* "
             f"is the standard deviation of the four policies' win rates (0: every strategy "
             f"equally good), with a bootstrap interval over whole deals; its change from the "
             f"manual's uses the same resampled deals.  Level 2 Advances bought: per "
             f"player-game, and the share of games that buy every copy of the Level 2 supply "
             f"(clustered by deal)."]
    return Section("Market growth", paras,
                   {"market_growth": study.table, "market_growth_policies": study.extra["policies"],
                    "market_growth_spread": study.extra["spread"]},
                   [("market_growth", fig, cap)],
                   top_tables={"market_growth_spread_summary": study.extra["spread"]})


def section_wither(ctx):
    from .plots import wither_figure
    from vale_sim.report import Section
    from .lands import wither_rain_study
    s = ctx.settings
    study = wither_rain_study(4, s.wither_deals, offset_seed(s.seed, 3), value_deals=s.rain_value_deals,
                              **_common(ctx))
    ctx.results["wither"] = study
    fig, cap = wither_figure(study)
    c = study.config
    paras = [f"A line-up ({', '.join(c['lineup'])}) plays {c['deals']} deals, each in all "
             f"{c['seatings_per_deal']} seatings, per Rain "
             f"supply (the manual's \"X Rain tokens\"; 20 is our estimate): Withers per turn by "
             f"policy (ratio over turns, clustered by deal) and how the supply changes play "
             f"(paired by deal).  `cautious` never risks a Wither by construction (a check).",
             f"The value of using Rain: a focal player who never places Rain tokens (policy "
             f"field `rain = \"never\"`) against one who places them when a reveal would Wither, "
             f"each against `balanced`, 2 players, both seats, {c['value_deals']} deals; the "
             f"difference is paired by deal.  The draft gives Rain rewards at Dusk, so this "
             f"measures the whole Rain mechanic for a player, not one token."]
    tables = {"wither_rain": study.table, "wither_by_policy": study.extra["policies"]}
    top = {}
    if "rain_value" in study.extra:
        tables["rain_value"] = study.extra["rain_value"]
        top["rain_value"] = study.extra["rain_value"]
    return Section("Wither and rain", paras, tables, [("wither_rain", fig, cap)],
                   top_tables=top)


def section_strength(ctx):
    """Advance and Vale strengths: the card-strength estimand of vale_sim.advancements
    (prefer X / ban X / natural on common deals, multiplicity-corrected flags)."""
    from vale_sim.advancements import game_strength_run, strength_frame
    from vale_sim.plots.advancements import plot_forest
    from vale_sim.report import Section
    from vale_sim.verdicts import (CORRECTION_NAMES, agreement_note, near_boundary,
                                   strength_counts)
    s = ctx.settings
    run = game_strength_run(GAME, s.card_set, s.strength_deals * s.strength_players,
                            s.strength_players, offset_seed(s.seed, 4), "balanced",
                            list(s.strength_cards) if s.strength_cards else None, None,
                            s.engine, s.workers)
    df = strength_frame(run, tolerance=s.strength_tolerance, correction=s.strength_correction)
    ctx.results["advancements"] = df
    field_paras, field_top = _field_verdicts(ctx, run)
    a = df.attrs
    tol = 100 * s.strength_tolerance
    corr = CORRECTION_NAMES.get(a["correction"], a["correction"])
    flagged = df[df["flag"] != ""]
    fig = plot_forest(df)
    cap = (f"{(df['flag'] == 'over').sum()} card(s) flagged over and {(df['flag'] == 'under').sum()}"
           f" under of {len(df)} tested (±{tol:g} pp, {corr}); strength with its raw interval "
           f"(thick) and adjusted interval (thin), n = {a['deals']} deals.")
    paras = [f"The card-strength estimand of the Mystic Vale report, through the game's hooks "
             f"(`Game.strength_arms`, `strength_cards`): for each level 1/2 Advance and Vale X, a "
             f"focal player who buys (or enchants) X first whenever it can, and one who never "
             f"does (`never`), each against `balanced` opponents, rotated through the "
             f"{a['players']} seats on the same deals ({strength_counts(a['deals'], a['players'])}"
             f").  Strength = win share(prefer) "
             f"− win share(ban), paired by deal; a card is flagged over/under when |strength| ≤ "
             f"{tol:g} pp is rejected after a {corr} correction over the {a['cards_tested']} cards "
             f"(adjusted intervals at {100 * a['adjusted_confidence']:.2f}%); **balanced** when "
             f"it is shown within ±{100 * a['margin']:g} pp (two one-sided tests, the same "
             f"correction); else **inconclusive** (games_needed: games per card and arm that "
             f"would settle it).  The band is a choice that catches gross errors only: no flag "
             f"is not balanced.  Strength includes denial (a banned card is left to the "
             f"opponents) and is measured at {a['players']} players only: not comparable across "
             f"player counts; for another count run `vale-sim advancements --game mystic-lands "
             f"--players 3` (or 4).  Every card text of this set except the few the manual names is "
             f"an estimate (M16)." + near_boundary(df)]
    paras.insert(0, (f"**Flagged cards** ({len(flagged)} of {len(df)}): " + "; ".join(
        f"{r.card} ({r.flag}) {100 * r.strength:+.1f} pp, adjusted "
        f"[{100 * r.strength_lo_adj:+.1f}, {100 * r.strength_hi_adj:+.1f}]"
        + agreement_note(getattr(r, "verdict_stable", None), getattr(r, "verdict_agreement", None))
        for r in flagged.itertuples()) + ".") if len(flagged) else
        f"No card is flagged at n = {a['deals']} deals: every strength is consistent with "
        f"±{tol:g} pp after the correction.")
    cols = [c for c in ("card", "kind", "level", "flag", "verdict", "verdict_agreement",
                        "margin", "strength",
                        "strength_lo", "strength_hi", "strength_lo_adj", "strength_hi_adj",
                        "p_value", "p_adjusted", "p_equivalent", "p_equivalent_adjusted",
                        "games_needed",
                        "natural_value", "natural_lo", "natural_hi", "per_pick_value",
                        "per_pick_lo", "per_pick_hi", "n_deals", "deals_changed",
                        "acquired_rate", "acquired_rate_lo", "acquired_rate_hi", "note")
            if c in df.columns]
    from vale_sim import search_verdicts
    sv_paras, sv_top, sv_tables = search_verdicts.section_parts(GAME)   # bundled, plays none
    return Section("Advance and Vale strengths", field_paras + paras + sv_paras,
                   {"card_strength": df[cols], **sv_tables}, [("card_strength", fig, cap)],
                   top_tables={**field_top, **sv_top})


def settle_field(players: int) -> str | None:
    """The second strongest field at ``players`` players: the best response the meta
    run added just before its mixture's member (a policy file of the bundled run,
    data/meta/{P}p/population), None without a bundled run."""
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "data" / "meta" / f"{players}p"
    try:
        doc = json.loads((root / "mixture.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    names = list(doc["files"])
    top = max(doc["mixture"], key=doc["mixture"].get)
    brs = [n for n in names if n.startswith("br")]
    if top not in brs or brs.index(top) == 0:
        return None
    return str(root / doc["files"][brs[brs.index(top) - 1]])


def flagged_sentence(flagged: pd.DataFrame) -> str:
    """The flagged cards of the strong field's verdict table in one sentence: verdict,
    settled or not, natural value with its interval, the value per pick (and per forced
    purchase for an under) with theirs (docs/statistics.md §5.7), near a boundary or not."""
    from vale_sim.verdicts import _per_pick_words, agreement_note
    if not len(flagged):
        return "No card is flagged under the strong field."
    return "Flagged: " + "; ".join(
        f"{r['card']} ({r['verdict']}, {'settled' if r['settled'] else 'not settled'}) "
        f"natural {100 * r['natural_value']:+.1f} pp [{100 * r['natural_lo']:+.1f}, "
        f"{100 * r['natural_hi']:+.1f}]" + _per_pick_words(r)
        + agreement_note(r.get("verdict_stable"), r.get("verdict_agreement"))
        for r in flagged.to_dict("records")) + "."


def _field_verdicts(ctx, base_run):
    """The headline card verdicts under the strongest field (natural estimand), settled
    against the second strongest, balanced (``base_run``) as the comparison, and the
    rationality check of the three next to their exploitability.  (paragraphs, tables)"""
    from pathlib import Path
    from vale_sim import strong_field as SF
    from vale_sim.advancements import game_strength_run, settle, strength_frame
    from vale_sim.games import get_game
    from vale_sim.verdicts import near_boundary, strength_counts
    s = ctx.settings
    p = s.strength_players
    second = s.strength_settle_field or second_field(p)
    if second is None:
        return [], {}
    g = get_game(GAME)
    frames, runs, labels = {}, {}, []
    for spec in (s.strength_field, second):
        pol = g.resolve_baseline(spec, p)
        label = pol.name if not str(spec).endswith(".toml") else f"{Path(spec).stem} (meta run)"
        run = game_strength_run(GAME, s.card_set, s.strength_deals * p, p,
                                offset_seed(s.seed, 4), pol, list(base_run.arms), None,
                                s.engine, s.workers)
        frames[label] = strength_frame(run, tolerance=s.strength_tolerance,
                                       correction=s.strength_correction, estimand="natural")
        runs[label] = run
        labels.append(label)
    strong, sec = labels
    base = strength_frame(base_run, tolerance=s.strength_tolerance,
                          correction=s.strength_correction, estimand="natural")
    st = settle(frames[strong], frames[sec], labels=(strong, sec), runs=(runs[strong], runs[sec]))
    table = SF.verdict_table(frames[strong], st, {"balanced": base})
    ratio = SF.rationality_table({strong: frames[strong], sec: frames[sec], "balanced": base},
                                 GAME, p)
    ctx.results["field_verdicts"] = {"frame": frames[strong], "settlement": st,
                                     "table": table, "rationality": ratio,
                                     "comparison": ("balanced", base)}
    a = frames[strong].attrs
    c = table["verdict"].value_counts()
    flagged = table[table["verdict"].isin(["over", "under"])]
    paras = [f"**Headline verdicts: under the strongest field, `{strong}`** (table "
             f"`card_verdicts_strong_field`; {strength_counts(a['deals'], a['players'])}).  "
             f"The natural estimand (docs/statistics.md §5.6): **over** when the card's natural "
             f"value (the field's own play with it on offer − never taking it) or its value "
             f"per pick (the same per purchase: its effect on the player who buys it, §5.7) is "
             f"shown beyond ±{100 * s.strength_tolerance:g} pp; **under** when the field is not "
             f"shown to gain from it and forcing it is shown to cost more than the band, per "
             f"opportunity or per forced purchase; "
             + ", ".join(f"{c.get(v, 0)} {v}" for v in ("over", "under", "balanced",
                                                        "inconclusive"))
             + "." + near_boundary(table) + f"  **Settled** = the same verdict under `{sec}`, the strongest field before "
             f"it (docs/meta.md): " + st.sentence(),
             flagged_sentence(flagged),
             SF.rationality_sentence(ratio),
             "The strength table below is the old estimand (prefer X − ban X) under "
             "`balanced`, kept as the comparison."]
    top = ({"card_verdicts_flagged_strong_field": flagged.reset_index(drop=True)}
           if len(flagged) else {})
    top.update(field_rationality=ratio, card_verdicts_strong_field=table)
    return paras, top


# ---------------------------------------------------------------------------
# The first screen (vale_sim.report.first_screen): figures of what the sections found
# ---------------------------------------------------------------------------
def first_screen(ctx) -> list:
    """The report's first screen, from ``ctx.results`` (no game is played): the card
    verdicts, the seat advantage under the manual's compensation per player count, the
    game length under the manual's end trigger and the wither odds per policy; a panel
    whose section did not run is left out."""
    from vale_sim.report.first_screen import forest_panel
    r, out = ctx.results, []
    if "field_verdicts" in r:                 # the headline verdicts: under the strong field
        fv = r["field_verdicts"]
        out.append(forest_panel(fv["frame"], link="Advance and Vale strengths", field=fv["settlement"].labels[0]))
    elif "advancements" in r:
        out.append(forest_panel(r["advancements"], link="Advance and Vale strengths"))
    if "seats" in r:
        out.append(_seat_panel(r["seats"]))
    if "end_trigger" in r:
        out.append(_length_panel(r["end_trigger"]))
    if "wither" in r:
        out.append(_wither_panel(r["wither"]))
    return out


def _seat_panel(study):
    """Each seat's win rate minus the fair share under the manual's schedule, on the
    confirmation deals (the estimates its verdict rests on), per player count."""
    from vale_sim.report.first_screen import Panel, new_panel_figure, points_panel
    recs = {r["players"]: r for r in study.recommendations}
    players = sorted(recs)
    s = study.seats
    fig, ax = new_panel_figure()
    groups, n = [], []
    for seat in range(1, max(players) + 1):
        xs, v, lo, hi = [], [], [], []
        for k in players:
            x = s[(s["players"] == k) & (s["schedule"] == recs[k]["manual"])
                  & (s["stage"] == "confirmation") & (s["seat"] == seat)]
            if len(x):
                f = 1 / k
                xs.append(k)
                v.append(100 * (x["win_rate"].iloc[0] - f))
                lo.append(100 * (x["win_rate_lo"].iloc[0] - f))
                hi.append(100 * (x["win_rate_hi"].iloc[0] - f))
        groups.append((f"seat {seat}" + (" (starts)" if seat == 1 else ""), xs, v, lo, hi))
    points_panel(ax, groups)
    margin = 100 * study.config["margin"]
    ax.axhspan(-margin, margin, color="grey", alpha=0.13, lw=0, label=f"margin ±{margin:g} pp")
    ax.axhline(0, color="grey", lw=1, ls="--")
    ticks = players
    ax.set_xticks(players, [f"{k} players\n{recs[k]['manual']}" for k in players], fontsize=7)
    ax.set_xlim(min(ticks) - 0.6, max(ticks) + 0.6)
    ax.set_ylabel("win rate − fair share (pp)", fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    by = study.config.get("policy_by_players") or {}
    names = list(dict.fromkeys(by.get(str(k), study.config["policy"]) for k in players))
    field = names[0] if len(names) == 1 else study.config["policy"]    # e.g. meta-{P}p
    ax.set_title(f"Seat advantage with the manual's compensation (every seat {field})",
                 fontsize=8)
    ax.legend(fontsize=6, ncol=2)
    ax.grid(alpha=0.25, axis="y")
    fig.tight_layout()
    reading = (f"Every seat {' / '.join(names)} (by player count): "
               f"the manual's schedule is ") + ", ".join(
        f"{recs[k]['manual_verdict']} at {k}p (largest seat gap "
        f"{100 * recs[k]['manual_max_gap']:.1f} pp)" for k in players) + \
        f" against a ±{margin:g} pp margin."
    n = " / ".join(f"{int(recs[k]['confirm_deals']):,}" for k in players) + \
        f" confirmation deals at {' / '.join(map(str, players))} players"
    return Panel("first_seats", "Seat advantage", fig, reading, n,
                 "95% CI over deals; band: the fairness margin", "Seat compensation")


def _length_panel(study):
    """Game length (rounds) of every end-trigger variant, per player count."""
    from vale_sim.report.first_screen import Panel, new_panel_figure, points_panel
    t = study.table
    variants = list(dict.fromkeys(t["variant"]))
    fig, ax = new_panel_figure()
    groups = []
    for k, part in t.groupby("players", sort=True):
        part = part.set_index("variant").reindex(variants)
        groups.append((f"{k} players", range(len(variants)), part["rounds"],
                       part["rounds_lo"], part["rounds_hi"]))
    points_panel(ax, groups, offset=0.2)
    ax.set_xticks(range(len(variants)), variants, rotation=30, ha="right", fontsize=6.5)
    ax.set_ylabel("game length (rounds)", fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_title("Game length by end trigger (first: the manual's)", fontsize=8)
    ax.legend(fontsize=6)
    ax.grid(alpha=0.25, axis="y")
    fig.tight_layout()
    man = t[t["variant"] == "manual"].sort_values("players")
    reading = "with the manual's end trigger " + ", ".join(
        f"{r.rounds:.1f} rounds [{r.rounds_lo:.1f}, {r.rounds_hi:.1f}] at {int(r.players)}p"
        for r in man.itertuples()) + "."
    n = f"{int(t['n_deals'].min()):,} deals per variant and player count"
    return Panel("first_length", "Game length", fig, reading, n, "95% CI over deals",
                 "End trigger")


def _wither_panel(study):
    """Withers per turn of each policy at each Rain supply (the wither odds of play)."""
    from vale_sim.report.first_screen import Panel, new_panel_figure, points_panel
    p = study.extra["policies"]
    variants = list(dict.fromkeys(p["variant"]))
    fig, ax = new_panel_figure()
    groups = []
    for pol in dict.fromkeys(p["policy"]):
        part = p[p["policy"] == pol].set_index("variant").reindex(variants)
        groups.append((pol, range(len(variants)), 100 * part["withers_per_turn"],
                       100 * part["withers_per_turn_lo"], 100 * part["withers_per_turn_hi"]))
    points_panel(ax, groups, offset=0.12)
    ax.set_xticks(range(len(variants)), variants, rotation=20, ha="right", fontsize=6.5)
    ax.set_ylabel("withers per turn, %", fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_title("Wither odds by policy and Rain supply (first: the manual's)", fontsize=8)
    ax.legend(fontsize=6, ncol=2)
    ax.grid(alpha=0.25, axis="y")
    fig.tight_layout()
    man = p[p["variant"] == "manual"].sort_values("withers_per_turn")
    reading = "at the manual's Rain supply a turn withers " + ", ".join(
        f"{100 * r.withers_per_turn:.1f}% [{100 * r.withers_per_turn_lo:.1f}, "
        f"{100 * r.withers_per_turn_hi:.1f}] ({r.policy})" for r in man.itertuples()) + \
        " of the time."
    c = study.config
    n = (f"{c['deals']:,} deals × {c['seatings_per_deal']} seatings per supply, "
         f"{c['players']} players")
    return Panel("first_wither", "Wither odds", fig, reading, n, "95% CI clustered by deal",
                 "Wither and rain")


def estimated_share(ctx):
    """``cards -> (estimated, total)`` numbers of the card set (every verdict rests
    on the whole set)."""
    from vale_sim.games import get_game
    g = get_game(GAME)
    src = (g.card_set_facts(ctx.card_set()) if g.card_set_facts else {}).get("sources", {})
    est, tot = src.get("estimate", 0), sum(src.values())
    return lambda cards: (est, tot)


def verdicts(ctx) -> list:
    from vale_sim import verdicts as V
    from . import verdicts as LV
    r = ctx.results
    out = []
    out += V.headline_card_verdicts(r)
    if "seats" in r:
        out += seat_verdicts(r)
    if "end_trigger" in r:
        by = r["end_trigger"].config.get("policy_by_players") or {}
        out += LV.end_trigger_verdicts(r["end_trigger"].table,
                                       field=(lambda k: by.get(str(k))) if by else None)
        if "end_trigger_comparison" in r:
            out += LV.end_trigger_verdicts(r["end_trigger_comparison"].table,
                                           field=f"{SEAT_COMPARISON} (comparison)")
    if "market" in r:
        out += LV.market_verdicts(r["market"])
    if "wither" in r:
        out += LV.wither_verdicts(r["wither"])
    return out


def seat_verdicts(r) -> list:
    """The seat verdicts: under the strong field (each sentence names it), marked settled
    or not against the second field where it was played, then under ``balanced``
    marked "(comparison)"."""
    from vale_sim import verdicts as V
    from . import verdicts as LV
    study = r["seats"]
    by = study.config.get("policy_by_players") or {}
    strong = LV.seat_compensation_verdicts(
        study, field=lambda k: by.get(str(k), study.config["policy"]))
    settle = r.get("seats_settle")
    if settle is not None:
        second = settle.config["policy_by_players"]
        theirs: dict = {}
        for reading in LV.seat_compensation_readings(settle):
            theirs.setdefault(reading[0], []).append(reading)
        marked, nth = [], {}
        for v, mine in zip(strong, LV.seat_compensation_readings(study)):
            k = mine[0]
            j = nth[k] = nth.get(k, -1) + 1
            if k not in theirs:
                marked.append(V.Verdict(v.topic, v.sentence + f" Not settled: no second "
                                        f"field at {k} players.", v.cards))
            else:
                marked += V.mark_settled([v], [mine], [theirs[k][j]], second[str(k)])
        strong = marked
    out = list(strong)
    if "seats_comparison" in r:
        out += LV.seat_compensation_verdicts(r["seats_comparison"],
                                             field=f"{SEAT_COMPARISON} (comparison)")
    return out


def sections():
    from vale_sim.report import section_exploitability, section_manifest
    from vale_sim.skill_ladder import section_skill_ladder
    from vale_sim.strategy import section_strategy
    from .fill_in import section_fill_in
    return [section_rules, section_seats, section_end_trigger, section_market, section_wither,
            section_strength, section_fill_in, section_skill_ladder, section_exploitability,
            section_strategy,
            section_manifest]


# ---------------------------------------------------------------------------
# What the report shell (vale_sim.report) asks of a game's report
# ---------------------------------------------------------------------------
Settings = LandsReportSettings
title = _title
#: Where ``vale-sim report --game mystic-lands`` writes, and the config that rebuilds it.
DEFAULT_OUT = "results/report-" + GAME
EXPERIMENT_FILE = f"experiments/{GAME}-report.toml"
#: No strong-baseline section: a config's ``baseline`` is not read.
TAKES_BASELINE = False
#: The executive summary's topics of this game's verdicts (after the shared ones,
#: vale_sim.verdicts.TOPICS), and the units of its tables where a column name means
#: something else there (after vale_sim.report.rendering.TABLE_UNITS).
TOPICS = (("compensation", "Seat compensation"), ("end", "End trigger"),
          ("market", "Market growth"), ("rain", "Wither and rain"))
TABLE_UNITS = {"seat_recommendations": {"margin": "pp", "manual_max_gap_balanced": "pp"}}


def settings_from_config(c: dict, **kw):
    """The settings of a ``report`` config of ``vale-sim run``."""
    return LandsReportSettings.make(quick=c["quick"], **kw, **(c["sizes"] or {}))


def settings_from_args(args, card_set: str, cs):
    """The settings of ``vale-sim report --game mystic-lands``.  ``--baseline`` is
    refused (this report has no strong-baseline section: it was ignored, a missing
    file included, and the whole report ran)."""
    from vale_sim.cli import given
    if "baseline" in given(args):         # given on the command line (its default is not)
        from vale_sim.errors import UserError
        raise UserError(f"--baseline {args.baseline}: the Mystic Lands report has no strong-"
                        f"baseline section, so it takes no --baseline; drop it")
    return LandsReportSettings.make(quick=args.quick, engine=args.engine, seed=args.seed,
                                    card_set=card_set)
