"""Measures of the retrieved set, ignoring order (``SetP``, ``SetR``, ``SetF``...).

Families ``SetP``, ``SetRelP``, ``SetR``, ``SetAP``, ``SetF``, ``NumNonRelJudgedRet``; trec_eval
names ``set_P``, ``set_relative_P``, ``set_recall``, ``set_map``, ``set_F``,
``num_nonrel_judged_ret``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._sql import lit
from rankframe._measures._trec import double_params, single

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx


def _counts(ctx: Ctx, rel: int | None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """Relevant retrieved, retrieved and relevant counts as floats."""
    return (
        ctx.num_rel_ret(rel).cast(pl.Float64),
        ctx.num_ret.cast(pl.Float64),
        ctx.num_rel(rel).cast(pl.Float64),
    )


def _relative_p(ctx: Ctx, rel: int | None) -> pl.Expr:
    rel_ret, ret, num_rel = _counts(ctx, rel)
    return pl.when((ret > 0) & (num_rel > 0)).then(
        rel_ret / pl.min_horizontal(ret, num_rel)
    ).otherwise(0.0)


def _counts_sql(q: SqlCtx, rel: int | None) -> tuple[str, str, str]:
    """:func:`_counts` as SQL doubles."""
    return (
        f"CAST({q.num_rel_ret(rel)} AS DOUBLE)",
        f"CAST({q.num_ret()} AS DOUBLE)",
        f"CAST({q.num_rel(rel)} AS DOUBLE)",
    )


def _relative_p_sql(q: SqlCtx, rel: int | None) -> str:
    rel_ret, ret, num_rel = _counts_sql(q, rel)
    return f"CASE WHEN {ret} > 0 AND {num_rel} > 0 THEN {rel_ret} / LEAST({ret}, {num_rel}) ELSE 0.0 END"


_REL = Param("rel", "int", None)


@register
class SetP(Measure):
    r"""Set precision: the fraction of the retrieved documents that is relevant.

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.
    relative : bool
        Divide by the best count possible instead (ir_measures' spelling of :class:`SetRelP`).
    judged_only : bool
        Drop unjudged documents from the ranking first (trec_eval ``-J``).

    Notes
    -----
    .. math:: SetP = \frac{n_{rr}}{n_{ret}}

    with :math:`n_{rr}` the relevant retrieved and :math:`n_{ret}` the retrieved documents
    (after the depth cut, so ``depth=50`` differs from ``P@50`` when fewer than 50 are
    retrieved). It equals ``P`` without a cutoff. Undefined when nothing is retrieved: 0.

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
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> rf.evaluate(qrels, run, ["SetP"])["value"].to_list()  # 2 relevant of 4 retrieved
    [0.5]
    """

    NAME = "SetP"
    BOUNDS = (0.0, 1.0)
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    PARAMS = (_REL, Param("relative", "bool", False), JUDGED_ONLY)

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        if self.relative:
            return _relative_p(ctx, self.rel)
        rel_ret, ret, _ = _counts(ctx, self.rel)
        return pl.when(ret > 0).then(rel_ret / ret).otherwise(0.0)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        if self.relative:
            return _relative_p_sql(q, self.rel)
        rel_ret, ret, _ = _counts_sql(q, self.rel)
        return f"CASE WHEN {ret} > 0 THEN {rel_ret} / {ret} ELSE 0.0 END"


@register
class SetRelP(Measure):
    r"""Relative set precision: relevant retrieved over the most that could have been retrieved.

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    .. math:: SetRelP = \frac{n_{rr}}{\min(n_{ret}, R)}

    with :math:`R` the number of judged relevant documents. Same as ``SetP(relative=True)``.
    Undefined when nothing is retrieved or nothing is relevant: 0.

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
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> rf.evaluate(qrels, run, ["SetRelP"])["value"].round(4).to_list()  # 2 / min(4, 3)
    [0.6667]
    """

    NAME = "SetRelP"
    BOUNDS = (0.0, 1.0)
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    PARAMS = (_REL,)

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return _relative_p(ctx, self.rel)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return _relative_p_sql(q, self.rel)


@register
class SetR(Measure):
    r"""Set recall: the fraction of the relevant documents that is retrieved.

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    .. math:: SetR = \frac{n_{rr}}{R}

    It equals ``R`` without a cutoff. Undefined when :math:`R = 0`: the query scores 0.

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
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> rf.evaluate(qrels, run, ["SetR"])["value"].round(4).to_list()  # 2 of 3 relevant
    [0.6667]
    """

    NAME = "SetR"
    BOUNDS = (0.0, 1.0)
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    PARAMS = (_REL,)

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        rel_ret, _, num_rel = _counts(ctx, self.rel)
        return pl.when(num_rel > 0).then(rel_ret / num_rel).otherwise(0.0)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        rel_ret, _, num_rel = _counts_sql(q, self.rel)
        return f"CASE WHEN {num_rel} > 0 THEN {rel_ret} / {num_rel} ELSE 0.0 END"


@register
class SetAP(Measure):
    r"""Unranked average precision: set precision times set recall.

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.
    judged_only : bool
        Drop unjudged documents from the ranking first (trec_eval ``-J``).

    Notes
    -----
    .. math:: SetAP = \frac{n_{rr}}{n_{ret}} \cdot \frac{n_{rr}}{R}

    AP of a ranking whose every relevant retrieved document is credited with the set precision.
    Undefined when nothing is retrieved or nothing is relevant: 0.

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
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> rf.evaluate(qrels, run, ["SetAP"])["value"].round(4).to_list()  # 2/4 * 2/3
    [0.3333]
    """

    NAME = "SetAP"
    BOUNDS = (0.0, 1.0)
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    PARAMS = (_REL, JUDGED_ONLY)

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        rel_ret, ret, num_rel = _counts(ctx, self.rel)
        return pl.when((ret > 0) & (num_rel > 0)).then(
            (rel_ret * rel_ret) / (ret * num_rel)
        ).otherwise(0.0)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        rel_ret, ret, num_rel = _counts_sql(q, self.rel)
        return (
            f"CASE WHEN {ret} > 0 AND {num_rel} > 0 "
            f"THEN ({rel_ret} * {rel_ret}) / ({ret} * {num_rel}) ELSE 0.0 END"
        )


@register
class SetF(Measure):
    r"""Set F-measure: the weighted harmonic mean of set precision and set recall.

    Parameters
    ----------
    beta : float
        Weight of recall relative to precision (default 1: F1). As in trec_eval and ir_measures
        it enters the formula as is, so it plays the role of :math:`\beta^2` in van
        Rijsbergen's :math:`F_\beta`.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.
    judged_only : bool
        Drop unjudged documents from the ranking first (trec_eval ``-J``).

    Notes
    -----
    With :math:`P` = :class:`SetP` and :math:`R` = :class:`SetR`,

    .. math:: SetF = \frac{(1 + \beta) P R}{\beta P + R}

    Undefined when no relevant document is retrieved: the query scores 0.

    References
    ----------
    van Rijsbergen, C. J. (1979). *Information Retrieval*, 2nd ed., chapter 7. Butterworths.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> # P = 1/2, R = 2/3: 2PR / (P + R) = 4/7 and 1.5PR / (0.5P + R) = 6/11
    >>> rf.evaluate(qrels, run, ["SetF", "SetF(beta=0.5)"])["value"].round(4).to_list()
    [0.5714, 0.5455]
    """

    NAME = "SetF"
    BOUNDS = (0.0, 1.0)
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    PARAMS = (
        Param("beta", "float", 1.0, (math.isfinite, "a finite float")),
        _REL,
        JUDGED_ONLY,
    )

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        rel_ret, ret, num_rel = _counts(ctx, self.rel)
        p, r = rel_ret / ret, rel_ret / num_rel
        f = (self.beta + 1.0) * p * r / (self.beta * p + r)
        return pl.when(rel_ret > 0).then(f).otherwise(0.0)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        # a negative beta may divide by 0: inf or NaN in Polars, and in DuckDB's IEEE division
        rel_ret, ret, num_rel = _counts_sql(q, self.rel)
        p, r = f"({rel_ret} / {ret})", f"({rel_ret} / {num_rel})"
        f = f"{lit(self.beta + 1.0)} * {p} * {r} / ({lit(self.beta)} * {p} + {r})"
        return f"CASE WHEN {rel_ret} > 0 THEN {f} ELSE 0.0 END"


@register
class NumNonRelJudgedRet(Measure):
    r"""Number of retrieved documents judged non-relevant (summed over queries).

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    Counts retrieved documents with a grade in :math:`[0, \ell)`; documents absent from the
    qrels or with a negative grade are not counted. Summed, not averaged, across queries.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                       "relevance": [0, -1, 1]})
    >>> rf.evaluate(qrels, run, ["NumNonRelJudgedRet"])["value"].to_list()  # only a
    [1.0]
    """

    NAME = "NumNonRelJudgedRet"
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    PARAMS = (_REL,)
    AGGREGATE = "sum"

    HITS_ONLY = True
    HIT_FLOOR = 0  # it counts the judged non-relevant documents

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        nonrel = ctx.judged & ~ctx.relevant(self.rel) & ctx.retrieved
        return nonrel.sum().cast(pl.Float64)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        nonrel = q.hit(f"SUM(CASE WHEN rel >= 0 AND NOT ({q.relevant(self.rel)}) THEN 1 ELSE 0 END)")
        return f"CAST({nonrel} AS DOUBLE)"


def _set_f(params: tuple[float, ...] | None) -> SetF:
    return SetF() if params is None else SetF(beta=params[0])  # trec_eval reads the first only


register_trec("set_P", single("set_P", lambda: SetP()))
register_trec("set_relative_P", single("set_relative_P", lambda: SetRelP()))
register_trec("set_recall", single("set_recall", lambda: SetR()))
register_trec("set_map", single("set_map", lambda: SetAP()))
register_trec("set_F", double_params("set_F", _set_f))
register_trec("num_nonrel_judged_ret", single("num_nonrel_judged_ret", lambda: NumNonRelJudgedRet()))
