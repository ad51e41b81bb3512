"""rankframe.sql in ClickHouse (chdb), DataFusion and SQLite: each dialect's text, run, equals evaluate.

Three engines that run in this process, started by the tests: ClickHouse through ``chdb`` (an
in-memory session; tables typed as a ClickHouse user types them: ``String`` ids, ``Int64``
grades, ``Nullable(String)`` only where a breakdown has nulls), DataFusion (Arrow tables
registered in a ``SessionContext``) and SQLite (Python's ``sqlite3``, declared ``TEXT``,
``REAL``, ``INTEGER`` columns). Each runs the text of ``rf.sql.query(..., dialect=...)`` for
its dialect (``clickhouse``, ``datafusion``, ``sqlite``) as a user would paste it.

Shown, per engine: every measure family that compiles, per query and in the aggregate, equals
``evaluate`` to 1e-12 relative on the hypothesis-drawn edge cases of test_sql.py (ties among
"9"/"10"/"b"/"B", grades -1..3, unjudged documents, queries on one side only; complete,
depth, relevance_level, judged_only), with breakdowns of every layout (null breakdown values
among them), on the corners of the query-set rule, on awkward ids (quotes, spaces, non-ASCII,
integers) and on text grades; the input checks find what DuckDB's find; table names in the
engine's own quoting and column names matched as the engine folds case. Also each fix that
made an engine exact, shown to matter: ClickHouse's ``SETTINGS join_use_nulls = 1`` (without it
an unjudged document counts as judged) and DataFusion's parenthesised ``IS NOT DISTINCT FROM``.

The module also checks the engine matrix of docs/guides/sql.md against the measure lists the
engine tests run (:func:`test_the_guide_matrix_is_what_the_tests_run`).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe import sql as rsql
from tests.test_edge_matrix import judged_runs
from tests.test_sql import (
    BREAKDOWN_MEASURES,
    COMPILED,
    COMPILED_FAMILIES,
    DATA,
    LAYOUTS,
    _evaluate,
    assert_same,
    breakdown_tables,
    with_breakdowns,
)

duckdb = pytest.importorskip("duckdb", reason="duckdb is in the test extra")
sqlglot = pytest.importorskip("sqlglot")

ENGINES = ("clickhouse", "datafusion", "sqlite")
#: the measures every engine runs: each family that compiles, several parameter sets of each
MEASURES = COMPILED


@dataclass
class Engine:
    """An engine of this process: ``load`` (re)creates tables from frames, ``query`` runs a text."""

    dialect: str
    load: Callable[..., None]
    run: Callable[[str], pl.DataFrame]

    def query(self, text: str) -> pl.DataFrame:
        """The rows of ``text``: ``value`` a double, the other columns strings."""
        out = self.run(text)
        return out.with_columns(
            pl.col(c).cast(pl.Float64 if c == "value" else pl.String) for c in out.columns
        )


def _clickhouse() -> Engine:
    chdb = pytest.importorskip("chdb", reason="chdb is in the test extra")
    con = chdb.connect(":memory:")
    types = {pl.String: "String", pl.Float64: "Float64", pl.Int64: "Int64"}

    def load(**tables: pl.DataFrame) -> None:
        for name, frame in tables.items():
            columns = ", ".join(
                f"`{c}` " + (f"Nullable({types[t]})" if frame[c].has_nulls() else types[t])
                for c, t in frame.schema.items()
            )
            con.query(f"DROP TABLE IF EXISTS {name}")
            con.query(f"CREATE TABLE {name} ({columns}) ENGINE = Memory")
            if frame.height:
                data = frame.to_arrow()  # noqa: F841 - read by name by chdb's Python() table function
                con.query(f"INSERT INTO {name} SELECT * FROM Python(data)")

    def run(text: str) -> pl.DataFrame:
        return pl.from_arrow(con.query(text, "ArrowTable"))  # type: ignore[return-value]

    return Engine("clickhouse", load, run)


def _datafusion() -> Engine:
    datafusion = pytest.importorskip("datafusion", reason="datafusion is in the test extra")
    ctx = datafusion.SessionContext()

    def load(**tables: pl.DataFrame) -> None:
        for name, frame in tables.items():
            if ctx.table_exist(name):
                ctx.deregister_table(name)
            ctx.from_arrow(frame.to_arrow(), name=name)

    def run(text: str) -> pl.DataFrame:
        return pl.from_arrow(ctx.sql(text).to_arrow_table())  # type: ignore[return-value]

    return Engine("datafusion", load, run)


def _sqlite() -> Engine:
    con = sqlite3.connect(":memory:")
    types = {pl.String: "TEXT", pl.Float64: "REAL", pl.Int64: "INTEGER"}
    missing = [f for f in ("log2", "ln", "exp", "power") if not _has_function(con, f)]
    if missing:
        pytest.skip(f"this SQLite ({sqlite3.sqlite_version}) lacks the math functions {missing} (3.35+)")

    def load(**tables: pl.DataFrame) -> None:
        for name, frame in tables.items():
            columns = ", ".join(f'"{c}" {types[t]}' for c, t in frame.schema.items())
            con.execute(f"DROP TABLE IF EXISTS {name}")
            con.execute(f"CREATE TABLE {name} ({columns})")
            marks = ", ".join("?" * frame.width)
            con.executemany(f"INSERT INTO {name} VALUES ({marks})", frame.rows())

    def run(text: str) -> pl.DataFrame:
        cursor = con.execute(text)
        if cursor.description is None:  # a statement without rows (ATTACH)
            return pl.DataFrame()
        names = [d[0] for d in cursor.description]
        rows = cursor.fetchall()
        return pl.DataFrame(rows, schema=names, orient="row", infer_schema_length=None)

    return Engine("sqlite", load, run)


def _has_function(con: sqlite3.Connection, name: str) -> bool:
    try:
        con.execute(f"SELECT {name}(2.0{', 2.0' if name == 'power' else ''})")
    except sqlite3.OperationalError:
        return False
    return True


_STARTERS = {"clickhouse": _clickhouse, "datafusion": _datafusion, "sqlite": _sqlite}


@pytest.fixture(scope="module", params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Engine:
    return _STARTERS[request.param]()


@functools.cache
def _text(measures: tuple[str, ...], dialect: str, per_query: bool, options: tuple) -> str:
    """The query text, written once per measures, dialect and options (sqlglot takes ~0.3 s)."""
    return rsql.query(list(measures), dialect=dialect, per_query=per_query, **dict(options))


def _options(options: dict[str, Any]) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items()))


def _compare(engine: Engine, qrels: pl.DataFrame, run: pl.DataFrame, measures: list[str],
             **options: Any) -> None:
    """evaluate and the engine's text, per query and aggregated, on the same tables."""
    by = list(options.get("by", ()))
    engine.load(qrels=qrels, run=run)
    for per_query in (True, False):
        evaluate_options = {k: v for k, v in options.items() if k != "qrels_by"}
        want = _evaluate(qrels, run, measures, per_query=per_query, **evaluate_options)
        want = want.with_columns(pl.exclude("value").cast(pl.String))  # integer ids: as text
        got = engine.query(_text(tuple(measures), engine.dialect, per_query, _options(options)))
        assert got.columns[: len(by)] == by
        assert_same(want, got, [*by, "query_id", "measure"] if per_query else [*by, "measure"])


