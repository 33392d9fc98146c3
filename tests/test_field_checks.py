"""The strongest bundled field of each game held to the checks of issue 36 item 6
(vale_sim.field_checks; docs/statistics.md §5.9), at realistic sizes: 4,000 games per card
and arm (2,000 deals, every seat), the bundled deck sizes, the fast engine, 2 players.

The same checks under the old field (``experiments/field_checks.py --field meta-2p``) fail:
docs/statistics.md §5.9 records both.  Mystic Lands' strongest field (``value-2p``) fails
some of them, as does the field before it (``meta-2p``): those tests are strict xfails
naming what was measured, so that a field that passes them shows up (XPASS fails the run)
and the mark goes.

The card edits themselves (each game's ``field_check_*`` hooks) are checked below without
an engine."""
from __future__ import annotations

from dataclasses import fields, is_dataclass

import pytest

from vale_sim import field_checks as fc
from vale_sim.games import get_game
from vale_sim.strong_field import field_name

SLOW = [pytest.mark.compiled, pytest.mark.slow]
MV, ML = "mystic-vale", "mystic-lands"

# What Mystic Lands' strongest 2-player field, value-2p, was measured to fail (seed 0,
# 4,000 games per card and arm; docs/statistics.md §5.9, Mystic Lands' table, with the
# field before it, meta-2p, which fails them too).
ML_PLANTED_FAILS = (
    "value-2p fails the planted twins (seed 0, 4,000 games per card and arm). Gross twins: "
    "Sun Parrot's reads under (bought in 54% of focal games: natural -17.2 pp, per pick "
    "-31.5 [-33.6, -29.5]; an Advance is always sleeved where it may go, so a +6 end VP "
    "Sun Parrot cannot be kept below the board). Useless twins: Spirit Cave's and Satyr "
    "Home's read balanced (natural -0.7, +0.1 pp; forced -1.5, -0.9 pp; no field reads a "
    "useless Vale under). Rationality: planted cards significantly below 0 (the useless "
    "Morning Mist -6.5, Ent Guardian -6.5 and Sun Parrot -6.2 pp, which it buys; Ent "
    "Guardian itself -1.1 [-2.1, -0.0])")
ML_MONOTONE_FAILS = (
    "value-2p: 5 of 39 better printings read lower (seed 0, 4,000 games per card and arm): "
    "Firefly Glade vp+1 by natural value, -3.1 pp [-4.6, -1.6] (the field buys the better "
    "printing and loses by it); Moss Spirit cost-1 and vp+1, Crystal Spire mana+1 and vp+1 "
    "by verdict rank (over -> inconclusive / balanced, natural differences -0.8 to -0.0 pp, "
    "each interval covering 0: labels near a boundary)")


def _xfail(game, reason):
    return pytest.param(game, marks=pytest.mark.xfail(strict=True, reason=reason))


@pytest.mark.parametrize("game", [MV, _xfail(ML, ML_PLANTED_FAILS)], ids=[MV, ML])
@pytest.mark.compiled
@pytest.mark.slow
def test_planted_twins(game):
    """On the game's planted bases (Mystic Vale: a level-1, level-2 and level-3 card, a vale
    and a Fertile Soil; Mystic Lands: a level 1 and a level 2 Advance, a level 1 and a
    level 2 Vale and a level 1 Advance the fields leave): the +6 end VP twin reads over
    (also where the card is rare: per pick), the useless printing reads under, the
    identical twin's paired difference covers 0, and no card's natural value is
    significantly below 0."""
    seen = fc.planted_run(game, field_name(game, 2), 2, games=4000, seed=0)
    assert [r["card"] for r in seen] == list(fc._game_cards(get_game(game), "PLANTED"))
    for r in seen:
        assert r["gross"] == "over", r
        assert r["useless"] == "under", r
        assert r["same_lo"] < 0 < r["same_hi"], r
        assert r["below_zero"] == 0, r


@pytest.mark.parametrize("game", [MV, _xfail(ML, ML_MONOTONE_FAILS)], ids=[MV, ML])
@pytest.mark.compiled
@pytest.mark.slow
def test_better_printings_never_read_lower(game):
    """Strictly better printings (−1 cost, +1 end VP, +1 mana) across the levels: Mystic
    Vale's 25 of 9 cards (the levels, a vale and a Fertile Soil), Mystic Lands' 39 of 13
    (level 1 and 2 Advances, level 1 and 2 Vales): none reads lower than its original by
    natural value, per-pick value or verdict."""
    run, df, pairs = fc.monotone_run(game, field_name(game, 2), 2, games=4000, seed=0)
    assert len(pairs) >= {MV: 24, ML: 36}[game]
    assert fc.monotone_violations(run, df, pairs) == []


# -- the card edits, without an engine ---------------------------------------------------
def _numbers(x, path="") -> dict:
    """Every integer of a card, by path (``icons.mana``, ``rows.1.vp``); names, texts and
    sources left out."""
    out = {}
    if is_dataclass(x):
        for f in fields(x):
            if f.name not in ("name", "text", "source", "sources"):
                out.update(_numbers(getattr(x, f.name), f"{path}{f.name}."))
    elif isinstance(x, tuple):
        for i, v in enumerate(x):
            out.update(_numbers(v, f"{path}{i}."))
    else:
        out[path.rstrip(".")] = x
    return out


