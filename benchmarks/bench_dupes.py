"""When a run's duplicate (query, doc) rows are reported, and at what cost (issue 40).

Writes (once) a generated run with ``--dupes`` duplicated rows late in the file, as one
Parquet file and as a folder of ``--files`` Parquet files (no query spans two files), plus its
clean twin, under ``benchmarks/data/dupes-<rows>`` (gitignored). Then, each case in a fresh
process (its peak RSS from ``getrusage``), interleaved over ``--rounds`` rounds, it measures:

* ``error/<path>``: seconds until ``rf.evaluate`` raises the duplicate error, and the peak RSS,
  for one plan, ``partitions=N``, ``partitions="files"`` and the CLI (``rankframe evaluate``);
* ``clean/<path>``: seconds of the same evaluation of the clean run (what a screen costs when
  there is nothing to find); ``clean/memory``: one plan over frames already in memory.

Medians are printed as a Markdown table.

Examples
--------
    python benchmarks/bench_dupes.py --rows 10000000 --rounds 3
    python benchmarks/bench_dupes.py --rows 200000 --rounds 1 --cases error/one-plan
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MEASURES = ["nDCG@10", "AP", "P@10", "RR", "R@100"]


def write_data(rows: int, files: int, dupes: int, out: Path) -> None:
    """The run (clean and with ``dupes`` copied rows near its end), its qrels, as files."""
    if (out / "done").exists():
        return
    from generate import generate

    out.mkdir(parents=True, exist_ok=True)
    run, qrels = generate(rows, 100, seed=0)
    # copies of rows from the last 5% of the run, placed right after the row they copy
    start = int(rows * 0.95)
    picks = list(range(start, rows, max(1, (rows - start) // dupes)))[:dupes]
    copies = run.with_row_index("_i").filter(pl.col("_i").is_in(picks))
    dup = pl.concat([run.with_row_index("_i"), copies]).sort("_i", maintain_order=True).drop("_i")
    qrels.write_parquet(out / "qrels.parquet")
    for name, frame in (("clean", run), ("dup", dup)):
        frame.write_parquet(out / f"{name}.parquet", row_group_size=1 << 20)
        folder = out / f"{name}-files"
        folder.mkdir(exist_ok=True)
        queries = frame["query_id"].unique(maintain_order=True)
        per = -(-queries.len() // files)
        for i in range(files):
            part = frame.filter(pl.col("query_id").is_in(queries.slice(i * per, per).implode()))
            part.write_parquet(folder / f"part-{i:03d}.parquet")
    (out / "done").write_text(json.dumps({"rows": rows, "dupes": dupes, "files": files}) + "\n")


CHILD = r"""
import json, resource, sys, time, subprocess
import rankframe as rf
case, data, measures, parts = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
kind, path = case.split("/")
run = f"{data}/{'dup' if kind == 'error' else 'clean'}"
qrels = f"{data}/qrels.parquet"
if path == "memory":  # frames in memory (read before the clock starts)
    import polars as pl
    qrels, frame = pl.read_parquet(qrels), pl.read_parquet(run + ".parquet")
t0 = time.perf_counter()
WHO = (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
cpu0 = sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, WHO))
err = ""
try:
    if path == "memory":
        rf.evaluate(qrels, frame, measures, partitions=None)
    elif path == "one-plan":
        rf.evaluate(qrels, run + ".parquet", measures, partitions=None)
    elif path == "hash":
        rf.evaluate(qrels, run + ".parquet", measures, partitions=parts)
    elif path == "files":
        rf.evaluate(qrels, run + "-files", measures, partitions="files")
    elif path == "glob":
        rf.evaluate(qrels, run + "-files/*.parquet", measures, partitions=None)
    elif path == "cli":
        p = subprocess.run(
            [sys.executable, "-m", "rankframe", "evaluate", qrels, run + ".parquet",
             "-m", *measures], capture_output=True, text=True)
        err = p.stderr.strip().splitlines()[-1] if p.returncode else ""
except rf.InputError as e:
    err = str(e)
seconds = time.perf_counter() - t0
me, kids = map(resource.getrusage, WHO)
rss = max(me.ru_maxrss, kids.ru_maxrss)
cpu = sum(u.ru_utime + u.ru_stime for u in (me, kids)) - cpu0
print(json.dumps({"seconds": seconds, "cpu": cpu, "rss_mib": rss / 1024, "error": err[:300]}))
"""

CASES = [
    "error/one-plan", "error/glob", "error/hash", "error/files", "error/cli",
    "clean/one-plan", "clean/hash", "clean/files", "clean/memory",
]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--files", type=int, default=8)
    p.add_argument("--dupes", type=int, default=137)
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument(
        "--trees", default=str(HERE.parent),
        help="comma-separated checkouts whose rankframe each case runs, interleaved (before,after)",
    )
    a = p.parse_args(argv)
    data = HERE / "data" / f"dupes-{a.rows}"
    write_data(a.rows, a.files, a.dupes, data)
    trees = a.trees.split(",")
    runs = [(c, t) for c in a.cases.split(",") for t in trees]
    got: dict[tuple[str, str], list[dict]] = {ct: [] for ct in runs}
    for r in range(a.rounds):
        for case, tree in runs:  # interleaved: each round runs every case once in each tree
            out = subprocess.run(
                [sys.executable, "-c", CHILD, case, str(data), ",".join(MEASURES), str(a.partitions)],
                capture_output=True, text=True, check=False, cwd=tree,
            )
            try:
                res = json.loads(out.stdout.strip().splitlines()[-1])
            except (IndexError, json.JSONDecodeError):
                print(out.stdout, out.stderr, file=sys.stderr)
                raise
            got[case, tree].append(res)
            took = f"{res['seconds']:.2f} s, CPU {res.get('cpu', 0):.2f} s, {res['rss_mib']:.0f} MiB"
            print(f"round {r + 1} {case} {tree}: {took}", flush=True)
    print(f"\n{a.rows:,} rows, {a.dupes} duplicated rows near the end, {a.rounds} rounds "
          f"({time.strftime('%Y-%m-%d %H:%M')})\n")
    print("| case | tree | median s | median CPU s | median peak RSS MiB | error (first round) |")
    print("|---|---|---|---|---|---|")
    for (case, tree), res in got.items():
        s = statistics.median(x["seconds"] for x in res)
        c = statistics.median(x.get("cpu", float("nan")) for x in res)
        m = statistics.median(x["rss_mib"] for x in res)
        print(f"| {case} | {tree} | {s:.2f} | {c:.2f} | {m:.0f} | {res[0]['error'][:200]} |")


if __name__ == "__main__":
    main()
