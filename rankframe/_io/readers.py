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

import glob as globlib
import gzip
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from rankframe._errors import InputError
from rankframe._io.columns import (
    DEFAULT_NAMES,
    LINE,
    REL,
    D,
    Q,
    S,
    Source,
    _is_pathlike,
    _map_columns,
    describe,
    own_columns,
)
from rankframe._io.ecosystem import is_foreign, resolve
from rankframe._io.storage import (
    StoragePath,
    checked,
    file_uri_path,
    guard,
    iceberg_folder,
    is_delta,
    is_iceberg_metadata,
    is_iceberg_table,
    may_be_folder,
    parquet_folder,
    scan_delta,
    scan_iceberg,
    scheme,
    suffixes,
    with_storage,
)
from rankframe._io.trec_text import is_utf8, is_utf8_file, latin1_bytes, read_trec_qrels, read_trec_run

#: Given a table's column names, those that hold ids (read as text from CSV/TSV).
IdColumns = Callable[[Sequence[str]], list[str]]


def id_columns(needed: tuple[str, ...], columns: Mapping[str, str] | None) -> IdColumns:
    """The columns that become ``query_id`` / ``doc_id`` (as the mapping, then well-known names)."""
    mapping = columns if isinstance(columns, Mapping) else {}

    def find(names: Sequence[str]) -> list[str]:
        lowered = {n.lower(): n for n in names}
        found = []
        for canon in (Q, D):
            if canon not in needed:
                continue
            src = mapping.get(canon)
            if src is None:
                src = next((c for c in DEFAULT_NAMES[canon] if c in names), None)
                if src is None:
                    src = next((lowered[c] for c in DEFAULT_NAMES[canon] if c in lowered), None)
            if src in names:
                found.append(src)
        return found

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
    Line numbers (``line_no``) are each file's own.
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
    for f in files:
        compressed = suffixes(f)[-1] in (".gz", ".bz2", ".xz", ".zst")
        frame = _scan_csv(f, separator, compressed, None, ids)
        frames.append(frame.select(first + [LINE]) if first else frame)
    return pl.concat(frames, how="vertical_relaxed")


def _scan_file(
    path: str, kind: str, options: Mapping[str, Any] | None, ids: IdColumns | None = None
) -> tuple[pl.LazyFrame, str] | None:
    """A tabular file or glob, local or a URI, by its name's suffix; None for other names."""
    sfx = suffixes(path)
    compressed = bool(sfx) and sfx[-1] in (".gz", ".bz2", ".xz", ".zst")
    if is_iceberg_metadata(path):
        return scan_iceberg(path, options, kind, path), "iceberg"
    is_glob = any(c in path for c in "*?[")
    if is_glob and scheme(path) is None and (".csv" in sfx or ".tsv" in sfx):
        fmt = "csv" if ".csv" in sfx else "tsv"
        return _scan_csv_glob(path, "," if fmt == "csv" else "\t", kind, ids), fmt
    if is_glob or ".parquet" in sfx or ".pq" in sfx:
        return _scan_parquet(path, options), "parquet"
    if ".csv" in sfx:
        return _scan_csv(path, ",", compressed, options, ids), "csv"
    if ".tsv" in sfx:
        return _scan_csv(path, "\t", compressed, options, ids), "tsv"
    if ".arrow" in sfx or ".ipc" in sfx or ".feather" in sfx:
        return pl.scan_ipc(path, storage_options=options), "ipc"
    return None


def _scan_text(path: str, kind: str, options: Mapping[str, Any] | None) -> tuple[pl.LazyFrame, str]:
    """TREC text: qrels or a run; a judged frame needs a table."""
    if kind in ("qrels", "interactions"):  # interactions as TREC qrels: user 0 item weight
        return read_trec_qrels(path, options), "trec"
    if kind in ("run", "reference"):
        return read_trec_run(path, options), "trec"
    msg = (
        f"Cannot read a {kind} frame from {path!r}: a {kind} frame holds scores and grades in one "
        "table, so it needs a tabular format (.parquet, .csv, .tsv, .arrow/.ipc, a folder of "
        "Parquet files, a Delta or Iceberg table), not TREC text."
    )
    raise InputError(msg)


def _scan_uri(
    path: str, kind: str, options: Mapping[str, Any] | None, ids: IdColumns | None = None
) -> tuple[pl.LazyFrame, str]:
    """Scan a URI (``s3://``, ``gs://``, ``az://``, ``hf://``, ``https://``...) with Polars.

    The format comes from the name; a name without a file suffix (or ending with ``/``) is
    looked at: a Delta table, else a folder of Parquet files, else a TREC text file. The
    schema is read here, so that a missing object or bad credentials fail clearly.
    """
    with guard(kind, path):
        found = _scan_file(path, kind, options, ids)
        if found is not None:
            return checked(found[0], kind, path), found[1]
        if may_be_folder(path):
            if is_delta(path, options, kind):
                return scan_delta(path, options, kind), "delta"
            folder = parquet_folder(path, options, kind)
            if folder is not None:
                return folder, "parquet"
    return _scan_text(path, kind, options)


