"""The subtopic plan: ndeval's intent-aware measures over qrels that carry subtopics.

Diversity qrels hold one judgment per (query, subtopic, document): the TREC qrels' second
column (``iteration``) is the subtopic. :func:`evaluate_subtopics` takes over from ``evaluate``
when the qrels carry one (a ``subtopic`` column, ir_measures' ``iteration``, pyndeval's
``subtopic_id``, or a TREC text file) and a measure of :mod:`rankframe._measures.subtopics` is
asked for; the other measures are evaluated as usual on the qrels collapsed to one row per
(query, doc) (the grade: the largest over its subtopics, ndeval's "relevant to the topic").

1. rank the run once (the evaluation's tie policy and depth);
2. per relevance level, join the relevant (query, subtopic, doc) judgments to the ranked rows:
   each row is a relevant pair, numbered within its subtopic in rank order;
3. one ``group_by`` per query gives each measure's numerator; the numbers of subtopics and each
   subtopic's relevant documents come from the judgments;
4. the normalised forms divide by the value of ndeval's greedy ideal ranking, built from the
   judgments a rank at a time for all queries at once (ranks, not queries, are looped: up to
   the largest cutoff, or where NRBP's remaining terms vanish).

Queries are those of the run that the qrels judge (``complete=True``: every judged query, the
missing ones 0), as ndeval evaluates them. Breakdowns (``by``) are columns of the run: each
(group, query) is ranked and scored apart, as ``evaluate`` does; under ``complete=True`` a judged
query in no group of a run is scored 0 in a group of its own, with null breakdown columns.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe._engine.hits import ranked_run
from rankframe._engine.options import RANK, REL, D, Options, Q
from rankframe._engine.prepare import _align_ids, _runs_input
from rankframe._engine.rank import tie_key
from rankframe._errors import InputError
from rankframe._io.columns import LINE
from rankframe._io.readers import read_qrels
from rankframe._io.trec_text import _read_bytes, _split_fields, _to_number

if TYPE_CHECKING:
    from rankframe._measures import Measure

#: The subtopic column of diversity qrels, and the names it is read from.
SUB = "subtopic"
SUB_NAMES = (SUB, "subtopic_id", "iteration")
_HIT, _NREL, _NSUB, _STEP, _GAIN, _COUNT = "_hit", "_nrel", "_nsub", "_step", "_gain", "_count"

#: The evaluate options the subtopic plan reads; the others must keep evaluate's defaults.
_READ = frozenset({
    "per_query", "complete", "depth", "relevance_level", "ties", "score_dtype", "qrels_columns",
    "run_columns", "aggregate", "by",
})


def is_subtopic(m: Measure) -> bool:
    """Whether ``m`` is one of ndeval's intent-aware measures."""
    return bool(getattr(m, "SUBTOPICS", False))


def read_subtopic_qrels(qrels: Any, columns: Mapping[str, str] | None) -> pl.LazyFrame | None:
    """``query_id, subtopic, doc_id, relevance`` of diversity qrels, or None without subtopics."""
    if qrels is None:
        return None
    lf = read_qrels(qrels, columns=columns)
    names = lf.collect_schema().names()
    for name in SUB_NAMES:
        if name in names:
            return lf.select(Q, pl.col(name).alias(SUB), D, REL)
    if LINE in names and isinstance(qrels, str | os.PathLike):  # TREC text: its second column
        path = os.fspath(qrels)
        df = _split_fields(_read_bytes(path, "qrels"), (Q, SUB, D, REL), path, "qrels")
        return _to_number(df, REL, pl.Int64, path, "relevance grade").select(Q, SUB, D, REL).lazy()
    return None


