"""rankframe.spark's SQL engine: the compiled query, run by Spark SQL, equals rankframe.evaluate.

``rankframe.spark.evaluate(..., engine="sql")`` runs :func:`rankframe.sql.checks` and then the
CTEs of :func:`rankframe.sql.query` in a local Spark session. On hypothesis-drawn adversarial
data (the edge-matrix frames: ties among doc ids such as "9" and "10", grades -1..3 and
unjudged documents, queries on one side only, queries of one document) every compiled measure,
per query and in the aggregate, agrees with ``evaluate`` to 1e-12 relative, under
``complete``, ``depth``, ``relevance_level``, ``judged_only`` and breakdowns; input errors are
:class:`rankframe.InputError` naming the problem, and the coverage warnings are evaluate's.

Spark spends seconds planning each query, so each hypothesis example stacks several drawn
datasets into one evaluation (query ids prefixed per dataset: each query is evaluated alone, so
the per-query values are those of separate evaluations), and the examples are few (a tenth of
the profile's number). One Spark session for the module; skipped where pyspark or Java is
missing.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe import sql as rsql
from rankframe._errors import NoQueryInCommonWarning
from tests.test_edge_matrix import judged_runs
from tests.test_partitions import _data
from tests.test_sql import (
    BREAKDOWN_MEASURES,
    COMPILED_FAMILIES,
    LAYOUTS,
    assert_same,
    breakdown_tables,
    with_breakdowns,
)

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'rankframe[spark]')")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java runtime (java not on PATH, JAVA_HOME unset): Spark cannot start",
                allow_module_level=True)

import rankframe.spark as rfs  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"
FEW = max(1, settings.default.max_examples * 3 // 20)  # 1 with the ci profile (8)


@pytest.fixture(scope="module")
def spark(spark_session):  # noqa: ANN001, ANN201
    spark_session.conf.set("spark.sql.shuffle.partitions", "2")
    return spark_session


def _sdf(spark, frame: pl.DataFrame):  # noqa: ANN001, ANN202
    return spark.createDataFrame(frame.to_arrow())


def _local(qrels: pl.DataFrame, run: pl.DataFrame, measures: list, **kw: Any) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rf.evaluate(qrels, run, measures, **kw)


def _sql(spark, qrels: pl.DataFrame, run: pl.DataFrame, measures: list, **kw: Any) -> pl.DataFrame:  # noqa: ANN001
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = rfs.evaluate(_sdf(spark, qrels), _sdf(spark, run), measures, engine="sql", **kw)
        frame = pl.from_arrow(out.toArrow())
    assert isinstance(frame, pl.DataFrame)
    return frame


def _stacked(datasets: list[tuple[pl.DataFrame, pl.DataFrame, dict]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The drawn datasets as one qrels and one run, each dataset's query ids prefixed apart."""
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


def _both_ways(spark, qrels, run, measures: list, keys: list[str], **options: Any) -> None:  # noqa: ANN001
    """Per query and aggregated, the SQL engine's values are evaluate's (to 1e-12 relative)."""
    for per_query in (True, False):
        want = _local(qrels, run, measures, per_query=per_query, **options)
        got = _sql(spark, qrels, run, measures, per_query=per_query, **options)
        assert got.columns == want.columns
        assert got.dtypes == want.dtypes
        assert_same(want, got, [*keys, "query_id", "measure"] if per_query else [*keys, "measure"])
        # rows in evaluate's order
        order = [*keys, "query_id"] if per_query else keys
        assert got.select(*order, "measure").equals(want.select(*order, "measure"))


@settings(max_examples=FEW)
@given(
    datasets=st.lists(judged_runs(), min_size=3, max_size=3),
    complete=st.booleans(),
    relevance_level=st.sampled_from((1, 2)),
    judged_only=st.booleans(),
    depth=st.sampled_from((None, None, 1, 3)),
)
def test_every_compiled_measure_equals_evaluate(
    spark, datasets: list, complete: bool, relevance_level: int, judged_only: bool, depth: int | None
) -> None:
    qrels, run = _stacked(datasets)
    options = {"complete": complete, "relevance_level": relevance_level, "judged_only": judged_only,
               "depth": depth}
    _both_ways(spark, qrels, run, COMPILED_FAMILIES, [], **options)


