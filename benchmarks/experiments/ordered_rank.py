"""Issue 27's lever, measured alone: ranks from positions for a run that arrives ranked.

A TREC-ordered run (query blocks, scores non-increasing) needs no sort: a row's rank is its
position in its query block, except inside stretches of tied scores, where trec_eval orders by
doc id descending. This script times, on one generated run (Parquet, fresh lazy scans):

* ``check``: the O(n) pass that proves the order (no score rises inside a block; as many blocks
  as distinct queries);
* ``struct``: today's rank (``struct(score, doc).rank("ordinal", descending=True).over(query)``)
  with the query's count in the same window, as the hits plan computes them;
* ``ordered``: ranks and counts from positions (forward/backward fills over the block starts and
  ends), the tied stretches alone ranked by doc id in one sort of their rows;

and checks that ``ordered`` gives the ranks of ``struct`` on every row. Usage::

    python benchmarks/experiments/ordered_rank.py benchmarks/data/string-10M-k100-s0/run.parquet
"""

from __future__ import annotations

import statistics
import sys
import time

import polars as pl

Q, D, S, POS = "query_id", "doc_id", "score", "_pos"


def order_check(run: pl.LazyFrame) -> pl.LazyFrame:
    """One row: whether the run is in query blocks with scores non-increasing in each."""
    q, s = pl.col(Q), pl.col(S)
    same = q == q.shift(1)
    return run.select(
        (~(same & (s > s.shift(1))).fill_null(False).any()).alias("non_increasing"),
        ((~same).fill_null(True).sum() == q.n_unique()).alias("blocks"),
    )


def struct_rank(run: pl.LazyFrame) -> pl.LazyFrame:
    rank = pl.struct(S, D).rank("ordinal", descending=True).over(Q).cast(pl.UInt32)
    return run.with_columns(rank.alias("rank"), pl.len().over(Q).alias("n_ret"))


def ordered_rank(run: pl.LazyFrame) -> pl.LazyFrame:
    q, s, pos = pl.col(Q), pl.col(S), pl.col(POS)
    starts = (q != q.shift(1)).fill_null(True)
    ends = (q != q.shift(-1)).fill_null(True)
    tied_prev = ((q == q.shift(1)) & (s == s.shift(1))).fill_null(False)
    tied_next = ((q == q.shift(-1)) & (s == s.shift(-1))).fill_null(False)
    frame = run.with_row_index(POS).with_columns(
        pl.when(starts).then(pos).forward_fill().alias("_start"),
        pl.when(ends).then(pos).backward_fill().alias("_end"),
        pl.when(~tied_prev).then(pos).forward_fill().alias("_stretch"),
        (tied_prev | tied_next).alias("_tied"),
    )
    n_ret = (pl.col("_end") - pl.col("_start") + 1).cast(pl.UInt32).alias("n_ret")
    plain = frame.filter(~pl.col("_tied")).with_columns(
        (pos - pl.col("_start") + 1).cast(pl.UInt32).alias("rank"), n_ret
    )
    # the tied rows (10-20%) in one sort by (stretch, doc id descending): a window over the
    # stretches (mostly of 2 or 3 rows) was measured slower than the whole struct rank
    stretch = pl.col("_stretch")
    first = (stretch != stretch.shift(1)).fill_null(True)
    tied = (
        frame.filter(pl.col("_tied"))
        .sort(["_stretch", D], descending=[False, True])
        .with_row_index("_i")
        .with_columns((pl.col("_i") - pl.when(first).then(pl.col("_i")).forward_fill()).alias("_w"))
        .with_columns((stretch - pl.col("_start") + 1 + pl.col("_w")).cast(pl.UInt32).alias("rank"), n_ret)
    )
    cols = [Q, D, S, "rank", "n_ret"]
    return pl.concat([plain.select(cols), tied.select(cols)])


def timed(label: str, make, rounds: int = 5) -> float:  # noqa: ANN001
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        make().collect()
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    print(f"{label:>8}: median {med:.3f} s over {rounds} ({', '.join(f'{x:.3f}' for x in times)})")
    return med


def main(path: str) -> None:
    scan = lambda: pl.scan_parquet(path)  # noqa: E731
    print(order_check(scan()).collect())
    base = timed("scan", lambda: scan().select(pl.col(S).sum()))
    check = timed("check", lambda: order_check(scan()))
    struct = timed("struct", lambda: struct_rank(scan()).select(pl.col("rank", "n_ret").sum()))
    ordered = timed("ordered", lambda: ordered_rank(scan()).select(pl.col("rank", "n_ret").sum()))
    print(f"rank beyond the scan: struct {struct - base:.3f} s, ordered {ordered - base:.3f} s "
          f"(+ check {check - base:.3f} s)")
    a = struct_rank(scan()).select(Q, D, "rank", "n_ret").collect().sort(Q, D)
    b = ordered_rank(scan()).select(Q, D, "rank", "n_ret").collect().sort(Q, D)
    print("same ranks and counts on every row:", a.equals(b))


if __name__ == "__main__":
    main(sys.argv[1])
