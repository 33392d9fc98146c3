"""One tab's card set: the loaded set, the edits made in the table, and what the
pages show and download (docs/workbench.md, "Cards").

Every number of the table carries its source (the card file's ``source`` /
``sources``); an edited number's source becomes ``user`` (``balance`` when it
came from the Balance page's errata).  An edit goes through the game's own
``Game.edit_card`` -- the checks of ``vale-sim what-if --edit`` -- so a bad value
is refused with one line naming the card, the field and why.  A set that can no
longer be played at some player count is said too (``Game.validate_playable``).
"""
from __future__ import annotations

import json
import re
import tempfile
import threading
import uuid
from pathlib import Path

from ..games import get_game
from ..inputs import InputFileError, parse_int, parse_toml

MAX_UPLOAD_BYTES = 2_000_000
UPLOAD_SUFFIXES = (".toml", ".csv")


class WorkbenchError(ValueError):
    """A request the workbench refuses: one line for the page (no traceback)."""


def one_line(e: BaseException) -> str:
    """The first line of an error's text (never a traceback)."""
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


def _edit_problem(e: BaseException, card: str, fld: str) -> str:
    """A card-set error of an edit as the page says it: ``card, field: problem (fix)``."""
    problem = getattr(e, "problem", None)
    if problem:
        fix = getattr(e, "fix", "")
        return f"{card}, {fld}: {problem}" + (f" ({fix})" if fix else "")
    text = one_line(e)
    text = re.sub(r"^--edit [^:]*: ", "", text)
    return f"{card}, {fld}: {text}"


