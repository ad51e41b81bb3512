"""trec_eval's measure sets end to end: rankframe vs pytrec_eval, one fresh process per timing.

For each set (``--sets``, default ``official,all_trec``):

* ``rankframe``: ``rankframe.evaluate(qrels_path, run_path, [set])`` on the Parquet files, to
  the means;
* ``pytrec_eval``: the Parquet files read with Polars, the dicts of dicts built, a
  ``RelevanceEvaluator`` over the same trec_eval measures (``all_trec``: every measure
  pytrec_eval has, ``pytrec_eval.supported_measures``), the means over queries.

Rounds are interleaved (the starting tool alternates); wall time includes the interpreter start
and the imports; peak RSS is the child's ``ru_maxrss``. The means of the measures both report are
compared (relative tolerance 1e-9), except where the two are documented to differ: the recall
cutoffs of ``iprec_at_recall`` / ``11pt_avg`` (trec_eval 9's ``(long)(x R + 0.9)`` vs 10's
``lround``), ``gm_map`` / ``gm_bpref`` (pytrec_eval gives the log per query), the strings
``runid`` / ``relstring``, and the sums ``num_*`` (pytrec_eval gives per-query counts: their
mean is compared against rankframe's sum over the number of queries).

Examples
--------
    python benchmarks/bench_trec_sets.py --data benchmarks/data/string-1M-k100-s0 --rounds 3
    python benchmarks/bench_trec_sets.py --data benchmarks/data/string-10M-k100-s0 --sets all_trec
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

#: pytrec_eval's measure names for trec_eval's nicknames.
PYTREC_SETS = {
    "official": {
        "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P",
    },
    "all_trec": None,  # pytrec_eval.supported_measures
}
#: Labels whose means are not comparable (see the module docstring).
NOT_COMPARED = ("iprec_at_recall", "11pt_avg", "gm_map", "gm_bpref", "runid", "relstring")

CHILD = r"""
import json, resource, sys, time
tool, data, name = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
means = {}
if tool == "rankframe":
    import rankframe as rf
    from rankframe._measures._names import NICKNAMES, parse_trec
    t1 = time.perf_counter()
    out = rf.evaluate(f"{data}/qrels.parquet", f"{data}/run.parquet", [name])
    specs = [s for s in NICKNAMES[name] if s != "runid"]  # a string, not a measure
    labels = {repr(m): label for spec in specs for label, m in parse_trec(spec)}
    for measure, value in zip(out["measure"], out["value"]):
        means[labels.get(measure, measure)] = value
else:
    import polars as pl
    import pytrec_eval
    t1 = time.perf_counter()
    run, qrels = {}, {}
    df = pl.read_parquet(f"{data}/run.parquet")
    for q, d, s in zip(*(df[c].cast(pl.String if c != "score" else pl.Float64).to_list()
                         for c in ("query_id", "doc_id", "score"))):
        run.setdefault(q, {})[d] = s
    df = pl.read_parquet(f"{data}/qrels.parquet")
    for q, d, r in zip(*(df[c].cast(pl.String if c != "relevance" else pl.Int64).to_list()
                         for c in ("query_id", "doc_id", "relevance"))):
        qrels.setdefault(q, {})[d] = r
    del df
    measures = json.loads(sys.argv[4]) or pytrec_eval.supported_measures
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    n = len(per_query)
    for label in next(iter(per_query.values())):
        means[label] = sum(v[label] for v in per_query.values()) / n
    means["_num_q"] = n
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "work": t2 - t1, "means": means,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_child(tool: str, data: Path, name: str) -> dict:
    """One fresh process: its wall time, phases, peak RSS and means."""
    arg = json.dumps(sorted(PYTREC_SETS[name] or []))
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, tool, str(data), name, arg], capture_output=True, text=True,
    )
    if proc.returncode:
        raise SystemExit(f"{tool} on {name} failed:\n{proc.stderr}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t
    return out


def compare(ours: dict, theirs: dict) -> tuple[int, list[str]]:
    """Number of means compared, and the labels that differ (relative 1e-9)."""
    n_q = theirs["_num_q"]
    compared, differ = 0, []
    for label, value in theirs.items():
        if label.startswith("_") or label.startswith(NOT_COMPARED) or label not in ours:
            continue
        mine = ours[label]
        if label.startswith("num_") and label != "num_q":
            mine = mine / n_q  # rankframe sums counts over queries
        if label == "num_q":
            mine = 1.0 if mine == n_q else mine  # pytrec_eval's per-query num_q is 1
        compared += 1
        if abs(mine - value) > 1e-9 * max(1.0, abs(value)):
            differ.append(label)
    return compared, differ


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, required=True, help="a folder with qrels.parquet, run.parquet")
    p.add_argument("--sets", default="official,all_trec")
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    rows = pl.scan_parquet(a.data / "run.parquet").select(pl.len()).collect().item()
    print(f"data: {a.data} ({rows:,} run rows); machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}; polars {pl.__version__}; {a.rounds} interleaved rounds\n")
    print("| set | tool | wall median (s) | walls (s) | work median (s) | peak RSS median (MiB) | "
          "speed vs pytrec_eval | means |")
    print("|---|---|---:|---|---:|---:|---:|---|")
    for name in a.sets.split(","):
        got: dict[str, list[dict]] = {"rankframe": [], "pytrec_eval": []}
        for r in range(a.rounds):
            for tool in (["rankframe", "pytrec_eval"] if r % 2 == 0 else ["pytrec_eval", "rankframe"]):
                got[tool].append(run_child(tool, a.data, name))
        base = statistics.median(x["wall"] for x in got["pytrec_eval"])
        compared, differ = compare(got["rankframe"][0]["means"], got["pytrec_eval"][0]["means"])
        for tool, outs in got.items():
            wall = statistics.median(x["wall"] for x in outs)
            work = statistics.median(x["work"] for x in outs)
            rss = statistics.median(x["rss_mib"] for x in outs)
            walls = ", ".join(f"{x['wall']:.2f}" for x in outs)
            agree = (
                f"{compared} compared, {'all equal' if not differ else 'DIFFER: ' + ', '.join(differ)}"
                if tool == "rankframe" else ""
            )
            print(f"| {name} | {tool} | {wall:.2f} | {walls} | {work:.2f} | {rss:.0f} | "
                  f"{base / wall:.2f}x | {agree} |", flush=True)


if __name__ == "__main__":
    main()
