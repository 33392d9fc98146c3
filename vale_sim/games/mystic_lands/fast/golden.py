"""``python -m vale_sim.games.mystic_lands.fast.golden``: the command the first line of
every tests/golden/mystic_lands file names (kept so the files stay byte-identical).
The golden games are ``vale_sim.games.mystic_lands.golden``; this runs its
``regenerate``, as ``python -m vale_sim.games.mystic_lands.golden`` does."""

if __name__ == "__main__":                      # pragma: no cover
    from vale_sim.games.mystic_lands.golden import regenerate
    for p in regenerate():
        print(p)
