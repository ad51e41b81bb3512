r"""The drop-in's fusion and normalisation: ranx ``Run``\s to :func:`rankframe.fuse` and back.

Every number comes from :mod:`rankframe._fusion` (:func:`rankframe.fuse`, its normalisations
and its training). This module only converts: a ``Run``'s rows go in their stored order (ranx's
ranking, ties in ranx's order: :mod:`~rankframe.compat.ranx._order`), which ``rankframe.fuse``
reads as the ranking (ties in input order); the result comes back as a ``Run`` named as ranx
names it, holding the queries of the first run (ranx's fused runs hold those, a query without
documents included).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from rankframe._engine.options import REL, D, Q, S
from rankframe._errors import InputError
from rankframe._fusion import fuse as _fuse
from rankframe._fusion import trained as _trained
from rankframe._fusion.inputs import RUN, check_wide
from rankframe._fusion.norms import borda_norm, get_norm
from rankframe.compat.ranx.data_structures import Qrels, Run

_SCHEMA = {Q: pl.String, D: pl.String, S: pl.Float64}


def _check_runs(runs: Any, least: int = 1) -> list[Run]:
    if isinstance(runs, Run):
        runs = [runs]
    out = list(runs) if isinstance(runs, Sequence) else None
    if out is None or len(out) < least or not all(isinstance(r, Run) for r in out):
        msg = f"runs: expected a list of at least {least} ranx Run(s); got {type(runs).__name__}"
        raise InputError(msg)
    return out


def run_frame(run: Run) -> pl.DataFrame:
    """A ``Run``'s rows ``query_id, doc_id, score`` in its stored order (its ranking)."""
    rows = [(q, d, float(s)) for q, docs in run.run.items() for d, s in docs.items()]
    return pl.DataFrame(rows, schema=_SCHEMA, orient="row")


def to_run(
    frame: pl.DataFrame, runs: Sequence[Run], name: str | None, *, sort: bool = True
) -> Run:
    """A frame ``query_id, doc_id, score`` as a ``Run`` over the first of ``runs``' queries.

    Each query's documents are inserted as ranx inserts them, in order of first appearance in
    ``runs``; ``sort``: then sorted, as ranx sorts (tied documents keep ranx's order, which
    depends on that insertion order); else left in that order, as ranx's normalisations leave it.
    """
    scores: dict[str, dict[str, float]] = {q: {} for q in runs[0].run}
    for q, d, s in frame.select(Q, D, S).iter_rows():
        if q in scores:
            scores[q][d] = s
    data = {}
    for q, found in scores.items():
        order = dict.fromkeys(d for run in runs for d in run.run.get(q, {}) if d in found)
        data[q] = {d: found[d] for d in (*order, *found)}
    if sort:
        return Run(data, name=name)
    out = Run(name=name)
    out.run = data
    return out


def fuse_runs(
    runs: Any,
    method: str,
    name: str,
    *,
    norm: str | None = None,
    weights: Sequence[float] | None = None,
    params: Mapping[str, Any] | None = None,
) -> Run:
    r"""``rankframe.fuse`` of the ``Run``\s with ``method``, as a ``Run`` called ``name``."""
    runs = _check_runs(runs, 2)
    frames = {f"runs[{i}]": run_frame(r) for i, r in enumerate(runs)}
    fused = _fuse.fuse(frames, method, norm=norm, weights=weights, params=params)
    return to_run(fused, runs, name)


def _stacked(runs: Sequence[Run]) -> tuple[pl.LazyFrame, int]:
    """The runs stacked with their positions (``rankframe.fuse``'s plan), and their number."""
    frames = [
        run_frame(r).lazy().select(Q, D, S).with_row_index("_i") for r in runs
    ]
    return _fuse._long_plan(frames, None, positions=True), len(frames)


