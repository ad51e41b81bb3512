"""ranx's hit-based measures: ``HitRate@k``, ``Hits@k``, ``F1@k`` (ranx ``hit_rate``, ``hits``, ``f1``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._measure import Measure
from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx


def _cutoff_param() -> Param:
    return Param("cutoff", "int", None, POSITIVE_INT)


@register
class HitRate(Measure):
    r"""1 when a relevant document is in the top ``k``, else 0 (ranx ``hit_rate``).

    Parameters
    ----------
    cutoff : int, optional
        ``k``. Without it, the whole ranking.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    .. math:: HitRate@k = [\exists d : \mathrm{rank}(d) \le k,\ \mathrm{rel}(d) \ge \ell]

    Its mean over queries is the fraction of queries with a hit, trec_eval's ``success``. A
    query without relevant documents scores 0.

    References
    ----------
    Bassani, E. (2022). ranx: A blazing-fast Python library for ranking evaluation and
    comparison. ECIR 2022.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "a", "b"],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "z"], "relevance": [1, 1]})
    >>> rf.evaluate(qrels, run, ["HitRate@1", "HitRate@2"])["value"].to_list()  # 0, (1 + 0) / 2
    [0.0, 0.5]
    """

    NAME = "HitRate"
    BOUNDS = (0.0, 1.0)
    PARAMS = (_cutoff_param(), Param("rel", "int", None))
    ALIASES = {"hit_rate": {}}

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return (ctx.num_rel_ret(self.rel, self.cutoff) > 0).cast(pl.Float64)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return f"CASE WHEN {q.num_rel_ret(self.rel, self.cutoff)} > 0 THEN 1.0 ELSE 0.0 END"


@register
class Hits(Measure):
    r"""Number of relevant documents in the top ``k`` (ranx ``hits``), averaged over queries.

    Parameters
    ----------
    cutoff : int, optional
        ``k``. Without it, the whole ranking.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    .. math:: Hits@k = |\{d : \mathrm{rank}(d) \le k,\ \mathrm{rel}(d) \ge \ell\}|

    Aggregated by the mean, as ranx does (``NumRelRet`` is its sum). A query without relevant
    documents scores 0.

    References
    ----------
    Bassani, E. (2022). ranx: A blazing-fast Python library for ranking evaluation and
    comparison. ECIR 2022.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "a", "b"],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
    ...                       "relevance": [1, 1, 1]})
    >>> rf.evaluate(qrels, run, ["Hits@2"])["value"].to_list()  # (2 + 1) / 2
    [1.5]
    """

    NAME = "Hits"
    SUPPORTS_AVERAGE_TIES = True  # order-free, or linear in the hits (expected_hits)
    PARAMS = (_cutoff_param(), Param("rel", "int", None))
    ALIASES = {"hits": {}}

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return ctx.expected_hits(self.rel, self.cutoff).cast(pl.Float64)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return f"CAST({q.num_rel_ret(self.rel, self.cutoff)} AS DOUBLE)"


@register
class F1(Measure):
    r"""Harmonic mean of precision and recall at ``k`` (ranx ``f1``).

    Parameters
    ----------
    cutoff : int, optional
        ``k``. Without it, the whole ranking (``k`` = the number retrieved).
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    With :math:`h` the relevant documents in the top :math:`k`, :math:`P = h / k` (ranx
    divides by :math:`k` even when fewer are retrieved) and :math:`R = h / |Rel|`:

    .. math:: F1@k = \frac{2PR}{P + R} = \frac{2h}{k + |Rel|}

    0 when nothing relevant is retrieved in the top :math:`k`, when the query has no relevant
    document or nothing retrieved (ranx's choices). Without a cutoff it equals trec_eval's
    ``set_F``.

    References
    ----------
    van Rijsbergen, C. J. (1979). Information Retrieval, 2nd ed., Butterworths, chapter 7.
    Bassani, E. (2022). ranx: A blazing-fast Python library for ranking evaluation and
    comparison. ECIR 2022.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "z"], "relevance": [1, 1]})
    >>> # h = 1, |Rel| = 2: 2 / (2 + 2) at k = 2, 2 / (5 + 2) at k = 5
    >>> rf.evaluate(qrels, run, ["F1@2", "F1@5"])["value"].round(6).to_list()
    [0.5, 0.285714]
    """

    NAME = "F1"
    BOUNDS = (0.0, 1.0)
    SUPPORTS_AVERAGE_TIES = True  # order-free, or linear in the hits (expected_hits)
    PARAMS = (_cutoff_param(), Param("rel", "int", None))
    ALIASES = {"f1": {}}

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        hits = ctx.expected_hits(self.rel, self.cutoff).cast(pl.Float64)
        shown = ctx.num_ret if self.cutoff is None else pl.lit(self.cutoff)
        den = shown.cast(pl.Float64) + ctx.num_rel(self.rel).cast(pl.Float64)
        return pl.when(hits > 0).then(2.0 * hits / den).otherwise(0.0)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        hits = f"CAST({q.num_rel_ret(self.rel, self.cutoff)} AS DOUBLE)"
        shown = q.num_ret() if self.cutoff is None else str(self.cutoff)
        den = f"(CAST({shown} AS DOUBLE) + CAST({q.num_rel(self.rel)} AS DOUBLE))"
        return f"CASE WHEN {hits} > 0 THEN 2.0 * {hits} / {den} ELSE 0.0 END"
