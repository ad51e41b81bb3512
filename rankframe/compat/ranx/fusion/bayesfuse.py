"""``ranx.fusion.bayesfuse``: BayesFuse (Aslam & Montague 2001), through :func:`rankframe.fuse`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rankframe.compat.ranx._fusing import estimate_log_odds, fuse_runs, train

if TYPE_CHECKING:
    from rankframe.compat.ranx.data_structures import Qrels, Run

__all__ = ["_estimate_log_odds", "bayesfuse", "bayesfuse_train"]


def bayesfuse(runs: list[Run], log_odds: Sequence[Any], name: str = "bayesfuse") -> Run:
    """BayesFuse: the sum of the runs' log-odds of relevance at the document's rank.

    ``log_odds`` is :func:`bayesfuse_train`'s (one array per run); a run that did not retrieve
    the document adds log(0.001 / 0.999).
    """
    odds = [np.asarray(v, dtype=np.float64).tolist() for v in log_odds]
    return fuse_runs(runs, "bayesfuse", name, params={"log_odds": odds})


def bayesfuse_train(qrels: Qrels, runs: list[Run]) -> list[np.ndarray]:
    """BayesFuse's ``log_odds``: per run, 1000 log-odds (constant over ranx's rank segments)."""
    return train("bayesfuse", qrels, runs)


def _estimate_log_odds(hit_lists: Sequence[Any], cut_offs: Sequence[int]) -> np.ndarray:
    """ranx's helper: one run's log-odds per rank from its hit lists (``cut_offs``: ranx's bounds)."""
    return estimate_log_odds(hit_lists, cut_offs)
