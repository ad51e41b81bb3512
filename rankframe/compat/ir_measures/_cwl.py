"""ir_measures' ``CwlMetric``: a cwl_eval value with the C/W/L framework's expectations."""

from __future__ import annotations

from typing import Any, NamedTuple


class CwlMetric(NamedTuple):
    """One query's value of one measure from cwl_eval, as ir_measures' ``CwlMetric``.

    ``value`` is the expected utility per item; the others are cwl_eval's expected total
    utility, cost, total cost and number of items, each computed by rankframe's C/W/L
    family (``expect='ETU'``, ``'EC'``, ``'ETC'``, ``'EI'``: :mod:`rankframe._measures.cwl`).

    Examples
    --------
    >>> CwlMetric("q1", "P@5", 0.6, 3.0, 1.0, 5.0, 5.0).value
    0.6
    """

    query_id: str
    measure: Any
    value: float
    expected_total_utility: float
    expected_cost: float
    expected_total_cost: float
    expected_items: float
