"""Side inputs on Spark (training history, catalogue, reference run) for the polars engine's tasks.

Each task evaluates whole users (queries: the run is repartitioned by user). What the measures
read of the side inputs (:attr:`rankframe.measures.Measure.SIDE_COLUMNS`) reaches a task thus:

- per (user, item), the history's seen pairs and the reference run's ranks: those rows travel
  with the user's run rows (the same repartition by user), tagged by a side marker; the
  reference run's duplicates are found by the task that holds the user;
- per item over the whole history (interactions, rows, distinct users, place by popularity): a
  Spark ``groupBy`` of the history (a window for the place), joined to the run rows by item;
- per item of the catalogue (categories, features, popularity, membership): the catalogue is
  read and checked on the driver (:func:`rankframe._io.sides.read_sides`: its errors), and joined
  to the run rows by item;
- the constants (the history's users, items and interactions; the catalogue's size): one Spark
  aggregate, which screens the history's rows for the checks of ``read_sides`` too (the rows it
  flags are read on the driver for the exact error).

The task rebuilds a :class:`rankframe._io.sides.Sides` of its own users from these rows, with
the whole history's per-item counts (``Sides.item_counts``) and constants, and runs the planner
of :func:`rankframe.evaluate`: the per-user values are evaluate's. Population measures send
their per-user states back; the driver reduces them per group (:func:`population_values`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe._engine.options import D, Q, S
from rankframe._engine.sides_plan import check_sides, run_only
from rankframe._errors import InputError, MeasureError
from rankframe._io.sides import FEATURES, POPULARITY, WEIGHT, Sides, read_sides, weight_column
from rankframe._measures import PopulationCtx
from rankframe.spark._common import empty_frame, is_path, local_path, mapped, table

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

    from rankframe._measures import Measure

#: The side markers of the union a task receives (0: a run row, 1: a judgment).
HISTORY, REFERENCE = 2, 3
#: Joined to the run rows: the catalogue's columns (prefixed, not to clash with the run's).
CAT = "_rf_cat:"
IN_CAT = "_rf_in_catalogue"
COUNTS = ("_item_interactions", "_item_rows", "_item_users", "_item_place")
_COUNTED = frozenset({"item_users", "item_interactions", "item_head", "item_known"})


@dataclass(frozen=True)
class TaskSides:
    """What a task needs to rebuild its users' :class:`Sides` (picklable: no Spark object)."""

    template: Sides  # no frames: categories, feature length, popularity, where, constants
    given: frozenset[str]
    history: bool  # the users' history rows travel with their run rows
    counts: tuple[str, ...]  # the per-item count columns joined to the run rows
    catalogue: tuple[str, ...]  # the catalogue columns joined (canonical names, D excluded)
    constants: PopulationCtx
    schemas: dict[str, pl.Schema]  # the frames' schemas, for empty ones

    def probe(self) -> Sides:
        """The side inputs as empty frames (for a plan's schema)."""
        frames = {r: pl.LazyFrame(schema=self.schemas[r]) for r in self.given}
        return replace(self.template, **frames)

    def local(self, frame: pl.DataFrame, run_rows: pl.DataFrame, side: str) -> Sides:
        """The side inputs of the users of ``frame`` (a task's union; ``run_rows``: its run rows)."""
        def empty(role: str) -> pl.LazyFrame:
            return pl.LazyFrame(schema=self.schemas[role])

        inter = items = ref = counts = None
        if "interactions" in self.given:
            inter = empty("interactions")
            if self.history:
                inter = frame.filter(pl.col(side) == HISTORY).select(Q, D, WEIGHT).lazy()
        if "reference" in self.given:
            rows = frame.filter(pl.col(side) == REFERENCE).select(Q, D, S)
            with _as_spark():  # its checks: duplicates are per user
                ref = read_sides(reference=rows).reference
        if IN_CAT in run_rows.columns:  # the catalogue's columns were joined
            names = {f"{CAT}{c}": c for c in self.catalogue}
            items = run_rows.filter(pl.col(IN_CAT)).select(D, *names).rename(names).unique(D).lazy()
        elif "items" in self.given:
            items = empty("items")
        if self.counts:
            counts = run_rows.filter(pl.col("_item_rows").is_not_null()).select(D, *self.counts)
            counts = counts.unique(D).lazy()
        return replace(self.template, interactions=inter, items=items, reference=ref, item_counts=counts)


