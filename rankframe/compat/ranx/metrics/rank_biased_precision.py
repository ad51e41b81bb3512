"""``ranx.metrics.rank_biased_precision``."""

from rankframe.compat.ranx.metrics._functions import rank_biased_precision

__all__ = ["rank_biased_precision"]
