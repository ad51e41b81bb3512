"""ranx's order of tied scores: the permutation numba's ``np.argsort`` (quicksort) gives.

ranx sorts a ``Run``'s (and ``Qrels``') documents with ``np.argsort(-scores)`` compiled by numba,
whose quicksort is not stable: up to 16 documents it is an insertion sort (ties keep their
insertion order), beyond that a median-of-three quicksort permutes tied documents in its own
way. A plain dict passed to ``ranx.evaluate`` is sorted by ``np.argsort(scores)[::-1]`` instead
(ties in reverse insertion order up to 16 documents). The order decides which tied documents
fall inside a cutoff, so the drop-in reproduces it: the permutation is computed here, and the
rows are handed to :func:`rankframe.evaluate` in that order with ``ties="input"``. A NaN score
sorts as numba's float comparison (``lt_floats``) sorts it: after every number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: Below this span numba's quicksort finishes with an insertion sort.
_SMALL = 15


def _insertion(keys: Sequence[float], perm: list[int], low: int, high: int) -> None:
    for i in range(low + 1, high + 1):
        item = perm[i]
        j = i
        while j > low and keys[item] < keys[perm[j - 1]]:
            perm[j] = perm[j - 1]
            j -= 1
        perm[j] = item


def _partition(keys: Sequence[float], perm: list[int], low: int, high: int) -> int:
    mid = (low + high) >> 1
    if keys[perm[mid]] < keys[perm[low]]:  # median of {low, mid, high} moved to mid
        perm[low], perm[mid] = perm[mid], perm[low]
    if keys[perm[high]] < keys[perm[mid]]:
        perm[high], perm[mid] = perm[mid], perm[high]
    if keys[perm[mid]] < keys[perm[low]]:
        perm[low], perm[mid] = perm[mid], perm[low]
    pivot = keys[perm[mid]]
    perm[high], perm[mid] = perm[mid], perm[high]
    i, j = low, high - 1
    while True:
        while i < high and keys[perm[i]] < pivot:
            i += 1
        while j >= low and pivot < keys[perm[j]]:
            j -= 1
        if i >= j:
            break
        perm[i], perm[j] = perm[j], perm[i]
        i += 1
        j -= 1
    perm[i], perm[high] = perm[high], perm[i]
    return i


def numba_argsort(keys: Sequence[Any]) -> list[int]:
    """The permutation that numba's ``np.argsort(keys)`` (kind ``"quicksort"``) returns.

    Parameters
    ----------
    keys : sequence of float
        The values to sort ascending (any comparable values: ``ranx_order`` passes tuples
        that order NaN as numba does).

    Returns
    -------
    list of int
        Positions of ``keys`` in sorted order; equal keys in numba's order.

    Examples
    --------
    >>> numba_argsort([2.0, 1.0, 2.0, 1.0])  # up to 16 values: stable
    [1, 3, 0, 2]
    """
    perm = list(range(len(keys)))
    if len(perm) < 2:
        return perm
    stack = [(0, len(perm) - 1)]
    while stack:
        low, high = stack.pop()
        while high - low >= _SMALL:
            i = _partition(keys, perm, low, high)
            if high - i > i - low:  # the larger side waits on the stack
                if high > i:
                    stack.append((i + 1, high))
                high = i - 1
            else:
                if i > low:
                    stack.append((low, i - 1))
                low = i + 1
        _insertion(keys, perm, low, high)
    return perm


def ranx_order(scores: Sequence[float], *, reverse_ascending: bool = False) -> list[int]:
    """Positions of ``scores`` in ranx's ranking order (score descending, ranx's tie order).

    ``reverse_ascending=False``: a ``Run``/``Qrels`` sort, ``argsort(-scores)``;
    ``True``: a plain dict given to ``evaluate``, ``argsort(scores)[::-1]``.

    Examples
    --------
    >>> ranx_order([1.0, 3.0, 1.0])
    [1, 0, 2]
    >>> ranx_order([1.0, 3.0, 1.0], reverse_ascending=True)
    [1, 2, 0]
    """
    values = list(scores)
    if any(v != v for v in values):  # NaN: numba's float order (lt_floats) puts it after every number
        signed = values if reverse_ascending else [-v for v in values]
        # (tuples compare as lt_floats does: NaNs after the numbers, tied with each other)
        perm = numba_argsort([(1, 0.0) if v != v else (0, v) for v in signed])
        return perm[::-1] if reverse_ascending else perm
    if len(set(values)) == len(values):  # no tie: every sort agrees
        return sorted(range(len(values)), key=values.__getitem__, reverse=True)
    if reverse_ascending:
        return numba_argsort(values)[::-1]
    return numba_argsort([-v for v in values])
