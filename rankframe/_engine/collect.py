"""The plan collected: per-query values of the evaluated queries, coverage warnings, aggregates."""

from __future__ import annotations

import contextlib
import math
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import polars as pl

from rankframe._engine.checks import _bad_judgment, _bad_run_row, _validate
from rankframe._engine.options import (
    BAD_QRELS,
    BAD_RUN,
    CHECKS,
    DUP,
    HAS_QRELS,
    HAS_RUN,
    N_RET,
    REL,
    Prepared,
    Q,
    confidence,
)
from rankframe._engine.plan import keeps_every_row, per_query_plan
from rankframe._engine.prepare import _cast_grades, _qrels_keys
from rankframe._engine.rank import missing_pairs
from rankframe._engine.sides_plan import population_values
from rankframe._errors import NoQueryInCommonWarning, RankframeWarning, warn
from rankframe._measures import MIN_GEO_MEAN, Measure, PopulationCtx


def _coverage(prep: Prepared, wide: pl.DataFrame, qrels_keys: list[str]) -> tuple[pl.DataFrame, int]:
    """Judged (group, query) pairs missing from the run, and the number of unjudged run queries.

    The pairs follow the breakdown rule of :func:`missing_pairs`: with breakdown columns of the
    run alone, a judged query is missing only when no group of its run holds it.
    """
    keys = prep.keys
    has_qrels = wide.get_column(HAS_QRELS)
    run_only = wide.get_column(Q).filter(~has_qrels).n_unique()
    if not keys or prep.opts.complete or len(qrels_keys) == len(keys):
        # The full join (or complete=True) kept the judged queries that no run row matched.
        # (Series steps: a frame's eager steps collect a lazy query each.)
        missing = has_qrels & ~wide.get_column(HAS_RUN)
        return wide[[*keys, Q]].filter(missing) if missing.any() else wide[[*keys, Q]].clear(), run_only
    judged = prep.qrels.select(*qrels_keys, Q).unique()
    present = wide.filter(pl.col(HAS_RUN)).select(*keys, Q)
    missing = missing_pairs(wide.select(*keys).unique(), judged, present, keys, qrels_keys)
    return missing.select(*keys, Q).collect(), run_only


