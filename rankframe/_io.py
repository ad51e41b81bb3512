"""Readers: every input ends in the same canonical LazyFrames.

qrels -> ``query_id, doc_id, relevance`` (+ extra columns); run -> ``query_id, doc_id, score``
(+ ``run`` and breakdown columns). Sources: TREC text files (``.gz`` too), Parquet (file, glob,
folder with hive partitions), CSV/TSV, Arrow tables, Polars DataFrame/LazyFrame, pandas.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from rankframe._errors import InputError

Q, D, S, REL = "query_id", "doc_id", "score", "relevance"

#: Well-known column names, tried in order, for each canonical column.
DEFAULT_NAMES: dict[str, tuple[str, ...]] = {
    Q: ("query_id", "qid", "query", "topic", "q_id", "queryid", "topic_id"),
    D: ("doc_id", "docno", "docid", "doc", "pid", "document_id", "item_id", "passage_id"),
    REL: ("relevance", "rel", "label", "grade", "judgment", "judgement", "qrel", "target"),
    S: ("score", "sim", "similarity", "prediction", "pred", "rank_score"),
}

TREC_QRELS_COLS = (Q, "iteration", D, REL)
TREC_RUN_COLS = (Q, "iteration", D, "rank", S, "run_tag")

Source = Any  # str | os.PathLike | pl.DataFrame | pl.LazyFrame | pa.Table | pd.DataFrame


def _is_pathlike(source: Source) -> bool:
    return isinstance(source, str | os.PathLike)


def _suffixes(path: str) -> list[str]:
    return [s.lower() for s in Path(path).suffixes]


def _read_text_lines(path: str) -> pl.DataFrame:
    """Read a whitespace-separated text file as one column of lines, with 1-based line numbers."""
    p = Path(path)
    if not p.exists():
        msg = f"File not found: {path!r}."
        raise InputError(msg)
    data = p.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if not data.strip():
        msg = f"{path}: the file is empty."
        raise InputError(msg)
    lines = pl.read_csv(
        io.BytesIO(data),
        has_header=False,
        separator="\x1f",
        quote_char=None,
        new_columns=["line"],
        schema_overrides={"line": pl.String},
        infer_schema=False,
        raise_if_empty=False,
    )
    return lines.with_row_index("line_no", offset=1)


def _split_fields(lines: pl.DataFrame, n: int, names: tuple[str, ...], path: str) -> pl.DataFrame:
    body = lines.filter(
        pl.col("line").is_not_null()
        & ~pl.col("line").str.starts_with("#")
        & (pl.col("line").str.strip_chars() != "")
    )
    pattern = r"^\s*" + r"\s+".join([r"(\S+)"] * n) + r"(?:\s|$)"
    fields = body.with_columns(pl.col("line").str.extract_groups(pattern).alias("_f"))
    bad = fields.filter(pl.col("_f").struct.field("1").is_null())
    if bad.height:
        row = bad.row(0, named=True)
        msg = (
            f"{path}, line {row['line_no']}: expected at least {n} whitespace-separated fields "
            f"({' '.join(names)}), got {row['line']!r}. Fix or remove the line "
            "(lines starting with '#' are comments)."
        )
        raise InputError(msg)
    out = fields.select(
        "line_no",
        *[pl.col("_f").struct.field(str(i + 1)).alias(name) for i, name in enumerate(names)],
    )
    if out.height == 0:
        msg = f"{path}: the file holds no data lines."
        raise InputError(msg)
    return out


def _to_number(df: pl.DataFrame, col: str, dtype: pl.DataType, path: str, what: str) -> pl.DataFrame:
    converted = df.with_columns(pl.col(col).cast(dtype, strict=False).alias("_num"))
    bad = converted.filter(pl.col("_num").is_null())
    if bad.height:
        row = bad.row(0, named=True)
        msg = (
            f"{path}, line {row['line_no']}: the {what} {row[col]!r} is not "
            f"{'an integer' if dtype.is_integer() else 'a number'}."
        )
        raise InputError(msg)
    return converted.with_columns(pl.col("_num").alias(col)).drop("_num")


def read_trec_qrels(path: str) -> pl.LazyFrame:
    """Read a TREC qrels file (``qid iter docno rel``)."""
    df = _split_fields(_read_text_lines(path), 4, TREC_QRELS_COLS, path)
    df = _to_number(df, REL, pl.Int64, path, "relevance grade")
    return df.select(Q, D, REL, "line_no").lazy()


def read_trec_run(path: str) -> pl.LazyFrame:
    """Read a TREC run file (``qid iter docno rank score tag``; rank ignored, extra fields too)."""
    lines = _read_text_lines(path)
    df = _split_fields(lines, 6, TREC_RUN_COLS, path)
    df = _to_number(df, S, pl.Float64, path, "score")
    return df.select(Q, D, S, "run_tag", "line_no").lazy()


def _scan_path(path: str, kind: str) -> tuple[pl.LazyFrame, str]:
    """Scan a file, glob or folder; return the frame and a description of the format."""
    sfx = _suffixes(path)
    if os.path.isdir(path) or "*" in path or ".parquet" in sfx or ".pq" in sfx:
        target = path
        if os.path.isdir(path):
            target = os.path.join(path, "**", "*.parquet")
        return pl.scan_parquet(target, hive_partitioning=True), "parquet"
    if ".csv" in sfx:
        return pl.scan_csv(path), "csv"
    if ".tsv" in sfx:
        return pl.scan_csv(path, separator="\t"), "tsv"
    if ".arrow" in sfx or ".ipc" in sfx or ".feather" in sfx:
        return pl.scan_ipc(path), "ipc"
    if kind == "qrels":
        return read_trec_qrels(path), "trec"
    return read_trec_run(path), "trec"


def _to_lazy(source: Source, kind: str) -> tuple[pl.LazyFrame, str]:
    if isinstance(source, pl.LazyFrame):
        return source, "LazyFrame"
    if isinstance(source, pl.DataFrame):
        return source.lazy(), "DataFrame"
    if _is_pathlike(source):
        return _scan_path(os.fspath(source), kind)
    mod = type(source).__module__.split(".")[0]
    if mod == "pyarrow":
        return pl.from_arrow(source).lazy(), "Arrow table"  # type: ignore[union-attr]
    if mod == "pandas":
        return pl.from_pandas(source).lazy(), "pandas DataFrame"
    msg = (
        f"Cannot read {kind} from a {type(source).__name__}. Pass a path (TREC text, Parquet, "
        "CSV/TSV), a Polars DataFrame/LazyFrame, an Arrow table or a pandas DataFrame."
    )
    raise InputError(msg)


def _map_columns(
    lf: pl.LazyFrame,
    needed: tuple[str, ...],
    mapping: Mapping[str, str] | None,
    kind: str,
    where: str,
) -> pl.LazyFrame:
    names = lf.collect_schema().names()
    mapping = dict(mapping or {})
    rename: dict[str, str] = {}
    missing = []
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
            if src is None:
                missing.append(canon)
                continue
        rename[src] = canon
    if missing:
        raise InputError.missing_columns(kind, missing, names, where)
    clash = [c for c in rename.values() if c in names and c not in rename]
    lf = lf.drop(clash) if clash else lf
    return lf.rename({k: v for k, v in rename.items() if k != v})


def read_qrels(source: Source, *, columns: Mapping[str, str] | None = None) -> pl.LazyFrame:
    """Read judgments into a LazyFrame with ``query_id, doc_id, relevance``.

    Parameters
    ----------
    source
        A path (TREC qrels text, ``.gz``, Parquet file/glob/folder, CSV, TSV), a Polars
        DataFrame or LazyFrame, an Arrow table or a pandas DataFrame.
    columns
        Map canonical name -> column name, e.g. ``{"query_id": "qid", "relevance": "label"}``;
        well-known names (``qid``, ``docno``, ``rel``, ``label``...) are recognised without it.

    Returns
    -------
    polars.LazyFrame
        ``query_id``, ``doc_id``, ``relevance`` (Int64) and any extra columns.

    Examples
    --------
    >>> import polars as pl
    >>> read_qrels(pl.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [2]})).collect().columns
    ['query_id', 'doc_id', 'relevance']
    """
    lf, fmt = _to_lazy(source, "qrels")
    where = os.fspath(source) if _is_pathlike(source) else fmt
    return _map_columns(lf, (Q, D, REL), columns, "qrels", where)


def read_run(source: Source, *, columns: Mapping[str, str] | None = None) -> pl.LazyFrame:
    """Read a run into a LazyFrame with ``query_id, doc_id, score`` (+ ``run`` if present).

    Parameters
    ----------
    source
        A path (TREC run text, ``.gz``, Parquet file/glob/folder, CSV, TSV), a Polars
        DataFrame or LazyFrame, an Arrow table or a pandas DataFrame.
    columns
        Map canonical name -> column name, e.g. ``{"query_id": "qid", "score": "sim"}``.

    Returns
    -------
    polars.LazyFrame
        ``query_id``, ``doc_id``, ``score`` and any extra columns (``run`` names the system).

    Examples
    --------
    >>> import polars as pl
    >>> read_run(pl.DataFrame({"qid": ["1"], "docno": ["d"], "sim": [0.5]})).collect().columns
    ['query_id', 'doc_id', 'score']
    """
    lf, fmt = _to_lazy(source, "run")
    where = os.fspath(source) if _is_pathlike(source) else fmt
    return _map_columns(lf, (Q, D, S), columns, "run", where)


def read_judged(source: Source, *, columns: Mapping[str, str] | None = None) -> pl.LazyFrame:
    """Read a judged frame (score and relevance in one table).

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"qid": ["1"], "docno": ["d"], "score": [0.5], "label": [1]})
    >>> read_judged(df).collect().columns
    ['query_id', 'doc_id', 'score', 'relevance']
    """
    lf, fmt = _to_lazy(source, "judged")
    where = os.fspath(source) if _is_pathlike(source) else fmt
    return _map_columns(lf, (Q, D, S, REL), columns, "judged", where)
