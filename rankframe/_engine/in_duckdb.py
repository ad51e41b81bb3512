"""``evaluate(..., engine="duckdb")``: the compiled query run in embedded DuckDB.

The inputs are read as ``evaluate`` reads them (:func:`prepare`: column mapping, dtypes, several
runs, breakdowns). Local Parquet paths are then read by DuckDB itself (``read_parquet``), so
that DuckDB streams them and spills to disk past its memory limit; every other input (frames,
TREC text, CSV, tables, and paths in object storage, which Polars reads with the storage
options: DuckDB's own ``httpfs`` would need its credentials set apart and an extension
download) reaches DuckDB as an Arrow table (no copy where Polars holds the data already).

Before the evaluation, the check query (``rankframe.sql.checks``) looks for what ``evaluate``
refuses (null ids, scores or grades, non-finite scores, fractional grades, duplicates): the
first problem is raised as :class:`InputError` with ``evaluate``'s message. A coverage query
gives the (group, query) pairs of the evaluation, from which ``evaluate``'s own warnings are
issued (judged queries missing from the run, run queries without judgments).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rankframe._engine.checks import (
    _bad_rows_message,
    _duplicates_message,
    _fractional_message,
    _place,
    _validate,
)
from rankframe._engine.collect import _warn_coverage
from rankframe._engine.options import HAS_QRELS, HAS_RUN, REL, D, Prepared, Q, S
from rankframe._engine.prepare import MeasureSpec, _named_runs, _qrels_keys, prepare
from rankframe._errors import InputError
from rankframe._io.atomic import atomic_path
from rankframe._io.columns import Source, column_renames, describe
from rankframe._io.readers import _to_lazy
from rankframe._io.storage import scheme
from rankframe._measures import MIN_GEO_MEAN, Measure
from rankframe._sql.build import Inputs, build, quote, with_ctes
from rankframe._sql.checks import checks, coverage
from rankframe._sql.dialects import transpile

#: ``evaluate``'s options that the compiled query does not implement, and their defaults.
UNSUPPORTED = {
    "ties": "trec_eval", "score_dtype": "float64", "target": None, "prefs": None, "partitions": "auto",
    "empty_queries": "zero", "aggregate": "mean", "dedupe": None,
}
#: The order in which ``evaluate`` reports bad input: bad run rows, bad judgments, duplicates.
_ORDER = [
    ("run", "null id", D), ("run", "null score", S), ("run", "non-finite score", S),
    ("qrels", "null id", D), ("qrels", "null grade", REL),
    ("run", "duplicate", None), ("qrels", "duplicate", None), ("qrels", "fractional grade", REL),
]


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
        msg = "engine='duckdb' needs DuckDB: pip install 'rankframe[duckdb]'."
        raise ImportError(msg) from exc
    return duckdb


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _parquet_scan(source: Source, kind: str) -> tuple[str, pl.Schema] | None:
    """``read_parquet(...)`` and the schema of a local Parquet path (file, glob, folder); else None."""
    if not isinstance(source, str | os.PathLike) or scheme(os.fspath(source)) is not None:
        return None  # frames, and paths in object storage: read by Polars, handed over as Arrow
    path = os.fspath(source)
    suffixes = [s.lower() for s in Path(path).suffixes]
    globbed = any(c in path for c in "*?[")
    if not (os.path.isdir(path) or globbed or ".parquet" in suffixes or ".pq" in suffixes):
        return None  # not read by DuckDB (TREC text, CSV...): read once, by rankframe
    lf, fmt = _to_lazy(path, kind)
    if fmt != "parquet":
        return None
    hive = ""
    if os.path.isdir(path):
        path, hive = os.path.join(path, "**", "*.parquet"), ", hive_partitioning = true"
    elif globbed:
        hive = ", hive_partitioning = true"
    return f"read_parquet({_literal(path)}{hive})", lf.collect_schema()


def _select(
    scan: str, schema: pl.Schema, kind: str, needed: tuple[str, ...], mapping: Mapping[str, str] | None,
    where: str, keys: Sequence[str], run: str | None,
) -> str:
    """The canonical columns and the breakdowns of a Parquet scan, mapped as ``evaluate`` maps them.

    ``keys``: the breakdowns other than the run name; ``run``: the SQL of the ``run`` column
    (None: none).
    """
    renames, _ = column_renames(schema.names(), needed, mapping, kind, where)
    actual = {canonical: col for col, canonical in renames.items()}
    cols = []
    for c in needed:
        col = actual.get(c, c)
        if c == REL and schema[col] == pl.Boolean:
            cols.append(f"CAST({quote(col)} AS INTEGER) AS {c}")
        else:
            cols.append(f"{quote(col)} AS {c}")
    cols.extend(quote(k) for k in keys)
    if run is not None:
        cols.append(f"{run} AS run")
    return f"SELECT {', '.join(cols)} FROM {scan}"


def _run_column(name: str | None, code: int | None, schema: pl.Schema) -> str | None:
    """The SQL of one run source's ``run`` column, as ``evaluate`` names its runs.

    A source of several runs (its own ``run`` column) inside a list or dict of runs:
    ``name/inner`` (its rows were one run, and refused as duplicates); else the run's code,
    or its name.
    """
    own = "run" in schema.names()
    if name is None:
        return quote("run") if own else None
    if own:
        return f"{_literal(name + '/')} || CAST({quote('run')} AS VARCHAR)"
    return _literal(name) if code is None else str(code)


def _register(
    con: Any, table: str, kind: str, sources: list[tuple[str | None, Source]] | None,
    frame: pl.LazyFrame, needed: tuple[str, ...], mapping: Mapping[str, str] | None, keys: list[str],
    *, code_runs: bool = False,
) -> list[str | None] | None:
    """``table``: a view over DuckDB's own scans of Parquet sources, else the read frame via Arrow.

    ``code_runs``: the run names go into DuckDB as codes, integers ``0..n-1`` (names hash and
    compare as strings in every window, join and group: 35% more CPU in the evaluation of
    one run at 10M rows), and one run's name not at all (the query then is the one of a run
    passed alone). Returns the run names by code (one name: the run left out), or None
    when the ``run`` column holds the names themselves.
    """
    others = [k for k in keys if k != "run"]
    if sources is not None:
        scans = [_parquet_scan(src, kind) for _, src in sources]
        if all(s is not None for s in scans):
            schemas = [schema for _, schema in scans]  # type: ignore[misc]
            names: list[str | None] | None = None
            if code_runs and not any("run" in schema.names() for schema in schemas):
                names = [name for name, _ in sources]
            runs = [
                _run_column(name, None if names is None else i, schema) if "run" in keys else None
                for i, ((name, _), schema) in enumerate(zip(sources, schemas, strict=True))
            ]
            if names is not None and len(names) == 1:
                runs = [None]
            selects = [
                _select(scan, schema, kind, needed, mapping, describe(src, kind), others, run)
                for (_, src), (scan, schema), run in zip(sources, scans, runs, strict=True)  # type: ignore[misc]
            ]
            con.sql(f"CREATE VIEW {table} AS " + " UNION ALL BY NAME ".join(selects))
            return names
    data = frame.select(*needed, *keys)
    if data.collect_schema()[needed[-1]] == pl.Boolean:
        data = data.with_columns(pl.col(needed[-1]).cast(pl.Int64))
    collected = data.collect()
    names = None
    if code_runs and "run" in keys:
        unique = collected.get_column("run").unique()
        names = unique.to_list()
        if len(names) == 1:
            collected = collected.drop("run")
        else:
            code = pl.col("run").replace_strict(unique, range(len(names)), return_dtype=pl.Int32)
            collected = collected.with_columns(code)
    con.register(table, collected.to_arrow())
    return names


def _named(frame: pl.DataFrame, names: list[str | None] | None) -> pl.DataFrame:
    """A result of the queries with the run names back in its ``run`` column (the first)."""
    if names is None:
        return frame
    if len(names) == 1:
        name = pl.lit(names[0], pl.String).alias("run")
        return frame.select(name, *frame.columns)
    return frame.with_columns(pl.col("run").replace_strict(range(len(names)), names, return_dtype=pl.String))


def _screen(keys: list[str], qkeys: list[str]) -> str:
    """One scan of each input: the number of bad or duplicated rows (0: the input is clean).

    Duplicates are counted on hashes of (group, query, doc): a collision only costs running the
    exact check query, which finds nothing then.
    """
    inputs = Inputs.of("qrels_in_", "run_in_", keys, qkeys, None, None, grade="CAST({rel} AS DOUBLE)")
    bad_run = "query_id IS NULL OR doc_id IS NULL OR score IS NULL OR NOT (score - score = 0)"
    bad_qrels = (
        "query_id IS NULL OR doc_id IS NULL OR rel IS NULL OR NOT (rel - rel = 0 AND rel = ROUND(rel))"
    )

    def count(table: str, bad: str, group: list[str]) -> str:
        pair = ", ".join([*group, "query_id", "doc_id"])
        return (
            f"(SELECT COUNT(*) FILTER (WHERE {bad}) + COUNT(*) - COUNT(DISTINCT hash({pair})) "
            f"FROM {table})"
        )

    body = f"SELECT {count('run_in', bad_run, inputs.keys)} + {count('qrels_in', bad_qrels, inputs.qkeys)}"
    return with_ctes(inputs.ctes, body)


def _check(con: Any, prep: Prepared, keys: list[str], qkeys: list[str]) -> None:
    """Raise ``evaluate``'s error for the first problem the check query finds."""
    if con.sql(_screen(keys, qkeys)).fetchall()[0][0] == 0:
        return
    _validate(prep, flagged=True)  # evaluate's own error, word for word (duplicates counted, with rows)
    # what DuckDB's reading of the inputs finds where Polars' finds nothing
    found = con.sql(transpile(checks(qrels="qrels_in_", run="run_in_", by=keys, qrels_by=qkeys), "duckdb"))
    problems = {(i, p): (q, d, v) for i, p, _, q, d, v in found.fetchall()}
    for role, problem, column in _ORDER:
        if (role, problem) not in problems:
            continue
        qid, doc, value = problems[(role, problem)]
        where = prep.run_where if role == "run" else prep.qrels_where
        if problem == "duplicate":
            frame = pl.DataFrame({Q: [qid], D: [doc], "_n": [int(value)]})
            raise InputError(_duplicates_message(frame, where, {}, role))
        row: dict[str, Any] = {Q: qid, D: doc}
        col = Q if qid is None else column
        if role == "run":
            row[S] = None if value is None else float(value)
            raise InputError(_bad_rows_message(row, _place(row, where, {}, col), "run"))
        row[REL] = None if value is None else float(value)
        if problem == "fractional grade":
            raise InputError(_fractional_message(row, _place(row, where, {}, col)))
        raise InputError(_bad_rows_message(row, _place(row, where, {}, col), "qrels"))


