"""Drop-in modules for pytrec_eval and ir_measures: switch by changing one import line.

>>> import rankframe.compat.pytrec_eval as pytrec_eval  # was: import pytrec_eval
>>> import rankframe.compat.ir_measures as ir_measures  # was: import ir_measures

Each module offers its library's API (``RelevanceEvaluator(...).evaluate(run)``;
``calc_aggregate``, ``iter_calc``, ``evaluator``, the measure objects, ``Qrel``/``ScoredDoc``)
with the library's semantics (which queries are reported, under what labels, how scores tie)
and computes the values with one :func:`rankframe.evaluate` plan. Neither library is imported.
Where a value differs on purpose, each module's docstring says where and why.
"""
