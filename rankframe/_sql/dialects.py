"""The compiled query in each engine's dialect: sqlglot transpiles, two hand-written collations.

The query is written once in DuckDB's dialect (``build``) and transpiled by sqlglot. What
sqlglot cannot know, written here by hand:

* **Byte order of doc ids** (trec_eval breaks score ties by ``strcmp``, ``"9"`` above
  ``"10"``). DuckDB, Spark/Databricks, ClickHouse and Trino compare strings by their bytes (or
  by code points, the same order for UTF-8); BigQuery compares by code points too. PostgreSQL
  orders by the database's collation (``en_US`` puts ``"b"`` before ``"B"``...): the ranking
  window orders by ``doc_id COLLATE "C"``. Snowflake compares bytes unless a column carries a
  collation: ``COLLATE 'utf8'`` (binary) forces it.
* **log2**: sqlglot writes ``LOG(2, x)`` (ln x / ln 2) for every dialect; engines that have
  ``LOG2`` get it back, whose bits are C's ``log2``.
* **Decimal literals**: Spark, Databricks, Trino and Snowflake read ``1.0`` as a DECIMAL(2, 1),
  so ``1.0 / rank`` is a decimal division rounded to a fixed scale (RR at rank 6 in Spark:
  0.166666666667, 2e-12 off); DuckDB, whose dialect the query is written in, divides in DOUBLE.
  Those dialects get ``CAST(1.0 AS DOUBLE)`` for every non-integer number literal.
"""

from __future__ import annotations

from typing import Any

from rankframe._errors import InputError

#: The dialects ``rankframe.sql.query`` writes (sqlglot's names).
DIALECTS = ("duckdb", "spark", "databricks", "bigquery", "snowflake", "trino", "postgres", "clickhouse")

_HAS_LOG2 = {"duckdb", "spark", "databricks", "trino", "clickhouse"}
_DECIMAL_LITERALS = {"spark", "databricks", "trino", "snowflake"}
_COLLATION = {"postgres": ("C", True), "snowflake": ("utf8", False)}


def check_dialect(dialect: str) -> str:
    """Return ``dialect`` lower-cased, or raise naming the dialects rankframe writes."""
    name = dialect.lower()
    if name not in DIALECTS:
        msg = f"Unknown SQL dialect {dialect!r}; rankframe writes {', '.join(DIALECTS)}."
        raise ValueError(msg)
    return name


def transpile(text: str, dialect: str) -> str:
    """``text`` (DuckDB's dialect) as a readable query in ``dialect``."""
    import sqlglot  # on first use: not with `import rankframe`
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(text, read="duckdb")
    except sqlglot.errors.ParseError as e:
        msg = (
            "The compiled query does not parse; check the qrels= and run= arguments (a table or "
            f"view name, or a parenthesised subquery): {e}"
        )
        raise InputError(msg) from e

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
        return node

    tree = tree.transform(fix)
    return tree.sql(dialect=dialect, pretty=True)
