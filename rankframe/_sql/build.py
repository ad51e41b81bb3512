"""The compiled query: rankframe's evaluation as one SELECT with named CTEs (DuckDB's dialect).

The CTEs, in order (DESIGN.md §6):

* ``qrels_in``, ``run_in``: the inputs, columns renamed to ``query_id, doc_id, rel`` and
  ``query_id, doc_id, score`` (ids as strings, as ``evaluate`` reads them);
* ``ranked``: the run in trec_eval's order, ``ROW_NUMBER()`` by score descending, then doc id
  descending in byte order (``"9"`` above ``"10"``; see ``dialects`` for how each engine is
  held to byte order), cut at the depth;
* ``judged``: the ranked documents with their grade (NULL: not in the qrels) and the window
  columns the measures ask for;
* ``hits``, ``judgments``, ``ideal*``: one GROUP BY per query over the ranked documents, the
  judgments, and each ideal ranking;
* ``queries``: the query set ``evaluate`` evaluates (judged queries with results; every judged
  query with ``complete``);
* ``per_query``: one row per query, one column per measure; then the long result, per query or
  aggregated (means; sums for counts; geometric means as trec_eval's ``gm_*``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rankframe._errors import MeasureError
from rankframe._io.columns import REL, D, Q, S, check_mapping
from rankframe._measures import MIN_GEO_MEAN, REGISTRY, Measure
from rankframe._measures._sql import SqlCtx, lit


def quote(name: str) -> str:
    """A column name as a quoted identifier (sqlglot writes each dialect's quotes)."""
    return '"' + name.replace('"', '""') + '"'


def _columns(mapping: Mapping[str, str] | None, needed: tuple[str, ...], kind: str) -> dict[str, str]:
    mapping = check_mapping(mapping, f"{kind}_columns")
    return {c: mapping.get(c, c) for c in needed}


def _sql_of(measure: Measure, q: SqlCtx) -> str:
    """The measure's per-query SQL; NotImplementedError where it has none."""
    if measure.params.get("judged_only"):  # its own re-ranking: not compiled (evaluate's is)
        msg = f"{measure!r}: per-measure judged_only has no SQL form"
        raise NotImplementedError(msg)
    return measure.sql(q)


def compiles(measure: Measure) -> bool:
    """Whether ``measure`` has a SQL form (its family's, for these parameters)."""
    try:
        _sql_of(measure, SqlCtx())
    except NotImplementedError:
        return False
    return True


def _per_query_sql(measures: Sequence[Measure], q: SqlCtx) -> list[str]:
    values, failed = [], []
    for m in measures:
        try:
            values.append(_sql_of(m, q))
        except NotImplementedError:
            failed.append(repr(m))
    if failed:
        families = sorted(name for name, cls in REGISTRY.items() if cls.sql is not Measure.sql)
        msg = (
            f"No SQL form for {', '.join(failed)}. The families that compile to SQL: "
            f"{', '.join(families)} (per-measure judged_only=True does not; evaluate's "
            "judged_only does)."
        )
        raise MeasureError(msg)
    return values


def _name(m: Measure) -> str:
    """The measure's canonical name as a string literal."""
    return "'" + repr(m).replace("'", "''") + "'"


def _aggregate(m: Measure, column: str) -> str:
    if m.AGGREGATE == "sum":
        return f"SUM({column})"
    if m.AGGREGATE == "gmean":  # trec_eval's gm_*: exp(mean(log(max(v, 1e-5))))
        return f"EXP(AVG(LN(GREATEST({column}, {lit(MIN_GEO_MEAN)}))))"
    return f"AVG({column})"


def build(
    measures: Sequence[Measure],
    *,
    qrels: str,
    run: str,
    per_query: bool,
    complete: bool,
    depth: int | None,
    relevance_level: int,
    judged_only: bool,
    qrels_columns: Mapping[str, str] | None,
    run_columns: Mapping[str, str] | None,
) -> str:
    """The evaluation of ``measures`` as one SELECT statement in DuckDB's dialect."""
    if not measures:
        msg = "No measure to compile: name at least one (e.g. 'nDCG@10')."
        raise MeasureError(msg)
    qc = _columns(qrels_columns, (Q, D, REL), "qrels")
    rc = _columns(run_columns, (Q, D, S), "run")
    q = SqlCtx(relevance_level=relevance_level)
    values = _per_query_sql(measures, q)
    key = "query_id"

    ctes: list[tuple[str, str]] = []
    ctes.append(("qrels_in", (
        f"SELECT CAST({quote(qc[Q])} AS VARCHAR) AS query_id, CAST({quote(qc[D])} AS VARCHAR) AS doc_id, "
        f"{quote(qc[REL])} AS rel FROM {qrels}"
    )))
    ctes.append(("run_in", (
        f"SELECT CAST({quote(rc[Q])} AS VARCHAR) AS query_id, CAST({quote(rc[D])} AS VARCHAR) AS doc_id, "
        f"CAST({quote(rc[S])} AS DOUBLE) AS score FROM {run}"
    )))
    # trec_eval's order
    order = "ORDER BY score DESC, doc_id DESC"
    ranked = f"SELECT query_id, doc_id, ROW_NUMBER() OVER (PARTITION BY {key} {order}) AS rank FROM run_in"
    ctes.append(("ranked", ranked))

    row_stats = list(q.row_stats)
    if q.judgments:
        ctes.append(("judgments", (
            f"SELECT {key}, "
            + ", ".join(f"{sql} AS {alias}" for alias, sql in q.judgments.items())
            + f" FROM qrels_in GROUP BY {key}"
        )))
    windows = [
        f"{sql.format(query=f'PARTITION BY r.{key}')} AS {alias}" for alias, sql in q.windows.items()
    ]
    stats = [f"s.{alias}" for alias in row_stats]
    where = [] if depth is None else [f"r.rank <= {depth}"]
    if judged_only:  # -J after -M: the judged documents of the cut ranking, ranked again
        rank = f"ROW_NUMBER() OVER (PARTITION BY r.{key} ORDER BY r.rank) AS rank"
        join = " JOIN qrels_in AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id"
        where.append("j.rel >= 0")
    else:
        rank = "r.rank"
        join = " LEFT JOIN qrels_in AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id"
    if row_stats:
        join += f" LEFT JOIN judgments AS s ON r.{key} = s.{key}"
    inner = ", ".join([f"r.{key}", rank, "j.rel", *stats])
    where_sql = f" WHERE {' AND '.join(where)}" if where else ""
    judged = f"SELECT {inner} FROM ranked AS r{join}{where_sql}"
    if windows:
        judged = f"SELECT r.*, {', '.join(windows)} FROM ({judged}) AS r"
    ctes.append(("judged", judged))
    hit_cols = ", ".join(f"{sql} AS {alias}" for alias, sql in q.hits.items())
    ctes.append(("hits", f"SELECT {key}{', ' + hit_cols if hit_cols else ''} FROM judged GROUP BY {key}"))
    for gain, (name, aggregates) in q.ideals.items():
        ctes.append((f"{name}_rows", (
            f"SELECT {key}, g, ROW_NUMBER() OVER (PARTITION BY {key} ORDER BY g DESC) AS pos "
            f"FROM (SELECT {key}, {gain} AS g FROM qrels_in WHERE rel >= 0) AS i WHERE g > 0"
        )))
        cols = ", ".join(f"{sql} AS {alias}" for alias, sql in aggregates.items())
        ctes.append((name, f"SELECT {key}, {cols} FROM {name}_rows GROUP BY {key}"))
    # the query set: judged queries with results, or every judged one with complete
    if complete:
        queries = "SELECT DISTINCT query_id FROM qrels_in"
    else:
        queries = (
            "SELECT DISTINCT j.query_id FROM qrels_in AS j "
            "JOIN (SELECT DISTINCT query_id FROM run_in) AS r ON j.query_id = r.query_id"
        )
    ctes.append(("queries", queries))
    joins = [f" LEFT JOIN hits ON queries.{key} = hits.{key}"]
    if q.judgments:
        joins.append(f" LEFT JOIN judgments ON queries.{key} = judgments.{key}")
    for name, _ in q.ideals.values():
        joins.append(f" LEFT JOIN {name} ON queries.{key} = {name}.{key}")
    columns = [f"queries.{key} AS query_id"] + [
        f"{value} AS {quote(f'm{i}')}" for i, value in enumerate(values)
    ]
    ctes.append(("per_query", "SELECT " + ", ".join(columns) + " FROM queries" + "".join(joins)))

    if per_query:
        selects = [
            f"SELECT query_id, {_name(m)} AS measure, {quote(f'm{i}')} AS value FROM per_query"
            for i, m in enumerate(measures)
        ]
    else:
        selects = [
            f"SELECT {_name(m)} AS measure, {_aggregate(m, quote(f'm{i}'))} AS value FROM per_query"
            for i, m in enumerate(measures)
        ]
    body = "\nUNION ALL\n".join(selects)
    with_ = ",\n".join(f"{name} AS (\n  {sql}\n)" for name, sql in ctes)
    return f"WITH {with_}\n{body}"
