"""``ranx.metrics.r_precision``."""

from rankframe.compat.ranx.metrics._functions import r_precision

__all__ = ["r_precision"]
