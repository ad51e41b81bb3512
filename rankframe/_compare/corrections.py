"""Multiple-comparison corrections of a family of p-values: Bonferroni, Holm, Benjamini-Hochberg."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from rankframe._errors import RankframeError

if TYPE_CHECKING:
    from rankframe._compare.arrays import FloatArray

#: The multiple-comparison corrections :func:`correct` accepts.
CORRECTIONS: tuple[str, ...] = ("none", "bonferroni", "holm", "bh")


def correct(p: npt.ArrayLike, method: str) -> FloatArray:
    r"""Adjust a family of p-values for multiple comparisons.

    With :math:`m` (non-NaN) p-values sorted as :math:`p_{(1)} \le \dots \le p_{(m)}`:

    * ``"none"``: unchanged;
    * ``"bonferroni"``: :math:`\min(1, m\,p_i)`;
    * ``"holm"`` (step-down, Holm 1979):
      :math:`\tilde p_{(i)} = \min\bigl(1, \max_{j \le i} (m - j + 1)\, p_{(j)}\bigr)`;
    * ``"bh"`` (step-up false discovery rate, Benjamini & Hochberg 1995):
      :math:`\tilde p_{(i)} = \min\bigl(1, \min_{j \ge i} m\, p_{(j)} / j\bigr)`.

    Equal to ``statsmodels.stats.multitest.multipletests(p, method=...)[1]`` with ``method``
    ``"bonferroni"``, ``"holm"`` and ``"fdr_bh"``. NaN p-values stay NaN and are left out of
    the family (they do not count in :math:`m`).

    Parameters
    ----------
    p : array_like, shape (m,)
        p-values in [0, 1], NaN allowed.
    method : {"none", "bonferroni", "holm", "bh"}

    Returns
    -------
    ndarray, shape (m,)
        The adjusted p-values, in the order of ``p``.

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6(2),
    1979; Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate", JRSS B 57(1),
    1995.

    Examples
    --------
    >>> p = [0.01, 0.04, 0.03, 0.2]
    >>> correct(p, "holm").round(3).tolist()
    [0.04, 0.09, 0.09, 0.2]
    >>> correct(p, "bh").round(3).tolist()
    [0.04, 0.053, 0.053, 0.2]
    """
    if method not in CORRECTIONS:
        msg = f"method must be one of {', '.join(map(repr, CORRECTIONS))}; got {method!r}."
        raise RankframeError(msg)
    try:
        arr = np.array(p, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        msg = f"p must be a 1-D numeric array of p-values; got {type(p).__name__}."
        raise RankframeError(msg) from exc
    if arr.ndim != 1:
        msg = f"p must be a 1-D array of p-values; got a {arr.ndim}-D array of shape {arr.shape}."
        raise RankframeError(msg)
    ok = ~np.isnan(arr)
    q = arr[ok]
    if np.any((q < 0.0) | (q > 1.0)):
        msg = f"p-values must lie in [0, 1] (or be NaN); got {q[(q < 0.0) | (q > 1.0)][0]!r}."
        raise RankframeError(msg)
    if method == "none" or q.size == 0:
        return arr
    size = q.size
    if method == "bonferroni":
        adj = np.minimum(1.0, size * q)
    else:
        order = np.argsort(q, kind="stable")
        qs = q[order]
        rank = np.arange(1, size + 1, dtype=np.float64)
        if method == "holm":
            sorted_adj = np.maximum.accumulate((size - rank + 1.0) * qs)
        else:
            sorted_adj = np.minimum.accumulate((qs * size / rank)[::-1])[::-1]
        adj = np.empty(size)
        adj[order] = np.minimum(1.0, sorted_adj)
    arr[ok] = adj
    return arr
