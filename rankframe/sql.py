"""rankframe's evaluation as SQL: one query, in your engine's dialect.

:func:`query` writes the SELECT statement that evaluates measures over a qrels table and a run
table where they live (DuckDB, Spark SQL and Databricks, BigQuery, Snowflake, Trino,
PostgreSQL, ClickHouse, SQLite, DataFusion): the same query set, ties, cutoffs and aggregation
as :func:`rankframe.evaluate`, to 1e-12 relative (SQL engines add in no fixed order). The tests
run it in DuckDB, PostgreSQL, Spark SQL, ClickHouse (chdb), DataFusion and SQLite.

The query trusts its input: it does not look for duplicate documents, non-finite scores or
non-integer grades, which ``evaluate`` refuses. :func:`checks` writes the query that does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from rankframe._measures._names import parse_measures
from rankframe._sql.build import build
from rankframe._sql.build import compiles as _compiles
from rankframe._sql.checks import checks as _checks
from rankframe._sql.dialects import DIALECTS, check_dialect, transpile

if TYPE_CHECKING:
    from rankframe._measures import Measure

__all__ = ["DIALECTS", "checks", "compiles", "query"]


def compiles(measure: str | Measure) -> bool:
    """Whether a measure (a name, or each measure a name such as ``official`` stands for) has a SQL form.

    Examples
    --------
    >>> import rankframe as rf
    >>> rf.sql.compiles("nDCG@10"), rf.sql.compiles("RelString")
    (True, False)
    """
    return all(_compiles(m) for m in parse_measures(measure))


def query(
    measures: str | Measure | Iterable[str | Measure],
    *,
    qrels: str = "qrels",
    run: str = "run",
    dialect: str = "duckdb",
    per_query: bool = False,
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
    complete: bool = False,
    depth: int | None = None,
    relevance_level: int = 1,
    judged_only: bool = False,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> str:
    """Return one SELECT statement that evaluates ``measures`` over two tables.

    Parameters
    ----------
    measures
        Measure names (``"nDCG@10"``, ``"official"``...) or objects, as for
        :func:`rankframe.evaluate`. A measure without a SQL form raises
        :class:`~rankframe.MeasureError` naming the families that have one.
    qrels, run
        What the query reads, in the dialect's own syntax: a table or view name
        (``db.schema.table``, BigQuery's ``my-project.eval.qrels``, Spark's
        `` `eval`.`qrels` ``), or a parenthesised subquery. Columns ``query_id, doc_id,
        relevance`` and ``query_id, doc_id, score``; anything else raises
        :class:`~rankframe.InputError` naming the argument.
    dialect
        One of :data:`DIALECTS` (sqlglot's names; ``datafusion`` is PostgreSQL's text made
        fit for DataFusion).
    per_query
        Rows ``query_id, measure, value``; else ``measure, value`` aggregated as
        ``evaluate`` aggregates (means; sums for counts; geometric means for ``GMAP``).
    by
        Breakdown columns of the run (``["locale"]``): the result has them first, and each
        group is evaluated and aggregated on its own, as ``evaluate(..., by=...)`` does.
        ``"run"`` is the run name of stacked runs (each run is owed every judged query).
    qrels_by
        Those of ``by`` that the qrels carry too (judgments by locale): each group's judgments
        and query set then come from them. The query cannot look at your tables' columns:
        name them here as ``evaluate`` finds them in the qrels frame.
    complete, depth, relevance_level, judged_only
        As for :func:`rankframe.evaluate` (trec_eval's ``-c``, ``-M``, ``-l``, ``-J``).
    qrels_columns, run_columns
        Your column names, by canonical name: ``{"query_id": "qid", "relevance": "label"}``.
        A plain name is written unquoted, so that the engine folds its case as it folds any
        unquoted name (``QID`` finds PostgreSQL's ``qid``); a name in the dialect's quotes
        (``'"QID"'``) is matched exactly; any other name is taken as written. Grades are cast
        to DOUBLE (text grades such as ``'2'`` compare as numbers).

    Returns
    -------
    str
        The query: named CTEs (``ranked``, ``judged``, ``hits``, ``judgments``, ``ideal*``,
        ``queries``, ``per_query``), one line per measure.

    Notes
    -----
    Documents are ranked by ``ROW_NUMBER()`` over score descending, then doc id descending in
    byte order, as trec_eval orders them (``"9"`` above ``"10"``); see
    ``rankframe._sql.dialects`` for how each dialect is held to byte order, and for the
    engine settings the text sets itself (ClickHouse's ``join_use_nulls``). Ids are read as
    strings.

    Examples
    --------
    >>> import duckdb, polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    >>> sql = rf.sql.query(["nDCG@10", "RR"], qrels="qrels", run="run")
    >>> {m: round(v, 4) for m, v in duckdb.sql(sql).fetchall()}
    {'nDCG@10': 0.6309, 'RR': 0.5}
    """
    name = check_dialect(dialect)
    parsed = parse_measures(measures)
    text = build(
        parsed,
        qrels=qrels,
        run=run,
        per_query=per_query,
        by=by,
        qrels_by=qrels_by,
        complete=complete,
        depth=depth,
        relevance_level=relevance_level,
        judged_only=judged_only,
        qrels_columns=qrels_columns,
        run_columns=run_columns,
    )
    return transpile(text, name)


def checks(
    *,
    qrels: str = "qrels",
    run: str = "run",
    dialect: str = "duckdb",
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> str:
    """Return the query that finds what :func:`query` trusts is absent from its input.

    One row per kind of problem found, none when the input is clean: columns ``input``
    (``'run'`` or ``'qrels'``), ``problem``, ``rows`` (how many rows, (query, doc) pairs or
    queries have it) and the first example by ``(query_id, doc_id)``: ``query_id, doc_id,
    value`` (the score, grade or number of copies, as text).

    ``evaluate`` refuses ``null id``, ``null score``, ``non-finite score`` (NaN, infinities),
    ``null grade``, ``fractional grade`` and ``duplicate`` ((query, doc) given twice, per
    breakdown group); it warns of ``judged query not in run`` (skipped, or scored 0 with
    ``complete``) and ``run query not judged`` (ignored). Run it before :func:`query` and stop
    on the first six.

    Parameters
    ----------
    qrels, run, dialect, by, qrels_by, qrels_columns, run_columns
        As for :func:`query`.

    Examples
    --------
    >>> import duckdb, polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "a"], "relevance": [1, 0]})
    >>> run = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "score": [1.0, float("nan")]})
    >>> sorted(duckdb.sql(rf.sql.checks()).fetchall())  # doctest: +NORMALIZE_WHITESPACE
    [('qrels', 'duplicate', 1, 'q1', 'a', '2'),
     ('run', 'non-finite score', 1, 'q2', 'b', 'nan'),
     ('run', 'run query not judged', 1, 'q2', None, None)]
    """
    name = check_dialect(dialect)
    text = _checks(
        qrels=qrels, run=run, by=by, qrels_by=qrels_by, qrels_columns=qrels_columns, run_columns=run_columns
    )
    return transpile(text, name)
