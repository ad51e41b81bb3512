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
* ``per_query``: one row per query, one column per measure; ``aggregated``: its means (sums for
  counts; geometric means as trec_eval's ``gm_*``); then the long result, a cross join of
  either with the measure names (each CTE computed once, also where engines inline CTEs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rankframe._errors import InputError, MeasureError
from rankframe._io.columns import REL, D, Q, S, check_mapping
from rankframe._measures import MIN_GEO_MEAN, REGISTRY, Measure
from rankframe._measures._sql import SqlCtx, lit


def quote(name: str) -> str:
    """A name as a quoted identifier (sqlglot writes each dialect's quotes).

    The user's tables and columns are written so too, holding their spelling in the user's
    dialect: ``dialects.transpile`` reads them in that dialect's syntax.
    """
    return '"' + name.replace('"', '""') + '"'


#: quote pairs a name may be written in: "x" (SQL), `x` (BigQuery, Spark, ClickHouse), [x] (T-SQL)
_QUOTES = {'"': '"', "`": "`", "[": "]"}


def display(spelling: str) -> str:
    """A column's name in the result: its spelling without the quotes it was written in."""
    close = _QUOTES.get(spelling[:1])
    if close is not None and len(spelling) >= 2 and spelling.endswith(close):
        return spelling[1:-1].replace(close * 2, close)
    return spelling


def columns(mapping: Mapping[str, str] | None, needed: tuple[str, ...], kind: str) -> dict[str, str]:
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


def _on(left: str, right: str, keys: Sequence[str], *rest: str) -> str:
    """Join condition: breakdown keys null-safe (a null locale is a group), ids by equality."""
    parts = [f"{left}.{k} IS NOT DISTINCT FROM {right}.{k}" for k in keys]
    parts += [f"{left}.{c} = {right}.{c}" for c in rest]
    return " AND ".join(parts)


def _cols(alias: str, keys: Sequence[str], *rest: str) -> str:
    return ", ".join(f"{alias}.{c}" if alias else c for c in [*keys, *rest])


def breakdowns(by: Sequence[str], qrels_by: Sequence[str]) -> tuple[list[str], list[str]]:
    """The breakdown columns and those the qrels carry too, checked."""
    for name, cols in (("by", by), ("qrels_by", qrels_by)):
        if isinstance(cols, str) or len(set(cols)) != len(cols):
            msg = f"{name}= takes distinct column names, e.g. {name}=['locale']; got {cols!r}."
            raise InputError(msg)
    reserved = [c for c in by if display(c) in (Q, D, S, REL, "measure", "value")]
    if reserved:
        msg = (
            f"The breakdown column {reserved[0]!r} (by=...) is a column of the result or of the "
            "evaluation; breakdowns are other columns of the run, such as 'locale'."
        )
        raise InputError(msg)
    extra = [c for c in qrels_by if c not in by]
    if extra:
        msg = (
            f"qrels_by names {extra[0]!r}, which is not in by={list(by)!r}: qrels_by says which "
            "breakdown columns the qrels carry too."
        )
        raise InputError(msg)
    return list(by), list(qrels_by)


#: the columns of the CTEs, beside which a breakdown keeps its own name (else it is k0, k1...)
_INTERNAL = re.compile(r"(query_id|doc_id|rel|score|rank|g|pos|present|[hjwmk]\d+|ideal\d+(_\d+)?)", re.I)


def key_names(by: Sequence[str]) -> list[str]:
    """The breakdowns' names inside the query: quoted, or ``k<i>`` where one would clash."""
    return [f"k{i}" if _INTERNAL.fullmatch(display(c)) else quote(display(c)) for i, c in enumerate(by)]


@dataclass(frozen=True)
class Inputs:
    """The two inputs as the query reads them: ``qrels_in`` and ``run_in``, with their breakdowns.

    ``keys``: the breakdowns' names inside the query (:func:`key_names`); ``qkeys``: those the
    qrels carry too; ``fixed``: those that owe a group each of its judged queries (``qkeys``
    and the ``run`` name); ``own``: the others (breakdowns of the run alone).
    """

    by: list[str]
    keys: list[str]
    qkeys: list[str]
    fixed: list[str]
    own: list[str]
    ctes: list[tuple[str, str]]

    @classmethod
    def of(
        cls,
        qrels: str,
        run: str,
        by: Sequence[str],
        qrels_by: Sequence[str],
        qrels_columns: Mapping[str, str] | None,
        run_columns: Mapping[str, str] | None,
        *,
        grade: str = "CAST({rel} AS DOUBLE)",
    ) -> Inputs:
        """``grade``: the grade's expression, ``{rel}`` standing for the column.

        ``qrels`` and ``run``: the tables as the user spells them (read in the dialect's syntax
        by ``dialects.transpile``). Grades are cast to DOUBLE: integers, whole-number doubles
        and text (``'2'``) grades compare alike.
        """
        by, qrels_by = breakdowns(by, qrels_by)
        qc = columns(qrels_columns, (Q, D, REL), "qrels")
        rc = columns(run_columns, (Q, D, S), "run")
        keys = key_names(by)
        qkeys = [k for k, c in zip(keys, by, strict=True) if c in qrels_by]
        fixed = [k for k, c in zip(keys, by, strict=True) if c in qrels_by or display(c) == "run"]
        renamed = [f", {quote(c)} AS {k}" for k, c in zip(keys, by, strict=True)]
        run_keys = "".join(renamed)
        qrels_keys = "".join(r for r, k in zip(renamed, keys, strict=True) if k in qkeys)

        def ids(col: Mapping[str, str]) -> str:
            return f"CAST({quote(col[Q])} AS VARCHAR) AS query_id, CAST({quote(col[D])} AS VARCHAR) AS doc_id"

        rel = grade.format(rel=quote(qc[REL]))
        ctes = [
            ("qrels_in", f"SELECT {ids(qc)}, {rel} AS rel{qrels_keys} FROM {quote(qrels)}"),
            ("run_in",
             f"SELECT {ids(rc)}, CAST({quote(rc[S])} AS DOUBLE) AS score{run_keys} FROM {quote(run)}"),
        ]
        return cls(by, keys, qkeys, fixed, [k for k in keys if k not in fixed], ctes)


def hits_level(measures: Sequence[Measure], relevance_level: int, judged_only: bool) -> int | None:
    """The lowest grade the measures read, when each reads only retrieved documents of a grade.

    As for rankframe's hits plan (:attr:`Measure.HITS_ONLY`): the ``judged`` rows are then an
    inner join with the judgments of that grade up, a tenth of the run on TREC-like data, and
    the number retrieved is counted apart (``retrieved``). ``None``: every retrieved row is
    needed.
    """
    if judged_only:
        return None
    levels = [m.hit_level(relevance_level) for m in measures]
    return None if any(v is None for v in levels) else min(levels)  # type: ignore[type-var]


def build(
    measures: Sequence[Measure],
    *,
    qrels: str,
    run: str,
    per_query: bool,
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
    complete: bool,
    depth: int | None,
    relevance_level: int,
    judged_only: bool,
    qrels_columns: Mapping[str, str] | None,
    run_columns: Mapping[str, str] | None,
) -> str:
    """The evaluation of ``measures`` as one SELECT statement in DuckDB's dialect.

    Breakdowns follow the rule of ``_engine.rank.missing_pairs`` (DESIGN.md §2): a key the
    qrels carry (``qrels_by``) or the ``run`` name is *fixed* (each group is owed each of its
    judged queries); other breakdowns of the run alone are *own* (a group's queries are those
    it holds; with ``complete``, a judged query no group holds is scored 0 once, in a group
    whose own breakdowns are null).
    """
    if not measures:
        msg = "No measure to compile: name at least one (e.g. 'nDCG@10')."
        raise MeasureError(msg)
    inputs = Inputs.of(qrels, run, by, qrels_by, qrels_columns, run_columns)
    by, keys, qkeys = inputs.by, inputs.keys, inputs.qkeys
    q = SqlCtx(relevance_level=relevance_level)
    values = _per_query_sql(measures, q)
    group = _cols("", keys, Q)  # a group: (breakdowns..., query_id)
    qgroup = _cols("", qkeys, Q)

    ctes = list(inputs.ctes)
    # trec_eval's order
    order = "ORDER BY score DESC, doc_id DESC"
    ctes.append(("ranked", (
        f"SELECT {group}, doc_id, ROW_NUMBER() OVER (PARTITION BY {group} {order}) AS rank FROM run_in"
    )))

    row_stats = list(q.row_stats)
    if q.judgments:
        ctes.append(("judgments", (
            f"SELECT {qgroup}, "
            + ", ".join(f"{sql} AS {alias}" for alias, sql in q.judgments.items())
            + f" FROM qrels_in GROUP BY {qgroup}"
        )))
    partition = f"PARTITION BY {_cols('r', keys, Q)}"
    windows = [f"{sql.format(query=partition)} AS {alias}" for alias, sql in q.windows.items()]
    stats = [f"s.{alias}" for alias in row_stats]
    where = [] if depth is None else [f"r.rank <= {depth}"]
    on_doc = _on("r", "j", qkeys, Q, D)
    level = hits_level(measures, relevance_level, judged_only)
    if judged_only:  # -J after -M: the judged documents of the cut ranking, ranked again
        rank = f"ROW_NUMBER() OVER ({partition} ORDER BY r.rank) AS rank"
        join = f" JOIN qrels_in AS j ON {on_doc}"
        where.append("j.rel >= 0")
    elif level is not None:  # hits only: the retrieved documents of grade >= level
        rank = "r.rank"
        join = f" JOIN qrels_in AS j ON {on_doc}"
        where.append(f"j.rel >= {level}")
    else:
        rank = "r.rank"
        join = f" LEFT JOIN qrels_in AS j ON {on_doc}"
    if row_stats:
        join += f" LEFT JOIN judgments AS s ON {_on('r', 's', qkeys, Q)}"
    inner = ", ".join([_cols("r", keys, Q), rank, "j.rel", *stats])
    where_sql = f" WHERE {' AND '.join(where)}" if where else ""
    judged = f"SELECT {inner} FROM ranked AS r{join}{where_sql}"
    if windows:
        judged = f"SELECT r.*, {', '.join(windows)} FROM ({judged}) AS r"
    ctes.append(("judged", judged))
    hit_cols = ", ".join(f"{sql} AS {alias}" for alias, sql in q.hits.items())
    if q.uses_num_ret and level is None:
        hit_cols += (", " if hit_cols else "") + "COUNT(*) AS n_ret"
    ctes.append(("hits", f"SELECT {group}{', ' + hit_cols if hit_cols else ''} FROM judged GROUP BY {group}"))
    if q.uses_num_ret and level is not None:  # the judged rows are the hits: count the ranking
        cut = "" if depth is None else f" WHERE rank <= {depth}"
        ctes.append(("retrieved", f"SELECT {group}, COUNT(*) AS n_ret FROM ranked{cut} GROUP BY {group}"))
    for gain, (name, aggregates) in q.ideals.items():
        ctes.append((f"{name}_rows", (
            f"SELECT {qgroup}, g, ROW_NUMBER() OVER (PARTITION BY {qgroup} ORDER BY g DESC) AS pos "
            f"FROM (SELECT {qgroup}, {gain} AS g FROM qrels_in WHERE rel >= 0) AS i WHERE g > 0"
        )))
        cols = ", ".join(f"{sql} AS {alias}" for alias, sql in aggregates.items())
        ctes.append((name, f"SELECT {qgroup}, {cols} FROM {name}_rows GROUP BY {qgroup}"))
    ctes.extend(query_set(inputs, complete=complete))
    joins = [f" LEFT JOIN hits ON {_on('queries', 'hits', keys, Q)}"]
    if q.uses_num_ret and level is not None:
        joins.append(f" LEFT JOIN retrieved ON {_on('queries', 'retrieved', keys, Q)}")
    if q.judgments:
        joins.append(f" LEFT JOIN judgments ON {_on('queries', 'judgments', qkeys, Q)}")
    for name, _ in q.ideals.values():
        joins.append(f" LEFT JOIN {name} ON {_on('queries', name, qkeys, Q)}")
    selected = [_cols("queries", keys, Q)] + [
        f"{value} AS {quote(f'm{i}')}" for i, value in enumerate(values)
    ]
    ctes.append(("per_query", "SELECT " + ", ".join(selected) + " FROM queries" + "".join(joins)))

    # the long result: each row of per_query (or of its aggregates) once per measure, by a
    # cross join with the measure names; engines that inline CTEs (Spark, Trino, BigQuery)
    # would compute every CTE once per measure under a UNION ALL of one SELECT per measure
    named = "".join(f"t.{k} AS {quote(display(c))}, " for k, c in zip(keys, by, strict=True))
    source = "per_query"
    if not per_query:
        group_by = f" GROUP BY {', '.join(keys)}" if keys else ""
        aggregates = [f"{_aggregate(m, quote(f'm{i}'))} AS {quote(f'm{i}')}" for i, m in enumerate(measures)]
        ctes.append(("aggregated", f"SELECT {_cols('', keys)}{', ' if keys else ''}"
                     + ", ".join(aggregates) + f" FROM per_query{group_by}"))
        source = "aggregated"
    names = ", ".join(f"({i}, {_name(m)})" for i, m in enumerate(measures))
    value = "CASE m.i " + " ".join(f"WHEN {i} THEN t.{quote(f'm{i}')}" for i in range(len(measures))) + " END"
    body = (
        f"SELECT {named}{'t.query_id, ' if per_query else ''}m.measure, {value} AS value "
        f"FROM {source} AS t CROSS JOIN (VALUES {names}) AS m(i, measure)"
    )
    return with_ctes(ctes, body)


def with_ctes(ctes: Sequence[tuple[str, str]], body: str) -> str:
    """``WITH name AS (sql), ... body``."""
    with_ = ",\n".join(f"{name} AS (\n  {sql}\n)" for name, sql in ctes)
    return f"WITH {with_}\n{body}"


def query_set(inputs: Inputs, *, complete: bool) -> list[tuple[str, str]]:
    """The CTEs of the query set: ``queries`` holds the (group, query) pairs evaluated.

    Judged pairs the run holds; with ``complete``, also the judged pairs it lacks: every judged
    query of each fixed group (``qrels_by``, ``run``), and with own breakdowns a judged query no
    group holds, once, with null own breakdowns (``_engine.rank.missing_pairs``).
    """
    keys, qkeys, fixed, own = inputs.keys, inputs.qkeys, inputs.fixed, inputs.own
    ctes = [
        ("run_queries", f"SELECT DISTINCT {_cols('', keys, Q)} FROM run_in"),
        ("qrels_queries", f"SELECT DISTINCT {_cols('', qkeys, Q)} FROM qrels_in"),
    ]
    held = (
        f"SELECT {_cols('r', keys, Q)} FROM run_queries AS r "
        f"JOIN qrels_queries AS j ON {_on('r', 'j', qkeys, Q)}"
    )
    if not complete:
        return [*ctes, ("queries", held)]
    if not keys:
        return [*ctes, ("queries", "SELECT query_id FROM qrels_queries")]
    # the fixed groups of the evaluation, each owed every judged query (of its qrels keys)
    owed = "qrels_queries AS j"
    if fixed != qkeys:  # the run name: each run owes every judged query
        extra = [k for k in fixed if k not in qkeys]
        # the groups first: a join of every (group, query) pair with every judged query of its
        # qrels group is quadratic in the number of queries (10^10 rows at 100,000 queries)
        groups = f"(SELECT DISTINCT {_cols('', [*extra, *qkeys])} FROM run_queries) AS g"
        owed = (
            f"(SELECT {_cols('g', extra)}, {_cols('j', qkeys, Q)} FROM {groups} "
            f"JOIN qrels_queries AS j{' ON ' + _on('g', 'j', qkeys) if qkeys else ' ON TRUE'}) AS j"
        )
    elif qkeys and own:  # only the qrels groups the run has
        owed = (
            f"(SELECT {_cols('j', qkeys, Q)} FROM qrels_queries AS j JOIN "
            f"(SELECT DISTINCT {_cols('', qkeys)} FROM run_queries) AS g ON {_on('j', 'g', qkeys)}) AS j"
        )
    if not own:
        return [*ctes, ("queries", f"SELECT {_cols('j', keys, Q)} FROM {owed}")]
    present = (
        f"(SELECT DISTINCT {_cols('', fixed, Q)}, 1 AS present FROM run_queries) AS p"
    )
    nulls = ", ".join(f"j.{k}" if k in fixed else f"NULL AS {k}" for k in keys)
    missing = (
        f"SELECT {nulls}, j.query_id FROM {owed} "
        f"LEFT JOIN {present} ON {_on('j', 'p', fixed, Q)} WHERE p.present IS NULL"
    )
    return [*ctes, ("queries", f"{held}\nUNION ALL\n{missing}")]
