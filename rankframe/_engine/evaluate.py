"""The public entry point: ``evaluate`` (and ``explain``), built on the planner."""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

from rankframe._engine.pairs import preference_pairs
from rankframe._engine.plan import (
    BAD_QRELS,
    BAD_RUN,
    CHECKS,
    HAS_QRELS,
    HAS_RUN,
    N_RET,
    REL,
    D,
    Options,
    Q,
    S,
    keeps_every_row,
    per_query_plan,
)
from rankframe._errors import InputError, at, warn
from rankframe._io.prefs import read_prefs_source
from rankframe._io.readers import LINE, Source, describe, read_judged, read_qrels, read_run
from rankframe._measures import MIN_GEO_MEAN, Measure
from rankframe._measures._names import parse_measures

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
    #: For several runs: run name -> the source it came from (for error messages).
    run_sources: dict[str, str] = field(default_factory=dict)
    #: Whether qrels were given (else a target column judges the run).
    qrels_given: bool = True
    #: Preference pairs ``query_id, _a, _b`` when they are the target (``prefs=...``).
    pairs: pl.LazyFrame | None = None
    #: Every (run, breakdown) group, when ``run`` is one query partition of the evaluation.
    groups: pl.LazyFrame | None = None
    #: The name of the run when it is one of several evaluated apart (a ``run`` column is then
    #: added to its per-query rows).
    run_name: str | None = None
    #: Shared by runs evaluated apart against the same judgments: the judgment-side per-query
    #: frames of the hits plan, computed for the first run only (see :func:`hits_plan`).
    judgment_cache: dict | None = None


def _describe(source: Any, role: str = "input") -> str:
    return describe(source, role)


def _named_runs(run: Any) -> list[tuple[str, Any]] | None:
    """``(name, source)`` of each run of a dict or list of runs; ``None`` for a single run."""
    if isinstance(run, Mapping):
        return [(str(k), v) for k, v in run.items()]
    if not isinstance(run, list | tuple):
        return None
    items = []
    for i, src in enumerate(run):
        name = Path(os.fspath(src)).name if isinstance(src, str | os.PathLike) else f"run_{i}"
        items.append((name, src))
    names = [n for n, _ in items]
    if len(set(names)) != len(names):
        items = [(f"{n}#{i}", s) for i, (n, s) in enumerate(items)]
    return items


def _read_run(source: Source, columns: Mapping[str, str] | None) -> pl.LazyFrame:
    """One run, its columns mapped and their dtypes checked (TREC text is parsed here)."""
    return _check_dtypes(read_run(source, columns=columns), "run", _describe(source, "run"))


def _runs_input(
    run: Any, columns: Mapping[str, str] | None
) -> tuple[pl.LazyFrame, str, dict[str, str]]:
    """Read one run, or several (a list or a dict name -> source) stacked with a ``run`` column.

    Returns the frame, a description of the source(s) and, for several runs, run name -> source.
    """
    items = _named_runs(run)
    if items is None:
        where = _describe(run, "run")
        return _check_dtypes(read_run(run, columns=columns), "run", where), where, {}
    if not items:
        msg = "The run list is empty; pass at least one run (a path or a frame)."
        raise InputError(msg)
    frames = []
    for name, src in items:
        lf = _read_run(src, columns)
        tag = pl.lit(name)
        if "run" in lf.collect_schema().names():  # a frame of several runs: keep their names
            tag = pl.concat_str([tag, pl.lit("/"), pl.col("run").cast(pl.String)])
        frames.append(lf.with_columns(tag.alias("run")))
    sources = {name: _describe(src, "run") for name, src in items}
    stacked = pl.concat(_align_ids(*frames), how="diagonal_relaxed")
    return stacked, ", ".join(sources.values()), sources


def _first_unparsable(lf: pl.LazyFrame, col: str, dtype: pl.DataType) -> dict[str, Any] | None:
    """The first row whose ``col`` does not convert to ``dtype`` (with its line if known)."""
    pos = [LINE] if LINE in lf.collect_schema().names() else []
    bad = (
        lf.filter(pl.col(col).is_not_null() & pl.col(col).cast(dtype, strict=False).is_null())
        .select(*pos, col)
        .head(1)
        .collect()
    )
    return bad.row(0, named=True) if bad.height else None


