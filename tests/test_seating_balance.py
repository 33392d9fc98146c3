"""Issue 24 §1: at 3-4 players the order a line-up is listed in must not decide
between identical policies.  Every comparison seats a line-up in every distinct
order (vale_sim.seating.seatings); the cyclic rotations used before fixed who sits
right after whom, and these tests show that design failing where the new one passes
(``test_cyclic_design_fails_*`` swap the old design in)."""
import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import vale_sim.games.mystic_lands.studies.common as C
import vale_sim.tournament as T
import vale_sim.variants as V
from vale_sim import stats
from vale_sim.games.mystic_vale.cards import load_card_set
from vale_sim.games.mystic_vale.policy import get_policy
from vale_sim.seating import (cyclic_rotations, deals_for, follower_counts, is_balanced,
                              position_counts, seatings, slots)

ORIG = "Lifebringer Seed"          # a level-2 card of core (2 copies)
TWIN = "Same twin"                 # identical but for its name


# ---------------------------------------------------------------------------
# The design itself
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lineup,size", [(("a", "b"), 2), (("a", "b", "b"), 3),
                                         (("a", "b", "b", "b"), 4), (("a", "b", "c"), 6),
                                         (("a", "b", "c", "d"), 24), (("a", "b", "c", "c"), 12),
                                         (("a", "a", "b", "b"), 6), (("a", "a", "a"), 1)])
def test_every_distinct_order_balanced_and_independent_of_listing(lineup, size):
    design = seatings(lineup)
    assert len(design) == size == len(set(design))
    assert is_balanced(design)
    # the same list, in the same order, however the line-up is listed
    for order in itertools.permutations(lineup):
        assert seatings(order) == design
    # each seating holds the line-up's labels, and slots() finds each place once
    for s in design:
        assert sorted(s) == sorted(lineup)
        sl = slots(lineup, s)
        assert sorted(sl) == list(range(len(lineup)))
        assert [lineup[k] for k in sl] == list(s)


def test_followers_and_positions_counted_as_defined():
    design = seatings(("a", "b", "c"))
    fol = follower_counts(design)
    assert set(fol) == {(x, y) for x in "abc" for y in "abc" if x != y}
    assert set(fol.values()) == {3}                # 6 seatings x 3 neighbours / 6 pairs
    assert set(position_counts(design).values()) == {2}
    # the old design: b always sits right after a, never a right after b
    old = cyclic_rotations(("a", "b", "c"))
    assert follower_counts(old)[("a", "b")] == 3 and follower_counts(old)[("b", "a")] == 0
    assert not is_balanced(old) and not is_balanced(cyclic_rotations(("a", "b", "c", "d")))
    # with two labels the rotations were already balanced (and are the seatings)
    assert sorted(cyclic_rotations(("a", "b", "b"))) == seatings(("a", "b", "b"))
    assert deals_for(2600, 6) == 434 and deals_for(1, 24) == 1


# ---------------------------------------------------------------------------
# Tournament: identical policies, exactly
# ---------------------------------------------------------------------------
def _twins():
    bal = get_policy("balanced")
    return replace(bal, name="twin-a"), replace(bal, name="twin-b")


def _by_policy(t) -> pd.DataFrame:
    cols = ["n", "n_deals", "win_rate", "win_lo", "win_hi", "tie_rate", "mean_score",
            "mean_score_lo", "mean_score_hi", "mean_rounds", "spoils_per_turn"]
    return t.table.groupby("policy")[cols].sum().sort_index()


def _renamed_copies_tournament(players):
    a, b = _twins()
    others = ["greedy", "cautious"][:players - 2]
    return T.tournament(others + [a, b], players=players, games=24 * 8, seed=3,
                        mode="round-robin")


@pytest.mark.parametrize("players", [3, 4])
def test_renamed_copies_get_identical_estimates(players):
    # two copies of one policy that differ only in name play the same games with
    # their labels swapped in the swapped seating: every estimate must be equal
    t = _renamed_copies_tournament(players)
    assert t.config["seatings_per_deal"] == (6 if players == 3 else 24)
    assert t.config["games_per_matchup"] == t.config["deals"] * t.config["seatings_per_deal"]
    tab = _by_policy(t)
    pd.testing.assert_series_equal(tab.loc["twin-a"], tab.loc["twin-b"], check_names=False,
                                   rtol=1e-12)
    rk = t.ranking.set_index("name")
    for col in ("strength", "lo", "hi"):
        assert rk.loc["twin-a", col] == pytest.approx(rk.loc["twin-b", col], abs=1e-9)
    seats = t.seats.set_index(["policy", "seat"])["win_rate"]
    for s in range(1, players + 1):
        assert seats[("twin-a", s)] == pytest.approx(seats[("twin-b", s)], abs=1e-12)


@pytest.mark.parametrize("players", [3, 4])
def test_reversed_listing_gives_the_same_estimates(players):
    pols = ["balanced", "greedy", "cautious", "vp-rush"][:players]
    fwd = T.tournament(pols, players=players, games=24 * 6, seed=5, mode="round-robin")
    rev = T.tournament(pols[::-1], players=players, games=24 * 6, seed=5, mode="round-robin")
    pd.testing.assert_frame_equal(_by_policy(fwd), _by_policy(rev), rtol=1e-12)
    key = ["policy", "seat"]
    pd.testing.assert_frame_equal(fwd.seats.sort_values(key, ignore_index=True),
                                  rev.seats.sort_values(key, ignore_index=True), rtol=1e-12)
    a = fwd.ranking.set_index("name")
    b = rev.ranking.set_index("name").loc[a.index]
    pd.testing.assert_frame_equal(a[["strength", "lo", "hi", "comparisons"]],
                                  b[["strength", "lo", "hi", "comparisons"]], atol=1e-9)


