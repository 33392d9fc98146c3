"""Balance: integer card edits after which every card is shown balanced, each one
confirmed on fresh deals (docs/balance.md).

    b = balance(cards=["Stag", "Grassland"], players=(2,), games=2000)   # the default game
    print(b.text()); b.to_json(); b.patched_toml()

1. **Screen** (search seed 0): the card-strength study of ``advancements`` for the
   cards considered; a card is a *target* when it is shown beyond the margin: the
   screen's band tests (:func:`_screen`, natural value beyond ±margin, forcing it beyond
   the band) or the verdict rule (over / under, per pick too), corrected across the
   cards.  Its detection limit at this size is stated.
2. **Race** (:mod:`vale_sim.balancer`, each target on seeds of its own): every value of
   its numbers in range on the fixing side is a candidate -- a value at which the field
   never buys the card too -- within the number's level band; rounds of growing size,
   a monotone fit of the natural and forced values against the number, the candidates
   shown beyond the margin or far from the open decision dropped (successive halving).
   The proposal: the smallest change whose fitted gap is within margin/2.
3. **Confirmation** (a seed the search never used): the original and the patched set,
   every card considered.  An erratum is proposed only if its card is no longer shown
   beyond the margin, the field takes it, its gap shrank and it pushes no other card
   beyond the margin; the others are listed as unconfirmed candidates.

The search's measurements are kept in a checkpoint (``checkpoint=``; ``resume=``).
Shared code: the game only through :func:`vale_sim.games.get_game` and its hooks.
"""
from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import stats
from .errors import UserError
from .games import DEFAULT_GAME, get_game
from .policy_files import policy_digest
from .rng import offset_seed
from .strong_field import ESTIMAND, field_label, field_of, unpin_edited

DEFAULT_FIELDS = ("cost", "end_vp")
DEFAULT_GAMES = 2000            # games per card and arm in the screen and in each race round
PROBE_STEP = 2                  # the local model's probes: v0 - 2 and v0 + 2
MAX_CHANGE = 10                 # the largest |change| of one number the search proposes
CONFIRM_OFFSET = 2**63          # the confirmation seed: seed + 2**63 (the search uses seed + 0..2)
BALANCE_SOURCE = "balance"      # the source of a number balance changed
CHECKPOINT_VERSION = 2        # 1: one JSON object rewritten after each run (read still)
# The bots balance measures under by default: the game's strongest bundled field
# (vale_sim.strong_field.field_of, e.g. ``meta-{P}p``; docs/meta.md).
#: The verdicts and targets by default: the natural estimand (docs/statistics.md §5.6),
#: the one every card verdict uses (vale_sim.strong_field.ESTIMAND).
DEFAULT_ESTIMAND = ESTIMAND
ESTIMANDS = ("natural", "prefer")
#: The sources of a number that is not printed: ``--estimated-only`` edits only these.
ESTIMATED_SOURCES = ("estimate", BALANCE_SOURCE)
#: The refit of the bundled estimates keeps their source (docs/balance.md).
FIT_SOURCE = "estimate"
#: The sign of the change that makes a card stronger, for the numbers whose meaning
#: every game shares (a higher cost weakens a card, a higher end VP strengthens it);
#: another field's direction is read off the forced value's slope.
STRONGER = {"cost": -1, "end_vp": +1}
#: The columns of the confirmation copied into each errata row.
CONFIRM_COLUMNS = tuple(f"{q}_{w}{e}" for w in ("before", "after")
                        for q in ("value", "strength", "natural") for e in ("", "_lo", "_hi")) \
    + ("verdict_before", "verdict_after", "taken_before", "taken_after", "n_deals")


class BalanceError(UserError, ValueError):
    """A bad balance request: one line naming the option, the item and the fix."""


class BalanceCancelled(Exception):
    """The caller's ``cancel()`` asked the search to stop; the finished runs are kept
    in the checkpoint (``resume=True`` continues)."""


# ---------------------------------------------------------------------------
# Measurements (cached: the checkpoint)
# ---------------------------------------------------------------------------
class _Runs:
    """Strength runs keyed by (edits, cards, players, seed, games), kept in a checkpoint
    of JSON lines, one appended after every run (a resume replays nothing done)."""

    def __init__(self, g, cs0, base_of, rules, engine, workers, play, checkpoint, config,
                 resume, budget, progress, cancel=None):
        self.cancel = cancel
        self.g, self.cs0, self.base_of, self.rules = g, cs0, base_of, rules
        self.engine, self.workers, self.play = engine, workers, play
        self.path = Path(checkpoint) if checkpoint else None
        self.config, self.budget, self.progress = config, budget, progress
        self.runs: dict = {}
        self.search_games = 0
        self.confirm_games = 0
        self.replayed = 0
        self.loaded: set = set()
        if resume:
            if self.path is None or not self.path.exists():
                raise BalanceError(f"--resume: no checkpoint {self.path} to resume; drop "
                                   f"--resume or give the --checkpoint of the earlier run")
            self.runs = self._read(config)
            self._rewrite()                     # drops a line an interruption cut short
        elif self.path is not None:
            self._rewrite()
        self.loaded = set(self.runs)

    def _read(self, config) -> dict:
        """The runs of the checkpoint: a header line (version, config), then one JSON line
        per finished run.  A last line cut short by an interruption is dropped."""
        bad = BalanceError(f"--checkpoint {self.path}: written by a different balance run "
                           f"(other game, cards, fields, seed or games); drop --resume or use "
                           f"the same options")
        try:
            lines = self.path.read_text().splitlines()
            head = json.loads(lines[0]) if lines else None
        except (OSError, ValueError, UnicodeDecodeError) as e:
            raise BalanceError(f"--checkpoint {self.path}: not a balance checkpoint ({e}); "
                               f"give another file") from None
        if not isinstance(head, dict) or head.get("config") != config:
            raise bad
        if head.get("version") == 1:            # the first format: one JSON object
            return {k: _arrays(v) for k, v in head.get("runs", {}).items()}
        if head.get("version") != CHECKPOINT_VERSION:
            raise bad
        runs = {}
        for i, line in enumerate(lines[1:], 2):
            try:
                rec = json.loads(line)
                runs[rec["key"]] = _arrays(rec["run"])
            except (ValueError, KeyError, TypeError):
                if i == len(lines):             # an append cut short: the run is replayed
                    break
                raise BalanceError(f"--checkpoint {self.path}: line {i} is not a finished "
                                   f"run; give another file or drop --resume") from None
        return runs

    def _rewrite(self):
        """The checkpoint with the header and every run so far, written atomically."""
        from .io import atomic_write
        head = json.dumps({"version": CHECKPOINT_VERSION, "config": self.config,
                           "written_by": "vale-sim balance"})
        atomic_write(self.path, "\n".join([head] + [json.dumps({"key": k, "run": _lists(v)})
                                                    for k, v in self.runs.items()]) + "\n")

    def _save(self, key):
        """Append one finished run (one line, flushed to disk): O(run), not O(checkpoint)."""
        if self.path is None:
            return
        import os
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"key": key, "run": _lists(self.runs[key])}) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def cost(self, names, p, games) -> int:
        from .seating import deals_for
        return deals_for(games, p) * p * (1 + 2 * len(names))

    def affordable(self, n_games: int) -> bool:
        """The budget counts the search's games, played now or read from a checkpoint."""
        return self.budget is None or self.search_games + self.replayed + n_games <= self.budget

    def strength(self, edits: tuple, names, p: int, seed: int, games: int,
                 confirm: bool = False):
        """A StrengthRun of ``names`` in the set with ``edits`` ((card, field, new), ...)."""
        from .advancements import StrengthRun, game_strength_run
        key = json.dumps([sorted(edits), list(names), p, seed, games])
        cost = self.cost(names, p, games)
        if key in self.loaded:                  # from the checkpoint of an earlier run
            self.replayed += cost
            self.loaded.discard(key)
        elif key not in self.runs:              # (a run asked twice is played once)
            if confirm:
                self.confirm_games += cost
            else:
                self.search_games += cost
        if key not in self.runs:
            if self.cancel is not None and self.cancel():
                raise BalanceCancelled("balance: cancelled; the finished runs are in the "
                                       "checkpoint" if self.path else "balance: cancelled")
            cs = self.cs0
            for card, fld, new in edits:
                cs, _, _ = self.g.edit_card(cs, card, fld, new, False)
            # an edited card is a new printing: the field plays it by its weights even
            # when its never list names the printed card (strong_field.unpin_edited)
            base = unpin_edited(self.base_of[p], {card for card, _, _ in edits})
            run = game_strength_run(self.g.name, cs, games, p, seed, base,
                                    list(names), self.rules, self.engine, self.workers,
                                    play=self.play)
            # kept as numpy arrays (lists only in the checkpoint's JSON): a few objects
            # per run, not one per game, so memory and the garbage collector stay small
            self.runs[key] = _arrays({"natural": run.natural, "deals": run.deals,
                                      "arms": {n: list(a) for n, a in run.arms.items()},
                                      "got": dict(run.got), "got_natural": dict(run.got_natural),
                                      "known": {n: list(v) for n, v in run.known.items()}})
            self._save(key)
        if self.progress is not None:
            self.progress(self.search_games, self.confirm_games)
        e = self.runs[key]
        run = StrengthRun(None, p, seed, e["deals"], self.base_of[p], e["natural"],
                          known={n: tuple(v) for n, v in e["known"].items()})
        for n, (a, b) in e["arms"].items():
            run.arms[n] = (a, b)
            run.got[n] = e["got"][n]
        run.got_natural.update(e.get("got_natural", {}))   # (not in a first-format checkpoint)
        return run


