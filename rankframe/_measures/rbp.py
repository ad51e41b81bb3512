"""Rank-biased precision and its residual (``RBP``, ``RBPResidual``; trec_eval ``rbp``, ``rbp_resid``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._arith import fsum, list_ordered_sum, list_sorted, true_div
from rankframe._measures._measure import Measure
from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._sql import lit
from rankframe._measures._trec import gains_from_pairs, pair_params
from rankframe._measures.gain_g import NONPOOL, UNJUDGED, trec_gain

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx
    from rankframe._measures._sql import SqlCtx

PERSISTENCE = (lambda p: 0.0 < p < 1.0, "a float strictly between 0 and 1")
TREC_P = 0.9  # trec_eval's default persistence


def _first_free(keys: set[int]) -> int:
    """Smallest grade >= 0 that the gain map does not name."""
    grade = 0
    while grade in keys:
        grade += 1
    return grade


def _last_free(keys: set[int], top: int) -> int | None:
    """Largest grade in ``0..top`` that the gain map does not name."""
    grade = top
    while grade in keys:
        grade -= 1
    return grade if grade >= 0 else None


def top_grade(ctx: Ctx) -> pl.Expr:
    """The query's highest judged grade (>= 0), over every judgment, retrieved or not."""
    return ctx.judgments("top_grade", lambda c: c.rel.filter(c.rel >= 0).max())


def normalised_gain(ctx: Ctx, gains: tuple[tuple[int, float], ...] | None) -> pl.Expr:
    """Gains rescaled into [0, 1] per query, as trec_eval's ``rbp`` does.

    The gain levels of a query are the grades ``0..G`` (``G`` its highest judged grade) plus the
    grades the map names. When a level's gain lies outside [0, 1], every level is rescaled by
    ``(gain - min) / (max - min)``; documents at no level (unjudged ones the map does not name)
    keep gain 0.
    """
    mapping = dict(gains or ())
    keys = set(mapping)
    raw = trec_gain(ctx, gains)
    top = top_grade(ctx)
    # the grades 0..top that the map leaves at their own value: lowest and highest
    first = _first_free(keys)
    free_min = pl.when(top >= first).then(pl.lit(float(first)))
    free_max = top.cast(pl.Float64)
    for key in sorted((k for k in keys if k >= 0), reverse=True):
        last = _last_free(keys, key)
        value = pl.lit(None if last is None else float(last), dtype=pl.Float64)
        free_max = pl.when(top == key).then(value).otherwise(free_max)
    mapped = list(mapping.values())
    low = pl.min_horizontal(free_min, pl.lit(min(mapped) if mapped else None, dtype=pl.Float64))
    high = pl.max_horizontal(free_max, pl.lit(max(mapped) if mapped else None, dtype=pl.Float64))
    rescale = ((low < 0) | (high > 1)).fill_null(False)
    at_level = (
        pl.when(ctx.rel.is_null()).then(pl.lit(NONPOOL in keys))
        .when(ctx.rel < 0).then(pl.lit(UNJUDGED in keys))
        .otherwise(pl.lit(True))
    )
    scaled = true_div(raw - low, high - low)  # a real division per row, as trec_eval's
    return pl.when(~at_level).then(0.0).when(rescale).then(scaled).otherwise(raw)


def _top_plus_one_sql(q: SqlCtx) -> str:
    """The query's highest judged grade plus one, on every ranked row: 0 when none is judged.

    (:func:`top_grade` is null there; the statistics joined to the rows read 0 when missing.)
    """
    return q.row_stat("MAX(CASE WHEN rel >= 0 THEN rel + 1 END)")


def _const(value: float | None) -> str:
    return "NULL" if value is None else f"CAST({lit(value)} AS DOUBLE)"


