"""The fusion methods that learn from judgments: probfuse, segfuse, slidefuse, posfuse, mapfuse, bayesfuse.

Each learns, per run, how likely a document at a rank (or in a segment of ranks) is relevant
(relevance >= 1), from the queries of the training judgments, as ranx 0.3.21 does; then scores
each run's documents from their rank and sums over the runs. The learnt values are ranx's
``params`` (``probs``, ``map_scores``, ``log_odds``): pass them to :func:`rankframe.fuse` as
``params=`` to reuse them, or pass ``qrels=`` and fuse trains on the runs' judged queries.

A run's hit list of a training query is 1 or 0 per rank of its ranking (score descending, ties
in input order); a judged query the run lacks has an empty one.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from functools import reduce
from typing import Any

import polars as pl

from rankframe._engine.options import REL, D, Q
from rankframe._errors import InputError, RankframeWarning
from rankframe._fusion.inputs import RUN
from rankframe._fusion.methods import Aligned, Method, _fold, register
from rankframe._fusion.norms import POS

#: segfuse's segment bounds (ranks 1-5, 6-15, 16-35, ...: sizes 10 * 2 ** (k - 1) - 5 apart).
SEGFUSE_BOUNDS = [0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)]
#: bayesfuse's segment bounds.
BAYES_BOUNDS = [0, 5, 10, 15, 20, 30, 100, 200, 500, 1000]
#: bayesfuse's log-odds of a run that did not retrieve the document.
MIN_LOG_ODDS = math.log(0.001 / 0.999)
#: What each method learns (ranx's name of the parameter).
LEARNT = {
    "probfuse": "probs",
    "segfuse": "probs",
    "slidefuse": "probs",
    "posfuse": "probs",
    "mapfuse": "map_scores",
    "bayesfuse": "log_odds",
}


def _segment(pos: pl.Expr) -> pl.Expr:
    """segfuse's segment of a 0-based rank: how many segment bounds it has passed."""
    return pl.sum_horizontal([(pos >= b).cast(pl.Int64) for b in SEGFUSE_BOUNDS[1:-1]])


def _hits(long: pl.LazyFrame, qrels: pl.LazyFrame) -> tuple[pl.DataFrame, int]:
    """Each run's hits (``_r, query_id, _p, hit``) on the judged queries, and how many queries are judged."""
    relevant = qrels.filter(pl.col(REL) >= 1).select(Q, D, pl.lit(1, pl.Int64).alias("hit")).unique()
    judged = qrels.select(Q).unique()
    hits = (
        long.join(judged, on=Q, how="semi")
        .join(relevant, on=[Q, D], how="left")
        .select(RUN, Q, POS, pl.col("hit").fill_null(0))
        .collect()
    )
    return hits, judged.select(pl.len()).collect().item()


def _arrays(frame: pl.DataFrame, key: str, value: str, runs: int) -> list[list[float]]:
    """One list per run of ``value`` indexed by ``key`` (0 where a key is absent)."""
    out = []
    for r in range(runs):
        part = frame.filter(pl.col(RUN) == r)
        size = int(part[key].max() + 1) if part.height else 0
        values = [0.0] * size
        for k, v in part.select(key, value).iter_rows():
            values[k] = float(v)
        out.append(values)
    return out


