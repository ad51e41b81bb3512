"""Tabular files as the readers scan them: CSV/TSV files and globs, Parquet globs and folders.

CSV/TSV ids are read as text where a number would change one (``007``); a glob of daily CSV
files is read file by file; Parquet files whose numeric widths differ are read at the widest.
:mod:`rankframe._io.readers` picks the reader by a path's name.
"""

from __future__ import annotations

import glob as globlib
import gzip
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from rankframe._errors import InputError
from rankframe._io.columns import FILE, LINE, D, Q, source_column
from rankframe._io.storage import scheme, suffixes
from rankframe._io.trec_text import is_utf8, is_utf8_file, latin1_bytes

#: Given a table's column names, those that hold ids (read as text from CSV/TSV).
IdColumns = Callable[[Sequence[str]], list[str]]


def id_columns(needed: tuple[str, ...], columns: Mapping[str, str] | None) -> IdColumns:
    """The columns that become ``query_id`` / ``doc_id`` (as the mapping, then well-known names)."""
    mapping = columns if isinstance(columns, Mapping) else {}

    def find(names: Sequence[str]) -> list[str]:
        found = (source_column(names, canon, mapping) for canon in (Q, D) if canon in needed)
        return [src for src in found if src in names]

    return find


def _csv_header(path: str, separator: str, options: Mapping[str, Any] | None) -> list[str]:
    """A CSV/TSV file's column names (its header only; [] if it cannot be read here)."""
    if scheme(path) is None and not os.path.isfile(path):
        return []  # a pipe or a device is refused by the caller, unread
    try:
        head = pl.read_csv(path, separator=separator, n_rows=0, infer_schema=False,
                           storage_options=options, raise_if_empty=False)
    except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError):
        return []  # the scan below says what is wrong
    return head.columns


#: An integer written as Polars writes it back: ``7``, ``-12``; not ``007``, ``+7``, `` 7``.
_INTEGER_TEXT = r"^(0|-?[1-9][0-9]{0,17})$"
#: What Polars' CSV reader takes for an integer: digits with a sign or leading zeros too.
_INTEGER_LIKE = r"^[+-]?[0-9]+$"


def _not_integer_text(lf: pl.LazyFrame, columns: Sequence[str]) -> list[str]:
    """Those of the (text) ``columns`` with a value read as an integer that would not come back.

    ``007``, ``+7``, ``-0`` and integers past 18 digits: read as numbers, they would be
    another id (``7``) or a float.
    """
    if not columns:
        return []
    row = lf.select(
        (pl.col(c).str.contains(_INTEGER_LIKE) & ~pl.col(c).str.contains(_INTEGER_TEXT)).any().alias(c)
        for c in columns
    ).collect().row(0)
    return [c for c, lossy in zip(columns, row, strict=True) if lossy]


def _ints_back(frame: pl.DataFrame, text: Sequence[str]) -> pl.DataFrame:
    """Id columns read as text: as inference types them, unless a value would be another id.

    Every value an integer's own text: Int64; every value a number: Float64 (which the dtype
    checks refuse for ids, as for a file read lazily); else text.
    """
    strings = [c for c in text if frame.schema[c] == pl.String and frame[c].drop_nulls().len()]
    lossy = set(_not_integer_text(frame.lazy(), strings))
    casts = []
    for c in strings:
        values = frame[c].drop_nulls()
        if c in lossy:
            continue
        if values.str.contains(_INTEGER_TEXT).all():
            casts.append(pl.col(c).cast(pl.Int64))
        elif values.cast(pl.Float64, strict=False).null_count() == 0:
            casts.append(pl.col(c).cast(pl.Float64))
    return frame.with_columns(casts)


def _scan_csv(
    path: str,
    separator: str,
    compressed: bool,
    storage_options: Mapping[str, Any] | None = None,
    ids: IdColumns | None = None,
) -> pl.LazyFrame:
    """A CSV/TSV file; its id columns (``ids``) are text where an integer would change one.

    trec_eval compares ids as text: ``007`` and ``7`` are two queries. A column of ids that
    are all integers' own text (``7``, ``12``) stays an integer column, as in Parquet.
    """
    options: dict[str, Any] = {
        "separator": separator,
        "infer_schema_length": None,  # look at every row: a late "abc" makes the column String
        "row_index_name": LINE,
        "row_index_offset": 2,  # the header is line 1
    }
    if storage_options is not None:
        options["storage_options"] = storage_options
    text = ids(_csv_header(path, separator, storage_options)) if ids is not None else []
    eager = {**options, "schema_overrides": dict.fromkeys(text, pl.String)} if text else options
    local = scheme(path) is None and not any(c in path for c in "*?[")
    if local and not compressed and os.path.isfile(path) and not is_utf8_file(path):
        return _ints_back(_read_csv_bytes(path, eager), text).lazy()
    if compressed:
        try:
            return _ints_back(pl.read_csv(path, **eager), text).lazy()
        except pl.exceptions.ComputeError as exc:
            if local and "utf-8" in str(exc).lower() and suffixes(path)[-1] == ".gz":
                return _ints_back(_read_csv_bytes(path, eager), text).lazy()
            raise
    if text:
        probe = {"separator": separator, "infer_schema": False, "storage_options": storage_options}
        try:
            lossy = _not_integer_text(pl.scan_csv(path, **probe), text)
        except (pl.exceptions.PolarsError, OSError):
            lossy = []  # a malformed file: the scan below names the failure
        if lossy:
            options["schema_overrides"] = dict.fromkeys(lossy, pl.String)
    return pl.scan_csv(path, **options)


