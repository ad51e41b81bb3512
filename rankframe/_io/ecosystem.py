"""The IR ecosystem's objects as frames: pytrec_eval dicts, ir_measures tuples, ranx objects.

None of those libraries is imported: each object is recognised by its shape (a dict of dicts,
records with ``query_id``/``doc_id`` fields) or by the module its type comes from (ranx's
``Qrels``/``Run``). Objects that export Arrow through the PyCapsule stream interface
(``__arrow_c_stream__``: DuckDB relations, pyarrow readers, nanoarrow...) are read by Polars.
PyTerrier's frames (``qid, docno, score``/``rank``; ``qid, docno, label``) are pandas frames
with well-known column names, mapped like any other (:mod:`rankframe._io.columns`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from itertools import accumulate, chain
from numbers import Real
from typing import Any

import polars as pl

from rankframe._errors import InputError, quote
from rankframe._io.columns import REL, D, Q, S

#: The value column of each kind of nested dict: ``{query: {doc: value}}``.
VALUE = {"qrels": REL, "run": S}


def is_nested_dict(obj: Any) -> bool:
    """A pytrec_eval/ranx dict ``{query: {doc: number}}`` (checked on its first non-empty query).

    An empty dict, or one whose queries are all empty, is one too (a run with no results). A
    dict of such dicts (``{name: {query: {doc: score}}}``) is not: it holds several runs.

    Examples
    --------
    >>> is_nested_dict({"q1": {"d1": 1.5}}), is_nested_dict({"bm25": {"q1": {"d1": 1.5}}})
    (True, False)
    """
    if not isinstance(obj, Mapping):
        return False
    for docs in obj.values():
        if not isinstance(docs, Mapping):
            return False
        for value in docs.values():
            return _is_number(value)
    return True


def is_records(obj: Any) -> bool:
    """An iterable of records with ``query_id`` and ``doc_id`` fields, not a frame or a path.

    ir_measures' ``Qrel`` and ``ScoredDoc``, any namedtuple or dataclass shaped like them.

    Lists and tuples are looked at (their first item); other iterators (generators, ir_measures'
    readers) are taken for records when they are not a known container, a path or a frame.
    """
    if isinstance(obj, str | bytes | Mapping) or hasattr(obj, "__arrow_c_stream__"):
        return False
    if isinstance(obj, list | tuple):
        return bool(obj) and _is_record(obj[0])
    return isinstance(obj, Iterator)


def is_ranx(obj: Any) -> bool:
    """A ranx ``Qrels`` or ``Run`` (duck-typed: ranx is never imported)."""
    return type(obj).__module__.split(".")[0] == "ranx" and callable(getattr(obj, "to_dict", None))


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) or type(value).__module__ == "numpy"


def _is_record(item: Any) -> bool:
    fields = _fields(item)
    return fields is not None and Q in fields and D in fields


def _fields(item: Any) -> tuple[str, ...] | None:
    fields = getattr(type(item), "_fields", None)  # namedtuple
    if fields is None:
        fields = getattr(type(item), "__dataclass_fields__", None)
    return None if fields is None else tuple(fields)


def _ids(values: list[Any], role: str, where: str) -> pl.Series:
    r"""Ids keep their type when all share it (integers stay integers); mixed ones become text.

    Mixed with bytes (``{b"q\xe9": ...}``), they become bytes: text as its UTF-8 bytes,
    numbers as the bytes of their text, so that ids stay distinct and equal bytes match.
    """
    if not values:  # nothing to infer from: text ids, as trec_eval reads them
        return pl.Series(role, [], dtype=pl.String)
    try:
        return pl.Series(role, values, strict=True)
    except (TypeError, pl.exceptions.PolarsError):
        if any(isinstance(v, bytes | bytearray) for v in values):
            return pl.Series(role, [_as_bytes(v) for v in values], dtype=pl.Binary)
        return pl.Series(role, [None if v is None else str(v) for v in values], dtype=pl.String)


def _as_bytes(value: Any) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, bytearray):
        return bytes(value)
    return str(value).encode()


def _value_dtype(column: str, values: list[Any]) -> pl.DataType | None:
    """Scores as Float64; grades as given (fractional ones are refused later), Int64 if none."""
    if column == S:
        return pl.Float64()
    return None if values else pl.Int64()


def from_nested_dict(obj: Mapping[Any, Mapping[Any, Any]], kind: str, where: str) -> pl.LazyFrame:
    """``{query: {doc: value}}`` -> ``query_id, doc_id, relevance|score``.

    Examples
    --------
    >>> from_nested_dict({"q1": {"d1": 2, "d2": 0}}, "qrels", "the qrels dict").collect().rows()
    [('q1', 'd1', 2), ('q1', 'd2', 0)]
    """
    return nested_dict_frame(obj, kind, where).lazy()


def nested_dict_frame(obj: Mapping[Any, Mapping[Any, Any]], kind: str, where: str) -> pl.DataFrame:
    """:func:`from_nested_dict`'s frame, in memory (a caller that needs it so skips a collect)."""
    if kind not in VALUE:
        msg = (
            f"A dict {{query: {{doc: value}}}} holds one value per document: pass it as qrels "
            f"(grades) or as a run (scores), not as {kind}."
        )
        raise InputError(msg)
    column = VALUE[kind]
    queries = list(obj)
    counts = [len(obj[q]) for q in queries]
    docs = list(chain.from_iterable(obj[q].keys() for q in queries))
    values = list(chain.from_iterable(obj[q].values() for q in queries))
    bad = next((i for i, v in enumerate(values) if not _is_number(v)), None)
    if bad is not None:
        query = queries[bisect_right(list(accumulate(counts)), bad)]
        msg = (
            f"{where}: the {column} of document {quote(docs[bad])} of query {quote(query)} is "
            f"{quote(values[bad])} ({type(values[bad]).__name__}); a {{query: {{doc: {column}}}}} "
            "dict holds numbers."
        )
        raise InputError(msg)
    import numpy as np  # (on first use: not with the package)

    rows_of = np.repeat(np.arange(len(queries)), counts)  # a query's index once per document
    frame = pl.DataFrame([
        _ids(queries, Q, where).gather(rows_of),
        _ids(docs, D, where),
        pl.Series(column, values, dtype=_value_dtype(column, values), strict=False),
    ])
    if column == REL and frame.schema[REL] == pl.Boolean:
        frame = frame.with_columns(pl.col(REL).cast(pl.Int64))
    return frame


