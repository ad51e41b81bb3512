"""Unpaired tests of two systems' per-query scores, for runs whose query sets differ.

When the runs of a comparison were not scored on the same queries (``complete=False`` and a run
that misses judged queries), each run's mean is over its own queries, as
:func:`rankframe.evaluate` gives it, and a pair of runs is tested as two independent samples
``a`` (the baseline's scores) and ``b`` (the other run's): the difference is ``mean(b) -
mean(a)``.

References
----------
.. [1] B. L. Welch, "The generalization of 'Student's' problem when several different population
   variances are involved", Biometrika 34(1/2), 1947.
.. [2] H. B. Mann and D. R. Whitney, "On a test of whether one of two random variables is
   stochastically larger than the other", Annals of Mathematical Statistics 18(1), 1947.
.. [3] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993
   (Algorithm 16.2: the two-sample bootstrap test of equal means).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy import stats as _st

from rankframe._compare.arrays import _confidence
from rankframe._errors import RankframeError


def _samples(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x, y = (np.asarray(v, dtype=np.float64).ravel() for v in (a, b))
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        msg = "unpaired tests need finite scores: drop the queries a system has no score for."
        raise RankframeError(msg)
    return x, y


def welch(a: npt.ArrayLike, b: npt.ArrayLike, confidence: float = 0.95) -> tuple[float, float, float, float]:
    r"""Welch's t-test of ``mean(b) - mean(a)``, and its confidence interval.

    .. math:: t = \frac{\bar b - \bar a}{\sqrt{s_a^2/n_a + s_b^2/n_b}},\quad
       \nu = \frac{(s_a^2/n_a + s_b^2/n_b)^2}{\frac{(s_a^2/n_a)^2}{n_a - 1} + \frac{(s_b^2/n_b)^2}{n_b - 1}}

    with the two-sided p-value of Student's t with :math:`\nu` degrees of freedom (Welch 1947).
    Returns ``(t, p, ci_low, ci_high)``; NaN where a sample has fewer than two scores; ``t = 0,
    p = 1`` where both samples are constant and equal (the interval then a point).

    Examples
    --------
    >>> t, p, low, high = welch([0.1, 0.2, 0.3, 0.4], [0.5, 0.7, 0.6, 0.9, 0.8])
    >>> round(t, 4), round(p, 4)
    (4.7001, 0.0022)
    """
    x, y = _samples(a, b)
    level = _confidence(confidence)
    na, nb = len(x), len(y)
    if na < 2 or nb < 2:
        return (math.nan,) * 4
    diff = float(y.mean() - x.mean())
    va, vb = x.var(ddof=1) / na, y.var(ddof=1) / nb
    se = math.sqrt(va + vb)
    if se == 0.0:
        return (0.0, 1.0, diff, diff) if diff == 0.0 else (math.copysign(math.inf, diff), 0.0, diff, diff)
    df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
    t = diff / se
    p = float(2.0 * _st.t.sf(abs(t), df))
    half = float(_st.t.ppf(0.5 + level / 2.0, df)) * se
    return t, p, diff - half, diff + half


def mann_whitney(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[float, float]:
    r"""The Mann-Whitney U test (Wilcoxon rank-sum) of ``b`` against ``a``, two-sided.

    :math:`U = \#\{(i, j): b_j > a_i\} + \tfrac12 \#\{(i, j): b_j = a_i\}`; the p-value is
    scipy's (exact for small samples without ties, else the normal approximation with the tie
    correction and a continuity correction). Returns ``(U, p)``; NaN for an empty sample.

    Examples
    --------
    >>> mann_whitney([0.1, 0.2, 0.3], [0.4, 0.5, 0.6])
    (9.0, 0.1)
    """
    x, y = _samples(a, b)
    if len(x) == 0 or len(y) == 0:
        return math.nan, math.nan
    if np.ptp(np.concatenate([x, y])) == 0.0:  # every score equal: no evidence either way
        return len(x) * len(y) / 2.0, 1.0
    res = _st.mannwhitneyu(y, x, alternative="two-sided")
    return float(res.statistic), float(res.pvalue)


def bootstrap(
    a: npt.ArrayLike, b: npt.ArrayLike, n_resamples: int, seed: int, confidence: float = 0.95
) -> tuple[float, float, float]:
    r"""The two-sample bootstrap of ``mean(b) - mean(a)``: p-value and percentile interval.

    Each sample is resampled with replacement ``n_resamples`` times; the interval is the
    percentile interval of the resampled differences. The p-value resamples each sample
    shifted to the pooled mean (the null of equal means, Efron and Tibshirani's Algorithm
    16.2): :math:`p = (1 + \#\{|\bar b^* - \bar a^*| \ge |\bar b - \bar a|\}) / (1 + B)`.
    Returns ``(p, ci_low, ci_high)``.

    Examples
    --------
    >>> p, low, high = bootstrap([0.1, 0.2, 0.3, 0.4], [0.5, 0.7, 0.6, 0.9, 0.8], 2000, 0)
    >>> p < 0.01, low > 0
    (True, True)
    """
    x, y = _samples(a, b)
    level = _confidence(confidence)
    if len(x) == 0 or len(y) == 0:
        return (math.nan,) * 3
    rng = np.random.default_rng(seed)
    diff = y.mean() - x.mean()
    ia = rng.integers(0, len(x), size=(n_resamples, len(x)))
    ib = rng.integers(0, len(y), size=(n_resamples, len(y)))
    star = y[ib].mean(axis=1) - x[ia].mean(axis=1)
    pooled = np.concatenate([x, y]).mean()
    x0, y0 = x - x.mean() + pooled, y - y.mean() + pooled
    null = y0[ib].mean(axis=1) - x0[ia].mean(axis=1)
    p = (1 + int(np.sum(np.abs(null) >= abs(diff) - 1e-12))) / (1 + n_resamples)
    low, high = np.quantile(star, [(1 - level) / 2, (1 + level) / 2])
    return float(p), float(low), float(high)


def permutation(a: npt.ArrayLike, b: npt.ArrayLike, n_resamples: int, seed: int) -> tuple[float, float]:
    r"""The two-sample permutation test of ``mean(b) - mean(a)``.

    The pooled scores are split at random into samples of the two sizes ``n_resamples`` times:
    :math:`p = (1 + \#\{|\bar b^* - \bar a^*| \ge |\bar b - \bar a|\}) / (1 + B)`. Returns
    ``(mean(b) - mean(a), p)``.

    Examples
    --------
    >>> diff, p = permutation([0.1, 0.2, 0.3, 0.4], [0.5, 0.7, 0.6, 0.9, 0.8], 2000, 0)
    >>> round(diff, 2), p < 0.05
    (0.45, True)
    """
    x, y = _samples(a, b)
    if len(x) == 0 or len(y) == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    pooled = np.concatenate([x, y])
    diff = y.mean() - x.mean()
    order = rng.permuted(np.broadcast_to(np.arange(len(pooled)), (n_resamples, len(pooled))), axis=1)
    shuffled = pooled[order]
    star = shuffled[:, len(x):].mean(axis=1) - shuffled[:, :len(x)].mean(axis=1)
    p = (1 + int(np.sum(np.abs(star) >= abs(diff) - 1e-12))) / (1 + n_resamples)
    return float(diff), float(p)


def effect_size(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    r"""Cohen's :math:`d` of two samples: :math:`(\bar b - \bar a) / s_p`, the pooled standard deviation.

    :math:`s_p^2 = ((n_a - 1) s_a^2 + (n_b - 1) s_b^2) / (n_a + n_b - 2)`; NaN for fewer than
    three scores or :math:`s_p = 0`.

    Examples
    --------
    >>> round(effect_size([0.1, 0.2, 0.3, 0.4], [0.5, 0.7, 0.6, 0.9, 0.8]), 4)
    3.0741
    """
    x, y = _samples(a, b)
    na, nb = len(x), len(y)
    if na + nb < 3 or na == 0 or nb == 0:
        return math.nan
    var = ((na - 1) * (x.var(ddof=1) if na > 1 else 0.0) + (nb - 1) * (y.var(ddof=1) if nb > 1 else 0.0))
    sp = math.sqrt(var / (na + nb - 2))
    return float((y.mean() - x.mean()) / sp) if sp > 0 else math.nan
