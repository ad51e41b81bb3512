"""Measured peaks against the memory plan's estimate (``rankframe._engine.memory``), per partition count.

For each input form and partition count, a child process evaluates the inputs with
``partitions=N`` under a generous address-space limit (so that ``cap_malloc_arenas`` acts as it
does under a real one) and reports what it used beyond what it held before the evaluation:
address space (``VmPeak`` less ``VmSize`` before) and resident memory (``VmHWM`` less ``VmRSS``
before), beside :class:`~rankframe._engine.memory.Need`'s ``address(N)`` and ``resident(N)``,
and the address space after the first part (its peak; the whole peak less it is the growth part
after part, which Polars' allocator keeping its mappings made: RESULTS.md, 2026-11-28).
The ratio estimate / measured should stay above 1 (the plan refuses what does not fit) and not far
above it (the plan refuses what would fit: issue 40's case). Then, per form, the smallest
``ulimit -v`` under which ``partitions="auto"`` completes is compared with what the plan asks.

Usage::

    python benchmarks/memory_calibration.py --data 'benchmarks/data/logs-20000000/*.parquet' \\
        --parts 1 4 16 64 --forms judged pair

The data are the log scenario's (``benchmarks/logs_scenario.py`` generates them): ``judged`` reads
the files once as a judged frame, ``pair`` passes them as qrels and as run (the same rows twice);
``plain`` evaluates ``--qrels`` and ``--run`` files with rankframe's column names (e.g. the 5M
rows of ``tests/test_memory.py`` that ``benchmarks/experiments/memory_flake_loop.py`` writes).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CHILD = r"""
import json, sys, resource
args = json.loads(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (args["limit"], args["limit"]))
import rankframe as rf
from rankframe._engine import allocator, memory, partition
from rankframe._engine.prepare import prepare
from rankframe._engine.options import Options

def status():
    out = {}
    for line in open("/proc/self/status"):
        k, _, v = line.partition(":")
        if k in ("VmPeak", "VmSize", "VmHWM", "VmRSS"):
            out[k] = int(v.split()[0]) * 1024
    return out

qc = {"query_id": "session", "doc_id": "item", "relevance": "click"}
rc = {"query_id": "session", "doc_id": "item", "score": "model_score"}
src, n = args["data"], args["parts"]
# the log as a judged frame, the same files as qrels and as run, or a qrels and a run file
if args["form"] == "plain":
    q, r, judged = args["qrels"], args["run"], None
    inputs = {}
else:
    q, r, judged = (None, None, src) if args["form"] == "judged" else (src, src, None)
    inputs = dict(judged=judged, by=args["by"], qrels_columns=qc, run_columns=rc)
peaks = []  # VmPeak after each part: the growth part after part
evaluate_part = partition._raw_wide
def logged(*a, **k):
    out = evaluate_part(*a, **k)
    peaks.append(status()["VmPeak"])
    return out
partition._raw_wide = logged
before = status()  # after the imports: the evaluation's whole peak counts, its checks' scans too
rf.evaluate(q, r, args["measures"], **inputs, per_query=False, partitions=None if n == 1 else n)
after = status()
need = memory.estimate(prepare(q, r, args["measures"], **inputs))
first = (peaks[0] if peaks else after["VmPeak"]) - before["VmSize"]
print(json.dumps({
    "address": after["VmPeak"] - before["VmSize"], "resident": after["VmHWM"] - before["VmRSS"],
    "first": first, "est_address": need.address(n), "est_resident": need.resident(n),
    "rows": need.rows, "width": need.width, "scale": need.scale, "var": need._var,
    "returns": allocator.returns_address_space(),
}))
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", help="a Parquet path or glob of the log scenario's files")
    p.add_argument("--parts", type=int, nargs="+", default=[1, 4, 16, 64])
    p.add_argument("--forms", nargs="+", default=["judged", "pair"], choices=["judged", "pair", "plain"])
    p.add_argument("--qrels", help="the plain form's qrels (Parquet, rankframe's column names)")
    p.add_argument("--run", help="the plain form's run")
    p.add_argument("--measures", nargs="+", default=["nDCG@10", "RR", "R@100"])
    p.add_argument("--by", nargs="*", default=["day", "locale", "model"])
    p.add_argument("--limit-gib", type=float, default=24.0, help="the child's RLIMIT_AS (GiB)")
    args = p.parse_args()
    mib = 1 << 20
    print(
        "| form | partitions | est. address MiB | measured MiB | ratio | first part MiB "
        "| est. resident MiB | measured MiB | ratio | s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for form in args.forms:
        for n in args.parts:
            spec = {
                "data": args.data, "form": form, "parts": n, "measures": args.measures, "by": args.by,
                "limit": int(args.limit_gib * (1 << 30)), "qrels": args.qrels, "run": args.run,
            }
            t = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-c", CHILD, json.dumps(spec)], capture_output=True, text=True, check=False
            )
            wall = time.perf_counter() - t
            if out.returncode != 0:
                print(f"| {form} | {n} | failed rc={out.returncode}: {out.stderr.strip()[-300:]} |")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"| {form} | {n} | {r['est_address'] / mib:.0f} | {r['address'] / mib:.0f} | "
                f"{r['est_address'] / max(r['address'], 1):.2f} | {r['first'] / mib:.0f} | "
                f"{r['est_resident'] / mib:.0f} | "
                f"{r['resident'] / mib:.0f} | {r['est_resident'] / max(r['resident'], 1):.2f} | {wall:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
