r"""ranx metric names as rankframe measures, and per-query values from one :func:`rankframe.evaluate`.

Each ranx metric is one rankframe measure, or a weighted sum of them, computed on rows handed
over in ranx's order with ``ties="input"``:

- ``hits``, ``hit_rate``, ``precision``, ``recall``, ``f1``, ``r-precision``, ``mrr``, ``map``:
  ``Hits``, ``HitRate``, ``P``, ``R``, ``F1``, ``Rprec``, ``RR``, ``AP`` with ``rel`` the
  level of ``-lN`` (default 1) and the cutoff of ``@k`` (none: the whole ranking);
- ``dcg``, ``ndcg`` (Järvelin: grade / log2(rank + 1)) and ``dcg_burges``, ``ndcg_burges``
  ((2^grade - 1) / log2(rank + 1)): ``DCG``/``nDCG`` (``dcg="exp-log2"``); ranx drops the
  judgments below the level and keeps the others' raw grades, which is the gain map
  ``{g: g if g >= level else 0}``, passed when the level is not 1 or a grade is negative;
- ``bpref``: ``Bpref``; ranx divides by ``min(R, N)``, so a query without judged
  non-relevant documents that retrieves a relevant one is NaN (0/0) where trec_eval says 1;
  ranx counts every judgment below the level as non-relevant, a negative grade too (trec_eval
  skips those as unjudged): with a negative grade, bpref is evaluated on grades shifted to
  ``max(grade - level + 1, 0)`` (one more plan per level);
- ``rbp.95``: ranx weighs a document by its raw grade, not a 0/1 gain:
  :math:`(1-p)\sum_i g_i p^{i-1} = \ell\,RBP_{\ge \ell} + \sum_{t > \ell} RBP_{\ge t}` over
  the binary ``RBP(p, rel=t)`` (integer grades, level :math:`\\ell \\ge 1`).

Queries whose judgments are empty score 0, as in ranx.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

import rankframe as rf
from rankframe import measures as M
from rankframe._errors import InputError, MeasureError, RankframeWarning

#: Metric names ranx accepts, as its ``metric_switch`` lists them.
NAMES = ("hits", "hit_rate", "precision", "recall", "f1", "r-precision", "mrr", "map", "dcg",
         "dcg_burges", "ndcg", "ndcg_burges", "bpref", "rbp")
_BINARY = {"hits": M.Hits, "hit_rate": M.HitRate, "precision": M.P, "recall": M.R, "f1": M.F1,
           "mrr": M.RR, "map": M.AP}


@dataclass(frozen=True)
class Metric:
    """A ranx metric: its name, cutoff ``k`` (0: none; RBP's persistence), relevance level."""

    name: str
    k: float
    level: int
    terms: list[tuple[Any, float]] = field(default_factory=list, compare=False)


def parse(metric: str) -> Metric:
    """Read a ranx metric name (``ndcg@10``, ``map``, ``precision@5-l2``, ``rbp.95``).

    Examples
    --------
    >>> m = parse("precision@5-l2")
    >>> (m.name, m.k, m.level)
    ('precision', 5, 2)
    >>> parse("rbp.95").k
    0.95
    """
    if not isinstance(metric, str):
        msg = f"metrics: {metric!r} is not a metric name (a str such as 'ndcg@10')"
        raise MeasureError(msg)
    m = re.fullmatch(r"(?P<name>[a-z0-9_\-]+?)(?:[@.](?P<k>\d+))?(?:-l(?P<l>-?\d+))?", metric)
    if m is None or m.group("name") not in NAMES:
        msg = f"metrics: {metric!r} is not a ranx metric; use one of {', '.join(NAMES)} (e.g. 'ndcg@10')"
        raise MeasureError(msg)
    name, k = m.group("name"), m.group("k")
    if name == "rbp" and k is None:
        msg = f"metrics: {metric!r}: RBP needs its persistence, e.g. 'rbp.95'"
        raise MeasureError(msg)
    cutoff = float(f"0.{k}") if name == "rbp" else int(k or 0)
    return Metric(name, cutoff, int(m.group("l") or 1))


def _terms(metric: Metric, grades: Sequence[int]) -> list[tuple[Any, float]]:
    """The rankframe measures whose weighted sum is ``metric``."""
    name, level = metric.name, metric.level
    cutoff = int(metric.k) or None if name != "rbp" else None
    if name in _BINARY:
        return [(_BINARY[name](cutoff=cutoff, rel=level), 1.0)]
    if name == "r-precision":
        return [(M.Rprec(rel=level), 1.0)]
    if name == "bpref":
        return [(M.Bpref(rel=level), 1.0)]
    if name == "rbp":
        top = max([g for g in grades if g > level], default=level)
        return [(M.RBP(p=metric.k, rel=level), float(level)),
                *[(M.RBP(p=metric.k, rel=t), 1.0) for t in range(level + 1, top + 1)]]
    dcg = "exp-log2" if name.endswith("_burges") else "log2"
    gains = None
    if level != 1 or any(g < 0 for g in grades):
        gains = {g: float(g) if g >= level else 0.0 for g in grades}
    cls = M.nDCG if name.startswith("ndcg") else M.DCG
    return [(cls(cutoff=cutoff, dcg=dcg, gains=gains), 1.0)]


def per_query(qrels: pl.DataFrame, run: pl.DataFrame, queries: Sequence[str],
              metrics: Sequence[str]) -> dict[str, np.ndarray]:
    """Each metric's value per query of ``queries`` (in that order), from one evaluation.

    ``qrels``: ``query_id, doc_id, relevance``; ``run``: ``[run,] query_id, doc_id, score`` in
    ranx's order (ranked with ``ties="input"``), without duplicate documents. With a ``run``
    column the keys are ``(run, metric)``.

    Examples
    --------
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    >>> per_query(qrels, run, ["q1"], ["mrr"])["mrr"].tolist()  # ties kept in row order
    [0.5]
    """
    grades = qrels.get_column("relevance").unique().to_list()
    parsed = [parse(m) for m in metrics]
    terms = {m: _terms(p, grades) for m, p in zip(metrics, parsed, strict=True)}
    unique = list(dict.fromkeys(t for ts in terms.values() for t, _ in ts))
    runs = run.get_column("run").unique(maintain_order=True).to_list() if "run" in run.columns else [None]
    order = pl.DataFrame({"query_id": list(queries)}, schema={"query_id": pl.String}).with_row_index("_pos")
    if qrels.is_empty() or run.is_empty():
        values = pl.DataFrame(schema={"run": pl.String, "query_id": pl.String, "measure": pl.String,
                                      "value": pl.Float64})
    else:
        run = _ranked_as_given(run)
        with warnings.catch_warnings():  # ranx says nothing about queries missing on either side
            warnings.simplefilter("ignore", RankframeWarning)
            values = rf.evaluate(qrels, run, unique, per_query=True, complete=True, ties="input",
                                 partitions=1)
            values = _bpref_below_zero(qrels, run, values, {p.level for p in parsed if p.name == "bpref"})
    if "run" not in values.columns:
        values = values.with_columns(run=pl.lit(None, pl.String))
    nonrel = qrels.group_by("query_id").agg(
        [(pl.col("relevance") < lvl).sum().alias(f"n{lvl}") for lvl in {p.level for p in parsed}]
    )
    out: dict[Any, np.ndarray] = {}
    for r in runs:
        mine = values if r is None else values.filter(pl.col("run") == r)
        table = order.join(nonrel, on="query_id", how="left")
        for t in unique:
            col = mine.filter(pl.col("measure") == str(t)).select("query_id", pl.col("value").alias(str(t)))
            table = table.join(col, on="query_id", how="left")
        table = table.sort("_pos").fill_null(0.0)
        for m, p in zip(metrics, parsed, strict=True):
            v = sum(w * table.get_column(str(t)).to_numpy() for t, w in terms[m])
            v = np.asarray(v, dtype=np.float64)
            if p.name == "bpref":  # ranx: 0/0 without judged non-relevant documents
                v = np.where((table.get_column(f"n{p.level}").to_numpy() == 0) & (v > 0), np.nan, v)
            out[m if r is None else (r, m)] = v
    return out


def _ranked_as_given(run: pl.DataFrame) -> pl.DataFrame:
    """``run`` with its rows' rank as the score where a score is NaN or infinite.

    The rows are in ranx's order already (NaN last, as numba sorts it); ranx evaluates such a
    ranking, :func:`rankframe.evaluate` refuses the score, so it gets the rows' rank instead.
    """
    if run.get_column("score").is_finite().all():
        return run
    keys = ["run", "query_id"] if "run" in run.columns else ["query_id"]
    return run.with_columns((-pl.int_range(pl.len()).over(keys)).cast(pl.Float64).alias("score"))


def _bpref_below_zero(qrels: pl.DataFrame, run: pl.DataFrame, values: pl.DataFrame,
                      levels: set[int]) -> pl.DataFrame:
    """``values`` with ranx's bpref at each of ``levels`` where a grade is below 0.

    ranx counts every judgment below the level as judged non-relevant, a negative grade too;
    rankframe's ``Bpref`` (trec_eval's) skips negative grades as unjudged. Where some grade is
    negative, each level's bpref is evaluated again (one plan per level) on the grades shifted
    to ``max(grade - level + 1, 0)`` with ``Bpref(rel=1)``: the same relevant documents
    (grade >= level), and every other judged one non-relevant, as in ranx.
    """
    if not levels or qrels.get_column("relevance").min() >= min(0, *levels):
        return values  # (a negative grade at a level >= 1, or any grade below a level <= 0)
    again = []
    for level in sorted(levels):
        shifted = qrels.with_columns((pl.col("relevance") - (level - 1)).clip(lower_bound=0))
        value = rf.evaluate(shifted, run, [M.Bpref(rel=1)], per_query=True, complete=True,
                            ties="input", partitions=1)
        again.append(value.with_columns(pl.lit(str(M.Bpref(rel=level))).alias("measure")))
    names = [str(M.Bpref(rel=level)) for level in levels]
    kept = values.filter(~pl.col("measure").is_in(names))
    return pl.concat([kept, *(v.select(kept.columns) for v in again)], how="vertical_relaxed")


def measure_values(qrels: pl.DataFrame, run: pl.DataFrame, queries: Sequence[str],
                   measures: Sequence[Any]) -> dict[str, np.ndarray]:
    """rankframe ``measures`` per query of ``queries`` (0 where not evaluated), by their names."""
    order = pl.DataFrame({"query_id": list(queries)}, schema={"query_id": pl.String}).with_row_index("_pos")
    out = {str(m): np.zeros(len(queries)) for m in measures}
    if qrels.is_empty() or run.is_empty():
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankframeWarning)
        values = rf.evaluate(qrels, run, list(measures), per_query=True, complete=True, ties="input",
                             partitions=1)
    for name in out:
        col = values.filter(pl.col("measure") == name).select("query_id", "value")
        joined = order.join(col, on="query_id", how="left").sort("_pos")
        out[name] = joined.get_column("value").fill_null(0.0).to_numpy()
    return out


def check_k(metric: str) -> None:
    """Refuse a negative cutoff, as ranx's ``assert k >= 0``."""
    if re.search(r"@-\d", metric):
        msg = f"metrics: {metric!r}: k must be >= 0"
        raise InputError(msg)
