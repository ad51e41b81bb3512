"""One benchmark row per measure family, as a ratio to nDCG@10 on the same data.

Two costs per family, medians over interleaved rounds in this process:

- ``agg``: the per-query aggregation alone (the judged frame is collected once: ranked run
  joined with the qrels), i.e. what the measure itself adds to a plan;
- ``e2e``: ``rankframe.evaluate`` from the Parquet files to the means (read, validate, rank,
  join, aggregate), i.e. what a user waits for when asking for that measure alone.

python benchmarks/generate.py --rows 1000000 --out benchmarks/data  # 10k queries x 100 docs
python benchmarks/bench_families.py --data benchmarks/data/string-1M-k100-s0 --rounds 5
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import polars as pl

import rankframe as rf
from rankframe._engine.options import RANK, REL, Q
from rankframe._engine.prepare import prepare
from rankframe._engine.rank import ranked_join
from rankframe._measures import REGISTRY, Ctx, Measure, load_all

BASELINE = "nDCG@10"


def default_instance(cls: type[Measure]) -> Measure:
    """The family with default parameters, or at cutoff 10 / 0.5 where it needs one."""
    try:
        return cls()
    except rf.MeasureError:
        cutoff = next(p for p in cls.PARAMS if p.name == "cutoff")
        return cls(cutoff=10 if cutoff.kind == "int" else 0.5)


def agg_plan(lf: pl.LazyFrame, m: Measure, levels: tuple[float, ...]) -> pl.LazyFrame:
    """The planner's group_by for one measure (partial sums, then the combination)."""
    partials: dict[str, pl.Expr] = {}
    ctx = Ctx(rank=pl.col(RANK), rel=pl.col(REL), partials=partials, levels=levels)
    e = m.aggregation(ctx)
    if not partials:
        return lf.group_by(Q).agg(e)
    return lf.group_by(Q).agg(*(v.alias(n) for n, v in partials.items())).select(Q, e)


def timed(fn) -> float:  # noqa: ANN001
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, required=True, help="a folder with qrels.parquet, run.parquet")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--only", nargs="*", help="family names (default: every registered family)")
    p.add_argument("--no-e2e", action="store_true", help="skip the end-to-end timings")
    a = p.parse_args()
    load_all()
    qrels, run = a.data / "qrels.parquet", a.data / "run.parquet"
    families = [REGISTRY[n] for n in sorted(a.only or REGISTRY, key=str.lower)]
    measures = [rf.parse_measure(BASELINE)[0]] + [
        default_instance(c) for c in families if c.DTYPE == pl.Float64
    ]
    prep = prepare(qrels, run, [BASELINE], validate=False)
    jf = ranked_join(prep.run, prep.qrels, [], prep.opts).collect()
    levels = tuple(sorted({0.0, *jf[REL].drop_nulls().clip(lower_bound=0).cast(pl.Float64).unique()}))
    lf = jf.lazy()
    agg: dict[str, list[float]] = {repr(m): [] for m in measures}
    e2e: dict[str, list[float]] = {repr(m): [] for m in measures}
    for r in range(a.rounds):
        for m in measures if r % 2 == 0 else measures[::-1]:  # interleaved, alternating order
            agg[repr(m)].append(timed(lambda m=m: agg_plan(lf, m, levels).collect()))
            if not a.no_e2e:
                e2e[repr(m)].append(timed(lambda m=m: rf.evaluate(qrels, run, [m])))
    base_agg = statistics.median(agg[BASELINE])
    base_e2e = statistics.median(e2e[BASELINE]) if not a.no_e2e else float("nan")
    print(f"data: {a.data} ({jf.height} judged-frame rows, {jf[Q].n_unique()} queries)")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
        f"polars {pl.__version__}; rounds {a.rounds}, medians"
    )
    print(f"baseline {BASELINE}: agg {base_agg:.3f} s, e2e {base_e2e:.3f} s\n")
    print("| measure | agg / nDCG@10 | e2e / nDCG@10 |")
    print("|---|---:|---:|")
    for m in measures:
        ra = statistics.median(agg[repr(m)]) / base_agg
        re = statistics.median(e2e[repr(m)]) / base_e2e if not a.no_e2e else float("nan")
        print(f"| {m!r} | {ra:.2f} | {re:.2f} |")


if __name__ == "__main__":
    main()