@settings(max_examples=max(1, FEW // 3))
@given(
    layout=st.sampled_from(sorted(LAYOUTS)),
    datasets=st.lists(judged_runs(), min_size=3, max_size=3),
    complete=st.booleans(),
    labels=st.data(),
)
def test_breakdowns_equal_evaluate(spark, layout: str, datasets: list, complete: bool, labels) -> None:  # noqa: ANN001
    # the layouts of test_sql: breakdowns of the run alone, ones the qrels carry too (a column
    # of the qrels DataFrame), the run name of stacked runs (a 'run' column), and mixes; null
    # breakdown values are groups of their own. One layout drawn per example (each Spark
    # evaluation costs ~14 s; test_breakdown_query_set_corners runs every layout)
    qrels, run = _stacked(datasets)
    by, qrels_by = LAYOUTS[layout]
    qrels, run = with_breakdowns(labels, qrels, run, by, qrels_by)
    breakdowns = [c for c in by if c != "run"]  # a 'run' column is a key by itself
    _both_ways(spark, qrels, run, BREAKDOWN_MEASURES, by, by=breakdowns, complete=complete)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_breakdown_query_set_corners(spark, layout: str) -> None:
    # a qrels locale no run row has, a judged query no group holds, a null breakdown value, a
    # run query without judgments: each group scored as evaluate scores it, with complete
    by, qrels_by = LAYOUTS[layout]
    qrels, run = breakdown_tables(by, qrels_by)
    want = _local(qrels, run, BREAKDOWN_MEASURES, per_query=True, by=by, complete=True)
    got = _sql(spark, qrels, run, BREAKDOWN_MEASURES, per_query=True, by=by, complete=True)
    assert got.columns == want.columns
    assert_same(want, got, [*by, "query_id", "measure"])


def test_dl19_sample_two_runs_int_ids_and_column_mapping(spark) -> None:
    qrels = rf.read_qrels(DATA / "qrels.dl19-passage.txt").collect().select("query_id", "doc_id", "relevance")
    runs = pl.concat([
        rf.read_run(DATA / f"run.dl19.{n}.txt").collect().select("query_id", "doc_id", "score")
        .with_columns(pl.lit(n).alias("run"))
        for n in ("bm25", "splade")
    ])
    measures = ["nDCG@10", "R(rel=2)@100", "AP", "RR", "P@10", "infAP", "Bpref", "GMAP", "NumRet"]
    _both_ways(spark, qrels, runs, measures, ["run"], complete=True)
    # integer query ids stay integers; TREC names and a mapping are found as evaluate finds them
    as_int = pl.col("query_id").cast(pl.Int64)
    q = qrels.with_columns(as_int).rename({"query_id": "qid", "relevance": "label"})
    r = runs.filter(pl.col("run") == "bm25").drop("run").with_columns(as_int)
    r = r.rename({"doc_id": "docno", "score": "sim"})
    want = _local(qrels.with_columns(as_int), r.rename({"docno": "doc_id", "sim": "score"}), measures,
                  per_query=True)
    got = _sql(spark, q, r, measures, per_query=True, qrels_columns={"query_id": "qid", "relevance": "label"})
    assert got.schema == want.schema
    assert_same(want, got, ["query_id", "measure"])


def test_judged_frame_and_table_names(spark) -> None:
    qrels, run = _data(seed=3)
    judged = run.join(qrels, on=["query_id", "doc_id"], how="full", coalesce=True)
    want = _local(None, None, ["AP", "nDCG@10"], judged=judged, per_query=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pl.from_arrow(rfs.evaluate(judged=_sdf(spark, judged), measures=["AP", "nDCG@10"],
                                         per_query=True, engine="sql").toArrow())
        _sdf(spark, qrels).createOrReplaceTempView("rf_sql_test_qrels")
        _sdf(spark, run).createOrReplaceTempView("rf_sql_test_run")
        named = pl.from_arrow(rfs.evaluate("rf_sql_test_qrels", "rf_sql_test_run", ["AP", "nDCG@10"],
                                           per_query=True, engine="sql", partitions=3).toArrow())
    assert_same(want, got, ["query_id", "measure"])
    assert_same(_local(qrels, run, ["AP", "nDCG@10"], per_query=True), named, ["query_id", "measure"])


def test_parquet_paths(spark, tmp_path: Path) -> None:
    qrels, run = _data(seed=3)
    qrels.write_parquet(tmp_path / "qrels.parquet")
    run.write_parquet(tmp_path / "run.parquet")
    q, r = str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pl.from_arrow(rfs.evaluate(q, r, ["AP", "RR"], engine="sql").toArrow())
        with pytest.raises(rf.InputError, match="partitions must be an int >= 1 with engine='sql'"):
            rfs.evaluate(q, r, ["AP"], engine="sql", partitions="files")
    assert_same(_local(qrels, run, ["AP", "RR"]), got, ["measure"])
    with pytest.raises(rf.InputError, match="is not a Parquet file.*engine='polars'"):
        rfs.evaluate(str(DATA / "qrels.dl19-passage.txt"), str(DATA / "run.dl19.bm25.txt"), ["AP"],
                     engine="sql")


# --- input errors and warnings: those of evaluate, found by the check query ---------------------


@pytest.fixture(scope="module")
def clean() -> tuple[pl.DataFrame, pl.DataFrame]:
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["a", "b", "c", "d"],
                          "relevance": [1, 0, 2, 1]})
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q4"], "doc_id": ["a", "b", "x", "y"],
                        "score": [2.0, 1.0, 1.0, 1.0]})
    return qrels, run


