"""DCG and its trec_eval variants (``DCG``, ``IDCG``, ``nDCG_rel``, ``RnDCG``).

trec_eval names: ``dcg``, ``ideal_dcg``, ``ndcg_rel``, ``Rndcg``, each with ``grade=gain``
pairs (``ndcg_rel.1=3,2=9``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._arith import list_at_most, list_ordered_sum, list_positions, running_at
from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, POSITIVE_INT, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._trec import TrecParser, gains_from_pairs, pair_params
from rankframe._measures.gain_g import (
    gain_hit_level,
    gain_key,
    ideal_gain_list,
    num_ideal,
    ranked_gain_pairs,
    shared_gain,
    trec_gain,
)
from rankframe._measures.ndcg import (
    DCG_VARIANTS,
    dcg_expr,
    dcg_lists,
    hit_dcg_lists,
    ideal_dcg_expr,
)

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx

_DCG_CHECK = (lambda v: v in DCG_VARIANTS, "one of 'log2', 'exp-log2'")


def _gain(ctx: Ctx, dcg: str, gains: tuple[tuple[int, float], ...] | None) -> pl.Expr:
    gain = trec_gain(ctx, gains)
    return pl.lit(2.0).pow(gain) - 1.0 if dcg == "exp-log2" else gain


def _running_lists(
    ctx: Ctx, gains: tuple[tuple[int, float], ...] | None
) -> tuple[Callable[[pl.Expr], pl.Expr], pl.Expr, pl.Expr, pl.Expr]:
    """The per-query DCG readers of nDCG_rel and RnDCG, shared with nDCG in the planner.

    Returns ``(dcg_at, dcg, ideal, m)``: ``dcg_at(positions)`` the DCG at each of a list
    column's nondecreasing positions, the DCG of the whole ranking, the running ideal DCG
    (:func:`running_at` reads it) and the number of ideal documents. Where every retrieved row
    is in the group, a running DCG at every rank (:func:`dcg_lists`); in the hits-only plan,
    one over the ranks with a gain (:func:`hit_dcg_lists`), read after the ranks up to each
    position.
    """
    key = gain_key(gains)
    gain_of = partial(shared_gain, gains=gains)
    if not ctx.hits_only:
        dcg, ideal = dcg_lists(ctx, key, gain_of)
        m = ctx.partial(f"num_ideal_{key}", num_ideal(ctx, gain_of(ctx)))
        return (lambda at: dcg.list.gather(at)), running_at(dcg), ideal, m
    ranks, dcg, ideal = hit_dcg_lists(ctx, key, gain_of)
    m = (ideal.list.len() - 1).cast(pl.Int64)
    return (lambda at: dcg.list.gather(_counts_at_most(ranks, at))), running_at(dcg), ideal, m


def _positive_hits(
    ctx: Ctx, gains: tuple[tuple[int, float], ...] | None, dcg_at: Callable[[pl.Expr], pl.Expr]
) -> tuple[pl.Expr, pl.Expr]:
    """nDCG_rel's points: the ranks with a positive gain (ascending, Int64), the DCG at each.

    The ranks are those of the retrieved documents with a positive gain; ``dcg_at`` comes
    from :func:`_running_lists`. In the hits-only plan both come from the (rank, gain) pair
    list itself: the running DCG after a pair is the DCG at its rank, so the pairs with a
    positive gain are picked by their positions (a filter and gathers, where reading the DCG
    at arbitrary ranks merges and sorts list by list).
    """
    key = gain_key(gains)
    gain_of = partial(shared_gain, gains=gains)
    if not ctx.hits_only:
        hit_rank = ctx.rank.filter(ctx.retrieved & (gain_of(ctx) > 0)).sort().cast(pl.Int64)
        at = ctx.partial(f"gain_hit_ranks_{key}", hit_rank.implode())
        return at, dcg_at(at)
    ranks, dcg, _ = hit_dcg_lists(ctx, key, gain_of)
    pairs = ranked_gain_pairs(ctx, key, gain_of(ctx))
    # each pair's position from 1 (its index in the running DCG), pushed past SKIP when its
    # gain is not positive (whole numbers, exact), then filtered
    positions = list_positions(pairs) + 1.0
    not_positive = pairs.list.eval((pl.element().struct.field("g") <= 0).cast(pl.Float64))
    picked = (positions + not_positive * _SKIP).list.filter(pl.element() < _SKIP)
    picked = picked.cast(pl.List(pl.Int64))
    return ranks.list.gather(picked - 1).cast(pl.List(pl.Int64)), dcg.list.gather(picked)


#: Above any position in a list (see :func:`_positive_hits`).
_SKIP = float(2**40)


def _counts_at_most(values: pl.Expr, positions: pl.Expr) -> pl.Expr:
    """For each of a list column's nondecreasing ``positions``, how many ``values`` are at most it.

    Whole numbers, merged in one sorted list (values as ``2v``, positions as ``2p + 1``): the
    ``j``-th odd entry (from 0) at index ``i`` has ``i - j`` values at most its position.
    """
    twice = (values.cast(pl.List(pl.Float64)) * 2.0)
    merged = pl.concat_list(twice, positions.cast(pl.List(pl.Float64)) * 2.0 + 1.0)
    at = (pl.element().sort() % 2.0 == 1.0).arg_true().cast(pl.Int64)
    return merged.list.eval(at + 1 - at.cum_count().cast(pl.Int64))


@register
class DCG(Measure):
    r"""Discounted cumulative gain of the ranking (trec_eval ``dcg``; ranx ``dcg``).

    Parameters
    ----------
    cutoff : int, optional
        Only the top ``k`` documents count.
    dcg : {"log2", "exp-log2"}
        ``log2``: gain = grade (Järvelin & Kekäläinen; trec_eval, ranx ``dcg``); ``exp-log2``:
        gain = :math:`2^{grade} - 1` (Burges et al.; ranx ``dcg_burges``).
    gains : dict, optional
        Map grade -> gain (trec_eval's ``dcg.1=3,2=9``); grades absent from the map keep
        their own value.
    judged_only : bool
        Drop unjudged documents from the ranking first (trec_eval ``-J``).

    Notes
    -----
    .. math:: DCG@k = \sum_{i=1}^{k} \frac{g(d_i)}{\log_2(i + 1)}

    Unjudged documents and negative grades have gain 0. Not normalised: the value grows with
    the number and grades of relevant documents, so means across queries mix scales. A query
    with nothing retrieved scores 0.

    References
    ----------
    Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques.
    ACM TOIS 20(4), 422-446.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> # rel = 0, 1, 2: 1/log2(3) + 2/log2(4) and, cut at 2, 1/log2(3)
    >>> rf.evaluate(qrels, run, ["DCG", "DCG@2"])["value"].round(6).to_list()
    [1.63093, 0.63093]
    """

    NAME = "DCG"
    PARAMS = (
        Param("cutoff", "int", None, POSITIVE_INT),
        Param("dcg", "str", "log2", _DCG_CHECK),
        Param("gains", "gains", None),
        JUDGED_ONLY,
    )
    ALIASES = {"dcg": {}, "dcg_burges": {"dcg": "exp-log2"}}

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return dcg_expr(ctx, _gain(ctx, self.dcg, self.gains), self.cutoff)


@register
class IDCG(Measure):
    r"""Ideal discounted cumulative gain: DCG of the best possible ranking (trec_eval ``ideal_dcg``).

    Parameters
    ----------
    cutoff : int, optional
        Cut the ideal ranking at ``k``.
    dcg : {"log2", "exp-log2"}
        Gain = grade (``log2``) or :math:`2^{grade} - 1` (``exp-log2``).
    gains : dict, optional
        Map grade -> gain (trec_eval's ``ideal_dcg.1=3,2=9``).

    Notes
    -----
    .. math:: IDCG@k = \sum_{i=1}^{\min(k, m)} \frac{g^*_i}{\log_2(i + 1)}

    where :math:`g^*_1 \ge g^*_2 \ge \dots \ge g^*_m > 0` are the gains of every judged
    document of the query with a positive gain, retrieved or not. It depends on the qrels only
    (never on the run or its depth). A query without relevant documents scores 0.

    References
    ----------
    Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques.
    ACM TOIS 20(4), 422-446.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                       "relevance": [0, 1, 2]})
    >>> rf.evaluate(qrels, run, ["IDCG"])["value"].round(6).to_list()  # 2/log2(2) + 1/log2(3)
    [2.63093]
    """

    NAME = "IDCG"
    PARAMS = (
        Param("cutoff", "int", None, POSITIVE_INT),
        Param("dcg", "str", "log2", _DCG_CHECK),
        Param("gains", "gains", None),
    )

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return ideal_dcg_expr(ctx, _gain(ctx, self.dcg, self.gains), self.cutoff)


@register
class nDCG_rel(Measure):  # noqa: N801 - the measure's canonical name
    r"""nDCG averaged over the relevant documents (trec_eval ``ndcg_rel``).

    Parameters
    ----------
    gains : dict, optional
        Map grade -> gain (trec_eval's ``ndcg_rel.1=3,2=9``); grades absent from the map keep
        their own value.

    Notes
    -----
    With :math:`m` the number of judged documents with a positive gain, :math:`P` the ranks
    of the retrieved documents with a positive gain and :math:`nDCG@r` cut at :math:`r` (both
    the ranking and the ideal ranking):

    .. math::
        nDCG_{rel} = \frac{1}{m}\Big(\sum_{r \in P} nDCG@r + (m - |P|)\, nDCG\Big)

    A relevant document that is not retrieved counts with the nDCG of the whole ranking. The
    relevance level does not apply (gains only). Undefined when :math:`m = 0`: the query
    scores 0. Experimental measure of trec_eval.

    References
    ----------
    Buckley, C. (2008). trec_eval, measure ``ndcg_rel`` (``m_ndcg_rel.c``), National
    Institute of Standards and Technology. https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["b", "z"], "relevance": [1, 1]})
    >>> # rel = 0, 1 and one relevant document missed: ideal 1, 1
    >>> # nDCG@2 = (1/log2(3)) / (1 + 1/log2(3)), counted twice (at rank 2, and for the miss)
    >>> rf.evaluate(qrels, run, ["nDCG_rel"])["value"].round(6).to_list()
    [0.386853]
    """

    NAME = "nDCG_rel"
    PARAMS = (Param("gains", "gains", None),)
    HITS_ONLY = True

    def hit_level(self, relevance_level: int) -> int | None:
        """The grades with a gain (:func:`gain_hit_level`)."""
        return gain_hit_level(self.gains)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        # DCG and ideal DCG at each hit's rank, read from the per-query running lists (shared
        # with nDCG and RnDCG in the planner: inside an aggregation each reference to a sorted
        # expression sorts again, a list partial is computed once)
        dcg_at, dcg, ideal, m = _running_lists(ctx, self.gains)
        at, dcg_at_hits = _positive_hits(ctx, self.gains, dcg_at)
        ratio = dcg_at_hits / ideal.list.gather(list_at_most(at, m))
        # trec_eval's arithmetic: running sums in rank order, (missed * dcg) / idcg
        ratio_sum = list_ordered_sum(ratio)
        missed = (m - at.list.len().cast(pl.Int64)).cast(pl.Float64)
        total = ratio_sum + missed * dcg / running_at(ideal)
        return pl.when(m > 0).then((total / m).clip(lower_bound=0.0) + 0.0).otherwise(0.0)


@register
class RnDCG(Measure):
    r"""nDCG averaged at the points where the ideal gain changes (trec_eval ``Rndcg``).

    Parameters
    ----------
    gains : dict, optional
        Map grade -> gain (trec_eval's ``Rndcg.1=3,2=9``); grades absent from the map keep
        their own value.

    Notes
    -----
    Let :math:`g^*_1 \ge \dots \ge g^*_m > 0` be the ideal gains (judged documents with a
    positive gain) and :math:`B` the "R levels": every :math:`j < m` with
    :math:`g^*_{j+1} \ne g^*_j`, plus :math:`m`. With :math:`n` documents retrieved,

    .. math::
        RnDCG = \frac{1}{|B| + [n > m + 1]}
                \Big(\sum_{j \in B} nDCG@j + [n > m + 1]\, nDCG@n\Big)

    where nDCG@j cuts both rankings at :math:`j` (the ranking ends at :math:`n`). So with 5
    documents of gain 3, 3 of gain 2 and 10 of gain 1, it averages nDCG at 5, 8, 18 and at the
    end of the ranking. trec_eval adds that last point only when the ranking is at least two
    documents longer than :math:`m`; we follow it. The query scores 0 when it has no relevant
    document at the evaluation's ``relevance_level`` or when :math:`m = 0` (trec_eval divides
    0 by 0 in the latter, rare case: a gain map that gives every relevant grade gain <= 0).
    Experimental measure of trec_eval.

    References
    ----------
    Buckley, C. (2008). trec_eval, measure ``Rndcg`` (``m_Rndcg.c``), National Institute
    of Standards and Technology. https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "relevance": [1, 2]})
    >>> # ideal 2, 1: levels at 1 and 2; rel = 1, 2
    >>> # (nDCG@1 + nDCG@2) / 2 = (1/2 + (1 + 2/log2(3)) / (2 + 1/log2(3))) / 2
    >>> rf.evaluate(qrels, run, ["RnDCG"])["value"].round(6).to_list()
    [0.679859]
    """

    NAME = "RnDCG"
    PARAMS = (Param("gains", "gains", None),)
    HITS_ONLY = True

    def hit_level(self, relevance_level: int) -> int | None:
        """The grades with a gain (:func:`gain_hit_level`)."""
        return gain_hit_level(self.gains)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        # nDCG at each cut from the per-query running DCG and ideal DCG lists (see nDCG_rel).
        # The cuts: the R levels (the run lengths of the sorted ideal gains, added up: each
        # count of ideal documents after which the gain changes; m last), then n if n > m + 1
        key = gain_key(self.gains)
        dcg_at, _, ideal, m = _running_lists(ctx, self.gains)
        n = ctx.num_ret_partial()
        # the ideal gains sorted (the judgment list nDCG's lists read too): the cuts after the
        # group_by, where each position whose gain differs from the next one's (or the last)
        # ends a level
        gains = ideal_gain_list(ctx, key, partial(shared_gain, gains=self.gains))
        after = pl.element().shift(-1)
        ends = gains.list.eval((pl.element() != after).fill_null(True).arg_true().cast(pl.Int64) + 1)
        cuts = ctx.derived(
            f"rndcg_cuts_{key}",
            pl.when(n > m + 1).then(ends.list.concat(pl.concat_list(n))).otherwise(ends),
        )
        ratio = dcg_at(list_at_most(cuts, n)) / ideal.list.gather(list_at_most(cuts, m))
        # added one by one in rank order, as trec_eval adds them
        total = list_ordered_sum(ratio)
        # (the number relevant is a judgment statistic: its test matters only where a document
        # has a gain, m > 0, at a grade the hits plan keeps)
        defined = (m > 0) & (ctx.num_rel_partial() > 0)
        # one nDCG per cut: their count is the R levels, plus the end of a longer ranking
        return pl.when(defined).then(total / cuts.list.len()).otherwise(0.0)


def _with_gains(cls: type[Measure], base: str) -> TrecParser:
    return pair_params(base, lambda pairs: cls(gains=gains_from_pairs(base, pairs)))


register_trec("dcg", _with_gains(DCG, "dcg"))
register_trec("ideal_dcg", _with_gains(IDCG, "ideal_dcg"))
register_trec("ndcg_rel", _with_gains(nDCG_rel, "ndcg_rel"))
register_trec("Rndcg", _with_gains(RnDCG, "Rndcg"))
