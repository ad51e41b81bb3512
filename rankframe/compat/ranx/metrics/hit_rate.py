"""``ranx.metrics.hit_rate``."""

from rankframe.compat.ranx.metrics._functions import hit_rate

__all__ = ["hit_rate"]
