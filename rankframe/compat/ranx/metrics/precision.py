"""``ranx.metrics.precision``."""

from rankframe.compat.ranx.metrics._functions import precision

__all__ = ["precision"]
