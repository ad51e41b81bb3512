"""Weighted rank errors, DCG over a target ranking, and bipartite / multipartite AUCs.

The position error, discounted error, DCG/NDCG with gains ``c - R(i)`` or target levels, AUC
(Mann-Whitney) and C-index (Gönen & Heller) of Fürnkranz & Hüllermeier's preference-learning
tutorial; the NDCG loss of Shalev-Shwartz & Ben-David (2014) with its top-k discount; the pairwise
ranking accuracy of De's CS 419M lecture notes. Items, target and prediction as in
``rankframe._measures._pairs``.
"""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._arith import fsum, safe_div
from rankframe._measures._pairs import F64, Comparison, Items, items
from rankframe._measures._params import JUDGED_ONLY, POSITIVE_INT, Param
from rankframe._measures._registry import register

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx

GAINS = ("rank", "level")
_GAIN = Param("gain", "str", "rank", (lambda v: v in GAINS, "one of 'rank', 'level'"))


@register
class PosError(Comparison):
    r"""Position error: how many items the prediction puts before the target's best.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math:: D_{PE}(r, \hat r) = \hat r(\arg\min_{x} r(x)) - 1

    (Spearman's footrule with weight 1 on the target's first item and 0 elsewhere.) With several
    items sharing the best target value (e.g. the top grade), the error counts the items before
    the first of them; where predicted ties make that position uncertain, its expected value
    over the orders of the ties: :math:`a + m_o/(m_t + 1)` for :math:`a` items strictly before
    the best-predicted tie group holding :math:`m_t` top items and :math:`m_o` others.
    0 for an empty query. Cost :math:`O(c)` per query.

    References
    ----------
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial, slide "Position Error".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [3.0, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["c"], "relevance": [1]})
    >>> rf.evaluate(qrels, run, ["PosError"]).item(0, "value")
    2.0
    """

    NAME = "PosError"

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        top = it.t == it.t.max()
        best = it.p.filter(top).max()
        before = (it.p > best).sum().cast(F64)
        tied = it.p == best
        tied_top = (tied & top).sum().cast(F64)
        tied_other = (tied & ~top).sum().cast(F64)
        return (before + tied_other / (tied_top + 1.0)).fill_null(0.0)


@register
class DiscError(Comparison):
    r"""Discounted error: the footrule weighted towards the target's top.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math::
        D_{DR}(r, \hat r) = \sum_{i=1}^{c} \frac{|r(x_i) - \hat r(x_i)|}{\log_2(r(x_i) + 1)}

    with :math:`r` the target rank (mid-ranks for ties), as Fürnkranz & Hüllermeier's formula
    defines it. Their worked example (:math:`3/\log 2 + 1/\log 4 + 2/\log 6`) does not follow from
    that formula (its weights are neither the target nor the predicted ranks of the items); on
    the example's rankings the formula gives :math:`3/\log_2 5 + 1/\log_2 4 + 2/\log_2 2`. The
    slide leaves the base of the logarithm open; base 2 (as DCG) rescales every value by the same
    constant. Cost :math:`O(c \log c)` per query.

    References
    ----------
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial, slide "Discounted Error".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("ABCDE"),
    ...                     "score": [5.0, 4.0, 2.0, 1.0, 3.0], "target": [2, 4, 3, 1, 5]})
    >>> round(rf.evaluate(run=run, target="target", measures=["DiscError"]).item(0, "value"), 6)
    3.79203
    """

    NAME = "DiscError"

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        rt = it.target_rank()
        return it.partial(
            "disc_error", fsum(((rt - it.pred_rank()).abs() / (rt + 1.0).log(2)).cast(F64))
        )


def _discount(position: pl.Expr, cutoff: int | None) -> pl.Expr:
    d = 1.0 / (position.cast(F64) + 1.0).log(2)
    return d if cutoff is None else pl.when(position <= cutoff).then(d).otherwise(0.0)


