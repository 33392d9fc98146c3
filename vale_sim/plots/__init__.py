"""Charts for analyses (matplotlib with the Agg backend: files, no windows)."""
