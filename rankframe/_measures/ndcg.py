"""Normalised discounted cumulative gain (``nDCG``, ``nDCG@k``; trec_eval ``ndcg``, ``ndcg_cut``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._arith import (
    UNROLL_MAX,
    c_log2,
    falling_sum,
    list_count_at_most,
    list_positions,
    list_running_from_zero,
    log2p1,
    ordered_sum,
    running_at,
    safe_div,
    unrolled_sum,
)
from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, POSITIVE_INT, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._sql import div
from rankframe._measures._trec import gains_from_pairs, long_cutoffs, pair_params
from rankframe._measures.gain_g import ideal_gain_list, ranked, ranked_gain_pairs

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx

DCG_VARIANTS = ("log2", "exp-log2")


def gain_expr(ctx: Ctx, dcg: str, gains: tuple[tuple[int, float], ...] | None) -> pl.Expr:
    """Gain of each row: linear grade (or a gain map) for ``log2``, ``2^rel - 1`` for ``exp-log2``."""
    if dcg == "exp-log2":
        return (pl.lit(2.0).pow(ctx.gain(gains)) - 1.0)
    return ctx.gain(gains)


def _dcg_by_position(ctx: Ctx, gain: pl.Expr, position: pl.Expr, cutoff: int) -> pl.Expr:
    """DCG@cutoff as one plain sum per position ``1..cutoff`` (:func:`unrolled_sum`).

    ``position`` is unique within a query (a rank, an ideal position): each sum holds one term
    at most, the gain divided by C's ``log2(i + 1)``, and the sums are added in position order,
    as trec_eval adds. The terms are one row-level value (:meth:`Ctx.row_column`, a column of
    the hits-only plan): inside the aggregation each of the ``cutoff`` sums evaluated the gain
    and its division again (nDCG@10 on the 43-query sample: ~40% of the plan's time).
    """
    positions = list(range(1, cutoff + 1))
    discount = position.replace_strict(
        positions, [math.log2(i + 1) for i in positions], default=pl.lit(None, pl.Float64),
        return_dtype=pl.Float64,
    )
    # gain / discount per row, both columns: IEEE division, the bits of trec_eval's term
    terms = ctx.row_column(f"dcg_terms_{cutoff}_{position}_{gain}", gain.cast(pl.Float64) / discount)
    return unrolled_sum(lambda i: pl.when(position == i).then(terms).otherwise(0.0).sum(), cutoff)


def dcg_expr(ctx: Ctx, gain: pl.Expr, cutoff: int | None) -> pl.Expr:
    """Sum of gain / log2(rank + 1) over the retrieved documents (within ``cutoff``).

    Added in rank order with C's ``log2``, as trec_eval does: its bits.
    """
    if cutoff is not None and cutoff <= UNROLL_MAX and ctx.few_rows:
        return _dcg_by_position(ctx, gain, ctx.rank, cutoff)
    if ctx.order is not None:  # inline: the gains sorted once, their positions are the ranks
        n = ctx.num_ret.cast(pl.Int64)
        if cutoff is not None:
            n = pl.min_horizontal(n, pl.lit(cutoff, pl.Int64))
        terms = ctx.in_rank_order(gain, cutoff=cutoff) / log2p1(pl.int_range(1, n + 1, dtype=pl.Int64))
        return terms.cum_sum().last().fill_null(0.0)
    keep = ctx.retrieved
    if cutoff is not None:
        keep = keep & (ctx.rank <= cutoff).fill_null(False)
    rank = ctx.rank.filter(keep)  # the discount of the kept rows only (a table lookup)
    return ordered_sum(gain.filter(keep) / log2p1(rank), rank)


def ideal_dcg_expr(
    ctx: Ctx, gain: pl.Expr, cutoff: int | None, *, by_grade: bool = False
) -> pl.Expr:
    """DCG of the judged documents with positive gain, sorted by gain (retrieved or not).

    Added best gain first, as trec_eval adds them. The terms ``gain / log2(position + 1)``
    decrease with the position, so sorting them (descending) gives that order without a sort
    by position. ``by_grade``: the gain grows with the grade and is positive exactly for
    grades >= 1, so the planner's :attr:`Ctx.grade_position` (a column computed before the
    aggregation) may serve as the position; otherwise the gains are sorted per query.
    """
    keep = ctx.judged & (gain > 0)
    if by_grade and ctx.grade_position is not None:
        position = ctx.grade_position
        if cutoff is not None and cutoff <= UNROLL_MAX:
            # the judgments without gain come after those with gain and add 0.0
            return _dcg_by_position(ctx, gain, position, cutoff)
        terms = (gain / log2p1(position)).filter(keep)
        if cutoff is not None:
            terms = terms.filter(position.filter(keep) <= cutoff)
    else:
        # sorted once: the terms come best first (falling), and the length is counted apart
        # (inside an aggregation each reference to a sorted expression sorts again)
        ideal = gain.filter(keep).sort(descending=True)
        length = keep.sum().cast(pl.Int64)
        if cutoff is not None:
            ideal = ideal.head(cutoff)
            length = pl.min_horizontal(length, pl.lit(cutoff, pl.Int64))
        terms = ideal / log2p1(pl.int_range(1, length + 1, dtype=pl.Int64))
        return terms.cum_sum().last().fill_null(0.0)
    return falling_sum(terms)


def dcg_lists(
    ctx: Ctx, key: str, gain_of: Callable[[Ctx], pl.Expr], ranked_gain: pl.Expr | None = None
) -> tuple[pl.Expr, pl.Expr]:
    """The running DCG and ideal DCG lists of the query, as partials named after ``key``.

    Measures that name the same gains with the same ``key`` (nDCG's ``"{dcg}_{gains}"``)
    share one list of each. ``gain_of(ctx)``: the gain of a row; ``ranked_gain``: the gain
    down the ranking when it differs from it (the tie-averaged gain of the "average" policy).
    """
    ranked_gain = gain_of(ctx) if ranked_gain is None else ranked_gain
    # the gains in rank order and in ideal order are the partials; the discounts and running
    # sums are list arithmetic: in the planner after the group_by, over every query at once
    # (inside the aggregation C's log2 is a table lookup run query by query; ndcg, ndcg_cut,
    # ndcg_rel and Rndcg at 5M, aggregation: 1.22-1.38 -> 0.97-1.06 s, e5a78b0); inline
    # (rf.expr) inside the aggregation, where nDCG_rel and RnDCG cost 1.05-1.1x their former
    # aggregation-only lists (1M rows, benchmarks/experiments/inline_paths.py)
    down = ctx.partial(f"ranked_gains_{key}", ranked(ctx, ranked_gain).implode())
    return (
        ctx.derived(f"dcg_running_{key}", _running_dcg(down)),
        ideal_running_list(ctx, key, gain_of),
    )


def ideal_running_list(ctx: Ctx, key: str, gain_of: Callable[[Ctx], pl.Expr]) -> pl.Expr:
    """The running ideal DCG over :func:`ideal_gain_list`, led by ``0.0`` (a derived value)."""
    return ctx.derived(f"ideal_running_{key}", _running_dcg(ideal_gain_list(ctx, key, gain_of)))


def hit_dcg_lists(
    ctx: Ctx, key: str, gain_of: Callable[[Ctx], pl.Expr]
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """:func:`dcg_lists` for the hits-only plan, where a group holds only some retrieved rows.

    The retrieved documents with a nonzero gain, as one list of (rank, gain) pairs in rank
    order (the partial), give their ranks and the running DCG over them, led by ``0.0``: the
    DCG at rank ``k`` is its value after the ranks up to ``k`` (the documents between add
    ``0.0``, which leaves the bits alone). The ideal gains are a list of the judgments
    (:meth:`Ctx.judgment_list`). ``gain_of(ctx)``: the gain of a row. Returns (ranks, running
    DCG, running ideal DCG).
    """
    pairs = ranked_gain_pairs(ctx, key, gain_of(ctx))
    ranks = ctx.derived(f"ranks_{key}", pairs.list.eval(pl.element().struct.field("r")))
    terms = pairs.list.eval(
        pl.element().struct.field("g") / c_log2(pl.element().struct.field("r") + 1.0)
    )
    return (
        ranks,
        ctx.derived(f"dcg_hits_running_{key}", list_running_from_zero(terms)),
        ideal_running_list(ctx, key, gain_of),
    )


def _running_dcg(gains: pl.Expr) -> pl.Expr:
    """The running DCG of a list column of gains in order, led by ``0.0``, as list arithmetic.

    Its ``k``-th value is trec_eval's DCG@k bit for bit: each gain over C's ``log2(position +
    1)``, added one by one (a zero gain adds ``0.0``); read with :func:`running_at`.
    """
    positions = list_positions(gains) + 2.0
    terms = gains / positions.list.eval(c_log2(pl.element()))
    return list_running_from_zero(terms)


@register
class nDCG(Measure):  # noqa: N801 - the measure's canonical name
    r"""Normalised discounted cumulative gain (Järvelin & Kekäläinen).

    Parameters
    ----------
    cutoff : int, optional
        Cut both the ranking and the ideal ranking at ``k`` (trec_eval's ``ndcg_cut_k``).
    dcg : {"log2", "exp-log2"}
        ``log2``: gain = grade (trec_eval); ``exp-log2``: gain = :math:`2^{grade} - 1`
        (Burges et al.; ranx's ``ndcg_burges``).
    gains : dict, optional
        Map grade -> gain (trec_eval's ``ndcg.1=3,2=9``); grades absent from the map keep
        their own value.
    judged_only : bool
        Drop unjudged documents from the ranking first (trec_eval ``-J``).

    Notes
    -----
    .. math::
        DCG@k = \sum_{i=1}^{k} \frac{g(d_i)}{\log_2(i + 1)}, \qquad
        nDCG@k = \frac{DCG@k}{IDCG@k}

    The ideal ranking sorts every judged document of the query with a positive gain, retrieved
    or not; it is cut at ``k`` but never by the run's depth. Negative grades have gain 0.
    Undefined when IDCG = 0 (nothing relevant): the query scores 0. Both sums are added in rank
    (ideal position) order with C's ``log2`` as the discount, trec_eval's arithmetic: per query,
    the same bits.

    References
    ----------
    Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques.
    ACM TOIS 20(4), 422-446.
    Burges, C. et al. (2005). Learning to rank using gradient descent. ICML 2005.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> # rel = 0, 1, 2: (1/log2(3) + 2/log2(4)) / (2/log2(2) + 1/log2(3))
    >>> rf.evaluate(qrels, run, ["nDCG"])["value"].round(6).to_list()
    [0.619906]
    """

    NAME = "nDCG"
    PARAMS = (
        Param("cutoff", "int", None, POSITIVE_INT),
        Param("dcg", "str", "log2", (lambda v: v in DCG_VARIANTS, "one of 'log2', 'exp-log2'")),
        Param("gains", "gains", None),
        JUDGED_ONLY,
    )
    ALIASES = {"ndcg": {}, "ndcg_burges": {"dcg": "exp-log2"}}
    SUPPORTS_AVERAGE_TIES = True
    HITS_ONLY = True

    def bounds(self) -> tuple[float, float] | None:
        """``(0.0, 1.0)`` with the default gains; a gain map may hold negative gains."""
        return None if self.gains is not None else (0.0, 1.0)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        gain_of = partial(gain_expr, dcg=self.dcg, gains=self.gains)
        gain = gain_of(ctx)
        ranked_gain = ctx.tie_mean(gain, f"gain_{self.dcg}_{self.gains}")
        key = f"{self.dcg}_{self.gains}"
        if ctx.partials is not None and not ctx.hits_only:
            # the planner's general plan, every retrieved row in the group: the running DCG and
            # ideal DCG lists are computed once per query and read at each cutoff (ndcg_cut's
            # nine cutoffs sort twice; the planner's figure at dcg_lists). Inline (rf.expr) nDCG
            # runs as one aggregation, the sums below: these lists cost 1.9x there for nDCG,
            # 1.35x for nDCG@10, the hits plan's lists 1.6x (1M rows,
            # benchmarks/experiments/inline_paths.py)
            dcg, ideal_dcg = dcg_lists(ctx, key, gain_of, ranked_gain)
            return safe_div(running_at(dcg, self.cutoff), running_at(ideal_dcg, self.cutoff))
        unrolled = ctx.few_rows and self.cutoff is not None and self.cutoff <= UNROLL_MAX
        if ctx.hits_only and not unrolled:
            # hits only, beyond the unrolled sums (a cutoff past them, or the judged
            # non-relevant rows in the groups too): the same lists over the retrieved documents
            # with a gain, read at each cutoff (one sort per query instead of one per cutoff)
            ranks, dcg, ideal_dcg = hit_dcg_lists(ctx, key, gain_of)
            at = None if self.cutoff is None else list_count_at_most(ranks, pl.lit(self.cutoff))
            return safe_div(running_at(dcg, at), running_at(ideal_dcg, self.cutoff))
        ideal = ctx.judgments(
            f"idcg_{self.dcg}_{self.gains}_{self.cutoff}",
            lambda c: ideal_dcg_expr(
                c, gain_expr(c, self.dcg, self.gains), self.cutoff, by_grade=self.gains is None
            ),
        )
        # the ideal DCG is a column's first value in the hits-only plan, an aggregation elsewhere
        return safe_div(
            dcg_expr(ctx, ranked_gain, self.cutoff), ideal, costly_den=not ctx.hits_only
        )

    def hit_level(self, relevance_level: int) -> int | None:
        """Grade 1, or 0 when a gain map gives grade 0 a gain (negative grades have none)."""
        if self.judged_only:
            return None
        return 0 if dict(self.gains or ()).get(0, 0.0) != 0.0 else 1

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL: DCG over the ideal DCG, both cut at ``k``."""
        gain = q.gain(self.gains, self.dcg)
        return div(q.dcg(gain, self.cutoff), q.ideal_dcg(gain, self.cutoff))


def _ndcg_trec(pairs: dict[str, float] | None) -> nDCG:
    return nDCG(gains=gains_from_pairs("ndcg", pairs))


register_trec("ndcg", pair_params("ndcg", _ndcg_trec))
register_trec(
    "ndcg_cut",
    long_cutoffs("ndcg_cut", (5, 10, 15, 20, 30, 100, 200, 500, 1000), lambda k: nDCG(cutoff=k)),
)
