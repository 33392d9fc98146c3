"""The report's glossary: the statistical words of the report in plain words.

Each report ends with this glossary (before the appendix), and in ``index.html``
the first use of a term in the first screen's captions and in the executive
summary links to its entry (:func:`link_terms` in captions; :func:`terms_line`
after the summary's paragraphs and each heading's verdicts).
``docs/glossary.md`` is :func:`glossary_markdown` (a test keeps them equal).
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    key: str          # the anchor: ``#g-<key>``
    name: str         # as the glossary heads it
    pattern: str      # where the report uses it (regular expression, no capturing groups)
    text: str         # plain words for a designer

    @property
    def anchor(self) -> str:
        return f"g-{self.key}"


TERMS = (
    Term("ci", "95% interval (95% CI)", r"95% (?:CI|intervals?)|confidence interval",
         "The range of values the data support. The number in front is our best estimate; if "
         "we repeated the whole study many times, about 95 of 100 such ranges would contain the "
         "true value. A narrow range means many games; a wide one means the sample is small and "
         "the estimate may move a lot with more games."),
    Term("pp", "pp (percentage points)", r"\bpp\b",
         "Differences of percentages are given in percentage points: a win rate going from 50% "
         "to 53% is +3 pp (not +6%)."),
    Term("n", "n (sample size)", r"\bn = [\d,]+",
         "How many independent units a number rests on: games, deals or turns. Where games "
         "share a deal (the same shuffle and market played again), the deals are counted, not "
         "the games."),
    Term("strength", "Card strength", r"\bstrength\b",
         "What pursuing a card is worth: the win share of a player who buys the card first "
         "whenever they can, minus the win share of the same player who never buys it, on the "
         "same deals. +5 pp means preferring the card wins 5 more games in 100 than avoiding "
         "it. It includes denial: a card you never buy goes to your opponents."),
    Term("arms", "Arms: prefer, ban and natural",
         r"prefer and ban|“prefer X”|“ban X”|\bnatural arm\b|\barms?\b",
         "The versions of the same player that are compared on the same deals. Prefer X: "
         "the bot buys card X first whenever it can. Ban X: the bot never buys X (opponents "
         "still may). Natural: the bot as it is. Strength is prefer minus ban; the natural "
         "value is natural minus ban (what X is worth as the bot uses it)."),
    Term("per-pick", "Per-pick value", r"\bper[ -]pick\b|per_pick_value",
         "The natural value divided by how often the bot bought the card: what buying the "
         "card is worth to the player who buys it, in the games where it is bought. A card "
         "the bot rarely sees can have a small natural value and a large per-pick value; its "
         "interval is wide when the card was bought in few deals, and shows nothing when it "
         "was never bought. A card reads over when its per-pick value is shown above the "
         "band; the same division for the arm that forces the card (each forced purchase) "
         "can make it read under."),
    Term("value-player", "Value player", r"\bvalue players?\b|\bvalue-[234]p\b",
         "A bot that buys by the learned value of what each card does (its symbols, VP, "
         "decay and growth, abilities), never by its name or cost, trained by playing "
         "against itself (vale-sim train); docs/value.md."),
    Term("band", "Band (verdict band)", r"\bband\b",
         "How far from zero a card's strength must be shown to lie before the card is flagged "
         "over- or under-powered (here usually ±5 pp). It is a choice that catches gross "
         "errors (a misprinted cost or VP), not a convention: a card without a flag is not "
         "thereby balanced."),
    Term("margin", "Margin (equivalence margin)", r"\bmargins?\b",
         "How close to the goal counts as \"as good as equal\" when we try to show that "
         "something is fair or balanced (for example a card within ±2 pp, every seat within "
         "±3 pp of a fair share, a game length within ±1 round). Shown equivalent means the "
         "whole interval lies inside the margin."),
    Term("verdicts", "Over, under, balanced, inconclusive",
         r"\binconclusive\b|\bflagged\b",
         "The four verdicts on a card. Over / under (flagged): shown beyond the band. "
         "Balanced: shown within the margin. Inconclusive: neither shown; more games would "
         "settle it (the tables give how many)."),
    Term("boundary", "Near a label boundary (verdict agreement)",
         r"near a (?:label )?boundary|verdict_agreement|verdict agreement",
         "How often an identical card (a twin under another name) or a rerun on fresh deals "
         "of the same size would get the same verdict, estimated by drawing the deals of the "
         "run again. A card whose estimate sits close to where one verdict turns into "
         "another gets one or the other by luck; below 90% the verdict is marked near a "
         "boundary (\"?\"). More games narrow the zone where this happens; no rule removes it."),
    Term("settled", "Settled", r"\bsettled?\b|\bsettles\b",
         "A question is settled when the data decide it one way: a card shown over, under or "
         "balanced, a schedule shown fair or unfair. Not settled (inconclusive) says the "
         "sample is too small, not that the answer is \"fine\"."),
    Term("bh", "Benjamini–Hochberg", r"Benjamini[–-]Hochberg|false discovery rate|\bFDR\b",
         "A correction for testing many cards at once. Test 70 cards and a few will look "
         "unusual by luck alone; Benjamini–Hochberg keeps the expected share of wrongly "
         "flagged cards among the flagged ones at 5%. The adjusted intervals are wider than the "
         "raw ones for that reason."),
    Term("holm", "Holm", r"\bHolm\b",
         "A stricter correction for testing several things at once (for example several seat "
         "compensation schedules): the chance of even one wrong claim among them stays at 5%."),
    Term("bonferroni", "Bonferroni", r"\bBonferroni\b",
         "The simplest correction for many tests: each test is held to 5% divided by the number "
         "of tests. Stricter than Holm."),
    Term("tost", "TOST (two one-sided tests)", r"\bTOST\b|two one-sided (?:t )?tests?",
         "The test that shows two things are as good as equal: one test shows the difference "
         "is above −margin, the other that it is below +margin. Passing both shows the "
         "difference lies within the margin. Failing is not the same as being different."),
    Term("cluster", "Deal clustering (clustered by deal)",
         r"clustered by deals?|deal clustering|cluster(?:ed)? over deals|paired (?:t intervals? )?"
         r"(?:by|over) (?:the )?(?:same )?deals?",
         "Many games in a study replay the same deals (the same shuffle, market and seed) with "
         "different players, seats or rules. Games on one deal are alike, so they are not "
         "independent evidence. Intervals clustered (or paired) by deal count the deals, not "
         "the games, and so are honestly wider; comparing on the same deals also removes the "
         "luck of the deal from differences."),
    Term("crn", "Common random numbers (same deals)", r"common random numbers",
         "Every variant of a study plays the same deals, so differences between variants are "
         "differences of the variants, not of the shuffles."),
    Term("wilson", "Wilson interval", r"\bWilson\b",
         "The 95% interval used for a rate (a win rate, a spoil rate) when the games are "
         "independent. It stays sensible near 0% and 100% and with few games, where the "
         "textbook ±2 standard errors does not."),
    Term("cluster-robust", "Cluster-robust interval", r"cluster-robust|sandwich",
         "An interval for a model's estimate (such as a strategy's strength in the "
         "tournament) that counts the deals as the independent units, because every matchup "
         "replays the same deals."),
    Term("exploitability", "Exploitability", r"\bexploitab\w*|best response",
         "How much a player who knows a bot's habits can beat it: a search looks for the "
         "strategy that wins most against a table of that bot (the best response), and the "
         "gain is what it wins beyond the bot's own share, on fresh deals. Near 0: nothing "
         "found beats the bot by much. Large: a player who knew the bots would beat them, and "
         "verdicts reached with that bot may move under better play."),
    Term("meta", "Meta field", r"\bmeta fields?\b|\bmeta-\{?P?\}?\d?p\b",
         "The strategy a room of good players would settle on: the meta-game run keeps adding "
         "the best counter to the current mix until nothing beats it by more than a margin. "
         "The result is bundled as the policy meta-2p, meta-3p, meta-4p and can be the "
         "opponents a card is measured against, instead of one hand-written bot."),
    Term("seat", "Seat advantage", r"\bseat advantage\b|\bfair share\b",
         "Seat 1 is the starting player. With P players a fair seat wins 1/P of the games "
         "(50% with 2, 25% with 4); seat advantage is a seat's win rate minus that fair share."),
)


def term(key: str) -> Term:
    return next(t for t in TERMS if t.key == key)


_COMBINED = re.compile("|".join(f"(?P<t{i}>{t.pattern})" for i, t in enumerate(TERMS)),
                       re.IGNORECASE)


def terms_in(text: str) -> list[Term]:
    """The glossary terms ``text`` uses (in glossary order)."""
    found = {m.lastgroup for m in _COMBINED.finditer(text)}
    return [t for i, t in enumerate(TERMS) if f"t{i}" in found]


def link_terms(html_text: str, seen: set) -> str:
    """``html_text`` (already HTML) with the first use of each glossary term not in
    ``seen`` linked to its entry (``<a class="gl" href="#g-...">``); ``seen``
    gets the terms linked.  Text inside tags, ``<code>`` and links is left alone."""
    parts = re.split(r"(<[^>]+>)", html_text)
    out, skip = [], 0
    for p in parts:
        if p.startswith("<"):
            if re.match(r"<(code|a)\b", p):
                skip += 1
            elif re.match(r"</(code|a)>", p):
                skip = max(0, skip - 1)
            out.append(p)
            continue
        if skip or not p:
            out.append(p)
            continue

        def repl(m):
            t = TERMS[int(m.lastgroup[1:])]
            if t.key in seen:
                return m.group(0)
            seen.add(t.key)
            return f'<a class="gl" href="#{t.anchor}" title="glossary: {html.escape(t.name)}">' \
                   f"{m.group(0)}</a>"
        out.append(_COMBINED.sub(repl, p))
    return "".join(out)


def terms_line(texts, seen: set) -> str:
    """``<p class="terms">`` linking the glossary terms ``texts`` use that are not in
    ``seen`` (which gets them); "" when there is none."""
    new = [t for t in terms_in(" ".join(texts)) if t.key not in seen]
    if not new:
        return ""
    seen.update(t.key for t in new)
    return ('<p class="terms">In plain words (glossary): ' + ", ".join(
        f'<a class="gl" href="#{t.anchor}">{html.escape(t.name)}</a>' for t in new) + ".</p>")


GLOSSARY_TITLE = "Glossary: the report's words in plain words"
GLOSSARY_INTRO = ("For designers: what the statistical words of the vale-sim reports mean, "
                  "without formulas. Every report ends with this glossary, and in its web page "
                  "the first screen's captions and the executive summary link the words they "
                  "use to it; docs/statistics.md gives the exact definitions.")


def glossary_html() -> str:
    """The glossary's entries as an HTML definition list (ids ``g-<key>``)."""
    return ("<dl class=\"glossary\">" + "".join(
        f'<dt id="{t.anchor}">{html.escape(t.name)}</dt><dd>{html.escape(t.text)}</dd>'
        for t in TERMS) + "</dl>")


def glossary_markdown(heading: str = "# Glossary") -> str:
    """The glossary in Markdown (``docs/glossary.md`` is this with the default heading)."""
    lines = [heading, "", GLOSSARY_INTRO, ""]
    for t in TERMS:
        lines += [f'<a id="{t.anchor}"></a>**{t.name}**: {t.text}', ""]
    return "\n".join(lines)