def normalised_gain_sql(q: SqlCtx, gains: tuple[tuple[int, float], ...]) -> str:
    """:func:`normalised_gain` as SQL: the row's gain under a map, rescaled per query.

    The levels' bounds depend on the query's top grade ``G`` alone (the map's gains are
    constants): ``low`` and ``high`` are written out case by case on ``G``.
    """
    mapping = dict(gains)
    keys = set(mapping)
    top1 = _top_plus_one_sql(q)
    top = f"CAST({top1} - 1 AS DOUBLE)"
    mapped = list(mapping.values())
    min_mapped, max_mapped = (min(mapped), max(mapped)) if mapped else (None, None)

    def bound(pick: Callable[..., float], *values: float | None) -> str:
        known = [v for v in values if v is not None]
        return _const(pick(known) if known else None)

    first = _first_free(keys)
    # low: the first free grade when G reaches it, and the lowest mapped gain
    low = (
        f"CASE WHEN {top1} - 1 >= {first} THEN {bound(min, first, min_mapped)} "
        f"ELSE {bound(min, min_mapped)} END"
    )
    # high: G, or the last free grade below a mapped G, and the highest mapped gain
    cases = [f"WHEN {top1} = 0 THEN {bound(max, max_mapped)}"]
    for key in sorted(k for k in keys if k >= 0):
        last = _last_free(keys, key)
        free = None if last is None else float(last)
        cases.append(f"WHEN {top1} - 1 = {key} THEN {bound(max, free, max_mapped)}")
    other = top if max_mapped is None else f"GREATEST({top}, {_const(max_mapped)})"
    high = f"CASE {' '.join(cases)} ELSE {other} END"
    rescale = f"({low} < 0 OR {high} > 1)"

    def scaled(raw: str) -> str:
        # a real division, as the Polars form (IEEE: a degenerate map's 0 / 0 is NaN in both)
        return f"CASE WHEN {rescale} THEN ({raw} - {low}) / ({high} - {low}) ELSE {raw} END"

    graded = "".join(f" WHEN rel = {g} THEN {_const(v)}" for g, v in mapping.items() if g >= 0)
    raw = f"CASE{graded} ELSE CAST(rel AS DOUBLE) END" if graded else "CAST(rel AS DOUBLE)"
    nonpool = scaled(_const(mapping[NONPOOL])) if NONPOOL in keys else "0.0"
    unjudged = scaled(_const(mapping[UNJUDGED])) if UNJUDGED in keys else "0.0"
    return f"CASE WHEN rel IS NULL THEN {nonpool} WHEN rel < 0 THEN {unjudged} ELSE {scaled(raw)} END"


