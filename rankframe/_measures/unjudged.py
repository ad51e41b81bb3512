"""Judgment coverage of the top of a ranking (``Judged@k``, ``Unjudged@k``; trec_eval ``unj``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._arith import div_const, safe_div
from rankframe._measures._measure import Measure
from rankframe._measures._params import ANY_GRADE, POSITIVE_INT, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._sql import div
from rankframe._measures._trec import long_cutoffs

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx


def _top(ctx: Ctx, cutoff: int | None) -> pl.Expr:
    keep = ctx.retrieved
    if cutoff is not None:
        keep = keep & (ctx.rank <= cutoff).fill_null(False)
    return keep


def _shown(ctx: Ctx, cutoff: int | None) -> pl.Expr:
    """The number of retrieved documents within the cutoff: min(k, number retrieved)."""
    n = ctx.num_ret.cast(pl.Int64)
    return n if cutoff is None else n.clip(upper_bound=cutoff)


@register
class Judged(Measure):
    r"""Fraction of the top ``k`` documents that appear in the qrels (ir_measures ``Judged@k``).

    Parameters
    ----------
    cutoff : int, optional
        ``k``. Without it, the whole ranking.

    Notes
    -----
    .. math:: Judged@k = \frac{|\{d : \mathrm{rank}(d) \le k,\ d \in \mathrm{qrels}\}|}{\min(k, n)}

    with :math:`n` the number of retrieved documents: unlike :class:`Unjudged`, a ranking
    shorter than ``k`` is not padded. Any qrels line counts as a judgment, negative grades
    included (ir_measures' rule), so it is not ``1 - Unjudged@k``. A query with nothing
    retrieved scores 0 (ir_measures divides by zero there).

    References
    ----------
    MacAvaney, S., Macdonald, C. and Ounis, I. (2022). Streamlining evaluation with
    ir-measures. ECIR 2022.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "c"], "relevance": [0, -1]})
    >>> # judged a, c; at 2: 1/2; at 10 (3 retrieved): 2/3
    >>> rf.evaluate(qrels, run, ["Judged@2", "Judged@10"])["value"].round(6).to_list()
    [0.5, 0.666667]
    """

    NAME = "Judged"
    BOUNDS = (0.0, 1.0)
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT),)

    HITS_ONLY = True
    HIT_FLOOR = ANY_GRADE  # every judgment: negative grades count as judged here

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        judged = (_top(ctx, self.cutoff) & ctx.rel.is_not_null()).sum()
        return safe_div(judged, _shown(ctx, self.cutoff))

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        judged = q.hit(f"SUM(CASE WHEN rel IS NOT NULL AND {q.within(self.cutoff)} THEN 1 ELSE 0 END)")
        shown = q.num_ret() if self.cutoff is None else f"LEAST({q.num_ret()}, {self.cutoff})"
        return div(judged, shown)


@register
class Unjudged(Measure):
    r"""Fraction of the top ``k`` that is unjudged (trec_eval ``unj``).

    Parameters
    ----------
    cutoff : int, optional
        ``k``. Without it, the whole ranking.

    Notes
    -----
    .. math::
        Unjudged@k = \frac{|\{d : \mathrm{rank}(d) \le k,\ d \notin \mathrm{qrels}
        \text{ or } \mathrm{rel}(d) < 0\}|}{k}

    A document is unjudged when it is absent from the qrels or has a negative grade ("in the
    pool but not judged"). The denominator is ``k`` even when fewer are retrieved (the ranking
    is padded with judged non-relevant documents, as trec_eval does); without a cutoff it is
    the number retrieved. A red-flag measure: a high value near the top means the judgments
    cover this run poorly. A query with nothing retrieved scores 0.

    References
    ----------
    Buckley, C. (2008). trec_eval, measure ``unj`` (``m_unjudged.c``), National Institute
    of Standards and Technology. https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "c"], "relevance": [0, -1]})
    >>> # b absent from the qrels, c in the pool but unjudged: 1/2 and 2/5
    >>> rf.evaluate(qrels, run, ["Unjudged@2", "Unjudged@5"])["value"].to_list()
    [0.5, 0.4]
    """

    NAME = "Unjudged"
    BOUNDS = (0.0, 1.0)
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT),)

    HITS_ONLY = True
    HIT_FLOOR = 0  # the judged documents, counted off the documents shown

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        # the retrieved documents shown, less those judged (grade >= 0)
        unjudged = _shown(ctx, self.cutoff) - (_top(ctx, self.cutoff) & ctx.judged).sum()
        if self.cutoff is None:
            return safe_div(unjudged, ctx.num_ret)
        return div_const(unjudged, self.cutoff)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        judged = q.hit(f"SUM(CASE WHEN rel >= 0 AND {q.within(self.cutoff)} THEN 1 ELSE 0 END)")
        shown = q.num_ret() if self.cutoff is None else f"LEAST({q.num_ret()}, {self.cutoff})"
        if self.cutoff is None:
            return div(f"{shown} - {judged}", q.num_ret())
        return f"CAST({shown} - {judged} AS DOUBLE) / {self.cutoff}"


register_trec("unj", long_cutoffs("unj", (5, 10, 20), lambda k: Unjudged(cutoff=k)))
