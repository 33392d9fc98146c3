"""numba building blocks every game's fast engine shares: the ``kernel``
decorator, compile notices and cache stamps (``jit``) and the counter-based
random stream of :mod:`vale_sim.rng` in numba, bit for bit (``rng``).
Importing this package imports numba; ``import vale_sim`` does not."""
