"""Plain-text tables of the settings studies (the commands' output): every value
with its 95% interval, every row with its n."""
from __future__ import annotations

import math

import pandas as pd


def iv(row, col: str, k: float = 1.0, d: int = 1, signed: bool = False) -> str:
    """``"12.3 [11.8, 12.9]"`` from ``row[col]``, ``row[col_lo]``, ``row[col_hi]``."""
    v, lo, hi = row.get(col), row.get(f"{col}_lo"), row.get(f"{col}_hi")
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    if signed and v == 0 and lo == 0 and hi == 0:
        return "0 (no deal changed)"          # a paired difference with no spread: not a point
    d = point_digits(v, lo, hi, k, d)
    f = f"{{:+.{d}f}}" if signed else f"{{:.{d}f}}"
    def one(x):
        return "nan" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f.format(k * x)
    return f"{f.format(k * v)} [{one(lo)}, {one(hi)}]"


def point_digits(v, lo, hi, k: float = 1.0, d: int = 1, most: int = 4) -> int:
    """Digits so that an interval that is not a point does not print as one: "100 [100,
    100]" for 99.8% [99.5, 100] becomes "99.8 [99.5, 100.0]" (up to ``most`` digits)."""
    def fin(x):
        return x is not None and isinstance(x, (int, float)) and math.isfinite(x)
    if not (fin(v) and fin(lo) and fin(hi)) or (lo == v == hi):
        return d
    while d < most and len({f"{k * x:.{d}f}" for x in (v, lo, hi)}) == 1:
        d += 1
    return d


def table(df: pd.DataFrame, columns: list[tuple]) -> str:
    """``columns``: (header, function of a row dict -> text)."""
    rows = [[h for h, _ in columns]]
    for r in df.to_dict(orient="records"):
        rows.append([str(fn(r)) for _, fn in columns])
    widths = [max(len(r[i]) for r in rows) for i in range(len(columns))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def seat_text(study) -> str:
    from .seats import sentence
    c = study.config
    sizes = c.get("deals_by_players", {})
    out = [f"Seat compensation: {c['policy']} in every seat, engine {c['engine']}; 95% intervals; "
           f"fair = 1/players, margin ±{100 * c['margin']:.0f} pp, TOST per seat.  Selection: "
           f"every schedule on the same deals of seed {c['seed']} (Holm over schedules); "
           f"confirmation: the manual's schedule and the best other one on fresh deals (seed "
           f"{c.get('confirm_seed')}; Holm over the two).  The verdicts and the gaps of the "
           f"recommendation are the confirmation's.", ""]
    for k in c["players"]:
        n = sizes.get(str(k), {})
        for stage in ("selection", "confirmation"):
            rows = study.seats[(study.seats["players"] == k) & (study.seats["stage"] == stage)]
            sc = study.schedules[(study.schedules["players"] == k)
                                 & (study.schedules["stage"] == stage)]
            nd = n.get("deals" if stage == "selection" else "confirm_deals", "?")
            out.append(f"{k} players, {stage} (n = {nd} deals per schedule)")
            out.append(table(rows, [
                ("schedule", lambda r: r["schedule"]), ("seat", lambda r: r["seat"]),
                ("n", lambda r: r["n_games"]), ("win %", lambda r: iv(r, "win_rate", 100)),
                ("gap pp (90% CI)", lambda r: f"{100 * r['gap']:+.1f} [{100 * r['gap_lo90']:+.1f}, "
                                              f"{100 * r['gap_hi90']:+.1f}]"),
                ("p TOST", lambda r: f"{r['p_tost']:.3f}"),
                ("p beyond", lambda r: f"{r['p_beyond']:.3f}")]))
            out.append("")
            cols = [("schedule", lambda r: r["schedule"]),
                    ("largest gap pp", lambda r: f"{100 * r['max_gap']:.1f}"),
                    ("p fair (IUT)", lambda r: f"{r['p_iut']:.3f}"),
                    ("p Holm", lambda r: f"{r['p_holm']:.3f}")]
            if stage == "selection":
                cols.append(("passes", lambda r: "yes" if r["passes"] else "no"))
            else:
                cols += [("p unfair (Holm)", lambda r: f"{r['p_unfair_holm']:.3f}"),
                         ("verdict", lambda r: r["verdict"])]
            cols.append(("rounds", lambda r: f"{r['rounds']:.1f}"))
            out.append(table(sc, cols))
            out.append("")
        e = study.effect[study.effect["players"] == k]
        out.append("manual minus none, per seat (selection deals, paired by deal, pp): " + ", ".join(
            f"seat {r['seat']} {iv(r, 'effect', 100, signed=True)}" for r in e.to_dict("records")))
        out.append("")
    out += [sentence(r) for r in study.recommendations]
    return "\n".join(out)


def variant_text(study, extra_cols=()) -> str:
    cfg = study.config
    seat = (f", each played in all {cfg['seatings_per_deal']} seatings of the line-up "
            f"({', '.join(cfg['lineup'])}: every seat, and right after every other policy, "
            f"equally often)" if cfg.get("seatings_per_deal") else "")
    head = (f"{study.name}: n = {cfg['deals']} deals per variant (common deals){seat}, engine "
            f"{cfg['engine']}, seed {cfg['seed']}; 95% intervals clustered by deal; d_ = paired "
            f"difference from the manual's game.")
    cols = [("players", lambda r: r["players"]), ("variant", lambda r: r["variant"]),
            ("games", lambda r: r["n_games"]), ("rounds", lambda r: iv(r, "rounds")),
            ("d rounds", lambda r: iv(r, "d_rounds", signed=True, d=2)),
            ("ends VP %", lambda r: iv(r, "ends_VP", 100, d=0)),
            ("ends cubes %", lambda r: iv(r, "ends_cubes", 100, d=0)),
            ("seat 1 win %", lambda r: iv(r, "seat1_win", 100, d=0)),
            ("margin", lambda r: iv(r, "margin")),
            ("trigger wins %", lambda r: iv(r, "trigger_win", 100, d=0))] + list(extra_cols)
    return head + "\n\n" + table(study.table, cols)


def policy_text(df: pd.DataFrame) -> str:
    return table(df, [("variant", lambda r: r["variant"]), ("policy", lambda r: r["policy"]),
                      ("player-games", lambda r: r["n_player_games"]),
                      ("win %", lambda r: iv(r, "win_rate", 100)),
                      ("withers/turn %", lambda r: iv(r, "withers_per_turn", 100)),
                      ("score", lambda r: iv(r, "score"))])