def train(
    method: str, long: pl.LazyFrame, qrels: pl.LazyFrame, runs: int, params: Mapping[str, Any]
) -> dict[str, Any]:
    """Learn ``method``'s values from the runs (``long``: positions ``_p``) and the judgments."""
    hits, n = _hits(long, qrels)
    if n == 0:
        msg = f"The training judgments (qrels=) have no query; {method} learns from judged queries."
        raise InputError(msg)
    per_q = hits.with_columns(pl.len().over(RUN, Q).alias("_len"))
    if method in ("posfuse", "slidefuse"):  # P(relevant | rank), over the lists that reach the rank
        probs = per_q.group_by(RUN, POS).agg(pl.col("hit").mean())
        return {"probs": _arrays(probs, POS, "hit", runs)}
    if method == "probfuse":
        segments = int(params["n_segments"])
        seg = (pl.col("_len") / segments).ceil().cast(pl.Int64)
        probs = (
            per_q.with_columns((pl.col(POS) // seg).alias("_k"))
            .group_by(RUN, Q, "_k")
            .agg(pl.col("hit").mean())
            .sort(Q)  # ranx adds the queries' values in query order, then divides by n
            .group_by(RUN, "_k")
            .agg(pl.col("hit").cum_sum().last())
        )
        out = _arrays(probs, "_k", "hit", runs)
        return {"probs": [[v / n for v in row] + [0.0] * (segments - len(row)) for row in out]}
    if method == "segfuse":
        k = _segment(pl.col(POS))
        sizes = [b - a for a, b in zip(SEGFUSE_BOUNDS, SEGFUSE_BOUNDS[1:], strict=False)]
        size = pl.col("_k").replace_strict(list(range(len(sizes))), sizes, return_dtype=pl.Float64)
        probs = (
            per_q.filter(pl.col(POS) < SEGFUSE_BOUNDS[-1])
            .with_columns(k.alias("_k"))
            .group_by(RUN, Q, "_k")
            .agg(pl.col("hit").sum())
            .with_columns((pl.col("hit") / size).alias("hit"))
            .sort(Q)  # ranx adds the queries' values in query order, then divides by n
            .group_by(RUN, "_k")
            .agg(pl.col("hit").cum_sum().last())
        )
        out = _arrays(probs, "_k", "hit", runs)
        return {"probs": [[v / n for v in row] + [0.0] * (len(sizes) - len(row)) for row in out]}
    if method == "bayesfuse":
        odds = []
        for r in range(runs):
            mine = per_q.filter(pl.col(RUN) == r)
            values = []
            for start, end in zip(BAYES_BOUNDS, BAYES_BOUNDS[1:], strict=False):
                # ranx adds each judged query's precision / n in query order, dividing exactly
                # (Polars divides a column by a number as a product by its reciprocal)
                per_query = (
                    mine.filter(pl.col(POS).is_between(start, end - 1))
                    .group_by(Q)
                    .agg(pl.col("hit").sum())
                    .sort(Q)["hit"]
                )
                precision = 0.0
                for hits_in in per_query:
                    precision += hits_in / (end - start) / n
                precision = precision or 0.001
                negative = (1 - precision) or 0.001
                values += [math.log(precision / negative)] * (end - start)
            odds.append(values)
        return {"log_odds": odds}
    if method == "mapfuse":
        from rankframe._engine.evaluate import evaluate

        maps = []
        for r in range(runs):
            mine = long.filter(pl.col(RUN) == r).sort(POS)  # ranked, ties in input order
            run = mine.select(Q, D, pl.col("_v").alias("score"))
            with warnings.catch_warnings():  # a judged query the run lacks scores 0, as in ranx
                warnings.simplefilter("ignore", RankframeWarning)
                value = evaluate(qrels, run, "AP", ties="input", complete=True)["value"]
            maps.append(float(value[0]) if len(value) else 0.0)
        return {"map_scores": maps}
    raise AssertionError(method)  # pragma: no cover


def _lookup(values: list[list[float]], key: str) -> pl.LazyFrame:
    """The learnt values as a frame ``_r, key, _t`` to join on."""
    rows = [(r, i, float(v)) for r, vs in enumerate(values) for i, v in enumerate(vs)]
    return pl.LazyFrame(rows, schema={RUN: pl.UInt32, key: pl.Int64, "_t": pl.Float64}, orient="row")


def _window_sums(probs: list[list[float]], w: int) -> pl.LazyFrame:
    """``sum(probs[a:b])`` per run for every window of up to ``2w + 1`` ranks (``_r, _a, _b, _t``).

    Added left to right as ranx does (a difference of prefix sums differs in the last bit).
    """
    rows = []
    for r, values in enumerate(probs):
        span = min(2 * w + 1, len(values))
        for start in range(len(values) + 1):
            total = 0.0
            rows.append((r, start, start, total))
            for end in range(start + 1, min(start + span, len(values)) + 1):
                total += values[end - 1]
                rows.append((r, start, end, total))
    schema = {RUN: pl.UInt32, "_a": pl.Int64, "_b": pl.Int64, "_t": pl.Float64}
    return pl.LazyFrame(rows, schema=schema, orient="row")


def per_row(
    method: str, long: pl.LazyFrame, learnt: Mapping[str, Any], params: Mapping[str, Any]
) -> pl.LazyFrame:
    """Each run's score of its documents (``_v``) from their ranks ``_p`` and the learnt values."""
    if method == "mapfuse":
        maps = pl.LazyFrame(
            {RUN: range(len(learnt["map_scores"])), "_t": learnt["map_scores"]},
            schema={RUN: pl.UInt32, "_t": pl.Float64},
        )
        return long.join(maps, on=RUN, how="left").with_columns(
            (pl.col("_t") / (pl.col(POS) + 1)).alias("_v")
        )
    if method == "probfuse":
        probs = learnt["probs"]
        segments = pl.col(RUN).replace_strict(
            list(range(len(probs))), [len(p) for p in probs], return_dtype=pl.Int64
        )
        seg = (pl.len().over(RUN, Q) / segments).ceil().cast(pl.Int64)
        long = long.with_columns((pl.col(POS) // seg).alias("_k"))
        value = pl.col("_t") / (pl.col("_k") + 1)
        return long.join(_lookup(probs, "_k"), on=[RUN, "_k"], how="left").with_columns(
            value.fill_null(0.0).alias("_v")
        )
    if method == "segfuse":
        k = _segment(pl.col(POS))
        long = long.with_columns(pl.when(pl.col(POS) < SEGFUSE_BOUNDS[-1]).then(k).alias("_k"))
        value = (pl.col("_t") * (pl.col("_v") + 1)).fill_null(0.0)
        return long.join(_lookup(learnt["probs"], "_k"), on=[RUN, "_k"], how="left").with_columns(
            value.alias("_v")
        )
    if method in ("posfuse", "bayesfuse"):
        key = "probs" if method == "posfuse" else "log_odds"
        beyond = 0.0 if method == "posfuse" else MIN_LOG_ODDS  # past the learnt ranks
        joined = long.join(_lookup(learnt[key], POS), on=[RUN, POS], how="left")
        return joined.with_columns(pl.col("_t").fill_null(beyond).alias("_v"))
    if method == "slidefuse":
        w = int(params["w"])
        sizes = [len(p) for p in learnt["probs"]]
        last = pl.len().over(RUN, Q) - 1
        a = pl.max_horizontal(pl.col(POS) - w, pl.lit(0))
        b = pl.min_horizontal(pl.col(POS) + w, last)
        size = pl.col(RUN).replace_strict(list(range(len(sizes))), sizes, return_dtype=pl.Int64)
        long = long.with_columns(
            pl.min_horizontal(a, size).alias("_a"),
            pl.min_horizontal(b + 1, size).alias("_b"),
            (b - a + 1).cast(pl.Float64).alias("_w"),
        )
        return long.join(_window_sums(learnt["probs"], w), on=[RUN, "_a", "_b"], how="left").with_columns(
            (pl.col("_t") / pl.col("_w")).alias("_v")
        )
    raise AssertionError(method)  # pragma: no cover


def _sum(a: Aligned) -> pl.Expr:
    return _fold(a.v)


def _sum_odds(a: Aligned) -> pl.Expr:
    """bayesfuse: the sum of the runs' log-odds, a run without the document counting the least."""
    return reduce(lambda x, y: x + y, [v.fill_null(MIN_LOG_ODDS) for v in a.v])


for _name, _params, _doc in (
    (
        "probfuse",
        {"n_segments": None},
        "ProbFuse: P(relevant | segment) / segment number (Lillis et al. 2006)",
    ),
    ("segfuse", {}, "SegFuse: P(relevant | segment) * (score + 1) (Shokouhi 2007)"),
    (
        "slidefuse",
        {"w": None},
        "SlideFuse: P(relevant) averaged over ranks r - w..r + w (Lillis et al. 2008)",
    ),
    ("posfuse", {}, "PosFuse: P(relevant | rank) (Lillis et al. 2010)"),
    ("mapfuse", {}, "MAPFuse: the run's MAP / rank (Lillis et al. 2010)"),
    ("bayesfuse", {}, "BayesFuse: sum of log-odds of relevance per rank segment (Aslam & Montague 2001)"),
):
    _combine = _sum_odds if _name == "bayesfuse" else _sum
    register(Method(_name, _combine, reads_position=True, params=_params, doc=_doc, trained=True))
