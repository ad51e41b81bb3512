"""ir_measures' ``measures.accuracy`` module: ``Accuracy``, rankframe's family of that name."""

from rankframe.compat.ir_measures.measures import Accuracy  # type: ignore[attr-defined]

__all__ = ["Accuracy"]
