"""Reciprocal rank (``RR``; trec_eval ``recip_rank``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, POSITIVE_INT, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._trec import single

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx


@register
class RR(Measure):
    r"""Reciprocal rank of the first relevant retrieved document.

    Parameters
    ----------
    cutoff : int, optional
        Only the top ``k`` documents count.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.
    judged_only : bool
        Drop unjudged documents from the ranking first (ir_measures' ``judged_only``).

    Notes
    -----
    .. math:: RR = \frac{1}{\min\{\mathrm{rank}(d) : \mathrm{rel}(d) \ge \ell\}}

    A query without a relevant retrieved document scores 0.

    References
    ----------
    Voorhees, E. M. (1999). The TREC-8 Question Answering Track Report. TREC-8.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "z"], "relevance": [1, 1]})
    >>> rf.evaluate(qrels, run, ["RR"], per_query=True)["value"].to_list()  # 1/2, 0
    [0.5, 0.0]
    """

    NAME = "RR"
    BOUNDS = (0.0, 1.0)
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), Param("rel", "int", None), JUDGED_ONLY)
    ALIASES = {"mrr": {}}

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        first = ctx.first_hit_rank(self.rel, self.cutoff)
        return (1.0 / first.cast(pl.Float64)).fill_null(0.0)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        within = q.within(self.cutoff)
        first = q.hit(f"MIN(CASE WHEN {q.relevant(self.rel)} AND {within} THEN rank END)", None)
        return f"COALESCE(1.0 / {first}, 0.0)"


register_trec("recip_rank", single("recip_rank", lambda: RR()))
