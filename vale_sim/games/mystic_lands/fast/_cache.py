"""numba's on-disk cache is keyed on each function's own source file only; the
kernels of this package compile in constants and helpers of ``tables``,
``vale_sim.kernels.rng``/``jit`` and the vocabularies of ``cards``.  Whenever any of
those files changes, drop this package's cache files (as ``vale_sim.kernels.jit``
does for Mystic Vale's engine)."""
from __future__ import annotations

import hashlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the files whose code or constants the kernels compile in
SOURCES = [HERE / "engine.py", HERE / "tables.py", HERE.parent / "cards.py",
           HERE.parents[2] / "kernels" / "rng.py", HERE.parents[2] / "kernels" / "jit.py"]


def sources_digest() -> str:
    h = hashlib.sha256()
    for p in SOURCES:
        h.update(p.name.encode())
        try:
            h.update(p.read_bytes())
        except OSError:
            pass
    return h.hexdigest()[:16]


def drop_stale_cache(cache_dir: Path = HERE / "__pycache__") -> bool:
    stamp = cache_dir / "numba-sources.stamp"
    digest = sources_digest()
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    dropped = False
    for f in list(cache_dir.glob("*.nbi")) + list(cache_dir.glob("*.nbc")):
        try:
            f.unlink()
            dropped = True
        except OSError:
            pass
    try:
        cache_dir.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass
    return dropped
