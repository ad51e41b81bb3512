r"""ranx's ``optimize_fusion``: its grid search over a fusion method's parameters, batched.

ranx fuses and evaluates one candidate at a time. The drop-in normalises each run once, aligns
the runs once (one row per query and document: every run's score and position), then computes
every candidate's fused scores from that frame (:mod:`rankframe._fusion`'s expressions: one
column expression per candidate, the same arithmetic as :func:`rankframe.fuse`), ranks them in
ranx's order and evaluates all candidates in one :func:`rankframe.evaluate` (a ``run`` column
names the candidate). Python loops over the candidates only.

ranx's order of tied fused scores (:mod:`~rankframe.compat.ranx._order`) is the insertion order
(a document's first appearance in the runs) up to 15 documents a query; beyond that numba's
quicksort permutes ties, which changes a metric only where a tie mixes relevance grades. Those
(candidate, query) rankings alone are put in numba's order in Python; the others keep the
insertion order, which gives the same values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
import polars as pl

from rankframe._engine.options import REL, D, Q, S
from rankframe._errors import InputError, MeasureError
from rankframe._fusion import condorcet as _condorcet
from rankframe._fusion import trained as _trained
from rankframe._fusion.fuse import _long_plan, _wide_plan, check_arguments
from rankframe._fusion.inputs import RUN
from rankframe._fusion.methods import Aligned, get_method
from rankframe._fusion.norms import POS, Norm, get_norm
from rankframe.compat.ranx._evaluate import object_frame
from rankframe.compat.ranx._fusing import _judgments, run_frame
from rankframe.compat.ranx._meta import normalize_runs
from rankframe.compat.ranx._order import ranx_order
from rankframe.compat.ranx._scoring import check_k, parse, per_query
from rankframe.compat.ranx.data_structures import OptimizationReport, Qrels, Run
from rankframe.compat.ranx.fusion import train_switch
from rankframe.compat.ranx.normalization import norm_switch

#: The methods searched over weights summing to 1 (ranx's ``optimize_weights``).
WEIGHTED = ("mixed", "w_bordafuse", "w_condorcet", "wmnz", "wsum")
#: The methods ranx searches, and each one's keyword arguments with their defaults.
SEARCHED: dict[str, dict[str, Any]] = {
    **{m: {"step": 0.1} for m in WEIGHTED},
    "rrf": {"min_k": 10, "max_k": 100, "step": 10},
    "gmnz": {"min_gamma": 0.01, "max_gamma": 1.0, "step": 0.01},
    "logn_isr": {"min_sigma": 0.01, "max_sigma": 1.0, "step": 0.01},
    "rbc": {"min_phi": 0.01, "max_phi": 1.0, "step": 0.01},
    "probfuse": {"min_n_segments": 1, "max_n_segments": 100},
    "slidefuse": {"min_w": 1, "max_w": 100},
}
#: The methods whose optimisation is their training alone (no grid, no report).
TRAINED_ONLY = ("bayesfuse", "mapfuse", "posfuse", "segfuse")
#: The parameter each scalar grid sets.
_SCALAR = {"rrf": "k", "gmnz": "gamma", "logn_isr": "sigma", "rbc": "phi",
           "probfuse": "n_segments", "slidefuse": "w"}
#: numba's quicksort keeps ties in insertion order up to this many documents.
_STABLE = 15


@dataclass(frozen=True)
class _Aligned:
    """The normalised runs, stacked (``long``: ``_r, query_id, doc_id, _p, _v, _k``) and aligned."""

    long: pl.DataFrame
    wide: pl.DataFrame
    runs: int
    #: The judgments (``query_id, doc_id, relevance``) and the queries in ranx's order.
    qrels: pl.DataFrame
    queries: list[str]


def _rounded_range(low: float, high: float, step: float) -> list[Any]:
    """ranx's float grid: ``np.arange(low, high + step, step)`` rounded to ``step``'s digits."""
    digits = str(step)[::-1].find(".")
    return [round(x, digits) for x in np.arange(low, high + step, step)]


def _grid(method: str, options: Mapping[str, Any], runs: int) -> list[Any]:
    """The candidates, in ranx's order: weight tuples or one parameter's values."""
    if method in WEIGHTED:
        weights = _rounded_range(0, 1, options["step"])
        return [seq for seq in product(*[weights] * runs) if sum(seq) == 1.0]
    if method == "rrf":
        return list(range(options["min_k"], options["max_k"] + 1, options["step"]))
    if method in ("probfuse", "slidefuse"):
        low, high = (options[f"min_{_SCALAR[method]}"], options[f"max_{_SCALAR[method]}"])
        return list(range(low, high + 1))
    name = _SCALAR[method]
    return _rounded_range(options[f"min_{name}"], options[f"max_{name}"], options["step"])


def _options(method: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The method's search options: ranx's defaults overridden by ``kwargs`` (others refused)."""
    valid = {**SEARCHED.get(method, {}), "show_progress": True}
    unknown = sorted(set(kwargs) - set(valid))
    if unknown:
        names = ", ".join(valid)
        msg = f"optimize_fusion(method={method!r}) has no option {unknown[0]!r}; its options: {names}"
        raise InputError(msg)
    return {**valid, **kwargs}