def _arrays(e: dict) -> dict:
    """A stored run with its per-deal outcomes as float arrays."""
    f = lambda v: np.asarray(v, float)             # noqa: E731
    return {"natural": f(e["natural"]), "deals": e["deals"],
            "arms": {n: [f(a), f(b)] for n, (a, b) in e["arms"].items()},
            "got": {n: f(v) for n, v in e["got"].items()},
            "got_natural": {n: f(v) for n, v in e.get("got_natural", {}).items()},
            "known": e["known"]}


def _lists(e: dict) -> dict:
    """A stored run as JSON (lists), the checkpoint's format."""
    return {"natural": e["natural"].tolist(), "deals": e["deals"],
            "arms": {n: [a.tolist(), b.tolist()] for n, (a, b) in e["arms"].items()},
            "got": {n: v.tolist() for n, v in e["got"].items()},
            "got_natural": {n: v.tolist() for n, v in e["got_natural"].items()},
            "known": e["known"]}


def _est(d: np.ndarray, confidence: float) -> dict:
    r = stats.paired_difference(d, np.zeros_like(d), confidence)
    return {"mean": r.mean, "lo": r.lo, "hi": r.hi, "n": int(d.size),
            "se": float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else math.nan}


# ---------------------------------------------------------------------------
# Result
# ---------------------------------------------------------------------------
@dataclass
class Balance:
    """Result of :func:`balance`: ``config``, the ``errata`` (one row per proposed edit
    and player count), ``confirm`` (every card considered, before and after, per count),
    ``unbalanced`` (card -> reason), ``search`` (the search log) and ``trace`` (the
    convergence: per target card and step, the games spent and the estimate)."""
    config: dict
    edits: list[dict]
    errata: pd.DataFrame
    confirm: pd.DataFrame
    unbalanced: dict
    search: list[dict]
    trace: list[dict]
    patched_set: object = None
    games: dict = field(default_factory=dict)
    #: per target: its kind, the races of its numbers and the one chosen (balancer.run_race)
    candidates: list = field(default_factory=list)
    #: candidate errata the confirmation did not confirm, each with ``why``
    unconfirmed: list = field(default_factory=list)
    #: what it did not do, in groups: {"what", "cards", "n"[, "try_games"]}
    summary: list = field(default_factory=list)

    def text(self) -> str:
        return format_text(self)

    def to_json(self) -> dict:
        from .tournament import json_records
        return {**self.config, "field": field_label(self.config["baseline"],
                                                    self.config["players"]),
                "command": self.command(), "edits": self.edits,
                "errata": json_records(self.errata),
                "confirmation": json_records(self.confirm), "unbalanced": self.unbalanced,
                "unconfirmed": self.unconfirmed, "summary": self.summary,
                "summary_lines": summary_lines(self),
                "candidates": self.candidates,
                "search": self.search, "trace": self.trace, "games_played": self.games}

    def edits_toml(self) -> str:
        """The proposed edits as an edits file (``what-if --edits`` reads it)."""
        lines = [f"# vale-sim balance: proposed edits (source {BALANCE_SOURCE}); "
                 f"card set {self.config['card_set']}, seed {self.config['seed']}"]
        for e in self.edits:
            lines += ["", f"[cards.{json.dumps(e['card'])}]", f"{e['field']} = {e['new']}"]
        return "\n".join(lines) + "\n"

    def command(self) -> str:
        """The ``vale-sim balance`` command line that repeats this run (options that
        differ from the defaults)."""
        c = self.config
        parts = ["vale-sim balance", f"--game {c['game']}", f"--set {c['card_set']}",
                 f"--players {','.join(map(str, c['players']))}"]
        defaults = {"fields": ",".join(DEFAULT_FIELDS), "margin": 0.02,
                    "baseline": field_of(c["game"]),
                    "estimand": DEFAULT_ESTIMAND, "games": DEFAULT_GAMES, "seed": 0,
                    "tolerance": 0.05, "correction": "holm"}
        now = {"fields": ",".join(c["fields"]), "margin": c["margin"], "baseline": c["baseline"],
               "estimand": c.get("estimand", "prefer"), "games": c["games"], "seed": c["seed"],
               "tolerance": c["tolerance"], "correction": c["correction"]}
        for k, v in now.items():
            if v != defaults[k]:
                shown = f"{100 * v:g}" if k in ("margin", "tolerance") else v
                parts.append(f"--{k} {shown}")
        if c["confirm_games"] != 2 * c["games"]:
            parts.append(f"--confirm-games {c['confirm_games']}")
        if c.get("estimated_only"):
            parts.append("--estimated-only")
        return " ".join(parts)

    def patched_toml(self, date: str | None = None) -> str:
        """The card file with the proposed numbers, each with source ``balance``; for an
        ``estimated_only`` run (a refit of estimates) each keeps the source ``estimate``,
        with a comment saying how it was fitted (the run, ``date`` -- default today,
        UTC -- and the command).  A number the file leaves to a curve that the edits
        would move (a card file may leave a cost to a curve that counts end VP) is written out,
        so the file reloads to exactly the proposed set."""
        if not self.config.get("estimated_only"):
            return self._pinned(lambda ed: patch_card_file(self.config["card_file"], ed))
        import datetime
        date = date or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        c = self.config
        run = (f"vale-sim balance --estimated-only, {date}, {c['baseline']} field, "
               f"{c.get('estimand', 'prefer')} estimand, seed {c['seed']}")
        g = self.games
        header = "\n".join([
            f"# Refit by vale-sim balance on {date}: {len(self.edits)} estimated number(s) "
            f"changed, every printed number held fixed (docs/balance.md, \"The fitted sets\").",
            f"#   command: {self.command()} --out-cards FILE",
            f"#   field {c['baseline']} (policy digest "
            f"{', '.join(f'{p}p {d}' for p, d in c.get('baseline_digest', {}).items())}), "
            f"estimand {c.get('estimand', 'prefer')}, margin ±{100 * c['margin']:g} pp, "
            f"{c['games']} games per card and arm, seed {c['seed']}; "
            f"{g.get('search', 0):,} search and {g.get('confirmation', 0):,} confirmation games.",
            "#   Each changed number keeps the source \"estimate\" (it is still the project's "
            "guess, now fitted); its comment gives the value before."])
        return self._pinned(lambda ed: patch_card_file(
            c["card_file"], ed, source=FIT_SOURCE, note=f"estimate, fitted ({run}): was {{old}}",
            header=header))

    def _pinned(self, write) -> str:
        """``write(edits)``, with every number of ``fields`` of an edited card that the
        reloaded file would not give as in the proposed set added as an explicit line
        (its source kept)."""
        import tempfile
        edits = [dict(e) for e in self.edits]
        text = write(edits)
        if self.patched_set is None or not edits:
            return text
        g = get_game(self.config["game"])
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d) / Path(self.config["card_file"]).name
            tmp.write_text(text)
            try:
                back = g.load_card_set(str(tmp))
            except g.user_errors as err:
                raise BalanceError(f"--out-cards: the patched file does not load ({err}); "
                                   f"write the edits with --out-edits instead") from None
        pins = []
        for card in dict.fromkeys(e["card"] for e in edits):
            for f in self.config["fields"]:
                try:
                    want = g.edit_card(self.patched_set, card, f, 0, True)[1]
                    got = g.edit_card(back, card, f, 0, True)[1]
                except g.user_errors:
                    continue
                if want != got and not any(e["card"] == card and e["field"] == f for e in edits):
                    pins.append({"card": card, "field": f, "old": want, "new": want,
                                 "keep_source": True,
                                 "note": f"written out: the card's curve would give {got} "
                                         f"after the edit above"})
        return write(edits + pins) if pins else text