@pytest.mark.parametrize(
    ("side", "change", "match"),
    [
        ("run", lambda f: pl.concat([f, f.head(1)]),
         r"the Spark run DataFrame: duplicate \(query, doc\) rows in the run: \('q1', 'a'\) x2\. "
         r"trec_eval refuses them too; keep one row per \(query, doc\)"),
        ("qrels", lambda f: pl.concat([f, f.head(1)]),
         r"the Spark qrels DataFrame: duplicate \(query, doc\) rows in the qrels: \('q1', 'a'\) x2"),
        ("run", lambda f: f.with_columns(pl.when(pl.col("doc_id") == "b").then(float("nan"))
                                         .otherwise(pl.col("score")).alias("score")),
         r"the Spark run DataFrame, column 'score': the score of query 'q1', doc 'b' is NaN, which is "
         r"not a finite number.*drop the row"),
        ("run", lambda f: f.with_columns(pl.lit(None, pl.Float64).alias("score")),
         r"column 'score': the score of query 'q1', doc 'a' is null \(4 rows like it\)"),
        ("qrels", lambda f: f.with_columns(pl.col("relevance").cast(pl.Float64) / 2),
         r"column 'relevance': the relevance grade 0.5 of \('q1', 'a'\) is not an integer "
         r"\(2 rows like it\)\. Grades must be integers"),
        ("qrels", lambda f: f.with_columns(pl.lit(None, pl.String).alias("doc_id")),
         r"the Spark qrels DataFrame, column 'doc_id': the doc id is null \(query 'q1'\)"),
        ("run", lambda f: f.drop("score"),
         r"The Spark run DataFrame has no run column 'score'.*Available columns: 'query_id', 'doc_id'"),
        ("qrels", lambda f: f.with_columns(pl.col("relevance").cast(pl.String)),
         r"The qrels column 'relevance' in the Spark qrels DataFrame has type string; grades must "
         r"be integers"),
    ],
    ids=["duplicate run row", "duplicate judgment", "NaN score", "null score", "fractional grade",
         "null doc id", "missing column", "string grades"],
)
def test_input_errors_name_the_input_problem_and_example(spark, clean, side, change, match) -> None:  # noqa: ANN001
    qrels, run = clean
    qrels, run = (change(qrels), run) if side == "qrels" else (qrels, change(run))
    with pytest.raises(rf.InputError, match=match):
        rfs.evaluate(_sdf(spark, qrels), _sdf(spark, run), ["AP"], engine="sql")