def _check(qrels: Any, runs: Any, method: str, metric: Any, report: bool) -> list[Run]:
    if method not in SEARCHED and method not in TRAINED_ONLY:
        valid = ", ".join(sorted([*SEARCHED, *TRAINED_ONLY]))
        msg = f"method: {method} does not support optimization; the methods ranx optimizes: {valid}"
        raise InputError(msg)
    if report and method in TRAINED_ONLY:
        msg = (f"method: {method} does not support optimization report (it only trains); "
               "pass return_optimization_report=False")
        raise InputError(msg)
    if method in SEARCHED:
        if not isinstance(metric, str):
            msg = f"metric: expected one ranx metric name such as 'ndcg@10'; got {metric!r}"
            raise MeasureError(msg)
        check_k(metric)
        parse(metric)
    if not isinstance(qrels, Qrels):
        msg = f"qrels: expected a ranx Qrels; got {type(qrels).__name__}"
        raise InputError(msg)
    runs = list(runs) if isinstance(runs, Sequence) else runs
    if not isinstance(runs, list) or not all(isinstance(r, Run) for r in runs):
        msg = f"runs: expected a list of ranx Runs; got {type(runs).__name__}"
        raise InputError(msg)
    if len(runs) < 2:
        msg = f"runs: only {len(runs)} run provided; fusion needs at least 2"
        raise InputError(msg)
    for i, run in enumerate(runs):
        if run.keys() != runs[0].keys():
            msg = f"runs: runs 0 and {i} query ids do not match (ranx optimizes runs over the same queries)"
            raise InputError(msg)
    if runs[0].keys() != qrels.keys():
        msg = "runs and qrels: the query ids do not match (ranx optimizes on runs over the judged queries)"
        raise InputError(msg)
    return runs


def _normalised(runs: list[Run], norm: str | None) -> tuple[list[Run], Norm | None]:
    r"""The runs to align, and the normalisation to apply while aligning them.

    A per-run normalisation that keeps the order (min-max, max, sum, zmuv, rank) is applied in
    the aligned plan, as the ``Run`` path gives it (the runs keep their order); borda and the
    inverted min-max go through ``Run``\s (re-sorted in ranx's order), as in ``fuse``.
    """
    if norm is None:
        return runs, None
    norm_switch(norm)  # an unknown name: ranx's message
    nm = get_norm(norm)
    if nm is not None and nm.expr is not None and not nm.inverts:
        return runs, nm
    return normalize_runs(runs, norm), None


def _align(runs: list[Run], qrels: Qrels, norm: Norm | None) -> _Aligned:
    """Stack the runs once and align them, per (query, doc).

    Each run's ``v{r}`` (its score normalised by ``norm``) and ``p{r}``, and ``_k`` (ranx's
    insertion order in a fused run: by the first run retrieving the document, then its place
    there), ``_q`` (the query's number) and ``_g`` (its grade; null: unjudged).
    """
    n = len(runs)
    frames = [run_frame(r).lazy().with_row_index("_i") for r in runs]
    long = _long_plan(frames, norm, positions=True)
    size = max(sum(len(d) for d in r.run.values()) for r in runs) + 1
    long = long.with_columns((pl.col(RUN).cast(pl.Int64) * size + pl.col("_i")).alias("_k")).collect()
    spread = [pl.when(pl.col(RUN) == r).then(pl.col(c)).alias(f"{c[1]}{r}")
              for r in range(n) for c in ("_v", POS)]
    cols = [c for r in range(n) for c in (f"v{r}", f"p{r}")]
    judged = object_frame(qrels, "qrels")
    grades = judged.lazy().select(Q, D, pl.col(REL).alias("_g"))
    wide = (
        long.lazy().with_columns(spread).group_by(Q, D)
        .agg(pl.col("_k").min(), *(pl.col(c).max() for c in cols))
        .with_columns(pl.col(Q).rank("dense").cast(pl.UInt32).alias("_q"))
        .join(grades, on=[Q, D], how="left")
        .sort("_k")
        .collect()
    )
    return _Aligned(long, wide, n, judged, list(runs[0].keys()))