def expected_discount(it: Items, cutoff: int | None) -> pl.Expr:
    r"""Each item's discount, averaged over the positions its predicted tie group spans.

    A tie group at positions :math:`a..b` gives each member
    :math:`\frac{1}{b-a+1}\sum_{i=a}^{b} D(i)` (the expected discount over the orders of the
    ties, McSherry & Najork 2008); without ties it is :math:`D(\\hat r(x))`.
    """
    if not it.pred_ties:
        # the retrieved items hold positions 1..n by rank; the unretrieved ones (p = -inf)
        # share the positions after them, each with their mean discount
        retrieved = it.p > float("-inf")
        n = retrieved.sum()
        rest = _discount(pl.int_range(n + 1, it.t.len() + 1), cutoff).mean()
        return pl.when(retrieved).then(_discount(-it.p, cutoff)).otherwise(rest)
    positions = pl.int_range(1, it.t.len() + 1)
    prefix = _discount(positions, cutoff).cum_sum()
    a = it.p.rank("min", descending=True).cast(pl.Int64)
    b = it.p.rank("max", descending=True).cast(pl.Int64)
    span = prefix.gather(b - 1) - prefix.gather(a - 1) + _discount(a, cutoff)
    return span / (b - a + 1).cast(F64)


def _gains(it: Items, gain: str) -> pl.Expr:
    if gain == "level":
        return it.t
    return it.t.len().cast(F64) - it.target_rank()


def rank_dcg(it: Items, gain: str, cutoff: int | None) -> pl.Expr:
    """Sum of gain x expected discount over the items."""
    return fsum(_gains(it, gain) * expected_discount(it, cutoff))


def rank_idcg(it: Items, gain: str, cutoff: int | None) -> pl.Expr:
    """DCG of the items sorted by gain."""
    # equal targets have equal gains: the ordinal target rank is a position in the ideal order
    position = it.t.rank("ordinal", descending=True)
    return fsum(_gains(it, gain) * _discount(position, cutoff))


_RANK_DCG_NOTES = r"""
    .. math::
        DCG(r, \hat r) = \sum_{i=1}^{c} \frac{g(\hat r^{-1}(i))}{\log_2(i + 1)}, \qquad
        g(x) = c - r(x) \ \text{(gain="rank")} \ \text{or}\ \ell(x) \ \text{(gain="level")}

    :math:`r(x)` is the item's target rank (mid-ranks for ties), :math:`\ell(x)` its target
    value (the grade: Järvelin & Kekäläinen's original setting). Every item is ranked: judged
    documents the run did not return share the positions after the retrieved ones, each with the
    mean discount of those positions (the expected value over their orders, as for any
    predicted tie). With a cutoff ``k`` positions after ``k`` have discount 0."""


@register
class RankDCG(Comparison):
    __doc__ = r"""Discounted cumulative gain of the predicted ranking against a target.

    Parameters
    ----------
    cutoff : int, optional
        Only the top ``k`` positions count.
    gain : {"rank", "level"}
        ``rank``: gain :math:`c - R(i)` from the target rank; ``level``: the target value.
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----""" + _RANK_DCG_NOTES + r"""
    Cost :math:`O(c \log c)` per query.

    References
    ----------
    Järvelin, K. and Kekäläinen, J. (2002). ACM TOIS 20(4), 422-446.
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial, slides "(Normalized) Discounted Cumulative Gain".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [3.0, 2, 1],
    ...                     "target": [1.0, 3, 2]})
    >>> # gains c - R: a -> 0, b -> 2, c -> 1: 0/log2(2) + 2/log2(3) + 1/log2(4)
    >>> round(rf.evaluate(run=run, target="target", measures=["RankDCG"]).item(0, "value"), 6)
    1.76186
    """

    NAME = "RankDCG"
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), _GAIN, JUDGED_ONLY)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return rank_dcg(items(ctx), self.gain, self.cutoff)


@register
class RankNDCG(Comparison):
    __doc__ = r"""Normalised DCG of the predicted ranking against a target.

    Parameters
    ----------
    cutoff : int, optional
        Only the top ``k`` positions count (in the ideal ranking too).
    gain : {"rank", "level"}
        ``rank``: gain :math:`c - R(i)` from the target rank; ``level``: the target value.
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----""" + _RANK_DCG_NOTES + r"""
    :math:`NDCG = DCG / IDCG` with IDCG the DCG of the target order. Undefined (scored 0) when
    IDCG = 0. With ``gain="level"`` on grades it differs from :class:`nDCG` only in the
    unretrieved judged documents, which rank after the run here and count 0 there.
    Cost :math:`O(c \log c)` per query.

    References
    ----------
    Järvelin, K. and Kekäläinen, J. (2002). ACM TOIS 20(4), 422-446.
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [3.0, 2, 1],
    ...                     "target": [3.0, 2, 1]})
    >>> rf.evaluate(run=run, target="target", measures=["RankNDCG"]).item(0, "value")
    1.0
    """

    NAME = "RankNDCG"
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), _GAIN, JUDGED_ONLY)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        return safe_div(
            rank_dcg(it, self.gain, self.cutoff),
            rank_idcg(it, self.gain, self.cutoff),
            costly_den=True,
        )


