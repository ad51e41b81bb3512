"""``ranx.metrics.reciprocal_rank``."""

from rankframe.compat.ranx.metrics._functions import reciprocal_rank

__all__ = ["reciprocal_rank"]
