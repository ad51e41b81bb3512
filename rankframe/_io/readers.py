"""Readers: every input ends in the same canonical LazyFrames.

qrels -> ``query_id, doc_id, relevance`` (+ extra columns); run -> ``query_id, doc_id, score``
(+ ``run`` and breakdown columns). Sources: TREC text files (``.gz``, ``.bz2``, ``.xz`` too),
Parquet (file, glob, folder with hive partitions), CSV/TSV, Arrow IPC, Arrow tables and datasets,
Polars DataFrame/LazyFrame, pandas.

Text sources (TREC, CSV/TSV: :mod:`rankframe._io.tables`) carry a ``line_no`` column with the
real line number in the file, so that validation errors can name the line; it is dropped by
projection pushdown everywhere else.
"""

from __future__ import annotations

import glob as globlib
import os
from collections.abc import Mapping
from typing import Any

import polars as pl

from rankframe._errors import InputError
from rankframe._io.columns import (
    DEFAULT_NAMES,
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
from rankframe._io.tables import IdColumns, _scan_csv, _scan_csv_glob, _scan_parquet, id_columns
from rankframe._io.trec_text import read_trec_qrels, read_trec_run


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
        A tabular path (Parquet file/glob/folder, CSV or TSV file or glob such as
        ``logs/day=*.csv``, Arrow IPC), a Polars DataFrame or LazyFrame, an Arrow table or a
        pandas DataFrame.
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
