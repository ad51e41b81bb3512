"""Success at a cutoff (``Success@k``; trec_eval ``success``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, POSITIVE_INT, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._trec import long_cutoffs

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx


@register
class Success(Measure):
    r"""Success at ``k``: 1 if a relevant document is in the top ``k``, else 0.

    Parameters
    ----------
    cutoff : int
        ``k``.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.
    judged_only : bool
        Drop unjudged documents from the ranking first (trec_eval ``-J``).

    Notes
    -----
    .. math:: Success@k = \mathbb{1}\big[\exists d : \mathrm{rank}(d) \le k,\ \mathrm{rel}(d) \ge \ell\big]

    Some call this Recall@k or hit rate; here Recall@k is ``R@k``. A
    query with nothing relevant retrieved scores 0.

    References
    ----------
    Tomlinson, S. (2003). Robust, Web and Genomic Retrieval with Hummingbird SearchServer at
    TREC 2003. TREC 2003.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "z"], "relevance": [1, 1]})
    >>> # q1: rel = 0, 1; q2: nothing relevant retrieved
    >>> rf.evaluate(qrels, run, ["Success@1", "Success@2"], per_query=True)["value"].to_list()
    [0.0, 1.0, 0.0, 0.0]
    """

    NAME = "Success"
    BOUNDS = (0.0, 1.0)
    PARAMS = (
        Param("cutoff", "int", None, POSITIVE_INT),
        Param("rel", "int", None),
        JUDGED_ONLY,
    )

    def validate(self) -> None:
        """Require the cutoff."""
        if self.cutoff is None:
            msg = "Success needs a cutoff after '@', e.g. 'Success@10'."
            raise MeasureError(msg)

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return (ctx.num_rel_ret(self.rel, self.cutoff) > 0).cast(pl.Float64)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return f"CASE WHEN {q.num_rel_ret(self.rel, self.cutoff)} > 0 THEN 1.0 ELSE 0.0 END"


register_trec("success", long_cutoffs("success", (1, 5, 10), lambda k: Success(cutoff=k)))
