"""``ranx.fusion``: placeholders until ``rankframe.fuse`` is merged (issue 41); calls raise."""

from __future__ import annotations

from typing import Any

from rankframe.compat.ranx._pending import FUSION, pending

__all__ = list(FUSION)


def __getattr__(name: str) -> Any:
    if name in FUSION:
        return pending(name)
    msg = f"module 'ranx.fusion' has no attribute {name!r}"
    raise AttributeError(msg)
