"""Resampling paired tests: Fisher's randomisation (sign-flip) test and the paired bootstrap.

Both draw *one* random matrix per batch and apply it to every column with a single matrix product,
so that all the columns see the same permutations (or resamples): the p-values of several systems
against one baseline are then computed on a common set of random draws, and the results do not
depend on the batch size.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from rankframe._compare.arrays import FloatArray, _confidence, _matrix
from rankframe._errors import RankframeError

Progress = Callable[[int, int], object]
Seed = int | np.random.Generator | None

#: Relative tolerance for "at least as extreme" comparisons of resampled statistics, on the
#: scale of ``mean(|d|)`` of the column: absorbs float noise between summation orders.
_RTOL = 1e-12
#: Memory target of one batch's random matrix, in bytes.
_BATCH_BYTES = 64 * 2**20


def _count(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        msg = f"{name} must be a positive integer; got {value!r}."
        raise RankframeError(msg)
    return int(value)


def _batch_rows(batch: int | None, n_queries: int, total: int) -> int:
    if batch is None:
        return max(1, min(total, _BATCH_BYTES // (8 * n_queries)))
    return min(_count(batch, "batch"), total)


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
