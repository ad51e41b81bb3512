"""Readers: every input ends in the same canonical LazyFrames.

qrels -> ``query_id, doc_id, relevance`` (+ extra columns); run -> ``query_id, doc_id, score``
(+ ``run`` and breakdown columns). Sources: TREC text files (``.gz``, ``.bz2``, ``.xz`` too),
Parquet (file, glob, folder with hive partitions), CSV/TSV, Arrow IPC, Arrow tables and datasets,
Polars DataFrame/LazyFrame, pandas.

Text sources (TREC, CSV/TSV) carry a ``line_no`` column with the real line number in the file,
so that validation errors can name the line; it is dropped by projection pushdown everywhere
else.
"""

from __future__ import annotations

import bz2
import glob as globlib
import gzip
import lzma
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rankframe._errors import InputError, at

Q, D, S, REL = "query_id", "doc_id", "score", "relevance"
LINE = "line_no"

#: Well-known column names, tried in order (then case-insensitively), for each canonical column.
DEFAULT_NAMES: dict[str, tuple[str, ...]] = {
    Q: ("query_id", "qid", "query", "topic", "q_id", "queryid", "topic_id", "query-id"),
    D: (
        "doc_id", "docno", "docid", "doc", "pid", "document_id", "item_id", "passage_id",
        "corpus_id", "corpus-id",
    ),
    REL: ("relevance", "rel", "label", "grade", "judgment", "judgement", "qrel", "target"),
    S: ("score", "sim", "similarity", "prediction", "pred", "rank_score"),
}

TREC_QRELS_COLS = (Q, "iteration", D, REL)
TREC_RUN_COLS = (Q, "iteration", D, "rank", S, "run_tag")

Source = Any  # str | os.PathLike | pl.DataFrame | pl.LazyFrame | pa.Table | pd.DataFrame

_MAGIC = {b"\x1f\x8b": gzip.decompress, b"BZh": bz2.decompress, b"\xfd7zXZ\x00": lzma.decompress}
# Separator bytes for reading a file as one column of whole lines (one absent from the data).
_LINE_SEPARATORS = ("\x1f", "\x1e", "\x1d", "\x1c", "\x01", "\x02")


def _is_pathlike(source: Source) -> bool:
    return isinstance(source, str | os.PathLike)


def describe(source: Source, role: str) -> str:
    """Name a source in messages: its path, or ``"the run DataFrame"``."""
    if _is_pathlike(source):
        return os.fspath(source)
    kind = type(source).__name__
    mod = type(source).__module__.split(".")[0]
    if mod in ("pandas", "pyarrow"):
        kind = f"{mod} {kind}"
    return f"the {role} {kind}"


# --------------------------------------------------------------------------------------------
# TREC text
# --------------------------------------------------------------------------------------------


def _read_bytes(path: str, role: str) -> bytes:
    """The file's bytes, decompressed; a clear error for missing, unreadable or empty files."""
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
    if not data.strip():
        msg = f"The {role} file {path} is empty; it needs one line per {_UNIT[role]}."
        raise InputError(msg)
    return data


_UNIT = {"qrels": "judgment ('qid iter docno rel')", "run": "result ('qid Q0 docno rank score tag')"}


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
    fast = _fast_fields(data, names)
    if fast is not None:
        return fast
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


def read_trec_qrels(path: str | os.PathLike[str]) -> pl.LazyFrame:
    """Read a TREC qrels file (``qid iter docno rel``; ``iter`` and extra fields are ignored).

    Returns ``query_id, doc_id`` (String), ``relevance`` (Int64) and ``line_no``.
    """
    path = os.fspath(path)
    df = _split_fields(_read_bytes(path, "qrels"), TREC_QRELS_COLS, path, "qrels")
    df = _to_number(df, REL, pl.Int64, path, "relevance grade")
    return df.select(Q, D, REL, LINE).lazy()


def read_trec_run(path: str | os.PathLike[str]) -> pl.LazyFrame:
    """Read a TREC run file (``qid iter docno rank score tag``; rank and extra fields ignored).

    Returns ``query_id, doc_id`` (String), ``score`` (Float64), ``run_tag`` and ``line_no``.
    """
    path = os.fspath(path)
    df = _split_fields(_read_bytes(path, "run"), TREC_RUN_COLS, path, "run")
    df = _to_number(df, S, pl.Float64, path, "score")
    return df.select(Q, D, S, "run_tag", LINE).lazy()


# --------------------------------------------------------------------------------------------
# Tabular files and in-memory frames
# --------------------------------------------------------------------------------------------


def _suffixes(path: str) -> list[str]:
    return [s.lower() for s in Path(path).suffixes]


