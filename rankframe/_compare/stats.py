"""Vectorised paired significance tests for comparing ranking systems over the same queries.

The statistics of :func:`rankframe.compare`, importable from here (with scipy.stats): intervals
and counts (:mod:`~rankframe._compare.descriptive`), the paired t and Wilcoxon signed-rank tests
(:mod:`~rankframe._compare.paired`), the randomisation and bootstrap tests
(:mod:`~rankframe._compare.resampling`), Tukey's HSD (:mod:`~rankframe._compare.tukey`) and the
multiple-comparison corrections (:mod:`~rankframe._compare.corrections`).

Every function takes a matrix of per-query scores and works on all of its columns in one
vectorised pass:

* ``x``: scores, shape ``(n_queries, n_systems)``;
* ``d``: paired differences, shape ``(n_queries, n_pairs)``, each column a system minus its
  baseline over the same queries.

Inputs must be complete: a NaN (or an infinity) raises :class:`~rankframe.RankframeError` (a
:class:`ValueError`); drop or fill the queries a system has no score for before testing.

The resampling tests (:func:`permutation`, :func:`bootstrap`) apply the same random draws to
every column (see :mod:`~rankframe._compare.resampling`).

References
----------
.. [1] M. D. Smucker, J. Allan and B. Carterette, "A comparison of statistical significance
   tests for information retrieval evaluation", CIKM 2007.
.. [2] T. Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014.
.. [3] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993.
.. [4] S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian
   Journal of Statistics 6(2), 1979.
.. [5] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate: a practical and
   powerful approach to multiple testing", JRSS B 57(1), 1995.
"""

from __future__ import annotations

from rankframe._compare.corrections import CORRECTIONS, correct
from rankframe._compare.descriptive import effect_size, mean_ci, wins_ties_losses
from rankframe._compare.paired import paired_t, wilcoxon
from rankframe._compare.resampling import bootstrap, permutation
from rankframe._compare.tukey import tukey_hsd

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "bootstrap",
    "correct",
    "effect_size",
    "mean_ci",
    "paired_t",
    "permutation",
    "tukey_hsd",
    "wilcoxon",
    "wins_ties_losses",
]


#: The paired tests, by the names ``compare()`` accepts.
TESTS: tuple[str, ...] = ("t", "wilcoxon", "permutation", "bootstrap")
