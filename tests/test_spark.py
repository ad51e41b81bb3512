"""rankframe.spark gives the per-query numbers of rankframe.evaluate exactly, on local[2].

One Spark session for the test run (conftest's ``spark_session``; starting one takes 6-25 s).
Skipped, with the reason, where pyspark or a Java runtime is missing.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import polars as pl
import pytest

import rankframe as rf
from tests.test_partitions import MEASURES, _data

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'rankframe[spark]')")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java runtime (java not on PATH, JAVA_HOME unset): Spark cannot start",
                allow_module_level=True)

import rankframe.spark as rfs  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"
KEYS = ["run", "query_id", "measure"]


@pytest.fixture(scope="module")
def spark(spark_session):  # noqa: ANN001, ANN201
    spark_session.conf.set("spark.sql.shuffle.partitions", "4")
    return spark_session


def _sdf(spark, frame: pl.DataFrame):  # noqa: ANN001, ANN202
    return spark.createDataFrame(frame.to_arrow())


def _local(qrels: pl.DataFrame, run: pl.DataFrame, measures: list, **kw: object) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rf.evaluate(qrels, run, measures, **kw)


def _spark_eval(spark, qrels, run, measures, **kw) -> pl.DataFrame:  # noqa: ANN001
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = rfs.evaluate(_sdf(spark, qrels), _sdf(spark, run), measures, **kw)
        return pl.from_arrow(out.toArrow())


@pytest.fixture(scope="module")
def data() -> tuple[pl.DataFrame, pl.DataFrame]:
    qrels, run = _data(seed=3)
    # two runs and a breakdown column: the second run is the first with other scores
    other = run.with_columns((pl.col("score") * -1 + 2).alias("score"))
    runs = pl.concat(
        [run.with_columns(pl.lit("a").alias("run")), other.with_columns(pl.lit("b").alias("run"))]
    )
    runs = runs.with_columns(
        pl.when(pl.col("query_id").str.slice(1).cast(pl.Int64) % 3 == 0).then(pl.lit("de"))
        .otherwise(pl.lit("en")).alias("locale")
    )
    return qrels, runs


@pytest.mark.parametrize("complete", [False, True])
def test_every_family_per_query_equals_evaluate_exactly(spark, data, complete) -> None:
    qrels, runs = data
    expected = _local(qrels, runs, MEASURES, per_query=True, complete=complete)
    got = _spark_eval(spark, qrels, runs, MEASURES, per_query=True, complete=complete, partitions=7)
    assert got.columns == expected.columns
    assert got.sort(KEYS).equals(expected.sort(KEYS))  # exact, not a tolerance


def test_breakdowns_many_empty_partitions_and_aggregates(spark, data) -> None:
    qrels, runs = data
    measures = ["nDCG@10", "AP", "RR", "bpref", "MAUC", "KendallTauB", "num_ret", "gm_map"]
    keys = ["run", "locale", "query_id", "measure"]
    # 24 partitions for 10 queries: most tasks get an empty partition (each task costs ~0.5 s)
    few = sorted(set(qrels["query_id"]))[:10]
    qrels, runs = (f.filter(pl.col("query_id").is_in(few)) for f in (qrels, runs))
    expected = _local(qrels, runs, measures, per_query=True, by=["locale"], complete=True)
    got = _spark_eval(spark, qrels, runs, measures, per_query=True, by=["locale"], complete=True,
                      partitions=24)
    assert got.sort(keys).equals(expected.sort(keys))
    agg_local = _local(qrels, runs, measures, by=["locale"], complete=True)
    agg_spark = _spark_eval(spark, qrels, runs, measures, by=["locale"], complete=True)
    assert agg_spark.select("run", "locale", "measure").equals(agg_local.select("run", "locale", "measure"))
    assert agg_spark["value"].to_list() == pytest.approx(agg_local["value"].to_list(), rel=1e-12)


def test_dl19_sample(spark) -> None:
    qrels = rf.read_qrels(DATA / "qrels.dl19-passage.txt").collect().select("query_id", "doc_id", "relevance")
    runs = pl.concat([
        rf.read_run(DATA / f"run.dl19.{n}.txt").collect().select("query_id", "doc_id", "score")
        .with_columns(pl.lit(n).alias("run"))
        for n in ("bm25", "splade")
    ])
    measures = ["nDCG@10", "R(rel=2)@100", "AP", "RR", "P@10", "infAP", "AUC", "SpearmanRho"]
    expected = _local(qrels, runs, measures, per_query=True)
    got = _spark_eval(spark, qrels, runs, measures, per_query=True)
    assert got.sort(KEYS).equals(expected.sort(KEYS))
    means = _spark_eval(spark, qrels, runs, ["nDCG@10"])
    assert means.filter(pl.col("run") == "splade")["value"].item() == pytest.approx(0.7308, abs=5e-5)
    # the TREC text files themselves as paths: each task parses them and keeps its buckets
    q, r = str(DATA / "qrels.dl19-passage.txt"), str(DATA / "run.dl19.bm25.txt")
    got = _spark_paths(q, r, measures, per_query=True, partitions=3)
    assert got.sort("query_id", "measure").equals(
        _local(q, r, measures, per_query=True).sort("query_id", "measure")
    )


def test_judged_frame_and_column_mapping(spark, data) -> None:
    qrels, runs = data
    run = runs.filter(pl.col("run") == "a").drop("run", "locale")
    judged = run.join(qrels, on=["query_id", "doc_id"], how="full", coalesce=True)
    expected = _local(None, None, ["AP", "nDCG@10"], judged=judged, per_query=True)
    got = pl.from_arrow(rfs.evaluate(judged=_sdf(spark, judged), measures=["AP", "nDCG@10"],
                                     per_query=True).toArrow())
    assert got.sort("query_id", "measure").equals(expected.sort("query_id", "measure"))
    renamed = qrels.rename({"query_id": "qid", "relevance": "label"})
    got = pl.from_arrow(rfs.evaluate(
        _sdf(spark, renamed), _sdf(spark, run), ["AP"], per_query=True,
        qrels_columns={"query_id": "qid", "relevance": "label"},
    ).toArrow())
    assert got.sort("query_id").equals(_local(qrels, run, ["AP"], per_query=True).sort("query_id"))


def test_warnings_are_those_of_evaluate(spark, data) -> None:
    qrels, runs = data
    run = runs.filter(pl.col("run") == "a").drop("run", "locale")
    with warnings.catch_warnings(record=True) as local:
        warnings.simplefilter("always")
        rf.evaluate(qrels, run, ["AP"])
    with warnings.catch_warnings(record=True) as remote:
        warnings.simplefilter("always")
        rfs.evaluate(_sdf(spark, qrels), _sdf(spark, run), ["AP"])
    mine = [str(w.message) for w in local if issubclass(w.category, rf.RankframeWarning)]
    theirs = [str(w.message) for w in remote if issubclass(w.category, rf.RankframeWarning)]
    assert mine
    assert theirs == mine


def test_input_errors_surface_as_input_errors(spark, data) -> None:
    qrels, runs = data
    run = runs.filter(pl.col("run") == "a").drop("run", "locale")
    dup = pl.concat([run, run.head(1)])
    with pytest.raises(rf.InputError, match="duplicate"):
        rfs.evaluate(_sdf(spark, qrels), _sdf(spark, dup), ["AP"])
    with pytest.raises(rf.InputError, match="'score'"):
        rfs.evaluate(_sdf(spark, qrels), _sdf(spark, run.drop("score")), ["AP"])
    with pytest.raises(rf.MeasureError):
        rfs.evaluate(_sdf(spark, qrels), _sdf(spark, run), ["runid"])
    # ndeval's measures over qrels with several subtopics a query: the tasks read one judgment a
    # (query, doc), so they are refused (one subtopic a query is ndeval's case the tasks compute)
    one = qrels.with_columns(pl.lit("1").alias("subtopic"))
    several = pl.concat([one, one.with_columns(pl.lit("2").alias("subtopic"))])
    for engine in ("polars", "sql"):
        with pytest.raises(rf.MeasureError, match="alpha_nDCG@10: ndeval's intent-aware measures read"):
            rfs.evaluate(_sdf(spark, several), _sdf(spark, run), ["alpha_nDCG@10", "AP"], engine=engine)
    web = Path(__file__).parent / "data" / "trec_web_diversity"  # subtopics in the TREC qrels' 2nd field
    with pytest.raises(rf.MeasureError, match="ERR_IA@20: ndeval's intent-aware measures read"):
        rfs.evaluate(str(web / "qrels.web2012.diversity.sample.txt"),
                     str(web / "run.web2012.ql.cata-filtered.top50.txt"), ["ERR_IA@20"], spark=spark)
    # (the tasks' planner and evaluate's subtopic plan sum in their own orders: the last bits)
    got = rfs.evaluate(_sdf(spark, one), _sdf(spark, run), ["alpha_nDCG@10"], per_query=True).toPandas()
    want = rf.evaluate(one, run, ["alpha_nDCG@10"], per_query=True)
    assert dict(zip(got["query_id"], got["value"], strict=True)) == pytest.approx(
        dict(zip(want["query_id"], want["value"], strict=True)), rel=1e-12, abs=1e-15
    )


def test_well_known_column_names_are_recognised_as_evaluate_does(spark, data) -> None:
    qrels, runs = data
    run = runs.filter(pl.col("run") == "a").drop("run", "locale")
    expected = _local(qrels, run, ["AP"], per_query=True)
    trec_names = run.rename({"query_id": "qid", "doc_id": "docno", "score": "sim"})
    got = pl.from_arrow(rfs.evaluate(
        _sdf(spark, qrels.rename({"query_id": "qid", "relevance": "rel"})), _sdf(spark, trec_names),
        ["AP"], per_query=True,
    ).toArrow())
    assert got.sort("query_id").equals(expected.sort("query_id"))
    with pytest.raises(rf.InputError, match="Available columns"):
        rfs.evaluate(_sdf(spark, qrels), _sdf(spark, run), ["AP"], run_columns={"score": "nope"})


# --- path inputs: each task reads its own queries with Polars (no row through the JVM) -------


def _paths(tmp_path: Path, qrels: pl.DataFrame, run: pl.DataFrame, files: int = 1) -> tuple[str, str]:
    """qrels.parquet and a run folder of ``files`` Parquet files partitioned by query."""
    qrels.write_parquet(tmp_path / "qrels.parquet")
    folder = tmp_path / "run"
    folder.mkdir()
    part = pl.col("query_id").str.slice(1).cast(pl.Int64) % files
    for i in range(files):
        run.filter(part == i).write_parquet(folder / f"part-{i}.parquet")
    return str(tmp_path / "qrels.parquet"), str(folder)


def _spark_paths(qrels: str, run: str, measures: list, **kw: object) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pl.from_arrow(rfs.evaluate(qrels, run, measures, **kw).toArrow())


@pytest.mark.parametrize(("partitions", "complete"), [(None, False), (5, True), ("files", False),
                                                       ("files", True)])
def test_paths_per_query_equal_evaluate_exactly(spark, data, tmp_path, partitions, complete) -> None:
    qrels, runs = data
    q, r = _paths(tmp_path, qrels, runs, files=3)
    keys = ["run", "locale", "query_id", "measure"]
    expected = _local(qrels, runs, MEASURES, per_query=True, by=["locale"], complete=complete)
    got = _spark_paths(q, r, MEASURES, per_query=True, by=["locale"], complete=complete,
                       partitions=partitions)
    assert got.columns == expected.columns
    assert got.sort(keys).equals(expected.sort(keys))  # exact, not a tolerance
    agg_local = _local(qrels, runs, ["AP", "num_ret", "gm_map"], by=["locale"], complete=complete)
    agg = _spark_paths(q, r, ["AP", "num_ret", "gm_map"], by=["locale"], complete=complete,
                       partitions=partitions).sort("run", "locale", "measure")
    agg_local = agg_local.sort("run", "locale", "measure")
    assert agg.select("run", "locale", "measure").equals(agg_local.select("run", "locale", "measure"))
    assert agg["value"].to_list() == pytest.approx(agg_local["value"].to_list(), rel=1e-12)


def test_paths_files_mode_scores_judged_queries_no_file_holds(spark, data, tmp_path) -> None:
    qrels, runs = data
    run = runs.filter(pl.col("run") == "a").drop("run", "locale")
    q, r = _paths(tmp_path, qrels, run, files=2)
    missing = set(qrels["query_id"]) - set(run["query_id"])
    assert missing  # the data has judged queries without results
    got = _spark_paths(q, r, ["AP", "num_rel"], per_query=True, complete=True, partitions="files")
    assert missing <= set(got["query_id"])
    expected = _local(qrels, run, ["AP", "num_rel"], per_query=True, complete=True)
    assert got.sort("query_id", "measure").equals(expected.sort("query_id", "measure"))


def test_paths_warnings_and_errors_are_those_of_evaluate(spark, data, tmp_path) -> None:
    qrels, runs = data
    run = runs.filter(pl.col("run") == "a").drop("run", "locale")
    q, r = _paths(tmp_path, qrels, run, files=2)
    with warnings.catch_warnings(record=True) as local:
        warnings.simplefilter("always")
        rf.evaluate(qrels, run, ["AP"])
    with warnings.catch_warnings(record=True) as remote:
        warnings.simplefilter("always")
        rfs.evaluate(q, r, ["AP"], partitions="files")
    mine = [str(w.message) for w in local if issubclass(w.category, rf.RankframeWarning)]
    theirs = [str(w.message) for w in remote if issubclass(w.category, rf.RankframeWarning)]
    assert mine
    assert theirs == mine
    with warnings.catch_warnings():  # the caller's warning filters apply
        warnings.simplefilter("error", rf.RankframeWarning)
        with pytest.raises(rf.RankframeWarning, match="missing from the run"):
            rfs.evaluate(q, r, ["AP"], partitions="files")
    # a duplicate run row: refused, naming the input, as rankframe.evaluate does
    dup = tmp_path / "dup"
    dup.mkdir()
    pl.concat([run, run.head(1)]).write_parquet(dup / "run.parquet")
    with pytest.raises(rf.InputError, match=r"dup: duplicate \(query, doc\) rows in the run"):
        rfs.evaluate(q, str(dup), ["AP"], partitions=3)
    # a query in two files: refused by partitions='files'
    split = tmp_path / "split"
    split.mkdir()
    run.head(5).write_parquet(split / "a.parquet")
    run.slice(5).write_parquet(split / "b.parquet")
    with pytest.raises(rf.InputError, match="two run files"):
        rfs.evaluate(q, str(split), ["AP"], partitions="files")
    with pytest.raises(rf.InputError, match="mixed"):
        rfs.evaluate(q, _sdf(spark, run), ["AP"])
    with pytest.raises(rf.InputError, match="partitions"):
        rfs.evaluate(q, r, ["AP"], partitions=0)
    with pytest.raises(rf.InputError, match="run= must be a Spark DataFrame or a path"):
        rfs.evaluate(q, {"a": r}, ["AP"])
    # a relative path is read from the driver's working directory
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        rel = _spark_paths("qrels.parquet", "run", ["AP"], per_query=True, partitions="files")
    finally:
        os.chdir(cwd)
    assert rel.sort("query_id").equals(_spark_paths(q, r, ["AP"], per_query=True).sort("query_id"))


def test_paths_judged_file(spark, data, tmp_path) -> None:
    qrels, runs = data
    run = runs.filter(pl.col("run") == "a").drop("run", "locale")
    judged = run.join(qrels, on=["query_id", "doc_id"], how="full", coalesce=True)
    judged.write_parquet(tmp_path / "judged.parquet")
    expected = _local(None, None, ["AP", "nDCG@10"], judged=judged, per_query=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pl.from_arrow(rfs.evaluate(judged=str(tmp_path / "judged.parquet"),
                                         measures=["AP", "nDCG@10"], per_query=True,
                                         partitions=3).toArrow())
    assert got.sort("query_id", "measure").equals(expected.sort("query_id", "measure"))


def test_table_names_go_through_the_dataframe_path(spark, data) -> None:
    qrels, runs = data
    _sdf(spark, qrels).createOrReplaceTempView("rf_test_qrels")
    _sdf(spark, runs).createOrReplaceTempView("rf_test_runs")
    expected = _local(qrels, runs, ["AP", "nDCG@10"], per_query=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pl.from_arrow(
            rfs.evaluate("rf_test_qrels", "rf_test_runs", ["AP", "nDCG@10"], per_query=True).toArrow()
        )
    assert got.sort(KEYS).equals(expected.sort(KEYS))
    with pytest.raises(rf.InputError, match="run='no_such_table' is read as a path"):
        rfs.evaluate("rf_test_qrels", "no_such_table", ["AP"])