# ---------------------------------------------------------------------------
# The patched card file (a faithful line edit of the TOML card file)
# ---------------------------------------------------------------------------
_TABLE = re.compile(r"^\s*\[\[\s*[A-Za-z_]+\s*\]\]\s*(#.*)?$")
_NAME = re.compile(r"^\s*name\s*=\s*(\"(?:[^\"\\]|\\.)*\")\s*(#.*)?$")


def _inline(d: dict) -> str:
    return "{" + ", ".join(f"{k} = {json.dumps(v)}" for k, v in d.items()) + "}"


def patch_card_file(path, edits, source: str = BALANCE_SOURCE, note: str | None = None,
                    header: str | None = None) -> str:
    """The text of card file ``path`` (TOML: ``[[kind]]`` tables of ``key = value``) with
    each edit's ``field = new`` set in the table named ``card`` and ``field`` given the
    source ``source`` in its ``sources`` (default ``balance``; a field whose source is
    ``source`` already keeps its table as it is); every other line is kept as it is.
    ``note``: the comment after each changed number, ``{old}`` the value before (default
    ``balance: printed OLD``;
    a refit of estimates says how it was fitted); ``header``: the comment lines at the
    top.  BalanceError when the file is not such a TOML file or the card is not in it."""
    p = Path(path) if path else None
    if p is None or p.suffix.lower() != ".toml" or not p.is_file():
        raise BalanceError(f"--out-cards: the card set's file {path or '(none)'} is not a TOML "
                           f"card file; write the edits with --out-edits instead")
    from .inputs import InputFileError, read_text, read_toml
    try:
        lines = read_text(p, "card file").splitlines()
        parsed = read_toml(p, "card file")
    except InputFileError as e:
        raise BalanceError(f"--out-cards: {e}") from None
    tables = {d["name"]: d for v in parsed.values() if isinstance(v, list)
              for d in v if isinstance(d, dict) and isinstance(d.get("name"), str)}
    starts = [i for i, s in enumerate(lines) if _TABLE.match(s)] + [len(lines)]
    blocks = {}
    for a, b in zip(starts, starts[1:]):
        for i in range(a + 1, b):
            m = _NAME.match(lines[i])
            if m:
                blocks.setdefault(json.loads(m.group(1)), (a, b, i))
                break
    by_card: dict = {}
    for e in edits:
        by_card.setdefault(e["card"], []).append(e)
    inserts = {}
    for card, es in by_card.items():
        if card not in blocks:
            raise BalanceError(f"--out-cards: card {card!r} is not a table of {p}; write the "
                               f"edits with --out-edits instead")
        a, b, name_line = blocks[card]
        src_line = None
        for i in range(a + 1, b):
            if re.match(r"^\s*sources\s*=", lines[i]):
                src_line = i
        sources = dict(tables.get(card, {}).get("sources", {}))
        if sources and src_line is None:
            raise BalanceError(f"--out-cards: card {card!r} of {p} keeps its sources in a "
                               f"sub-table; write the edits with --out-edits instead")
        extra = []
        card_source = tables.get(card, {}).get("source")
        changed = False
        for e in es:
            fld = e["field"]
            hit = next((i for i in range(a + 1, b)
                        if re.match(rf"^\s*{re.escape(fld)}\s*=", lines[i])), None)
            why = (e["note"] if e.get("note") else note.replace("{old}", str(e["old"])) if note
                   else f"balance: printed {e['old']}")
            if hit is not None:
                lines[hit] = f"{fld} = {e['new']}  # {why}"
            else:
                extra.append(f"{fld} = {e['new']}  # {why} (not in the file before)")
            if not e.get("keep_source") and sources.get(fld, card_source) != source:
                sources[fld] = source
                changed = True
        if changed and src_line is not None:
            lines[src_line] = f"sources = {_inline(sources)}"
        elif changed:
            extra.append(f"sources = {_inline(sources)}")
        inserts[name_line] = extra
    out = []
    for i, s in enumerate(lines):
        out.append(s)
        out.extend(inserts.get(i, []))
    head = header or (f"# Patched by vale-sim balance: {len(edits)} number(s) changed, each "
                      f"with source \"{source}\" (docs/balance.md).")
    return head.rstrip("\n") + "\n" + "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------
def bundled_refit(path, cs) -> dict | None:
    """The bundled refit result at ``path`` (a ``balance --estimated-only`` result whose
    patched set was bundled: it records ``fitted_set`` and ``fitted_digest``,
    docs/balance.md "The fitted sets"), or None when it cannot be read or its patched
    set is not ``cs`` (another set, or ``cs`` changed since)."""
    try:
        res = json.loads(Path(path).read_text())
    except (OSError, ValueError, RecursionError):
        return None
    if res.get("fitted_set") != cs.name or res.get("fitted_digest") != cs.digest():
        return None
    return res


def number_sources(g, cs) -> dict:
    """card -> {field: source} for every number of card set ``cs`` (the game's
    ``describe_cards(cs, as_json=True)``, which lists each number with its source);
    {} when the game has no such hook.  A card name listed twice (a starting-card
    print and the advancement) merges its numbers, the later entry winning."""
    if g.describe_cards is None:
        return {}
    try:
        doc = g.describe_cards(cs, as_json=True)
    except TypeError:
        return {}
    out: dict = {}
    for c in doc.get("cards", []) if isinstance(doc, dict) else []:
        nums = c.get("numbers") or {}
        out.setdefault(c.get("name"), {}).update(
            {f: (v.get("source") if isinstance(v, dict) else c.get("source"))
             for f, v in nums.items()})
    return out


def _field_range(g, cs, card, fld):
    """(current value, lo, hi) of ``card.fld``: probing the game's own edit checks."""
    try:
        _, old, _ = g.edit_card(cs, card, fld, 0, True)
    except g.user_errors:
        return None
    # every value within MAX_CHANGE the game's edit check accepts, contiguous from the
    # value (the probes at 1, 2, 5, 10, ... steps of the first design missed values: a
    # cost 8 found 3, not 0, as its floor)
    lo = hi = old
    while lo > old - MAX_CHANGE and _editable(g, cs, card, fld, lo - 1):
        lo -= 1
    while hi < old + MAX_CHANGE and _editable(g, cs, card, fld, hi + 1):
        hi += 1
    ok = [lo, hi]
    return old, min(ok), max(ok)


def _editable(g, cs, card, fld, v) -> bool:
    try:
        g.edit_card(cs, card, fld, v, False)
        return True
    except g.user_errors:
        return False


def _gap(natural: float, forced: float, taken: bool, margin: float, tolerance: float,
         estimand: str, kind: str = "over") -> float:
    """A card's distance from "balanced" at one count (fractions; docs/balance.md, "What
    the search aims at").  The search's target is gap <= margin/2.

    ``prefer``: |forced value| (prefer X - ban X).  ``natural``, by the card's first
    flag ``kind``:

    * ``over`` (the field gains too much from it): the larger of |natural value| and
      ``-forced - (tolerance - margin)``: drive the natural value into ±margin/2 while
      forcing the weakened card costs less than the band less margin/2 (the natural
      estimand's "balanced" needs forced > -tolerance);
    * ``under`` (the field does not gain from it and forcing it costs): the larger of
      |natural value| and ``-forced``: drive the forced value up to -margin/2 -- a card
      the field can be made to take without losing more than the margin -- without the
      natural value leaving ±margin/2 (an overshoot to "over").

    A card the field never takes (``taken`` false: no deal changed between the natural
    and the ban arm) cannot be shown balanced: its gap is at least ``margin``."""
    if estimand == "prefer":
        return abs(forced)
    slack = 0.0 if kind == "under" else tolerance - margin
    gap = max(abs(natural), -forced - slack)
    return gap if taken else max(gap, margin)