def _wrong_dtype(lf: pl.LazyFrame, role: str, where: str, col: str, dt: pl.DataType) -> InputError:
    kind = {S: "scores must be numbers", REL: "grades must be integers"}.get(
        col, "ids must be strings or integers"
    )
    target = {S: pl.Float64, REL: pl.Int64}.get(col, pl.String)
    detail = ""
    if dt == pl.String and col in (S, REL):
        row = _first_unparsable(lf, col, pl.Float64)
        if row is not None:
            place = f" ({at(where, row[LINE])})" if row.get(LINE) is not None else ""
            detail = f" First value that is not a number: {row[col]!r}{place}."
        else:
            detail = " Every value looks like a number stored as text."
    elif dt == pl.Null:
        detail = " The column holds only nulls."
    msg = (
        f"The {role} column {col!r} in {where} has dtype {dt}; {kind}.{detail} Map the right "
        f"column ({role}_columns={{{col!r}: ...}}) or cast it, e.g. pl.col({col!r}).cast(pl.{target})."
    )
    return InputError(msg)


def _check_dtypes(lf: pl.LazyFrame, role: str, where: str) -> pl.LazyFrame:
    """Check the dtypes of the canonical columns; cast categorical ids to strings."""
    schema = lf.collect_schema()
    casts = []
    for col in (Q, D):
        if col not in schema:
            continue
        dt = schema[col]
        if isinstance(dt, pl.Categorical | pl.Enum):
            casts.append(pl.col(col).cast(pl.String))
        elif not (dt == pl.String or dt.is_integer()):
            raise _wrong_dtype(lf, role, where, col, dt)
    if S in schema and not (schema[S].is_numeric() and schema[S] != pl.Boolean):
        raise _wrong_dtype(lf, role, where, S, schema[S])
    if REL in schema:
        dt = schema[REL]
        if not (dt.is_integer() or dt.is_float() or dt == pl.Boolean):
            raise _wrong_dtype(lf, role, where, REL, dt)
    return lf.with_columns(casts) if casts else lf


def _align_ids(*frames: pl.LazyFrame) -> tuple[pl.LazyFrame, ...]:
    """Give ids one dtype in every frame: Int64 if all are integers, else String.

    Integers stay integers (faster to rank and join); a String on any side turns the others'
    integers into their decimal text, which is also what trec_eval compares.
    """
    schemas = [f.collect_schema() for f in frames]
    out = list(frames)
    for col in (Q, D):
        dtypes = [s[col] for s in schemas if col in s]
        if len(set(dtypes)) <= 1:
            continue
        ints = all(dt.is_integer() for dt in dtypes) and pl.UInt64 not in dtypes
        target = pl.Int64 if ints else pl.String
        out = [
            f.with_columns(pl.col(col).cast(target)) if col in s and s[col] != target else f
            for f, s in zip(out, schemas, strict=True)
        ]
    return tuple(out)


def _place(row: Mapping[str, Any], where: str, sources: Mapping[str, str], column: str) -> str:
    """Where a bad row is: the file and line for text inputs, else the source and the column."""
    if "run" in row and row["run"] in sources:
        where = f"{sources[row['run']]} (run {row['run']!r})"
    if row.get(LINE) is not None:
        return at(where, row[LINE])
    return f"{where}, column {column!r}"


def _bad_rows_message(row: Mapping[str, Any], place: str, role: str) -> str:
    ids = f"query {row[Q]!r}, doc {row[D]!r}"
    for col, what in ((Q, "query id"), (D, "doc id")):
        if row[col] is None:
            other = f"doc {row[D]!r}" if col == Q else f"query {row[Q]!r}"
            return (
                f"{place}: the {what} is null ({other}). Ids must not be null; drop such rows "
                "first, e.g. df.drop_nulls(['query_id', 'doc_id'])."
            )
    if role == "qrels":
        return (
            f"{place}: the relevance grade of {ids} is null. Drop such rows or fill them "
            "(pl.col('relevance').fill_null(0))."
        )
    if row[S] is None:
        return (
            f"{place}: the score of {ids} is null. Scores must be finite numbers; drop such rows "
            "(in a judged frame a null score means 'not retrieved')."
        )
    return (
        f"{place}: the score of {ids} is {row[S]!r}, which is not a finite number, so the "
        "ranking is undefined. Replace it (e.g. pl.col('score').fill_nan(...)) or drop the row."
    )


