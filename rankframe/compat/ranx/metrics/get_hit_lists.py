"""``ranx.metrics.get_hit_lists``."""

from rankframe.compat.ranx.metrics._functions import get_hit_lists

__all__ = ["get_hit_lists"]
