"""What ranx's ``Qrels`` and ``Run`` share: ``{query: {doc: value}}`` dicts kept in ranx's order.

ranx stores numba typed dicts; the drop-in stores plain dicts, queries sorted by id and each
query's documents in ranx's order (:mod:`~rankframe.compat.ranx._order`) once sorted. Values are
ints for ``Qrels`` and floats for ``Run``. Files: TREC text (also gzipped), JSON, ranx's LZ4
files (CBOR compressed twice by LZ4 frames; they need the ``lz4`` and ``cbor2`` packages, as
ranx does) and Parquet (``q_id, doc_id, score`` columns, read by Polars).

These objects are Python dicts, so building, sorting and flattening them loops over queries in
Python, as ranx's own constructors do; the evaluation itself is one Polars plan over the
flattened rows (:mod:`~rankframe.compat.ranx._scoring`).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Self

import polars as pl

from rankframe._errors import InputError
from rankframe.compat.ranx._order import ranx_order

_KINDS = ("json", "trec", "lz4", "gz", "parquet")


def get_file_kind(path: str = "run.json", kind: str | None = None, kinds: Iterable[str] = _KINDS) -> str:
    """The file format from the extension (``.txt`` is ``trec``, ``.parq`` is ``parquet``).

    Examples
    --------
    >>> get_file_kind("qrels.txt"), get_file_kind("run.parq")
    ('trec', 'parquet')
    """
    if kind is None:
        kind = os.path.splitext(str(path))[1][1:]
        kind = {"txt": "trec", "parq": "parquet"}.get(kind, kind)
    kinds = tuple(kinds)
    if kind not in kinds:
        msg = f"kind: {kind!r} (from {str(path)!r}) is not one of {', '.join(map(repr, kinds))}; pass kind="
        raise InputError(msg)
    return kind


def _lz4() -> tuple[Any, Any]:
    try:
        import cbor2  # noqa: PLC0415 (optional: only LZ4 files need them)
        import lz4.frame  # noqa: PLC0415
    except ImportError:
        msg = "ranx's LZ4 files need the lz4 and cbor2 packages: pip install lz4 cbor2 (or use .json/.trec)"
        raise InputError(msg) from None
    return lz4.frame, cbor2


def read_json(path: str, kind: str) -> dict[str, dict[str, Any]]:
    """A JSON or ranx LZ4 file ``{query: {doc: value}}``."""
    try:
        if kind == "lz4":
            frame, cbor2 = _lz4()
            data = cbor2.loads(frame.decompress(frame.decompress(open(path, "rb").read())))
        else:
            data = json.loads(open(path, "rb").read())
    except (OSError, ValueError, RuntimeError, EOFError) as e:
        msg = f"{path}: cannot read it as {kind} ({e}); expected {{query: {{doc: value}}}}"
        raise InputError(msg) from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        msg = f"{path}: expected a JSON object {{query: {{doc: value}}}}"
        raise InputError(msg)
    return data


def write_json(data: Mapping[str, Mapping[str, Any]], path: str, kind: str) -> None:
    """Write ``{query: {doc: value}}`` as JSON, or as ranx's LZ4 file for ``kind="lz4"``."""
    plain = {q: dict(d) for q, d in data.items()}
    if kind == "lz4":
        frame, cbor2 = _lz4()
        raw = frame.compress(frame.compress(cbor2.dumps(plain), compression_level=16))
    else:
        raw = json.dumps(plain, indent=2).encode()
    with open(path, "wb") as f:
        f.write(raw)


def read_trec(
    path: str, kind: str, fields: int, cast: Callable[[str], Any],
) -> tuple[dict[str, dict[str, Any]], str | None]:
    """TREC qrels (4 fields) or run (6 fields) text, gzipped for ``kind="gz"``; and the run tag."""
    data: dict[str, dict[str, Any]] = {}
    tag = None
    try:
        with gzip.open(path, "rt") if kind == "gz" else open(path) as f:
            for number, line in enumerate(f, 1):
                parts = line.split()
                if not parts:
                    continue
                if len(parts) != fields:
                    msg = f"{path}, line {number}: {len(parts)} fields, expected {fields}"
                    raise InputError(msg)
                value = parts[3] if fields == 4 else parts[4]
                data.setdefault(parts[0], {})[parts[2]] = cast(value)
                tag = tag or (parts[5] if fields == 6 else None)
    except (OSError, ValueError, EOFError) as e:
        msg = f"{path}: cannot read it as TREC text ({e})"
        raise InputError(msg) from None
    return data, tag


