"""Issue 38's Spark SQL engine: how fast can the run's side of the evaluation be in Spark SQL?

Hand-written Spark SQL plans of the benchmark's five measures (nDCG@10, AP, P@10, R@100, RR:
means over the judged queries the run holds, no input check), interleaved with the one machine
(``rankframe.evaluate``) on the same Parquet files, medians after a warm-up round; each plan's
means are compared with the one machine's. The plans:

* ``floor``: Spark's own floor, the run's scan, shuffle by query and ranking window, then one
  aggregate per query (no judgments);
* ``broadcast``: the relevant judgments joined to every run row *before* the ranking, as a
  broadcast hash join on (query, doc) strings; one window ranks the run and counts the hits
  above each row (AP's running count), one aggregate per query; the judgments' own aggregates
  (relevant count, ideal DCG) beside it;
* ``broadcast-hash``: the same, the broadcast keyed by ``xxhash64(query, doc)`` with the ids
  compared after (a long key instead of two strings);
* ``co-partitioned``: both inputs repartitioned by query and joined by a shuffled hash join
  (``spark.sql.requireAllClusterKeysForCoPartition=false`` lets the join on (query, doc) read
  partitions by query): one shuffle of the run, no broadcast, no sort by doc id;
* ``co-partitioned+duplicates``: the same with a duplicate screen, a count per (query, doc)
  over the ranking's partitions (no shuffle of its own);
* ``co-partitioned+hashed-duplicates``: the screen per (query, ``xxhash64(doc)``).

Usage::

    python benchmarks/generate.py --rows 5000000 --out benchmarks/data/string-5M-k100-s0
    python benchmarks/experiments/spark_one_pass.py benchmarks/data/string-5M-k100-s0 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import polars as pl

import rankframe as rf

MEASURES = ["nDCG@10", "AP", "P@10", "R@100", "RR"]
WINDOW = (
    "WINDOW w AS (PARTITION BY r.query_id ORDER BY r.score DESC, r.doc_id DESC "
    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
)
RELEVANT = "(SELECT query_id, doc_id, CAST(relevance AS DOUBLE) rel FROM {qrels} WHERE relevance >= 1)"
RELEVANT_HASHED = (
    "(SELECT xxhash64(query_id, doc_id) h, query_id, doc_id, CAST(relevance AS DOUBLE) rel "
    "FROM {qrels} WHERE relevance >= 1)"
)
RUN_BY_QUERY = "(SELECT query_id, doc_id, score FROM {run} DISTRIBUTE BY query_id)"
RELEVANT_BY_QUERY = (
    "(SELECT query_id, doc_id, CAST(relevance AS DOUBLE) rel FROM {qrels} WHERE relevance >= 1 "
    "DISTRIBUTE BY query_id)"
)


def measures_of(join: str, hint: str, duplicates: str | None = None) -> str:
    """The five measures' means over the ranked rows of ``join`` (aliases ``r``, ``j``)."""
    ranked = (
        f"SELECT /*+ {hint}(j) */ r.query_id, r.doc_id, j.rel, ROW_NUMBER() OVER w AS rank, "
        f"SUM(CASE WHEN j.rel >= 1 THEN 1 ELSE 0 END) OVER w AS w0 FROM {join} {WINDOW}"
    )
    extra, dups = "", "0"
    if duplicates:  # each (query, key) once, counted: a key given twice is a duplicate
        ranked = (
            f"SELECT query_id, COUNT(*) AS c, MIN(rel) rel, MIN(rank) rank, MIN(w0) w0 FROM "
            f"(SELECT *, {duplicates} AS rf_key FROM ({ranked})) GROUP BY query_id, rf_key"
        )
        extra, dups = ", SUM(CASE WHEN c > 1 THEN 1 ELSE 0 END) AS dups", "dups"
    return f"""
    WITH a AS (
      SELECT query_id,
        SUM(CASE WHEN rank <= 10 AND rel > 0 THEN rel / LOG2(rank + 1) ELSE 0.0 END) h0,
        SUM(CASE WHEN rel >= 1 THEN CAST(w0 AS DOUBLE) / rank ELSE 0.0 END) h1,
        SUM(CASE WHEN rel >= 1 AND rank <= 10 THEN 1 ELSE 0 END) h2,
        SUM(CASE WHEN rel >= 1 AND rank <= 100 THEN 1 ELSE 0 END) h3,
        MIN(CASE WHEN rel >= 1 THEN rank END) h4{extra}
      FROM ({ranked}) GROUP BY query_id),
    b AS (SELECT query_id, SUM(CASE WHEN relevance >= 1 THEN 1 ELSE 0 END) j0 FROM {{qrels}}
          GROUP BY query_id),
    i AS (SELECT query_id, SUM(CASE WHEN pos <= 10 THEN g / LOG2(pos + 1) ELSE 0.0 END) i0 FROM (
           SELECT query_id, CAST(relevance AS DOUBLE) g,
             ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY relevance DESC) pos
           FROM {{qrels}} WHERE relevance > 0) GROUP BY query_id),
    pq AS (SELECT a.query_id,
        COALESCE(h0 / NULLIF(COALESCE(i0, 0), 0), 0.0) m0,
        COALESCE(h1 / NULLIF(j0, 0), 0.0) m1,
        CAST(h2 AS DOUBLE) / 10 m2,
        COALESCE(CAST(h3 AS DOUBLE) / NULLIF(j0, 0), 0.0) m3,
        COALESCE(1.0D / h4, 0.0) m4, {dups} AS dups
      FROM a JOIN b ON a.query_id = b.query_id LEFT JOIN i ON a.query_id = i.query_id)
    SELECT AVG(m0) m0, AVG(m1) m1, AVG(m2) m2, AVG(m3) m3, AVG(m4) m4, SUM(dups) dups FROM pq"""


