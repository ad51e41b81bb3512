"""Drop-in modules for pytrec_eval, ir_measures and ranx: switch by changing one import line.

>>> import rankframe.compat.pytrec_eval as pytrec_eval  # was: import pytrec_eval
>>> import rankframe.compat.ir_measures as ir_measures  # was: import ir_measures
>>> import rankframe.compat.ranx as ranx  # was: import ranx

Each module offers its library's API (``RelevanceEvaluator(...).evaluate(run)``;
``calc_aggregate``, ``iter_calc``, ``evaluator``, the measure objects, ``Qrel``/``ScoredDoc``;
ranx's ``Qrels``, ``Run``, ``evaluate``, ``compare`` and ``Report``, ``ranx.metrics``)
with the library's semantics (which queries are reported, under what labels, how scores tie)
and computes the values with one :func:`rankframe.evaluate` plan. None of the libraries is
imported.
Where a value differs on purpose, each module's docstring says where and why.
"""
