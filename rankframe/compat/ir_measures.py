"""ir_measures' API on rankframe: ``import rankframe.compat.ir_measures as ir_measures``.

``calc_aggregate``, ``iter_calc``, ``calc`` and ``evaluator`` take the measures, the judgments
and the run as ir_measures does, and compute the values with :func:`rankframe.evaluate` (one
plan per scoring rule below, usually one). ir_measures itself is never imported.

* **Measures**: this module's objects (``nDCG@10``, ``P(rel=2)@5``, ``AP``: rankframe's
  measures, under ir_measures' names and aliases: ``MAP``, ``MRR``, ``NDCG``, ``Precision``,
  ``Recall``, ``RPrec``, ``BPref``, ``NumRelRet``, ``SetRelP``), genuine ir_measures objects
  (read through their canonical text, ``str(measure)``), or names in any dialect rankframe
  parses (``"nDCG@10"``, ``"ndcg_cut.10"``). Results are keyed by the measures as given.
* **Judgments and runs**: dicts ``{query: {doc: value}}``, iterables of :class:`Qrel` /
  :class:`ScoredDoc` (or any records with those fields), pandas frames with ir_measures'
  columns (``query_id, doc_id, relevance`` / ``query_id, doc_id, score``), and everything
  :func:`rankframe.read_qrels` / :func:`rankframe.read_run` read.
* **Queries**: every judged query is reported (ir_measures' ``Evaluator`` fills in the
  measure's default, 0, for a judged query the run lacks); the run's queries without
  judgments are ignored. A dict's key with an empty ranking (``{"q1": {}}``) is evaluated on
  no documents. Aggregates are means over those queries (sums for ``NumQ``, ``NumRel``,
  ``NumRet``); with no judged query, NaN (sums: 0).
* **Scoring rules** follow the provider ir_measures picks for each measure:

  - pytrec_eval's measures (``P``, ``RR``, ``Rprec``, ``AP``, ``nDCG``, ``R``, ``Bpref``,
    ``infAP``, ``IPrec``, ``Success``, the set and count measures): float32 scores, ties to the
    doc id later in byte order (trec_eval 9);
  - ``RR@k`` (ir_measures' msmarco provider) and ``Judged@k`` (its judged provider): float64
    scores, ties to the doc id *earlier* in byte order (Python's ``sorted`` on ``(-score, doc_id)``);
  - ``ERR@k`` and ``nDCG(dcg='exp-log2')@k`` (gdeval), ``nDCG(dcg='exp-log2')`` (ranx), and
    rankframe's own measures: float64 scores, ties to the doc id later in byte order.

Where the values differ, on purpose:

* gdeval prints 5 decimals: ir_measures' ``ERR@k`` and ``nDCG(dcg='exp-log2')@k`` are rounded,
  this module's are not (they differ by less than 5e-6).
* ranx breaks ties its own way: on tied scores ``nDCG(dcg='exp-log2')`` (no cutoff) may differ.
* From pytrec_eval, as in :mod:`rankframe.compat.pytrec_eval`: ``IPrec@x`` takes
  ``round(x * R)`` relevant documents (trec_eval 10), not ``(long)(x * R + 0.9)``, and is 0 on
  an empty ranking, where pytrec_eval returns NaN or memory garbage.
* A dict's judged query with no judgment (``{"q1": {}}``) is no query here; ir_measures'
  pytrec_eval and judged providers report it (as 0), its other providers do not.
* Measures that only ir_measures' optional providers compute (``Accuracy``, ``Compat``,
  ``alpha_nDCG``, ``ERR_IA``, ``NERR8``..., ``SDCG``, ``INST``, ``BPM``...) and the variants
  rankframe lacks (``AP(judged_only=True)``, ``R(judged_only=True)``...) raise
  :class:`rankframe.MeasureError`; rankframe's other measures (``GMAP``, ``RBP``, ``DCG``...)
  are accepted too. ``parse_measure`` raises ``MeasureError`` (a ``ValueError``) for an unknown
  name, where ir_measures raises ``NameError``.

Examples
--------
>>> import rankframe.compat.ir_measures as ir_measures
>>> from rankframe.compat.ir_measures import AP, P, nDCG
>>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
>>> run = {"q1": {"d1": 1.0, "d2": 2.0}, "q9": {"d1": 1.0}}
>>> ir_measures.calc_aggregate([AP, P @ 1], qrels, run)
{AP: 0.25, P@1: 0.0}
>>> [(m.query_id, str(m.measure), m.value) for m in ir_measures.iter_calc([nDCG @ 2], qrels, run)]
[('q1', 'nDCG@2', 0.6309297535714575), ('q2', 'nDCG@2', 0.0)]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import Any

import polars as pl

import rankframe as rf
from rankframe._engine.collect import aggregate
from rankframe._errors import MeasureError
from rankframe._io.columns import Q
from rankframe._measures import Measure
from rankframe._measures._names import parse_trec
from rankframe.compat._common import per_query_wide, read, run_queries
from rankframe.compat._records import CalcResults, Metric, Qrel, ScoredDoc, read_trec_qrels, read_trec_run
from rankframe.compat.pytrec_eval import supported_nicknames
from rankframe.measures import (
    AP,
    ERR,
    RBP,
    RR,
    Bpref,
    IPrec,
    Judged,
    NumQ,
    NumRel,
    NumRet,
    P,
    R,
    Rprec,
    SetAP,
    SetF,
    SetP,
    SetR,
    Success,
    infAP,
    nDCG,
)

__all__ = [
    "AP",
    "BPref",
    "Bpref",
    "CalcResults",
    "ERR",
    "Evaluator",
    "IPrec",
    "Judged",
    "MAP",
    "MRR",
    "Measure",
    "Metric",
    "NDCG",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "Precision",
    "Qrel",
    "R",
    "RBP",
    "RPrec",
    "RR",
    "Recall",
    "Rprec",
    "ScoredDoc",
    "SetAP",
    "SetF",
    "SetP",
    "SetR",
    "SetRelP",
    "Success",
    "calc",
    "calc_aggregate",
    "evaluator",
    "infAP",
    "iter_calc",
    "nDCG",
    "parse_measure",
    "parse_trec_measure",
    "read_trec_qrels",
    "read_trec_run",
]

# ir_measures' aliases, and its names for parameter settings
MAP = AP
MRR = RR
NDCG = nDCG
Precision = P
Recall = R
RPrec = Rprec
BPref = Bpref
NumRelRet = NumRet(rel=1)
SetRelP = SetP(relative=True)


# ----------------------------------------------------------------------------- measures
def parse_measure(measure: str | Any) -> Any:
    """Parse one measure name (ir_measures syntax: ``nDCG@10``, ``P(rel=2)@5``).

    Parameters
    ----------
    measure : str or measure
        The name; a measure object is returned as it is.

    Returns
    -------
    Measure
        rankframe's measure.

    Raises
    ------
    rankframe.MeasureError
        For an unknown or malformed name (ir_measures raises ``NameError`` for an unknown one).

    Examples
    --------
    >>> parse_measure("nDCG@10"), parse_measure("P(rel=2)@5")
    (nDCG@10, P(rel=2)@5)
    """
    if not isinstance(measure, str):
        return measure
    parsed = rf.parse_measure(measure)
    if len(parsed) != 1:
        msg = f"{measure!r} names {len(parsed)} measures; parse_trec_measure reads trec_eval names."
        raise MeasureError(msg)
    return parsed[0]


def parse_trec_measure(measure: str) -> list[Measure]:
    """Parse a trec_eval name (``ndcg_cut.5,10``, ``P_5``, ``map``, ``official``) into measures.

    Parameters
    ----------
    measure : str
        A trec_eval measure or nickname (pytrec_eval's: trec_eval 9).

    Returns
    -------
    list of Measure
        In trec_eval's order; a nickname gives its measures in name order, without ``runid``
        and ``relstring`` (not numbers).

    Examples
    --------
    >>> parse_trec_measure("ndcg_cut.5,10"), parse_trec_measure("P_5"), parse_trec_measure("map")
    ([nDCG@5, nDCG@10], [P@5], [AP])
    """
    if measure in supported_nicknames:
        names = sorted(n for n in supported_nicknames[measure] if n not in ("runid", "relstring"))
        return [m for name in names for m in parse_trec_measure(name)]
    return [m for _, m in parse_trec(measure)]


def _measures(measures: Iterable[Any] | Any) -> list[tuple[Hashable, Measure]]:
    """(key as given, rankframe measure) pairs, without duplicate keys, in the order given."""
    if isinstance(measures, str | Measure) or not isinstance(measures, Iterable):
        measures = [measures]
    pairs: dict[Hashable, Measure] = {}
    for given in measures:
        parsed = rf.parse_measure(given)
        if len(parsed) == 1:
            pairs.setdefault(given, parsed[0])
        else:  # a trec_eval list ("ndcg_cut.5,10"): keyed by each measure
            for m in parsed:
                pairs.setdefault(m, m)
    if not pairs:
        msg = "No measures were requested. Pass at least one, e.g. [nDCG@10, AP]."
        raise MeasureError(msg)
    return list(pairs.items())


#: Measures ir_measures hands to pytrec_eval (its first provider for them): float32 scores.
_PYTREC_EVAL = frozenset({
    "P", "RR", "Rprec", "AP", "nDCG", "R", "Bpref", "NumRet", "NumRelRet", "NumQ", "NumRel",
    "SetAP", "SetF", "SetP", "SetRelP", "SetR", "Success", "IPrec", "infAP",
})


def _rule(measure: Measure) -> tuple[str, bool]:
    """(score dtype, ties by doc id ascending) of the provider ir_measures picks for a measure."""
    params = measure.params
    if measure.NAME == "Judged" or (measure.NAME == "RR" and params.get("cutoff") is not None):
        return "float64", True  # judged and msmarco providers: sorted(key=(-score, doc_id))
    if measure.NAME in _PYTREC_EVAL and params.get("dcg", "log2") == "log2":
        return "float32", False
    return "float64", False  # gdeval, ranx, and rankframe's own


# ----------------------------------------------------------------------------- evaluation
class Evaluator:
    """Fixed measures and judgments, evaluating one run after another (ir_measures' evaluator).

    Parameters
    ----------
    measures : iterable
        Measure objects (this module's or ir_measures') or names.
    qrels
        ``{query: {doc: grade}}``, :class:`Qrel` records, a pandas frame with ``query_id, doc_id,
        relevance``, or anything :func:`rankframe.read_qrels` reads. Read once, here.

    See Also
    --------
    evaluator : builds one.

    Examples
    --------
    >>> ev = Evaluator([P @ 1], {"q1": {"d1": 1}})
    >>> ev.calc_aggregate({"q1": {"d1": 1.0}}), ev.calc_aggregate({"q1": {"d2": 1.0}})
    ({P@1: 1.0}, {P@1: 0.0})
    """

    def __init__(self, measures: Iterable[Any], qrels: Any) -> None:
        self._pairs = _measures(measures)
        self._qrels = read(qrels, "qrels")
        self._qrel_qids = self._qrels.get_column(Q).unique(maintain_order=True)

    @property
    def measures(self) -> list[Any]:
        """The measures, as given (keys of :meth:`calc_aggregate`)."""
        return [key for key, _ in self._pairs]

    def _per_query(self, run: Any) -> tuple[pl.DataFrame, int]:
        """One row per judged query, one column per measure (repr); how many the run holds.

        The queries the run holds come first, in its order, then the others (value 0).
        """
        frame = read(run, "run")
        queries = run_queries(run, frame)
        rules: dict[tuple[str, bool], list[Measure]] = {}
        for _, m in self._pairs:
            rules.setdefault(_rule(m), []).append(m)
        parts = [
            per_query_wide(self._qrels, frame, queries, measures, score_dtype=score_dtype,
                           doc_ascending=doc_ascending)
            for (score_dtype, doc_ascending), measures in rules.items()
        ]
        wide = parts[0]
        for part in parts[1:]:  # the same queries in the same order: one column block per rule
            wide = wide.join(part, on=Q, how="left", maintain_order="left")
        missing = self._qrel_qids.filter(~self._qrel_qids.is_in(wide.get_column(Q).implode()))
        zeros = pl.DataFrame({Q: missing}).with_columns(
            pl.lit(0.0, pl.Float64).alias(c) for c in wide.columns if c != Q
        )
        return pl.concat([wide, zeros.select(wide.columns).cast(wide.schema)]), wide.height

    def _metrics(self, wide: pl.DataFrame, evaluated: int) -> Iterator[Metric]:
        columns = [(key, wide.columns.index(repr(m))) for key, m in self._pairs]
        rows = wide.rows()
        for row in rows[:evaluated]:
            for key, i in columns:
                yield Metric(row[0], key, row[i])
        # then the judged queries the run lacks, as ir_measures lists them: by measure, then query
        defaults = sorted(((str(key), row[0], key) for key, _ in columns for row in rows[evaluated:]),
                          key=lambda t: (t[0], t[1]))
        for _, qid, key in defaults:
            yield Metric(qid, key, 0.0)

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Yield each judged query's value of each measure.

        Parameters
        ----------
        run
            ``{query: {doc: score}}``, :class:`ScoredDoc` records, a pandas frame with
            ``query_id, doc_id, score``, or anything :func:`rankframe.read_run` reads.

        Yields
        ------
        Metric
            ``(query_id, measure as given, value)``: the queries the run holds first, then the
            judged queries it lacks (value 0), ordered by measure then query.

        Examples
        --------
        >>> ev = Evaluator([P @ 1], {"q1": {"d1": 1}, "q2": {"d2": 1}})
        >>> list(ev.iter_calc({"q2": {"d2": 1.0}}))
        [Metric(query_id='q2', measure=P@1, value=1.0), Metric(query_id='q1', measure=P@1, value=0.0)]
        """
        yield from self._metrics(*self._per_query(run))

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
        >>> Evaluator([P @ 1, NumQ], {"q1": {"d1": 1}, "q2": {"d2": 1}}).calc_aggregate({"q1": {"d1": 1.0}})
        {P@1: 0.5, NumQ: 1.0}
        """
        return self._aggregate(self._per_query(run)[0])

    def _aggregate(self, wide: pl.DataFrame) -> dict[Any, float]:
        measures = list(dict.fromkeys(m for _, m in self._pairs))
        if wide.is_empty():
            return {key: 0 if m.AGGREGATE == "sum" else float("nan") for key, m in self._pairs}
        values = aggregate(wide, measures, []).row(0, named=True)
        return {key: values[repr(m)] for key, m in self._pairs}

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
        >>> Evaluator([P @ 1], {"q1": {"d1": 1}}).calc({"q1": {"d1": 1.0}})
        CalcResults(aggregated={P@1: 1.0}, per_query=[Metric(query_id='q1', measure=P@1, value=1.0)])
        """
        wide, evaluated = self._per_query(run)
        return CalcResults(self._aggregate(wide), list(self._metrics(wide, evaluated)))


def evaluator(measures: Iterable[Any], qrels: Any) -> Evaluator:
    """Fix measures and judgments for several runs (ir_measures' ``evaluator``).

    Parameters
    ----------
    measures : iterable
        Measure objects (this module's or ir_measures') or names.
    qrels
        Judgments (see :class:`Evaluator`).

    Returns
    -------
    Evaluator
        With ``iter_calc(run)``, ``calc_aggregate(run)`` and ``calc(run)``.

    Examples
    --------
    >>> ev = evaluator([AP], {"q1": {"d1": 1, "d2": 1}})
    >>> ev.calc_aggregate({"q1": {"d1": 2.0, "d3": 1.0}})
    {AP: 0.5}
    """
    return Evaluator(measures, qrels)


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
    """Yield each judged query's value of each measure (ir_measures' ``iter_calc``).

    Parameters
    ----------
    measures : iterable
        Measure objects (this module's or ir_measures') or names.
    qrels
        Judgments (see :class:`Evaluator`).
    run
        The run (see :meth:`Evaluator.iter_calc`).

    Returns
    -------
    iterator of Metric
        ``(query_id, measure, value)`` for every judged query.

    Examples
    --------
    >>> list(iter_calc([RR], {"q1": {"d1": 1}}, {"q1": {"d0": 2.0, "d1": 1.0}}))
    [Metric(query_id='q1', measure=RR, value=0.5)]
    """
    return evaluator(measures, qrels).iter_calc(run)


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> dict[Any, float]:
    """Aggregate each measure over the judged queries (ir_measures' ``calc_aggregate``).

    Parameters
    ----------
    measures : iterable
        Measure objects (this module's or ir_measures') or names.
    qrels
        Judgments (see :class:`Evaluator`).
    run
        The run (see :meth:`Evaluator.iter_calc`).

    Returns
    -------
    dict
        ``{measure as given: value}`` (see :meth:`Evaluator.calc_aggregate`).

    Examples
    --------
    >>> # q1: rel = 0, 1 (RR 1/2); q2 is judged but not retrieved (RR 0): (1/2 + 0) / 2
    >>> calc_aggregate([RR, "P@2"], {"q1": {"d1": 1}, "q2": {"d2": 1}}, {"q1": {"d0": 2.0, "d1": 1.0}})
    {RR: 0.25, 'P@2': 0.25}
    """
    return evaluator(measures, qrels).calc_aggregate(run)


def calc(measures: Iterable[Any], qrels: Any, run: Any) -> CalcResults:
    """Aggregated and per-query values at once (ir_measures' ``calc``).

    Parameters
    ----------
    measures : iterable
        Measure objects (this module's or ir_measures') or names.
    qrels
        Judgments (see :class:`Evaluator`).
    run
        The run (see :meth:`Evaluator.iter_calc`).

    Returns
    -------
    CalcResults
        ``(aggregated, per_query)``.

    Examples
    --------
    >>> calc([P @ 1], {"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}).aggregated
    {P@1: 1.0}
    """
    return evaluator(measures, qrels).calc(run)