def _scan_path(
    path: str, kind: str, storage_options: Mapping[str, Any] | None = None, ids: IdColumns | None = None
) -> tuple[pl.LazyFrame, str]:
    """Scan a file, glob, folder or URI; return the frame and a description of the format.

    ``storage_options`` apply to URIs (credentials, region, endpoint), which Polars reads.
    ``ids`` names the id columns that a CSV/TSV file gives as text (not inferred as numbers).
    """
    path = file_uri_path(path)
    if scheme(path) is not None:
        return _scan_uri(path, kind, storage_options, ids)
    if any(c in path for c in "*?["):
        if not globlib.glob(path, recursive=True):
            msg = f"No file matches the {kind} pattern {path!r} (working directory: {os.getcwd()})."
            raise InputError(msg)
    elif not os.path.exists(path):
        msg = f"The {kind} file {path!r} does not exist (working directory: {os.getcwd()}). Check the path."
        raise InputError(msg)
    if os.path.isdir(path):
        if is_delta(path, None, kind):
            return scan_delta(path, None, kind), "delta"
        if iceberg_folder(path):
            msg = (
                f"The {kind} folder {path!r} looks like an Apache Iceberg table: pass its current "
                "metadata file (.../metadata/*.metadata.json) or a pyiceberg Table object; its data "
                "files alone may hold deleted or replaced rows."
            )
            raise InputError(msg)
        target = os.path.join(path, "**", "*.parquet")
        if not globlib.glob(target, recursive=True):
            msg = f"The {kind} folder {path!r} holds no '*.parquet' file."
            for ext in ("csv", "tsv", "csv.gz", "tsv.gz"):
                if globlib.glob(os.path.join(path, f"*.{ext}")):  # CSV files are named by a glob
                    msg += f" For its .{ext} files, give a glob: {os.path.join(path, f'*.{ext}')!r}."
                    break
            raise InputError(msg)
        return _scan_parquet(target, None), "parquet"
    found = _scan_file(path, kind, None, ids)
    if found is None:
        return _scan_text(path, kind, None)
    if not any(c in path for c in "*?[") and not os.path.isfile(path):
        msg = (
            f"The {kind} path {path!r} is not a regular file (a pipe, a device or a socket): "
            f"{found[1].upper()} is read from files only (it is read more than once, or mapped). "
            "Save it to a file first; TREC text may come through a pipe (e.g. /dev/stdin)."
        )
        raise InputError(msg)
    return found


def _to_lazy(source: Source, kind: str, ids: IdColumns | None = None) -> tuple[pl.LazyFrame, str]:
    if isinstance(source, StoragePath):  # a path with storage options (rankframe._io.storage)
        return _scan_path(source.path, kind, source.options, ids)
    if is_iceberg_table(source):
        return scan_iceberg(source, None, kind, describe(source, kind)), "Iceberg table"
    if isinstance(source, pl.LazyFrame):
        return source, "LazyFrame"
    if isinstance(source, pl.DataFrame):
        return source.lazy(), "DataFrame"
    if _is_pathlike(source):
        try:
            return _scan_path(os.fspath(source), kind, None, ids)
        except (pl.exceptions.PolarsError, OSError) as exc:
            raise InputError.unreadable(kind, os.fspath(source), exc) from exc
    if is_foreign(source):  # pytrec_eval dicts, ir_measures records, ranx, Arrow streams
        return resolve(source, kind, describe(source, kind)), type(source).__name__
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
        if mod == "pandas":
            _refuse_mixed_types(source, kind)
        raise InputError.unreadable(kind, describe(source, kind), exc) from exc
    msg = (
        f"Cannot read {kind} from a {type(source).__name__} object. Pass a path (TREC text, Parquet, "
        "CSV/TSV, Arrow IPC), a Polars DataFrame/LazyFrame, an Arrow table, a pandas DataFrame, "
        "a dict {query: {doc: value}} (pytrec_eval), records with query_id and doc_id fields "
        "(ir_measures' Qrel/ScoredDoc), a ranx Qrels/Run or an object exporting an Arrow C "
        "stream (__arrow_c_stream__: a DuckDB relation, a pyarrow RecordBatchReader)."
    )
    raise InputError(msg)


