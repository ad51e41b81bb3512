"""Vectorised paired significance tests for comparing ranking systems over the same queries.

Every function takes a matrix of per-query scores and works on all of its columns in one
vectorised pass:

* ``x``: scores, shape ``(n_queries, n_systems)``;
* ``d``: paired differences, shape ``(n_queries, n_pairs)``, each column a system minus its
  baseline over the same queries.

Inputs must be complete: a NaN (or an infinity) raises :class:`~rankframe.RankframeError` (a
:class:`ValueError`); drop or fill the queries a system has no score for before testing.

The resampling tests (:func:`permutation`, :func:`bootstrap`) draw *one* random matrix per batch
and apply it to every column with a single matrix product, so that all the columns see the same
permutations (or resamples): the p-values of several systems against one baseline are then
computed on a common set of random draws, and the results do not depend on the batch size.

References
----------
.. [1] M. D. Smucker, J. Allan and B. Carterette, "A comparison of statistical significance
   tests for information retrieval evaluation", CIKM 2007.
.. [2] T. Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014.
.. [3] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993.
.. [4] S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian
   Journal of Statistics 6(2), 1979.
.. [5] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate: a practical and
   powerful approach to multiple testing", JRSS B 57(1), 1995.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import combinations
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import stats as _st

from rankframe._errors import RankframeError

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "bootstrap",
    "correct",
    "effect_size",
    "mean_ci",
    "paired_t",
    "permutation",
    "tukey_hsd",
    "wilcoxon",
    "wins_ties_losses",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Progress = Callable[[int, int], object]
Seed = int | np.random.Generator | None

#: The paired tests, by the names ``compare()`` accepts.
TESTS: tuple[str, ...] = ("t", "wilcoxon", "permutation", "bootstrap")
#: The multiple-comparison corrections :func:`correct` accepts.
CORRECTIONS: tuple[str, ...] = ("none", "bonferroni", "holm", "bh")

#: Relative tolerance for "at least as extreme" comparisons of resampled statistics, on the
#: scale of ``mean(|d|)`` of the column: absorbs float noise between summation orders.
_RTOL = 1e-12
#: Memory target of one batch's random matrix, in bytes.
_BATCH_BYTES = 64 * 2**20
#: Largest number of non-zero differences the exact Wilcoxon distribution is computed for.
_EXACT_MAX_N = 1000
#: ``method="auto"`` of :func:`wilcoxon` uses the exact distribution up to this many non-zero
#: differences (and no ties).
_AUTO_EXACT_N = 50


# ---------------------------------------------------------------------------------------------
# input checks


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


def _count(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        msg = f"{name} must be a positive integer; got {value!r}."
        raise RankframeError(msg)
    return int(value)


def _batch_rows(batch: int | None, n_queries: int, total: int) -> int:
    if batch is None:
        return max(1, min(total, _BATCH_BYTES // (8 * n_queries)))
    return min(_count(batch, "batch"), total)


def _constant(d: FloatArray) -> npt.NDArray[np.bool_]:
    """Columns whose entries are all equal (exactly)."""
    return np.all(d == d[:1], axis=0)


# ---------------------------------------------------------------------------------------------
# descriptive


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

    Equal to ``scipy.stats.wilcoxon(col, zero_method="wilcox", correction=False, method=m)``
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


# ---------------------------------------------------------------------------------------------
# randomisation (sign-flip permutation) test


def _random_signs(rng: np.random.Generator, rows: int, n: int, out: FloatArray) -> FloatArray:
    """Fill ``out[:rows]`` with random signs, one row per sign vector.

    Query ``i`` gets +1 when bit ``i % 64`` of the row's ``uint64`` draw ``i // 64`` is set, -1
    otherwise: one full 64-bit draw per 64 queries, so the stream does not depend on the batching.
    """
    words = rng.integers(0, 2**64, size=(rows, -(-n // 64)), dtype=np.uint64)
    bits = np.unpackbits(words.astype("<u8", copy=False).view(np.uint8), axis=1, count=n, bitorder="little")
    signs = out[:rows]
    np.multiply(bits, 2.0, out=signs)
    signs -= 1.0
    return signs


def _enumerated_signs(start: int, stop: int, n: int, out: FloatArray) -> FloatArray:
    """Sign patterns ``start..stop-1``: query ``i`` gets +1 when bit ``i`` of the pattern's index is set."""
    codes = np.arange(start, stop, dtype=np.uint64)[:, None]
    bits = (codes >> np.arange(n, dtype=np.uint64)[None, :]) & np.uint64(1)
    signs = out[: stop - start]
    np.multiply(bits, 2.0, out=signs)
    signs -= 1.0
    return signs


