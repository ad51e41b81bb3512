"""Seeded generator of a synthetic run and graded qrels for the benchmarks.

Writes ``run.parquet`` (query_id, doc_id, score) and ``qrels.parquet`` (query_id, doc_id,
relevance) to ``--out`` (and ``run.trec`` / ``qrels.trec`` with ``--trec``).

Shape of the data:

* ``--rows`` run rows, ``--docs-per-query`` documents per query (so ``rows / docs-per-query``
  queries; the last query is shorter when it does not divide). Doc ids are distinct within a
  query and drawn from a pool of about 8.8M documents shared by all queries.
* Scores are multiples of 2**-10 below 1024 (20 significant bits): exactly representable in
  float32, so pytrec_eval (which stores scores as float32) ranks exactly like trec_eval 10 and
  rankframe's default float64. About ``--tie-rate`` (10%) of the rows repeat the score of the row
  ranked just above them in the same query (exact ties, broken by doc id in trec_eval).
* Rows are written in TREC order (query by query, score descending) unless ``--shuffle``.
* Qrels grade 0-3: every document of the top ``--pool-depth`` (20) is judged, 10% of the other
  retrieved ones, plus ``--unretrieved`` (10) judged documents per query that the run did not
  retrieve. Relevant documents are likelier near the top of the ranking.

Examples
--------
    python benchmarks/generate.py --rows 1000000 --out benchmarks/data/string-1M
    python benchmarks/generate.py --rows 10000000 --ids int --out benchmarks/data/int-10M --trec
    python benchmarks/generate.py --rows 100000000 --files 50 --out benchmarks/data/string-100M-files
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import polars as pl

# A prime: doc ids (offset + stride * j) mod P are distinct for j < P when 0 < stride < P.
DOC_POOL = 8_841_787
SCORE_BITS = 20  # score = integer in [0, 2**20) / 2**10: exact in float32 (24-bit mantissa)


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


def generate(
    rows: int,
    docs_per_query: int = 100,
    seed: int = 0,
    ids: str = "string",
    tie_rate: float = 0.10,
    pool_depth: int = 20,
    judge_rate: float = 0.10,
    unretrieved: int = 10,
    shuffle: bool = False,
    query_offset: int = 0,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Return ``(run, qrels)`` frames; query numbers start at ``query_offset``."""
    assert _is_prime(DOC_POOL)
    if rows < 1 or docs_per_query < 1:
        raise SystemExit("--rows and --docs-per-query must be >= 1")
    if docs_per_query + unretrieved >= DOC_POOL:
        raise SystemExit("--docs-per-query too large for the document pool")
    rng = np.random.default_rng(seed)
    k = docs_per_query
    nq = -(-rows // k)

    # Doc ids: an arithmetic progression mod a prime per query (distinct within the query);
    # positions k .. k+unretrieved-1 of the same progression are the judged, unretrieved docs.
    offset = rng.integers(0, DOC_POOL, nq, dtype=np.int64)
    stride = rng.integers(1, DOC_POOL, nq, dtype=np.int64)
    j = np.arange(k + unretrieved, dtype=np.int64)
    docs = (offset[:, None] + stride[:, None] * j[None, :]) % DOC_POOL  # (nq, k + unretrieved)

    # Scores: sorted descending per query, then ~tie_rate of the rows copy the row above.
    raw = rng.integers(0, 1 << SCORE_BITS, (nq, k), dtype=np.int64)
    raw = -np.sort(-raw, axis=1)
    tie = rng.random((nq, k)) < tie_rate
    tie[:, 0] = False
    src = np.where(tie, 0, np.arange(k)[None, :])
    src = np.maximum.accumulate(src, axis=1)
    raw = np.take_along_axis(raw, src, axis=1)
    score = raw.astype(np.float64) / 1024.0

    # Judgments of retrieved docs: the pool depth, plus a random sample of the rest.
    pos = np.arange(k)[None, :]
    judged = (pos < pool_depth) | (rng.random((nq, k)) < judge_rate)
    p_rel = 0.05 + 0.55 * np.exp(-pos / 15.0)  # likelier relevant near the top
    relevant = rng.random((nq, k)) < p_rel
    grade_rel = rng.choice(np.array([1, 2, 3], dtype=np.int8), (nq, k), p=[0.5, 0.3, 0.2])
    grade = np.where(relevant, grade_rel, 0).astype(np.int8)
    # Unretrieved judged docs (e.g. found by other systems of the pool).
    u_rel = rng.random((nq, unretrieved)) < 0.3
    u_grade = np.where(
        u_rel, rng.choice(np.array([1, 2, 3], dtype=np.int8), (nq, unretrieved), p=[0.5, 0.3, 0.2]), 0
    ).astype(np.int8)

    qidx = np.repeat(np.arange(nq, dtype=np.int64), k) + query_offset
    run = pl.DataFrame({"q": qidx, "d": docs[:, :k].ravel(), "score": score.ravel()}).head(rows)
    # Qrels: retrieved-and-judged (restricted to the rows actually written), then unretrieved.
    in_run = (np.arange(nq * k) < rows).reshape(nq, k)
    mask = judged & in_run
    qr_ret = pl.DataFrame({"q": qidx.reshape(nq, k)[mask], "d": docs[:, :k][mask], "relevance": grade[mask]})
    qr_unret = pl.DataFrame(
        {
            "q": np.repeat(np.arange(nq, dtype=np.int64), unretrieved) + query_offset,
            "d": docs[:, k:].ravel(),
            "relevance": u_grade.ravel(),
        }
    )
    qrels = pl.concat([qr_ret, qr_unret]).sort("q", maintain_order=True)
    if shuffle:
        run = run.sample(fraction=1.0, shuffle=True, seed=seed)
    if ids == "string":
        conv = [
            pl.format("q{}", pl.col("q")).alias("query_id"),
            pl.format("d{}", pl.col("d")).alias("doc_id"),
        ]
    else:
        conv = [pl.col("q").alias("query_id"), pl.col("d").alias("doc_id")]
    run = run.select(*conv, pl.col("score"))
    qrels = qrels.select(*conv, pl.col("relevance").cast(pl.Int32))
    return run, qrels


def write_trec(run: pl.DataFrame, qrels: pl.DataFrame, out: Path) -> None:
    """TREC text: ``qid Q0 docno rank score tag`` and ``qid 0 docno rel``."""
    ranked = run.with_columns(
        pl.int_range(1, pl.len() + 1)
        .over("query_id", order_by=["score", pl.col("doc_id").cast(pl.String)], descending=True)
        .alias("rank")
    )
    # repr of the float64 value: exact (scores are dyadic rationals with 10 fractional bits).
    ranked.select(
        pl.col("query_id").cast(pl.String),
        pl.lit("Q0").alias("q0"),
        pl.col("doc_id").cast(pl.String),
        pl.col("rank"),
        pl.col("score").map_elements(repr, return_dtype=pl.String),
        pl.lit("synthetic").alias("tag"),
    ).write_csv(out / "run.trec", separator=" ", include_header=False, quote_style="never")
    qrels.select(
        pl.col("query_id").cast(pl.String),
        pl.lit("0").alias("it"),
        pl.col("doc_id").cast(pl.String),
        pl.col("relevance"),
    ).write_csv(out / "qrels.trec", separator=" ", include_header=False, quote_style="never")


def _write_files(a: argparse.Namespace, t0: float) -> None:
    """``--files N``: N (run, qrels) file pairs over consecutive query ranges."""
    k = a.docs_per_query
    queries = -(-a.rows // k)
    per_file = -(-queries // a.files)
    (a.out / "run").mkdir(parents=True, exist_ok=True)
    (a.out / "qrels").mkdir(parents=True, exist_ok=True)
    rows = qrels_rows = 0
    for i in range(a.files):
        first = i * per_file
        n_rows = min(per_file * k, a.rows - first * k)
        if n_rows <= 0:
            break
        run, qrels = generate(
            n_rows, k, a.seed * 1_000_003 + i, a.ids, a.tie_rate, a.pool_depth, a.judge_rate,
            a.unretrieved, a.shuffle, query_offset=first,
        )
        run.write_parquet(a.out / "run" / f"part-{i:04d}.parquet")
        qrels.write_parquet(a.out / "qrels" / f"part-{i:04d}.parquet")
        rows, qrels_rows = rows + run.height, qrels_rows + qrels.height
        print(f"file {i + 1}/{a.files}: {run.height} rows", flush=True)
    info = {
        "rows": rows, "queries": queries, "qrels": qrels_rows, "files": a.files,
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(a).items()},
        "seconds": round(time.perf_counter() - t0, 2),
    }
    (a.out / "info.json").write_text(json.dumps(info, indent=2) + "\n")
    print(json.dumps(info))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, required=True, help="run rows")
    p.add_argument("--docs-per-query", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ids", choices=["string", "int"], default="string")
    p.add_argument("--tie-rate", type=float, default=0.10)
    p.add_argument("--pool-depth", type=int, default=20)
    p.add_argument("--judge-rate", type=float, default=0.10)
    p.add_argument("--unretrieved", type=int, default=10)
    p.add_argument("--shuffle", action="store_true", help="write run rows in random order")
    p.add_argument("--trec", action="store_true", help="also write run.trec and qrels.trec")
    p.add_argument(
        "--files", type=int, default=1,
        help="write run/ and qrels/ folders of this many Parquet files, partitioned by query "
        "(consecutive query ranges, generated one file at a time: memory bounded by a file)",
    )
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    if a.files > 1:
        _write_files(a, t0)
        return
    run, qrels = generate(
        a.rows,
        a.docs_per_query,
        a.seed,
        a.ids,
        a.tie_rate,
        a.pool_depth,
        a.judge_rate,
        a.unretrieved,
        a.shuffle,
    )
    a.out.mkdir(parents=True, exist_ok=True)
    run.write_parquet(a.out / "run.parquet")
    qrels.write_parquet(a.out / "qrels.parquet")
    if a.trec:
        write_trec(run, qrels, a.out)
    ties = run.group_by("query_id", "score").len().filter(pl.col("len") > 1)["len"].sum()
    info = {
        "rows": run.height,
        "queries": run["query_id"].n_unique(),
        "qrels": qrels.height,
        "relevant": int((qrels["relevance"] > 0).sum()),
        "rows_in_tied_groups": int(ties or 0),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(a).items()},
        "seconds": round(time.perf_counter() - t0, 2),
    }
    (a.out / "info.json").write_text(json.dumps(info, indent=2) + "\n")
    print(json.dumps(info))


if __name__ == "__main__":
    main()
