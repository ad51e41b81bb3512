"""Counts per query, summed over queries (``NumQ``, ``NumRet``, ``NumRel``, ``NumRelRet``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._measure import Measure
from rankframe._measures._params import Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._trec import single

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx


@register
class NumQ(Measure):
    """Number of evaluated queries (1 per query; summed across queries).

    Notes
    -----
    Evaluated queries are those with judgments and results (with ``complete=True``: every
    judged query).

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "a"], "score": [1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    >>> rf.evaluate(qrels, run, ["NumQ"])["value"].to_list()
    [2.0]
    """

    NAME = "NumQ"
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    AGGREGATE = "sum"

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return pl.lit(1.0)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return "1.0"


@register
class NumRet(Measure):
    r"""Number of retrieved documents (with ``rel``: of retrieved documents with grade >= rel).

    Parameters
    ----------
    rel : int, optional
        Count only retrieved documents with at least this grade (ir_measures' ``NumRet(rel=1)``
        is trec_eval's ``num_rel_ret`` at level 1).

    Notes
    -----
    .. math::
        |\{d : d \text{ retrieved}\}| \quad\text{or}\quad
        |\{d : d \text{ retrieved},\ \mathrm{rel}(d) \ge r\}|

    Summed, not averaged, across queries.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    >>> rf.evaluate(qrels, run, ["NumRet", "NumRet(rel=1)"])["value"].to_list()
    [3.0, 1.0]
    """

    NAME = "NumRet"
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    PARAMS = (Param("rel", "int", None),)
    AGGREGATE = "sum"

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        if self.rel is None:
            return ctx.num_ret.cast(pl.Float64)
        return ctx.num_rel_ret(self.rel).cast(pl.Float64)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return f"CAST({q.num_ret() if self.rel is None else q.num_rel_ret(self.rel)} AS DOUBLE)"


@register
class NumRelRet(Measure):
    """Number of relevant retrieved documents at the evaluation's relevance level.

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``
        (trec_eval's ``num_rel_ret`` follows ``-l``).

    Notes
    -----
    Summed across queries (trec_eval ``num_rel_ret``).

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> rf.evaluate(qrels, run, ["NumRelRet"], relevance_level=2)["value"].to_list()
    [1.0]
    """

    NAME = "NumRelRet"
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    PARAMS = (Param("rel", "int", None),)
    AGGREGATE = "sum"

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return ctx.num_rel_ret(self.rel).cast(pl.Float64)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return f"CAST({q.num_rel_ret(self.rel)} AS DOUBLE)"


@register
class NumRel(Measure):
    """Number of judged relevant documents of the query, retrieved or not.

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    Summed across queries (trec_eval ``num_rel``); counts judged documents whether or not the
    run retrieved them.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                       "relevance": [0, 1, 2]})
    >>> rf.evaluate(qrels, run, ["NumRel", "NumRel(rel=2)"])["value"].to_list()
    [2.0, 1.0]
    """

    NAME = "NumRel"
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    PARAMS = (Param("rel", "int", None),)
    AGGREGATE = "sum"

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return ctx.num_rel(self.rel).cast(pl.Float64)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return f"CAST({q.num_rel(self.rel)} AS DOUBLE)"


register_trec("num_q", single("num_q", lambda: NumQ()))
register_trec("num_ret", single("num_ret", lambda: NumRet()))
register_trec("num_rel", single("num_rel", lambda: NumRel()))
register_trec("num_rel_ret", single("num_rel_ret", lambda: NumRelRet()))
