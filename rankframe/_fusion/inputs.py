"""The runs a fusion reads: named, mapped to ``query_id, doc_id, score`` and stacked.

Each run keeps its rows' input order (``_i``), which breaks ties in its ranking as ranx does,
and its index in the list (``_r``), which fixes the order of the fused arithmetic.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, TypeVar

import polars as pl

from rankframe._engine.options import D, Q, S
from rankframe._engine.prepare import _align_ids, _named_runs, _read_run
from rankframe._errors import InputError
from rankframe._io.columns import describe
from rankframe._io.ecosystem import resolve_runs

#: The run's index in the list of runs and a row's index in its run (its input order).
RUN, ROW = "_r", "_i"

T = TypeVar("T")


def lookup(table: Mapping[str, T], aliases: Mapping[str, str], name: str, what: str, valid: str) -> T:
    """``table[name]`` (through ranx's ``aliases``), or an InputError listing ``valid`` and the closest."""
    key = aliases.get(name, name)
    if key in table:
        return table[key]
    close = difflib.get_close_matches(name, [*table, *aliases], n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    msg = f"Unknown {what} {name!r}; valid: {valid}.{hint}"
    raise InputError(msg)


def _split_frame(source: Any, columns: Mapping[str, str] | None) -> list[tuple[str, Any]] | None:
    """The runs of one frame with a ``run`` column, by that column's values in input order."""
    lf = _read_run(source, columns)
    if "run" not in lf.collect_schema().names():
        return None
    names = lf.select(pl.col("run").unique(maintain_order=True)).collect().to_series().to_list()
    return [(str(n), lf.filter(pl.col("run") == n).drop("run")) for n in names]


def read_runs(
    runs: Any, columns: Mapping[str, str] | None = None
) -> tuple[list[str], list[pl.LazyFrame], list[str]]:
    """Read the runs to fuse: names, frames (``query_id, doc_id, score, _i``) and descriptions.

    ``runs`` is a list or a dict ``{name: run}`` of anything :func:`rankframe.read_run` reads, or
    one frame whose ``run`` column names the runs.
    """
    resolved = resolve_runs(runs)
    items = _named_runs(resolved)
    if items is None:
        items = _split_frame(resolved, columns)
        if items is None:
            msg = (
                f"fuse needs several runs; got one run ({describe(runs, 'run')}). Pass a list "
                "[run, run, ...] or a dict {name: run}, or one frame with a 'run' column."
            )
            raise InputError(msg)
        frames = [lf for _, lf in items]
        wheres = [f"the run {name!r}" for name, _ in items]
    else:
        frames = [_read_run(src, columns) for _, src in items]
        wheres = [describe(src, "run") for _, src in items]
    names = [name for name, _ in items]
    if len(frames) < 2:
        msg = f"fuse needs at least 2 runs; got {len(frames)}. Pass a list or dict of runs."
        raise InputError(msg)
    frames = [lf.select(Q, D, pl.col(S).cast(pl.Float64)).with_row_index(ROW) for lf in frames]
    return names, list(_align_ids(*frames)), wheres


def check_wide(wide: pl.DataFrame, column: str, names: list[str], wheres: list[str]) -> None:
    """Refuse empty runs and documents retrieved twice for a query in one run.

    ``wide`` has one row per (query, document), the run ``r``'s score or position in
    ``{column}{r}`` (null where it did not retrieve the document) and the number of rows in ``_n``.
    """
    present = [pl.col(f"{column}{r}").is_not_null() for r in range(len(names))]
    stats = wide.select(
        *(p.sum().alias(f"c{r}") for r, p in enumerate(present)),
        (pl.col("_n") > pl.sum_horizontal(present)).arg_true().first().alias("dup"),
    ).row(0, named=True)
    for r, name in enumerate(names):
        if stats[f"c{r}"] == 0:
            msg = f"The run {name!r} ({wheres[r]}) is empty; every run to fuse needs rows."
            raise InputError(msg)
    if stats["dup"] is not None:
        row = wide.row(stats["dup"], named=True)
        msg = (
            f"A run retrieves document {row[D]!r} more than once for query {row[Q]!r}; fusion "
            "needs one score per document and query in each run (drop the duplicates, e.g. "
            "keep each pair's highest score)."
        )
        raise InputError(msg)