def _duplicates_message(frame: pl.DataFrame, where: str, sources: Mapping[str, str], role: str) -> str:
    first = frame.row(0, named=True)
    if "run" in first and first["run"] in sources:
        where = f"{sources[first['run']]} (run {first['run']!r})"
    parts = []
    for r in frame.iter_rows(named=True):
        lines = f" (lines {', '.join(map(str, r[LINE]))})" if r.get(LINE) is not None else ""
        parts.append(f"({r[Q]!r}, {r[D]!r}) x{r['_n']}{lines}")
    col = "score" if role == "run" else "relevance"
    return (
        f"{where}: duplicate (query, doc) rows in the {role}: {'; '.join(parts)}. trec_eval refuses "
        "them too; keep one row per (query, doc), e.g. "
        f"df.group_by('query_id', 'doc_id').agg(pl.col({col!r}).max())."
    )


def _first_duplicates(lf: pl.LazyFrame, keys: list[str]) -> pl.DataFrame:
    """The first three duplicated (query, doc) pairs, in file order with their lines if known."""
    on = [*keys, Q, D]
    dups = lf.group_by(on).agg(pl.len().alias("_n")).filter(pl.col("_n") > 1)
    if LINE not in lf.collect_schema().names():
        return dups.sort(on, nulls_last=True).head(3).collect()
    return (
        lf.select(*on, LINE)
        .join(dups, on=on, how="semi", nulls_equal=True)
        .group_by(on)
        .agg(pl.len().alias("_n"), pl.col(LINE).sort().head(3))
        .sort(pl.col(LINE).list.first())
        .head(3)
        .collect()
    )


def _collect_checks(checks: list[pl.LazyFrame], role: str, where: str) -> list[pl.DataFrame]:
    try:
        return pl.collect_all(checks)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError.unreadable(role, where, exc) from exc


def _bad_run_row(prep: Prepared) -> pl.Expr:
    """True for a run row :func:`_validate` refuses: a null id or score, a non-finite score/target."""
    bad = (
        pl.col(Q).is_null() | pl.col(D).is_null() | pl.col(S).is_null()
        | ~pl.col(S).cast(pl.Float64).is_finite()
    )
    if prep.opts.target is not None:
        bad = bad | ~pl.col(prep.opts.target).cast(pl.Float64).is_finite().fill_null(False)
    return bad


def _integral(grade: pl.Expr) -> pl.Expr:
    """A float grade that is a whole number (NaN and infinities are not: NaN == NaN in Polars)."""
    return grade.is_finite() & (grade == grade.round())


def _bad_judgment(prep: Prepared) -> pl.Expr:
    """True for a judgment :func:`_validate` refuses: a null id or grade, a fractional grade."""
    bad = pl.col(Q).is_null() | pl.col(D).is_null() | pl.col(REL).is_null()
    if prep.qrels.collect_schema()[REL].is_float():
        bad = bad | ~_integral(pl.col(REL)).fill_null(True)
    return bad


