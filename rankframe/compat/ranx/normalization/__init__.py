"""``ranx.normalization``: placeholders until ``rankframe.fuse`` is merged (issue 41); calls raise."""

from __future__ import annotations

from typing import Any

from rankframe.compat.ranx._pending import NORMALIZATION, pending

__all__ = list(NORMALIZATION)


def __getattr__(name: str) -> Any:
    if name in NORMALIZATION:
        return pending(name)
    msg = f"module 'ranx.normalization' has no attribute {name!r}"
    raise AttributeError(msg)
