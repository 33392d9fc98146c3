"""Seating designs: how one deal is played by a line-up, seating by seating.

    seatings(("a", "b", "c"))        # the 6 orders of three distinct policies
    seatings(("focal", "field", "field"))   # 3: the focal player at every player index
    deals_for(2600, len(seatings(lineup)))  # deals that give at least 2,600 games

A line-up is a multiset of labels (policy names, or roles such as "focal"):
labels that are equal are interchangeable players, labels that differ are
different policies.  Every comparison that seats different policies plays each
deal once per seating of :func:`seatings`: **every distinct ordering of the
multiset** (docs/statistics.md §2.2), in one canonical order (sorted), so

* every label sits at every player index equally often, and hence in every
  seat (seat 1 = the starting player, drawn per deal and the same for every
  seating of the deal);
* every label sits immediately after (and before) every other label equally
  often, cyclically, in proportion to their copies: who plays right after whom
  is balanced, not fixed by the order the user listed the policies in;
* the design depends on the multiset only, never on the listing order: a line-up
  listed in another order plays the same games, in the same order.

At 2 players, or one focal label against copies of one other, the design is the
set of cyclic rotations (2, 3 or 4 seatings).  Three distinct labels give 3! = 6
seatings and four give 4! = 24 (with copies: ``n! / prod(copies!)``).  The
cyclic rotations of three or four distinct labels (:func:`cyclic_rotations`, the
design before this module) fix who follows whom: in the rotations of
``(a, b, c)`` ``b`` always sits right after ``a``, and two identical policies
``b`` and ``c`` are seated differently relative to ``a`` -- their estimates
differ by the seating alone (issue 24 §1).  Smaller balanced designs exist
(at four distinct labels 12 of the 24 seatings suffice for seats and
followers; there are 48 such halves); the full set is used because it needs no
choice among them, is canonical by construction, and also balances who sits
opposite whom and at which player indexes each neighbouring pair sits.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter

__all__ = ["seatings", "cyclic_rotations", "deals_for", "slots", "follower_counts",
           "position_counts", "is_balanced"]


def seatings(lineup) -> list[tuple]:
    """Every distinct ordering of the multiset ``lineup`` (one label per player:
    strings, or any mutually comparable hashable labels), sorted: one tuple per
    seating, player index ``j`` taking label ``seating[j]``.

    The result depends only on the multiset: any listing order of the same
    labels gives the same list.  ``len(seatings(x)) == n! / prod(copies!)``."""
    labels = tuple(lineup)
    if not labels:
        raise ValueError("a line-up needs at least one player")
    try:
        return sorted(set(itertools.permutations(labels)))
    except TypeError:
        raise ValueError(f"seating labels must be comparable (e.g. all strings), got "
                         f"{labels!r}") from None


def cyclic_rotations(lineup) -> list[tuple]:
    """The cyclic rotations of a line-up in its listed order: rotation ``r`` puts
    ``lineup[j]`` at player index ``(j + r) % n``.  The design before issue 24
    §1; balanced only when at most two labels differ.  Kept for comparison (the
    tests show its order dependence) and for :func:`vale_sim.tournament.rotations`."""
    n = len(lineup)
    return [tuple(lineup[(j - r) % n] for j in range(n)) for r in range(n)]


def deals_for(games: int, n_seatings: int) -> int:
    """Deals that give at least ``games`` games when every deal is played once per
    seating: ``ceil(games / n_seatings)`` (at least 1)."""
    return max(1, math.ceil(games / n_seatings))


def slots(lineup, seating) -> list[int]:
    """For each player index of ``seating``, the index in ``lineup`` of the
    player it is: copies of a label take that label's listed places in order."""
    free: dict = {}
    for i, lab in enumerate(lineup):
        free.setdefault(lab, []).append(i)
    taken = Counter()
    out = []
    for lab in seating:
        out.append(free[lab][taken[lab]])
        taken[lab] += 1
    return out


def follower_counts(design) -> Counter:
    """``(a, b)`` -> how often label ``b`` sits immediately after label ``a``
    (player index ``j + 1`` after ``j``, cyclically), over the seatings of
    ``design``; pairs of equal labels are left out."""
    c = Counter()
    for s in design:
        n = len(s)
        for j in range(n):
            a, b = s[j], s[(j + 1) % n]
            if a != b and n > 1:
                c[(a, b)] += 1
    return c


def position_counts(design) -> Counter:
    """``(label, j)`` -> how often ``label`` sits at player index ``j``."""
    return Counter((lab, j) for s in design for j, lab in enumerate(s))


def is_balanced(design) -> bool:
    """Whether ``design`` seats every label at every player index equally often
    (per copy) and every label right after every other equally often (per pair
    of copies): the two properties a seating design must have so that the
    listing order of a line-up cannot decide between identical policies."""
    design = list(design)
    if not design:
        return False
    copies = Counter(design[0])
    n = len(design[0])
    pos = position_counts(design)
    per_copy = {pos[(lab, j)] / copies[lab] for lab in copies for j in range(n)}
    if len(per_copy) != 1:
        return False
    fol = follower_counts(design)
    per_pair = {fol[(a, b)] / (copies[a] * copies[b]) for a in copies for b in copies if a != b}
    return len(per_pair) <= 1
