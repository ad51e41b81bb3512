"""Ranking losses over 1M judged rows as one lazy Polars plan (rankframe.ltr.loss_frame).

Generates (seeded, in memory) 25,000 queries x 40 documents with graded labels and scores, then
times ``loss_frame`` (per-query values of every loss expressible as Polars expressions) and
``gradient_frame`` (per-document gradients), collected, median of ``--repeat``.

    python benchmarks/bench_losses.py --queries 25000 --docs 40
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

import numpy as np
import polars as pl

from rankframe.ltr import _loss_polars as _losses


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--queries", type=int, default=25_000)
    p.add_argument("--docs", type=int, default=40)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    n = a.queries * a.docs
    labels = rng.choice([0, 0, 0, 1, 1, 2, 3], size=n).astype(np.float64)
    frame = pl.DataFrame({
        "query_id": np.repeat(np.arange(a.queries), a.docs).astype(str),
        "score": np.round(labels + rng.normal(0, 1.5, n), 2),  # rounded: some exact score ties
        "label": labels,
    })
    losses = list(_losses.FRAME_LOSSES)
    print(f"{n:,} judged rows ({a.queries:,} queries x {a.docs} docs), k={a.k}, losses {', '.join(losses)}; "
          f"polars {pl.__version__}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}\n")
    print("| plan | median s | min s |\n| --- | ---: | ---: |")
    plans = {
        "loss_frame (per-query values, all losses)": _losses.loss_frame,
        "gradient_frame (per-document gradients)": _losses.gradient_frame,
    }
    for label, plan in plans.items():
        times = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            plan(frame.lazy(), losses, k=a.k).collect()
            times.append(time.perf_counter() - t)
        print(f"| {label} | {statistics.median(times):.2f} | {min(times):.2f} |")
    print(f"\npeak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB")


if __name__ == "__main__":
    main()
