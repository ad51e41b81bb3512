"""Issue 5 experiment (session 13): how fast can an exact plan of the 5 benchmark measures be?

A hand-written Polars plan for nDCG@10, AP, P@10, R@100 and RR, trimmed to what these five
measures need and no more (it is not the general planner: no other measure, option or input
form), doing the work every exact, trec_eval-compatible evaluation must do:

* rank each query's documents by (score, doc id) descending: one struct rank over the query
  window (the cheapest exact form found in sessions 4-13), the count and the duplicate screen
  in the same window;
* the checks (a bad run row, a duplicate document per query; a bad judgment, a duplicate
  judgment per query), so bad input raises instead of giving a wrong number;
* one inner join of the ranked run with the relevant judgments, plus each query's rank-1 row
  (the retrieved count and flags of queries without a hit);
* the judgment side in one group_by: presence, checks and the number of judgments of each
  grade (the grades read first, a small scan), from which the number relevant and the ideal
  DCG@10 follow (no window over the judgments: cheaper than rankframe's grade positions, but
  it needs the grades before the plan is built);
* per-query values added in trec_eval's order with C's log2 (the same bits as
  ``rankframe.evaluate``, checked first), then the means.

Every shortcut measured in sessions 4-13 that paid is in it; rankframe's general planner
(any measure set, options, breakdowns, partitions) does all of this and more, so its time is
bounded below by this plan's. Each stage is timed by collecting a prefix of the plan (the
stages overlap in the whole plan), in one process after a warm-up, interleaved with
``rankframe.evaluate`` and the floor of ``run.py`` (scan + inner join + group_by sum), medians
over ``--rounds``. ``run.py --tools ...,minimal`` times the whole plan end to end in fresh
processes beside the other tools.

    python benchmarks/experiments/lower_bound.py --data benchmarks/data/string-10M-k100-s0
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from run import floor_plan  # noqa: E402 (benchmarks/run.py: the floor of its table)

Q, D, S, REL, RANK = "query_id", "doc_id", "score", "relevance", "_rank"
MEASURES = ["nDCG@10", "AP", "P@10", "R@100", "RR"]
R, L = pl.col(RANK), pl.col(REL)
SEED = 0x5EED


# rankframe._measures._arith's div_const and safe_div, written again so that this plan imports
# Polars alone (run.py's "minimal" worker times its imports as it times the floor's)
def div_const(num: pl.Expr, k: float) -> pl.Expr:
    # a column divided by a scalar is a multiplication by its reciprocal in Polars: divide
    # by a column of k instead (IEEE division, as trec_eval divides)
    return num / (num * 0.0 + k)


def safe_div(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    return num / pl.when(den == 0).then(math.inf).otherwise(den) + 0.0


def ranked(run: pl.LazyFrame, *, checks: bool, exact: bool = True, positions: bool = False) -> pl.LazyFrame:
    """The run with the rank, count and flags; ``exact=False`` ranks by score alone (ties in
    any order: not trec_eval's numbers, only the cost of a rank without the tie break);
    ``positions``: :func:`ranked_from_positions` (issue 27)."""
    if positions:
        return ranked_from_positions(run, checks=checks)
    n = pl.len().over(Q)
    key = pl.struct(S, D) if exact else pl.col(S)
    extra = []
    if checks:
        bad = pl.col(Q).is_null() | pl.col(D).is_null() | pl.col(S).is_null() | ~pl.col(S).is_finite()
        extra = [
            (pl.col(D).hash(seed=SEED).n_unique().over(Q) < n).alias("_dup"),
            bad.any().over(Q).alias("_bad"),
        ]
    return run.with_columns(
        key.rank("ordinal", descending=True).over(Q).cast(pl.UInt32).alias(RANK),
        n.alias("_n"),
        *extra,
    )


TIE_SPAN = 4  # the longest tied stretch ordered by neighbour comparisons


def ranked_from_positions(run: pl.LazyFrame, *, checks: bool) -> pl.LazyFrame:
    """Issue 27's lever: ranks from row positions, for a run in query blocks, scores descending.

    rank = position - block start + 1, but in a tied stretch: stretch start - block start + 1 +
    the stretch's doc ids above this one (trec_eval: doc id descending), counted by comparing
    each pair of rows at most ``TIE_SPAN - 1`` apart once. The count ``_n`` is on each block's
    last row (``_last``). The order is taken as given (the engine would verify it, and plan
    again the queries with longer tied stretches: 0.8% of the benchmark's queries, not counted
    here), so this bounds the ordered plan from below. ``checks``: the duplicate screen over
    the whole run (there is no query window to share), 64-bit hashes of (block, doc); the
    bad-row flag as one scalar.
    """
    pos, s, q = pl.col("_pos"), pl.col(S), pl.col(Q)
    starts = q.ne_missing(q.shift(1)).fill_null(True)
    tied_prev = ((~starts) & (s == s.shift(1))).fill_null(False)
    start, stretch = pl.col("_start"), pl.col("_stretch")
    frame = run.with_row_index("_pos").with_columns(
        pl.when(starts).then(pos).forward_fill().alias("_start"),
        pl.when(~tied_prev).then(pos).forward_fill().alias("_stretch"),
        starts.shift(-1).fill_null(True).alias("_last"),
    )
    above = []
    for k in range(1, TIE_SPAN):
        same = (stretch.shift(-k) == stretch).fill_null(False)
        below = same & (pl.col(D).shift(-k) > pl.col(D)).fill_null(False)
        above += [below, same.shift(k).fill_null(False) & ~below.shift(k).fill_null(True)]
    extra = []
    if checks:
        bad = pl.col(Q).is_null() | pl.col(D).is_null() | pl.col(S).is_null() | ~pl.col(S).is_finite()
        pair = pl.col(D).hash(seed=SEED) ^ start.hash(seed=1)
        extra = [(pair.n_unique() < pl.len()).alias("_dup"), bad.any().alias("_bad")]
    return frame.with_columns(
        (stretch - start + 1 + pl.sum_horizontal(above)).cast(pl.UInt32).alias(RANK),
        pl.when(pl.col("_last")).then(pos - start + 1).cast(pl.UInt32).alias("_n"),
        *extra,
    )


def inputs(data: Path) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The run and qrels columns the plan reads."""
    run = pl.scan_parquet(data / "run.parquet").select(Q, D, S)
    return run, pl.scan_parquet(data / "qrels.parquet").select(Q, D, L.cast(pl.Int64))


def hits_and_firsts(
    run: pl.LazyFrame, qrels: pl.LazyFrame, *, checks: bool, exact: bool = True, positions: bool = False
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The ranked run's rows with a relevant judgment, and each query's rank-1 row (its count
    and flags; with ``positions``, its last row), from one ranked frame read twice through a
    cache."""
    ranked_run = ranked(run, checks=checks, exact=exact, positions=positions).cache()
    hits = ranked_run.select(Q, D, RANK).join(qrels.filter(L >= 1), on=[Q, D], how="inner")
    first = pl.col("_last") if positions else R == 1
    firsts = ranked_run.filter(first).select(Q, "_n", *(["_dup", "_bad"] if checks else []))
    return hits, firsts


def minimal_plan(
    data: Path, *, checks: bool = True, exact: bool = True, positions: bool = False
) -> pl.LazyFrame:
    """Per query: flags and the 5 measures (the queries in the run and the qrels)."""
    run, qrels = inputs(data)
    hits, firsts = hits_and_firsts(run, qrels, checks=checks, exact=exact, positions=positions)
    gain = L.cast(pl.Float64)
    run_side = hits.group_by(Q).agg(
        R.min().alias("_rr"),
        (R <= 10).sum().alias("_h10"),
        (R <= 100).sum().alias("_h100"),
        R.sort().cast(pl.Float64).implode().alias("_ranks"),
        *[pl.when(R == k).then(gain).otherwise(0.0).sum().alias(f"_g{k}") for k in range(1, 11)],
    )
    # the judgment side in one group_by: checks, and the number of judgments of each grade
    # >= 1 (the grades collected first, a small scan), from which the number relevant and the
    # ideal gains by position follow after it (no window over the judgments)
    grades = sorted(qrels.select(L.filter(L >= 1).unique()).collect().to_series().to_list())
    qrels_checks = (
        [
            (pl.col(Q).is_null() | pl.col(D).is_null() | L.is_null()).any().alias("_badq"),
            (pl.col(D).hash(seed=SEED).n_unique() < pl.len()).alias("_dupq"),
        ]
        if checks
        else []
    )
    counts = [(L == g).sum().alias(f"_c{g}") for g in grades]
    at_least: dict[int, pl.Expr] = {}  # the number of judgments of grade >= g
    above = pl.lit(0, pl.UInt32)
    for g in reversed(grades):
        above = at_least[g] = pl.col(f"_c{g}") + above

    def ideal_gain(k: int) -> pl.Expr:  # the grade at ideal position k: the best g with >= k
        e = pl.lit(0.0)
        for g in grades:  # ascending: a higher grade overrides
            e = pl.when(at_least[g] >= k).then(pl.lit(float(g))).otherwise(e)
        return e

    judgment_side = (
        qrels.group_by(Q)
        .agg(pl.len().alias("_nq"), *qrels_checks, *counts)
        .with_columns(
            (at_least[grades[0]] if grades else pl.lit(0, pl.UInt32)).alias("_nrel"),
            *[ideal_gain(k).alias(f"_i{k}") for k in range(1, 11)],
        )
    )
    per_query = firsts.join(run_side, on=Q, how="left").join(judgment_side, on=Q, how="inner")

    def dcg(prefix: str) -> pl.Expr:  # added rank by rank, as trec_eval adds
        total = None
        for k in range(1, 11):
            term = div_const(pl.col(f"{prefix}{k}").fill_null(0.0), math.log2(k + 1))
            total = term if total is None else total + term
        return total

    nrel = pl.col("_nrel").fill_null(0).cast(pl.Float64)
    ranks = pl.col("_ranks").fill_null(pl.lit([], dtype=pl.List(pl.Float64)))
    precisions = (pl.int_ranges(0, ranks.list.len()).cast(pl.List(pl.Float64)) + 1.0) / ranks
    ap_sum = precisions.list.eval(pl.element().cum_sum()).list.last().fill_null(0.0)
    check_cols = ["_dup", "_bad", "_badq", "_dupq"] if checks else []
    return per_query.select(
        Q,
        *check_cols,
        safe_div(dcg("_g"), dcg("_i")).alias("nDCG@10"),
        safe_div(ap_sum, nrel).alias("AP"),
        div_const(pl.col("_h10").fill_null(0).cast(pl.Float64), 10.0).alias("P@10"),
        safe_div(pl.col("_h100").fill_null(0).cast(pl.Float64), nrel).alias("R@100"),
        (1.0 / pl.col("_rr").cast(pl.Float64)).fill_null(0.0).alias("RR"),
    )


def _flags(lf: pl.LazyFrame) -> pl.Expr:
    """Whether any check flag of the plan ``lf`` is up: selected with the means, or the optimiser
    would drop the checks' work (sessions 13-18 timed the "minimal plan" stages without it, which
    cost the struct-rank plan little, the check riding in its query window, but hides the whole
    duplicate screen of the ranks from positions)."""
    names = lf.collect_schema().names()
    cols = [c for c in ("_dup", "_bad", "_badq", "_dupq") if c in names]
    if not cols:  # a plan without checks
        return pl.lit(False).alias("_any_flag")
    return pl.any_horizontal(pl.col(cols).fill_null(False).any()).alias("_any_flag")


def means(data: Path, *, positions: bool = False) -> dict[str, float]:
    """The means of the 5 measures over the evaluated queries (``run.py``'s ``minimal`` tool).

    The check flags are computed (their cost is part of the bound) but not acted on: the
    generated data has no bad row (``check_bits`` asserts it).
    """
    plan = minimal_plan(data, positions=positions)
    row = plan.select(pl.col(MEASURES).mean(), _flags(plan)).collect().row(0, named=True)
    return {m: float(row[m]) for m in MEASURES}


def stages(data: Path) -> dict:
    import rankframe as rf

    run, qrels = inputs(data)

    def mean(lf: pl.LazyFrame) -> pl.DataFrame:
        return lf.select(pl.col(MEASURES).mean(), _flags(lf)).collect()

    return {
        "floor (scan + inner join + group_by sum)": lambda: floor_plan(data).collect(),
        "scan of the run columns + query window, count only": lambda: run.select(
            pl.len().over(Q).sum()
        ).collect(),
        "+ (score, doc) struct rank": lambda: ranked(run, checks=False).select(R.sum()).collect(),
        "+ run checks (duplicate screen, bad rows)": lambda: (
            ranked(run, checks=True).select(R.sum(), pl.col("_dup").sum(), pl.col("_bad").sum()).collect()
        ),
        "+ inner join with the relevant judgments, rank-1 rows": lambda: pl.collect_all(
            hits_and_firsts(run, qrels, checks=True)
        ),
        "minimal plan without checks, means": lambda: mean(minimal_plan(data, checks=False)),
        "minimal plan, means": lambda: mean(minimal_plan(data)),
        "minimal plan, score-only rank (NOT exact: ties in any order), means": lambda: mean(
            minimal_plan(data, exact=False)
        ),
        "minimal plan, ranks from positions (issue 27), no checks, means": lambda: mean(
            minimal_plan(data, checks=False, positions=True)
        ),
        "minimal plan, ranks from positions (issue 27), means": lambda: mean(
            minimal_plan(data, positions=True)
        ),
        "rankframe.evaluate": lambda: rf.evaluate(data / "qrels.parquet", data / "run.parquet", MEASURES),
    }


def check_bits(data: Path) -> str:
    """The minimal plan's per-query values against rankframe.evaluate's, bit for bit."""
    import rankframe as rf

    got = minimal_plan(data).collect()
    flags = got.select(
        pl.any_horizontal(pl.col("_dup", "_bad", "_badq", "_dupq").fill_null(False)).any()
    ).item()
    assert not flags, "the benchmark data has no bad rows"
    ref = rf.evaluate(data / "qrels.parquet", data / "run.parquet", MEASURES, per_query=True)
    ref = ref.pivot(on="measure", index=Q, values="value")
    both = ref.join(got, on=Q, how="full", suffix="_min")
    assert ref.height == got.height == both.height, (ref.height, got.height, both.height)
    same = [
        int((both[m].reinterpret(signed=True) == both[m + "_min"].reinterpret(signed=True)).sum())
        for m in MEASURES
    ]
    assert all(s == ref.height for s in same), dict(zip(MEASURES, same, strict=True))
    # the ranks from positions: the same bits but for the queries with a tied stretch longer
    # than TIE_SPAN (which the engine would plan again with the general rank)
    pos = minimal_plan(data, positions=True).collect()
    both = ref.join(pos, on=Q, how="full", suffix="_pos")
    assert both.height == ref.height
    differ = both.filter(pl.any_horizontal(
        pl.col(m).reinterpret(signed=True).ne_missing(pl.col(m + "_pos").reinterpret(signed=True))
        for m in MEASURES
    ))[Q]
    run = pl.scan_parquet(data / "run.parquet")
    long = run.group_by(Q, S).agg(pl.len().alias("_t")).filter(pl.col("_t") > TIE_SPAN).select(Q).unique()
    long = long.collect()[Q]
    assert differ.is_in(long.implode()).all(), "a query without a long tied stretch differs"
    return (
        f"per-query values equal to rankframe.evaluate bit for bit ({ref.height} queries x "
        f"{len(MEASURES)}); ranks from positions: equal for all but {differ.len()} queries, each "
        f"with a tied stretch of more than {TIE_SPAN} rows ({long.len()} such queries)"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=Path("benchmarks/data/string-10M-k100-s0"))
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    print(check_bits(a.data))
    work = stages(a.data)
    for fn in work.values():  # warm-up (file cache, allocator)
        fn()
    times: dict[str, list[float]] = {k: [] for k in work}
    for _ in range(a.rounds):
        for k, fn in work.items():
            t = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t)
    fl = statistics.median(times[next(iter(work))])
    print(f"\n{a.rounds} interleaved rounds, in-process medians, load {os.getloadavg()[0]:.1f}\n")
    print("| stage | median (s) | min (s) | x floor |")
    print("|---|---:|---:|---:|")
    for k, v in times.items():
        med = statistics.median(v)
        print(f"| {k} | {med:.3f} | {min(v):.3f} | {med / fl:.2f} |")


if __name__ == "__main__":
    main()