def _validate(prep: Prepared) -> None:
    """The cheap sanity checks, in one pass per input: nulls, non-finite scores, duplicates."""
    run_cols = prep.run.collect_schema().names()
    qrels_cols = prep.qrels.collect_schema().names()
    rpos = [LINE] if LINE in run_cols else []
    qpos = [LINE] if LINE in qrels_cols else []
    qkeys = [k for k in prep.keys if k in qrels_cols]

    def dups(lf: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
        # A screen: distinct 64-bit hashes of (keys, query, doc) vs rows, ~3x cheaper than a
        # group_by on string ids. Duplicates (or, rarely, a hash collision) are then looked up
        # exactly, with their lines, by _first_duplicates.
        return lf.select(
            (pl.struct(*keys, Q, D).hash().n_unique() < pl.len()).alias("_maybe_dups")
        )

    bad_score = _bad_run_row(prep)
    target = prep.opts.target
    # one scan of the run: the duplicate screen and whether any row is bad
    screen = prep.run.select(
        (pl.struct(*prep.keys, Q, D).hash().n_unique() < pl.len()).alias("_maybe_dups"),
        bad_score.any().alias("_bad"),
    )
    run_checks = [screen]
    qrels_checks = [
        prep.qrels.filter(pl.col(Q).is_null() | pl.col(D).is_null() | pl.col(REL).is_null())
        .select(*qkeys, Q, D, REL, *qpos).head(1),
        dups(prep.qrels, qkeys),
    ]
    if prep.qrels.collect_schema()[REL].is_float():
        qrels_checks.append(
            prep.qrels.filter(~_integral(pl.col(REL))).select(Q, D, REL, *qpos).head(1)
        )
    try:
        run_screen, bad_qrels, dup_qrels, *frac = pl.collect_all(run_checks + qrels_checks)
    except (pl.exceptions.PolarsError, OSError):  # find out which input failed, then say so
        (run_screen,) = _collect_checks(run_checks, "run", prep.run_where)
        bad_qrels, dup_qrels, *frac = _collect_checks(qrels_checks, "qrels", prep.qrels_where)
    dup_run = run_screen.select("_maybe_dups")
    bad_run = pl.DataFrame()
    if run_screen["_bad"].item():  # rare: find the first bad row, with its line
        tcol = [target] if target is not None and target not in (Q, D, S) else []
        bad_run = prep.run.filter(bad_score).select(*prep.keys, Q, D, S, *tcol, *rpos).head(1).collect()
    if bad_run.height:
        row = bad_run.row(0, named=True)
        col = Q if row[Q] is None else D if row[D] is None else S
        if target is not None and col == S and row[S] is not None and math.isfinite(row[S]):
            place = _place(row, prep.run_where, prep.run_sources, target)
            msg = (
                f"{place}: the target {target!r} of query {row[Q]!r}, doc {row[D]!r} is "
                f"{row[target]!r}, not a finite number. Every ranked row needs a target value; "
                f"fill or drop such rows (pl.col({target!r}).fill_null(...))."
            )
            raise InputError(msg)
        place = _place(row, prep.run_where, prep.run_sources, col)
        raise InputError(_bad_rows_message(row, place, "run"))
    if bad_qrels.height:
        row = bad_qrels.row(0, named=True)
        col = Q if row[Q] is None else D if row[D] is None else REL
        place = _place(row, prep.qrels_where, {}, col)
        raise InputError(_bad_rows_message(row, place, "qrels"))
    for lf, screen, keys, where, sources, role in (
        (prep.run, dup_run, prep.keys, prep.run_where, prep.run_sources, "run"),
        (prep.qrels, dup_qrels, qkeys, prep.qrels_where, {}, "qrels"),
    ):
        if screen.item():
            found = _first_duplicates(lf, keys)
            if found.height:
                raise InputError(_duplicates_message(found, where, sources, role))
    if frac and frac[0].height:
        row = frac[0].row(0, named=True)
        msg = (
            f"{_place(row, prep.qrels_where, {}, REL)}: the relevance grade {row[REL]!r} of "
            f"({row[Q]!r}, {row[D]!r}) is not an integer. Grades must be integers; round or map "
            "them first (pl.col('relevance').round().cast(pl.Int64))."
        )
        raise InputError(msg)


def _check_target(run: pl.LazyFrame, target: str, where: str) -> None:
    schema = run.collect_schema()
    if target not in schema:
        msg = (
            f"The target column {target!r} (target=...) is not in the run ({where}). "
            f"Available columns: {', '.join(map(repr, schema.names()))}."
        )
        raise InputError(msg)
    if not (schema[target].is_numeric() or schema[target] == pl.Boolean):
        msg = (
            f"The target column {target!r} of {where} has type {schema[target]}; it must be "
            f"numeric (a score or a rank). Cast it first, e.g. pl.col({target!r}).cast(pl.Float64)."
        )
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
    prefs: Source | None = None,
    cast_grades: bool = True,
    **options: Any,
) -> Prepared:
    """Read, map, align and validate inputs; parse measures and options.

    ``cast_grades=False`` leaves the grades' dtype for a later :func:`_validate` (which refuses
    fractional grades) and :func:`_cast_grades`.
    """
    opts = Options(**options)
    parsed = parse_measures(measures)
    sources: dict[str, str] = {}
    prefs_lf = None
    if prefs is not None:
        if qrels is not None or judged is not None or opts.target is not None:
            msg = (
                "prefs=... is the target of the comparison; pass it instead of qrels, a judged "
                "frame or a target column, not with them."
            )
            raise InputError(msg)
        if run is None:
            msg = "evaluate(prefs=...) needs a run to compare with the preferences."
            raise InputError(msg)
        prefs_lf = read_prefs_source(prefs)
        run_lf, run_where, sources = _runs_input(run, run_columns)
        qrels_where = _describe(prefs, "prefs")
        qrels_lf = prefs_lf.select(Q, D).unique().with_columns(pl.lit(0, pl.Int64).alias(REL))
    elif judged is not None:
        if qrels is not None or run is not None:
            msg = "Pass either qrels and run, or judged=..., not both."
            raise InputError(msg)
        run_where = qrels_where = _describe(judged, "judged")
        frame = read_judged(judged, columns={**(qrels_columns or {}), **(run_columns or {})})
        frame = _check_dtypes(frame, "judged", run_where)
        run_lf = frame.filter(pl.col(S).is_not_null())
        qrels_lf = frame.filter(pl.col(REL).is_not_null())
    else:
        if run is None or (qrels is None and opts.target is None):
            msg = (
                "evaluate needs qrels and a run (or a judged frame: evaluate(judged=df, ...), "
                "or a run with a target column: evaluate(run=df, target='column', ...))."
            )
            raise InputError(msg)
        run_lf, run_where, sources = _runs_input(run, run_columns)
        if qrels is None:
            qrels_where = "no qrels (target column)"
            schema = run_lf.collect_schema()
            qrels_lf = pl.LazyFrame(schema={Q: schema[Q], D: schema[D], REL: pl.Int64})
        else:
            qrels_where = _describe(qrels, "qrels")
            qrels_lf = _check_dtypes(read_qrels(qrels, columns=qrels_columns), "qrels", qrels_where)
    if prefs_lf is not None:
        run_lf, qrels_lf, prefs_lf = _align_ids(run_lf, qrels_lf, prefs_lf)
    else:
        run_lf, qrels_lf = _align_ids(run_lf, qrels_lf)
    names = run_lf.collect_schema().names()
    keys = ["run"] if "run" in names else []
    for col in by or ():
        if col not in names:
            msg = (
                f"The breakdown column {col!r} (by=...) is not in the run ({run_where}). "
                f"Available columns: {', '.join(map(repr, names))}."
            )
            raise InputError(msg)
        if col not in keys:
            keys.append(col)
    if opts.target is not None:
        _check_target(run_lf, opts.target, run_where)
    if opts.ties == "input":
        run_lf = run_lf.with_row_index("_order")
    prep = Prepared(
        run_lf, qrels_lf, keys, parsed, opts, run_where, qrels_where, sources,
        qrels_given=qrels is not None or judged is not None or prefs is not None,
        pairs=None if prefs_lf is None else preference_pairs(prefs_lf),
    )
    if validate:
        _validate(prep)  # before the cast below, so that fractional grades are caught
    return _cast_grades(prep) if cast_grades else prep