def _stacked(datasets: list[tuple[pl.DataFrame, pl.DataFrame, dict]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The drawn datasets as one qrels and one run, each dataset's query ids prefixed apart.

    Each query is evaluated alone, so the values are those of separate evaluations; an engine
    spends most of a query's time planning it (ClickHouse ~1 s for every measure), not on rows.
    """
    def prefixed(frame: pl.DataFrame, i: int) -> pl.DataFrame:
        return frame.with_columns((pl.lit(f"d{i}:") + pl.col("query_id")).alias("query_id"))

    qrels = pl.concat([prefixed(q, i) for i, (q, _, _) in enumerate(datasets)] + [DEEP[0]])
    run = pl.concat([prefixed(r, i) for i, (_, r, _) in enumerate(datasets)] + [DEEP[1]])
    return qrels, run


#: A query longer than the drawn ones: 12 judged documents, relevant at ranks 7 (grade 2) and 11,
#: so that reciprocal ranks such as 1/7 are compared to their last bits too.
DEEP = (
    pl.DataFrame({"query_id": ["deep"] * 12, "doc_id": [f"x{i:02d}" for i in range(12)],
                  "relevance": [0] * 6 + [2, 0, 0, 0, 1, 0]}),
    pl.DataFrame({"query_id": ["deep"] * 12, "doc_id": [f"x{i:02d}" for i in range(12)],
                  "score": [float(12 - i) for i in range(12)]}),
)


@settings(max_examples=max(2, settings.default.max_examples * 5 // 20))
@given(
    datasets=st.lists(judged_runs(), min_size=3, max_size=3),
    complete=st.booleans(),
    relevance_level=st.sampled_from((1, 2)),
    judged_only=st.booleans(),
    depth=st.sampled_from((None, None, 1, 3)),
)
def test_every_compiled_measure_equals_evaluate(
    engine: Engine, datasets: list, complete: bool, relevance_level: int, judged_only: bool, depth: int | None
) -> None:
    # the edge-matrix frames of test_sql.py, three to an example
    qrels, run = _stacked(datasets)
    options = {"complete": complete, "relevance_level": relevance_level, "judged_only": judged_only}
    _compare(engine, qrels, run, MEASURES, **options, depth=depth)


def test_empty_tables(engine: Engine) -> None:
    # no query evaluated: evaluate's means are NaN, the query's NULL (ClickHouse's sum of no
    # rows is 0 unless aggregate_functions_null_for_empty, which the query sets)
    qrels = pl.DataFrame(schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64})
    run = pl.DataFrame(schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64})
    _compare(engine, qrels, run, ["NumQ", "NumRet", "AP", "GMAP", "nDCG@3"])
    _compare(engine, qrels, run, ["NumQ", "AP"], complete=True)


@settings(max_examples=max(2, settings.default.max_examples * 5 // 20))
@given(data=judged_runs(), layout=st.sampled_from(sorted(LAYOUTS)), labels=st.data())
def test_breakdowns_equal_evaluate(engine: Engine, data: tuple, layout: str, labels: st.DataObject) -> None:
    # by= of the run alone, carried by the qrels too, the run name, mixes; null breakdown values
    qrels, run, options = data
    by, qrels_by = LAYOUTS[layout]
    qrels, run = with_breakdowns(labels, qrels, run, by, qrels_by)
    _compare(engine, qrels, run, BREAKDOWN_MEASURES, by=by, qrels_by=qrels_by, **options)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_breakdown_query_set_corners(engine: Engine, layout: str) -> None:
    # a qrels group no run row has, a judged query no group holds, a null group, an unjudged query
    by, qrels_by = LAYOUTS[layout]
    qrels, run = breakdown_tables(by, qrels_by)
    for complete in (False, True):
        _compare(engine, qrels, run, BREAKDOWN_MEASURES, by=by, qrels_by=qrels_by, complete=complete)


def test_the_sample_run(engine: Engine) -> None:
    qrels = rf.read_qrels(DATA / "qrels.dl19-passage.txt").collect().select("query_id", "doc_id", "relevance")
    run = rf.read_run(DATA / "run.dl19.bm25.txt").collect().select("query_id", "doc_id", "score")
    _compare(engine, qrels, run, MEASURES, complete=True, depth=100)


#: ids a warehouse holds: quotes, backslashes, spaces, non-ASCII (byte order: "é" above "z"),
#: an empty string, digits ("9" above "10")
AWKWARD = ["it's", 'say "hi"', "back\\slash", " lead", "é", "z", "", "9", "10", "Ω-1", "日本"]


def test_awkward_ids(engine: Engine) -> None:
    qrels = pl.DataFrame({
        "query_id": ["q'1", "q'1", "q'1", 'q"2', 'q"2', "é", "é", "é"],
        "doc_id": ["it's", "é", "9", 'say "hi"', "", "z", "日本", "10"],
        "relevance": [1, 2, 1, 1, 3, 2, 1, 1],
    })
    run = pl.DataFrame({
        "query_id": ["q'1"] * 5 + ['q"2'] * 3 + ["é"] * 4,
        "doc_id": ["it's", "é", "9", "10", "z", 'say "hi"', "", "back\\slash", "z", "日本", "10", "Ω-1"],
        "score": [1.0] * 12,  # every document tied: byte order alone ranks them
    })
    _compare(engine, qrels, run, ["RR", "AP", "nDCG@3", "P@2", "Judged@3"], complete=True)


def test_integer_ids_compare_as_text(engine: Engine) -> None:
    # ids stored as integers are read as their decimal text, as evaluate and trec_eval read them:
    # tied documents 9 and 10 rank "9" first
    qrels = pl.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 9, 100], "relevance": [1, 0, 1]})
    run = pl.DataFrame({"query_id": [1, 1, 2, 2], "doc_id": [9, 10, 100, 99], "score": [1.0, 1.0, 1.0, 1.0]})
    _compare(engine, qrels, run, ["RR", "AP", "P@1"])


def test_text_grades_are_cast(engine: Engine) -> None:
    # a grade column of text ('2'), as a CSV import leaves it: compared as numbers, not as text
    qrels = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": list("abcd"), "relevance": [10, 2, 0, -1]})
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": list("abcd"), "score": [1.0, 4.0, 3.0, 2.0]})
    want = _evaluate(qrels, run, ["nDCG@3", "P(rel=3)@4", "Judged@4"], per_query=True)
    engine.load(qrels=qrels.with_columns(pl.col("relevance").cast(pl.String)), run=run)
    text = rsql.query(["nDCG@3", "P(rel=3)@4", "Judged@4"], dialect=engine.dialect, per_query=True)
    got = engine.query(text)
    assert_same(want, got, ["query_id", "measure"])


def test_a_null_score_ranks_last_as_in_duckdb(engine: Engine) -> None:
    # evaluate refuses a null score (the checks query finds it); the query itself ranks it
    # last in every engine, as DuckDB does (DataFusion ranks NULL first by default)
    qrels = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [None, 1.0]})
    text = rsql.query(["RR"], per_query=True)
    con = duckdb.connect()
    con.register("qrels", qrels.to_arrow())
    con.register("run", run.to_arrow())
    assert con.sql(text).fetchall() == [("q", "RR", 0.5)]
    engine.load(qrels=qrels, run=run)
    got = engine.query(rsql.query(["RR"], per_query=True, dialect=engine.dialect))
    assert got.rows() == [("q", "RR", 0.5)]


def test_unjudged_documents_stay_unjudged(engine: Engine) -> None:
    # ClickHouse under its default join_use_nulls = 0 read a missed LEFT JOIN as the type's
    # default: unjudged documents counted as judged, and a null group lost its queries
    qrels = pl.DataFrame({"query_id": ["q", "r"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    run = pl.DataFrame({
        "query_id": ["q", "q", "r", "s"], "doc_id": ["a", "b", "a", "a"], "score": [2.0, 1.0, 1.0, 1.0],
        "locale": ["en", "en", None, "en"],
    })
    _compare(engine, qrels, run, ["Judged@2", "Unjudged@2", "NumQ"])
    _compare(engine, qrels, run, ["Judged@2", "NumQ"], by=["locale"], complete=True)


def test_clickhouse_needs_join_use_nulls() -> None:
    # the setting is what makes ClickHouse exact: without it the checks query loses the two
    # coverage notes (a judged query not in the run, a run query not judged)
    engine = _clickhouse()
    text = rsql.checks(dialect="clickhouse")
    settings_ = "SETTINGS join_use_nulls = 1, aggregate_functions_null_for_empty = 1"
    assert text.rstrip().endswith(settings_)
    qrels = pl.DataFrame({"query_id": ["q", "r"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    run = pl.DataFrame({"query_id": ["q", "s"], "doc_id": ["a", "a"], "score": [2.0, 1.0]})
    engine.load(qrels=qrels, run=run)
    found = set(engine.query(text)["problem"])
    assert found == {"judged query not in run", "run query not judged"}
    without = text.rstrip().removesuffix(settings_) + "SETTINGS aggregate_functions_null_for_empty = 1"
    assert set(engine.query(without)["problem"]) == set()


def test_datafusion_needs_parentheses() -> None:
    # DataFusion reads `a IS NOT DISTINCT FROM b AND c` as `a IS NOT DISTINCT FROM (b AND c)`:
    # PostgreSQL's text without its collation (what the datafusion text is, but for the
    # parentheses and LOG2) fails there on every breakdown query
    engine = _datafusion()
    qrels, run = breakdown_tables(["locale"], [])
    engine.load(qrels=qrels, run=run)
    text = rsql.query(["NumQ"], by=["locale"], dialect="datafusion")
    tests = list(sqlglot.parse_one(text, read="postgres").find_all(sqlglot.exp.NullSafeEQ))
    assert tests
    assert all(isinstance(t.parent, sqlglot.exp.Paren) for t in tests)
    assert_same(_evaluate(qrels, run, ["NumQ"], by=["locale"]), engine.query(text), ["locale", "measure"])
    bare = rsql.query(["NumQ"], by=["locale"], dialect="postgres").replace(' COLLATE "C"', "")
    with pytest.raises(Exception, match="(?i)boolean"):
        engine.query(bare)


def test_datafusion_whatever_its_literal_setting() -> None:
    # under parse_float_as_decimal DataFusion reads 1.0 as a DECIMAL: the text casts every
    # non-integer literal to DOUBLE, so the values stay doubles (RR at rank 6, ERR, RBP...)
    datafusion = pytest.importorskip("datafusion", reason="datafusion is in the test extra")
    config = datafusion.SessionConfig().set("datafusion.sql_parser.parse_float_as_decimal", "true")
    ctx = datafusion.SessionContext(config)
    qrels = DEEP[0].vstack(pl.DataFrame({"query_id": ["q"], "doc_id": ["x5"], "relevance": [1]}))
    run = DEEP[1].vstack(pl.DataFrame({"query_id": ["q"] * 7, "doc_id": [f"x{i}" for i in range(7)],
                                   "score": [7.0 - i for i in range(7)]}))
    ctx.from_arrow(qrels.to_arrow(), name="qrels")
    ctx.from_arrow(run.to_arrow(), name="run")
    measures = ["RR", "AP", "nDCG@10", "ERR", "RBP", "GMAP", "infAP", "Bpref"]
    got = pl.from_arrow(ctx.sql(rsql.query(measures, dialect="datafusion", per_query=True)).to_arrow_table())
    assert isinstance(got, pl.DataFrame)
    assert got.schema["value"] == pl.Float64
    assert_same(_evaluate(qrels, run, measures, per_query=True), got, ["query_id", "measure"])


# ----------------------------------------------------------------------------- the input checks
def _problems(engine: Engine, qrels: pl.DataFrame, run: pl.DataFrame, **options: Any) -> list[tuple]:
    engine.load(qrels=qrels, run=run)
    got = engine.query(rsql.checks(dialect=engine.dialect, **options))
    return _sorted_problems(got)


def _sorted_problems(found: pl.DataFrame) -> list[tuple]:
    rows = found.select("input", "problem", "rows", "query_id", "doc_id").cast(pl.String).rows()
    return sorted(rows, key=str)


def _duckdb_problems(qrels: pl.DataFrame, run: pl.DataFrame, **options: Any) -> list[tuple]:
    con = duckdb.connect()
    con.register("qrels", qrels.to_arrow())
    con.register("run", run.to_arrow())
    got = con.sql(rsql.checks(**options)).pl()
    return _sorted_problems(got)


def test_checks_find_what_duckdb_finds(engine: Engine) -> None:
    # duplicates, an infinite score, fractional and null grades, and the two coverage notes
    # (which ClickHouse lost under join_use_nulls = 0); SQLite stores NaN as NULL, so no NaN here
    qrels = pl.DataFrame({
        "query_id": ["q1", "q1", "q1", "q2", "q3", "q3"], "doc_id": ["a", "a", "b", "a", "c", "d"],
        "relevance": [1.0, 0.0, 0.5, None, 1.0, 2.0],
    })
    run = pl.DataFrame({
        "query_id": ["q1", "q1", "q2", "q4", "q4"], "doc_id": ["a", "b", "a", "x", "x"],
        "score": [1.0, float("inf"), 2.0, 1.0, 1.0],
    })
    want = _duckdb_problems(qrels, run)
    assert {p[1] for p in want} == {
        "duplicate", "non-finite score", "fractional grade", "null grade", "judged query not in run",
        "run query not judged",
    }
    assert _problems(engine, qrels, run) == want
    clean = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    assert _problems(engine, clean, run.head(1).with_columns(query_id=pl.lit("q"))) == []


# ----------------------------------------------------------------------------- names
def test_table_names_in_the_engines_own_quoting(engine: Engine) -> None:
    # a table of a database or schema, each part quoted as the engine quotes it
    qrels = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    quote = "`" if engine.dialect == "clickhouse" else '"'
    names = {"qrels": f"{quote}eval{quote}.{quote}Q rels{quote}", "run": "eval.run"}
    _load_in_schema(engine, {"Q rels": qrels, "run": run})
    got = engine.query(rsql.query(["RR"], dialect=engine.dialect, **names))
    assert got.rows() == [("RR", 0.5)]
    subquery = "(SELECT * FROM eval.run WHERE score > 1.5)"  # a subquery, in the engine's syntax
    got = engine.query(rsql.query(["RR"], dialect=engine.dialect, qrels=names["qrels"], run=subquery))
    assert got.rows() == [("RR", 0.0)]


def _load_in_schema(engine: Engine, tables: dict[str, pl.DataFrame]) -> None:
    """Tables named ``eval.<name>`` in the engine (a database, a schema, an attached file)."""
    if engine.dialect == "datafusion":
        engine.run("CREATE SCHEMA IF NOT EXISTS eval")
        engine.load(**{f'eval."{name}"': frame for name, frame in tables.items()})
        return
    if engine.dialect == "clickhouse":
        engine.run("CREATE DATABASE IF NOT EXISTS eval")
        engine.load(**{f"eval.`{name}`": frame for name, frame in tables.items()})
        return
    try:
        engine.run("ATTACH DATABASE ':memory:' AS eval")
    except sqlite3.OperationalError:  # attached by an earlier test
        pass
    engine.load(**{f'eval."{name}"': frame for name, frame in tables.items()})


def test_column_names_match_as_the_engine_folds_case(engine: Engine) -> None:
    # a column created unquoted as QID (PostgreSQL and DataFusion store qid, Snowflake QID) is
    # found when named QID; a name in the engine's quotes is matched exactly
    stored = "qid" if engine.dialect == "datafusion" else "QID"
    qrels = pl.DataFrame({stored: ["q", "q"], "doc_id": ["a", "b"], "Grade": [1, 0]})
    run = pl.DataFrame({stored: ["q", "q"], "doc_id": ["a", "b"], "my score": [1.0, 2.0]})
    engine.load(qrels=qrels, run=run)
    quote = "`" if engine.dialect == "clickhouse" else '"'
    text = rsql.query(
        ["RR"], dialect=engine.dialect,
        qrels_columns={"query_id": "QID", "relevance": f"{quote}Grade{quote}"},
        run_columns={"query_id": "QID", "score": "my score"},
    )
    assert engine.query(text).rows() == [("RR", 0.5)]


# ----------------------------------------------------------------------------- the guide's matrix
def _matrix_engines() -> list[tuple[str, str, str, list[str], str]]:
    """The engines of the guide's matrix, in its order: (name, dialect, what runs it, the
    measures its tests compare with evaluate, the test module and function that compares its
    breakdowns and options)."""
    from tests.test_sql_families import MEASURES as FAMILIES

    return [
        ("DuckDB", "duckdb", "`duckdb`", [*COMPILED, *FAMILIES],
         "test_sql.py::test_breakdowns_follow_evaluates_rule"),
        ("PostgreSQL", "postgres", "a server the tests start", COMPILED,
         "test_sql_postgres.py::test_postgres_breakdowns"),
        ("Spark SQL", "spark", "local[2] `pyspark`", COMPILED_FAMILIES,
         "test_sql_spark_engine.py::test_breakdowns_equal_evaluate"),
        ("ClickHouse", "clickhouse", "`chdb`", MEASURES,
         "test_sql_engines.py::test_breakdowns_equal_evaluate"),
        ("DataFusion", "datafusion", "`datafusion`", MEASURES,
         "test_sql_engines.py::test_breakdowns_equal_evaluate"),
        ("SQLite", "sqlite", "`sqlite3`", MEASURES, "test_sql_engines.py::test_breakdowns_equal_evaluate"),
    ]


def engine_matrix() -> str:
    """The guide's engine matrix: each family that compiles, exact in each engine whose tests run it."""
    from rankframe._measures import REGISTRY, Measure
    from rankframe._measures._names import parse_measures

    engines = _matrix_engines()
    ran = [{type(m).__name__ for m in parse_measures(e[3])} for e in engines]
    compiled = sorted((n for n, c in REGISTRY.items() if c.sql is not Measure.sql), key=str.lower)
    refused = sorted((n for n, c in REGISTRY.items() if c.sql is Measure.sql), key=str.lower)
    modules = [e[4].split("::")[0] for e in engines]

    def row(label: str, cells: list[str]) -> str:
        return f"| {label} | " + " | ".join(cells) + " |"

    lines = [
        row("", [e[0] for e in engines]),
        "|---|" + "---|" * len(engines),
        row("*dialect=*", [f"`{e[1]}`" for e in engines]),
        row("*run by*", [f"{e[2]} ({m})" for e, m in zip(engines, modules, strict=True)]),
        *(row(f, ["exact" if f in r else "not run" for r in ran]) for f in compiled),
        row("breakdowns, `complete`, `depth`, `-l`, `-J`", ["exact"] * len(engines)),
        row(f"no SQL form: {', '.join(refused)}", ["refused by design"] * len(engines)),
    ]
    return "\n".join(lines)


def test_the_guide_matrix_is_what_the_tests_run() -> None:
    # each "exact" cell: the family is in the measure list the engine's tests compare with
    # evaluate (per query and means), and the engine's breakdown test exists (drawn layouts,
    # complete, relevance_level, judged_only); the last row: the families without a SQL form,
    # refused in every dialect (test_the_families_without_sql_are_refused_in_every_dialect)
    tests = Path(__file__).parent
    for *_, where in _matrix_engines():
        module, function = where.split("::")
        assert f"def {function}(" in (tests / module).read_text(), where
    guide = (DATA.parent / "docs" / "guides" / "sql.md").read_text()
    matrix = engine_matrix()
    assert "not run" not in matrix, "an engine's tests leave a family out"
    assert matrix in guide, f"regenerate the guide's engine matrix:\n{matrix}"


def test_the_families_without_sql_are_refused_in_every_dialect() -> None:
    from rankframe._measures import REGISTRY, Measure

    for cls in REGISTRY.values():
        if cls.sql is not Measure.sql:
            continue
        for dialect in rsql.DIALECTS:
            with pytest.raises(rf.MeasureError, match=r"No SQL form for .*The families that compile"):
                rsql.query([_instance(cls)], dialect=dialect)


def _instance(cls: type) -> Any:
    """A measure of family ``cls``, with the cutoff RelP and RprecMult require."""
    try:
        return cls()
    except rf.MeasureError:
        return cls(cutoff=1)
