"""Normalised gain ``G`` and its binary form ``binG`` (trec_eval ``G``, ``binG``).

Also home of :func:`trec_gain`, the gain of a row under a trec_eval gain map, shared by the
gain-based trec_eval measures (``G``, ``ndcg_rel``, ``Rndcg``, ``dcg``, ``rbp``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._arith import (
    c_log2,
    list_at_most,
    list_ordered_sum,
    list_running,
    list_running_from_zero,
    safe_div,
)
from rankframe._measures._measure import Measure
from rankframe._measures._params import Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._trec import gains_from_pairs, pair_params, single

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx

Gains = tuple[tuple[int, float], ...] | None

#: Pseudo-grades under which a trec_eval gain map can name the documents without a judgment:
#: ``-1`` for a retrieved document absent from the qrels, ``-2`` for a negative (unjudged) grade.
NONPOOL, UNJUDGED = -1, -2


def trec_gain(ctx: Ctx, gains: Gains) -> pl.Expr:
    """Gain of each row as trec_eval assigns it from a ``grade=gain`` map.

    A judged grade ``g >= 0`` gains ``gains[g]`` when the map names it, else ``g``. A retrieved
    document missing from the qrels gains ``gains[-1]`` and one with a negative grade
    ``gains[-2]`` (trec_eval's internal codes for them), 0 when the map does not name them.
    """
    mapping = dict(gains or ())
    expr = pl.when(ctx.rel.is_null()).then(pl.lit(mapping.get(NONPOOL, 0.0)))
    expr = expr.when(ctx.rel < 0).then(pl.lit(mapping.get(UNJUDGED, 0.0)))
    for grade, gain in mapping.items():
        if grade >= 0:
            expr = expr.when(ctx.rel == grade).then(pl.lit(gain))
    return expr.otherwise(ctx.rel.cast(pl.Float64))


def gain_hit_level(gains: Gains) -> int | None:
    """The hit level of a measure of :func:`trec_gain` gains: the grades with a gain.

    Grades 1 up, 0 up when the map gives grade 0 a gain; ``None`` (every row) when it gives one
    to unjudged documents (``-1``, ``-2``).
    """
    mapping = dict(gains or ())
    if mapping.get(NONPOOL, 0.0) != 0.0 or mapping.get(UNJUDGED, 0.0) != 0.0:
        return None
    return 0 if mapping.get(0, 0.0) != 0.0 else 1


def gain_key(gains: Gains) -> str:
    """The name of the per-query gain lists of :func:`shared_gain` (shared between measures)."""
    return "log2_None" if gains is None else f"trec_{gains}"


def shared_gain(ctx: Ctx, gains: Gains) -> pl.Expr:
    """trec_eval's gains (:func:`trec_gain`), as one expression per :func:`gain_key`.

    Without a map, nDCG's own expression for the same values (the grade, 0 for missing and
    negative ones): lists shared between measures are built from equal expressions
    (:meth:`Ctx.partial` checks it).
    """
    return ctx.gain() if gains is None else trec_gain(ctx, gains)


def ranked_gain_pairs(ctx: Ctx, key: str, gain: pl.Expr) -> pl.Expr:
    """The retrieved documents with a nonzero gain: one list of (rank, gain) pairs in rank order.

    A partial named after ``key`` (nDCG's lists in the hits plan, nDCG_rel, RnDCG and G share
    it); the ranks as floats (field ``r``), the gains (field ``g``).
    """
    some = ctx.retrieved & (gain != 0)
    rank = ctx.rank.filter(some)
    pairs = pl.struct(r=rank.cast(pl.Float64), g=gain.filter(some)).sort_by(rank)
    return ctx.partial(f"ranked_pairs_{key}", pairs.implode())


def ranked(ctx: Ctx, values: pl.Expr, keep: pl.Expr | None = None) -> pl.Expr:
    """``values`` of the retrieved rows (or of the rows ``keep``), in rank order.

    Each reference sorts again (Polars shares no sub-expression inside an aggregation): build
    a measure so that it reads each sorted expression once, counting with :func:`num_ideal`
    and :attr:`Ctx.num_ret` rather than with the ``len`` of a sorted one.
    """
    keep = ctx.retrieved if keep is None else keep
    return values.filter(keep).sort_by(ctx.rank.filter(keep))


def ideal_gains(ctx: Ctx, gain: pl.Expr) -> pl.Expr:
    """Positive gains of the judged documents (retrieved or not), best first."""
    return gain.filter(ctx.judged & (gain > 0)).sort(descending=True)


def ideal_gain_list(ctx: Ctx, key: str, gain_of: Callable[[Ctx], pl.Expr]) -> pl.Expr:
    """The query's ideal gains (:func:`ideal_gains`) as one judgment list named after ``key``."""
    return ctx.judgment_list(f"ideal_gains_{key}", lambda c: ideal_gains(c, gain_of(c)).implode())


def num_ideal(ctx: Ctx, gain: pl.Expr) -> pl.Expr:
    """The length of :func:`ideal_gains`, counted without sorting (Int64)."""
    return (ctx.judged & (gain > 0)).sum().cast(pl.Int64)


