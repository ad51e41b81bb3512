"""Precision at R and at multiples of R (``Rprec``, ``RprecMult@x``).

trec_eval names: ``Rprec``, ``Rprec_mult``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._arith import list_count_at_most, safe_div
from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._sql import div
from rankframe._measures._trec import double_cutoffs, single

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx


@register
class Rprec(Measure):
    r"""R-precision: the precision after :math:`R` documents, :math:`R` the number of relevant ones.

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.
    judged_only : bool
        Drop unjudged documents from the ranking first (trec_eval ``-J``).

    Notes
    -----
    .. math:: Rprec = \frac{|\{d : \mathrm{rank}(d) \le R,\ \mathrm{rel}(d) \ge \ell\}|}{R}

    with :math:`R` the number of judged relevant documents of the query, retrieved or not. It is
    also the recall at rank :math:`R`. A ranking shorter than :math:`R` is padded with
    non-relevant documents. Undefined when :math:`R = 0`: the query scores 0.

    References
    ----------
    Buckley, C. and Voorhees, E. M. (2005). Retrieval System Evaluation. In *TREC: Experiment
    and Evaluation in Information Retrieval*, MIT Press.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["b", "d", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> # rel = 0, 1, 0, 1 and R = 3: one relevant document in the top 3
    >>> rf.evaluate(qrels, run, ["Rprec"])["value"].round(4).to_list()
    [0.3333]
    """

    NAME = "Rprec"
    BOUNDS = (0.0, 1.0)
    PARAMS = (Param("rel", "int", None), JUDGED_ONLY)
    ALIASES = {"r-precision": {}}

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        if ctx.partials is not None:
            # in the planner: list arithmetic on the hit ranks that AP, IPrec and binG share
            # (with them at 5M, aggregation: 2.2-2.7 -> 0.68-0.86 s, fa1fbaf). Inline (rf.expr)
            # this runs as one aggregation: the list form costs 1.5x there (1M rows,
            # benchmarks/experiments/inline_paths.py), where nothing shares the sorted ranks
            num_rel = ctx.num_rel_partial(self.rel)
            return safe_div(list_count_at_most(ctx.hit_rank_lists(self.rel)[0], num_rel), num_rel)
        at_r = (ctx.rank <= ctx.num_rel(self.rel)).fill_null(False)
        return safe_div((ctx.relevant(self.rel) & at_r).sum(), ctx.num_rel(self.rel))

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        num_rel = q.row_stat(f"SUM(CASE WHEN {q.relevant(self.rel)} THEN 1 ELSE 0 END)")
        hits = q.hit(f"SUM(CASE WHEN {q.relevant(self.rel)} AND rank <= {num_rel} THEN 1 ELSE 0 END)")
        return div(hits, q.num_rel(self.rel))


@register
class RprecMult(Measure):
    r"""Precision at a multiple of :math:`R` (trec_eval ``Rprec_mult``): ``RprecMult@0.5``.

    Parameters
    ----------
    cutoff : float
        The multiple :math:`x` of :math:`R` (the number of relevant documents) at which
        precision is measured; written after ``@``.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    .. math::
        RprecMult@x = P@k, \qquad k = \lfloor x R + 0.9 \rfloor

    trec_eval's rounding (which v10 kept for this measure). The ranking is padded with
    non-relevant documents when shorter than :math:`k`. ``RprecMult@1.0`` is :class:`Rprec`.
    Undefined when :math:`k < 1` (no relevant document, or a tiny :math:`x`): the query
    scores 0.

    References
    ----------
    Buckley, C. and Voorhees, E. M. (2005). Retrieval System Evaluation. In *TREC: Experiment
    and Evaluation in Information Retrieval*, MIT Press.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["b", "d", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> # rel = 0, 1, 0, 1 and R = 3: k = floor(0.5 * 3 + 0.9) = 2 and floor(2 * 3 + 0.9) = 6
    >>> rf.evaluate(qrels, run, ["RprecMult@0.5", "RprecMult@2.0"])["value"].round(4).to_list()
    [0.5, 0.3333]
    """

    NAME = "RprecMult"
    BOUNDS = (0.0, 1.0)
    PARAMS = (
        Param("cutoff", "float", None, (math.isfinite, "a finite float")),
        Param("rel", "int", None),
    )

    def validate(self) -> None:
        """Require the multiple of R."""
        if self.cutoff is None:
            msg = "RprecMult needs the multiple of R after '@', e.g. 'RprecMult@0.5'."
            raise MeasureError(msg)

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        def cutoff(num_rel: pl.Expr) -> pl.Expr:
            # truncation toward zero, like the C cast to long (clipped so that any finite x fits)
            k = pl.lit(self.cutoff) * num_rel.cast(pl.Float64) + 0.9
            return k.clip(-(2.0**62), 2.0**62).cast(pl.Int64)

        if ctx.partials is not None:
            # in the planner: list arithmetic on the shared hit ranks (as Rprec). Inline (rf.expr)
            # this runs as one aggregation: the list form costs 1.45x there (1M rows,
            # benchmarks/experiments/inline_paths.py)
            k = cutoff(ctx.num_rel_partial(self.rel))
            hits = list_count_at_most(ctx.hit_rank_lists(self.rel)[0], k)
            return pl.when(k >= 1).then(hits / k).otherwise(0.0)
        within = (ctx.rank <= cutoff(ctx.num_rel(self.rel))).fill_null(False)
        hits = (ctx.relevant(self.rel) & within).sum()
        k = cutoff(ctx.num_rel(self.rel))
        return pl.when(k >= 1).then(hits.cast(pl.Float64) / k).otherwise(0.0)


register_trec("Rprec", single("Rprec", lambda: Rprec()))
register_trec(
    "Rprec_mult",
    double_cutoffs(
        "Rprec_mult",
        (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
        lambda x: RprecMult(cutoff=x),
    ),
)
