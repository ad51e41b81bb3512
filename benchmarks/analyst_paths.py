"""The analyst's paths beside ``rf.evaluate`` on the log scenario's data (issue 40, deliverable 8).

The same job four ways, each in a fresh child process (wall time from the start of the child,
imports included; peak RSS from ``os.wait4``), medians over ``--rounds`` in one run:

- ``evaluate``: ``rf.evaluate(judged=FILES, by=[day, locale, model])``, the command line's path;
- ``expr-log``: :mod:`rankframe.expr` in the analyst's own ``group_by`` straight on the log
  (``score=``, ``label=``, ``doc=`` mapped; a log is complete by construction);
- ``expr-judged``: :mod:`rankframe.expr` on :func:`rankframe.judged_frame` (the log read as
  qrels and as run, joined);
- ``evaluate-pair``: ``rf.evaluate(FILES, FILES, ...)``, the log read as qrels and as run (the
  inputs of the two paths below);
- ``duckdb``: ``rf.evaluate(..., engine="duckdb")`` with the log as qrels and as run;
- floors: ``duckdb-handwritten``, the three measures written by hand for DuckDB over the log
  (one table: no join, no checks), and ``join-floor``, the full join of the log's qrels and run
  side that :func:`rankframe.judged_frame` makes, counted (Polars).

Every path's means are checked against ``evaluate``'s (to 1e-12). The data are
``benchmarks/logs_scenario.py``'s (``python benchmarks/logs_scenario.py --rows N`` generates them).

Usage::

    python benchmarks/analyst_paths.py --data 'benchmarks/data/logs-20000000/day=*.parquet' --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# the three measures over the log (complete by construction: one table, no join) as an analyst
# writes them for DuckDB: the least a DuckDB path costs on these rows
HANDWRITTEN = """
WITH ranked AS (
    SELECT day, locale, model, session, click,
           ROW_NUMBER() OVER (PARTITION BY day, locale, model, session
                              ORDER BY model_score DESC, CAST(item AS VARCHAR) DESC) AS rank,
           ROW_NUMBER() OVER (PARTITION BY day, locale, model, session ORDER BY click DESC) AS pos
    FROM read_parquet('{files}')
), per AS (
    SELECT day, locale, model, session,
           SUM(click / LOG2(rank + 1)) FILTER (WHERE rank <= 10) AS dcg,
           SUM(click / LOG2(pos + 1)) FILTER (WHERE pos <= 10 AND click > 0) AS idcg,
           MIN(rank) FILTER (WHERE click > 0) AS first_rank,
           COUNT(*) FILTER (WHERE click > 0 AND rank <= 100) AS hits,
           COUNT(*) FILTER (WHERE click > 0) AS n_relevant
    FROM ranked GROUP BY ALL
)
SELECT day, locale, model,
       AVG(COALESCE(dcg / idcg, 0)) AS "nDCG@10", AVG(COALESCE(1 / first_rank, 0)) AS "RR",
       AVG(COALESCE(hits / n_relevant, 0)) AS "R@100"
FROM per GROUP BY ALL
"""

CHILD = r"""
import json, sys
args = json.loads(sys.argv[1])
HANDWRITTEN = args["handwritten"]
import polars as pl
import rankframe as rf
from rankframe import expr as rfx

files, path, out = args["data"], args["path"], args["out"]
keys = ["day", "locale", "model"]
measures = ["nDCG@10", "RR", "R@100"]
qc = {"query_id": "session", "doc_id": "item", "relevance": "click"}
rc = {"query_id": "session", "doc_id": "item", "score": "model_score"}
if path == "evaluate":
    res = rf.evaluate(judged=files, measures=measures, by=keys, qrels_columns=qc, run_columns=rc,
                      per_query=False, partitions=None)
    res = res.pivot("measure", index=keys, values="value")
elif path == "evaluate-pair":
    res = rf.evaluate(files, files, measures=measures, by=keys, qrels_columns=qc, run_columns=rc,
                      per_query=False, partitions=None)
    res = res.pivot("measure", index=keys, values="value")