@register
class nDCGLoss(Comparison):  # noqa: N801 - the measure's canonical name
    r"""The NDCG loss of Shalev-Shwartz & Ben-David (2014): one minus NDCG with a top-k discount.

    Parameters
    ----------
    cutoff : int, optional
        ``k``: only the top ``k`` positions count (the book's :math:`D(i) = 0` outside them).
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math::
        \Delta(y', y) = 1 - \frac{G(y', y)}{G(y, y)}, \qquad
        G(y', y) = \sum_{i=1}^{r} D(\pi(y')_i)\, y_i, \qquad
        D(i) = \frac{1}{\log_2(r - i + 2)} \ \text{for}\ i \in \{r-k+1, \dots, r\}

    where :math:`\pi(y')_i` is item :math:`i`'s position counted from the bottom, so
    :math:`D` is :math:`1/\log_2(\text{position from the top} + 1)` on the top ``k`` positions:
    the loss is ``1 - RankNDCG(gain='level')@k``. The gains :math:`y_i` are the target values
    (grades). In [0, 1] for non-negative targets; 0 when :math:`G(y, y) = 0` (every ranking is
    then ideal). Cost :math:`O(c \log c)` per query.

    References
    ----------
    Shalev-Shwartz, S. and Ben-David, S. (2014). *Understanding Machine Learning: From Theory to
    Algorithms*. Cambridge University Press, §17.4 "Learning to rank", pp. 202-204.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [3.0, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "relevance": [0, 1, 0]})
    >>> round(rf.evaluate(qrels, run, ["nDCGLoss@2"]).item(0, "value"), 6)  # 1 - 1/log2(3)
    0.36907
    """

    NAME = "nDCGLoss"
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), JUDGED_ONLY)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        k = "all" if self.cutoff is None else self.cutoff
        dcg = it.partial(f"level_dcg_{k}", rank_dcg(it, "level", self.cutoff))
        ideal = it.partial(f"level_idcg_{k}", rank_idcg(it, "level", self.cutoff))
        return safe_div(ideal - dcg, ideal, costly_den=True)


@register
class AUC(Comparison):
    r"""Area under the ROC curve of a bipartite target (Mann-Whitney).

    Parameters
    ----------
    rel : int, optional
        Minimum grade (or target value) of a positive item; defaults to the evaluation's
        ``relevance_level``.
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math::
        AUC = \frac{1}{c_1 c_0} \sum_{p \in P} \sum_{n \in N}
        \big(\mathbb{1}[\hat r(p) < \hat r(n)] + \tfrac12 \mathbb{1}[\hat r(p) = \hat r(n)]\big)

    the Mann-Whitney statistic over the :math:`c_1 c_0` (positive, negative) pairs, i.e. one
    minus Kendall's distance normalised on the bipartite target; equals
    ``sklearn.metrics.roc_auc_score`` under ``ties="average"``. Unretrieved judged documents
    rank after the retrieved ones, tied; unjudged retrieved ones are negatives. Undefined
    (scored 0) without a positive or without a negative. Cost :math:`O(c \log c)` per query.

    With a cutoff (``AUC@k``, RePlay's ``RocAuc@k``) the items are the top ``k`` retrieved
    documents alone: the positives those of grade >= ``rel``, the negatives the others
    (unjudged included); the judged documents below ``k`` play no part. A top ``k`` without
    a positive scores 0, one with no misordered pair 1 (even without a negative).

    References
    ----------
    Mann, H. B. and Whitney, D. R. (1947). Annals of Mathematical Statistics 18, 50-60.
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial, slide "Evaluating Partial Target Rankings".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "score": [4.0, 3, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "relevance": [0, 1, 0, 1]})
    >>> rf.evaluate(qrels, run, ["AUC"]).item(0, "value")  # of b>a, b>c, d>a, d>c: b>c
    0.25
    """

    NAME = "AUC"
    BOUNDS = (0.0, 1.0)
    PARAMS = (Param("rel", "int", None), JUDGED_ONLY, Param("cutoff", "int", None, POSITIVE_INT))

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        if self.cutoff is None:
            return items(ctx, binary=True, rel=self.rel).concordance()
        if ctx.average_ties or ctx.target is not None:
            msg = (
                f"{self!r} (the AUC of the top k documents) reads the ranks and grades only: "
                "not with ties='average' or a target column."
            )
            raise MeasureError(msg)
        # RePlay's RocAuc@k: the top k alone; a positive ranked below i - 1 ... negatives
        ranks, found = ctx.hit_ranks(self.rel, self.cutoff)
        misordered = (ranks - found).sum().cast(pl.Float64)
        n_pos = ranks.len().cast(pl.Float64)
        n_neg = pl.min_horizontal(ctx.num_ret, pl.lit(self.cutoff)).cast(pl.Float64) - n_pos
        value = 1.0 - misordered / (n_pos * n_neg)
        return pl.when(n_pos == 0).then(0.0).when(misordered == 0).then(1.0).otherwise(value)


