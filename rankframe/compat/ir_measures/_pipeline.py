"""Evaluators and providers: ir_measures' ``Provider``/``Evaluator`` API over one rankframe plan.

An ir_measures *provider* is a library that computes some measures with its own conventions.
Here a :class:`Provider` is a :class:`Convention` (score precision, tie order, rounding) and the
measures it accepts; every value comes from :func:`rankframe.evaluate`, one plan per convention
among the measures requested. :data:`DefaultPipeline` picks, for each measure, the convention of
the first provider ir_measures would pick.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import polars as pl

import rankframe as rf
from rankframe._engine.collect import aggregate
from rankframe._errors import MeasureError
from rankframe._io.columns import Q
from rankframe._measures import Measure
from rankframe.compat._common import infinite_as_largest, per_query_wide, read, run_queries
from rankframe.compat._records import CalcResults, Metric
from rankframe.compat.ir_measures._cwl import CwlMetric
from rankframe.compat.ir_measures._runtime import RuntimeMeasure, runtime_metrics
from rankframe.compat.ir_measures.measures import Unsupported, as_compat, as_rankframe


@dataclass(frozen=True)
class Convention:
    """How a provider ranks and reports: score precision, tie order, decimals printed.

    Attributes
    ----------
    score_dtype : {"float64", "float32"}
        ``float32``: pytrec_eval's scores (trec_eval 9).
    doc_ascending : bool
        Ties to the doc id earlier in byte order (Python's ``sorted`` on ``(-score, doc_id)``:
        the judged and msmarco providers); else later (trec_eval).
    places : int, optional
        Per-query values rounded to this many decimals (gdeval prints ``%.5f``).
    input_order : bool
        Ties in the order the run gives its documents (a stable sort on the score alone: the
        accuracy provider).
    """

    score_dtype: str = "float64"
    doc_ascending: bool = False
    places: int | None = None
    input_order: bool = False


def parse_one(given: Any) -> Any:
    """A measure as given (object of any library, or name) as this package's object."""
    from rankframe.compat.ir_measures._parse import parse_measure  # noqa: PLC0415

    if isinstance(given, Unsupported | RuntimeMeasure):
        return given
    if isinstance(given, Measure):
        return as_compat(given)
    if isinstance(given, str):
        return parse_measure(given)
    return parse_measure(str(given))  # a genuine ir_measures object, by its canonical text


def measure_pairs(measures: Iterable[Any] | Any) -> list[tuple[Hashable, Any]]:
    """(key as given, measure) pairs without duplicate keys, in the order given.

    A trec_eval list given as one name (``"ndcg_cut.5,10"``) is keyed by each measure.
    """
    from rankframe.compat.ir_measures._parse import parse_trec_measure  # noqa: PLC0415

    if isinstance(measures, str | Measure | Unsupported | RuntimeMeasure) or not isinstance(
        measures, Iterable
    ):
        measures = [measures]
    pairs: dict[Hashable, Any] = {}
    for given in measures:
        try:
            pairs.setdefault(given, parse_one(given))
        except MeasureError:
            if not isinstance(given, str) or len(rf.parse_measure(given)) < 2:
                raise
            for m in parse_trec_measure(given):  # a trec_eval list ("ndcg_cut.5,10")
                pairs.setdefault(m, m)
    if not pairs:
        msg = "No measures were requested. Pass at least one, e.g. [nDCG@10, AP]."
        raise MeasureError(msg)
    for measure in pairs.values():
        if isinstance(measure, Unsupported):
            raise measure.error()
    return list(pairs.items())


def _source(data: Any) -> Any:
    """Judgments or a run as :func:`read` takes them: no records (``[]``) is an empty dict."""
    if hasattr(data, "__next__"):  # a generator: read once, and it may be empty
        data = list(data)
    if isinstance(data, list | tuple) and not data:
        return {}
    return data