def _cast_grades(prep: Prepared) -> Prepared:
    """Grades as Int64 (after validation: fractional grades are refused there)."""
    if prep.qrels.collect_schema()[REL] != pl.Int64:
        prep.qrels = prep.qrels.with_columns(pl.col(REL).cast(pl.Int64))
    return prep


def _coverage(prep: Prepared, wide: pl.DataFrame, qrels_keys: list[str]) -> tuple[pl.DataFrame, int]:
    """Judged (group, query) pairs missing from the run, and the number of unjudged run queries."""
    keys = prep.keys
    run_only = wide.filter(~pl.col(HAS_QRELS)).select(Q).n_unique()
    if not keys or prep.opts.complete or len(qrels_keys) == len(keys):
        # The full join kept the judged queries that no run row matched.
        missing = wide.filter(pl.col(HAS_QRELS) & ~pl.col(HAS_RUN)).select(*keys, Q)
        return missing, run_only
    # Judgments are replicated only into the groups that hold the query: compare with the qrels.
    judged = prep.qrels.select(*qrels_keys, Q).unique().collect()
    groups = wide.select(*keys).unique()
    if qrels_keys:
        expected = groups.join(judged, on=qrels_keys, how="inner", nulls_equal=True)
    else:
        expected = groups.join(judged, how="cross")
    present = wide.filter(pl.col(HAS_RUN)).select(*keys, Q)
    missing = expected.join(present, on=[*keys, Q], how="anti", nulls_equal=True)
    return missing.select(*keys, Q), run_only


