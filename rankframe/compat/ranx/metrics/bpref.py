"""``ranx.metrics.bpref``."""

from rankframe.compat.ranx.metrics._functions import bpref

__all__ = ["bpref"]