def normalize_run(run: Run, norm: str) -> Run:
    """One ``Run`` normalised per query by ``rankframe.fuse``'s ``norm``, keeping its name."""
    if not isinstance(run, Run):
        msg = f"run: expected a ranx Run; got {type(run).__name__}"
        raise InputError(msg)
    nm = get_norm(norm)
    if nm is None or nm.expr is None:
        msg = f"norm={norm!r} normalises one run alone only for min-max, max, sum, zmuv and rank"
        raise InputError(msg)
    frames = [run_frame(run).lazy().with_row_index("_i")]
    long = _fuse._long_plan(frames, nm, positions=False).select(Q, D, pl.col("_v").alias(S))
    return to_run(long.collect(), [run], run.name, sort=nm.inverts)  # ranx re-sorts inverted runs


def borda_runs(runs: Any) -> list[Run]:
    """ranx's ``borda_norm``: each run scored over every candidate of its query (all runs')."""
    runs = _check_runs(runs, 1)
    long, n = _stacked(runs)
    wide = _fuse._wide_plan(long, n, "p").collect()
    check_wide(wide, "p", [str(r.name) for r in runs], [f"run {i}" for i in range(n)])
    candidates = pl.len().over(Q).cast(pl.Float64)
    scored = wide.select(Q, D, *(borda_norm(pl.col(f"p{r}"), candidates).alias(f"v{r}") for r in range(n)))
    return [
        to_run(scored.select(Q, D, pl.col(f"v{r}").alias(S)), runs, run.name)
        for r, run in enumerate(runs)
    ]


def _judgments(qrels: Qrels) -> pl.LazyFrame:
    if not isinstance(qrels, Qrels):
        msg = f"qrels: expected a ranx Qrels; got {type(qrels).__name__}"
        raise InputError(msg)
    rows = [(q, d, int(v)) for q, docs in qrels.qrels.items() for d, v in docs.items()]
    return pl.LazyFrame(rows, schema={Q: pl.String, D: pl.String, REL: pl.Int64}, orient="row")


def train(method: str, qrels: Qrels, runs: Any, **params: Any) -> list[Any]:
    """What ranx's ``{method}_train`` returns, learnt by ``rankframe.fuse``'s training.

    ``probs`` and ``log_odds``: one float64 array per run; ``map_scores``: one float per run.
    """
    runs = _check_runs(runs, 1)
    long, n = _stacked(runs)
    if method == "mapfuse":
        long = long.with_columns(pl.col(S).alias("_v"))
    learnt = _trained.train(method, long.collect().lazy(), _judgments(qrels), n, params)
    key = _trained.LEARNT[method]
    if key == "map_scores":
        return [float(v) for v in learnt[key]]
    return [np.asarray(v, dtype=np.float64) for v in learnt[key]]


def estimate_log_odds(hit_lists: Sequence[Any], cut_offs: Sequence[int]) -> np.ndarray:
    """ranx's ``_estimate_log_odds``: bayesfuse's log-odds per rank from one run's hit lists.

    The hit lists (1 or 0 per rank, one list per training query) become a ranking and its
    judgments, and ``rankframe.fuse``'s bayesfuse training learns from them.
    """
    bounds = [int(c) for c in cut_offs]
    if bounds != _trained.BAYES_BOUNDS:
        msg = f"cut_offs: rankframe's bayesfuse uses ranx's {_trained.BAYES_BOUNDS}; got {bounds}"
        raise InputError(msg)
    rows = [(f"{q:09d}", str(i), i, int(h)) for q, hits in enumerate(hit_lists) for i, h in enumerate(hits)]
    ranked = pl.LazyFrame(
        rows, schema={Q: pl.String, D: pl.String, "_p": pl.Int64, REL: pl.Int64}, orient="row"
    )
    judged = pl.concat([  # a judged non-retrieved document per query: every list counts
        ranked.select(Q, D, REL),
        pl.LazyFrame({Q: [f"{q:09d}" for q in range(len(hit_lists))], D: [""] * len(hit_lists),
                      REL: [0] * len(hit_lists)}, schema={Q: pl.String, D: pl.String, REL: pl.Int64}),
    ])
    long = ranked.select(pl.lit(0, pl.UInt32).alias(RUN), Q, D, "_p")
    learnt = _trained.train("bayesfuse", long, judged, 1, {})
    return np.asarray(learnt["log_odds"][0], dtype=np.float64)