def evaluate_subtopics(
    qrels: Any, run: Any, measures: list[Measure], evaluate: Callable[..., pl.DataFrame], **options: Any
) -> pl.DataFrame | None:
    """``evaluate``'s result when the qrels carry subtopics (None: they do not)."""
    sub = read_subtopic_qrels(qrels, options.get("qrels_columns"))
    if sub is None:
        return None
    defaults = inspect.signature(evaluate).parameters
    given = [
        f"{k}={v!r}" if isinstance(v, str | int | float | list | tuple) else f"{k}=<{type(v).__name__}>"
        for k, v in options.items() if k not in _READ and _given(v, defaults[k].default)
    ]
    if given:
        msg = (
            f"The intent-aware measures ({', '.join(repr(m) for m in measures if is_subtopic(m))}) "
            f"do not take {', '.join(given)}; evaluate them without it."
        )
        raise InputError(msg)
    sub = sub.with_columns(pl.col(REL).cast(pl.Int64))
    others = [m for m in measures if not is_subtopic(m)]
    ours = [m for m in measures if is_subtopic(m)]
    opts = Options(
        complete=options.get("complete", False), depth=options.get("depth"),
        relevance_level=options.get("relevance_level", 1), ties=options.get("ties", "trec_eval"),
        score_dtype=options.get("score_dtype", "float64"),
    )
    run_lf, _, _ = _runs_input(run, options.get("run_columns"))
    if opts.ties == "input":
        run_lf = run_lf.with_row_index("_order")
    run_lf, sub = _align_ids(run_lf, sub)
    names = run_lf.collect_schema().names()
    by = [k for k in options.get("by") or [] if k != "run"]
    absent = [k for k in by if k not in names]
    if absent:
        msg = (
            f"The intent-aware measures break down by the run's columns; {', '.join(map(repr, absent))} "
            f"{'is' if len(absent) == 1 else 'are'} not a column of the run (it has {', '.join(names)}). "
            "Join the breakdown column to the run first."
        )
        raise InputError(msg)
    keys = (["run"] if "run" in names else []) + by
    _refuse_duplicates(sub, [Q, SUB, D], "qrels", "(query, subtopic, doc)")
    _refuse_duplicates(run_lf, [*keys, Q, D], "run", "(query, doc)")
    wide = subtopic_values(sub, run_lf, keys, ours, opts)
    per_query = options.get("per_query", False)
    order = {repr(m): i for i, m in enumerate(measures)}
    group = [*keys, Q] if per_query else keys
    long = wide.unpivot(index=[*keys, Q], variable_name="measure", value_name="value")
    if not per_query:
        how = options.get("aggregate", "mean")
        if how != "mean":
            msg = f"The intent-aware measures are averaged over queries (aggregate='mean'). Got {how!r}."
            raise InputError(msg)
        long = long.group_by([*keys, "measure"]).agg(pl.col("value").mean())
    # the other measures on the qrels collapsed; without any, a count's evaluation for its
    # coverage warnings alone (judged queries missing from a run or a group, unjudged ones),
    # worded and ruled as evaluate's, on the same queries
    collapsed = sub.group_by(Q, D).agg(pl.col(REL).max())
    rest = {k: v for k, v in options.items() if k != "qrels_columns"}
    done = evaluate(collapsed, run, others or ["num_ret"], **rest)
    if others:
        long = pl.concat([long, done.select(long.columns)], how="vertical_relaxed")
    rank = pl.col("measure").replace_strict(order, return_dtype=pl.Int64)
    return long.sort([*group, rank], nulls_last=True).select(*group, "measure", "value")


def _given(value: Any, default: Any) -> bool:
    """Whether an option differs from its default (a frame given where the default is None too)."""
    return value is not None if default is None else bool(value != default)


def _refuse_duplicates(lf: pl.LazyFrame, key: list[str], role: str, what: str) -> None:
    """An InputError naming the first rows of ``lf`` that repeat ``key`` (ndeval's are ambiguous)."""
    found = lf.group_by(key).agg(pl.len().alias("_n")).filter(pl.col("_n") > 1).sort(key).collect()
    if found.height:
        rows = "; ".join(f"{tuple(r[:-1])} x{r[-1]}" for r in found.head(3).rows())
        count = ""
        if found.height > 3:
            extra = int(found["_n"].sum()) - found.height
            count = f"{found.height:,} listed more than once ({extra:,} extra rows), e.g. "
        msg = f"duplicate {what} rows in the {role}: {count}{rows}. Keep one row per {what}."
        raise InputError(msg)


