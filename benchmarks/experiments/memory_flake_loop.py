"""Loop the scenario of ``tests/test_memory.py::test_auto_partitions_complete_where_one_plan_aborts``.

The test's inputs (5M run rows, written once into ``benchmarks/data/memtest/``), its child
process and its limit (65% of the single plan's peak above the imports, ``--share``): the single
plan measured once without a limit, then ``partitions="auto"`` under the limit ``times`` times,
each line giving the exit status, whether the means are the unlimited run's, the peak and the
plan's note. Run it beside other work to see it under load (RESULTS.md, 2026-11-28).

Usage::

    python benchmarks/experiments/memory_flake_loop.py 20
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

import test_memory as t  # noqa: E402 - the test's own child, limit and inputs

DATA = ROOT / "benchmarks" / "data" / "memtest"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("times", type=int)
    p.add_argument("--share", type=float, default=0.65, help="the limit: share of the single plan's peak")
    args = p.parse_args()
    inputs = (DATA / "qrels.parquet", DATA / "run.parquet")
    if not inputs[1].exists():
        DATA.mkdir(parents=True, exist_ok=True)
        t.inputs.__wrapped__(type("F", (), {"mktemp": staticmethod(lambda _: DATA)}))
    unlimited = t._result(t._child(inputs, "1", 1 << 40))
    before, peak = unlimited["before"], unlimited["peak"]
    limit = before + int(args.share * (peak - before))
    mib = 1 << 20
    print(f"imports {before // mib} MiB, single plan's peak {peak // mib} MiB, limit {limit // mib} MiB")
    failed = 0
    for i in range(args.times):
        start = time.perf_counter()
        proc = t._child(inputs, "auto", limit)
        ok = proc.returncode == 0 and t._result(proc)["means"] == unlimited["means"]
        failed += not ok
        peak = t._result(proc)["peak"] >> 20 if proc.returncode == 0 else -1
        note = proc.stderr.splitlines()[0][:100] if proc.stderr else ""
        tail = "" if ok else proc.stderr[-300:]
        took = time.perf_counter() - start
        print(i, proc.returncode, ok, f"{took:.0f} s, peak {peak} MiB", note, tail, flush=True)
    print(f"{failed} of {args.times} failed")


if __name__ == "__main__":
    main()
