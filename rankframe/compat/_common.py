"""What the drop-in modules share: one :func:`rankframe.evaluate` call, as a wide per-query frame.

pytrec_eval and ir_measures evaluate the qrels topics that are keys of the run, and a key
with an empty ranking (``{"q1": {}}``) is still evaluated (on no documents). Both are
reproduced with ``complete=True`` over the judgments of those topics only: the run's queries
that have no judgments are ignored, as ``evaluate`` ignores them.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import polars as pl

import rankframe as rf
from rankframe._engine.evaluate import per_query_frame
from rankframe._errors import RankframeWarning
from rankframe._io.columns import D, Q, S, describe
from rankframe._io.ecosystem import is_nested_dict, nested_dict_frame

if TYPE_CHECKING:
    from rankframe._engine.hits import JudgmentCache
    from rankframe._measures import Measure

#: Row order of the evaluated queries (their position among the run's queries).
ORDER = "__compat_order"


def read(source: Any, kind: str) -> pl.DataFrame:
    """Judgments or a run as a collected frame with rankframe's canonical columns.

    Everything :func:`rankframe.read_qrels` / :func:`rankframe.read_run` read is accepted: the
    pytrec_eval dict ``{query: {doc: value}}``, ir_measures' ``Qrel``/``ScoredDoc`` records (a
    generator is consumed once, here), pandas frames with ``query_id, doc_id, relevance|score``,
    Polars and Arrow frames, TREC files.
    """
    if is_nested_dict(source):  # (the frame as read_qrels/read_run build it, without their collect)
        return nested_dict_frame(source, kind, describe(source, kind))
    reader = rf.read_qrels if kind == "qrels" else rf.read_run
    return reader(source).collect()  # an empty dict has typed columns too (String ids)


def infinite_as_largest(run: pl.DataFrame) -> pl.DataFrame:
    """``run`` with an infinite score as the largest float64 of its sign (a NaN stays).

    pytrec_eval and ir_measures rank an infinite score (inf first, -inf last), which
    :func:`rankframe.evaluate` refuses; the largest float64s rank the same (and are inf again
    as float32). They tie with a finite score of ``±sys.float_info.max`` where inf would not.

    Examples
    --------
    >>> run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [float("inf"), 1.0, -float("inf")]})
    >>> infinite_as_largest(run).get_column("score").to_list()
    [1.7976931348623157e+308, 1.0, -1.7976931348623157e+308]
    """
    if run.schema[S].is_float() and run.get_column(S).is_infinite().any():
        return run.with_columns(pl.col(S).clip(-sys.float_info.max, sys.float_info.max))
    return run


def run_queries(source: Any, run: pl.DataFrame) -> pl.Series:
    """The run's queries in order: a dict's keys (an empty ranking is a query), else its rows'."""
    if isinstance(source, Mapping):
        keys = list(source)
        if keys and all(isinstance(k, str) for k in keys):
            return pl.Series(Q, keys, dtype=pl.String)
    return run.get_column(Q).unique(maintain_order=True)


def per_query_wide(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    queries: pl.Series,
    measures: Iterable[Measure],
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    score_dtype: str = "float64",
    doc_ascending: bool = False,
    input_order: bool = False,
    kept: JudgmentCache | None = None,
) -> pl.DataFrame:
    """Evaluate ``measures`` on the judged ``queries``: ``query_id`` and one column per measure.

    One :func:`rankframe.evaluate` plan, read wide (:func:`per_query_frame`). Rows follow the
    order of ``queries``; columns are named by ``repr(measure)``. ``doc_ascending`` breaks
    score ties by doc id ascending instead of trec_eval's descending (ir_measures' msmarco and
    judged providers): the run, sorted by doc id, is ranked with ``ties="input"``;
    ``input_order`` ranks the run with ties in its own order (a stable sort on the score:
    ir_measures' accuracy provider). ``kept``: the judgment-side statistics of ``qrels`` kept
    between calls (a :class:`JudgmentCache` the caller holds with the judgments): ``qrels``
    is then passed whole and the plan reads the ``queries``' statistics from it; ``queries``
    are then judged queries, each once (the caller keeps the others), and the rows come
    sorted by query id (the caller orders them).

    Examples
    --------
    >>> import polars as pl
    >>> from rankframe.measures import P
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    >>> per_query_wide(qrels, run, pl.Series(["q2", "q1"]), [P @ 1]).rows()
    [('q2', 0.0), ('q1', 0.0)]
    """
    measures = list(dict.fromkeys(measures))
    names = [repr(m) for m in measures]
    order = None
    if kept is not None:  # (the caller's judged queries, each once: no frame of their order)
        judged, evaluated = qrels, queries.cast(qrels.schema[Q], strict=False).alias(Q)
        restricted = (kept, evaluated)
    else:
        # (the small frames' steps as lazy queries, one collect each: every eager step collects)
        order = (
            queries.cast(qrels.schema[Q], strict=False).alias(Q).to_frame().lazy()
            .unique(Q, keep="first", maintain_order=True)
            .with_row_index(ORDER)
        ).collect(engine="in-memory")
        judged = qrels.lazy().join(order.lazy().select(Q), on=Q, how="semi").collect(engine="in-memory")
        evaluated, restricted = judged.get_column(Q), None
    if evaluated.is_empty():
        return pl.DataFrame(schema={Q: qrels.schema[Q], **dict.fromkeys(names, pl.Float64)})
    ties = "input" if input_order else "trec_eval"
    if doc_ascending:
        run, ties = run.sort([Q, D]), "input"
    with warnings.catch_warnings():
        # pytrec_eval and ir_measures say nothing about queries missing on either side
        warnings.simplefilter("ignore", RankframeWarning)
        wide = per_query_frame(
            judged, run, measures, complete=True, relevance_level=relevance_level,
            judged_only=judged_only, score_dtype=score_dtype, ties=ties, kept=restricted,
        )
    if order is None:
        return wide  # (per_query_frame's columns: query_id and ``names``)
    ordered = wide.lazy().join(order.lazy(), on=Q, how="left").sort(ORDER).select(Q, *names)
    return ordered.collect(engine="in-memory")
