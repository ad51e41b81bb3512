"""Interpolated precision at recall levels (``IPrec@x``, ``IPrecAvg``).

trec_eval names: ``iprec_at_recall``, ``11pt_avg``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._arith import div_const
from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._sql import lit
from rankframe._measures._trec import double_cutoffs, double_params

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx

ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: How a recall level ``x`` becomes a number of relevant documents: ``round(x R)`` half away
#: from zero (trec_eval 10) or ``floor(x R + 0.9)`` (trec_eval 9, so pytrec_eval).
ROUNDINGS = ("nearest", "trec_eval9")
ROUNDING = Param(
    "rounding", "str", "nearest", (lambda v: v in ROUNDINGS, "one of 'nearest', 'trec_eval9'")
)


def _curve(ctx: Ctx, rel: int | None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """Interpolated precision at the j-th relevant retrieved document (j = 1..K, then a 0), K, R.

    The curve as a list, its number K of relevant retrieved documents and the number R
    relevant: list arithmetic on the shared hit ranks (:meth:`Ctx.hit_rank_lists`), which every
    recall level and IPrecAvg read; in the planner after the group_by, over every query at
    once, inline (rf.expr) inside the aggregation, where it costs what the former
    aggregation-only form did (1.0x, 1M rows, benchmarks/experiments/inline_paths.py).
    """
    level = ctx.level(rel)
    ranks, found = ctx.hit_rank_lists(rel)
    curve = (found / ranks).list.eval(pl.element().reverse().cum_max().reverse())
    return (
        ctx.derived(f"iprec_curve_{level}", curve.list.concat(pl.lit([0.0]))),
        ranks.list.len().cast(pl.Int64),
        ctx.num_rel_partial(rel),
    )


def _recall_docs(num_rel: pl.Expr, level: float, rounding: str = "nearest") -> pl.Expr:
    """The recall level as a number of relevant documents (:data:`ROUNDINGS`)."""
    target = pl.lit(level) * num_rel.cast(pl.Float64)
    if rounding == "trec_eval9":
        docs = (target + 0.9).floor()
    else:
        docs = target.round(0, mode="half_away_from_zero")
    return docs.clip(-(2.0**62), 2.0**62).cast(pl.Int64)


def _recall_docs_sql(q: SqlCtx, rel: int | None, level: float, rounding: str = "nearest") -> str:
    """:func:`_recall_docs` as a per-query judgment statistic (an aggregate of R), by alias.

    A whole-valued double (what it is compared with is whole). ``level * R`` is the same
    double product; rounded half away from zero by its fraction (``v - FLOOR(v)`` is exact),
    not by ``ROUND``, which rounds half to even in some engines. Negative values (a negative
    level) may round either way: every ``k < 1`` reads as 1. Capped at 2^62 as the Polars form
    clips (and an infinite product stays finite). The alias is readable per query and, through
    :meth:`SqlCtx.row_stat`, on the ranked rows: IPrecAvg's walk reads it many times.
    """
    num_rel = f"SUM(CASE WHEN {q.relevant(rel)} THEN 1 ELSE 0 END)"
    target = f"LEAST({lit(level)} * CAST({num_rel} AS DOUBLE), {lit(2.0**62)})"
    if rounding == "trec_eval9":
        return q.row_stat(f"FLOOR({target} + 0.9)")
    return q.row_stat(
        f"FLOOR({target}) + CASE WHEN {target} - FLOOR({target}) >= 0.5 THEN 1.0 ELSE 0.0 END"
    )


def _at_level_sql(q: SqlCtx, rel: int | None, k: str) -> str:
    """IPrec at ``k`` documents: the best precision at the relevant ranks from the ``k``-th on.

    0 where ``k`` exceeds the relevant documents retrieved (no row qualifies); ``k < 1`` reads
    as 1 (the best precision of the ranking, 0 when nothing relevant is retrieved).
    """
    found = q.found_so_far(rel)
    return q.hit(
        f"MAX(CASE WHEN {q.relevant(rel)} AND {found} >= GREATEST({k}, 1.0) "
        f"THEN CAST({found} AS DOUBLE) / CAST(rank AS DOUBLE) END)",
        "0.0",
    )


@register
class IPrec(Measure):
    r"""Interpolated precision at a recall level: ``IPrec@0.5``.

    Parameters
    ----------
    cutoff : float
        The recall level :math:`x` (usually in :math:`[0, 1]`), written after ``@``.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.
    judged_only : bool
        Drop unjudged documents from the ranking first (trec_eval ``-J``).
    rounding : {'nearest', 'trec_eval9'}
        How :math:`k` is rounded (below): ``'nearest'`` (trec_eval 10, the default) or
        ``'trec_eval9'``, :math:`\lfloor xR + 0.9 \rfloor` (trec_eval 9 and pytrec_eval, whose
        drop-in :mod:`rankframe.compat.pytrec_eval` uses it).

    Notes
    -----
    With :math:`r_j` the rank of the :math:`j`-th relevant retrieved document,
    :math:`K` their number and :math:`R` the number of relevant documents,

    .. math::
        IPrec@x = \max_{j \ge \max(k, 1)} \frac{j}{r_j}, \qquad k = \mathrm{round}(x R)

    rounding half away from zero (trec_eval 10; trec_eval 9 used :math:`\lfloor xR + 0.9
    \rfloor`: ``rounding='trec_eval9'``). This is the maximum precision
    at any rank at or below the one where recall :math:`k/R` is reached. When the level is
    never reached (:math:`k > K`) the query scores 0, as it does when nothing relevant is
    retrieved. An empty ranking (a query scored by ``complete``, or emptied by
    ``judged_only``) scores 0; trec_eval divides 0 by 0 there and prints ``-nan``.

    References
    ----------
    Manning, C. D., Raghavan, P. and Schütze, H. (2008). *Introduction to Information
    Retrieval*, section 8.4. Cambridge University Press.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["b", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> # rel = 0, 1, 1, 0 and R = 3: precisions 1/2 and 2/3 at the relevant documents;
    >>> # k = 0, 2, 3 for recall 0.0, 0.5, 1.0
    >>> rf.evaluate(qrels, run, ["IPrec@0.0", "IPrec@0.5", "IPrec@1.0"])["value"].round(4).to_list()
    [0.6667, 0.6667, 0.0]
    """

    NAME = "IPrec"
    BOUNDS = (0.0, 1.0)
    PARAMS = (
        Param("cutoff", "float", None, (math.isfinite, "a finite float")),
        Param("rel", "int", None),
        JUDGED_ONLY,
        ROUNDING,
    )

    def validate(self) -> None:
        """Require the recall level."""
        if self.cutoff is None:
            msg = "IPrec needs a recall level after '@', e.g. 'IPrec@0.5'."
            raise MeasureError(msg)

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression.

        The curve, its length and R are per-query partials (see :func:`_curve`): the eleven
        recall levels of trec_eval's default output share one curve.
        """
        curve, found, num_rel = _curve(ctx, self.rel)
        k = _recall_docs(num_rel, self.cutoff, self.rounding)
        return curve.list.get(k.clip(1, found + 1) - 1)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return _at_level_sql(q, self.rel, _recall_docs_sql(q, self.rel, self.cutoff, self.rounding))


@register
class IPrecAvg(Measure):
    r"""Interpolated precision averaged over recall levels (trec_eval ``11pt_avg``).

    Parameters
    ----------
    recall : tuple of float
        The recall levels, default the eleven points 0.0, 0.1, ..., 1.0.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.
    rounding : {'nearest', 'trec_eval9'}
        How each level becomes a number of documents (see :class:`IPrec`).

    Notes
    -----
    .. math:: IPrecAvg = \frac{1}{|X|} \sum_{x \in X} IPrec@x

    for levels in ascending order (see :class:`IPrec` for the rounding and the undefined
    cases). trec_eval walks the levels in the order given, from the last to the first; a level
    met out of that descending order (or rounding to no document) contributes the maximum
    precision of the ranking, :math:`\max_j j / r_j`, and so does every level after it; this
    is reproduced. Levels rounding beyond the relevant documents retrieved contribute 0.

    References
    ----------
    Salton, G. and McGill, M. J. (1983). *Introduction to Modern Information Retrieval*.
    McGraw-Hill.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["b", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> # rel = 0, 1, 1, 0 and R = 3: recall 0.0 to 0.8 round to at most 2 documents (IPrec 2/3),
    >>> # 0.9 and 1.0 round to 3, more than the 2 found (IPrec 0): 9 * 2/3 / 11
    >>> rf.evaluate(qrels, run, ["IPrecAvg"])["value"].round(4).to_list()
    [0.5455]
    """

    NAME = "IPrecAvg"
    BOUNDS = (0.0, 1.0)
    PARAMS = (
        Param(
            "recall", "floats", ELEVEN_POINTS,
            (lambda v: len(v) > 0 and all(math.isfinite(x) for x in v), "a non-empty tuple of floats"),
        ),
        Param("rel", "int", None),
        ROUNDING,
    )

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression.

        Built after the group_by from the per-query partials of :class:`IPrec` (the curve, its
        length K and R), one column expression per level: the walk over the levels is unrolled.
        In the planner the walk's two running flags are derived columns (:meth:`Ctx.derived`),
        each computed once from the one before: written out, each level's expression would
        repeat every earlier one (O(levels^3) nodes).
        """
        curve, found, num_rel = _curve(ctx, self.rel)
        best = curve.list.first()  # max precision of the ranking (0 when K = 0)
        # Replay trec_eval's walk from the last level given to the first: leading levels
        # beyond K are skipped (score 0); after them each level must round to at least one
        # document and to no more than the level before it, else it and every later level
        # score `best`.
        total = None
        skipped: pl.Expr = pl.lit(True)
        matched: pl.Expr = pl.lit(True)
        previous = None
        level = ctx.level(self.rel)
        walk = tuple(reversed(self.recall))
        for i, x in enumerate(walk):
            k = _recall_docs(num_rel, x, self.rounding)
            after_skipped = skipped
            name = f"{level}_{self.rounding}_{walk[: i + 1]}"
            skipped = ctx.derived(f"iprec_skipped_{name}", skipped & (k > found))
            in_order = k >= 1
            if previous is not None:
                in_order = in_order & (after_skipped | (k <= previous))
            matched = ctx.derived(
                f"iprec_matched_{name}", matched & (skipped | in_order)
            )
            at_level = curve.list.get(k.clip(1, found + 1) - 1)
            value = pl.when(skipped).then(0.0).when(matched).then(at_level).otherwise(best)
            total = value if total is None else total + value
            previous = k
        return div_const(total, len(self.recall))

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL: :meth:`expr`'s walk over the levels, unrolled."""
        found = q.num_rel_ret(self.rel)
        best = _at_level_sql(q, self.rel, "1.0")
        # flat conjunctions of short aliases: nested, each level would repeat the earlier ones
        ks = [_recall_docs_sql(q, self.rel, x, self.rounding) for x in reversed(self.recall)]
        skipped = [" AND ".join(f"{k} > {found}" for k in ks[: i + 1]) for i in range(len(ks))]
        ok = []  # per level: skipped, or in order after the level before
        total = []
        for i, k in enumerate(ks):
            in_order = f"{k} >= 1" if i == 0 else f"{k} >= 1 AND (({skipped[i - 1]}) OR {k} <= {ks[i - 1]})"
            ok.append(f"(({skipped[i]}) OR ({in_order}))")
            total.append(
                f"CASE WHEN {skipped[i]} THEN 0.0 WHEN {' AND '.join(ok)} "
                f"THEN {_at_level_sql(q, self.rel, k)} ELSE {best} END"
            )
        return f"({' + '.join(total)}) / {lit(float(len(self.recall)))}"


register_trec(
    "iprec_at_recall",
    double_cutoffs("iprec_at_recall", ELEVEN_POINTS, lambda x: IPrec(cutoff=x)),
)
register_trec(
    "11pt_avg",
    double_params("11pt_avg", lambda xs: IPrecAvg() if xs is None else IPrecAvg(recall=xs)),
)