def from_records(obj: Iterable[Any], kind: str, where: str) -> pl.LazyFrame:
    """Records (namedtuples, dataclasses) with ``query_id, doc_id, ...`` fields -> a frame.

    Every field becomes a column (ir_measures' ``Qrel`` brings ``iteration`` along).

    Examples
    --------
    >>> from collections import namedtuple
    >>> ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    >>> from_records([ScoredDoc("q1", "d1", 1.5)], "run", "the run").collect().rows()
    [('q1', 'd1', 1.5)]
    """
    items = iter(obj)
    first = next(items, None)
    if first is None:
        schema = {Q: pl.String, D: pl.String, VALUE.get(kind, S): pl.Float64}
        return pl.LazyFrame(schema=schema)
    fields = _fields(first)
    if fields is None or Q not in fields or D not in fields:
        msg = (
            f"Cannot read {kind} from {where}: its items are {type(first).__name__} objects; "
            "an iterable of records needs query_id and doc_id fields (ir_measures' Qrel or "
            "ScoredDoc, a namedtuple or a dataclass)."
        )
        raise InputError(msg)
    rows = chain([first], items)
    if getattr(type(first), "_fields", None) is not None:
        columns = list(zip(*rows, strict=True))
    else:
        columns = list(zip(*([getattr(r, f) for f in fields] for r in rows), strict=True))
    data = {}
    for name, values in zip(fields, columns, strict=True):
        values = list(values)
        data[name] = _ids(values, name, where) if name in (Q, D) else pl.Series(name, values, strict=False)
    return pl.DataFrame(data).lazy()


def from_ranx(obj: Any, kind: str, where: str) -> pl.LazyFrame:
    """A ranx ``Qrels`` or ``Run``, through its ``to_dict()``."""
    return from_nested_dict(obj.to_dict(), kind, where)


def from_arrow_stream(obj: Any) -> pl.LazyFrame:
    """An object exporting an Arrow C stream (DuckDB relation, pyarrow reader...), read once.

    The stream is consumed into Polars' memory (Arrow buffers are taken over, not copied where
    Polars can), so that the plan may scan it more than once (checks, then evaluation).
    """
    return pl.DataFrame(obj).lazy()


def _is_stream(obj: Any) -> bool:
    """An Arrow C stream that is not a frame read otherwise (Polars, pyarrow tables, pandas)."""
    if not hasattr(obj, "__arrow_c_stream__"):
        return False
    module = type(obj).__module__.split(".")[0]
    return module not in ("polars", "pyarrow", "pandas") or type(obj).__name__ == "RecordBatchReader"


def is_foreign(obj: Any) -> bool:
    """An object of another library that :func:`resolve` turns into a frame."""
    return is_nested_dict(obj) or is_ranx(obj) or is_records(obj) or _is_stream(obj)


def resolve(source: Any, kind: str, where: str | None = None) -> Any:
    """The IR ecosystem's objects as a LazyFrame, read once; any other source unchanged.

    A frame can be scanned again (checks, then evaluation, or one partition after another),
    which a generator or an Arrow stream cannot.

    Examples
    --------
    >>> resolve({"q1": {"d1": 1.0}}, "run").collect().columns
    ['query_id', 'doc_id', 'score']
    >>> resolve("run.txt", "run")
    'run.txt'
    """
    where = where or f"the {kind} {type(source).__name__}"
    if is_nested_dict(source):
        return from_nested_dict(source, kind, where)
    if is_ranx(source):
        return from_ranx(source, kind, where)
    if is_records(source):
        return from_records(source, kind, where)
    if _is_stream(source):
        return from_arrow_stream(source)
    return source


def resolve_runs(run: Any) -> Any:
    """:func:`resolve` for the ``run`` argument: one run, a list of runs or ``{name: run}``.

    A pytrec_eval dict ``{query: {doc: score}}`` is one run, told apart from ``{name: run}``
    by its values (numbers, not runs); a list of ranx ``Run`` objects is named by their names.

    Examples
    --------
    >>> runs = resolve_runs({"bm25": {"q1": {"d1": 1.0}}, "dense": {"q1": {"d1": 2.0}}})
    >>> {name: lf.collect()["score"].to_list() for name, lf in runs.items()}
    {'bm25': [1.0], 'dense': [2.0]}
    """
    if run is None or is_foreign(run):
        return resolve(run, "run")
    if isinstance(run, Mapping):
        return {name: resolve(src, "run", f"the run {name!r}") for name, src in run.items()}
    if isinstance(run, list | tuple):
        names = [getattr(r, "name", None) if is_ranx(r) else None for r in run]
        if all(names) and len(set(names)) == len(names):
            return {str(n): resolve(r, "run") for n, r in zip(names, run, strict=True)}
        return [resolve(r, "run", f"run {i}") for i, r in enumerate(run)]
    return run
