"""The public entry point: ``evaluate`` (and ``explain``), built on the planner."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rankframe._errors import InputError, RankframeWarning
from rankframe._io import Source, read_judged, read_qrels, read_run
from rankframe._measures import MIN_GEO_MEAN, Measure
from rankframe._names import parse_measures
from rankframe._plan import D, HAS_QRELS, HAS_RUN, Q, REL, S, Options, per_query_plan

MeasureSpec = str | Measure


@dataclass
class Prepared:
    """Inputs after reading, mapping and validation, ready for the planner."""

    run: pl.LazyFrame
    qrels: pl.LazyFrame
    keys: list[str]
    measures: list[Measure]
    opts: Options
    run_where: str
    qrels_where: str


def _describe(source: Any) -> str:
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    return f"the {type(source).__name__} passed as input"


def _runs_input(run: Any, columns: Mapping[str, str] | None) -> tuple[pl.LazyFrame, str]:
    """Read one run, or several (a list or a dict name -> source) stacked with a ``run`` column."""
    if isinstance(run, Mapping):
        items = list(run.items())
    elif isinstance(run, list | tuple):
        items = []
        for i, src in enumerate(run):
            name = Path(os.fspath(src)).name if isinstance(src, str | os.PathLike) else f"run_{i}"
            items.append((name, src))
        names = [n for n, _ in items]
        if len(set(names)) != len(names):
            items = [(f"{n}#{i}", s) for i, (n, s) in enumerate(items)]
    else:
        return read_run(run, columns=columns), _describe(run)
    frames = []
    for name, src in items:
        lf = read_run(src, columns=columns)
        lf = lf.select(Q, D, S).with_columns(pl.lit(str(name)).alias("run"))
        frames.append(lf)
    return pl.concat(frames, how="vertical_relaxed"), ", ".join(_describe(s) for _, s in items)


def _check_dtypes(lf: pl.LazyFrame, role: str, where: str) -> pl.LazyFrame:
    schema = lf.collect_schema()
    casts = []
    for col in (Q, D):
        if col not in schema:
            continue
        dt = schema[col]
        if not (dt == pl.String or dt.is_integer() or dt == pl.Categorical):
            msg = (
                f"The {role} column {col!r} in {where} has dtype {dt}; ids must be strings or "
                "integers. Cast it first, e.g. pl.col(...).cast(pl.String)."
            )
            raise InputError(msg)
        if dt == pl.Categorical:
            casts.append(pl.col(col).cast(pl.String))
    if S in schema and not schema[S].is_numeric():
        msg = (
            f"The {role} column 'score' in {where} has dtype {schema[S]}; scores must be numbers. "
            "Map the right column with columns={'score': ...} or cast it."
        )
        raise InputError(msg)
    if REL in schema:
        dt = schema[REL]
        if dt.is_float():
            casts.append(pl.col(REL))  # checked for integrality below
        elif not dt.is_integer() and dt != pl.Boolean:
            msg = (
                f"The {role} column 'relevance' in {where} has dtype {dt}; grades must be "
                "integers. Map the right column with columns={'relevance': ...} or cast it."
            )
            raise InputError(msg)
    return lf.with_columns(casts) if casts else lf


def _align_ids(run: pl.LazyFrame, qrels: pl.LazyFrame) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Give ids the same dtype on both sides (strings win unless both are integers)."""
    rs, qs = run.collect_schema(), qrels.collect_schema()
    for col in (Q, D):
        if rs[col] == qs[col]:
            continue
        if rs[col].is_integer() and qs[col].is_integer():
            run = run.with_columns(pl.col(col).cast(pl.Int64))
            qrels = qrels.with_columns(pl.col(col).cast(pl.Int64))
        else:
            run = run.with_columns(pl.col(col).cast(pl.String))
            qrels = qrels.with_columns(pl.col(col).cast(pl.String))
    return run, qrels


def _line_hint(frame: pl.DataFrame) -> str:
    if "line_no" in frame.columns and frame.height:
        return f", line {frame['line_no'][0]}"
    return ""


