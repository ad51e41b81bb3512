"""Spark (local[N]) vs one machine on the same Parquet files: rankframe.spark vs rankframe.evaluate.

Both read the benchmark generator's ``run.parquet`` / ``qrels.parquet`` and compute the 5 measures'
means; interleaved rounds in one process after a warm-up round (the Spark session is started once,
its start-up time reported apart); the means are checked equal. Spark evaluates the files two
ways: as Spark DataFrames (``spark.read.parquet``: the JVM reads, shuffles by query and hands
the rows to the Python tasks through Arrow) and as paths (each task reads its query hash bucket
itself with Polars). With ``--files``, the same kind of data written as query-partitioned files
(``generate.py --files N``) is also evaluated both ways: ``rankframe.evaluate`` on the folders,
and ``rankframe.spark.evaluate(..., partitions="files")`` (one task per file).

``--engines`` picks the engines that evaluate the DataFrames: ``polars`` (rankframe's planner in
``mapInArrow`` tasks) and ``sql`` (the compiled query of ``rankframe.sql`` in Spark SQL, its
input checks screened in the same statement); ``both`` (the default) measures the two side by
side in the same rounds. ``--paths`` / ``--no-paths``: whether the path inputs are measured too.
``--lower-bounds`` adds what bounds the SQL engine from below, on the same DataFrames: the
compiled query alone (``rankframe.sql.query`` in Spark SQL: no checks, no cache), and Spark's
own floor, the run's scan and shuffle by query (then with the ranking window), each written to
Spark's ``noop`` sink. The polars engine's Python workers run the driver's interpreter
(``PYSPARK_PYTHON`` is set to it unless set already).

    python benchmarks/generate.py --rows 5000000 --out benchmarks/data/string-5M-k100-s0
    python benchmarks/generate.py --rows 5000000 --files 4 --out benchmarks/data/string-5M-files4
    python benchmarks/bench_spark.py --data benchmarks/data/string-5M-k100-s0 \
        --files benchmarks/data/string-5M-files4 --rounds 3
    python benchmarks/bench_spark.py --data benchmarks/data/string-5M-k100-s0 --rounds 5 --no-paths
    python benchmarks/bench_spark.py --data benchmarks/data/string-5M-k100-s0 --engines sql \
        --no-paths --lower-bounds
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import polars as pl

import rankframe as rf

MEASURES = ["nDCG@10", "AP", "P@10", "R@100", "RR"]


ENGINES = ("polars", "sql")


def _engines(text: str) -> list[str]:
    """``--engines``: ``both``, or engine names separated by commas."""
    names = list(ENGINES) if text == "both" else [n.strip() for n in text.split(",")]
    unknown = [n for n in names if n not in ENGINES]
    if unknown or not names:
        msg = f"expected polars, sql, both or a comma-separated list of them, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return names


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, required=True)
    p.add_argument("--files", type=Path, help="query-partitioned data (run/ and qrels/ folders)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--master", default="local[2]")
    p.add_argument("--partitions", type=int, default=8, help="spark.sql.shuffle.partitions")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="more Spark settings")
    p.add_argument("--engines", default="both", type=_engines,
                   help="engines for the DataFrames: polars, sql or both (or a comma-separated list)")
    p.add_argument("--paths", action=argparse.BooleanOptionalAction, default=True,
                   help="also evaluate the Parquet paths (polars engine, hash buckets)")
    p.add_argument("--lower-bounds", action="store_true",
                   help="also time the compiled query alone in Spark SQL and Spark's scan + shuffle floor")
    a = p.parse_args()
    qrels, run = str(a.data / "qrels.parquet"), str(a.data / "run.parquet")
    rows = pl.scan_parquet(run).select(pl.len()).collect().item()
    load_before = os.getloadavg()

    # the polars engine's Python workers: the driver's interpreter, where rankframe is installed
    # (Spark starts 'python3' from PATH otherwise, which may not have it)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import rankframe.spark as rfs

    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        builder = (
            SparkSession.builder.master(a.master).config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", str(a.partitions))
            .config("spark.driver.memory", "6g")
        )
        for setting in a.conf:
            builder = builder.config(*setting.split("=", 1))
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    start = time.perf_counter() - t

    def local() -> pl.DataFrame:
        return rf.evaluate(qrels, run, MEASURES)

    def on_spark(engine: str):  # noqa: ANN202
        def run_it() -> pl.DataFrame:
            frames = spark.read.parquet(qrels), spark.read.parquet(run)
            return pl.from_arrow(rfs.evaluate(*frames, MEASURES, engine=engine).toArrow())

        return run_it

    def on_spark_paths() -> pl.DataFrame:
        return pl.from_arrow(rfs.evaluate(qrels, run, MEASURES).toArrow())

    what = {"polars": "polars engine (mapInArrow)", "sql": "sql engine (Spark SQL)"}
    cases = {"one machine (rankframe.evaluate)": local}
    for engine in a.engines:
        cases[f"Spark {a.master}, DataFrames, {what[engine]}"] = on_spark(engine)
    if a.paths:
        cases[f"Spark {a.master}, paths (hash buckets)"] = on_spark_paths
    if a.lower_bounds:
        cases.update(lower_bounds(spark, qrels, run))
    base_of = dict.fromkeys(cases, "one machine (rankframe.evaluate)")
    if a.files:
        fq, fr = str(a.files / "qrels"), str(a.files / "run")

        def local_files() -> pl.DataFrame:
            return rf.evaluate(fq, fr, MEASURES)

        def on_spark_files() -> pl.DataFrame:
            return pl.from_arrow(rfs.evaluate(fq, fr, MEASURES, partitions="files").toArrow())

        first = f"one machine, {a.files.name} (rankframe.evaluate on the folders)"
        cases[first] = local_files
        cases[f"Spark {a.master}, {a.files.name} (paths, partitions='files')"] = on_spark_files
        base_of.update(dict.fromkeys(list(cases)[-2:], first))
    times: dict[str, list[float]] = {label: [] for label in cases}
    results: dict[str, pl.DataFrame] = {}
    for r in range(a.rounds + 1):  # round 0 warms the JVM (JIT, class loading) and is not counted
        for label, fn in cases.items():
            t = time.perf_counter()
            results[label] = fn()
            if r:
                times[label].append(time.perf_counter() - t)
            else:
                print(f"warm-up round, {label}: {time.perf_counter() - t:.2f} s", flush=True)
        spark.catalog.clearCache()  # no cached per-query rows carry over to the next round
    agree = 0.0
    for label, res in results.items():
        if res is None:  # a floor: no means
            continue
        means = dict(zip(res["measure"], res["value"], strict=True))
        ref = results[base_of[label]]
        for m, v in zip(ref["measure"], ref["value"], strict=True):
            agree = max(agree, abs(means[m] - v) / max(abs(v), 1e-300))
    print(
        f"{rows:,} run rows, {a.rounds} interleaved rounds, load {load_before[0]:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after (1-minute averages); Spark session "
        f"start {start:.1f} s (not counted); means agree to {agree:.1e} relative\n"
    )
    polars = next((k for k in times if k.endswith(what["polars"])), None)
    versus = " | ratio to the polars engine" if polars else ""
    print(f"| how | median s | min s | ratio to one machine{versus} |")
    print("| --- | ---: | ---: | ---: |" + (" ---: |" if polars else ""))
    for label, ts in times.items():
        med = statistics.median(ts)
        base = statistics.median(times[base_of[label]])
        other = ""  # the polars engine's column, when it was measured
        if polars:
            other = f" | {med / statistics.median(times[polars]):.2f}x" if "DataFrames" in label else " | "
        print(f"| {label} | {med:.2f} | {min(ts):.2f} | {med / base:.2f}x{other} |")
    spark.stop()


def lower_bounds(spark, qrels: str, run: str) -> dict:  # noqa: ANN001
    """What bounds the SQL engine from below: the compiled query alone, and Spark's floor."""
    from rankframe import sql as rsql
    from rankframe.spark._sql import _bound  # as the SQL engine binds its inputs

    text = rsql.query(MEASURES, qrels="rf_q_in", run="rf_r_in", dialect="spark")
    text = _bound(text, {"qrels": "rf_q_in", "run": "rf_r_in"})  # a format string for spark.sql

    def compiled() -> pl.DataFrame:
        out = spark.sql(text, qrels=spark.read.parquet(qrels), run=spark.read.parquet(run))
        return pl.from_arrow(out.toArrow())

    def sink(statement: str):  # noqa: ANN202
        def floor() -> None:
            spark.sql(statement, run=spark.read.parquet(run)).write.format("noop").mode("overwrite").save()

        return floor

    columns = "SELECT query_id, doc_id, score FROM {run}"
    rank = "ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY score DESC, doc_id DESC)"
    return {
        "Spark SQL, the compiled query alone (rankframe.sql.query: no checks, no cache)": compiled,
        "Spark floor: the run's scan + shuffle by query (noop sink)": sink(
            f"{columns} DISTRIBUTE BY query_id"
        ),
        "Spark floor: scan + shuffle + the ranking window (noop sink)": sink(
            f"SELECT query_id, doc_id, {rank} AS rank FROM {{run}}"
        ),
    }


if __name__ == "__main__":
    main()