def _arm_deals(run, card: str) -> dict:
    """Per deal, the natural value (natural - ban X) and the forced value (prefer X -
    ban X) of ``card`` in ``run``, and whether the field took it at all (some deal
    changed between the natural and the ban arm)."""
    from .advancements import deals_changed
    return {"natural": run.natural_deals(card), "forced": run.strength_deals(card),
            "taken": deals_changed(run.natural, run.arms[card][1]) > 0}


def _screen(run, names, level: float, margin: float, tolerance: float, correction: str,
            estimand: str) -> dict:
    """Per card of ``run``: ``{"flag", "natural", "forced", "taken"}`` (means over the
    deals).  ``prefer``: flagged over/under when the forced value is shown beyond
    ±margin (the band test of advancements, ``correction`` across the cards at
    ``1 - level``).  ``natural`` (docs/balance.md): *over* when the natural value is
    shown beyond +margin; *under* when forcing it is shown to cost more than the band
    (forced value below -tolerance) and the field is not shown to gain from it
    (:func:`vale_sim.advancements.natural_flags`, raw intervals at ``level``) -- for a
    card the field never takes (no deal changed between the natural and the ban arm:
    certain, and such a card can never be shown balanced) forcing it need only be
    shown below -margin.  The over and the under tests of all cards form one family
    (``correction`` over the 2 x cards p-values), so the false-edit guarantee covers
    both directions."""
    from .advancements import (band_p_value, deals_changed, natural_flags,
                               paired_interval)
    alpha = 1 - level
    rows = []
    for c in names:
        pre, ban = run.arms[c]
        d, dn = run.strength_deals(c), run.natural_deals(c)
        ch, chn = deals_changed(pre, ban), deals_changed(run.natural, ban)
        _, nlo, nhi = paired_interval(dn, chn, level)
        rows.append({"card": c, "natural": float(dn.mean()), "forced": float(d.mean()),
                     "nlo": nlo, "nhi": nhi, "taken": chn > 0,
                     "p_forced": band_p_value(d, margin if estimand == "prefer" or chn == 0
                                              else tolerance, ch),
                     "p_natural": band_p_value(dn, margin, chn)})
    if estimand == "prefer":
        rej, _ = stats.adjust_pvalues(np.array([r["p_forced"] for r in rows]), correction, alpha)
        flags = [("over" if r["forced"] > 0 else "under") if x else ""
                 for r, x in zip(rows, rej)]
    else:
        k = len(rows)
        rej, _ = stats.adjust_pvalues(np.array([r["p_natural"] for r in rows]
                                               + [r["p_forced"] for r in rows]), correction,
                                      alpha)
        flags = natural_flags([r["natural"] for r in rows], [r["nlo"] for r in rows],
                              [r["nhi"] for r in rows], rej[:k], [r["forced"] for r in rows],
                              rej[k:], margin)
    return {r["card"]: {"flag": f, "natural": r["natural"], "forced": r["forced"],
                        "taken": bool(r["taken"])} for r, f in zip(rows, flags)}


def balance(game: str = DEFAULT_GAME, card_set=None, fields=DEFAULT_FIELDS, cards=None,
            margin: float = 0.02, players=(2,), baseline=None, budget: int | None = None,
            games: int = DEFAULT_GAMES, confirm_games: int | None = None, seed: int = 0,
            engine: str = "fast", workers: int = 1, confidence: float = 0.95,
            tolerance: float = 0.05, correction: str = "holm", checkpoint=None,
            resume: bool = False, progress=None, play=None, scheduler=None,
            cancel=None, estimand: str = DEFAULT_ESTIMAND,
            estimated_only: bool = False) -> Balance:
    """Search the smallest set of integer edits (of ``fields``) after which every card
    considered (``cards``, default every card a player buys) is shown balanced
    (within ±``margin``) at every count of ``players``; confirm it on a fresh seed
    (module docstring, docs/balance.md).  ``games``: games per card and arm in the
    screen and the first race round; ``confirm_games``: in the confirmation (default
    2 x games); ``budget``: most games the search may play (the confirmation is not
    counted).  BalanceError (one line) for a bad request, before any game.

    ``progress(search_games, confirmation_games)`` is called after every strength run;
    ``cancel()`` is asked before every run: when it returns true the search stops with
    :class:`BalanceCancelled` (every finished run is already in the checkpoint, so
    ``resume=True`` continues).  ``scheduler``: a Dask scheduler address or
    ``dask.distributed.Client`` -- the games run on that cluster, with the same
    result as locally for any number of workers.

    ``baseline``: the bots (default the game's strongest bundled field,
    :func:`vale_sim.strong_field.field_of`, e.g. ``meta-{P}p``).  ``estimand``: ``"natural"`` (default: the natural value and
    the forced value, docs/statistics.md §5.6) or ``"prefer"`` (the forced value
    alone, the first design).  ``estimated_only``: edit only numbers whose source is
    not printed (:data:`ESTIMATED_SOURCES`); printed numbers stay fixed."""
    import gc
    dask = None
    if play is None and scheduler is not None:
        dask = play = _DaskPlay(scheduler)
    # statsmodels' Holm correction calls gc.collect(); with the engines, pandas and
    # numba loaded each full collection took ~0.1 s, a tenth of a small balance run.
    # Objects alive now (modules, compiled code) are frozen out of the collections
    # for the run (gc.freeze) and returned to them afterwards.
    frozen = not gc.get_freeze_count()
    if frozen:
        gc.freeze()
    try:
        return _balance(game, card_set, fields, cards, margin, players, baseline, budget,
                        games, confirm_games, seed, engine, workers, confidence, tolerance,
                        correction, checkpoint, resume, progress, play, cancel, estimand,
                        estimated_only)
    finally:
        if frozen:
            gc.unfreeze()
        if dask is not None:
            dask.close()


class _DaskPlay:
    """play_frame on a Dask cluster: connects on the first game (so a bad request is
    refused before any connection) and keeps one client for the whole search."""

    def __init__(self, scheduler):
        self.scheduler, self.client = scheduler, None

    def __call__(self, *a, **k):
        from .tournament import play_frame
        return play_frame(*a, scheduler=self._connect(), **k)

    def play_outcomes(self, *a, **k):
        """The summary path of the same games (vale_sim.tournament.play_outcomes)."""
        from .tournament import play_outcomes
        return play_outcomes(*a, scheduler=self._connect(), **k)

    def _connect(self):
        from .runner import Scheduler
        if self.client is None:
            # an address or a Client, with the user's timeouts when a Scheduler is given;
            # connected once (a client of our own is closed by close())
            spec = (self.scheduler if isinstance(self.scheduler, Scheduler)
                    else Scheduler(self.scheduler))
            self._own = isinstance(spec.address, str)
            self.client = spec.connect()
        return self.client

    def close(self):
        if self.client is not None and getattr(self, "_own", False):
            self.client.address.close()


