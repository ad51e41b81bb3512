"""Measures defined at run time (ir_measures' ``define``, ``define_byquery``): the user's function.

ir_measures' runtime provider hands the user's function the judgments and the run as pandas
frames (the run sorted by query, then score descending, and cut at the measure's cutoff) and
reports what it returns. These are the user's own computations, so they run as given, in
pandas (imported only when such a measure is evaluated); rankframe's measures never come here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, ClassVar

from rankframe._errors import InputError, MeasureError
from rankframe.compat._records import Metric

_RUN = ["query_id", "doc_id", "score"]
_QRELS = ["query_id", "doc_id", "relevance"]


class SelfComputing:
    """ir_measures' methods by which a measure object computes itself (``(P @ 5).calc_aggregate``).

    Mixed into this package's measures (:class:`RuntimeMeasure` and the registry's families),
    through ir_measures' default pipeline.
    """

    __slots__ = ()
    #: The default pipeline computing the measures (``providers.DefaultPipeline`` sets itself).
    pipeline: ClassVar[Any] = None

    def iter_calc(self, qrels: Any, run: Any) -> Iterator[Metric]:
        """Each judged query's value (ir_measures' ``Measure.iter_calc``; see ``iter_calc``)."""
        return self.pipeline.iter_calc([self], qrels, run)

    def calc_aggregate(self, qrels: Any, run: Any) -> float:
        """The value aggregated over the judged queries (ir_measures' ``Measure.calc_aggregate``)."""
        return self.pipeline.calc_aggregate([self], qrels, run)[self]

    def calc(self, qrels: Any, run: Any) -> tuple[float, list[Metric]]:
        """``(aggregated value, per-query metrics)`` (ir_measures' ``Measure.calc``)."""
        aggregated, per_query = self.pipeline.calc([self], qrels, run)
        return aggregated[self], per_query


class RuntimeMeasure(SelfComputing):
    """A measure computed by the user's function (built by :func:`define` / :func:`define_byquery`).

    ``@ k`` (when the function supports a cutoff) passes it the top ``k`` documents of each query.
    """

    DEFAULT = 0.0

    def __init__(
        self,
        impl: Callable[[Any, Any], Iterable[tuple[str, float]]],
        name: str | None,
        *,
        support_cutoff: bool,
        run_inputs: list[str],
        qrel_inputs: list[str],
        cutoff: int | None = None,
        by_query: bool = False,
    ) -> None:
        self.impl, self.NAME, self.support_cutoff, self.by_query = impl, name, support_cutoff, by_query
        self.RUN_INPUTS, self.QREL_INPUTS, self.cutoff = run_inputs, qrel_inputs, cutoff

    @property
    def params(self) -> dict[str, Any]:
        """The cutoff, when set."""
        return {} if self.cutoff is None else {"cutoff": self.cutoff}

    def __call__(self, *, cutoff: int | None = None) -> RuntimeMeasure:
        if cutoff is not None and not self.support_cutoff:
            msg = f"The measure {self!r} was defined with support_cutoff=False: it takes no cutoff."
            raise MeasureError(msg)
        return RuntimeMeasure(
            self.impl,
            self.NAME,
            support_cutoff=self.support_cutoff,
            run_inputs=self.RUN_INPUTS,
            qrel_inputs=self.QREL_INPUTS,
            cutoff=cutoff,
            by_query=self.by_query,
        )

    def __matmul__(self, cutoff: int) -> RuntimeMeasure:
        return self(cutoff=cutoff)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RuntimeMeasure) and (other.impl, other.NAME, other.cutoff) == (
            self.impl,
            self.NAME,
            self.cutoff,
        )

    def __hash__(self) -> int:
        return hash((self.impl, self.NAME, self.cutoff))

    def __repr__(self) -> str:
        name = self.NAME if self.NAME is not None else f"<runtime measure {self.impl.__name__}>"
        return name + (f"@{self.cutoff}" if self.cutoff is not None else "")



