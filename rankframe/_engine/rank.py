"""Ranking and joining: each query's documents ranked once, the judgments joined once.

Also what the general plan adds to that frame for some measures: the counts of target
preference pairs each document heads, and the distinct target values of level-wise measures.
"""

from __future__ import annotations

import polars as pl

from rankframe._engine.options import BAD_QRELS, BAD_RUN, RANK, REL, TARGET, D, Options, Q, S, TiePolicy
from rankframe._errors import MeasureError


def missing_pairs(
    groups: pl.LazyFrame | pl.DataFrame,
    judged: pl.LazyFrame | pl.DataFrame,
    held: pl.LazyFrame | pl.DataFrame,
    keys: list[str],
    qrels_keys: list[str],
) -> pl.LazyFrame:
    """The (group, judged query) pairs that ``complete=True`` adds: judged, held by no group.

    The breakdown rule (DESIGN.md §2), one for every plan, partitions and Spark:

    - keys the qrels carry too (``qrels_keys``) and the ``run`` name: every group is owed each
      of its judged queries; one missing from the group's run is a pair here (scored 0);
    - breakdown columns of the run alone (``by=["locale"]`` with the locale in the run only): a
      group's queries are those it holds. A judged query that no group of a run holds is a pair
      here once, in a group of its own whose breakdown values are null; never in every group.

    Parameters
    ----------
    groups
        Every ``keys`` group of the evaluation.
    judged
        ``qrels_keys..., query_id`` of the judgments, and any other columns (kept).
    held
        ``keys..., query_id`` of the (group, query) pairs the run holds.
    """
    groups, judged, held = groups.lazy(), judged.lazy(), held.lazy()
    own = [k for k in keys if k != "run" and k not in qrels_keys]  # breakdowns of the run alone
    fixed = [k for k in keys if k not in own]
    pairs = judged  # with no run name and no qrels keys, each judged query is owed once
    if fixed:
        pairs = groups.select(fixed).unique().join(
            judged, on=qrels_keys or None, how="inner" if qrels_keys else "cross", nulls_equal=True
        )
    missing = pairs.join(held.select(*fixed, Q).unique(), on=[*fixed, Q], how="anti", nulls_equal=True)
    if own:
        dtypes = groups.collect_schema()
        missing = missing.with_columns(pl.lit(None, dtype=dtypes[k]).alias(k) for k in own)
    return missing


def doc_hash(doc: pl.Expr) -> pl.Expr:
    """64-bit hashes of doc ids, for the in-plan duplicate screen (a collision only costs a rescan)."""
    return doc.hash(seed=0x5EED)


def tie_key(doc: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """The tie-break key: the doc id as trec_eval compares it (byte order of its text or bytes)."""
    if dtype in (pl.String, pl.Binary):
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


def ranked_join(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    keys: list[str],
    opts: Options,
    qrels_keys: list[str] | None = None,
    groups: pl.LazyFrame | None = None,
    *,
    checks: bool = False,
    scores: bool = False,
) -> pl.LazyFrame:
    """Ranked run rows joined with every judgment: columns keys, query, doc, rank, relevance.

    ``checks``: the run and qrels carry the boolean columns ``BAD_RUN`` / ``BAD_QRELS``; keep them.
    ``scores``: keep the score column too (null for judged documents not retrieved).

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
    # the (group, query) pairs the run holds, before -J may empty a ranking (the query is then
    # still evaluated in its group, num_ret 0, as without breakdowns)
    held = run.select(*keys, Q).unique()
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
    extra += [pl.col(S)] if scores else []
    ranked = ranked.select(*keys, Q, D, RANK, *extra, *flags)
    if len(qrels_keys) == len(keys):
        return ranked.join(
            qrels, on=[*keys, Q, D], how="full", coalesce=True, nulls_equal=True
        )
    # Replicate the judgments for every (run, breakdown) group that holds the query.
    combos = held
    if opts.complete:
        every = held.select(*keys).unique() if groups is None else groups
        missing = missing_pairs(every, qrels.select(*qrels_keys, Q).unique(), combos, keys, qrels_keys)
        combos = pl.concat([combos, missing.select(*keys, Q)]).unique()
    qrels_x = qrels.join(combos, on=[*qrels_keys, Q], how="inner", nulls_equal=True)
    return ranked.join(qrels_x, on=[*keys, Q, D], how="full", coalesce=True, nulls_equal=True)


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
