"""The bundled mystic-lands is the refit of mystic-lands-unfitted (docs/balance.md, "The
fitted sets"): the two sets differ only in the numbers the bundled refit passes edited,
each refit number has the pass's value, keeps the source "estimate" and says so in its
comment.  (The pre-refit set keeps every estimate on the curves: tests/test_ml_cards.py.)"""
from __future__ import annotations

import dataclasses
import json
import re

import pytest

from vale_sim.games.mystic_lands import cards as C
from vale_sim.games.mystic_lands.studies import fill_in

DATA = fill_in.BUNDLED.parents[1]


@pytest.fixture(scope="module")
def sets():
    return C.load_card_set("mystic-lands"), C.load_card_set("mystic-lands-unfitted")


def _final_edits():
    """(card, field) -> the last pass's value, checking that the passes chain."""
    final = {}
    for path in fill_in.CARDS_PASSES:
        for e in json.loads(path.read_text())["errata"]:
            k = (e["card"], e["field"])
            if k in final:
                assert final[k] == e["printed"], (path.name, k)   # the pass before's value
            final[k] = e["proposed"]
    return final


def test_the_refit_differs_from_the_unfitted_set_only_in_the_edited_numbers(sets):
    fitted, unfitted = sets
    final = _final_edits()
    assert fitted.starting == unfitted.starting and fitted.map == unfitted.map
    changed = {}
    for a, b in zip(list(fitted.advances) + list(fitted.vales),
                    list(unfitted.advances) + list(unfitted.vales), strict=True):
        assert a.name == b.name
        for f in dataclasses.fields(a):
            if f.name != "sources" and getattr(a, f.name) != getattr(b, f.name):
                changed[(a.name, f.name)] = getattr(a, f.name)
        for f in ("cost", "end_vp"):
            assert a.source_of(f) == b.source_of(f), (a.name, f)   # still "estimate"
    assert changed == {k: v for k, v in final.items()
                       if v != getattr(unfitted.advances[unfitted.advance_id(k[0])]
                                       if k[0] in {x.name for x in unfitted.advances}
                                       else unfitted.vales[unfitted.vale_id(k[0])], k[1])}
    assert all(fitted.advances[fitted.advance_id(c)].source_of(f) == "estimate"
               if c in {x.name for x in fitted.advances}
               else fitted.vales[fitted.vale_id(c)].source_of(f) == "estimate"
               for c, f in final)


def test_every_refit_number_says_so_in_its_comment():
    text = (DATA / "mystic-lands.toml").read_text()
    fitted_lines = [ln for ln in text.splitlines()
                    if re.match(r"(cost|end_vp) = \d+\s+# estimate, fitted \(", ln)]
    assert len(fitted_lines) == len(_final_edits())
    assert "# estimate, fitted" not in (DATA / "mystic-lands-unfitted.toml").read_text()


def test_the_refit_results_record_the_bundled_set():
    fitted = C.load_card_set("mystic-lands")
    for path in fill_in.CARDS_PASSES:
        res = json.loads(path.read_text())
        assert (res["fitted_set"], res["fitted_digest"]) == ("mystic-lands", fitted.digest())
