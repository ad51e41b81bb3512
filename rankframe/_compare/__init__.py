"""Deciding between systems: paired tests and intervals, comparisons, report tables and figures.

Imported on first use of :func:`rankframe.compare` (the statistics need scipy). Above the
engine: a comparison evaluates its runs per query with :func:`rankframe.evaluate`.

Modules by role (this package module imports none of them):

* :mod:`.comparison`: :func:`compare` and its result, :class:`Comparison`; :mod:`.pairs` tests the
  compared pairs of one measure's query x run matrix.
* Statistics (numpy, scipy): :mod:`.stats` gathers :mod:`.descriptive`, :mod:`.paired`,
  :mod:`.resampling`, :mod:`.tukey` and :mod:`.corrections`, which share the input checks of
  :mod:`.arrays`.
* Output (Polars; matplotlib for figures): :mod:`.tables`, :mod:`.figures` (drawn by
  :mod:`.plots`) and :mod:`.html_report`, which share the frame helpers of :mod:`.frames`.

The names of the tests and corrections are here, for the command line's parser (which is built
before any command runs, without the statistics).
"""

#: The tests :func:`rankframe.compare` runs (``test=``).
TESTS = ("t", "wilcoxon", "permutation", "bootstrap", "tukey")
#: The corrections for multiple comparisons it applies (``correction=``).
CORRECTIONS = ("holm", "bh", "bonferroni", "none")
