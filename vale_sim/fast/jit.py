"""``kernel``: the one numba decorator of the fast engine (its options in one place).

``_nrt=False`` compiles without numba's reference-counting runtime.  The kernels
never allocate: every array comes from the caller, which holds it for the whole
call.  With the runtime, each njit -> njit call that LLVM does not inline made
six calls to ``NRT_incref`` / ``NRT_decref`` for its three array arguments, about a
fifth of the engine's time.  A kernel compiled this way cannot create arrays
(``np.zeros`` and the like); numba refuses at compile time.
"""
from __future__ import annotations

from numba import njit


def kernel(fn):
    """``njit`` with the fast engine's options: cached, no reference counting."""
    return njit(cache=True, _nrt=False)(fn)