def _balance(game, card_set, fields, cards, margin, players, baseline, budget, games,
             confirm_games, seed, engine, workers, confidence, tolerance, correction,
             checkpoint, resume, progress, play, cancel, estimand=DEFAULT_ESTIMAND,
             estimated_only=False) -> Balance:
    from .advancements import CORRECTIONS, strength_frame
    from .tournament import outcomes_player, play_frame
    from .inputs import did_you_mean
    g = get_game(game)
    baseline = baseline or field_of(g)         # the strongest bundled field by default
    play = play or play_frame
    t_start = time.perf_counter()
    timing = {"play_seconds": 0.0}

    def timed(_play):                              # the time inside the games (engine + runner)
        def timed_play(*a, **k):
            t = time.perf_counter()
            try:
                return _play(*a, **k)
            finally:
                timing["play_seconds"] += time.perf_counter() - t
        return timed_play
    summary = outcomes_player(play)                 # the outcome arrays (no frames), if any
    play = timed(play)
    if summary is not None:
        play.play_outcomes = timed(summary)
    if g.strength_arms is None or g.strength_cards is None or g.edit_card is None:
        raise BalanceError(f"balance: {g.name} has no card-strength or card-edit hooks")
    if correction not in CORRECTIONS:
        raise BalanceError(f"--correction must be one of {', '.join(CORRECTIONS)}, got "
                           f"{correction!r}")
    if not 0 < margin < 1:
        raise BalanceError(f"--margin must be above 0 and below 100 pp, got {100 * margin:g}")
    if estimand not in ESTIMANDS:
        raise BalanceError(f"--estimand must be one of {', '.join(ESTIMANDS)}, got "
                           f"{estimand!r}")
    counts = [players] if isinstance(players, int) else list(players)
    for p in counts:
        if p not in g.players:
            raise BalanceError(f"--players: give counts from {', '.join(map(str, g.players))} "
                               f"for {g.title}, got {p!r}")
    fields = list(fields)
    if not fields:
        raise BalanceError("--fields: give at least one field, e.g. cost,end_vp")
    confirm_games = confirm_games or 2 * games
    cs0 = g.load_card_set(card_set if card_set is not None else g.default_card_set)
    known = {n: (k, lv) for n, k, lv, _ in g.strength_cards(cs0)}
    if cards is not None:
        cards = list(dict.fromkeys(cards))
        for c in cards:
            if c not in known:
                hint = did_you_mean(c, sorted(known))
                raise BalanceError(f"--cards: unknown card {c!r} (not a card a player buys in "
                                   f"set {cs0.name!r})" + (f"; {hint}" if hint else ""))
        names = cards
    else:
        names = list(known)
    if not names:
        raise BalanceError("--cards: no card to balance")
    # (each field asks the cards only until one has it editable: probing is slow)
    editable_any = {f for f in fields if any(_field_range(g, cs0, c, f) for c in names)}
    for f in fields:
        if f not in editable_any:
            raise BalanceError(f"--fields: {f!r} is not an editable number of any card "
                               f"considered (docs/what-if.md lists them); drop it")
    sources = number_sources(g, cs0)
    spans: dict = {}                       # (kind, field) -> (min, max) over the set's cards
    for n, (k, _lv) in known.items():
        for f in fields:
            try:
                v = g.edit_card(cs0, n, f, 0, True)[1]
            except g.user_errors:
                continue
            lo_, hi_ = spans.get((k, f), (v, v))
            spans[(k, f)] = (min(lo_, v), max(hi_, v))
    if estimated_only and not any(sources.get(c, {}).get(f) in ESTIMATED_SOURCES
                                  for c in names for f in fields):
        raise BalanceError(f"--estimated-only: no {'/'.join(fields)} number of the cards "
                           f"considered is an estimate (every one is printed); drop "
                           f"--estimated-only or give other --fields")
    base_of = {}
    for p in counts:
        try:
            g.validate_playable(cs0, p)
        except g.user_errors as e:
            raise BalanceError(f"the card set at {p} players: {e}") from None
        try:
            base_of[p] = g.resolve_baseline(baseline, p, cs0)
        except (ValueError, *g.user_errors) as e:
            raise BalanceError(f"--baseline {baseline} at {p} players: "
                               f"{str(e).splitlines()[0] if str(e) else e!r}; give another "
                               f"--baseline (e.g. {g.default_policy})") from None
    config = {"game": g.name, "card_set": cs0.name, "card_file": str(cs0.path or ""),
              "digest": cs0.digest(), "fields": fields, "cards": names, "margin": margin,
              "players": counts, "baseline": baseline, "seed": seed,
              "estimand": estimand, "estimated_only": bool(estimated_only),
              "baseline_digest": {str(p): policy_digest(base_of[p]) for p in counts},
              "games": games, "confirm_games": confirm_games, "budget": budget,
              "engine": engine, "confidence": confidence, "tolerance": tolerance,
              "correction": correction, "probe_step": PROBE_STEP, "max_change": MAX_CHANGE,
              "spans": {f"{k}.{f}": list(v) for (k, f), v in spans.items()},
              "search_seeds": [],
              "confirm_seed": offset_seed(seed, CONFIRM_OFFSET)}
    runs = _Runs(g, cs0, base_of, None, engine, workers, play, checkpoint,
                 {k: v for k, v in config.items() if k not in ("budget", "search_seeds")}, resume, budget, progress, cancel)
    from . import balancer as R
    alpha = 1 - confidence
    level_s = 1 - alpha / len(counts)                 # Bonferroni across the counts
    log, trace, unbalanced = [], [], {}

    def gap_of(m: dict, kind: str) -> float:
        """A card's distance from balanced over the counts (``m``: count -> means)."""
        return max(_gap(v["natural"], v["forced"], v["taken"], margin, tolerance, estimand,
                        kind) for v in m.values())

    def flags_of(run, cards, family: int | None = None) -> dict:
        """The screen's flags (:func:`_screen`) joined with the verdicts' (a card the
        verdict rule reads over or under -- per pick too -- is shown beyond the margin).
        ``family``: judge ``cards`` as part of a family of that many cards (Bonferroni
        at its per-card level), so that a few cards replayed alone are held to the
        threshold of the whole confirmation."""
        lev, corr = level_s, correction
        if family is not None and family > len(cards):
            lev, corr = 1 - (1 - level_s) * len(cards) / family, "bonferroni"
        s = _screen(run, cards, lev, margin, tolerance, corr, estimand)
        fr = strength_frame(run, lev, tolerance, corr, margin, estimand,
                            agreement_resamples=0).set_index("card")
        for c in cards:
            v = fr.loc[c, "verdict"]
            if not s[c]["flag"] and v in ("over", "under"):
                s[c]["flag"] = v
            s[c]["verdict"] = v
            s[c]["games_needed"] = fr.loc[c, "games_needed"]
        return s, fr

    # 1. the screen: every card considered, on the search seed, --games per card and arm
    s0 = offset_seed(seed, 0)
    config["search_seeds"] = [s0]
    screen = {}
    for p in counts:
        run = runs.strength((), names, p, s0, games)
        screen[p] = (run, flags_of(run, names)[0])
    kinds = {c: {p: screen[p][1][c]["flag"] for p in counts} for c in names}
    targets = [c for c in names if any(kinds[c].values())]

    def kind_of(c: str) -> str:
        """A target's kind: "under" if flagged under at some count, else "over"."""
        return "under" if any(f == "under" for f in kinds.get(c, {}).values()) else "over"
    score = {c: gap_of({p: screen[p][1][c] for p in counts}, kind_of(c)) for c in names}
    for c in names:
        log.append({"step": "screen", "round": 0, "card": c,
                    "strength": {p: screen[p][1][c]["forced"] for p in counts},
                    "natural": {p: screen[p][1][c]["natural"] for p in counts},
                    "flag": {p: screen[p][1][c]["flag"] for p in counts},
                    "gap": score[c], "flagged": c in targets, "games": games})
    # the detection limit at this size (docs/balance.md): the smallest natural value
    # beyond ±margin the screen finds with 80 % power, from the median per-deal SD of the
    # cards the field takes
    det = {}
    for p in counts:
        run = screen[p][0]
        deals_of = run.strength_deals if estimand == "prefer" else run.natural_deals
        sds = [float(deals_of(c).std(ddof=1)) for c in names
               if screen[p][1][c]["taken"] and run.deals > 1]
        sd = float(np.median(sds)) if sds else math.nan
        det[str(p)] = {"sd": sd, "deals": int(run.deals), "tests": 2 * len(names),
                       "limit": R.detection_limit(sd, run.deals, 2 * len(names), margin,
                                                  alpha / len(counts))}
    config["detection_limit"] = det

    # 2. the race of each target's numbers (balancer.py), each in the set as given
    peers: dict = {}                       # (kind, level, field) -> {card: value}
    for n, (k, lv) in known.items():
        for f in fields:
            try:
                peers.setdefault((k, lv, f), {})[n] = g.edit_card(cs0, n, f, 0, True)[1]
            except g.user_errors:
                pass

    def band_of(c: str, f: str, v0: int):
        """(lo, hi, why): the band of ``c.f`` -- the game's own (e.g. a commons
        advancement's cost band of its level) or else the range the set's cards of the
        same kind and level give the number, the card's own value included (so a card
        is never outside a band derived from the set); None when there is none."""
        if g.estimate_bounds is not None:
            b = g.estimate_bounds(cs0, c, f)
            if b is not None:
                return b
        k, lv = known[c]
        vals = list(peers.get((k, lv, f), {}).values()) + [v0]
        lo_, hi_ = min(vals), max(vals)
        return lo_, hi_, f"the {f} band {lo_}..{hi_} of the set's level-{lv} {k}s"

    races, not_raced = {}, {}
    order = sorted(targets, key=lambda c: -score[c])
    for c in order:
        kind = kind_of(c)
        info, reasons = [], []
        for f in fields:
            fr = _field_range(g, cs0, c, f)
            if fr is None:
                continue
            if estimated_only and sources.get(c, {}).get(f) not in ESTIMATED_SOURCES:
                reasons.append(f"{f} is a printed number (source "
                               f"{sources.get(c, {}).get(f, '?')}; --estimated-only)")
                continue
            stronger = STRONGER.get(f)
            if stronger is None:
                reasons.append(f"{f}: its direction is not known")
                continue
            v0, lo, hi = fr
            # never stronger than the strongest value the set's cards of its kind give
            # the number (docs/balance.md, "Bounds")
            s_lo, s_hi = spans.get((known[c][0], f), (lo, hi))
            if stronger == -1:
                lo = max(lo, min(s_lo, v0))
            else:
                hi = min(hi, max(s_hi, v0))
            fix = stronger * (-1 if kind == "over" else 1)   # +1: the fix raises the number
            wide = [v for v in range(lo, hi + 1) if (v - v0) * fix > 0]
            band = band_of(c, f, v0)
            out_of_band = False
            blo, bhi = lo, hi
            if band is not None:
                out_of_band = not band[0] <= v0 <= band[1]
                blo, bhi = max(lo, band[0]), min(hi, band[1])
            values = [v for v in range(blo, bhi + 1) if out_of_band or (v - v0) * fix > 0]
            # a refit of estimates (--estimated-only) stays inside the band: it is the
            # range the game's own estimates keep (docs/balance.md, "Bounds")
            wide = (sorted(set(wide) - set(values))
                    if not out_of_band and not estimated_only else [])
            if not values and not wide:
                reasons.append(f"{f} cannot move {'up' if fix > 0 else 'down'} from {v0}"
                               + (f" ({band[2]})" if band else ""))
                continue
            info.append({"field": f, "v0": v0, "values": values, "wide": wide,
                         "stronger": stronger, "limits": (blo, bhi), "range": (lo, hi),
                         "band": band, "out_of_band": out_of_band,
                         "peers": [v for n, v in peers.get((*known[c], f), {}).items()
                                   if n != c]})
        if not info:
            not_raced[c] = "; ".join(reasons) or "no allowed number of it can move"
            continue

        def race_of(fi, values, limits, c=c, kind=kind):
            f = fi["field"]
            race = R.CardRace(c, f, fi["v0"], values, fi["stronger"], kind, counts,
                              margin, tolerance, estimand, limits=limits)

            def measure(v, s, n):
                config["search_seeds"] = sorted(set(config["search_seeds"]) | {s})
                ed = () if v == fi["v0"] else ((c, f, v),)
                out = {}
                for p in counts:
                    d = _arm_deals(runs.strength(ed, [c], p, s, n), c)
                    out[p] = (d["natural"], d["forced"], d["taken"])
                return out

            def affordable(k, n):
                return runs.affordable(k * sum(runs.cost([c], p, n) for p in counts))

            def on_round(r):
                trace.append({"card": c, "step": f"race {f} {r['round']}",
                              "edit": r["proposal"], "games": runs.search_games,
                              "gap": r["fitted_gap"]})
            res = R.run_race(race, measure, games, seed, affordable, on_round=on_round)
            res.update({"band": fi["band"][2] if fi["band"] else None,
                        "out_of_band": fi["out_of_band"], "beyond_band": False})
            log.append({"step": "race", **res})
            return res
        results = []
        for fi in R.field_order(info, kind):
            if not fi["values"]:
                continue
            res = race_of(fi, fi["values"], fi["limits"])
            results.append(res)
            if res["status"] == "proposed" and res["fitted_gap"] <= margin / 2:
                break
        if not any(r["status"] == "proposed" for r in results):
            # no value inside the band passes: the values beyond it (within the loader's
            # range and the set's span), proposed only with the band named as broken.
            # The band's values are raced again on the same seeds: read from the runs.
            for fi in R.field_order(info, kind):
                if not fi["wide"] or fi["out_of_band"]:
                    continue
                res = race_of(fi, fi["values"] + fi["wide"], fi["range"])
                res["beyond_band"] = bool(res["proposal"] is not None and fi["band"]
                                          and not fi["band"][0] <= res["proposal"]
                                          <= fi["band"][1])
                results.append(res)
                if res["status"] == "proposed" and res["fitted_gap"] <= margin / 2:
                    break
        if not results:
            not_raced[c] = "; ".join(reasons) or "no allowed number of it can move"
            continue
        proposed = [r for r in results if r["status"] == "proposed"]
        # inside the band first; then within margin/2; then the smallest fitted gap
        best = (min(proposed, key=lambda r: (r["beyond_band"],
                                             r["fitted_gap"] > margin / 2,
                                             results.index(r) if r["fitted_gap"] <= margin / 2
                                             else r["fitted_gap"]))
                if proposed else
                min(results, key=lambda r: (r["fitted_gap"] if r["fitted_gap"] == r["fitted_gap"]
                                            else math.inf)))
        races[c] = {"kind": kind, "chosen": best, "races": results}

    candidates = []
    for c in order:
        if c not in races:
            continue
        r = races[c]["chosen"]
        if r["status"] != "proposed":
            continue
        lo, hi = r["limits"]
        candidates.append({"card": c, "field": r["field"], "old": r["old"],
                           "new": r["proposal"], "change": r["change"], "kind": r["kind"],
                           "source": BALANCE_SOURCE,
                           "number_source": sources.get(c, {}).get(r["field"], "?"),
                           "range": [lo, hi], "passing": r["passing"],
                           "fitted_gap": r["fitted_gap"],
                           "at_bound": bool(r["proposal"] in (lo, hi)
                                            and r["fitted_gap"] > margin / 2),
                           **({"bound": r["band"]} if r["band"] else {}),
                           **({"outside_band": f"outside {r['band']}: no value inside it "
                                                f"passes"} if r["beyond_band"] else {}),
                           "edit": f"{c}.{r['field']}={r['proposal']}"})

    # 3. the confirmation on a fresh seed: both sets, every card considered; an erratum
    # is confirmed when its card is no longer shown beyond the margin, the field takes
    # it and its gap shrank, and no other card is pushed beyond the margin by it
    cseed = config["confirm_seed"]
    level = level_s
    before = {}
    for p in counts:
        r0 = runs.strength((), names, p, cseed, confirm_games, confirm=True)
        before[p] = (*flags_of(r0, names), r0)
    active = list(candidates)
    rejected: dict = {}                         # edit -> why not confirmed
    after = before
    for attempt in range(3):
        if not active:
            after = before
            break
        edited = tuple((e["card"], e["field"], e["new"]) for e in active)
        cs1 = cs0
        for e in active:
            cs1, _, _ = g.edit_card(cs1, e["card"], e["field"], e["new"], False)
        for p in counts:
            try:
                g.validate_playable(cs1, p)
            except g.user_errors as err:
                raise BalanceError(f"the proposed set at {p} players: {err}") from None
        after = {}
        for p in counts:
            r1 = runs.strength(edited, names, p, cseed, confirm_games, confirm=True)
            after[p] = (*flags_of(r1, names), r1)
        bad, victims = R.judge(active, {p: before[p][0] for p in counts},
                               {p: after[p][0] for p in counts}, names, counts, gap_of)
        # a card is pushed only if the errata moved it (paired on the confirmation's
        # deals: its value after minus before beyond 2 SE, toward its flag); a card on
        # the margin that flips within noise is not blamed on them (it is then listed
        # as shown beyond the margin after, "probably missed")
        victims = [v for v in victims if any(
            R.moved_toward(before[p][2], after[p][2], v, after[p][0][v]["flag"])
            for p in counts if after[p][0][v]["flag"])]
        if victims:
            ok = [e for e in active if e["edit"] not in bad]
            blame: dict = {}
            if len(ok) == 1:
                blame[ok[0]["edit"]] = list(victims)
            elif ok:
                z: dict = {}                # (edit, victim) -> how far it moved it, in SE
                for e in ok:                # each erratum alone, on the victims only
                    for p in counts:
                        r2 = runs.strength(((e["card"], e["field"], e["new"]),), victims, p,
                                           cseed, confirm_games, confirm=True)
                        s2, _ = flags_of(r2, victims, family=len(names))
                        for v in victims:
                            fl = after[p][0][v]["flag"]
                            zz = R.moved_z(before[p][2], r2, v, fl)
                            key = (e["edit"], v)
                            z[key] = max(z.get(key, -math.inf),
                                         zz if zz == zz else -math.inf)
                            if s2[v]["flag"] and zz == zz and zz > 2:
                                blame.setdefault(e["edit"], [])
                                if v not in blame[e["edit"]]:
                                    blame[e["edit"]].append(v)
                for v in victims:           # pushed by the errata together: the one that
                    if not any(v in vs for vs in blame.values()):   # moves it most goes
                        e = max(ok, key=lambda e: z[(e["edit"], v)])
                        blame.setdefault(e["edit"], []).append(v)
            for ed, vs in blame.items():
                bad[ed] = "pushes " + ", ".join(vs) + " beyond the margin"
        log.append({"step": "confirm", "attempt": attempt,
                    "edits": [e["edit"] for e in active], "not_confirmed": dict(bad),
                    "pushed": victims})
        if not bad:
            break
        for e in active:
            if e["edit"] in bad:
                rejected[e["edit"]] = bad[e["edit"]]
        active = [e for e in active if e["edit"] not in bad]
    else:
        # three confirmations and still an erratum failing: nothing left is proposed
        for e in active:
            rejected.setdefault(e["edit"], "the confirmation did not settle in 3 passes")
        active, after = [], before
    edits, unconfirmed = R.split_confirmed(candidates, rejected)
    cs1 = cs0
    for e in edits:
        cs1, _, _ = g.edit_card(cs1, e["card"], e["field"], e["new"], False)

    rows = []
    for p in counts:
        f0, f1 = before[p][1], after[p][1]
        for c in names:
            a, b = f0.loc[c], f1.loc[c]
            row = {"players": p, "card": c, "edited": c in {e["card"] for e in edits}}
            for w, r in (("before", a), ("after", b)):
                row.update({f"value_{w}": r["value"], f"value_{w}_lo": r["value_lo_adj"],
                            f"value_{w}_hi": r["value_hi_adj"],
                            f"strength_{w}": r["strength"], f"strength_{w}_lo": r["strength_lo_adj"],
                            f"strength_{w}_hi": r["strength_hi_adj"],
                            f"natural_{w}": r["natural_value"],
                            f"natural_{w}_lo": r["natural_lo_adj"],
                            f"natural_{w}_hi": r["natural_hi_adj"],
                            f"taken_{w}": bool(r["natural_deals_changed"] > 0),
                            f"verdict_{w}": r["verdict"]})
            row["beyond_before"] = before[p][0][c]["flag"]
            row["beyond_after"] = after[p][0][c]["flag"]
            row["n_deals"] = int(b["n_deals"])
            rows.append(row)
            if c in races:
                trace.append({"card": c, "step": f"confirm ({p}p)",
                              "edit": next((e["change"] for e in edits if e["card"] == c), 0),
                              "games": runs.search_games + runs.confirm_games,
                              "gap": _gap(float(b["natural_value"]), float(b["strength"]),
                                          bool(b["natural_deals_changed"] > 0), margin,
                                          tolerance, estimand, kind_of(c))})
    confirm = pd.DataFrame(rows)
    errata = []
    for e in edits:
        for p in counts:
            r = confirm[(confirm["card"] == e["card"]) & (confirm["players"] == p)].iloc[0]
            errata.append({"card": e["card"], "field": e["field"], "printed": e["old"],
                           "proposed": e["new"], "players": p,
                           "passing": e["passing"],
                           "number_source": e.get("number_source", "?"),
                           **{k: r[k] for k in CONFIRM_COLUMNS}})
    errata = pd.DataFrame(errata)

    # 4. what it did not do, in groups (one line each, docs/balance.md "What is reported")
    fixed = {e["card"] for e in edits}
    groups: dict = {}

    def put(what, c, why=None):
        groups.setdefault(what, []).append(c)
        unbalanced[c] = what + (f": {why}" if why else "")
    for e in unconfirmed:
        put("a candidate not confirmed (listed, not proposed)", e["card"],
            f"{e['edit']}: {e['why']}")
    for c in order:
        if c in fixed or any(e["card"] == c for e in unconfirmed):
            continue
        if c in not_raced:
            put("at the limit of their range" if "cannot move" in not_raced[c]
                else "no allowed number can move", c, not_raced[c])
            continue
        r = races[c]["chosen"]
        st = r["status"]
        what = {"at the limit of its range": "at the limit of their range",
                "no value passes": "no value in range passes",
                "balanced without an edit": "within margin/2 without an edit in the race "
                                            "(the screen's flag did not hold up)",
                "budget": "not raced to the end (the budget ran out)",
                "cannot move": "no allowed number can move"}.get(st, st)
        put(what, c, (f"best {r['field']} {r['old']} -> {r['proposal']}, fitted gap "
                      f"{100 * r['fitted_gap']:.1f} pp" if r["proposal"] is not None
                      else None))
    missed = [c for c in names if c not in targets
              and any(after[p][0][c]["flag"] for p in counts)]
    for c in missed:
        put("probably missed, run again on the patched set", c,
            "shown beyond the margin in the confirmation, not by the screen")
    undecided = [c for c in names if c not in unbalanced and c not in fixed
                 and any(after[p][1].loc[c, "verdict"] == "inconclusive" for p in counts)]
    need = [after[p][1].loc[c, "games_needed"] for c in undecided for p in counts
            if after[p][1].loc[c, "games_needed"] == after[p][1].loc[c, "games_needed"]]
    try_games = int(math.ceil(np.median(need) / 500.0) * 500) if need else None
    for c in undecided:
        groups.setdefault("not enough games to decide", []).append(c)
    summary = [{"what": w, "cards": cs_, "n": len(cs_),
                **({"try_games": try_games} if w == "not enough games to decide" and try_games
                   else {})} for w, cs_ in groups.items()]
    config["confirm_confidence"] = level
    config["targets"] = targets
    config["target_kinds"] = {c: kind_of(c) for c in targets}
    config["dropped"] = groups.get("within margin/2 without an edit in the race (the "
                                   "screen's flag did not hold up)", [])
    b = Balance(config, edits, errata, confirm, unbalanced, log, trace, cs1,
                {"search": runs.search_games, "confirmation": runs.confirm_games,
                 "replayed_from_checkpoint": runs.replayed,
                 "wall_seconds": round(time.perf_counter() - t_start, 2),
                 "play_seconds": round(timing["play_seconds"], 2)})
    b.candidates = [races[c] for c in order if c in races]
    b.unconfirmed = unconfirmed
    b.summary = summary
    return b


