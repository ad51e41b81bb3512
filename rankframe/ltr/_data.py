"""Learning-to-rank data: the SVMlight/LETOR text format, query splits, rankframe frames.

A LETOR file has one document per line::

    <label> qid:<query> <id>:<value> <id>:<value> ... # docid = <doc> <anything>

Feature ids are 1-based and may be sparse (absent features are 0). ``qid:`` may be left out
when a LightGBM ``.query`` or xgboost ``.group`` file gives the group sizes (one integer per
line: the number of consecutive rows of each query).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl

from rankframe._errors import InputError, at, quote
from rankframe._io.trec_text import read_unsized

__all__ = ["LetorData", "read_svmlight", "split_by_query", "to_frames"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
StrArray = npt.NDArray[np.str_]

_DOCID = re.compile(r"\bdocid\s*=\s*(\S+)")
#: The largest feature id read without ``n_features``: features are dense (LETOR sets have
#: 46 to 700; a larger id is most likely a typo).
MAX_FEATURES = 2**20


@dataclass(frozen=True, eq=False)
class LetorData:
    """Documents grouped by query: features, labels and ids, rows of a query contiguous.

    Attributes
    ----------
    X : ndarray of float64, shape (n, d)
        Dense features; column ``j`` holds feature id ``j + 1`` of the file.
    labels : ndarray of float64, shape (n,)
        Relevance grades.
    qid : ndarray of str, shape (n,)
        Query id of every row.
    docid : ndarray of str, shape (n,)
        Document id of every row (from ``# docid = X`` comments, else ``"d<row>"``).
    offsets : ndarray of int64, shape (n_queries + 1,)
        CSR group boundaries: the rows of query ``g`` are ``offsets[g]:offsets[g + 1]``.
    source : str or None
        Where the data came from (a path), for messages.

    Examples
    --------
    >>> import numpy as np
    >>> d = LetorData(np.eye(3), np.array([1.0, 0.0, 2.0]), np.array(["a", "a", "b"]),
    ...               np.array(["x", "y", "z"]), np.array([0, 2, 3]))
    >>> d.n_queries, d.n_features, d.query_ids.tolist()
    (2, 3, ['a', 'b'])
    """

    X: FloatArray
    labels: FloatArray
    qid: StrArray
    docid: StrArray
    offsets: IntArray
    source: str | None = None

    def __post_init__(self) -> None:
        n = self.X.shape[0]
        if self.X.ndim != 2 or any(len(a) != n for a in (self.labels, self.qid, self.docid)):
            msg = "LetorData: X must be 2-D and labels, qid and docid must have one entry per row of X."
            raise ValueError(msg)
        off = self.offsets
        if off.ndim != 1 or len(off) < 1 or off[0] != 0 or off[-1] != n or np.any(np.diff(off) < 0):
            msg = f"LetorData: offsets must rise from 0 to the number of rows ({n}); got {off[:5]}..."
            raise ValueError(msg)

    @property
    def n_queries(self) -> int:
        """Number of query groups."""
        return len(self.offsets) - 1

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return int(self.X.shape[1])

    @property
    def sizes(self) -> IntArray:
        """Number of documents of every query, shape (n_queries,)."""
        return np.diff(self.offsets)

    @property
    def query_ids(self) -> StrArray:
        """Query id of every group, in group order, shape (n_queries,)."""
        return self.qid[self.offsets[:-1]]

    def __len__(self) -> int:
        return int(self.X.shape[0])

    def __repr__(self) -> str:
        where = f", source={self.source!r}" if self.source else ""
        return f"LetorData(rows={len(self)}, queries={self.n_queries}, features={self.n_features}{where})"

    def rows(self, groups: npt.ArrayLike) -> IntArray:
        """Row indices of the given groups, group after group, in the order given.

        Examples
        --------
        >>> import numpy as np
        >>> d = LetorData(np.zeros((3, 1)), np.zeros(3), np.array(["a", "a", "b"]),
        ...               np.array(["x", "y", "z"]), np.array([0, 2, 3]))
        >>> d.rows([1, 0]).tolist()
        [2, 0, 1]
        """
        g = np.asarray(groups, dtype=np.int64)
        starts, sizes = self.offsets[g], self.sizes[g]
        if len(g) == 0:
            return np.zeros(0, np.int64)
        # position within the output minus the output start of its group, plus the input start
        out_starts = np.cumsum(sizes) - sizes
        return np.arange(int(sizes.sum()), dtype=np.int64) + np.repeat(starts - out_starts, sizes)

    def subset(self, groups: npt.ArrayLike) -> LetorData:
        """The queries ``groups`` (group indices), in the order given, as a new :class:`LetorData`."""
        g = np.asarray(groups, dtype=np.int64)
        idx = self.rows(g)
        offsets = np.concatenate([[0], np.cumsum(self.sizes[g])]).astype(np.int64)
        return LetorData(self.X[idx], self.labels[idx], self.qid[idx], self.docid[idx], offsets, self.source)


def _error(where: str, line: int, text: str) -> InputError:
    return InputError(f"{at(where, line)}: {text}")


def _read_group_sizes(path: Path, n_rows: int, where: str) -> IntArray:
    sizes: list[int] = []
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        tok = raw.strip()
        if not tok:
            continue
        if not tok.isdigit() or int(tok) == 0:
            what = f"expected a positive group size (a row count), got {quote(tok)}."
            raise _error(str(path), lineno, what)
        sizes.append(int(tok))
    total = sum(sizes)
    if total != n_rows:
        msg = (
            f"The group sizes of {path} add up to {total} rows, but {where} has {n_rows} rows. "
            "A .query/.group file holds one group size per line, in the order of the rows."
        )
        raise InputError(msg)
    return np.asarray(sizes, dtype=np.int64)


def _parse_features(
    tokens: list[str], counts: list[int], linenos: list[int], where: str
) -> tuple[IntArray, IntArray, FloatArray]:
    """Row, 0-based column and value of every ``id:value`` token, vectorised with a slow exact path."""
    counts_a = np.asarray(counts, dtype=np.int64)
    rows = np.repeat(np.arange(len(counts_a), dtype=np.int64), counts_a)
    fast_ok = all(t.count(":") == 1 for t in tokens)
    if fast_ok:
        try:
            pairs = np.array(" ".join(tokens).replace(":", " ").split(), dtype=np.float64).reshape(-1, 2)
        except ValueError:
            fast_ok = False
    if not fast_ok:  # find the first bad token to name its line
        for i, t in enumerate(tokens):
            fid, sep, val = t.partition(":")
            try:
                float(val)
                ok = bool(sep) and fid.isdigit() and ":" not in val
            except ValueError:
                ok = False
            if not ok:
                raise _error(where, linenos[rows[i]], f"expected a feature 'id:value', got {quote(t)}.")
    ids, values = pairs[:, 0], pairs[:, 1]
    bad = (ids != np.floor(ids)) | (ids < 1)
    if bad.any():
        i = int(np.argmax(bad))
        raise _error(
            where, linenos[rows[i]],
            f"feature ids are integers from 1 (SVMlight/LETOR), got {quote(tokens[i])}.",
        )
    if not np.all(np.isfinite(values)):  # nan, inf, 1e400: a model cannot be fitted on them
        i = int(np.argmax(~np.isfinite(values)))
        raise _error(where, linenos[rows[i]], f"the feature value in {quote(tokens[i])} is not finite.")
    return rows, ids.astype(np.int64) - 1, values


def read_svmlight(
    path: str | Path,
    *,
    query_file: str | Path | None = None,
    n_features: int | None = None,
) -> LetorData:
    r"""Read a SVMlight / LETOR learning-to-rank file.

    Parameters
    ----------
    path
        Text file, one document a line: ``label [qid:Q] id:value ... [# comment]``. Feature ids
        are 1-based and may be sparse; blank lines and lines holding only a comment are skipped.
        A comment containing ``docid = X`` (as in LETOR 4.0) gives the document id.
    query_file
        A LightGBM ``.query`` or xgboost ``.group`` file: one group size per line, the number of
        consecutive rows of each query. It defines the groups (and the query ids ``"q<group>"``
        when the rows have no ``qid:``). When ``None`` and the rows have no ``qid:``,
        ``<path>.query`` or ``<path>.group`` is used if it exists.
    n_features
        Number of feature columns; by default the largest feature id of the file. A larger id
        is an error.

    Returns
    -------
    LetorData
        Dense features. When the rows of a query are not contiguous in the file, the rows are
        stably sorted by query, the queries in the order of their first row (the rows of a
        query keep their file order). Document ids are ``"d<row>"`` (0-based data row) when
        the comments carry none.

    Raises
    ------
    rankframe.InputError
        On a malformed line (named with its file and line number), a mix of rows with and
        without ``qid:``, no way to group the rows, or group sizes that do not match.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "tiny.txt"
    >>> _ = p.write_text("2 qid:7 1:0.5 3:1 # docid = A\n0 qid:7 2:0.25 # docid = B\n1 qid:8 1:1\n")
    >>> d = read_svmlight(p)
    >>> d.X.tolist(), d.query_ids.tolist(), d.docid.tolist(), d.offsets.tolist()
    ([[0.5, 0.0, 1.0], [0.0, 0.25, 0.0], [1.0, 0.0, 0.0]], ['7', '8'], ['A', 'B', 'd2'], [0, 2, 3])
    """
    path = Path(path)
    where = str(path)
    try:
        if path.exists() and not path.is_file() and not path.is_dir():  # a pipe, a device: bounded
            with open(path, "rb") as f:
                text = read_unsized(f, where, "LETOR/SVMlight").decode()
        else:
            text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"Cannot read the LETOR/SVMlight file {where}: {exc}."
        raise InputError(msg) from exc

    labels: list[str] = []
    qids: list[str | None] = []
    docids: list[str | None] = []
    tokens: list[str] = []
    counts: list[int] = []
    linenos: list[int] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        body, hash_, comment = raw.partition("#")
        toks = body.split()
        if not toks:
            continue
        labels.append(toks[0])
        if len(toks) > 1 and toks[1].startswith("qid:"):
            q = toks[1][4:]
            if not q:
                raise _error(where, lineno, "empty query id after 'qid:'.")
            qids.append(q)
            feats = toks[2:]
        else:
            qids.append(None)
            feats = toks[1:]
        m = _DOCID.search(comment) if hash_ else None
        docids.append(m.group(1) if m else None)
        tokens.extend(feats)
        counts.append(len(feats))
        linenos.append(lineno)
    n = len(labels)
    if n == 0:
        msg = f"{where} holds no data lines (expected 'label qid:Q id:value ...' lines)."
        raise InputError(msg)

    try:
        y = np.array(labels, dtype=np.float64)
    except ValueError:
        for i, lab in enumerate(labels):
            try:
                float(lab)
            except ValueError:
                what = f"expected a numeric label first, got {quote(lab)}."
                raise _error(where, linenos[i], what) from None
        raise
    if not np.all(np.isfinite(y)):
        i = int(np.argmax(~np.isfinite(y)))
        raise _error(where, linenos[i], f"the label {quote(labels[i])} is not finite.")

    rows, cols, values = _parse_features(tokens, counts, linenos, where)
    width = int(cols.max()) + 1 if len(cols) else 0
    if n_features is not None:
        if len(cols) and width > n_features:
            i = int(np.argmax(cols >= n_features))
            text_ = f"feature id {cols[i] + 1} exceeds n_features={n_features}."
            raise _error(where, linenos[rows[i]], text_)
        width = n_features
    elif width > MAX_FEATURES:  # features are dense: a typo such as 99999999999:1 would ask for TBs
        i = int(np.argmax(cols))
        text_ = (
            f"feature id {cols[i] + 1} is past {MAX_FEATURES}: the features are kept dense ({n} rows "
            f"x {cols[i] + 1} columns). Fix the id, or pass n_features=... to allow it."
        )
        raise _error(where, linenos[rows[i]], text_)
    flat = rows * max(width, 1) + cols
    if len(flat) > 1:
        order = np.argsort(flat, kind="stable")
        dup = np.flatnonzero(np.diff(flat[order]) == 0)
        if len(dup):
            i = int(order[dup[0] + 1])
            raise _error(where, linenos[rows[i]], f"feature id {cols[i] + 1} appears twice.")
    try:
        X = np.zeros((n, width), dtype=np.float64)
    except MemoryError as exc:
        msg = f"{where}: {n} rows x {width} features do not fit in memory as a dense matrix."
        raise InputError(msg) from exc
    X[rows, cols] = values

    with_qid = np.array([q is not None for q in qids])
    if with_qid.any() and not with_qid.all():
        i = int(np.argmin(with_qid)) if with_qid[0] else int(np.argmax(with_qid))
        raise _error(where, linenos[i], "some rows have 'qid:' and others do not; give every row a qid.")
    if query_file is None and not with_qid.any():
        for suffix in (".query", ".group"):
            candidate = path.with_name(path.name + suffix)
            if candidate.exists():
                query_file = candidate
                break
        else:
            msg = (
                f"The rows of {where} have no 'qid:' and there is no group file "
                f"({path.name}.query or {path.name}.group). Pass query_file=... to say how the rows "
                "are grouped into queries."
            )
            raise InputError(msg)

    docid = np.array([d if d is not None else f"d{i}" for i, d in enumerate(docids)], dtype=str)
    if query_file is not None:
        sizes = _read_group_sizes(Path(query_file), n, where)
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        if with_qid.all():
            qid = np.array(qids, dtype=str)
            starts = np.repeat(qid[offsets[:-1]], sizes)
            bad = np.flatnonzero(qid != starts)
            if len(bad):
                i = int(bad[0])
                raise _error(
                    where, linenos[i],
                    f"qid:{qid[i]} differs from qid:{starts[i]} earlier in the same group of {query_file}.",
                )
        else:
            qid = np.repeat(np.array([f"q{g}" for g in range(len(sizes))], dtype=str), sizes)
        return LetorData(X, y, qid, docid, offsets, where)

    qid = np.array(qids, dtype=str)
    uniq, first, inverse = np.unique(qid, return_index=True, return_inverse=True)
    rank_of_query = np.empty(len(uniq), dtype=np.int64)
    rank_of_query[np.argsort(first, kind="stable")] = np.arange(len(uniq))
    key = rank_of_query[inverse]
    if np.any(np.diff(key) < 0):  # not contiguous: stable sort by first appearance of the query
        order = np.argsort(key, kind="stable")
        X, y, qid, docid, key = X[order], y[order], qid[order], docid[order], key[order]
    offsets = np.concatenate([[0], np.cumsum(np.bincount(key, minlength=len(uniq)))]).astype(np.int64)
    return LetorData(X, y, qid, docid, offsets, where)


def split_by_query(
    data: LetorData, fractions: Sequence[float] = (0.8, 0.2), seed: int = 0
) -> tuple[LetorData, ...]:
    """Split the queries (never the documents of one query) into parts at random.

    Parameters
    ----------
    data
        The data to split.
    fractions
        Share of the queries in every part; positive, adding up to 1. Part sizes are rounded
        from the cumulative shares, so they add up to the number of queries.
    seed
        Seed of the permutation of the queries; the same seed gives the same split.

    Returns
    -------
    tuple of LetorData
        One per fraction; each keeps its queries in their original order.

    Raises
    ------
    ValueError
        If a fraction is not positive, they do not add up to 1, or a part would be empty.

    Examples
    --------
    >>> import numpy as np
    >>> qid = np.repeat(np.array(["a", "b", "c", "d", "e"]), 2)
    >>> d = LetorData(np.zeros((10, 1)), np.zeros(10), qid, qid, np.arange(0, 11, 2))
    >>> train, valid = split_by_query(d, (0.6, 0.4), seed=1)
    >>> sorted(train.query_ids.tolist() + valid.query_ids.tolist())
    ['a', 'b', 'c', 'd', 'e']
    >>> train.n_queries, valid.n_queries
    (3, 2)
    """
    fr = np.asarray(fractions, dtype=np.float64)
    if fr.ndim != 1 or len(fr) == 0 or np.any(fr <= 0) or abs(fr.sum() - 1.0) > 1e-9:
        msg = f"fractions must be positive and add up to 1; got {tuple(fractions)!r}."
        raise ValueError(msg)
    nq = data.n_queries
    cuts = np.rint(np.cumsum(fr) * nq).astype(np.int64)
    cuts[-1] = nq
    bounds = np.concatenate([[0], cuts])
    if np.any(np.diff(bounds) <= 0):
        msg = f"Cannot split {nq} queries into parts of {tuple(fractions)!r}: a part would be empty."
        raise ValueError(msg)
    perm = np.random.default_rng(seed).permutation(nq)
    return tuple(data.subset(np.sort(perm[a:b])) for a, b in zip(bounds[:-1], bounds[1:], strict=True))


def to_frames(data: LetorData, scores: npt.ArrayLike) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Judgments and a run for :func:`rankframe.evaluate` from the labels and model scores.

    Every document of ``data`` is judged (grade = label, so queries with no relevant document
    are kept and score 0 under trec_eval semantics) and ranked by its score.

    Parameters
    ----------
    data
        The documents; labels must be integers (graded relevance).
    scores
        One score per row of ``data``.

    Returns
    -------
    qrels : polars.DataFrame
        ``query_id, doc_id, relevance`` (Int64).
    run : polars.DataFrame
        ``query_id, doc_id, score`` (Float64).

    Notes
    -----
    A document id repeated within a query is made unique by appending ``#2``, ``#3``... to its
    later occurrences, so that the two frames are valid inputs.

    Examples
    --------
    >>> import numpy as np, rankframe as rf
    >>> d = LetorData(np.zeros((3, 1)), np.array([1.0, 0.0, 0.0]), np.array(["a", "a", "b"]),
    ...               np.array(["x", "y", "z"]), np.array([0, 2, 3]))
    >>> qrels, run = to_frames(d, [0.1, 0.9, 0.5])
    >>> rf.evaluate(qrels, run, ["nDCG@10", "AP"])["value"].round(4).to_list()
    [0.3155, 0.25]
    """
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    if len(s) != len(data):
        msg = f"to_frames: got {len(s)} scores for {len(data)} documents."
        raise ValueError(msg)
    rel = data.labels
    if np.any(rel != np.rint(rel)):
        msg = "to_frames: the labels must be integer relevance grades for rankframe judgments."
        raise ValueError(msg)
    ids = pl.DataFrame({"query_id": data.qid, "doc_id": data.docid})
    n_seen = ids.select(pl.int_range(pl.len()).over("query_id", "doc_id").alias("k"))["k"]
    if int(n_seen.max() or 0) > 0:
        ids = ids.with_columns(
            pl.when(n_seen > 0)
            .then(pl.col("doc_id") + "#" + (n_seen + 1).cast(pl.String))
            .otherwise(pl.col("doc_id"))
            .alias("doc_id")
        )
    qrels = ids.with_columns(pl.Series("relevance", rel.astype(np.int64)))
    run = ids.with_columns(pl.Series("score", s))
    return qrels, run
