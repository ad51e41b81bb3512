"""The logs user's day (issue 40): 20M impression rows in 7 daily files, evaluated from the CLI.

A data engineer's scheduled job: impression logs written as one Parquet file per day, with the
log's own column names (``session, item, model_score, click, day, locale, model``), nDCG@10, RR
and R@100 per (day, locale, model) to Parquet. Generated here (seeded, ``--rows`` in all, into
``benchmarks/data/logs-<rows>/``, gitignored): sessions of 20-200 impressions, a click
probability falling with the rank of the model's score, two models and four locales.

The command, run in a child process (wall time; peak RSS from ``os.wait4``)::

    rankframe evaluate --judged 'logs/day=*.parquet' -m nDCG@10 RR R@100 \\
        --by day locale model --wide -o out.parquet --progress \\
        --qrels-column query_id=session --qrels-column doc_id=item --qrels-column relevance=click \\
        --run-column query_id=session --run-column doc_id=item --run-column score=model_score

Its stderr (the progress lines, moving while the plan runs) is shown. The output is then
checked against a hand-written Polars computation of the three measures on ``--sample`` groups
(trec_eval's definitions: rank by score descending, ties by item id descending in byte order;
nDCG@10 with gain = click and log2 discount over the group's ideal ranking; RR of the first
click; R@100 the clicks in the top 100 over the session's clicks; a session without a click
scores 0 and counts in the mean), to 1e-12.

Usage::

    python benchmarks/logs_scenario.py --rows 20000000
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
DAYS = [f"2026-11-{d:02d}" for d in range(20, 27)]
LOCALES = ["de", "en", "fr", "ja"]
MODELS = ["bm25", "dense"]


def generate(rows: int, folder: Path, seed: int = 0) -> None:
    """``rows`` impressions in one Parquet file per day (sessions whole within a day)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    per_day = rows // len(DAYS)
    for d, day in enumerate(DAYS):
        sizes = rng.integers(20, 201, size=per_day // 110 + 10)
        sizes = sizes[: np.searchsorted(np.cumsum(sizes), per_day) + 1]
        sizes[-1] -= sizes.sum() - per_day
        sizes = sizes[sizes > 0]
        n = int(sizes.sum())
        session = np.repeat(np.arange(len(sizes)) + d * 10_000_000, sizes)
        # a session id repeats across days with another model (the same query, another day)
        session = session % (3 * len(sizes))
        pos = np.concatenate([np.arange(s) for s in sizes])
        score = rng.random(n).round(4)  # ties within a session
        click = (rng.random(n) < 0.3 / (1 + pos / 10)).astype(np.int8)
        item = rng.integers(0, 2_000_000, n)
        frame = pl.DataFrame({
            "session": session, "item": item, "model_score": score, "click": click,
            "day": day, "locale": np.array(LOCALES)[np.repeat(rng.integers(0, 4, len(sizes)), sizes)],
            "model": np.array(MODELS)[np.repeat(rng.integers(0, 2, len(sizes)), sizes)],
        })
        # one row per (session, item) within a group: an impression logged twice is dropped here
        frame = frame.unique(["day", "locale", "model", "session", "item"], keep="first", maintain_order=True)
        frame.write_parquet(folder / f"day={day}.parquet")


def hand_written(files: str, groups: pl.DataFrame) -> pl.DataFrame:
    """nDCG@10, RR and R@100 per sampled (day, locale, model) group, in plain Polars."""
    keys = ["day", "locale", "model"]
    logs = pl.scan_parquet(files).join(groups.lazy(), on=keys, how="semi").collect()
    ranked = logs.with_columns(
        pl.struct(pl.col("model_score"), pl.col("item").cast(pl.String))
        .rank("ordinal", descending=True).over([*keys, "session"]).alias("rank")
    )
    ideal = logs.with_columns(
        pl.col("click").rank("ordinal", descending=True).over([*keys, "session"]).alias("pos")
    )
    idcg = ideal.filter(pl.col("pos") <= 10).group_by([*keys, "session"]).agg(
        (pl.col("click") / (pl.col("pos") + 1).log(2)).sum().alias("idcg")
    )
    per = ranked.group_by([*keys, "session"]).agg(
        (pl.col("click") / (pl.col("rank") + 1).log(2)).filter(pl.col("rank") <= 10).sum().alias("dcg"),
        (1.0 / pl.col("rank").filter(pl.col("click") > 0).min()).fill_null(0.0).alias("RR"),
        pl.col("click").filter(pl.col("rank") <= 100).gt(0).sum().alias("hits"),
        pl.col("click").gt(0).sum().alias("rel"),
    ).join(idcg, on=[*keys, "session"])
    per = per.with_columns(
        pl.when(pl.col("idcg") > 0).then(pl.col("dcg") / pl.col("idcg")).otherwise(0.0).alias("nDCG@10"),
        pl.when(pl.col("rel") > 0).then(pl.col("hits") / pl.col("rel")).otherwise(0.0).alias("R@100"),
    )
    return per.group_by(keys).agg(pl.col("nDCG@10").mean(), pl.col("RR").mean(), pl.col("R@100").mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=20_000_000)
    ap.add_argument("--sample", type=int, default=12, help="groups checked against hand-written Polars")
    args = ap.parse_args()
    folder = HERE / "data" / f"logs-{args.rows}"
    if not folder.exists():
        t = time.perf_counter()
        generate(args.rows, folder)
        print(f"generated {args.rows:,} rows in {time.perf_counter() - t:.0f} s: {folder}", flush=True)
    out = folder.parent / f"logs-{args.rows}-out.parquet"
    files = str(folder / "day=*.parquet")
    cols = []
    for side in ("qrels", "run"):
        cols += [f"--{side}-column", "query_id=session", f"--{side}-column", "doc_id=item"]
    cols += ["--qrels-column", "relevance=click", "--run-column", "score=model_score"]
    argv = [sys.executable, "-m", "rankframe", "evaluate", "--judged", f"logs={files}", "-m", "nDCG@10", "RR",
            "R@100", "--by", "day", "locale", "model", "--wide", "-o", str(out), "--progress", *cols]
    print("$ rankframe " + " ".join(argv[3:]), flush=True)
    t = time.perf_counter()
    proc = subprocess.Popen(argv)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"rankframe failed: {status}")
    print(f"wall {wall:.1f} s, peak RSS {usage.ru_maxrss / 1024:.0f} MiB", flush=True)
    got = pl.read_parquet(out)
    print(got.head(4))
    groups = got.select("day", "locale", "model").sample(min(args.sample, got.height), seed=1)
    want = hand_written(files, groups)
    both = want.join(got, on=["day", "locale", "model"], suffix="_rankframe")
    worst = max(
        abs(a - b) for m in ("nDCG@10", "RR", "R@100")
        for a, b in zip(both[m], both[f"{m}_rankframe"], strict=True)
    )
    print(f"{both.height} sampled groups: largest difference to hand-written Polars {worst:.2e}")
    if both.height != groups.height or not worst <= 1e-12:
        sys.exit(f"rankframe differs from the hand-written computation: {worst!r}")


if __name__ == "__main__":
    main()