# ---------------------------------------------------------------------------
# Text and figure
# ---------------------------------------------------------------------------
def _pp(v) -> str:
    return "-" if v != v else f"{100 * v:+.1f}"


def _ci(lo, hi) -> str:
    return "[no interval]" if lo != lo else f"[{100 * lo + 0.0:+.1f}, {100 * hi + 0.0:+.1f}]"


def summary_lines(b) -> list[str]:
    """What the run did not do, one line per group ("24 cards: not enough games to decide
    (try --games 4000)")."""
    out = []
    for grp in b.summary:
        n, cards = grp["n"], grp["cards"]
        names = ", ".join(cards[:6]) + (f" and {len(cards) - 6} more" if len(cards) > 6 else "")
        hint = f" (try --games {grp['try_games']})" if grp.get("try_games") else ""
        out.append(f"{n} card{'s' if n != 1 else ''}: {grp['what']}{hint}: {names}")
    return out


def _race_line(t: dict, counts) -> str:
    """One line per raced target: the chosen number, the proposal, its pooled values on
    the race's deals (±2 SE), the passing values and the race's size."""
    r = t["chosen"]
    games = sum(c["games"] for x in t["races"] for c in x["candidates"])
    n_c = sum(len(x["candidates"]) for x in t["races"])
    head = f"  {r['card']} ({t['kind']}): {r['field']} {r['old']}"
    if r["proposal"] is None:
        return head + f" -- not raced ({r['status']})"
    c = next(c for c in r["candidates"] if c["value"] == r["proposal"])
    vals = "; ".join(
        f"{p}p natural {_pp(c['natural'][p])} ±{200 * c['natural_se'][p]:.1f}, forced "
        f"{_pp(c['forced'][p])} ±{200 * c['forced_se'][p]:.1f}, n={c['n_deals'][p]} deals"
        for p in counts)
    return (head + f" -> {r['proposal']} [{r['status']}]; passing "
            + (f"{r['passing'][0]}..{r['passing'][1]}" if r["passing"] else "none")
            + f"; fitted gap {100 * r['fitted_gap']:.1f} pp (at {r['old']}, as given: "
            f"{100 * r['fitted_gap_printed']:.1f}); {vals}; {n_c} candidates raced, "
            f"{games:,} games per arm" + (f"; {r['band']}" if r.get("band") else "")
            + ("; outside the band: no value inside it passes" if r.get("beyond_band")
               else ""))


