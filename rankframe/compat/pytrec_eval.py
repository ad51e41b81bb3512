"""pytrec_eval's API on rankframe: ``import rankframe.compat.pytrec_eval as pytrec_eval``.

``RelevanceEvaluator(qrels, measures).evaluate(run)`` returns pytrec_eval's nested dict
``{query: {label: value}}`` with trec_eval's labels (``map``, ``P_5``, ``ndcg_cut_10``,
``iprec_at_recall_0.10``, ``num_ret``...), computed by one :func:`rankframe.evaluate` plan.
pytrec_eval itself is never imported.

pytrec_eval's semantics, each reproduced:

* **Queries**: the run's keys that have judgments, in the run's order. A key with an empty
  ranking (``{"q1": {}}``) is evaluated on no documents; a query only in the qrels, or only
  in the run, is left out. A qrels entry with no judgment (``{"q1": {}}``) is no query.
* **Scores** are compared as C ``float`` (trec_eval 9): ``score_dtype="float32"``, so scores
  that only float64 tells apart tie, and ties go to the doc id later in byte order. An
  infinite score ranks first (``-inf`` last), as in pytrec_eval.
* **Measure specs**: pytrec_eval's own rules. Nicknames (``official``, ``set``, ``all_trec``)
  expand; ``P``, ``P.5`` and ``P_10`` merge into one ``P.10,5`` (a bare name then adds no
  default cutoffs); parameters of a parameterless measure (``map.5``) are ignored; a measure
  with one value prints its bare name whatever its parameters (``set_F.2`` -> ``set_F``).
* **Values** are Python floats; counts too (``num_ret`` is ``2.0``). ``gm_map`` and
  ``gm_bpref`` are ``log(max(value, 1e-5))`` per query (their mean is the log of the
  geometric mean: :func:`compute_aggregated_measure` takes it back); ``runid`` and
  ``relstring`` are ``0.0``.
* **Errors**: ``TypeError`` for ill-typed arguments (a non-string id, a non-integer grade,
  a non-positive relevance level) and ``ValueError`` for an unsupported measure, with
  pytrec_eval's messages.

* ``iprec_at_recall`` and ``11pt_avg`` turn the recall level ``x`` into a number of relevant
  documents as trec_eval 9 does, ``(long)(x * R + 0.9)`` (``IPrec(rounding='trec_eval9')``),
  where :func:`rankframe.evaluate` follows trec_eval 10's ``round(x * R)``: the two differ
  where those differ (``x = 0.1, R = 2``: 1 vs 0 document).
* No measure (``set()``, ``{}``): each of the run's judged queries maps to ``{}``.

Where the values differ, on purpose:

* On an empty ranking (``{"q1": {}}``, or one that ``judged_docs_only_flag`` empties) those two
  measures are 0; trec_eval 9 divides 0 by 0 there and pytrec_eval returns NaN or, depending on
  memory left by earlier calls, 0.
* A query whose judgments are all negative: pytrec_eval's gain measures (``ndcg``, ``G``...)
  read freed memory and may hang; rankframe scores it 0.
* Specs that crash pytrec_eval (``P.0``: segmentation fault; gain maps such as ``ndcg.1=3``:
  C assertion) raise :class:`rankframe.MeasureError` (a ``ValueError``) here, and so do
  ``utility`` coefficients that pytrec_eval's merge does not pass on as four
  (``utility.1,-1,0,0`` reaches trec_eval as ``utility.1``; pytrec_eval returns 0).
* A NaN score raises :class:`rankframe.InputError` (a ``ValueError``): trec_eval's sort
  compares it as neither above nor below the others and leaves it where its qsort happens to.
* Grades beyond 32 bits (``2**40``) are kept; pytrec_eval reads them modulo 2**32 (0
  there) or crashes. An id holding a NUL character is kept whole; pytrec_eval cuts it there.
* Arguments pytrec_eval mishandles raise ``TypeError`` with pytrec_eval's words: a negative
  ``relevance_level`` (pytrec_eval accepts it and may crash), ``evaluate(None)`` (pytrec_eval
  returns ``{}``), judgments that are not a dict (pytrec_eval: ``AttributeError``).

Examples
--------
>>> import rankframe.compat.pytrec_eval as pytrec_eval
>>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
>>> run = {"q1": {"d1": 1.0, "d2": 2.0}, "q2": {"d3": 0.5}, "q9": {"d1": 1.0}}
>>> evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.1"})
>>> evaluator.evaluate(run)
{'q1': {'map': 0.5, 'P_1': 0.0}, 'q2': {'map': 1.0, 'P_1': 1.0}}
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import polars as pl

from rankframe._engine.hits import JudgmentCache
from rankframe._errors import InputError, MeasureError
from rankframe._io.columns import REL, D, Q, S
from rankframe._measures import MIN_GEO_MEAN, TREC_NAMES, Measure
from rankframe._measures._names import NICKNAMES, parse_trec
from rankframe.compat._common import infinite_as_largest, per_query_wide, read, run_queries

__all__ = [
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]

#: Measures trec_eval 10 added; pytrec_eval bundles trec_eval 9.
_TREC_EVAL_10 = frozenset({"unj", "rbp", "rbp_resid"})
#: trec_eval 9's measures in the order it computes them, which is the order of pytrec_eval's
#: labels in each query's dict (trec_eval 10 moved some: ``NICKNAMES["all_trec"]``).
_ORDER = {name: i for i, name in enumerate((
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
    "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret",
))}
#: Labels pytrec_eval reports as 0.0: their values are strings in trec_eval.
_NOT_NUMERIC = ("runid", "relstring")
#: Their recall levels become numbers of documents with trec_eval 9's rounding.
_ROUNDED = ("iprec_at_recall", "11pt_avg")
#: Per query, pytrec_eval keeps the log of these (floored at 1e-5), and averages the logs.
_LOGGED = ("gm_map", "gm_bpref")

#: The measures pytrec_eval computes (trec_eval 9's).
supported_measures: set[str] = {name for name in NICKNAMES["all_trec"] if name not in _TREC_EVAL_10}
#: pytrec_eval's nicknames and the measures each expands to. pytrec_eval also lists ``prefs``,
#: ``all_prefs`` and ``qrels_jg``, whose measures it cannot compute (it raises ``ValueError``
#: for them, as this module does for the nicknames).
supported_nicknames: dict[str, set[str]] = {
    nick: {name for name in names if name in supported_measures} for nick, names in NICKNAMES.items()
}

#: pytrec_eval's parameter syntax after a measure name: ``.5``, ``_5,10``, ``.0.1,0.25``.
_PARAMS = r"[\._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """Read TREC run lines (``query Q0 doc rank score tag``) into ``{query: {doc: score}}``.

    Parameters
    ----------
    f_run : iterable of str
        The lines, e.g. an open file.

    Returns
    -------
    dict
        ``{query_id: {doc_id: score}}`` (a ``defaultdict(dict)``, as pytrec_eval returns).

    Raises
    ------
    AssertionError
        When a document appears twice for a query (pytrec_eval's exception).

    Examples
    --------
    >>> dict(parse_run(["q1 Q0 d1 1 2.5 bm25", "q1 Q0 d2 2 1.5 bm25"]))
    {'q1': {'d1': 2.5, 'd2': 1.5}}
    """
    run: dict[str, dict[str, float]] = collections.defaultdict(dict)
    for line in f_run:
        query_id, _, doc_id, _, score, _ = line.strip().split()
        if doc_id in run[query_id]:
            msg = f"Document {doc_id!r} appears twice for query {query_id!r} in the run."
            raise AssertionError(msg)
        run[query_id][doc_id] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """Read TREC qrels lines (``query 0 doc grade``) into ``{query: {doc: grade}}``.

    Parameters
    ----------
    f_qrel : iterable of str
        The lines, e.g. an open file.

    Returns
    -------
    dict
        ``{query_id: {doc_id: grade}}`` (a ``defaultdict(dict)``, as pytrec_eval returns).

    Raises
    ------
    AssertionError
        When a document is judged twice for a query (pytrec_eval's exception).

    Examples
    --------
    >>> dict(parse_qrel(["q1 0 d1 2", "q1 0 d2 0"]))
    {'q1': {'d1': 2, 'd2': 0}}
    """
    qrel: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for line in f_qrel:
        query_id, _, doc_id, relevance = line.strip().split()
        if doc_id in qrel[query_id]:
            msg = f"Document {doc_id!r} is judged twice for query {query_id!r} in the qrels."
            raise AssertionError(msg)
        qrel[query_id][doc_id] = int(relevance)
    return qrel


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """Aggregate a measure's per-query values as trec_eval does.

    Parameters
    ----------
    measure : str
        The label (``map``, ``num_ret``, ``gm_map``...): ``num_*`` are summed, ``gm_*`` (whose
        per-query values are logs) are ``exp`` of their mean, the others averaged.
    values : list of float
        The per-query values, e.g. ``[v["map"] for v in evaluator.evaluate(run).values()]``.

    Returns
    -------
    float
        The aggregate (numpy's sum and mean, as pytrec_eval computes it: the same bits).

    Examples
    --------
    >>> compute_aggregated_measure("map", [0.5, 1.0]), compute_aggregated_measure("num_ret", [2.0, 3.0])
    (0.75, 5.0)
    """
    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


def _expand_nicknames(measures: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for measure in measures:
        out.update(supported_nicknames.get(measure, {measure}))
    return out


def _combine(measures: Iterable[str]) -> dict[str, set[str]]:
    """pytrec_eval's merge of specs: base name -> parameter strings (empty: the defaults)."""
    params: dict[str, set[str]] = {}
    utility: list[str] = []  # (the utility specs with coefficients)
    for measure in measures:
        if not isinstance(measure, str):
            msg = f"expected string or bytes-like object, got {type(measure).__name__!r}"
            raise TypeError(msg)
        if measure in supported_measures:
            params.setdefault(measure, set())
            continue
        for base in sorted(supported_measures):
            found = re.match(re.escape(base) + _PARAMS, measure)
            if found is not None:
                params.setdefault(base, set()).update(found.group(1).split(","))
                utility += [measure] if base == "utility" else []
                break
        else:
            msg = f"unsupported measure {measure}"
            raise ValueError(msg)
    if utility:
        _check_utility(utility, params["utility"])
    return params


def _check_utility(specs: list[str], values: set[str]) -> None:
    """Refuse a utility spec whose coefficients pytrec_eval's merge does not pass on as 4.

    pytrec_eval reads a spec's parameters up to the first character that is no digit, comma
    or point (a minus sign ends them) and merges them as a sorted set; trec_eval then gets too
    few coefficients and pytrec_eval returns 0 for every query.
    """
    if len(values) != 4:
        read = f"utility.{','.join(sorted(values))}"
        spec = " and ".join(repr(s) for s in sorted(specs))
        msg = (f"pytrec_eval reads {spec} as {read!r} (its parameters stop at a minus sign and "
               "are merged as a sorted set), not utility's 4 coefficients a, b, c, d: pytrec_eval "
               "returns 0 for every query. Use 'utility' (1, -1, 0, 0) here, or rankframe.evaluate "
               "with 'utility.1,-1,0,0'.")
        raise MeasureError(msg)


def _takes_no_parameters(base: str) -> bool:
    """A trec_eval measure without parameters (trec_eval 9 ignores any it is given)."""
    return getattr(TREC_NAMES[base], "takes_no_parameters", False)


def _labelled(base: str, params: set[str]) -> list[tuple[str, Measure | None]]:
    """(pytrec_eval label, measure) pairs for one merged spec; None for the string measures."""
    if base in _NOT_NUMERIC:
        return [(base, None)]
    if not params or _takes_no_parameters(base):
        pairs = parse_trec(base)
    else:
        pairs = parse_trec(f"{base}.{','.join(sorted(params))}")
        if [label for label, _ in parse_trec(base)] == [base]:
            # one value, printed under the bare name whatever the parameters (trec_eval 9)
            pairs = [(base, measure) for _, measure in pairs]
    if base in _ROUNDED:
        pairs = [(label, measure.replace(rounding="trec_eval9")) for label, measure in pairs]
    return pairs


class RelevanceEvaluator:
    """Evaluate runs against fixed judgments with trec_eval's measures (pytrec_eval's class).

    Parameters
    ----------
    query_relevance : mapping
        ``{query_id: {doc_id: grade}}`` with string ids and integer grades (negative: judged
        "in pool but unjudged", as trec_eval reads it).
    measures : iterable of str
        trec_eval measure specs and nicknames: ``{"map", "ndcg_cut.10", "P.5,10"}``,
        ``{"ndcg_cut"}`` (every default cutoff), ``{"all_trec"}``. A string is iterated
        character by character, as pytrec_eval does: pass a set.
    relevance_level : int, default 1
        Minimum grade counted as relevant by the binary measures (trec_eval ``-l``).
    judged_docs_only_flag : bool, default False
        Drop the retrieved documents without a non-negative judgment first (trec_eval ``-J``).

    Raises
    ------
    TypeError
        For ill-typed judgments or relevance level (pytrec_eval's messages).
    ValueError
        For an unsupported measure (``unsupported measure X``) or one rankframe cannot
        parse (:class:`rankframe.MeasureError`).

    See Also
    --------
    rankframe.evaluate : the evaluation underneath, with every option named.

    Notes
    -----
    The judgments are read once, here; each :meth:`evaluate` call is one
    :func:`rankframe.evaluate` plan with ``complete=True`` over the judgments of the run's
    topics, ``score_dtype="float32"`` and trec_eval's tie-break (doc id descending).

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d2": 1}}
    >>> evaluator = RelevanceEvaluator(qrels, {"P.1,2", "num_rel"}, relevance_level=2)
    >>> evaluator.evaluate({"q1": {"d1": 1.0, "d2": 2.0}})
    {'q1': {'num_rel': 1.0, 'P_1': 0.0, 'P_2': 0.5}}
    """

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        if not isinstance(query_relevance, Mapping) or not isinstance(relevance_level, int):
            msg = "Expected object_relevance_per_qid dictionary and measures set."
            raise TypeError(msg)
        if relevance_level <= 0:
            msg = "Argument relevance_level should be positive."
            raise TypeError(msg)
        combined = _combine(_expand_nicknames(measures))
        pairs = [pair for base in sorted(combined, key=_ORDER.__getitem__) for pair in
                 _labelled(base, combined[base])]
        self._labels = [label for label, _ in pairs]
        self._measures = {label: m for label, m in pairs}
        self._relevance_level = relevance_level
        self._judged_only = bool(judged_docs_only_flag)
        # pytrec_eval drops the topics without judgments (its issue 57)
        judged = {q: docs for q, docs in query_relevance.items() if docs}
        self._qrels = _read_checked(judged, REL) if judged else None
        self._topics = frozenset(judged)
        # the judgments' per-query statistics, computed by the first call and read by the next
        # (and their number per query: a call's engine is chosen by its own queries' judgments)
        counts = None if self._qrels is None else dict(self._qrels.group_by(Q).len().iter_rows())
        self._kept = JudgmentCache(counts=counts)

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """Evaluate one run: ``{query_id: {label: value}}`` for its judged topics.

        Parameters
        ----------
        scores : mapping
            The run, ``{query_id: {doc_id: score}}``.

        Returns
        -------
        dict
            ``{query_id: {label: value}}`` (Python floats) for the run's topics that have
            judgments, in the run's order; ``{}`` for an empty run.

        Examples
        --------
        >>> evaluator = RelevanceEvaluator({"q1": {"d1": 1}, "q2": {"d2": 1}}, {"recip_rank"})
        >>> evaluator.evaluate({"q2": {"d1": 3.0, "d2": 1.0}, "q1": {}})
        {'q2': {'recip_rank': 0.5}, 'q1': {'recip_rank': 0.0}}
        """
        if not isinstance(scores, Mapping):
            msg = "Argument object scores should be of type dictionary."
            raise TypeError(msg)
        if not scores or self._qrels is None:
            return {}
        run = infinite_as_largest(_read_checked(scores, S))
        measures = [m for m in self._measures.values() if m is not None]
        if not measures:  # nothing to compute: the judged topics, each with its string labels
            return {q: dict.fromkeys(self._labels, 0.0) for q in scores if q in self._topics}
        queries = run_queries(scores, run)
        topics = [q for q in queries.to_list() if q in self._topics]  # (the run's judged keys)
        if not topics:
            return {}
        wide = per_query_wide(
            self._qrels, run, pl.Series(Q, topics, dtype=pl.String), measures,
            relevance_level=self._relevance_level, judged_only=self._judged_only,
            score_dtype="float32", kept=self._kept,
        )
        # each label's column as Python floats (Series steps: a frame's select is a query of
        # its own, ~0.1 ms of a one-query call)
        columns = []
        for label in self._labels:
            measure = self._measures[label]
            if measure is None:
                columns.append([0.0] * wide.height)
                continue
            value = wide.get_column(repr(measure)).cast(pl.Float64)
            if label.startswith(_LOGGED):
                value = value.clip(lower_bound=MIN_GEO_MEAN).log()
            columns.append(value.to_list())
        labels = self._labels
        rows = dict(zip(wide.get_column(Q).to_list(), zip(*columns, strict=True), strict=True))
        # in the run's order
        return {qid: dict(zip(labels, rows[qid], strict=True)) for qid in topics if qid in rows}


def _read_checked(source: Mapping[str, Mapping[str, Any]], value: str) -> pl.DataFrame:
    """Read a dict with pytrec_eval's type checks: string ids, integer grades, number scores."""
    bad_value = (
        "Expected relevance to be integer." if value == REL else "Unable to extract query/object scores."
    )
    try:
        frame = read(source, "qrels" if value == REL else "run")
    except InputError as exc:
        if all(isinstance(docs, Mapping) for docs in source.values()):
            raise TypeError(bad_value) from exc
        msg = "Expected mapping of document id to query relevance or matching score."
        raise TypeError(msg) from exc
    if frame.schema[Q] != pl.String:
        msg = "Expected string as key."
        raise TypeError(msg)
    if frame.schema[D] != pl.String and frame.height:
        msg = "Expected mapping of document id to query relevance or matching score."
        raise TypeError(msg)
    dtype = frame.schema[value]
    if frame.height and not (dtype.is_integer() if value == REL else dtype.is_numeric()):
        raise TypeError(bad_value)
    return frame

