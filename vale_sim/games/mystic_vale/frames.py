"""Deprecated: the results frame is ``records.results_frame`` (the one package
template, docs/architecture.md).  vale_sim/advancements.py still imports it from
here; tests/test_conformance.py fails once nothing does, so this module goes then."""
from .records import BASE_COLUMNS, results_frame  # noqa: F401
