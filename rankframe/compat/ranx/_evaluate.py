"""ranx's ``evaluate``: its inputs (``Qrels``/``Run``, dicts, arrays) as frames, then one plan.

- ``Qrels``/``Run``: rows in the stored order (a ``Run`` sorted as ranx sorts it);
- dicts ``{query: {doc: value}}``: a run's documents in the order ranx's dict path gives them
  (``argsort(scores)[::-1]``: ties in reverse insertion order up to 16 documents);
- numba typed Lists, lists or 3-d arrays of ``[[doc, value], ...]`` per query, as ranx's
  metric functions take them: the judgments' grades are the second column (integers); a run's
  documents are ranked *in the given order* (ranx does not sort them), whatever their scores.
  A document repeated in a run counts once, at its first position (ranx counts each copy).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from rankframe._errors import InputError
from rankframe.compat.ranx._order import ranx_order
from rankframe.compat.ranx._scoring import check_k, parse, per_query
from rankframe.compat.ranx.data_structures import Qrels, Run

_QRELS = {"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}
_RUN = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}


def _arrays(x: Any, what: str) -> list[np.ndarray]:
    try:
        out = [np.asarray(a, dtype=np.float64).reshape(-1, 2) for a in x]
    except (TypeError, ValueError):
        msg = (f"{what}: expected a Qrels/Run, a dict or a list of [[doc, value], ...] arrays; "
               f"got {type(x).__name__}")
        raise InputError(msg) from None
    return out


def arrays_frame(x: Any, what: str) -> tuple[pl.DataFrame, list[str]]:
    """ranx's array input (one ``[[doc, value], ...]`` per query) as a frame; queries ``"0"``..."""
    arrays = _arrays(x, what)
    queries = [str(i) for i in range(len(arrays))]
    lengths = np.array([len(a) for a in arrays], dtype=np.int64)
    rows = np.concatenate(arrays) if arrays else np.empty((0, 2))
    q = np.repeat(np.arange(len(arrays)), lengths).astype(str)
    docs = pl.Series(rows[:, 0]).cast(pl.String)
    if what == "qrels":
        grades = rows[:, 1]
        if not np.all(np.isfinite(grades)) or not np.all(grades == np.round(grades)):
            msg = "qrels: the grades (second column) must be integers"
            raise InputError(msg)
        df = pl.DataFrame({"query_id": q, "doc_id": docs, "relevance": grades.astype(np.int64)},
                          schema=_QRELS)
        return df.unique(["query_id", "doc_id"], keep="first", maintain_order=True), queries
    rank = np.concatenate([np.arange(n, 0, -1) for n in lengths]) if arrays else np.empty(0)
    df = pl.DataFrame({"query_id": q, "doc_id": docs, "score": rank.astype(np.float64)}, schema=_RUN)
    return df.unique(["query_id", "doc_id"], keep="first", maintain_order=True), queries


def dict_frame(d: Mapping[str, Mapping[str, Any]], what: str) -> pl.DataFrame:
    """A ``{query: {doc: value}}`` dict as a frame, a run's documents in ranx's dict-path order."""
    rows = []
    for q, docs in d.items():
        if not isinstance(docs, Mapping):
            msg = f"{what}: query {q!r} maps to {type(docs).__name__}, expected {{doc: value}}"
            raise InputError(msg)
        items = list(docs.items())
        order = range(len(items)) if what == "qrels" else ranx_order(
            [float(v) for _, v in items], reverse_ascending=True)
        rows.extend((str(q), str(items[i][0]), items[i][1]) for i in order)
    schema = _QRELS if what == "qrels" else _RUN
    return pl.DataFrame(rows, schema=schema, orient="row")


def object_frame(obj: Qrels | Run, what: str) -> pl.DataFrame:
    """A drop-in ``Qrels``/``Run`` as a frame in its (ranx-sorted) order."""
    if not obj.sorted:
        obj.sort()
    return obj.to_polars().rename({"q_id": "query_id", "score": "relevance" if what == "qrels" else "score"})


def as_frame(x: Any, what: str) -> tuple[pl.DataFrame, list[str] | None]:
    """Any ranx input as a frame, and its queries in order where they are positional."""
    cls = Qrels if what == "qrels" else Run
    if isinstance(x, cls):
        return object_frame(x, what), list(x.keys())
    if isinstance(x, Mapping):
        return dict_frame(x, what), [str(q) for q in x]
    if _is_ranx(x):  # the real ranx's objects: their rows in their (sorted) order
        mine = cls(None)
        mine._data = {str(q): dict(docs) for q, docs in x.to_dict().items()}
        if not getattr(x, "sorted", False):
            mine.sort()
        mine.sorted = True
        return object_frame(mine, what), list(mine.keys())
    if isinstance(x, str | bytes) or not isinstance(x, Iterable | np.ndarray):
        msg = (f"{what}: expected a {cls.__name__}, a dict or a list of [[doc, value], ...] arrays; "
               f"got {type(x).__name__}")
        raise InputError(msg)
    return arrays_frame(x, what)


