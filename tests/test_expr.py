"""Expression builders inside a user's own group_by agree with evaluate()."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import rankframe as rf
from rankframe import expr as rfx

MEASURES = [
    "nDCG@10", "nDCG", "AP", "P@5", "R@10", "RR", "NumRet", "NumRel",
    # built from per-query partials in the planner (running-sum lists, shared values), inlined here
    "nDCG_rel", "RnDCG", "AP@5", "GMAP", "Bpref", "IPrecAvg",
    # read a per-query statistic as a column in the planner, broadcast here
    "Rprec", "RprecMult@0.4",
    "G", "RBP", "RBP(rel=2)", "RBPResidual",
]


def _judged(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(20):
        n = int(rng.integers(1, 30))
        scores = rng.integers(0, 5, n).astype(float)  # many exact ties
        labels = rng.integers(0, 4, n)
        for i in range(n):
            rows.append((f"q{q}", str(i + 5), scores[i], int(labels[i])))
    return pl.DataFrame(rows, schema=["qid", "docno", "score", "relevance"], orient="row")


@pytest.mark.parametrize("measure", MEASURES)
def test_builder_in_group_by_equals_evaluate(measure: str) -> None:
    df = _judged(1)
    mine = df.group_by("qid").agg(rfx.measure(measure, doc="docno").alias("v")).sort("qid")
    # alone (the hits-only plan where the measure allows it) and beside ERR@10, which reads
    # every row (the general plan: partials and per-query columns of its own)
    for others in ([], ["ERR@10"]):
        ref = rf.evaluate(judged=df, measures=[measure, *others], per_query=True)
        ref = ref.filter(pl.col("measure") == repr(rf.parse_measure(measure)[0])).sort("query_id")
        assert mine["qid"].to_list() == ref["query_id"].to_list()
        np.testing.assert_allclose(mine["v"].to_numpy(), ref["value"].to_numpy(), rtol=0, atol=1e-12)


def test_judged_frame_equals_split_qrels_and_run() -> None:
    df = _judged(2)
    run = df.select("qid", "docno", "score")
    qrels = df.select("qid", "docno", "relevance")
    a = rf.evaluate(judged=df, measures=MEASURES, per_query=True)
    b = rf.evaluate(qrels, run, MEASURES, per_query=True)
    assert a.select("query_id", "measure").equals(b.select("query_id", "measure"))
    # sums inside a group run in no fixed order: equal up to rounding
    np.testing.assert_allclose(a["value"].to_numpy(), b["value"].to_numpy(), rtol=0, atol=1e-12)


def test_short_builders_match_measure() -> None:
    df = _judged(3)
    out = df.group_by("qid").agg(
        rfx.ndcg(10, doc="docno").alias("a"),
        rfx.measure("nDCG@10", doc="docno").alias("b"),
        rfx.precision(5, doc="docno").alias("c"),
        rfx.measure("P@5", doc="docno").alias("d"),
    )
    assert out["a"].to_list() == out["b"].to_list()
    assert out["c"].to_list() == out["d"].to_list()


def test_over_window_form() -> None:
    # the same expression also works as a window: one value per row of each query
    df = _judged(4)
    per_row = df.with_columns(rfx.measure("AP", doc="docno").over("qid").alias("ap"))
    per_group = df.group_by("qid").agg(rfx.measure("AP", doc="docno").alias("ap"))
    joined = per_row.select("qid", "ap").unique().join(per_group, on="qid", suffix="_g")
    assert (joined["ap"] == joined["ap_g"]).all()


def test_relevance_level_in_builder() -> None:
    df = pl.DataFrame({"q": [1, 1, 1], "score": [3.0, 2.0, 1.0], "label": [1, 2, 0]})
    out = df.group_by("q").agg(rfx.measure("RR", label="label", doc=None, relevance_level=2).alias("rr"))
    assert out["rr"].to_list() == [0.5]  # first grade >= 2 at rank 2


# the measures whose inline form sorts by the ranking keys (Ctx.order) instead of ranking
SORTED_ONCE = ["nDCG@10", "nDCG", "nDCG@3", "AP", "AP@5", "P@5", "R@10", "RR", "RR@3", "Success@3"]


@pytest.mark.parametrize("measure", SORTED_ONCE)
def test_inline_builders_give_evaluates_bits_without_a_rank(measure: str) -> None:
    # a rank inside an aggregation ranks the group again at each reference (nDCG@10 read it 11
    # times: 9 s against 1.2 s at 2M rows); these read the rows sorted by (score, doc) instead
    expr = rfx.measure(measure, doc="docno")
    assert ".rank()" not in str(expr)
    for seed in (2, 3):
        df = _judged(seed)
        # unretrieved judged documents (null score) and integer doc ids compared as text
        df = df.with_columns(
            score=pl.when(pl.col("docno").cast(pl.Int64) % 7 == 0).then(None).otherwise(pl.col("score"))
        )
        mine = df.group_by("qid").agg(rfx.measure(measure, doc="docno").alias("v")).sort("qid")
        qrels = df.select(query_id="qid", doc_id="docno", relevance="relevance")
        run = df.filter(pl.col("score").is_not_null()).select(query_id="qid", doc_id="docno", score="score")
        ref = rf.evaluate(qrels, run, measures=[measure], per_query=True).sort("query_id")
        assert mine["qid"].to_list() == ref["query_id"].to_list()
        assert mine["v"].to_list() == ref["value"].to_list()  # the same bits