def permutation(
    d: npt.ArrayLike,
    n_permutations: int = 10_000,
    seed: Seed = 0,
    *,
    batch: int | None = None,
    progress: Progress | None = None,
) -> tuple[FloatArray, FloatArray]:
    r"""Two-sided paired randomisation (sign-flip permutation) test, per column.

    Under :math:`H_0` the system and its baseline are exchangeable on every query, so each
    difference's sign is equally likely to be flipped. With the statistic
    :math:`T = \bar d` and :math:`B` random sign vectors :math:`\sigma^{(b)} \in \{-1, 1\}^n`,

    .. math:: T^{*b} = \frac{1}{n}\sum_i \sigma^{(b)}_i d_i, \qquad
       p = \frac{1 + \#\{b : |T^{*b}| \ge |T| - \epsilon\}}{1 + B},

    with :math:`\epsilon = 10^{-12}\,\overline{|d|}` absorbing float noise. When
    :math:`2^n \le B` the :math:`2^n` sign vectors are enumerated instead (an exact test):
    :math:`p = \#\{\sigma : |T^{\sigma}| \ge |T| - \epsilon\} / 2^n`.

    All columns share the same sign vectors: each batch is one ``signs @ d`` product in float64.
    The random signs come from ``np.random.default_rng(seed)``: each sign vector is
    ``ceil(n / 64)`` ``uint64`` draws, query ``i`` taking +1 when bit ``i % 64`` of draw
    ``i // 64`` is set, so the result does not depend on ``batch``.

    Parameters
    ----------
    d : array_like, shape (n_queries, n_pairs)
        Paired differences (system minus baseline).
    n_permutations : int, default 10_000
        Number of random sign vectors :math:`B`.
    seed : int, numpy.random.Generator or None, default 0
        Seed of ``np.random.default_rng``.
    batch : int, optional
        Sign vectors per batch; by default a batch's sign matrix stays within about 64 MiB.
    progress : callable, optional
        Called as ``progress(done, total)`` after each batch.

    Returns
    -------
    stat, p : ndarray, shape (n_pairs,)
        The mean difference and the p-value.

    References
    ----------
    Smucker, Allan & Carterette, "A comparison of statistical significance tests for
    information retrieval evaluation", CIKM 2007 (Fisher's randomization test);
    Efron & Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 15.

    Examples
    --------
    >>> d = [[0.1], [0.3], [-0.05], [0.2], [0.15]]
    >>> stat, p = permutation(d)  # 2**5 <= 10_000: all 32 sign vectors, an exact test
    >>> round(float(stat[0]), 2), float(p[0])
    (0.14, 0.125)
    """
    arr = _matrix(d, "d")
    n, m = arr.shape
    n_perm = _count(n_permutations, "n_permutations")
    stat = arr.mean(axis=0)
    threshold = np.abs(arr.sum(axis=0)) - _RTOL * np.abs(arr).sum(axis=0)
    exact = n < 63 and 2**n <= n_perm
    total = 2**n if exact else n_perm
    rows = _batch_rows(batch, n, total)
    rng = None if exact else np.random.default_rng(seed)
    buf = np.empty((rows, n))
    count = np.zeros(m, dtype=np.int64)
    done = 0
    while done < total:
        b = min(rows, total - done)
        if rng is None:
            signs = _enumerated_signs(done, done + b, n, buf)
        else:
            signs = _random_signs(rng, b, n, buf)
        count += np.count_nonzero(np.abs(signs @ arr) >= threshold, axis=0)
        done += b
        if progress is not None:
            progress(done, total)
    p = count / total if exact else (count + 1.0) / (total + 1.0)
    return stat, p


