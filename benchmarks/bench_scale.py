"""Scale: wall time and peak RSS of one evaluation from 1M to 100M run rows, in fresh processes.

Each data folder holds ``run/`` and ``qrels/`` (Parquet files partitioned by query, from
``generate.py --files N``). Every (data, mode) pair is timed in a fresh Python process, rounds
interleaved; the table gives medians, seconds per million rows (linear time keeps it flat) and
the five means (equal across modes: checked).

    python benchmarks/generate.py --rows 1000000 --files 2 --out benchmarks/data/string-1M-files2
    python benchmarks/generate.py --rows 10000000 --files 5 --out benchmarks/data/string-10M-files5
    python benchmarks/generate.py --rows 100000000 --files 50 --out benchmarks/data/string-100M-files50
    python benchmarks/bench_scale.py --data benchmarks/data/string-{1M-files2,10M-files5,100M-files50} \\
        --modes files none --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

MEASURES = ["nDCG@10", "AP", "P@10", "R@100", "RR"]

WORKER = r"""
import json, resource, sys, time, warnings
import rankframe as rf
warnings.simplefilter("ignore")
data, mode = sys.argv[1], sys.argv[2]
parts = None if mode == "none" else (mode if mode == "files" else int(mode))
t = time.perf_counter()
res = rf.evaluate(f"{data}/qrels", f"{data}/run", json.loads(sys.argv[3]), partitions=parts)
wall = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"wall": wall, "rss": rss, "means": res["value"].to_list()}))
"""


def measure(data: Path, mode: str) -> dict:
    """One evaluation in a fresh process: in-process wall seconds, peak RSS (MiB), means."""
    out = subprocess.run(
        [sys.executable, "-c", WORKER, str(data), mode, json.dumps(MEASURES)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, nargs="+", required=True)
    p.add_argument("--modes", nargs="+", default=["files", "none"],
                   help="files, none (one plan), or N (hash buckets)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--skip", nargs="*", default=[], help="data:mode pairs not to run (e.g. too big)")
    a = p.parse_args(argv)
    runs: dict[tuple[str, str], list[dict]] = {}
    for _ in range(a.rounds):
        for data in a.data:
            for mode in a.modes:
                if f"{data.name}:{mode}" in a.skip:
                    continue
                runs.setdefault((data.name, mode), []).append(measure(data, mode))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"rounds {a.rounds}, medians; measures {', '.join(MEASURES)}\n")
    print("| data | rows | mode | wall (s) | s per 1M rows | peak RSS (MiB) | means |")
    print("|---|---:|---|---:|---:|---:|---|")
    means: dict[str, list[float]] = {}
    for (name, mode), results in runs.items():
        info = json.loads((next(d for d in a.data if d.name == name) / "info.json").read_text())
        wall = statistics.median(r["wall"] for r in results)
        rss = statistics.median(r["rss"] for r in results)
        got = results[0]["means"]
        ref = means.setdefault(name, got)
        agree = "equal" if all(r["means"] == ref for r in results) else "DIFFER"
        print(f"| {name} | {info['rows']:,} | {mode} | {wall:.2f} | {wall / info['rows'] * 1e6:.3f} "
              f"| {rss:.0f} | {agree}: {', '.join(f'{v:.6f}' for v in got)} |")


if __name__ == "__main__":
    main()
