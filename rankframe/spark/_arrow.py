"""The polars engine of :mod:`rankframe.spark`: rankframe's planner inside Spark tasks, through Arrow.

DataFrames: the judgments are unioned with the run rows (a judged document that no run retrieved
still counts), the union is ``repartition``-ed by query id, so that a task holds whole queries,
and ``mapInArrow`` evaluates each task's queries with Polars and the very planner of
:func:`rankframe.evaluate` (the same measure registry, options and validation). Paths: each task
reads its own queries with Polars (no row through the JVM). Per-query rows come back as a Spark
DataFrame; Spark aggregates them across queries.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe._engine.collect import _raw_wide, _warn_coverage, warn_population_per_query
from rankframe._engine.options import HAS_QRELS, HAS_RUN, N_RET, REL, D, Prepared, Q, S
from rankframe._engine.partition import bucket, is_count, query_owners, run_files
from rankframe._engine.prepare import prepare
from rankframe._engine.sides_plan import population_values
from rankframe._errors import InputError, MeasureError
from rankframe._measures import PopulationCtx
from rankframe.spark._common import empty_frame, mapped, require, result, sides
from rankframe.spark._sides import HISTORY, REFERENCE, TaskSides, spark_sides

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

    from rankframe._measures import Measure

SIDE = "_rf_side"  # 0: a run row, 1: a judgment
ARROW_BATCH = "spark.sql.execution.arrow.maxRecordsPerBatch"
ARROW_ROWS = 200_000


def _input_error(err: Exception) -> InputError | MeasureError | None:
    """The rankframe error a Python worker raised, out of Spark's wrapping, or None."""
    text = str(err)
    for cls in (InputError, MeasureError):
        found = re.search(rf"rankframe\._errors\.{cls.__name__}: (.*?)(?:\n\n|\n\tat |\Z)", text, re.S)
        if found:
            return cls(found.group(1).strip())
    return None


def finish(
    raw: DataFrame,
    probe: Prepared,
    judged_queries: Callable[[list[str]], pl.DataFrame],
    measures: list[Measure],
    slots: list[str],
    *,
    per_query: bool,
    F: Any,  # noqa: N803
    constants: PopulationCtx | None = None,
) -> DataFrame:
    """Collect the per-query flags (raising the tasks' input errors), warn, and shape the result.

    Population measures (their columns: per-query states) are reduced on the driver, per group,
    from the states collected there (:func:`population_values`, as :func:`rankframe.evaluate`).
    """
    keys = probe.keys
    conf = raw.sparkSession.conf
    batch = conf.get(ARROW_BATCH, None)
    try:
        # A task gathers its partition's batches anyway: larger Arrow batches cut the per-batch
        # cost of the JVM -> Python transfer (10,000 rows by default; ~15% faster at 5M rows).
        if batch is None or int(batch) < ARROW_ROWS:
            conf.set(ARROW_BATCH, str(ARROW_ROWS))
        flags = pl.from_arrow(raw.select(*keys, Q, HAS_RUN, HAS_QRELS).toArrow())
    except Exception as err:  # a worker's rankframe error, wrapped by Spark
        mine = _input_error(err)
        if mine is None:
            raise
        raw.unpersist()
        raise mine from None
    finally:
        if batch is None:
            conf.unset(ARROW_BATCH)
        else:
            conf.set(ARROW_BATCH, batch)
    if not isinstance(flags, pl.DataFrame):  # pragma: no cover - from_arrow of a table
        flags = pl.DataFrame(flags)
    if probe.qrels_given:
        _coverage_warnings(probe, flags, judged_queries)

    kept = F.col(HAS_QRELS) & (F.col(HAS_RUN) | F.lit(probe.opts.complete))
    rows = raw.filter(kept).drop(HAS_RUN, HAS_QRELS)
    population = [(m, s) for m, s in zip(measures, slots, strict=True) if m.KIND == "population"]
    if population:
        pop_slots = [s for _, s in population]
        if per_query:
            warn_population_per_query(measures)
        else:
            states = pl.from_arrow(rows.select(*keys, *pop_slots).toArrow())
            assert isinstance(states, pl.DataFrame)
            states = states.rename({s: repr(m) for m, s in population})
            values = population_values(states, [m for m, _ in population], keys, constants or PopulationCtx())
            values = values.rename({repr(m): s for m, s in population})
            return result(rows, keys, measures, slots, per_query=False, F=F, extra=values)
        keep = [(m, s) for m, s in zip(measures, slots, strict=True) if m.KIND != "population"]
        measures, slots = [m for m, _ in keep], [s for _, s in keep]
        rows = rows.drop(*pop_slots)
    return result(rows, keys, measures, slots, per_query=per_query, F=F)