@register
class G(Measure):
    r"""Normalised gain ``G``: a gain-weighted, rank-discounted mix of AP and nDCG (trec_eval ``G``).

    Parameters
    ----------
    gains : dict, optional
        Map grade -> gain (trec_eval's ``G.1=3,2=9``); grades absent from the map keep their
        own value; ``-1`` names retrieved documents absent from the qrels and ``-2`` those
        with a negative grade (both gain 0 by default).

    Notes
    -----
    With :math:`g_i` the gain at rank :math:`i`, :math:`S_i = \sum_{j \le i} g_j` the gain
    collected so far, :math:`I_j` the :math:`j`-th gain of the ideal ranking (every judged
    document with a positive gain, best first; 0 past its end) and
    :math:`C_i = \sum_{j \le i} \max(I_j, 1)` the cost of the ideal ranking so far:

    .. math::
        G = \frac{1}{\sum_j I_j} \sum_{i : g_i \ne 0} \frac{g_i}{\log_2(2 + C_i - S_i)}

    A document is discounted by how far the ranking lags behind the ideal one at its rank, so a
    relevant document after other relevant ones loses little. The relevance level does not
    apply (gains only). Undefined when the ideal gain is 0 (nothing relevant): the query
    scores 0. Experimental measure of trec_eval (C. Buckley, 2008).

    References
    ----------
    Buckley, C. (2008). trec_eval, measure ``G`` (``m_G.c``), National Institute of
    Standards and Technology. https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> # gains 0, 1, 2; ideal 2, 1; costs C = 2, 3, 4; collected S = 0, 1, 3
    >>> # (1 / log2(2 + 3 - 1) + 2 / log2(2 + 4 - 3)) / (2 + 1) = (1/2 + 2/log2(3)) / 3
    >>> rf.evaluate(qrels, run, ["G"])["value"].round(6).to_list()
    [0.587287]
    """

    NAME = "G"
    PARAMS = (Param("gains", "gains", None),)
    HITS_ONLY = True

    def hit_level(self, relevance_level: int) -> int | None:
        """See :func:`gain_hit_level`."""
        return gain_hit_level(self.gains)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        # only the retrieved documents with a gain add a term: those, in rank order (a zero
        # gain leaves the running sum S's bits alone). Per query two sorted lists (partials
        # shared with the nDCG family: (rank, gain) pairs in rank order, the ideal gains), the
        # rest list arithmetic after the group_by, over every query at once (inside the
        # aggregation each step runs query by query)
        key = gain_key(self.gains)
        pairs = ranked_gain_pairs(ctx, key, shared_gain(ctx, self.gains))
        got = pairs.list.eval(pl.element().struct.field("g"))
        # (the ranks as the nDCG family reads them: one column in the planner)
        rank = ctx.derived(f"ranks_{key}", pairs.list.eval(pl.element().struct.field("r")))
        ideal = ideal_gain_list(ctx, key, partial(shared_gain, gains=self.gains))
        # the cost of the ideal ranking so far, C_0 = 0, C_1, ..., C_m
        ideal_cost = list_running_from_zero(ideal.list.eval(pl.element().clip(lower_bound=1.0)))
        ideal_total = list_ordered_sum(ideal)
        m = ideal.list.len().cast(pl.Int64)
        # past the end of the ideal ranking each rank costs 1: C_min(r, m) + max(r - m, 0)
        within = list_at_most(rank, m)
        cost = ideal_cost.list.gather(within.cast(pl.List(pl.Int64))) + (rank - within)
        terms = got / (2.0 + cost - list_running(got)).list.eval(c_log2(pl.element()))
        # running sums in rank (ideal) order, as trec_eval adds them
        total = list_ordered_sum(terms)
        # the ideal gains are positive: their total is > 0 exactly when there is one
        return pl.when(m > 0).then(total / ideal_total).otherwise(0.0)


@register
class binG(Measure):  # noqa: N801 - the measure's canonical name
    r"""Binary normalised gain ``binG``: ``G`` with gains 0 or 1 (trec_eval ``binG``).

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    With :math:`R` the number of judged relevant documents and :math:`n_d` the number of
    non-relevant (or unjudged) documents ranked above the relevant document :math:`d`:

    .. math:: binG = \frac{1}{R} \sum_{d \text{ relevant retrieved}} \frac{1}{\log_2(2 + n_d)}

    A relevant document counts fully when only relevant documents precede it. Undefined when
    :math:`R = 0`: the query scores 0.

    References
    ----------
    Buckley, C. (2008). trec_eval, measure ``binG`` (``m_binG.c``), National Institute of
    Standards and Technology. https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> # relevant at ranks 1 and 3 (one non-relevant above it), one never retrieved
    >>> # (1/log2(2) + 1/log2(3)) / 3
    >>> rf.evaluate(qrels, run, ["binG"])["value"].round(6).to_list()
    [0.543643]
    """

    NAME = "binG"
    PARAMS = (Param("rel", "int", None),)

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        # list arithmetic on the shared hit ranks: in the planner after the group_by, over every
        # query at once; inline (rf.expr) inside the aggregation, where it costs 0.5x the former
        # aggregation-only form (1M rows, benchmarks/experiments/inline_paths.py)
        ranks, found = ctx.hit_rank_lists(self.rel)
        # the k-th relevant document at rank r has r - k non-relevant documents above it; the
        # terms added in rank order (the ranks are sorted), as trec_eval adds them
        terms = 1.0 / (ranks - found + 2.0).list.eval(c_log2(pl.element()))
        return safe_div(list_ordered_sum(terms), ctx.num_rel_partial(self.rel))


register_trec("binG", single("binG", lambda: binG()))
register_trec("G", pair_params("G", lambda pairs: G(gains=gains_from_pairs("G", pairs))))
