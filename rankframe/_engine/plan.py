"""The planner: any set of measures over a run and qrels, composed into one lazy plan.

Shape of the plan (DESIGN.md §4):

1. read only the needed run columns; rank each query's documents once (score descending, ties
   by doc id descending in byte order, trec_eval's rule) and cut at the depth;
2. join relevance once: a full join with the qrels, so judged documents that were not retrieved
   are rows with a null rank (they feed the number of relevant documents and the ideal DCG);
3. one ``group_by`` over (run, breakdowns..., query) that evaluates every measure's aggregation;
4. the cross-query aggregation happens on the small per-query frame.

When every requested measure is hits-only (:attr:`Measure.HITS_ONLY`: it reads the retrieved
documents judged relevant and per-query statistics of the judgments), :func:`hits_plan` replaces
steps 2-3: a LEFT join with the relevant judgments only, the statistics from the judgments alone,
and a ``group_by`` over about a tenth of the rows; the values are the same, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures import REGISTRY, Ctx, Measure
from rankframe._measures._params import GRADE_POSITION

Q, D, S, REL, RANK = "query_id", "doc_id", "score", "relevance", "_rank"
TARGET = "_target"
HAS_RUN, HAS_QRELS = "_has_run", "_has_qrels"
#: Retrieved documents of each (group, query) row of the plan's result (for progress reports).
N_RET = "_n_ret"
#: In-plan input checks (see :func:`per_query_plan`'s ``checks``): a bad run row, a bad
#: judgment, a (query, doc) pair seen twice in a group.
BAD_RUN, BAD_QRELS, DUP = "_bad_run", "_bad_qrels", "_dup"
CHECKS = (BAD_RUN, BAD_QRELS, DUP)

TiePolicy = Literal["trec_eval", "average", "input"]
TIE_POLICIES = ("trec_eval", "average", "input")


@dataclass(frozen=True)
class Options:
    """Evaluation options (trec_eval's defaults)."""

    complete: bool = False
    depth: int | None = None
    relevance_level: int = 1
    ties: TiePolicy = "trec_eval"
    score_dtype: Literal["float64", "float32"] = "float64"
    judged_only: bool = False
    #: A run column holding the target ranking (a second score or a rank), for the measures
    #: that compare two rankings; ``None``: the relevance grades are the target.
    target: str | None = None
    #: ``"desc"``: larger target values rank first (scores); ``"asc"``: smaller first (ranks).
    target_order: Literal["desc", "asc"] = "desc"

    def __post_init__(self) -> None:
        if self.target is not None and not isinstance(self.target, str):
            msg = f"The 'target' option must be a column name. Got {self.target!r}."
            raise MeasureError(msg)
        if self.target_order not in ("desc", "asc"):
            msg = f"The 'target_order' option must be 'desc' or 'asc'. Got {self.target_order!r}."
            raise MeasureError(msg)
        if self.depth is not None and (isinstance(self.depth, bool) or int(self.depth) < 1):
            msg = f"The 'depth' option must be an int >= 1 or None. Got {self.depth!r}."
            raise MeasureError(msg)
        if self.ties not in TIE_POLICIES:
            msg = f"The 'ties' option must be one of {TIE_POLICIES}. Got {self.ties!r}."
            raise MeasureError(msg)
        if self.score_dtype not in ("float64", "float32"):
            msg = f"The 'score_dtype' option must be 'float64' or 'float32'. Got {self.score_dtype!r}."
            raise MeasureError(msg)
        if isinstance(self.relevance_level, bool) or not isinstance(self.relevance_level, int):
            msg = (
                "The 'relevance_level' option must be an int. "
                f"Got {self.relevance_level!r} ({type(self.relevance_level).__name__})."
            )
            raise MeasureError(msg)


def doc_hash(doc: pl.Expr) -> pl.Expr:
    """64-bit hashes of doc ids, for the in-plan duplicate screen (a collision only costs a rescan)."""
    return doc.hash(seed=0x5EED)


def tie_key(doc: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """The tie-break key: the doc id as trec_eval compares it (byte order of its text)."""
    if dtype == pl.String:
        return doc
    return doc.cast(pl.String)


def rank_expr(keys: list[str], doc_dtype: pl.DataType, ties: TiePolicy) -> pl.Expr:
    """1-based rank within each query: score descending, then the tie policy.

    A struct rank over the query window sorts each query's rows only (measured faster than an
    ``int_range`` window ordered by the same keys, DESIGN.md §4). Descending on the struct makes
    both fields descending: doc ids descending in byte order is trec_eval's tie rule; for the
    input order the row index is negated.
    """
    if ties == "input":
        key = pl.struct(pl.col(S), -pl.col("_order").cast(pl.Int64))
    else:
        key = pl.struct(pl.col(S), tie_key(pl.col(D), doc_dtype))
    return key.rank("ordinal", descending=True).over(keys).cast(pl.UInt32)


def judged_frame(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    keys: list[str],
    opts: Options,
    qrels_keys: list[str] | None = None,
    groups: pl.LazyFrame | None = None,
    *,
    checks: bool = False,
) -> pl.LazyFrame:
    """Ranked run rows joined with every judgment: columns keys, query, doc, rank, relevance.

    ``checks``: the run and qrels carry the boolean columns ``BAD_RUN`` / ``BAD_QRELS``; keep them.

    ``groups``: every (run, breakdown) group of the evaluation, when ``run`` holds only part of
    it (a query partition); ``complete`` scores the judged queries missing from each of them.

    ``qrels_keys`` are the run keys the qrels carry too (a judged frame with breakdowns): the
    join then matches on them; judgments without those keys are replicated for every group.
    """
    qrels_keys = list(qrels_keys or [])
    score_dtype = pl.Float32 if opts.score_dtype == "float32" else pl.Float64
    flags = [BAD_RUN] if checks else []
    cols = [*keys, Q, D, S] + (["_order"] if opts.ties == "input" else []) + flags
    target = []
    if opts.target is not None:
        value = pl.col(opts.target).cast(pl.Float64)
        target = [(value if opts.target_order == "desc" else -value).alias(TARGET)]
    run = run.select(*cols, *target).with_columns(pl.col(S).cast(score_dtype))
    qrels = qrels.select(*qrels_keys, Q, D, REL, *([BAD_QRELS] if checks else []))
    if opts.judged_only:
        if opts.depth is not None:  # trec_eval cuts at the depth first, then drops unjudged docs
            rank = rank_expr([*keys, Q], run.collect_schema()[D], opts.ties)
            run = run.filter(rank <= opts.depth)
        run = run.join(
            qrels.filter(pl.col(REL) >= 0), on=[*qrels_keys, Q, D], how="semi", nulls_equal=True
        )
    doc_dtype = run.collect_schema()[D]
    ranked = run.with_columns(rank_expr([*keys, Q], doc_dtype, opts.ties).alias(RANK))
    if opts.depth is not None:
        ranked = ranked.filter(pl.col(RANK) <= opts.depth)
    extra = [pl.col(S).alias("_score")] if opts.ties == "average" else []
    extra += [pl.col(TARGET)] if opts.target is not None else []
    ranked = ranked.select(*keys, Q, D, RANK, *extra, *flags)
    if len(qrels_keys) == len(keys):
        return ranked.join(
            qrels, on=[*keys, Q, D], how="full", coalesce=True, nulls_equal=True
        )
    # Replicate the judgments for every (run, breakdown) group that holds the query.
    combos = ranked.select(*keys, Q).unique()
    if opts.complete:
        every = (ranked.select(*keys).unique() if groups is None else groups).join(
            qrels.select(*qrels_keys, Q).unique(), on=qrels_keys or None,
            how="inner" if qrels_keys else "cross", nulls_equal=True,
        )
        combos = pl.concat([combos, every.select(*keys, Q)]).unique()
    qrels_x = qrels.join(combos, on=[*qrels_keys, Q], how="inner", nulls_equal=True)
    return ranked.join(qrels_x, on=[*keys, Q, D], how="full", coalesce=True, nulls_equal=True)


def keeps_every_row(
    opts: Options,
    keys: list[str],
    qrels_keys: list[str] | None,
    pairs: pl.LazyFrame | None,
    measures: list[Measure] | None = None,
) -> bool:
    """Whether every run and qrels row reaches the plan's checks (so they can ride in it).

    Not with a depth cut or judged-only filtering (run rows dropped), preference pairs, or,
    in the general plan, judgments replicated into (run, breakdown) groups (qrels rows of
    unheld queries dropped); the hits-only plan screens the judgments once, whatever the
    groups.
    """
    if opts.depth is not None or opts.judged_only or pairs is not None:
        return False
    if len(qrels_keys or []) == len(keys):
        return True
    return measures is not None and hits_level(measures, opts, pairs) is not None


def per_query_plan(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    measures: list[Measure],
    keys: list[str],
    opts: Options,
    qrels_keys: list[str] | None = None,
    *,
    qrels_given: bool = True,
    pairs: pl.LazyFrame | None = None,
    groups: pl.LazyFrame | None = None,
    checks: bool = False,
    judgment_cache: dict | None = None,
) -> pl.LazyFrame:
    """One lazy plan giving a wide per-query frame: keys, query, flags, one column per measure.

    When every measure reads only the retrieved documents judged relevant (:func:`hits_level`),
    the plan is :func:`hits_plan`.

    ``qrels_given=False``: the qrels are empty because only a ``target`` column judges the run.
    ``checks``: the run and qrels carry boolean columns ``BAD_RUN`` / ``BAD_QRELS`` (a row the
    validation would refuse); the result then has ``BAD_RUN``, ``BAD_QRELS`` and ``DUP`` (a doc
    twice in a (group, query): a duplicate in either input, or a 64-bit hash collision) per
    (group, query), computed in the same ``group_by`` instead of separate scans. Only for plans
    that keep every input row (no depth, not judged-only, judgments joined directly).
    ``judgment_cache``: see :func:`hits_plan`.
    ``pairs``: preference pairs ``query_id, _a, _b`` are the target (``qrels`` then lists the
    documents they name); only measures defined on pairs alone are accepted.
    """
    if pairs is not None:
        unsupported = [repr(m) for m in measures if not m.PAIRWISE_TARGET]
        if unsupported:
            ok = sorted(n for n, cls in REGISTRY.items() if cls.PAIRWISE_TARGET)
            msg = (
                f"Preference pairs (prefs=...) are a target for the measures defined on a set "
                f"of pairs: {', '.join(ok)}; not for {', '.join(unsupported)}. Evaluate those "
                "against qrels (grades) or a target column."
            )
            raise MeasureError(msg)
    average = opts.ties == "average"
    if average:
        unsupported = [repr(m) for m in measures if not m.SUPPORTS_AVERAGE_TIES]
        if unsupported:
            msg = (
                f"The 'average' tie policy is defined for rank-weighted sums only; not for "
                f"{', '.join(unsupported)}. Use ties='trec_eval' (default) or ties='input' for them."
            )
            raise MeasureError(msg)
    if checks and not keeps_every_row(opts, keys, qrels_keys, pairs, measures):
        msg = "In-plan checks need a plan that keeps every input row."
        raise ValueError(msg)
    level = hits_level(measures, opts, pairs)
    if level is not None:
        return hits_plan(
            run, qrels, measures, keys, opts, level, qrels_keys, groups, checks=checks,
            cache=judgment_cache,
        )
    frame = judged_frame(run, qrels, keys, opts, qrels_keys, groups, checks=checks)
    if pairs is not None:
        frame = with_pair_counts(frame, pairs, keys, average=average)
    levels = None
    if any(m.NEEDS_LEVELS and getattr(m, "levels", None) is None for m in measures):
        levels = target_levels(run, qrels, opts)
    partials: dict[str, pl.Expr] = {}
    derived: dict[str, pl.Expr] = {}
    ctx = Ctx(
        rank=pl.col(RANK), rel=pl.col(REL), relevance_level=opts.relevance_level,
        average_ties=average, partials=partials, derived_columns=derived,
        target=pl.col(TARGET) if opts.target is not None else None,
        score=pl.col("_score") if average else None, levels=levels,
        pref_counts=None if pairs is None else (pl.col(PC), pl.col(PD), pl.col(PT)),
    )
    exprs, post = [], []
    for m in measures:
        if opts.target is not None and opts.target_order == "asc" and getattr(m, "levels", None):
            # explicit levels are in the column's units; the plan negates an ascending target
            flipped = m.replace(levels=tuple(-v for v in m.levels))
            e = flipped.aggregation(ctx).alias(repr(m))
        else:
            e = m.aggregation(ctx)
        # a measure built from shared partial sums is combined after the group_by
        (post if _uses_partials(e) else exprs).append(e)
    if ctx.tie_columns:
        # the tie group of a retrieved document: its query and its score (_score kept for this)
        group = [*keys, Q, "_score"]
        frame = frame.with_columns(e.mean().over(group).alias(n) for n, e in ctx.tie_columns.items())
    if checks:  # the group_by keeps 64-bit hashes of the doc ids, not the strings
        frame = frame.with_columns(doc_hash(pl.col(D)).alias(DUP))
    judged = pl.col(REL).is_not_null().any()
    if opts.target is not None and not qrels_given:
        judged = pl.col(TARGET).is_not_null().any()  # no qrels: the target column judges
    out = frame.group_by([*keys, Q]).agg(
        pl.col(RANK).is_not_null().any().alias(HAS_RUN),
        pl.col(RANK).count().alias(N_RET),
        judged.alias(HAS_QRELS),
        *exprs,
        *(e.alias(n) for n, e in partials.items()),
        *([
            pl.col(BAD_RUN).any().alias(BAD_RUN), pl.col(BAD_QRELS).any().alias(BAD_QRELS),
            (pl.col(DUP).n_unique() < pl.len()).alias(DUP),
        ] if checks else []),
    )
    if post:
        out = _combine(out, partials, derived, post)
    if opts.judged_only:
        # -J may empty a ranking; the query was still in the run and is evaluated (num_ret 0)
        present = run.select(*keys, Q).unique().with_columns(pl.lit(True).alias("_present"))
        out = out.join(present, on=[*keys, Q], how="left", nulls_equal=True).with_columns(
            (pl.col(HAS_RUN) | pl.col("_present").fill_null(False)).alias(HAS_RUN)
        ).drop("_present")
    return out


def hits_level(measures: list[Measure], opts: Options, pairs: pl.LazyFrame | None) -> int | None:
    """The lowest grade any measure reads when all are hits-only (:attr:`Measure.HITS_ONLY`).

    ``None`` where the general plan is needed: a measure reading other rows, a target column or
    preference pairs, the "average" tie policy (tie groups span every row) or judged-only runs.
    """
    if (
        not measures or pairs is not None or opts.target is not None or opts.judged_only
        or opts.ties == "average"
    ):
        return None
    levels = [m.hit_level(opts.relevance_level) for m in measures]
    if any(level is None for level in levels):
        return None
    return min(levels)  # type: ignore[type-var]


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
    cache: dict | None = None,
) -> pl.LazyFrame:
    """The per-query plan of hits-only measures: same columns and values as the general plan.

    1. rank the run once (and count each query's retrieved documents in the same window);
    2. LEFT join only the judgments of grade >= ``level`` and keep the joined rows plus each
       query's rank-1 row (so every query of the run stays, with its count): about a tenth of
       the rows of the full join on TREC-like data;
    3. the statistics of the judgments (number relevant, ideal DCG...,
       :meth:`Ctx.judgments`) from one ``group_by`` over the same judgments alone (computed
       once, whatever the runs and breakdowns), joined per query; queries judged but not
       retrieved get a row of their own;
    4. one ``group_by`` evaluates every measure on the small frame.

    ``checks``: the bad-row flags ride along (bad run rows are kept by the filter); duplicates
    are screened per query on 64-bit doc-id hashes, in the rank window and the qrels group_by;
    a raised flag triggers the scan that finds the exact error.

    ``cache``: a dict shared by plans of several runs against the same judgments; the
    judgment-side per-query frame is then collected by the first plan and read by the others.
    """
    qrels_keys = list(qrels_keys or [])
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
    judged = qrels.filter(pl.col(REL) >= level).select(*qrels_keys, Q, D, REL)
    keep = pl.col(REL).is_not_null() | (pl.col(RANK) == 1)
    if checks:  # bad rows reach the group_by (the duplicate flag is on each query's rank 1)
        keep = keep | pl.col(BAD_RUN)
    rows = (
        ranked.join(judged, on=[*qrels_keys, Q, D], how="left", nulls_equal=True)
        .filter(keep)
        .select(*group, RANK, REL, N_RET, *flags, *([DUP] if checks else []))
    )

    stats: dict[str, pl.Expr] = {}
    lists: dict[str, pl.Expr] = {}
    partials: dict[str, pl.Expr] = {}
    derived: dict[str, pl.Expr] = {}
    ctx = Ctx(
        rank=pl.col(RANK), rel=pl.col(REL), relevance_level=opts.relevance_level,
        partials=partials, derived_columns=derived, judgment_stats=stats,
        judgment_lists=lists, n_ret=pl.col(N_RET).first(), few_rows=level >= 1,
    )
    exprs, post = [], []
    for m in measures:
        e = m.aggregation(ctx)
        (post if _uses_partials(e) else exprs).append(e)

    present = "_judged"
    qkey = [*qrels_keys, Q]
    per_query = _judgment_side(qrels, judged, {**stats, **lists}, qrels_keys, present, checks=checks)
    if cache is not None:
        key = (level, tuple(stats), tuple(lists), checks, tuple(qrels_keys))
        if key not in cache:
            cache[key] = per_query.collect()
        per_query = cache[key].lazy()
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
        unretrieved = every.join(
            per_query, on=qrels_keys or None, how="inner" if qrels_keys else "cross",
            nulls_equal=True,
        )
    if unretrieved is not None:
        alone = unretrieved.join(retrieved, on=group, how="anti", nulls_equal=True)
        frame = pl.concat([frame, alone], how="diagonal_relaxed")
    frame = frame.with_columns(filled)

    out = frame.group_by(group).agg(
        pl.col(RANK).is_not_null().any().alias(HAS_RUN),
        pl.col(N_RET).first().alias(N_RET),
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


def _judgment_side(
    qrels: pl.LazyFrame,
    judged: pl.LazyFrame,
    stats: dict[str, pl.Expr],
    qrels_keys: list[str],
    present: str,
    *,
    checks: bool,
) -> pl.LazyFrame:
    """Per (qrels keys, query): ``present``, the judgment statistics ``stats`` and the checks.

    ``judged``: the judgments the measures read (grade >= their level).
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
        if any(GRADE_POSITION in e.meta.root_names() for e in stats.values()):
            by_grade = pl.col(REL).rank("ordinal", descending=True).over(qkey)
            counted = counted.with_columns(by_grade.alias(GRADE_POSITION))
        per_query = per_query.join(
            counted.group_by(qkey).agg(e.alias(n) for n, e in stats.items()),
            on=qkey, how="left", nulls_equal=True,
        )
    return per_query


PC, PD, PT = "_pref_c", "_pref_d", "_pref_t"


def with_pair_counts(
    frame: pl.LazyFrame, pairs: pl.LazyFrame, keys: list[str], *, average: bool
) -> pl.LazyFrame:
    """Add each document's counts of the target pairs ``doc > other`` it heads.

    ``_pref_c``: those the prediction orders alike, ``_pref_d``: the other way, ``_pref_t``:
    ties.

    The prediction is the rank in force (or, under "average" ties, the score's min-rank), with
    documents not retrieved tied below the retrieved ones. Two joins of the (small) pair table
    with the ranked rows, one ``group_by`` per preferred document, one join back.
    """
    group = [*keys, Q]
    if average:
        p = -pl.col("_score").rank("min", descending=True).over(group).cast(pl.Float64)
    else:
        p = -pl.col(RANK).cast(pl.Float64)
    frame = frame.with_columns(p.fill_null(float("-inf")).alias("_pv"))
    docs = frame.filter(pl.col(REL).is_not_null()).select(*group, D, "_pv")
    counted = (
        docs.join(pairs, left_on=[Q, D], right_on=[Q, "_a"])
        .join(docs, left_on=[*group, "_b"], right_on=[*group, D], suffix="_b", nulls_equal=True)
        .group_by([*group, D])
        .agg(
            (pl.col("_pv") > pl.col("_pv_b")).sum().alias(PC),
            (pl.col("_pv") < pl.col("_pv_b")).sum().alias(PD),
            (pl.col("_pv") == pl.col("_pv_b")).sum().alias(PT),
        )
    )
    return frame.join(counted, on=[*group, D], how="left", nulls_equal=True).with_columns(
        pl.col(PC, PD, PT).fill_null(0)
    )


def _combine(
    out: pl.LazyFrame, partials: dict[str, pl.Expr], derived: dict[str, pl.Expr], post: list[pl.Expr]
) -> pl.LazyFrame:
    """The measures built from partials, after the group_by: the derived values once, then them.

    A derived value may read the ones registered before it: those that read none of them are
    one step, those that read only the first step the next one, and so on (expressions of one
    step run in parallel).
    """
    depth: dict[str, int] = {}
    for n, e in derived.items():
        depth[n] = 1 + max((depth.get(r, 0) for r in e.meta.root_names()), default=0)
    for step in sorted(set(depth.values())):
        out = out.with_columns(e.alias(n) for n, e in derived.items() if depth[n] == step)
    return out.with_columns(post).drop([*partials, *derived])


def _uses_partials(e: pl.Expr) -> bool:
    """Whether an expression reads a partial-sum column (``_part...``)."""
    return any(name.startswith("_part") for name in e.meta.root_names())


#: The most distinct target-column values a level-wise measure (MAUC) accepts.
MAX_LEVELS = 64


def target_levels(run: pl.LazyFrame, qrels: pl.LazyFrame, opts: Options) -> tuple[float, ...]:
    """The distinct target values: grades (negative as 0, 0 always in) or a target column's.

    A small scan of one column, collected before the plan: level-wise measures build one
    expression per pair of levels.
    """
    if opts.target is None:
        grades = qrels.select(pl.col(REL).clip(lower_bound=0).unique()).collect().to_series()
        return tuple(sorted({0.0, *(float(g) for g in grades)}))
    values = run.select(pl.col(opts.target).cast(pl.Float64).unique().head(MAX_LEVELS + 1))
    found = values.collect().to_series()
    if found.len() > MAX_LEVELS:
        msg = (
            f"The target column {opts.target!r} has more than {MAX_LEVELS} distinct values; "
            "MAUC averages over every pair of levels and is meant for graded targets. Use "
            "CIndex (the pair-weighted form) or give MAUC(levels=(...))."
        )
        raise MeasureError(msg)
    sign = 1.0 if opts.target_order == "desc" else -1.0
    return tuple(sorted(sign * float(v) for v in found))
