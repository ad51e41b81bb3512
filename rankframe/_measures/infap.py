"""Inferred average precision (``infAP``; trec_eval ``infAP``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._arith import list_ordered_sum, list_positions, list_running, ordered_sum, safe_div
from rankframe._measures._measure import Measure
from rankframe._measures._params import ANY_GRADE, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._sql import div, lit
from rankframe._measures._trec import single

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx

#: Smoothing constant of the precision estimate among judged documents (trec_eval's value).
INFAP_EPSILON = 1e-5


def judged_before(ctx: Ctx, hit: pl.Expr, among: pl.Expr) -> pl.Expr:
    """For each retrieved ``hit`` row (a subset of ``among``), how many ``among`` rows rank above it.

    The values come in the order of ``ctx.rank.filter(hit)``.
    """
    position = ctx.rank.filter(among).rank("ordinal")
    return position.filter(hit.filter(among)).cast(pl.Int64) - 1


@register
class infAP(Measure):  # noqa: N801 - the measure's canonical name
    r"""Inferred average precision for a judged random sample of the pool (Yilmaz & Aslam).

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    Documents fall in three groups: absent from the qrels (outside the pool, assumed
    non-relevant), in the pool but unjudged (negative grade) and judged. For a retrieved
    relevant document at rank :math:`k > 1`, with :math:`p` pooled documents (judged or not),
    :math:`r` relevant and :math:`n` judged non-relevant documents above it, the expected
    precision is

    .. math::
        E[P@k] = \frac{1}{k} + \frac{k - 1}{k} \cdot \frac{p}{k - 1} \cdot
                 \frac{r + \epsilon}{r + n + 2\epsilon}, \qquad \epsilon = 10^{-5}

    and :math:`E[P@1] = 1`. infAP is the sum of these over the retrieved relevant documents
    divided by :math:`R`, the number of judged relevant documents of the query. Undefined when
    :math:`R = 0`: the query scores 0. When every retrieved document is judged (:math:`p = k - 1`)
    and :math:`\epsilon \to 0`, :math:`E[P@k]` is the precision at :math:`k` and infAP is AP.

    References
    ----------
    Yilmaz, E. and Aslam, J. A. (2006). Estimating average precision with incomplete and
    imperfect judgments. CIKM 2006, 102-111.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> # rel = 1, not pooled, 1 (R = 3): a gives 1; c gives 1/3 + 2/3 * 1/2 * (1 + e) / (1 + 2e)
    >>> rf.evaluate(qrels, run, ["infAP"])["value"].round(6).to_list()  # (1 + 2/3) / 3
    [0.555554]
    """

    NAME = "infAP"
    PARAMS = (Param("rel", "int", None),)

    HITS_ONLY = True
    HIT_FLOOR = ANY_GRADE  # every judgment: negative grades count as pooled but unjudged

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        relevant = ctx.judged & ctx.relevant(self.rel)
        pooled = ctx.rel.is_not_null() & ctx.retrieved
        if ctx.partials is not None:
            # in the planner: one sorted list per query, list arithmetic after the group_by over
            # every query at once (infAP at 5M, aggregation: 0.64 -> 0.49 s, 15ff0c5). Inline
            # (rf.expr) this runs as one aggregation: the list form costs 3.0x there (1M rows,
            # benchmarks/experiments/inline_paths.py)
            return _infap_from_lists(ctx, self.rel, relevant, pooled)
        hit = relevant & ctx.retrieved
        rank = ctx.rank.filter(hit).cast(pl.Float64)
        # each per-query rank below is read once: inside an aggregation every reference sorts
        # again. trec_eval's rel_so_far - 1 + nonrel_so_far is the judged documents above
        # (whole numbers: the same double)
        rel_above = ctx.rank.filter(hit).rank("ordinal").cast(pl.Float64) - 1.0
        judged_above = judged_before(ctx, hit, ctx.judged & ctx.retrieved).cast(pl.Float64)
        pooled_above = judged_before(ctx, hit, pooled).cast(pl.Float64)
        above = rank - 1.0
        estimate = (
            1.0 / rank
            + (above / rank)
            * (pooled_above / above)
            * ((rel_above + INFAP_EPSILON) / (judged_above + 2 * INFAP_EPSILON))
        )
        per_doc = pl.when(rank == 1.0).then(1.0).otherwise(estimate)
        return safe_div(ordered_sum(per_doc, ctx.rank.filter(hit)), ctx.num_rel(self.rel))

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL.

        The counts above each row are window counts at or above it, less the row itself (a
        relevant row is judged and pooled): the same whole numbers, the same operations.
        """
        relevant = f"rel >= 0 AND {q.relevant(self.rel)}"

        def above(predicate: str) -> str:
            window = q.window(
                f"SUM(CASE WHEN {predicate} THEN 1 ELSE 0 END) "
                "OVER ({query} ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
            )
            return f"CAST({window} - 1 AS DOUBLE)"

        rel_above, judged_above = above(relevant), above("rel >= 0")
        pooled_above = above("rel IS NOT NULL")
        rank = "CAST(rank AS DOUBLE)"
        estimate = (
            f"1.0 / {rank} + (({rank} - 1.0) / {rank}) * ({pooled_above} / ({rank} - 1.0)) * "
            f"(({rel_above} + {lit(INFAP_EPSILON)}) / ({judged_above} + {lit(2 * INFAP_EPSILON)}))"
        )
        per_doc = f"CASE WHEN rank = 1 THEN 1.0 ELSE {estimate} END"
        total = q.hit(f"SUM(CASE WHEN {relevant} THEN {per_doc} ELSE 0.0 END)", "0.0")
        return div(total, q.num_rel(self.rel))


