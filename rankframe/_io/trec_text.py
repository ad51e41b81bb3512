"""TREC text files (qrels and runs, compressed too), parsed fast, with errors that name the line."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from rankframe._errors import InputError, at
from rankframe._io.columns import LINE, REL, TREC_QRELS_COLS, TREC_RUN_COLS, D, Q, S
from rankframe._io.storage import read_text, scheme

#: Called as ``before_parse(data, path, role, regular)`` with a text input's bytes before they are
#: parsed by Polars' CSV reader (``regular``) or line by line, to refuse one whose parsing cannot
#: fit in memory (Polars aborts the process on an allocation it cannot make): the engine sets it
#: to :func:`rankframe._engine.memory_guard.check_text`.
before_parse: Callable[[bytes, str, str, bool], None] | None = None

_MAGIC = {b"\x1f\x8b": gzip.decompress, b"BZh": bz2.decompress, b"\xfd7zXZ\x00": lzma.decompress}
# Separator bytes for reading a file as one column of whole lines (one absent from the data).
_LINE_SEPARATORS = ("\x1f", "\x1e", "\x1d", "\x1c", "\x01", "\x02")


def _read_bytes(path: str, role: str, storage_options: Mapping[str, Any] | None = None) -> bytes:
    """The file's bytes, decompressed; a clear error for missing, unreadable or empty files.

    A URI (``s3://``, ``gs://``, ``https://``...) is read by Polars with ``storage_options``
    (:func:`rankframe._io.storage.read_text`); the bytes are then parsed as a local file's.
    """
    if scheme(path) not in (None, "file"):
        return _checked(read_text(path, role, storage_options), path, role)
    p = Path(path)
    if not p.exists():
        msg = (
            f"The {role} file {path!r} does not exist (working directory: {os.getcwd()}). "
            "Check the path."
        )
        raise InputError(msg)
    if p.is_dir():
        msg = f"The {role} path {path!r} is a folder; pass a file (or a folder of Parquet files)."
        raise InputError(msg)
    try:
        data = p.read_bytes()
        for magic, decompress in _MAGIC.items():
            if data.startswith(magic):
                data = decompress(data)
                break
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise InputError.unreadable(role, path, exc) from exc
    return _checked(data, path, role)


def _checked(data: bytes, path: str, role: str) -> bytes:
    r"""Refuse an empty file, UTF-16 text, and lines that end with carriage returns alone (classic Mac OS).

    A bare ``\r`` is whitespace to trec_eval: a file of one line feed at most in which a ``\r``
    is followed by more data would be read as one line holding every record, of which the first
    would be kept silently.
    """
    if not data.strip():
        msg = f"The {role} file {path} is empty; it needs one line per {_UNIT[role]}."
        raise InputError(msg)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # a byte order mark: NUL bytes in every field
        msg = (
            f"The {role} file {path} is UTF-16 text (it starts with a byte order mark); rankframe "
            "reads UTF-8. Convert it, e.g. iconv -f UTF-16 -t UTF-8 (Windows PowerShell 5 writes "
            "UTF-16 with '>': use Out-File -Encoding utf8)."
        )
        raise InputError(msg)
    if b"\r" in data and data.count(b"\n", 0, len(data) - 1) == 0 and _CR_RECORD.search(data):
        msg = (
            f"The {role} file {path} ends its lines with carriage returns alone (\\r, classic "
            "Mac OS), so it would be read as one line. Convert the line ends to \\n (e.g. "
            "tr '\\r' '\\n' < old > new)."
        )
        raise InputError(msg)
    return data


#: A carriage return followed by more data on the same line.
_CR_RECORD = re.compile(rb"\r[^\s]")


_UNIT = {
    "qrels": "judgment ('qid iter docno rel')",
    "run": "result ('qid Q0 docno rank score tag')",
    "prefs": "preference ('qid jg jsg docno rel_level')",
}


def _first_data_line(data: bytes) -> tuple[int, bytes] | None:
    """The number and text of the first line that is neither blank nor a comment."""
    start, number = 0, 1
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end]
        if not line.startswith(b"#") and line.strip(b" \t\r\f\v"):
            return number, line
        start, number = end + 1, number + 1
    return None


def _refuse_a_run(data: bytes, path: str) -> None:
    """Refuse qrels whose first data line is a run line (6+ fields, a rank and a score).

    The qrels reader ignores fields after the fourth, so a run given as qrels would otherwise
    be read as judgments graded by rank (trec_eval refuses any qrels line of more than 4 fields).
    """
    first = _first_data_line(data)
    if first is None:
        return
    number, line = first
    fields = line.split()  # ASCII whitespace, as trec_eval's isspace()
    if len(fields) < len(TREC_RUN_COLS):
        return
    try:
        int(fields[3]), float(fields[4])
    except ValueError:
        return
    text = line.decode("utf-8", errors="replace")
    msg = (
        f"{at(path, number)}: a qrels line has 4 fields (qid iter docno rel), found {len(fields)}: "
        f"{text!r}. It looks like a run line (qid Q0 docno rank score tag): are the qrels and the "
        "run swapped?"
    )
    raise InputError(msg)


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _fast_fields(data: bytes, names: tuple[str, ...]) -> pl.DataFrame | None:
    """Parse with the CSV reader when the file is regular: one separator, no comments or blanks.

    Returns None when the file is not regular or any line is short, so that the general path
    (which reports exact line numbers) takes over. Only single-byte searches run on the raw
    bytes (memchr speed); the rest is checked on the parsed columns: a blank line, a doubled or
    leading separator or a short line leaves a null in the first fields, a comment line starts
    the first field with ``#``.
    """
    has_tab, has_space = b"\t" in data, b" " in data
    if has_tab == has_space or b"\x0b" in data or b"\x0c" in data:
        return None
    if data.startswith((b"\n", b"\r")):
        return None
    try:
        df = pl.read_csv(
            data, has_header=False, separator="\t" if has_tab else " ",
            quote_char=None, new_columns=list(names), infer_schema=False,
            truncate_ragged_lines=True, extra_columns="ignore", raise_if_empty=False,
        )
    except (pl.exceptions.PolarsError, ValueError):
        return None
    if df.width != len(names) or df.height == 0:
        return None
    irregular = pl.any_horizontal(pl.all().is_null()).any()
    if b"#" in data:
        irregular = irregular | pl.col(names[0]).str.starts_with("#").any()
    if df.select(irregular).item():
        return None
    return df.with_row_index(LINE, offset=1)


def _lines(data: bytes, path: str, role: str) -> pl.DataFrame:
    """The file as ``line_no, line`` (1-based, every physical line kept, blank ones null)."""
    sep = next((s for s in _LINE_SEPARATORS if s.encode() not in data), None)
    lines = None
    if sep is not None:
        try:
            lines = pl.read_csv(
                data, has_header=False, separator=sep, quote_char=None,
                new_columns=["line"], infer_schema=False, raise_if_empty=False,
                encoding="utf8-lossy",
            )
        except pl.exceptions.PolarsError:
            lines = None
    if lines is None or lines.height != _count_lines(data):
        # Unusual bytes or a reader that merged lines: split in Python (exact, slower).
        text = data.decode("utf-8", errors="replace").split("\n")
        if text and text[-1] == "":
            text.pop()
        lines = pl.DataFrame({"line": text}, schema={"line": pl.String})
    if lines.height != _count_lines(data):  # pragma: no cover - defensive
        msg = f"Cannot split the {role} file {path} into lines."
        raise InputError(msg)
    return lines.with_row_index(LINE, offset=1)


def _split_fields(data: bytes, names: tuple[str, ...], path: str, role: str) -> pl.DataFrame:
    """``line_no`` and the first ``len(names)`` whitespace-separated fields of every data line.

    Lines whose first byte is ``#`` are comments (trec_eval 10); a ``#`` inside a field is data.
    Blank lines are skipped; fields after the last named one are ignored.
    """
    if before_parse is not None:
        before_parse(data, path, role, True)
    fast = _fast_fields(data, names)
    if fast is not None:
        return fast
    if before_parse is not None:
        before_parse(data, path, role, False)
    n = len(names)
    body = _lines(data, path, role).filter(
        pl.col("line").is_not_null()
        & ~pl.col("line").str.starts_with("#")
        & (pl.col("line").str.strip_chars(" \t\r\f\v") != "")
    )
    if body.height == 0:
        msg = (
            f"The {role} file {path} holds no data lines (only comments or blank lines); "
            f"it needs one line per {_UNIT[role]}."
        )
        raise InputError(msg)
    ws = r"[ \t\r\f\v]"  # trec_eval's isspace(), ASCII only
    pattern = f"^{ws}*" + f"{ws}+".join([r"([^ \t\r\f\v]+)"] * n) + f"(?:{ws}|$)"
    fields = body.with_columns(pl.col("line").str.extract_groups(pattern).alias("_f"))
    bad = fields.filter(pl.col("_f").struct.field("1").is_null())
    if bad.height:
        row = bad.row(0, named=True)
        found = len(row["line"].split())
        swapped = " It looks like a qrels line: are the qrels and the run swapped?" if (
            role == "run" and found == len(TREC_QRELS_COLS)
        ) else ""
        msg = (
            f"{at(path, row[LINE])}: expected at least {n} whitespace-separated fields "
            f"({' '.join(names)}), found {found}: {row['line']!r}. Fix or remove the line "
            f"(lines starting with '#' are comments).{swapped}"
        )
        raise InputError(msg)
    return fields.select(
        LINE, *[pl.col("_f").struct.field(str(i + 1)).alias(name) for i, name in enumerate(names)]
    )


def _to_number(df: pl.DataFrame, col: str, dtype: pl.DataType, path: str, what: str) -> pl.DataFrame:
    num = pl.col(col).cast(dtype, strict=False)
    if dtype.is_integer():
        # Accept integral decimals such as "1.0" (trec_eval reads grades with atol).
        as_float = pl.col(col).cast(pl.Float64, strict=False)
        whole = as_float.is_finite() & (as_float == as_float.round())
        num = pl.coalesce(num, pl.when(whole).then(as_float.cast(dtype, strict=False)))
    converted = df.with_columns(num.alias("_num"))
    bad = converted.filter(pl.col("_num").is_null())
    if bad.height:
        row = bad.row(0, named=True)
        kind = "an integer" if dtype.is_integer() else "a number"
        msg = (
            f"{at(path, row[LINE])}: the {what} {row[col]!r} is not {kind}"
            f"{' (grades are integers such as 0, 1, 2 or -1)' if dtype.is_integer() else ''}. "
            "Fix the line or check the column order (query, iteration, document, ...)."
        )
        raise InputError(msg)
    return converted.with_columns(pl.col("_num").alias(col)).drop("_num")


def read_trec_qrels(
    path: str | os.PathLike[str], storage_options: Mapping[str, Any] | None = None
) -> pl.LazyFrame:
    """Read a TREC qrels file (``qid iter docno rel``; ``iter`` and extra fields are ignored).

    Returns ``query_id, doc_id`` (String), ``relevance`` (Int64) and ``line_no``. A URI is read
    with ``storage_options`` (credentials, region, endpoint).
    """
    path = os.fspath(path)
    data = _read_bytes(path, "qrels", storage_options)
    _refuse_a_run(data, path)
    df = _split_fields(data, TREC_QRELS_COLS, path, "qrels")
    df = _to_number(df, REL, pl.Int64, path, "relevance grade")
    return df.select(Q, D, REL, LINE).lazy()


def read_trec_run(
    path: str | os.PathLike[str], storage_options: Mapping[str, Any] | None = None
) -> pl.LazyFrame:
    """Read a TREC run file (``qid iter docno rank score tag``; rank and extra fields ignored).

    Returns ``query_id, doc_id`` (String), ``score`` (Float64), ``run_tag`` and ``line_no``. A
    URI is read with ``storage_options`` (credentials, region, endpoint).
    """
    path = os.fspath(path)
    df = _split_fields(_read_bytes(path, "run", storage_options), TREC_RUN_COLS, path, "run")
    df = _to_number(df, S, pl.Float64, path, "score")
    return df.select(Q, D, S, "run_tag", LINE).lazy()
