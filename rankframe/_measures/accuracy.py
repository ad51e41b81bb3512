r"""Accuracy: how often a relevant retrieved document is ranked above a non-relevant one.

ir_measures' diagnostic measure (its ``accuracy`` provider): over the retrieved documents (the
top :math:`k` with a cutoff), the share of (relevant, non-relevant) pairs that the ranking
puts in the right order. Undefined, and left out of the mean, on a query without a relevant
document among them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._measure import Measure
from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx


@register
class Accuracy(Measure):
    r"""The probability that a relevant retrieved document is ranked above a non-relevant one.

    Parameters
    ----------
    cutoff : int, optional
        Only the top ``k`` retrieved documents take part (default: all of them).
    rel : int, optional
        Minimum grade of a relevant document; defaults to the evaluation's
        ``relevance_level`` (1).

    Notes
    -----
    Among the :math:`n` documents considered (the top :math:`k` retrieved), :math:`P` are
    relevant (grade >= ``rel``) and :math:`N = n - P` are not (unjudged, negative and lower
    grades). With :math:`m_j` the number of non-relevant documents ranked above the
    :math:`j`-th relevant one,

    .. math:: Accuracy = 1 - \frac{\sum_{j=1}^{P} m_j}{N \cdot P}

    the Mann-Whitney statistic of the retrieved documents alone (rankframe's ``AUC@k``, which
    scores 0 where this one is undefined). A query without a relevant document among them is
    **undefined**: its per-query value is null and the mean leaves it out (ir_measures does
    not report it). A query whose documents are all relevant has no misordered pair: 1
    (ir_measures divides by zero there). Judged documents that were not retrieved play no
    part. ir_measures reads an unjudged document as grade 0, so with ``rel <= 0`` it counts
    unjudged documents relevant, where rankframe never does.

    References
    ----------
    Mann, H. B. and Whitney, D. R. (1947). On a test of whether one of two random variables is
    stochastically larger than the other. Annals of Mathematical Statistics 18, 50-60.
    MacAvaney, S., Macdonald, C. and Ounis, I. (2022). Streamlining evaluation with
    ir-measures. ECIR 2022, 305-310 (the ``accuracy`` provider).

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"], "doc_id": list("abcdx"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "d", "y"],
    ...                       "relevance": [1, 1, 1]})
    >>> # q1: rel = 0, 1, 0, 1: b has 1 non-relevant above it, d 2: 1 - 3 / (2 * 2); q2: undefined
    >>> rf.evaluate(qrels, run, ["Accuracy"], per_query=True)["value"].to_list()
    [0.25, None]
    >>> rf.evaluate(qrels, run, ["Accuracy"])["value"].to_list()
    [0.25]
    """

    NAME = "Accuracy"
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), Param("rel", "int", None))
    BOUNDS = (0.0, 1.0)
    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression (null where no relevant document is considered)."""
        ranks, found = ctx.hit_ranks(self.rel, self.cutoff)
        # the non-relevant documents above the j-th relevant one: its rank - j
        misordered = (ranks - found).sum().cast(pl.Float64)
        n_pos = ranks.len().cast(pl.Float64)
        considered = ctx.num_ret if self.cutoff is None else pl.min_horizontal(ctx.num_ret, self.cutoff)
        n_neg = considered.cast(pl.Float64) - n_pos
        value = 1.0 - misordered / (n_neg * n_pos)
        return pl.when(n_pos == 0).then(None).when(misordered == 0).then(1.0).otherwise(value)
