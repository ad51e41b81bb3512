"""ir_measures' ``measures.accuracy`` module: ``Accuracy`` (rankframe has no such family yet)."""

from rankframe.compat.ir_measures.measures import Accuracy  # type: ignore[attr-defined]

__all__ = ["Accuracy"]
