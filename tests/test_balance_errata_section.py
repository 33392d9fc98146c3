"""The Mystic Vale report's "Proposed errata" section reads the bundled balance result
(vale_sim/games/mystic_vale/data/balance/core-2p.json; docs/balance.md): the errata
table with intervals and n, the convergence figure, verdicts kept apart by where the
card's numbers come from, the command that made it; another card set is not given
core's errata."""
from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt

from vale_sim.games import get_game
from vale_sim.games.mystic_vale import report as E


class Ctx:
    def __init__(self, cs):
        self.cs = cs

    def card_set(self):
        return self.cs


def _core():
    g = get_game("mystic-vale")
    return g.load_card_set("core")


def test_the_bundled_result_is_core_at_two_players_with_the_defaults():
    from vale_sim.balance import DEFAULT_FIELDS
    res = E.load_bundled_errata()
    assert res["card_set"] == "core" and res["players"] == [2]
    assert res["fields"] == list(DEFAULT_FIELDS) and res["margin"] == 0.02
    assert res["digest"] == _core().digest()          # made from today's core
    assert res["confirm_seed"] not in res["search_seeds"]
    assert len(res["cards"]) == len(list(get_game("mystic-vale").strength_cards(_core())))


def test_the_section_has_the_errata_table_figure_and_separate_verdicts():
    res = E.load_bundled_errata()
    s = E.section_errata(Ctx(_core()))
    t = s.tables["errata"]
    assert len(t) == len(res["edits"]) * len(res["players"])
    for r in t.to_dict("records"):
        for w in ("before", "after"):          # named so the report shows them in pp
            assert r[f"lo ({w})"] <= r[f"strength ({w})"] <= r[f"hi ({w})"]
        assert r["n_deals"] == res["confirm_games"] // 2
        assert r["card_numbers"] in ("printed", "estimated", "model")
        assert r["card_type"] == ("model" if r["card_numbers"] == "model" else "printed")
        assert r["source_of_number"] != "?"
    from vale_sim.report.rendering import _unit
    assert _unit("errata", "strength (after)") == _unit("errata", "lo (before)") == "+pp"
    heads = [h for h, _ in s.bullets]
    assert any(h.startswith("Verdicts on printed numbers") for h in heads)
    assert any(h.startswith("Verdicts on estimated numbers") for h in heads)
    assert any(h.startswith("Verdicts on model cards") for h in heads)
    assert E.ERRATA_COMMAND.split(" >")[0] in " ".join(s.paragraphs)
    (name, fig, caption), = s.figures
    plt.close(fig)                       # the section's caller owns its figures
    assert name == "errata_convergence" and fig.axes[0].lines


def test_another_card_set_does_not_get_core_errata():
    cs = _core()
    other = dataclasses.replace(cs, name="my-set")
    s = E.section_errata(Ctx(other))
    assert not s.tables and "not shown" in s.paragraphs[0]


def test_the_section_says_the_set_is_the_refit_of_core_unfitted():
    """The bundled refit (core-2p-estimated.json) was made from core-unfitted and its
    patched set is core: the section says so on core, and not on core-unfitted (whose
    digest is not the refit's)."""
    s = E.section_errata(Ctx(_core()))
    for _, fig, _ in s.figures:          # the section's caller owns its figures
        plt.close(fig)
    text = " ".join(s.paragraphs)
    assert "The estimated numbers are refit." in text and "`core-unfitted`" in text
    assert E._fitted_paragraph(get_game("mystic-vale").load_card_set("core-unfitted")) is None