def _qrels_keys(prep: Prepared) -> list[str]:
    return [k for k in prep.keys if k in prep.qrels.collect_schema().names()]


def _raw_wide(prep: Prepared, *, validate: bool = False) -> pl.DataFrame:
    """Collect the per-query plan: every (group, query) of the full join, with its flags.

    ``validate``: ``prep`` holds inputs not validated yet (grades not cast): check them first.
    (Collecting the checks and the plan together, sharing the scans, was measured: no faster,
    and a higher peak memory.)
    """
    qrels_keys = _qrels_keys(prep)
    opts = prep.opts
    in_plan = validate and keeps_every_row(
        opts, prep.keys, qrels_keys, prep.pairs, prep.measures
    )
    unchecked = prep
    if in_plan:
        # The checks ride in the plan's own scans and group_by (a flag per input row, a
        # duplicate screen per query): ~1 s less at 10M rows than scanning the inputs for them
        # first. Only when a flag is up are the inputs scanned for the exact error.
        prep = replace(prep)
        prep.run = prep.run.with_columns(_bad_run_row(prep).alias(BAD_RUN))
        prep.qrels = prep.qrels.with_columns(_bad_judgment(prep).alias(BAD_QRELS))
        prep = _cast_grades(prep)
    elif validate:
        _validate(prep)
        prep = _cast_grades(replace(prep))
    plan = per_query_plan(
        prep.run, prep.qrels, prep.measures, prep.keys, opts, qrels_keys,
        qrels_given=prep.qrels_given, pairs=prep.pairs, groups=prep.groups, checks=in_plan,
        judgment_cache=prep.judgment_cache,
    )
    try:
        try:
            raw = plan.collect()
        except pl.exceptions.PanicException:  # pragma: no cover - depends on the Polars version
            # Polars 2.1's streaming group_by panics on some list expressions over zero rows
            # (e.g. a judged-only evaluation whose judgments are all filtered out); the
            # in-memory engine computes the same result.
            raw = plan.collect(engine="in-memory")
    except (pl.exceptions.PolarsError, OSError):
        if in_plan:  # bad input may make the plan fail (a NaN grade cast): say what is wrong
            _validate(unchecked)
        raise
    if in_plan:
        if raw.select(pl.any_horizontal(pl.col(CHECKS).fill_null(False).any())).item():
            _validate(unchecked)  # raises the exact error; passes on a mere hash collision
        raw = raw.drop(CHECKS)
    return raw


def _evaluated(prep: Prepared, raw: pl.DataFrame) -> pl.DataFrame:
    """The evaluated rows of a raw per-query frame, flags dropped, sorted."""
    keep = pl.col(HAS_QRELS) & (pl.col(HAS_RUN) | pl.lit(prep.opts.complete))
    return raw.filter(keep).drop(HAS_RUN, HAS_QRELS, N_RET).sort([*prep.keys, Q], nulls_last=True)


