"""Smoke test of the spark extra: a local[1] Spark session evaluates the sample, as evaluate does."""

import os
import sys
import warnings

import polars as pl
from pyspark.sql import SparkSession

import rankframe as rf
import rankframe.spark as rfs

assert "site-packages" in rf.__file__, rf.__file__  # the installed wheel, not the source tree
# the Python workers need rankframe and Polars too: this venv's interpreter, as on a cluster
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

qrels = rf.read_qrels("data/qrels.dl19-passage.txt").select("query_id", "doc_id", "relevance").collect()
run = rf.read_run("data/run.dl19.bm25.txt").select("query_id", "doc_id", "score").collect()
spark = (
    SparkSession.builder.master("local[1]").appName("rankframe-smoke")
    .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "4")
    .getOrCreate()
)
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pl.from_arrow(rfs.evaluate(
            spark.createDataFrame(qrels.to_arrow()), spark.createDataFrame(run.to_arrow()),
            ["nDCG@10", "AP"],
        ).toArrow()).sort("measure")
        want = rf.evaluate(qrels, run, ["nDCG@10", "AP"]).sort("measure")
finally:
    spark.stop()
print(got)
if got["measure"].to_list() != want["measure"].to_list() or max(
    abs(a - b) for a, b in zip(got["value"], want["value"], strict=True)
) > 1e-12:
    sys.exit("spark extra: Spark's means differ from rankframe.evaluate's")
print("spark extra: the same means as rankframe.evaluate")