def format_text(b: Balance) -> str:
    c = b.config
    counts = c["players"]
    lines = [f"Balance: {c['game']}, card set {c['card_set']}, fields {', '.join(c['fields'])}, "
             f"margin ±{100 * c['margin']:g} pp, players {','.join(map(str, counts))}, "
             f"field {field_label(c['baseline'], counts)}, "
             f"estimand {c.get('estimand', 'prefer')}"
             + (", estimated numbers only (printed numbers held fixed)"
                if c.get("estimated_only") else "") + f", seed {c['seed']}.",
             f"Screen: {len(c['cards'])} cards, {c['games']} games per card and arm; "
             f"{len(c['targets'])} shown beyond ±margin ({c['correction']}): "
             + (", ".join(f"{t} ({c['target_kinds'][t]})" for t in c["targets"]) or "none")
             + ".",
             f"Search: {b.games['search']:,} games (screen and races); confirmation: "
             f"{b.games['confirmation']:,} games on the fresh seed {c['confirm_seed']}, "
             f"{c['confirm_games']} games per card and arm, {c['correction']} across the "
             f"cards and Bonferroni across the player counts (intervals at "
             f"{100 * c['confirm_confidence']:.2f}% before the card correction)."]
    det = c.get("detection_limit") or {}
    if det:
        what = "natural value" if c.get("estimand", "prefer") == "natural" else "strength"
        lines.append("Detection limit at this size: the screen finds a card with 80 % power "
                     f"when its {what} is beyond " + ", ".join(
                         f"±{100 * d['limit']:.1f} pp at {p}p" for p, d in det.items())
                     + " (" + ", ".join(f"{d['deals']} deals, per-deal SD {100 * d['sd']:.1f}"
                                        f" pp, {d['tests']} tests" for d in det.values())
                     + "); smaller errors may be missed.")
    if b.games.get("replayed_from_checkpoint"):
        lines.append(f"Resumed: {b.games['replayed_from_checkpoint']:,} more games were read "
                     f"from the checkpoint, not replayed.")
    nat = c.get("estimand", "prefer") == "natural"
    head = ("natural value = win share natural - ban X under the field; forced = prefer X - "
            "ban X" if nat else "strength = win share prefer X - ban X")
    lines += ["", f"Errata, confirmed on the fresh seed ({head}; pp, adjusted intervals):",
              f"{'card':<26} {'field':<7} {'printed -> proposed':>20} {'passing':>8} {'P':>2} "
              + (f"{'natural before':>24} {'after':>24} {'forced before':>24} {'after':>24} "
                 if nat else f"{'strength before':>24} {'after':>24} ")
              + f"{'verdict after':>14} {'n deals':>8}"]
    if not len(b.errata):
        lines.append("(no edit proposed)")

    def cell(r, q, w):
        return f"{_pp(r[f'{q}_{w}']) + ' ' + _ci(r[f'{q}_{w}_lo'], r[f'{q}_{w}_hi']):>24}"
    for _, r in b.errata.iterrows():
        vals = (f"{cell(r, 'natural', 'before')} {cell(r, 'natural', 'after')} "
                f"{cell(r, 'strength', 'before')} {cell(r, 'strength', 'after')}" if nat else
                f"{cell(r, 'strength', 'before')} {cell(r, 'strength', 'after')}")
        pas = r.get("passing")
        pas = f"{pas[0]}..{pas[1]}" if isinstance(pas, (list, tuple)) and pas else "-"
        lines.append(f"{r['card'][:26]:<26} {r['field']:<7} "
                     f"{str(r['printed']) + ' -> ' + str(r['proposed']):>20} {pas:>8} "
                     f"{r['players']:>2} {vals} {r['verdict_after']:>14} {r['n_deals']:>8}")
    out_band = [e for e in b.edits if e.get("outside_band")]
    if out_band:
        lines += ["", "Errata outside their level's band (said why):"]
        lines += [f"  {e['card']}: {e['field']} {e['new']} is {e['outside_band']}"
                  for e in out_band]
    if b.unconfirmed:
        lines += ["", "Candidates the confirmation did not confirm (not proposed; not applied):"]
        lines += [f"  {e['card']}: {e['field']} {e['old']} -> {e['new']}: {e['why']}"
                  for e in b.unconfirmed]
    if b.candidates:
        lines += ["", "The races (per target: the number raced, the value chosen, its pooled "
                      "values on the race's deals ±2 SE, the values that also pass):"]
        lines += [_race_line(t, counts) for t in b.candidates]
    cf = b.confirm
    if len(cf):
        lines += ["", "Confirmation, every card considered (verdicts before -> after):"]
        for p in counts:
            sub = cf[cf["players"] == p]
            cnt = lambda col: ", ".join(f"{(sub[col] == v).sum()} {v}" for v in  # noqa: E731
                                        ("over", "under", "balanced", "inconclusive"))
            lines.append(f"  {p}p ({int(sub['n_deals'].iloc[0])} deals): {cnt('verdict_before')}"
                         f" -> {cnt('verdict_after')}")
        moved = cf[(cf["verdict_before"] != cf["verdict_after"]) | cf["edited"]]
        for _, r in moved.iterrows():
            if nat:
                nums = {w: f"{_pp(r[f'natural_{w}'])} {_ci(r[f'natural_{w}_lo'], r[f'natural_{w}_hi'])}"
                           f" / {_pp(r[f'strength_{w}'])}" for w in ("before", "after")}
            else:
                nums = {w: f"{_pp(r[f'strength_{w}'])} {_ci(r[f'strength_{w}_lo'], r[f'strength_{w}_hi'])}"
                        for w in ("before", "after")}
            lines.append(f"  {'* ' if r['edited'] else ''}{r['card']} ({r['players']}p): "
                         f"{r['verdict_before']} {nums['before']} -> "
                         f"{r['verdict_after']} {nums['after']}, n={r['n_deals']} deals")
    sl = summary_lines(b)
    if sl:
        lines += ["", "What it did not do:"] + [f"  {s}" for s in sl]
    else:
        lines += ["", "Every card considered is shown balanced at every player count."]
    return "\n".join(lines)