# ---------------------------------------------------------------------------
# The estimate of the gap between mirrored policies covers 0 about 95% of the time
# ---------------------------------------------------------------------------
def mirrored(players):
    """(card set, policies): "A" prefers Lifebringer Seed and never buys its twin, "B"
    the mirror image; the others buy neither.  Relabelling the two cards swaps A and
    B, so in a design symmetric in A and B their true strengths are equal."""
    core = load_card_set("core")
    orig = core.advancements[core.advancement_id(ORIG)]
    cs = replace(core, name="core+same-twin",
                 advancements=core.advancements + (replace(orig, name=TWIN),))
    from vale_sim.games.mystic_vale.strength import prefer_policy
    a = replace(prefer_policy(ORIG), name="A", never=(TWIN,))
    b = replace(prefer_policy(TWIN), name="B", never=(ORIG,))
    others = [replace(get_policy(n), name=n, never=(ORIG, TWIN)) for n in ("greedy", "cautious")]
    return cs, [a, b] + others[:players - 2]


def gap_intervals(t, block: int):
    """Per block of ``block`` deals: A minus B, per deal the mean over seatings, paired t."""
    f = t.frame
    per = f.groupby(["policy", "game"])["win_share"].mean().unstack("policy")
    d = per["A"] - per["B"]
    out = []
    for _, g in d.groupby(d.index.to_numpy() // block):
        e = stats.paired_difference(g.to_numpy(), np.zeros(len(g)))
        out.append((e.mean, e.lo, e.hi))
    return np.array(out)


@pytest.mark.parametrize("players,reps,block", [(3, 200, 30), (4, 60, 20)])
def test_gap_between_mirrored_policies_covers_zero(players, reps, block):
    cs, pols = mirrored(players)
    per_deal = len(T.seatings(tuple(p.name for p in pols)))
    t = T.tournament(pols, players=players, games=per_deal * reps * block, seed=11,
                     card_set=cs, mode="round-robin")
    iv = gap_intervals(t, block)
    assert len(iv) == reps
    cover = np.mean((iv[:, 1] <= 0) & (0 <= iv[:, 2]))
    # 95% nominal; binomial sd ~1.5 pp at 200 reps, ~2.8 pp at 60
    assert 0.86 <= cover <= 1.0, cover


# ---------------------------------------------------------------------------
# The old design fails the same checks (so the checks above can fail)
# ---------------------------------------------------------------------------
@pytest.fixture
def cyclic(monkeypatch):
    monkeypatch.setattr(T, "seatings", cyclic_rotations)
    monkeypatch.setattr(V, "seatings", cyclic_rotations)     # play_variants' design


@pytest.mark.parametrize("players", [3, 4])
def test_cyclic_design_fails_identical_copies_and_reversal(cyclic, players):
    tab = _by_policy(_renamed_copies_tournament(players))
    assert tab.loc["twin-a", "win_rate"] != tab.loc["twin-b", "win_rate"]
    pols = ["balanced", "greedy", "cautious", "vp-rush"][:players]
    fwd = T.tournament(pols, players=players, games=24 * 6, seed=5, mode="round-robin")
    rev = T.tournament(pols[::-1], players=players, games=24 * 6, seed=5, mode="round-robin")
    assert not np.allclose(_by_policy(fwd)["win_rate"], _by_policy(rev)["win_rate"])


# ---------------------------------------------------------------------------
# Mystic Lands studies: play_variants seats a line-up the same way
# ---------------------------------------------------------------------------
ML_LINEUP = ("balanced", "greedy", "spirit", "vp")


def _ml_policies(lineup, deals=4):
    from vale_sim.games.mystic_lands.studies.lands import policy_table
    rules = {"manual": C.variant_rules({})}
    df = C.play_variants(rules, 4, deals, 2, lineup, rotate=True, engine="auto", progress=False)
    return df, policy_table(df, 4, rules).set_index("policy").sort_index()


def test_lands_lineup_order_does_not_matter():
    df, fwd = _ml_policies(ML_LINEUP)
    assert df.groupby("deal")["rotation"].nunique().eq(24).all()
    # slot: the place in the listed line-up, so the policy of a slot is fixed
    assert (df["policy"].to_numpy() == np.array(ML_LINEUP)[df["slot"].to_numpy()]).all()
    _, rev = _ml_policies(ML_LINEUP[::-1])
    pd.testing.assert_frame_equal(fwd, rev, rtol=1e-12)


def test_lands_cyclic_design_depends_on_order(cyclic):
    _, fwd = _ml_policies(ML_LINEUP)
    _, rev = _ml_policies(ML_LINEUP[::-1])
    assert not np.allclose(fwd["win_rate"], rev["win_rate"])


def test_focal_role_is_seated_through_every_seat_in_a_mirror():
    # the value of Rain plays a focal player who may play the field's own policy:
    # roles keep it one player, seated at every index
    rules = {"manual": C.variant_rules({})}
    df = C.play_variants(rules, 3, 2, 1, ("balanced",) * 3, rotate=True, engine="auto",
                         progress=False, roles=("focal", "field", "field"))
    focal = df[df["slot"] == 0]
    assert sorted(focal["player"].unique()) == [0, 1, 2]
    assert len(focal) == 3 * 2
    with pytest.raises(C.StudyError, match="share the role"):
        C.lineup_roles(("balanced", "greedy"), ("x", "x"))
