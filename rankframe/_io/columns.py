"""Canonical column names, the well-known names each is found under, and how sources are named."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from rankframe._errors import InputError

Q, D, S, REL = "query_id", "doc_id", "score", "relevance"
LINE = "line_no"
#: The file of each row, for an input read from several text files (a CSV glob): an Enum of
#: the files in their sorted order, so that (FILE, LINE) orders the rows as the files list them.
FILE = "line_file"

#: Well-known column names, tried in order (then case-insensitively), for each canonical column.
DEFAULT_NAMES: dict[str, tuple[str, ...]] = {
    Q: (
        "query_id", "qid", "query", "topic", "q_id", "queryid", "topic_id", "query-id",
        "user_id", "userid", "user",
    ),
    D: (
        "doc_id", "docno", "docid", "doc", "pid", "document_id", "item_id", "passage_id",
        "corpus_id", "corpus-id", "itemid", "item",
    ),
    REL: ("relevance", "rel", "label", "grade", "judgment", "judgement", "qrel", "target"),
    S: ("score", "sim", "similarity", "prediction", "pred", "rank_score"),
}

TREC_QRELS_COLS = (Q, "iteration", D, REL)
TREC_RUN_COLS = (Q, "iteration", D, "rank", S, "run_tag")

Source = Any  # str | os.PathLike | pl.DataFrame | pl.LazyFrame | pa.Table | pd.DataFrame


def id_text(value: object) -> str:
    r"""An id as text to print: bytes that are not UTF-8 as lone surrogates (PEP 383).

    Ids read as bytes (a TREC file that is not UTF-8) print as their own bytes, as trec_eval
    prints them: ``id_text(b"q\xe9")`` is ``"q\udce9"``, which
    ``.encode("utf-8", "surrogateescape")`` turns back into ``b"q\xe9"`` (the CLI writes it so).
    Valid UTF-8 bytes print as their text; other values as ``str(value)``.

    Examples
    --------
    >>> id_text(b"q\xc3\xa9"), id_text(b"q\xe9"), id_text(7)
    ('qé', 'q\udce9', '7')
    """
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", errors="surrogateescape")
    return str(value)


def id_order(col: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """The id as trec_eval compares ids (``strcmp``): its text, or its bytes, in byte order.

    Integer ids compare as their decimal text (``"10"`` before ``"9"``).
    """
    return col if dtype in (pl.String, pl.Binary) else col.cast(pl.String)


def printable_ids(ids: pl.Series) -> pl.Series:
    r"""Ids as text to show (labels, report tables): bytes that are not UTF-8 as ``\xNN``.

    For a Binary series only, and one to one: backslashes are doubled first, so that the id
    ``b"q\xe9"`` shows as ``q\xe9`` and the text ``q\xe9`` as ``q\\xe9``. Other series are
    cast to String.

    Examples
    --------
    >>> printable_ids(pl.Series([b"q\xe9", b"q\\xe9", b"q1"])).to_list()
    ['q\\xe9', 'q\\\\xe9', 'q1']
    """
    if ids.dtype != pl.Binary:
        return ids.cast(pl.String)
    return pl.Series(ids.name, [
        None if v is None else v.replace(b"\\", b"\\\\").decode("utf-8", errors="backslashreplace")
        for v in ids.to_list()
    ], dtype=pl.String)


def text_dtype(*dtypes: pl.DataType) -> pl.DataType:
    """The dtype that ids of these dtypes compare in as trec_eval compares them: Binary if any is."""
    return pl.Binary() if pl.Binary in dtypes else pl.String()


def cast_id(col: str, dtype: pl.DataType, target: pl.DataType) -> pl.Expr:
    """The id column ``col`` (of ``dtype``) as ``target``: integers become bytes through their text.

    Text becomes its UTF-8 bytes, so that equal bytes match (``"q1"`` and ``b"q1"``).
    """
    expr = pl.col(col)
    if target == pl.Binary and dtype not in (pl.String, pl.Binary):
        expr = expr.cast(pl.String)
    return expr.cast(target)


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


def check_mapping(mapping: Mapping[str, str] | None, where: str) -> dict[str, str]:
    """A column mapping (canonical name -> your column) as a dict; unknown keys raise.

    ``where`` names the mapping in the message (``"the qrels column mapping"``,
    ``"qrels_columns"``).
    """
    if mapping is not None and not isinstance(mapping, Mapping):
        msg = (
            f"{where[0].upper()}{where[1:]} must be a dict {{canonical name: your column}}, e.g. "
            f"{{'query_id': 'qid', 'score': 'sim'}}. Got {mapping!r} ({type(mapping).__name__})."
        )
        raise InputError(msg)
    mapping = dict(mapping or {})
    unknown = [k for k in mapping if k not in DEFAULT_NAMES]
    if unknown:
        msg = (
            f"Unknown canonical column {unknown[0]!r} in {where}; the keys are canonical names "
            f"({', '.join(map(repr, DEFAULT_NAMES))}) and the values your column names, "
            f"e.g. {{'query_id': 'qid'}}."
        )
        raise InputError(msg)
    return mapping


def position_columns(names: Sequence[str]) -> list[str]:
    """The columns that place a row of a text input: ``[line_file,] line_no``; [] for others.

    Examples
    --------
    >>> position_columns(["query_id", "line_no"]), position_columns(["query_id", "line_file", "line_no"])
    (['line_no'], ['line_file', 'line_no'])
    """
    return [c for c in (FILE, LINE) if c in names] if LINE in names else []


def own_columns(names: Sequence[str]) -> list[str]:
    """The columns of the input itself: without the line numbers (and files) the text readers add."""
    return [n for n in names if n not in (LINE, FILE)]


def source_column(names: Sequence[str], canon: str, mapping: Mapping[str, str]) -> str | None:
    """The column that becomes ``canon``: the mapping's (as given), else a well-known name.

    Well-known names (:data:`DEFAULT_NAMES`) are tried in order as written, then in any case;
    None when none is among ``names``.

    Examples
    --------
    >>> source_column(["QID", "docno"], "query_id", {})
    'QID'
    >>> source_column(["session", "qid"], "query_id", {"query_id": "session"})
    'session'
    """
    if canon in mapping:
        return mapping[canon]
    found = next((c for c in DEFAULT_NAMES[canon] if c in names), None)
    if found is None:
        lowered = {n.lower(): n for n in names}
        found = next((lowered[c] for c in DEFAULT_NAMES[canon] if c in lowered), None)
    return found


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
    param = "qrels_columns=... and run_columns" if kind == "judged" else f"{kind}_columns"
    mapping = check_mapping(mapping, f"the {kind} column mapping ({param}=... or columns=...)")
    rename: dict[str, str] = {}
    missing: list[str] = []
    for canon in needed:
        src = source_column(names, canon, mapping)
        if canon in mapping:
            if src not in names:
                raise InputError.missing_columns(kind, [src], own_columns(names), where, canonical=canon)
        elif src is None or src in rename:
            missing.append(canon)
            continue
        rename[src] = canon
    if missing:
        tried = [c for m in missing for c in DEFAULT_NAMES[m]]
        raise InputError.missing_columns(kind, missing, own_columns(names), where, tried=tried)
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
