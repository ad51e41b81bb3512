r"""Ranking losses on numpy arrays: per-query values and their gradients w.r.t. the scores.

A batch holds several *groups* (queries). Each group :math:`q` has :math:`r` documents with a
predicted score :math:`h_i` (``scores``, "higher is better", :math:`h_i = \langle w, x_i\rangle`
for a linear ranker) and a graded relevance label :math:`y_i \ge 0` (``labels``). In the numpy
functions the groups are given as CSR boundaries ``offsets`` (``n_groups + 1`` int64 values):
group ``g`` is the rows ``offsets[g]:offsets[g + 1]`` (the rows of a group are contiguous).

Losses (the public names, :data:`LOSSES`), each per group:

``"pointwise"``
    Squared error :math:`\sum_i (h_i - y_i)^2`: the pointwise approach of the ITMO University
    wiki article on ranking quality metrics (the "ITMO wiki" below).
``"hinge"``
    Pairwise hinge :math:`\sum_{y_i > y_j} [1 - (h_i - h_j)]_+`. De's CS 419M lecture notes
    (sec. 4.2.2) write :math:`\sum_{i, j} [1 - \operatorname{sign}(y_i - y_j)(h_i - h_j)]_+` over
    *ordered* pairs; their terms for :math:`(i, j)` and :math:`(j, i)` are equal when
    :math:`y_i \ne y_j`, and the pairs with :math:`y_i = y_j` (and :math:`i = j`) add the
    constant 1 each. Here each pair with distinct labels counts **once** and the constant
    tied-label terms are dropped: the notes' sum is twice this one plus the number of ordered
    pairs with equal labels.
``"exponential"``
    :math:`\sum_{i < j} \exp(-(h_i - h_j)(y_i - y_j))` over the **unordered** pairs, as De's
    lecture notes (sec. 4.2.2) write it (their :math:`i > j`): each pair once, the pairs with
    equal labels included (they add the constant :math:`e^0 = 1`, with zero gradient).
``"ranknet"``
    :math:`\sum_{y_i > y_j} \log(1 + e^{-(h_i - h_j)})` (RankNet, as the ITMO wiki writes it:
    :math:`L(M) = \log(1 + e^{-M})` of the margin :math:`M = h_i - h_j` of each pair ordered
    by the labels), computed as a stable softplus.
``"lambdarank"``
    RankNet's pair gradients weighted by :math:`|\Delta nDCG_{ij}|`, the change of nDCG when
    documents :math:`i` and :math:`j` swap places in the ranking induced by the current
    scores (LambdaRank, as in the ITMO wiki). nDCG as in the ITMO wiki: gain :math:`2^{y} - 1`,
    discount :math:`1 / \log_2(1 + \rho)` at rank :math:`\rho` (1 = top; the base of the
    logarithm cancels in the ratio), zero below the cutoff ``k``, normalised by the ideal DCG
    (IDCG@k).
    Swapping :math:`i` and :math:`j` changes DCG by
    :math:`(g_i - g_j)(d(\rho_i) - d(\rho_j))`, so

    .. math:: \lambda\text{-weight}_{ij} = |\Delta nDCG_{ij}| =
              \frac{|g_i - g_j| \, |d(\rho_i) - d(\rho_j)|}{\mathrm{IDCG@k}}.

    The reported value is :math:`\sum_{y_i > y_j} |\Delta nDCG_{ij}| \log(1 + e^{-(h_i - h_j)})`
    with the weights **held constant** (LambdaRank defines gradients, not a loss); its gradient
    (weights constant) is the lambdas. The ranks :math:`\rho` come from the scores, ties broken
    by input order (the earlier row ranks higher), like Polars'
    ``rank("ordinal", descending=True)``. Groups with IDCG@k = 0 contribute 0.
``"kendall"``
    The Kendall-tau loss of Shalev-Shwartz & Ben-David (2014, sec. 17.4, p. 202), literally:

    .. math:: \Delta(h, y) = \frac{2}{r(r-1)} \sum_{i < j}
              \mathbb{1}[\operatorname{sign}(h_i - h_j) \ne \operatorname{sign}(y_i - y_j)].

    A pair tied in the labels therefore counts as an error unless the scores tie too, and a
    pair with distinct labels counts when the scores tie. 0 for :math:`r < 2`.
``"ndcg"``
    The NDCG loss of Shalev-Shwartz & Ben-David (2014, p. 202):
    :math:`\Delta(h, y) = 1 - G(h, y) / G(y, y)` with :math:`G(y', y) = \sum_i D(\pi(y')_i)\, y_i`
    (*linear* gains :math:`y_i`, as in the book), where :math:`\pi(y')_i \in \{1..r\}` is the
    position of item :math:`i` counted from the *bottom* (the top item gets :math:`r`) and
    :math:`D(i) = 1/\log_2(r - i + 2)` for :math:`i \in \{r - k + 1, \dots, r\}`, else 0. In
    terms of the usual rank from the top :math:`\rho = r + 1 - \pi`, :math:`D = 1/\log_2(1 +
    \rho)` for :math:`\rho \le k`: this is 1 - nDCG@k with linear gains. ``k=None`` (or
    :math:`k \ge r`) keeps the whole list. Score ties: input order (as ``"lambdarank"``).
    Groups with :math:`G(y, y) = 0` contribute 0.
``"structured"``
    The structured hinge surrogate of Shalev-Shwartz & Ben-David (2014, eq. 17.8), an upper
    bound of ``"ndcg"``: its formula, the assignment problem that gives its maximiser and its
    tie rule are in :mod:`rankframe.ltr._loss_structured`.

``"kendall"`` and ``"ndcg"`` are piecewise constant in the scores: their values are exact and
their gradient is 0 almost everywhere (everywhere except at score ties, where they jump), and
0 is what is returned. ``"hinge"`` uses the subgradient 0 at its kinks.

Labels should be non-negative for ``"lambdarank"``, ``"ndcg"`` and ``"structured"`` (the
numpy path raises otherwise; the Polars path does not check). ``k`` (a positive int or
``None``) is the cutoff of those three losses and is ignored by the others.

References
----------
Shalev-Shwartz, S. and Ben-David, S. (2014). *Understanding Machine Learning: From Theory to
Algorithms*. Cambridge University Press, §17.4 "Learning to rank", pp. 202-204.

De, A. CS 419M Introduction to Machine Learning, Lecture 4: Evaluation protocol and ranking
losses. IIT Bombay, Spring 2021-22.

Ranking quality metrics (in Russian), ITMO University wiki, after K. V. Vorontsov's machine
learning course.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankframe._errors import RankframeError
from rankframe.ltr._loss_common import _check_k, _check_loss
from rankframe.ltr._loss_structured import _structured

__all__ = ["loss_and_grad"]

_NDCG_LABELS = ("lambdarank", "ndcg", "structured")


# --------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------
def _check_arrays(scores: Any, labels: Any, offsets: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    h = np.ascontiguousarray(scores, dtype=np.float64)
    y = np.ascontiguousarray(labels, dtype=np.float64)
    off = np.ascontiguousarray(offsets, dtype=np.int64)
    if h.ndim != 1 or y.ndim != 1 or off.ndim != 1:
        msg = "scores, labels and offsets must be one-dimensional arrays."
        raise RankframeError(msg)
    if h.shape != y.shape:
        msg = f"scores and labels differ in length ({h.size} vs {y.size})."
        raise RankframeError(msg)
    if off.size == 0 or off[0] != 0 or off[-1] != h.size or np.any(np.diff(off) < 0):
        msg = (
            "offsets must be non-decreasing CSR boundaries starting at 0 and ending at the number "
            f"of rows ({h.size}); got {off.size} values."
        )
        raise RankframeError(msg)
    return h, y, off


# --------------------------------------------------------------------------------------------
# numpy building blocks
# --------------------------------------------------------------------------------------------
def _softplus_sigmoid(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""RankNet's pair term and its slope: :math:`\log(1 + e^{-m})` and :math:`1 / (1 + e^{m})`.

    Both from :math:`e^{-|m|}`, so neither overflows and both keep their relative accuracy in the
    tails.
    """
    e = np.exp(-np.abs(m))
    inv = 1.0 / (1.0 + e)
    return np.maximum(-m, 0.0) + np.log1p(e), np.where(m >= 0, e * inv, inv)


