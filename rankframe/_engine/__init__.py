"""The Polars engine: inputs prepared and checked, ranked and joined, every measure in one plan.

``evaluate`` and ``explain`` live here, with the planner (the general plan and the hits-only
plan), the input checks and the query partitions. It reads inputs through :mod:`rankframe._io`
and measures through :mod:`rankframe._measures`; comparisons, reports and interfaces sit above.
"""
