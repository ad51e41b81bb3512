"""The output writers of ``rankframe evaluate``, keyed by format, and where the output goes.

:data:`WRITERS` maps a ``--format`` to a writer of the result frame (text, or bytes for the
binary formats of :data:`BINARY_FORMATS`); :func:`_emit` writes a command's output to a file
(``-o PATH``) or to standard output.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import polars as pl

from rankframe._io.atomic import write_atomic

if TYPE_CHECKING:
    from rankframe._measures import Measure


def _format_number(value: float | None, count: bool) -> str:
    if value is None:
        return "-"
    if count and value == value and abs(value) != float("inf"):
        return str(int(value))
    return f"{value:.4f}"


def _write_table(frame: pl.DataFrame, measures: list[Measure]) -> str:
    """Runs side by side: one row per measure (or query and measure), one column per run."""
    counts = {repr(m) for m in measures if m.AGGREGATE == "sum"}
    runs = list(dict.fromkeys(frame["run"].to_list()))
    index = [c for c in frame.columns if c not in ("run", "value")]
    order = {repr(m): i for i, m in enumerate(measures)}
    wide = (
        frame.pivot(on="run", index=index, values="value")
        .with_columns(pl.col("measure").replace_strict(order, default=len(order)).alias("_m"))
        .sort([*[c for c in index if c != "measure"], "_m"])
        .drop("_m")
    )
    for name in runs:
        if name not in wide.columns:
            wide = wide.with_columns(pl.lit(None, pl.Float64).alias(name))
    header = [*index, *runs]
    rows = []
    for row in wide.iter_rows(named=True):
        count = row["measure"] in counts
        rows.append(
            ["-" if row[c] is None else str(row[c]) for c in index]
            + [_format_number(row[r], count) for r in runs]
        )
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    n_left = len(index)

    def line(cells: list[str]) -> str:
        parts = [
            c.ljust(w) if i < n_left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip() + "\n"

    rule = ["-" * w for w in widths]
    return "".join([line(header), line(rule), *(line(r) for r in rows)])


def _write_parquet(frame: pl.DataFrame, measures: list[Measure]) -> bytes:
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    return buffer.getvalue()


#: ``--format`` -> writer of the result frame (text, or bytes for binary formats).
WRITERS: dict[str, Callable[[pl.DataFrame, list[Measure]], str | bytes]] = {
    "table": _write_table,
    "csv": lambda frame, _: frame.write_csv(),
    "tsv": lambda frame, _: frame.write_csv(separator="\t"),
    "json": lambda frame, _: frame.write_json() + "\n",
    "jsonl": lambda frame, _: frame.write_ndjson(),
    "parquet": _write_parquet,
}
BINARY_FORMATS = frozenset({"parquet"})


def _emit(data: str | bytes, output: str | None, option: str = "-o") -> None:
    """Write ``data`` to ``output`` (the path that ``option`` gave), or to stdout (None, ``-``)."""
    if output is not None and output != "-":
        write_atomic(output, data, option)  # complete at the destination, or absent
        return
    if isinstance(data, bytes):
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(data)
    sys.stdout.flush()