def _validate(prep: Prepared) -> None:
    """Collect the cheap sanity checks in one pass (nulls, non-finite scores, duplicates)."""
    run_cols = prep.run.collect_schema().names()
    qrels_cols = prep.qrels.collect_schema().names()
    line = ["line_no"] if "line_no" in run_cols else []
    qline = ["line_no"] if "line_no" in qrels_cols else []
    checks = [
        prep.run.filter(
            pl.col(Q).is_null() | pl.col(D).is_null() | pl.col(S).is_null()
            | ~pl.col(S).cast(pl.Float64).is_finite()
        ).select(*prep.keys, Q, D, S, *line).head(1),
        prep.qrels.filter(pl.col(Q).is_null() | pl.col(D).is_null() | pl.col(REL).is_null())
        .select(Q, D, REL, *qline).head(1),
        prep.run.group_by(*prep.keys, Q, D).agg(pl.len().alias("n"), *[pl.col(c).min() for c in line])
        .filter(pl.col("n") > 1).head(3),
        prep.qrels.group_by(*[k for k in prep.keys if k in qrels_cols], Q, D)
        .agg(pl.len().alias("n"), *[pl.col(c).min() for c in qline])
        .filter(pl.col("n") > 1).head(3),
    ]
    if REL in qrels_cols and prep.qrels.collect_schema()[REL].is_float():
        checks.append(prep.qrels.filter(pl.col(REL) != pl.col(REL).round()).select(Q, D, REL).head(1))
    bad_run, bad_qrels, dup_run, dup_qrels, *frac = pl.collect_all(checks)
    if bad_run.height:
        row = bad_run.row(0, named=True)
        what = "a null id" if row[Q] is None or row[D] is None else f"the score {row[S]!r}"
        if row[S] is not None and not (row[Q] is None or row[D] is None):
            what = f"the non-finite score {row[S]!r}"
        msg = (
            f"{prep.run_where}{_line_hint(bad_run)}: query {row[Q]!r}, doc {row[D]!r} has {what}. "
            "Scores must be finite numbers and ids non-null; drop or fix such rows first."
        )
        raise InputError(msg)
    if bad_qrels.height:
        row = bad_qrels.row(0, named=True)
        msg = (
            f"{prep.qrels_where}{_line_hint(bad_qrels)}: query {row[Q]!r}, doc {row[D]!r} has a "
            "null id or grade. Drop or fix such rows first."
        )
        raise InputError(msg)
    for frame, where, role in ((dup_run, prep.run_where, "run"), (dup_qrels, prep.qrels_where, "qrels")):
        if frame.height:
            pairs = ", ".join(f"({r[Q]!r}, {r[D]!r})" for r in frame.iter_rows(named=True))
            msg = (
                f"{where}{_line_hint(frame)}: duplicate (query, doc) rows in the {role}, e.g. {pairs}. "
                "trec_eval refuses them too; keep one row per document (e.g. the best score: "
                "df.group_by('query_id', 'doc_id').agg(pl.col('score').max()))."
            )
            raise InputError(msg)
    if frac and frac[0].height:
        row = frac[0].row(0, named=True)
        msg = f"{prep.qrels_where}: the grade {row[REL]!r} of ({row[Q]!r}, {row[D]!r}) is not an integer."
        raise InputError(msg)


