"""Expected reciprocal rank (``ERR@k``), as gdeval computes it (ir_measures' ``ERR``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._measure import Measure
from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register
from rankframe._measures._sql import lit

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx

#: Highest grade of gdeval's scale: a document of this grade stops the user for sure.
MAX_GRADE = 4


@register
class ERR(Measure):
    r"""Expected reciprocal rank (Chapelle et al.) with gdeval's grade scale.

    Parameters
    ----------
    cutoff : int, optional
        Only the top ``k`` documents count (ir_measures requires it; without it, the whole
        ranking).

    Notes
    -----
    A user scans the ranking and stops at rank :math:`i` with probability
    :math:`R_i = (2^{g_i} - 1) / 2^{4}`, :math:`g_i` the grade of the document there:

    .. math:: ERR@k = \sum_{i=1}^{k} \frac{R_i}{i} \prod_{j < i} (1 - R_j)

    The grade scale is fixed at 0-4, as in gdeval (the TREC Web track's script, which
    ir_measures runs): the stopping probability does not depend on the query's own grades.
    Unjudged documents and negative grades count as 0. gdeval refuses grades above 4; here they
    count as 4 (:math:`R = 15/16`). gdeval skips queries without a relevant document; here they
    score 0, which lowers the mean over queries.

    References
    ----------
    Chapelle, O., Metzler, D., Zhang, Y. and Grinspan, P. (2009). Expected reciprocal rank for
    graded relevance. CIKM 2009, 621-630.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "c"], "relevance": [1, 2]})
    >>> # R = 1/16, 0, 3/16: 1/16 + (15/16) * (3/16) / 3
    >>> rf.evaluate(qrels, run, ["ERR@2", "ERR@3"])["value"].to_list()
    [0.0625, 0.12109375]
    """

    NAME = "ERR"
    BOUNDS = (0.0, 1.0)
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT),)
    ALIASES = {"err": {}}

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        keep = ctx.retrieved
        if self.cutoff is not None:
            keep = keep & (ctx.rank <= self.cutoff).fill_null(False)
        grade = ctx.rel.clip(0, MAX_GRADE).fill_null(0).cast(pl.Float64)
        stop = (pl.lit(2.0).pow(grade) - 1.0) / 2.0**MAX_GRADE
        order = ctx.rank.filter(keep)
        stop = stop.filter(keep).sort_by(order)
        reached = (1.0 - stop).cum_prod().shift(1, fill_value=1.0)
        return (stop * reached / order.sort().cast(pl.Float64)).sum()

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL.

        The grades are whole numbers in 0..4, so the chance of reaching a row (the product of
        ``1 - R_j`` above it) is a product of powers: for each grade ``g >= 1``,
        ``(1 - (2^g - 1) / 16)`` to the number of documents of grade ``g`` above the row (a
        window count each). SQL has no running product; the powers agree with Polars' running
        product to a few units in the last place.
        """
        grade = f"LEAST(GREATEST(COALESCE(rel, 0), 0), {MAX_GRADE})"
        scale = float(2**MAX_GRADE)
        reached = []
        for g in range(1, MAX_GRADE + 1):
            above = q.window(
                f"SUM(CASE WHEN {grade} = {g} THEN 1 ELSE 0 END) "
                "OVER ({query} ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
            )
            # the row itself is counted by the window: not above it
            count = f"({above} - CASE WHEN {grade} = {g} THEN 1 ELSE 0 END)"
            reached.append(f"POWER({lit(1.0 - (2.0**g - 1.0) / scale)}, {count})")
        stop = f"(POWER(2.0, {grade}) - 1.0) / {lit(scale)}"
        term = f"{stop} * {' * '.join(reached)} / CAST(rank AS DOUBLE)"
        within = q.within(self.cutoff)
        return q.hit(f"SUM(CASE WHEN {within} AND rel >= 1 THEN {term} ELSE 0.0 END)", "0.0")
