"""``UserError``: an error caused by the user's input (printed by the CLI as one
line, exit status 2).  Its own module so that every layer can raise it without
importing the CLI (``vale_sim.cli`` re-exports it)."""


class UserError(Exception):
    """An error caused by the user's input; printed as one line, exit status 2."""