def spark_sides(
    measures: list[Measure],
    run: DataFrame,
    spark: Any,
    F: Any,  # noqa: N803
    interactions: Any = None,
    items: Any = None,
    reference: Any = None,
) -> tuple[TaskSides, dict[str, DataFrame], DataFrame] | None:
    """Read and check the side inputs on Spark; None when no measure reads them.

    Returns what the tasks need, the rows that travel with the run by user (``"history"``,
    ``"reference"``: ``query_id, doc_id`` and ``weight`` or ``score``), and the run with the
    per-item columns joined (``COUNTS``, the catalogue's prefixed by ``CAT``, ``IN_CAT``).
    """
    apart = run_only(measures)
    if not apart:
        return None
    sources = {"interactions": interactions, "items": items, "reference": reference}
    given = {r: x for r, x in sources.items() if x is not None}
    needed = set().union(*(m.SIDE_COLUMNS for m in apart))
    if "history_similarity" in needed:
        names = ", ".join(repr(m) for m in apart if "history_similarity" in m.SIDE_COLUMNS)
        msg = (
            f"{names} compares each recommended item with the user's history by co-occurrence "
            "over every user's history (a self-join of the history): rankframe.spark does not "
            "evaluate it; use rankframe.evaluate."
        )
        raise MeasureError(msg)
    frames = {r: _frame(x, r, spark) for r, x in given.items()}
    run_types = {f.name: f.dataType for f in run.schema.fields}
    where = {r: f"the Spark {'reference run' if r == 'reference' else r} DataFrame" for r in frames}

    # the template: the catalogue read and checked whole on the driver, the others' schemas
    hist = ref = None
    empties: dict[str, Any] = {}
    if "interactions" in frames:
        hist = mapped(frames["interactions"], (Q, D), None, "interactions")
        hist = _ids_as(hist, run_types)
        empties["interactions"] = empty_frame(hist)
    if "reference" in frames:
        ref = mapped(frames["reference"], (Q, D, S), None, "reference")
        ref = _ids_as(ref, run_types).select(Q, D, S)
        empties["reference"] = empty_frame(ref)
    if "items" in frames:
        cat = _ids_as(mapped(frames["items"], (D,), None, "items"), run_types)
        empties["items"] = pl.from_arrow(cat.toArrow())
    template = read_sides(**empties)
    template = replace(template, where={**template.where, **where})
    check_sides(apart, template)
    schemas = {r: getattr(template, r).collect_schema() for r in template.given()}

    travel: dict[str, DataFrame] = {}
    counts: list[str] = []
    catalogue: list[str] = []
    ctx = PopulationCtx()
    n_catalogue = template.constants.get("n_catalogue")
    if hist is not None:
        ctx, hist = _history_constants(hist, F)
        if needed & {"seen", "user_known"}:
            travel["history"] = hist
    if n_catalogue is None:
        n_catalogue = ctx.n_items
    ctx = replace(ctx, n_catalogue=n_catalogue)
    if ref is not None:
        travel["reference"] = ref

    counted = needed & _COUNTED or ("in_catalogue" in needed and "items" not in frames)
    if counted and hist is not None:
        aggs = [F.sum(WEIGHT).alias("_item_interactions"), F.count(F.lit(1)).alias("_item_rows")]
        if "item_users" in needed:
            aggs.append(F.countDistinct(Q).alias("_item_users"))
        per_item = hist.groupBy(D).agg(*aggs)
        if "item_head" in needed:  # as rankframe.evaluate: ties by item id descending, in bytes
            from pyspark.sql import Window

            order = Window.orderBy(F.col("_item_interactions").desc(), F.col(D).cast("string").desc())
            per_item = per_item.withColumn("_item_place", F.row_number().over(order))
        counts = [c for c in COUNTS if c in per_item.columns]
        run = run.join(per_item, on=D, how="left")
    joined = needed & {"category", "features", "popularity", "in_catalogue"}
    if joined and "items" in frames:
        columns = []
        if "category" in needed:
            columns += list(template.categories)
        if "features" in needed:
            columns.append(FEATURES)
        if "popularity" in needed:
            columns.append(POPULARITY)
        catalogue = columns
        items_frame = template.items.select(D, *columns).collect()  # type: ignore[union-attr]
        spark_items = spark.createDataFrame(items_frame.to_arrow())
        spark_items = spark_items.select(
            F.col(D).cast(run_types[D]).alias(D), *(F.col(c).alias(f"{CAT}{c}") for c in columns),
            F.lit(True).alias(IN_CAT),
        )
        run = run.join(spark_items, on=D, how="left")
    task = TaskSides(
        replace(template, interactions=None, items=None, reference=None),
        frozenset(frames), "history" in travel, tuple(counts), tuple(catalogue), ctx, schemas,
    )
    return task, travel, run


