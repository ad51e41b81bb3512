"""Placeholders for ranx's fusion and normalization, which ``rankframe.fuse`` will provide.

``ranx.fusion``, ``ranx.normalization``, ``fuse``, ``normalize`` and ``optimize_fusion`` are
importable (so scripts and ranx's tests load), and calling any of them raises
:class:`FusionPendingError`, naming the issue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from rankframe._errors import RankframeError

FUSION = (
    "bayesfuse", "bayesfuse_train", "bordafuse", "comb_anz", "comb_gmnz", "comb_max", "comb_med",
    "comb_min", "comb_mnz", "comb_sum", "condorcet", "isr", "log_isr", "logn_isr", "mapfuse",
    "mapfuse_train", "mixed", "mixed_train", "posfuse", "posfuse_train", "probfuse", "probfuse_train",
    "rbc", "rrf", "segfuse", "segfuse_train", "slidefuse", "slidefuse_train", "weighted_bordafuse",
    "weighted_condorcet", "wmnz", "wsum", "fusion_switch", "train_switch",
)
NORMALIZATION = (
    "borda_norm", "max_norm", "min_max_norm", "rank_norm", "sum_norm", "zmuv_norm", "norm_switch",
)


class FusionPendingError(RankframeError, NotImplementedError):
    """ranx's fusion and normalization are not in the drop-in yet (issue 41: ``rankframe.fuse``)."""


def pending(name: str) -> Callable[..., NoReturn]:
    """A stand-in for ranx's ``name`` that raises :class:`FusionPendingError` when called.

    Examples
    --------
    >>> pending("rrf")()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankframe.compat.ranx._pending.FusionPendingError: ranx.rrf: not in rankframe.compat.ranx yet ...
    """

    def stub(*args: Any, **kwargs: Any) -> NoReturn:
        del args, kwargs
        msg = (f"ranx.{name}: not in rankframe.compat.ranx yet (issue 41: fusion and normalization "
               "wait for rankframe.fuse)")
        raise FusionPendingError(msg)

    stub.__name__ = stub.__qualname__ = name
    return stub