class Evaluator:
    """Fixed measures and judgments, evaluating one run after another (ir_measures' ``Evaluator``).

    Parameters
    ----------
    measures : iterable
        Measure objects (this package's, rankframe's or ir_measures') or names.
    qrels
        ``{query: {doc: grade}}``, ``Qrel`` records, a pandas frame with ``query_id, doc_id,
        relevance``, or anything :func:`rankframe.read_qrels` reads. Read once, here.
    convention : callable
        The :class:`Convention` of each measure.
    computes : callable, optional
        The measure a provider computes for the one asked (gdeval's ``nDCG@k`` is
        ``nDCG(dcg='exp-log2')@k``); by default the measure itself.
    details : callable, optional
        For a provider whose records carry more than the value (cwl_eval's :class:`CwlMetric`):
        the rankframe measures of a measure's other fields, in the record's order (an empty
        tuple: a plain :class:`Metric`).

    Examples
    --------
    >>> from rankframe.compat.ir_measures import P, evaluator
    >>> ev = evaluator([P @ 1], {"q1": {"d1": 1}})
    >>> ev.calc_aggregate({"q1": {"d1": 1.0}}), ev.calc_aggregate({"q1": {"d2": 1.0}})
    ({P@1: 1.0}, {P@1: 0.0})
    """

    def __init__(
        self,
        measures: Iterable[Any],
        qrels: Any,
        convention: Callable[[Any], Convention],
        computes: Callable[[Any], Any] | None = None,
        details: Callable[[Any], tuple[Measure, ...]] | None = None,
    ) -> None:
        self._pairs = measure_pairs(measures)
        self._convention = convention
        self._computes = computes or (lambda m: m)
        self._details = details or (lambda _m: ())
        runtime = [m for _, m in self._pairs if isinstance(m, RuntimeMeasure)]
        if hasattr(qrels, "__next__"):
            qrels = list(qrels)  # read once (and twice with runtime measures)
        self._runtime_qrels = qrels if runtime else None
        ranked = [m for _, m in self._pairs if not isinstance(m, RuntimeMeasure)]
        self._qrels = read(_source(qrels), "qrels") if ranked or not runtime else None
        self._qrel_qids = (
            self._qrels.get_column(Q).unique(maintain_order=True) if self._qrels is not None else None
        )

    def _rankframe(self, measure: Any) -> Measure:
        return as_rankframe(self._computes(measure))

    @property
    def measures(self) -> list[Any]:
        """The measures, as given (keys of :meth:`calc_aggregate`)."""
        return [key for key, _ in self._pairs]

    def _per_query(self, run: Any) -> tuple[pl.DataFrame, int]:
        """One row per judged query, one column per rankframe measure (repr); how many the run holds.

        The queries the run holds come first, in its order, then the others (value 0).
        """
        if self._qrels is None:
            return pl.DataFrame(), 0
        run = _source(run)
        frame = infinite_as_largest(read(run, "run"))
        queries = run_queries(run, frame)
        qrels, qrel_qids = self._qrels, self._qrel_qids
        if qrels.schema[Q] != frame.schema[Q]:  # (integer ids beside string ones: read as strings)
            qrels, frame = (f.with_columns(pl.col(Q).cast(pl.String)) for f in (qrels, frame))
            queries, qrel_qids = queries.cast(pl.String), qrel_qids.cast(pl.String)
        groups: dict[Convention, list[Measure]] = {}
        for _, m in self._pairs:
            if not isinstance(m, RuntimeMeasure):
                group = groups.setdefault(self._convention(m), [])
                group += [self._rankframe(m), *self._details(m)]
        parts = []
        for conv, measures in groups.items():
            part = per_query_wide(
                qrels,
                frame,
                queries,
                measures,
                score_dtype=conv.score_dtype,
                doc_ascending=conv.doc_ascending,
                input_order=conv.input_order,
            )
            if conv.places is not None:
                part = part.with_columns(pl.col(repr(m)).round(conv.places) for m in measures)
            parts.append(part)
        wide = parts[0]
        for part in parts[1:]:  # the same queries in the same order: one column block per convention
            wide = wide.join(part, on=Q, how="left", maintain_order="left")
        missing = qrel_qids.filter(~qrel_qids.is_in(wide.get_column(Q).implode()))
        # ir_measures' value for a judged query the run lacks: 0, None for an undefined one
        defaults = {repr(self._rankframe(m)): m.DEFAULT for _, m in self._pairs if hasattr(m, "DEFAULT")}
        zeros = pl.DataFrame({Q: missing}).with_columns(
            pl.lit(defaults.get(c, 0.0), pl.Float64).alias(c) for c in wide.columns if c != Q
        )
        return pl.concat([wide, zeros.select(wide.columns).cast(wide.schema)]), wide.height

    def _metrics(self, wide: pl.DataFrame, evaluated: int, run: Any) -> Iterator[Metric]:
        ranked = [(key, m) for key, m in self._pairs if not isinstance(m, RuntimeMeasure)]
        if ranked:
            columns = [(key, wide.columns.index(repr(self._rankframe(m)))) for key, m in ranked]
            details = {key: [wide.columns.index(repr(d)) for d in self._details(m)] for key, m in ranked}
            rows = wide.rows()
            for row in rows[:evaluated]:
                for key, i in columns:
                    if details[key]:  # cwl_eval's record, with the C/W/L expectations
                        yield CwlMetric(row[0], key, row[i], *(row[j] for j in details[key]))
                    elif row[i] is not None:  # None: undefined, not reported (Accuracy)
                        yield Metric(row[0], key, row[i])
            # then the judged queries the run lacks, as ir_measures lists them: by measure, then query
            defaults = sorted(
                ((str(key), row[0], key, row[i]) for key, i in columns for row in rows[evaluated:]),
                key=lambda t: (t[0], t[1]),
            )
            for _, qid, key, value in defaults:
                if value is not None:
                    yield Metric(qid, key, value)
        runtime = [m for _, m in self._pairs if isinstance(m, RuntimeMeasure)]
        if runtime:
            yield from runtime_metrics(runtime, self._runtime_qrels, run)

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Yield each judged query's value of each measure.

        Parameters
        ----------
        run
            ``{query: {doc: score}}``, ``ScoredDoc`` records, a pandas frame with
            ``query_id, doc_id, score``, or anything :func:`rankframe.read_run` reads.

        Yields
        ------
        Metric
            ``(query_id, measure as given, value)``: the queries the run holds first, then the
            judged queries it lacks (value 0), ordered by measure then query.

        Examples
        --------
        >>> from rankframe.compat.ir_measures import P, evaluator
        >>> list(evaluator([P @ 1], {"q1": {"d1": 1}, "q2": {"d2": 1}}).iter_calc({"q2": {"d2": 1.0}}))
        [Metric(query_id='q2', measure=P@1, value=1.0), Metric(query_id='q1', measure=P@1, value=0.0)]
        """
        if hasattr(run, "__next__"):
            run = list(run)
        yield from self._metrics(*self._per_query(run), run)

    def calc_aggregate(self, run: Any) -> dict[Any, float]:
        """Aggregate each measure over the judged queries.

        Parameters
        ----------
        run
            As for :meth:`iter_calc`.

        Returns
        -------
        dict
            ``{measure as given: value}``: the mean over the judged queries (0 for those the run
            lacks), the sum for counts (``NumQ``, ``NumRel``, ``NumRet``); NaN (counts: 0)
            without any judged query.

        Examples
        --------
        >>> from rankframe.compat.ir_measures import NumQ, P, evaluator
        >>> evaluator([P @ 1, NumQ], {"q1": {"d1": 1}, "q2": {"d2": 1}}).calc_aggregate({"q1": {"d1": 1.0}})
        {P@1: 0.5, NumQ: 1.0}
        """
        return self.calc(run).aggregated

    def _aggregate(self, wide: pl.DataFrame, runtime: list[Metric]) -> dict[Any, float]:
        out: dict[Any, float] = {}
        ranked = [(key, self._rankframe(m)) for key, m in self._pairs if not isinstance(m, RuntimeMeasure)]
        if ranked and not wide.is_empty():
            values = aggregate(wide, list(dict.fromkeys(m for _, m in ranked)), []).row(0, named=True)
            # a mean over no defined value (every query undefined) is NaN, as ir_measures says
            out.update({key: _nan(values[repr(m)]) for key, m in ranked})
        else:
            out.update({key: 0 if m.AGGREGATE == "sum" else float("nan") for key, m in ranked})
        for key, m in self._pairs:
            if isinstance(m, RuntimeMeasure):
                values = [metric.value for metric in runtime if metric.measure == key]
                out[key] = sum(values) / len(values) if values else float("nan")
        return {key: out[key] for key, _ in self._pairs}

    def calc(self, run: Any) -> CalcResults:
        """Aggregated and per-query values at once.

        Parameters
        ----------
        run
            As for :meth:`iter_calc`.

        Returns
        -------
        CalcResults
            ``(aggregated, per_query)``: :meth:`calc_aggregate`'s dict and :meth:`iter_calc`'s list.

        Examples
        --------
        >>> from rankframe.compat.ir_measures import P, evaluator
        >>> evaluator([P @ 1], {"q1": {"d1": 1}}).calc({"q1": {"d1": 1.0}})
        CalcResults(aggregated={P@1: 1.0}, per_query=[Metric(query_id='q1', measure=P@1, value=1.0)])
        """
        if hasattr(run, "__next__"):
            run = list(run)
        wide, evaluated = self._per_query(run)
        metrics = list(self._metrics(wide, evaluated, run))
        runtime = [m for m in metrics if isinstance(m.measure, RuntimeMeasure)]
        return CalcResults(self._aggregate(wide, runtime), metrics)


class Provider:
    """A measure provider of ir_measures (``ir_measures.pytrec_eval``...), computing through rankframe.

    Parameters
    ----------
    name : str
        ir_measures' name of the provider.
    accepts : callable
        Whether the provider supports a measure (this package's object), as ir_measures' says
        (``supports``).
    convention : Convention or callable
        How it ranks and reports (:class:`Convention`), or the convention of each measure.
    families : frozenset of str, optional
        The families it computes when asked directly (``provider.iter_calc``), beyond what it
        supports (ir_measures' providers compute what they can, unchecked); by default those
        ``accepts`` says.
    computes : callable, optional
        The measure it computes for the one asked (see :class:`Evaluator`).
    details : callable, optional
        The measures of a record's other fields (see :class:`Evaluator`).

    Examples
    --------
    >>> from rankframe.compat.ir_measures import ERR, gdeval
    >>> gdeval.supports(ERR @ 5), gdeval.supports(ERR)
    (True, False)
    """

    def __init__(
        self,
        name: str,
        accepts: Callable[[Any], bool],
        convention: Convention | Callable[[Any], Convention] = Convention(),
        *,
        families: frozenset[str] | None = None,
        computes: Callable[[Any], Any] | None = None,
        details: Callable[[Any], tuple[Measure, ...]] | None = None,
    ) -> None:
        self.NAME = name
        self._accepts = accepts
        self._convention = convention if callable(convention) else (lambda _m: convention)
        self._families = families
        self._computes = computes
        self._details = details

    def __repr__(self) -> str:
        return f"<rankframe.compat.ir_measures provider {self.NAME!r}>"

    def supports(self, measure: Any) -> bool:
        """Whether this provider computes ``measure`` (an object or a name)."""
        try:
            return bool(self._accepts(parse_one(measure)))
        except MeasureError:
            return False

    def evaluator(self, measures: Iterable[Any], qrels: Any) -> Evaluator:
        """An :class:`Evaluator` for these measures and judgments, which scores run after run.

        Raises
        ------
        rankframe.MeasureError
            For a measure this provider does not compute.
        """
        for _, measure in measure_pairs(measures):
            known = self._accepts(measure) if self._families is None else measure.NAME in self._families
            if not known:
                msg = (
                    f"The ir_measures provider {self.NAME!r} does not compute {measure}; "
                    "use ir_measures.evaluator (the default pipeline) to have one chosen."
                )
                raise MeasureError(msg)
        return Evaluator(measures, qrels, self._convention, self._computes, self._details)

    def iter_calc(self, measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
        """Each judged query's value of each measure (see :meth:`Evaluator.iter_calc`)."""
        return self.evaluator(measures, qrels).iter_calc(run)

    def calc_aggregate(self, measures: Iterable[Any], qrels: Any, run: Any) -> dict[Any, float]:
        """Each measure aggregated over the judged queries (see :meth:`Evaluator.calc_aggregate`)."""
        return self.evaluator(measures, qrels).calc_aggregate(run)

    def calc(self, measures: Iterable[Any], qrels: Any, run: Any) -> CalcResults:
        """Aggregated and per-query values (see :meth:`Evaluator.calc`)."""
        return self.evaluator(measures, qrels).calc(run)

    def run_inputs(self, measures: Iterable[Any]) -> list[str]:
        """The run's columns the measures read."""
        return _inputs(measures, "RUN_INPUTS", ["query_id", "doc_id", "score"])

    def qrel_inputs(self, measures: Iterable[Any]) -> list[str]:
        """The judgments' columns the measures read."""
        return _inputs(measures, "QREL_INPUTS", ["query_id", "doc_id", "relevance"])

    def is_available(self) -> bool:
        """Always true: rankframe computes every provider's measures."""
        return True


def _nan(value: float | None) -> float:
    """None (no defined value to aggregate) as NaN."""
    return float("nan") if value is None else value


def _inputs(measures: Iterable[Any], attribute: str, default: list[str]) -> list[str]:
    inputs: dict[str, None] = {}
    for measure in measures:
        inputs.update(dict.fromkeys(getattr(measure, attribute, default)))
    return list(inputs)