def test_coverage_warnings_are_those_of_evaluate(spark, clean) -> None:
    qrels, run = clean  # q3 judged, not in the run; q4 in the run, not judged
    as_int = pl.col("query_id").str.slice(1).cast(pl.Int64)
    ints = (qrels.with_columns(as_int), run.with_columns(as_int), False)  # shown as 3, not '3'
    for qrels, run, complete in [(*clean, False), (*clean, True), ints]:
        with warnings.catch_warnings(record=True) as local:
            warnings.simplefilter("always")
            rf.evaluate(qrels, run, ["AP"], complete=complete)
        with warnings.catch_warnings(record=True) as remote:
            warnings.simplefilter("always")
            rfs.evaluate(_sdf(spark, qrels), _sdf(spark, run), ["AP"], complete=complete, engine="sql")
        mine = [str(w.message) for w in local if issubclass(w.category, rf.RankframeWarning)]
        ours = [w for w in remote if issubclass(w.category, rf.RankframeWarning)]
        assert len(mine) == (1 if complete else 2)  # complete=True: the zeros were asked for
        assert [str(w.message) for w in ours] == mine
        assert ours[0].filename == __file__  # attributed to the caller's line
    qrels, run = clean
    other = run.with_columns(pl.lit("x").alias("query_id"))  # no judged query has results
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rfs.evaluate(_sdf(spark, qrels), _sdf(spark, other), ["AP"], engine="sql")
    found = [str(w.message) for w in caught if issubclass(w.category, NoQueryInCommonWarning)]
    assert len(found) == 1
    assert "No judged query has results: check that the query ids" in found[0]


def test_clean_inputs_are_screened_in_the_evaluations_own_shuffle(spark, clean, monkeypatch, capsys) -> None:  # noqa: ANN001
    # the check query, a second full shuffle of the run (6 of the engine's 13.7 s at 5M rows),
    # runs only when the screen in the evaluation's statement counts a bad row; the screen's
    # duplicate window reads the ranking's own shuffle of the run (a ReusedExchange of its
    # columns, score included), and the per-query rows are cached
    calls: list[dict] = []
    real = rsql.checks
    monkeypatch.setattr(rsql, "checks", lambda **kw: calls.append(kw) or real(**kw))
    qrels, run = clean
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = rfs.evaluate(_sdf(spark, qrels), _sdf(spark, run), ["AP", "nDCG@10"], engine="sql")
    assert calls == []
    out.explain()
    plan = capsys.readouterr().out
    assert "InMemoryRelation" in plan
    assert any("ReusedExchange" in line and "score" in line for line in plan.splitlines()), plan
    assert_same(_local(qrels, run, ["AP", "nDCG@10"]), pl.from_arrow(out.toArrow()), ["measure"])
    with pytest.raises(rf.InputError, match=r"duplicate \(query, doc\) rows in the run"):
        rfs.evaluate(_sdf(spark, qrels), _sdf(spark, pl.concat([run, run.head(1)])), ["AP"], engine="sql")
    assert len(calls) == 1