class Workspace:
    """The card set of one browser tab (``id``): ``base`` (as loaded) and ``edits``
    ({(card, field): {"value", "source", "old"}}, in the order made), ``current``
    the base with the edits applied."""

    def __init__(self, game, tmpdir: Path):
        self.id = uuid.uuid4().hex
        self.game = get_game(game)
        self.tmpdir = Path(tmpdir)
        self.lock = threading.RLock()
        self.edits: dict = {}
        self.load_bundled(self.game.default_card_set)

    # -- loading ------------------------------------------------------------
    def _set(self, cs, label: str, path: Path | None, text: str | None):
        self.base, self.label, self.path, self.text = cs, label, path, text
        self.edits = {}
        self.current = cs
        self._editable = None

    def load_bundled(self, name: str) -> None:
        g = self.game
        sets = g.bundled_card_sets()
        if name not in sets:
            raise WorkbenchError(f"unknown bundled card set {name!r}: use one of "
                                 f"{', '.join(sets)}")
        cs = g.load_card_set(name)
        path = Path(sets[name])
        text = path.read_text(encoding="utf-8") if path.suffix == ".toml" else None
        with self.lock:
            self._set(cs, name, path, text)

    def load_upload(self, filename: str, data: bytes) -> None:
        """A card file sent from the page: TOML or CSV, at most MAX_UPLOAD_BYTES;
        the game's one-line error (naming the file by its name) when it is not a
        card set the game can read."""
        g = self.game
        name = Path(str(filename or "upload")).name or "upload"
        suffix = Path(name).suffix.lower()
        if suffix not in UPLOAD_SUFFIXES:
            raise WorkbenchError(f"{name}: not a card file (give a .toml or .csv card set)")
        if len(data) > MAX_UPLOAD_BYTES:
            raise WorkbenchError(f"{name}: larger than the limit of {MAX_UPLOAD_BYTES:,} bytes "
                                 f"(give a card set file)")
        if not data.strip():
            raise WorkbenchError(f"{name}: the file is empty (give a card set file)")
        folder = Path(tempfile.mkdtemp(prefix="upload-", dir=self.tmpdir))
        path = folder / name
        path.write_bytes(data)
        try:
            cs = g.load_card_set(str(path))
        except Exception as e:                          # noqa: BLE001 -- any reader error
            msg = one_line(e).replace(str(path), name).replace(str(folder) + "/", "")
            raise WorkbenchError(msg) from None
        try:
            text = data.decode("utf-8-sig") if suffix == ".toml" else None
        except UnicodeDecodeError:
            text = None
        with self.lock:
            self._set(cs, name, path, text)

    # -- the table ------------------------------------------------------------
    def _cards_json(self, cs) -> list[dict]:
        g = self.game
        if g.describe_cards is None:
            return []
        return g.describe_cards(cs, as_json=True)["cards"]

    def editable(self) -> set:
        """(card, field) pairs the game lets an edit change (probing ``Game.edit_card``
        with a change of 0 on the loaded set)."""
        if self._editable is None:
            g, out = self.game, set()
            if g.edit_card is not None:
                for c in self._cards_json(self.base):
                    for f in c["numbers"]:
                        try:
                            g.edit_card(self.base, c["name"], f, 0, True)
                        except Exception:               # noqa: BLE001 -- not editable
                            continue
                        out.add((c["name"], f))
            self._editable = out
        return self._editable

    def problems(self) -> list[str]:
        """Why the current set cannot be played at a player count (one line each)."""
        out = []
        for p in self.game.players:
            try:
                self.game.validate_playable(self.current, p)
            except Exception as e:                      # noqa: BLE001 -- the game's error
                out.append(f"{p} players: {one_line(e)}")
        return out

    def table(self) -> dict:
        with self.lock:
            editable = self.editable()
            # the cards a player buys: each has a price curve (vale_sim.curve)
            g = self.game
            buys = ({c[0] for c in g.strength_cards(self.current)}
                    if g.strength_cards is not None and g.edit_card is not None else set())
            base = {(c["type"], c["name"]): c for c in self._cards_json(self.base)}
            rows = []
            for c in self._cards_json(self.current):
                b = base.get((c["type"], c["name"]), c)
                nums = []
                for f, v in c["numbers"].items():
                    e = self.edits.get((c["name"], f)) if c["type"] != "starting" else None
                    nums.append({"field": f, "value": v["value"],
                                 "source": e["source"] if e else v["source"],
                                 "loaded": b["numbers"].get(f, v)["value"],
                                 "editable": (c["name"], f) in editable
                                 and c["type"] != "starting"})
                rows.append({"type": c["type"], "name": c["name"], "source": c["source"],
                             "numbers": nums,
                             "curve": c["name"] in buys and any(n["editable"] for n in nums)})
            counts: dict = {}
            for r in rows:
                for n in r["numbers"]:
                    counts[n["source"]] = counts.get(n["source"], 0) + 1
            return {"game": self.game.name, "title": self.game.title, "set": self.label,
                    "set_name": self.current.name, "digest": self.current.digest(),
                    "bundled": list(self.game.bundled_card_sets()), "cards": rows,
                    "edits": self.edit_list(), "numbers_by_source": counts,
                    "problems": self.problems(),
                    "downloads": self.downloads()}

    def edit_list(self) -> list[dict]:
        return [{"card": c, "field": f, "old": e["old"], "new": e["value"], "source": e["source"],
                 "edit": f"{c}.{f}={e['value']}"} for (c, f), e in self.edits.items()]

    # -- edits ------------------------------------------------------------------
    def _rebuild(self, edits: dict):
        g, cs = self.game, self.base
        for (c, f), e in edits.items():
            cs, _, _ = g.edit_card(cs, c, f, e["value"], False)
        return cs

    def edit(self, card: str, fld: str, value, source: str = "user") -> dict:
        """Set number ``fld`` of ``card`` to ``value`` (a whole number, as typed).
        WorkbenchError naming the cell and why when the game refuses it; the table
        is unchanged then."""
        g = self.game
        card, fld = str(card), str(fld)
        if g.edit_card is None:
            raise WorkbenchError(f"{g.title} has no card edits")
        try:
            v = parse_int(str(value))
        except ValueError:
            raise WorkbenchError(f"{card}, {fld}: {str(value).strip()!r} is not a whole number "
                                 f"(type a number such as 3)") from None
        with self.lock:
            try:                                  # the game's own checks of one edit
                _, old, _ = g.edit_card(self.base, card, fld, v, False)
            except Exception as e:                # noqa: BLE001 -- the game's card-set error
                raise WorkbenchError(_edit_problem(e, card, fld)) from None
            edits = dict(self.edits)
            edits.pop((card, fld), None)
            if v != old:
                edits[(card, fld)] = {"value": v, "source": source, "old": old}
            try:                                  # and of the set with every edit
                cs = self._rebuild(edits)
            except Exception as e:                # noqa: BLE001
                raise WorkbenchError(_edit_problem(e, card, fld)) from None
            self.edits, self.current = edits, cs
        return {"card": card, "field": fld, "old": old, "new": v}

    def apply(self, edits, source: str = "user") -> list[dict]:
        """Several edits at once (the Balance page's errata): all or none."""
        with self.lock:
            saved = (dict(self.edits), self.current)
            done = []
            try:
                for e in edits:
                    done.append(self.edit(e.get("card", ""), e.get("field", ""),
                                          e.get("new", ""), source))
            except Exception:
                self.edits, self.current = saved
                raise
            return done

    def reset(self) -> None:
        with self.lock:
            self.edits, self.current = {}, self.base

    # -- downloads ----------------------------------------------------------------
    def downloads(self) -> list[str]:
        out = []
        if self.text is not None:
            out.append("toml")
        if self.game.export_cards is not None:
            out.append("csv")
        out.append("edits")
        return out

    def stem(self) -> str:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(self.current.name)).strip("-") or "cards"
        return name + ("-edited" if self.edits else "")

    def edits_toml(self) -> str:
        """The edits as an edits file (``vale-sim what-if --edits`` reads it)."""
        lines = [f"# vale-sim serve: {len(self.edits)} edit(s) of card set "
                 f"{self.current.name!r} (docs/what-if.md, edits files)"]
        by: dict = {}
        for (c, f), e in self.edits.items():
            by.setdefault(c, []).append(f"{f} = {e['value']}  # was {e['old']}")
        for c, ls in by.items():
            lines += ["", f"[cards.{json.dumps(c)}]"] + ls
        return "\n".join(lines) + "\n"

    def csv_bytes(self) -> bytes:
        g = self.game
        if g.export_cards is None:
            raise WorkbenchError(f"{g.title} card sets have no CSV form; download TOML or the "
                                 f"edits file")
        folder = Path(tempfile.mkdtemp(prefix="csv-", dir=self.tmpdir))
        path = folder / f"{self.stem()}.csv"
        g.export_cards(self.current, path)
        return path.read_bytes()

    def toml_text(self) -> str:
        """The loaded TOML card file with the edited numbers and their sources set
        (every other line kept); checked by reading it back with the game's
        loader: every number must come back as the table shows it."""
        if self.text is None:
            raise WorkbenchError("the loaded card set is not a TOML file; download CSV or the "
                                 "edits file")
        with self.lock:
            edits, current = dict(self.edits), self.current
        changes = [(c, f, e["value"], e["old"], e["source"]) for (c, f), e in edits.items()]
        cur = {(c["type"], c["name"], f): v for c in self._cards_json(current)
               for f, v in c["numbers"].items()}
        folder = Path(tempfile.mkdtemp(prefix="toml-", dir=self.tmpdir))
        path = folder / f"{self.stem()}.toml"
        for _ in range(3):
            # a number the file leaves to its default (e.g. a cost from the cost curve)
            # follows the edited ones when read back: such numbers are written too
            text = patch_toml(self.text, changes)
            path.write_text(text, encoding="utf-8")
            try:
                back = self.game.load_card_set(str(path))
            except Exception as e:                      # noqa: BLE001
                raise WorkbenchError(f"the edited TOML file does not load ({one_line(e)}); "
                                     f"download the edits file instead") from None
            got = {(c["type"], c["name"], f): v for c in self._cards_json(back)
                   for f, v in c["numbers"].items()}
            bad = [k for k in cur if (got.get(k) or {}).get("value") != cur[k]["value"]]
            if not bad:
                return text
            done = {(c, f) for c, f, *_ in changes}
            pins = [(k[1], k[2], cur[k]["value"], "default", cur[k]["source"]) for k in bad
                    if (k[1], k[2]) not in done and k[0] != "starting"
                    and isinstance(cur[k]["value"], int)]
            if not pins:
                break
            changes += pins
        raise WorkbenchError(f"{bad[0][1]}, {bad[0][2]}: this edit cannot be written into the "
                             f"TOML file; download the edits file instead")


