"""The last few tables a fast engine built for a card set (a study plays many short runs of
one card set and a few policies), shared by the games' ``fast/api.py``."""
from __future__ import annotations

#: How many entries each store keeps (the oldest goes first).
KEPT = 16


def kept(store: dict, key, cs, build):
    """``store[key]``'s value if it was built for this very card set ``cs``, else
    ``build()``, kept under ``key`` (the oldest entry dropped past :data:`KEPT`).  The card
    set is held beside the value, so its ``id`` (in ``key``) is not reused while it is
    here.  A key that cannot be hashed (a rule option or policy holding a list) is built
    and not kept."""
    try:
        hit = store.get(key)
    except TypeError:
        return build()
    if hit is not None and hit[0] is cs:
        return hit[1]
    out = build()
    if len(store) >= KEPT:
        del store[next(iter(store))]
    store[key] = (cs, out)
    return out
