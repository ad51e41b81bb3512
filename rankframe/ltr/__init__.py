"""Learning to rank on top of rankframe: LETOR data, linear rankers, losses and the evaluation protocol.

* :func:`read_svmlight` reads SVMlight / LETOR files (``label qid:Q id:value ... # docid = X``),
  :func:`split_by_query` splits queries (never documents) at random, :func:`to_frames` turns
  labels and scores into the qrels and run frames of :func:`rankframe.evaluate`;
* :func:`loss_and_grad` and :func:`loss_frame` compute the ranking losses of :data:`LOSSES`;
* :class:`LinearRanker` is a linear scoring function trained by mini-batch Adam on any of
  :data:`TRAINABLE`;
* :func:`learn` trains every loss over a small grid, selects on validation and evaluates the
  selected models on test once.

Examples
--------
>>> import numpy as np
>>> from rankframe.ltr import LetorData, LinearRanker, split_by_query
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(400, 3))
>>> qid = np.repeat(np.array([f"q{i}" for i in range(40)]), 10)
>>> y = np.digitize(X @ np.array([1.0, -2.0, 0.5]), [-1.0, 1.0]).astype(float)
>>> data = LetorData(X, y, qid, np.array([f"d{i}" for i in range(400)]), np.arange(0, 401, 10))
>>> train, valid = split_by_query(data, (0.75, 0.25), seed=0)
>>> model = LinearRanker().fit(train, "ranknet", epochs=20, lr=0.05, seed=0)
>>> w = model.coef_ / np.abs(model.coef_).max()
>>> bool(w[1] < -0.9 and w[0] > 0.2)
True
"""

from __future__ import annotations

from rankframe.ltr._data import LetorData, read_svmlight, split_by_query, to_frames
from rankframe.ltr._linear import TRAINABLE, FitHistory, LinearRanker, validation_score
from rankframe.ltr._loss_common import LOSSES
from rankframe.ltr._loss_numpy import loss_and_grad
from rankframe.ltr._loss_polars import loss_frame
from rankframe.ltr._protocol import DEFAULT_CONFIGS, Config, LearnReport, learn

__all__ = [
    "DEFAULT_CONFIGS",
    "LOSSES",
    "TRAINABLE",
    "Config",
    "FitHistory",
    "LearnReport",
    "LetorData",
    "LinearRanker",
    "learn",
    "loss_and_grad",
    "loss_frame",
    "read_svmlight",
    "split_by_query",
    "to_frames",
    "validation_score",
]