def _combined(
    method: str, a: _Aligned, wide: pl.LazyFrame, weights: Any, params: Mapping[str, Any]
) -> pl.LazyFrame:
    """One candidate's fused scores ``query_id, doc_id, _k, score`` from the aligned runs."""
    m, _, p = check_arguments(method, None, params, weights, a.runs)
    w = None if weights is None else [float(x) for x in weights]
    if m.name == "w_condorcet":
        scored = _condorcet.condorcet_plan(wide, a.runs, w)
        return scored.join(wide.select(Q, D, "_k"), on=[Q, D]).select(Q, D, "_k", pl.col("score").alias(S))
    aligned = Aligned(
        v=[pl.col(f"v{r}") for r in range(a.runs)],
        p=[pl.col(f"p{r}") for r in range(a.runs)],
        weights=w, params=p, reads_position=m.reads_position,
    )
    return wide.select(Q, D, "_k", m.combine(aligned).cast(pl.Float64).alias(S))


def _trained_scores(
    method: str, a: _Aligned, learnt: Mapping[str, Any], params: Mapping[str, Any]
) -> pl.LazyFrame:
    """A trained method's fused scores with ``learnt`` values (rankframe.fuse's per-row scores)."""
    rows = _trained.per_row(method, a.long.lazy(), learnt, params)
    wide = _wide_plan(rows, a.runs, "v").join(a.wide.lazy().select(Q, D, "_k"), on=[Q, D])
    values = [pl.col(f"v{r}") for r in range(a.runs)]
    aligned = Aligned(v=values, p=values, weights=None, params=params, reads_position=True)
    return wide.select(Q, D, "_k", get_method(method).combine(aligned).cast(pl.Float64).alias(S))


def ranx_ranked(rows: pl.DataFrame, within: int | None = None) -> pl.DataFrame:
    """Rows ``_c, _q, query_id, doc_id, _k, _g, score`` per (``_c``, ``_q``) in ranx's order.

    Score descending, ties by ``_k`` (ranx's insertion order: numba's sort is stable up to 15
    documents), from one sort on numeric keys. A longer ranking where two adjacent tied
    documents differ in ``_g`` (what the metric reads of their grades: :func:`_gain`) is put in numba's
    order by :func:`ranx_order`; a tie of equal grades gives the same values in any order, and
    so does a tie that starts at rank ``within`` or below (the metric's cutoff; ``None``: none).
    """
    group = ["_c", "_q"]
    ranked = rows.sort([*group, S, "_k"], descending=[False, False, True, False])
    same = pl.all_horizontal([pl.col(c) == pl.col(c).shift(1) for c in (*group, S)]).fill_null(False)
    mixed = same & pl.col("_g").ne_missing(pl.col("_g").shift(1))
    if within is not None:  # the tie's first rank: the last row that did not tie its predecessor
        rank = pl.int_range(pl.len()).over(group)
        mixed = mixed & (pl.when(~same).then(rank).forward_fill() < within)
    sizes = ranked.group_by(group).len().filter(pl.col("len") > _STABLE).select(group)
    flagged = ranked.filter(mixed).select(group).unique().join(sizes, on=group)
    if flagged.is_empty():
        return ranked
    exact = (
        ranked.join(flagged, on=group, how="semi")
        .sort([*group, "_k"])
        .group_by(group, maintain_order=True)
        .agg(Q, D, S, pl.col(S).rank("dense").cast(pl.Int64).alias("_r"))
    )
    # numba's sort only compares keys: rankings with the same pattern of ranks (often the same
    # query under neighbouring candidates) share one permutation
    known: dict[tuple[int, ...], list[int]] = {}
    for ranks in exact.get_column("_r").to_list():
        key = tuple(ranks)
        if key not in known:
            known[key] = ranx_order(ranks)
    orders = pl.Series("_o", [known[tuple(r)] for r in exact.get_column("_r").to_list()],
                       dtype=pl.List(pl.Int64))
    reordered = exact.with_columns(orders).select(
        *group, *(pl.col(c).list.gather(pl.col("_o")) for c in (Q, D, S))
    ).explode(Q, D, S)
    return pl.concat([ranked.join(flagged, on=group, how="anti").select(*group, Q, D, S),
                      reordered], how="vertical_relaxed")


