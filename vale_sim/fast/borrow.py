"""``borrowed(a)``: the same array without its reference count, for calls inside a batch.

numba increments and decrements the reference count (an atomic operation) of
every array argument at every njit -> njit call that LLVM does not inline: a
third of the engine's time went there.  The batch kernel ``play_games`` owns T,
S and Q for its whole run (the caller holds them), so it hands the game kernels
borrowed copies whose meminfo is NULL: numba's ``NRT_incref`` / ``NRT_decref``
return at once on NULL.  A borrowed array must not outlive the call that made
it and must never be returned to Python.
"""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrowed(typingctx, arr):
    """The array ``arr`` (same data, shape, strides) with no owner to count."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        out = context.make_array(sig.return_type)(context, builder, args[0])
        out.meminfo = cgutils.get_null_value(src.meminfo.type)
        out.parent = cgutils.get_null_value(src.parent.type)
        return out._getvalue()

    return arr(arr), codegen
