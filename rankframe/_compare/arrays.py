"""Input checks and array types shared by the statistics modules.

Inputs must be complete: a NaN (or an infinity) raises :class:`~rankframe.RankframeError` (a
:class:`ValueError`) from :func:`_matrix`, with the row and column it was found at.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rankframe._errors import RankframeError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _matrix(a: npt.ArrayLike, name: str) -> FloatArray:
    """Return ``a`` as a finite 2-D float64 array with at least one row, or raise."""
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        msg = f"{name} must be a numeric array of shape (n_queries, n_columns); got {type(a).__name__}."
        raise RankframeError(msg) from exc
    if arr.ndim != 2:
        msg = (
            f"{name} must be a 2-D array of shape (n_queries, n_columns); got a {arr.ndim}-D array "
            f"of shape {arr.shape}. Reshape a single column with {name}.reshape(-1, 1)."
        )
        raise RankframeError(msg)
    if arr.shape[0] == 0:
        msg = f"{name} has no rows: a paired test needs at least one query."
        raise RankframeError(msg)
    bad = ~np.isfinite(arr)
    if bad.any():
        rows, cols = np.nonzero(bad)
        what = "NaN" if np.isnan(arr[rows[0], cols[0]]) else "an infinite value"
        more = f" (and {len(rows) - 1} more non-finite values)" if len(rows) > 1 else ""
        msg = (
            f"{name} contains {what} at row {rows[0]}, column {cols[0]}{more}. Paired tests need a "
            "score for every query and system: drop the incomplete queries or fill them "
            "(e.g. with 0.0) before testing."
        )
        raise RankframeError(msg)
    return arr


def _confidence(confidence: float) -> float:
    c = float(confidence)
    if not 0.0 < c < 1.0:
        msg = f"confidence must be strictly between 0 and 1; got {confidence!r}."
        raise RankframeError(msg)
    return c


def _constant(d: FloatArray) -> npt.NDArray[np.bool_]:
    """Columns whose entries are all equal (exactly)."""
    return np.all(d == d[:1], axis=0)
