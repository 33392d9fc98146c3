"""The report's sections: what one is (:class:`Section`), the ones every game's
report ends and starts with (the run manifest; the executive summary, built last
from the verdicts the game's sections reached) and :class:`SectionUnavailable`."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import pandas as pd

from vale_sim.games import DEFAULT_GAME


class SectionUnavailable(RuntimeError):
    """A section cannot be built because a module it needs is not available."""


@dataclass
class Section:
    title: str
    paragraphs: list = field(default_factory=list)
    tables: dict = field(default_factory=dict)          # name -> DataFrame
    figures: list = field(default_factory=list)         # (name, Figure, caption)
    bullets: list = field(default_factory=list)         # (heading, [sentence, ...][, note])
    top_tables: dict = field(default_factory=dict)      # shown open, before the paragraphs
    #: In index.html, a line after the paragraphs and after each heading's bullets
    #: links the glossary terms they use (the executive summary does;
    #: vale_sim/report/glossary.py).
    glossary_links: bool = False


def section_manifest(ctx) -> Section:
    """Everything needed to reproduce the report."""
    m = ctx.results["manifest"]
    rows = [{"item": k, "value": json.dumps(v, default=str) if isinstance(v, (dict, list, tuple))
             else str(v)} for k, v in m.items() if k != "settings"]
    settings = pd.DataFrame([{"setting": k, "value": str(v)} for k, v in m["settings"].items()])
    paras = [f"Built {m['created']} in {m['seconds']:.0f} s with vale-sim {m['code']['vale_sim']} "
             f"(git {m['code']['git'] or 'unknown'}), engine **{m['engine']}**, seed {m['seed']}, "
             f"report size {m['size']}.  Re-run with `vale-sim report"
             f"{'' if ctx.game == DEFAULT_GAME else ' --game ' + ctx.game}"
             f"{' --quick' if m['size'] == 'quick' else ''}` or `vale-sim run "
             f"{ctx.report_module().EXPERIMENT_FILE}`."]
    if ctx.settings.fallback_note:
        paras.append("**Note:** " + ctx.settings.fallback_note)
    return Section("Run manifest", paras, {"manifest": pd.DataFrame(rows),
                                           "settings": settings}, [])


def section_exploitability(ctx) -> Section:
    """What a best response wins against each bundled policy: the precomputed table of
    experiments/exploit_table.py (vale_sim/report_exploit.py; plays no game)."""
    from vale_sim.report_exploit import section_parts
    title, paras, tables = section_parts(ctx.game)
    return Section(title, paras, tables)


QUICK_NOTE = ("**This is a quick report**: small samples and wide intervals, for checking the "
              "pipeline, not for decisions.  Run `vale-sim report` (or `make report`) for the "
              "full sizes.")


def section_summary(ctx) -> Section:
    """The executive summary: every verdict the other sections reached, one sentence each.

    Built after the other sections (it reads ``ctx.results``), shown first.  The
    verdicts, the share of estimated numbers behind them and any paragraphs of its
    own come from the game's report module."""
    from vale_sim import verdicts as V
    mod = ctx.report_module()
    found = mod.verdicts(ctx)
    share = mod.estimated_share(ctx)
    paras = []
    if ctx.settings.size != "full":
        paras.append(QUICK_NOTE)
    if hasattr(mod, "summary_paragraphs"):
        paras += mod.summary_paragraphs(ctx)
    paras.append("Each verdict is one sentence with its 95% interval and the number of games or "
                 "deals behind it; the sections below give the evidence and the full tables follow "
                 "each section (collapsed).  Every card number the verdict rests on is either "
                 "printed on the card (rulebook, or the draft manual), from reviews and fan lists, "
                 "or an estimate: the share of estimates is given once under each heading, for "
                 "all its verdicts together (the advancement tables give it per card).")
    if ctx.settings.fallback_note:
        paras.append("**Note:** " + ctx.settings.fallback_note)
    if not found:
        paras.append("No section produced a verdict.")
    return Section("Executive summary", paras,
                   bullets=V.summary_bullets(found, share, V.topics(mod)), glossary_links=True)


