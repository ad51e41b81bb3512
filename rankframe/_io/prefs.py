"""Reading preference judgments: trec_eval's ``prefs`` and ``qrels_prefs`` files, or tables.

A preference file lists ``qid jg jsg docno rel_level``: within a judgment subgroup
``(query, jg, jsg)`` a document with a higher ``rel_level`` is preferred to one with a lower
level. The readers return ``query_id, jg, jsg, doc_id, rel_level``; the pairs they state are
built by :mod:`rankframe._engine.pairs`, trec_eval's preference measures by
:mod:`rankframe._trec_eval.prefs`.
"""

from __future__ import annotations

import os
from typing import Any

import polars as pl

from rankframe._errors import InputError, at, quote
from rankframe._io.columns import LINE, TREC_QRELS_COLS, D, Q, _is_pathlike, describe
from rankframe._io.readers import _to_lazy
from rankframe._io.storage import suffixes
from rankframe._io.trec_text import _read_bytes, _split_fields, _to_number

JG, JSG, LEVEL = "jg", "jsg", "rel_level"
PREFS_COLS = (Q, JG, JSG, D, LEVEL)
_ROLE = "prefs"


def read_prefs(path: str | os.PathLike[str]) -> pl.LazyFrame:
    """Read a trec_eval ``prefs`` file: ``qid ujg ujsubg docno rel_level`` per line.

    Parameters
    ----------
    path
        The file (``.gz``, ``.bz2``, ``.xz`` are decompressed). Lines starting with ``#`` are
        comments; fields after the fifth are ignored.

    Returns
    -------
    pl.LazyFrame
        ``query_id, jg, jsg, doc_id`` (String), ``rel_level`` (Float64) and ``line_no``.

    Raises
    ------
    InputError
        For a missing, empty or malformed file, or a ``rel_level`` that is not a number.
    """
    path = os.fspath(path)
    names = (Q, JG, JSG, D, LEVEL)
    df = _split_fields(_read_bytes(path, "prefs"), names, path, "prefs")
    df = _finite(_to_number(df, LEVEL, pl.Float64, path, "rel_level"), LEVEL, path, "rel_level")
    return df.select(*PREFS_COLS, LINE).lazy()


def _finite(df: pl.DataFrame, col: str, path: str, what: str) -> pl.DataFrame:
    """Refuse a level that is NaN or infinite (``nan``, ``inf``, ``1e400`` parse as numbers)."""
    bad = df.filter(~pl.col(col).is_finite())
    if bad.height:
        row = bad.row(0, named=True)
        msg = (
            f"{at(path, row[LINE])}: the {what} {quote(row[col])} of query {quote(row[Q])}, doc "
            f"{quote(row[D])} is not a finite number, so the preferences it states are undefined. "
            "Fix the line."
        )
        raise InputError(msg)
    return df


def _check_table(lf: pl.LazyFrame, names: list[str], where: str) -> None:
    """Refuse columns of the wrong type: a level must be a number, ids strings, bytes or integers."""
    schema = lf.collect_schema()
    for col in (Q, JG, JSG, D, LEVEL):
        if col not in schema:
            continue
        dt = schema[col]
        if col == LEVEL:
            ok, kind = dt.is_numeric() or dt == pl.Boolean, "levels must be numbers"
        else:
            ok, kind = dt in (pl.String, pl.Binary) or dt.is_integer() or isinstance(
                dt, pl.Categorical | pl.Enum
            ), "ids and groups must be strings, bytes or integers"
        if ok:
            continue
        detail = ""
        if dt == pl.String:  # a CSV column with a word in it: name the first
            pos = [LINE] if LINE in names else []
            first = _collect(
                lf.filter(pl.col(col).is_not_null() & pl.col(col).cast(pl.Float64, strict=False).is_null())
                .select(*pos, col).head(1), where,
            )
            if first.height:
                row = first.row(0, named=True)
                place = f" ({at(where, row[LINE])})" if row.get(LINE) is not None else ""
                detail = f" First value that is not a number: {quote(row[col])}{place}."
        msg = (
            f"The preferences column {col!r} in {where} has dtype {dt}; {kind}.{detail} Cast it or "
            f"map the right column first, e.g. pl.col({col!r}).cast(pl.Float64)."
        )
        raise InputError(msg)


