"""Measure families: one small module each, registered on import.

Every module in this package that does not start with ``_`` is a family (or a few related
ones) and is imported by :func:`load_all`; adding a measure is adding a module, nothing else
dispatches on measure names. The modules that start with ``_`` are what families build on:

- ``_params``: parameters declared as data (:class:`Param`), their coercion, shared constants;
- ``_ctx``: :class:`Ctx`, the columns of one query group a measure reads and the values the
  planner shares between measures (partials, derived values, judgment statistics);
- ``_arith``: sums in trec_eval's order, list arithmetic after the group_by, C's ``log2``,
  safe division;
- ``_measure``: the :class:`Measure` base class (immutable, hashable, ``repr`` = its name);
- ``_registry``: the families and trec_eval's names, the single source of truth;
- ``_names``: parsing names in ir_measures, trec_eval and ranx syntax (read from the registry);
- ``_trec``, ``_pairs``: helpers shared by trec_eval-named families and by the families that
  compare two rankings.
"""

from __future__ import annotations

import importlib
import pkgutil

from rankframe._measures._arith import safe_div
from rankframe._measures._ctx import Ctx, PopulationCtx
from rankframe._measures._measure import Measure
from rankframe._measures._params import MIN_GEO_MEAN, Param
from rankframe._measures._registry import REGISTRY, TREC_NAMES, families, register, register_trec

__all__ = [
    "MIN_GEO_MEAN",
    "REGISTRY",
    "TREC_NAMES",
    "Ctx",
    "Measure",
    "Param",
    "PopulationCtx",
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
