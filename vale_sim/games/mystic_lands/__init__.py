"""Mystic Lands: components as data (``cards``), rule options (``rules``)."""
