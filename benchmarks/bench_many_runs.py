"""Many runs: one ``evaluate`` call over R runs vs R separate calls, on the same files.

Writes R runs derived from one generated run (each re-scores the documents with its own seeded
noise, so rankings differ) as Parquet files, then times, rounds interleaved in this process:

- ``one call``: ``rf.evaluate(qrels, [run_0, ..., run_R-1], measures)``;
- ``one call, partitions=P``: the same, query-partitioned (bounded memory);
- ``separate``: R calls ``rf.evaluate(qrels, run_i, measures)``.

The per-run means of the one call must equal the separate calls' (checked exactly).

    python benchmarks/generate.py --rows 1000000 --out benchmarks/data/string-1M-k100-s0
    python benchmarks/bench_many_runs.py --data benchmarks/data/string-1M-k100-s0 --runs 50
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

import rankframe as rf

MEASURES = ["nDCG@10", "AP", "P@10", "R@100", "RR"]


def write_runs(data: Path, runs: int, folder: Path) -> list[str]:
    """R Parquet runs: the generated scores plus seeded noise (about 10% keep exact ties)."""
    base = pl.read_parquet(data / "run.parquet")
    paths = []
    for i in range(runs):
        rng = np.random.default_rng(i)
        noise = np.round(rng.normal(0, 40, base.height)) / 4
        run = base.with_columns((pl.col("score") + pl.Series(noise)).alias("score"))
        path = folder / f"run-{i:03d}.parquet"
        run.write_parquet(path)
        paths.append(str(path))
    return paths


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, required=True, help="a folder with run.parquet, qrels.parquet")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--partitions", type=int, default=5)
    a = p.parse_args(argv)
    warnings.simplefilter("ignore")
    qrels = str(a.data / "qrels.parquet")
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_runs(a.data, a.runs, Path(tmp))
        named = {Path(x).stem: x for x in paths}

        def one_call() -> pl.DataFrame:
            return rf.evaluate(qrels, named, MEASURES)

        def one_call_partitioned() -> pl.DataFrame:
            return rf.evaluate(qrels, named, MEASURES, partitions=a.partitions)

        def separate() -> pl.DataFrame:
            frames = [rf.evaluate(qrels, path, MEASURES).with_columns(run=pl.lit(name))
                      for name, path in named.items()]
            return pl.concat(frames).select("run", "measure", "value")

        modes = {"one call": one_call, f"one call, partitions={a.partitions}": one_call_partitioned,
                 "separate": separate}
        times: dict[str, list[float]] = {m: [] for m in modes}
        results = {}
        for _ in range(a.rounds):
            for name, fn in modes.items():
                t = time.perf_counter()
                results[name] = fn()
                times[name].append(time.perf_counter() - t)
    rows = pl.scan_parquet(a.data / "run.parquet").select(pl.len()).collect().item()
    ref = results["separate"].sort("run", "measure")
    agree = {m: r.sort("run", "measure").equals(ref) for m, r in results.items()}
    base = statistics.median(times["separate"])
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"polars {pl.__version__}; {a.runs} runs x {rows:,} rows; "
          f"rounds {a.rounds}, medians; peak RSS of this process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB\n")
    print("| mode | wall (s) | vs separate calls | per-run means equal to separate calls |")
    print("|---|---:|---:|---|")
    for m in modes:
        wall = statistics.median(times[m])
        print(f"| {m} | {wall:.2f} | {base / wall:.2f}x | {'yes' if agree[m] else 'NO'} |")


if __name__ == "__main__":
    main()