def _matters_within(metric: str) -> int | None:
    """The ranks where the order of tied documents changes ``metric``: those above its cutoff."""
    m = parse(metric)
    if m.name in ("hits", "hit_rate", "precision", "recall", "f1") and not m.k:
        return 0  # over the whole ranking: a count, whatever the order
    return int(m.k) if m.k and m.name != "rbp" else None


def _gain(metric: str) -> pl.Expr:
    """What ``metric`` reads of a document's grade ``_g``: documents equal here may swap places.

    bpref: relevant, judged non-relevant or unjudged (null); DCG, nDCG and RBP: the grade from
    the level on (0 below it or unjudged); the others: relevant or not.
    """
    m = parse(metric)
    g = pl.col("_g")
    if m.name == "bpref":
        return pl.when(g >= m.level).then(1).when(g.is_not_null()).then(0)
    if m.name in ("dcg", "dcg_burges", "ndcg", "ndcg_burges", "rbp"):
        return pl.when(g >= m.level).then(g).otherwise(0)
    return (g >= m.level).fill_null(value=False).cast(pl.Int64)


def _scores(qrels: Qrels, a: _Aligned, candidates: list[pl.LazyFrame], metric: str) -> list[Any]:
    """Each candidate's mean ``metric``, as ranx's ``evaluate`` gives it, from one evaluation."""
    keys = a.wide.lazy().select(Q, D, "_q", "_g")
    rows = pl.concat(
        [lf.select(pl.lit(i, pl.UInt32).alias("_c"), Q, D, "_k", S) for i, lf in enumerate(candidates)]
    ).join(keys, on=[Q, D]).with_columns(_gain(metric).alias("_g")).collect()
    ranked = ranx_ranked(rows, _matters_within(metric))
    frame = ranked.select(pl.col("_c").cast(pl.String).alias("run"), Q, D, S)
    values = per_query(a.qrels, frame, a.queries, [metric])
    zero = np.zeros(len(a.queries))
    return [np.mean(values.get((str(i), metric), zero)) for i in range(len(candidates))]


