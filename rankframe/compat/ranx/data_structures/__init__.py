"""ranx's data structures: ``Qrels``, ``Run``, ``Report`` (a comparison), ``OptimizationReport``."""

from __future__ import annotations

from rankframe.compat.ranx.data_structures.optimization_report import OptimizationReport
from rankframe.compat.ranx.data_structures.qrels import Qrels
from rankframe.compat.ranx.data_structures.report import Report
from rankframe.compat.ranx.data_structures.run import Run

__all__ = ["OptimizationReport", "Qrels", "Report", "Run"]