def _read_csv_bytes(path: str, options: Mapping[str, Any]) -> pl.DataFrame:
    """A CSV/TSV file that is not UTF-8: its text columns keep their bytes where they are not UTF-8.

    Polars reads UTF-8 only; the file is read as Latin-1 (one character per byte, the
    separators and quotes unchanged), then each text column is given back its bytes: a column
    holding bytes that are not UTF-8 becomes Binary (ids as trec_eval reads them), the
    others stay String.
    """
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    frame = pl.read_csv(data.decode("latin-1").encode(), **options)
    columns = []
    for name, dtype in frame.schema.items():
        if dtype != pl.String:
            continue
        if frame[name].str.contains(r"[^\x00-\x7F]").any():
            raw = latin1_bytes(frame[name])  # a line feed between values: no sequence spans two
            columns.append(raw if not is_utf8(b"\n".join(raw.drop_nulls())) else raw.cast(pl.String))
    return frame.with_columns(columns)


def _widest(dtypes: Sequence[pl.DataType]) -> pl.DataType | None:
    """The dtype that holds every one of ``dtypes`` (numbers only), or None."""
    if all(dt.is_integer() for dt in dtypes):
        return pl.Int64 if any(dt.is_signed_integer() for dt in dtypes) else pl.UInt64
    if all(dt.is_numeric() for dt in dtypes):
        return pl.Float64
    return None


def _common_schema(path: str) -> dict[str, pl.DataType] | None:
    """The schema that holds local Parquet files (a glob) whose numeric columns differ in width.

    Int32 clicks one day, Int64 the next: each column at its widest. None when the files
    agree, or differ otherwise (Polars then says how).
    """
    files = sorted(globlib.glob(path, recursive=True)) if any(c in path for c in "*?[") else []
    if len(files) < 2:
        return None
    try:
        schemas = [pl.read_parquet_schema(f) for f in files]
    except (pl.exceptions.PolarsError, OSError):
        return None  # the scan names the file that is not Parquet
    first = schemas[0]
    if all(s == first for s in schemas) or any(set(s) != set(first) for s in schemas):
        return None
    common: dict[str, pl.DataType] = {}
    for name in first:
        dtypes = list({s[name] for s in schemas})
        widest = dtypes[0] if len(dtypes) == 1 else _widest(dtypes)
        if widest is None:
            return None
        common[name] = widest
    return common


def _scan_parquet(path: str, options: Mapping[str, Any] | None) -> pl.LazyFrame:
    """A Parquet file, glob or folder (hive partitions).

    Local files of differing integer or float widths are read at the widest (a day of Int32
    clicks beside Int64 ones).
    """
    if scheme(path) is None:
        common = _common_schema(path)
        if common is not None:
            upcast = pl.ScanCastOptions(integer_cast="upcast", float_cast="upcast")
            return pl.scan_parquet(path, hive_partitioning=True, schema=common, cast_options=upcast)
    return pl.scan_parquet(path, hive_partitioning=True, storage_options=options)


def _has_rows(path: str, separator: str) -> bool:
    """Whether a CSV/TSV file holds a row after its header (True if it cannot be read here)."""
    try:
        return pl.read_csv(path, separator=separator, n_rows=1, infer_schema=False,
                           raise_if_empty=False).height > 0
    except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError):
        return True  # the scan names the failure


def _scan_csv_glob(path: str, separator: str, kind: str, ids: IdColumns | None) -> pl.LazyFrame:
    """The local CSV/TSV files that a glob names (e.g. one a day), read one by one, in one frame.

    Each file is read as :func:`_scan_csv` reads it (its own compression and encoding); their
    columns must be the same (in any order), else an :class:`InputError` names the two files.
    Line numbers (``line_no``) are each file's own; with several files, ``line_file`` names
    the file (errors name it; ``dedupe="first"`` keeps the first row in the files' order).
    """
    files = sorted(f for f in globlib.glob(path, recursive=True) if os.path.isfile(f))
    if not files:
        msg = f"No file matches the {kind} pattern {path!r} (working directory: {os.getcwd()})."
        raise InputError(msg)
    first = _csv_header(files[0], separator, None)
    for other in files[1:]:
        names = _csv_header(other, separator, None)
        if names and first and set(names) != set(first):
            missing = [c for c in first if c not in names]
            extra = [c for c in names if c not in first]
            msg = (
                f"The {kind} files of {path!r} do not hold the same columns: {other!r} "
                + (f"lacks {', '.join(map(repr, missing))}" if missing else "")
                + (" and " if missing and extra else "")
                + (f"has {', '.join(map(repr, extra))} too" if extra else "")
                + f", against {files[0]!r}. Write every file with the same columns."
            )
            raise InputError(msg)
    # a day without impressions: its header alone would type every column as text
    files = [f for f in files if _has_rows(f, separator)] or files[:1]
    frames = []
    named = pl.Enum(files) if len(files) > 1 else None  # (FILE: which file a line is of)
    for f in files:
        compressed = suffixes(f)[-1] in (".gz", ".bz2", ".xz", ".zst")
        frame = _scan_csv(f, separator, compressed, None, ids)
        frame = frame.select(first + [LINE]) if first else frame
        frames.append(frame if named is None else frame.with_columns(pl.lit(f, dtype=named).alias(FILE)))
    return pl.concat(frames, how="vertical_relaxed")