def _is_ranx(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "ranx" and hasattr(x, "to_dict")


def _keys(x: Any) -> set[str] | None:
    if isinstance(x, Qrels | Run) or _is_ranx(x):
        return {str(k) for k in x.keys()}
    if isinstance(x, Mapping):
        return {str(k) for k in x}
    return None


def evaluate(
    qrels: Any,
    run: Any,
    metrics: str | Sequence[str],
    return_mean: bool = True,
    return_std: bool = False,
    threads: int = 0,
    save_results_in_run: bool = True,
    make_comparable: bool = False,
) -> Any:
    """Compute ranx metrics of ``run`` against ``qrels``, as ``ranx.evaluate`` does.

    Every metric is computed by :func:`rankframe.evaluate` (one plan) on the rows in ranx's
    order with ``ties="input"``: see :mod:`rankframe.compat.ranx` for the names and conventions.

    Parameters
    ----------
    qrels, run
        :class:`Qrels`/:class:`Run`, dicts ``{query: {doc: value}}`` (a run sorted as ranx
        sorts a dict), or per query ``[[doc, value], ...]`` arrays (a numba typed List, a list,
        a 3-d array; run documents ranked in the given order).
    metrics
        A ranx metric name (``"ndcg@10"``, ``"map"``, ``"precision@5-l2"``, ``"rbp.95"``) or a list.
    return_mean
        The mean over queries (``numpy.float64``); else the per-query values (an array).
    return_std
        With the mean, ``{"mean": ..., "std": ...}`` per metric (population standard deviation).
    threads
        Accepted for compatibility (Polars chooses its threads).
    save_results_in_run
        Store ``mean_scores``, ``scores`` (and ``std_scores``) in a :class:`Run`.
    make_comparable
        Give the judged queries a :class:`Run` lacks an empty ranking, drop the unjudged ones.

    Returns
    -------
    float, numpy.ndarray or dict
        One metric: its value; several: ``{metric: value}``; none (``[]``): ``{}``.

    Raises
    ------
    rankframe.InputError
        ``Qrels`` and ``Run`` (or dicts) on different query sets, a bad input.
    rankframe.MeasureError
        A name that is not a ranx metric.

    Examples
    --------
    >>> qrels = Qrels({"q1": {"a": 1}, "q2": {"b": 2}})
    >>> run = Run({"q1": {"a": 0.9, "c": 0.9}, "q2": {"c": 0.8, "b": 0.7}})
    >>> means = evaluate(qrels, run, ["mrr", "ndcg@2"])  # q1's tie: "a" first (insertion order)
    >>> {name: float(value) for name, value in means.items()}  # numpy floats, as ranx's
    {'mrr': 0.75, 'ndcg@2': 0.8154648767857288}
    >>> {q: float(value) for q, value in run.scores["mrr"].items()}
    {'q1': 1.0, 'q2': 0.5}
    """
    del threads
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    for m in metrics:
        check_k(m) if isinstance(m, str) else None
        parse(m)
    if not return_mean:
        return_std = False
    if make_comparable and isinstance(qrels, Qrels) and isinstance(run, Run):
        run = run.make_comparable(qrels)
    qk, rk = _keys(qrels), _keys(run)
    if qk is not None and rk is not None and qk != rk:
        msg = ("qrels and run: the query ids do not match "
               f"({len(qk - rk)} judged queries not in the run, {len(rk - qk)} run queries not judged); "
               "pass make_comparable=True to add empty results and drop unjudged queries")
        raise InputError(msg)
    qdf, qqueries = as_frame(qrels, "qrels")
    rdf, rqueries = as_frame(run, "run")
    queries = rqueries if rqueries is not None else qqueries
    if qk is None and rk is None and len(qqueries or []) != len(rqueries or []):
        msg = f"qrels and run: {len(qqueries or [])} judged queries but {len(rqueries or [])} rankings"
        raise InputError(msg)
    scores = per_query(qdf, rdf, queries or [], metrics) if metrics else {}  # (ranx: {} for none)
    if isinstance(run, Run) and save_results_in_run:
        for m, v in scores.items():
            run.mean_scores[m] = np.mean(v)
            if return_std:
                run.std_scores[m] = np.std(v)
            run.scores[m] = dict(zip(queries or [], v, strict=True))
    result: dict[str, Any] = dict(scores)
    if return_mean:
        for m, v in scores.items():
            result[m] = {"mean": np.mean(v), "std": np.std(v)} if return_std else np.mean(v)
    return result[metrics[0]] if len(metrics) == 1 else result