# ---------------------------------------------------------------------------
# Writing edits into a TOML card file (every other line kept)
# ---------------------------------------------------------------------------
_TABLE = re.compile(r"^\s*\[\[\s*([A-Za-z_]+)\s*\]\]\s*(#.*)?$")
_NAME = re.compile(r"^\s*name\s*=\s*(\"(?:[^\"\\]|\\.)*\")\s*(#.*)?$")


def _inline(d: dict) -> str:
    return "{" + ", ".join(f"{k} = {json.dumps(v)}" for k, v in d.items()) + "}"


def _line_of(lines, a, b, key):
    return next((i for i in range(a + 1, b) if re.match(rf"^\s*{re.escape(key)}\s*=", lines[i])),
                None)


def patch_toml(text: str, changes) -> str:
    """``text`` (a card file: ``[[kind]]`` tables) with each change ``(card, field,
    new, old, source)`` written into the table named ``card`` (a starting card's
    table only when no other has the name): ``field = new`` (or the key of an
    inline table, ``cost_animal`` -> ``cost = {animal = ..}``) and ``field`` in its
    ``sources``."""
    lines = text.splitlines()
    starts = [(i, m.group(1)) for i, s in enumerate(lines) if (m := _TABLE.match(s))]
    bounds = [(a, kind, b) for (a, kind), (b, _) in zip(starts, starts[1:] + [(len(lines), "")])]
    blocks: dict = {}
    for a, kind, b in bounds:
        for i in range(a + 1, b):
            m = _NAME.match(lines[i])
            if m:
                blocks.setdefault(json.loads(m.group(1)), []).append((a, b, i, kind))
                break
    inserts: dict = {}
    pending: dict = {}                      # block -> {field: source}, written once per block
    for card, fld, new, old, source in changes:
        cands = blocks.get(card, [])
        cands = [c for c in cands if "start" not in c[3]] or cands
        if not cands:
            raise WorkbenchError(f"{card}: not a table of the TOML file; download the edits file")
        block = cands[0]
        a, b, name_line, _ = block
        hit = _line_of(lines, a, b, fld)
        head, _, key = fld.partition("_")
        sub = _line_of(lines, a, b, head) if key and hit is None else None
        if hit is not None:
            lines[hit] = f"{fld} = {new}  # workbench: was {old}"
        elif sub is not None and "{" in lines[sub] and "}" in lines[sub]:
            raw = lines[sub][:lines[sub].rindex("}") + 1]
            table = parse_toml(raw)[head]
            table[key] = new
            lines[sub] = f"{head} = {_inline(table)}  # workbench: {key} was {old}"
        else:
            inserts.setdefault(name_line, []).append(f"{fld} = {new}  # workbench: was {old}")
        pending.setdefault(block, {})[fld] = source
    for (a, b, name_line, _), srcs in pending.items():
        src_line = _line_of(lines, a, b, "sources")
        if src_line is not None:
            try:
                sources = parse_toml(lines[src_line][:lines[src_line].rindex("}") + 1])["sources"]
            except (InputFileError, ValueError, KeyError):
                raise WorkbenchError(f"its sources span several lines in the TOML file; download "
                                     f"the edits file") from None
            sources.update(srcs)
            lines[src_line] = f"sources = {_inline(sources)}"
        else:
            inserts.setdefault(name_line, []).append(f"sources = {_inline(srcs)}")
    out = []
    for i, s in enumerate(lines):
        out.append(s)
        out.extend(inserts.get(i, []))
    head = (f"# Edited in vale-sim serve: {len(changes)} number(s) changed, each with its source "
            f"(user, or balance for errata applied from the Balance page).")
    return head + "\n" + "\n".join(out) + "\n"
