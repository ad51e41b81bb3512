"""``ranx.normalization``: ranx 0.3.21's score normalisations, computed by ``rankframe.fuse``'s.

Each normalises a ``Run`` per query and returns a new ``Run`` with the same name (the input is
left unchanged); :func:`borda_norm` takes the list of runs (its candidates are all runs'
documents) and returns one ``Run`` per run.

Examples
--------
>>> from rankframe.compat.ranx import Run
>>> min_max_norm(Run({"q1": {"d1": 1.0, "d2": 3.0, "d3": 2.0}})).run
{'q1': {'d2': 1.0, 'd3': 0.5, 'd1': 0.0}}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rankframe._errors import InputError
from rankframe.compat.ranx._fusing import borda_runs, normalize_run

if TYPE_CHECKING:
    from rankframe.compat.ranx.data_structures import Run

__all__ = ["borda_norm", "max_norm", "min_max_norm", "norm_switch", "rank_norm", "sum_norm", "zmuv_norm"]


def min_max_norm(run: Run, invert: bool = False) -> Run:
    """(s - min) / max(max - min, 1e-9); ``invert``: (max - s) / ... (for distances)."""
    return normalize_run(run, "min-max-inverted" if invert else "min-max")


def max_norm(run: Run) -> Run:
    """s / max(max, 1e-9)."""
    return normalize_run(run, "max")


def sum_norm(run: Run) -> Run:
    """(s - min) / max(sum - n min, 1e-9)."""
    return normalize_run(run, "sum")


def zmuv_norm(run: Run) -> Run:
    """Zero mean, unit variance: (s - mean) / max(std, 1e-9), std with ddof=0."""
    return normalize_run(run, "zmuv")


def rank_norm(run: Run) -> Run:
    """1 - (rank - 1) / n, n the query's documents in the run."""
    return normalize_run(run, "rank")


def borda_norm(runs: list[Run]) -> list[Run]:
    """Borda, per run over each query's candidates (the documents any run retrieves).

    1 - (rank - 1) / c for a document the run retrieves, 0.5 - (n - 1) / (2c) for the other
    candidates (c candidates, n of them retrieved by this run); one ``Run`` per run.
    """
    return borda_runs(runs)


_NORMS: dict[str, Callable[..., Any]] = {
    "borda": borda_norm,
    "max": max_norm,
    "min_max": min_max_norm,
    "min-max": min_max_norm,
    "min_max_inverted": lambda run: min_max_norm(run, invert=True),
    "min-max-inverted": lambda run: min_max_norm(run, invert=True),
    "rank": rank_norm,
    "sum": sum_norm,
    "zmuv": zmuv_norm,
}


def norm_switch(method: str = "min-max") -> Callable[..., Any]:
    """The normalisation called ``method`` (``"min-max"``, ``"min-max-inverted"``, ``"borda"``...).

    Examples
    --------
    >>> norm_switch("max").__name__
    'max_norm'
    """
    if method not in _NORMS:
        msg = f"Normalization method {method} not supported; valid: {', '.join(_NORMS)}."
        raise InputError(msg)
    return _NORMS[method]
