"""The layout of a fast engine's state: every game keeps its whole game state in ONE
int64 array (rows of cells; offsets are module constants of its ``fast/state.py``,
which numba compiles in).  What both engines do alike: lay blocks of cells one after
another (:func:`blocks`) and allocate the array (:func:`state_array`).  Pure Python
and numpy: importing it imports no numba."""
from __future__ import annotations

import numpy as np


def blocks(start: int, *sizes: int) -> tuple[int, ...]:
    """Where consecutive blocks of ``sizes`` cells begin, from cell ``start``, then the
    cell after the last block: ``blocks(10, 3, 5) == (10, 13, 18)``, so
    ``A, B, END = blocks(10, 3, 5)`` puts A at 10 (3 cells), B at 13 (5 cells), END
    at 18."""
    out = [int(start)]
    for n in sizes:
        if n < 0:
            raise ValueError(f"a block of {n} cells")
        out.append(out[-1] + int(n))
    return tuple(out)


def state_array(rows: int, width: int, align: int = 1) -> np.ndarray:
    """A zeroed int64 state of ``rows`` rows, ``width`` cells each rounded up to a
    multiple of ``align`` (8: every row starts on a 64-byte boundary)."""
    w = -(-int(width) // align) * align
    return np.zeros((rows, w), dtype=np.int64)
