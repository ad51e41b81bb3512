"""The judged frame of a run and its qrels: the frame ``rankframe.expr``'s measures read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import polars as pl

from rankframe._engine.memory_guard import converts_memory_error
from rankframe._engine.options import REL, D, Q, S
from rankframe._engine.prepare import _qrels_keys, prepare
from rankframe._engine.rank import ranked_join

if TYPE_CHECKING:
    from rankframe._io.columns import Source


@converts_memory_error
def judged_frame(
    qrels: Source,
    run: Source,
    *,
    by: Sequence[str] = (),
    complete: bool = False,
    depth: int | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    """Join a run with its qrels into one judged frame, for measures in your own ``group_by``.

    Every judgment is a row, retrieved or not, and every retrieved document is a row, judged or
    not: the full join of the run and the qrels, on the queries :func:`rankframe.evaluate`
    evaluates. It is the frame the builders of :mod:`rankframe.expr` read by default
    (``score``, ``relevance``, ``doc_id``), so that ``judged_frame(...).group_by("query_id")``
    ``.agg(rfx.ndcg(10))`` gives ``evaluate``'s per-query values.

    Parameters
    ----------
    qrels, run
        Any input :func:`rankframe.evaluate` accepts (paths, Polars/pandas/Arrow frames); a run
        may be a list or a dict of runs (a ``run`` column then names them).
    by
        Breakdown columns of the run, kept in the frame (group by them too).
    complete
        Keep the judged queries that the run did not retrieve (every score null), which a
        measure then scores 0, as ``evaluate(complete=True)`` (trec_eval ``-c``) does; by
        default they are left out, as ``evaluate`` skips them.
    depth
        Keep the top ``depth`` documents of each query (score descending, ties by doc id
        descending, trec_eval's order); a judged document below it stays, with a null score,
        as a judged document not retrieved.
    qrels_columns, run_columns
        Column mappings, e.g. ``{"query_id": "qid", "score": "sim"}``.

    Returns
    -------
    polars.LazyFrame
        ``[run, breakdowns...,] query_id, doc_id, score, relevance``: a **null score** for a
        judged document the run did not retrieve, a **null relevance** for a retrieved document
        without a judgment. Queries without judgments are left out (``evaluate`` ignores them).

    Notes
    -----
    Why not the run left-joined with the qrels: that frame loses the judged documents the run
    did not retrieve, and every measure that reads the ideal ranking or the number of relevant
    documents (nDCG's ideal DCG, recall, R-precision, AP's denominator) then comes out too
    high. On a frame that is complete by construction (logged impressions with their clicks or
    grades, where nothing outside the frame is relevant) the group's own rows are right as they
    are; this function is for a run and its judgments kept apart.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> from rankframe import expr as rfx
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "b", "c"],
    ...                       "relevance": [1, 0, 1]})
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "x"], "score": [2.0, 1.0]})
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.sort("doc_id").collect().rows()  # c: judged, not retrieved; x: retrieved, unjudged
    [('q1', 'a', 2.0, 1), ('q1', 'b', None, 0), ('q1', 'c', None, 1), ('q1', 'x', 1.0, None)]
    >>> judged.group_by("query_id").agg(rfx.measure("R@10")).collect().item(0, "R@10")  # 1 of 2
    0.5
    """
    prep = prepare(
        qrels, run, None, by=by, qrels_columns=qrels_columns, run_columns=run_columns,
        complete=complete, depth=depth,
    )
    keys = prep.keys
    frame = ranked_join(prep.run, prep.qrels, keys, prep.opts, _qrels_keys(prep), scores=True)
    group = [*keys, Q]
    judged = pl.col(REL).is_not_null().any().over(group)
    # retrieved rows have a score (with no depth, no rank is then computed: nothing reads it)
    keep = judged if complete else judged & pl.col(S).is_not_null().any().over(group)
    return frame.filter(keep).select(*keys, Q, D, S, REL)
