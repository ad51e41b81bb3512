"""Small runs pay no penalty (issue 41, deliverable 5): three fixed costs against their floors.

On the 43-query sample (``data/qrels.dl19-passage.txt``, ``data/run.dl19.bm25.txt``), medians
over ``--rounds``, each path interleaved with its baseline in one run:

1. ``cli``: ``python -m rankframe trec_eval -m all_trec QRELS RUN`` (wall time of the child,
   start-up included) against ``python -c "import polars"``; target at most 2x.
2. ``evaluate``: ``rf.evaluate`` of nDCG@10, AP, RR, P@10 and R@100 on the sample's frames
   already in memory, against a minimal Polars plan on the same frames (rank within each
   query by score descending, join the qrels, group by query with two sums); target 2.5x.
   Repeated on the same judgments, a call reads the judgments' statistics kept by the first
   (``JudgmentCache``); ``evaluate cold``: each call on judgments new to it (the kept ones
   dropped first), the cost of a first call.
   ``plan``: the lazy plan ``rf.evaluate`` builds for them, collected alone (on the engine
   ``rf.evaluate`` picks): the floor of the same plan (what the call costs beyond Polars
   running it is the difference).
3. ``drop-in``: the pytrec_eval drop-in's per-query call ``evaluator.evaluate({q: run[q]})``
   (the same five measures in trec_eval's names) against the minimal plan on one query's frames;
   target 2.5x. ``plan one``: the plan that call builds, collected alone (its floor).

``--src DIR`` measures the rankframe under ``DIR`` (a checkout; default this one), so that an
older commit (``git archive``) is measured the same way. ``--results`` appends the table to
benchmarks/RESULTS.md.

Usage::

    python benchmarks/bench_small.py --rounds 15
"""

from __future__ import annotations

import argparse
import datetime
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QRELS = ROOT / "data" / "qrels.dl19-passage.txt"
RUN = ROOT / "data" / "run.dl19.bm25.txt"
MEASURES = ["nDCG@10", "AP", "RR", "P@10", "R@100"]
TREC_MEASURES = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"}
#: The engine each captured plan was collected with (as the call collects it).
ENGINES: dict[str, str] = {}
TARGETS = {
    "cli": 2.0, "evaluate": 2.5, "evaluate cold": 2.5, "plan": None, "drop-in": 2.5, "plan one": None,
}


