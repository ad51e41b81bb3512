"""``ranx.metrics.f1``."""

from rankframe.compat.ranx.metrics._functions import f1

__all__ = ["f1"]
