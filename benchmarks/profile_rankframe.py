"""Where rankframe's time goes: stage timings of ``evaluate`` on the benchmark's Parquet files.

Stages, each collected on its own (so the sum exceeds one ``evaluate``, where Polars overlaps
work): validation (``_validate``: null / duplicate checks), the ranked run (read + rank), the
judged frame (+ full join with the qrels), the per-query plan (+ group_by of the 5 measures),
then ``evaluate`` end to end. (Polars 2.x removed ``LazyFrame.profile``, so stages are timed by
collecting prefixes of the plan.) ``--plan`` prints ``rankframe.explain``; ``--in-memory`` also
times the per-query plan on the in-memory engine.

    python benchmarks/profile_rankframe.py --data benchmarks/data/string-10M-k100-s0 --plan
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

import polars as pl

import rankframe
from rankframe._engine.checks import _validate
from rankframe._engine.options import RANK, D, Q, S
from rankframe._engine.plan import per_query_plan
from rankframe._engine.prepare import prepare
from rankframe._engine.rank import rank_expr, ranked_join

MEASURES = ["nDCG@10", "AP", "P@10", "R@100", "RR"]


def timed(label: str, fn, out: dict, repeat: int) -> object:  # noqa: ANN001
    best, best_cpu = float("inf"), float("inf")
    res = None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        res = fn()
        best = min(best, time.perf_counter() - t)
        best_cpu = min(best_cpu, time.process_time() - c)
    out[label] = {"wall": round(best, 3), "cpu": round(best_cpu, 3), "load": os.getloadavg()[0]}
    print(
        f"{label:64s} wall {best:7.2f} s  cpu {best_cpu:7.2f} s  (load {os.getloadavg()[0]:.1f})", flush=True
    )
    return res


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data", type=Path, required=True)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--plan", action="store_true", help="print rankframe.explain")
    p.add_argument("--in-memory", action="store_true", help="also time the in-memory engine")
    p.add_argument("--engine", default="auto")
    a = p.parse_args()
    qrels, run = a.data / "qrels.parquet", a.data / "run.parquet"
    out: dict = {}
    eng = a.engine

    prep = timed(
        "prepare(validate=False) [schema only]",
        lambda: prepare(qrels, run, MEASURES, validate=False),
        out,
        a.repeat,
    )
    timed("_validate (nulls, duplicate (q,d) checks)", lambda: _validate(prep), out, a.repeat)
    timed(
        "  of which: run duplicate check (group_by q, d)",
        lambda: (
            prep.run.group_by(Q, D)
            .agg(pl.len().alias("n"))
            .filter(pl.col("n") > 1)
            .head(3)
            .collect(engine=eng)
        ),
        out,
        a.repeat,
    )
    timed(
        "  of which: run null / finite check",
        lambda: (
            prep.run.filter(
                pl.col(Q).is_null()
                | pl.col(D).is_null()
                | pl.col(S).is_null()
                | ~pl.col(S).cast(pl.Float64).is_finite()
            )
            .head(1)
            .collect(engine=eng)
        ),
        out,
        a.repeat,
    )
    timed(
        "  alternative: run duplicate check as is_duplicated().any()",
        lambda: prep.run.select(pl.struct(Q, D).is_duplicated().any()).collect(engine=eng),
        out,
        a.repeat,
    )
    timed(
        "scan run columns (q, d, score)", lambda: prep.run.select(Q, D, S).collect(engine=eng), out, a.repeat
    )
    keys: list[str] = []
    ranked = prep.run.select(Q, D, S).with_columns(
        rank_expr([Q], prep.run.collect_schema()[D], "trec_eval").alias(RANK)
    )
    timed(
        "scan + rank (int_range over q, order_by score, doc)",
        lambda: ranked.select(Q, D, RANK).collect(engine=eng),
        out,
        a.repeat,
    )
    timed(
        "scan + rank, struct(score, doc).rank('ordinal') (alternative)",
        lambda: prep.run.select(
            Q, D, pl.struct(S, D).rank("ordinal", descending=True).over(Q).alias(RANK)
        ).collect(engine=eng),
        out,
        a.repeat,
    )
    jf = ranked_join(prep.run, prep.qrels, keys, prep.opts)
    timed("judged frame (rank + full join with qrels)", lambda: jf.collect(engine=eng), out, a.repeat)
    timed(
        "join only (scan run + full join qrels, no rank)",
        lambda: (
            prep.run.select(Q, D)
            .join(prep.qrels.select(Q, D, "relevance"), on=[Q, D], how="full", coalesce=True)
            .collect(engine=eng)
        ),
        out,
        a.repeat,
    )
    plan = per_query_plan(prep.run, prep.qrels, prep.measures, keys, prep.opts)
    timed(
        "per-query plan (judged frame + group_by measures)", lambda: plan.collect(engine=eng), out, a.repeat
    )
    timed("rankframe.evaluate end to end", lambda: rankframe.evaluate(qrels, run, MEASURES), out, a.repeat)
    if a.in_memory:
        timed("per-query plan, in-memory engine", lambda: plan.collect(engine="in-memory"), out, a.repeat)
    if a.plan:
        print(rankframe.explain(qrels, run, MEASURES))
    out["maxrss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(json.dumps(out))


if __name__ == "__main__":
    main()