def _warn(
    con: Any, prep: Prepared, keys: list[str], qkeys: list[str], dtypes: pl.Schema,
    names: list[str | None] | None,
) -> None:
    """``evaluate``'s coverage warnings, from the (group, query) pairs DuckDB finds."""
    text = transpile(coverage(qrels="qrels_in_", run="run_in_", by=keys, qrels_by=qkeys), "duckdb")
    raw = _named(con.sql(text).pl(), names).rename({"has_qrels": HAS_QRELS, "has_run": HAS_RUN})
    raw = raw.with_columns(pl.col(c).cast(dtypes[c]) for c in [*prep.keys, Q])
    _warn_coverage(prep, raw)


def _aggregate(long: pl.DataFrame, measures: list[Measure], keys: list[str]) -> pl.DataFrame:
    """The per-query values aggregated as ``evaluate`` aggregates them."""
    how = {repr(m): m.AGGREGATE for m in measures}
    value = pl.col("value")
    kind = pl.col("measure").replace_strict(how, default="mean").first()
    agg = (
        pl.when(kind == "sum").then(value.sum())
        .when(kind == "gmean").then(value.clip(lower_bound=MIN_GEO_MEAN).log().mean().exp())
        .otherwise(value.mean())
    )
    return long.group_by([*keys, "measure"], maintain_order=True).agg(agg.alias("value"))