@contextlib.contextmanager
def heartbeat(label: str | None, every: float | None = None) -> Iterator[None]:
    """While the block runs, say on stderr that ``label`` is running and for how long.

    Polars reports nothing while it collects a plan: a thread prints the elapsed time, every
    second on a terminal (one line, redrawn), every 10 s otherwise. ``label`` None: silent.
    """
    if label is None:
        yield
        return
    tty = sys.stderr.isatty()
    every = every if every is not None else (1.0 if tty else 10.0)
    stop = threading.Event()
    start = time.perf_counter()
    drawn = [False]

    def beat() -> None:
        while not stop.wait(every):
            text = f"rankframe: {label}: running, {time.perf_counter() - start:.0f} s"
            print(f"\r{text}" if tty else text, end="" if tty else "\n", file=sys.stderr, flush=True)
            drawn[0] = True

    thread = threading.Thread(target=beat, name="rankframe-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        if tty and drawn[0]:
            print("\r\033[K", end="", file=sys.stderr, flush=True)  # the final line replaces it


def _raw_wide(
    prep: Prepared, *, validate: bool = False, progress: str | None = None, sort: bool = False
) -> pl.DataFrame:
    """Collect the per-query plan: every (group, query) of the full join, with its flags.

    ``validate``: ``prep`` holds inputs not validated yet (grades not cast): check them first.
    (Collecting the checks and the plan together, sharing the scans, was measured: no faster,
    and a higher peak memory.) ``progress``: a label, said on stderr while the plan runs
    (:func:`heartbeat`). ``sort``: the rows sorted by (group, query) in the plan, as
    :func:`_evaluated` sorts them (a small plan's eager sort after it is a collect of its own).
    """
    qrels_keys = _qrels_keys(prep)
    opts = prep.opts
    in_plan = validate and keeps_every_row(
        opts, prep.keys, qrels_keys, prep.pairs, prep.measures
    )
    unchecked = prep
    if in_plan:
        # The checks ride in the plan's own scans and group_by (a flag per input row, a
        # duplicate screen per query): ~1 s less at 10M rows than scanning the inputs for them
        # first. Only when a flag is up are the inputs scanned for the exact error.
        prep = replace(prep)
        prep.run = prep.run.with_columns(_bad_run_row(prep).alias(BAD_RUN))
        prep.qrels = prep.qrels.with_columns(_bad_judgment(prep).alias(BAD_QRELS))
        prep = _cast_grades(prep)
    elif validate:
        _validate(prep)
        prep = _cast_grades(replace(prep))
    plan = per_query_plan(
        prep.run, prep.qrels, prep.measures, prep.keys, opts, qrels_keys,
        qrels_given=prep.qrels_given, pairs=prep.pairs, groups=prep.groups, checks=in_plan,
        judgment_cache=prep.judgment_cache, sides=prep.sides, constants=prep.constants,
    )
    if sort:
        plan = plan.sort([*prep.keys, Q], nulls_last=True)
    try:
        try:
            with heartbeat(progress):
                raw = plan.collect(engine=prep.engine)
        except pl.exceptions.PanicException:  # pragma: no cover - depends on the Polars version
            # Polars 2.1's streaming group_by panics on some list expressions over zero rows
            # (e.g. a judged-only evaluation whose judgments are all filtered out); the
            # in-memory engine computes the same result.
            raw = plan.collect(engine="in-memory")
    except (pl.exceptions.PolarsError, OSError):
        if in_plan:  # bad input may make the plan fail (a NaN grade cast): say what is wrong
            _validate(unchecked)
        raise
    if in_plan:
        if any(raw.get_column(flag).any() for flag in CHECKS):  # (Series: no query to plan)
            # raises the exact error; passes on a mere hash collision
            _validate(unchecked, flagged=bool(raw.get_column(DUP).any()))
        raw = raw[[c for c in raw.columns if c not in CHECKS]]  # (a DataFrame's drop collects)
    return raw


def _evaluated(prep: Prepared, raw: pl.DataFrame, *, presorted: bool = False) -> pl.DataFrame:
    """The evaluated rows of a raw per-query frame, flags dropped, sorted.

    With ``empty_queries="skip"``, the queries without a judgment of grade >= the relevance
    level are left out. (Collected here: a sort followed in the same plan by an aggregation
    that reads no order is left out by Polars' optimiser, and the means' sums follow the
    rows' order.) ``presorted``: ``raw`` comes sorted (``_raw_wide(sort=True)``).
    """
    if presorted and prep.opts.empty_queries != "skip":  # (Series steps: no query to plan)
        has_qrels = raw.get_column(HAS_QRELS)
        kept = has_qrels if prep.opts.complete else has_qrels & raw.get_column(HAS_RUN)
        out = raw if kept.all() else raw.filter(kept)
        return out[[c for c in out.columns if c not in (HAS_RUN, HAS_QRELS, N_RET)]]
    keep = pl.col(HAS_QRELS) & (pl.col(HAS_RUN) | pl.lit(prep.opts.complete))
    out = raw.lazy().filter(keep).drop(HAS_RUN, HAS_QRELS, N_RET)
    if prep.opts.empty_queries == "skip":
        qrels_keys = _qrels_keys(prep)
        relevant = (
            prep.qrels.filter(pl.col(REL) >= prep.opts.relevance_level)
            .select(*qrels_keys, Q).unique().collect()
        )
        out = out.join(relevant.lazy(), on=[*qrels_keys, Q], how="semi", nulls_equal=True)
    # one collect for the steps on the small per-query frame (eager steps collect one by one)
    return out.sort([*prep.keys, Q], nulls_last=True).collect(engine="in-memory")


def missing_is_said(complete: bool, null_group: bool, none_match: bool) -> bool:
    """Whether judged queries missing from a run are warned of (every engine's rule).

    Always without ``complete``; with it (trec_eval's ``-c``, the zeros asked for) only where
    they land in a group the user did not name (``null_group``: a null breakdown key) or where
    no judged query has results at all (``none_match``: ids that do not match).
    """
    return not complete or null_group or none_match


def _warn_coverage(prep: Prepared, raw: pl.DataFrame) -> None:
    """Warn of judged queries missing from the run and of run queries without judgments.

    Without qrels (the run's own queries are evaluated), of a run without rows: every value
    is then NaN.
    """
    if not prep.qrels_given and not raw.height:
        warn(f"{prep.run_where} has no rows: no query (user) is evaluated, every value is NaN.")
        return
    missing, run_only = _coverage(prep, raw, _qrels_keys(prep))
    keys = prep.keys
    own = [k for k in keys if k != "run" and k not in _qrels_keys(prep)]
    none_match = missing.height and not raw.filter(pl.col(HAS_QRELS) & pl.col(HAS_RUN)).height
    if missing.height and missing_is_said(prep.opts.complete, bool(own), bool(none_match)):
        n = missing.select(Q).n_unique()
        first = missing.sort([*keys, Q], nulls_last=True).row(0, named=True)
        shown = [k for k in keys if k not in own]
        example = f"query {first[Q]!r}" + (
            " in " + ", ".join(f"{k} {first[k]!r}" for k in shown) if shown else ""
        )
        if own:  # breakdowns of the run alone: the query is in none of its run's groups
            groups = f"({', '.join(own)})"
            scope = f"in no {groups} group of the run" + (" (of some runs)" if "run" in keys else "")
            zero = f"in a group of their own, with a null {', '.join(own)}"
        elif keys == ["run"]:  # runs, no breakdown: name them
            runs = raw["run"].n_unique()
            if runs == 1:
                scope = f"missing from the run {first['run']!r}"
            else:
                per_run = missing.group_by("run").len().sort("run", nulls_last=True)
                counts = ", ".join(f"{r!r}: {c}" for r, c in per_run.head(5).iter_rows())
                scope = f"missing from {per_run.height} of the {runs} runs ({counts})"
            zero = ""
            example = f"query {first[Q]!r}" + ("" if runs == 1 else f" in the run {first['run']!r}")
        elif keys:
            scope = f"missing from some ({', '.join(keys)}) groups: {missing.height} (group, query) pairs"
            zero = ""
        else:
            scope, zero = "missing from the run", ""
        are = "is" if n == 1 else "are"
        fate = f"scored 0 {zero} (complete=True)" if prep.opts.complete else (
            f"skipped; pass complete=True (trec_eval -c) to score them 0 {zero}"
        )
        none_match = (
            " No judged query has results: check that the query ids of the qrels and the "
            "run match (e.g. '001' vs 1, or a prefix)."
        ) if none_match else ""
        warn(
            f"{n} judged quer{'y' if n == 1 else 'ies'} {are} {scope} "
            f"({' '.join(fate.split())}), e.g. {example}.{none_match}",
            NoQueryInCommonWarning if none_match else RankframeWarning,
        )
    if run_only:
        warn(
            f"{run_only} run quer{'y has' if run_only == 1 else 'ies have'} no judgments and "
            f"{'is' if run_only == 1 else 'are'} ignored."
        )


def warn_skipped_groups(prep: Prepared, wide: pl.DataFrame) -> None:
    """Warn of the run's groups that ``empty_queries="skip"`` left without a query.

    Such a group (a day without a click) has no row in the output; said, not dropped silently.
    One scan of the run's key columns, with ``skip`` and breakdowns only.
    """
    keys = [k for k in prep.keys if k != "run"]
    if prep.opts.empty_queries != "skip" or not keys:
        return
    keys = [k for k in prep.keys if k in prep.run.collect_schema().names()]
    held = prep.run.select(keys).unique().collect()
    gone = held.join(wide.select(keys).unique(), on=keys, how="anti", nulls_equal=True)
    gone = gone.drop_nulls().sort(keys)
    if not gone.height:
        return
    first = gone.row(0, named=True)
    example = ", ".join(f"{k} {first[k]!r}" for k in keys)
    one = gone.height == 1
    warn(
        f"{gone.height} ({', '.join(keys)}) group{'' if one else 's'} "
        f"{'has' if one else 'have'} no query with a relevant judgment (grade >= "
        f"{prep.opts.relevance_level}) and {'is' if one else 'are'} left out "
        f"(empty_queries='skip', --empty-queries skip), e.g. {example}."
    )


def report_progress(label: str, raw: pl.DataFrame, seconds: float, total: float | None = None) -> None:
    """One progress line on stderr: the ranked rows and queries of a collected plan, its time."""
    rows = raw[N_RET].sum()
    queries = raw.filter(pl.col(HAS_RUN)).height
    overall = "" if total is None else f" (total {total:.1f} s)"
    print(
        f"rankframe: {label}: {rows:,} ranked rows, {queries:,} queries, {seconds:.1f} s{overall}",
        file=sys.stderr, flush=True,
    )


def per_query_wide(
    prep: Prepared, *, warn: bool = True, validate: bool = False, progress: bool = False
) -> pl.DataFrame:
    """Collect the per-query frame (one column per measure) for the evaluated queries.

    ``validate``: ``prep`` was prepared with ``validate=False, cast_grades=False``: validate
    it first (see :func:`_raw_wide`). ``progress``: report the plan when it is done.
    """
    start = time.perf_counter()
    small = prep.engine == "in-memory"  # (a small plan sorts its rows itself)
    raw = _raw_wide(prep, validate=validate, progress="one plan" if progress else None, sort=small)
    if progress:
        report_progress("one plan", raw, time.perf_counter() - start)
    if warn:
        _warn_coverage(prep, raw)
    return _evaluated(prep, raw, presorted=small)


def aggregate(
    wide: pl.DataFrame,
    measures: list[Measure],
    keys: list[str],
    constants: PopulationCtx | None = None,
    how: str = "mean",
    *,
    lazy: bool = False,
) -> pl.DataFrame | pl.LazyFrame:
    """Aggregate a wide per-query frame across queries (mean, sum or geometric mean).

    Population measures reduce their per-query states per group (:meth:`Measure.population`,
    with the side inputs' ``constants``). ``how``: ``"median"`` or ``"ciNN"`` replace the mean
    (:attr:`Options.aggregate`). ``lazy``: a LazyFrame where the aggregation is one lazy step
    (its caller's next step collects both at once: a small frame's eager steps collect one by
    one).
    """
    population = [m for m in measures if m.KIND == "population"]
    if population:
        query = [m for m in measures if m.KIND != "population"]
        out = aggregate(wide.drop(repr(m) for m in population), query, keys, how=how)
        values = population_values(wide, population, keys, constants or PopulationCtx())
        if not keys:
            if not wide.height:
                values = pl.DataFrame({repr(m): [math.nan] for m in population})
            out = pl.concat([out, values], how="horizontal") if out.width else values
        else:
            out = out.join(values, on=keys, how="left", nulls_equal=True)
        return out.select(*keys, *(repr(m) for m in measures if m.AGGREGATE != "none"))
    exprs = []
    for m in measures:
        col = pl.col(repr(m))
        if m.AGGREGATE == "sum":
            e = col.sum().cast(pl.Float64)
        elif m.AGGREGATE == "gmean":
            e = col.clip(lower_bound=MIN_GEO_MEAN).log().mean().exp()
        elif m.AGGREGATE == "none":
            continue
        elif how == "median":
            e = col.median()
        elif how != "mean":  # "ciNN": z * sd / sqrt(n), a single value's sd taken as 0
            from scipy.stats import norm

            z = float(norm.ppf((1.0 + (confidence(how) or 0.95)) / 2.0))
            e = z * col.std().fill_null(0.0).fill_nan(0.0) / col.count().cast(pl.Float64).sqrt()
        else:
            e = col.mean()
        exprs.append(e.alias(repr(m)))
    if keys:
        out = wide.lazy().group_by(keys, maintain_order=True).agg(exprs).sort(keys, nulls_last=True)
    elif wide.height:
        out = wide.lazy().select(exprs)
    else:
        out = pl.LazyFrame({repr(m): [math.nan] for m in measures if m.AGGREGATE != "none"})
    return out if lazy else out.collect(engine="in-memory")


def warn_population_per_query(measures: list[Measure]) -> None:
    """Warn that per-query output leaves the population measures out."""
    population = [repr(m) for m in measures if m.KIND == "population"]
    if population:
        kind = "is a population measure" if len(population) == 1 else "are population measures"
        warn(
            f"{', '.join(population)} {kind} (one value per run or breakdown group, not a "
            "mean over queries): per_query=True leaves them out; evaluate without "
            "per_query for their values."
        )


def _long(wide: pl.DataFrame, measures: list[Measure], index: list[str]) -> pl.DataFrame:
    """The long layout of a wide frame.

    Per query (``query_id`` in ``index``) without the population measures, whose per-query
    columns are states, not values.
    """
    per_query = Q in index
    names = [
        repr(m) for m in measures
        if m.DTYPE == pl.Float64 and not (per_query and m.KIND == "population")
    ]
    order = {n: i for i, n in enumerate(names)}
    long = wide.lazy().select(*index, *[pl.col(n).cast(pl.Float64) for n in names]).unpivot(
        index=index, on=names, variable_name="measure", value_name="value"
    )
    if index:  # (without one, the rows of the single row's measures are in order already)
        long = long.with_columns(pl.col("measure").replace_strict(order).alias("_m"))
        long = long.sort([*index, "_m"], nulls_last=True).drop("_m")
    if long.collect_schema()["value"] != pl.Float64:
        long = long.with_columns(pl.col("value").cast(pl.Float64))  # (Null when no measure is left)
    return long.collect(engine="in-memory")  # (one collect: eager steps collect one by one)
