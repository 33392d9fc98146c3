"""Settings studies: how a game's rule options change play, on common deals.

A *settings study* plays the same deals (seed, game indexes) under several
variants of a game's rule options and compares them deal by deal, so the
shared luck of a deal cancels in every difference (docs/mystic-lands-studies.md).
The studies reach the game only through :func:`vale_sim.games.get_game` and
play through :func:`vale_sim.tournament.play_frame` (the runner: fast engine
when the game has one, workers, seeds).

* :mod:`vale_sim.games.mystic_lands.studies.common` -- variants, paired comparisons, equivalence tests;
* :mod:`vale_sim.games.mystic_lands.studies.seats` -- seat compensation: win rate per seat and a
  search over small starting-resource schedules (TOST, Holm over schedules);
* :mod:`vale_sim.games.mystic_lands.studies.lands` -- end trigger, market growth, wither and rain;
* :mod:`vale_sim.games.mystic_lands.studies.report` -- the Mystic Lands report's sections.
"""
