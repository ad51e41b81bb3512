"""The hits-only plan: the retrieved documents judged relevant, judgment statistics from the qrels."""

from __future__ import annotations

import functools
from collections import UserDict
from collections.abc import MutableMapping

import polars as pl

from rankframe._engine.combine import _combine, _uses_partials
from rankframe._engine.options import (
    BAD_QRELS,
    BAD_RUN,
    DUP,
    HAS_QRELS,
    HAS_RUN,
    N_RET,
    RANK,
    REL,
    D,
    Options,
    Q,
    S,
)
from rankframe._engine.rank import doc_hash, missing_pairs, rank_expr
from rankframe._measures import Ctx, Measure
from rankframe._measures._params import GRADE_POSITION

#: A judgment side not in the cache yet (``None`` there: collecting it failed).
_NOT_YET = object()


class JudgmentCache(UserDict):
    """The hits plan's judgment-side per-query frames, kept for fixed judgments (``cache``).

    A mapping (see :func:`hits_plan`) filled by the first plan that reads a set of statistics,
    from every judgment that plan is given, and collected on ``engine`` (the plan's). ``queries``:
    the plans read only these queries' judgments (the pytrec_eval drop-in's call over the
    judgments it keeps whole): the kept frames and the joined judgments are restricted to them
    in the plan. :meth:`restricted` gives a view sharing the frames (one per call).
    ``counts``: the kept judgments' number per query, when known (a call restricted to some
    queries then picks its engine by their judgments, not by all).
    """

    def __init__(
        self,
        engine: str = "auto",
        queries: pl.Series | None = None,
        *,
        fill: bool = True,
        counts: dict | None = None,
    ) -> None:
        super().__init__()
        self.engine = engine
        self.queries = queries
        self.counts = counts
        #: Whether a plan that misses a frame collects it apart (else it computes it in the plan,
        #: as without a cache: a first call that may have no second pays nothing for it).
        self.fill = fill

    def restricted(self, queries: pl.Series | None, engine: str) -> JudgmentCache:
        """A view of the same frames whose plans read ``queries`` only, collected on ``engine``."""
        view = JudgmentCache(engine, queries, fill=self.fill)
        view.data = self.data
        return view


def hits_level(measures: list[Measure], opts: Options, pairs: pl.LazyFrame | None) -> int | None:
    """The lowest grade any measure reads when all are hits-only (:attr:`Measure.HITS_ONLY`).

    ``None`` where the general plan is needed: a measure reading other rows, a target column or
    preference pairs, the "average" tie policy (tie groups span every row) or judged-only runs.
    """
    if pairs is not None or opts.target is not None or opts.judged_only or opts.ties == "average":
        return None
    if not measures:  # the flags of the queries alone (beside the run-only plan's measures)
        return opts.relevance_level
    levels = [m.hit_level(opts.relevance_level) for m in measures]
    if any(level is None for level in levels):
        return None
    return min(levels)  # type: ignore[type-var]


def ranked_run(run: pl.LazyFrame, keys: list[str], opts: Options, *, checks: bool = False) -> pl.LazyFrame:
    """The run's rows ranked once: keys, query, doc, score, rank and each query's count (``N_RET``).

    Cut at the depth. ``checks``: the bad-row flags ride along and ``DUP`` marks a query
    holding a doc twice (64-bit hashes, in the rank's window).
    """
    group = [*keys, Q]
    score_dtype = pl.Float32 if opts.score_dtype == "float32" else pl.Float64
    flags = [BAD_RUN] if checks else []
    order = ["_order"] if opts.ties == "input" else []
    # no with_columns before the windows: the optimiser would move the count into it and
    # the query groups would be built twice
    run = run.select(*group, D, pl.col(S).cast(score_dtype), *order, *flags)
    rank = rank_expr(group, run.collect_schema()[D], opts.ties)
    n_ret = pl.len().over(group)
    if opts.depth is not None:
        n_ret = pl.min_horizontal(n_ret, pl.lit(opts.depth, pl.UInt32))
    # the window's groups are shared: counting and the duplicate screen cost next to nothing
    extra = [n_ret.alias(N_RET)]
    if checks:  # (in one with_columns with the rank: a second one would group again)
        duplicated = doc_hash(pl.col(D)).n_unique().over(group) < pl.len().over(group)
        extra.append(duplicated.alias(DUP))
    ranked = run.with_columns(rank.alias(RANK), *extra)
    if opts.depth is not None:
        ranked = ranked.filter(pl.col(RANK) <= opts.depth)
    return ranked


