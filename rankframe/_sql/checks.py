"""The input checks as a query: what ``evaluate`` refuses or warns of, found by the SQL engine.

The compiled evaluation (``build``) trusts its input. This query looks for what would make its
numbers wrong or undefined, one row per kind of problem found (none: the input is clean):

============================  =======  ==================================================
problem                       input    what ``evaluate`` does
============================  =======  ==================================================
``null id``                   both     refuses the row
``null score``                run      refuses the row
``non-finite score``          run      refuses NaN and infinities (the order is undefined)
``null grade``                qrels    refuses the row
``fractional grade``          qrels    refuses 0.5, NaN... (grades are integers)
``duplicate``                 both     refuses a (query, doc) pair given twice (per group)
``judged query not in run``   qrels    warns (skipped, or scored 0 with ``complete``)
``run query not judged``      run      warns (ignored)
============================  =======  ==================================================

Columns: ``input, problem, rows`` (how many rows, pairs or queries), and the first example by
``(query_id, doc_id)``: ``query_id, doc_id, value`` (the score, grade or number of copies, as
text). A finite score is one with ``score - score = 0``: false for NaN and both infinities in
every engine here, whatever its NaN comparison rules, and NULL in SQLite, where ``inf - inf``
is NULL (hence the COALESCE). The non-finite test is written ``NOT (COALESCE(score - score = 0,
FALSE) OR score IS NULL)`` (null scores are a problem of their own): DuckDB prunes a plain
``NOT (score - score = 0)`` with Parquet statistics, which leave NaN out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rankframe._sql.build import Inputs, _cols, _on, display, query_set, quote, with_ctes

#: The problems ``evaluate`` refuses (the others are warnings).
ERRORS = ("null id", "null score", "non-finite score", "null grade", "fractional grade", "duplicate")


def checks(
    *,
    qrels: str,
    run: str,
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> str:
    """The check query over ``qrels`` and ``run``, in DuckDB's dialect."""
    inputs = Inputs.of(
        qrels, run, by, qrels_by, qrels_columns, run_columns, grade="CAST({rel} AS DOUBLE)"
    )

    def rows(source: str, problem: str, value: str, where: str) -> str:
        return (
            f"SELECT '{source}' AS input, '{problem}' AS problem, query_id, doc_id, "
            f"CAST({value} AS VARCHAR) AS value FROM {source}_in WHERE {where}"
        )

    def duplicates(source: str, group: list[str]) -> str:
        return (
            f"SELECT '{source}' AS input, 'duplicate' AS problem, query_id, doc_id, "
            f"CAST(COUNT(*) AS VARCHAR) AS value FROM {source}_in "
            f"GROUP BY {_cols('', group, 'query_id', 'doc_id')} HAVING COUNT(*) > 1"
        )

    def absent(source: str, other: str, problem: str) -> str:
        return (
            f"SELECT '{source}' AS input, '{problem}' AS problem, s.query_id, NULL AS doc_id, NULL AS value "
            f"FROM (SELECT DISTINCT query_id FROM {source}_in) AS s "
            f"LEFT JOIN (SELECT DISTINCT query_id, 1 AS present FROM {other}_in) AS o "
            "ON s.query_id = o.query_id WHERE o.present IS NULL"
        )

    ids = "query_id IS NOT NULL AND doc_id IS NOT NULL"
    problems = [
        rows("run", "null id", "NULL", "query_id IS NULL OR doc_id IS NULL"),
        rows("run", "null score", "NULL", f"{ids} AND score IS NULL"),
        rows("run", "non-finite score", "score", "NOT (COALESCE(score - score = 0, FALSE) OR score IS NULL)"),
        rows("qrels", "null id", "NULL", "query_id IS NULL OR doc_id IS NULL"),
        rows("qrels", "null grade", "NULL", f"{ids} AND rel IS NULL"),
        rows("qrels", "fractional grade", "rel",
             "NOT (COALESCE(rel - rel = 0 AND rel = ROUND(rel), FALSE) OR rel IS NULL)"),
        duplicates("run", inputs.keys),
        duplicates("qrels", inputs.qkeys),
        absent("qrels", "run", "judged query not in run"),
        absent("run", "qrels", "run query not judged"),
    ]
    numbered = (
        "SELECT input, problem, query_id, doc_id, value, "
        "COUNT(*) OVER (PARTITION BY input, problem) AS rows, "
        "ROW_NUMBER() OVER (PARTITION BY input, problem ORDER BY query_id NULLS FIRST, "
        "doc_id NULLS FIRST) AS n FROM problems"
    )
    ctes = [*inputs.ctes, ("problems", "\nUNION ALL\n".join(problems)), ("numbered", numbered)]
    return with_ctes(ctes, "SELECT input, problem, rows, query_id, doc_id, value FROM numbered WHERE n = 1")


def coverage(
    *,
    qrels: str,
    run: str,
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> str:
    """The (group, query) pairs of the evaluation: ``by..., query_id, has_qrels, has_run``.

    The pairs the run holds (judged or not), and the judged pairs it lacks as ``complete=True``
    adds them (the breakdown rule of ``query_set``): what ``evaluate``'s coverage warnings are
    computed from.
    """
    inputs = Inputs.of(qrels, run, by, qrels_by, qrels_columns, run_columns)
    keys, qkeys = inputs.keys, inputs.qkeys
    ctes = [*inputs.ctes, *query_set(inputs, complete=True)]

    def named(alias: str) -> str:
        return "".join(f"{alias}.{k} AS {quote(display(c))}, " for k, c in zip(keys, inputs.by, strict=True))

    judged = (
        f"SELECT {named('q')}q.query_id, TRUE AS has_qrels, p.present IS NOT NULL AS has_run "
        f"FROM queries AS q LEFT JOIN (SELECT {_cols('', keys, 'query_id')}, 1 AS present "
        f"FROM run_queries) AS p ON {_on('q', 'p', keys, 'query_id')}"
    )
    unjudged = (
        f"SELECT {named('r')}r.query_id, FALSE AS has_qrels, TRUE AS has_run FROM run_queries AS r "
        f"LEFT JOIN (SELECT {_cols('', qkeys, 'query_id')}, 1 AS present FROM qrels_queries) AS j "
        f"ON {_on('r', 'j', qkeys, 'query_id')} WHERE j.present IS NULL"
    )
    return with_ctes(ctes, f"{judged}\nUNION ALL\n{unjudged}")
