"""Issue 5 experiment (session 4): the fastest exact plan shape found for nDCG@10, AP, P@10, R@100, RR at 10M.

rank once, LEFT join with the relevant judgments only, integer aggregations (grades at ranks 1..10 packed in
one int64, hit counts, min hit rank) + a qrels-side group_by (grade counts) + AP over the relevant rows only;
nDCG rebuilt per query summing terms in fsum order. Measure-specific: not the generic planner. Prints its
time and compares bit for bit with rankframe.evaluate (per query).

    python benchmarks/experiments/left_join_shape.py
"""

import os
import resource
import time
from pathlib import Path

import polars as pl

DATA = str(Path(__file__).resolve().parents[1] / "data" / "string-10M-k100-s0") + "/"
Q, D, S, REL, RANK = "query_id", "doc_id", "score", "relevance", "_rank"
F64, K = pl.Float64, 10


def fsum(e):  # rankframe's fixed-order sum
    return e.sort().cum_sum().last().fill_null(0.0)


def sdiv(num, den):  # rankframe's safe_div
    return num.cast(F64) / den.cast(F64).replace(0.0, float("inf")) + 0.0


def disc(r):
    return (pl.lit(float(r), dtype=F64) + 1.0).log(2)


def per_query(run_path, qrels_path):
    rank, rel = pl.col(RANK), pl.col(REL)
    qr = pl.scan_parquet(qrels_path).select(Q, D, rel.cast(pl.Int64))
    levels = sorted(qr.select(rel.filter(rel > 0).unique()).collect().to_series().to_list())
    B = max(levels) + 1  # packing base: B**K must fit in an int64
    assert B**K < 2**62
    ranked = pl.scan_parquet(run_path).select(
        Q, D, pl.struct(S, D).rank("ordinal", descending=True).over(Q).cast(pl.UInt32).alias(RANK)
    )
    # 1 string join with the RELEVANT judgments only; keep judged rows + each query's rank-1 row
    small = ranked.join(qr.filter(rel >= 1), on=[Q, D], how="left").filter(rel.is_not_null() | (rank == 1))
    hr = rank.filter(rel.is_not_null())
    per_run = small.group_by(Q).agg(  # integer fast-path aggregations only
        hr.min().alias("rr_rank"),
        (hr <= 10).sum().alias("h10"),
        (hr <= 100).sum().alias("h100"),
        pl.when(rel.is_not_null() & (rank <= K))
        .then(rel * pl.lit(B, pl.Int64).pow(rank.cast(pl.Int64) - 1))
        .sum()
        .alias("pack"),
    )  # grades at ranks 1..K packed base B
    ap = (
        small.filter(rel.is_not_null())
        .group_by(Q)
        .agg(  # ~8 rows per query
            fsum(rank.rank("ordinal").cast(F64) / rank.cast(F64)).alias("ap_sum")
        )
    )
    per_qrels = qr.group_by(Q).agg(*[(rel >= L).sum().alias(f"nge{L}") for L in levels])
    # DCG@K: every (grade, rank) term in ascending value order (= fsum's order), absent terms 0.0
    terms = pl.select(
        [(pl.lit(float(g)) / disc(r)).alias(f"{g}_{r}") for g in levels for r in range(1, K + 1)]
    ).row(0, named=True)
    dcg = None
    for _, g, r in sorted((v, *map(int, n.split("_"))) for n, v in terms.items()):
        t = pl.when((pl.col("pack") // B ** (r - 1)) % B == g).then(pl.lit(float(g)) / disc(r)).otherwise(0.0)
        dcg = t if dcg is None else dcg + t
    # ideal DCG@K from grade counts: position p holds the largest L with p <= n(rel >= L); summed p = K..1
    idcg = None
    for p in range(K, 0, -1):
        t = pl.lit(0.0)
        for L in levels:
            t = pl.when(pl.col(f"nge{L}") >= p).then(pl.lit(float(L)) / disc(p)).otherwise(t)
        idcg = t if idcg is None else idcg + t
    nrel = pl.col(f"nge{levels[0]}")  # levels[0] == 1 here (relevance_level 1)
    return (
        per_run.join(ap, on=Q, how="left")
        .join(per_qrels, on=Q, how="inner")
        .with_columns(pl.col("h10", "h100", "pack").fill_null(0))
        .select(
            Q,
            sdiv(dcg, idcg).alias("nDCG@10"),
            sdiv(pl.col("ap_sum").fill_null(0.0), nrel).alias("AP"),
            (pl.col("h10").cast(F64) / (pl.col("h10").cast(F64) * 0.0 + 10.0)).alias("P@10"),
            sdiv(pl.col("h100"), nrel).alias("R@100"),
            (1.0 / pl.col("rr_rank").cast(F64)).fill_null(0.0).alias("RR"),
        )
        .collect()
    )


if __name__ == "__main__":
    t, c = time.perf_counter(), time.process_time()
    got = per_query(DATA + "run.parquet", DATA + "qrels.parquet")
    print(
        f"wall {time.perf_counter() - t:.2f} s cpu {time.process_time() - c:.2f} s "
        f"rss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB "
        f"load {os.getloadavg()[0]:.2f}"
    )
    import rankframe as rf

    ref = rf.evaluate(
        DATA + "qrels.parquet", DATA + "run.parquet", ["nDCG@10", "AP", "P@10", "R@100", "RR"], per_query=True
    ).pivot(on="measure", index=Q, values="value")
    j = ref.join(got, on=Q, how="full", suffix="_x")
    assert ref.height == got.height == j.height, (ref.height, got.height, j.height)
    for m in ["nDCG@10", "AP", "P@10", "R@100", "RR"]:
        eq = (j[m].reinterpret(signed=True) == j[m + "_x"].reinterpret(signed=True)).sum()
        print(
            m, "bit-identical rows:", eq, "/", ref.height, "max abs diff:", (j[m] - j[m + "_x"]).abs().max()
        )
