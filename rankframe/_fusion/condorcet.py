"""Condorcet fusion: documents ordered by pairwise majority of the runs (Montague & Aslam 2002).

Document ``x`` beats ``y`` when the runs ranking ``x`` above ``y`` outweigh those ranking ``y``
above ``x`` (a run retrieving neither abstains; one retrieving one of them ranks it above the
other). The fused score is ``1 + wins + ties / 2`` over the query's other candidates
(Copeland's rule). Where the majority relation is a strict order, this is ranx's score
(``c - i`` for the document at 0-based place ``i`` of ``c`` candidates); where the runs tie
or vote in a cycle, ranx's order depends on Python's set order and its sort's visits, which
Copeland's score replaces with a deterministic one.

The plan joins each query's aligned rows with themselves: ``c ** 2`` rows per query.
"""

from __future__ import annotations

import polars as pl

from rankframe._engine.options import D, Q
from rankframe._fusion.methods import Aligned, Method, register

#: ranx's position for a document a run did not retrieve (after every retrieved one).
_UNRANKED = 1_000_000


def condorcet_plan(wide: pl.LazyFrame, runs: int, weights: list[float] | None) -> pl.LazyFrame:
    """Copeland's score of every aligned (query, document) row from the runs' positions ``p{r}``."""
    w = weights or [1.0] * runs
    pos = [f"p{r}" for r in range(runs)]
    left = wide.select(Q, D, *(pl.col(p).fill_null(_UNRANKED) for p in pos))
    right = left.rename({D: "_y", **{p: f"{p}_y" for p in pos}})
    pairs = left.join(right, on=Q)
    votes_x = pl.sum_horizontal([wr * (pl.col(p) < pl.col(f"{p}_y")) for wr, p in zip(w, pos, strict=True)])
    votes_y = pl.sum_horizontal([wr * (pl.col(f"{p}_y") < pl.col(p)) for wr, p in zip(w, pos, strict=True)])
    points = (
        pl.when(pl.col(D) == pl.col("_y"))
        .then(1.0)
        .when(votes_x > votes_y)
        .then(1.0)
        .when(votes_x == votes_y)
        .then(0.5)
        .otherwise(0.0)
    )
    return pairs.group_by(Q, D).agg(points.sum().alias("score"))


def _unreachable(a: Aligned) -> pl.Expr:  # pragma: no cover - fuse plans condorcet apart
    msg = "condorcet is planned by condorcet_plan"
    raise NotImplementedError(msg)


for _name, _weighted, _doc in (
    ("condorcet", False, "Condorcet: pairwise majority of the runs (Copeland's score)"),
    ("w_condorcet", True, "Weighted Condorcet: pairwise majority with the runs' weights"),
):
    register(Method(_name, _unreachable, reads_position=True, weighted=_weighted, doc=_doc))