def _refuse_mixed_types(frame: Any, kind: str) -> None:
    """Raise naming a pandas column whose values mix Python types (ints beside strings...)."""
    for col, values in frame.items():  # (by position: names may repeat)
        if values.dtype != object:
            continue
        types = sorted({type(v).__name__ for v in values if v is not None})
        if len(types) > 1:
            name = repr(str(col))
            msg = (
                f"The {kind} pandas DataFrame's column {col!r} mixes value types "
                f"({', '.join(types)}): a column holds one type. Cast it first: "
                f"df[{name}].astype(str) for ids, pd.to_numeric(df[{name}]) for numbers."
            )
            raise InputError(msg)


def _read(
    source: Source,
    kind: str,
    needed: tuple[str, ...],
    columns: Mapping[str, str] | None,
    storage_options: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    source = with_storage(source, storage_options)
    lf, _ = _to_lazy(source, kind, id_columns(needed, columns))
    if S in needed and isinstance(columns, Mapping) and RANK in columns:
        # a position logged instead of a score (1 = top): score = -rank, as for a 'rank' column
        if S in columns:
            msg = (
                f"The {kind} column mapping names a score ({columns[S]!r}) and a rank "
                f"({columns[RANK]!r}): map the score or rank, not both."
            )
            raise InputError(msg)
        rank, names = columns[RANK], _names(lf)
        if names and rank not in names:
            where = describe(source, kind)
            raise InputError.missing_columns(kind, [rank], own_columns(names), where, canonical=RANK)
        columns = {**{k: v for k, v in columns.items() if k != RANK}, S: _RANK_SCORE}
        lf = lf.with_columns((-pl.col(rank).cast(pl.Float64)).alias(_RANK_SCORE))
    elif S in needed and S not in (columns or {}):
        lf = _score_from_rank(lf)
    return _map_columns(lf, needed, columns, kind, describe(source, kind))


#: A run's mapping key for a column of positions (1 = top) that stands for its score.
RANK = "rank"
_RANK_SCORE = "_score_from_rank"


def _names(lf: pl.LazyFrame) -> list[str]:
    """The columns of ``lf`` ([] when its schema cannot be read: the mapping says why)."""
    try:
        return lf.collect_schema().names()
    except (pl.exceptions.PolarsError, OSError):
        return []


def _score_from_rank(lf: pl.LazyFrame) -> pl.LazyFrame:
    """A run with ranks and no score (a PyTerrier frame ``qid, docno, rank``): score = -rank."""
    try:
        names = lf.collect_schema().names()
    except (pl.exceptions.PolarsError, OSError):
        return lf  # the mapping below names the failure
    lowered = {n.lower() for n in names}
    if "rank" not in names or any(c in lowered for c in DEFAULT_NAMES[S]):
        return lf
    return lf.with_columns((-pl.col("rank").cast(pl.Float64)).alias(S))


def read_qrels(
    source: Source,
    *,
    columns: Mapping[str, str] | None = None,
    storage_options: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    """Read judgments into a LazyFrame with ``query_id, doc_id, relevance``.

    Parameters
    ----------
    source
        A path (TREC qrels text, ``.gz``, Parquet file/glob/folder, CSV, TSV, Arrow IPC), a Polars
        DataFrame or LazyFrame, an Arrow table or a pandas DataFrame (PyTerrier's ``qid, docno,
        label``), a pytrec_eval dict ``{query: {doc: grade}}``, ir_measures ``Qrel`` records
        (any iterable of records with ``query_id, doc_id, relevance`` fields), a ranx ``Qrels``,
        or an object exporting an Arrow C stream (a DuckDB relation, a pyarrow reader).
        A URI in object storage of any of these (see ``storage_options``), a Delta Lake
        table (a folder with ``_delta_log``; ``pip install 'rankframe[delta]'``) or an Apache
        Iceberg table (a ``pyiceberg`` Table or its ``.../metadata/*.metadata.json`` path;
        ``pip install 'rankframe[iceberg]'``).
    columns
        Map canonical name -> column name, e.g. ``{"query_id": "qid", "relevance": "label"}``;
        well-known names (``qid``, ``docno``, ``rel``, ``label``...) are recognised without it.
    storage_options
        For paths in object storage (``s3://``, ``gs://``, ``az://``, ``abfss://``, ``hf://``,
        ``https://``...): the options Polars reads them with, e.g. ``{"aws_access_key_id": ...,
        "aws_secret_access_key": ..., "aws_region": "us-east-1"}`` (plus ``aws_endpoint_url``
        for an S3-compatible store); the keys of ``polars.scan_parquet``'s ``storage_options``.
        Without them, the environment's credentials. Ignored for local paths and frames.

    Returns
    -------
    polars.LazyFrame
        ``query_id``, ``doc_id``, ``relevance`` and any extra columns. TREC text gives string
        ids, Int64 grades and ``line_no`` (the line in the file); CSV/TSV ids are integers only
        where each is an integer's own text (``'007'`` stays text: it is not ``7``); other
        sources keep their dtypes (integer ids stay integers). Ids are bytes as trec_eval
        reads them: a TREC, CSV or TSV file that is not UTF-8 gives Binary ids (each id's own
        bytes), never replaced characters.

    Examples
    --------
    >>> import polars as pl
    >>> read_qrels(pl.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [2]})).collect().columns
    ['query_id', 'doc_id', 'relevance']
    """
    return _read(source, "qrels", (Q, D, REL), columns, storage_options)


def read_run(
    source: Source,
    *,
    columns: Mapping[str, str] | None = None,
    storage_options: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    """Read a run into a LazyFrame with ``query_id, doc_id, score`` (+ ``run`` if present).

    Parameters
    ----------
    source
        A path (TREC run text, ``.gz``, Parquet file/glob/folder, CSV, TSV, Arrow IPC), a Polars
        DataFrame or LazyFrame, an Arrow table or a pandas DataFrame (a PyTerrier result frame
        ``qid, docno, score``; with a ``rank`` and no score, score = -rank), a pytrec_eval dict
        ``{query: {doc: score}}``, ir_measures ``ScoredDoc`` records, a ranx ``Run``, or an
        object exporting an Arrow C stream (a DuckDB relation, a pyarrow reader).
        A URI in object storage of any of these (see ``storage_options``), a Delta Lake
        table (a folder with ``_delta_log``; ``pip install 'rankframe[delta]'``) or an Apache
        Iceberg table (a ``pyiceberg`` Table or its ``.../metadata/*.metadata.json`` path;
        ``pip install 'rankframe[iceberg]'``).
    columns
        Map canonical name -> column name, e.g. ``{"query_id": "qid", "score": "sim"}``;
        ``{"rank": "position"}`` for positions (1 = top) instead of a score: score = -rank.
    storage_options
        For paths in object storage (``s3://``, ``gs://``, ``az://``, ``abfss://``, ``hf://``,
        ``https://``...): the options Polars reads them with, e.g. ``{"aws_access_key_id": ...,
        "aws_secret_access_key": ..., "aws_region": "us-east-1"}`` (plus ``aws_endpoint_url``
        for an S3-compatible store); the keys of ``polars.scan_parquet``'s ``storage_options``.
        Without them, the environment's credentials. Ignored for local paths and frames.

    Returns
    -------
    polars.LazyFrame
        ``query_id``, ``doc_id``, ``score`` and any extra columns (``run`` names the system).
        TREC text gives string ids (Binary, each id's own bytes, in a file that is not UTF-8),
        Float64 scores, ``run_tag`` (trec_eval's run name, which is not a ``run`` column) and
        ``line_no``.

    Examples
    --------
    >>> import polars as pl
    >>> read_run(pl.DataFrame({"qid": ["1"], "docno": ["d"], "sim": [0.5]})).collect().columns
    ['query_id', 'doc_id', 'score']
    """
    return _read(source, "run", (Q, D, S), columns, storage_options)


def read_judged(
    source: Source,
    *,
    columns: Mapping[str, str] | None = None,
    storage_options: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    """Read a judged frame (score and relevance in one table).

    Parameters
    ----------
    source
        A tabular path (Parquet file/glob/folder, CSV, TSV, Arrow IPC), a Polars DataFrame or
        LazyFrame, an Arrow table or a pandas DataFrame.
        A URI in object storage of any of these (see ``storage_options``), a Delta Lake
        table (a folder with ``_delta_log``; ``pip install 'rankframe[delta]'``) or an Apache
        Iceberg table (a ``pyiceberg`` Table or its ``.../metadata/*.metadata.json`` path;
        ``pip install 'rankframe[iceberg]'``).
    columns
        Map canonical name -> column name, e.g. ``{"score": "pred", "relevance": "clicks"}``;
        ``{"rank": "position"}`` for logged positions (1 = top) instead of a score.
    storage_options
        For paths in object storage (``s3://``, ``gs://``, ``az://``, ``abfss://``, ``hf://``,
        ``https://``...): the options Polars reads them with, e.g. ``{"aws_access_key_id": ...,
        "aws_secret_access_key": ..., "aws_region": "us-east-1"}`` (plus ``aws_endpoint_url``
        for an S3-compatible store); the keys of ``polars.scan_parquet``'s ``storage_options``.
        Without them, the environment's credentials. Ignored for local paths and frames.

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
    return _read(source, "judged", (Q, D, S, REL), columns, storage_options)
