"""The names of the learning-to-rank losses and the argument checks their two paths share.

The losses of :data:`LOSSES` are computed on numpy arrays by
:func:`rankframe.ltr._loss_numpy.loss_and_grad` (their definitions and references are in
that module's docstring, the structured hinge's in :mod:`rankframe.ltr._loss_structured`) and,
all but ``"structured"`` (:data:`FRAME_LOSSES`), as lazy Polars plans by
:mod:`rankframe.ltr._loss_polars`.
"""

from __future__ import annotations

import numpy as np

from rankframe._errors import RankframeError

__all__ = ["FRAME_LOSSES", "LOSSES"]

#: The public loss names.
LOSSES: tuple[str, ...] = (
    "pointwise",
    "hinge",
    "exponential",
    "ranknet",
    "lambdarank",
    "kendall",
    "ndcg",
    "structured",
)

#: The losses :func:`loss_frame` and :func:`gradient_frame` build as Polars plans (all but
#: ``"structured"``, whose maximiser needs an assignment solver).
FRAME_LOSSES: tuple[str, ...] = tuple(name for name in LOSSES if name != "structured")


def _check_loss(loss: str, allowed: tuple[str, ...] = LOSSES) -> None:
    if loss not in allowed:
        if loss == "structured":
            msg = (
                "The 'structured' loss needs one assignment problem per query "
                "(scipy.optimize.linear_sum_assignment), which a Polars plan cannot express: "
                "use rankframe.ltr loss_and_grad('structured', scores, labels, offsets) on numpy "
                "arrays instead."
            )
        else:
            msg = f"Unknown loss {loss!r}; expected one of {', '.join(map(repr, allowed))}."
        raise RankframeError(msg)


def _check_k(k: int | None) -> None:
    if k is not None and (isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1):
        msg = f"The cutoff k must be a positive int or None, got {k!r}."
        raise RankframeError(msg)
