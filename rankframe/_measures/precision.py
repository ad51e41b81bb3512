"""Precision at a cutoff (``P@k``; trec_eval ``P``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._arith import div_const
from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, POSITIVE_INT, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._sql import div
from rankframe._measures._trec import long_cutoffs

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx


@register
class P(Measure):
    r"""Precision at ``k``: the fraction of the top ``k`` that is relevant.

    Parameters
    ----------
    cutoff : int, optional
        ``k``. Without it, the fraction of all retrieved documents (trec_eval's ``set_P``).
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level`` (1).
    judged_only : bool
        Drop unjudged documents from the ranking first (ir_measures' ``judged_only``).
    adaptive_k : bool
        Divide by :math:`\min(k, n)`, the documents shown, instead of ``k`` (TorchMetrics'
        ``RetrievalPrecision(adaptive_k=True)``).

    Notes
    -----
    .. math:: P@k = \frac{|\{d : \mathrm{rank}(d) \le k,\ \mathrm{rel}(d) \ge \ell\}|}{k}

    The denominator is ``k`` even when fewer than ``k`` documents are retrieved (trec_eval: the
    ranking is padded with non-relevant documents). A query with nothing retrieved scores 0;
    without a cutoff, 0 as well.

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
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> rf.evaluate(qrels, run, ["P@2", "P@5"])["value"].to_list()  # 1/2 and 2/5
    [0.5, 0.4]
    """

    NAME = "P"
    BOUNDS = (0.0, 1.0)
    PARAMS = (
        Param("cutoff", "int", None, POSITIVE_INT),
        Param("rel", "int", None),
        JUDGED_ONLY,
        Param("adaptive_k", "bool", False),
    )
    ALIASES = {"precision": {}}
    SUPPORTS_AVERAGE_TIES = True

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        hits = ctx.expected_hits(self.rel, self.cutoff).cast(pl.Float64)
        if self.cutoff is None:
            return pl.when(ctx.num_ret > 0).then(hits / ctx.num_ret).otherwise(0.0)
        if self.adaptive_k:  # TorchMetrics' adaptive_k: over min(k, retrieved)
            shown = pl.min_horizontal(ctx.num_ret, pl.lit(self.cutoff)).cast(pl.Float64)
            return pl.when(shown > 0).then(hits / shown).otherwise(0.0)
        return div_const(hits, self.cutoff)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        hits = q.num_rel_ret(self.rel, self.cutoff)
        if self.cutoff is None:
            return div(hits, q.num_ret())
        if self.adaptive_k:
            n = q.num_ret()
            return div(hits, f"(CASE WHEN {n} < {self.cutoff} THEN {n} ELSE {self.cutoff} END)")
        return f"CAST({hits} AS DOUBLE) / {self.cutoff}"


register_trec("P", long_cutoffs("P", (5, 10, 15, 20, 30, 100, 200, 500, 1000), lambda k: P(cutoff=k)))
