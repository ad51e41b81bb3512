"""Tukey's honestly significant difference test: all pairs of systems, simultaneous intervals."""

from __future__ import annotations

import math
from itertools import combinations
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import stats as _st

from rankframe._compare.arrays import FloatArray, _confidence, _matrix
from rankframe._errors import RankframeError


def tukey_hsd(
    x: npt.ArrayLike,
    *,
    design: Literal["paired", "independent"] = "paired",
    confidence: float = 0.95,
) -> tuple[npt.NDArray[np.intp], FloatArray, FloatArray, FloatArray, FloatArray]:
    r"""Tukey's honestly significant difference test over all pairs of systems.

    For the pairs :math:`i < j` in the order of ``itertools.combinations(range(k), 2)``, with
    :math:`k` systems, :math:`n` queries and column means :math:`\bar x_j`,

    .. math:: \Delta_{ij} = \bar x_j - \bar x_i, \qquad
       q = \frac{|\Delta_{ij}|}{\sqrt{\mathrm{MSE}/n}}, \qquad
       p = P(Q_{k,\nu} \ge q), \qquad
       \Delta_{ij} \pm q_{c;k,\nu} \sqrt{\mathrm{MSE}/n},

    with :math:`Q_{k,\nu}` the studentized range distribution.

    * ``design="paired"`` (default; queries are a blocking factor, as in IR evaluation
      [Sakai 2014]): MSE is the residual mean square of the two-way ANOVA without replication
      (system and query effects), :math:`\nu = (k-1)(n-1)`:
      :math:`\mathrm{MSE} = \sum_{q,j} (x_{qj} - \bar x_{q\cdot} - \bar x_{\cdot j} + \bar x)^2 / \nu`.
    * ``design="independent"``: the one-way ANOVA within-group mean square,
      :math:`\nu = k(n-1)`; equal to ``scipy.stats.tukey_hsd(*columns)``.

    When MSE is 0 a zero difference gets ``p = 1`` and a non-zero one ``p = 0``; when
    :math:`\nu = 0` (a single query) p and the interval are NaN.

    Parameters
    ----------
    x : array_like, shape (n_queries, n_systems)
        Per-query scores of the systems.
    design : {"paired", "independent"}, default "paired"
    confidence : float, default 0.95
        Family-wise coverage ``c`` of the simultaneous intervals.

    Returns
    -------
    pairs : ndarray of intp, shape (n_pairs, 2)
        The column indices ``(i, j)`` of each pair.
    diff, p, low, high : ndarray, shape (n_pairs,)
        ``mean_j - mean_i``, the adjusted p-value and the simultaneous interval.

    References
    ----------
    J. W. Tukey, "Comparing individual means in the analysis of variance", Biometrics 5(2),
    1949; Sakai, "Statistical reform in information retrieval?", SIGIR Forum 2014;
    Carterette, "Multiple testing in statistical analysis of systems-based information
    retrieval experiments", ACM TOIS 30(1), 2012.

    Examples
    --------
    >>> x = [[0.2, 0.3, 0.5], [0.4, 0.5, 0.6], [0.1, 0.3, 0.2], [0.5, 0.6, 0.9]]
    >>> pairs, diff, p, low, high = tukey_hsd(x)
    >>> pairs.tolist()
    [[0, 1], [0, 2], [1, 2]]
    >>> diff.round(3).tolist(), p.round(3).tolist()
    ([0.125, 0.25, 0.125], [0.2, 0.018, 0.2])
    """
    if design not in ("paired", "independent"):
        msg = f"design must be 'paired' or 'independent'; got {design!r}."
        raise RankframeError(msg)
    arr = _matrix(x, "x")
    c = _confidence(confidence)
    n, k = arr.shape
    pairs = np.array(list(combinations(range(k), 2)), dtype=np.intp).reshape(-1, 2)
    means = arr.mean(axis=0)
    diff = means[pairs[:, 1]] - means[pairs[:, 0]]
    if k < 2:
        empty = np.empty(0)
        return pairs, diff, empty, empty.copy(), empty.copy()
    if design == "paired":
        resid = arr - arr.mean(axis=1, keepdims=True) - means + arr.mean()
        df = (k - 1) * (n - 1)
    else:
        resid = arr - means
        df = k * (n - 1)
    if df == 0:
        nan = np.full(diff.shape, np.nan)
        return pairs, diff, nan, nan.copy(), nan.copy()
    se = math.sqrt(float(np.sum(resid * resid)) / df / n)
    if se > 0.0:
        p = _st.studentized_range.sf(np.abs(diff) / se, k, df)
    else:
        p = np.where(diff == 0.0, 1.0, 0.0)
    half = _st.studentized_range.ppf(c, k, df) * se
    return pairs, diff, np.clip(p, 0.0, 1.0), diff - half, diff + half