def _scan_csv(path: str, separator: str, compressed: bool) -> pl.LazyFrame:
    options: dict[str, Any] = {
        "separator": separator,
        "infer_schema_length": None,  # look at every row: a late "abc" makes the column String
        "row_index_name": LINE,
        "row_index_offset": 2,  # the header is line 1
    }
    if compressed:
        return pl.read_csv(path, **options).lazy()
    return pl.scan_csv(path, **options)


def _scan_path(path: str, kind: str) -> tuple[pl.LazyFrame, str]:
    """Scan a file, glob or folder; return the frame and a description of the format."""
    sfx = _suffixes(path)
    is_glob = any(c in path for c in "*?[")
    if is_glob:
        if not globlib.glob(path, recursive=True):
            msg = f"No file matches the {kind} pattern {path!r} (working directory: {os.getcwd()})."
            raise InputError(msg)
    elif not os.path.exists(path):
        msg = f"The {kind} file {path!r} does not exist (working directory: {os.getcwd()}). Check the path."
        raise InputError(msg)
    if os.path.isdir(path):
        target = os.path.join(path, "**", "*.parquet")
        if not globlib.glob(target, recursive=True):
            msg = f"The {kind} folder {path!r} holds no '*.parquet' file."
            raise InputError(msg)
        return pl.scan_parquet(target, hive_partitioning=True), "parquet"
    compressed = bool(sfx) and sfx[-1] in (".gz", ".bz2", ".xz", ".zst")
    if is_glob or ".parquet" in sfx or ".pq" in sfx:
        return pl.scan_parquet(path, hive_partitioning=True), "parquet"
    if ".csv" in sfx:
        return _scan_csv(path, ",", compressed), "csv"
    if ".tsv" in sfx:
        return _scan_csv(path, "\t", compressed), "tsv"
    if ".arrow" in sfx or ".ipc" in sfx or ".feather" in sfx:
        return pl.scan_ipc(path), "ipc"
    if kind == "qrels":
        return read_trec_qrels(path), "trec"
    if kind == "run":
        return read_trec_run(path), "trec"
    msg = (
        f"Cannot read a {kind} frame from {path!r}: a {kind} frame holds scores and grades in one "
        "table, so it needs a tabular format (.parquet, .csv, .tsv, .arrow/.ipc), not TREC text."
    )
    raise InputError(msg)


def _to_lazy(source: Source, kind: str) -> tuple[pl.LazyFrame, str]:
    if isinstance(source, pl.LazyFrame):
        return source, "LazyFrame"
    if isinstance(source, pl.DataFrame):
        return source.lazy(), "DataFrame"
    if _is_pathlike(source):
        try:
            return _scan_path(os.fspath(source), kind)
        except (pl.exceptions.PolarsError, OSError) as exc:
            raise InputError.unreadable(kind, os.fspath(source), exc) from exc
    mod = type(source).__module__.split(".")[0]
    try:
        if mod == "pyarrow" and type(source).__module__ == "pyarrow._dataset":
            return pl.scan_pyarrow_dataset(source), "Arrow dataset"
        if mod == "pyarrow":
            frame = pl.from_arrow(source)
            if isinstance(frame, pl.DataFrame):
                return frame.lazy(), "Arrow table"
        if mod == "pandas" and type(source).__name__ == "DataFrame":
            return pl.from_pandas(source).lazy(), "pandas DataFrame"
    except Exception as exc:  # noqa: BLE001 - any conversion failure becomes one clear error
        raise InputError.unreadable(kind, describe(source, kind), exc) from exc
    msg = (
        f"Cannot read {kind} from a {type(source).__name__} object. Pass a path (TREC text, Parquet, "
        "CSV/TSV, Arrow IPC), a Polars DataFrame/LazyFrame, an Arrow table or a pandas DataFrame."
    )
    raise InputError(msg)


def column_renames(
    names: Sequence[str],
    needed: tuple[str, ...],
    mapping: Mapping[str, str] | None,
    kind: str,
    where: str,
) -> tuple[dict[str, str], list[str]]:
    """Which columns become the canonical ``needed`` ones: ``({actual: canonical}, clashing)``.

    ``mapping`` (canonical -> actual) first, then the well-known names (any case). ``clashing``:
    columns already named like a canonical column that another column is renamed to (dropped).
    Raises :class:`InputError` naming the missing columns and the available ones.
    """
    mapping = dict(mapping or {})
    unknown = [k for k in mapping if k not in DEFAULT_NAMES]
    if unknown:
        msg = (
            f"Unknown canonical column {unknown[0]!r} in the {kind} column mapping; the keys are "
            f"canonical names ({', '.join(map(repr, DEFAULT_NAMES))}) and the values your column "
            f"names, e.g. {{'query_id': 'qid'}}."
        )
        raise InputError(msg)
    rename: dict[str, str] = {}
    missing: list[str] = []
    for canon in needed:
        if canon in mapping:
            src = mapping[canon]
            if src not in names:
                raise InputError.missing_columns(kind, [src], names, where)
        else:
            src = next((c for c in DEFAULT_NAMES[canon] if c in names), None)
            if src is None:
                lowered = {n.lower(): n for n in names}
                src = next((lowered[c] for c in DEFAULT_NAMES[canon] if c in lowered), None)
            if src is None or src in rename:
                missing.append(canon)
                continue
        rename[src] = canon
    if missing:
        tried = [c for m in missing for c in DEFAULT_NAMES[m]]
        raise InputError.missing_columns(kind, missing, names, where, tried=tried)
    clash = [c for c in rename.values() if c in names and c not in rename]
    return rename, clash