def prepare(
    qrels: Source | None,
    run: Source | None,
    measures: MeasureSpec | Iterable[MeasureSpec],
    *,
    judged: Source | None = None,
    by: Sequence[str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    validate: bool = True,
    **options: Any,
) -> Prepared:
    """Read, map, align and validate inputs; parse measures and options."""
    opts = Options(**options)
    parsed = parse_measures(measures)
    if judged is not None:
        if qrels is not None or run is not None:
            msg = "Pass either qrels and run, or judged=..., not both."
            raise InputError(msg)
        frame = read_judged(judged, columns={**(qrels_columns or {}), **(run_columns or {})})
        frame = _check_dtypes(frame, "judged", _describe(judged))
        run_lf = frame.filter(pl.col(S).is_not_null())
        qrels_lf = frame.filter(pl.col(REL).is_not_null())
        run_where = qrels_where = _describe(judged)
    else:
        if qrels is None or run is None:
            msg = "evaluate needs qrels and a run (or a judged frame: evaluate(judged=df, ...))."
            raise InputError(msg)
        qrels_lf = _check_dtypes(read_qrels(qrels, columns=qrels_columns), "qrels", _describe(qrels))
        run_lf, run_where = _runs_input(run, run_columns)
        run_lf = _check_dtypes(run_lf, "run", run_where)
        qrels_where = _describe(qrels)
    run_lf, qrels_lf = _align_ids(run_lf, qrels_lf)
    names = run_lf.collect_schema().names()
    keys = ["run"] if "run" in names else []
    for col in by or ():
        if col not in names:
            raise InputError.missing_columns("run", [col], names, run_where)
        if col not in keys:
            keys.append(col)
    if opts.ties == "input":
        run_lf = run_lf.with_row_index("_order")
    if REL in qrels_lf.collect_schema() and qrels_lf.collect_schema()[REL] != pl.Int64:
        qrels_lf = qrels_lf.with_columns(pl.col(REL).cast(pl.Int64))
    prep = Prepared(run_lf, qrels_lf, keys, parsed, opts, run_where, qrels_where)
    if validate:
        _validate(prep)
    return prep


def per_query_wide(prep: Prepared, *, warn: bool = True) -> pl.DataFrame:
    """Collect the per-query frame (one column per measure) for the evaluated queries."""
    qrels_keys = [k for k in prep.keys if k in prep.qrels.collect_schema().names()]
    plan = per_query_plan(prep.run, prep.qrels, prep.measures, prep.keys, prep.opts, qrels_keys)
    wide = plan.collect()
    only_run = wide.filter(~pl.col(HAS_QRELS)).select(*prep.keys, Q).unique().height
    only_qrels = wide.filter(pl.col(HAS_QRELS) & ~pl.col(HAS_RUN))
    if warn and only_qrels.height:
        fate = "scored 0 (complete=True)" if prep.opts.complete else (
            "skipped; pass complete=True (trec_eval -c) to score them 0"
        )
        warnings.warn(
            f"{only_qrels.height} judged quer{'y is' if only_qrels.height == 1 else 'ies are'} "
            f"missing from the run ({fate}), e.g. {only_qrels[Q][0]!r}.",
            RankframeWarning,
            stacklevel=3,
        )
    if warn and only_run:
        warnings.warn(
            f"{only_run} run quer{'y has' if only_run == 1 else 'ies have'} no judgments and "
            "{'is' if only_run == 1 else 'are'} ignored.".replace(
                "{'is' if only_run == 1 else 'are'}", "is" if only_run == 1 else "are"
            ),
            RankframeWarning,
            stacklevel=3,
        )
    keep = pl.col(HAS_QRELS) & (pl.col(HAS_RUN) | pl.lit(prep.opts.complete))
    return wide.filter(keep).drop(HAS_RUN, HAS_QRELS).sort([*prep.keys, Q], nulls_last=True)


def aggregate(wide: pl.DataFrame, measures: list[Measure], keys: list[str]) -> pl.DataFrame:
    """Aggregate a wide per-query frame across queries (mean, sum or geometric mean)."""
    exprs = []
    for m in measures:
        col = pl.col(repr(m))
        if m.AGGREGATE == "sum":
            e = col.sum().cast(pl.Float64)
        elif m.AGGREGATE == "gmean":
            e = col.clip(lower_bound=MIN_GEO_MEAN).log().mean().exp()
        elif m.AGGREGATE == "none":
            continue
        else:
            e = col.mean()
        exprs.append(e.alias(repr(m)))
    if keys:
        out = wide.group_by(keys, maintain_order=True).agg(exprs).sort(keys, nulls_last=True)
    else:
        out = wide.select(exprs) if wide.height else pl.DataFrame(
            {repr(m): [math.nan] for m in measures if m.AGGREGATE != "none"}
        )
    return out


def _long(wide: pl.DataFrame, measures: list[Measure], index: list[str]) -> pl.DataFrame:
    names = [repr(m) for m in measures if m.DTYPE == pl.Float64]
    order = {n: i for i, n in enumerate(names)}
    long = wide.select(*index, *[pl.col(n).cast(pl.Float64) for n in names]).unpivot(
        index=index, on=names, variable_name="measure", value_name="value"
    )
    long = long.with_columns(pl.col("measure").replace_strict(order).alias("_m"))
    return long.sort([*index, "_m"], nulls_last=True).drop("_m")


def evaluate(
    qrels: Source | None = None,
    run: Source | None = None,
    measures: MeasureSpec | Iterable[MeasureSpec] = ("nDCG@10",),
    *,
    judged: Source | None = None,
    per_query: bool = False,
    by: Sequence[str] | None = None,
    complete: bool = False,
    depth: int | None = None,
    relevance_level: int = 1,
    ties: str = "trec_eval",
    score_dtype: str = "float64",
    judged_only: bool = False,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """Evaluate one or several runs against judgments.

    Parameters
    ----------
    qrels
        Judgments: a path (TREC qrels, Parquet, CSV/TSV...), a Polars/pandas/Arrow frame with
        ``query_id, doc_id, relevance`` (well-known names such as ``qid``, ``docno``, ``rel``
        are recognised; others via ``qrels_columns``).
    run
        A run (path or frame with ``query_id, doc_id, score``), or several: a list of sources or
        a dict ``{name: source}``; a frame with a ``run`` column holds several runs at once.
    measures
        Measure names in ir_measures (``nDCG@10``, ``P(rel=2)@5``), trec_eval (``ndcg_cut.10``,
        ``P_5``, ``official``) or ranx (``ndcg@10``) syntax, or measure objects.
    judged
        Instead of ``qrels`` and ``run``: one frame holding ``score`` and ``relevance``.
    per_query
        Return one row per (run, breakdowns..., query, measure) instead of aggregates.
    by
        Breakdown columns of the run (e.g. ``["date", "locale"]``): evaluated and aggregated
        separately.
    complete
        Score queries of the qrels that are missing from the run as 0 (trec_eval ``-c``).
    depth
        Keep only the top ``depth`` documents of each query after ordering (``-M``).
    relevance_level
        Minimum grade counted as relevant by binary measures (``-l``).
    ties
        ``"trec_eval"``: score descending, then doc id descending in byte order (default);
        ``"input"``: score descending, then the order of the input rows.
    score_dtype
        ``"float64"`` (trec_eval 10) or ``"float32"`` (trec_eval 9 / pytrec_eval, which store
        scores as float32, so that nearby scores tie).
    judged_only
        Drop unjudged documents from every ranking before evaluating (trec_eval ``-J``).
    qrels_columns, run_columns
        Column mappings, e.g. ``{"query_id": "qid", "score": "sim"}``.

    Returns
    -------
    polars.DataFrame
        ``[run, breakdowns...,] measure, value`` (Float64), or with ``per_query=True``
        ``[run, breakdowns...,] query_id, measure, value``. ``measure`` holds canonical names.

    Notes
    -----
    Queries in both the qrels and the run are evaluated; run queries without judgments are
    ignored, qrels queries without results are skipped unless ``complete`` (a warning gives the
    counts). Aggregates are arithmetic means over evaluated queries, sums for counts, geometric
    means (floored at 1e-5) for ``GMAP``-like measures.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
    ...                       "relevance": [1, 0, 2]})
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "d", "c"],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> rf.evaluate(qrels, run, ["P@1", "RR"])
    shape: (2, 2)
    ┌─────────┬───────┐
    │ measure ┆ value │
    │ ---     ┆ ---   │
    │ str     ┆ f64   │
    ╞═════════╪═══════╡
    │ P@1     ┆ 0.5   │
    │ RR      ┆ 0.75  │
    └─────────┴───────┘
    """
    prep = prepare(
        qrels, run, measures, judged=judged, by=by, qrels_columns=qrels_columns,
        run_columns=run_columns, complete=complete, depth=depth,
        relevance_level=relevance_level, ties=ties, score_dtype=score_dtype,
        judged_only=judged_only,
    )
    wide = per_query_wide(prep)
    if per_query:
        return _long(wide, prep.measures, [*prep.keys, Q])
    return _long(aggregate(wide, prep.measures, prep.keys), prep.measures, prep.keys)


def explain(
    qrels: Source,
    run: Source,
    measures: MeasureSpec | Iterable[MeasureSpec],
    **options: Any,
) -> str:
    """Return the optimised lazy plan that :func:`evaluate` runs for the per-query values.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    >>> run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    >>> "AGGREGATE" in rf.explain(qrels, run, ["AP"])
    True
    """
    prep = prepare(qrels, run, measures, validate=False, **options)
    qrels_keys = [k for k in prep.keys if k in prep.qrels.collect_schema().names()]
    return per_query_plan(
        prep.run, prep.qrels, prep.measures, prep.keys, prep.opts, qrels_keys
    ).explain()