@register
class RBP(Measure):
    r"""Rank-biased precision (Moffat & Zobel): expected gain rate of a persistent user.

    Parameters
    ----------
    cutoff : int, optional
        Only the top ``k`` documents count.
    p : float
        Persistence, the probability of looking at the next document (0.8, as ir_measures;
        trec_eval's ``rbp`` uses 0.9).
    rel : int, optional
        Binary gains: 1 for grades >= ``rel``, else 0 (ir_measures' ``RBP(rel=1)``, ranx
        ``rbp``). Without it, graded gains rescaled into [0, 1] as trec_eval does.
    gains : dict, optional
        Map grade -> gain before rescaling (trec_eval's ``rbp.p=0.8,1=1,2=3``). Not with
        ``rel``.

    Notes
    -----
    .. math:: RBP = (1 - p) \sum_{i=1}^{k} g_i\, p^{i - 1}

    Graded gains (no ``rel``) follow trec_eval: a query's gain levels are its grades ``0..G``
    (``G`` the highest judged grade) plus any mapped grades; when a level's gain is outside
    [0, 1], all are rescaled by :math:`(g - \min) / (\max - \min)`, so with default gains
    :math:`g = grade / G` when :math:`G > 1`. The rescaling is per query. trec_eval 10 leaves
    its running min/max uninitialised, so with a gain map whose gains are all > 0 and one
    above 1 its values are unpredictable; we rescale over the declared levels. ir_measures
    computes graded RBP through trectools (raw grades, run order, tied scores averaged): it
    agrees with this measure for binary qrels only. Unjudged documents gain 0 (see
    :class:`RBPResidual` for the uncertainty they leave). A query with nothing retrieved
    scores 0.

    References
    ----------
    Moffat, A. and Zobel, J. (2008). Rank-biased precision for measurement of retrieval
    effectiveness. ACM TOIS 27(1), article 2.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "c"], "relevance": [1, 2]})
    >>> # binary at rel 1: 0.5 * (1 + 0.5^2); graded: grades / 2 -> 0.5 * (0.5 + 1 * 0.5^2)
    >>> rf.evaluate(qrels, run, ["RBP(p=0.5,rel=1)", "RBP(p=0.5)"])["value"].to_list()
    [0.625, 0.375]
    """

    NAME = "RBP"
    PARAMS = (
        Param("cutoff", "int", None, POSITIVE_INT),
        Param("p", "float", 0.8, PERSISTENCE),
        Param("rel", "int", None),
        Param("gains", "gains", None),
    )
    ALIASES = {"rbp": {"rel": 1}}
    HITS_ONLY = True

    def hit_level(self, relevance_level: int) -> int | None:
        """``rel``; grade 1 for graded gains; 0 with a gain map (rescaling may give grade 0 a gain).

        ``None`` (every row) when the map names unjudged documents (``-1``, ``-2``).
        """
        if self.rel is not None:
            return self.rel
        mapping = dict(self.gains or ())
        if NONPOOL in mapping or UNJUDGED in mapping:
            return None
        return 0 if mapping else 1

    def validate(self) -> None:
        """Refuse ``rel`` together with ``gains``."""
        if self.rel is not None and self.gains is not None:
            msg = (
                "RBP takes either rel= (binary gains) or gains= (a gain map), not both. "
                f"Got rel={self.rel!r} and gains={dict(self.gains)!r}."
            )
            raise MeasureError(msg)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        keep = ctx.retrieved
        if self.cutoff is not None:
            keep = keep & (ctx.rank <= self.cutoff).fill_null(False)
        if self.gains is None:
            # only the retrieved documents graded above 0 gain (the others add 0.0 to the sum,
            # which the ascending fsum adds first): their gains and weights alone
            if self.rel is not None:  # binary: 1 for the relevant ones
                keep = keep & ctx.relevant(self.rel)
                gain = pl.lit(1.0)
            else:  # grade / G where G > 1 (the default levels 0..G rescaled); a real division
                keep = keep & (ctx.rel > 0).fill_null(False)
                grade = ctx.rel.filter(keep).cast(pl.Float64)
                top = top_grade(ctx).cast(pl.Float64)
                gain = pl.when(top > 1.0).then(true_div(grade, top)).otherwise(grade)
        else:
            gain = normalised_gain(ctx, self.gains).filter(keep)
        if ctx.partials is not None:
            # in the planner: per-query lists, list arithmetic after the group_by over every
            # query at once (rbp at 5M, aggregation: 0.36-0.42 -> 0.23-0.26 s, 74f122a). Inline
            # (rf.expr) this runs as one aggregation: the list form costs 2.1x there for RBP
            # (its (rank, gain) pairs), 1.0x for RBP(rel=2) (1M rows,
            # benchmarks/experiments/inline_paths.py)
            return self._from_lists(ctx, keep, gain)
        weight = pl.lit(self.p).pow(ctx.rank.filter(keep).cast(pl.Float64) - 1.0)
        return (1.0 - self.p) * fsum(gain * weight)

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL."""
        if self.gains is not None:
            gain, keep = normalised_gain_sql(q, self.gains), "TRUE"
        elif self.rel is not None:  # binary
            gain, keep = "1.0", q.relevant(self.rel)
        else:  # grade / G where G > 1
            top = f"CAST({_top_plus_one_sql(q)} - 1 AS DOUBLE)"
            grade = "CAST(rel AS DOUBLE)"
            gain, keep = f"CASE WHEN {top} > 1.0 THEN {grade} / {top} ELSE {grade} END", "rel > 0"
        weight = f"POWER({_const(self.p)}, CAST(rank AS DOUBLE) - 1.0)"
        total = q.hit(
            f"SUM(CASE WHEN {q.within(self.cutoff)} AND {keep} THEN {gain} * {weight} ELSE 0.0 END)",
            "0.0",
        )
        return f"{_const(1.0 - self.p)} * {total}"

    def _from_lists(self, ctx: Ctx, keep: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:meth:`expr` in the planner: per-query lists, then list arithmetic after the group_by.

        The ranks and gains of the kept documents (or their grades and the query's top grade)
        are the partials, as one list of pairs (each rank stays with its gain whatever order
        the rows of the group come in, which Polars does not promise). The weights, products,
        ascending sort and sum run over every query at once (inside the aggregation each step
        runs query by query). Same operations, same bits.
        """
        key = f"rbp_{self.cutoff}_{self.rel}_{self.gains}"
        rank = ctx.rank.filter(keep).cast(pl.Float64)
        if self.gains is None and self.rel is not None:  # a gain of 1.0
            ranks = ctx.partial(f"{key}_ranks", rank.implode())
            return (1.0 - self.p) * list_ordered_sum(list_sorted(_weights(ranks, self.p)))
        value = ctx.rel.filter(keep).cast(pl.Float64) if self.gains is None else gain
        pairs = ctx.partial(f"{key}_pairs", pl.struct(r=rank, g=value).implode())
        ranks = pairs.list.eval(pl.element().struct.field("r"))
        gains = pairs.list.eval(pl.element().struct.field("g"))
        if self.gains is None:  # grades over the query's top grade when it is above 1
            top = ctx.partial(f"{key}_top", top_grade(ctx).cast(pl.Float64))
            gains = pl.when(top > 1.0).then(true_div(gains, top)).otherwise(gains)
        terms = gains * _weights(ranks, self.p)
        return (1.0 - self.p) * list_ordered_sum(list_sorted(terms))