def from_frames(
    qrels: DataFrame | None,
    run: DataFrame | None,
    judged: DataFrame | None,
    names: list[str],
    slots: list[str],
    by: list[str],
    partitions: int | str | None,
    qrels_columns: Mapping[str, str] | None,
    run_columns: Mapping[str, str] | None,
    options: dict[str, Any],
    F: Any,  # noqa: N803
    T: Any,  # noqa: N803
    *,
    measures: list[Measure] | None = None,
    side_inputs: Mapping[str, Any] | None = None,
    spark: Any = None,
) -> tuple[DataFrame, Prepared, Callable[[list[str]], pl.DataFrame]]:
    """The per-query rows of Spark DataFrames: union, repartition by query, ``mapInArrow``.

    ``side_inputs``: ``interactions``, ``items``, ``reference`` for the measures that read them
    (:mod:`rankframe.spark._sides`: their rows travel with the run's by user, their per-item
    columns are joined to the run rows); ``qrels`` may then be None.
    """
    if partitions is not None and not is_count(partitions):
        msg = f"partitions must be an int >= 1 for Spark DataFrames. Got {partitions!r}."
        raise InputError(msg)
    if qrels is None and judged is None and run is not None:  # measures of the run alone
        run_side, qrels_side = mapped(run, (Q, D, S), run_columns, "run"), None
    else:
        run_side, qrels_side, _ = sides(qrels, run, judged, qrels_columns, run_columns, F)
    keys = (["run"] if "run" in run_side.columns else []) + by
    require(run_side, keys, "run")  # breakdown columns
    qrels_keys = [] if qrels_side is None else [k for k in keys if k in qrels_side.columns]
    run_cols = [*keys, Q, D, S]
    qrels_cols = [*qrels_keys, Q, D, REL] if qrels_side is not None else []

    # a probe on empty Polars frames of the same schema: parse and check the options up front
    run_schema = {f.name: f.dataType for f in run_side.select(*run_cols).schema.fields}
    empty_run = empty_frame(run_side.select(*run_cols))
    empty_qrels = None if qrels_side is None else empty_frame(qrels_side.select(*qrels_cols))
    side = None
    got = spark_sides(measures or [], run_side.select(*run_cols), spark, F, **(side_inputs or {}))
    if got is not None:  # measures that read the side inputs
        side, travel, run_side = got
    sides_probe = None if side is None else side.probe()
    probe = prepare(
        empty_qrels, empty_run, names, by=by or None, validate=False, sides=sides_probe,
        constants=None if side is None else side.constants, **options,
    )

    groups = None
    if keys and probe.opts.complete:  # complete=True scores missing judged queries in every group
        groups = pl.from_arrow(run_side.select(*keys).distinct().toArrow())

    union = run_side.withColumn(SIDE, F.lit(0).cast("byte"))
    parts = []
    if qrels_side is not None:
        parts.append(qrels_side.select(*qrels_cols).withColumn(SIDE, F.lit(1).cast("byte")))
    if side is not None:
        for role, marker in (("history", HISTORY), ("reference", REFERENCE)):
            if role in travel:
                parts.append(travel[role].withColumn(SIDE, F.lit(marker).cast("byte")))
    for part in parts:
        union = union.unionByName(part, allowMissingColumns=True)
    union = union.repartition(partitions, Q) if partitions else union.repartition(Q)
    q_type = run_schema[Q]
    if qrels_side is not None and qrels_side.schema[Q].dataType != q_type:
        q_type = T.StringType()
    states = _state_types(probe, measures or [], slots) if side is not None else {}
    schema = _out_schema([(k, run_schema[k]) for k in keys], q_type, slots, T, states)
    task = _Task(names, by, options, run_cols, qrels_cols, groups, keys, slots, side, set(states))
    raw = union.mapInArrow(task, schema).persist()

    def judged_queries(qrels_keys: list[str]) -> pl.DataFrame:
        assert qrels_side is not None
        frame = pl.from_arrow(qrels_side.select(*qrels_keys, Q).distinct().toArrow())
        assert isinstance(frame, pl.DataFrame)
        return frame

    return raw, probe, judged_queries


