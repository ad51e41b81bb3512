"""Bit-for-bit comparison of small evaluations between two rankframe trees (issue 41).

Runs a fixed list of cases on the 43-query sample (``rf.evaluate`` with several measure sets
and options, the per-query layout, the pytrec_eval drop-in on the whole run and query by query,
repeated calls on the same and on changed judgments, ``trec_eval -q -m all_trec``) in a child
process per tree, writes every value as ``float.hex`` (so ``-0.0``, NaN and the last bit
count), and compares the two trees' outputs case by case.

Usage::

    python benchmarks/experiments/small_bits.py BASELINE_TREE [OTHER_TREE]

``OTHER_TREE`` defaults to this checkout. Exit status 1 when any case differs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QRELS = ROOT / "data" / "qrels.dl19-passage.txt"
RUNS = [ROOT / "data" / "run.dl19.bm25.txt", *sorted((ROOT / "data").glob("run.dl19.*.txt"))]

CHILD = r'''
import contextlib, io, json, math, sys, warnings
import polars as pl
import rankframe as rf
from rankframe.compat import pytrec_eval

QRELS, RUN, RUN2, OUT = sys.argv[1:5]
warnings.simplefilter("ignore")
out = {}


def cell(v):
    if isinstance(v, float):
        return float.hex(v)
    return v if v is None or isinstance(v, (int, str, bool)) else repr(v)


def frame(df):
    return [list(df.columns), [[cell(v) for v in row] for row in df.rows()]]


qrels = rf.read_qrels(QRELS).collect()
run = rf.read_run(RUN).collect()
run2 = rf.read_run(RUN2).collect()
sets = {
    "five": ["nDCG@10", "AP", "RR", "P@10", "R@100"],
    "cuts": [f"nDCG@{k}" for k in (3, 5, 10, 15, 20, 21)] + ["nDCG", "AP@100", "R@1000", "P@5"],
    "dcg": ["DCG@10", "IDCG@10", "nDCG@10", "DCG@21", "nDCG@21", "Judged@10", "NumRel", "NumRet"],
    "gain": ["nDCG(gains={0:0,1:-1,2:3,3:1})@10", "nDCG(gains={1:2,2:-3})@5", "AP(rel=2)", "RR(rel=3)"],
    "general": ["Bpref", "infAP", "Rprec", "P@10", "nDCG@10", "ERR@20", "SetF", "IPrec@0.5"],
}
options = {
    "plain": {},
    "complete": {"complete": True},
    "judged_only": {"judged_only": True},
    "depth": {"depth": 20},
    "level2": {"relevance_level": 2},
    "float32": {"score_dtype": "float32"},
    "skip": {"empty_queries": "skip"},
}
for sname, ms in sets.items():
    for oname, opts in options.items():
        for pq in (False, True):
            key = f"evaluate/{sname}/{oname}/{'per_query' if pq else 'mean'}"
            try:
                out[key] = frame(rf.evaluate(qrels, run, ms, per_query=pq, **opts))
            except Exception as exc:  # an option a measure set refuses: the error is compared
                out[key] = f"{type(exc).__name__}: {exc}"
# breakdowns of the run (a column of its own), and several runs in one frame
grouped = run.with_columns((pl.col("query_id").str.len_bytes() % 3).alias("grp"))
runs = pl.concat(
    [run.with_columns(pl.lit("a").alias("run")), run2.with_columns(pl.lit("b").alias("run"))],
    how="diagonal",
)
for sname in ("five", "cuts", "general"):
    for pq in (False, True):
        ms = sets[sname]
        out[f"by/{sname}/{pq}"] = frame(rf.evaluate(qrels, grouped, ms, by=["grp"], per_query=pq))
        out[f"runs/{sname}/{pq}"] = frame(rf.evaluate(qrels, runs, ms, per_query=pq))
        out[f"dict/{sname}/{pq}"] = frame(rf.evaluate(qrels, {"a": run, "b": run2}, ms, per_query=pq))
# repeated calls: the same judgments, then other runs, then changed judgments (no stale reuse)
five = sets["five"]
out["repeat/1"] = frame(rf.evaluate(qrels, run, five, per_query=True))
out["repeat/2"] = frame(rf.evaluate(qrels, run, five, per_query=True))
out["repeat/run2"] = frame(rf.evaluate(qrels, run2, five, per_query=True))
changed = qrels.with_columns(
    pl.when(pl.int_range(pl.len()) % 7 == 0).then(3 - pl.col("relevance")).otherwise(pl.col("relevance"))
    .alias("relevance")
)
out["repeat/changed"] = frame(rf.evaluate(changed, run, five, per_query=True))
out["repeat/back"] = frame(rf.evaluate(qrels, run, five, per_query=True))
fewer = qrels.head(qrels.height // 2)
out["repeat/fewer"] = frame(rf.evaluate(fewer, run, five, per_query=True))
out["repeat/ints"] = frame(rf.evaluate(
    qrels.with_columns(pl.col("relevance").cast(pl.Int32)), run, five, per_query=True
))
mutated = qrels.clone()
out["repeat/mutated-before"] = frame(rf.evaluate(mutated, run, five, per_query=True))
mutated.replace_column(2, (3 - mutated["relevance"]).alias("relevance"))
out["repeat/mutated-after"] = frame(rf.evaluate(mutated, run, five, per_query=True))

# the pytrec_eval drop-in: whole runs, query by query, several measure sets, repeated
def as_dict(frame, value):
    return {
        q: dict(zip(g["doc_id"], g[value], strict=True))
        for (q,), g in frame.group_by("query_id", maintain_order=True)
    }


qd = as_dict(qrels, "relevance")
rd, rd2 = as_dict(run, "score"), as_dict(run2, "score")
def drop(result):
    return {q: {k: float.hex(v) for k, v in vals.items()} for q, vals in result.items()}
specs = {
    "five": {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"},
    "official": {"official"},
    "all_trec": {"all_trec"},
    "ndcg": {"ndcg", "ndcg_cut", "P", "recall.5,1000"},
}
for sname, spec in specs.items():
    for level in (1, 2):
        ev = pytrec_eval.RelevanceEvaluator(qd, spec, relevance_level=level)
        out[f"pytrec/{sname}/{level}/run"] = drop(ev.evaluate(rd))
        out[f"pytrec/{sname}/{level}/run2"] = drop(ev.evaluate(rd2))
        if sname in ("five", "ndcg"):
            out[f"pytrec/{sname}/{level}/one-by-one"] = [drop(ev.evaluate({q: rd[q]})) for q in rd]
            some = list(rd)[::5][::-1]
            out[f"pytrec/{sname}/{level}/some-reversed"] = drop(ev.evaluate({q: rd2[q] for q in some}))
            empty = {some[0]: {}, "nope": {"d": 1.0}}
            out[f"pytrec/{sname}/{level}/empty-ranking"] = drop(ev.evaluate(empty))
ev = pytrec_eval.RelevanceEvaluator(qd, specs["five"], judged_docs_only_flag=True)
out["pytrec/judged_only"] = drop(ev.evaluate(rd))
out["pytrec/judged_only/one"] = [drop(ev.evaluate({q: rd[q]})) for q in list(rd)[:10]]

# the command
from rankframe._cli import main as cli_main
for r in (RUN, RUN2):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        cli_main(["trec_eval", "-q", "-m", "all_trec", QRELS, r])
    out[f"trec_eval/all_trec/{r}"] = buf.getvalue()
with open(OUT, "w") as f:
    json.dump(out, f)
'''


def run_tree(tree: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    script = out.with_suffix(".py")
    script.write_text(CHILD)
    subprocess.run(
        [sys.executable, str(script), str(QRELS), str(RUNS[0]), str(RUNS[-1]), str(out)],
        env=env, check=True, cwd=tree,
    )
    return json.loads(out.read_text())


def main() -> None:
    base = Path(sys.argv[1]).resolve()
    other = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else ROOT
    with tempfile.TemporaryDirectory() as tmp:
        a = run_tree(base, Path(tmp) / "a.json")
        if os.environ.get("SMALL_BITS_SHOW"):
            for k, v in a.items():
                print(k, str(v)[:100])
        b = run_tree(other, Path(tmp) / "b.json")
    differ = [k for k in a if a[k] != b.get(k)] + [k for k in b if k not in a]
    for k in differ:
        print(f"DIFFERS: {k}")
    print(f"{len(a) - len(differ)} of {len(a)} cases bit-identical ({base} vs {other})")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
