"""``ranx.metrics.recall``."""

from rankframe.compat.ranx.metrics._functions import recall

__all__ = ["recall"]
