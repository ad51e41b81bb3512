"""Average precision (``AP``, ``AP@k``, ``GMAP``; trec_eval ``map``, ``map_cut``, ``gm_map``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._arith import list_count_at_most, list_running_from_zero, running_at, safe_div
from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, POSITIVE_INT, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._sql import div
from rankframe._measures._trec import long_cutoffs, single

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx

NORMS = ("num_rel", "num_rel_ret", "min_k_num_rel")


def _ap(ctx: Ctx, rel: int | None, cutoff: int | None, norm: str = "num_rel") -> pl.Expr:
    if ctx.partials is not None and norm == "num_rel":
        # in the planner: the running sum of the precisions at the relevant documents, list
        # arithmetic after the group_by on the shared hit ranks, read at the number of
        # relevant documents within the cutoff (AP, GMAP and map_cut's nine cutoffs; map_cut
        # over the 1M judged frame, aggregation: 0.19 -> 0.04 s, 937e2e7). Inline (rf.expr)
        # this runs as one aggregation: the list form costs 2.4x there for AP, 1.7x for AP@10
        # (1M rows, benchmarks/experiments/inline_paths.py)
        level = ctx.level(rel)
        ranks, found_so_far = ctx.hit_rank_lists(rel)
        # led by 0.0: read at 0 when nothing relevant is found
        running = ctx.derived(f"ap_running_{level}", list_running_from_zero(found_so_far / ranks))
        if cutoff is None:
            found = ranks.list.len()
        else:
            found = list_count_at_most(ranks, pl.lit(float(cutoff))).cast(pl.Int64)
        return safe_div(running_at(running, found), ctx.num_rel_partial(rel))
    ranks, found = ctx.hit_ranks(rel, cutoff)
    # the i-th relevant retrieved document (by rank) contributes i / rank, added in rank order
    # as trec_eval does (its bits; reproducible whatever order the rows arrive in)
    total = (found.cast(pl.Float64) / ranks.cast(pl.Float64)).cum_sum().last().fill_null(0.0)
    if norm == "num_rel_ret":  # the ITMO wiki's AP@k: over the relevant documents in the top k
        return safe_div(total, ranks.len())
    if norm == "min_k_num_rel" and cutoff is not None:  # RePlay's and Recommenders' MAP@k
        return safe_div(total, pl.min_horizontal(ctx.num_rel(rel), pl.lit(cutoff, pl.Int64)))
    return safe_div(total, ctx.num_rel(rel))


def ap_sql(q: SqlCtx, rel: int | None, cutoff: int | None, norm: str = "num_rel") -> str:
    """AP as SQL: the precision at each relevant retrieved document, over the denominator."""
    found = q.found_so_far(rel)
    relevant = f"{q.relevant(rel)} AND {q.within(cutoff)}"
    total = q.hit(f"SUM(CASE WHEN {relevant} THEN CAST({found} AS DOUBLE) / rank ELSE 0.0 END)", "0.0")
    if norm == "num_rel_ret":
        return div(total, q.num_rel_ret(rel, cutoff))
    if norm == "min_k_num_rel" and cutoff is not None:
        n = q.num_rel(rel)
        return div(total, f"(CASE WHEN {n} < {cutoff} THEN {n} ELSE {cutoff} END)")
    return div(total, q.num_rel(rel))


@register
class AP(Measure):
    r"""Average precision: the mean of the precision at each relevant document.

    Parameters
    ----------
    cutoff : int, optional
        Only the top ``k`` documents count (trec_eval's ``map_cut_k``); the denominator is still
        every relevant document of the query.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.
    norm : {"num_rel", "num_rel_ret", "min_k_num_rel"}
        The denominator :math:`R`: every judged relevant document (trec_eval, default), only
        the relevant documents retrieved within the cutoff (the ITMO University wiki's AP@k, see
        Notes), or :math:`\min(k, R)` (RePlay's ``MAP@k``, Microsoft Recommenders'
        ``map_at_k``; :math:`R` without a cutoff).
    judged_only : bool
        Drop unjudged documents from the ranking first (ir_measures' ``judged_only``).

    Notes
    -----
    .. math:: AP = \frac{1}{R} \sum_{i : \mathrm{rel}(d_i) \ge \ell,\ i \le k} P@i

    with :math:`R` the number of judged relevant documents (retrieved or not). Relevant documents
    that are not retrieved contribute 0. Undefined when :math:`R = 0`: the query scores 0.
    With ``norm="num_rel_ret"``,
    :math:`AP@k = \sum_{i \le k} y_i\, P@i \,/\, \sum_{i \le k} y_i`, whose mean over queries
    is MAP@k: the normalisation of the ITMO University wiki article on ranking quality metrics
    (in Russian, after K. V. Vorontsov's machine learning course). A perfect top k then scores 1
    even when more relevant documents exist.
    The precisions are added in rank order, as trec_eval adds them: per query, the same bits.
    Cost: one filter and one sort of the relevant retrieved documents per query.

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
    >>> rf.evaluate(qrels, run, ["AP"])["value"].round(6).to_list()  # (1/1 + 2/3) / 3
    [0.555556]
    """

    NAME = "AP"
    BOUNDS = (0.0, 1.0)
    PARAMS = (
        Param("cutoff", "int", None, POSITIVE_INT),
        Param("rel", "int", None),
        Param(
            "norm", "str", "num_rel",
            (lambda v: v in NORMS, "one of 'num_rel', 'num_rel_ret', 'min_k_num_rel'"),
        ),
        JUDGED_ONLY,
    )
    ALIASES = {"map": {}}

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return _ap(ctx, self.rel, self.cutoff, self.norm)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return ap_sql(q, self.rel, self.cutoff, self.norm)


@register
class GMAP(Measure):
    r"""Average precision aggregated by its geometric mean over queries (trec_eval ``gm_map``).

    Parameters
    ----------
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    Per query it equals :class:`AP`; across queries

    .. math:: GMAP = \exp\Big(\frac{1}{|Q|}\sum_q \log \max(AP_q, 10^{-5})\Big)

    References
    ----------
    Robertson, S. (2006). On GMAP: and other transformations. CIKM 2006.
    """

    NAME = "GMAP"
    PARAMS = (Param("rel", "int", None),)
    AGGREGATE = "gmean"

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return _ap(ctx, self.rel, None)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        return ap_sql(q, self.rel, None)


register_trec("map", single("map", lambda: AP()))
register_trec("gm_map", single("gm_map", lambda: GMAP()))
register_trec(
    "map_cut",
    long_cutoffs("map_cut", (5, 10, 15, 20, 30, 100, 200, 500, 1000), lambda k: AP(cutoff=k)),
)