def _warn_coverage(prep: Prepared, raw: pl.DataFrame) -> None:
    """Warn of judged queries missing from the run and of run queries without judgments."""
    missing, run_only = _coverage(prep, raw, _qrels_keys(prep))
    if missing.height:
        n = missing.select(Q).n_unique()
        fate = "scored 0 (complete=True)" if prep.opts.complete else (
            "skipped; pass complete=True (trec_eval -c) to score them 0"
        )
        first = missing.sort([*prep.keys, Q], nulls_last=True).row(0, named=True)
        example = f"query {first[Q]!r}" + (
            " in " + ", ".join(f"{k} {first[k]!r}" for k in prep.keys) if prep.keys else ""
        )
        scope = "the run" if not prep.keys else (
            f"some ({', '.join(prep.keys)}) groups: {missing.height} (group, query) pairs"
        )
        none_match = "" if raw.filter(pl.col(HAS_QRELS) & pl.col(HAS_RUN)).height else (
            " No judged query has results: check that the query ids of the qrels and the "
            "run match (e.g. '001' vs 1, or a prefix)."
        )
        warn(
            f"{n} judged quer{'y is' if n == 1 else 'ies are'} missing from {scope} "
            f"({fate}), e.g. {example}.{none_match}"
        )
    if run_only:
        warn(
            f"{run_only} run quer{'y has' if run_only == 1 else 'ies have'} no judgments and "
            f"{'is' if run_only == 1 else 'are'} ignored."
        )


def report_progress(label: str, raw: pl.DataFrame, seconds: float, total: float | None = None) -> None:
    """One progress line on stderr: the ranked rows and queries of a collected plan, its time."""
    rows = raw[N_RET].sum()
    queries = raw.filter(pl.col(HAS_RUN)).height
    overall = "" if total is None else f" (total {total:.1f} s)"
    print(
        f"rankframe: {label}: {rows:,} ranked rows, {queries:,} queries, {seconds:.1f} s{overall}",
        file=sys.stderr, flush=True,
    )


