"""A report's ``manifest.json``: everything needed to reproduce it."""
from __future__ import annotations

import sys

def _manifest(ctx, started, seconds: float) -> dict:
    from vale_sim.store import card_set_info, code_version
    s = ctx.settings
    return {"created": started.isoformat(timespec="seconds"), "seconds": round(seconds, 1),
            "size": s.size, "engine": s.engine, "seed": s.seed, "code": code_version(),
            "card_set": card_set_info(ctx.card_set(), ctx.game), "python": sys.version.split()[0],
            "section_seconds": {k: round(v, 1) for k, v in ctx.timings.items()},
            "games": s.games(),
            "robust_baseline": getattr(s, "robust_baseline", None),
            "game": ctx.game, "settings": s.to_dict()}


REPORT_MANIFEST = "manifest.json"
#: What build_report writes into its folder (anything else there is not replaced).
REPORT_ENTRIES = frozenset({"index.html", "report.md", REPORT_MANIFEST, "figures", "tables"})
