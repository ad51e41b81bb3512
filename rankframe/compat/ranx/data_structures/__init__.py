"""ranx's data structures: ``Qrels``, ``Run`` and the ``Report`` of a comparison."""

from __future__ import annotations

from rankframe.compat.ranx.data_structures.qrels import Qrels
from rankframe.compat.ranx.data_structures.report import Report
from rankframe.compat.ranx.data_structures.run import Run

__all__ = ["Qrels", "Report", "Run"]