def frame_to_dict(
    df: Any, q: str, d: str, s: str, cast: Callable[[Any], Any],
) -> dict[str, dict[str, Any]]:
    """A pandas or Polars frame's ``q``, ``d``, ``s`` columns as ``{query: {doc: value}}``."""
    if not isinstance(df, pl.DataFrame):
        try:
            # (a NaN score stays NaN, as in ranx: not a missing value)
            df = (pl.from_pandas(df, nan_to_null=False) if type(df).__module__.startswith("pandas")
                  else pl.DataFrame(df))
        except (TypeError, ValueError) as e:
            msg = f"df: not a DataFrame ({type(df).__name__}: {e})"
            raise InputError(msg) from None
    missing = [c for c in (q, d, s) if c not in df.columns]
    if missing:
        msg = f"df: no column {missing[0]!r} (columns: {df.columns}); name it: q_id_col/doc_id_col/score_col"
        raise InputError(msg)
    for col in (q, d, s):
        if df.get_column(col).null_count():
            msg = f"df: column {col!r} has missing values (None/null); ranx's frames have none"
            raise InputError(msg)
    values = df.get_column(s)
    if cast is int and not values.dtype.is_integer():  # (ranx: "scores column dtype must be `int`")
        odd = df.filter(~_is_integral(values.cast(pl.Float64, strict=False)))
        if odd.height:
            row = odd.row(0, named=True)
            msg = (f"df: the grade {row[s]!r} of query {row[q]!r}, doc {row[d]!r} (column {s!r}) "
                   "is not an integer; Qrels take integer grades")
            raise InputError(msg)
    out: dict[str, dict[str, Any]] = {}
    rows = df.select(pl.col(q).cast(pl.String), pl.col(d).cast(pl.String), s).iter_rows()
    for query, doc, value in rows:
        out.setdefault(query, {})[doc] = cast(value)
    return out


def _is_integral(values: pl.Series) -> pl.Series:
    """Whether each value is a finite whole number (False for null, NaN, inf, 1.5)."""
    return (values.is_finite() & (values == values.floor())).fill_null(False)


