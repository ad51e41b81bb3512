"""Time rankframe.compare on 10,000 queries x 10 runs with 10,000 resamples (issue 6).

Generates (seeded, not committed) judgments and 10 runs of ``--depth`` documents per query in
memory, then times, in this process:

* ``evaluate``: the per-query evaluation alone (what every test starts from);
* ``compare`` end to end for each test, against a baseline (9 pairs) and for every pair (45);
* the resampling cores alone (``_stats.permutation`` / ``bootstrap`` on the 10,000 x 45 matrix).

    python benchmarks/bench_compare.py --queries 10000 --runs 10 --resamples 10000
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
import polars as pl

import rankframe as rf
from rankframe._compare import stats as _stats


def make(n_queries: int, n_runs: int, depth: int, seed: int) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), depth)
    d = np.tile(np.arange(depth), n_queries)
    grades = rng.choice([0, 0, 0, 1, 2, 3], size=q.size)
    qrels = pl.DataFrame({"query_id": q.astype(str), "doc_id": d.astype(str), "relevance": grades})
    skill = rng.normal(0, 0.3, n_runs)
    runs = {}
    for r in range(n_runs):
        score = grades * (1.0 + skill[r]) + rng.normal(0, 1.5, q.size)
        runs[f"run{r}"] = pl.DataFrame({"query_id": q.astype(str), "doc_id": d.astype(str), "score": score})
    return qrels, runs


def clock(label: str, fn, repeat: int) -> float:  # noqa: ANN001
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    med = float(np.median(times))
    print(f"| {label} | {med:.2f} | {min(times):.2f} | {os.getloadavg()[0]:.1f} |", flush=True)
    return med


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--depth", type=int, default=20)
    p.add_argument("--resamples", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    qrels, runs = make(a.queries, a.runs, a.depth, a.seed)
    b = a.resamples
    print(
        f"{a.queries} queries x {a.runs} runs x {a.depth} docs, {b} resamples; "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus, polars {pl.__version__}, "
        f"numpy {np.__version__}, rankframe {rf.__version__}\n"
    )
    print("| step | median s | min s | load |\n| --- | ---: | ---: | ---: |")
    clock(
        f"evaluate per query (nDCG@10), {a.runs} runs",
        lambda: rf.evaluate(qrels, runs, ["nDCG@10"], per_query=True), a.repeat,
    )
    for test in ("t", "wilcoxon", "tukey", "permutation", "bootstrap"):
        for baseline, pairs in (("run0", a.runs - 1), (None, a.runs * (a.runs - 1) // 2)):
            if test == "tukey" and baseline is None:
                continue
            clock(
                f"compare end to end, test={test}, {pairs} pairs",
                lambda test=test, baseline=baseline: rf.compare(
                    qrels, runs, ["nDCG@10"], test=test, baseline=baseline, n_permutations=b, n_bootstrap=b
                ),
                a.repeat,
            )
    x = np.random.default_rng(1).random((a.queries, a.runs))
    d = np.stack([x[:, j] - x[:, i] for i in range(a.runs) for j in range(i + 1, a.runs)], axis=1)
    clock(f"_stats.permutation alone, {a.queries} x {d.shape[1]} pairs x {b}",
          lambda: _stats.permutation(d, b, 0), a.repeat)
    clock(f"_stats.bootstrap alone, {a.queries} x {d.shape[1]} pairs x {b}",
          lambda: _stats.bootstrap(d, b, 0), a.repeat)


if __name__ == "__main__":
    main()
