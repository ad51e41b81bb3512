"""Measure families: one small module each, registered on import.

Every module in this package that does not start with ``_`` is imported by :func:`load_all`;
adding a measure is adding a module, nothing else dispatches on measure names.
"""

from __future__ import annotations

import importlib
import pkgutil

from rankframe._measures._base import (
    MIN_GEO_MEAN,
    REGISTRY,
    TREC_NAMES,
    Ctx,
    Measure,
    Param,
    families,
    register,
    register_trec,
    safe_div,
)

__all__ = [
    "MIN_GEO_MEAN",
    "REGISTRY",
    "TREC_NAMES",
    "Ctx",
    "Measure",
    "Param",
    "families",
    "load_all",
    "register",
    "register_trec",
    "safe_div",
]

_loaded = False


def load_all() -> None:
    """Import every measure module so that it registers itself."""
    global _loaded
    if _loaded:
        return
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    _loaded = True
