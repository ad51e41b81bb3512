"""``ranx.metrics.average_precision``."""

from rankframe.compat.ranx.metrics._functions import average_precision

__all__ = ["average_precision"]
