"""Time rank fusion, rankframe against ranx, loading included (issue 41).

Generates (seeded, not committed: ``benchmarks/data/fusion/``) ``--runs`` TREC run files of
``--rows`` rows in all, ``--depth`` documents per query, then times in fresh processes,
interleaved round by round:

* ``rankframe``: ``rf.fuse([path, ...], method, norm=...)`` (reads the files, fuses, sorts);
* ``ranx``: ``Run.from_file(path, kind="trec")`` for each file, then ``ranx.fuse(...)``.

Two tasks: RRF (k=60, no normalisation) and CombMNZ after min-max. Each child reports its wall
time from the first read to the fused run (imports excluded) and its peak resident memory
(``VmHWM``, imports included). ranx compiles with numba on its first call and caches the
machine code on disk: one untimed ranx run per task warms that cache first.

    python benchmarks/bench_fusion.py --rows 10000000 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "fusion"
TASKS = {"rrf": ("rrf", None), "mnz+min-max": ("mnz", "min-max")}


def generate(rows: int, runs: int, depth: int, seed: int) -> list[Path]:
    """Write the runs (TREC text) once per size; return their paths."""
    import numpy as np
    import polars as pl

    queries = max(1, rows // (runs * depth))
    folder = DATA / f"{rows}_{runs}_{depth}_{seed}"
    paths = [folder / f"run{r}.txt" for r in range(runs)]
    if all(p.exists() for p in paths):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    pool = depth * 3  # each run retrieves depth of the query's 3 * depth candidates
    for r, path in enumerate(paths):
        q = np.repeat(np.arange(queries), depth)
        docs = np.argsort(rng.random((queries, pool)), axis=1)[:, :depth].ravel()
        score = -np.sort(-np.round(rng.normal(10, 3, (queries, depth)), 4), axis=1).ravel()
        frame = pl.DataFrame(
            {
                "q": q.astype(str),
                "q0": "Q0",
                "d": np.char.add("doc", docs.astype(str)),
                "rank": np.tile(np.arange(1, depth + 1), queries),
                "score": score,
                "tag": f"run{r}",
            }
        )
        frame.write_csv(path, separator=" ", include_header=False)
    return paths


def child(engine: str, task: str, paths: list[str]) -> None:
    """Fuse in this process; print seconds and peak memory as JSON."""
    method, norm = TASKS[task]
    sys.path.insert(0, str(HERE.parent))  # this checkout's rankframe, not an installed one
    if engine == "rankframe":
        import rankframe as rf

        t = time.perf_counter()
        fused = rf.fuse(paths, method, norm=norm)
        n = fused.height
    else:
        import ranx

        t = time.perf_counter()
        runs = [ranx.Run.from_file(p, kind="trec") for p in paths]
        fused = ranx.fuse(runs, norm=norm, method=method)
        n = sum(len(v) for v in fused.run.values())
    seconds = time.perf_counter() - t
    hwm = next(
        line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmHWM")
    )
    print(json.dumps({"seconds": seconds, "rss_mib": int(hwm.split()[1]) / 1024, "rows": n}))


def spawn(engine: str, task: str, paths: list[Path]) -> dict:
    cmd = [sys.executable, __file__, "--child", engine, task, *map(str, paths)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=HERE.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows over all runs")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--depth", type=int, default=100, help="documents per query and run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    ap.add_argument("--no-warmup", action="store_true", help="numba's cache is warm already")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.child[2:])
        return
    paths = generate(args.rows, args.runs, args.depth, args.seed)
    print(f"{args.runs} runs, {args.rows:,} rows, {args.depth} documents per query", flush=True)
    for task in [] if args.no_warmup else args.tasks:
        spawn("ranx", task, paths)  # numba's compile cache, untimed
    results: dict[tuple[str, str], list[dict]] = {}
    for i in range(args.rounds):
        for task in args.tasks:
            for engine in ("rankframe", "ranx"):
                r = spawn(engine, task, paths)
                results.setdefault((task, engine), []).append(r)
                print(
                    f"round {i + 1} {task:12} {engine:9} {r['seconds']:7.2f} s {r['rss_mib']:7.0f} MiB",
                    flush=True,
                )
    print("\n| task | rankframe s | ranx s | ratio | rankframe peak MiB | ranx peak MiB |")
    print("|---|---:|---:|---:|---:|---:|")
    for task in args.tasks:
        ours, theirs = results[(task, "rankframe")], results[(task, "ranx")]
        a = statistics.median(r["seconds"] for r in ours)
        b = statistics.median(r["seconds"] for r in theirs)
        ma = max(r["rss_mib"] for r in ours)
        mb = max(r["rss_mib"] for r in theirs)
        print(f"| {task} | {a:.2f} | {b:.2f} | {b / a:.1f}x | {ma:.0f} | {mb:.0f} |")


if __name__ == "__main__":
    main()
