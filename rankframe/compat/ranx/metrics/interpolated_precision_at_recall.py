"""``ranx.metrics.interpolated_precision_at_recall``."""

from rankframe.compat.ranx.metrics._functions import interpolated_precision_at_recall

__all__ = ["interpolated_precision_at_recall"]