@register
class CIndex(Comparison):
    r"""Concordance index of a multipartite (graded) or total target (Gönen & Heller).

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math::
        \text{C-index} = \frac{\sum_{\ell(x) > \ell(y)} \mathbb{1}[\hat r(x) < \hat r(y)]
        + \tfrac12 \mathbb{1}[\hat r(x) = \hat r(y)]}{|\{(x, y) : \ell(x) > \ell(y)\}|}
        = \frac{\sum_{i<j} c_i c_j\, AUC_{ij}}{\sum_{i<j} c_i c_j}

    the fraction of the pairs the target orders that the prediction orders the same way
    (predicted ties count 1/2): the generalisation of AUC, equal to the weighted mean of the
    pairwise AUCs of the levels (:math:`c_i` items at level :math:`i`). Undefined (scored 0)
    when the target orders no pair. Cost :math:`O(c \log c)` per query.

    References
    ----------
    Gönen, M. and Heller, G. (2005). Concordance probability and discriminatory power in
    proportional hazards regression. Biometrika 92(4), 965-970.
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> # Fürnkranz & Hüllermeier's multipartite example: 8 ordered pairs, the prediction inverts 3
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                     "score": [5.0, 4, 3, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                       "relevance": [1, 2, 0, 2, 0]})
    >>> rf.evaluate(qrels, run, ["CIndex", "KendallDist"])["value"].to_list()
    [0.625, 3.0]
    """

    NAME = "CIndex"
    BOUNDS = (0.0, 1.0)
    PAIRWISE_TARGET = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return items(ctx).concordance()


@register
class PairAcc(CIndex):
    r"""Pairwise ranking accuracy: the C-index under its learning-to-rank name.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math::
        \frac{1}{|\{(i, j) : y_i > y_j\}|} \sum_{y_i > y_j}
        \mathbb{1}[h(x_i) > h(x_j)] + \tfrac12 \mathbb{1}[h(x_i) = h(x_j)]

    with :math:`y` the target (grades) and :math:`h` the scores; identical to :class:`CIndex`.
    Score ties count 1/2 only where the prediction ties (``ties="average"``); under the default
    trec_eval order every retrieved pair is ordered. Cost :math:`O(c \log c)` per query.

    References
    ----------
    De, A. CS 419M Introduction to Machine Learning, Lecture 4: Evaluation protocol and ranking
    losses. IIT Bombay, Spring 2021-22, §4.2.5 "Evaluation of Ranking".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [2.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "relevance": [1, 0, 0]})
    >>> rf.evaluate(qrels, run, ["PairAcc"], ties="average").item(0, "value")  # (1/2 + 1) / 2
    0.75
    """

    NAME = "PairAcc"
    BOUNDS = (0.0, 1.0)