elif path == "duckdb-handwritten":
    import duckdb
    res = duckdb.sql(HANDWRITTEN.replace("{files}", files)).pl()
elif path == "join-floor":
    # the full join that rf.judged_frame must make (every judgment and every retrieved row),
    # counted: the least that expressions on a judged frame built from qrels and a run cost
    log = pl.scan_parquet(files)
    qrels = log.select(*keys, "session", "item", "click")
    run = log.select(*keys, "session", "item", "model_score")
    n = qrels.join(run, on=[*keys, "session", "item"], how="full", coalesce=True).select(pl.len())
    n.collect()
    res = None
elif path == "duckdb":
    res = rf.evaluate(files, files, measures=measures, by=keys, qrels_columns=qc, run_columns=rc,
                      per_query=False, engine="duckdb")
    res = res.pivot("measure", index=keys, values="value")
else:
    if path == "expr-log":
        frame = pl.scan_parquet(files)
        cols = dict(score="model_score", label="click", doc="item")
        q = "session"
    else:
        frame = rf.judged_frame(files, files, by=keys, qrels_columns=qc, run_columns=rc)
        cols = {}
        q = "query_id"
    per = frame.group_by([*keys, q]).agg(
        rfx.ndcg(10, **cols).alias("nDCG@10"), rfx.reciprocal_rank(**cols).alias("RR"),
        rfx.recall(100, **cols).alias("R@100"),
    )
    res = per.group_by(keys).agg(pl.col(measures).mean()).collect()
if res is not None:
    res.sort(keys).write_parquet(out)
"""


PATHS = [
    "evaluate", "expr-log", "evaluate-pair", "expr-judged", "join-floor", "duckdb", "duckdb-handwritten",
]


def _run(path: str, files: str, out: str) -> tuple[float, float]:
    spec = json.dumps({"path": path, "data": files, "out": out, "handwritten": HANDWRITTEN})
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", CHILD, spec])
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{path} failed ({status})")
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="the log scenario's files (a glob)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--paths", nargs="+", default=PATHS)
    args = ap.parse_args()
    import polars as pl

    walls: dict[str, list[float]] = {p: [] for p in args.paths}
    peaks: dict[str, list[float]] = {p: [] for p in args.paths}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for p in args.paths:  # side by side, round after round
                wall, peak = _run(p, args.data, os.path.join(tmp, f"{p}.parquet"))
                walls[p].append(wall)
                peaks[p].append(peak)
                print(f"round {r + 1} {p}: {wall:.1f} s, {peak:.0f} MiB", flush=True)
        base = pl.read_parquet(os.path.join(tmp, f"{args.paths[0]}.parquet"))
        worst = {}
        for p in args.paths[1:]:
            if not os.path.exists(os.path.join(tmp, f"{p}.parquet")):
                continue  # a floor that computes no measure
            got = pl.read_parquet(os.path.join(tmp, f"{p}.parquet"))
            both = base.join(got, on=["day", "locale", "model"], suffix="_")
            assert both.height == base.height == got.height, p
            worst[p] = max(
                abs(a - b)
                for m in ("nDCG@10", "RR", "R@100")
                for a, b in zip(both[m], both[f"{m}_"], strict=True)
            )
    w0, m0 = statistics.median(walls[args.paths[0]]), statistics.median(peaks[args.paths[0]])
    print(f"\n| path | wall s (median of {args.rounds}) | x {args.paths[0]} | peak RSS MiB | x | max diff |")
    print("|---|---:|---:|---:|---:|---:|")
    for p in args.paths:
        w, m = statistics.median(walls[p]), statistics.median(peaks[p])
        diff = f"{worst[p]:.1e}" if p in worst else "-"
        print(f"| {p} | {w:.2f} | {w / w0:.2f} | {m:.0f} | {m / m0:.2f} | {diff} |")
    if any(v > 1e-12 for v in worst.values()):
        sys.exit(f"a path differs from {args.paths[0]}: {worst}")


if __name__ == "__main__":
    main()