# ---------------------------------------------------------------------------------------------
# paired bootstrap


def bootstrap(
    d: npt.ArrayLike,
    n_bootstrap: int = 10_000,
    seed: Seed = 0,
    confidence: float = 0.95,
    *,
    batch: int | None = None,
    progress: Progress | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""Paired bootstrap over queries: p-value and percentile interval of the mean difference.

    Each of the :math:`B` resamples draws :math:`n` query indices with replacement
    (``rng.integers(0, n, size=n)`` with ``rng = np.random.default_rng(seed)``, one row per
    resample, the same rows for every column) and takes the mean :math:`\bar d^{*b}`.

    * Interval: the percentile interval, the :math:`(1-c)/2` and :math:`(1+c)/2` quantiles of
      :math:`\bar d^{*b}` (``np.quantile``, linear interpolation).
    * p-value of :math:`H_0: E[d] = 0` from the null-centred (shifted) bootstrap distribution:
      resampling :math:`d - \bar d` gives means :math:`\bar d^{*b} - \bar d`, and

      .. math:: p = \frac{1 + \#\{b : |\bar d^{*b} - \bar d| \ge |\bar d| - \epsilon\}}{1 + B},

      with :math:`\epsilon = 10^{-12}\,\overline{|d|}` absorbing float noise.

    With a single query there is no variability to resample: p, low and high are NaN.

    Parameters
    ----------
    d : array_like, shape (n_queries, n_pairs)
        Paired differences (system minus baseline).
    n_bootstrap : int, default 10_000
        Number of resamples :math:`B`.
    seed : int, numpy.random.Generator or None, default 0
        Seed of ``np.random.default_rng``.
    confidence : float, default 0.95
        Coverage ``c`` of the interval.
    batch : int, optional
        Resamples per batch; by default a batch's index matrix stays within about 64 MiB.
    progress : callable, optional
        Called as ``progress(done, total)`` after each batch.

    Returns
    -------
    p, low, high : ndarray, shape (n_pairs,)

    References
    ----------
    B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993,
    §13.3 (percentile interval) and §16.4 (testing with the shifted distribution);
    Sakai, "Statistical reform in information retrieval?", SIGIR Forum 2014.

    Examples
    --------
    >>> d = [[0.1], [0.3], [-0.05], [0.2], [0.15], [0.25], [0.05], [0.1]]
    >>> p, low, high = bootstrap(d, n_bootstrap=2000, seed=1)
    >>> bool(p[0] < 0.01), bool(0.0 < low[0] < 0.14 < high[0] < 0.25)
    (True, True)
    """
    arr = _matrix(d, "d")
    n, m = arr.shape
    n_boot = _count(n_bootstrap, "n_bootstrap")
    c = _confidence(confidence)
    if n < 2:
        nan = np.full(m, np.nan)
        return nan, nan.copy(), nan.copy()
    rows = _batch_rows(batch, n, n_boot)
    rng = np.random.default_rng(seed)
    means = np.empty((n_boot, m))
    counts = np.empty((rows, n))
    offsets = (np.arange(rows, dtype=np.int64) * n)[:, None]
    done = 0
    while done < n_boot:
        b = min(rows, n_boot - done)
        idx = rng.integers(0, n, size=(b, n))
        idx += offsets[:b]
        # Row r of `counts` holds how often each query was drawn in resample r.
        cnt = counts[:b]
        cnt[...] = np.bincount(idx.ravel(), minlength=b * n).reshape(b, n)
        np.matmul(cnt, arr, out=means[done : done + b])
        done += b
        if progress is not None:
            progress(done, n_boot)
    means /= n
    mean = arr.mean(axis=0)
    low, high = np.quantile(means, [(1.0 - c) / 2.0, (1.0 + c) / 2.0], axis=0)
    threshold = np.abs(mean) - _RTOL * np.abs(arr).mean(axis=0)
    count = np.count_nonzero(np.abs(means - mean) >= threshold, axis=0)
    return (count + 1.0) / (n_boot + 1.0), low, high


# ---------------------------------------------------------------------------------------------
# Tukey HSD


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


# ---------------------------------------------------------------------------------------------
# multiple comparisons


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