class RankedDict:
    """``{query: {doc: value}}`` with ranx's ``sorted`` flag, sort order and accessors."""

    _cast: Callable[[Any], Any] = float

    def __init__(
        self, data: Mapping[str, Mapping[str, Any]] | None = None, name: str | None = None,
    ) -> None:
        self._data: dict[str, dict[str, Any]] = {}
        self.sorted = False
        self.name = name
        self.metadata: dict[str, Any] = {}
        if data is not None:
            if not isinstance(data, Mapping):
                kind = type(data).__name__
                msg = f"{type(self).__name__}: expected a dict {{query: {{doc: value}}}}, not {kind}"
                raise InputError(msg)
            self._data = {str(q): self._checked(q, docs) for q, docs in data.items()}
            self.sort()

    def _checked(self, q: Any, docs: Any) -> dict[str, Any]:
        if not isinstance(docs, Mapping):
            msg = f"{type(self).__name__}: query {q!r} maps to {type(docs).__name__}, not {{doc: value}}"
            raise InputError(msg)
        try:
            return {str(d): self._cast(v) for d, v in docs.items()}
        except (TypeError, ValueError):
            msg = f"{type(self).__name__}: query {q!r} holds a value that is not a number"
            raise InputError(msg) from None

    # ranx's accessors -------------------------------------------------------------------------
    def keys(self) -> Any:
        """Query ids."""
        return self._data.keys()

    def get_query_ids(self) -> list[str]:
        """Query ids, as a list."""
        return list(self._data)

    def get_doc_ids_and_scores(self) -> list[dict[str, Any]]:
        """Each query's ``{doc: value}``."""
        return list(self._data.values())

    @property
    def size(self) -> int:
        """Number of queries."""
        return len(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, q_id: str) -> dict[str, Any]:
        return dict(self._data[q_id])

    def __repr__(self) -> str:
        return repr(self._data)

    # building ---------------------------------------------------------------------------------
    def add_score(self, q_id: str, doc_id: str, score: Any) -> None:
        """Set one document's value (adding the query if new)."""
        self._data.setdefault(q_id, {})[doc_id] = self._cast(score)
        self.sorted = False

    def add(self, q_id: str, doc_ids: list[str], scores: list[Any]) -> None:
        """Set one query's documents and values."""
        self.add_multi([q_id], [doc_ids], [scores])

    def add_multi(self, q_ids: list[str], doc_ids: list[list[str]], scores: list[list[Any]]) -> None:
        """Set several queries' documents and values (each query replaced), then sort."""
        if not len(q_ids) == len(doc_ids) == len(scores):
            msg = f"add_multi: {len(q_ids)} q_ids, {len(doc_ids)} doc_ids and {len(scores)} scores lists"
            raise InputError(msg)
        for q, docs, values in zip(q_ids, doc_ids, scores, strict=True):
            if len(docs) != len(values):
                msg = f"add_multi: query {q!r} has {len(docs)} doc_ids and {len(values)} scores"
                raise InputError(msg)
            self._data[q] = self._checked(q, dict(zip(docs, values, strict=True)))
        self.sort()

    def sort(self) -> None:
        """Sort queries by id and each query's documents by value, in ranx's tie order."""
        ordered = {}
        for q in sorted(self._data):
            docs = self._data[q]
            keys, values = list(docs), list(docs.values())
            ordered[q] = {keys[i]: values[i] for i in ranx_order(values)}
        self._data = ordered
        self.sorted = True

    def to_typed_list(self) -> list[Any]:
        """Each query's ``[[hash(doc), value], ...]`` float64 array in ranx's order (metrics' input)."""
        import numpy as np  # noqa: PLC0415

        if not self.sorted:
            self.sort()
        return [
            np.array([[hash(d), v] for d, v in docs.items()], dtype=np.float64).reshape(-1, 2)
            for docs in self._data.values()
        ]

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """A copy as ``{query: {doc: value}}``."""
        return {q: dict(docs) for q, docs in self._data.items()}

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with columns ``q_id, doc_id, score`` (needs pandas)."""
        import pandas as pd  # noqa: PLC0415 (only when a DataFrame is asked for)

        data: dict[str, list[Any]] = {"q_id": [], "doc_id": [], "score": []}
        for q, docs in self._data.items():
            for d, v in docs.items():
                data["q_id"].append(q)
                data["doc_id"].append(d)
                data["score"].append(v)
        return pd.DataFrame.from_dict(data)

    def to_polars(self) -> pl.DataFrame:
        """The rows as a Polars frame ``q_id, doc_id, score`` in the stored order."""
        rows = [(q, d, v) for q, docs in self._data.items() for d, v in docs.items()]
        dtype = pl.Int64 if self._cast is int else pl.Float64
        schema = {"q_id": pl.String, "doc_id": pl.String, "score": dtype}
        return pl.DataFrame(rows, schema=schema, orient="row")

    # files ------------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, Any]], name: str | None = None) -> Self:
        """From ``{query: {doc: value}}``."""
        return cls(d, name=name)

    @classmethod
    def from_df(cls, df: Any, q_id_col: str = "q_id", doc_id_col: str = "doc_id",
                score_col: str = "score", name: str | None = None) -> Self:
        """From a pandas or Polars DataFrame."""
        return cls(frame_to_dict(df, q_id_col, doc_id_col, score_col, cls._cast), name=name)

    @classmethod
    def from_parquet(cls, path: str, q_id_col: str = "q_id", doc_id_col: str = "doc_id",
                     score_col: str = "score", pd_kwargs: Mapping[str, Any] | None = None,
                     name: str | None = None) -> Self:
        """From a Parquet file (read by Polars; ``pd_kwargs`` is accepted and ignored)."""
        try:
            df = pl.read_parquet(path)
        except (OSError, pl.exceptions.PolarsError) as e:
            msg = f"{path}: cannot read it as Parquet ({type(e).__name__}: {str(e).splitlines()[0]})"
            raise InputError(msg) from None
        return cls.from_df(df, q_id_col, doc_id_col, score_col, name=name)

    def _save(self, path: str, kind: str | None, trec_line: Callable[[str, str, int, Any], str]) -> None:
        kind = get_file_kind(path, kind)
        if not self.sorted:
            self.sort()
        if kind in ("json", "lz4"):
            write_json(self._data, path, kind)
        elif kind == "parquet":
            self.to_polars().write_parquet(path)
        else:
            lines = [trec_line(q, d, r, v) for q, docs in self._data.items()
                     for r, (d, v) in enumerate(docs.items(), 1)]
            opener = gzip.open if kind == "gz" else open
            with opener(path, "wt") as f:
                f.write("\n".join(lines))
