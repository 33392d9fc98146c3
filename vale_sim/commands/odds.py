"""What ``spoil-odds`` and ``wither-odds`` share: their common options and the
checks of them, one-line errors for a bad deck or an impossible computation, and the
printing of results (text or JSON, before any figure is written; the best rule's
table)."""
from __future__ import annotations

import sys

from ..errors import UserError


def add_method_options(p, simulate_help: str, games_help: str) -> None:
    """``--exact`` (the default) or ``--simulate``, and ``--games`` of a simulation."""
    from ..limits import count
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--exact", action="store_true", help="exact computation (the default)")
    mode.add_argument("--simulate", action="store_true", help=simulate_help)
    p.add_argument("--games", type=count(1), default=10_000, help=games_help)


def add_output_options(p, plot_help: str) -> None:
    """``--json`` (the result as one JSON object) and ``--plot OUT.png``."""
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--plot", metavar="OUT.png", default=None, help=plot_help)
    from ..io import add_force_option
    add_force_option(p)


def check_common(args, k_option: str, k_max: int) -> int:
    """Check ``--plot`` (before any computation), the count of cards ``--PUSHES``
    (``k_option``: "pushes" or "grows", 1..k_max), ``--games`` with ``--simulate``,
    ``--max-states`` and ``--seed``.  Returns the checked seed."""
    from ..io import check_outputs
    from ..rng import check_seed
    check_outputs((args.plot, "file", "--plot"), force=args.force)
    k = getattr(args, k_option)
    if not 1 <= k <= k_max:
        raise UserError(f"--{k_option} must be between 1 and {k_max}, got {k}")
    if args.simulate and args.games < 1:
        raise UserError(f"--games must be at least 1, got {args.games}")
    from ..cli import check_needs
    exact = not args.simulate or args.rule is not None      # --rule is exact either way
    check_needs(args, ("--games", args.simulate, "needs --simulate (the exact computation "
                                                 "plays no games)"),
                ("--seed", args.simulate, "needs --simulate (the exact computation draws no "
                                          "random numbers)"),
                ("--max-states", exact, "applies to the exact computation (or --rule), not "
                                        "to --simulate"))
    if args.max_states < 1:
        raise UserError(f"--max-states must be at least 1, got {args.max_states}")
    try:
        return check_seed(args.seed)
    except ValueError as e:
        raise UserError(str(e)) from None


def one_line(errors, call, *a, **kw):
    """``call(*a, **kw)``; an exception of ``errors`` becomes a UserError with its
    first line (exit status 2, no traceback)."""
    try:
        return call(*a, **kw)
    except errors as e:
        raise UserError(str(e).splitlines()[0]) from None


def print_results(args, res, rule, deck, format_report, format_rule) -> None:
    """The result (and the best rule, if asked for) as text or, with ``--json``, one
    JSON object (the rule under ``best_rule``); flushed, so a figure written next
    that fails loses none of it."""
    from ..io import dumps
    if args.json:
        out = res.to_dict()
        if rule is not None:
            out["best_rule"] = rule.to_dict()
        print(dumps(out, sort_keys=True))
    else:
        print(format_report(res, deck))
        if rule is not None:
            print()
            print(format_rule(rule))
    sys.stdout.flush()


def distribution_lines(dists: dict, ks, label: str) -> list[str]:
    """A table of {k: {value: share}}: a header of the values met (``label`` over
    the k column), then one row of shares per k in ``ks``."""
    w = len(label)
    shows = sorted({s for d in dists.values() for s in d})
    lines = [f"{label:>{w}} " + " ".join(f"{s:>6}" for s in shows)]
    for k in ks:
        d = dists[k]
        lines.append(f"{k:>{w}} " + " ".join(f"{float(d.get(s, 0)):>6.3f}" for s in shows))
    return lines


RULE_MIN_REACH = 0.001      # the rule's table leaves out states met less often than this


def rule_text(rule, title: str, fixed: dict, fixed_label, state: tuple, columns: str, row,
              go: str, stop: str) -> str:
    """The best rule as text: ``title`` with the rule's value, the values of the
    fixed rules (``fixed``: k -> value, each as ``fixed_label(k)``), the two lines
    saying what a state is (``state``) and the column names, then its table
    (:func:`rule_lines`)."""
    head = [f"{title}: {float(rule.value):.4f}",
            "fixed rules: " + ", ".join(f"{fixed_label(k)}: {float(v):.4f}"
                                        for k, v in fixed.items()),
            *state, columns]
    return "\n".join(rule_lines(rule, head, row, go, stop))


def rule_lines(rule, head: list[str], row, go: str, stop: str) -> list[str]:
    """The best rule's table: ``head`` (its title and column names), then one line
    per state met with probability >= RULE_MIN_REACH: ``row(r)`` and the rule's
    risk thresholds (``go_up_to`` and ``stop_from`` keys of the summary, ``go``
    and ``stop`` naming them, e.g. "push" and "stop")."""
    lines = list(head)
    for r in rule.summary(min_reach=RULE_MIN_REACH):
        up = "-" if r[f"{go}_up_to"] is None else f"{r[f'{go}_up_to']:.3f}"
        st = "-" if r[f"{stop}_from"] is None else f"{r[f'{stop}_from']:.3f}"
        lines.append(f"{row(r)} {up:>15} {st:>15}")
    lines.append(f"(states met with probability < {RULE_MIN_REACH} not shown)")
    return lines