def define(
    impl: Callable[[Any, Any], Iterable[tuple[str, float]]],
    name: str | None = None,
    support_cutoff: bool = True,
    *,
    run_inputs: list[str] | None = None,  # noqa: FBT001, FBT002
    qrel_inputs: list[str] | None = None,
) -> RuntimeMeasure:
    """Define a measure by a function of all queries at once (ir_measures' ``define``).

    Parameters
    ----------
    impl : callable
        ``impl(qrels, run)`` on pandas frames, yielding ``(query_id, value)`` pairs.
    name : str, optional
        The measure's name (its repr).
    support_cutoff : bool
        Whether ``measure @ k`` is allowed (the run then holds each query's top ``k``).
    run_inputs, qrel_inputs : list of str, optional
        The columns read (default ``query_id, doc_id, score`` / ``query_id, doc_id, relevance``).

    Returns
    -------
    RuntimeMeasure

    Examples
    --------
    >>> def hits(qrels, run):
    ...     for qid, df in run.merge(qrels, on=["query_id", "doc_id"]).groupby("query_id"):
    ...         yield qid, float((df["relevance"] > 0).sum())
    >>> Hits = define(hits, "Hits")
    >>> (Hits @ 1).calc_aggregate({"q1": {"a": 1}}, {"q1": {"a": 1.0, "b": 2.0}})
    0.0
    """
    return RuntimeMeasure(
        impl,
        name,
        support_cutoff=support_cutoff,
        run_inputs=run_inputs or list(_RUN),
        qrel_inputs=qrel_inputs or list(_QRELS),
    )


def define_byquery(
    impl: Callable[[Any, Any], float],
    name: str | None = None,
    support_cutoff: bool = True,
    *,
    run_inputs: list[str] | None = None,  # noqa: FBT001, FBT002
    qrel_inputs: list[str] | None = None,
) -> RuntimeMeasure:
    """Define a measure by a function of one query (ir_measures' ``define_byquery``).

    Parameters
    ----------
    impl : callable
        ``impl(qrels, run)`` on one query's pandas frames, returning its value.
    name, support_cutoff, run_inputs, qrel_inputs
        As for :func:`define`.

    Returns
    -------
    RuntimeMeasure

    Examples
    --------
    >>> Length = define_byquery(lambda qrels, run: float(len(run)), "Length")
    >>> list((Length @ 1).iter_calc({"q1": {"a": 1}}, {"q1": {"a": 1.0, "b": 2.0}}))
    [Metric(query_id='q1', measure=Length@1, value=1.0)]
    """
    return RuntimeMeasure(
        impl,
        name,
        support_cutoff=support_cutoff,
        run_inputs=run_inputs or list(_RUN),
        qrel_inputs=qrel_inputs or list(_QRELS),
        by_query=True,
    )


def _frame(source: Any, columns: list[str], what: str) -> Any:
    """The judgments or the run as a pandas frame, as ir_measures' runtime provider reads them."""
    import pandas as pd  # noqa: PLC0415 - only measures defined at run time need pandas

    if isinstance(source, pd.DataFrame):
        return source
    if hasattr(source, "to_pandas"):  # Polars, Arrow
        return source.to_pandas()
    if isinstance(source, Mapping):
        rows = [(q, d, v) for q, docs in source.items() for d, v in docs.items()]
        return pd.DataFrame(rows, columns=columns)
    if isinstance(source, Iterable) and not isinstance(source, str | bytes):
        rows = list(source)
        return pd.DataFrame(rows) if rows else pd.DataFrame(columns=columns)
    msg = (
        f"The {what} of a measure defined with define() must be a pandas frame, a dict or "
        f"records; got {type(source).__name__}."
    )
    raise InputError(msg)


def _values(measure: RuntimeMeasure, qrels: Any, run: Any) -> Iterable[tuple[str, float]]:
    if not measure.by_query:
        return measure.impl(qrels, run)
    return (
        (qid, measure.impl(qrels[qrels["query_id"] == qid], ranking))
        for qid, ranking in run.groupby("query_id")
    )


def runtime_metrics(measures: list[RuntimeMeasure], qrels: Any, run: Any) -> Iterator[Metric]:
    """Each judged query's value of each runtime measure, then the defaults (ir_measures' order)."""
    qrels_frame = _frame(qrels, _QRELS, "judgments")
    run_frame = _frame(run, _RUN, "run")
    for frame, what in ((qrels_frame, "judgments"), (run_frame, "run")):
        if "query_id" not in frame.columns:
            msg = f"The {what} have no query_id column (columns: {list(frame.columns)})."
            raise InputError(msg)
    qrels_frame = qrels_frame.sort_values([c for c in ("query_id", "doc_id") if c in qrels_frame.columns])
    keys = [("query_id", True), *([("score", False)] if "score" in run_frame.columns else [])]
    run_frame = run_frame.sort_values([k for k, _ in keys], ascending=[a for _, a in keys])
    expected = {(m, q) for m in measures for q in qrels_frame["query_id"].unique()}
    for measure in measures:
        ranking = run_frame
        if measure.cutoff is not None:
            ranking = run_frame.groupby("query_id").head(measure.cutoff).reset_index(drop=True)
        for qid, value in _values(measure, qrels_frame, ranking):
            expected.discard((measure, qid))
            yield Metric(qid, measure, value)
    for measure, qid in sorted(expected, key=lambda pair: (str(pair[0]), pair[1])):
        yield Metric(qid, measure, measure.DEFAULT)
