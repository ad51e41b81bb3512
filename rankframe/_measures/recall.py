"""Recall at a cutoff (``R@k``; trec_eval ``recall``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._arith import safe_div
from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, POSITIVE_INT, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._sql import div
from rankframe._measures._trec import long_cutoffs

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx


@register
class R(Measure):
    r"""Recall at ``k``: the fraction of the relevant documents found in the top ``k``.

    Parameters
    ----------
    cutoff : int, optional
        ``k``. Without it, over everything retrieved (trec_eval's ``set_recall``).
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.
    judged_only : bool
        Drop unjudged documents from the ranking first (ir_measures' ``judged_only``).

    Notes
    -----
    .. math:: R@k = \frac{|\{d : \mathrm{rank}(d) \le k,\ \mathrm{rel}(d) \ge \ell\}|}{R}

    with :math:`R` the number of judged relevant documents of the query, retrieved or not.
    Undefined when :math:`R = 0`: the query scores 0 (trec_eval).

    References
    ----------
    Buckley, C. and Voorhees, E. M. (2005). Retrieval System Evaluation. In *TREC: Experiment
    and Evaluation in Information Retrieval*, MIT Press.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> rf.evaluate(qrels, run, ["R@1", "R@3"])["value"].round(4).to_list()  # 1/3, 2/3
    [0.3333, 0.6667]
    """

    NAME = "R"
    BOUNDS = (0.0, 1.0)
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), Param("rel", "int", None), JUDGED_ONLY)
    ALIASES = {"recall": {}}
    SUPPORTS_AVERAGE_TIES = True

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return safe_div(ctx.expected_hits(self.rel, self.cutoff), ctx.num_rel(self.rel))

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return div(q.num_rel_ret(self.rel, self.cutoff), q.num_rel(self.rel))


register_trec(
    "recall",
    long_cutoffs("recall", (5, 10, 15, 20, 30, 100, 200, 500, 1000), lambda k: R(cutoff=k)),
)
