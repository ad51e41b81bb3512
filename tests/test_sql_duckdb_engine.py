"""``evaluate(..., engine="duckdb")``: the compiled query in embedded DuckDB, as ``evaluate``.

Differential against the Polars engine on hypothesis-drawn adversarial frames (ties among "9"
and "10", graded, -1 and unjudged labels, queries on one side only; complete, depth,
relevance_level, judged_only; breakdowns of every kind), on Parquet paths that DuckDB reads
itself (column mappings, folders with hive partitions, several runs) and on TREC text; the same
input errors and coverage warnings; the options it does not implement refused.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf
from tests.test_edge_matrix import judged_runs
from tests.test_sql import BREAKDOWN_MEASURES, COMPILED, LAYOUTS, with_breakdowns

pytest.importorskip("duckdb", reason="duckdb is in the test extra")

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS, RUN = DATA / "qrels.dl19-passage.txt", DATA / "run.dl19.bm25.txt"
FIVE = ["nDCG@10", "AP", "P@10", "R@100", "RR", "GMAP", "NumRet"]


def _both(qrels: Any, run: Any, measures: list[str], **options: Any) -> tuple[pl.DataFrame, pl.DataFrame]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = rf.evaluate(qrels, run, measures, **options)
        got = rf.evaluate(qrels, run, measures, engine="duckdb", **options)
    return want, got


def assert_equal(want: pl.DataFrame, got: pl.DataFrame) -> None:
    """The same rows in the same order, dtypes included; values to 1e-12 relative."""
    assert got.schema == want.schema
    assert got.drop("value").equals(want.drop("value")), (want, got)
    for a, b, m in zip(want["value"], got["value"], want["measure"], strict=True):
        if a is None or math.isnan(a):  # no query evaluated: NaN (evaluate's mean of nothing)
            assert b is not None and math.isnan(b) if a is not None else b is None, (m, a, b)
        else:
            assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300), (m, a, b)


@settings(max_examples=settings.default.max_examples * 10 // 20)  # (~6 s an example)
@given(data=judged_runs(), depth=st.sampled_from((None, None, 1, 3)))
def test_duckdb_engine_equals_evaluate(data: tuple, depth: int | None) -> None:
    qrels, run, options = data
    for per_query in (True, False):
        assert_equal(*_both(qrels, run, COMPILED, per_query=per_query, depth=depth, **options))


@settings(max_examples=settings.default.max_examples * 15 // 20)
@given(data=judged_runs(), layout=st.sampled_from(sorted(LAYOUTS)), labels=st.data())
def test_duckdb_engine_breakdowns(data: tuple, layout: str, labels: st.DataObject) -> None:
    # by= of the run alone, carried by the qrels too (found in the qrels frame, as evaluate
    # finds them), the run column of stacked runs, mixes; null breakdown values
    qrels, run, options = data
    by, qrels_by = LAYOUTS[layout]
    qrels, run = with_breakdowns(labels, qrels, run, by, qrels_by)
    for per_query in (True, False):
        assert_equal(*_both(qrels, run, BREAKDOWN_MEASURES, per_query=per_query, by=by, **options))


def test_parquet_paths_read_by_duckdb(tmp_path: Path) -> None:
    # DuckDB scans the files: a file with other column names (mapped as evaluate maps them:
    # the well-known names and qrels_columns), a folder with hive partitions, several runs
    qrels = rf.read_qrels(QRELS).collect()
    run = rf.read_run(RUN).collect().select("query_id", "doc_id", "score")
    qrels.rename({"query_id": "qid", "doc_id": "docno", "relevance": "judgement"}).write_parquet(
        tmp_path / "qrels.parquet"
    )
    run.rename({"query_id": "qid", "doc_id": "docno"}).write_parquet(tmp_path / "run.parquet")
    folder = tmp_path / "run_by_day"
    run.with_columns(day=pl.col("query_id").str.slice(-1).alias("day")).write_parquet(
        folder, partition_by="day"
    )
    options = {"qrels_columns": {"relevance": "judgement"}}
    for per_query in (False, True):
        want = rf.evaluate(QRELS, RUN, FIVE, per_query=per_query)
        got = rf.evaluate(tmp_path / "qrels.parquet", tmp_path / "run.parquet", FIVE, per_query=per_query,
                          engine="duckdb", **options)
        assert_equal(want, got)
        qrels_path = tmp_path / "qrels.parquet"
        assert_equal(*_both(qrels_path, folder, FIVE, per_query=per_query, by=["day"], **options))
        runs = {"bm25": tmp_path / "run.parquet", "days": folder}
        assert_equal(*_both(tmp_path / "qrels.parquet", runs, FIVE, per_query=per_query, **options))


def test_trec_text_and_frames(tmp_path: Path) -> None:
    for per_query in (False, True):
        assert_equal(*_both(QRELS, RUN, FIVE + ["official"], per_query=per_query, complete=True))
    qrels = rf.read_qrels(QRELS).collect()
    runs = {"a": rf.read_run(RUN).collect(), "b": RUN}
    assert_equal(*_both(qrels.to_arrow(), runs, FIVE, per_query=True))
    # integer ids stay integers, as evaluate keeps them
    ints = pl.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 9, 3], "relevance": [1, 0, 1]})
    iruns = pl.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 9, 4], "score": [1.0, 1.0, 2.0]})
    assert_equal(*_both(ints, iruns, FIVE, per_query=True))
    out = tmp_path / "per_query.parquet"
    got = rf.evaluate(QRELS, RUN, FIVE, engine="duckdb", output=out)
    assert_equal(rf.evaluate(QRELS, RUN, FIVE), got)
    assert_equal(rf.evaluate(QRELS, RUN, FIVE, per_query=True), pl.read_parquet(out))


def _error(engine: str, qrels: Any, run: Any, **options: Any) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(rf.InputError) as info:
            rf.evaluate(qrels, run, ["AP"], engine=engine, **options)
    return str(info.value)


BAD = {
    "duplicate run row": ([("q", "a", 1)], [("q", "a", 1.0), ("q", "a", 2.0)]),
    "duplicate judgment": ([("q", "a", 1), ("q", "a", 0)], [("q", "a", 1.0)]),
    "NaN score": ([("q", "a", 1)], [("q", "a", float("nan"))]),
    "infinite score": ([("q", "a", 1)], [("q", "a", float("-inf"))]),
    "null score": ([("q", "a", 1)], [("q", "a", None)]),
    "null doc id": ([("q", "a", 1)], [("q", None, 1.0)]),
    "null grade": ([("q", "a", None)], [("q", "a", 1.0)]),
    "null query id in the qrels": ([(None, "a", 1)], [("q", "a", 1.0)]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_the_same_input_errors(case: str) -> None:
    judgments, rows = BAD[case]
    ids = {"query_id": pl.String, "doc_id": pl.String}
    qrels = pl.DataFrame(judgments, schema={**ids, "relevance": pl.Int64}, orient="row")
    run = pl.DataFrame(rows, schema={**ids, "score": pl.Float64}, orient="row")
    assert _error("duckdb", qrels, run) == _error("polars", qrels, run)


def test_fractional_grades_and_missing_columns(tmp_path: Path) -> None:
    qrels = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1.0, 0.5]})
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    assert _error("duckdb", qrels, run) == _error("polars", qrels, run)
    run.rename({"score": "points"}).write_parquet(tmp_path / "run.parquet")
    message = _error("duckdb", qrels.with_columns(pl.col("relevance").round()), tmp_path / "run.parquet")
    assert "'score'" in message
    assert "'points'" in message


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_scores_in_parquet_duckdb_reads_itself(tmp_path: Path, bad: float) -> None:
    # DuckDB pruned the check query's WHERE NOT (score - score = 0) with Parquet statistics,
    # which leave NaN out: the check is written in a form it does not prune
    run = tmp_path / "run.parquet"
    pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, bad]}).write_parquet(run)
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    where = r"run\.parquet, column 'score': the score of query 'q', doc 'b'"
    for engine in ("polars", "duckdb"):
        with pytest.raises(rf.InputError, match=where):
            rf.evaluate(qrels, str(run), ["AP"], engine=engine)


def test_the_same_coverage_warnings() -> None:
    qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 0]})
    run = pl.DataFrame({
        "query_id": ["q1", "q4", "q1"], "doc_id": ["a", "b", "b"], "score": [1.0, 2.0, 0.5],
        "locale": ["en", "de", "de"],
    })
    for options in ({}, {"complete": True}, {"by": ["locale"]}, {"by": ["locale"], "complete": True}):
        caught = {}
        for engine in ("polars", "duckdb"):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                rf.evaluate(qrels, run, ["AP"], engine=engine, **options)
            caught[engine] = [(w.category, str(w.message)) for w in seen]
        assert caught["duckdb"] == caught["polars"], options
        assert caught["polars"], options


def test_what_it_refuses() -> None:
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(ValueError, match="engine='duckdb' does not implement ties='input'"):
        rf.evaluate(qrels, run, ["AP"], engine="duckdb", ties="input")
    with pytest.raises(ValueError, match="partitions=4: .* DuckDB spills to disk by itself"):
        rf.evaluate(qrels, run, ["AP"], engine="duckdb", partitions=4)
    with pytest.raises(ValueError, match="Unknown engine 'spark': 'polars' .* or 'duckdb'"):
        rf.evaluate(qrels, run, ["AP"], engine="spark")
    with pytest.raises(rf.MeasureError, match="No SQL form for KendallTau.*The families that compile"):
        rf.evaluate(qrels, run, ["AP", "KendallTau"], engine="duckdb")


def _largest_step(con: Any, text: str, tmp_path: Path) -> int:
    """The most rows any operator of ``text`` produced in DuckDB (its JSON profile)."""
    import json

    profile = tmp_path / "profile.json"
    con.execute("PRAGMA enable_profiling='json'")
    con.execute(f"PRAGMA profiling_output='{profile}'")
    con.sql(text).fetchall()
    con.execute("PRAGMA disable_profiling")

    def rows(node: dict) -> int:
        return max([node.get("intermediate_rows", 0), *(rows(c) for c in node.get("children", []))])

    return max(rows(op) for op in json.loads(profile.read_text())["operator"])


def test_each_run_owed_every_judged_query_is_linear_in_queries(tmp_path: Path) -> None:
    # the (run, query) pairs owed with complete=True (the query and the coverage warnings'
    # query): each run's judged queries came from a join of every (run, query) pair with every
    # judged query, quadratic in the queries (10^10 rows at 100,000 queries: the CLI, which
    # names its runs, took 175-290 s at 10M rows where evaluate on one path took 5.5 s)
    import duckdb

    from rankframe._sql.checks import coverage

    n = 2000
    queries = [f"q{i}" for i in range(n)]
    con = duckdb.connect()
    qrels = pl.DataFrame({"query_id": queries, "doc_id": "d", "relevance": 1})
    # run b retrieves the relevant document of the first half of the queries only: AP 0.5
    run = pl.DataFrame({"run": ["a"] * n + ["b"] * (n // 2), "query_id": queries + queries[: n // 2],
                        "doc_id": "d", "score": 1.0})
    con.register("qrels", qrels.to_arrow())
    con.register("run", run.to_arrow())
    texts = [
        rf.sql.query(["AP", "P@10"], by=["run"], complete=True),
        coverage(qrels="qrels", run="run", by=["run"]),
    ]
    for text in texts:
        assert _largest_step(con, text, tmp_path) <= 2 * run.height
    got = pl.from_arrow(con.sql(texts[0]).arrow()).sort("run", "measure")
    with pytest.warns(rf.RankframeWarning, match="1000 judged queries are missing from 1 of the 2 runs"):
        rf.evaluate(qrels, run, ["AP"], by=["run"])  # complete=True asks for the zeros silently
    want = rf.evaluate(qrels, run, ["AP", "P@10"], by=["run"], complete=True).sort("run", "measure")
    assert_equal(want, got)
    assert want["value"].to_list() == [1.0, 0.1, 0.5, 0.05]


class _Recording:
    """A DuckDB connection that keeps the text of each query it is given."""

    def __init__(self, con: Any, texts: list[str]) -> None:
        self._con, self.texts = con, texts

    def sql(self, text: str, *args: Any, **kwargs: Any) -> Any:
        self.texts.append(text)
        return self._con.sql(text, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def _queries(monkeypatch: pytest.MonkeyPatch, qrels: Any, run: Any) -> tuple[list[str], pl.DataFrame]:
    """The queries engine='duckdb' runs for ``run`` (five measures, per query), and its result."""
    import types

    import duckdb

    from rankframe._engine import in_duckdb

    texts: list[str] = []
    fake = types.SimpleNamespace(
        connect=lambda **kw: _Recording(duckdb.connect(**kw), texts),
        OutOfMemoryException=duckdb.OutOfMemoryException,
    )
    monkeypatch.setattr(in_duckdb, "_duckdb", lambda: fake)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rf.evaluate(qrels, run, FIVE, per_query=True, engine="duckdb")
    return texts, result


@pytest.mark.parametrize("kind", ["parquet", "trec"])
def test_a_named_run_runs_the_queries_of_the_run_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str
) -> None:
    # the CLI names its runs (a dict): the run name, a string key in every window, join and
    # group, cost a third more CPU at 10M rows; one run's name is now added to the result
    # after the queries, which are those of the run passed alone
    if kind == "parquet":
        qrels, run = tmp_path / "qrels.parquet", tmp_path / "run.parquet"
        rf.read_qrels(QRELS).collect().write_parquet(qrels)
        rf.read_run(RUN).collect().select("query_id", "doc_id", "score").write_parquet(run)
    else:
        qrels, run = QRELS, RUN
    alone, want = _queries(monkeypatch, qrels, run)
    for runs in ({"bm25": run}, [run]):
        texts, got = _queries(monkeypatch, qrels, runs)
        assert texts == alone
        name = next(iter(runs)) if isinstance(runs, dict) else run.name
        assert_equal(want.select(pl.lit(name).alias("run"), pl.all()), got)
    # several runs: their names go into DuckDB as integer codes, and come back as names
    texts, got = _queries(monkeypatch, qrels, {"b": run, "a": run})
    assert not any("'b'" in t or "'a'" in t for t in texts)
    assert_equal(*_both(qrels, {"b": run, "a": run}, FIVE, per_query=True))


def test_a_parquet_file_of_several_runs_in_a_list(tmp_path: Path) -> None:
    # its own run column: runs 'NAME/inner' as evaluate names them (DuckDB's view gave all its
    # rows the file's name: one run, whose (query, doc) pairs were refused as duplicates)
    run = rf.read_run(RUN).collect().select("query_id", "doc_id", "score")
    flipped = run.with_columns(run=pl.lit("y"), score=-pl.col("score"))
    pl.concat([run.with_columns(run=pl.lit("x")), flipped]).write_parquet(tmp_path / "runs.parquet")
    run.write_parquet(tmp_path / "one.parquet")
    several, one = tmp_path / "runs.parquet", tmp_path / "one.parquet"
    for runs in ([several], {"r": several, "one": one}):
        want, got = _both(QRELS, runs, FIVE, per_query=False)
        assert_equal(want, got)
    assert got["run"].unique().sort().to_list() == ["one", "r/x", "r/y"]