@contextmanager
def _as_spark() -> Iterator[None]:
    """read_sides' errors on rows of a Spark DataFrame: the input named as such, no row number."""
    try:
        yield
    except InputError as err:
        text = re.sub(r" \((row|line) \d+ and (row|line) \d+\)", "", str(err))
        text = re.sub(r"(interactions|reference run) (row|line) \d+", r"a row of the \1", text)
        text = re.sub(r"'s (row|line) \d+ has", " has a row with", text)
        text = re.sub(r"^the (interactions|reference run) DataFrame", r"the Spark \1 DataFrame", text)
        raise InputError(text) from None


def _frame(x: Any, role: str, spark: Any) -> Any:
    """A side input as a Spark DataFrame: a DataFrame, a table or view name, or a Parquet path."""
    from pyspark.sql import DataFrame as SparkFrame

    x = table(x, spark)
    if isinstance(x, SparkFrame):
        return x
    if is_path(x):
        if spark is None:
            msg = f"{role}= is a path: reading it needs a Spark session; start one, or pass spark=..."
            raise InputError(msg)
        return spark.read.parquet(local_path(x))
    msg = (
        f"{role}= must be a Spark DataFrame, a table name or a Parquet path for rankframe.spark; "
        f"got {type(x).__name__}."
    )
    raise InputError(msg)


def _ids_as(df: DataFrame, types: dict[str, Any]) -> DataFrame:
    """``df`` with its ids of the run's types (as rankframe.evaluate aligns them)."""
    for col in (Q, D):
        if col in df.columns and df.schema[col].dataType != types[col]:
            df = df.withColumn(col, df[col].cast(types[col]))
    return df


def _history_constants(ids: DataFrame, F: Any) -> tuple[PopulationCtx, DataFrame]:  # noqa: N803
    """The history's constants and its rows' checks, in one Spark aggregate; and its rows.

    ``ids``: the history with canonical ids (and its own weight column, if any). Returns the
    constants and ``query_id, doc_id, weight`` (1.0 without a weight column). The rows the
    checks flag are read on the driver, where :func:`read_sides` words the error.
    """
    weight = weight_column(ids.columns)
    w = F.col(weight).cast("double") if weight is not None else F.lit(1.0)
    bad = F.col(Q).isNull() | F.col(D).isNull()
    if weight is not None:
        bad = bad | w.isNull() | F.isnan(w) | (w < 0) | (F.abs(w) == float("inf"))
    row = ids.agg(
        F.countDistinct(Q).alias("n_users"), F.countDistinct(D).alias("n_items"),
        F.sum(w).alias("n_interactions"), F.sum(F.when(bad, 1).otherwise(0)).alias("bad"),
    ).first()
    if row["bad"]:
        sample = pl.from_arrow(ids.filter(bad).limit(2).toArrow())
        with _as_spark():
            read_sides(interactions=sample)  # raises the exact error
        msg = "The Spark interactions DataFrame has a null id or a negative or non-finite weight."
        raise InputError(msg)
    ctx = PopulationCtx(row["n_users"], row["n_items"], None, row["n_interactions"] or 0.0)
    return ctx, ids.select(Q, D, w.alias(WEIGHT))
