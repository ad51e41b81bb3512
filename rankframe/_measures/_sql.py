"""The shared pieces of the measures' SQL: what a measure's ``sql`` method reads and registers.

A measure compiles to SQL as it compiles to Polars: a per-query value built from per-query
aggregates. :class:`SqlCtx` hands a measure's :meth:`~rankframe.Measure.sql` method the names
of those aggregates, each registered once however many measures share it, over three kinds
of rows (the CTEs of the compiled query, see ``rankframe._sql``):

* ``judged``: the retrieved documents (within the depth) with their ``rank`` (1, 2, ... in
  trec_eval's order) and ``rel`` (the grade; NULL when the document is not in the qrels);
  window columns over them (:meth:`SqlCtx.window`) and per-query statistics joined to them
  (:meth:`SqlCtx.row_stat`);
* ``qrels``: every judgment of the query, retrieved or not (column ``rel``);
* ``ideal_*``: the judgments with a positive gain, best first, at positions ``pos``.

The text is written in DuckDB's dialect and transpiled by sqlglot to the others; keep to what
sqlglot maps everywhere (CASE, COALESCE, LN, LOG2, POWER, CAST AS DOUBLE, SUM/MIN/MAX/COUNT,
windows with ROWS frames).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The SQL type of every value (sqlglot writes FLOAT64, DOUBLE PRECISION... per dialect).
_FLOAT = "DOUBLE"


def lit(value: float) -> str:
    """A float literal that reads back to the same double (``repr`` round-trips)."""
    text = repr(float(value))
    return f"CAST({text} AS {_FLOAT})" if "e" in text or "inf" in text or "nan" in text else text


def div(num: str, den: str) -> str:
    """``num / den`` as a double, 0.0 where ``den`` is 0 (an undefined query scores 0)."""
    return f"COALESCE(CAST({num} AS {_FLOAT}) / NULLIF({den}, 0), 0.0)"


@dataclass
class SqlCtx:
    """What a measure's SQL reads: per-query aggregates, registered by their text.

    Each ``register`` method takes an aggregate's SQL and returns the column that holds its
    value in the per-query row (the same text gives the same column, so measures share them).
    Missing aggregates (a query with no retrieved documents, scored 0 by ``complete``) read as
    ``default``.
    """

    relevance_level: int = 1
    #: aggregates over the ``judged`` rows, by alias (``h0, h1, ...``)
    hits: dict[str, str] = field(default_factory=dict)
    #: aggregates over the query's judgments, by alias (``j0, ...``)
    judgments: dict[str, str] = field(default_factory=dict)
    #: window columns of the ``judged`` rows, by alias (``w0, ...``)
    windows: dict[str, str] = field(default_factory=dict)
    #: per-query judgment statistics the ``judged`` rows read (aliases of :attr:`judgments`)
    row_stats: list[str] = field(default_factory=list)
    #: ideal rankings, by gain expression: (CTE name, {alias: aggregate over it})
    ideals: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    #: whether a measure reads the number of retrieved documents (column ``n_ret``): counted
    #: apart from the ``judged`` rows, which may hold only the relevant ones (hits only)
    uses_num_ret: bool = False

    def level(self, rel: int | None) -> int:
        """The relevance level in force for a measure parameter ``rel``."""
        return self.relevance_level if rel is None else rel

    # rows -------------------------------------------------------------------------------
    def relevant(self, rel: int | None = None) -> str:
        """Predicate: the row is judged relevant at the level in force (false when unjudged)."""
        return f"rel >= {self.level(rel)}"

    @staticmethod
    def within(cutoff: int | None) -> str:
        """Predicate: the row is ranked within ``cutoff`` (always true without one)."""
        return "TRUE" if cutoff is None else f"rank <= {cutoff}"

    @staticmethod
    def gain(gains: tuple[tuple[int, float], ...] | None = None, dcg: str = "log2") -> str:
        """The gain of a row: its grade (0 when negative or unjudged), or a gain map's value.

        Grades absent from the map keep their own value (trec_eval's rule); ``dcg="exp-log2"``
        gives ``2^gain - 1``.
        """
        cases = "".join(f" WHEN rel = {grade} THEN {lit(value)}" for grade, value in (gains or ()))
        gain = f"CASE WHEN rel IS NULL OR rel < 0 THEN 0.0{cases} ELSE CAST(rel AS {_FLOAT}) END"
        return f"(POWER(2.0, {gain}) - 1.0)" if dcg == "exp-log2" else gain

    # registration -----------------------------------------------------------------------
    @staticmethod
    def _register(table: dict[str, str], prefix: str, sql: str) -> str:
        for alias, known in table.items():
            if known == sql:
                return alias
        alias = f"{prefix}{len(table)}"
        table[alias] = sql
        return alias

    def hit(self, aggregate: str, default: str | None = "0") -> str:
        """A per-query aggregate over the ``judged`` rows (``SUM(...)``, ``MIN(...)``)."""
        alias = self._register(self.hits, "h", aggregate)
        return f"COALESCE({alias}, {default})" if default is not None else alias

    def judgment(self, aggregate: str, default: str | None = "0") -> str:
        """A per-query aggregate over the query's judgments, retrieved or not (column ``rel``)."""
        alias = self._register(self.judgments, "j", aggregate)
        return f"COALESCE({alias}, {default})" if default is not None else alias

    def window(self, sql: str) -> str:
        """A window column of the ``judged`` rows (``... OVER (ORDER BY rank ...)``), by alias.

        ``PARTITION BY`` the query is added by the compiler: write ``OVER (ORDER BY rank ROWS
        UNBOUNDED PRECEDING)`` as ``OVER ({query} ORDER BY rank ROWS UNBOUNDED PRECEDING)``.
        """
        return self._register(self.windows, "w", sql)

    def row_stat(self, aggregate: str) -> str:
        """A per-query judgment statistic readable on every ``judged`` row (joined to them)."""
        alias = self._register(self.judgments, "j", aggregate)
        if alias not in self.row_stats:
            self.row_stats.append(alias)
        return f"COALESCE({alias}, 0)"

    def ideal(self, gain: str, aggregate: str) -> str:
        """A per-query aggregate over the ideal ranking of ``gain`` (columns ``g``, ``pos``).

        The ideal ranking holds the judged documents (grade >= 0) with ``gain > 0``, at
        positions ``pos = 1, 2, ...`` by gain, highest first; it is never cut by the depth.
        """
        name, table = self.ideals.setdefault(gain, (f"ideal{len(self.ideals)}", {}))
        alias = self._register(table, f"{name}_", aggregate)
        return f"COALESCE({alias}, 0)"

    # common statistics ------------------------------------------------------------------
    def num_rel(self, rel: int | None = None) -> str:
        """Number of judged relevant documents of the query (retrieved or not)."""
        return self.judgment(f"SUM(CASE WHEN {self.relevant(rel)} THEN 1 ELSE 0 END)")

    def num_ret(self) -> str:
        """Number of retrieved documents (within the depth; judged ones with ``judged_only``)."""
        self.uses_num_ret = True
        return "COALESCE(n_ret, 0)"

    def num_rel_ret(self, rel: int | None = None, cutoff: int | None = None) -> str:
        """Number of relevant retrieved documents (within ``cutoff``)."""
        return self.hit(
            f"SUM(CASE WHEN {self.relevant(rel)} AND {self.within(cutoff)} THEN 1 ELSE 0 END)"
        )

    def found_so_far(self, rel: int | None = None) -> str:
        """Window column: relevant documents at or above each row's rank."""
        return self.window(
            f"SUM(CASE WHEN {self.relevant(rel)} THEN 1 ELSE 0 END) "
            "OVER ({query} ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
        )

    def dcg(self, gain: str, cutoff: int | None) -> str:
        """Sum of ``gain / log2(rank + 1)`` over the retrieved documents within ``cutoff``."""
        return self.hit(f"SUM(CASE WHEN {self.within(cutoff)} THEN {gain} / LOG2(rank + 1) ELSE 0.0 END)",
                        "0.0")

    def ideal_dcg(self, gain: str, cutoff: int | None) -> str:
        """DCG of the ideal ranking of ``gain``, cut at ``cutoff``."""
        within = "TRUE" if cutoff is None else f"pos <= {cutoff}"
        return self.ideal(gain, f"SUM(CASE WHEN {within} THEN g / LOG2(pos + 1) ELSE 0.0 END)")