def test_what_the_sql_cannot_do_is_named(spark, clean, monkeypatch) -> None:
    qrels, run = clean
    sq, sr = _sdf(spark, qrels), _sdf(spark, run)
    with pytest.raises(rf.MeasureError, match=r"SpearmanRho has no SQL form .*engine='polars'"):
        rfs.evaluate(sq, sr, ["AP", "SpearmanRho"], engine="sql")
    with pytest.raises(rf.MeasureError, match="ties='average' needs engine='polars'"):
        rfs.evaluate(sq, sr, ["AP"], engine="sql", ties="average")
    with pytest.raises(rf.MeasureError, match="score_dtype='float32' needs engine='polars'"):
        rfs.evaluate(sq, sr, ["AP"], engine="sql", score_dtype="float32")
    with pytest.raises(rf.MeasureError, match="'depth' option must be an int >= 1"):
        rfs.evaluate(sq, sr, ["AP"], engine="sql", depth=0)
    with pytest.raises(ValueError, match="engine must be one of 'polars', 'sql'"):
        rfs.evaluate(sq, sr, ["AP"], engine="duckdb")
    with pytest.raises(rf.InputError, match="has no column 'locale'. Available columns"):
        rfs.evaluate(sq, sr, ["AP"], engine="sql", by=["locale"])
    # engine=None on DataFrames: the default engine; with SQL as the default, what does not
    # compile falls back to the polars engine
    calls: list[int] = []
    real = rfs.evaluate_sql
    monkeypatch.setattr(rfs, "evaluate_sql", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(rfs, "DEFAULT_FRAMES_ENGINE", "sql")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rfs.evaluate(sq, sr, ["AP"])
        assert calls == [1]
        fallback = pl.from_arrow(rfs.evaluate(sq, sr, ["AP", "SpearmanRho"], per_query=True).toArrow())
        assert calls == [1]
    assert_same(_local(qrels, run, ["AP", "SpearmanRho"], per_query=True), fallback, ["query_id", "measure"])


# --- the compiled query's own text in Spark SQL ------------------------------------------------


def _verbatim(spark, qrels: pl.DataFrame, run: pl.DataFrame, measures: list[str]) -> pl.DataFrame:  # noqa: ANN001
    text = rsql.query(measures, qrels="rf_q_in", run="rf_r_in", dialect="spark", per_query=True)
    text = text.replace("{", "{{").replace("}", "}}")  # the text is a format string for pyspark
    text = text.replace("rf_q_in", "{qrels}").replace("rf_r_in", "{run}")
    out = spark.sql(text, qrels=_sdf(spark, qrels), run=_sdf(spark, run))
    frame = pl.from_arrow(out.toArrow())
    assert isinstance(frame, pl.DataFrame)
    return frame


def test_the_compiled_query_text_runs_in_spark(spark) -> None:
    # rankframe.sql.query(dialect="spark") as it is (its UNION ALL of one SELECT per measure)
    qrels, run = _data(seed=3)
    measures = ["AP", "nDCG@3", "P@5", "R@10", "NumRelRet"]
    got = _verbatim(spark, qrels, run, measures)
    assert_same(_local(qrels, run, measures, per_query=True), got, ["query_id", "measure"])


def test_the_compiled_query_text_divides_in_double(spark) -> None:
    # Spark reads the literal 1.0 as DECIMAL(2,1): 1.0 / rank (an INT) would be rounded to 12
    # places (RR of rank 6: 0.166666666667); the spark text casts such literals to DOUBLE
    qrels, run = _data(seed=3)
    got = _verbatim(spark, qrels, run, ["RR"])
    assert_same(_local(qrels, run, ["RR"], per_query=True), got, ["query_id", "measure"])


def test_table_names_in_sparks_own_quoting(spark) -> None:
    # `global_temp`.`rf_q` as Spark writes it (a qualified name, each part in backquotes) is
    # read in Spark's syntax (it was refused: DuckDB's syntax has no backquotes); the text runs
    qrels, run = _data(seed=3)
    _sdf(spark, qrels).createOrReplaceGlobalTempView("rf_q")
    _sdf(spark, run).createOrReplaceGlobalTempView("rf_r")
    text = rsql.query(["RR"], qrels="`global_temp`.`rf_q`", run="global_temp.rf_r", dialect="spark",
                      per_query=True)
    assert "FROM `global_temp`.`rf_q`" in text
    got = pl.from_arrow(spark.sql(text).toArrow())
    assert isinstance(got, pl.DataFrame)
    assert_same(_local(qrels, run, ["RR"], per_query=True), got, ["query_id", "measure"])
