r"""The output writers of ``rankframe evaluate``, keyed by format, and where the output goes.

:data:`WRITERS` maps a ``--format`` to a writer of the result frame (text, or bytes for the
binary formats of :data:`BINARY_FORMATS`); :func:`_emit` writes a command's output to a file
(``-o PATH``) or to standard output.

Ids read as bytes (Binary columns: a TREC file that is not UTF-8) keep their bytes: the table,
CSV and TSV print each id's own bytes, as trec_eval does (so the output is UTF-8 exactly when
the ids are); JSON and JSON lines, which are UTF-8 text, write a byte that is not UTF-8 as a
lone surrogate escape ``\udcNN`` (PEP 383's ``surrogateescape``: ``b"q\xe9"`` is
``"q\udce9"``, which Python's ``json.loads(...).encode("utf-8", "surrogateescape")`` turns
back into the bytes); Parquet keeps a binary column. Two ids that differ in any byte stay two
ids in every format.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import polars as pl

from rankframe._io.atomic import write_atomic
from rankframe._io.columns import id_text

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
            ["-" if row[c] is None else id_text(row[c]) for c in index]
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


def _csv_field(separator: str) -> Callable[[str], str]:
    """Quote a field as Polars' CSV writer does: when it holds the separator, a quote or a line end."""

    def field(text: str) -> str:
        if any(c in text for c in (separator, '"', "\n", "\r")):
            return '"' + text.replace('"', '""') + '"'
        return text

    return field


_SURROGATE = re.compile("[\udc80-\udcff]")


def _json_field(text: str) -> str:
    r"""A JSON string's content: bytes that are not UTF-8 as ``\udcNN`` escapes."""
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    return _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", body)


def _with_bytes(write: Callable[[pl.DataFrame], str], field: Callable[[str], str]) -> Callable[
    [pl.DataFrame, list[Measure]], str
]:
    """A text writer that also takes Binary columns (ids read as bytes), which Polars' cannot.

    Each distinct value of a Binary column is written as a placeholder, then replaced by
    ``field(id_text(value))`` (the id's bytes as lone surrogates, quoted or escaped for the
    format); the rest is written by Polars as usual.
    """

    def writer(frame: pl.DataFrame, _: list[Measure]) -> str:
        binary = [c for c, dt in frame.schema.items() if dt == pl.Binary]
        if not binary:
            return write(frame)
        values = pl.concat([frame[c] for c in binary]).drop_nulls().unique(maintain_order=True)
        codes = {v: i for i, v in enumerate(values.to_list())}
        texts = [field(id_text(v)) for v in codes]
        for mark in ("\ue000", "\ue001", "\ue002", "\ue003"):  # a character the frame lacks
            marked = frame.with_columns(
                pl.col(c).replace_strict(list(codes), [f"{mark}{i}{mark}" for i in codes.values()],
                                         return_dtype=pl.String)
                for c in binary
            )
            text = write(marked)
            pattern = re.compile(f"{mark}(\\d+){mark}")
            cells = sum(frame[c].is_not_null().sum() for c in binary)
            if text.count(mark) == 2 * cells:
                return pattern.sub(lambda m: texts[int(m[1])], text)
        msg = "Cannot write ids of bytes: the output holds every placeholder character."  # pragma: no cover
        raise RuntimeError(msg)  # pragma: no cover

    return writer


#: ``--format`` -> writer of the result frame (text, or bytes for binary formats).
WRITERS: dict[str, Callable[[pl.DataFrame, list[Measure]], str | bytes]] = {
    "table": _write_table,
    "csv": _with_bytes(lambda frame: frame.write_csv(), _csv_field(",")),
    "tsv": _with_bytes(lambda frame: frame.write_csv(separator="\t"), _csv_field("\t")),
    "json": _with_bytes(lambda frame: frame.write_json() + "\n", _json_field),
    "jsonl": _with_bytes(lambda frame: frame.write_ndjson(), _json_field),
    "parquet": _write_parquet,
}
BINARY_FORMATS = frozenset({"parquet"})


def _emit(data: str | bytes, output: str | None, option: str = "-o") -> None:
    """Write ``data`` to ``output`` (the path that ``option`` gave), or to stdout (None, ``-``).

    Text holding ids of bytes that are not UTF-8 (as lone surrogates, :func:`id_text`) is
    written as those bytes.
    """
    if isinstance(data, str) and not data.isascii():
        try:
            data.encode()
        except UnicodeEncodeError:
            data = data.encode("utf-8", errors="surrogateescape")
    if output is not None and output != "-":
        write_atomic(output, data, option)  # complete at the destination, or absent
        return
    if isinstance(data, bytes):
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(data)
    sys.stdout.flush()
