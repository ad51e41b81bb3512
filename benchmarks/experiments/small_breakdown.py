"""Where a small evaluation's time goes (issue 41): the stages of one call, CPU medians.

``rf.evaluate`` of five measures on the 43-query sample's frames (repeated: the judgments'
statistics kept), and the pytrec_eval drop-in's call on one query, against the minimal plan
(``bench_small.minimal_plan``). Each stage is timed by wrapping the function that does it
(CPU time of the process, every thread) and its median over the calls is given; "the rest" is
the call less the stages (argument reading, the measures' names, checks of the options...).

Usage::

    python benchmarks/experiments/small_breakdown.py [--calls 300]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

import bench_small as b  # noqa: E402
import polars as pl  # noqa: E402

import rankframe as rf  # noqa: E402
from rankframe._engine import collect, evaluate  # noqa: E402
from rankframe.compat import pytrec_eval  # noqa: E402

STAGES: dict[str, float] = defaultdict(float)


def timed(owner: object, name: str, label: str) -> None:
    """Wrap ``owner.name`` so that its CPU time adds to ``STAGES[label]`` (outermost call only)."""
    real = getattr(owner, name)
    depth = [0]

    def wrapper(*args, **kwargs):
        depth[0] += 1
        start = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            depth[0] -= 1
            if not depth[0]:
                STAGES[label] += time.process_time() - start

    setattr(owner, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    qrels = rf.read_qrels(b.QRELS).collect()
    run = rf.read_run(b.RUN).collect()
    def as_dict(frame: pl.DataFrame, value: str) -> dict:
        return {q: dict(zip(g["doc_id"], g[value], strict=True)) for (q,), g in frame.group_by("query_id")}

    qrels_dict, run_dict = as_dict(qrels, "relevance"), as_dict(run, "score")
    one = sorted(set(run_dict) & set(qrels_dict))[0]
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, b.TREC_MEASURES)
    qrels_one = qrels.filter(pl.col("query_id") == one)
    run_one = run.filter(pl.col("query_id") == one)

    plan_collect = pl.LazyFrame.collect

    timed(pytrec_eval, "_read_checked", "read the run dict")
    timed(evaluate, "prepare", "prepare (read, map, align)")
    timed(evaluate, "_memory_plan", "memory plan")
    timed(collect, "per_query_plan", "build the plan")
    timed(collect, "_warn_coverage", "coverage")
    timed(collect, "_evaluated", "evaluated rows")
    timed(evaluate, "_aggregate", "aggregate + long layout")
    timed(evaluate, "_long", "aggregate + long layout")
    timed(evaluate, "kept_judgments", "kept judgments (equals)")

    def plan_only(lf, *a, **k):
        if sys._getframe(1).f_code.co_name == "_raw_wide":
            start = time.process_time()
            try:
                return plan_collect(lf, *a, **k)
            finally:
                STAGES["the plan (collect)"] += time.process_time() - start
        return plan_collect(lf, *a, **k)

    pl.LazyFrame.collect = plan_only
    cases = {
        "rf.evaluate, 5 measures, 43 queries": (
            lambda: rf.evaluate(qrels, run, b.MEASURES), lambda: b.minimal_plan(qrels, run)
        ),
        "pytrec_eval drop-in, one query": (
            lambda: evaluator.evaluate({one: run_dict[one]}), lambda: b.minimal_plan(qrels_one, run_one)
        ),
    }
    print(f"polars {pl.__version__}, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for label, (call, base) in cases.items():
        for _ in range(5):
            call(), base()
        per_stage: dict[str, list[float]] = defaultdict(list)
        totals, bases = [], []
        for _ in range(args.calls):
            STAGES.clear()
            start = time.process_time()
            call()
            total = time.process_time() - start
            totals.append(total)
            for k, v in STAGES.items():
                per_stage[k].append(v)
            per_stage["the rest"].append(total - sum(STAGES.values()))
            start = time.process_time()
            base()
            bases.append(time.process_time() - start)
        floor = statistics.median(bases)
        print(f"\n{label}: {statistics.median(totals) * 1e3:.2f} ms CPU, minimal plan {floor * 1e3:.2f} ms "
              f"({statistics.median(totals) / floor:.2f}x)")
        for k, v in sorted(per_stage.items(), key=lambda kv: -statistics.median(kv[1])):
            ms = statistics.median(v)
            print(f"  {k:32s} {ms * 1e3:6.3f} ms  ({ms / floor:.2f}x the floor)")


if __name__ == "__main__":
    main()