def _memory_config() -> dict[str, str]:
    """DuckDB's ``memory_limit`` within what this process may use (it spills past it).

    DuckDB sizes its buffer pool from the machine's memory, not from ``ulimit -v`` or every
    container's limit: half the resident budget and a quarter of the address space leave room
    for its threads, the result and Python.
    """
    from rankframe._engine.memory import available

    budget = available()
    room = [budget.resident // 2] if budget.resident is not None else []
    if budget.address is not None:  # DuckDB maps more than its buffer pool
        room.append(budget.address // 4)
    if not room:
        return {}
    return {"memory_limit": f"{max(min(room), 64 << 20) >> 20}MB"}


def evaluate_duckdb(
    qrels: Source | None,
    run: Source | None,
    measures: MeasureSpec | Iterable[MeasureSpec],
    *,
    judged: Source | None,
    per_query: bool,
    by: Sequence[str] | None,
    complete: bool,
    depth: int | None,
    relevance_level: int,
    judged_only: bool,
    progress: bool,
    output: str | os.PathLike[str] | None,
    qrels_columns: Mapping[str, str] | None,
    run_columns: Mapping[str, str] | None,
) -> pl.DataFrame:
    """``evaluate``'s result, computed by the compiled query in embedded DuckDB."""
    duckdb = _duckdb()
    start = time.perf_counter()
    options = {
        "complete": complete, "depth": depth, "relevance_level": relevance_level, "judged_only": judged_only,
    }
    prep = prepare(
        qrels, run, measures, judged=judged, by=by, qrels_columns=qrels_columns, run_columns=run_columns,
        validate=False, cast_grades=False, **options,
    )
    keys, qkeys = prep.keys, _qrels_keys(prep)
    long_rows = per_query or output is not None

    def query(by: list[str]) -> str:
        return transpile(
            build(
                prep.measures, qrels="qrels_in_", run="run_in_", per_query=long_rows, by=by,
                qrels_by=qkeys, qrels_columns=None, run_columns=None, **options,
            ),
            "duckdb",
        )

    text = query(keys)  # a measure without a SQL form is named before any input is read
    if judged is None:
        named = _named_runs(run)
        run_sources = [(None, run)] if named is None else list(named)
        if run_columns and "rank" in run_columns:  # score = -rank: the run as prepare read it
            run_sources = None
        qrels_sources: list[tuple[str | None, Source]] | None = [(None, qrels)]
    else:
        run_sources = qrels_sources = None
    folder = tempfile.mkdtemp(prefix="rankframe-duckdb-")
    limits = _memory_config()
    # DuckDB draws a progress bar on stdout for queries over 2 s: rankframe reports on stderr
    con = duckdb.connect(config={"temp_directory": folder, **limits})
    try:
        con.execute("SET enable_progress_bar = false")
        code_runs = "run" in keys and "run" not in qkeys
        names = _register(
            con, "run_in_", "run", run_sources, prep.run, (Q, D, S), run_columns, keys, code_runs=code_runs
        )
        _register(con, "qrels_in_", "qrels", qrels_sources, prep.qrels, (Q, D, REL), qrels_columns, qkeys)
        # the keys of the queries: one run's name is left out (see _register)
        inner = [k for k in keys if k != "run"] if names is not None and len(names) == 1 else keys
        _check(con, prep, inner, qkeys)
        dtypes = prep.run.collect_schema()
        _warn(con, prep, inner, qkeys, dtypes, names)
        result = _named(con.sql(text if inner == keys else query(inner)).pl(), names)
    except duckdb.OutOfMemoryException as exc:
        detail = str(exc).strip().splitlines()[0]
        msg = (
            f"engine='duckdb' ran out of memory: {detail} Its memory limit was "
            f"{limits.get('memory_limit', 'its default')} (spilling to {folder}). Raise the "
            "process's memory limit, or evaluate with the default engine (engine='polars'), "
            "which partitions the queries to fit."
        )
        raise InputError(msg) from None
    finally:
        con.close()
        shutil.rmtree(folder, ignore_errors=True)
    index = [*keys, Q] if long_rows else keys
    value = pl.col("value").cast(pl.Float64)
    if not long_rows:  # no query evaluated: a null average in SQL, NaN in evaluate
        value = value.fill_null(float("nan"))
    result = result.with_columns(*(pl.col(c).cast(dtypes[c]) for c in index), value)
    order = {repr(m): i for i, m in enumerate(prep.measures)}
    result = (
        result.with_columns(pl.col("measure").replace_strict(order, return_dtype=pl.Int64).alias("_m"))
        .sort([*index, "_m"], nulls_last=True)
        .drop("_m")
    )
    if output is not None:
        with atomic_path(output) as tmp:  # complete at the destination, or absent
            result.write_parquet(tmp)
        if not per_query:
            result = _aggregate(result, prep.measures, keys)
    if progress:
        print(f"rankframe: duckdb: {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    return result