def _state_types(probe: Prepared, measures: list[Measure], slots: list[str]) -> dict[str, Any]:
    """The Spark types of the population measures' per-query states (their columns ``slots``)."""
    population = {repr(m): s for m, s in zip(measures, slots, strict=True) if m.KIND == "population"}
    if not population:
        return {}
    schema = _raw_wide(probe).select(*population).to_arrow().schema
    from pyspark.sql.pandas.types import from_arrow_type

    return {population[f.name]: from_arrow_type(_plain(f.type)) for f in schema}


def _plain(kind: Any) -> Any:
    """An Arrow type with its large and view variants made plain (as Spark reads Arrow)."""
    import pyarrow as pa

    if pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return pa.string()
    if pa.types.is_large_binary(kind) or pa.types.is_binary_view(kind):
        return pa.binary()
    if pa.types.is_large_list(kind) or pa.types.is_list(kind) or pa.types.is_list_view(kind):
        return pa.list_(_plain(kind.value_type))
    if pa.types.is_struct(kind):
        return pa.struct([pa.field(f.name, _plain(f.type)) for f in kind])
    return kind


def from_paths(
    qrels: str | os.PathLike[str] | None,
    run: str | os.PathLike[str] | None,
    judged: str | os.PathLike[str] | None,
    names: list[str],
    slots: list[str],
    by: list[str],
    partitions: int | str | None,
    spark: Any,
    qrels_columns: Mapping[str, str] | None,
    run_columns: Mapping[str, str] | None,
    options: dict[str, Any],
    T: Any,  # noqa: N803
) -> tuple[DataFrame, Prepared, Callable[[list[str]], pl.DataFrame]]:
    """The per-query rows of files that the tasks read themselves (no row through the JVM)."""
    if spark is None:
        msg = "Path inputs need a Spark session: start one, or pass spark=..."
        raise InputError(msg)
    source = _Sources(qrels, run, judged, names, by, qrels_columns, run_columns, options)
    probe = source.prepare(run if judged is None else None)
    files: list[str] | None = None
    if partitions == "files":
        if judged is not None or run is None:
            msg = "partitions='files' needs qrels and a run (a glob or folder of Parquet files)."
            raise InputError(msg)
        files = run_files(run)
        tasks = len(files) + 1  # the last one: judged queries that no file holds
    elif partitions is None:
        try:
            tasks = int(spark.sparkContext.defaultParallelism)
        except Exception:  # noqa: BLE001 - Spark Connect sessions have no SparkContext
            tasks = int(spark.conf.get("spark.sql.shuffle.partitions"))
    elif is_count(partitions):
        tasks = partitions
    else:
        msg = f"partitions must be an int >= 1 or 'files'. Got {partitions!r}."
        raise InputError(msg)
    groups = None
    if probe.keys and probe.opts.complete:
        groups = probe.run.select(*probe.keys).unique().collect()
    schema = probe.run.collect_schema()
    typed = _spark_types([*probe.keys, Q], schema)
    out = _out_schema(typed[:-1], typed[-1][1], slots, T)
    task = _PathTask(source, files, tasks, groups, schema[Q], slots)
    ids = spark.range(0, tasks, numPartitions=tasks)
    raw = ids.mapInArrow(task, out).persist()

    def judged_queries(qrels_keys: list[str]) -> pl.DataFrame:
        return probe.qrels.select(*qrels_keys, Q).unique().collect()

    return raw, probe, judged_queries