def plans() -> dict[str, str]:
    on = "r.query_id = j.query_id AND r.doc_id = j.doc_id"
    # the ids compared in an expression Spark does not take as a join key: the key is the hash
    hashed = (
        "xxhash64(r.query_id, r.doc_id) = j.h "
        "AND IF(r.query_id = j.query_id AND r.doc_id = j.doc_id, 1, 0) = 1"
    )
    co = f"{RUN_BY_QUERY} r LEFT JOIN {RELEVANT_BY_QUERY} j ON {on}"
    return {
        "floor": (
            "SELECT query_id, MAX(rank) FROM (SELECT r.query_id, ROW_NUMBER() OVER w rank "
            f"FROM {{run}} r {WINDOW}) GROUP BY query_id"
        ),
        "broadcast": measures_of(f"{{run}} r LEFT JOIN {RELEVANT} j ON {on}", "BROADCAST"),
        "broadcast-hash": measures_of(f"{{run}} r LEFT JOIN {RELEVANT_HASHED} j ON {hashed}", "BROADCAST"),
        "co-partitioned": measures_of(co, "SHUFFLE_HASH"),
        "co-partitioned+duplicates": measures_of(co, "SHUFFLE_HASH", "doc_id"),
        "co-partitioned+hashed-duplicates": measures_of(co, "SHUFFLE_HASH", "xxhash64(doc_id)"),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", help="a folder of generate.py: qrels.parquet, run.parquet")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--partitions", type=int, default=8, help="spark.sql.shuffle.partitions")
    a = p.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    qrels, run = f"{a.data}/qrels.parquet", f"{a.data}/run.parquet"
    spark = (
        SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(a.partitions))
        .config("spark.sql.requireAllClusterKeysForCoPartition", "false")
        .config("spark.driver.memory", "6g").getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")

    def case(text: str):  # noqa: ANN202
        def run_it() -> pl.DataFrame:
            out = spark.sql(text, qrels=spark.read.parquet(qrels), run=spark.read.parquet(run))
            return pl.from_arrow(out.toArrow())

        return run_it

    cases = {"one machine": lambda: rf.evaluate(qrels, run, MEASURES)}
    cases.update({name: case(text) for name, text in plans().items()})
    times: dict[str, list[float]] = {k: [] for k in cases}
    results = {}
    for r in range(a.rounds + 1):  # round 0 warms the JVM up
        for name, fn in cases.items():
            t = time.perf_counter()
            results[name] = fn()
            if r:
                times[name].append(time.perf_counter() - t)
    ref = dict(zip(results["one machine"]["measure"], results["one machine"]["value"], strict=True))
    base = statistics.median(times["one machine"])
    print(f"load after: {os.getloadavg()[0]:.1f}\n")
    print("| plan | median s | ratio to one machine | largest difference of a mean |")
    print("| --- | ---: | ---: | ---: |")
    for name, ts in times.items():
        diff = ""
        if name not in ("one machine", "floor"):
            row = results[name].row(0)[: len(MEASURES)]  # then the duplicates found (0)
            diff = f"{max(abs(v - ref[m]) for v, m in zip(row, MEASURES, strict=True)):.1e}"
        med = statistics.median(ts)
        print(f"| {name} | {med:.2f} | {med / base:.2f}x | {diff} |")
    spark.stop()


if __name__ == "__main__":
    main()
