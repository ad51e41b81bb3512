r"""The range a measure's per-query values lie in by definition, and intervals clipped to it.

A Student-t interval :math:`\bar x \pm t\, s/\sqrt n` is symmetric around the mean, so for a
measure bounded in :math:`[0, 1]` whose mean is close to a bound it reaches past it (RR with a
mean of 0.973 over 43 queries: :math:`[0.934, 1.012]`). The mean of values in :math:`[a, b]` lies in
:math:`[a, b]` too, so clipping the interval to :math:`[a, b]` drops only values the mean cannot
take: the clipped interval holds the true mean exactly when the unclipped one does (the same
coverage), and it is never wider. A difference of two such means lies in :math:`[a - b, b - a]`.

The ranges come from the definitions, declared by each measure family
(:meth:`rankframe.Measure.bounds`), never from the observed values; a measure without one (DCG,
the counts, Utility, nDCG with a user-given gain map) is left unclipped.
"""

from __future__ import annotations

import numpy as np

from rankframe._errors import RankframeError
from rankframe._measures._names import parse_measures


def measure_bounds(name: str) -> tuple[float, float] | None:
    """The range of a measure's per-query values by definition, or None when it is not bounded.

    Parameters
    ----------
    name
        A canonical measure name, as in the ``measure`` column of an evaluation (``"RR@10"``).

    Returns
    -------
    tuple of float or None
        ``(low, high)``, or None for a measure without a known range (or a name that does not
        parse).

    Examples
    --------
    >>> measure_bounds("RR@10"), measure_bounds("KendallTauB"), measure_bounds("DCG@10")
    ((0.0, 1.0), (-1.0, 1.0), None)
    >>> measure_bounds("nDCG@10"), measure_bounds("nDCG(gains={0:-1,1:1})@10")
    ((0.0, 1.0), None)
    """
    try:
        (measure,) = parse_measures([name])
    except (RankframeError, ValueError):
        return None
    return measure.bounds()


def clip_interval(
    low: np.ndarray, high: np.ndarray, bounds: tuple[float, float] | None
) -> tuple[np.ndarray, np.ndarray]:
    """Clip interval ends to ``bounds`` (NaN ends stay NaN); unchanged when ``bounds`` is None.

    Examples
    --------
    >>> lo, hi = clip_interval(np.array([0.93]), np.array([1.01]), (0.0, 1.0))
    >>> lo.tolist(), hi.tolist()
    ([0.93], [1.0])
    """
    if bounds is None:
        return low, high
    a, b = bounds
    return np.clip(low, a, b), np.clip(high, a, b)
