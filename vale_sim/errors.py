"""``UserError``: an error caused by the user's input (printed by the CLI as one
line, exit status 2).  Its own module so that every layer can raise it without
importing the CLI (``vale_sim.cli`` re-exports it)."""


class UserError(Exception):
    """An error caused by the user's input; printed as one line, exit status 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM reached vale-sim: handled like Ctrl-C (``vale_sim.cli.main`` prints
    "interrupted", what was computed is kept for a resume), exit status 143."""
    exit_status = 143