def _changed(a, b) -> dict:
    na, nb = _numbers(a), _numbers(b)
    assert set(na) == set(nb)                       # same rows, effects, icons
    return {k: (na[k], nb[k]) for k in na if na[k] != nb[k]}


def _cards(game, what):
    g = get_game(game)
    cs = g.load_card_set(g.default_card_set)
    return [fc._card(cs, n) for n in fc._game_cards(g, what)]


@pytest.mark.parametrize("game", [MV, ML])
def test_each_better_printing_is_one_number_better(game):
    """Each better printing differs from its original in one number only -- a Mystic Lands
    Vale's end VP or mana is that number on every row -- by one, in the better direction
    (cost down; mana, end VP up), under its own name."""
    seen = 0
    for card in _cards(game, "MONOTONE"):
        for label, better in fc.better_printings(game, card).items():
            assert better.name == f"{card.name} {label}"
            diff = _changed(card, better)
            assert diff, label
            leaf = {k.rsplit(".", 1)[-1] for k in diff}
            assert len(leaf) == 1, (card.name, label, diff)
            assert len(diff) == 1 or all(k.startswith("rows.") for k in diff), diff
            step = -1 if leaf == {"cost"} else 1
            assert all(new - old == step for old, new in diff.values()), (card.name, diff)
            assert label == {"cost": "cost-1", "mana": "mana+1", "end_vp": "vp+1",
                             "vp": "vp+1"}[leaf.pop()]
            seen += 1
    assert seen == {MV: 25, ML: 39}[game]


def test_mystic_lands_lists():
    """Level 1 and 2 Advances and Vales of both levels among the planted bases and the
    better printings' cards; at least 12 cards, 36 printings, and with Mystic Vale's 25
    at least 24 in all and some in each game."""
    from vale_sim.games.mystic_lands import cards as C
    from vale_sim.games.mystic_lands import value as V
    for what in ("PLANTED", "MONOTONE"):
        cards = _cards(ML, what)
        kinds = {(type(c).__name__, c.level) for c in cards}
        assert kinds == {("Advance", 1), ("Advance", 2), ("Vale", 1), ("Vale", 2)}, what
    assert len(V.FIELD_CHECK_MONOTONE) >= 12
    assert all(isinstance(c, (C.Advance, C.Vale)) for c in _cards(ML, "PLANTED"))


def test_mystic_lands_useless_twin_does_nothing():
    """The useless printing keeps the card's cost, level, copies and position and does
    nothing the value features can see (every Advance feature 0; every row of a Vale 0,
    the map's own rewards aside): no icon, no end VP, no effect, no track."""
    from vale_sim.games.mystic_lands import cards as C
    from vale_sim.games.mystic_lands import value as V
    for card in _cards(ML, "PLANTED"):
        u = fc.useless(ML, card)
        assert u.name == f"{card.name} useless" and u.cost == card.cost
        assert (u.level, u.copies) == (card.level, card.copies)
        assert u.effects == ()
        if isinstance(card, C.Advance):
            assert u.position == card.position and u.icons == C.Icons() and u.end_vp == 0
            assert not any(V.adv_features(u))
        else:
            assert len(u.rows) == len(card.rows) and u.track == ()
            assert all(r == C.Row(vp=0) for r in u.rows)
            assert not any(any(V.vale_row_features(u, r)) for r in range(len(u.rows)))


def test_mystic_lands_gross_twin_has_six_more_end_vp():
    """The gross twin: +6 end VP and nothing else (a Vale: +6 on every row, whichever spot
    the cube takes)."""
    from vale_sim.games.mystic_lands import cards as C
    for card in _cards(ML, "PLANTED"):
        g = fc.gross(ML, card)
        assert g.name == f"{card.name} gross"
        diff = _changed(card, g)
        if isinstance(card, C.Advance):
            assert diff == {"end_vp": (card.end_vp, card.end_vp + 6)}
        else:
            assert diff == {f"rows.{i}.vp": (r.vp, r.vp + 6) for i, r in enumerate(card.rows)}


def test_planted_cards_join_the_set_of_their_kind():
    """fc._with adds each planted card to the tuple of its type (Advances, Vales), in
    order, and renames the set; the originals stay."""
    from vale_sim.games.mystic_lands import cards as C
    g = get_game(ML)
    cs = g.load_card_set(g.default_card_set)
    adv, vale = fc._card(cs, "Meadow"), fc._card(cs, "Spirit Cave")
    extra = [fc.gross(ML, vale), fc.useless(ML, adv), fc.gross(ML, adv)]
    out = fc._with(cs, extra, "x")
    assert out.name == f"{cs.name}+x" and out.starting == cs.starting and out.map == cs.map
    assert out.advances == cs.advances + (extra[1], extra[2])
    assert out.vales == cs.vales + (extra[0],)
    assert isinstance(fc._card(out, "Spirit Cave gross"), C.Vale)
