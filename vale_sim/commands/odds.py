"""What ``spoil-odds`` and ``wither-odds`` share: the checks of their common
options, one-line errors for a bad deck or an impossible computation, and the
printing of results (text or JSON, before any figure is written)."""
from __future__ import annotations

import sys

from ..errors import UserError


def check_common(args, k_option: str, k_max: int) -> int:
    """Check ``--plot`` (before any computation), the count of cards ``--PUSHES``
    (``k_option``: "pushes" or "grows", 1..k_max), ``--games`` with ``--simulate``,
    ``--max-states`` and ``--seed``.  Returns the checked seed."""
    from ..io import check_outputs
    from ..rng import check_seed
    check_outputs((args.plot, "file", "--plot"))
    k = getattr(args, k_option)
    if not 1 <= k <= k_max:
        raise UserError(f"--{k_option} must be between 1 and {k_max}, got {k}")
    if args.simulate and args.games < 1:
        raise UserError(f"--games must be at least 1, got {args.games}")
    if args.max_states < 0:
        raise UserError(f"--max-states must be 0 (no limit) or more, got {args.max_states}")
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
