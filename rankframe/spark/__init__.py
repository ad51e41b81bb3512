"""The same measures on Spark: rankframe's planner in Spark tasks, or its compiled query in Spark SQL.

Needs the ``spark`` extra (``pip install 'rankframe[spark]'``: pyspark 4.x, Java 17).

Two engines (``engine=``):

* ``"polars"``: the judgments are unioned with the run rows (a judged document that no run
  retrieved still counts), the union is ``repartition``-ed by query id, so that a task holds
  whole queries, and ``mapInArrow`` evaluates each task's queries with Polars and the very
  planner of :func:`rankframe.evaluate` (the same measure registry, options and validation).
  Per-query rows come back as a Spark DataFrame; Spark aggregates them across queries. Paths
  are read by the tasks themselves. rankframe and Polars must be importable on the executors.
* ``"sql"``: the query of :func:`rankframe.sql.query` runs in Spark SQL, with a screen of the
  inputs in the same statement (:func:`rankframe.sql.checks` runs only to name a problem the
  screen finds); nothing of rankframe or Polars runs on the executors. The measures that
  compile to SQL, trec_eval's tie order.

Examples
--------
A sketch (a Spark session is needed, so this is not run as a doctest)::

    from pyspark.sql import SparkSession
    import rankframe.spark as rfs

    spark = SparkSession.builder.getOrCreate()
    run = spark.read.parquet("s3://bucket/run/")          # query_id, doc_id, score, [run, locale]
    qrels = spark.read.parquet("s3://bucket/qrels/")      # query_id, doc_id, relevance
    rfs.evaluate(qrels, run, ["nDCG@10", "AP"], by=["locale"]).show()
    rfs.evaluate(qrels, run, ["nDCG@10", "AP"], engine="sql").show()   # Spark SQL alone
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe._engine.options import Options, Q
from rankframe._engine.partition import is_count
from rankframe._engine.subtopics_plan import SUB, SUB_NAMES, is_subtopic, read_subtopic_qrels
from rankframe._errors import InputError, MeasureError
from rankframe._io.storage import StoragePath, require_local_files, with_storage
from rankframe._measures._names import parse_measures
from rankframe.spark._arrow import finish, from_frames, from_paths
from rankframe.spark._common import is_path, local_path, sides, spark_modules, table
from rankframe.spark._sql import evaluate_sql, unsupported

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

    from rankframe._engine.prepare import MeasureSpec
    from rankframe._measures import Measure

__all__ = ["ENGINES", "evaluate"]

_OPTIONS = ("complete", "depth", "relevance_level", "ties", "score_dtype", "judged_only")
#: The engines of :func:`evaluate`.
ENGINES = ("polars", "sql")
#: ``engine=None`` on DataFrames and tables: the faster of the two at 5M run rows on local[2]
#: (benchmarks/RESULTS.md, "Spark SQL vs mapInArrow"); paths always take the polars engine.
DEFAULT_FRAMES_ENGINE = "polars"


def evaluate(
    qrels: DataFrame | str | os.PathLike[str] | None = None,
    run: DataFrame | str | os.PathLike[str] | None = None,
    measures: MeasureSpec | Iterable[MeasureSpec] = ("nDCG@10",),
    *,
    judged: DataFrame | str | os.PathLike[str] | None = None,
    per_query: bool = False,
    by: Sequence[str] | None = None,
    partitions: int | str | None = None,
    spark: Any = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    engine: str | None = None,
    storage_options: Mapping[str, str] | None = None,
    interactions: DataFrame | str | os.PathLike[str] | None = None,
    items: DataFrame | str | os.PathLike[str] | None = None,
    reference: DataFrame | str | os.PathLike[str] | None = None,
    **options: Any,
) -> DataFrame:
    """Evaluate runs held in Spark, with the measures and semantics of :func:`rankframe.evaluate`.

    Parameters
    ----------
    qrels, run
        Spark DataFrames (or names of catalog tables or views): judgments ``query_id, doc_id,
        relevance`` and results ``query_id, doc_id, score`` (plus a ``run`` column for several
        runs, and breakdown columns). Or paths (a file, glob or folder, as
        :func:`rankframe.evaluate` reads them) that every executor can read: each task then
        reads its queries itself with Polars, and no row goes through the JVM (see
        ``partitions``).
    measures
        Measure names or objects, as for :func:`rankframe.evaluate` (numeric measures).
    judged
        Instead of ``qrels`` and ``run``: one DataFrame (or path) with ``score`` and
        ``relevance`` (a null score: judged, not retrieved).
    per_query
        Return one row per (run, breakdowns..., query, measure) instead of aggregates.
    by
        Breakdown columns of the run. A column that the qrels DataFrame has too is a breakdown
        of the judgments as well (each group's judgments and query set come from it).
    partitions
        DataFrames: the number of Spark partitions of the query repartition (default: Spark's
        ``spark.sql.shuffle.partitions``; with ``engine="sql"``, both inputs are repartitioned
        by query before the queries only if it is given: by default Spark plans its own
        exchanges, and repartitioning first measured no faster). Paths: ``N`` query hash buckets, one task
        each, each task scanning the inputs with a filter (default: the session's default
        parallelism); or ``"files"`` when the run is a glob or folder of Parquet files in
        which no query spans two files: one task per file, reading that file and the
        judgments of its queries. Each task evaluates whole queries.
    spark
        The Spark session for path inputs and table names (default: the active one).
    qrels_columns, run_columns
        Column mappings ``{canonical: actual}`` (e.g. ``{"query_id": "qid"}``).
    engine
        What runs on the executors:

        * ``"polars"``: rankframe's own planner in Python tasks (``mapInArrow``), on
          Polars; rankframe and Polars must be installed on the executors. Every measure and
          option of :func:`rankframe.evaluate`; per-query values identical to it.
        * ``"sql"``: the compiled query of :func:`rankframe.sql.query`, run by Spark SQL
          with a screen of the inputs in the same statement (counts of the rows
          :func:`rankframe.sql.checks` would report; the run's duplicates found by a window
          over the ranking's own shuffle), then the check query only when the screen finds
          a problem, to name it; nothing of rankframe or Polars runs on the executors (the
          driver writes the queries). Only the measures that compile
          (:func:`rankframe.sql.compiles`), trec_eval's tie order and float64 scores: anything
          else raises, naming what to use instead. Paths are read with
          ``spark.read.parquet`` (Parquet only; ``partitions="files"`` is the polars
          engine's).
        * ``None`` (default): ``"polars"`` on DataFrames and tables, the faster of the two
          here; paths too (their tasks read the files themselves, no row through the JVM).
          At 5M run rows on ``local[2]`` (5 measures, medians of 5 interleaved rounds,
          benchmarks/RESULTS.md) the SQL engine took 12.3 s against 6.7 s for the polars
          engine (1.8x; 1.8x again in a second run): its check query alone (about 6 s: it
          groups every (query, doc) pair of both inputs to find duplicates, a second shuffle
          of the whole run) costs more than the evaluation (4.2-4.7 s, 0.7-0.9x the polars
          engine's whole time: one shuffle of the run by query, a broadcast join of the
          relevant judgments, window sorts).
          Choose ``"sql"`` where the executors have no Python environment for rankframe.
    storage_options
        For paths in object storage (``s3://``, ``gs://``, ``az://``, ``hf://``...) read by the
        polars engine's tasks: the options Polars reads them with (credentials, region,
        endpoint), as for :func:`rankframe.evaluate`; they travel to the executors with the
        tasks. Without them, each executor's environment credentials. The SQL engine reads
        paths with ``spark.read.parquet``, configured by the session (``spark.hadoop.fs.s3a.*``),
        and refuses them.
    interactions, items, reference
        The side inputs of the recommender measures (:func:`rankframe.evaluate`'s): Spark
        DataFrames, catalog table names or Parquet paths. The polars engine on DataFrame
        inputs: the history's and the reference run's rows travel with the run's rows of
        their users; the per-item counts of the history are a Spark ``groupBy`` joined to the
        run rows; the catalogue is read and checked on the driver (Polars), then joined.
        Population measures (Coverage, Gini...) gather their per-user states (the top items'
        ids) on the driver, which reduces them per group. ``qrels`` may be left out when no
        measure reads judgments. Not with path inputs, nor ``engine="sql"``; Serendipity
        (co-occurrence over every user's history) is :func:`rankframe.evaluate`'s.
    **options
        ``complete``, ``depth``, ``relevance_level``, ``ties``, ``score_dtype``,
        ``judged_only``, as for :func:`rankframe.evaluate`.

    Returns
    -------
    pyspark.sql.DataFrame
        Per query: ``[run,] [breakdowns...,] query_id, measure, value``; aggregated:
        ``[run,] [breakdowns...,] measure, value`` (mean, sum or geometric mean per measure, as
        trec_eval aggregates it). Input errors are raised here, as
        :class:`rankframe.InputError`, and the coverage warnings of :func:`rankframe.evaluate`
        are issued here too: both engines compute the per-query rows when this function runs
        (cached), and the result is read from them.

    Raises
    ------
    rankframe.InputError
        Bad input (a missing column, a duplicate (query, doc) pair, a NaN score, a fractional
        grade...), naming the input, the first example and the fix.
    rankframe.MeasureError
        A measure that is not a number, or, with ``engine="sql"``, one without a SQL form (and
        the options the SQL cannot honour).

    Notes
    -----
    The polars engine's per-query values are those of :func:`rankframe.evaluate` exactly (the
    same planner with order-independent sums); the SQL engine's agree to 1e-12 relative (SQL
    engines add in no fixed order). Aggregates are Spark sums, so their last bits may differ.
    With breakdowns, the SQL engine warns of judged queries that the run lacks entirely (its
    screen compares query ids over the whole inputs); the polars engine also of those that
    some groups lack.
    """
    F, T = spark_modules()  # noqa: N806
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        msg = (
            f"Unknown options {', '.join(sorted(unknown))}; rankframe.spark.evaluate takes "
            f"{', '.join(_OPTIONS)}."
        )
        raise TypeError(msg)
    if engine is not None and engine not in ENGINES:
        msg = f"engine must be one of {', '.join(map(repr, ENGINES))} or None (the default). Got {engine!r}."
        raise ValueError(msg)
    parsed = parse_measures(measures)  # type: ignore[arg-type]
    textual = [repr(m) for m in parsed if m.DTYPE != pl.Float64]
    if textual:
        msg = f"{', '.join(textual)} is not a number; rankframe.spark evaluates numeric measures."
        raise MeasureError(msg)
    names = [repr(m) for m in parsed]
    slots = [f"_m{i}" for i in range(len(names))]
    from pyspark.sql import DataFrame as SparkFrame
    from pyspark.sql import SparkSession

    spark = spark if spark is not None else SparkSession.getActiveSession()
    qrels, run, judged = (table(x, spark) for x in (qrels, run, judged))
    qrels, run, judged = (with_storage(x, storage_options) for x in (qrels, run, judged))
    given = {n: x for n, x in (("qrels", qrels), ("run", run), ("judged", judged)) if x is not None}
    for name, x in given.items():
        if not isinstance(x, SparkFrame) and not is_path(x):
            msg = (
                f"{name}= must be a Spark DataFrame or a path (str or os.PathLike); got "
                f"{type(x).__name__}. Several runs go in one DataFrame or file with a 'run' column."
            )
            raise InputError(msg)
    _refuse_subtopics(qrels, parsed, qrels_columns, SparkFrame)
    paths = [is_path(x) for x in given.values()]
    if any(paths) and not all(paths):
        named = ", ".join(f"{n}={os.fspath(x)!r}" for n, x in given.items() if is_path(x))
        msg = (
            "Give the inputs either all as Spark DataFrames (or catalog table names) or all as "
            f"paths, not mixed: {named} is read as a path (no table or view of that name)."
        )
        raise InputError(msg)
    on_paths = bool(given) and all(paths)
    recsys = [repr(m) for m in parsed if not m.NEEDS_JUDGMENTS]
    side_inputs = {"interactions": interactions, "items": items, "reference": reference}
    if recsys and (engine == "sql" or on_paths):
        msg = (
            f"{', '.join(recsys)} read{'s' if len(recsys) == 1 else ''} side inputs "
            "(interactions, items, reference) or the whole run: rankframe.spark evaluates them "
            "with engine='polars' on Spark DataFrames (or tables); "
            + ("read the paths with spark.read first." if on_paths else "leave engine= out.")
        )
        raise MeasureError(msg)
    if qrels is None and judged is None and recsys and len(recsys) != len(parsed):
        needs = [repr(m) for m in parsed if m.NEEDS_JUDGMENTS]
        msg = f"{', '.join(needs)} read{'s' if len(needs) == 1 else ''} judgments: pass qrels (or judged=)."
        raise InputError(msg)
    why_not = unsupported(parsed, options)
    if engine == "sql" and why_not:
        msg = f"engine='sql' cannot evaluate this: {why_not}."
        raise MeasureError(msg)
    default_sql = engine is None and not on_paths and DEFAULT_FRAMES_ENGINE == "sql" and not why_not
    if engine == "sql" or default_sql:
        Options(**options)  # the options' values checked as evaluate checks them
        if partitions is not None and not is_count(partitions):
            where = " (one task per file is the polars engine's)" if partitions == "files" else ""
            msg = (
                f"partitions must be an int >= 1 with engine='sql'{where}. Got {partitions!r}; "
                "leave it out, or use engine='polars'."
            )
            raise InputError(msg)
        if on_paths:
            if spark is None:
                msg = "Path inputs need a Spark session: start one, or pass spark=..."
                raise InputError(msg)
            if any(isinstance(x, StoragePath) for x in given.values()):
                msg = (
                    "engine='sql' reads paths with spark.read.parquet, which takes the Spark "
                    "session's file-system settings (spark.hadoop.fs.s3a.* and the like), not "
                    "storage_options: set them on the session, or use engine='polars', whose "
                    "tasks read the paths with Polars and the storage options."
                )
                raise InputError(msg)
            qrels, run, judged = (_parquet(spark, x) for x in (qrels, run, judged))
        run_side, qrels_side, kind = sides(qrels, run, judged, qrels_columns, run_columns, F)
        return evaluate_sql(
            run_side, qrels_side, kind, parsed, list(by or ()), partitions, options,
            per_query=per_query, F=F, T=T,
        )
    if on_paths:
        if partitions == "files":
            require_local_files(run)
        raw, probe, judged_queries = from_paths(
            *(local_path(x) for x in (qrels, run, judged)), names, slots, list(by or ()),
            partitions, spark, qrels_columns, run_columns, options, T,
        )
    else:
        raw, probe, judged_queries = from_frames(
            qrels, run, judged, names, slots, list(by or ()), partitions, qrels_columns,
            run_columns, options, F, T, measures=parsed, side_inputs=side_inputs, spark=spark,
        )
    return finish(
        raw, probe, judged_queries, parsed, slots, per_query=per_query, F=F, constants=probe.constants
    )


def _refuse_subtopics(
    qrels: Any, parsed: list[Measure], columns: Mapping[str, str] | None, frame_type: type
) -> None:
    """Refuse ndeval's measures over qrels whose queries have several subtopics.

    The tasks read one judgment per (query, doc): qrels without a subtopic column, or with one
    subtopic per query, are ndeval's one-subtopic case, which they compute; several subtopics
    per query would be scored as one, so they are refused, naming the way out.
    """
    intent_aware = [repr(m) for m in parsed if is_subtopic(m)]
    if not intent_aware or qrels is None:
        return
    if isinstance(qrels, frame_type):
        from pyspark.sql import functions as F  # noqa: N812

        found = [c for c in qrels.columns if c in SUB_NAMES]
        query = (columns or {}).get(Q, Q)
        several = bool(found) and query in qrels.columns and bool(
            qrels.groupBy(query).agg(F.countDistinct(found[0]).alias("n")).where(F.col("n") > 1).take(1)
        )
    else:
        try:
            sub = read_subtopic_qrels(local_path(qrels), columns)
        except (InputError, OSError, pl.exceptions.PolarsError):
            return  # unreadable: the evaluation says where
        several = sub is not None and not sub.group_by(Q).agg(pl.col(SUB).n_unique().alias("n")).filter(
            pl.col("n") > 1
        ).head(1).collect().is_empty()
    if several:
        msg = (
            f"{', '.join(intent_aware)}: ndeval's intent-aware measures read the qrels' subtopics "
            "(a query here has several), which rankframe.spark does not evaluate; use "
            "rankframe.evaluate (diversity qrels and runs are small: e.g. "
            "rf.evaluate(qrels_df.toArrow(), run_df.toArrow(), ...))."
        )
        raise MeasureError(msg)


def _parquet(spark: Any, path: Any) -> Any:
    """A Parquet path (file, folder or glob) as a Spark DataFrame, for the SQL engine."""
    if path is None:
        return None
    text = os.fspath(path)
    if os.path.isfile(text) and not text.endswith(".parquet"):
        msg = (
            f"engine='sql' reads paths with spark.read.parquet; {text!r} is not a Parquet file. "
            "Load it into a Spark DataFrame first, or use engine='polars' (its tasks read TREC "
            "text files too)."
        )
        raise InputError(msg)
    return spark.read.parquet(local_path(text) if "://" not in text else text)
