"""Cost of each measure's per-query aggregation on an already collected judged frame.

python benchmarks/profile_measures.py --data benchmarks/data/string-10M-k100-s0
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import polars as pl

from rankframe._engine.options import RANK, REL, Q
from rankframe._engine.prepare import prepare
from rankframe._engine.rank import ranked_join
from rankframe._measures import Ctx

MEASURES = ["nDCG@10", "AP", "P@10", "R@100", "RR"]


def clock(label: str, fn) -> None:  # noqa: ANN001
    best_w = best_c = float("inf")
    for _ in range(2):
        t, c = time.perf_counter(), time.process_time()
        fn()
        best_w, best_c = min(best_w, time.perf_counter() - t), min(best_c, time.process_time() - c)
    print(
        f"{label:58s} wall {best_w:6.2f} s  cpu {best_c:6.2f} s  (load {os.getloadavg()[0]:.1f})", flush=True
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data", type=Path, required=True)
    a = p.parse_args()
    prep = prepare(a.data / "qrels.parquet", a.data / "run.parquet", MEASURES, validate=False)
    t = time.perf_counter()
    jf = ranked_join(prep.run, prep.qrels, [], prep.opts).collect()
    print(f"judged frame collected: {jf.height} rows in {time.perf_counter() - t:.2f} s")
    ctx = Ctx(rank=pl.col(RANK), rel=pl.col(REL), relevance_level=prep.opts.relevance_level)
    lf = jf.lazy()
    every = [m.expr(ctx).alias(repr(m)) for m in prep.measures]
    for eng in ("streaming", "in-memory"):
        cases = [("group_by only (pl.len())", [pl.len()])]
        cases += [(f"group_by + {m!r}", [e]) for m, e in zip(prep.measures, every, strict=True)]
        cases.append(("group_by + all 5", every))
        for label, exprs in cases:
            clock(f"[{eng}] {label}", lambda x=exprs, g=eng: lf.group_by(Q).agg(*x).collect(engine=g))
    # The ideal DCG on its own, and a qrels-side alternative (one sort per query, once).
    rel = pl.col(REL).clip(lower_bound=0).fill_null(0).cast(pl.Float64)
    ideal = rel.filter(rel > 0).sort(descending=True).head(10)
    clock(
        "ideal DCG@10 alone (sort inside agg)",
        lambda: lf.group_by(Q).agg((ideal / (ideal.cum_count().cast(pl.Float64) + 1).log(2)).sum()).collect(),
    )
    clock(
        "ideal top 10 gains via top_k (no full sort; the DCG sum not included)",
        lambda: lf.group_by(Q).agg(rel.filter(rel > 0).top_k(10).alias("t")).collect(),
    )
    qrels = prep.qrels.select(Q, REL)
    clock(
        "ideal DCG@10 on the qrels alone (once per query, 3.8M rows at 10M)",
        lambda: (
            qrels.group_by(Q).agg((ideal / (ideal.cum_count().cast(pl.Float64) + 1).log(2)).sum()).collect()
        ),
    )


if __name__ == "__main__":
    main()