@register
class RBPResidual(Measure):
    r"""Residual of rank-biased precision: how much RBP could still rise (trec_eval ``rbp_resid``).

    Parameters
    ----------
    p : float
        Persistence (0.8 as :class:`RBP`; trec_eval's ``rbp_resid`` uses 0.9).

    Notes
    -----
    With :math:`n` documents retrieved and :math:`U` the ranks of the retrieved documents
    that are unjudged (absent from the qrels or with a negative grade):

    .. math:: RBP_{resid} = p^{n} + (1 - p) \sum_{i \in U} p^{i - 1}

    the RBP the query would gain if every unjudged document, and every document past the end of
    the ranking, were fully relevant. As trec_eval does, the query scores 0 when no retrieved
    document is unjudged (the :math:`p^n` tail then does not count), and also when nothing is
    retrieved. The unjudged ranks fill the gaps between the judged retrieved documents' ranks
    :math:`j_0 = 0 < j_1 < \dots < j_m < j_{m+1} = n + 1` (grade >= 0), and a gap's geometric
    sum is closed, so the value is computed as

    .. math:: RBP_{resid} = p^{n} + \sum_{t=0}^{m} p^{j_t} (1 - p^{j_{t+1} - j_t - 1})

    It reads the judged documents only (few per query, where the unjudged ones are most of the
    ranking), and every term is non-negative (no cancellation: any order of addition is
    accurate).

    References
    ----------
    Moffat, A. and Zobel, J. (2008). Rank-biased precision for measurement of retrieval
    effectiveness. ACM TOIS 27(1), article 2.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "c"], "relevance": [1, 0]})
    >>> # b (rank 2) is unjudged: 0.5^3 + 0.5 * 0.5^1
    >>> rf.evaluate(qrels, run, ["RBPResidual(p=0.5)"])["value"].to_list()
    [0.375]
    """

    NAME = "RBPResidual"
    PARAMS = (Param("p", "float", 0.8, PERSISTENCE),)
    HITS_ONLY = True
    HIT_FLOOR = 0  # the judged documents, relevant or not

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        judged = ctx.retrieved & ctx.judged
        # the judged ranks as one list per query (a partial in the planner); the gaps between
        # them as list arithmetic, after the group_by there
        ranks = ctx.partial("judged_ranks", ctx.rank.filter(judged).cast(pl.Float64).implode())
        n = ctx.num_ret_partial()
        ranks = list_sorted(ranks)
        before = pl.concat_list(pl.lit(0.0), ranks)
        after = pl.concat_list(ranks, (n + 1).cast(pl.Float64))
        start = before.list.eval(_powers(self.p, pl.element()))  # p^(j_t)
        rest = (after - before - 1.0).list.eval(1.0 - _powers(self.p, pl.element()))
        # non-negative terms: any order of addition is accurate (Polars' vectorised list sum,
        # not a running sum, which runs list by list)
        terms = (start * rest).list.sum()
        tail = _powers(self.p, n.cast(pl.Float64))
        found = ranks.list.len().cast(pl.Int64)
        return pl.when(found < n).then(tail + terms).otherwise(0.0)


#: Whole powers up to this read a table (see :func:`_powers`).
POW_TABLE = 1 << 14


def _powers(p: float, k: pl.Expr) -> pl.Expr:
    """``p ** k`` for whole ``k >= 0``, the same bits however many values the column holds.

    Polars' ``pow`` of a literal base takes another path on a column of one value (a last bit
    off for some powers), so a list column flattened to one value, as in a small partition,
    would differ; whole powers below :data:`POW_TABLE` read a table computed by C's ``pow``.
    """
    k = k.cast(pl.Float64)
    keys, values = _power_table(p)
    return k.replace_strict(keys, values, default=pl.lit(p).pow(k), return_dtype=pl.Float64)


@functools.lru_cache(maxsize=64)
def _power_table(p: float) -> tuple[pl.Expr, pl.Expr]:
    """The table of :func:`_powers` for ``p`` as scalar list literals, built once per ``p``.

    (As :func:`rankframe._measures._arith.c_log2`'s table: a Series literal would be a column.)
    """
    keys = pl.lit([float(i) for i in range(POW_TABLE)], dtype=pl.List(pl.Float64))
    return keys, pl.lit([p**i for i in range(POW_TABLE)], dtype=pl.List(pl.Float64))


def _weights(ranks: pl.Expr, p: float) -> pl.Expr:
    """``p ** (rank - 1)`` for a list column of ranks, as list arithmetic."""
    return ranks.list.eval(_powers(p, pl.element() - 1.0))


def _p(pairs: dict[str, float] | None) -> float:
    return (pairs or {}).get("p", TREC_P)


register_trec(
    "rbp",
    pair_params("rbp", lambda pairs: RBP(p=_p(pairs), gains=gains_from_pairs("rbp", pairs))),
)
register_trec("rbp_resid", pair_params("rbp_resid", lambda pairs: RBPResidual(p=_p(pairs))))
