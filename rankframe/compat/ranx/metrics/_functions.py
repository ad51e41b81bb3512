"""ranx's metric functions over per-query ``[[doc, value], ...]`` arrays, through rankframe.

``precision(qrels, run, k)`` and the others take what ranx's take: for each query an array of
``[doc, grade]`` rows (the judgments) and one of ``[doc, score]`` rows ranked in the given
order (the run), as a numba typed List, a list, or a 3-d array (what ``Qrels.to_typed_list()``
and ``Run.to_typed_list()`` return). Each returns a float64 array of one value per query,
computed by :func:`rankframe.evaluate` (see :mod:`rankframe.compat.ranx._evaluate`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankframe._errors import InputError
from rankframe._measures.iprec import IPrec
from rankframe.compat.ranx._evaluate import arrays_frame
from rankframe.compat.ranx._scoring import measure_values, per_query


def _values(qrels: Any, run: Any, metric: str) -> np.ndarray:
    qdf, queries = arrays_frame(qrels, "qrels")
    rdf, run_queries = arrays_frame(run, "run")
    if len(queries) != len(run_queries):
        msg = f"qrels and run: {len(queries)} judged queries but {len(run_queries)} rankings"
        raise InputError(msg)
    return per_query(qdf, rdf, queries, [metric])[metric]


def _name(name: str, k: int, rel_lvl: int) -> str:
    if k < 0:
        msg = f"k: {k} is negative; k must be >= 0 (0: the whole ranking)"
        raise InputError(msg)
    return f"{name}@{k}-l{rel_lvl}" if k else f"{name}-l{rel_lvl}"


def hits(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Relevant documents in the top ``k`` (``Hits@k``).

    Examples
    --------
    >>> hits([np.array([[1, 1], [2, 1]])], [np.array([[2, 1], [3, 1]])], 2).tolist()
    [1.0]
    """
    return _values(qrels, run, _name("hits", k, rel_lvl))


def hit_rate(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """1 if a relevant document is in the top ``k`` (``HitRate@k``)."""
    return _values(qrels, run, _name("hit_rate", k, rel_lvl))


def precision(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Hits in the top ``k`` over ``k`` (over the run's length without ``k``) (``P@k``)."""
    return _values(qrels, run, _name("precision", k, rel_lvl))


def recall(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Hits in the top ``k`` over the relevant documents (``R@k``)."""
    return _values(qrels, run, _name("recall", k, rel_lvl))


def f1(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Harmonic mean of precision and recall at ``k``, 0 when both are 0 (``F1@k``)."""
    return _values(qrels, run, _name("f1", k, rel_lvl))


def r_precision(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Precision at R, the number of relevant documents (``Rprec``); ``k`` is ignored."""
    return _values(qrels, run, _name("r-precision", 0, rel_lvl))


def reciprocal_rank(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """1 / rank of the first relevant document in the top ``k`` (``RR@k``)."""
    return _values(qrels, run, _name("mrr", k, rel_lvl))


def average_precision(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Sum of the precisions at the relevant ranks within ``k``, over R (``AP@k``)."""
    return _values(qrels, run, _name("map", k, rel_lvl))


def dcg(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Järvelin's DCG: sum of grade / log2(rank + 1) over the top ``k`` (``DCG@k``)."""
    return _values(qrels, run, _name("dcg", k, rel_lvl))


def dcg_burges(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Burges' DCG: sum of (2^grade - 1) / log2(rank + 1) (``DCG(dcg='exp-log2')@k``)."""
    return _values(qrels, run, _name("dcg_burges", k, rel_lvl))


def ndcg(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Järvelin's DCG over the ideal ranking's, 0 without relevant documents (``nDCG@k``)."""
    return _values(qrels, run, _name("ndcg", k, rel_lvl))


def ndcg_burges(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Burges' DCG over the ideal ranking's (``nDCG(dcg='exp-log2')@k``)."""
    return _values(qrels, run, _name("ndcg_burges", k, rel_lvl))


def bpref(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Bpref (Buckley & Voorhees 2004); NaN without judged non-relevant documents, as ranx."""
    return _values(qrels, run, _name("bpref", 0, rel_lvl))


def rank_biased_precision(qrels: Any, run: Any, p: float, rel_lvl: int = 1) -> np.ndarray:
    r"""RBP with raw grades as gains: :math:`(1 - p)\sum_i g_i p^{i-1}` (Moffat & Zobel 2008).

    Examples
    --------
    >>> rank_biased_precision([np.array([[1, 2]])], [np.array([[1, 1]])], 0.5).tolist()
    [1.0]
    """
    if not 0 < p < 1:
        msg = f"p: {p} is not a persistence in (0, 1)"
        raise InputError(msg)
    digits = f"{p:.10f}".split(".")[1].rstrip("0")
    return _values(qrels, run, f"rbp.{digits}-l{rel_lvl}")


def get_hit_lists(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> list[np.ndarray]:
    """Per query, 1.0 at each of the top ``k`` ranks holding a relevant document, else 0.0."""
    from rankframe.compat.ranx._evaluate import arrays_frame as _frame  # noqa: PLC0415

    qdf, _ = _frame(qrels, "qrels")
    rdf, queries = _frame(run, "run")
    import polars as pl  # noqa: PLC0415

    rel = qdf.filter(pl.col("relevance") >= rel_lvl).select("query_id", "doc_id", hit=pl.lit(1.0))
    ranked = rdf.with_row_index("_i").join(rel, on=["query_id", "doc_id"], how="left", maintain_order="left")
    ranked = ranked.with_columns(pl.col("hit").fill_null(0.0), _r=pl.int_range(pl.len()).over("query_id"))
    if k:
        ranked = ranked.filter(pl.col("_r") < k)
    lists = dict(ranked.group_by("query_id", maintain_order=True).agg("hit").iter_rows())
    return [np.asarray(lists.get(q, []), dtype=np.float64) for q in queries]


def interpolated_precision_at_recall(qrels: Any, run: Any, rel_lvl: int = 1) -> np.ndarray:
    r"""Interpolated precision at the recall levels 0, 0.1, ..., 1: shape ``(queries, 11)``.

    The highest precision at a rank holding at least :math:`\lfloor xR + 0.9 \rfloor` relevant
    documents (ranx's rounding, trec_eval 9's: ``IPrec(rounding='trec_eval9')@x``); 0 for a
    query without relevant documents.

    Examples
    --------
    >>> interpolated_precision_at_recall([np.array([[1, 1], [2, 1]])], [np.array([[3, 1], [1, 1]])])[0, :3]
    array([0.5, 0.5, 0.5])
    """
    qdf, queries = arrays_frame(qrels, "qrels")
    rdf, run_queries = arrays_frame(run, "run")
    if len(queries) != len(run_queries):
        msg = f"qrels and run: {len(queries)} judged queries but {len(run_queries)} rankings"
        raise InputError(msg)
    levels = [IPrec(cutoff=i / 10, rel=rel_lvl, rounding="trec_eval9") for i in range(11)]
    return np.column_stack(list(measure_values(qdf, rdf, queries, levels).values())).reshape(-1, 11)
