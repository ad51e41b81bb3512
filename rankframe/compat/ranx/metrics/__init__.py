"""``ranx.metrics``: the metric functions over per-query arrays, computed by rankframe.

See :mod:`rankframe.compat.ranx.metrics._functions`; the submodules (``ranx.metrics.bpref``...)
exist so that ranx's import paths resolve.
"""

from __future__ import annotations

# each function through its submodule, relatively, as ranx does: under the name ``ranx.metrics``
# (the peer suite's shim) a later ``from ranx.metrics.precision import precision`` then finds the
# submodule loaded and leaves the package's name bound to the function, not to the submodule
from .average_precision import average_precision
from .bpref import bpref
from .f1 import f1
from .get_hit_lists import get_hit_lists
from .hit_rate import hit_rate
from .hits import hits
from .interpolated_precision_at_recall import interpolated_precision_at_recall
from .ndcg import dcg, dcg_burges, ndcg, ndcg_burges
from .precision import precision
from .r_precision import r_precision
from .rank_biased_precision import rank_biased_precision
from .recall import recall
from .reciprocal_rank import reciprocal_rank

__all__ = [
    "average_precision",
    "bpref",
    "dcg",
    "dcg_burges",
    "f1",
    "get_hit_lists",
    "hit_rate",
    "hits",
    "interpolated_precision_at_recall",
    "ndcg",
    "ndcg_burges",
    "precision",
    "r_precision",
    "rank_biased_precision",
    "recall",
    "reciprocal_rank",
]