def plot_convergence(b):
    """Per target card: max |strength| over the counts at each search step against the
    games spent so far; the ±margin band.  ``b``: a :class:`Balance` or its
    :meth:`~Balance.to_json` (a bundled result)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    trace, margin = ((b.trace, b.config["margin"]) if isinstance(b, Balance)
                     else (b["trace"], b["margin"]))
    # "gap": the distance from balanced (_gap); a result of the first design has
    # "max_abs_strength", the same quantity for the "prefer" estimand
    trace = [{**t, "gap": t.get("gap", t.get("max_abs_strength"))} for t in trace]
    fig, ax = plt.subplots(figsize=(7, 4))
    t = pd.DataFrame(trace)
    if len(t):
        colours = plt.cm.tab20.colors               # distinct for up to 20 cards
        for i, (card, sub) in enumerate(t.groupby("card", sort=False)):
            ax.plot(sub["games"], 100 * sub["gap"], marker="o", label=card,
                    color=colours[i % len(colours)], ls="-" if i < 20 else "--")
        ax.legend(fontsize=7)
    ax.axhline(100 * margin, color="grey", ls="--", lw=1)
    ax.set_xlabel("games played (search, then confirmation)")
    ax.set_ylabel("distance from balanced, max over player counts (pp)")
    ax.set_title("balance: convergence of the proposed edits")
    return fig
