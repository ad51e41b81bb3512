r"""Compatibility (Clarke, Vtyurina and Smucker 2021): rank-biased overlap with an ideal ranking.

The ideal ranking holds every judged document of positive grade, highest grade first; within
a grade, the ones the run retrieved come first, in the run's order (the ideal most compatible
with the run), then the others. The value is the rank-biased overlap (Webber et al. 2010) of
the run with it, over the longer of the two, normalised by the ideal's overlap with itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._measure import Measure
from rankframe._measures._params import Param
from rankframe._measures._registry import register

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx

_PERSISTENCE = (lambda p: 0.0 < p < 1.0, "a float in (0, 1)")


def _overlap_sum(weights: pl.Expr, overlap: pl.Expr, ranks: pl.Expr) -> pl.Expr:
    r""":math:`\sum_i w_i\, O_i / i`, added one rank after another (the reference's order)."""
    return (weights * overlap.cast(pl.Float64) / ranks).cum_sum().last()


@register
class Compat(Measure):
    r"""Compatibility: the rank-biased overlap of the run with an ideal ranking.

    Parameters
    ----------
    p : float
        The persistence of rank-biased overlap, in (0, 1) (default 0.95).
    normalize : bool
        Divide by the ideal ranking's overlap with itself (default True), so that the ideal
        scores 1 however short it is.

    Notes
    -----
    With :math:`R_i` the run's top :math:`i` documents, :math:`I_i` the ideal's and
    :math:`D = \max(|R|, |I|)`,

    .. math::
        RBO(R, I) = \frac{\sum_{i=1}^{D} p^{i-1}\, |R_i \cap I_i| / i}{\sum_{i=1}^{D} p^{i-1}},
        \qquad Compat = \frac{RBO(R, I)}{RBO(I, I)}

    (without ``normalize``, :math:`RBO(R, I)` alone). The ideal :math:`I` holds the documents
    of grade > 0 (every positive grade, whatever the evaluation's relevance level), by grade,
    highest first; ties in grade go to the documents retrieved, in the run's order, then to
    the others. Unjudged and negative grades are not in it. A query without a document of
    positive grade scores 0. The sums run rank by rank, as the reference implementation adds
    them, so values agree with ir_measures' ``compat`` provider to the last bit. That provider
    breaks ties in grade by score, an unretrieved document counting as score 0, then by the
    order of the judgments: it differs where a relevant document's score is <= 0, or where
    relevant documents of one grade have equal scores.

    References
    ----------
    Clarke, C. L. A., Vtyurina, A. and Smucker, M. D. (2021). Assessing top-k preferences. ACM
    Transactions on Information Systems 39(3), 33:1-33:21. Webber, W., Moffat, A. and Zobel, J.
    (2010). A similarity measure for indefinite rankings. ACM TOIS 28(4), 20:1-20:38.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> # ideal c, b; run a, b: overlaps 0, 1 at depths 1, 2: (0.5 * 1/2) / (1 + 0.5), over
    >>> # the ideal's own (1 * 1/1 + 0.5 * 2/2) / (1 + 0.5) = 1
    >>> rf.evaluate(qrels, run, ["Compat(p=0.5)"])["value"].to_list()
    [0.16666666666666666]
    """

    NAME = "Compat"
    PARAMS = (Param("p", "float", 0.95, _PERSISTENCE), Param("normalize", "bool", True))
    BOUNDS = (0.0, 1.0)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        ideal = (ctx.rel > 0).fill_null(False)
        n_ideal = ideal.sum().cast(pl.Int64)
        # the ideal order: grade, highest first, then the run's rank (unretrieved last)
        grade, rank = ctx.rel.filter(ideal), ctx.rank.filter(ideal)
        run_rank = rank.sort_by([grade, rank], descending=[True, False], nulls_last=True)
        ideal_rank = pl.int_range(1, n_ideal + 1, dtype=pl.Int64)
        both = run_rank.is_not_null()
        # a document is in both top-i sets from the depth of its later rank on
        joins = pl.max_horizontal(run_rank.filter(both).cast(pl.Int64), ideal_rank.filter(both)).sort()
        depth = pl.max_horizontal(ctx.num_ret.cast(pl.Int64), n_ideal)
        ranks = pl.int_range(1, depth + 1, dtype=pl.Int64)
        weights = pl.repeat(self.p, depth, dtype=pl.Float64).cum_prod().shift(1, fill_value=1.0)
        rank_f = ranks.cast(pl.Float64)
        score = _overlap_sum(weights, joins.search_sorted(ranks, side="right"), rank_f)
        normalizer = weights.cum_sum().last()
        rbo = score / normalizer
        if not self.normalize:
            return rbo.fill_null(0.0)
        best = _overlap_sum(weights, pl.min_horizontal(ranks, n_ideal), rank_f) / normalizer
        return pl.when(best > 0.0).then(rbo / best).otherwise(rbo).fill_null(0.0).fill_nan(0.0)
