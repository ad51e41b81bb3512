"""Fall-out at a cutoff (``FallOut@k``; TorchMetrics' ``RetrievalFallOut``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._measure import Measure
from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register
from rankframe._measures._sql import div

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx


@register
class FallOut(Measure):
    r"""Fall-out at ``k``: the share of the retrieved non-relevant documents that reach the top ``k``.

    Parameters
    ----------
    cutoff : int
        ``k``.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    .. math:: FallOut@k = \frac{|\{d : \mathrm{rank}(d) \le k,\ \mathrm{rel}(d) < \ell\}|}
        {|\{d \text{ retrieved} : \mathrm{rel}(d) < \ell\}|}

    The non-relevant documents are the retrieved ones below the level, unjudged included (the
    candidates of the query, as TorchMetrics sees them; judged documents the run lacks play
    no part). Lower is better. A query with no non-relevant document retrieved scores 0.

    References
    ----------
    Manning, C. D., Raghavan, P. & Schütze, H. (2008). Introduction to Information Retrieval,
    ch. 8. TorchMetrics' ``RetrievalFallOut``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "score": [4.0, 3, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["b"], "relevance": [1]})
    >>> # non-relevant: a, c, d; in the top 2: a
    >>> round(rf.evaluate(qrels, run, ["FallOut@2"]).item(0, "value"), 6)
    0.333333
    """

    NAME = "FallOut"
    BOUNDS = (0.0, 1.0)
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), Param("rel", "int", None))
    HITS_ONLY = True

    def validate(self) -> None:
        """Require the cutoff."""
        if self.cutoff is None:
            msg = "FallOut needs a cutoff after '@', e.g. 'FallOut@10'."
            raise MeasureError(msg)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        n = ctx.num_ret.cast(pl.Int64)
        top = pl.min_horizontal(n, pl.lit(self.cutoff, pl.Int64)) - ctx.num_rel_ret(self.rel, self.cutoff)
        total = n - ctx.num_rel_ret(self.rel)
        return pl.when(total > 0).then(top.cast(pl.Float64) / total.cast(pl.Float64)).otherwise(0.0)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        n = q.num_ret()
        shown = f"(CASE WHEN {n} < {self.cutoff} THEN {n} ELSE {self.cutoff} END)"
        top = f"{shown} - {q.num_rel_ret(self.rel, self.cutoff)}"
        return div(top, f"({n} - {q.num_rel_ret(self.rel)})")