def _spark_types(columns: list[str], schema: pl.Schema) -> list[tuple[str, Any]]:
    """Spark types of Polars columns (through Arrow)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import from_arrow_type

    table = pl.DataFrame(schema={c: schema[c] for c in columns}).to_arrow()
    out = []
    for field in table.schema:
        kind = field.type
        if pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
            kind = pa.string()
        out.append((field.name, from_arrow_type(kind)))
    return out


def _out_schema(
    keys: list[tuple[str, Any]], q_type: Any, slots: list[str], T: Any, states: dict[str, Any] | None = None,  # noqa: N803
) -> Any:
    """The tasks' output: keys, query, flags, a double per measure (population: its state's type)."""
    states = states or {}
    return T.StructType(
        [T.StructField(k, t) for k, t in keys]
        + [T.StructField(Q, q_type)]
        + [T.StructField(HAS_RUN, T.BooleanType()), T.StructField(HAS_QRELS, T.BooleanType())]
        + [T.StructField(s, states.get(s, T.DoubleType())) for s in slots]
    )


def _coverage_warnings(
    probe: Prepared, flags: pl.DataFrame, judged_queries: Callable[[list[str]], pl.DataFrame]
) -> None:
    """The coverage warnings of :func:`rankframe.evaluate`, from the per-query flags.

    ``judged_queries(keys)``: the distinct ``keys..., query_id`` of the judgments.
    """
    qrels_keys = [k for k in probe.keys if k in probe.qrels.collect_schema().names()]
    prep = replace(probe)
    if probe.keys and not probe.opts.complete and len(qrels_keys) != len(probe.keys):
        judged = judged_queries(qrels_keys)
        prep.qrels = judged.with_columns(pl.lit(0).alias(REL)).lazy()
    _warn_coverage(prep, flags)


class _Task:
    """The function ``mapInArrow`` runs in each Spark task: its whole queries through the planner."""

    def __init__(
        self,
        names: list[str],
        by: list[str],
        options: dict[str, Any],
        run_cols: list[str],
        qrels_cols: list[str],
        groups: pl.DataFrame | None,
        keys: list[str],
        slots: list[str],
        sides: TaskSides | None = None,
        states: set[str] | None = None,
    ) -> None:
        self.names, self.by, self.options = names, by, options
        self.run_cols, self.qrels_cols = run_cols, qrels_cols
        self.groups, self.keys, self.slots = groups, keys, slots
        self.sides, self.states = sides, states or set()

    def __call__(self, batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        batches = list(batches)
        if not batches:  # an empty partition: nothing to evaluate
            return
        frame = pl.from_arrow(pa.Table.from_batches(batches))
        assert isinstance(frame, pl.DataFrame)
        if frame.height == 0:
            return
        run_rows = frame.filter(pl.col(SIDE) == 0)
        run = run_rows.select(self.run_cols)
        qrels = frame.filter(pl.col(SIDE) == 1).select(self.qrels_cols) if self.qrels_cols else None
        sides = None if self.sides is None else self.sides.local(frame, run_rows, SIDE)
        prep = prepare(
            qrels, run, self.names, by=self.by or None, validate=False, cast_grades=False,
            sides=sides, constants=None if self.sides is None else self.sides.constants,
            **self.options,
        )
        prep.run_where, prep.qrels_where = "the Spark run DataFrame", "the Spark qrels DataFrame"
        if prep.sides is not None and prep.sides.item_counts is not None:  # ids as prepare aligned them
            doc = pl.col(D).cast(prep.run.collect_schema()[D])
            prep.sides = replace(prep.sides, item_counts=prep.sides.item_counts.with_columns(doc))
        if self.groups is not None:
            prep = replace(prep, groups=self.groups.lazy())
        q_type = pl.String if prep.run.collect_schema()[Q] != run.schema[Q] else run.schema[Q]
        yield from _emit(prep, self.names, self.slots, q_type, self.states)


def _emit(
    prep: Prepared, names: list[str], slots: list[str], q_type: Any, states: set[str] | None = None
) -> Iterator[Any]:
    """The Arrow batches of a task's per-query rows (measures in the columns ``slots``).

    ``states``: the slots of population measures, whose per-query states keep their type.
    """
    states = states or set()
    raw = _raw_wide(prep, validate=True).drop(N_RET)
    raw = raw.rename(dict(zip(names, slots, strict=True)))
    out = raw.select(
        *prep.keys, pl.col(Q).cast(q_type), HAS_RUN, HAS_QRELS,
        *[pl.col(s) if s in states else pl.col(s).cast(pl.Float64) for s in slots],
    )
    table = out.to_arrow()
    if states:
        import pyarrow as pa

        table = table.cast(pa.schema([pa.field(f.name, _plain(f.type)) for f in table.schema]))
    yield from table.to_batches()


class _Sources:
    """Path inputs and how to read them: each task prepares its own lazy scans."""

    def __init__(
        self,
        qrels: Any,
        run: Any,
        judged: Any,
        names: list[str],
        by: list[str],
        qrels_columns: Mapping[str, str] | None,
        run_columns: Mapping[str, str] | None,
        options: dict[str, Any],
    ) -> None:
        self.qrels, self.run, self.judged = qrels, run, judged
        self.names, self.by, self.options = names, by, options
        self.qrels_columns, self.run_columns = qrels_columns, run_columns

    def prepare(self, run: Any) -> Prepared:
        """The preparation of ``run`` (a path; None with ``judged``), not validated yet."""
        return prepare(
            self.qrels, run, self.names, judged=self.judged, by=self.by or None,
            qrels_columns=self.qrels_columns, run_columns=self.run_columns, validate=False,
            cast_grades=False, **self.options,
        )


class _PathTask:
    """``mapInArrow`` over task ids: task ``i`` reads and evaluates its own queries.

    Hash buckets: bucket ``i`` of every input. Files: run file ``i`` and the judgments of its
    queries; the last task, the judged queries that no file holds (and the check that no query
    is in two files).
    """

    def __init__(
        self,
        source: _Sources,
        files: list[str] | None,
        tasks: int,
        groups: pl.DataFrame | None,
        q_type: pl.DataType,
        slots: list[str],
    ) -> None:
        self.source, self.files, self.tasks = source, files, tasks
        self.groups, self.q_type, self.slots = groups, q_type, slots

    def part(self, i: int) -> Prepared:
        """The preparation of task ``i``'s queries."""
        files = self.files
        if files is None:
            prep = bucket(self.source.prepare(self.source.run), i, self.tasks)
        elif i < len(files):
            prep = self.source.prepare(files[i])
            prep.qrels = prep.qrels.join(prep.run.select(Q).unique(), on=Q, how="semi")
        else:
            whole = self.source.prepare(self.source.run)
            runs = [self.source.prepare(f).run for f in files]
            owners = query_owners(runs, files).lazy()
            prep = replace(
                whole, run=whole.run.head(0), qrels=whole.qrels.join(owners, on=Q, how="anti")
            )
        if self.groups is not None:
            prep = replace(prep, groups=self.groups.lazy())
        return prep

    def __call__(self, batches: Iterator[Any]) -> Iterator[Any]:
        for batch in batches:
            for i in batch.column(0).to_pylist():
                yield from _emit(self.part(i), self.source.names, self.slots, self.q_type)
