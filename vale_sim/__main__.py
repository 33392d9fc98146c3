"""``python -m vale_sim ...``: the same as the ``vale-sim`` command."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