def _collect(lf: pl.LazyFrame, where: str) -> pl.DataFrame:
    try:
        return lf.collect()
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError.unreadable(_ROLE, where, exc) from exc


def read_prefs_source(source: Any) -> pl.LazyFrame:
    """Preferences from a trec_eval ``prefs`` text file or a table with the same columns.

    A table (Polars, pandas, Arrow frame, or a Parquet/CSV/TSV/IPC file) needs ``query_id, jg,
    jsg, doc_id, rel_level``; ``jg`` and ``jsg`` may be omitted (one group per query). Nulls
    and non-finite levels are refused with the place of the first one.

    Raises
    ------
    InputError
        For a missing column, a null id or group, or a level that is not a finite number.
    """
    if _is_pathlike(source) and not any(
        sfx in suffixes(os.fspath(source))
        for sfx in (".parquet", ".pq", ".csv", ".tsv", ".arrow", ".ipc", ".feather")
    ) and not os.path.isdir(os.fspath(source)):
        return read_prefs(source)
    lf, _ = _to_lazy(source, "prefs")
    where = describe(source, "prefs")
    try:
        names = lf.collect_schema().names()
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError.unreadable(_ROLE, where, exc) from exc
    missing = [c for c in (Q, D, LEVEL) if c not in names]
    if missing:
        msg = (
            f"The preferences ({where}) lack the column(s) {', '.join(map(repr, missing))}; "
            f"they need {', '.join(PREFS_COLS)} (jg and jsg optional). Found: "
            f"{', '.join(map(repr, names))}."
        )
        raise InputError(msg)
    _check_table(lf, names, where)
    schema = lf.collect_schema()
    groups = [
        (pl.col(c) if schema[c] == pl.Binary else pl.col(c).cast(pl.String)) if c in names
        else pl.lit("0").alias(c)
        for c in (JG, JSG)
    ]
    lf = lf.select(Q, *groups, D, LEVEL, *([LINE] if LINE in names else []))
    bad = _collect(lf.filter(
        pl.any_horizontal(pl.col(Q, JG, JSG, D).is_null())
        | ~pl.col(LEVEL).cast(pl.Float64).is_finite().fill_null(False)
    ).head(1), where)
    if bad.height:
        row = bad.row(0, named=True)
        col = next((c for c in (Q, JG, JSG, D) if row[c] is None), LEVEL)
        line = f", line {row[LINE]}" if row.get(LINE) is not None else ""
        msg = (
            f"{where}{line}, column {col!r}: {quote(row[col])} is not valid ({quote(row)}). Every "
            "preference needs a query, a document and a finite level; drop or fill such rows."
        )
        raise InputError(msg)
    return lf.with_columns(pl.col(LEVEL).cast(pl.Float64))


def read_qrels_prefs(path: str | os.PathLike[str]) -> pl.LazyFrame:
    """Read an ordinary qrels file as preferences (trec_eval's ``-R qrels_prefs``).

    Each line ``qid iter docno rel`` becomes a preference line whose judgment group is the
    ``iter`` field and whose subgroup is the constant ``"0"``, with ``rel`` as a float level:
    normally one judgment group per query, whose documents are preferred by grade.

    Parameters
    ----------
    path
        The qrels file.

    Returns
    -------
    pl.LazyFrame
        The same columns as :func:`read_prefs`.

    Raises
    ------
    InputError
        For a missing, empty or malformed file, or a grade that is not a number.
    """
    path = os.fspath(path)
    df = _split_fields(_read_bytes(path, "qrels"), TREC_QRELS_COLS, path, "qrels")
    df = _finite(_to_number(df, "relevance", pl.Float64, path, "relevance grade"), "relevance", path, "grade")
    return df.select(
        Q, pl.col("iteration").alias(JG), pl.lit("0").alias(JSG), D,
        pl.col("relevance").alias(LEVEL), LINE,
    ).lazy()
