r"""A drop-in for ranx 0.3.21: ``import rankframe.compat.ranx as ranx`` (was: ``import ranx``).

``Qrels``, ``Run``, ``evaluate``, ``compare`` (its ``Report``) and ``ranx.metrics`` with ranx's
semantics, every value computed by :func:`rankframe.evaluate`; ranx, numba and pandas are not
imported (pandas only when a DataFrame is asked for).

- **Tie order.** ranx ranks a ``Run``'s tied documents in the order numba's quicksort leaves
  them (insertion order up to 16 documents, its own permutation beyond), a plain dict's in
  reverse insertion order (up to 16), and per-query arrays in the given order. The drop-in
  computes that order (:mod:`~rankframe.compat.ranx._order`) and evaluates with
  ``ties="input"``. ``rankframe.evaluate(ranx_qrels, ranx_run)`` instead breaks ties by doc id
  (trec_eval), so on tied runs the two differ where a cutoff or a rank cuts through a tie.
  A NaN score sorts after every number (numba's float order) and, like an infinite one, is
  evaluated where it ranks, as ranx does (``rankframe.evaluate`` refuses both).
- **Names and conventions** (:mod:`~rankframe.compat.ranx._scoring`): ``hits``, ``hit_rate``,
  ``precision``, ``recall``, ``f1``, ``r-precision``, ``mrr``, ``map``, ``dcg``,
  ``dcg_burges``, ``ndcg``, ``ndcg_burges``, ``bpref``, ``rbp.95``, each with ``@k`` and
  ``-lN``. ``precision`` without ``k`` is over the run's length; nDCG's IDCG is over the
  judgments of grade >= the level with their raw grades (0 when there are none: the query
  scores 0); RBP weighs documents by their raw grades; bpref is NaN (0/0) for a query without
  judged non-relevant documents that retrieves a relevant one, and counts every judgment
  below the level non-relevant (a negative grade too, where trec_eval skips it); a query
  without judgments scores 0.
- **Known differences.** ranx hashes doc ids (``hash(doc)`` as float64) and counts a document
  repeated in an array run at each copy; the drop-in matches ids exactly and counts the first.
  ranx's IDCG over an unsorted judgments *array* uses the array's order; the drop-in's is the
  ideal one. ``compare``'s randomization test draws its own permutations (rankframe's), so its
  p-values are close to, not equal to, ranx's. ranx 0.3.21's ``bpref`` over 10 or more queries
  runs in parallel threads and can give other values than query by query; the drop-in gives the
  query-by-query ones. ``f1`` may differ from ranx's in the last bit (``2 * hits / (k + R)``
  against ranx's ``2 * P * R / (P + R)``).
- **Inputs and errors.** Integer ids are read as strings (ranx: ``TypeError``); empty
  ``Qrels``/``Run`` (``{}``, ``{"q": {}}``) are built (ranx: ``ValueError`` from ``max()``);
  ``from_df`` reads integer ids and integral float grades (ranx asserts the column dtypes) but
  refuses a fractional grade or a missing value. Bad input raises rankframe's one-line
  :class:`~rankframe.InputError` / :class:`~rankframe.MeasureError` (``ValueError``s) where ranx
  raises ``AssertionError`` (query ids that differ, ``k < 0``, a file ``kind``),
  ``FileNotFoundError``, ``KeyError`` or ``AttributeError``; ``compare`` with no metric raises
  ``MeasureError`` (ranx: ``KeyError``). A ``Run``'s ``repr`` is its dict's.
- **Fusion and normalisation**: ``ranx.fusion`` (every method, the ``*_train`` functions,
  ``fusion_switch``), ``ranx.normalization`` (``min_max_norm``... ``borda_norm``,
  ``norm_switch``), ``fuse`` and ``normalize``, each computed by :func:`rankframe.fuse` (its
  normalisations and training) from the runs' stored order, ties in ranx's order; results are
  ``Run``\s named as ranx names them, over the first run's queries. Condorcet scores
  ``1 + wins + ties / 2`` (Copeland), ranx's score wherever the majorities order the documents.
  Runs holding a NaN score fuse otherwise than in ranx where the NaN counts: the rank-based
  methods (``rrf``, ``isr``, ``bordafuse``...) rank it as :func:`rankframe.fuse` does, and
  ``max`` skips it (ranx's max is NaN). With ``norm="borda"`` a rank-based method ranks the
  normalised runs by their Borda scores; ranx ranks them in the hash order of its candidate
  set, so its result changes with ``PYTHONHASHSEED``. A ``wsum`` weight list shorter than the
  runs raises ``InputError`` (ranx returns empty rankings).
- **Fusion search and plots**: ``optimize_fusion`` searches ranx's grid in ranx's order (the
  last of equal scores wins) and returns ranx's parameters and ``OptimizationReport``, every
  candidate fused from the runs normalised and aligned once and all of them evaluated in one
  plan (:mod:`~rankframe.compat.ranx._optimize`); ``plot`` draws ranx's interpolated
  precision-recall curves with matplotlib. ``Run.from_ranxhub`` (a download) raises a one-line
  ``NotImplementedError``.

Examples
--------
>>> import rankframe.compat.ranx as ranx
>>> qrels = ranx.Qrels({"q1": {"d1": 1, "d2": 1}})
>>> run = ranx.Run({"q1": {"d3": 0.5, "d1": 0.5, "d2": 0.1}}, name="bm25")
>>> float(ranx.evaluate(qrels, run, "precision@1"))  # the tie keeps d3 first, as in ranx
0.0
"""

from __future__ import annotations

from rankframe.compat.ranx import fusion, metrics, normalization
from rankframe.compat.ranx._compare import compare
from rankframe.compat.ranx._evaluate import evaluate
from rankframe.compat.ranx._meta import fuse, normalize
from rankframe.compat.ranx._optimize import optimize_fusion
from rankframe.compat.ranx._plot import plot
from rankframe.compat.ranx.data_structures import Qrels, Report, Run

__all__ = [
    "Qrels",
    "Report",
    "Run",
    "compare",
    "evaluate",
    "fuse",
    "fusion",
    "metrics",
    "normalization",
    "normalize",
    "optimize_fusion",
    "plot",
]