def _map_columns(
    lf: pl.LazyFrame,
    needed: tuple[str, ...],
    mapping: Mapping[str, str] | None,
    kind: str,
    where: str,
) -> pl.LazyFrame:
    try:
        names = lf.collect_schema().names()
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError.unreadable(kind, where, exc) from exc
    rename, clash = column_renames(names, needed, mapping, kind, where)
    lf = lf.drop(clash) if clash else lf
    return lf.rename({k: v for k, v in rename.items() if k != v})


def _read(
    source: Source, kind: str, needed: tuple[str, ...], columns: Mapping[str, str] | None
) -> pl.LazyFrame:
    lf, _ = _to_lazy(source, kind)
    return _map_columns(lf, needed, columns, kind, describe(source, kind))


def read_qrels(source: Source, *, columns: Mapping[str, str] | None = None) -> pl.LazyFrame:
    """Read judgments into a LazyFrame with ``query_id, doc_id, relevance``.

    Parameters
    ----------
    source
        A path (TREC qrels text, ``.gz``, Parquet file/glob/folder, CSV, TSV, Arrow IPC), a Polars
        DataFrame or LazyFrame, an Arrow table or a pandas DataFrame.
    columns
        Map canonical name -> column name, e.g. ``{"query_id": "qid", "relevance": "label"}``;
        well-known names (``qid``, ``docno``, ``rel``, ``label``...) are recognised without it.

    Returns
    -------
    polars.LazyFrame
        ``query_id``, ``doc_id``, ``relevance`` and any extra columns. TREC text gives string
        ids, Int64 grades and ``line_no`` (the line in the file); other sources keep their dtypes
        (integer ids stay integers).

    Examples
    --------
    >>> import polars as pl
    >>> read_qrels(pl.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [2]})).collect().columns
    ['query_id', 'doc_id', 'relevance']
    """
    return _read(source, "qrels", (Q, D, REL), columns)


def read_run(source: Source, *, columns: Mapping[str, str] | None = None) -> pl.LazyFrame:
    """Read a run into a LazyFrame with ``query_id, doc_id, score`` (+ ``run`` if present).

    Parameters
    ----------
    source
        A path (TREC run text, ``.gz``, Parquet file/glob/folder, CSV, TSV, Arrow IPC), a Polars
        DataFrame or LazyFrame, an Arrow table or a pandas DataFrame.
    columns
        Map canonical name -> column name, e.g. ``{"query_id": "qid", "score": "sim"}``.

    Returns
    -------
    polars.LazyFrame
        ``query_id``, ``doc_id``, ``score`` and any extra columns (``run`` names the system).
        TREC text gives string ids, Float64 scores, ``run_tag`` (trec_eval's run name, which is
        not a ``run`` column) and ``line_no``.

    Examples
    --------
    >>> import polars as pl
    >>> read_run(pl.DataFrame({"qid": ["1"], "docno": ["d"], "sim": [0.5]})).collect().columns
    ['query_id', 'doc_id', 'score']
    """
    return _read(source, "run", (Q, D, S), columns)


def read_judged(source: Source, *, columns: Mapping[str, str] | None = None) -> pl.LazyFrame:
    """Read a judged frame (score and relevance in one table).

    Parameters
    ----------
    source
        A tabular path (Parquet file/glob/folder, CSV, TSV, Arrow IPC), a Polars DataFrame or
        LazyFrame, an Arrow table or a pandas DataFrame.
    columns
        Map canonical name -> column name, e.g. ``{"score": "pred", "relevance": "clicks"}``.

    Returns
    -------
    polars.LazyFrame
        ``query_id``, ``doc_id``, ``score``, ``relevance`` and any extra columns. A null score
        means "judged but not retrieved", a null relevance "retrieved but unjudged".

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"qid": ["1"], "docno": ["d"], "score": [0.5], "label": [1]})
    >>> read_judged(df).collect().columns
    ['query_id', 'doc_id', 'score', 'relevance']
    """
    return _read(source, "judged", (Q, D, S, REL), columns)