def subtopic_values(
    sub: pl.LazyFrame, run: pl.LazyFrame, keys: list[str], measures: list[Measure], opts: Options
) -> pl.DataFrame:
    """Per query (``keys``, ``query_id``), one column per measure (its ``repr``)."""
    ranked = ranked_run(run, keys, opts).select(*keys, Q, D, pl.col(RANK).cast(pl.Int64))
    judged = sub.filter(pl.col(REL) >= 0).select(Q, D).unique()
    queries = sub.select(Q).unique()
    table = ranked.select(*keys, Q).unique().join(queries, on=Q, how="semi")
    if opts.complete:  # the judged queries a run misses: 0, in a group of their own (null breakdowns)
        runs = [k for k in keys if k == "run"]
        missing = (
            (ranked.select(runs).unique().join(queries, how="cross") if runs else queries)
            .join(table.select(*runs, Q), on=[*runs, Q], how="anti")
            .with_columns(pl.lit(None, ranked.collect_schema()[k]).alias(k) for k in keys if k != "run")
        )
        table = pl.concat([table, missing.select(*keys, Q)])
    doc_dtype = sub.collect_schema()[D]
    steps: dict[tuple[int, float], int] = {}  # one greedy ideal per (level, alpha), to the deepest rank
    for m in measures:
        if m.ideal_steps is not None:
            at = (_level(m, opts), m.alpha)
            steps[at] = max(steps.get(at, 0), m.ideal_steps)
    groups: dict[tuple[int, bool], list[int]] = {}  # one join and group_by per level
    for i, m in enumerate(measures):
        groups.setdefault((_level(m, opts), bool(m.params.get("judged_only"))), []).append(i)
    columns = []
    for (level, judged_only), members in groups.items():
        pairs = sub.filter(pl.col(REL) >= level).select(Q, SUB, D).unique()
        nrel = pairs.group_by(Q, SUB).agg(pl.len().cast(pl.Float64).alias(_NREL))
        n_sub = pairs.group_by(Q).agg(pl.col(SUB).n_unique().cast(pl.Float64).alias(_NSUB))
        rows = ranked
        if judged_only:  # unjudged documents out, the rest ranked again
            rows = rows.join(judged, on=[Q, D], how="semi").with_columns(
                pl.col(RANK).rank("ordinal").over([*keys, Q]).cast(pl.Int64)
            )
        hits = rows.join(pairs, on=[Q, D]).with_columns(
            pl.col(RANK).rank("ordinal").over([*keys, Q, SUB]).cast(pl.Int64).alias(_HIT)
        ).join(nrel, on=[Q, SUB])
        # each query's pairs in (rank, subtopic) order, whatever order the joins left: the sums
        # are then taken in one order, the same bits from call to call and group to group
        by_rank = [pl.col(RANK), pl.col(SUB)]
        cols = [pl.col(c).sort_by(by_rank) for c in (RANK, _HIT, SUB, _NREL)]
        num = hits.group_by([*keys, Q]).agg(
            measures[i].numerator(*cols).alias(f"_num{i}") for i in members
        )
        part = table.join(num, on=[*keys, Q], how="left").join(n_sub, on=Q, how="left")
        for alpha in {measures[i].alpha for i in members if measures[i].ideal_steps is not None}:
            gains = greedy_ideal(pairs, alpha, steps[level, alpha], doc_dtype)
            step, gain = pl.col(_STEP).sort(), pl.col(_GAIN).sort_by(_STEP)
            sums = gains.group_by(Q).agg(
                measures[i].ideal(step, gain).alias(f"_ideal{i}") for i in members
                if measures[i].ideal_steps is not None and measures[i].alpha == alpha
            )
            part = part.join(sums.lazy(), on=Q, how="left")
        values = []
        for i in members:
            m, num_i = measures[i], pl.col(f"_num{i}")
            value = m.finish(num_i, pl.col(_NSUB), None if m.ideal_steps is None else pl.col(f"_ideal{i}"))
            ok = num_i.is_not_null() & (pl.col(_NSUB) > 0).fill_null(False)
            values.append(pl.when(ok).then(value).otherwise(0.0).cast(pl.Float64).alias(f"_m{i}"))
        columns.append(part.select(*keys, Q, *values))
    out = table
    for part in columns:
        out = out.join(part, on=[*keys, Q], how="left", nulls_equal=True)
    names = {f"_m{i}": repr(m) for i, m in enumerate(measures)}
    return out.collect().rename(names).select(*keys, Q, *dict.fromkeys(names.values()))


def _level(m: Measure, opts: Options) -> int:
    """The grade from which a document is relevant to a subtopic, for ``m``."""
    return opts.relevance_level if m.rel is None else m.rel


def greedy_ideal(pairs: pl.LazyFrame, alpha: float, steps: int, doc_dtype: pl.DataType) -> pl.DataFrame:
    r"""ndeval's ideal ranking's gains: ``query_id, _step, _gain`` for ranks ``1..steps``.

    At each rank, of the documents not yet ranked the one whose relevant subtopics are worth
    most, :math:`\sum_j (1 - \alpha)^{c_j}` with :math:`c_j` the documents above relevant to
    :math:`j`; ties to the larger doc id in byte order (ndeval's ``strcmp``). Only documents
    relevant to some subtopic are ranked (the others gain 0 wherever they go). One iteration
    per rank, over every query at once.
    """
    remaining = pairs.collect()
    counts = remaining.select(Q, SUB).unique().with_columns(pl.lit(0.0).alias(_COUNT))
    key = tie_key(pl.col(D), doc_dtype)
    found = []
    for step in range(1, steps + 1):
        if remaining.is_empty():
            break
        scored = (
            remaining.join(counts, on=[Q, SUB])
            .group_by(Q, D)
            .agg(pl.lit(1.0 - alpha).pow(pl.col(_COUNT)).sum().alias(_GAIN))
        )
        best = scored.filter(pl.col(_GAIN) == pl.col(_GAIN).max().over(Q))
        best = best.filter(key == key.max().over(Q)).select(Q, D, _GAIN)
        found.append(best.select(Q, pl.lit(step, pl.Int64).alias(_STEP), _GAIN))
        seen = remaining.join(best.select(Q, D), on=[Q, D]).group_by(Q, SUB).agg(pl.len().alias("_n"))
        counts = counts.join(seen, on=[Q, SUB], how="left").select(
            Q, SUB, (pl.col(_COUNT) + pl.col("_n").fill_null(0)).alias(_COUNT)
        )
        remaining = remaining.join(best.select(Q, D), on=[Q, D], how="anti")
    if not found:
        return pl.DataFrame(schema={Q: pairs.collect_schema()[Q], _STEP: pl.Int64, _GAIN: pl.Float64})
    return pl.concat(found)