def _search(
    qrels: Qrels, runs: list[Run], norm: Norm | None, method: str, metric: str, options: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """ranx's search: the best parameters (the last of the best scores) and every candidate's score."""
    a = _align(runs, qrels, norm)
    grid = _grid(method, options, a.runs)
    learnt: list[Any] = []
    if method in WEIGHTED:
        wide = a.wide.lazy()
        candidates = [_combined(method, a, wide, w, {}) for w in grid]
    elif method == "probfuse":
        judged = _judgments(qrels).collect().lazy()
        long = a.long.lazy()
        learnt = [_trained.train(method, long, judged, a.runs, {"n_segments": s}) for s in grid]
        candidates = [_trained_scores(method, a, t, {"n_segments": s})
                      for t, s in zip(learnt, grid, strict=True)]
    elif method == "slidefuse":
        trained = _trained.train(method, a.long.lazy(), _judgments(qrels), a.runs, {})
        candidates = [_trained_scores(method, a, trained, {"w": w}) for w in grid]
        learnt = [trained]
    else:
        wide = a.wide.lazy()
        candidates = [_combined(method, a, wide, None, {_SCALAR[method]: x}) for x in grid]
    scores = _scores(qrels, a, candidates, metric) if grid else []
    best_score, best = 0.0, -1
    for i, score in enumerate(scores):
        if score >= best_score:  # ranx keeps the last of equal scores
            best_score, best = score, i
    report = {str(x): s for x, s in zip(grid, scores, strict=True)}
    return _best(method, grid, best, learnt), report


def _probs(learnt: Mapping[str, Any]) -> list[np.ndarray]:
    return [np.asarray(v, dtype=np.float64) for v in learnt["probs"]]


def _best(method: str, grid: list[Any], best: int, learnt: list[Any]) -> dict[str, Any]:
    """ranx's returned parameters (``[]`` where no candidate scored >= 0, as ranx leaves it)."""
    if method in WEIGHTED:
        return {"weights": grid[best] if best >= 0 else []}
    if method == "probfuse":
        return {"probs": _probs(learnt[best]) if best >= 0 else None}
    if method == "slidefuse":
        return {"probs": _probs(learnt[0]), "w": grid[best] if best >= 0 else []}
    return {_SCALAR[method]: grid[best] if best >= 0 else []}


def optimize_fusion(
    qrels: Qrels,
    runs: list[Run],
    norm: str | None = "min-max",
    method: str = "wsum",
    metric: str = "ndcg",
    return_optimization_report: bool = False,
    rounding_digits: int = 3,
    show_percentages: bool = False,
    **kwargs: Any,
) -> Any:
    r"""ranx's grid search for a fusion method's best parameters on ``qrels``.

    Each run is normalised by ``norm`` once; every candidate of ranx's grid is fused and
    scored by ``metric`` (its mean over the queries); the best candidate is returned, the last
    of equal scores (ranx's ``score >= best``). The grids, in ranx's order:

    - ``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse``, ``w_condorcet``: every tuple of weights
      from :math:`\{0, s, 2s, \dots, 1\}` (``step`` :math:`s`, 0.1) whose float sum is exactly
      1, in ``itertools.product`` order; returns ``{"weights": (...)}``;
    - ``rrf``: ``k`` from ``min_k`` (10) to ``max_k`` (100) by ``step`` (10);
    - ``gmnz`` (``gamma``), ``logn_isr`` (``sigma``), ``rbc`` (``phi``): 0.01 to 1 by 0.01
      (``min_gamma``, ``max_gamma``, ``step``...);
    - ``probfuse``: ``n_segments`` 1 to 100, trained for each; returns ``{"probs": [...]}``;
      ``slidefuse``: trained once, ``w`` 1 to 100; returns ``{"probs": [...], "w": w}``;
    - ``bayesfuse``, ``mapfuse``, ``posfuse``, ``segfuse``: their training alone
      (``{"log_odds"|"map_scores"|"probs": ...}``, as ``ranx.fusion.*_train``); no report.

    Parameters
    ----------
    qrels : Qrels
        The training judgments, over the runs' queries.
    runs : list of Run
        At least 2 runs over the same queries.
    norm : str or None
        ``"min-max"`` (ranx's default), any ``ranx.normalization`` name, or ``None``.
    method : str
        One of the methods above.
    metric : str
        A ranx metric name (``"ndcg"``, ranx's default; ``"map@100"``...).
    return_optimization_report : bool
        Also return an :class:`OptimizationReport` (every candidate's score).
    rounding_digits, show_percentages
        The report's formatting.
    **kwargs
        The grid's options named above; ``show_progress`` is accepted (no progress bar: the
        candidates are evaluated together).

    Returns
    -------
    dict or tuple
        The best parameters; with the report, ``(params, report)``.

    Raises
    ------
    rankframe.InputError
        An unknown method, option or normalisation, runs or qrels over different queries,
        fewer than 2 runs, or a report asked of a method that only trains.
    rankframe.MeasureError
        ``metric`` is not a ranx metric name.

    References
    ----------
    Bassani, E. & Romelli, L. (2022). ranx.fuse: A Python library for metasearch. CIKM.

    Examples
    --------
    >>> from rankframe.compat.ranx import Qrels, Run
    >>> qrels = Qrels({"q1": {"d2": 1}})
    >>> a = Run({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}})
    >>> b = Run({"q1": {"d2": 3.0, "d3": 2.0, "d1": 1.0}})
    >>> best, report = optimize_fusion(qrels, [a, b], metric="mrr", step=0.5,
    ...                                return_optimization_report=True)
    >>> len(report.configs)  # (0, 1), (0.5, 0.5), (1, 0)
    3
    >>> [float(s) for s in report.results]
    [1.0, 1.0, 0.5]
    >>> [float(w) for w in best["weights"]]  # the last of the best
    [0.5, 0.5]
    """
    runs = _check(qrels, runs, method, metric, return_optimization_report)
    options = _options(method, kwargs)
    if method in TRAINED_ONLY:
        return {_trained.LEARNT[method]: train_switch(method)(qrels, normalize_runs(runs, norm))}
    best, report = _search(qrels, *_normalised(runs, norm), method, metric, options)
    if not return_optimization_report:
        return best
    return best, OptimizationReport(
        method=method, configs=list(report), results=list(report.values()), metric=metric,
        rounding_digits=rounding_digits, show_percentages=show_percentages,
    )