def _mann_whitney(it: Items, low: float, high: float) -> tuple[pl.Expr, pl.Expr]:
    """Mann-Whitney U of level ``high`` over ``low`` and :math:`n_{high} n_{low}`, as partials.

    Predicted ties count 1/2.
    """
    is_high, is_low = it.t == high, it.t == low
    n_high = it.partial(f"n_{high}", is_high.sum().cast(F64))
    n_low = it.partial(f"n_{low}", is_low.sum().cast(F64))
    nn = n_high * n_low
    if it.pred_ties:
        keep = is_low | is_high
        flag = is_high.filter(keep)
        # rank sum of the higher level among the two, ascending (mid-ranks for ties)
        rank_sum = it.p.filter(keep).rank("average").filter(flag).sum()
        u = it.partial(f"mauc_u_{low}_{high}", rank_sum - flag.sum() * (flag.sum() + 1.0) / 2.0)
        return u, nn
    # trec_eval order: retrieved items never tie, unretrieved ones all tie at the bottom; an
    # ordinal rank of the retrieved items (cheaper than mid-ranks), the rest in closed form
    ret = it.p > float("-inf")
    keep = (is_low | is_high) & ret
    flag = is_high.filter(keep)
    h_ret = flag.sum().cast(F64)
    rank_sum = it.p.filter(keep).rank("ordinal").filter(flag).sum().cast(F64)
    u_ret = rank_sum - h_ret * (h_ret + 1.0) / 2.0
    h_unret = it.partial(f"n_{high}_unret", (is_high & ~ret).sum().cast(F64))
    l_unret = it.partial(f"n_{low}_unret", (is_low & ~ret).sum().cast(F64))
    u = it.partial(f"mauc_u_{low}_{high}", u_ret) + (n_high - h_unret) * l_unret
    return u + 0.5 * h_unret * l_unret, nn


@register
class MAUC(Comparison):
    r"""Unweighted mean of the pairwise AUCs of the target levels (Jonckheere-Terpstra).

    Parameters
    ----------
    levels : tuple of float, optional
        The target levels (grades). By default the planner reads them from the qrels (or the
        target column, which may then hold at most 64 distinct values); give them when building
        an expression with ``rankframe.expr.measure``.
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math:: \text{m-AUC} = \frac{2}{l(l-1)} \sum_{i<j} AUC(r_{i,j}, \hat r_{i,j})

    with :math:`r_{i,j}, \hat r_{i,j}` the rankings restricted to the items of levels
    :math:`i` and :math:`j`, and the sum over the :math:`l(l-1)/2` pairs of levels present in
    the query (both non-empty). Each pairwise AUC comes from the Mann-Whitney rank sum of the
    higher level within the two levels (predicted ties count 1/2). Undefined (scored 0) with
    fewer than two levels. Cost: one rank per pair of levels, :math:`O(L^2 c \log c)` per
    query for :math:`L` levels; under the trec_eval order only the retrieved items are ranked
    (ordinal ranks), the unretrieved ones counted in closed form (with grades 0-3, 6 ranks:
    about 2.4x nDCG@10 end to end, benchmarks/RESULTS.md). Unlike :class:`CIndex` it weighs
    every pair of levels equally (Hand & Till's multi-class AUC).

    References
    ----------
    Jonckheere, A. R. (1954). A distribution-free k-sample test against ordered alternatives.
    Biometrika 41, 133-145. Hand, D. J. and Till, R. J. (2001). Machine Learning 45(2), 171-186.
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial, slide "Jonckheere-Terpstra statistic".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                     "score": [5.0, 4, 3, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                       "relevance": [1, 2, 0, 2, 0]})
    >>> # AUC(2 vs 1) = 0/2, AUC(2 vs 0) = 3/4, AUC(1 vs 0) = 2/2
    >>> rf.evaluate(qrels, run, ["MAUC"]).item(0, "value")
    0.5833333333333334
    """

    NAME = "MAUC"
    PARAMS = (Param("levels", "floats", None), JUDGED_ONLY)
    NEEDS_LEVELS = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        levels = self.levels if self.levels is not None else ctx.levels
        if levels is None:
            msg = (
                "MAUC needs the target levels here: give them, e.g. "
                "measure('MAUC(levels=(0,1,2))')."
            )
            raise MeasureError(msg)
        it = items(ctx)
        levels = sorted(set(levels))
        aucs, present = [], []
        for i, low in enumerate(levels):
            for high in levels[i + 1 :]:
                u, nn = _mann_whitney(it, low, high)
                aucs.append(safe_div(u, nn, costly_den=True))
                present.append((nn > 0).cast(F64))
        if not aucs:
            return pl.lit(0.0)
        # left folds, not sum_horizontal: the streaming engine sums those in another order
        return safe_div(
            functools.reduce(operator.add, aucs),
            functools.reduce(operator.add, present),
            costly_den=True,
        )
