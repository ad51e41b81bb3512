"""ir_measures' records and TREC readers: ``Qrel``, ``ScoredDoc``, ``Metric``, ``CalcResults``.

The same fields as ir_measures' namedtuples, so that either library reads the other's records;
:mod:`rankframe.compat.ir_measures` exports them.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterator
from typing import Any, NamedTuple


class Qrel(NamedTuple):
    """One judgment, as ir_measures' ``Qrel``.

    Examples
    --------
    >>> Qrel("q1", "d1", 2)
    Qrel(query_id='q1', doc_id='d1', relevance=2, iteration='0')
    """

    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


class ScoredDoc(NamedTuple):
    """One retrieved document and its score, as ir_measures' ``ScoredDoc``.

    Examples
    --------
    >>> ScoredDoc("q1", "d1", 1.5)
    ScoredDoc(query_id='q1', doc_id='d1', score=1.5)
    """

    query_id: str
    doc_id: str
    score: float


class Metric(NamedTuple):
    """One query's value of one measure, as ir_measures' ``Metric``.

    Examples
    --------
    >>> Metric("q1", "P@5", 0.4)
    Metric(query_id='q1', measure='P@5', value=0.4)
    """

    query_id: str
    measure: Any
    value: float


class CalcResults(NamedTuple):
    """Aggregated and per-query values, as ir_measures' ``CalcResults`` (from :func:`calc`).

    Examples
    --------
    >>> CalcResults({"P@5": 0.4}, [Metric("q1", "P@5", 0.4)]).aggregated
    {'P@5': 0.4}
    """

    aggregated: dict[Any, float]
    per_query: list[Metric]


# ----------------------------------------------------------------------------- TREC files
def _lines(file: Any) -> Iterator[str]:
    """Lines of an open file, of a text holding newlines, or of a path (gzip when ``.gz``)."""
    if hasattr(file, "read"):
        yield from file
    elif isinstance(file, str) and "\n" in file:
        yield from io.StringIO(file)
    else:
        path = os.fspath(file)
        opener: Any = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "rt") as f:
            yield from f


def read_trec_qrels(file: Any) -> Iterator[Qrel]:
    r"""Read TREC qrels (``query iteration doc grade``) as :class:`Qrel` records, lazily.

    Parameters
    ----------
    file
        An open file, a path (``.gz`` read as gzip) or the text itself (holding newlines).

    Yields
    ------
    Qrel
        One per non-blank line; the grade as an int.

    Examples
    --------
    >>> text = "q1 0 d1 2\nq1 0 d2 0\n"
    >>> [(q.query_id, q.doc_id, q.relevance) for q in read_trec_qrels(text)]
    [('q1', 'd1', 2), ('q1', 'd2', 0)]
    """
    for line in _lines(file):
        if line.strip():
            query_id, iteration, doc_id, relevance = line.split()
            yield Qrel(query_id, doc_id, int(relevance), iteration)


def read_trec_run(file: Any) -> Iterator[ScoredDoc]:
    r"""Read a TREC run (``query Q0 doc rank score tag``) as :class:`ScoredDoc` records, lazily.

    Parameters
    ----------
    file
        An open file, a path (``.gz`` read as gzip) or the text itself (holding newlines).

    Yields
    ------
    ScoredDoc
        One per non-blank line; the score as a float (the rank column is ignored).

    Examples
    --------
    >>> list(read_trec_run("q1 Q0 d1 1 2.5 bm25\n"))
    [ScoredDoc(query_id='q1', doc_id='d1', score=2.5)]
    """
    for line in _lines(file):
        if line.strip():
            query_id, _, doc_id, _, score, _ = line.split()
            yield ScoredDoc(query_id, doc_id, float(score))