def _infap_from_lists(ctx: Ctx, rel: int | None, relevant: pl.Expr, pooled: pl.Expr) -> pl.Expr:
    """:meth:`infAP.expr` in the planner: one sorted list per query, list arithmetic after it.

    The partial holds ``4 * rank + kind`` for each pooled retrieved document (kind 0: pooled but
    unjudged, 1: judged non-relevant, 2: relevant), sorted once; rank, kind and the counts above
    each document follow from it over every query at once (inside the aggregation each step runs
    query by query). Every step is exact on whole numbers, and the estimate takes the same
    operations in the same order as :meth:`infAP.expr`, so the bits are the same.
    """
    level = ctx.level(rel)
    kind = ctx.judged.cast(pl.Int64) + relevant.cast(pl.Int64)
    keys = ctx.partial(
        f"infap_keys_{level}",
        (ctx.rank.cast(pl.Int64) * 4 + kind).filter(pooled).sort().cast(pl.Float64).implode(),
    )
    num_rel = ctx.num_rel_partial(rel)
    rank = keys // 4.0
    kind = keys - rank * 4.0
    is_rel = kind * (kind - 1.0) * 0.5  # 1.0 for kind 2, else 0.0
    is_judged = kind - is_rel  # 1.0 for kinds 1 and 2
    rel_above = list_running(is_rel) - is_rel
    judged_above = list_running(is_judged) - is_judged
    pooled_above = list_positions(keys)
    above = rank - 1.0
    # at rank 1 the estimate is 1 / 1 + 0 (above is 0: its divisor becomes 1, no 0 / 0)
    at_least_one = above.list.eval(pl.element().clip(lower_bound=1.0))
    estimate = 1.0 / rank + (above / rank) * (pooled_above / at_least_one) * (
        (rel_above + INFAP_EPSILON) / (judged_above + 2 * INFAP_EPSILON)
    )
    # a non-relevant document's term is 0.0, which leaves the running sum's bits alone
    return safe_div(list_ordered_sum(estimate * is_rel), num_rel)


register_trec("infAP", single("infAP", lambda: infAP()))