def _pairs_after(rows: np.ndarray, first: np.ndarray, stop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pair each position ``p`` with every position in ``first[p]:stop[p]``, by index arithmetic.

    Returns the pairs as ``(rows[p], rows[q])``: ``np.repeat`` lays out the ``stop - first``
    partners of each position, an ``arange`` numbers them.
    """
    counts = stop - first
    total = int(counts.sum())
    before = np.cumsum(counts) - counts
    q = np.arange(total, dtype=np.int64) + np.repeat(first - before, counts)
    return np.repeat(rows, counts), rows[q]


def _group_ids(off: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(off.size - 1, dtype=np.int64), np.diff(off))


def _unordered_pairs(off: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All within-group pairs ``a < b`` (row indices) and their group (no loop over groups)."""
    gid = _group_ids(off)
    rows = np.arange(gid.size, dtype=np.int64)
    a, b = _pairs_after(rows, rows + 1, off[1:][gid])
    return a, b, gid[a]


def _oriented_pairs(off: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The within-group pairs with ``y[i] > y[j]`` as ``(i, j, group)`` (no loop over groups).

    The rows are sorted by label (descending) within their group; each row then pairs with the
    rows after the end of its run of equal labels, up to the end of its group.
    """
    n = y.size
    gid = _group_ids(off)
    if n == 0:
        return gid, gid, gid
    order = np.lexsort((-y, gid))
    ys, gs = y[order], gid[order]
    new_run = np.ones(n, dtype=bool)
    new_run[1:] = (gs[1:] != gs[:-1]) | (ys[1:] != ys[:-1])
    starts = np.flatnonzero(new_run)
    run_end = np.repeat(np.append(starts[1:], n), np.diff(np.append(starts, n)))
    i, j = _pairs_after(order, run_end, off[1:][gs])
    return i, j, gid[i]


def _discount(rank: np.ndarray, k: int | None) -> np.ndarray:
    r""":math:`1 / \log_2(1 + \rho)` for ranks :math:`\rho \le k`, else 0."""
    d = 1.0 / np.log2(1.0 + rank)
    if k is not None:
        d = np.where(rank <= k, d, 0.0)
    return d


def _ranks(off: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank (1 = top) of each row by ``key`` descending within its group, ties by input order.

    Returns ``(rank, order, group)``: ``order`` lists the rows group by group, best first.
    """
    n = key.size
    group = np.repeat(np.arange(off.size - 1, dtype=np.int64), np.diff(off))
    order = np.lexsort((np.arange(n), -key, group))
    rank = np.empty(n, dtype=np.float64)
    rank[order] = np.arange(n, dtype=np.float64) - off[:-1][group[order]] + 1.0
    return rank, order, group


def _dcg(
    group: np.ndarray, order: np.ndarray, gain: np.ndarray, disc: np.ndarray, n_groups: int
) -> np.ndarray:
    """Per-group sum of ``gain * disc``, accumulated in ranked order.

    Summing in ranked order makes DCG == IDCG exactly for an ideal ranking.
    """
    return np.bincount(group[order], weights=(gain * disc)[order], minlength=n_groups)


def _ideal_dcg(off: np.ndarray, y: np.ndarray, gain: np.ndarray, k: int | None) -> np.ndarray:
    """IDCG@k per group: the gains sorted by label, best first."""
    rank, order, group = _ranks(off, y)
    return _dcg(group, order, gain, _discount(rank, k), off.size - 1)


def _check_nonneg(loss: str, y: np.ndarray) -> None:
    if loss in _NDCG_LABELS and y.size and y.min() < 0:
        msg = f"The {loss!r} loss needs non-negative labels (got {y.min()!r})."
        raise RankframeError(msg)


def _scatter(n: int, i: np.ndarray, j: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """Gradient of a sum of pair terms :math:`f(h_i - h_j)` given ``coef`` = :math:`f'`."""
    return np.bincount(i, weights=coef, minlength=n) - np.bincount(j, weights=coef, minlength=n)


def loss_and_grad(
    loss: str,
    scores: Any,
    labels: Any,
    offsets: Any,
    *,
    k: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Per-group values of a ranking loss and the gradient of their sum w.r.t. the scores.

    The loss conventions (pair sets, gains, tie rules) are in the module docstring; in short,
    per group, with its source (the module docstring's references):

    - ``"pointwise"``: :math:`\sum_i (h_i - y_i)^2` (ITMO wiki);
    - ``"hinge"``: :math:`\sum_{y_i > y_j} [1 - (h_i - h_j)]_+` (De, each pair once);
    - ``"exponential"``: :math:`\sum_{i < j} e^{-(h_i - h_j)(y_i - y_j)}` (De);
    - ``"ranknet"``: :math:`\sum_{y_i > y_j} \log(1 + e^{-(h_i - h_j)})` (ITMO wiki);
    - ``"lambdarank"``: :math:`\sum_{y_i > y_j} |\Delta nDCG_{ij}| \log(1 + e^{-(h_i - h_j)})`,
      weights held constant, gains :math:`2^y - 1` (ITMO wiki);
    - ``"kendall"``: :math:`\frac{2}{r(r-1)}\sum_{i<j} \mathbb{1}[\operatorname{sign}(h_i - h_j)
      \ne \operatorname{sign}(y_i - y_j)]` (Shalev-Shwartz & Ben-David), gradient 0;
    - ``"ndcg"``: :math:`1 - G(h, y) / G(y, y)`, linear gains (Shalev-Shwartz & Ben-David), gradient 0;
    - ``"structured"``: :math:`\max_v [\Delta(v, y) + \sum_i (v_i - \pi(y)_i) h_i]`
      (Shalev-Shwartz & Ben-David, eq. 17.8), gradient :math:`v^* - \pi(y)`.

    Parameters
    ----------
    loss
        One of :data:`LOSSES`.
    scores
        Predicted scores, float64, shape ``(n,)``.
    labels
        Graded relevance labels, float64, shape ``(n,)``.
    offsets
        CSR group boundaries, int64, shape ``(n_groups + 1,)``: group ``g`` is the rows
        ``offsets[g]:offsets[g + 1]``. Empty groups are allowed (loss 0).
    k
        Cutoff of ``"lambdarank"``, ``"ndcg"`` and ``"structured"`` (``None``: the whole list).

    Returns
    -------
    values : numpy.ndarray
        The loss of each group, shape ``(n_groups,)``.
    grad : numpy.ndarray
        :math:`\partial \sum_g \ell_g / \partial h`, shape ``(n,)``.

    Notes
    -----
    The pairwise losses build every within-group pair at once (no loop over groups), in
    :math:`O(\sum_g r_g^2)` memory; ``"structured"`` solves one assignment problem per group.

    Examples
    --------
    >>> import numpy as np
    >>> values, grad = loss_and_grad("ranknet", [0.0, 0.0, 1.0], [1.0, 0.0, 2.0], [0, 2, 3])
    >>> values.round(6).tolist(), grad.round(6).tolist()
    ([0.693147, 0.0], [-0.5, 0.5, 0.0])
    >>> loss_and_grad("hinge", [2.0, 0.5], [0.0, 1.0], [0, 2])[0].tolist()
    [2.5]
    """
    _check_loss(loss)
    _check_k(k)
    h, y, off = _check_arrays(scores, labels, offsets)
    _check_nonneg(loss, y)
    n, n_groups = h.size, off.size - 1

    if loss == "pointwise":
        resid = h - y
        group = np.repeat(np.arange(n_groups, dtype=np.int64), np.diff(off))
        return np.bincount(group, weights=resid * resid, minlength=n_groups), 2.0 * resid

    if loss == "exponential":
        a, b, g = _unordered_pairs(off)
        dy = y[a] - y[b]
        term = np.exp(-(h[a] - h[b]) * dy)
        return np.bincount(g, weights=term, minlength=n_groups), _scatter(n, a, b, -dy * term)

    if loss == "kendall":
        a, b, g = _unordered_pairs(off)
        wrong = np.sign(h[a] - h[b]) != np.sign(y[a] - y[b])
        sizes = np.diff(off).astype(np.float64)
        npairs = sizes * (sizes - 1.0) / 2.0
        counts = np.bincount(g, weights=wrong.astype(np.float64), minlength=n_groups)
        values = np.divide(counts, npairs, out=np.zeros(n_groups), where=npairs > 0)
        return values, np.zeros(n)

    if loss == "ndcg":
        rank, order, group = _ranks(off, h)
        dcg = _dcg(group, order, y, _discount(rank, k), n_groups)
        idcg = _ideal_dcg(off, y, y, k)
        values = np.divide(idcg - dcg, idcg, out=np.zeros(n_groups), where=idcg > 0)
        return values, np.zeros(n)

    if loss == "structured":
        return _structured(h, y, off, k)

    i, j, g = _oriented_pairs(off, y)
    margin = h[i] - h[j]
    if loss == "hinge":
        slack = 1.0 - margin
        active = slack > 0
        values = np.bincount(g, weights=np.where(active, slack, 0.0), minlength=n_groups)
        return values, _scatter(n, i, j, -active.astype(np.float64))

    # ranknet / lambdarank: pair term softplus(-margin), derivative -sigmoid(-margin)
    term, slope = _softplus_sigmoid(margin)
    coef = -slope
    if loss == "lambdarank":
        rank, _, _ = _ranks(off, h)
        disc = _discount(rank, k)
        gain = np.exp2(y) - 1.0
        idcg = _ideal_dcg(off, y, gain, k)
        inv = np.divide(1.0, idcg, out=np.zeros(n_groups), where=idcg > 0)
        weight = np.abs(gain[i] - gain[j]) * np.abs(disc[i] - disc[j]) * inv[g]
        term = weight * term
        coef = weight * coef
    return np.bincount(g, weights=term, minlength=n_groups), _scatter(n, i, j, coef)
