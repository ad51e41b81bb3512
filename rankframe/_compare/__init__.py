"""Deciding between systems: paired tests and intervals, comparisons, report tables and figures.

Imported on first use of :func:`rankframe.compare` (the statistics need scipy). Above the
engine: a comparison evaluates its runs per query with :func:`rankframe.evaluate`.
"""
