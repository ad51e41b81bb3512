r"""The structured hinge loss on numpy arrays: one assignment problem per group.

``"structured"`` is the structured hinge surrogate of Shalev-Shwartz & Ben-David (2014, §17.4,
eq. 17.8), an upper bound of their NDCG loss ``"ndcg"``
(:math:`\Delta(h, y) = 1 - G(h, y) / G(y, y)`, defined with its discount :math:`D` and positions
:math:`\pi` in :mod:`rankframe.ltr._loss_numpy`):

.. math:: \ell(h, y) = \max_{v \in V} \Big[\Delta(v, y) + \sum_{i=1}^r (v_i - \pi(y)_i)\,
          h_i\Big]

over the permutations :math:`V` of :math:`(1..r)` in the book's encoding (:math:`v_i` is the
position of item :math:`i` from the bottom) and :math:`\Delta` the NDCG loss. The
maximiser solves :math:`\operatorname{argmin}_v \sum_i (\alpha_i v_i + \beta_i D(v_i))` with
:math:`\alpha_i = -h_i`, :math:`\beta_i = y_i / G(y, y)` (as in the book), an assignment problem
with costs :math:`A_{ij} = j \alpha_i + D(j) \beta_i` solved by
``scipy.optimize.linear_sum_assignment`` (one per group; scipy is imported on first use).
The gradient w.r.t. the scores is :math:`v^*_i - \pi(y)_i` (a subgradient; the gradient
where the maximiser is unique). Labels that tie make :math:`\pi(y)` ambiguous: they are
ordered by the current scores (then by input order), i.e. :math:`\pi(y)` is the
label-consistent permutation that maximises :math:`\sum_i \pi(y)_i h_i`. This makes the
value independent of the row order and 0 for a group whose labels all tie, and it is the
tightest label-consistent choice; the bound :math:`\Delta(\pi(h), y) \le \ell` holds for
any choice. With label ties the surrogate is then convex in :math:`h` only piecewise (with
distinct labels it is the book's convex function). Groups with :math:`G(y, y) = 0` contribute
0 (every ranking has loss 0 there).

:func:`rankframe.ltr._loss_numpy.loss_and_grad` calls :func:`_structured` for
``loss="structured"``; the Polars plans of :mod:`rankframe.ltr._loss_polars` do not offer it.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _structured_discount(r: int, k: int | None) -> np.ndarray:
    """The NDCG loss's discount :math:`D(j)` for the bottom-up positions :math:`j = 1..r`."""
    j = np.arange(1, r + 1, dtype=np.float64)
    d = 1.0 / np.log2(r - j + 2.0)
    if k is not None:
        d = np.where(j >= r - k + 1, d, 0.0)
    return d


def _pi_labels(h: np.ndarray, y: np.ndarray) -> np.ndarray:
    r""":math:`\pi(y)` bottom-up: the top item gets :math:`r`.

    Labels, then scores, then input order break ties.
    """
    r = h.size
    order = np.lexsort((np.arange(r), -h, -y))
    pi = np.empty(r, dtype=np.float64)
    pi[order] = np.arange(r, 0, -1, dtype=np.float64)
    return pi


def _structured_group(
    h: np.ndarray, y: np.ndarray, k: int | None, solve: Any
) -> tuple[float, np.ndarray, np.ndarray]:
    """Eq. 17.8 for one group: ``(value, gradient, v*)`` (``v*`` bottom-up positions)."""
    r = h.size
    d = _structured_discount(r, k)
    pi = _pi_labels(h, y)
    ideal = float(np.sort(y) @ d)  # G(y, y): the largest label at the top position r
    if r < 2 or ideal <= 0:
        return 0.0, np.zeros(r), pi
    j = np.arange(1, r + 1, dtype=np.float64)
    beta = y / ideal
    cost = np.outer(-h, j) + np.outer(beta, d)  # A_ij = j * alpha_i + D(j) * beta_i
    _, col = solve(cost)
    v = col.astype(np.float64) + 1.0
    delta = 1.0 - float(d[col] @ y) / ideal
    diff = v - pi
    return delta + float(diff @ h), diff, v


def _structured(
    h: np.ndarray, y: np.ndarray, off: np.ndarray, k: int | None
) -> tuple[np.ndarray, np.ndarray]:
    from scipy.optimize import linear_sum_assignment

    n_groups = off.size - 1
    values = np.zeros(n_groups)
    grad = np.zeros(h.size)
    for g in range(n_groups):
        lo, hi = int(off[g]), int(off[g + 1])
        values[g], grad[lo:hi], _ = _structured_group(h[lo:hi], y[lo:hi], k, linear_sum_assignment)
    return values, grad
