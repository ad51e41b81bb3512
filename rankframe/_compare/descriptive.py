"""Descriptive statistics of per-query scores: mean and interval, effect size, wins/ties/losses."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy import stats as _st

from rankframe._compare.arrays import FloatArray, IntArray, _confidence, _constant, _matrix
from rankframe._errors import RankframeError


def mean_ci(x: npt.ArrayLike, confidence: float = 0.95) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""Per-column mean and Student-t confidence interval.

    .. math:: \bar x \pm t_{(1+c)/2,\;n-1}\, \frac{s}{\sqrt n},
       \qquad s^2 = \frac{1}{n-1}\sum_i (x_i - \bar x)^2,

    the same as ``scipy.stats.t.interval(c, n - 1, loc=mean, scale=scipy.stats.sem(col))``.

    Parameters
    ----------
    x : array_like, shape (n_queries, n_columns)
        Per-query scores (or differences).
    confidence : float, default 0.95
        Coverage ``c`` of the interval, in (0, 1).

    Returns
    -------
    mean, low, high : ndarray, shape (n_columns,)
        With a single query the interval is NaN; a constant column has the degenerate interval
        ``[mean, mean]`` (scipy returns NaN there).

    References
    ----------
    Sakai, "Statistical reform in information retrieval?", SIGIR Forum 2014.

    Examples
    --------
    >>> m, lo, hi = mean_ci([[0.2, 0.5], [0.4, 0.5], [0.6, 0.8]])
    >>> m.round(3).tolist(), lo.round(3).tolist(), hi.round(3).tolist()
    ([0.4, 0.6], [-0.097, 0.17], [0.897, 1.03])
    """
    arr = _matrix(x, "x")
    c = _confidence(confidence)
    n = arr.shape[0]
    mean = arr.mean(axis=0)
    if n < 2:
        nan = np.full_like(mean, np.nan)
        return mean, nan, nan.copy()
    sem = arr.std(axis=0, ddof=1) / math.sqrt(n)
    half = _st.t.ppf((1.0 + c) / 2.0, n - 1) * sem
    return mean, mean - half, mean + half


def effect_size(d: npt.ArrayLike) -> FloatArray:
    r"""Cohen's :math:`d_z` of paired differences, per column.

    .. math:: d_z = \frac{\bar d}{s_d}, \qquad s_d^2 = \frac{1}{n-1}\sum_i (d_i - \bar d)^2.

    A column of identical differences has :math:`s_d = 0`: :math:`d_z` is 0.0 when they are all
    zero and :math:`\pm\infty` otherwise. With a single query :math:`d_z` is NaN.

    Parameters
    ----------
    d : array_like, shape (n_queries, n_pairs)
        Paired differences (system minus baseline).

    Returns
    -------
    ndarray, shape (n_pairs,)

    References
    ----------
    Sakai, "Statistical reform in information retrieval?", SIGIR Forum 2014 (standardised mean
    difference, reported alongside p-values).

    Examples
    --------
    >>> effect_size([[0.1, 0.0], [0.3, 0.0], [0.2, 0.0]]).round(3).tolist()
    [2.0, 0.0]
    """
    arr = _matrix(d, "d")
    mean = arr.mean(axis=0)
    if arr.shape[0] < 2:
        return np.full_like(mean, np.nan)
    const = _constant(arr)
    sd = arr.std(axis=0, ddof=1)
    out = np.empty_like(mean)
    ok = ~const
    out[ok] = mean[ok] / sd[ok]
    first = arr[0, const]
    out[const] = np.where(first == 0.0, 0.0, np.copysign(np.inf, first))
    return out


def wins_ties_losses(d: npt.ArrayLike, tol: float = 0.0) -> tuple[IntArray, IntArray, IntArray]:
    r"""Count the queries a system wins, ties and loses against its baseline, per column.

    A win is :math:`d_i > \mathrm{tol}`, a tie :math:`|d_i| \le \mathrm{tol}`, a loss
    :math:`d_i < -\mathrm{tol}`.

    Parameters
    ----------
    d : array_like, shape (n_queries, n_pairs)
        Paired differences (system minus baseline).
    tol : float, default 0.0
        Non-negative margin below which a difference counts as a tie.

    Returns
    -------
    wins, ties, losses : ndarray of int64, shape (n_pairs,)

    References
    ----------
    Smucker, Allan & Carterette, CIKM 2007 (the sign test counts).

    Examples
    --------
    >>> w, t, l = wins_ties_losses([[0.1], [0.0], [-0.2], [0.3]])
    >>> w.tolist(), t.tolist(), l.tolist()
    ([2], [1], [1])
    """
    arr = _matrix(d, "d")
    t = float(tol)
    if not t >= 0.0:
        msg = f"tol must be a non-negative number; got {tol!r}."
        raise RankframeError(msg)
    wins = np.count_nonzero(arr > t, axis=0).astype(np.int64)
    losses = np.count_nonzero(arr < -t, axis=0).astype(np.int64)
    return wins, arr.shape[0] - wins - losses, losses