def per_query_wide(
    prep: Prepared, *, warn: bool = True, validate: bool = False, progress: bool = False
) -> pl.DataFrame:
    """Collect the per-query frame (one column per measure) for the evaluated queries.

    ``validate``: ``prep`` was prepared with ``validate=False, cast_grades=False``: validate
    it first (see :func:`_raw_wide`). ``progress``: report the plan when it is done.
    """
    start = time.perf_counter()
    raw = _raw_wide(prep, validate=validate)
    if progress:
        report_progress("one plan", raw, time.perf_counter() - start)
    if warn:
        _warn_coverage(prep, raw)
    return _evaluated(prep, raw)


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
    target: str | None = None,
    target_order: str = "desc",
    prefs: Source | None = None,
    partitions: int | str | None = None,
    progress: bool = False,
    output: str | os.PathLike[str] | None = None,
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
        ``"input"``: score descending, then the order of the input rows;
        ``"average"``: the expected value over every order of the tied documents (McSherry &
        Najork 2008, as scikit-learn's ``ndcg_score``), for the measures that are rank-weighted
        sums or order-free (P, R, nDCG, DCG-like hits, set measures, counts); others raise.
    score_dtype
        ``"float64"`` (trec_eval 10) or ``"float32"`` (trec_eval 9 / pytrec_eval, which store
        scores as float32, so that nearby scores tie).
    judged_only
        Drop unjudged documents from every ranking before evaluating (trec_eval ``-J``).
    target
        A column of the run (or judged frame) holding the *target ranking* that the measures
        comparing two rankings (``KendallTau``, ``SpearmanRho``, ``Footrule``, ``CIndex``...)
        compare the scores with: a second score, or a rank with ``target_order="asc"``. Without
        it their target is the relevance grades (items of one grade are tied). With it the
        qrels may be omitted: queries with target values are then the evaluated ones.
    target_order
        ``"desc"``: larger target values rank first (default); ``"asc"``: smaller first.
    prefs
        Instead of qrels: explicit preference pairs as the target, a trec_eval ``prefs`` file
        (``qid jg jsg docno rel_level``) or a table with those columns (``query_id, jg, jsg,
        doc_id, rel_level``; the groups optional). Within a judgment subgroup a document is
        preferred to those with a lower level (closed transitively across the subgroups of a
        group, as in trec_eval). The items are the documents the preferences name; the
        measures defined on a set of pairs accept it (``KendallDist``, ``Gamma``,
        ``SomersD``, ``CIndex``/``PairAcc``, ``PrefJaccard``). For trec_eval's own preference
        measures use ``rankframe trec_eval -R prefs``.
    partitions
        Evaluate query partition by query partition, so that peak memory is bounded by one
        partition instead of the inputs (the numbers are the same): ``N`` hash buckets of the
        query ids (each re-scans the inputs with a filter: N scans), or ``"files"`` when the
        run is a glob or folder of Parquet files in which no query spans two files (one scan).
        Inputs read into memory (TREC text) are not bounded by it.
    progress
        Report each partition or run evaluated apart, or else the one plan when it is done
        (ranked rows, queries, seconds), on stderr; quiet by default.
    output
        A Parquet file to write the per-query values to as they are computed, in the
        ``per_query=True`` layout (with ``partitions``, rows are grouped by partition and
        sorted within each).
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

    Runs given apart (a list or dict) are evaluated one plan per run against judgments read
    once; a frame with a ``run`` column is one plan. Both give the numbers of evaluating each
    run alone, bit for bit (per-query sums are taken in a fixed order).

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
    options: dict[str, Any] = {
        "complete": complete, "depth": depth, "relevance_level": relevance_level, "ties": ties,
        "score_dtype": score_dtype, "judged_only": judged_only, "target": target,
        "target_order": target_order,
    }
    named = _named_runs(run) if judged is None else None
    read = None
    if partitions is None and named is not None and len(named) > 1:
        # runs given apart are evaluated apart: read (parse) each once, for both uses below
        read = {name: _read_run(src, run_columns) for name, src in named}
        sources = {name: _describe(src, "run") for name, src in named}
    prep = prepare(
        qrels, run if read is None else read, measures, judged=judged, by=by,
        qrels_columns=qrels_columns, run_columns=run_columns if read is None else None,
        prefs=prefs, validate=False, cast_grades=False, **options,
    )
    by_run = read is not None
    if by_run:
        prep.run_sources, prep.run_where = sources, ", ".join(sources.values())
    if by_run:
        assert read is not None
        # several runs given apart: one plan per run against judgments read once (faster than
        # one plan over the stacked runs, and memory bounded by one run)
        from rankframe._engine.partition import evaluate_runs

        def prepare_run(name: str) -> Prepared:
            part = prepare(
                qrels_once, read[name], prep.measures, by=by, validate=False,
                cast_grades=False, **options,
            )
            part.run_where = f"{sources[name]} (run {name!r})"
            return part

        qrels_once = prep.qrels.collect().lazy()
        wide = evaluate_runs(prep, list(read), prepare_run, progress=progress, output=output)
    elif partitions is None:
        wide = per_query_wide(prep, validate=True, progress=progress)
        if output is not None:
            _long(wide, prep.measures, [*prep.keys, Q]).write_parquet(output)
    else:
        from rankframe._engine.partition import evaluate_parts

        # one named run ({name: path}, as the CLI passes it) keeps its name in each file
        run_name, run_path = None, run
        if isinstance(run, Mapping) and len(run) == 1:
            run_name, run_path = next(iter(run.items()))

        def reprepare(path: str) -> Prepared:
            return prepare(
                prep.qrels, path if run_name is None else {run_name: path}, prep.measures, by=by,
                run_columns=run_columns, validate=False, cast_grades=False, **options,
            )

        wide = evaluate_parts(
            prep, partitions, run=run_path, reprepare=reprepare, progress=progress, output=output
        )
    if per_query:
        return _long(wide, prep.measures, [*prep.keys, Q])
    return _long(aggregate(wide, prep.measures, prep.keys), prep.measures, prep.keys)


def explain(
    qrels: Source | None,
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
    return per_query_plan(
        prep.run, prep.qrels, prep.measures, prep.keys, prep.opts, _qrels_keys(prep),
        qrels_given=prep.qrels_given, pairs=prep.pairs,
    ).explain()
