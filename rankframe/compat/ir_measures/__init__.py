"""ir_measures' API on rankframe: ``import rankframe.compat.ir_measures as ir_measures``.

``calc_aggregate``, ``iter_calc``, ``calc`` and ``evaluator`` take the measures, the judgments
and the run as ir_measures does, and compute the values with :func:`rankframe.evaluate` (one
plan per scoring rule below, usually one). So do the measures themselves
(``(P @ 5).calc_aggregate(qrels, run)``) and the provider namespaces (``ir_measures.gdeval``,
``.pytrec_eval``, ``.ranx``...: :mod:`~rankframe.compat.ir_measures.providers` says what each
computes); ``define`` and ``define_byquery`` run the user's own function on pandas frames, as
ir_measures does. ir_measures itself is never imported, nor are pytrec_eval or ranx.

* **Measures**: this module's objects (``nDCG@10``, ``P(rel=2)@5``, ``AP``: rankframe's
  measures, under ir_measures' names and aliases: ``MAP``, ``MRR``, ``NDCG``, ``Precision``,
  ``Recall``, ``RPrec``, ``BPref``, ``NumRelRet`` (``NumRet(rel=1)``), ``SetRelP``
  (``SetP(relative=True)``); :mod:`~rankframe.compat.ir_measures.measures`), rankframe's own,
  genuine ir_measures objects (read through their canonical text, ``str(measure)``), or names
  in any dialect rankframe parses (``"nDCG@10"``, ``"ndcg_cut.10"``). Results are keyed by the
  measures as given.
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
  - ``ERR@k`` and ``nDCG(dcg='exp-log2')@k`` (gdeval): float64 scores, ties to the doc id
    later in byte order, values rounded to 5 decimals as gdeval prints them;
  - ``nDCG(dcg='exp-log2')`` (ranx), and rankframe's own measures: float64 scores, ties to
    the doc id later in byte order.

  An infinite score ranks first (``-inf`` last) under every rule: it is read as the largest
  float64 of its sign (so it ties with a score of ``±sys.float_info.max``, as it would not in
  ir_measures).

Where the values differ, on purpose:

* gdeval's rounding to 5 decimals is Polars' here, which may differ in the last digit from
  Perl's ``%.5f`` on a value halfway between two decimals.
* ranx breaks ties its own way: on tied scores ``nDCG(dcg='exp-log2')`` (no cutoff) may differ.
* From pytrec_eval, as in :mod:`rankframe.compat.pytrec_eval`: ``IPrec@x`` is 0 on an empty
  ranking, where pytrec_eval returns NaN or memory garbage.
* A dict's judged query with no judgment (``{"q1": {}}``) is no query here; ir_measures'
  pytrec_eval and judged providers report it (as 0), its other providers do not.
* ``Compat`` (ir_measures' compat provider: float64 scores, ties to the doc id earlier in byte
  order) and ``Accuracy`` (its accuracy provider: ties in the run's own order; a query without
  a relevant retrieved document is not reported, and a mean over none is NaN) are rankframe's
  families. Compat's ideal ranking puts a grade's retrieved documents in the run's order, where
  ir_measures sorts them by score, an unretrieved one scoring 0: the two differ where a
  relevant document scores <= 0 or relevant documents of one grade tie. Accuracy with
  ``rel <= 0`` never counts an unjudged document relevant (ir_measures reads it as grade 0);
  where every retrieved document is relevant it scores 1 (ir_measures divides by zero).
* rankframe's other measures (``GMAP``, ``RBP``, ``DCG``...) are accepted too.
  ``parse_measure`` raises ``MeasureError`` (a ``ValueError``) for an unknown name, where
  ir_measures raises ``NameError``.
* cwl_eval's provider reports ``CwlMetric`` records as ir_measures does, every field computed
  by rankframe's C/W/L family (its ``expect`` parameter; ``P``, ``RR``, ``AP``, ``RBP`` in
  cwl_eval's C/W/L forms), with ties in the run's order; its sums may differ from numpy's in
  the last bits (within 1e-14).
* ndeval's diversity measures (``alpha_nDCG``, ``ERR_IA``, ``NRBP``...: the pyndeval provider)
  are rankframe's, with pyndeval's numbers but one: a query without a relevant subtopic has
  ``nNRBP`` 0 here, NaN (0/0) in pyndeval.
* ir_measures' private input converters (``ir_measures.util.QrelsConverter``...) are not
  imitated.
* Inputs: integer ids are read (as strings beside string ones), where ir_measures' pytrec_eval
  provider raises ``TypeError``; a NaN score raises :class:`rankframe.InputError` (pytrec_eval
  leaves it where its sort happens to; a pandas NaN is reported as null); a (query, doc) pair
  twice in a frame or a list of records raises ``InputError``, where ir_measures keeps the
  last; a run query with an empty ranking scores ``Judged@k`` 0, where ir_measures' judged
  provider divides by zero.
* Errors are rankframe's (:class:`~rankframe.InputError`, :class:`~rankframe.MeasureError`,
  both ``ValueError``) with a one-line message, where ir_measures raises ``TypeError`` (a
  non-integer grade, a score that is not a number), ``KeyError`` (an unknown parameter,
  ``nDCG(foo=1)``) or, when computing, ``AssertionError`` (``AP@10.5``, ``Rprec@5``,
  ``P(rel=1.5)``, ``IPrec`` without a recall level): ``parse_measure`` checks the
  parameters already. A name given to ``calc_aggregate`` is parsed (ir_measures:
  ``AttributeError``), in any dialect (``"P_5"``, ``"ndcg_cut.10"``).
* Measures print with rankframe's parameter values: ``INST(T=2.0)``, ``IPrec@0.5``,
  ``nDCG(gains={0: 0.0, 1: 1.0, 2: 3.0})@10`` where ir_measures echoes what was typed
  (``INST(T=2)``, ``nDCG(gains={2:3})@10``). ``calc_aggregate``'s dict follows the order of
  the measures given; ir_measures' follows its providers' sets.

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

from rankframe.compat._records import CalcResults, Metric, Qrel, ScoredDoc, read_trec_qrels, read_trec_run
from rankframe.compat.ir_measures import measures, providers
from rankframe.compat.ir_measures._cwl import CwlMetric
from rankframe.compat.ir_measures._parse import parse_measure, parse_trec_measure
from rankframe.compat.ir_measures._pipeline import Evaluator, Provider
from rankframe.compat.ir_measures._runtime import define, define_byquery
from rankframe.compat.ir_measures.measures import *  # noqa: F403 - ir_measures' measure objects
from rankframe.compat.ir_measures.measures import Measure
from rankframe.compat.ir_measures.measures import __all__ as _MEASURES
from rankframe.compat.ir_measures.providers import (
    DefaultPipeline,
    accuracy,
    compat,
    cwl_eval,
    gdeval,
    judged,
    msmarco,
    pyndeval,
    pytrec_eval,
    ranx,
    runtime,
    trectools,
)

evaluator = DefaultPipeline.evaluator
iter_calc = DefaultPipeline.iter_calc
calc_aggregate = DefaultPipeline.calc_aggregate
calc = DefaultPipeline.calc
run_inputs = DefaultPipeline.run_inputs
qrel_inputs = DefaultPipeline.qrel_inputs

__all__ = [  # noqa: PLE0604
    *_MEASURES,
    "CalcResults",
    "CwlMetric",
    "DefaultPipeline",
    "Evaluator",
    "Measure",
    "Metric",
    "Provider",
    "Qrel",
    "ScoredDoc",
    "accuracy",
    "calc",
    "calc_aggregate",
    "compat",
    "cwl_eval",
    "define",
    "define_byquery",
    "evaluator",
    "gdeval",
    "iter_calc",
    "judged",
    "measures",
    "msmarco",
    "parse_measure",
    "parse_trec_measure",
    "providers",
    "pyndeval",
    "pytrec_eval",
    "qrel_inputs",
    "ranx",
    "read_trec_qrels",
    "read_trec_run",
    "run_inputs",
    "runtime",
    "trectools",
]
