"""The compiled query in each engine's dialect: sqlglot transpiles, a few engine rules by hand.

The query is written once in DuckDB's dialect (``build``) and transpiled by sqlglot. What
sqlglot cannot know, written here by hand:

* **Your names, in your engine's syntax.** The tables (``qrels=``, ``run=``) are read as what may
  follow ``FROM`` in the dialect: ``my-project.eval.qrels`` in BigQuery, `` `eval`.`qrels` ``
  in Spark, ``"Eval"."Qrels"`` in PostgreSQL, or a parenthesised subquery written in that
  dialect. Column names are matched as the engine matches them: a plain name (``QID``) is
  written unquoted, so the engine folds its case as it folds every unquoted name (PostgreSQL
  and DataFusion to lower case, Snowflake to upper case; DuckDB, Spark, BigQuery and SQLite
  ignore case; ClickHouse keeps it); a name in the dialect's quotes (``'"QID"'``) is matched
  exactly; any other name (``"my col"``) is taken as written, quoted.
* **Byte order of doc ids** (trec_eval breaks score ties by ``strcmp``, ``"9"`` above
  ``"10"``). DuckDB, Spark/Databricks, ClickHouse, Trino, DataFusion and SQLite (its BINARY
  collation) compare strings by their bytes (or by code points, the same order for UTF-8);
  BigQuery compares by code points too. PostgreSQL orders by the database's collation
  (``en_US`` puts ``"b"`` before ``"B"``...): the ranking window orders by ``doc_id COLLATE
  "C"``. Snowflake compares bytes unless a column carries a collation: ``COLLATE 'utf8'``
  (binary) forces it.
* **log2**: sqlglot writes ``LOG(2, x)`` (ln x / ln 2) for every dialect; engines that have
  ``LOG2`` get it back, whose bits are C's ``log2``.
* **Decimal literals**: Spark, Databricks, Trino and Snowflake read ``1.0`` as a DECIMAL(2, 1),
  so ``1.0 / rank`` is a decimal division rounded to a fixed scale (RR at rank 6 in Spark:
  0.166666666667, 2e-12 off); DuckDB, whose dialect the query is written in, divides in DOUBLE.
  Those dialects get ``CAST(1.0 AS DOUBLE)`` for every non-integer number literal, and so does
  DataFusion, which reads them as DECIMAL under ``datafusion.sql_parser.parse_float_as_decimal``
  (a session setting the query cannot set itself).
* **ClickHouse**: a LEFT JOIN miss gives the column type's default (0, not NULL: a judged
  query missing from the run would look present) unless ``join_use_nulls = 1``, and ``sum``
  of no rows is 0 (NULL in SQL; ``evaluate``'s mean of no query is NaN) unless
  ``aggregate_functions_null_for_empty = 1``: the query sets both itself (``SETTINGS``). A
  qualified column projected beside joins (``r.query_id``) keeps its qualified name there, so
  each is given its own name (``r.query_id AS query_id``).
* **SQLite** names no column of a ``VALUES`` table: the measure names are a ``UNION ALL`` of
  one-row SELECTs instead; it has no ``GREATEST``/``LEAST``: scalar ``MAX``/``MIN`` of
  COALESCEs instead.
* **DataFusion** (no sqlglot dialect): PostgreSQL's text, which DataFusion reads, without the
  ``COLLATE`` it does not know (it compares bytes), with ``LOG2`` and with each ``IS NOT
  DISTINCT FROM`` in parentheses (DataFusion reads ``a IS NOT DISTINCT FROM b AND c`` as
  ``a IS NOT DISTINCT FROM (b AND c)``).
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any

from rankframe._errors import InputError

#: The dialects ``rankframe.sql.query`` writes (sqlglot's names, and ``datafusion``).
DIALECTS = (
    "duckdb", "spark", "databricks", "bigquery", "snowflake", "trino", "postgres", "clickhouse",
    "sqlite", "datafusion",
)

#: The sqlglot dialect each of ours is written and read in (itself, where not listed).
_SQLGLOT = {"datafusion": "postgres"}
_HAS_LOG2 = {"duckdb", "spark", "databricks", "trino", "clickhouse", "sqlite", "datafusion"}
_DECIMAL_LITERALS = {"spark", "databricks", "trino", "snowflake", "datafusion"}
_COLLATION = {"postgres": ("C", True), "snowflake": ("utf8", False)}
#: An unquoted name every dialect reads as one identifier (unless it is a keyword).
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: The CTEs that read the user's tables, by the argument that names the table.
_INPUTS = {"qrels_in": "qrels", "run_in": "run"}


def check_dialect(dialect: str) -> str:
    """Return ``dialect`` lower-cased, or raise naming the dialects rankframe writes."""
    name = dialect.lower()
    if name not in DIALECTS:
        msg = f"Unknown SQL dialect {dialect!r}; rankframe writes {', '.join(DIALECTS)}."
        raise ValueError(msg)
    return name


def _quotes(dialect: str) -> str:
    """How a name is quoted in ``dialect``, in words."""
    if dialect in ("bigquery", "spark", "databricks"):
        return "backquotes (`my table`)"
    if dialect == "clickhouse":
        return 'backquotes or double quotes (`my table`, "my table")'
    return 'double quotes ("my table")'


def column(spelling: str, dialect: str) -> Any:
    """A column name as the engine of ``dialect`` would match it, as a sqlglot identifier.

    A plain name (letters, digits, ``_``) that is not a keyword: unquoted, so that the engine
    folds its case as for any unquoted name. A keyword (``date``): quoted, in the case the
    engine folds unquoted names to. A name in the dialect's identifier quotes: exactly the
    name inside them. Any other text: exactly as written, quoted.
    """
    from sqlglot import exp
    from sqlglot.dialects.dialect import Dialect
    from sqlglot.errors import SqlglotError
    from sqlglot.tokens import TokenType

    read = Dialect.get_or_raise(_SQLGLOT.get(dialect, dialect))
    try:
        tokens = read.tokenize(spelling)
    except SqlglotError:
        tokens = []
    if len(tokens) == 1 and tokens[0].end == len(spelling) - 1:
        token = tokens[0]
        if token.token_type == TokenType.VAR and _PLAIN.fullmatch(spelling):
            return exp.Identifier(this=spelling, quoted=False)
        if token.token_type == TokenType.IDENTIFIER:
            return exp.Identifier(this=token.text, quoted=True)
        if _PLAIN.fullmatch(spelling):  # a keyword: quoted as the engine folds it
            folded = read.normalize_identifier(exp.Identifier(this=spelling, quoted=False))
            return exp.Identifier(this=folded.name, quoted=True)
    return exp.Identifier(this=spelling, quoted=True)


def table(spelling: str, dialect: str, option: str) -> Any:
    """What ``FROM`` reads for a table argument, in the dialect's own syntax.

    A table name (``db.schema.table``, quoted parts, a table function) or a parenthesised
    subquery.

    Raises :class:`~rankframe.InputError` naming ``option`` when ``spelling`` is neither.
    """
    import sqlglot
    from sqlglot import exp

    read = _SQLGLOT.get(dialect, dialect)
    fix = (
        f"Give a table or view name in {dialect}'s syntax (db.schema.table; a name with other "
        f"characters in {_quotes(dialect)}) or a parenthesised subquery, e.g. (SELECT * FROM t)."
    )
    if not spelling.strip():
        msg = f"{option}={spelling!r} is empty. {fix}"
        raise InputError(msg)
    try:
        trees = sqlglot.parse(f"SELECT * FROM {spelling}", read=read)  # parse_one: the first (27)
    except sqlglot.errors.SqlglotError as e:
        detail = str(e).splitlines()[0] if str(e) else type(e).__name__
        detail = re.sub(r" but got <Token .*", "", detail)  # sqlglot's token dump: no help
        msg = f"{option}={spelling!r} does not parse in {dialect} ({detail[:200]}). {fix}"
        raise InputError(msg) from None
    if len(trees) != 1 or not isinstance(trees[0], exp.Select):
        msg = f"{option}={spelling!r} is not one table or subquery in {dialect}. {fix}"
        raise InputError(msg)
    tree = trees[0]
    source = tree.args.get("from_" if "from_" in exp.Select.arg_types else "from")
    found = source.this if source is not None else None
    extra = [k for k, v in tree.args.items() if v and k not in ("expressions", "from", "from_")]
    commented = any(node.comments for node in tree.walk())
    aliased = isinstance(found, exp.Table) and found.alias
    if not isinstance(found, exp.Table | exp.Subquery) or extra or commented or aliased:
        msg = f"{option}={spelling!r} is not one table or subquery in {dialect}. {fix}"
        raise InputError(msg)
    if isinstance(found, exp.Subquery) and not found.alias:  # PostgreSQL < 16 needs one
        found.set("alias", exp.TableAlias(this=exp.to_identifier("src")))
    return found


@functools.lru_cache(maxsize=32)
def transpile(text: str, dialect: str) -> str:
    """``text`` (DuckDB's dialect) as a readable query in ``dialect``.

    The tables and columns the inputs read (the ``qrels_in`` and ``run_in`` CTEs) are written
    in the text as quoted names that hold the user's spelling: they are read here in the
    dialect's syntax (:func:`table`, :func:`column`). Kept for the process by (text, dialect):
    sqlglot's Python parser takes ~0.5-1.5 s over a full measure list's ~45 kB, which an engine
    or a caller asking again for the same query (the Spark and DuckDB engines, a scheduled job's
    loop) paid each time.
    """
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(text, read="duckdb")
    except sqlglot.errors.SqlglotError as e:
        msg = (
            "The compiled query does not parse; check the qrels= and run= arguments (a table or "
            f"view name, or a parenthesised subquery): {str(e).splitlines()[0][:200]}"
        )
        raise InputError(msg) from None
    for cte in tree.find_all(exp.CTE):
        if cte.alias in _INPUTS:
            _user_names(cte.this, dialect, _INPUTS[cte.alias])

    def fix(node: Any) -> Any:
        if (
            dialect in _DECIMAL_LITERALS and isinstance(node, exp.Literal) and not node.is_string
            and not node.this.lstrip("-").isdigit()
        ):
            return exp.Cast(this=node.copy(), to=exp.DataType.build("DOUBLE"))
        if isinstance(node, exp.Log) and node.expression is not None and dialect in _HAS_LOG2:
            base = node.this
            if isinstance(base, exp.Literal) and base.this == "2":
                return exp.Anonymous(this="LOG2", expressions=[node.expression])
        if dialect in _COLLATION and isinstance(node, exp.Window):
            name, quoted = _COLLATION[dialect]
            order = node.args.get("order")
            for ordered in order.expressions if order is not None else ():
                column = ordered.this
                if isinstance(column, exp.Column) and column.name == "doc_id":
                    collation = exp.Identifier(this=name, quoted=True) if quoted else exp.Literal.string(name)
                    ordered.set("this", exp.Collate(this=column, expression=collation))
        if dialect == "datafusion" and isinstance(node, exp.NullSafeEQ):
            return exp.Paren(this=node.copy())
        if dialect == "clickhouse" and isinstance(node, exp.Select):
            node.set("expressions", [
                exp.alias_(p.copy(), p.name)
                if isinstance(p, exp.Column) and p.table and isinstance(p.this, exp.Identifier) else p
                for p in node.expressions
            ])
        if dialect == "sqlite" and isinstance(node, exp.Values) and node.alias_column_names:
            return _values_as_union(node)
        return node

    tree = tree.transform(fix, copy=False)  # the tree is ours: no copy of its 40,000 nodes
    if dialect == "sqlite":  # innermost first: LEAST(GREATEST(...), 4)
        for node in reversed(list(tree.find_all(exp.Greatest, exp.Least, bfs=False))):
            node.replace(_scalar_max(node))
    if dialect == "clickhouse" and isinstance(tree, exp.Select):
        tree.set("settings", [
            exp.EQ(this=exp.column(name), expression=exp.Literal.number(1))
            for name in ("join_use_nulls", "aggregate_functions_null_for_empty")
        ])
    # sqlglot logs that BigQuery cannot say NULLS LAST in a window's ORDER BY rank: ranks are
    # never null, so the order is the same
    log = logging.getLogger("sqlglot")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        return tree.sql(dialect=_SQLGLOT.get(dialect, dialect), pretty=True)
    finally:
        log.setLevel(level)


def _user_names(select: Any, dialect: str, option: str) -> None:
    """Read the user's table and column spellings of an input CTE in ``dialect``'s syntax."""
    from sqlglot import exp

    for node in list(select.find_all(exp.Column)):  # before the tables: not a subquery's own
        if isinstance(node.this, exp.Identifier) and not node.table:
            node.set("this", column(node.this.name, dialect))
    for node in list(select.find_all(exp.Table)):
        node.replace(table(node.name, dialect, option))


def _values_as_union(values: Any) -> Any:
    """``(VALUES (0, 'a'), ...) AS m(i, measure)`` as ``(SELECT 0 AS i, 'a' AS measure UNION ALL ...)``."""
    from sqlglot import exp

    names = [exp.Identifier(this=n, quoted=False) for n in values.alias_column_names]
    union = None
    for row in values.expressions:  # nodes built directly: sqlglot's builders copy and parse
        select = exp.Select(expressions=[
            exp.Alias(this=v, alias=n.copy()) for v, n in zip(row.expressions, names, strict=True)
        ])
        union = select if union is None else exp.Union(this=union, expression=select, distinct=False)
    return exp.Subquery(this=union, alias=exp.TableAlias(this=exp.to_identifier(values.alias)))


def _scalar_max(node: Any) -> Any:
    """SQLite's ``GREATEST(a, b)``: ``MAX(COALESCE(a, b), COALESCE(b, a))`` (``LEAST``: ``MIN``).

    SQLite has no GREATEST or LEAST (sqlglot 30 writes this, 27 does not); its scalar MAX and
    MIN are NULL when an argument is, GREATEST and LEAST skip NULLs, hence the COALESCEs.
    """
    from sqlglot import exp

    args = [node.this, *node.expressions]
    coalesced = [
        exp.Coalesce(this=a.copy(), expressions=[b.copy() for j, b in enumerate(args) if j != i])
        for i, a in enumerate(args)
    ]
    name = "MAX" if isinstance(node, exp.Greatest) else "MIN"
    return exp.Anonymous(this=name, expressions=coalesced)
