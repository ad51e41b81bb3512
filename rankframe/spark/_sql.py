"""The sql engine of :mod:`rankframe.spark`: the compiled query of :mod:`rankframe.sql` in Spark SQL.

Nothing of rankframe or Polars runs on the executors: the driver writes the statement, Spark
plans and runs it. One statement computes the per-query rows of :func:`rankframe.sql.query`
(its ``per_query`` CTE: one row per group and query, a column per measure) and, in one more row,
a screen of the inputs: how many rows ``evaluate`` would refuse (null ids, scores or grades,
non-finite scores, fractional grades, duplicate (query, doc) pairs) and the counts of its
coverage warnings. The run's duplicates are found by a window over the ranking's own shuffle
(Spark reuses the exchange), instead of a second full shuffle of the run. The rows are cached;
when the screen finds a problem, :func:`rankframe.sql.checks` runs to name it (raised as
:class:`~rankframe.InputError`, as ``evaluate`` raises it); else the coverage warnings are
issued and the long result is read from the cached rows, per query or aggregated, with the
columns, types and order of the polars engine's result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rankframe._engine.collect import missing_is_said
from rankframe._engine.options import REL, D, Q, S
from rankframe._errors import InputError, NoQueryInCommonWarning, RankframeWarning, warn
from rankframe._measures import MIN_GEO_MEAN
from rankframe.spark._common import require

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

    from rankframe._measures import Measure

#: The placeholders of the inputs in the query text, bound by ``spark.sql(text, qrels=..., run=...)``:
#: the judgments, the run rows with a query id (those the evaluation reads) and the run as given.
_QRELS, _RUN, _RUN_ALL = "rf_qrels_input", "rf_run_input", "rf_run_all"
#: The placeholder of the per-query rows in the long result's text (see :func:`_long`).
_ROWS = "rf_rows_input"
#: The screen's columns (see :func:`_screen`), in the one row it adds to the per-query rows.
_SCREEN = ("rf_run_bad", "rf_qrels_bad", "rf_missing", "rf_first_missing", "rf_unjudged", "rf_common")


def unsupported(measures: Sequence[Measure], options: dict[str, Any]) -> str | None:
    """Why the compiled query cannot evaluate this call, and what to use instead; None if it can."""
    from rankframe.sql import compiles

    missing = [repr(m) for m in measures if not compiles(m)]
    if missing:
        return (
            f"{', '.join(missing)} {'has' if len(missing) == 1 else 'have'} no SQL form "
            "(rankframe.sql.compiles); engine='polars' evaluates every measure"
        )
    ties = options.get("ties", "trec_eval")
    if ties != "trec_eval":
        return f"the SQL ranks ties as trec_eval does; ties={ties!r} needs engine='polars'"
    if options.get("score_dtype", "float64") != "float64":
        return "the SQL ranks float64 scores; score_dtype='float32' needs engine='polars'"
    return None


def evaluate_sql(
    run_side: DataFrame,
    qrels_side: DataFrame,
    kind: str,
    measures: list[Measure],
    by: list[str],
    partitions: int | None,
    options: dict[str, Any],
    *,
    per_query: bool,
    F: Any,  # noqa: N803
    T: Any,  # noqa: N803
) -> DataFrame:
    """Check the inputs and evaluate ``measures`` with the compiled query, in Spark SQL.

    ``run_side``, ``qrels_side``: the inputs with canonical column names; ``kind``: ``"judged"``
    when both come from one judged frame (named so in messages).
    """
    from rankframe import sql as rsql

    keys = (["run"] if "run" in run_side.columns else []) + [k for k in by if k != "run"]
    require(run_side, keys, "run")  # breakdown columns
    qrels_keys = [k for k in keys if k in qrels_side.columns]
    where = {
        role: f"the Spark {kind or role} DataFrame" for role in ("run", "qrels")
    }
    run_types = _checked_types(run_side, (Q, D, S), "run", where["run"], T)
    qrels_types = _checked_types(qrels_side, (Q, D, REL), "qrels", where["qrels"], T)
    run_view = run_side.select(*keys, Q, D, S)
    grade = F.col(REL).cast("int") if isinstance(qrels_types[REL], T.BooleanType) else F.col(REL)
    qrels_view = qrels_side.select(*qrels_keys, Q, D, grade.alias(REL))
    if partitions is not None:  # whole queries in each partition, both sides alike
        run_view, qrels_view = run_view.repartition(partitions, Q), qrels_view.repartition(partitions, Q)
    spark = run_view.sparkSession
    # the evaluation reads the run rows that have a query id (a null one is an error, counted
    # apart): Spark infers this filter from the judgments join in most plans; written out, the
    # ranking's shuffle is the same in every plan, and the screen's window reads it again
    with_ids = run_view.where(F.col(Q).isNotNull())

    def run_sql(text: str) -> DataFrame:
        # the inputs are bound as temporary views that Spark drops once the plan is analysed
        bound = _bound(text, {"qrels": _QRELS, "run": _RUN, "run_all": _RUN_ALL})
        return spark.sql(bound, qrels=qrels_view, run=with_ids, run_all=run_view)

    inputs = {"qrels": _QRELS, "run": _RUN, "dialect": "spark", "by": keys, "qrels_by": qrels_keys}

    def name_the_problem() -> None:
        """Raise the InputError of the check query for the first problem of the inputs, if any."""
        check = rsql.checks(**{**inputs, "run": _RUN_ALL})
        try:
            problems = [r.asDict() for r in run_sql(check).collect()]
        except Exception as err:
            if "ARITHMETIC_OVERFLOW" not in str(err):
                raise
            msg = (
                f"{where['qrels']}, column 'relevance': a grade is infinite or too large to be an "
                "integer (Spark's FLOOR overflows on it). Grades must be integers; filter or map "
                "them first (F.col('relevance').cast('int'))."
            )
            raise InputError(msg) from None
        _raise_errors(problems, where)

    opts = {k: options[k] for k in ("complete", "depth", "relevance_level", "judged_only") if k in options}
    text = rsql.query(measures, per_query=True, **inputs, **opts)
    names = [*keys, Q, *(f"rf_m{i}" for i in range(len(measures)))]
    rows = None
    try:
        rows = run_sql(_statement(text, keys, qrels_keys)).toDF("rf_kind", *names, *_SCREEN).persist()
        screen = rows.where(F.col("rf_kind") == 1).select(*_SCREEN).collect()[0].asDict()  # fills the cache
    except Exception:
        if rows is not None:
            rows.unpersist()
        name_the_problem()  # the statement failed on bad input (e.g. an infinite grade): name it
        raise
    if screen["rf_run_bad"] or screen["rf_qrels_bad"]:
        rows.unpersist()
        name_the_problem()
        msg = (  # pragma: no cover - the screen counts the rows the check query finds
            f"The input screen counted {screen['rf_run_bad']} bad run rows and "
            f"{screen['rf_qrels_bad']} bad judgments, which the check query did not find."
        )
        raise RuntimeError(msg)
    q_type = run_types[Q] if run_types[Q] == qrels_types[Q] else T.StringType()
    q_cast = None if isinstance(q_type, T.StringType) else q_type.simpleString()
    shown = str if q_cast is None else int  # an example query id as evaluate shows it
    _warn_coverage(screen, keys, qrels_keys, bool(opts.get("complete")), shown)
    per_query_rows = rows.where(F.col("rf_kind") == 0).select(*names)
    long = _bound(_long(keys, measures, q_cast, per_query=per_query), {"rows": _ROWS})
    return spark.sql(long, rows=per_query_rows)


def _bound(text: str, placeholders: dict[str, str]) -> str:
    """``text`` for ``spark.sql(text, name=DataFrame)``: braces escaped, each placeholder ``{name}``.

    Examples
    --------
    >>> _bound("SELECT MAP('a', 1) FROM rf_run_input", {"run": _RUN})
    "SELECT MAP('a', 1) FROM {run}"
    >>> _bound("SELECT '{x}' FROM rf_run_input", {"run": _RUN})
    "SELECT '{{x}}' FROM {run}"
    """
    bound = text.replace("{", "{{").replace("}", "}}")
    for name, placeholder in placeholders.items():
        bound = bound.replace(placeholder, "{" + name + "}")
    return bound


def _statement(text: str, keys: list[str], qrels_keys: list[str]) -> str:
    """The compiled query's CTEs, then its ``per_query`` rows and the screen's row, in one statement.

    Rows: ``rf_kind`` 0, the breakdowns, ``query_id``, one column per measure, and nulls for the
    screen; one row of ``rf_kind`` 1 with nulls, then the columns of :data:`_SCREEN`. Spark
    inlines CTEs, so each part reads what it needs once.
    """
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(text, read="spark")
    with_ = tree.args.get("with_" if "with_" in exp.Select.arg_types else "with")
    if with_ is None or "per_query" not in [c.alias for c in with_.expressions]:  # pragma: no cover
        msg = "The compiled query has no per_query CTE; rankframe.sql and rankframe.spark disagree."
        raise RuntimeError(msg)
    head = with_.transform(_log2).sql(dialect="spark")
    nulls = ", ".join(f"NULL AS {c}" for c in _SCREEN)
    width = len([c for c in with_.expressions if c.alias == "per_query"][0].this.expressions)
    blanks = ", ".join(["NULL"] * width)
    body = (
        f"SELECT 0 AS rf_kind, p.*, {nulls} FROM per_query AS p\n"
        f"UNION ALL\nSELECT 1, {blanks}, s.* FROM rf_screen AS s"
    )
    return f"{head},\n" + ",\n".join(_screen(keys, qrels_keys)) + f"\n{body}"


def _screen(keys: list[str], qrels_keys: list[str]) -> list[str]:
    """The screen's CTEs: the check query's findings as counts, in one row (``rf_screen``).

    ``rf_run_bad``: the run rows that ``evaluate`` refuses (a null query id, in the run as given;
    a null doc id or score, a non-finite score, a (group, query, doc) given before: a window by
    query over the run rows ordered by doc id, which reads the shuffle of the ranking's window);
    ``rf_qrels_bad`` likewise for the judgments (null ids or grades, fractional grades,
    duplicates); the judged query ids not in the run (``rf_missing``, the first of them),
    those of the run not judged (``rf_unjudged``), and those of both (``rf_common``), compared
    across the whole inputs as the check query compares them. Zero bad rows: the check query
    would find no error.
    """
    from rankframe._sql.build import key_names, quote

    inner = {c: _ident(c) if k == quote(c) else k for k, c in zip(key_names(keys), keys, strict=True)}
    group = "".join(f"{inner[k]}, " for k in keys)
    qgroup = "".join(f"{inner[k]}, " for k in qrels_keys)

    def ordered(table: str, group: str, value: str) -> str:
        return (
            f"SELECT {group}query_id, doc_id, {value}, LAG(doc_id) OVER "
            f"(PARTITION BY {group}query_id ORDER BY doc_id) AS rf_prev FROM {table}"
        )

    def count(condition: str) -> str:
        return f"COALESCE(SUM(CASE WHEN {condition} THEN 1 ELSE 0 END), 0)"

    # as rankframe.sql.checks finds them: a finite score has score - score = 0 (false for NaN
    # and both infinities in Spark), an integer grade rel = ROUND(rel)
    duplicate = "doc_id = rf_prev"
    non_finite = "NOT (score - score = 0)"
    fractional = "NOT (rel - rel = 0 AND rel = ROUND(rel))"
    run_bad = count(f"doc_id IS NULL OR score IS NULL OR {non_finite} OR {duplicate}")
    qrels_bad = count(f"query_id IS NULL OR doc_id IS NULL OR rel IS NULL OR {fractional} OR {duplicate}")
    coverage = (
        "SELECT COUNT(CASE WHEN r.query_id IS NULL THEN 1 END) AS rf_missing, "
        "MIN(CASE WHEN r.query_id IS NULL THEN j.query_id END) AS rf_first_missing, "
        "COUNT(CASE WHEN j.query_id IS NULL THEN 1 END) AS rf_unjudged, "
        "COUNT(CASE WHEN r.query_id IS NOT NULL AND j.query_id IS NOT NULL THEN 1 END) AS rf_common "
        "FROM (SELECT DISTINCT query_id FROM run_in) AS r "
        "FULL OUTER JOIN (SELECT DISTINCT query_id FROM qrels_in) AS j ON r.query_id = j.query_id"
    )
    return [
        f"rf_run_rows AS ({ordered('run_in', group, 'score')})",
        f"rf_qrels_rows AS ({ordered('qrels_in', qgroup, 'CAST(rel AS DOUBLE) AS rel')})",
        f"rf_screen AS (SELECT r.rf_run_bad + n.rf_run_bad AS rf_run_bad, q.rf_qrels_bad, c.* FROM "
        f"(SELECT {run_bad} AS rf_run_bad FROM rf_run_rows) AS r CROSS JOIN "
        f"(SELECT COUNT(*) AS rf_run_bad FROM {_RUN_ALL} WHERE query_id IS NULL) AS n CROSS JOIN "
        f"(SELECT {qrels_bad} AS rf_qrels_bad FROM rf_qrels_rows) AS q CROSS JOIN ({coverage}) AS c)",
    ]


def _long(keys: list[str], measures: Sequence[Measure], q_cast: str | None, *, per_query: bool) -> str:
    """The long result of the per-query rows (the placeholder :data:`_ROWS`): per query, or aggregated.

    ``stack`` unpivots the one row of each (group, query), or of each group's aggregates, and
    the rows are sorted as :func:`rankframe.evaluate` sorts them. ``q_cast``: the Spark type the
    query ids are cast back to (None: strings).
    """
    names = [_ident(k) for k in keys]
    slots = [f"rf_m{i}" for i in range(len(measures))]
    rows = _ROWS
    group = "".join(f"{n}, " for n in names)
    if per_query:
        ids = "query_id" if q_cast is None else f"CAST(query_id AS {q_cast})"
        pairs = [(repr(m), f"CAST({s} AS DOUBLE)") for m, s in zip(measures, slots, strict=True)]
        source = f"SELECT {group}{ids} AS query_id, {_stack(pairs)} FROM {rows}"
        order = [*names, "query_id"]
    else:
        pairs = [(repr(m), f"rf_a{i}") for i, m in enumerate(measures) if m.AGGREGATE != "none"]
        aggs = [
            f"{_aggregate(m, s)} AS rf_a{i}"
            for i, (m, s) in enumerate(zip(measures, slots, strict=True)) if m.AGGREGATE != "none"
        ]
        by = f" GROUP BY {', '.join(names)}" if names else ""
        source = (
            f"SELECT {group}{_stack(pairs)} FROM (SELECT {group}{', '.join(aggs)} FROM {rows}{by})"
        )
        order = names
    sort = ", ".join([*(f"{c} ASC NULLS LAST" for c in order), "rf_order"])
    columns = ", ".join([*order, "measure", "value"])
    return f"SELECT {columns} FROM ({source}) AS rf_long ORDER BY {sort}"


def _stack(pairs: list[tuple[str, str]]) -> str:
    """``stack(n, 0, 'name', value, ...) AS (rf_order, measure, value)``: one row per pair."""
    items = ", ".join(f"{i}, {_string(name)}, {value}" for i, (name, value) in enumerate(pairs))
    return f"stack({len(pairs)}, {items}) AS (rf_order, measure, value)"


def _aggregate(m: Measure, column: str) -> str:
    """How trec_eval aggregates ``m`` across queries: a mean, a sum, or a geometric mean."""
    if m.AGGREGATE == "sum":
        return f"CAST(SUM({column}) AS DOUBLE)"
    if m.AGGREGATE == "gmean":
        return f"EXP(AVG(LN(GREATEST({column}, CAST({MIN_GEO_MEAN!r} AS DOUBLE)))))"
    return f"AVG(CAST({column} AS DOUBLE))"


def _ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _string(text: str) -> str:
    """A Spark SQL string literal (backslash escapes)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _log2(node: Any) -> Any:
    """``LOG2``, which sqlglot reads back as a two-argument ``LOG``, stays ``LOG2`` (C's log2)."""
    from sqlglot import exp

    if isinstance(node, exp.Log) and node.expression is not None:
        base = node.this
        if isinstance(base, exp.Literal) and base.this == "2":
            return exp.Anonymous(this="LOG2", expressions=[node.expression.copy()])
    return node


def _checked_types(df: DataFrame, columns: tuple[str, ...], role: str, where: str, T: Any) -> dict[str, Any]:  # noqa: N803
    """The Spark types of the canonical columns, or an InputError as ``evaluate`` raises it."""
    types = {f.name: f.dataType for f in df.schema.fields if f.name in columns}
    text = tuple(getattr(T, t) for t in ("StringType", "VarcharType", "CharType") if hasattr(T, t))
    for col, dtype in types.items():
        if col in (Q, D):
            ok = isinstance(dtype, (*text, T.IntegralType))
            kind, cast = "ids must be strings or integers", "string"
        elif col == S:
            ok, kind, cast = isinstance(dtype, T.NumericType), "scores must be numbers", "double"
        else:
            ok = isinstance(dtype, T.NumericType | T.BooleanType)
            kind, cast = "grades must be integers", "int"
        if not ok:
            msg = (
                f"The {role} column {col!r} in {where} has type {dtype.simpleString()}; {kind}. Map "
                f"the right column ({role}_columns={{{col!r}: ...}}) or cast it, e.g. "
                f"F.col({col!r}).cast({cast!r})."
            )
            raise InputError(msg)
    return types


def _raise_errors(problems: list[dict[str, Any]], where: dict[str, str]) -> None:
    """Raise the first error the check query found, in the order ``evaluate`` checks."""
    found = {(p["input"], p["problem"]): p for p in problems}
    order = [
        ("run", "null id"), ("run", "null score"), ("run", "non-finite score"), ("qrels", "null id"),
        ("qrels", "null grade"), ("run", "duplicate"), ("qrels", "duplicate"), ("qrels", "fractional grade"),
    ]
    for role, problem in order:
        p = found.get((role, problem))
        if p is not None:
            raise InputError(_message(role, problem, p, where[role]))


def _message(role: str, problem: str, p: dict[str, Any], where: str) -> str:
    q, d, value, n = p["query_id"], p["doc_id"], p["value"], p["rows"]
    ids = f"query {q!r}, doc {d!r}"
    more = "" if n == 1 else f" ({n:,} rows like it)"
    if problem == "null id":
        col, other = ("query_id", f"doc {d!r}") if q is None else ("doc_id", f"query {q!r}")
        return (
            f"{where}, column {col!r}: the {col.replace('_', ' ')} is null ({other}){more}. Ids must not "
            "be null; drop such rows first, e.g. df.dropna(subset=['query_id', 'doc_id'])."
        )
    if problem == "null score":
        return (
            f"{where}, column 'score': the score of {ids} is null{more}. Scores must be finite "
            "numbers; drop such rows, e.g. df.dropna(subset=['score'])."
        )
    if problem == "non-finite score":
        return (
            f"{where}, column 'score': the score of {ids} is {value}{more}, which is not a finite "
            "number, so the ranking is undefined. Replace it or drop the row, e.g. "
            "df.filter(F.col('score') - F.col('score') == 0)."
        )
    if problem == "null grade":
        return (
            f"{where}, column 'relevance': the relevance grade of {ids} is null{more}. Drop such rows "
            "or fill them, e.g. df.fillna(0, subset=['relevance'])."
        )
    if problem == "duplicate":
        col = "score" if role == "run" else "relevance"
        pairs = "" if n == 1 else f" ({n:,} pairs in all)"
        return (
            f"{where}: duplicate (query, doc) rows in the {role}: ({q!r}, {d!r}) x{value}{pairs}. "
            "trec_eval refuses them too; keep one row per (query, doc), e.g. "
            f"df.groupBy('query_id', 'doc_id').agg(F.max({col!r}).alias({col!r}))."
        )
    return (  # a fractional grade
        f"{where}, column 'relevance': the relevance grade {value} of ({q!r}, {d!r}) is not an "
        f"integer{more}. Grades must be integers; round or map them first, e.g. "
        "F.round('relevance').cast('int')."
    )


def _warn_coverage(
    screen: dict[str, Any],
    keys: list[str],
    qrels_keys: list[str],
    complete: bool,
    shown: Any = str,
) -> None:
    """The coverage warnings of ``evaluate``, from the screen's counts.

    The query ids are compared across the whole inputs: a judged query that the run lacks
    entirely is warned of, not one that some breakdown groups lack.
    """
    n = screen["rf_missing"]
    own = [k for k in keys if k != "run" and k not in qrels_keys]
    if n and missing_is_said(complete, bool(own), not screen["rf_common"]):
        if own:  # breakdowns of the run alone: the query is in none of its run's groups
            scope = f"in no ({', '.join(own)}) group of the run"
            zero = f" in a group of their own, with a null {', '.join(own)}"
        else:
            scope, zero = "missing from the run", ""
        fate = f"scored 0{zero} (complete=True)" if complete else (
            f"skipped; pass complete=True (trec_eval -c) to score them 0{zero}"
        )
        none_match = "" if screen["rf_common"] else (
            " No judged query has results: check that the query ids of the qrels and the "
            "run match (e.g. '001' vs 1, or a prefix)."
        )
        are = "is" if n == 1 else "are"
        warn(
            f"{n} judged quer{'y' if n == 1 else 'ies'} {are} {scope} ({fate}), e.g. query "
            f"{shown(screen['rf_first_missing'])!r}.{none_match}",
            NoQueryInCommonWarning if none_match else RankframeWarning,
        )
    n = screen["rf_unjudged"]
    if n:
        warn(
            f"{n} run quer{'y has' if n == 1 else 'ies have'} no judgments and "
            f"{'is' if n == 1 else 'are'} ignored."
        )
