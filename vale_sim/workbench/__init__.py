"""The designer's workbench: ``vale-sim serve``, a local web app over the toolkit
(docs/workbench.md).

* :mod:`.workspace`: one browser tab's card set -- the loaded set, the edits made
  in the table (each number with its source; edits become ``user``), validation
  naming the cell and why, uploads and downloads (TOML, CSV, edits file);
* :mod:`.runs`: long runs (what-if, balance, report, odds) in worker processes
  (``spawn``), each with its own id, progress, cancel and a heartbeat that stops a
  run whose page was closed;
* :mod:`.jobs`: what a worker process runs (the public functions of
  :mod:`vale_sim.whatif`, :mod:`vale_sim.balance`, :mod:`vale_sim.report` and the
  game's odds page, ``Game.workbench``);
* :mod:`.app`: the Starlette application (JSON API and the page in ``static/``).

Shared code: every game is reached through :func:`vale_sim.games.get_game`.
"""
