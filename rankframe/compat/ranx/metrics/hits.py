"""``ranx.metrics.hits``."""

from rankframe.compat.ranx.metrics._functions import hits

__all__ = ["hits"]