def _child_seconds(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, every thread) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def bench_cli(src: Path, rounds: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median (wall, CPU) seconds of the command and of ``import polars``, interleaved."""
    # compiled modules cached, as an installed package has them (this machine's environment sets
    # PYTHONDONTWRITEBYTECODE: rankframe's ~100 modules were compiled at every start)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(src), PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / "bench_small_pyc"))
    command = [sys.executable, "-m", "rankframe", "trec_eval", "-m", "all_trec", str(QRELS), str(RUN)]
    floor = [sys.executable, "-c", "import polars"]
    _child_seconds(command, env)  # warm the file cache and compile
    _child_seconds(floor, env)
    ours, base = [], []
    for _ in range(rounds):
        ours.append(_child_seconds(command, env))
        base.append(_child_seconds(floor, env))
    return _medians(ours), _medians(base)


def _median_call(fn, calls: int) -> tuple[float, float]:
    """(wall, CPU) seconds per call: the medians over ``calls`` timed calls (CPU: every thread)."""
    times = []
    for _ in range(calls):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    return _medians(times)


def minimal_plan(qrels, run):
    """The least a per-query evaluation costs in Polars: rank, join, one group_by with two sums."""
    import polars as pl

    ranked = run.lazy().with_columns(
        pl.col("score").rank("ordinal", descending=True).over("query_id").alias("rank")
    )
    joined = ranked.join(qrels.lazy(), on=["query_id", "doc_id"], how="left")
    gain = pl.col("relevance").fill_null(0).cast(pl.Float64)
    return (
        joined.group_by("query_id")
        .agg(
            (gain / (pl.col("rank") + 1).log(2)).filter(pl.col("rank") <= 10).sum().alias("dcg"),
            (pl.col("relevance") > 0).sum().alias("hits"),
        )
        .collect()
    )


def captured_plan(call):
    """The lazy plan that ``call()`` (evaluations) collects last, and the engine it collects it with.

    The floor of the same plan: what the call costs beyond Polars running it is the difference.
    """
    from rankframe._engine import collect

    plans, engines = [], []
    build, raw_wide = collect.per_query_plan, collect._raw_wide

    def keep(*args, **kwargs):
        plans.append(build(*args, **kwargs))
        return plans[-1]

    def engine(prep, *args, **kwargs):
        engines.append(getattr(prep, "engine", "auto"))  # (older checkouts: Polars' default)
        return raw_wide(prep, *args, **kwargs)

    collect.per_query_plan, collect._raw_wide = keep, engine
    try:
        call()
    finally:
        collect.per_query_plan, collect._raw_wide = build, raw_wide
    plan, chosen = plans[-1], engines[-1]  # (the last call's: a repeated call's plan)
    return lambda: plan.collect(engine=chosen), chosen


def bench_in_process(rounds: int, calls: int) -> dict[str, tuple[float, float]]:
    """``evaluate`` and the drop-in's per-query call against the minimal plan (medians, s)."""
    import polars as pl

    import rankframe as rf
    from rankframe.compat import pytrec_eval

    qrels = rf.read_qrels(QRELS).collect()
    run = rf.read_run(RUN).collect()
    qrels_dict = {
        q: dict(zip(g["doc_id"], g["relevance"], strict=True)) for (q,), g in qrels.group_by("query_id")
    }
    run_dict = {q: dict(zip(g["doc_id"], g["score"], strict=True)) for (q,), g in run.group_by("query_id")}
    queries = sorted(set(run_dict) & set(qrels_dict))
    one = queries[0]
    qrels_one = qrels.filter(pl.col("query_id") == one)
    run_one = run.filter(pl.col("query_id") == one)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, TREC_MEASURES)
    cycle = iter(queries * (rounds * calls + 10))

    plan, ENGINES["plan"] = captured_plan(lambda: [rf.evaluate(qrels, run, MEASURES) for _ in range(2)])
    plan_one, ENGINES["plan one"] = captured_plan(lambda: evaluator.evaluate({one: run_dict[one]}))
    def cold() -> None:  # judgments not seen by the last call: no kept statistics to read
        getattr(sys.modules["rankframe._engine.evaluate"], "_KEPT", []).clear()
        rf.evaluate(qrels, run, MEASURES)

    paths = {
        "evaluate": (lambda: rf.evaluate(qrels, run, MEASURES), lambda: minimal_plan(qrels, run)),
        "evaluate cold": (cold, lambda: minimal_plan(qrels, run)),
        "plan": (plan, lambda: minimal_plan(qrels, run)),
        "drop-in": (
            lambda: evaluator.evaluate({(q := next(cycle)): run_dict[q]}),
            lambda: minimal_plan(qrels_one, run_one),
        ),
        "plan one": (plan_one, lambda: minimal_plan(qrels_one, run_one)),
    }
    out = {}
    for name, (ours_fn, base_fn) in paths.items():
        ours_fn(), base_fn()  # warm up
        ours, base = [], []
        for _ in range(rounds):
            ours.append(_median_call(ours_fn, calls))
            base.append(_median_call(base_fn, calls))
        out[name] = (_medians(ours), _medians(base))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=20, help="timed calls per round (in process)")
    parser.add_argument("--src", type=Path, default=ROOT, help="the checkout whose rankframe is measured")
    parser.add_argument("--results", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = parser.parse_args()
    src = args.src.resolve()
    sys.path.insert(0, str(src))

    rows = {"cli": bench_cli(src, args.rounds), **bench_in_process(args.rounds, args.calls)}
    baselines = {
        "cli": 'python -c "import polars"',
        "evaluate": "minimal plan, 43 queries",
        "evaluate cold": "minimal plan, 43 queries",
        "plan": "minimal plan, 43 queries",
        "drop-in": "minimal plan, one query",
        "plan one": "minimal plan, one query",
    }
    ours = {
        "cli": "rankframe trec_eval -m all_trec",
        "evaluate": "rf.evaluate, 5 measures",
        "evaluate cold": "rf.evaluate, judgments new to it",
        "plan": "its plan alone (collect)",
        "drop-in": "pytrec_eval drop-in, one query",
        "plan one": "its plan alone (collect)",
    }
    import polars as pl

    import rankframe

    lines = [
        f"## Small runs (issue 41): fixed costs on the 43-query sample, {args.rounds} rounds: "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"rankframe from `{rankframe.__file__}`, polars {pl.__version__}, Python "
        f"{sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f}. Medians, ms: wall time, and CPU time (every thread; steadier "
        "than wall time on a shared machine).",
        "",
        "| path | wall | CPU | baseline | wall | CPU | ratio (wall) | ratio (CPU) | target |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for key, ((mine, mine_cpu), (base, base_cpu)) in rows.items():
        label = ours[key]
        if key in ENGINES:
            label = label.replace("(collect)", f"(collect, {ENGINES[key]})")
        lines.append(
            f"| {label} | {mine * 1e3:.2f} | {mine_cpu * 1e3:.2f} | {baselines[key]} | "
            f"{base * 1e3:.2f} | {base_cpu * 1e3:.2f} | {mine / base:.2f}x | "
            f"{mine_cpu / max(base_cpu, 1e-9):.2f}x | {TARGETS[key] or 'floor'}{'x' * bool(TARGETS[key])} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.results:
        with (ROOT / "benchmarks" / "RESULTS.md").open("a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
