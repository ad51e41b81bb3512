"""What both Spark engines share: the inputs' columns, the sides of a judged frame, the long result."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe._engine.options import REL, D, Q, S
from rankframe._errors import InputError
from rankframe._io.columns import column_renames
from rankframe._measures import MIN_GEO_MEAN

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

    from rankframe._measures import Measure


def spark_modules() -> tuple[Any, Any]:
    """``pyspark.sql.functions`` and ``pyspark.sql.types``, or an ImportError saying what to install."""
    try:
        from pyspark.sql import functions as F  # noqa: N812
        from pyspark.sql import types as T  # noqa: N812
    except ImportError as err:  # pragma: no cover - depends on the environment
        msg = "rankframe.spark needs pyspark: pip install 'rankframe[spark]' (and a Java 17 runtime)."
        raise ImportError(msg) from err
    return F, T


def mapped(
    df: DataFrame, needed: tuple[str, ...], mapping: Mapping[str, str] | None, kind: str
) -> DataFrame:
    """``df`` with the canonical column names, found as :func:`rankframe.read_run` finds them."""
    rename, clash = column_renames(df.columns, needed, mapping, kind, f"The Spark {kind} DataFrame")
    df = df.drop(*clash) if clash else df
    return df.withColumnsRenamed({k: v for k, v in rename.items() if k != v})


def require(df: DataFrame, columns: Sequence[str], role: str) -> None:
    """Raise naming the breakdown columns ``df`` lacks, and the columns it has."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        msg = (
            f"The {role} DataFrame has no column {', '.join(map(repr, missing))}. "
            f"Available columns: {', '.join(map(repr, df.columns))}. Add them or leave them "
            "out of by=."
        )
        raise InputError(msg)


def sides(
    qrels: DataFrame | None,
    run: DataFrame | None,
    judged: DataFrame | None,
    qrels_columns: Mapping[str, str] | None,
    run_columns: Mapping[str, str] | None,
    F: Any,  # noqa: N803
) -> tuple[DataFrame, DataFrame, str]:
    """The run and the qrels DataFrames with canonical column names, and the name of the input.

    A ``judged`` frame is split: its rows with a score are the run, those with a grade the
    judgments.
    """
    if judged is not None:
        if qrels is not None or run is not None:
            msg = "Give either judged=... or qrels and run, not both."
            raise InputError(msg)
        judged = mapped(judged, (Q, D, S, REL), {**(qrels_columns or {}), **(run_columns or {})},
                        "judged")
        run_side = judged.filter(F.col(S).isNotNull()).drop(REL)
        qrels_side = judged.filter(F.col(REL).isNotNull()).select(Q, D, REL)
        return run_side, qrels_side, "judged"
    if qrels is None or run is None:
        msg = "rankframe.spark.evaluate needs qrels and run DataFrames (or judged=...)."
        raise InputError(msg)
    return mapped(run, (Q, D, S), run_columns, "run"), mapped(qrels, (Q, D, REL), qrels_columns, "qrels"), ""


def empty_frame(df: DataFrame) -> pl.DataFrame:
    """An empty Polars frame of a Spark DataFrame's schema (no Spark job)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    frame = pl.from_arrow(to_arrow_schema(df.schema).empty_table())
    assert isinstance(frame, pl.DataFrame)
    return frame


def table(x: Any, spark: Any) -> Any:
    """``spark.table(x)`` where ``x`` names a table or view of the catalog, else ``x``."""
    if not isinstance(x, str) or "://" in x or os.path.exists(x) or any(c in x for c in "*?["):
        return x
    if spark is not None and spark.catalog.tableExists(x):
        return spark.table(x)
    return x


def is_path(x: Any) -> bool:
    return isinstance(x, str | os.PathLike)


def local_path(x: Any) -> Any:
    """A local path made absolute (a task's working directory may differ); URLs unchanged."""
    if x is None or "://" in os.fspath(x):
        return x
    return os.path.abspath(os.fspath(x))


def long(wide: DataFrame, ids: list[str], slots: list[str], names: list[str], F: Any) -> DataFrame:  # noqa: N803
    """``ids..., measure, value`` rows of a wide frame whose measure columns are named ``slots``."""
    if not slots:  # (per query, population measures only: no values)
        return wide.select(*ids, F.lit(None).cast("string").alias("measure"),
                           F.lit(None).cast("double").alias("value")).limit(0)
    pairs = list(zip(slots, names, strict=True))
    name = F.create_map(*[x for s, n in pairs for x in (F.lit(s), F.lit(n))])
    order = F.create_map(*[x for i, (s, _) in enumerate(pairs) for x in (F.lit(s), F.lit(i))])
    return (
        wide.unpivot(ids, slots, "_slot", "value")
        .withColumn("measure", name[F.col("_slot")])
        .withColumn("_o", order[F.col("_slot")])
        .orderBy(*[F.col(c).asc_nulls_last() for c in ids], "_o")  # as evaluate sorts
        .select(*ids, "measure", "value")
    )


def result(
    rows: DataFrame,
    keys: list[str],
    measures: Sequence[Measure],
    slots: list[str],
    *,
    per_query: bool,
    F: Any,  # noqa: N803
    extra: pl.DataFrame | None = None,
) -> DataFrame:
    """The long result of per-query rows (``keys..., query_id`` and a column per measure).

    Per query, or aggregated across queries as trec_eval aggregates each measure (mean, sum or
    geometric mean); sorted as :func:`rankframe.evaluate` sorts. ``extra``: aggregated values
    computed elsewhere (``keys...`` and columns of ``slots``: the population measures'), joined
    to the groups' aggregates on the driver.
    """
    names = [repr(m) for m in measures]
    if per_query:
        return long(rows, [*keys, Q], slots, names, F)
    aggs = []
    for m, slot in zip(measures, slots, strict=True):
        col = F.col(slot)
        if m.AGGREGATE == "sum":
            e = F.sum(col).cast("double")
        elif m.AGGREGATE == "gmean":
            e = F.exp(F.avg(F.log(F.greatest(col, F.lit(MIN_GEO_MEAN)))))
        elif m.AGGREGATE == "none":
            continue
        else:
            e = F.avg(col)
        aggs.append(e.alias(slot))
    agg_slots = [a for a, m in zip(slots, measures, strict=True) if m.AGGREGATE != "none"]
    agg_names = [repr(m) for m in measures if m.AGGREGATE != "none"]
    if extra is not None:
        aggs = [a for a, s in zip(aggs, agg_slots, strict=True) if s not in extra.columns]
        if aggs:
            wide = rows.groupBy(*keys).agg(*aggs) if keys else rows.agg(*aggs)
            ours = pl.from_arrow(wide.toArrow())
            assert isinstance(ours, pl.DataFrame)
            extra = ours.join(extra, on=keys, how="left", nulls_equal=True) if keys else pl.concat(
                [ours, extra], how="horizontal"
            )
        return long(rows.sparkSession.createDataFrame(extra.to_arrow()), keys, agg_slots, agg_names, F)
    wide = rows.groupBy(*keys).agg(*aggs) if keys else rows.agg(*aggs)
    return long(wide, keys, agg_slots, agg_names, F)