def hits_plan(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    measures: list[Measure],
    keys: list[str],
    opts: Options,
    level: int,
    qrels_keys: list[str] | None = None,
    groups: pl.LazyFrame | None = None,
    *,
    checks: bool = False,
    cache: MutableMapping | None = None,
    ranked: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """The per-query plan of hits-only measures: same columns and values as the general plan.

    1. rank the run once (and count each query's retrieved documents in the same window);
    2. join only the judgments of grade >= ``level`` (an inner join) and add each query's
       rank-1 row (so every query of the run stays, with its count): about a tenth of the rows
       of the full join on TREC-like data;
    3. the statistics of the judgments (number relevant, ideal DCG...,
       :meth:`Ctx.judgments`) from one ``group_by`` over the same judgments alone (computed
       once, whatever the runs and breakdowns), joined per query; queries judged but not
       retrieved get a row of their own;
    4. one ``group_by`` evaluates every measure on the small frame.

    ``checks``: the bad-row flags ride along (bad run rows are kept by the filter); duplicates
    are screened per query on 64-bit doc-id hashes, in the rank window and the qrels group_by;
    a raised flag triggers the scan that finds the exact error.

    ``cache``: a dict shared by plans of several runs against the same judgments; the
    judgment-side per-query frame is then collected by the first plan and read by the others
    (a :class:`JudgmentCache` also keeps it between calls, and may restrict it to some queries).

    ``ranked``: the run already ranked by :func:`ranked_run` (shared with the run-only plan).
    """
    qrels_keys = list(qrels_keys or [])
    group = [*keys, Q]
    flags = [BAD_RUN] if checks else []
    if ranked is None:
        ranked = ranked_run(run, keys, opts, checks=checks)
    judged = every_judged = qrels.filter(pl.col(REL) >= level).select(*qrels_keys, Q, D, REL)
    queries = getattr(cache, "queries", None)
    if queries is not None:  # the plan reads these queries' judgments only (JudgmentCache)
        judged = judged.filter(pl.col(Q).is_in(pl.lit(queries).implode()))
    # The ranked rows once (a cache), read twice: their inner join with the judgments read,
    # and apart each query's rank-1 row, which carries its count and flags (so every query of
    # the run stays, hit or not) with a null grade. Measured 3-4% faster at 10M rows than one
    # LEFT join of every ranked row and a filter (benchmarks/RESULTS.md, session 19).
    ranked = ranked.cache()
    marks = pl.col(RANK) == 1
    if checks:  # bad rows reach the group_by (the duplicate flag is on each query's rank 1)
        marks = marks | pl.col(BAD_RUN)
    rows = pl.concat(
        [
            ranked.join(judged, on=[*qrels_keys, Q, D], how="inner", nulls_equal=True)
            .select(*group, RANK, REL),
            ranked.filter(marks).select(*group, RANK, N_RET, *flags, *([DUP] if checks else [])),
        ],
        how="diagonal",
    )

    exprs, post, stats, lists, partials, derived, row_columns, judgment_rows = _aggregations(
        tuple(measures), opts.relevance_level, level
    )

    present = "_judged"
    qkey = [*qrels_keys, Q]
    # the judgment side from the cache (a frame; None where collecting it failed), else planned
    kept = None
    if cache is not None:
        engine = getattr(cache, "engine", "auto")
        key = (level, tuple(stats), tuple(lists), checks, tuple(qrels_keys), engine)
        kept = cache.get(key, _NOT_YET)
    if not isinstance(kept, pl.DataFrame):
        per_query = _judgment_side(
            qrels, every_judged, {**stats, **lists}, qrels_keys, present, judgment_rows, checks=checks
        )
        if kept is _NOT_YET and getattr(cache, "fill", True):
            try:
                kept = cache[key] = per_query.collect(engine=engine)
            except (pl.exceptions.PolarsError, OSError):
                # bad judgments (a NaN grade's cast to Int64): the plan's own collect fails
                # the same way, and its caller then runs the checks that name the row
                cache[key] = None
    if isinstance(kept, pl.DataFrame):
        per_query = kept.lazy()
    if queries is not None:
        per_query = per_query.filter(pl.col(Q).is_in(pl.lit(queries).implode()))
    # the list statistics join each query's row after the group_by, the others every row
    judgment_lists = per_query.select(*qkey, *lists)
    per_query = per_query.drop(*lists)
    filled = [
        pl.col(present).fill_null(False), pl.col(N_RET).fill_null(0),
        *(pl.col(n).fill_null(0) for n in stats),
    ]
    frame = rows.join(per_query, on=[*qrels_keys, Q], how="left", nulls_equal=True)
    # the judged queries a group did not retrieve: trec_eval scores them 0 with -c
    retrieved = rows.filter(pl.col(RANK) == 1).select(group)
    unretrieved = None
    if len(qrels_keys) == len(keys):
        unretrieved = per_query
    elif opts.complete:
        every = ranked.select(keys).unique() if groups is None else groups
        unretrieved = missing_pairs(every, per_query, retrieved, keys, qrels_keys)
    if unretrieved is not None:
        alone = unretrieved.join(retrieved, on=group, how="anti", nulls_equal=True)
        frame = pl.concat([frame, alone], how="diagonal_relaxed")
    elif checks:
        # the judged queries no group retrieved are left out, and the flags of their judgments
        # with them: those with a flag up get a row of their own (null group keys; with HAS_RUN
        # false it is not evaluated when the exact check passes on a mere hash collision)
        flagged = per_query.filter(pl.col(BAD_QRELS) | pl.col("_qrels_dup"))
        frame = pl.concat([frame, flagged], how="diagonal_relaxed")
    frame = frame.with_columns(filled)
    if row_columns:  # the measures' row-level values, once per row (Ctx.row_column)
        frame = frame.with_columns(e.alias(n) for n, e in row_columns.items())

    out = frame.group_by(group).agg(
        pl.col(RANK).is_not_null().any().alias(HAS_RUN),
        pl.col(N_RET).max().alias(N_RET),  # (on the rank-1 row; 0 on the others)
        pl.col(present).first().alias(HAS_QRELS),
        *exprs,
        *(e.alias(n) for n, e in partials.items()),
        *([
            pl.col(BAD_RUN).fill_null(False).any().alias(BAD_RUN),
            pl.col(BAD_QRELS).fill_null(False).any().alias(BAD_QRELS),
            (pl.col(DUP).fill_null(False).any() | pl.col("_qrels_dup").first().fill_null(False))
            .alias(DUP),
        ] if checks else []),
    )
    if lists:
        dtypes = judgment_lists.collect_schema()
        out = out.join(judgment_lists, on=qkey, how="left", nulls_equal=True).with_columns(
            pl.col(n).fill_null(pl.lit([], dtype=dtypes[n])) for n in lists
        )
    if post:
        out = _combine(out, {**partials, **lists}, derived, post)
    return out


@functools.lru_cache(maxsize=64)
def _aggregations(measures: tuple[Measure, ...], relevance_level: int, level: int) -> tuple[
    list[pl.Expr], list[pl.Expr], dict[str, pl.Expr], dict[str, pl.Expr], dict[str, pl.Expr],
    dict[str, pl.Expr], dict[str, pl.Expr], dict[str, pl.Expr],
]:
    """The measures' expressions in the hits plan, built once per measures and levels.

    The group_by's, those combined after it, and the statistics, lists, partials and derived
    values they share, and the row-level columns of the rows and of the judgments
    (:class:`Ctx`). Expressions are immutable: a small evaluation repeated (a training loop's
    validation) does not pay for building them again. Callers do not mutate the lists and dicts.
    """
    stats: dict[str, pl.Expr] = {}
    lists: dict[str, pl.Expr] = {}
    partials: dict[str, pl.Expr] = {}
    derived: dict[str, pl.Expr] = {}
    rows: dict[str, pl.Expr] = {}
    judgment_rows: dict[str, pl.Expr] = {}
    ctx = Ctx(
        rank=pl.col(RANK), rel=pl.col(REL), relevance_level=relevance_level,
        partials=partials, derived_columns=derived, judgment_stats=stats,
        judgment_lists=lists, n_ret=pl.col(N_RET).max(), few_rows=level >= 1,
        row_columns=rows, judgment_rows=judgment_rows,
    )
    exprs, post = [], []
    for m in measures:
        e = m.aggregation(ctx)
        (post if _uses_partials(e) else exprs).append(e)
    return exprs, post, stats, lists, partials, derived, rows, judgment_rows


def _judgment_side(
    qrels: pl.LazyFrame,
    judged: pl.LazyFrame,
    stats: dict[str, pl.Expr],
    qrels_keys: list[str],
    present: str,
    rows: dict[str, pl.Expr],
    *,
    checks: bool,
) -> pl.LazyFrame:
    """Per (qrels keys, query): ``present``, the judgment statistics ``stats`` and the checks.

    ``judged``: the judgments the measures read (grade >= their level); ``rows``: the
    statistics' row-level columns (:meth:`Ctx.row_column`), computed on them first.
    """
    qkey = [*qrels_keys, Q]
    per_query = qrels.group_by(qkey).agg(
        pl.lit(True).alias(present),
        *([
            pl.col(BAD_QRELS).any().alias(BAD_QRELS),
            (doc_hash(pl.col(D)).n_unique() < pl.len()).alias("_qrels_dup"),
        ] if checks else []),
    )
    if stats:
        # the statistics are sums over the judgments the measures read (grade >= level): a
        # group_by over those only; ideal positions by a window (ranking inside is ~3x slower)
        counted = judged
        if any(GRADE_POSITION in e.meta.root_names() for e in [*stats.values(), *rows.values()]):
            by_grade = pl.col(REL).rank("ordinal", descending=True).over(qkey)
            counted = counted.with_columns(by_grade.alias(GRADE_POSITION))
        if rows:
            counted = counted.with_columns(e.alias(n) for n, e in rows.items())
        per_query = per_query.join(
            counted.group_by(qkey).agg(e.alias(n) for n, e in stats.items()),
            on=qkey, how="left", nulls_equal=True,
        )
    return per_query
