"""Paired tests against a known null distribution: Student's t and the Wilcoxon signed-rank test."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import stats as _st

from rankframe._compare.arrays import FloatArray, IntArray, _constant, _matrix
from rankframe._errors import RankframeError

#: Largest number of non-zero differences the exact Wilcoxon distribution is computed for.
_EXACT_MAX_N = 1000
#: ``method="auto"`` of :func:`wilcoxon` uses the exact distribution up to this many non-zero
#: differences (and no ties).
_AUTO_EXACT_N = 50


# ---------------------------------------------------------------------------------------------
# paired t


def paired_t(d: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    r"""Two-sided paired (one-sample) Student t test of :math:`H_0: E[d] = 0`, per column.

    .. math:: t = \frac{\bar d}{s_d / \sqrt n}, \qquad p = 2\, P(T_{n-1} \ge |t|),

    the same as ``scipy.stats.ttest_rel(a, b)`` or ``scipy.stats.ttest_1samp(a - b, 0)``.

    Degenerate columns (where scipy returns NaN or warns): if all the differences are exactly
    zero, ``t = 0.0`` and ``p = 1.0``; if they are all equal to a non-zero ``c``,
    ``t = copysign(inf, c)`` and ``p = 0.0``. With a single query both are NaN.

    Parameters
    ----------
    d : array_like, shape (n_queries, n_pairs)
        Paired differences (system minus baseline).

    Returns
    -------
    stat, p : ndarray, shape (n_pairs,)

    References
    ----------
    Smucker, Allan & Carterette, "A comparison of statistical significance tests for
    information retrieval evaluation", CIKM 2007.

    Examples
    --------
    >>> t, p = paired_t([[0.1], [0.3], [-0.05], [0.2], [0.15]])
    >>> round(float(t[0]), 4), round(float(p[0]), 4)
    (2.4188, 0.0729)
    """
    arr = _matrix(d, "d")
    n, m = arr.shape
    if n < 2:
        nan = np.full(m, np.nan)
        return nan, nan.copy()
    mean = arr.mean(axis=0)
    sd = arr.std(axis=0, ddof=1)
    const = _constant(arr)
    stat = np.empty(m)
    ok = ~const
    stat[ok] = mean[ok] / (sd[ok] / math.sqrt(n))
    first = arr[0, const]
    stat[const] = np.where(first == 0.0, 0.0, np.copysign(np.inf, first))
    p = 2.0 * _st.t.sf(np.abs(stat), n - 1)
    return stat, np.minimum(p, 1.0)


# ---------------------------------------------------------------------------------------------
# Wilcoxon signed-rank


def _abs_ranks(d: FloatArray) -> tuple[FloatArray, IntArray, FloatArray]:
    """Average ranks of the non-zero ``|d|`` per column, in one vectorised pass.

    Returns the ranks (meaningless where ``d == 0``), the number of non-zero differences and the
    tie term ``sum(t**3 - t)`` over the groups of tied non-zero ``|d|`` of each column.
    """
    n, m = d.shape
    a = np.abs(d)
    # Zeros are sorted last (as +inf, larger than every finite |d|) and then ignored.
    a[a == 0.0] = np.inf
    order = np.argsort(a, axis=0, kind="stable")
    s = np.take_along_axis(a, order, axis=0)
    pos = np.arange(n, dtype=np.int64)[:, None]
    first = np.ones((n, m), dtype=bool)
    first[1:] = s[1:] != s[:-1]
    last = np.ones((n, m), dtype=bool)
    last[:-1] = first[1:]
    start = np.maximum.accumulate(np.where(first, pos, 0), axis=0)
    end = np.minimum.accumulate(np.where(last, pos, n - 1)[::-1], axis=0)[::-1]
    ranks = np.empty((n, m))
    np.put_along_axis(ranks, order, (start + end) / 2.0 + 1.0, axis=0)
    n_eff = np.count_nonzero(d, axis=0).astype(np.int64)
    size = (end - start + 1).astype(np.float64)
    valid = pos < n_eff[None, :]
    # Each member of a group of t ties adds t**2 - 1: t * (t**2 - 1) = t**3 - t per group.
    ties = np.where(valid, size * size - 1.0, 0.0).sum(axis=0)
    return ranks, n_eff, ties


def _signrank_cdfs(ns: list[int]) -> dict[int, FloatArray]:
    """Null CDF of W+ for each ``n`` in ``ns``, by one dynamic-programming pass up to ``max(ns)``.

    The pmf of W+ for ``k`` ranks follows from the one for ``k - 1``: rank ``k`` is in the
    positive set or not, each with probability 1/2. Probabilities are multiples of ``2**-k``,
    exact in float64 for ``k <= 53``.
    """
    want = set(ns)
    top = max(want, default=0)
    out: dict[int, FloatArray] = {}
    pmf = np.zeros(top * (top + 1) // 2 + 1)
    pmf[0] = 1.0
    if 0 in want:
        out[0] = np.ones(1)
    size = 1  # support of W+ for k - 1 ranks: 0 .. size - 1
    for k in range(1, top + 1):
        pmf[k : size + k] += pmf[:size].copy()
        size += k
        pmf[:size] *= 0.5
        if k in want:
            out[k] = np.cumsum(pmf[:size])
    return out


def wilcoxon(
    d: npt.ArrayLike, method: Literal["auto", "exact", "approx"] = "auto"
) -> tuple[FloatArray, FloatArray]:
    r"""Two-sided Wilcoxon signed-rank test of paired differences, per column.

    Zero differences are dropped (Wilcoxon's convention) and tied :math:`|d_i|` get their
    average rank. With :math:`n` non-zero differences and :math:`R_i` the rank of
    :math:`|d_i|`,

    .. math:: W^+ = \sum_{d_i > 0} R_i, \qquad W^- = \frac{n(n+1)}{2} - W^+,
       \qquad \text{stat} = \min(W^+, W^-).

    * ``"exact"``: :math:`p = \min(1,\, 2\,P_0(W^+ \le \text{stat}))` under the exact null
      distribution of :math:`W^+` (every sign pattern equally likely), computed by dynamic
      programming once per distinct :math:`n`. It is only valid without ties among the non-zero
      :math:`|d_i|` (a column with ties raises) and for :math:`n \le 1000`.
    * ``"approx"``: normal approximation without continuity correction, with the tie-corrected
      variance

      .. math:: z = \frac{W^+ - n(n+1)/4}{\sqrt{n(n+1)(2n+1)/24 - \sum_g (t_g^3 - t_g)/48}},
         \qquad p = 2\,(1 - \Phi(|z|)),

      where :math:`t_g` are the sizes of the groups of tied :math:`|d_i|`.
    * ``"auto"`` (default): ``"exact"`` for a column with :math:`n \le 50` and no ties,
      ``"approx"`` otherwise.

    Equal to ``scipy.stats.wilcoxon(col[col != 0], zero_method="wilcox", correction=False, method=m)``
    with ``m`` the method used for the column. A column whose differences are all zero gets
    ``stat = 0.0`` and ``p = 1.0``.

    Parameters
    ----------
    d : array_like, shape (n_queries, n_pairs)
        Paired differences (system minus baseline).
    method : {"auto", "exact", "approx"}, default "auto"

    Returns
    -------
    stat, p : ndarray, shape (n_pairs,)

    References
    ----------
    F. Wilcoxon, "Individual comparisons by ranking methods", Biometrics Bulletin 1(6), 1945;
    Smucker, Allan & Carterette, CIKM 2007.

    Examples
    --------
    >>> stat, p = wilcoxon([[0.1], [0.3], [-0.05], [0.2], [0.15], [0.0]])
    >>> float(stat[0]), round(float(p[0]), 4)
    (1.0, 0.125)
    """
    if method not in ("auto", "exact", "approx"):
        msg = f"method must be 'auto', 'exact' or 'approx'; got {method!r}."
        raise RankframeError(msg)
    arr = _matrix(d, "d")
    m = arr.shape[1]
    ranks, n_eff, ties = _abs_ranks(arr)
    w_plus = np.where(arr > 0.0, ranks, 0.0).sum(axis=0)
    total = n_eff * (n_eff + 1) / 2.0
    stat = np.minimum(w_plus, total - w_plus)
    p = np.ones(m)
    has_ties = ties > 0.0
    if method == "exact":
        bad = np.flatnonzero((has_ties | (n_eff > _EXACT_MAX_N)) & (n_eff > 0))
        if bad.size:
            col = int(bad[0])
            why = (
                "has tied |differences|"
                if has_ties[col]
                else f"has more than {_EXACT_MAX_N} non-zero differences"
            )
            msg = (
                f"wilcoxon(method='exact'): column {col} {why}, where the exact null distribution "
                "does not apply; use method='approx' or 'auto'."
            )
            raise RankframeError(msg)
        exact = n_eff > 0
    elif method == "auto":
        exact = (n_eff > 0) & (n_eff <= _AUTO_EXACT_N) & ~has_ties
    else:
        exact = np.zeros(m, dtype=bool)
    approx = (n_eff > 0) & ~exact

    if exact.any():
        cdfs = _signrank_cdfs(sorted({int(k) for k in n_eff[exact]}))
        for k, cdf in cdfs.items():
            cols = exact & (n_eff == k)
            p[cols] = np.minimum(1.0, 2.0 * cdf[stat[cols].astype(np.int64)])
    if approx.any():
        k = n_eff[approx].astype(np.float64)
        var = k * (k + 1.0) * (2.0 * k + 1.0) / 24.0 - ties[approx] / 48.0
        z = (w_plus[approx] - k * (k + 1.0) / 4.0) / np.sqrt(var)
        p[approx] = np.minimum(1.0, 2.0 * _st.norm.sf(np.abs(z)))
    return stat, p
